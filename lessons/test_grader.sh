#!/usr/bin/env bash
# Tests the grader itself (CI runs it):
#   1. the untouched exercise stubs        -> 0 points, every lesson "not implemented"
#   2. the solutions dropped into lessons/ -> full marks
#   3. three deliberate bugs in the solutions -> the right tests fail, with a useful message:
#        the batch index used as the position (cuda/combine.cu, lesson 5)
#        a reduction missing its __syncthreads (cuda/norm.cu, lesson 2)
#        another rank's rows left unwritten by the masked lookup (cuda/vocab_parallel.cu, lesson 10)
# Usage: lessons/test_grader.sh [work-dir]   (CPU backends only: -DANDREA_CUDA=OFF)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
failures=0
passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() {  # expect FILE PATTERN WHAT
  if grep -Eq -- "$2" "$1"; then passes=$((passes + 1)); else fail "$3: no /$2/ in the grade report"; fi
}

grade() {  # grade LESSONS_DIR BUILD_DIR REPORT
  cmake -S "$root" -B "$2" -DANDREA_GRADE=ON -DANDREA_CUDA=OFF -DANDREA_LESSONS_DIR="$1" >/dev/null
  cmake --build "$2" -j2 --target lesson_tests >/dev/null
  python3 "$root/lessons/grade.py" --build-dir "$2" | tee "$3"
}

echo "== 1. the stubs"
grade "$root/lessons" "$work/build-stubs" "$work/stubs.txt"
expect "$work/stubs.txt" "^total +0\.0/70$" "stubs total"
for lesson in "L01 lookup" "L02 norm" "L03 dot product" "L04 position table" "L05 combine" "L06 parameter count" "L10 vocab parallel"; do
  expect "$work/stubs.txt" "^$lesson +not implemented +not implemented .* 0\.0/10$" "stubs $lesson"
done

echo "== 2. the solutions"
python3 "$root/lessons/make_exercises.py" --solutions "$work/solutions" >/dev/null
grade "$work/solutions" "$work/build-solutions" "$work/solutions.txt"
expect "$work/solutions.txt" "^total +70\.0/70$" "solutions total"

echo "== 3. three deliberate bugs"
cp -r "$work/solutions" "$work/wrong"
sed -i 's|const std::int64_t t = r % n;  // the position inside the sequence|const std::int64_t t = r / n;  // BUG: the batch index|' "$work/wrong/05_combine/combine.cu"
sed -i '/if (tid < active) partial\[tid\] += partial\[tid + active\];/{n;d}' "$work/wrong/02_norm/norm.cu"
sed -i 's|dst\[c\] = mine ? wte_shard\[local \* d + c\] : 0.0f;  // 64-bit offsets|if (mine) dst[c] = wte_shard[local * d + c];  // BUG: zeros never written|' "$work/wrong/10_vocab_parallel/vocab_parallel.cu"
grep -q "BUG: zeros never written" "$work/wrong/10_vocab_parallel/vocab_parallel.cu" || fail "could not plant the masking bug"
grep -q "BUG: the batch index" "$work/wrong/05_combine/combine.cu" || fail "could not plant the combine bug"
[ "$(grep -c "__syncthreads" "$work/wrong/02_norm/norm.cu")" -lt "$(grep -c "__syncthreads" "$work/solutions/02_norm/norm.cu")" ] ||
  fail "could not plant the missing barrier"
grade "$work/wrong" "$work/build-solutions" "$work/wrong.txt"
expect "$work/wrong.txt" "^L05 combine +[0-9]+/[0-9]+ pass +[0-9]+/[0-9]+ pass" "wrong L05 row"
expect "$work/wrong.txt" "L05-cudasim Combine\.BatchUsesPositionInSequenceNotBatchIndex: .*first wrong element \[1, 0\] expected 101 got 1" "position bug message"
expect "$work/wrong.txt" "^L05 combine +([0-9]+)/\\1 pass" "the C++ combine still passes"
expect "$work/wrong.txt" "L02-cudasim .*(first wrong element|expected)" "missing barrier message"
expect "$work/wrong.txt" "L10-cudasim VocabParallelLookup\.HandWorkedMasking: .*first wrong element \[0, 0\] expected 0 got -?nan" "masking bug message"
expect "$work/wrong.txt" "^L10 vocab parallel +([0-9]+)/\\1 pass +[0-9]+/[0-9]+ pass" "the C++ masked lookup still passes"
expect "$work/wrong.txt" "^L01 lookup .* 10\.0/10$" "untouched lesson keeps full marks"
if grep -Eq "^total +70\.0/70$" "$work/wrong.txt"; then fail "bugs still got full marks"; fi

echo "grader: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
