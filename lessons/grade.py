#!/usr/bin/env python3
"""Grades the lessons: runs the tests of a grade build and prints, per lesson,
what passes under each backend, the points, and why the failures fail.

  python3 lessons/grade.py                     # build-grade/ (cmake --preset grade)
  python3 lessons/grade.py --build-dir DIR -L L03

Points: 10 per lesson, 5 for the C++ step (backend cpu) and 5 for the CUDA step
run on the CPU execution layer (backend cudasim; a test counts only if it passes
under every thread order). Each half is scaled by the share of its tests that
pass. The GPU column is shown when a GPU ran the tests; skipped is no penalty.
"""
import argparse
import collections
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

LESSONS = {"L01": "lookup", "L02": "norm", "L03": "dot product", "L04": "position table",
           "L05": "combine", "L06": "parameter count", "L10": "vocab parallel"}
POINTS = {"cpu": 5, "cudasim": 5}
NAME = re.compile(r"^(L\d\d)-(cpu|cudasim|gpu)(?:-[\w-]+)?/(.+)$")


def run_ctest(build: pathlib.Path, label: str) -> pathlib.Path:
    junit = build / "grade-junit.xml"
    command = ["ctest", "--test-dir", str(build), "--output-junit", str(junit), "-j2",
               "-L", label or "^L[0-9]"]
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    if not junit.exists():
        sys.exit(f"ctest wrote no results in {build}: configure and build it first "
                 "(cmake --preset grade && cmake --build --preset grade)")
    return junit


def why(output: str) -> str:
    """The line a student needs: the not-implemented message or the first failure."""
    lines = output.splitlines()
    for line in lines:
        if "not implemented yet" in line:
            return line.split("description \"")[-1].replace('" thrown in the test body', "").rstrip('".')
    for i, line in enumerate(lines):
        if "Failure" in line:
            detail = " ".join(l.strip() for l in lines[i + 1:i + 8] if l.strip())
            explained = re.search(r"Actual: false \((.*?)\) Expected: true", detail)
            return (explained.group(1) if explained else detail)[:300]
        if "C++ exception" in line or "threw" in line:
            return line.strip()[:300]
    return "failed (see ctest --output-on-failure)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(pathlib.Path(__file__).resolve().parent.parent / "build-grade"))
    parser.add_argument("-L", dest="label", default="")
    args = parser.parse_args()
    junit = run_ctest(pathlib.Path(args.build_dir).resolve(), args.label)

    # results[lesson][backend][test] = list of (status, reason), one per thread order
    results = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for case in ET.parse(junit).getroot().iter("testcase"):
        match = NAME.match(case.get("name", ""))
        if not match:
            continue
        lesson, backend, test = match.groups()
        if case.find("skipped") is not None or case.get("status") == "notrun":
            status, reason = "skipped", (case.find("skipped").get("message", "") if case.find("skipped") is not None else "")
        elif case.find("failure") is not None or case.get("status") == "fail":
            status, reason = "fail", why(case.findtext("system-out") or "")
        else:
            status, reason = "pass", ""
        results[lesson][backend][test].append((status, reason))

    def column(tests) -> tuple:
        if not tests:
            return "-", 0.0, []
        if all(s == "skipped" for runs in tests.values() for s, _ in runs):
            return "skipped", 1.0, []
        passed = [t for t, runs in tests.items() if all(s == "pass" for s, _ in runs)]
        failures = [(t, r) for t, runs in tests.items() for s, r in runs if s == "fail"]
        if failures and all("not implemented yet" in r for _, r in failures) and not passed:
            return "not implemented", 0.0, failures
        return f"{len(passed)}/{len(tests)} pass", len(passed) / len(tests), failures

    print(f"{'lesson':<22} {'C++':<18} {'CUDA on CPU':<18} {'GPU':<18} {'points':>7}")
    total, possible, report = 0.0, 0, []
    for lesson, title in LESSONS.items():
        if args.label and not lesson.startswith(args.label[:3]):
            continue
        cells, points = [], 0.0
        for backend in ("cpu", "cudasim", "gpu"):
            text, share, failures = column(results[lesson][backend])
            cells.append(text)
            if backend in POINTS:
                points += POINTS[backend] * share
            by_reason = collections.defaultdict(list)  # one line per distinct reason
            first = {}  # a test run under several thread orders: its first failure
            for test, reason in failures:
                first.setdefault(test, reason)
            for test, reason in first.items():
                by_reason[reason].append(test)
            for reason, tests in by_reason.items():
                more = f" (+{len(tests) - 1} more tests)" if len(tests) > 1 else ""
                report.append(f"  {lesson}-{backend} {tests[0]}{more}: {reason}")
        total, possible = total + points, possible + sum(POINTS.values())
        print(f"{lesson} {title:<18} {cells[0]:<18} {cells[1]:<18} {cells[2]:<18} {points:>4.1f}/10")
    print(f"{'total':<79} {total:>4.1f}/{possible}")
    if report:
        print("\nwhat fails and why (first line of each failure):")
        print("\n".join(report[:40]))
        if len(report) > 40:
            print(f"  ... and {len(report) - 40} more: ctest --preset grade --output-on-failure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
