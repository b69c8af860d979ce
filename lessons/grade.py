#!/usr/bin/env python3
"""Grades the lessons: builds the tests of each lesson and backend on their own, runs them, and
prints, per lesson, what passes under each backend, the points, and why the failures fail.

  cmake --preset grade                              # once: configures build-grade/
  python3 lessons/grade.py                          # builds, runs and grades every lesson
  python3 lessons/grade.py -L L03                   # lesson 3 only
  python3 lessons/grade.py --build-dir DIR -L cudasim

Points: 10 per lesson, 5 for the C++ step (backend cpu) and 5 for the CUDA step run on the CPU
execution layer (backend cudasim; a test counts only if it passes under every thread order:
forward, reverse and random). Each half is scaled by the share of its tests that pass; in an
instructor's build with hidden tests (-DANDREA_HIDDEN_SEED=N, tests/hidden), half of it by the
public tests' share and half by the hidden tests' (prefix LNN-backend-hidden/). The GPU
column (backend gpu) is for information only and never counts toward the points: it reads
"skipped" when no GPU is present.

Each lesson and backend is built separately (one test program each, linking only that lesson's
files), so a lesson that does not compile scores 0 for that backend of that lesson only; its
first compiler error is shown under "what fails and why", and its old test program is deleted
so that it is never graded. A test that crashes or runs past its time limit (60 s; 300 s in a
sanitize build, whose tests run several times slower) fails, and
the report says so, with the memory-error report of the CPU execution layer when there is one.
"""
import argparse
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parent.parent
POINTS = {"cpu": 5, "cudasim": 5}  # the gpu column gives no points
BACKENDS = ("cpu", "cudasim", "gpu")
PER_COLUMN = 4  # failure lines shown per lesson and backend
NAME = re.compile(r"^(L\d\d)-(cpu|cudasim|gpu)(?:-([\w:-]+))?/(.+)$")  # lesson-backend[-order]/test
ERROR = re.compile(r"^(\S.*?)(?::(\d+)(?::\d+)?|\((\d+)\)):\s+(?:fatal )?error:?\s+(.*)$")


def titles() -> dict:
    """L01 -> "lookup", from the one list of lessons (lessons/lessons.json)."""
    manifest = json.loads((ROOT / "lessons" / "lessons.json").read_text())
    return {lesson["label"]: lesson["title"] for lesson in manifest["lessons"]}


def selected(label: str, lesson: str, backend: str) -> bool:
    """Does ctest's -L label regex pick the tests labelled lesson-backend?"""
    return not label or re.search(label, f"{lesson}-{backend}") is not None


def first_error(output: str) -> str:
    """The first compiler or linker error of a build log: "file:line: message"."""
    for line in output.splitlines():
        match = ERROR.match(line.strip())
        if match:
            path, line_no, message = match.group(1), match.group(2) or match.group(3), match.group(4)
            try:
                path = str(pathlib.Path(path).resolve().relative_to(ROOT))
            except ValueError:
                pass
            return f"{path}:{line_no}: {message}"
    for line in output.splitlines():
        if "undefined reference" in line or "error" in line.lower():
            return line.strip()[:300]
    return "the build failed (run cmake --build on the grade build to see why)"


def build(build_dir: pathlib.Path, label: str) -> tuple:
    """Builds each selected lesson test program on its own. Returns the lessons' (lesson, backend)
    pairs and {(lesson, backend): first error} for those that did not build."""
    manifest = build_dir / "lesson_targets.txt"
    if not manifest.exists():
        sys.exit(f"no {manifest}: configure the grade build first (cmake --preset grade)")
    pairs, broken = [], {}
    jobs = str(max(1, min(os.cpu_count() or 1, 4)))
    for line in manifest.read_text().splitlines():
        if not line.strip():
            continue
        lesson, backend, target, executable = line.split(" ", 3)
        pairs.append((lesson, backend))
        if not selected(label, lesson, backend):
            continue
        print(f"building {lesson}-{backend} ...", file=sys.stderr, flush=True)
        done = subprocess.run(["cmake", "--build", str(build_dir), "--target", target, "-j", jobs],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        if done.returncode != 0:
            broken[(lesson, backend)] = first_error(done.stdout)
            pathlib.Path(executable).unlink(missing_ok=True)  # never grade an old program
    return pairs, broken


def run_ctest(build_dir: pathlib.Path, label: str) -> tuple:
    """Runs the tests; returns the JUnit file and {test name: ctest's status when it failed}."""
    junit = build_dir / "grade-junit.xml"
    junit.unlink(missing_ok=True)
    command = ["ctest", "--test-dir", str(build_dir), "--output-junit", str(junit), "-j2",
               "-L", label or "^L[0-9]"]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          check=False)
    if not junit.exists():
        sys.exit(f"ctest wrote no results in {build_dir}: configure it first (cmake --preset grade)")
    # "  12 - L02-cudasim-forward/Norm.Golden (SEGFAULT)"
    statuses = dict(re.findall(r"^\s*\d+ - (\S+) \((.+)\)\s*$", done.stdout, re.MULTILINE))
    return junit, statuses


def clean(text: str) -> str:
    """One line: no gtest byte dumps ("16-byte object <D0-4B ...>"), single spaces."""
    text = re.sub(r"\d+-byte object <[0-9A-Fa-f \-]*>,?\s*", "", text)
    return re.sub(r"\s+", " ", text).strip()


def shorten(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " ..."


def why(output: str) -> str:
    """The message a student needs: not implemented, the exception's own text, the failed
    assertion's explanation (or the memory-error report inside it); "" if none is found."""
    flat = clean(output)
    stub = re.search(r'description "([^"]*not implemented yet[^"]*)"', flat)
    if stub:
        return stub.group(1).rstrip(".")
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if "Failure" not in line and "C++ exception" not in line:
            continue
        block = [line]
        for l in lines[i + 1:]:
            if l.startswith("[  FAILED") or l.startswith("[       OK") or "Failure" in l:
                break
            block.append(l)
        detail = clean(" ".join(block))
        thrown = re.search(r'description "(.*)" thrown in the test body', detail)
        if thrown:
            return shorten(thrown.group(1))
        expected = re.search(r"Expected: throws an exception which is an? (.*?) Actual: (.*)$", detail)
        if expected:  # EXPECT_INPUT_ERROR: say what was expected, then what happened
            actual = re.sub(r'^throws (\S+) with description "(.*)"\.?$', r"threw \1: \2",
                            expected.group(2))
            return shorten(f"{actual} (expected {expected.group(1)})")
        explained = re.search(r"Actual: false \((.*?)\) Expected: true", detail)
        if explained:
            return shorten(explained.group(1))
        detail = re.sub(r"^.*?Failure ", "", detail)
        return shorten(detail)
    return ""


def crash_reason(status: str, output: str) -> str:
    """A test that did not end normally: crashed or timed out, and what it said before."""
    said = why(output)
    memcheck = re.search(r"kernel '[^']*'[^\n]*invalid (?:read|write)[^\n]*", output)
    if memcheck and memcheck.group(0) not in said:
        said = clean(memcheck.group(0)) + (f" | {said}" if said else "")
    if status.lower() == "timeout":
        head = "timed out (past its limit: 60 s, 300 s in a sanitize build)"
    else:
        head = f"crashed ({status})"
    return head + (f": {said}" if said else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=str(ROOT / "build-grade"),
                        help="the grade build, configured with -DANDREA_GRADE=ON (default: build-grade/)")
    parser.add_argument("-L", dest="label", default="",
                        help="grade only the tests whose ctest label matches this regex, "
                             "as ctest -L: L03, cudasim, L0[12]-cpu")
    parser.add_argument("--no-build", action="store_true",
                        help="grade the test programs as they are, without building them first")
    args = parser.parse_args()
    build_dir = pathlib.Path(args.build_dir).resolve()
    if args.no_build:
        manifest = build_dir / "lesson_targets.txt"
        entries = [l.split(" ", 3) for l in manifest.read_text().splitlines() if l.strip()] \
            if manifest.exists() else []
        pairs = [(lesson, backend) for lesson, backend, _, _ in entries]
        broken = {(lesson, backend): "not built (grade without --no-build to see why)"
                  for lesson, backend, _, executable in entries
                  if not pathlib.Path(executable).exists()}
    else:
        pairs, broken = build(build_dir, args.label)
    junit, statuses = run_ctest(build_dir, args.label)

    # results[lesson][backend][test] = list of (order, status, reason), one per thread order
    results = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name", "")
        match = NAME.match(name)
        if not match:
            continue
        lesson, backend, order, test = match.groups()
        output = case.findtext("system-out") or ""
        skipped = case.find("skipped")
        if skipped is not None or case.get("status") == "notrun":
            status, reason = "skipped", (skipped.get("message", "") if skipped is not None else "")
        elif case.find("failure") is not None or case.get("status") == "fail":
            ctest_status = statuses.get(name, "Failed")
            status = "fail"
            if ctest_status == "Failed":
                reason = why(output) or "failed (see ctest --output-on-failure)"
            else:
                reason = crash_reason(ctest_status, output)
        else:
            status, reason = "pass", ""
        results[lesson][backend][test].append((order or "", status, reason))

    def column(lesson: str, backend: str) -> tuple:
        if (lesson, backend) in broken:
            reason = broken[(lesson, backend)]
            text = "not built" if reason.startswith("not built") else "does not compile"
            return text, 0.0, [("", [], reason)]
        tests = results[lesson][backend]
        if not tests:
            return "-", 0.0, []
        if all(s == "skipped" for runs in tests.values() for _, s, _ in runs):
            return "skipped", 0.0, []
        passed = [t for t, runs in tests.items() if all(s == "pass" for _, s, _ in runs)]
        failures = []  # (test, orders that failed, reason of the first)
        for test, runs in tests.items():
            failed = [(o, r) for o, s, r in runs if s == "fail"]
            if failed:
                orders = [o for o, _ in failed] if len(runs) > 1 and len(failed) < len(runs) else []
                failures.append((test, orders, failed[0][1]))
        if failures and all("not implemented yet" in r for _, _, r in failures) and not passed:
            return "not implemented", 0.0, failures
        hidden = {t for t, runs in tests.items() if runs[0][0] == "hidden"}  # LNN-backend-hidden/
        groups = [g for g in (set(tests) - hidden, hidden) if g]
        share = sum(len(g.intersection(passed)) / len(g) for g in groups) / len(groups)
        return f"{len(passed)}/{len(tests)} pass", share, failures

    names = titles()
    lessons = sorted({lesson for lesson, _ in pairs} | set(results))
    print(f"{'lesson':<22} {'C++':<18} {'CUDA on CPU':<18} {'GPU':<18} {'points':>7}")
    total, possible, report = 0.0, 0, []
    for lesson in lessons:
        chosen = [b for b in BACKENDS if selected(args.label, lesson, b)]
        if not chosen:
            continue
        cells, points, worth = [], 0.0, 0
        for backend in BACKENDS:
            if backend not in chosen:
                cells.append("(not graded)")
                continue
            text, share, failures = column(lesson, backend)
            cells.append(text)
            if backend in POINTS:
                points += POINTS[backend] * share
                worth += POINTS[backend]
            if text == "does not compile":
                report.append(f"  {lesson}-{backend} does not compile: {failures[0][2]}")
                continue
            if text == "not built":
                report.append(f"  {lesson}-{backend} {failures[0][2]}")
                continue
            by_reason = collections.defaultdict(list)  # one line per distinct reason and orders
            for test, orders, reason in failures:
                by_reason[(reason, tuple(orders))].append(test)
            # Memory errors, crashes and time-outs first: they explain the wrong values.
            lines = sorted(by_reason.items(), key=lambda item: not re.search(
                r"invalid (read|write)|crashed|timed out", item[0][0]))
            for (reason, orders), tests in lines[:PER_COLUMN]:
                more = f" (+{len(tests) - 1} more tests)" if len(tests) > 1 else ""
                under = f" [fails in thread order {', '.join(orders)} only]" if orders else ""
                report.append(f"  {lesson}-{backend} {tests[0]}{more}{under}: {reason}")
            if len(lines) > PER_COLUMN:
                rest = sum(len(tests) for _, tests in lines[PER_COLUMN:])
                report.append(f"  {lesson}-{backend} ... and {rest} more failing tests: "
                              f"ctest --test-dir {build_dir} -L {lesson}-{backend} --output-on-failure")
        total, possible = total + points, possible + worth
        score = f"{points:>4.1f}/{worth}" if worth else "     -"
        print(f"{lesson} {names.get(lesson, ''):<18} {cells[0]:<18} {cells[1]:<18} {cells[2]:<18} {score}")
    if possible:
        print(f"{'total':<79} {total:>4.1f}/{possible}")
    else:
        print("total: no points in this selection (the GPU column never counts)")
    if report:
        print("\nwhat fails and why (first failure of each kind):")
        print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
