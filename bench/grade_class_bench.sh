#!/usr/bin/env bash
# Times the class grader (python3 grader/class/grade_class.py) on N made-up submissions, the
# grader self-test's class of four in turn (grader/release/planted_bugs.sh, make_submission): full
# marks from the solutions, partial, a compile error, a hang (one test runs into its time
# limit). Prints each submission's score and wall time, the time of the course's one build
# with the stubs, and the total.
#   bash bench/grade_class_bench.sh [N] [WORK]   (N = 4; WORK: a folder kept afterwards,
#                                                 default a temporary one)
#   TEST_TIMEOUT=30 (seconds per test, as the self-test), JOBS=2 (build jobs), LABEL= (the
#   steps graded, grade_class.py -L), PARALLEL=P: then the class again, P at a time
#   (grade_class.py -P P, the base build reused), its time, and whether its results are the
#   same as one at a time (byte for byte but for the times and the addresses in memcheck's
#   reports, which differ from run to run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-4}
work=${2:-$(mktemp -d)}
[ -n "${2:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
work=$(cd "$work" && pwd)
chmod 755 "$work"  # the class grader runs the tests as andrea-student when run as root
fail() { echo "grade_class_bench: $*" >&2; exit 1; }
# shellcheck source=grader/release/planted_bugs.sh
source "$root/grader/release/planted_bugs.sh"

rm -rf "$work/solutions" "$work/submissions" "$work/results"
python3 "$root/grader/release/make_exercises.py" --solutions "$work/solutions" >/dev/null
kinds=(full partial compile-error hang)
for i in $(seq "$n"); do
  kind=${kinds[$(((i - 1) % 4))]}
  make_submission "$kind" "$work/solutions" "$work/submissions/$(printf '%03d' "$i")-$kind"
done

echo "grading $n submissions on $(nproc) cores (load $(cut -d' ' -f1-3 /proc/loadavg)) in $work"
start=$SECONDS
python3 "$root/grader/class/grade_class.py" "$work/submissions" --out "$work/results" \
  --work "$work/class" --test-timeout "${TEST_TIMEOUT:-30}" -j "${JOBS:-2}" ${LABEL:+-L "$LABEL"} |
  tee "$work/class.txt"
total=$((SECONDS - start))

# "  built, and the stubs graded 0, in 312 s" and "[3/4] 003-compile-error: 10.0/100 (41 s)"
base=$(sed -n 's/^  built, and the stubs graded 0, in \([0-9]*\) s$/\1/p' "$work/class.txt")
echo
echo "submission                 score       wall s"
sed -n 's|^\[[0-9]*/[0-9]*\] \(.*\): \(.*\) (\([0-9]*\) s)$|\1\t\2\t\3|p' "$work/class.txt" |
  awk -F'\t' '{printf "%-26s %-11s %6d\n", $1, $2, $3; s += $3} END {
    if (NR) printf "%-26s %-11s %6d   (mean %.0f s per submission)\n", "all submissions", "", s, s / NR }'
echo "course built once with the stubs, and graded: ${base:-?} s"
echo "total: $total s for $n submissions (load $(cut -d' ' -f1-3 /proc/loadavg))"

[ -n "${PARALLEL:-}" ] || exit 0
start=$SECONDS
python3 "$root/grader/class/grade_class.py" "$work/submissions" --out "$work/results-P$PARALLEL" \
  --work "$work/class" --reuse-base -P "$PARALLEL" --test-timeout "${TEST_TIMEOUT:-30}" \
  -j "${JOBS:-2}" ${LABEL:+-L "$LABEL"} > "$work/class-P$PARALLEL.txt"
echo "the same class, $PARALLEL at a time (the base build reused): $((SECONDS - start)) s"
untimed() {  # untimed FOLDER: its results without the times and the addresses
  for f in "$1"/grades*.csv "$1"/*/report.txt; do echo "== ${f#"$1"}"; sed 's/0x[0-9a-f]*/0x_/g' "$f"; done
  for f in "$1"/*/results.json; do
    echo "== ${f#"$1"}"
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r["execution_time"] = 0; print(json.dumps(r))' "$f" |
      sed 's/0x[0-9a-f]*/0x_/g'
  done
}
if diff <(untimed "$work/results") <(untimed "$work/results-P$PARALLEL") > "$work/parallel.diff"; then
  echo "results: the same as one at a time"
else
  echo "results: NOT the same as one at a time ($work/parallel.diff)"; exit 1
fi
