#!/usr/bin/env python3
"""Makes each lesson's exercise files from the finished solutions.

The solutions live in reference/<piece>.cpp (C++ step) and cuda/<piece>.cu
(CUDA step). Code between `// BEGIN SOLUTION` and `// END SOLUTION` is the
student's work:
  - inside a function, it becomes `throw NotImplemented("<lesson>", "<function>");`
  - at namespace level (helpers, kernels), it is removed.
Everything else (includes, signatures, doc comments) is copied as it is, so the
exercises cannot drift from the solutions: CI runs `--check`.

  make_exercises.py                  write lessons/NN_*/<piece>.{cpp,cu} (stubs)
  make_exercises.py --check          exit 1 if the committed stubs differ
  make_exercises.py --solutions DIR  write a lessons tree holding the solutions
                     [--only 01_lookup,02_norm]  ... for these lessons only
                                                 (stubs for the others)
"""
import argparse
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = {  # lesson folder -> piece
    "01_lookup": "lookup",
    "02_norm": "norm",
    "03_dot_product": "dot",
    "04_position_table": "position",
    "05_combine": "combine",
    "06_parameter_count": "params",
    "10_vocab_parallel": "vocab_parallel",
}
BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
FUNCTION = re.compile(r"^[A-Za-z].*?\b(\w+)\(")  # a definition starts in column 0


def strip(text: str, lesson: str, source: str, keep_solution: bool) -> str:
    exercise = f"{lesson}/{pathlib.Path(source).name}"
    out, inside, function = [], False, None
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if BEGIN.match(line):
            if inside:
                sys.exit(f"{source}:{number}: nested BEGIN SOLUTION")
            inside, indent = True, BEGIN.match(line).group(1)
            if not keep_solution and indent:  # inside a function body
                out.append(f'{indent}// TODO(lesson {lesson}): write {function}() here.\n')
                out.append(f'{indent}throw NotImplemented("{exercise}", "{function}");\n')
            elif not keep_solution:
                out.append("// Your helper functions and kernels go here.\n")
            continue
        if END.match(line):
            if not inside:
                sys.exit(f"{source}:{number}: END SOLUTION without BEGIN")
            inside = False
            continue
        if not inside:
            match = FUNCTION.match(line)
            if match and not line.startswith(("namespace", "ANDREA_", "#", "constexpr", "using")):
                function = match.group(1)
            out.append(line)
        elif keep_solution:
            out.append(line)
    if inside:
        sys.exit(f"{source}: BEGIN SOLUTION without END")
    return "".join(out)


def banner(lesson: str, source: str, header: str) -> str:
    return (f"// Lesson {lesson} — exercise. Generated from {source} by lessons/make_exercises.py.\n"
            f"// Replace each `throw NotImplemented(...)` with your code; the contract is in\n"
            f"// {header}. Run this lesson's tests: ctest --preset grade -L L{lesson[:2]}\n")


def files_for(lesson: str, piece: str, solution: bool) -> dict:
    result = {}
    for folder, ext in (("reference", "cpp"), ("cuda", "cu")):
        source = f"{folder}/{piece}.{ext}"
        text = strip((ROOT / source).read_text(), lesson, source, solution)
        if not solution:
            text = banner(lesson, source, f"{folder}/{piece}.hpp") + text
        result[f"{lesson}/{piece}.{ext}"] = text
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--solutions", metavar="DIR")
    parser.add_argument("--only", default="")
    args = parser.parse_args()

    if args.solutions:
        only = set(filter(None, args.only.split(","))) or set(LESSONS)
        unknown = only - set(LESSONS)
        if unknown:
            sys.exit(f"unknown lesson(s) {sorted(unknown)}: known {list(LESSONS)}")
        out = pathlib.Path(args.solutions)
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(ROOT / "lessons", out)
        for lesson, piece in LESSONS.items():
            for name, text in files_for(lesson, piece, lesson in only).items():
                (out / name).write_text(text)
        print(f"wrote the solutions of {sorted(only)} into {out}")
        return 0

    drift = []
    for lesson, piece in LESSONS.items():
        for name, text in files_for(lesson, piece, solution=False).items():
            path = ROOT / "lessons" / name
            if args.check:
                if not path.exists() or path.read_text() != text:
                    drift.append(name)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if drift:
        print("exercise files out of date with reference/ and cuda/ (run lessons/make_exercises.py):")
        print("\n".join("  lessons/" + name for name in drift))
        return 1
    print("exercise files " + ("match the solutions" if args.check else "written"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
