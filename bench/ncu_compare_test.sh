#!/usr/bin/env bash
# ctest bench/ncu-compare: bench/ncu_compare.sh with a fake ncu (bench/fake_ncu.py, which refuses
# what ncu's documented command line does not have) and fake programs, on any machine.
#   bash bench/ncu_compare_test.sh [SCRIPT]      (default: bench/ncu_compare.sh)
# Checks that the script's ncu options are accepted, that it parses the CSV of two kernels into
# its table, that it runs the layer's profile after it, and that a refusal by ncu is shown.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=${1:-$here/ncu_compare.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/build/bench"
printf '#!/bin/sh\nexec python3 "%s" "$@"\n' "$here/fake_ncu.py" > "$work/bin/ncu"
printf '#!/bin/sh\necho "NVIDIA Test GPU"\n' > "$work/bin/nvidia-smi"
printf '#!/bin/sh\necho "the layer profile: 2 kernels"\n' > "$work/build/bench/profile_lessons"
printf '#!/bin/sh\nexit 0\n' > "$work/build/bench/profile_lessons_gpu"
chmod +x "$work/bin/"* "$work/build/bench/"*
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

out=$(PATH="$work/bin:$PATH" bash "$script" "$work/build" 2>&1)
status=$?
echo "$out" | sed 's/^/  | /'
[[ $status == 0 ]] || fail "ncu_compare.sh exited with status $status, expected 0"
expect() { grep -qE -- "$1" <<< "$out" || fail "no line matching '$1' in its output"; }
expect '^== Nsight Compute on NVIDIA Test GPU'
# One table line per kernel and metric: 2 kernels x 12 metrics, values in base units.
expect '^lookup_kernel\(const float \*, const int \* +l1tex__t_requests_pipe_lsu_mem_global_op_ld\.sum +1,024 request$'
expect '^combine_kernel.* +dram__bytes_read\.sum +20,480 byte$'
expect '^combine_kernel.* +gpu__time_duration\.sum +24,576 nsecond$'
rows=$(grep -cE '^(lookup|combine)_kernel' <<< "$out")
[[ $rows == 24 ]] || fail "$rows table lines, expected 24 (2 kernels x 12 metrics)"
expect '^the layer profile: 2 kernels$'

# The fake refuses what ncu refuses, and the script shows ncu's words and fails.
refused=$(PATH="$work/bin:$PATH" ncu --page raw=false --csv "$work/build/bench/profile_lessons_gpu" 2>&1)
[[ $? == 1 ]] || fail "the fake ncu accepted --page raw=false"
grep -qF "invalid value 'raw=false' for --page: the values are details, raw, source, session" \
  <<< "$refused" || fail "the fake ncu's refusal does not name the value and the values: $refused"
printf '#!/bin/sh\necho "==ERROR== the profiling failed" >&2\nexit 3\n' > "$work/bin/ncu"
out=$(PATH="$work/bin:$PATH" bash "$script" "$work/build" 2>&1)
status=$?
[[ $status != 0 ]] || fail "ncu_compare.sh exited 0 after ncu failed"
grep -qF "==ERROR== the profiling failed" <<< "$out" || fail "ncu's own error is not shown: $out"
grep -qF "ncu failed with exit status 3" <<< "$out" || fail "no word of ncu's exit status: $out"

if [[ $failures != 0 ]]; then
  echo "ncu_compare.sh: $failures check(s) failed"
  exit 1
fi
echo "ncu_compare.sh: ncu's options accepted, 24 rows parsed, a failing ncu reported"
