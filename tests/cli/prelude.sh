# What each CLI test script starts with (sourced: . "$(dirname "$0")/prelude.sh" "$1"): the
# program under test as an absolute path ($exe), a temporary folder removed at exit ($tmp), and
# fail, which prints its message and counts it ($failures).
set -u
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
