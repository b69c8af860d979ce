#!/usr/bin/env bash
# The lessons' kernels measured twice: by Nsight Compute on a GPU and by the CPU execution
# layer's profile (cudasim/README.md, "Measuring a kernel"), side by side.
#   bash bench/ncu_compare.sh [BUILD_DIR]      (default: build)
# Needs a GPU, ncu on the PATH, and both programs built (nvcc found at configure time):
#   cmake --build BUILD_DIR -j2 --target profile_lessons profile_lessons_gpu
# Goal: requests and sectors equal to ncu's; DRAM bytes within 20% (the layer counts each
# distinct sector once: a lower bound that the L2 cache usually reaches at these sizes).
# Not run in CI on a GPU; ctest bench/ncu-compare runs it with a fake ncu (bench/fake_ncu.py)
# that refuses any option outside ncu's documented ones, and checks the parsing.
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

gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1) || true
echo "== Nsight Compute on ${gpu_name:-a GPU (nvidia-smi did not name it)}"
# --page details (ncu's default page; its --page values are details, raw, source and session)
# with --csv: one row per kernel and metric, "ID","Process ID",...,"Kernel Name",...,
# "Metric Name","Metric Unit","Metric Value"; --print-units base: bytes and nanoseconds, not
# scaled units. ncu's own messages (stderr) are shown: a refused option says so. Printed as
# kernel, metric, value.
report=$(mktemp)
trap 'rm -f "$report"' EXIT
status=0
ncu --metrics "$metrics" --page details --csv --print-units base "$gpu" > "$report" || status=$?
if [[ $status != 0 ]]; then
  echo "ncu_compare.sh: ncu failed with exit status $status; what it printed:" >&2
  sed 's/^/  /' "$report" >&2
  exit 1
fi
python3 - "$report" <<'PARSE'
import csv, sys
with open(sys.argv[1]) as f:
    rows = list(csv.DictReader(line for line in f if line.startswith('"')))
needed = ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value")
missing = [c for c in needed if rows and c not in rows[0]]
if not rows or missing:
    with open(sys.argv[1]) as f:
        printed = "".join("  " + line for line in f.readlines()[:20])
    sys.exit(f"ncu_compare.sh: ncu printed no CSV rows with the columns {', '.join(needed)}"
             + (f" (missing: {', '.join(missing)})" if missing else "") + ". It printed:\n"
             + printed)
for r in rows:
    print(f"{r['Kernel Name'][:40]:40} {r['Metric Name']:58} {r['Metric Value']:>14} {r['Metric Unit']}")
PARSE
echo
echo "== the CPU execution layer's profile (ld req = l1tex__t_requests_..._op_ld.sum, ld sect ="
echo "   l1tex__t_sectors_..._op_ld.sum, bank cnf = the two bank_conflicts metrics summed,"
echo "   DRAM bytes = dram__bytes_read.sum + dram__bytes_write.sum at least)"
"$sim"
