#!/bin/sh
# Runs a command of a submission's grading in a sandbox: the compiler building the student's
# runners, and each runner (grader/remote/): every process that runs or builds student code.
#   grader/class/sandbox.sh [-w WRITABLE_DIR]... [-n] [--] COMMAND [ARG]...
# The sandbox is bubblewrap (Debian's bubblewrap): no network, its own process tree (every
# process ends with the command), of the file system only what it needs, read-only (the system's
# /usr and a few files of /etc, the course, the work folder) but for the -w folders, a private
# /tmp of bounded size, and the paths of ANDREA_SANDBOX_HIDE (':'-separated: the
# course's solutions, the hidden tests, the base build, the other submissions, the results)
# replaced by empty ones. Its environment holds only PATH, the locale, the CPU layer's and the
# sanitizers' settings: not the grader's (no hidden seed). Run as root, the command runs as the
# user ANDREA_SANDBOX_UID, ANDREA_SANDBOX_GID (sandbox.py: andrea-student, made for it, who owns
# nothing else; nobody when unset), so that the process-count limit holds. Limits (setrlimit
# through util-linux's prlimit), from the environment: ANDREA_SANDBOX_MEMORY bytes of address
# space per process (8 GiB), ANDREA_SANDBOX_PROCESSES processes and threads (64),
# ANDREA_SANDBOX_FILE bytes in one file (1 GiB), ANDREA_SANDBOX_TMP bytes in /tmp (256 MiB); no
# core files. ANDREA_SANDBOX_READ: folders under /tmp to keep visible (read-only) over the
# private /tmp (this script's folder always is).
# -n, or ANDREA_SANDBOX=off (grader/class/sandbox.py sets it where bubblewrap cannot work): the
# limits alone (-n for the command only: what it starts through sandbox.sh is sandboxed).
# ANDREA_SANDBOX=user: no bubblewrap, but the student's user (when run as root), the cleared
# environment and the limits (the Gradescope autograder where its container allows no more).
set -eu
if [ "${1:-}" = --inside ]; then  # in the sandbox, or -n: the limits, then the command
  shift
  exec prlimit "--as=${ANDREA_SANDBOX_MEMORY:-8589934592}" "--nproc=${ANDREA_SANDBOX_PROCESSES:-64}" \
    "--fsize=${ANDREA_SANDBOX_FILE:-1073741824}" --core=0 -- "$@"
fi

# This script's folder stays visible (read-only) even where it lies under /tmp: the sandbox
# runs this script again inside.
here=$(cd "$(dirname "$0")" && pwd)
binds="--ro-bind $here $here"
limits_only=""
for path in $(echo "${ANDREA_SANDBOX_READ:-}" | tr ':' ' '); do
  binds="$binds --ro-bind $path $path"
done
# ANDREA_SANDBOX_VIEW (REAL=VIEW:...): a folder seen at another path in the sandbox, read-only,
# or writable when named by -w (a worker's copy of the class's build, whose files name another
# folder: grader/class/grade_class.py -P).
view_of() {
  for pair in $(echo "${ANDREA_SANDBOX_VIEW:-}" | tr ':' ' '); do
    if [ "${pair%%=*}" = "$1" ]; then echo "${pair#*=}"; return; fi
  done
  echo "$1"
}
for pair in $(echo "${ANDREA_SANDBOX_VIEW:-}" | tr ':' ' '); do
  binds="$binds --ro-bind ${pair%%=*} ${pair#*=}"
done
while [ $# -gt 0 ]; do
  case "$1" in
    -w) binds="$binds --bind $2 $(view_of "$2")"; shift 2 ;;
    -n) limits_only=1; shift ;;
    --) shift; break ;;
    *) break ;;  # the command
  esac
done
# As root, where sandbox.py made one (MemoryGroup): the memory cgroup that holds this command's
# student code together, joined before any of it runs (with no sandbox too; not by a trusted
# command, -n, whose own sandboxed children join it).
if [ -z "$limits_only" ] && [ -n "${ANDREA_SANDBOX_CGROUP:-}" ] && [ "$(id -u)" = 0 ]; then
  echo $$ > "$ANDREA_SANDBOX_CGROUP"
fi
if [ -n "$limits_only" ] || [ "${ANDREA_SANDBOX:-on}" = off ]; then
  exec "$0" --inside "$@"
fi
# What the command may know of the environment (the same list as grader/remote/client.cpp's).
kept="PATH=${PATH:-/usr/bin:/bin} TMPDIR=/tmp HOME=/tmp"
for name in $(env | sed -n 's/^\(LANG\|LC_ALL\|CUDASIM_[A-Z_]*\|[AUL]SAN_OPTIONS\|ANDREA_SANDBOX_MEMORY\|ANDREA_SANDBOX_PROCESSES\|ANDREA_SANDBOX_FILE\)=.*/\1/p'); do
  kept="$kept $name=$(printenv "$name")"
done
as_student=""
if [ "$(id -u)" = 0 ]; then  # root ignores the process limit
  as_student="setpriv --reuid=${ANDREA_SANDBOX_UID:-65534} --regid=${ANDREA_SANDBOX_GID:-65534} --clear-groups"
fi
if [ "${ANDREA_SANDBOX:-on}" = user ]; then
  # No bubblewrap (a container that cannot make namespaces, as on Gradescope): the student's
  # user, the cleared environment and the limits; what that user may not read is hidden by its
  # permissions (grader/class/gradescope.py), not by this script.
  # shellcheck disable=SC2086  # $as_student and $kept are lists of words
  exec $as_student env -i $kept "$0" --inside "$@"
fi
for path in $(echo "${ANDREA_SANDBOX_HIDE:-}" | tr ':' ' '); do  # after the binds: over them
  if [ -d "$path" ]; then
    binds="$binds --tmpfs $path"
  elif [ -e "$path" ]; then
    binds="$binds --ro-bind /dev/null $path"
  fi
done
setenv="--clearenv"
for pair in $kept; do
  setenv="$setenv --setenv ${pair%%=*} ${pair#*=}"
done
# The file system is an allow-list: the system's programs and libraries (/usr, and the links or
# folders /bin, /lib... of the root), the files of /etc that the loader and the compilers read,
# this script's folder, and the folders the grader names (ANDREA_SANDBOX_READ: the course and the
# work folder; -w: writable). No other path of the host: another copy of the course, the home
# folders, /opt, /srv, /mnt are not there.
system="--ro-bind /usr /usr"
for top in bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$top" ]; then
    system="$system --symlink $(readlink "/$top") /$top"
  elif [ -d "/$top" ]; then
    system="$system --ro-bind /$top /$top"
  fi
done
for path in /etc/ld.so.cache /etc/ld.so.conf /etc/ld.so.conf.d /etc/alternatives /etc/passwd \
            /etc/group /etc/nsswitch.conf /etc/localtime; do
  if [ -e "$path" ]; then system="$system --ro-bind $path $path"; fi
done
# shellcheck disable=SC2086  # $as_student, $system, $binds and $setenv are lists of words
exec $as_student bwrap $system --dev /dev --proc /proc \
  --size "${ANDREA_SANDBOX_TMP:-268435456}" --tmpfs /tmp $binds $setenv \
  --unshare-all --die-with-parent --new-session -- "$0" --inside "$@"
