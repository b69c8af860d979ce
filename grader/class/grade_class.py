#!/usr/bin/env python3
"""Grades a class: python3 grader/class/grade_class.py SUBMISSIONS --out RESULTS [--hidden-seed N].

SUBMISSIONS holds one folder (or git repository) per student with their exercise files
(grader/class/submissions.py says where they may lie). The course's tree is configured and built once,
with the exercise stubs, into a work folder: its test programs link no student code
(grader/remote/README.md). Each submission then gets a fresh copy of that build and of the lessons
folder with only its exercise files copied in; its runners are compiled in the sandbox
(grader/class/sandbox.sh: no network, the solutions and what else holds an answer hidden, only its
build folder writable), and the base build's test programs run against them, each runner started
in the sandbox. It is graded in this process by the engine the students use (grader/grading.py),
under the submission's limits (memory, a wall time for the whole submission, the growth of its
build folder). Written into RESULTS, by this process once the submission's processes are gone:
grades.csv (one row per student), and per student <name>/results.json (Gradescope's format) and
<name>/report.txt (what lessons/grade.py shows).
A submission that cannot be graded gets 0 and its reason; the batch goes on.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import gradebook
import sandbox
import submissions

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # grader/: the engine
import grading  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
DISK_FILES = 20000  # files a submission's build may add to the course's (about 2,000 of them)


def exercise_files(lessons: pathlib.Path) -> list:
    """The exercise files of the course: "01_lookup/lookup.cpp", ..."""
    return sorted(str(path.relative_to(lessons)) for path in lessons.glob("[0-9][0-9]_*/*")
                  if path.suffix in (".cpp", ".cu"))


def writable_folder(out: pathlib.Path) -> str:
    """"" when results can be written into out (made if missing), else why not."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".probe-"):
            pass
    except OSError as error:
        return f"cannot write the results into {out}: {error.strerror}"
    return ""


def configure(work: pathlib.Path, args) -> list:
    """The cmake command that configures the class's build: grade mode, the work folder's lessons,
    every test program run through the sandbox."""
    command = ["cmake", "-S", str(ROOT), "-B", str(work / "build"), *generator(), "-DANDREA_GRADE=ON",
               f"-DANDREA_LESSONS_DIR={work / 'lessons'}", "-DANDREA_CUDA=OFF",
               f"-DANDREA_TEST_TIMEOUT={args.test_timeout}"]
    if os.access("/usr/bin/python3", os.X_OK):  # the sandbox's user may not reach another
        command.append("-DPython3_EXECUTABLE=/usr/bin/python3")
    if args.hidden_seed is not None:
        command.append(f"-DANDREA_HIDDEN_SEED={args.hidden_seed}")
    return command


def generator() -> list:
    """Ninja where it is installed (install-deps.sh installs it): a submission's build then checks
    its 2,000 files in a tenth of a second, where make takes seconds."""
    return ["-G", "Ninja"] if shutil.which("ninja") else []


def prepare_base(work: pathlib.Path, args) -> str:
    """Configures and builds the course with the stubs. Returns "" or what went wrong."""
    shutil.copytree(ROOT / "lessons", work / "lessons", symlinks=True)
    # No student code yet: the stubs, and the course's test programs.
    return (trusted_command(configure(work, args))
            or unconfined(work / "build", args)
            or trusted_command(["cmake", "--build", str(work / "build"), "--target",
                                *targets(work, args.label), "-j", str(args.jobs)]))


def unconfined(build: pathlib.Path, args) -> str:
    """Why student code would run unconfined, unless told --unsafe ("" if not): the build found no
    libseccomp, so its piece runners install no seccomp filter (grader/remote/confine.hpp)."""
    cache = (build / "CMakeCache.txt").read_text(errors="replace")
    found = [re.search(rf"^{name}:\w+=(.*)$", cache, re.MULTILINE)  # remote.cmake needs both
             for name in ("ANDREA_SECCOMP_LIBRARY", "ANDREA_SECCOMP_INCLUDE_DIR")]
    unsafe = getattr(args, "unsafe", False)  # (gradescope.py's settings have no --unsafe)
    if unsafe or all(f and f.group(1) and not f.group(1).endswith("NOTFOUND") for f in found):
        return ""
    return ("the piece runners would not be confined: CMake found no libseccomp (install libseccomp-dev, "
            "which install-deps.sh lists), so student code could open files and start processes; or "
            "pass --unsafe")


def trusted_command(command: list) -> str:
    """Runs a command of the course's own (no student code): "" or its failure and output."""
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          check=False)
    return f"{' '.join(command[:3])} failed:\n{done.stdout[-3000:]}" if done.returncode else ""


def targets(work: pathlib.Path, label: str) -> list:
    """What the base build builds: every lesson's test programs and runners, or, for -L, those
    of the steps it selects (an assignment of a few lessons builds only theirs)."""
    if not label:
        return ["lesson_tests"]
    return sorted({name for e in grading.plan(work / "build") if grading.selected(label, e["lesson"], e["backend"])
                   and e["backend"] != "gpu" for name in (e["target"], e["runner_target"])})


def keep_base(work: pathlib.Path, args) -> None:
    """work/base and work/stubs: the build and lessons each submission starts from, with the
    stubs' results (a submission's lessons left as stubs are not run again: lessons/grade.py
    reuses the results of programs that did not change)."""
    shutil.copytree(work / "build", work / "base", symlinks=True)
    shutil.copytree(work / "lessons", work / "stubs", symlinks=True)
    shutil.copy2(sandbox.SCRIPT, work / "sandbox.sh")  # reachable by the student's user, wherever the course lies
    (work / "base-settings.json").write_text(json.dumps(base_settings(args)) + "\n")


def base_settings(args) -> dict:
    """What a base build was made for: the course, the steps, the hidden seed, the time limit."""
    return {"course": str(ROOT), "label": args.label, "hidden_seed": args.hidden_seed,
            "test_timeout": args.test_timeout}


def reusable(work: pathlib.Path, args) -> str:
    """"" when work holds a base build this class can reuse (--reuse-base), else why not."""
    try:
        made = json.loads((work / "base-settings.json").read_text())
    except (OSError, ValueError):
        return f"{work} holds no base build (grade once with --work {work} first)"
    wanted = base_settings(args)
    if made["label"] == "":  # a base of every step serves any -L
        wanted["label"] = ""
    different = [f"{key} {made[key]!r}, not {wanted[key]!r}" for key in made if made[key] != wanted.get(key)]
    return f"the base build in {work} was made for {', '.join(different)}" if different else ""


def grade_stubs(work: pathlib.Path, args) -> tuple:
    """Grades the stubs as they are: the steps of the course (the columns of the results), and
    "" or why the stubs do not score 0 (a course whose stubs earn points is broken)."""
    sandbox.prepare(work / "build")
    stubs = run_grader(work, gradebook.Grade("(stubs)", "stubs"), args)
    shutil.copy2(work / grading.CACHE, work / "stubs-results.json")  # what each submission starts from
    if stubs.reason:
        return [], f"grading the stubs failed: {stubs.reason}"
    if stubs.total:
        return [], (f"the stubs score {stubs.total:.1f}, not 0: the course's lessons/ folder must "
                    "hold the exercise stubs (git status lessons/; git checkout lessons/, or "
                    f"python3 grader/release/make_exercises.py, restores them):\n{stubs.report}")
    return [(step.key, step.max_points) for step in stubs.steps], ""


def fresh_tree(work: pathlib.Path, files: dict, slot: pathlib.Path = None) -> None:
    """slot/build and slot/lessons (slot: work, or a worker's folder when the class is graded in
    parallel) as the base left them, then the submission's exercise files (newer than the base's
    objects: make compiles them, and only them). The stubs' results are the cache the
    submission starts from, kept where its processes cannot write."""
    slot = slot or work
    for name in ("build", "lessons"):
        shutil.rmtree(slot / name, ignore_errors=True)
    shutil.copytree(work / "base", slot / "build", symlinks=True)
    shutil.copytree(work / "stubs", slot / "lessons", symlinks=True)
    now = time.time() + 1
    for exercise, text in files.items():
        path = slot / "lessons" / exercise
        path.write_text(text, encoding="utf-8")
        os.utime(path, (now, now))
    # The hidden tests' programs and their solution libraries: the submission's build needs
    # neither (the test programs run are the base's), and its compiler must not read them.
    # (Not the sources configure wrote next to them, test_*_runner.cpp: without them, the build
    # would configure again.)
    hidden = slot / "build" / "grader" / "hidden"
    for path in hidden.glob("*"):  # (ctest's lists of them name the seed, hidden_seed.txt holds it)
        if path.is_file() and (path.suffix in (".a", ".txt") or path.name.endswith("_tests.cmake")
                               or (path.name.startswith("test_") and not path.suffix)):
            path.unlink()
    for objects in (hidden / "CMakeFiles").glob("*.dir"):  # the solution's compiled objects
        shutil.rmtree(objects)
    forget_seed(slot / "build" / "CMakeCache.txt")
    sandbox.prepare(slot / "build")  # its compiler runs as the student's user
    shutil.copy2(work / "stubs-results.json", slot / grading.CACHE)


def forget_seed(cache: pathlib.Path) -> None:
    """Blanks the hidden seed in a copy's CMakeCache.txt (the engine reads it from the base),
    keeping its times, so that make does not configure again."""
    text = cache.read_text()
    blank = re.sub(r"^(ANDREA_HIDDEN_SEED:\w+=).*$", r"\1", text, flags=re.MULTILINE)
    if blank != text:
        times = cache.stat()
        cache.write_text(blank)
        os.utime(cache, ns=(times.st_atime_ns, times.st_mtime_ns))


def hidden_paths(work: pathlib.Path, args, slot: pathlib.Path = None) -> str:
    """What no student process may see (sandbox.sh's ANDREA_SANDBOX_HIDE): the course's solutions,
    its hidden tests, its own builds and history, the class's base build and cached results, the
    other submissions and the results."""
    # (grader/hidden's CMakeLists.txt stays: the build would see it change, and configure again)
    paths = [*(p for p in (ROOT / "grader" / "hidden").glob("*") if p.name != "CMakeLists.txt"),
             ROOT / "grader" / "release", ROOT / ".git",
             *ROOT.glob("build*"), work / "base", work / "stubs-results.json", work / grading.CACHE,
             *(w for w in work.glob("worker-*") if w != slot),  # the other submissions' builds
             *([slot / grading.CACHE] if slot and slot != work else []),
             ROOT / "grader" / "gradescope.json",  # an autograder's settings: the hidden seed
             pathlib.Path(args.submissions).resolve(), pathlib.Path(args.out).resolve()]
    for lesson in grading.manifest():
        for piece in lesson["pieces"]:
            paths += [ROOT / "reference" / f"{piece}.cpp", ROOT / "cuda" / f"{piece}.cu"]
        paths += [ROOT / "cuda" / f"{name}.cu" for name in lesson.get("further", [])]
    return ":".join(str(path) for path in paths)


def readable_in_sandbox(work: pathlib.Path) -> str:
    """"" when a test in the sandbox can read the course and the work folder, else why not."""
    done = sandbox.run(["test", "-r", str(ROOT / "lessons" / "lessons.json"), "-a", "-x", str(work)],
                       limits=sandbox.Limits(wall_s=30),
                       extra_env={"ANDREA_SANDBOX_READ": f"{work}:{ROOT}"})
    if done.returncode == 0:
        return ""
    return (f"the tests run in the sandbox as the user {sandbox.student_name()}, who cannot read {ROOT} or {work}: "
            "make their folders readable (chmod o+rx) or grade from another folder")


class Stopped(Exception):
    """A submission stopped for its limits: the reason is the exception's text."""


def limited_runner(work: pathlib.Path, args, deadline: float, slot: pathlib.Path):
    """The engine's runner for one submission: each command runs with the submission's memory
    limit and what is left of its wall time, its build folder watched. cmake --build compiles the
    student's files: in the sandbox, only the build folder writable. A test program is the
    course's (it links no student code): outside the sandbox, with the limits; the runner it
    starts goes through the sandbox (ANDREA_RUNNER_LAUNCHER). A worker's build (slot is not
    work) is a copy of the base, whose files name work/build and work/lessons: in the sandbox,
    the worker's folders are seen there (ANDREA_SANDBOX_VIEW)."""
    build = slot / "build"
    base = sandbox.usage(build)
    hide = hidden_paths(work, args, slot)
    env = {"ANDREA_SANDBOX_READ": f"{work}:{ROOT}", "ANDREA_SANDBOX_HIDE": hide,
           "ANDREA_RUNNER_LAUNCHER": str(work / "sandbox.sh")}
    if slot != work:
        env["ANDREA_SANDBOX_VIEW"] = f"{build}={work / 'build'}:{slot / 'lessons'}={work / 'lessons'}"

    def run(command: list, variables: dict = None) -> tuple:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Stopped(f"ran past the time limit of a submission ({args.submission_timeout:.0f} s)")
        limits = sandbox.Limits(wall_s=left, memory_bytes=args.memory, resident_bytes=args.memory,
                                disk_bytes=args.disk_limit, disk_files=DISK_FILES)
        compiling = command[0] == "cmake"
        if compiling:  # cmake --build work/build, as the build's files name it
            command = [str(work / "build") if part == str(build) else part for part in command]
        done = sandbox.run(command, limits=limits, sandboxed=compiling,
                           writable=[build] if compiling else [],
                           extra_env={**env, **(variables or {})}, watch=build, watch_base=base)
        if done.disk:
            raise Stopped(f"its build {done.disk}, and was stopped")
        if done.memory:
            raise Stopped(f"its processes {done.memory}, and were stopped")
        if done.timed_out:
            raise Stopped(f"ran past the time limit of a submission ({args.submission_timeout:.0f} s)")
        return done.returncode, done.output
    # Without bubblewrap, what a program leaves behind is swept after it (sandbox.sweep): its
    # programs then run one at a time, so that a sweep never ends another's runner.
    run.programs_at_once = 1 if sandbox.mode() == "user" else 2
    return run


def run_grader(work: pathlib.Path, grade: gradebook.Grade, args,
               slot: pathlib.Path = None) -> gradebook.Grade:
    """Grades slot/build (slot: work, or a worker's folder) with the engine (it builds the
    submission's runners in the sandbox, then runs the base build's test programs) under the
    submission's limits, and reads its results into grade."""
    slot = slot or work
    start = time.monotonic()
    try:
        runner = limited_runner(work, args, start + args.submission_timeout, slot)
        result = grading.grade_build(slot / "build", args.label, runner=runner,
                                     trusted=work / "base", cache_file=slot / grading.CACHE)
        grade.steps = [gradebook.Step(**step) for step in result["steps"]]
        grade.report = result["report"]
        grade.public_report = result["public_report"]
    except Stopped as stopped:
        grade.reason = str(stopped)
    except (Exception, SystemExit) as error:  # one submission never stops the class
        grade.reason = f"the grader failed: {error}"
    grade.seconds = time.monotonic() - start
    return grade


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", metavar="SUBMISSIONS",
                        help="a folder holding one folder (or git repository) of exercise files per student")
    parser.add_argument("--out", metavar="RESULTS", required=True,
                        help="where grades.csv and each student's results go")
    parser.add_argument("--hidden-seed", type=int, help="build the hidden tests, their inputs drawn from this seed")
    parser.add_argument("-L", dest="label", default="",
                        help="grade only the steps whose label matches this regex (L01, cudasim)")
    parser.add_argument("--test-timeout", type=int, default=60, help="seconds per test (60)")
    parser.add_argument("--submission-timeout", type=float, default=1800, help="seconds per submission (1800)")
    parser.add_argument("--memory", type=int, default=8 << 30, help="bytes of address space per process, and of resident memory of a "
                        "submission's processes together (8 GiB)")
    parser.add_argument("--disk-limit", type=int, default=2 << 30,
                        help="bytes a submission's build may add to the build folder (2 GiB)")
    parser.add_argument("--output-limit", type=int, default=8 << 20, help="bytes of output per test (8 MiB)")
    parser.add_argument("--work", help="the folder to build in, kept afterwards (default: a temporary one)")
    parser.add_argument("--work-parent", help="where the temporary work folder is made")
    parser.add_argument("-j", dest="jobs", type=int, default=2, help="build jobs (2)")
    parser.add_argument("--reuse-base", action="store_true",
                        help="grade with the base build a run with the same --work left (made for "
                             "the same course, -L, --hidden-seed and --test-timeout)")
    parser.add_argument("--unsafe", action="store_true",
                        help="grade where bubblewrap cannot make a sandbox (refused otherwise): "
                             f"student code then runs as the user {sandbox.STUDENT} when grading as root, else as you, "
                             "and sees every file that user may read: the answers are not hidden")
    parser.add_argument("-P", "--parallel", type=int, default=1,
                        help="submissions graded at once, each in its own sandbox and build (1)")
    return parser.parse_args()


def grade_all(work: pathlib.Path, class_: list, steps: list, out: pathlib.Path, args) -> list:
    """Grades every submission, args.parallel at a time, each in a worker folder of its own
    (work/worker-N: its build and lessons, seen in its sandbox where the base build's files name
    them), or, one at a time, in work itself. The results are written as each submission ends;
    grades.csv keeps the class's order, so that it is the same however many run at once."""
    slots = queue.Queue()
    for number in range(1, args.parallel + 1):  # (worker number, folder)
        slot = work if args.parallel == 1 else work / f"worker-{number}"
        slot.mkdir(mode=0o755, exist_ok=True)
        slots.put((number, slot))
    lock = threading.Lock()
    grades = [None] * len(class_)
    total = sum(worth for _, worth in steps)

    def one(number: int, submission) -> None:
        if submission.reason:
            grade = gradebook.Grade(submission.name, submission.slug, reason=submission.reason)
        else:
            worker, slot = slots.get()
            sandbox.set_worker(worker)  # as root, student code runs as this worker's own user
            try:
                fresh_tree(work, submission.files, slot)
                grade = run_grader(work, gradebook.Grade(submission.name, submission.slug), args, slot)
            finally:
                slots.put((worker, slot))
        with lock:
            grades[number] = grade
            gradebook.write_student(out, grade, steps)
            gradebook.write_class(out, [g for g in grades if g], steps)
            said = f"0 — {grade.reason}" if grade.reason else f"{grade.total:.1f}/{total:.0f}"
            print(f"[{number + 1}/{len(class_)}] {submission.name}: {said} ({grade.seconds:.0f} s)",
                  flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        for done in [pool.submit(one, n, s) for n, s in enumerate(class_)]:
            done.result()
    return grades


def main() -> int:
    args = arguments()
    out = pathlib.Path(args.out).resolve()
    folder = pathlib.Path(args.submissions)
    problem = refused(args, out, folder)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    class_ = submissions.collect(folder, exercise_files(ROOT / "lessons"))
    if not class_:
        print(f"{folder} holds no submission: one folder per student is expected", file=sys.stderr)
        gradebook.write_atomically(out / "grades.csv", gradebook.csv_text([], []))
        return 1
    usable, problem = choose_sandbox(args)
    work, problem = (None, problem) if problem else work_folder(args, usable)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    try:
        start = time.monotonic()
        steps, problem = base_build(work, args)
        if problem:
            print(problem, file=sys.stderr)
            return 2
        print(f"  built, and the stubs graded 0, in {time.monotonic() - start:.0f} s", flush=True)
        grades = grade_all(work, class_, steps, out, args)
    finally:
        if not args.work:  # a temporary folder goes, whatever happened
            shutil.rmtree(work, ignore_errors=True)
    print(f"graded {len(grades)} submissions in {time.monotonic() - start:.0f} s: {out / 'grades.csv'}")
    return 0


def refused(args, out: pathlib.Path, folder: pathlib.Path) -> str:
    """Why the class cannot be graded as asked, before anything is read; "" if it can."""
    problem = writable_folder(out)
    if problem:
        return problem
    if not folder.is_dir():
        return f"{folder} is not a folder of submissions"
    if args.hidden_seed is not None and not (ROOT / "grader" / "hidden").is_dir():
        return (f"--hidden-seed: {ROOT} has no grader/hidden (a student release leaves them out): "
                "grade with the course's own repository")
    return ""


def choose_sandbox(args) -> tuple:
    """(bubblewrap usable, why grading is refused or ""): without bubblewrap, only with --unsafe,
    as the student's own user when run as root (sandbox.student()), one submission at a time."""
    usable, why_not = sandbox.available()
    if not usable and not args.unsafe:
        return usable, (f"no sandbox: {why_not}. Grading runs every student's code; without bubblewrap it "
                        "would see this machine's files and run with the limits alone. Install bubblewrap "
                        "where user namespaces are allowed, or pass --unsafe to grade without it (student "
                        f"code then runs as the user {sandbox.STUDENT} when grading as root)")
    if not usable:  # --unsafe: as root, the student's user (who owns nothing else) and the limits
        sandbox.set_mode("user" if os.geteuid() == 0 else "off")
    if sandbox.as_student():
        try:
            for number in range(max(args.parallel, 1), 0, -1):  # each worker's user, made here
                sandbox.set_worker(number)
                sandbox.student()
        except RuntimeError as error:
            return usable, str(error)
    print("sandbox: bubblewrap (no network, read-only files, limits)" if usable else
          f"no sandbox (--unsafe): {why_not}; grading goes on "
          + (f"as the user {sandbox.STUDENT}, with the limits" if os.geteuid() == 0 else
             "with the limits alone"), flush=True)
    if args.parallel < 1 or (args.parallel > 1 and not usable):
        return usable, (f"-P {args.parallel}: " + ("at least 1" if args.parallel < 1 else
                        "grading in parallel needs the bubblewrap sandbox (each submission's build is seen "
                        f"where the base build's files name it), and {why_not}"))
    return usable, ""


def work_folder(args, usable: bool) -> tuple:
    """(the class's work folder, why it cannot be used or ""): --work, emptied unless its base
    build is reused, else a temporary folder; readable by the user the tests run as."""
    work = pathlib.Path(args.work).resolve() if args.work else pathlib.Path(
        tempfile.mkdtemp(prefix="andrea-class-", dir=args.work_parent))
    if args.reuse_base:
        problem = reusable(work, args) if args.work else "--reuse-base needs --work"
        if problem:
            return work, f"--reuse-base: {problem}"
        for slot in work.glob("worker-*"):
            shutil.rmtree(slot)
    elif args.work:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    work.chmod(0o755)  # the tests run as another user (sandbox.STUDENT) when grading as root
    return work, readable_in_sandbox(work) if usable or sandbox.mode() == "user" else ""


def base_build(work: pathlib.Path, args) -> tuple:
    """(the steps the stubs were graded on, why the class cannot go on or ""): the course built
    once with the stubs (or that build reused), and the stubs graded 0."""
    if args.reuse_base:
        print(f"the course's build in {work}, with the stubs, reused", flush=True)
        fresh_tree(work, {})
    else:
        print(f"building the course once, with the stubs, in {work} ...", flush=True)
        failed = prepare_base(work, args)
        if failed:
            return [], failed
        keep_base(work, args)
    steps, wrong = grade_stubs(work, args)
    return steps, wrong


if __name__ == "__main__":
    sys.exit(main())
