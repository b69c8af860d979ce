"""The student release: a new git repository (one commit, no history) holding what a course
hands out — the exercise files in lessons/, the public tests, the goldens, the READMEs, the core,
the CPU execution layer and the grader — and no solution: the graded pieces of reference/ and
cuda/ are left out (a build of the release takes each piece from lessons/), and so are the
going-further kernels (lessons.json "further", cuda/lookup_float4.cu: the graded kernel's answer
is their plain path) and the course's own tools that read them.

`leaks(release, secret_lines(root, solutions))` lists every line of a solution found in the
release: the check CI runs on it.
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

# What a release leaves out besides the solutions, whole folders: the hidden tests (the
# instructor's), the tools that make and check the release from the solutions (this folder: the
# stub maker, the planted bugs, the grader's self-test), CI, and the benchmarks (their fast
# variants are solutions too).
LEFT_OUT = ("grader/hidden/", "grader/release/", ".ci/", "bench/")
BEGIN = re.compile(r"^\s*// BEGIN SOLUTION")
END = re.compile(r"^\s*// END SOLUTION")
TRIVIAL = re.compile(r"^[\s{}();,\[\]]*$|^(return|break|continue|else|#)\b")
MIN_CHARS = 16  # a solution line shorter than this ("++i;", "} else {") says nothing of the answer


def tracked(root: pathlib.Path, new_files: bool = True) -> list:
    """The course's files: tracked, and (new_files) new files git does not ignore."""
    done = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached",
                           *(["--others", "--exclude-standard"] if new_files else [])],
                          stdout=subprocess.PIPE, check=True)
    return sorted({name for name in done.stdout.decode().split("\0") if name})


def normal(line: str) -> str:
    return " ".join(line.split())


def regions(text: str):
    """(inside a solution region?, line) for each line of a source."""
    inside = False
    for line in text.splitlines():
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        else:
            yield inside, line


def read_text(path: pathlib.Path):
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def secret_lines(root: pathlib.Path, solutions: list) -> dict:
    """{normalised line: "source:line"} for each line of a solution (between the markers) that
    says something (not a brace, a return, a line under MIN_CHARS) and that the course's public
    code does not hold anyway: outside the markers, in any file (a validation call the exercise
    keeps, a loop header a test also writes, the reduction cuda/block_reduce.cuh shares)."""
    public, found = set(), {}
    for name in tracked(root):
        text = read_text(root / name)
        if text is not None:
            public.update(normal(line) for inside, line in regions(text) if not inside)
    for name in solutions:
        for number, (inside, line) in enumerate(regions((root / name).read_text()), 1):
            text = normal(line)
            if inside and len(text) >= MIN_CHARS and not TRIVIAL.match(text) and text not in public:
                found.setdefault(text, name)
    return found


def write(root: pathlib.Path, out: pathlib.Path, solutions: list, template: str = "") -> int:
    """Writes the release of the course at root into out (which must not exist, or be empty).
    solutions: the graded sources (reference/<piece>.cpp, cuda/<piece>.cu), relative to root.
    template: OWNER/NAME@REF, the Classroom template the workflow takes the grader from (empty:
    the student repository's first commit). Returns the number of files written."""
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} is not empty: the release is written into a new folder")
    left_out = set(solutions)
    names = [name for name in tracked(root)
             if name not in left_out and not name.startswith(LEFT_OUT) and (root / name).is_file()]
    for name in names:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)
    workflow = out / CLASSROOM_WORKFLOW
    workflow.parent.mkdir(parents=True, exist_ok=True)
    workflow.write_text(classroom_workflow(root, template))
    (out / CLASSROOM_SETUP).write_text(classroom_setup(root))
    git = ["git", "-C", str(out), "-c", "user.name=andrea-embeddings", "-c",
           "user.email=course@andrea-embeddings.invalid", "-c", "init.defaultBranch=main"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "The exercises of andrea-embeddings"], check=True)
    return len(names) + 2


CLASSROOM_WORKFLOW = ".github/workflows/classroom.yml"
CLASSROOM_SETUP = ".github/classroom-setup.sh"


def exercise_files(root: pathlib.Path) -> list:
    """The files a student writes, lessons/<folder>/<piece>.cpp and .cu (lessons/lessons.json)."""
    lessons = json.loads((root / "lessons" / "lessons.json").read_text())["lessons"]
    return [f"lessons/{lesson['folder']}/{piece}.{ext}"
            for lesson in lessons for piece in lesson["pieces"] for ext in ("cpp", "cu")]


def classroom_setup(root: pathlib.Path) -> str:
    """The workflow's set-up, run in the course as the template holds it: the push's exercise
    files, and nothing else of it, copied in; the packages installed; the grade build set up."""
    return "\n".join([
        "#!/usr/bin/env bash",
        "# GitHub Classroom's set-up (.github/workflows/classroom.yml), run in the course as the",
        "# template holds it, never in the student's push: bash .github/classroom-setup.sh PUSH",
        "# copies the push's exercise files, and only them, then installs the packages and sets up",
        "# the grade build. The grader, the tests and the build files are the template's.",
        "# Written by grader/release/make_exercises.py --release from lessons/lessons.json.",
        "set -euo pipefail",
        'push=$1',
        "for file in \\",
        *[f"    {name} \\" for name in exercise_files(root)],
        "    ; do",
        '  # (a link is not an exercise file: the stub stays, and scores 0)',
        '  if [ -f "$push/$file" ] && [ ! -L "$push/$file" ]; then cp "$push/$file" "$file"; fi',
        "done",
        "ANDREA_SKIP_TORCH=1 bash install-deps.sh",
        "cmake --preset grade",
    ]) + "\n"


def classroom_tests(root: pathlib.Path) -> list:
    """(id, name, command) of each autograding test: one per lesson and backend."""
    lessons = json.loads((root / "lessons" / "lessons.json").read_text())["lessons"]
    return [(f"{lesson['label'].lower()}-{backend}", f"{lesson['label']} {lesson['title']}, {kind}",
             f"cd course && python3 lessons/grade.py -L '^{lesson['label']}-{backend}$' --all-pass")
            for lesson in lessons
            for backend, kind in (("cpu", "C++ step"), ("cudasim", "CUDA step on the CPU"))]


def course_steps(template: str) -> list:
    """The workflow's steps that check the course out in course/ (at the template's ref
    OWNER/NAME@REF, or else at the repository's first commit) and set up its grade build."""
    setup = "      - name: Install and configure the grade build, with the push's exercise files"
    if not template:
        return [setup,
                "        run: git -C submission worktree add -q --detach ../course \"$(git -C "
                "submission rev-list --max-parents=0 HEAD | tail -n 1)\" && cd course && bash "
                f"{CLASSROOM_SETUP} ../submission"]
    repository, _, ref = template.partition("@")
    return ["      - name: Checkout the course at the template's ref",
            "        uses: actions/checkout@v4",
            "        with:",
            f"          repository: {repository}",
            f"          ref: {ref}",
            "          path: course",
            setup,
            f"        run: cd course && bash {CLASSROOM_SETUP} ../submission"]


def classroom_workflow(root: pathlib.Path, template: str = "") -> str:
    """The release's GitHub Classroom workflow: each push graded with the public tests, one
    autograding test per lesson and backend (lessons/lessons.json), worth that step's points
    when every one of its tests passes (Classroom's command grader is pass/fail). The grader is
    not the push's: the course is checked out apart (course_steps) and takes from the push only
    the exercise files (classroom_setup)."""
    tests, course = classroom_tests(root), course_steps(template)
    lines = [
        "# GitHub Classroom's autograding: each push is graded with the course's public tests, one",
        "# test per lesson and backend, worth 5 points when every one of its tests passes (the",
        "# command grader is pass/fail; python3 lessons/grade.py shows the partial scores).",
        "# The grader is the course's, not the push's: the course is checked out apart (course/),",
        f"# {'at the template ' + template if template else 'at this repository' + chr(39) + 's first commit (the template as handed out)'},",
        "# and takes only the exercise files of the push (submission/): an edit of",
        "# lessons/grade.py in the push changes nothing. docs/instructors.md says what the points",
        "# can be trusted for. Written by grader/release/make_exercises.py --release.",
        "name: Autograding Tests",
        "'on':",
        "  push:",
        "  workflow_dispatch:",
        "  repository_dispatch:",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest  # Ubuntu 24.04: CMake 3.28, g++ 13",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "      - name: Checkout the push",
        "        uses: actions/checkout@v4",
        "        with:",
        "          path: submission",
        "          fetch-depth: 0  # the whole history: its first commit is the template's",
        *course,
    ]
    for test_id, name, command in tests:
        lines += [
            f"      - name: {name}",
            f"        id: {test_id}",
            "        uses: classroom-resources/autograding-command-grader@v1",
            "        with:",
            f"          test-name: {name}",
            f"          command: {command}",
            "          timeout: 20",
            "          max-score: 5",
        ]
    lines += [
        "      - name: Autograding Reporter",
        "        uses: classroom-resources/autograding-grading-reporter@v1",
        "        env:",
        *[f"          {test_id.upper()}_RESULTS: \"${{{{steps.{test_id}.outputs.result}}}}\""
          for test_id, _, _ in tests],
        "        with:",
        f"          runners: {','.join(test_id for test_id, _, _ in tests)}",
    ]
    return "\n".join(lines) + "\n"


# What a Gradescope autograder leaves out: it holds the solutions and the hidden tests (its zip is
# the instructor's), but not the tools that make releases, CI, or the benchmarks.
AUTOGRADER_LEFT_OUT = ("grader/release/", ".ci/", "bench/")


def write_gradescope(root: pathlib.Path, out: pathlib.Path, settings: dict) -> int:
    """Writes the Gradescope autograder zip of the course at root: the course, setup.sh and
    run_autograder at its root (grader/class/autograder/), and the assignment's settings as
    grader/gradescope.json (grader/class/gradescope.py says which). Returns the number of files."""
    # Committed files only: an instructor's own files beside the course (a folder of
    # submissions, notes) must not reach the image, where the student's code runs.
    names = [name for name in tracked(root, new_files=False)
             if not name.startswith(AUTOGRADER_LEFT_OUT) and (root / name).is_file()]
    executable = 0o100755 << 16
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name in names:
            zipped.write(root / name, name)
        for name in ("setup.sh", "run_autograder"):
            info = zipfile.ZipInfo(name)
            info.external_attr = executable
            info.compress_type = zipfile.ZIP_DEFLATED
            zipped.writestr(info, (root / "grader" / "class" / "autograder" / name).read_bytes())
        zipped.writestr("grader/gradescope.json", json.dumps(settings, indent=2) + "\n")
    return len(names) + 3


def leaks(release: pathlib.Path, solutions: dict) -> list:
    """["file:line: text (from source:line)"] for each solution line found in the release."""
    found = []
    for path in sorted(release.rglob("*")):
        if ".git" in path.relative_to(release).parts or not path.is_file():
            continue
        text = read_text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            source = solutions.get(normal(line))
            if source:
                found.append(f"{path.relative_to(release)}:{number}: {normal(line)} (from {source})")
    return found


def solutions_of(root: pathlib.Path) -> list:
    """The solutions of the course, from lessons/lessons.json: the graded sources
    (reference/<piece>.cpp and cuda/<piece>.cu of every piece) and the going-further kernels
    (cuda/<name>.cu of each lesson's "further"), whose plain path is their lesson's answer."""
    lessons = json.loads((root / "lessons" / "lessons.json").read_text())["lessons"]
    graded = [f"{folder}/{piece}.{ext}" for lesson in lessons for piece in lesson["pieces"]
              for folder, ext in (("reference", "cpp"), ("cuda", "cu"))]
    return graded + [f"cuda/{name}.cu" for lesson in lessons for name in lesson.get("further", [])]


def main() -> int:
    """python3 grader/release/release.py --check DIR: exit 1, listing them, if DIR holds a line of a
    solution or the hidden tests."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--check", metavar="DIR", required=True)
    args = parser.parse_args()
    root = pathlib.Path(__file__).resolve().parents[2]
    return check(root, pathlib.Path(args.check))


def check(root: pathlib.Path, release: pathlib.Path) -> int:
    problems = leaks(release, secret_lines(root, solutions_of(root)))
    problems += [f"{name}: a solution file" for name in solutions_of(root) if (release / name).exists()]
    problems += [f"{release / 'grader' / 'hidden'}: the hidden tests"] if (release / "grader" / "hidden").exists() else []
    history = subprocess.run(["git", "-C", str(release), "rev-list", "--count", "HEAD"],
                             stdout=subprocess.PIPE, text=True, check=False).stdout.strip()
    if history != "1":
        problems.append(f"{release}: a git repository of one commit expected, found {history or 'none'}")
    for problem in problems:
        print(f"release: {problem}")
    print(f"release {release}: " + ("no solution in it" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
