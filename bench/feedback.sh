#!/usr/bin/env bash
# How long each feedback loop of the course takes on this machine, from a fresh clone: the table
# of the fast-feedback goals (docs/building.md, "What a build costs"). Builds in a temporary
# folder; touches nothing of this tree.
#   bash bench/feedback.sh [--quick]
#   --quick: leave out the fresh clone's ./test.sh (the longest row, about 6-15 minutes on 2 cores)
# Rows: ./test.sh on a fresh clone (build, then tests), a student's fresh release (cmake --preset
# grade, then the first grade.py -L L01), an edit of lesson 1's C++ step and of its CUDA step to
# their verdicts, and one full submission graded by the class grader (its 11 lessons, no hidden
# tests). Each row says the goal beside the time; the load is printed, since a busy machine
# measures longer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$PATH:/usr/local/cuda/bin"
rows=()
row() { rows+=("$(printf '%-48s %8s s   goal %s' "$1" "$2" "$3")"); echo "  $1: $2 s" >&2; }
timed() { local start=$SECONDS; "$@" > "$work/last.txt" 2>&1 || { tail -20 "$work/last.txt" >&2; exit 1; }; echo $((SECONDS - start)); }

echo "feedback: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), in $work" >&2
git clone -q "$root" "$work/clone"
if [ "$quick" != "--quick" ]; then
  (cd "$work/clone" && bash install-deps.sh > /dev/null)
  configure=$(cd "$work/clone" && timed cmake --preset default)
  build=$(cd "$work/clone" && timed cmake --build --preset default)
  tests=$(cd "$work/clone" && CTEST_PARALLEL_LEVEL=$(nproc) timed ctest --preset default)
  row "./test.sh, fresh clone: configure + build" $((configure + build)) "-"
  row "./test.sh, fresh clone: the tests" "$tests" "-"
  row "./test.sh, fresh clone, together" $((configure + build + tests)) "<= 360"
fi

# A student: the release, its set-up, the first grade of lesson 1 (the stubs: not implemented).
python3 "$root/grader/release/make_exercises.py" --release "$work/release" > /dev/null
python3 "$root/grader/release/make_exercises.py" --solutions "$work/solutions" > /dev/null
r=$work/release
setup=$(cd "$r" && timed cmake --preset grade)
first=$(cd "$r" && { timed python3 lessons/grade.py -L L01 || true; })
row "release: cmake --preset grade" "$setup" "-"
row "release: first grade.py -L L01" "$first" "-"
row "release: set-up and first grade together" $((setup + first)) "<= 60"

# Edit -> verdict: lesson 1's solution written in, one step at a time.
cp "$work/solutions/01_lookup/lookup.cpp" "$r/lessons/01_lookup/"
cpp=$(cd "$r" && timed python3 lessons/grade.py -L L01)
cp "$work/solutions/01_lookup/lookup.cu" "$r/lessons/01_lookup/"
cuda=$(cd "$r" && timed python3 lessons/grade.py -L L01)
grep -q "^L01 lookup .* 10\.0/10$" "$work/last.txt" || { cat "$work/last.txt" >&2; exit 1; }
row "edit -> verdict, lesson 1, C++ step" "$cpp" "<= 2"
row "edit -> verdict, lesson 1, CUDA step" "$cuda" "<= 5"

# One full submission (every lesson's solutions), graded as a class of one; no hidden tests.
mkdir -p "$work/class/full"
(cd "$work/solutions" && cp [0-9][0-9]_*/*.cpp [0-9][0-9]_*/*.cu "$work/class/full/")
chmod -R a+rX "$work"
python3 "$root/grader/class/grade_class.py" "$work/class" --out "$work/results" --work "$work/grading" \
  --test-timeout 30 > "$work/class.txt" 2>&1 || { tail -20 "$work/class.txt" >&2; exit 1; }
base=$(sed -n 's/^  built, and the stubs graded 0, in \([0-9]*\) s$/\1/p' "$work/class.txt")
one=$(sed -n 's/^\[1\/1\] full: .* (\([0-9]*\) s)$/\1/p' "$work/class.txt")
row "class: the course's base build, stubs graded" "${base:-?}" "-"
row "class: one full submission graded (11 lessons)" "${one:-?}" "<= 60"

echo
printf '%s\n' "${rows[@]}"
