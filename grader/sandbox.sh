#!/bin/sh
# Runs a command of a submission's grading in a sandbox:
#   grader/sandbox.sh [-w WRITABLE_DIR]... [-n] [--] COMMAND [ARG]...
# The sandbox is bubblewrap (Debian's bubblewrap): no network, its own process tree (every
# process ends with the command), the whole file system read-only but for the -w folders, and a
# private /tmp of bounded size. Run as root, the command runs as the user nobody, so that the
# process-count limit holds. Limits (setrlimit through util-linux's prlimit), from the
# environment: ANDREA_SANDBOX_MEMORY bytes of address space per process (8 GiB),
# ANDREA_SANDBOX_PROCESSES processes and threads (256), ANDREA_SANDBOX_FILE bytes in one file
# (1 GiB), ANDREA_SANDBOX_TMP bytes in /tmp (256 MiB); no core files. With ANDREA_SANDBOX_OUTPUT
# set, the output goes to a file of at most that many bytes, printed when the command ends (one
# that writes more is killed by SIGXFSZ): a flood costs its reader neither memory nor time.
# ANDREA_SANDBOX_READ: folders under /tmp to keep visible (read-only) over the private /tmp
# (the course this script belongs to always is). The goldens are seen through a copy, made in
# ANDREA_SANDBOX_SCRATCH (default $TMPDIR or /tmp): a command that writes into them fails, and
# says which file.
# -n, or ANDREA_SANDBOX=off (grader/sandbox.py sets it where bubblewrap cannot work): the
# limits alone (-n for the command only: what it starts through sandbox.sh is sandboxed).
# Class grading (lessons/grade_class.py) runs every test program through it.
set -eu
if [ "${1:-}" = --limits ]; then  # -n: the limits alone, the output as it comes
  shift
  exec prlimit "--as=${ANDREA_SANDBOX_MEMORY:-8589934592}" "--nproc=${ANDREA_SANDBOX_PROCESSES:-256}" \
    "--fsize=${ANDREA_SANDBOX_FILE:-1073741824}" --core=0 -- "$@"
fi
if [ "${1:-}" = --inside ]; then  # in the sandbox: the limits, then the command
  shift
  file=${ANDREA_SANDBOX_OUTPUT:-${ANDREA_SANDBOX_FILE:-1073741824}}
  [ "$file" -le "${ANDREA_SANDBOX_FILE:-1073741824}" ] || file=${ANDREA_SANDBOX_FILE}
  set -- prlimit "--as=${ANDREA_SANDBOX_MEMORY:-8589934592}" \
    "--nproc=${ANDREA_SANDBOX_PROCESSES:-256}" "--fsize=$file" --core=0 -- "$@"
  if [ -z "${ANDREA_SANDBOX_OUTPUT:-}" ]; then
    exec "$@"
  fi
  out=$(mktemp)
  status=0
  "$@" >"$out" 2>&1 || status=$?
  cat "$out"
  rm -f "$out"
  if [ "$status" = $((128 + 25)) ]; then  # SIGXFSZ
    echo "[andrea] the test program wrote more than $file bytes of output or into one file, and was stopped"
  fi
  exit "$status"  # 128 + N for a command ended by signal N, as bubblewrap reports it too
fi

# The course this script belongs to stays visible (read-only) even where it lies under /tmp:
# the sandbox runs this script again inside.
course=$(cd "$(dirname "$0")/.." && pwd)
writable="--ro-bind $course $course"
limits_only=""
for path in $(echo "${ANDREA_SANDBOX_READ:-}" | tr ':' ' '); do
  writable="$writable --ro-bind $path $path"
done
while [ $# -gt 0 ]; do
  case "$1" in
    -w) writable="$writable --bind $2 $2"; shift 2 ;;
    -n) limits_only=1; shift ;;
    --) shift; break ;;
    *) break ;;  # the command (as ctest and CMake give it: sandbox.sh PROGRAM ARG...)
  esac
done
if [ -n "$limits_only" ]; then
  exec "$0" --limits "$@"
fi
if [ "${ANDREA_SANDBOX:-on}" = off ]; then
  exec "$0" --inside "$@"
fi
as_nobody=""
if [ "$(id -u)" = 0 ]; then  # root ignores the process limit
  as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
# The command sees the goldens through a copy, looked at when it ends: one that wrote into them
# (a new file, a changed or removed one) fails, and the report names the file. (Elsewhere a
# write is refused, read-only, and not reported; bubblewrap 0.8 has no overlay to see it.)
scratch=$(mktemp -d "${ANDREA_SANDBOX_SCRATCH:-${TMPDIR:-/tmp}}/andrea-golden.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -n "$as_nobody" ]; then
  chown 65534:65534 "$scratch"  # the copy is made by, and writable for, the user nobody
fi
$as_nobody cp -r "$course/golden" "$scratch/golden"
touch "$scratch/start"
status=0
# shellcheck disable=SC2086  # $as_nobody and $writable are lists of words
$as_nobody bwrap --ro-bind / / --dev /dev --proc /proc \
  --size "${ANDREA_SANDBOX_TMP:-268435456}" --tmpfs /tmp $writable \
  --bind "$scratch/golden" "$course/golden" \
  --unshare-all --die-with-parent --new-session -- "$0" --inside "$@" || status=$?
wrote=$(cd "$scratch/golden" && find . -cnewer "$scratch/start")  # written, made, removed
if [ -n "$wrote" ]; then
  file=$(cd "$scratch/golden" && find . ! -type d -cnewer "$scratch/start" | head -1)
  wrote=${file#./}
  [ -n "$wrote" ] || wrote=" (a file removed or renamed)"
fi
if [ -n "$wrote" ]; then
  echo "[andrea] the test program tried to write golden/$wrote: the course's files are read-only while grading (the write went to a copy, and fails the test)"
  [ "$status" != 0 ] || status=1
fi
exit "$status"
