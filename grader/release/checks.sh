# shellcheck shell=bash
# The self-tests' bookkeeping (test_grader.sh and test_autograders.sh source this file):
#   pass                      counts a check that held
#   fail WHAT                 prints FAIL: WHAT and counts it
#   expect FILE PATTERN WHAT  passes when FILE holds a line matching the extended regex PATTERN
failures=0
passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { passes=$((passes + 1)); }
expect() {
  if grep -Eq -- "$2" "$1"; then pass; else fail "$3: no /$2/ in $1"; fi
}
