#!/usr/bin/env bash
# Tests the grader itself (CI runs it). One build of the course serves every case: the class
# grader builds the student release once, with its stubs, and each submission then recompiles
# only the exercise files it holds.
#   1. the student release (make_exercises.py --release): no line of a solution in it, no
#      grader/hidden, one commit; a solution line planted in a copy is found
#   2. one class, graded on the release (grader/class/grade_class.py), its submissions made here from the
#      solutions:
#        the release's stubs -> 0 (the class grader refuses to go on otherwise)
#        full marks, partial, a compile error, a hang (at ANDREA-120M's size only: one test runs
#          into its time limit) -> grades.csv and their results.json as
#          grader/release/test_grader/ holds them, byte for byte but for the times
#        correct kernels that waste memory (lessons 1, 2, 5, 8) -> a fifth of each CUDA step
#          lost, with the verdict line its lesson's README quotes
#        deliberate bugs in the solutions -> the right tests fail, with a useful message:
#          the batch index used as the position (cuda/combine.cu, lesson 5)
#          a reduction missing its __syncthreads (cuda/norm.cu, lesson 2)
#          a kernel without its bounds guard (cuda/lookup.cu, lesson 1): the memcheck report, 0
#          a compile error (cuda/position.cu, lesson 4): 0 for that step only, the compiler's
#          message shown; the other lessons keep their marks
#          RoPE pairs (i, i + d/2) taken for (2i, 2i + 1) (reference/rope.cpp, lesson 7)
#          sin and cos swapped in the sinusoidal table (cuda/sinusoidal.cu, lesson 7)
#          a plain += instead of atomicAdd (cuda/backward.cu, lesson 8): the racecheck report
#          the output row's gradient multiplied by itself, not the centre row (reference/training.cpp, lesson 9)
#          another rank's rows left unwritten by the masked lookup (cuda/vocab_parallel.cu, lesson 10)
#        exercises that end their runner (exit(0), _exit(0), abort(), kill(getpid(), SIGKILL)),
#          print fake googletest output, or write into golden/ -> each call fails with the
#          message; the goldens are unchanged
#        a CUDA step computed on the host beside a kernel (lesson 1: the kernel runs, the host
#          writes the output; lesson 2: an empty kernel) -> 0 for that step, "on the host"
#        a class of cheats against the verdict itself, two forms each (make_cheats below): a
#          constructor that ends the runner before main, googletest's skip line printed and
#          thrown, #include of a solution by a relative and an absolute path, a solution read at
#          run time and thrown, the CPU layer's reports dropped, a CUDA step computed on the
#          host (a loop; no kernel at all), a second main(), the grader's seed and command line
#          looked for, a daemon that outlives its runner and writes the results, another copy
#          of the course outside the grading tree #include'd and read at run time -> each scores
#          what its real work deserves, with the reason; no solution text in any report; no
#          process left; nothing written outside the work folder
#        a stub-only submission and folders named grades.csv and =1+1 -> 0, graded, escaped
#        a build that fills the disk (a 600 MiB array) -> stopped, 0 with the reason
#        bad submissions: an empty folder, a plain file, no exercise files, a link out of its
#          folder, two students of one name -> 0 with the reason; a name with spaces and
#          non-ASCII letters is graded
#        an unwritable results folder -> a clear message
#   3. the student's loop in the class's base build with the "wrong" submission's files
#      (grade.py without --class, no sandbox): lessons 1, 2, 3 and 5 graded again get the same
#      score, run again (--rerun) or their results
#      reused (programs unchanged); a label selects lessons and backends;
#      ctest never runs a program older than its sources; a runner that writes into golden/ or
#      into the build tree is refused (its seccomp filter) and gets no points
# Usage: grader/release/test_grader.sh [work-dir]   (CPU backends only; ANDREA_UPDATE_EXPECTED=1
# rewrites grader/release/test_grader/ from this run)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
chmod 755 "$work"  # the class grader runs the tests as andrea-student when run as root
expected=$root/grader/release/test_grader
# shellcheck source=grader/release/checks.sh
source "$root/grader/release/checks.sh"  # pass, fail, expect
plant() {  # plant FILE SED-SCRIPT MARK: edit a copy of a solution, and check the edit took
  sed -i "$2" "$1"
  grep -q -- "$3" "$1" || fail "could not plant '$3' in $1"
}
started=$SECONDS
full=$(python3 -c 'import json, sys; print(10 * len(json.load(open(sys.argv[1]))["lessons"]))' \
  "$root/lessons/lessons.json")

echo "== 1. the student release"
release=$work/release
rm -rf "$release" "$work/leaky"
python3 "$root/grader/release/make_exercises.py" --release "$release" | tail -1
[ ! -e "$release/grader/hidden" ] && [ ! -e "$release/reference/lookup.cpp" ] && pass ||
  fail "the release holds the hidden tests or a solution file"
cp -r "$release" "$work/leaky"
grep -m1 "static_cast<double>(x) \* x" "$root/reference/norm.cpp" >> "$work/leaky/apps/ids_input.cpp"
if python3 "$root/grader/release/release.py" --check "$work/leaky" > "$work/leaky.txt"; then
  fail "a solution line planted in the release was not found"
else
  expect "$work/leaky.txt" "apps/ids_input.cpp:[0-9]+: .*\(from reference/norm.cpp\)" "the planted line, named"
fi

echo "== 2. a class, graded on the release"
python3 "$root/grader/release/make_exercises.py" --solutions "$work/solutions" >/dev/null
in=$work/submissions
rm -rf "$in" "$work/results"
mkdir -p "$in"
copy() {  # copy STUDENT LAYOUT FILE...: solution files into a submission (lessons|folder|flat)
  local student=$1 layout=$2 file
  shift 2
  for file in "$@"; do
    case $layout in
      lessons) mkdir -p "$in/$student/lessons/$(dirname "$file")"; cp "$work/solutions/$file" "$in/$student/lessons/$file" ;;
      folder) mkdir -p "$in/$student/$(dirname "$file")"; cp "$work/solutions/$file" "$in/$student/$file" ;;
      flat) mkdir -p "$in/$student"; cp "$work/solutions/$file" "$in/$student/" ;;
    esac
  done
}
# shellcheck source=grader/release/planted_bugs.sh
source "$root/grader/release/planted_bugs.sh"  # make_submission, plant_edge_bugs, expect_edge_bugs
# shellcheck source=grader/release/cheats.sh
source "$root/grader/release/cheats.sh"  # make_cheats, expect_cheats
for kind in full partial compile-error hang; do make_submission $kind "$work/solutions" "$in/$kind"; done
copy disk flat 01_lookup/lookup.cpp  # a 600 MiB object file: stopped by the class's --disk-limit
echo 'char andrea_fills_the_disk[600 << 20] = {1};  // BUG: fills the disk' >> "$in/disk/lookup.cpp"

# (Lessons 6 and 11 hold no planted bug: they are left as the stubs, whose results the class
# reuses; lesson 3 stays the solution, the witness that an untouched lesson keeps its marks.)
# shellcheck disable=SC2086
copy wrong lessons $(cd "$work/solutions" && ls 0[1-57-9]_*/*.cpp 0[1-57-9]_*/*.cu 10_*/*.cpp 10_*/*.cu)
w=$in/wrong/lessons
plant "$w/05_combine/combine.cu" 's|const std::int64_t t = r % n;  // the position inside the sequence|const std::int64_t t = r / n;  // BUG: the batch index|' "BUG: the batch index"
sed -i '/if (tid < active) partial\[tid\] += partial\[tid + active\];/{n;d}' "$w/02_norm/norm.cu"
[ "$(grep -c "__syncthreads" "$w/02_norm/norm.cu")" -lt "$(grep -c "__syncthreads" "$work/solutions/02_norm/norm.cu")" ] ||
  fail "could not plant the missing barrier"
plant "$w/01_lookup/lookup.cu" 's|  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) dst\[c\] = src\[c\];|  dst[threadIdx.x] = src[threadIdx.x];  // BUG: no bounds guard|' "BUG: no bounds guard"
plant "$w/04_position_table/position.cu" '0,/^__global__/s//int planted_error = ;  \/\/ BUG: does not compile\n__global__/' "BUG: does not compile"
plant "$w/10_vocab_parallel/vocab_parallel.cu" 's|dst\[c\] = mine ? wte_shard\[local \* d + c\] : 0.0f;  // 64-bit offsets|if (mine) dst[c] = wte_shard[local * d + c];  // BUG: zeros never written|' "BUG: zeros never written"
plant "$w/07_position_schemes/rope.cpp" 's/2 \* i + 1/i + d \/ 2/g; s/(r, 2 \* i)/(r, i)/g' "x(r, i + d / 2)"
plant "$w/07_position_schemes/sinusoidal.cu" 's/make_float2(static_cast<float>(sin(angle)), static_cast<float>(cos(angle)))/make_float2(static_cast<float>(cos(angle)), static_cast<float>(sin(angle)))/' \
  "make_float2(static_cast<float>(cos(angle))"
plant "$w/08_backward/backward.cu" 's|  atomicAdd(&dwte\[id \* d + c\], dout\[i\]);|  dwte[id * d + c] += dout[i];  // BUG: not atomic|' "BUG: not atomic"
plant "$w/09_training/training.cpp" 's|dv\[c\] = g \* u\[c\];   // d(u . v)/dv = u|dv[c] = g * v[c];  // BUG: v, not u|' "BUG: v, not u"

# Correct kernels that waste memory (planted_bugs.sh): the efficiency tests' fifth of each step.
copy wasteful lessons 01_lookup/lookup.cu 02_norm/norm.cu 05_combine/combine.cu 08_backward/backward.cu
plant_waste "$in/wasteful/lessons"

# Boundary slips and wrong-row bugs (grader/release/planted_bugs.sh): lessons 9 and 10, in a tree of
# their own (the "wrong" tree plants other bugs on the same lines).
# (Only the lessons its bugs are in, and lesson 8, which lesson 9 builds on: the others are the
# stubs, whose results the class reuses.)
# shellcheck disable=SC2086
copy edges lessons $(cd "$work/solutions" && ls 0[89]_*/*.cpp 0[89]_*/*.cu 10_*/*.cpp 10_*/*.cu)
plant_edge_bugs "$in/edges/lessons"

# Each C++ step of lessons 1-6 tries to pass without doing its work.
copy cheats folder 01_lookup/lookup.cpp 02_norm/norm.cpp 03_dot_product/dot.cpp \
  04_position_table/position.cpp 05_combine/combine.cpp 06_parameter_count/params.cpp
c=$in/cheats
plant "$c/01_lookup/lookup.cpp" '0,/^void lookup(.*{$/s//&\n  std::exit(0);  \/\/ CHEAT/' "std::exit(0);  // CHEAT"
plant "$c/02_norm/norm.cpp" '0,/^double sum_of_squares(.*{$/s//&\n  std::_Exit(0);  \/\/ CHEAT/' "_Exit(0);  // CHEAT"
plant "$c/03_dot_product/dot.cpp" '0,/^DotAndNorms dot_and_norms(.*{$/s//&\n  std::abort();  \/\/ CHEAT/' "std::abort();  // CHEAT"
plant "$c/04_position_table/position.cpp" '0,/^void positions(.*{$/s//&\n  std::raise(SIGKILL);  \/\/ CHEAT/' "SIGKILL);  // CHEAT"
plant "$c/05_combine/combine.cpp" '0,/^void add_rows(.*{$/s//&\n  std::printf("[       OK ] Combine.Golden (0 ms)\\n[  PASSED  ] 1 test.\\n100%% tests passed, 0 tests failed out of 1\\n");\n  return;  \/\/ CHEAT/' "return;  // CHEAT"
plant "$c/06_parameter_count/params.cpp" "0,/FloatView wpe) {/s##&\n  std::ofstream(\"$root/golden/params.json\") << \"{}\";  // CHEAT#" "// CHEAT"
# Each CUDA step of lessons 1-2 computes on the host beside a kernel that does nothing of use:
# lookup's kernel runs but the host writes the output; l2_norm launches an empty kernel.
copy cheats folder 01_lookup/lookup.cu 02_norm/norm.cu
plant "$c/01_lookup/lookup.cu" 's|^  d_out.copy_to(out.flat());$|  for (std::size_t t = 0; t < ids.size(); ++t)  // CHEAT: the host writes out\n    for (std::int64_t c = 0; c < wte.cols(); ++c) out(static_cast<std::int64_t>(t), c) = wte(ids[t], c);|' "CHEAT: the host writes out"
plant "$c/02_norm/norm.cu" '/^  float norm = 0.0f;$/,/^  return norm;$/c\  nothing_kernel<<<1, 32>>>();  // CHEAT: an empty kernel beside the host loop\n  double sum = 0;\n  for (float x : v) sum += static_cast<double>(x) * x;\n  return static_cast<float>(std::sqrt(sum));' "CHEAT: an empty kernel"
sed -i 's|^float l2_norm(std::span<const float> v) {$|__global__ void nothing_kernel() {}\n\n\0|; 1i #include <cmath>' "$c/02_norm/norm.cu"
# The CPU layer's bookkeeping called from exercise code: lesson 3's CUDA step takes the launch
# tally (which would erase a memory error or a race), lesson 4's switches the tools off (no
# profile, no memcheck). Neither links: a name outside what an exercise may use (allowed_symbols.py).
copy cheats folder 03_dot_product/dot.cu 04_position_table/position.cu
plant "$c/03_dot_product/dot.cu" 's|^  check::dot_args(u, v);$|\0\n  (void)::cudasim::take_launch_tally();  // CHEAT: the tally erased|' "CHEAT: the tally erased"
plant "$c/04_position_table/position.cu" 's|^  check::positions_args(wpe, n, out);$|\0\n  ::cudasim::set_tools(0);  // CHEAT: the tools off|' "CHEAT: the tools off"
sed -i '1i #include "cudasim/launch.hpp"\n#include "cudasim/tools.hpp"' "$c/03_dot_product/dot.cu" "$c/04_position_table/position.cu"
for f in "$c"/*/*.cpp; do sed -i '1i #include <csignal>\n#include <cstdio>\n#include <cstdlib>\n#include <fstream>\n#include <unistd.h>' "$f"; done
golden_before=$(sha256sum "$root/golden/params.json")
make_cheats "$in/cheats2/lessons"  # (below) the class of cheats against the verdict
mkdir -p "$in/stub-only/lessons" "$in/grades.csv" "$in/=1+1"
cp -r "$release/lessons/01_lookup" "$release/lessons/02_norm" "$in/stub-only/lessons/"
cp "$work/solutions/01_lookup/lookup.cpp" "$in/grades.csv/"
cp "$work/solutions/01_lookup/lookup.cu" "$in/=1+1/"

mkdir "$in/empty" "$in/no-exercises" "$in/link-out" "$in/dup" "$in/DUP"
echo "my notes" > "$in/notes.txt"
echo "see my repository" > "$in/no-exercises/README.md"
ln -s /etc/hostname "$in/link-out/lookup.cpp"
cp "$work/solutions/01_lookup/lookup.cpp" "$in/dup/"
cp "$work/solutions/01_lookup/lookup.cpp" "$in/DUP/"
mkdir "$in/Zoë Ana Müller"
cp "$work/solutions/01_lookup/lookup.cpp" "$in/Zoë Ana Müller/"

if python3 "$root/grader/class/grade_class.py" "$in" --out "$in/notes.txt/results" > "$work/unwritable.txt" 2>&1; then
  fail "an unwritable results folder was accepted"
else
  expect "$work/unwritable.txt" "cannot write the results into .*notes.txt/results: Not a directory" "unwritable results folder"
fi

# Graded from the course's own tree, with hidden tests: the solutions are on disk, and the
# sandbox must keep them from every student process.
touch "$work/before-class"
# (Two submissions at a time: each runs its tests one at a time, so the two cores are both
# used; section 5 checks that -P 2 gives what -P 1 does.)
python3 "$root/grader/class/grade_class.py" "$in" --out "$work/results" --work "$work/class" -P 2 \
  --test-timeout 30 --disk-limit $((512 << 20)) --hidden-seed 7 | tee "$work/class.txt"
r=$work/results
kept_rows() {  # the rows of grades.csv kept byte for byte: the header, the maxima and the four
  grep -E '^(student|\(max\)|full|partial|compile-error|hang),'  # (the others: their own checks below)
}
for name in full partial compile-error hang; do
  python3 - "$r/$name/results.json" "$work/$name.json" <<'EOF'
import json, sys
result = json.load(open(sys.argv[1]))
result["execution_time"] = 0  # the one field that changes from run to run
open(sys.argv[2], "w").write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
EOF
done
if [ "${ANDREA_UPDATE_EXPECTED:-}" = 1 ]; then
  mkdir -p "$expected"
  kept_rows < "$r/grades.csv" > "$expected/grades.csv"
  for name in full partial compile-error hang; do cp "$work/$name.json" "$expected/$name.json"; done
fi
if diff -u "$expected/grades.csv" <(kept_rows < "$r/grades.csv"); then pass; else fail "grades.csv differs from grader/release/test_grader/grades.csv"; fi
for name in full partial compile-error hang; do
  if diff -u "$expected/$name.json" "$work/$name.json"; then pass; else fail "$name/results.json differs from grader/release/test_grader/$name.json"; fi
done
expect "$work/class.txt" "^\[[0-9]+/[0-9]+\] full: $full\.0/$full " "the solutions get full marks"
expect "$r/full/report.txt" "^total +$full\.0/$full$" "full marks in the report"
expect "$r/Zoe_Ana_Muller/report.txt" "^L01 lookup +([0-9]+)/\\1 pass" "a name with spaces and non-ASCII letters"

wr=$r/wrong/report.txt
expect "$wr" "^L05 combine +[0-9]+/[0-9]+ pass +[0-9]+/[0-9]+ pass" "wrong L05 row"
expect "$wr" "L05-cudasim Combine\.BatchUsesPositionInSequenceNotBatchIndex: .*first wrong element \[1, 0\] expected 101 got 1" "position bug message"
expect "$wr" "^L05 combine +([0-9]+)/\\1 pass" "the C++ combine still passes"
expect "$wr" "^L02 norm +([0-9]+)/\\1 pass +race .* 5\\.0/10$" "missing barrier: C++ full, CUDA 0 for its race"
expect "$wr" "L02-cudasim .*race \\((RAW|WAR)\\) on shared memory .*norm\\.cu:[0-9]+ .*norm\\.cu:[0-9]+" \
  "missing barrier: the racecheck report names both lines"
expect "$wr" "^L01 lookup +([0-9]+)/\\1 pass +memory error .* 5\.0/10$" "lookup: C++ full, CUDA 0 for its memory error"
expect "$wr" "L01-cudasim .*kernel 'lookup_kernel'.*invalid (read|write).* (past the end|before the start) of a [0-9,]+-byte allocation" "missing bounds guard: the memcheck report"
expect "$wr" "^L04 position table +([0-9]+)/\\1 pass +does not compile .* 5\.0/10$" "compile error: C++ step kept, CUDA step 0"
expect "$wr" "L04-cudasim does not compile: lessons/04_position_table/position\.cu:[0-9]+: .*expected primary-expression" "compile error: the compiler's message"
expect "$wr" "^L03 dot product .* 10\.0/10$" "untouched lesson 3 keeps full marks"
expect "$wr" "L07-cpu Rope\.IssueWorkedExample: .*first wrong element \[0, 0\] expected 0\.540301979 got -0\.3011686" "rope pairing bug message"
expect "$wr" "L07-cudasim Sinusoidal\.HandWorkedWidth4: .*first wrong element \[0, 0\] expected 0 got 1" "sin/cos swap message"
expect "$wr" "L08-cudasim-atomic BackwardAtomic\.NoUpdateIsLost: kernel 'backward_atomic_kernel' .*race \(RAW\) on global memory .*backward\.cu:[0-9]+ .*backward\.cu:[0-9]+" \
  "a plain += instead of atomicAdd: the racecheck report"
expect "$wr" "^L08 backward +([0-9]+)/\\1 pass .* 5\.0/5$" "the C++ backward still passes, on its own row"
expect "$wr" "^L08 backward \(atomic\) +race .* 0\.0/2\.5$" "the racy CUDA step 0"
expect "$wr" "^L08 backward \(deterministic\) + ([0-9]+)/\\1 pass .* 2\.5/2\.5$" "lesson 8's deterministic step keeps its row and its marks"
expect "$wr" "L09-cpu Training\.RowGradientsMatchPyTorch: .*dtarget.*first wrong element" "training gradient bug message"
expect "$wr" "^L09 training +[0-9]+/[0-9]+ pass +([0-9]+)/\\1 pass" "the CUDA training step still passes"
expect "$wr" "L10-cudasim VocabParallelLookup\.HandWorkedMasking: .*first wrong element \[0, 0\] expected 0 got -?nan" "masking bug message"
expect "$wr" "^L10 vocab parallel +([0-9]+)/\\1 pass +[0-9]+/[0-9]+ pass" "the C++ masked lookup still passes"

expect_edge_bugs "$r/edges/report.txt"
expect_waste "$r/wasteful/report.txt" "$r/grades.csv"

cr=$r/cheats/report.txt
expect "$cr" "L01-cpu .*the piece runner \(your code\) ended \(exit status 0\) during lookup\(\)" "exit(0) caught"
expect "$cr" "L02-cpu .*the piece runner \(your code\) ended \(exit status 0\) during (l2_norm|row_norms)\(\)" "_exit(0) caught"
expect "$cr" "L03-cpu .*was killed by SIGABRT during" "abort() caught"
expect "$cr" "L04-cpu .*was killed by SIGKILL during" "raise(SIGKILL) caught"
expect "$cr" "L03-cudasim does not compile: lessons/03_dot_product/dot\.cu:[0-9]+: uses cudasim::take_launch_tally\(\), which is not for exercise code" "the launch tally taken by exercise code: refused with the name"
expect "$cr" "L04-cudasim does not compile: lessons/04_position_table/position\.cu:[0-9]+: uses cudasim::set_tools\(unsigned int\)" "the tools switched off by exercise code: refused with the name"
for lesson in "L01 lookup" "L02 norm" "L03 dot product" "L04 position table" "L05 combine"; do
  if grep -Eq "^$lesson +([0-9]+)/\\1 pass" "$cr"; then fail "$lesson: full marks by cheating"; else pass; fi
done
expect "$cr" "L05-cpu .*first wrong element" "fake googletest output: the values are still checked"
expect "$cr" "^L01 lookup +.* on the host " "a host loop beside the lookup kernel: the CUDA step 0"
expect "$cr" "L01-cudasim .*computed lookup\(\) on the host: run again with its 1 kernel launch skipped" "a host loop beside a kernel: the reason"
expect "$cr" "^L02 norm +.* on the host " "l2_norm on the host beside an empty kernel: the CUDA step 0"
expect "$cr" "L02-cudasim .*computed l2_norm\(\) on the host: run again with its 1 kernel launch skipped" "an empty kernel beside a host loop: the reason"
expect "$cr" "^L06 parameter count +([0-9]+)/\\1 pass" "a write into golden/ that the sandbox refused: the work still counts"
expect "$r/disk/report.txt" "^its build wrote more than 512 MiB into its build folder, and was stopped" "a build that fills the disk is stopped"
[ "$(sha256sum "$root/golden/params.json")" = "$golden_before" ] && pass || fail "a submission changed golden/params.json"
expect_cheats "$r/cheats2/report.txt" "$r/grades.csv"
rm -rf /var/tmp/andrea-other-course.$$  # make_cheats's other copy of the course
expect "$r/grades.csv" "^stub-only,0\.00,.*,0\.00," "a stub-only submission graded with the cheats scores 0"
expect "$r/grades.csv" "^grades\.csv,5\.00," "a folder named grades.csv is graded"
expect "$r/grades.csv" "^'=1\+1,0\.00,5\.00," "a folder named =1+1: graded, its cell escaped"
if grep -rqF -f "$work/solution-lines.txt" "$r"; then
  fail "a solution's text is in the results: $(grep -rlF -f "$work/solution-lines.txt" "$r" | head -3 || true)"
else pass; fi
leftover=$(pgrep -fa 'runner_L[0-9]' || true)
[ -z "$leftover" ] && pass || fail "processes of the submissions are still alive: $leftover"
written=$(find /tmp /var/tmp "$HOME" "$root" -maxdepth 3 -newer "$work/before-class" ! -path "$work*" \
  ! -path "*/__pycache__*" ! -path "$root/build*" ! -type d 2>/dev/null | head -5 || true)
[ -z "$written" ] && pass || fail "written outside the work folder while the class was graded: $written"
# No test program of the class links a student's function (the runners do): it defines no
# function of andrea::cuda, and those of andrea::reference it defines are the course's solution,
# compiled from reference/ (the hidden tests'), never from lessons/ (nm -l: each one's source line).
for program in $(python3 -c 'import json, sys; [print(json.loads(l)["program"]) for l in open(sys.argv[1]) if l.strip()]' \
                 "$work/class/base/grade_plan.jsonl"); do
  base_program=$work/class/base/${program#"$work/class/build/"}
  tab=$'\t'  # nm -l: "ADDRESS T NAME<tab>FILE:LINE"
  linked=$(nm -C -l --defined-only "$base_program" | grep -E " T andrea::(reference|cuda)::" |
           grep -vE "^[0-9a-f]+ T andrea::reference::[^$tab]*$tab/[^$tab]*/reference/[a-z_0-9]+\.(cpp|hpp):[0-9]+$" || true)
  [ -z "$linked" ] && pass || fail "$base_program links a student's function: ${linked%%$'\n'*}"
done

echo "== 3. the student's loop, in the class's build with the \"wrong\" submission's files (the planted bugs)"
export ANDREA_SANDBOX=off  # as on a student's machine: no sandbox around the tests
b=$work/class/build
# (A submission's copy of the build loses the hidden tests' programs, objects and seed: the
# student's loop gets the whole base build back, and builds the files of work/class/lessons.)
rm -rf "$b" "$work/class/lessons" && cp -a "$work/class/base" "$b"
cp -a "$work/class/stubs" "$work/class/lessons" && cp -r "$in/wrong/lessons/." "$work/class/lessons/"
# The lessons whose bugs the tools find (memcheck 1, racecheck 2), a wrong value (5) and one left
# as the solution (3): graded again, without the sandbox, they score as in the class.
python3 "$release/lessons/grade.py" --build-dir "$b" --rerun -L 'L0[1235]' 2>/dev/null > "$work/again.txt"
if diff <(grep -E "^L0[1235] " "$wr") <(grep -E "^L0[1235] " "$work/again.txt"); then
  pass
else
  fail "the same code graded again, without the sandbox, gave another score"
fi
python3 "$release/lessons/grade.py" --build-dir "$b" -L L03 > "$work/reused.txt" 2>&1
expect "$work/reused.txt" "results reused .*L03-cpu L03-cudasim" "programs that did not change: their results reused"
if diff <(grep -E "^L03" "$work/again.txt") <(grep -E "^L03" "$work/reused.txt"); then pass; else
  fail "the reused results give another score"; fi
python3 "$release/lessons/grade.py" --build-dir "$b" -L 'L0[36]-cudasim' 2>/dev/null > "$work/label.txt"
expect "$work/label.txt" "^L03 dot product +\(not graded\) +[0-9]+/[0-9]+ pass .* 5\.0/5$" "-L: the CUDA column alone"
expect "$work/label.txt" "^total +[0-9.]+/10$" "-L: the total counts only what was graded"
[ "$(grep -c "^L[0-9]" "$work/label.txt")" = 2 ] && pass || fail "-L L0[36]-cudasim graded other lessons"

l=$work/class/lessons/01_lookup/lookup.cpp
cp "$l" "$work/lookup.cpp.kept"
sed -i 's|const auto row = wte.row(ids\[t\]);|const auto row = wte.row(0);  // BUG: row 0 always|' "$l"
if ctest --test-dir "$b" -L L01-cpu > "$work/stale.txt" 2>&1; then
  fail "ctest ran the old L01 program: the edit was not built"
else
  expect "$work/stale.txt" "build/runner_L01_cpu .* Passed" "ctest builds first"
fi
cp "$work/lookup.cpp.kept" "$l"

# A compile error in a lesson whose test programs are not built yet (a student's first grade of
# it): that step gets 0 and the compiler's message, every other step is graded, no traceback.
n=$work/class/lessons/02_norm/norm.cu
cp "$n" "$work/norm.cu.kept"
echo 'this line is not C++' >> "$n"
rm -f "$b/tests/test_L02_norm_cpu" "$b/tests/test_L02_norm_cudasim"  # the programs, not their sources
python3 "$release/lessons/grade.py" --build-dir "$b" -L 'L0[12]' > "$work/compile-error.txt" 2>&1 || true
expect "$work/compile-error.txt" "L02-cudasim does not compile: lessons/02_norm/norm\.cu:[0-9]+: " "a compile error in the student's loop: the compiler's message"
expect "$work/compile-error.txt" "^L02 norm +[0-9]+/[0-9]+ pass +does not compile" "a compile error: the C++ step of that lesson still graded"
# (lesson 1 holds the "wrong" submission's missing bounds guard, graded as in the class)
expect "$work/compile-error.txt" "^L01 lookup +([0-9]+)/\\1 pass +memory error .* 5\.0/10$" "a compile error: the other lesson graded"
if grep -q "Traceback" "$work/compile-error.txt"; then fail "a compile error crashed grade.py: $(tail -1 "$work/compile-error.txt")"; else pass; fi
cp "$work/norm.cu.kept" "$n"
# A test program deleted after its build: that step, 0 with the path; no traceback.
python3 "$release/lessons/grade.py" --build-dir "$b" -L 'L02' > /dev/null 2>&1 || true
rm -f "$b/tests/test_L02_norm_cpu"
python3 "$release/lessons/grade.py" --build-dir "$b" --no-build -L 'L02' > "$work/deleted.txt" 2>&1 || true
expect "$work/deleted.txt" "L02-cpu not built: its test program .*test_L02_norm_cpu is not there" "a deleted test program: named"
if grep -q "Traceback" "$work/deleted.txt"; then fail "a deleted test program crashed grade.py: $(tail -1 "$work/deleted.txt")"; else pass; fi

p=$work/class/lessons/06_parameter_count/params.cpp
cp "$p" "$work/params.cpp.kept"
sed -i "0,/FloatView wpe) {/s##&\n  std::ofstream(\"$root/golden/params.json\") << \"{}\";  // CHEAT#" "$p"
sed -i '1i #include <fstream>' "$p"
# (The runner's seccomp filter refuses the open, grader/remote/confine.hpp; grade.py's check that
# the goldens and programs are unchanged stays for runners without it: gpu, the sanitize preset.)
python3 "$release/lessons/grade.py" --build-dir "$b" -L L06-cpu 2>/dev/null > "$work/golden-write.txt" || true
if git -C "$root" diff --quiet golden/params.json; then pass; else fail "a runner wrote into golden/"; fi
expect "$work/golden-write.txt" "^total +0\.0/5$" "a write into golden/ earns no points"
git -C "$root" checkout -q golden/params.json
kept=$(sha256sum "$b/tests/test_L01_lookup_cpu[1]_tests.cmake")
sed -i "s#$root/golden/params.json#$b/tests/test_L01_lookup_cpu[1]_tests.cmake#" "$p"
python3 "$release/lessons/grade.py" --build-dir "$b" -L L06-cpu 2>/dev/null > "$work/build-write.txt" || true
[ "$(sha256sum "$b/tests/test_L01_lookup_cpu[1]_tests.cmake")" = "$kept" ] && pass ||
  fail "a runner wrote into the build tree"
cp "$work/params.cpp.kept" "$p"
unset ANDREA_SANDBOX

echo "== 4. the release works as its READMEs say (the commands that take seconds, not minutes)"
for folder in grader/release grader/hidden .ci bench; do
  [ ! -e "$release/$folder" ] && pass || fail "the release holds $folder, which it leaves out"
done
(cd "$release" && bash install-deps.sh) > "$work/deps.txt" 2>&1
expect "$work/deps.txt" "^dependencies: all installed$" "the release's install-deps.sh runs"
python3 "$release/lessons/grade.py" --help > "$work/help.txt"
if grep -q -- "--class\|--hidden-seed\|--submission-timeout" "$work/help.txt"; then
  fail "the student's grade.py --help lists class-grading options"; else pass; fi
# The profile of one lesson, through the grade command (lesson 1's planted bug is gone: the
# solution is put back first).
cp "$work/solutions/01_lookup/lookup.cu" "$work/class/lessons/01_lookup/lookup.cu"
ANDREA_SANDBOX=off python3 "$release/lessons/grade.py" --build-dir "$b" --profile -L L01 \
  > "$work/profile.txt" 2>&1 || true
expect "$work/profile.txt" "^L01 .*Lookup\." "the profile names lesson 1's tests"
expect "$work/profile.txt" "^  in short: global [0-9,]+ requests at ([0-9.]+) sectors each \(\1 would do\); .* bytes moved .* on H200" \
  "the profile's summary line per launch"
if grep -q "^  line  " "$work/profile.txt"; then fail "the profile shows the table without --table"; else pass; fi
ANDREA_SANDBOX=off python3 "$release/lessons/grade.py" --build-dir "$b" --profile --table -L L01 \
  > "$work/profile-table.txt" 2>&1 || true
expect "$work/profile-table.txt" "^  line +access +requests +sectors" "--table adds the per-line table"
# A push graded by the commands of the release's GitHub Classroom workflow (test_autograders.sh
# checks its form), laid out as the workflow lays it out: the push (submission/, a clone of the
# release) holds lesson 1's solutions, lesson 2's stubs and a lessons/grade.py edited to pass
# everything; the workflow grades it with the course as the release holds it (course/, the first
# commit), taking only the exercise files of the push: lesson 1 passes both of its steps, the
# stubs fail lesson 2's C++ step ("not implemented", 0 points), the edited grade.py is not run.
workflow=$release/.github/workflows/classroom.yml
configure=$(sed -n 's/^ *run: //p' "$workflow")
command_of() { sed -n "s/^ *command: \(.*-L '^$1\$'.*\)/\1/p" "$workflow"; }
[ -n "$configure" ] && [ -n "$(command_of L01-cpu)" ] && pass || fail "the workflow's commands are not found in $workflow"
ws=$work/classroom
git clone -q "$release" "$ws/submission"
cp "$work/solutions/01_lookup/lookup.cpp" "$work/solutions/01_lookup/lookup.cu" "$ws/submission/lessons/01_lookup/"
printf 'print("L02 norm  5/5 pass")  # CHEAT: every step passes\n' > "$ws/submission/lessons/grade.py"
git -C "$ws/submission" -c user.name=student -c user.email=student@example.invalid commit -qam "my work"
(cd "$ws" && bash -c "$configure" > "$work/preset.txt" 2>&1) && pass ||
  fail "the workflow's set-up fails in the release: $(tail -3 "$work/preset.txt")"
if (cd "$ws" && bash -c "$(command_of L02-cpu)") > "$work/first.txt" 2>&1; then
  fail "the workflow's lesson 2 C++ test passes on the stubs (the push's grade.py was run?)"
else
  expect "$work/first.txt" "^L02 norm +not implemented .* 0\.0/5$" "the workflow grades with the course's grade.py: lesson 2's stubs, not implemented"
fi
for step in L01-cpu L01-cudasim; do
  (cd "$ws" && bash -c "$(command_of $step)") > "$work/classroom-$step.txt" 2>&1 && pass ||
    fail "the workflow's $step test fails on lesson 1's solutions: $(tail -3 "$work/classroom-$step.txt")"
done
rm -rf "$ws"

echo "== 5. the class in parallel: the same results as one at a time (lessons 1 and 2, the base build reused)"
mkdir -p "$work/class2"
for name in full partial wrong stub-only empty; do cp -r "$in/$name" "$work/class2/"; done
for p in 1 2; do
  python3 "$root/grader/class/grade_class.py" "$work/class2" --out "$work/results-P$p" --work "$work/class" \
    --reuse-base -P "$p" -L 'L0[12]' --test-timeout 30 --disk-limit $((512 << 20)) --hidden-seed 7 \
    > "$work/class-P$p.txt" 2>&1 || fail "grade_class.py -P $p failed: $(tail -3 "$work/class-P$p.txt")"
done
expect "$work/class-P2.txt" "build in .*, with the stubs, reused" "the base build is reused"
expect "$work/results-P1/grades.csv" "^full,5\.00,5\.00,5\.00,5\.00,20\.00," "the class of lessons 1 and 2: full marks"
for name in grades.csv grades-canvas.csv grades-moodle.csv; do
  cmp -s "$work/results-P1/$name" "$work/results-P2/$name" && pass || fail "-P 2 gives another $name than -P 1"
done
# (memcheck's reports name addresses, which differ from run to run)
for name in full partial wrong stub-only empty; do
  cmp -s <(sed 's/0x[0-9a-f]*/0x_/g' "$work/results-P1/$name/report.txt") \
    <(sed 's/0x[0-9a-f]*/0x_/g' "$work/results-P2/$name/report.txt") && pass ||
    fail "-P 2 gives $name another report than -P 1"
  python3 -c 'import json, re, sys
a, b = (json.load(open(name)) for name in sys.argv[1:])
a["execution_time"] = b["execution_time"] = 0
sys.exit(re.sub("0x[0-9a-f]*", "", json.dumps(a)) != re.sub("0x[0-9a-f]*", "", json.dumps(b)))' \
    "$work/results-P1/$name/results.json" "$work/results-P2/$name/results.json" && pass ||
    fail "-P 2 gives $name another results.json than -P 1"
done

echo "grader: $passes passed, $failures failed, in $((SECONDS - started)) s"
[ "$failures" -eq 0 ]
