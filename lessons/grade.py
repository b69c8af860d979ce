#!/usr/bin/env python3
"""Grades your lessons: builds the tests of each lesson on its own, runs them, and prints a table
of what passes (C++ (cpu) · CUDA (cudasim) · GPU (gpu)), your points, and why each failure fails.

  cmake --preset grade                        # once: configures build-grade/
  python3 lessons/grade.py -L L01             # lesson 1: build, run, score (after each edit)
  python3 lessons/grade.py                    # every lesson
  python3 lessons/grade.py -v -L L01          # the same, with what your code printed
  python3 lessons/grade.py --profile -L L01   # how lesson 1's kernels use memory (no points)
  python3 lessons/grade.py --profile --table -L L01   # the same, per line of each kernel

Each lesson is worth 10 points: 5 for the C++ step, 5 for the CUDA step run on the CPU (every
thread order, under racecheck and memcheck). The GPU column never counts. The engine is
grader/grading.py; its top says how each step is scored.
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "grader"))
import grading  # noqa: E402


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-L", dest="label", default="",
                        help="grade only the steps whose label matches this regex, as ctest -L: "
                             "L03, cudasim, L0[12]-cpu")
    parser.add_argument("--profile", action="store_true",
                        help="print how each kernel launch of the CUDA step's tests uses memory "
                             "(requests, sectors, bank conflicts, atomics, bytes moved) instead "
                             "of grading, one summary line per launch")
    parser.add_argument("--table", action="store_true",
                        help="with --profile: each launch's whole table, per line of the kernel")
    parser.add_argument("--rerun", action="store_true",
                        help="run every selected test again, even those whose programs did not "
                             "change since they were last graded")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print each test program's output, with what your code printed "
                             "(printf, std::cout: hidden otherwise); runs the tests again")
    parser.add_argument("--no-build", action="store_true",
                        help="grade the test programs as they are, without building them first")
    parser.add_argument("--build-dir", default=str(ROOT / "build-grade"),
                        help="the grade build (default: build-grade/, made by cmake --preset grade)")
    parser.add_argument("--json", metavar="FILE",
                        help="also write the graded steps and the report as JSON")
    parser.add_argument("--all-pass", action="store_true",
                        help="exit status 1 unless every graded step has all its points (a "
                             "pass/fail test, as GitHub Classroom's autograding counts them)")
    return parser.parse_args()


def main() -> int:
    args = arguments()
    build_dir = pathlib.Path(args.build_dir).resolve()
    unknown = grading.unknown_label(build_dir, args.label)
    if unknown:
        print(f"grade.py: {unknown}", file=sys.stderr)
        return 2
    if args.profile:
        return grading.profile(build_dir, args.label, args.table)
    grading.SHOW_OUTPUT = args.verbose
    graded = grading.grade_build(build_dir, args.label, args.rerun, args.no_build)
    print(graded["report"], end="")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(graded, indent=1) + "\n")
    if args.all_pass and (not graded["steps"] or any(
            step["points"] < step["max_points"] - 1e-9 for step in graded["steps"])):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
