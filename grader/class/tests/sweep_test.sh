#!/usr/bin/env bash
# Without bubblewrap, as root (the sandbox's "user" mode: student code runs as the user nobody):
# what a command leaves behind is swept when it ends (grader/class/sandbox.py's sweep). Its command
# writes files (a dot file too) and a folder at the top of /tmp and /dev/shm, and leaves a
# process that escaped its process group (a double fork and setsid, as a daemon does); none of
# them may outlive it, and a file of root's there stays. Skipped (77) when not root. Label
# core-cpu, about a second.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "sweep: needs root (the user nobody is root's to switch to)"; exit 77; }
mark="andrea-sweep-$$"
touch "/tmp/$mark-root"  # root's: stays
trap 'rm -f "/tmp/$mark-root"; pkill -KILL -f "$mark" 2>/dev/null' EXIT
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
ANDREA_GRADER="$root/grader/class" MARK="$mark" python3 - <<'PY' || fail "the command did not run"
import os, sys
sys.path.insert(0, os.environ["ANDREA_GRADER"])
import sandbox
sandbox.set_mode("user")
mark = os.environ["MARK"]
# The daemon's command line says {mark}-daemon; this one only builds it ($d), so that pgrep finds
# the daemon alone.
script = (f"echo x > /tmp/{mark}-file; echo x > /tmp/.{mark}-dot; mkdir -p /tmp/{mark}-dir/sub /dev/shm/{mark}; d=daemon; "
          f"(setsid sh -c \"sleep 300; : {mark}-$d\" </dev/null >/dev/null 2>&1 &); "
          f"sleep 0.2; pgrep -f '{mark}-dae[m]on' >/dev/null")
done = sandbox.run(["sh", "-c", script], limits=sandbox.Limits(wall_s=30))
sys.exit(done.returncode)
PY
pgrep -f "$mark-daemon" >/dev/null && fail "the process that left its group is still running"
for path in "/tmp/$mark-file" "/tmp/.$mark-dot" "/tmp/$mark-dir" "/dev/shm/$mark"; do
  [ ! -e "$path" ] || fail "$path, the command's, is still there"
done
[ -e "/tmp/$mark-root" ] || fail "/tmp/$mark-root, root's, was removed"
echo "sweep: $((6 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
