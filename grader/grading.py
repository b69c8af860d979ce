#!/usr/bin/env python3
"""The grading engine: builds the tests of each lesson and backend on their own, runs them, and
scores them per lesson: what passes under each backend, the points, and why the failures fail.
Used by the student's command (lessons/grade.py) and by the class grader (grader/class/grade_class.py),
in the same process: `grade_build(build_dir, ...)`.
Points: 10 per lesson, 5 for the C++ step (backend cpu) and 5 for the CUDA step run on the CPU
execution layer (backend cudasim; a test counts only if it passes under every thread order:
forward, reverse and random); a lesson whose CUDA exercise has several steps (lessons.json's
cuda_steps: lesson 8's atomic and deterministic backward) shares the 5 points between them, one
row each. Each step is scaled by the share of its tests that pass (in an instructor's build with hidden
tests, -DANDREA_HIDDEN_SEED=N, half by the public tests' share and half by the hidden tests',
prefix LNN-backend-hidden/); a CUDA step's Efficiency.* tests, the memory its kernels cost
(EFFICIENCY below), are worth a fifth of it, apart from that share; a kernel that reads or writes
outside its arrays, or races (the CPU layer's racecheck), scores 0 for its step, the report first. The GPU column (backend
gpu) is for information only and never counts toward the points: where no GPU is present
(no /dev/nvidia0 or /dev/dxg) it reads "skipped" and its programs are neither built nor run.

A lesson's tests on one backend run again only when their programs, the runner (by its hash)
or the goldens changed since the last grading of that build: after an edit of
lessons/01_lookup/lookup.cpp, the CUDA step's runner is the same and its results are taken from
build-grade/grade-results.json (--rerun runs every selected test again).

What runs where (grader/remote/README.md): each lesson and backend has a runner, built from the
student's files alone, and test programs built from the course's files alone, which send each
call of a piece to the runner and judge its answer. The engine builds the runners (a lesson that
does not compile scores 0 for that backend of that lesson only, its first compiler error shown
under "what fails and why"), runs each test program itself, two at a time, and reads
googletest's XML report, written by the test program: nothing the student's code prints is
read. The tests of a step are those the program lists; one missing from its report failed. A
call whose runner ended, crashed or did not answer in time (half the test time limit) fails,
and the report says so. The goldens and the test programs must come out of the run as they went
in: if a run wrote into them, no points are given.
"""
import collections
import concurrent.futures
import dataclasses
import hashlib
import functools
import glob
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parent.parent
POINTS = {"cpu": 5, "cudasim": 5}  # the gpu column gives no points
# What a kernel costs (tests/support/efficiency.hpp): a CUDA step's tests named Efficiency.*
# hold its kernels to the memory traffic its lesson's README states, from the CPU layer's exact
# counts. They are worth this share of the step (of each half, public and hidden, with hidden
# tests), once every public test of the step's values passes: a correct kernel that wastes
# memory loses these points alone, a wrong one gains nothing from them.
EFFICIENCY = 0.2
COST_TEST = re.compile(r"^Efficiency\.")
BACKENDS = ("cpu", "cudasim", "gpu")
PER_COLUMN = 4  # failure lines shown per lesson and backend
ERROR = re.compile(r"^(\S.*?)(?::(\d+)(?::\d+)?|\((\d+)\)):\s+(?:fatal )?error:?\s+(.*)$")
MEMORY_ERROR = re.compile(r"kernel '[^']*'[^\n]*invalid (?:read|write)[^\n\"]*")
ENDED_EARLY = re.compile(r"\[andrea\] (the test program (?:ended|was killed|wrote|tried)[^\n]*)")
# The CPU layer's racecheck report (cudasim/tools/race.cpp): the hazard and its two threads.
RACE = re.compile(r"kernel '[^']*' block [^\n]*race \((?:RAW|WAR|WAW)\)[^\n]*(?:\n  thread [^\n]*){0,2}")
# A CUDA step whose work was not done by a kernel (grader/remote/client.cpp): no launch, or an
# answer the same with its launches skipped.
ON_HOST = re.compile(r"the CUDA step computed \w+\(\) on the host")
GTEST_FAILURE = re.compile(r"(?:^|: )Failure$")  # "file:line: Failure" (googletest), "Failure" (the scripts)
# grade.py -v: each test program's output, with what the student's code printed in it (the
# runner's output, dropped otherwise), goes to stderr after its run; the results are not reused.
SHOW_OUTPUT = False
SERIOUS = re.compile(r"invalid (read|write)|race \((RAW|WAR|WAW)\)|on the host|crashed|timed out|ended|killed|wrote more|tried to write")


@dataclasses.dataclass
class Step:
    """A graded column: a lesson's C++ step, or one of its CUDA steps, on one backend."""
    lesson: str
    backend: str
    name: str = ""        # "atomic" for one of several CUDA steps, else ""
    tests: str = ""       # a regex over test names: the tests of this step ("" = the rest)

    @property
    def key(self) -> str:
        return f"{self.lesson}-{self.backend}" + (f"-{self.name}" if self.name else "")


@functools.cache
def manifest() -> list:
    """The lessons, from the one list of them (lessons/lessons.json), read once."""
    return json.loads((ROOT / "lessons" / "lessons.json").read_text())["lessons"]


def titles() -> dict:
    """L01 -> "lookup"."""
    return {lesson["label"]: lesson["title"] for lesson in manifest()}


def steps_of(lesson: str) -> list:
    """A lesson's rows: [[its steps on cpu, cudasim, gpu], ...], one row per CUDA step; when the
    CUDA exercise has several steps, the C++ step has a row of its own, first, named for the
    lesson alone (its points are not one CUDA step's)."""
    entry = next((l for l in manifest() if l["label"] == lesson), {})
    cuda_steps = entry.get("cuda_steps") or [{"name": "", "tests": ""}]
    split = len(cuda_steps) > 1
    rows = [[Step(lesson, "cpu"), None, None]] if split else []
    for step in cuda_steps:
        rows.append([None if split else Step(lesson, "cpu"),
                     Step(lesson, "cudasim", step["name"], step["tests"]),
                     Step(lesson, "gpu", step["name"], step["tests"])])
    return rows


def belongs(step: Step, test: str) -> bool:
    """Is this test one of the step's? A step with no pattern takes what the others do not."""
    if step.tests:
        return re.search(step.tests, test) is not None
    others = [s for row in steps_of(step.lesson) for s in row
              if s and s.backend == step.backend and s.tests]
    return not any(re.search(s.tests, test) for s in others)


def selected(label: str, lesson: str, backend: str) -> bool:
    """Does ctest's -L label regex pick the tests labelled lesson-backend?"""
    return not label or re.search(label, f"{lesson}-{backend}") is not None


def cache_value(build_dir: pathlib.Path, name: str, default: str = "") -> str:
    """A variable of the build's CMakeCache.txt."""
    cache = build_dir / "CMakeCache.txt"
    text = cache.read_text(errors="replace") if cache.exists() else ""
    match = re.search(rf"^{name}:\w+=(.*)$", text, re.MULTILINE)
    return match.group(1) if match else default


def first_error(output: str, lessons_dir: pathlib.Path) -> str:
    """The first compiler or linker error of a build log: "file:line: message", the file named
    from the lessons folder's parent (lessons/04_position_table/position.cu)."""
    for line in output.splitlines():
        match = ERROR.match(line.strip())
        if match:
            path, line_no, message = match.group(1), match.group(2) or match.group(3), match.group(4)
            for base in (lessons_dir.parent, ROOT):
                try:
                    path = str(pathlib.Path(path).resolve().relative_to(base))
                    break
                except ValueError:
                    pass
            return f"{path}:{line_no}: {message}"
    for words in (("undefined reference", "multiple definition"), ("error",)):  # the linker's first
        for line in output.splitlines():
            if any(w in line.lower() for w in words):
                return line.strip()[:300]
    return "the build failed (run cmake --build on the grade build to see why)"


@functools.cache
def plan(build_dir: pathlib.Path, trusted: pathlib.Path = None) -> list:
    """What the build grades, read once from grade_plan.jsonl (grader/remote/remote.cmake): one
    entry per test program, {lesson, backend, target, program, runner_target, runner, hidden,
    orders, slow}. Read from the trusted build (in a class, the base build: the submission's copy
    is written by its compiler), whose test programs are run; the runners are build_dir's."""
    trusted = trusted or build_dir
    listing = trusted / "grade_plan.jsonl"
    if not listing.exists():
        sys.exit(f"no {listing}: configure the grade build first (cmake --preset grade)")
    entries = [json.loads(line) for line in listing.read_text().splitlines() if line.strip()]
    # The paths are those of the folder the build was configured in; a copy of it (a class's
    # base, or one worker's build when a class is graded in parallel) lies elsewhere.
    configured = pathlib.Path(cache_value(trusted, "CMAKE_CACHEFILE_DIR", str(build_dir)))
    for e in entries:
        e["program"] = str(trusted / pathlib.Path(e["program"]).relative_to(configured))
        e["runner"] = str(build_dir / pathlib.Path(e["runner"]).relative_to(configured))
    return entries


def gpu_present() -> bool:
    """Is there a CUDA device to run the GPU column on? (Its device files: Linux, WSL2.)"""
    return bool(glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/dxg"))


def run_command(command: list, variables: dict = None) -> tuple:
    """Runs a command of the grading (cmake --build, a test program) with these environment
    variables added: (its status, the first 256 KiB of its output, stdout and stderr together;
    the rest, such as a flood of compiler errors, is read and dropped). The class grader runs
    them with a submission's limits instead. The variables go in the environment, never in the
    command line, which any process of the machine can read (/proc/PID/cmdline): the hidden
    tests' seed is one."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, env={**os.environ, **(variables or {})})
    kept = bytearray()
    for chunk in iter(lambda: process.stdout.read(65536), b""):
        kept += chunk[:max(0, (256 << 10) - len(kept))]
    process.stdout.close()
    return process.wait(), kept.decode(errors="replace")


def cmake_build(build_dir: pathlib.Path, names: list, runner=run_command) -> tuple:
    """Runs cmake --build for these targets: (its status, its output)."""
    jobs = str(max(1, min(os.cpu_count() or 1, 4)))
    return runner(["cmake", "--build", str(build_dir), "--target", *names, "-j", jobs])


def build(build_dir: pathlib.Path, label: str, runner=run_command, trusted: pathlib.Path = None) -> tuple:
    """Builds the selected lessons' runners and test programs (the GPU column's only where a GPU
    is present: elsewhere it would be skipped): all at once, and where that fails each runner on
    its own, to find those that do not build. A class's test programs are its base build's
    (trusted), built before any submission: then only the runners are built. Returns the
    lessons' (lesson, backend) pairs and {(lesson, backend): first error} for those that did not
    build."""
    lessons_dir = pathlib.Path(cache_value(build_dir, "ANDREA_LESSONS_DIR", str(ROOT / "lessons")))
    gpu = gpu_present()
    entries = plan(build_dir, trusted)
    pairs = [(e["lesson"], e["backend"]) for e in entries]
    chosen = [e for e in entries if selected(label, e["lesson"], e["backend"])
              and (e["backend"] != "gpu" or gpu)]
    print(f"building {' '.join(sorted({e['lesson'] + '-' + e['backend'] for e in chosen}))} ...",
          file=sys.stderr, flush=True)
    # The runners hold the student's code; the test programs, the course's.
    names = sorted({e["runner_target"] for e in chosen}
                   | (set() if trusted else {e["target"] for e in chosen}))
    broken = {}
    if chosen and cmake_build(build_dir, names, runner)[0] != 0:
        broken = build_one_by_one(build_dir, chosen, lessons_dir, runner, trusted)
    return pairs, {**broken, **missing(chosen, broken)}


def build_one_by_one(build_dir: pathlib.Path, chosen: list, lessons_dir: pathlib.Path, runner,
                     trusted) -> dict:
    """After a build that failed: each test program (the course's) and each runner (the
    student's) on its own, to find those that do not build. {(lesson, backend): first error}."""
    broken = {}
    for e in chosen:
        pair = (e["lesson"], e["backend"])
        if pair in broken:
            continue
        if not trusted:  # the course's own program: its failure is not the student's
            status, output = cmake_build(build_dir, [e["target"]], runner)
            if status != 0:
                broken[pair] = (f"not built: the course's test program {e['target']} did not build "
                                f"({first_error(output, lessons_dir)})")
                continue
        status, output = cmake_build(build_dir, [e["runner_target"]], runner)
        if status != 0:
            broken[pair] = first_error(output, lessons_dir)
            pathlib.Path(e["runner"]).unlink(missing_ok=True)  # never grade an old runner
    return broken


def missing(entries: list, broken: dict) -> dict:
    """{(lesson, backend): why} for the pairs built as far as the build goes whose test program
    or runner is still not on disk (deleted, or a build that stopped without saying why): never
    run, 0 for that step with the path, the other steps graded."""
    gone = {}
    for e in entries:
        pair = (e["lesson"], e["backend"])
        if pair in broken or pair in gone:
            continue
        for what, path in (("test program", e["program"]), ("runner", e["runner"])):
            if not pathlib.Path(path).is_file():
                gone[pair] = (f"not built: its {what} {path} is not there (build it with cmake "
                              f"--build on the grade build to see why)")
                break
    return gone


def protected(build_dir: pathlib.Path, trusted: pathlib.Path) -> dict:
    """{file: (size, mtime, ctime)} of what the tests must leave as it is: the goldens, the test
    programs and ctest's lists of their tests. (A write changes the ctime, which no program can
    set back.)"""
    source = pathlib.Path(cache_value(trusted, "CMAKE_HOME_DIRECTORY", str(ROOT)))
    files = [p for p in (source / "golden").rglob("*") if p.is_file()]
    for entry in plan(build_dir, trusted):
        program = pathlib.Path(entry["program"])
        files += [program, *program.parent.glob(f"{program.name}*_tests.cmake")]
    signature = {}
    for path in files:
        try:
            stat = path.stat()
            signature[str(path)] = (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
        except OSError:
            pass
    return signature


def changed(before: dict, after: dict) -> list:
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def runs_of(trusted: pathlib.Path, entry: dict) -> list:
    """The runs of one test program: [(order, environment, gtest filter)]. On the CPU layer, one
    per thread order with racecheck and memcheck on (the hidden tests: their own seeded order);
    a lesson's slow tests once, in the first order, without the tools (not under sanitize)."""
    orders = entry["orders"] or [""]
    slow = entry["slow"]
    hidden = {"ANDREA_HIDDEN_SEED": cache_value(trusted, "ANDREA_HIDDEN_SEED")} if entry["hidden"] else {}
    runs = []
    for order in orders:
        env = {**hidden, "CUDASIM_ORDER": order, "CUDASIM_TOOLS": "racecheck,memcheck"} if order else hidden
        runs.append(("hidden" if entry["hidden"] else order.replace(":", "-"), env,
                     f"-{slow}" if slow else "*"))
    if slow and cache_value(trusted, "ANDREA_SANITIZE", "OFF").upper() not in ("ON", "1", "TRUE"):
        env = {"CUDASIM_ORDER": orders[0]} if orders[0] else {}
        runs.append((orders[0].replace(":", "-"), env, slow))
    return runs


@functools.cache
def listed(program: str, gtest_filter: str) -> list:
    """The tests a program holds under a filter ("Suite.Test"), from the program itself: a test
    program of a grade build holds no student code, so the list is the course's. Asked once per
    process: a class's test programs are its base build's, which no submission changes."""
    try:
        done = subprocess.run([program, "--gtest_list_tests", f"--gtest_filter={gtest_filter}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              check=False, env={**os.environ, "ANDREA_HIDDEN_SEED": "0"})
    except OSError:  # gone since the build (missing() finds it first): no test to list
        return []
    tests, suite = [], ""
    for line in done.stdout.splitlines():
        name = line.split("#")[0].rstrip()
        if not name:
            continue
        if not line.startswith(" "):
            suite = name
        else:
            tests.append(suite + name.strip())
    return tests


def run_program(trusted: pathlib.Path, xml: pathlib.Path, entry: dict, run: tuple, runner) -> tuple:
    """Runs one program once: (order, {test: (status, reason)}). Its XML report goes to xml, in
    a folder of this process's own. Every test of its list that the report does not hold failed
    (the program stopped before it)."""
    order, env, gtest_filter = run
    program = entry["program"]
    timeout = cache_value(trusted, "ANDREA_TEST_TIMEOUT", "60")
    variables = {**env, "ANDREA_RUNNER": entry["runner"],
                 "ANDREA_RUNNER_TIMEOUT": str(max(5, int(timeout) // 2))}
    if SHOW_OUTPUT:
        variables["ANDREA_RUNNER_OUTPUT"] = "show"
    command = [program, f"--gtest_filter={gtest_filter}", f"--gtest_output=xml:{xml}"]
    status, output = runner(command, variables)
    if SHOW_OUTPUT:
        where = f"{entry['lesson']}-{entry['backend']}" + (f", order {order}" if order else "")
        print(f"\n--- {where}: the tests' output, and what your code printed ---\n{output}",
              file=sys.stderr, end="", flush=True)
    results = read_xml(xml, timeout)
    last = (output.strip().splitlines() or [""])[-1]
    for test in listed(program, gtest_filter):
        if test not in results:
            results[test] = ("fail", f"did not run: the test program stopped before it (exit "
                             f"status {status}){': ' + last if last else ''}")
    return order, results


def read_xml(xml: pathlib.Path, timeout: str) -> dict:
    """{test: (status, reason)} from googletest's XML report, written by the test program (never
    by the runner): pass, skipped (with googletest's message) or fail (with why)."""
    results = {}
    try:
        root = ET.parse(xml).getroot()
    except (OSError, ET.ParseError):
        return results
    for case in root.iter("testcase"):
        test = f"{case.get('classname', '')}.{case.get('name', '')}"
        failures = case.findall("failure")
        skipped = case.find("skipped")
        if failures:
            output = "\n".join("Failure\n" + (f.get("message") or "") for f in failures)
            results[test] = ("fail", failure_reason("Failed", output, timeout))
        elif skipped is not None or case.get("result") == "skipped":
            results[test] = ("skipped", skipped.get("message", "") if skipped is not None else "")
        else:
            results[test] = ("pass", "")
    return results


def run_tests(build_dir: pathlib.Path, pairs: list, runner, trusted: pathlib.Path) -> dict:
    """Runs the test programs of these (lesson, backend) pairs, one per core (in a class, whose
    submissions run side by side, the runner's programs_at_once, else two, at a time):
    results[lesson][backend][test] = [(order, status, reason)]. The programs are those of
    `trusted` (a class's base build, which no submission writes), the runners those of build_dir."""
    work = [(entry, run) for entry in plan(build_dir, trusted)
            if (entry["lesson"], entry["backend"]) in pairs for run in runs_of(trusted, entry)]
    results = no_results()
    workers = (max(2, os.cpu_count() or 2) if runner is run_command
               else getattr(runner, "programs_at_once", 2))
    with tempfile.TemporaryDirectory(prefix="andrea-grade-") as xml_dir, \
            concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        done = pool.map(lambda job: (job[1][0], run_program(
            trusted, pathlib.Path(xml_dir) / f"{job[0]}.xml", *job[1], runner)), enumerate(work))
        for entry, (order, tests) in done:
            for test, (status, reason) in tests.items():
                results[entry["lesson"]][entry["backend"]][test].append((order, status, reason))
    return results


CACHE = "grade-results.json"  # in the build folder: the last results of each lesson and backend


def inputs(build_dir: pathlib.Path, lesson: str, backend: str, trusted: pathlib.Path) -> list:
    """What the results of a lesson's tests on one backend depend on: its test programs (size and
    time), its runner (by its hash: a runner is rebuilt from the student's files), the goldens
    and the configuration."""
    source = pathlib.Path(cache_value(trusted, "CMAKE_HOME_DIRECTORY", str(ROOT)))
    entries = [e for e in plan(build_dir, trusted) if (e["lesson"], e["backend"]) == (lesson, backend)]
    files = [pathlib.Path(e["program"]) for e in entries]
    files += sorted((source / "golden").rglob("*")) + [trusted / "CMakeCache.txt"]
    signature = []
    for path in files:
        try:
            stat = path.stat()
            signature.append([str(path), stat.st_size, stat.st_mtime_ns])
        except OSError:
            signature.append([str(path), None, None])
    for runner in sorted({e["runner"] for e in entries}):
        where = os.path.relpath(runner, build_dir)  # the same in every copy of the build
        try:
            signature.append([where, hashlib.sha256(pathlib.Path(runner).read_bytes()).hexdigest()])
        except OSError:
            signature.append([where, None])
    return signature


def load_cache(path: pathlib.Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def save_cache(path: pathlib.Path, cache: dict) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(cache) + "\n")
    os.replace(temporary, path)


def test_results(build_dir: pathlib.Path, pairs: list, broken: dict, label: str, rerun: bool,
                 runner=run_command, trusted: pathlib.Path = None,
                 cache_file: pathlib.Path = None) -> tuple:
    """results[lesson][backend][test] = [(order, status, reason)] of the selected lessons and
    backends, and the files the tests changed (tampered: no points). The tests of a pair whose
    programs, runner and goldens are as they were at its last grading are not run again: their
    results are the cache's (in a class, each submission reuses the stubs' results of the
    lessons it left alone; the class keeps that cache where no submission can write)."""
    trusted = trusted or build_dir
    cache_file = cache_file or build_dir / CACHE
    gpu = gpu_present()
    cache = {} if rerun or SHOW_OUTPUT else load_cache(cache_file)
    todo, reused, signatures = [], {}, {}
    for lesson, backend in sorted(set(pairs)):
        if (not selected(label, lesson, backend) or (lesson, backend) in broken
                or (backend == "gpu" and not gpu)):
            continue
        key = f"{lesson}-{backend}"
        signatures[key] = inputs(build_dir, lesson, backend, trusted)
        if cache.get(key, {}).get("inputs") == signatures[key]:
            reused[(lesson, backend)] = cache[key]["results"]
        else:
            todo.append((lesson, backend))
    if reused:
        print("unchanged since they were last graded, results reused (--rerun runs them): "
              + " ".join(f"{l}-{b}" for l, b in reused), file=sys.stderr, flush=True)
    results, tampered = no_results(), []
    if todo:
        before = protected(build_dir, trusted)
        results = run_tests(build_dir, todo, runner, trusted)
        tampered = changed(before, protected(build_dir, trusted))
    for (lesson, backend), tests in reused.items():
        results[lesson][backend] = {test: [tuple(run) for run in runs] for test, runs in tests.items()}
    fresh = load_cache(cache_file)
    for lesson, backend in todo:
        key = f"{lesson}-{backend}"
        if tampered:  # never keep the results of a run whose tests wrote into the goldens
            fresh.pop(key, None)
        else:
            fresh[key] = {"inputs": signatures[key], "results": results[lesson][backend]}
    for pair in broken:  # not built: nothing of it is kept
        fresh.pop(f"{pair[0]}-{pair[1]}", None)
    save_cache(cache_file, fresh)
    return results, tampered


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
        if not GTEST_FAILURE.search(line) and "C++ exception" not in line:
            continue
        block = [line]
        for l in lines[i + 1:]:
            if l.startswith("[  FAILED") or l.startswith("[       OK") or GTEST_FAILURE.search(l):
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


def failure_reason(status: str, output: str, timeout: str) -> str:
    """Why a failed test failed: its time limit, the memory-error report, the program ended
    before the test finished (the supervisor's line), a crash, or the assertion's message."""
    said = why(output)
    memcheck = MEMORY_ERROR.search(output)
    if memcheck:  # the report alone: the launch check's exception repeats it
        said = clean(memcheck.group(0))
    race = RACE.search(output)
    if race and not memcheck:  # the report alone: it explains the wrong values
        first, *threads = [line.strip() for line in race.group(0).splitlines()]
        said = clean(f"{first} {' and '.join(threads)}")
    if status.lower() == "timeout":
        return f"timed out ({timeout} s limit)" + (f": {said}" if said else "")
    ended = ENDED_EARLY.search(output)
    if ended:  # the last word of the test program, written by its parent, not by the exercise
        return ended.group(1) + (f" | {said}" if said else "")
    if status not in ("Failed", ""):
        return f"crashed ({status})" + (f": {said}" if said else "")
    return said or "failed (see ctest --preset grade --output-on-failure)"


def profile(build_dir: pathlib.Path, label: str, table: bool = False) -> int:
    """--profile: runs the CUDA step's tests of the selected lessons (backend cudasim) under the
    CPU execution layer's profile tool and prints each launch in two lines, its kernel and its
    summary (requests and sectors against what their bytes need, bank conflicts, atomics, bytes
    moved and the time they take); table: the whole report per line of the kernel
    (cudasim/README.md, "Measuring a kernel"). No points. memcheck runs too: a profile of a
    kernel that writes out of bounds says so."""
    chosen = [e for e in plan(build_dir) if e["backend"] == "cudasim" and not e["hidden"]
              and selected(label, e["lesson"], e["backend"])]
    if not chosen:
        print(f"grade.py --profile: no CUDA step matches -L {label or '(all)'}: the profile is of "
              "a lesson's cudasim tests, e.g. -L L01", file=sys.stderr)
        return 2
    for entry in chosen:
        lesson = entry["lesson"]
        subprocess.run(["cmake", "--build", str(build_dir), "--target", entry["target"],
                        entry["runner_target"]], check=True, stdout=subprocess.DEVNULL)
        done = subprocess.run([entry["program"]],
                              env={**os.environ, "CUDASIM_TOOLS": "profile,memcheck",
                                   "ANDREA_RUNNER": entry["runner"], "ANDREA_RUNNER_OUTPUT": "show"},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              check=False)
        for out in done.stdout.splitlines():  # the test names and the reports
            error = MEMORY_ERROR.search(out)
            if out.startswith("[ RUN      ]"):
                print(f"\n{lesson} {out[13:]}")
            elif error:
                print(f"  {clean(error.group(0))}")
            elif out.startswith(("profile:", "  in short:")) or (table and out.startswith("  ")):
                print(out)
        if done.returncode != 0:
            print(f"\n{lesson}: its tests fail (exit status {done.returncode}): the figures above "
                  f"are of a kernel that is not right; python3 lessons/grade.py -L {lesson} says why")
    return 0


def no_results() -> dict:
    return collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))


@dataclasses.dataclass
class Column:
    """What a step scored: its cell, its share of the step's points, its failures."""
    text: str
    share: float = 0.0
    failures: list = dataclasses.field(default_factory=list)  # (test, orders that failed, reason)
    passed: int = 0   # the tests of its values passed (under every order) out of ...
    tests: int = 0
    public: list = dataclasses.field(default_factory=lambda: [0, 0])  # [passed, tests]
    hidden: list = dataclasses.field(default_factory=lambda: [0, 0])
    cost: list = dataclasses.field(default_factory=lambda: [0, 0])    # Efficiency.* tests
    public_share: float = 0.0  # the public half's share (its tests and the efficiency tests)


def column(step: Step, results: dict, broken: dict) -> Column:
    """The step's Column: its tests of values count as before (a share of each half, public and
    hidden), its efficiency tests for EFFICIENCY of the public half."""
    if (step.lesson, step.backend) in broken:
        reason = broken[(step.lesson, step.backend)]
        text = "not built" if reason.startswith("not built") else "does not compile"
        return Column(text, failures=[("", [], reason)])
    tests = {t: runs for t, runs in results[step.lesson][step.backend].items() if belongs(step, t)}
    if not tests:
        return Column("-")
    if all(s == "skipped" for runs in tests.values() for _, s, _ in runs):
        return Column("skipped", tests=len(tests))
    # A test skipped under every order (mpirun absent, with its reason) neither counts nor costs.
    tests = {t: runs for t, runs in tests.items() if any(s != "skipped" for _, s, _ in runs)}
    passed = [t for t, runs in tests.items() if all(s == "pass" for _, s, _ in runs)]
    failures = []
    for test, runs in tests.items():
        failed = [(o, r) for o, s, r in runs if s == "fail"]
        if failed:
            orders = [o for o, _ in failed] if len(runs) > 1 and len(failed) < len(runs) else []
            failures.append((test, orders, failed[0][1]))
    costs = [t for t in tests if COST_TEST.match(t)]
    values = {t: runs for t, runs in tests.items() if t not in costs}
    kept = [t for t in passed if t in values]
    public, hidden = split(values, kept)
    col = Column("", 0.0, failures, len(kept), len(values), public, hidden,
                 [len([t for t in passed if t in costs]), len(costs)])
    # Each half (public, hidden) is its tests' share, the efficiency tests taking EFFICIENCY
    # of it, counted once the public tests all pass (so the hidden half tells nothing more).
    weight = EFFICIENCY if costs else 0.0
    cost = col.cost[0] / col.cost[1] if costs and public[0] == public[1] else 0.0
    halves = [(1 - weight) * p / n + weight * cost for p, n in (public, hidden) if n]
    hidden_tests = hidden_of(tests)
    found = serious(failures)
    if failures and all("not implemented yet" in r for _, _, r in failures) and not passed:
        col.text = "not implemented"
    elif found:  # the whole step scores 0, as compute-sanitizer fails a run
        col.text = found
        # The public half's share, which an autograder shows before the due date, is what the
        # public tests found: a memory error only the hidden inputs reach must not show in it.
        public_found = serious([f for f in failures if f[0] not in hidden_tests])
        col.public_share = halves[0] if public[1] and not public_found else 0.0
    else:
        col.text = f"{len(kept)}/{len(values)} pass"
        col.public_share = halves[0] if public[1] else 0.0
        col.share = sum(halves) / len(halves)
    return col


def serious(failures: list) -> str:
    """The cell of a failure that scores the whole step 0 ("memory error", "race", "on the
    host"), or "" when none is."""
    for text, pattern in (("memory error", MEMORY_ERROR), ("race", RACE), ("on the host", ON_HOST)):
        if any(pattern.search(reason) for _, _, reason in failures):
            return text
    return ""


def hidden_of(tests: dict) -> set:
    """The hidden tests among {test: runs}: their runs are named "hidden" (LNN-backend-hidden/)."""
    return {t for t, runs in tests.items() if runs and runs[0][0] == "hidden"}


def split(tests: dict, passed: list) -> tuple:
    """([passed, tests] of the public tests, [passed, tests] of the hidden ones)."""
    hidden = hidden_of(tests)
    return ([len(set(passed) - hidden), len(tests) - len(hidden)],
            [len(hidden.intersection(passed)), len(hidden)])


def explain(step: Step, text: str, failures: list) -> list:
    """The report's lines for one column: one per distinct reason, the serious ones first."""
    where = step.key
    if text == "does not compile":
        return [f"  {where} does not compile: {failures[0][2]}"]
    if text == "not built":
        return [f"  {where} {failures[0][2]}"]
    by_reason = collections.defaultdict(list)  # one line per distinct reason and orders
    for test, orders, reason in failures:
        by_reason[(reason, tuple(orders))].append(test)
    # Memory errors, crashes, early ends and time-outs first: they explain the wrong values.
    lines = sorted(by_reason.items(), key=lambda item: not SERIOUS.search(item[0][0]))
    report = []
    for (reason, orders), tests in lines[:PER_COLUMN]:
        more = f" (+{len(tests) - 1} more tests)" if len(tests) > 1 else ""
        under = f" [fails in thread order {', '.join(orders)} only]" if orders else ""
        report.append(f"  {where} {tests[0]}{more}{under}: {reason}")
    if len(lines) > PER_COLUMN:
        rest = sum(len(tests) for _, tests in lines[PER_COLUMN:])
        report.append(f"  {where} ... and {rest} more failing tests: "
                      f"ctest --preset grade -L {step.lesson}-{step.backend} --output-on-failure")
    return report


def grade(pairs: list, broken: dict, results: dict, label: str, tampered: list) -> dict:
    """The table, the report and the graded steps (for --json and the class grader)."""
    names = titles()
    lessons = sorted({lesson for lesson, _ in pairs} | set(results))
    table = [f"{'lesson':<30} {'C++ (cpu)':<18} {'CUDA (cudasim)':<18} {'GPU (gpu)':<18} {'points':>7}"]
    report, public_report, graded = [], [], []
    total = possible = 0.0
    no_gpu = False  # a GPU step skipped: the table says why
    if tampered:
        report.append(tampered_message(tampered))
        public_report.append(report[-1])
    for lesson in lessons:
        rows = steps_of(lesson)
        cuda_rows = sum(1 for row in rows if row[1] is not None)
        for number, row in enumerate(rows):
            cells, points, worth = [], 0.0, 0.0
            for step in row:
                if step is None:
                    cells.append("")
                    continue
                if not selected(label, lesson, step.backend):
                    cells.append("(not graded)")
                    continue
                if step.backend == "gpu" and (lesson, "gpu") in pairs and not gpu_present():
                    cells.append("skipped")  # no GPU here: neither built nor run
                    no_gpu = True
                    continue
                col = column(step, results, broken)
                failures = col.failures
                cells.append(col.text)
                hidden_tests = hidden_of(results[lesson][step.backend])
                shown = [f for f in failures if f[0] not in hidden_tests]
                if step.backend in POINTS:
                    step_worth = POINTS[step.backend] / (cuda_rows if step.backend != "cpu" else 1)
                    graded.append(graded_step(step, col, shown, step_worth, tampered, names))
                    points, worth = points + graded[-1]["points"], worth + step_worth
                report += explain(step, col.text, failures)
                public_report += explain(step, col.text, shown)
            if all(c in ("", "(not graded)") for c in cells):
                continue
            total, possible = total + points, possible + worth
            title = names.get(lesson, "") + (f" ({row[1].name})" if row[1] and row[1].name else "")
            score = f"{points:>4.1f}/{worth:g}" if worth else "     -"
            table.append(f"{lesson} {title:<26} {cells[0]:<18} {cells[1]:<18} {cells[2]:<18} {score}")
    if possible:
        table.append(f"{'total':<87} {total:>4.1f}/{possible:g}")
    else:
        table.append("total: no points in this selection (the GPU column never counts)")
    if no_gpu:
        table.append("GPU skipped: no GPU on this machine (no /dev/nvidia0 or /dev/dxg); that column "
                     "never counts")
    text = "\n".join(table) + "\n"
    why_text = "\nwhat fails and why (first failure of each kind):\n"
    return {"steps": graded,
            "report": text + (why_text + "\n".join(report) + "\n" if report else ""),
            # What the public tests found, alone: no table, whose cells and points count the
            # hidden tests too (an autograder shows the hidden tests' results after the due date).
            "public_report": (why_text.lstrip("\n") + "\n".join(public_report) + "\n"
                              if public_report else "every public test passes\n")}


def tampered_message(tampered: list) -> str:
    """Why a grade whose goldens or test programs changed while the tests ran gives no points."""
    return ("  the goldens or the test programs changed while the tests ran (a test wrote "
            f"into {tampered[0]}"
            + (f" and {len(tampered) - 1} more files" if len(tampered) > 1 else "")
            + "): no points are given; restore them (git checkout golden/, rebuild) and grade again")


def graded_step(step, col, shown: list, worth: float, tampered: list, names: dict) -> dict:
    """One graded step, as --json and the class grader read it: its points out of `worth` (none
    when the goldens were tampered with), its counts and the first reason of each kind. shown:
    the failures of the public tests."""
    failures = col.failures
    return {"key": step.key, "name": step_title(step, names),
            "points": 0.0 if tampered else worth * col.share, "max_points": worth,
            "passed": col.passed, "tests": col.tests,
            "public": col.public, "hidden": col.hidden, "cost": col.cost,
            "public_share": 0.0 if tampered else col.public_share,
            "reason": first_reason(failures),
            "public_reason": first_reason(shown),
            "hidden_reason": first_reason([f for f in failures if f not in shown])}


def first_reason(failures: list) -> str:
    """The reason a step lost points: the first serious one (a write into the goldens, a memory
    error, a crash...), else the first failure's."""
    serious = [r for _, _, r in failures if SERIOUS.search(r)]
    return (serious or [r for _, _, r in failures] or [""])[0]


def step_title(step: Step, names: dict) -> str:
    kind = "C++ step" if step.backend == "cpu" else "CUDA step"
    return f"{step.lesson} {names.get(step.lesson, '')}, {kind}" + (f": {step.name}" if step.name else "")


def grade_build(build_dir: pathlib.Path, label: str = "", rerun: bool = False,
                no_build: bool = False, runner=run_command, trusted: pathlib.Path = None,
                cache_file: pathlib.Path = None) -> dict:
    """Builds (unless no_build) the selected lessons' runners and test programs of a grade build,
    runs their tests and grades them: {"steps": [...], "report": text}. runner runs each command
    (cmake --build, a test program): run_command, or the class grader's, with a submission's
    limits. trusted: the build whose test programs are run (a class's base build, built before
    any submission; its programs are then not built again); cache_file: where the results of
    each lesson and backend are kept between gradings (build_dir/grade-results.json)."""
    if no_build:
        entries = plan(build_dir, trusted)
        pairs = [(e["lesson"], e["backend"]) for e in entries]
        broken = missing(entries, {})
    else:
        pairs, broken = build(build_dir, label, runner, trusted)
    results, tampered = test_results(build_dir, pairs, broken, label, rerun, runner, trusted,
                                     cache_file)
    return grade(pairs, broken, results, label, tampered)


def unknown_label(build_dir: pathlib.Path, label: str) -> str:
    """"" when -L label picks a step of the build, else what to say."""
    if label and (build_dir / "grade_plan.jsonl").exists() and not any(
            selected(label, e["lesson"], e["backend"]) for e in plan(build_dir)):
        return (f"-L {label} matches no lesson's step; the labels are LNN, LNN-cpu, LNN-cudasim, "
                "LNN-gpu (lessons/lessons.json)")
    return ""
