#!/usr/bin/env python3
"""Makes each lesson's exercise files from the finished solutions.

The solutions live in reference/<piece>.cpp (C++ step) and cuda/<piece>.cu
(CUDA step). Code between `// BEGIN SOLUTION` and `// END SOLUTION` is the
student's work; what the stub keeps in its place depends on where the markers are:
  - at namespace level (helpers): removed, with a `// TODO` naming what the
    solution defines there and how many lines it takes;
  - inside a `__global__` or `__device__` function (a kernel body): the
    signature stays, the body becomes `// TODO: about N lines`;
  - inside a host function: `throw NotImplemented("<lesson>/<file>", "<function>");`
    (the whole body is the exercise, as in the C++ steps);
  - `// BEGIN SOLUTION (launch)` inside a host function: the launch lines become
    `// TODO: launch ... (about N lines)`; the validation, allocation and copy
    lines around them stay.
A public host function (outside `namespace {`) whose body is kept, in part or
whole, starts with `throw NotImplemented(...)` in the stub: every test reports
"not implemented" until the student deletes that line.
Everything else (includes, signatures, doc comments) is copied as it is, so the
exercises cannot drift from the solutions: CI runs `--check`.
A lesson's going-further kernels (lessons.json "further": cuda/lookup_float4.cu, the rung above
the graded kernel) are the course's own: no exercise is made from them, and --release leaves
them out like the solutions (their plain path is the lesson's answer).
N counts the non-blank lines between the markers.

  make_exercises.py                  write lessons/NN_*/<piece>.{cpp,cu} (stubs)
  make_exercises.py --check          exit 1 if the committed stubs differ
  make_exercises.py --solutions DIR  write a lessons tree holding the solutions
                     [--only 01_lookup,02_norm]  ... for these lessons only
                                                 (stubs for the others)
  make_exercises.py --release DIR    write the student release: a new git repository without
                                     the solutions or the hidden tests (grader/release/release.py),
                                     then check that no line of a solution is in it
"""
import argparse
import json
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
# lesson folder -> its pieces (lesson 7 has two: one file per idea), from the one list of lessons.
LESSONS = {lesson["folder"]: lesson["pieces"]
           for lesson in json.loads((ROOT / "lessons" / "lessons.json").read_text())["lessons"]}
BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION( \(launch\))?\s*$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
FUNCTION = re.compile(r"^[A-Za-z_].*?\b(\w+)\(")  # a definition starts in column 0
ONE_LINE = re.compile(r"^(.*\)\s*(?:const\s*)?\{)(.+)\}\s*$")  # a definition on one line
CONSTANT = re.compile(r"^constexpr\s+\w+\s+(\w+)\s*=")
NOT_A_FUNCTION = ("namespace", "ANDREA_", "#", "constexpr", "using", "}", "//")


def about(lines: list) -> str:
    n = sum(1 for line in lines if line.strip())
    return f"about {n} line{'s' if n != 1 else ''}"


def defined(lines: list) -> str:
    """ " (add, threads_for)": the names a namespace-level solution defines."""
    names = []
    for line in lines:
        match = CONSTANT.match(line) or (FUNCTION.match(line) if not line.startswith(NOT_A_FUNCTION) else None)
        if match and match.group(1) not in names:
            names.append(match.group(1))
    return f" ({', '.join(names)})" if names else ""


def strip(text: str, lesson: str, source: str, keep_solution: bool) -> str:
    """The exercise file made from the solution `text` (reference/ or cuda/ `source`): the
    module's docstring says what replaces each solution region. keep_solution: the solution
    itself, markers removed."""
    stub = Stub(lesson, source, keep_solution)
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        stub.read(number, line)
    return stub.finish()


class Stub:
    """strip(), one line at a time: the function being read and the solution region in it."""

    def __init__(self, lesson: str, source: str, keep_solution: bool):
        self.lesson, self.source, self.keep_solution = lesson, source, keep_solution
        self.exercise = f"{lesson}/{pathlib.Path(source).name}"
        self.out = []
        self.function, self.kernel, self.public = None, False, False  # the function being read
        self.body_at, self.has_body_solution = None, False  # where its body starts in `out`
        self.anonymous = False                              # inside `namespace {`
        self.region, self.launch, self.indent = None, False, ""  # the solution lines being read

    def read(self, number: int, line: str):
        begin = BEGIN.match(line)
        if begin:
            if self.region is not None:
                sys.exit(f"{self.source}:{number}: nested BEGIN SOLUTION")
            self.region, self.indent, self.launch = [], begin.group(1), bool(begin.group(2))
            if self.launch and (not self.indent or self.kernel):
                sys.exit(f"{self.source}:{number}: BEGIN SOLUTION (launch) belongs in a host function body")
        elif END.match(line):
            if self.region is None:
                sys.exit(f"{self.source}:{number}: END SOLUTION without BEGIN")
            self.out.extend(self.region if self.keep_solution else self.todo())
            self.region = None
        elif self.region is not None:
            self.region.append(line)
        else:
            self.code(line)

    def todo(self) -> list:
        """What the stub holds instead of the solution region just read."""
        region, indent, function = self.region, self.indent, self.function
        if not indent:
            return [f"// TODO: helpers{defined(region)}, {about(region)} in the solution.\n"]
        if self.kernel:
            return [f"{indent}// TODO: {about(region)} (the body of {function}).\n"]
        if self.launch:
            return [f"{indent}// TODO: launch the kernel here, {about(region)}.\n"]
        self.has_body_solution = True
        return [f"{indent}// TODO(lesson {self.lesson}): write {function}() here.\n",
                f'{indent}throw NotImplemented("{self.exercise}", "{function}");\n']

    def code(self, line: str):
        """A line outside the solution regions: copied, noting where functions start."""
        if line.startswith("namespace {"):
            self.anonymous = True
        elif line.startswith("}  // namespace") and self.anonymous:
            self.anonymous = False
        match = FUNCTION.match(line)
        if match and not line.startswith(NOT_A_FUNCTION):
            self.close_function()
            self.function, self.kernel = match.group(1), "__global__" in line or "__device__" in line
            self.public, self.body_at, self.has_body_solution = not self.anonymous and not self.kernel, None, False
        one_line = ONE_LINE.match(line) if match and self.public and not self.keep_solution else None
        if one_line:  # `float dot(u, v) { return pair(u, v).dot; }`: the throw needs lines of its own
            self.out.extend([one_line.group(1) + "\n", f"  {one_line.group(2).strip()}\n", "}\n"])
            self.body_at = len(self.out) - 2
            return
        self.out.append(line)
        if self.function and self.body_at is None and line.rstrip().endswith("{"):
            self.body_at = len(self.out)

    def close_function(self):
        """A public function whose body is kept (in part) throws until the student is done."""
        if self.public and self.body_at is not None and not self.has_body_solution and not self.keep_solution:
            self.out[self.body_at:self.body_at] = [
                f"  // TODO(lesson {self.lesson}): write the kernel and its launch; then delete the next line.\n",
                f'  throw NotImplemented("{self.exercise}", "{self.function}");\n']

    def finish(self) -> str:
        self.close_function()
        if self.region is not None:
            sys.exit(f"{self.source}: BEGIN SOLUTION without END")
        return "".join(self.out)


def banner(lesson: str, header: str) -> str:
    """The exercise file's first lines: what to do and how to grade it (it names only files the
    student release ships)."""
    return (f"// Lesson {lesson}: your exercise. Write the code each `// TODO` asks for and delete the\n"
            f"// `throw NotImplemented(...)` lines; the contract is in {header}.\n"
            f"// Grade it: python3 lessons/grade.py -L L{lesson[:2]}\n")


def files_for(lesson: str, pieces: list, solution: bool) -> dict:
    result = {}
    for folder, ext in (("reference", "cpp"), ("cuda", "cu")):
        for one in pieces:  # a lesson may hold several pieces
            source = f"{folder}/{one}.{ext}"
            text = strip((ROOT / source).read_text(), lesson, source, solution)
            if not solution:
                text = banner(lesson, f"{folder}/{one}.hpp") + text
            result[f"{lesson}/{one}.{ext}"] = text
    return result


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--solutions", metavar="DIR")
    parser.add_argument("--only", default="")
    parser.add_argument("--release", metavar="DIR")
    parser.add_argument("--classroom-template", metavar="OWNER/NAME@REF", default="",
                        help="--release: the GitHub Classroom workflow takes the grader from this "
                             "template repository at this ref (default: the student "
                             "repository's first commit)")
    parser.add_argument("--gradescope", metavar="FILE.zip",
                        help="write the Gradescope autograder (grader/class/gradescope.py)")
    parser.add_argument("-L", dest="label", default="",
                        help="--gradescope: the steps the assignment grades (L0[1-3], L01-cpu)")
    parser.add_argument("--hidden-seed", type=int, help="--gradescope: grade the hidden tests too")
    parser.add_argument("--test-timeout", type=int, help="--gradescope: seconds per test (60)")
    parser.add_argument("--submission-timeout", type=int,
                        help="--gradescope: seconds per submission (480): keep it under the "
                             "assignment's autograder timeout")
    return parser.parse_args()


def main() -> int:
    args = arguments()
    if args.gradescope:
        return write_gradescope(args)
    if args.release:
        return write_release(args)
    if args.solutions:
        return write_solutions(args)
    return stubs(write=not args.check)


def write_gradescope(args) -> int:
    sys.path.insert(0, str(ROOT / "grader" / "release"))
    import release
    if stubs() != 0:  # the autograder's base build is made with the stubs
        return 1
    settings = {"label": args.label, "hidden_seed": args.hidden_seed,
                "test_timeout": args.test_timeout, "submission_timeout": args.submission_timeout}
    settings = {k: v for k, v in settings.items() if v not in (None, "")}
    count = release.write_gradescope(ROOT, pathlib.Path(args.gradescope), settings)
    print(f"wrote {args.gradescope}: {count} files; settings {json.dumps(settings)}")
    return 0


def write_release(args) -> int:
    sys.path.insert(0, str(ROOT / "grader" / "release"))
    import release
    if stubs() != 0:  # a release holds the stubs as the solutions make them
        return 1
    if args.classroom_template and not re.fullmatch(r"[\w.-]+/[\w.-]+@[\w./-]+",
                                                    args.classroom_template):
        sys.exit(f"--classroom-template {args.classroom_template!r}: OWNER/NAME@REF is "
                 "expected (a tag, branch or commit of the template repository)")
    count = release.write(ROOT, pathlib.Path(args.release), release.solutions_of(ROOT),
                          args.classroom_template)
    print(f"wrote {count} files into {args.release} (a git repository of one commit)")
    return release.check(ROOT, pathlib.Path(args.release))


def write_solutions(args) -> int:
    only = set(filter(None, args.only.split(","))) or set(LESSONS)
    unknown = only - set(LESSONS)
    if unknown:
        sys.exit(f"unknown lesson(s) {sorted(unknown)}: known {list(LESSONS)}")
    out = pathlib.Path(args.solutions)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT / "lessons", out)
    for lesson, pieces in LESSONS.items():
        for name, text in files_for(lesson, pieces, lesson in only).items():
            (out / name).write_text(text)
    print(f"wrote the solutions of {sorted(only)} into {out}")
    return 0


def stubs(write: bool = False) -> int:
    """Compares the committed stubs with the solutions (or writes them): 1 if they differ."""
    drift = []
    for lesson, pieces in LESSONS.items():
        for name, text in files_for(lesson, pieces, solution=False).items():
            path = ROOT / "lessons" / name
            if not write:
                if not path.exists() or path.read_text() != text:
                    drift.append(name)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if drift:
        print("exercise files out of date with reference/ and cuda/ (run grader/release/make_exercises.py):")
        print("\n".join("  lessons/" + name for name in drift))
        return 1
    print("exercise files " + ("written" if write else "match the solutions"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
