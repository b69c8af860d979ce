#!/usr/bin/env bash
# Tests the grader itself (CI runs it):
#   1. the untouched exercise stubs        -> 0 points, every lesson "not implemented"
#   2. the solutions dropped into lessons/ -> full marks
#   3. deliberate bugs in the solutions -> the right tests fail, with a useful message:
#        the batch index used as the position (cuda/combine.cu, lesson 5)
#        a reduction missing its __syncthreads (cuda/norm.cu, lesson 2)
#        a kernel without its bounds guard (cuda/lookup.cu, lesson 1): the memcheck report
#        a compile error (cuda/position.cu, lesson 4): 0 for that step only, the compiler's
#        message shown, the old test program not graded; the other lessons keep their marks
#        RoPE pairs (i, i + d/2) taken for (2i, 2i + 1) (reference/rope.cpp, lesson 7)
#        sin and cos swapped in the sinusoidal table (cuda/sinusoidal.cu, lesson 7)
#        a plain += instead of atomicAdd, which loses updates (cuda/backward.cu, lesson 8)
#        the output row's gradient multiplied by itself, not the centre row (reference/training.cpp, lesson 9)
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

grade() {  # grade LESSONS_DIR BUILD_DIR REPORT   (grade.py builds lesson by lesson)
  cmake -S "$root" -B "$2" -DANDREA_GRADE=ON -DANDREA_CUDA=OFF -DANDREA_LESSONS_DIR="$1" >/dev/null
  python3 "$root/lessons/grade.py" --build-dir "$2" 2>/dev/null | tee "$3"
}

# The lessons, from lessons/lessons.json: "L01 lookup", "L04 position table", ...
mapfile -t lessons < <(python3 -c 'import json, sys
for l in json.load(open(sys.argv[1]))["lessons"]: print(l["label"], l["title"])' "$root/lessons/lessons.json")
full=$((10 * ${#lessons[@]}))

echo "== 1. the stubs"
grade "$root/lessons" "$work/build-stubs" "$work/stubs.txt"
expect "$work/stubs.txt" "^total +0\.0/$full$" "stubs total"
for lesson in "${lessons[@]}"; do
  expect "$work/stubs.txt" "^$lesson +not implemented +not implemented .* 0\.0/10$" "stubs $lesson"
done

echo "== 2. the solutions"
python3 "$root/lessons/make_exercises.py" --solutions "$work/solutions" >/dev/null
grade "$work/solutions" "$work/build-solutions" "$work/solutions.txt"
expect "$work/solutions.txt" "^total +$full\.0/$full$" "solutions total"

echo "== 3. deliberate bugs"
cp -r "$work/solutions" "$work/wrong"
sed -i 's|const std::int64_t t = r % n;  // the position inside the sequence|const std::int64_t t = r / n;  // BUG: the batch index|' "$work/wrong/05_combine/combine.cu"
sed -i '/if (tid < active) partial\[tid\] += partial\[tid + active\];/{n;d}' "$work/wrong/02_norm/norm.cu"
sed -i 's|  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) dst\[c\] = src\[c\];|  dst[threadIdx.x] = src[threadIdx.x];  // BUG: no bounds guard|' "$work/wrong/01_lookup/lookup.cu"
sed -i '0,/^__global__/s//int planted_error = ;  \/\/ BUG: does not compile\n__global__/' "$work/wrong/04_position_table/position.cu"
sed -i 's|dst\[c\] = mine ? wte_shard\[local \* d + c\] : 0.0f;  // 64-bit offsets|if (mine) dst[c] = wte_shard[local * d + c];  // BUG: zeros never written|' "$work/wrong/10_vocab_parallel/vocab_parallel.cu"
grep -q "BUG: zeros never written" "$work/wrong/10_vocab_parallel/vocab_parallel.cu" || fail "could not plant the masking bug"
grep -q "BUG: the batch index" "$work/wrong/05_combine/combine.cu" || fail "could not plant the combine bug"
grep -q "BUG: no bounds guard" "$work/wrong/01_lookup/lookup.cu" || fail "could not plant the missing bounds guard"
grep -q "BUG: does not compile" "$work/wrong/04_position_table/position.cu" || fail "could not plant the compile error"
sed -i 's/2 \* i + 1/i + d \/ 2/g; s/(r, 2 \* i)/(r, i)/g' "$work/wrong/07_position_schemes/rope.cpp"
sed -i 's/make_float2(static_cast<float>(sin(angle)), static_cast<float>(cos(angle)))/make_float2(static_cast<float>(cos(angle)), static_cast<float>(sin(angle)))/' \
  "$work/wrong/07_position_schemes/sinusoidal.cu"
sed -i 's|  atomicAdd(&dwte\[id \* d + c\], dout\[i\]);|  dwte[id * d + c] += dout[i];  // BUG: not atomic|' "$work/wrong/08_backward/backward.cu"
grep -q "x(r, i + d / 2)" "$work/wrong/07_position_schemes/rope.cpp" || fail "could not plant the rope pairing bug"
grep -q "make_float2(static_cast<float>(cos(angle))" "$work/wrong/07_position_schemes/sinusoidal.cu" ||
  fail "could not plant the sin/cos swap"
grep -q "BUG: not atomic" "$work/wrong/08_backward/backward.cu" || fail "could not plant the lost-update bug"
sed -i 's|dv\[c\] = g \* u\[c\];   // d(u . v)/dv = u|dv[c] = g * v[c];  // BUG: v, not u|' "$work/wrong/09_training/training.cpp"
grep -q "BUG: v, not u" "$work/wrong/09_training/training.cpp" || fail "could not plant the training bug"
[ "$(grep -c "__syncthreads" "$work/wrong/02_norm/norm.cu")" -lt "$(grep -c "__syncthreads" "$work/solutions/02_norm/norm.cu")" ] ||
  fail "could not plant the missing barrier"
grade "$work/wrong" "$work/build-solutions" "$work/wrong.txt"
expect "$work/wrong.txt" "^L05 combine +[0-9]+/[0-9]+ pass +[0-9]+/[0-9]+ pass" "wrong L05 row"
expect "$work/wrong.txt" "L05-cudasim Combine\.BatchUsesPositionInSequenceNotBatchIndex: .*first wrong element \[1, 0\] expected 101 got 1" "position bug message"
expect "$work/wrong.txt" "^L05 combine +([0-9]+)/\\1 pass" "the C++ combine still passes"
expect "$work/wrong.txt" "L02-cudasim .*(first wrong element|expected)" "missing barrier message"
expect "$work/wrong.txt" "^L01 lookup +([0-9]+)/\\1 pass +[0-9]+/[0-9]+ pass" "lookup: C++ full, CUDA not"
expect "$work/wrong.txt" "L01-cudasim .*kernel 'lookup_kernel'.*invalid (read|write).* (past the end|before the start) of a [0-9,]+-byte allocation" "missing bounds guard: the memcheck report"
expect "$work/wrong.txt" "^L04 position table +([0-9]+)/\\1 pass +does not compile .* 5\.0/10$" "compile error: C++ step kept, CUDA step 0"
expect "$work/wrong.txt" "L04-cudasim does not compile: .*position\.cu:[0-9]+: .*expected primary-expression" "compile error: the compiler's message"
[ ! -e "$work/build-solutions/tests/test_L04_position_cudasim" ] || fail "the old L04 cudasim test program is still there"
expect "$work/wrong.txt" "^L03 dot product .* 10\.0/10$" "untouched lesson 3 keeps full marks"
expect "$work/wrong.txt" "^L06 parameter count .* 10\.0/10$" "untouched lesson 6 keeps full marks"
expect "$work/wrong.txt" "L07-cpu Rope\.IssueWorkedExample: .*first wrong element \[0, 0\] expected 0\.540301979 got -0\.3011686" "rope pairing bug message"
expect "$work/wrong.txt" "L07-cudasim Sinusoidal\.HandWorkedWidth4: .*first wrong element \[0, 0\] expected 0 got 1" "sin/cos swap message"
expect "$work/wrong.txt" "L08-cudasim BackwardAtomic\.NoUpdateIsLost: dwte row 2 channel [0-9]+ holds [0-9]+, expected 4096" "lost-update message"
expect "$work/wrong.txt" "^L08 backward +([0-9]+)/\\1 pass" "the C++ backward still passes"
expect "$work/wrong.txt" "L09-cpu Training\.RowGradientsMatchPyTorch: .*dtarget.*first wrong element" "training gradient bug message"
expect "$work/wrong.txt" "^L09 training +[0-9]+/[0-9]+ pass +([0-9]+)/\\1 pass" "the CUDA training step still passes"
expect "$work/wrong.txt" "L10-cudasim VocabParallelLookup\.HandWorkedMasking: .*first wrong element \[0, 0\] expected 0 got -?nan" "masking bug message"
expect "$work/wrong.txt" "^L10 vocab parallel +([0-9]+)/\\1 pass +[0-9]+/[0-9]+ pass" "the C++ masked lookup still passes"
if grep -Eq "^total +$full\.0/$full$" "$work/wrong.txt"; then fail "bugs still got full marks"; fi

echo "== 4. the same wrong code, graded again, gets the same score"
python3 "$root/lessons/grade.py" --build-dir "$work/build-solutions" 2>/dev/null > "$work/wrong-again.txt"
if diff <(grep -E "^(L[0-9]+|total)" "$work/wrong.txt") <(grep -E "^(L[0-9]+|total)" "$work/wrong-again.txt"); then
  passes=$((passes + 1))
else
  fail "a second grading of the same code gave another score"
fi

echo "== 5. a label selects lessons or backends, and the total counts only what was graded"
python3 "$root/lessons/grade.py" --build-dir "$work/build-solutions" -L cudasim 2>/dev/null > "$work/cudasim.txt"
expect "$work/cudasim.txt" "^L03 dot product +\(not graded\) +[0-9]+/[0-9]+ pass .* 5\.0/5$" "-L cudasim: the CUDA column alone"
expect "$work/cudasim.txt" "^total +[0-9.]+/$((full / 2))$" "-L cudasim: total out of 5 per lesson"

echo "grader: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
