#!/usr/bin/env bash
# No sandbox, no class: where bubblewrap cannot make a sandbox (here a bwrap that fails as it does
# in a container without user namespaces), grade_class.py refuses before it builds anything, with
# the reason and the way out (--unsafe). Label core-cpu, well under a second.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/class/ada"
chmod 755 "$work" "$work/bin"  # the probe may run as the student's user
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' > "$work/bin/bwrap"
chmod +x "$work/bin/bwrap"
echo "// a submission" > "$work/class/ada/lookup.cpp"
PATH="$work/bin:$PATH" python3 "$root/grader/class/grade_class.py" "$work/class" --out "$work/results" \
  > "$work/out.txt" 2>&1
status=$?
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
[ "$status" = 2 ] || fail "exit status $status, expected 2"
grep -q "no sandbox: bubblewrap cannot make a sandbox here: bwrap: No permissions" "$work/out.txt" ||
  fail "the reason is not given"
grep -q -- "--unsafe" "$work/out.txt" || fail "the way out (--unsafe) is not named"
[ ! -e "$work/results/grades.csv" ] || fail "grades were written"
cat "$work/out.txt"
echo "no-sandbox: $((3 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
