#!/usr/bin/env bash
# The lessons' kernels measured twice: by Nsight Compute on a GPU and by the CPU execution
# layer's profile (cudasim/README.md, "Measuring a kernel"), side by side.
#   bash bench/ncu_compare.sh [BUILD_DIR]      (default: build)
# Needs a GPU, ncu on the PATH, and both programs built (nvcc found at configure time):
#   cmake --build BUILD_DIR -j2 --target profile_lessons profile_lessons_gpu
# Goal: requests and sectors equal to ncu's; DRAM bytes within 20% (the layer counts each
# distinct sector once: a lower bound that the L2 cache usually reaches at these sizes).
# Not run in CI.
set -euo pipefail

build=${1:-build}
sim=$build/bench/profile_lessons
gpu=$build/bench/profile_lessons_gpu
for bin in "$sim" "$gpu"; do
  if [[ ! -x $bin ]]; then
    echo "ncu_compare.sh: $bin not found; build it first:" >&2
    echo "  cmake --build $build -j2 --target profile_lessons profile_lessons_gpu" >&2
    exit 1
  fi
done
if ! command -v ncu > /dev/null; then
  echo "ncu_compare.sh: ncu (Nsight Compute) is not on the PATH" >&2
  exit 1
fi

metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics+=,dram__bytes_read.sum
metrics+=,dram__bytes_write.sum
metrics+=,gpu__time_duration.sum

echo "== Nsight Compute on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
# One CSV row per kernel and metric: "ID","Process ID",...,"Kernel Name",...,"Metric Name",
# "Metric Unit","Metric Value". Printed as kernel, metric, value.
ncu --metrics "$metrics" --csv --page raw=false "$gpu" 2> /dev/null |
  python3 -c '
import csv, sys
rows = list(csv.DictReader(line for line in sys.stdin if line.startswith("\"")))
for r in rows:
    print(f"{r[\"Kernel Name\"][:40]:40} {r[\"Metric Name\"]:58} {r[\"Metric Value\"]:>14} {r[\"Metric Unit\"]}")
'
echo
echo "== the CPU execution layer's profile (ld req = l1tex__t_requests_..._op_ld.sum, ld sect ="
echo "   l1tex__t_sectors_..._op_ld.sum, bank cnf = the two bank_conflicts metrics summed,"
echo "   DRAM bytes = dram__bytes_read.sum + dram__bytes_write.sum at least)"
"$sim"
