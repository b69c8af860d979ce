#!/usr/bin/env python3
"""The Gradescope autograder: python3 grader/class/gradescope.py setup | run.

`python3 grader/release/make_exercises.py --gradescope autograder.zip` makes the zip Gradescope takes:
the course (its solutions and hidden tests too: a Gradescope autograder is the instructor's),
setup.sh and run_autograder at its root, and grader/gradescope.json, the assignment's settings
(which lessons, the hidden seed, the limits). Gradescope unpacks it into /autograder/source and
runs setup.sh once, as root, when it builds the assignment's image; then, in a fresh container
for each submission, /autograder/run_autograder.

  setup  builds the course once, with the stubs, into /autograder/work (the class grader's base
         build, grader/class/grade_class.py) and grades the stubs (they must score 0).
  run    finds the exercise files in /autograder/submission (wherever they lie, and in a zip
         inside it: grader/class/submissions.py's gather), grades them as the class grader grades a
         submission (its runners compiled and run in the sandbox, as the user andrea-student; the
         course's test programs decide), and writes /autograder/results/results.json: a test
         per step, the public tests "visible" and the hidden ones "after_due_date", what was not
         taken from the upload and why. Whatever happens, a results.json is written.

The sandbox: bubblewrap where the container lets it make namespaces; where not (Gradescope's
containers, as a rule), the user andrea-student (sandbox.student()), the cleared environment
and the limits, with what that user may not read (the solutions, the hidden tests, the base
build) made readable by root
alone (ANDREA_AUTOGRADER_SANDBOX=user chooses that one). ANDREA_AUTOGRADER_ROOT (default
/autograder) lets CI lay out a Gradescope root anywhere.
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import sys
import time

import grade_class
import gradebook
import sandbox
import submissions

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "grader" / "gradescope.json"
SETTINGS = {  # the assignment's settings (gradescope.json), and what they are when not given
    "label": "",                # the steps graded: a regex over LNN-backend, as grade.py -L
    "hidden_seed": None,        # build the hidden tests, their inputs drawn from this seed
    "test_timeout": 60,         # seconds per test
    "submission_timeout": 480,  # seconds for one submission: under Gradescope's own limit, so
                                # that a results.json is written before Gradescope stops the run
    "memory": 4 << 30,          # bytes of address space per process
    "disk_limit": 1 << 30,      # bytes the submission's build may add
    "jobs": 2,                  # build jobs
}


def autograder() -> pathlib.Path:
    return pathlib.Path(os.environ.get("ANDREA_AUTOGRADER_ROOT", "/autograder"))


def settings() -> argparse.Namespace:
    """The assignment's settings, as the class grader's options."""
    given = json.loads(CONFIG.read_text()) if CONFIG.exists() else {}
    unknown = set(given) - set(SETTINGS)
    if unknown:
        raise ValueError(f"{CONFIG}: unknown settings {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(SETTINGS)})")
    root = autograder()
    return argparse.Namespace(**{**SETTINGS, **given}, submissions=str(root / "submission"),
                              out=str(root / "results"))


def setup() -> int:
    """Builds the course once with the stubs into the work folder and grades the stubs."""
    args = settings()
    work = autograder() / "work"
    if os.geteuid() == 0:  # the student's user compiles from the course: it must reach it
        for folder in (autograder(), ROOT):
            folder.chmod(folder.stat().st_mode | 0o005)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    work.chmod(0o755)
    start = time.monotonic()
    print(f"building the course once, with the stubs, in {work} ...", flush=True)
    failed = grade_class.prepare_base(work, args)
    if failed:
        print(failed, file=sys.stderr)
        return 1
    grade_class.keep_base(work, args)
    steps, wrong = grade_class.grade_stubs(work, args)
    if wrong:
        print(wrong, file=sys.stderr)
        return 1
    (work / "steps.json").write_text(json.dumps(steps) + "\n")
    print(f"built, and the stubs graded 0, in {time.monotonic() - start:.0f} s: "
          f"{len(steps)} steps, {sum(w for _, w in steps):g} points", flush=True)
    return 0


class Stopped(Exception):
    """SIGTERM (Gradescope stops the run): the results say so."""


def stop(signum, _frame):
    raise Stopped(f"the run was stopped (signal {signum}) before it ended: raise the "
                  "assignment's autograder timeout, or lower submission_timeout")


def lock(paths: str) -> None:
    """Where no bubblewrap can hide them: what the student's user may not read, made root's
    alone."""
    for name in paths.split(":"):
        path = pathlib.Path(name)
        if path.exists() and not path.is_symlink():
            os.chown(path, 0, 0)
            path.chmod(0o700 if path.is_dir() else 0o600)


def choose_sandbox() -> str:
    """bubblewrap where it works; else, run as root, the student's user ("user"); else the limits
    alone ("off")."""
    wanted = os.environ.get("ANDREA_AUTOGRADER_SANDBOX", "")
    if wanted not in ("", "bwrap", "user", "off"):
        raise ValueError(f"ANDREA_AUTOGRADER_SANDBOX={wanted}: bwrap, user or off")
    if not wanted:
        wanted = "bwrap" if sandbox.available()[0] else "user" if os.geteuid() == 0 else "off"
    sandbox.set_mode(wanted)
    return wanted


def grade_upload(args: argparse.Namespace, work: pathlib.Path) -> tuple:
    """(the Grade, the steps [(key, points)], notes on the upload)."""
    steps = [tuple(step) for step in json.loads((work / "steps.json").read_text())]
    scratch = work / "upload"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    exercises = grade_class.exercise_files(work / "stubs")
    files, notes = submissions.gather(pathlib.Path(args.submissions), exercises, scratch)
    grade = gradebook.Grade("submission", "submission")
    if not files:
        grade.reason = ("no exercise file was found in the upload: upload the exercise files "
                        f"(e.g. {exercises[0]}, or lessons/ whole, or a zip of them)")
        return grade, steps, notes
    mode = choose_sandbox()
    notes.append(f"sandbox: {mode}")
    grade_class.fresh_tree(work, files)
    if mode == "user":
        lock(grade_class.hidden_paths(work, args))
    return grade_class.run_grader(work, grade, args), steps, notes


def run() -> int:
    """Grades /autograder/submission into /autograder/results/results.json, whatever happens."""
    start = time.monotonic()
    signal.signal(signal.SIGTERM, stop)
    results = autograder() / "results"
    try:
        args = settings()
        grade, steps, notes = grade_upload(args, autograder() / "work")
        result = gradebook.gradescope(grade, steps, hidden_apart=True)
        if notes:
            result["output"] = "\n".join(["the upload:", *[f"  {n}" for n in notes]]) + "\n\n" + result["output"]
    except BaseException as error:  # noqa: BLE001 — a results.json says why, whatever broke
        result = {"score": 0.0, "output": f"the autograder could not grade this submission: "
                  f"{type(error).__name__}: {error}", "output_format": "text",
                  "visibility": "visible", "stdout_visibility": "hidden", "tests": []}
    result["execution_time"] = round(time.monotonic() - start)
    results.mkdir(parents=True, exist_ok=True)
    gradebook.write_atomically(results / "results.json",
                               json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(result["output"])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("setup", "run"))
    command = parser.parse_args().command
    return setup() if command == "setup" else run()


if __name__ == "__main__":
    sys.exit(main())
