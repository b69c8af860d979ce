#!/usr/bin/env bash
# ctest tools/install-deps: install-deps.sh on a machine whose apt cannot reach a registry, with
# fake dpkg-query, apt-get and sudo on the PATH (nothing is installed, nothing is asked of the
# real apt). It must say what is missing and how to go on, never stop inside apt unexplained.
#   bash tests/tools/install_deps_test.sh [SCRIPT]      (default: install-deps.sh)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
script=${1:-$root/install-deps.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
# dpkg-query: every package missing, unless $work/installed exists.
cat > "$work/bin/dpkg-query" << EOF2
#!/bin/sh
[ -e "$work/installed" ] && printf 'install ok installed' || exit 1
EOF2
# apt-get: records each call; "update" fails unless $work/reachable; "install" always fails.
cat > "$work/bin/apt-get" << EOF2
#!/bin/sh
echo "\$*" >> "$work/apt-calls"
case "\$*" in
  *update*) [ -e "$work/reachable" ] && exit 0
            echo "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'" >&2
            exit 100 ;;
  *) echo "E: Unable to locate package libcli11-dev" >&2; exit 100 ;;
esac
EOF2
printf '#!/bin/sh\nexec "$@"\n' > "$work/bin/sudo"
chmod +x "$work/bin/"*
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
run() {  # run NAME EXPECTED_STATUS [VAR=VALUE...]: runs the script, keeps its output in $out
  local name=$1 expected=$2
  shift 2
  out=$(env PATH="$work/bin:$PATH" "$@" bash "$script" 2>&1)
  local status=$?
  echo "--- $name (exit status $status)"
  echo "$out" | sed 's/^/  | /'
  [[ $status == "$expected" ]] || fail "$name: exit status $status, expected $expected"
}
says() { grep -qF -- "$2" <<< "$out" || fail "$1: does not say '$2'"; }

run "registry unreachable" 1
says "registry unreachable" "apt-get update failed (above): the package registry cannot be reached"
says "registry unreachable" "needed by the build: cmake ninja-build g++ make libfmt-dev nlohmann-json3-dev"
says "registry unreachable" "optional (what needs them is left out): libbenchmark-dev"
says "registry unreachable" "ANDREA_NO_APT=1 CMAKE_PREFIX_PATH=/opt/deps ./test.sh"
says "registry unreachable" "cmake --preset default -DCMAKE_PREFIX_PATH=/opt/deps"

touch "$work/reachable"
run "a package apt cannot find" 1
says "a package apt cannot find" "apt-get install failed (above) for: cmake ninja-build g++"
says "a package apt cannot find" "E: Unable to locate package libcli11-dev"
says "a package apt cannot find" "ANDREA_NO_APT=1"

rm -f "$work/apt-calls"
run "ANDREA_NO_APT=1" 0 ANDREA_NO_APT=1
says "ANDREA_NO_APT=1" "ANDREA_NO_APT=1: nothing installed"
says "ANDREA_NO_APT=1" "needed by the build: cmake"
[[ ! -e "$work/apt-calls" ]] || fail "ANDREA_NO_APT=1: apt-get was called: $(cat "$work/apt-calls")"

rm -f "$work/apt-calls"
touch "$work/installed"
run "all installed" 0
says "all installed" "dependencies: all installed"
[[ ! -e "$work/apt-calls" ]] || fail "all installed: apt-get was called: $(cat "$work/apt-calls")"

if [[ $failures != 0 ]]; then
  echo "install-deps.sh: $failures check(s) failed"
  exit 1
fi
echo "install-deps.sh: every case as expected"
