#!/usr/bin/env bash
# Without bubblewrap, as root (the sandbox's "user" mode: student code runs as the user
# andrea-student, sandbox.py's STUDENT): what a command leaves behind is swept when it ends
# (grader/class/sandbox.py's sweep), and its processes are held to one memory budget together.
#   1. Its command runs as that user, writes files (a dot file too) and a folder at the top of
#      /tmp and /dev/shm, and leaves a process that escaped its process group (a double fork and
#      setsid, as a daemon does); none of them may outlive it, and a file of root's there stays.
#   2. Four children that touch 96 MiB each, under 256 MiB for all its processes together
#      (sandbox.Limits.resident_bytes; each alone is well under the per-process limit): stopped,
#      with the reason, long before they end (by the memory cgroup the kernel holds them to,
#      sandbox.MemoryGroup, where the machine has one; else by the grader's sum).
#   3. A second worker's command (grade_class.py -P) runs as that worker's own user,
#      andrea-student-2: the process limit of one submission is never another's.
# Skipped (77) when not root. Label core-cpu, about 2 seconds.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "sweep: needs root (the student's user is root's to switch to)"; exit 77; }
mark="andrea-sweep-$$"
touch "/tmp/$mark-root"  # root's: stays
trap 'rm -f "/tmp/$mark-root"; pkill -KILL -f "$mark" 2>/dev/null' EXIT
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
ANDREA_GRADER="$root/grader/class" MARK="$mark" python3 - <<'PY' || fail "the command did not run as andrea-student"
import os, sys
sys.path.insert(0, os.environ["ANDREA_GRADER"])
import sandbox
sandbox.set_mode("user")
mark = os.environ["MARK"]
# The daemon's command line says {mark}-daemon; this one only builds it ($d), so that pgrep finds
# the daemon alone.
script = (f"echo x > /tmp/{mark}-file; echo x > /tmp/.{mark}-dot; mkdir -p /tmp/{mark}-dir/sub /dev/shm/{mark}; d=daemon; "
          f"(setsid sh -c \"sleep 300; : {mark}-$d\" </dev/null >/dev/null 2>&1 &); "
          f"sleep 0.2; pgrep -f '{mark}-dae[m]on' >/dev/null && [ \"$(id -un)\" = {sandbox.STUDENT} ]")
done = sandbox.run(["sh", "-c", script], limits=sandbox.Limits(wall_s=30))
sys.exit(done.returncode)
PY
pgrep -f "$mark-daemon" >/dev/null && fail "the process that left its group is still running"
for path in "/tmp/$mark-file" "/tmp/.$mark-dot" "/tmp/$mark-dir" "/dev/shm/$mark"; do
  [ ! -e "$path" ] || fail "$path, the command's, is still there"
done
[ -e "/tmp/$mark-root" ] || fail "/tmp/$mark-root, root's, was removed"
said=$(ANDREA_GRADER="$root/grader/class" python3 - <<'PY'
import os, sys, time
sys.path.insert(0, os.environ["ANDREA_GRADER"])
import sandbox
sandbox.set_mode("user")
child = "python3 -c 'import time; x = b\"x\" * (96 << 20); time.sleep(20)'"
start = time.monotonic()
done = sandbox.run(["sh", "-c", " & ".join([child] * 4) + "; wait"],
                   limits=sandbox.Limits(wall_s=60, resident_bytes=256 << 20))
print(f"{done.memory} after {time.monotonic() - start:.0f} s")
PY
)
echo "$said" | grep -q "^held more than 256 MiB of memory together after [0-9] s$" ||
  fail "four children of 96 MiB under 256 MiB together were not stopped in time: '$said'"
pgrep -f 'x = b"x" \* \(96' >/dev/null && fail "a child held to the budget is still running"
ANDREA_GRADER="$root/grader/class" python3 - <<'PY' || fail "a second worker's command did not run as andrea-student-2"
import os, sys
sys.path.insert(0, os.environ["ANDREA_GRADER"])
import sandbox
sandbox.set_mode("user")
sandbox.set_worker(2)
done = sandbox.run(["sh", "-c", f'[ "$(id -un)" = {sandbox.STUDENT}-2 ]'], limits=sandbox.Limits(wall_s=30))
sys.exit(done.returncode)
PY
echo "sweep: $((9 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
