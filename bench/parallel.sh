#!/usr/bin/env bash
# Lesson 10: the sharded forward and backward at p = 1..4 against one process.
#   bash bench/parallel.sh [BUILD_DIR] [BATCH] [REPEAT]     (default: build 8 10)
# Builds nothing: BUILD_DIR/apps/andrea-embed-parallel must exist (OpenMPI installed).
# Prints one line per p: the slowest rank's mean per step of each phase (lookup, all-reduce,
# + wpe, backward), the all-reduce's share of the forward, and the one-process reference
# (reference::combine_batch, reference::embedding_backward on the whole table) timed by rank 0
# in the same run. More ranks than cores (--oversubscribe) shares the cores: read p > cores
# as "what the scheme costs in work and copies", not as a speed-up.
set -euo pipefail
build=${1:-build} batch=${2:-8} repeat=${3:-10}
bin=$build/apps/andrea-embed-parallel
[[ -x $bin ]] || { echo "parallel.sh: $bin not found: cmake --build $build --target andrea-embed-parallel" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "andrea-embed-parallel --batch $batch --repeat $repeat, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-3s %-10s %-12s %-12s %-9s %-12s %-12s %-12s %-12s\n' p forward lookup all-reduce share backward "one fwd" "one bwd" check
for p in 1 2 3 4; do
  out=$(mpirun -np "$p" --oversubscribe "$bin" --batch "$batch" --repeat "$repeat")
  line=$(grep "slowest rank" <<<"$out")
  one=$(grep "one process" <<<"$out")
  ok=$(grep -c ": yes$" <<<"$out" || true)
  num() { grep -oP "$1 \K[0-9.]+" <<<"$2" | head -1; }
  printf '%-3s %-10s %-12s %-12s %-9s %-12s %-12s %-12s %-12s\n' "$p" "$(num forward "$line")" \
    "$(num '\(lookup' "$line")" "$(num 'all-reduce' "$line")" "$(grep -oP '= \K[0-9]+%' <<<"$line")" \
    "$(num backward "$line")" "$(num forward "$one")" "$(num backward "$one")" "$ok/3 yes"
done
echo "(ms per step, slowest rank, mean of $repeat after one warm-up)"
