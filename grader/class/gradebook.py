"""The results of grading a class: one CSV row per student, and per student a Gradescope
results.json and the report the student would see. Every file is written whole or not at all
(a temporary file in the same folder, then a rename).

Gradescope's format: https://gradescope-autograders.readthedocs.io/en/latest/specs/
(score, execution_time, output, tests: name, number, score, max_score, status, output, visibility).
"""
import csv
import dataclasses
import io
import json
import os
import pathlib
import tempfile


@dataclasses.dataclass
class Step:
    """One graded step: a lesson's C++ step, or one of its CUDA steps."""
    key: str            # "L01-cpu": the CSV column
    name: str           # "L01 lookup, C++ step"
    points: float
    max_points: float
    passed: int = 0     # tests passed (under every thread order) out of ...
    tests: int = 0
    reason: str = ""    # why points are missing: the first failure, or what stopped the grading
    public: list = dataclasses.field(default_factory=lambda: [0, 0])  # [passed, tests], public
    hidden: list = dataclasses.field(default_factory=lambda: [0, 0])  # the same, hidden tests
    public_reason: str = ""  # reason, from the public tests alone
    hidden_reason: str = ""  # reason, from the hidden tests alone
    cost: list = dataclasses.field(default_factory=lambda: [0, 0])  # efficiency tests passed, run
    public_share: float = 0.0  # the public half's share of the step (grading.Column)


@dataclasses.dataclass
class Grade:
    """A student's grade. reason is set when the submission could not be graded at all."""
    student: str                    # the submission's name, as given
    slug: str                       # a file name for it: ASCII, no spaces, unique in the class
    steps: list = dataclasses.field(default_factory=list)
    reason: str = ""
    report: str = ""
    public_report: str = ""         # the report without what the hidden tests found
    seconds: float = 0.0

    @property
    def total(self) -> float:
        return 0.0 if self.reason else sum(step.points for step in self.steps)


def write_atomically(path: pathlib.Path, text: str) -> None:
    """Writes text to path through a temporary file and a rename: never half a file."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # A folder name that is not UTF-8 (Python's surrogate escapes) is kept, byte for byte.
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise


def points(value: float) -> str:
    return f"{value:.2f}"


def cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: one that begins with = + - @ (or a tab or a
    carriage return) would be read as a formula (OWASP's "CSV injection"), so it gets a leading
    apostrophe, which spreadsheets hide."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_text(grades: list, steps: list) -> str:
    """One row per student: the points of each step (steps: [(key, max_points)]), the total,
    and the reason when the submission was not graded."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student"] + [key for key, _ in steps] + ["total", "reason"])  # or notes
    writer.writerow(["(max)"] + [points(worth) for _, worth in steps]
                    + [points(sum(worth for _, worth in steps)), ""])
    for grade in grades:
        by_key = {step.key: step.points for step in grade.steps}
        writer.writerow([cell(grade.student)]
                        + [points(0.0 if grade.reason else by_key.get(key, 0.0)) for key, _ in steps]
                        + [points(grade.total), cell(grade.reason or notes(grade))])
    return out.getvalue()


def lms_csv(grades: list, steps: list, lms: str) -> str:
    """The class's grades as an LMS imports them (docs/instructors.md, "Into the LMS"): a
    column per step and the total, each student by the name of their submission folder, which
    is their login there (Canvas's SIS Login ID, Moodle's username). canvas: Canvas's columns
    (Student, SIS Login ID, Section) and its "Points Possible" row; moodle: username alone. A
    submission that was not graded has 0 everywhere (grades.csv says why)."""
    head = ["Student", "SIS Login ID", "Section"] if lms == "canvas" else ["username"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(head + [key for key, _ in steps] + ["Total"])
    if lms == "canvas":
        writer.writerow(["Points Possible", "", ""] + [points(worth) for _, worth in steps]
                        + [points(sum(worth for _, worth in steps))])
    for grade in grades:
        by_key = {step.key: step.points for step in grade.steps}
        who = [cell(grade.student), cell(grade.student), ""] if lms == "canvas" else [cell(grade.student)]
        writer.writerow(who + [points(0.0 if grade.reason else by_key.get(key, 0.0)) for key, _ in steps]
                        + [points(grade.total)])
    return out.getvalue()


def write_class(out: pathlib.Path, grades: list, steps: list) -> None:
    """grades.csv, and the same grades for Canvas (grades-canvas.csv) and Moodle
    (grades-moodle.csv)."""
    write_atomically(out / "grades.csv", csv_text(grades, steps))
    for lms in ("canvas", "moodle"):
        write_atomically(out / f"grades-{lms}.csv", lms_csv(grades, steps, lms))


def notes(grade: Grade) -> str:
    """What the instructor must know of a graded submission: its tests' writes into the
    course's files (the sandbox refused them; the tests that tried fail)."""
    return "; ".join(f"{step.key}: {step.reason}" for step in grade.steps
                     if "tried to write" in step.reason)


def gradescope(grade: Grade, steps: list, hidden_apart: bool = False) -> dict:
    """The Gradescope results.json of one student: one test per step. hidden_apart (the
    Gradescope autograder, grader/class/gradescope.py): a step with hidden tests is two tests, its
    public half "visible" and its hidden half "after_due_date", each worth half the step."""
    tests, by_key = [], {step.key: step for step in grade.steps}
    for key, worth in steps:
        step = by_key.get(key)
        if step is None or grade.reason:
            tests.append({"name": step.name if step else key, "number": "", "score": 0.0,
                          "max_score": worth,
                          "status": "failed", "visibility": "visible",
                          "output": grade.reason or "not graded"})
        elif hidden_apart and step.hidden[1]:
            # column() scores each half by its share (the efficiency tests a fifth of each).
            # The public half shows what the public tests found, alone; the hidden half takes
            # the rest of the step's points. A memory error or a race only the hidden tests
            # reach scores the whole step 0: the hidden half then takes back the public half's
            # points, after the due date (before it, the visible score says nothing of them).
            shown = worth / 2 * step.public_share
            hidden_reason = step.hidden_reason + (
                f"\nthe whole step scores 0 for it: this half takes back the public half's "
                f"{shown:g} points" if step.points - shown < -1e-9 else "")
            tests.append(test_of(step.name, shown, worth / 2, step.public, step.public_reason,
                                 "visible"))
            tests.append(test_of(step.name + " (hidden tests)", step.points - shown, worth / 2,
                                 step.hidden, hidden_reason, "after_due_date"))
        else:
            tests.append(test_of(step.name, step.points, worth, [step.passed, step.tests],
                                 step.reason, "visible"))
    for number, test in enumerate(tests, 1):
        test["number"] = str(number)
    result = {"score": round(grade.total, 2), "execution_time": round(grade.seconds),
              "output": grade.reason or grade.report, "output_format": "text",
              "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}
    if any(test["visibility"] != "visible" for test in tests):
        # Gradescope then sums the tests itself, hiding what is not yet shown: a total given
        # here would tell the hidden half before the due date. The report's table counts the
        # hidden tests too: the public tests' failures alone.
        del result["score"]
        result["output"] = grade.public_report
    return result


def test_of(name: str, score: float, worth: float, counts: list, reason: str, visibility: str) -> dict:
    """One test of a results.json: a step, or its public or hidden half."""
    done = f"{counts[0]}/{counts[1]} tests pass" if counts[1] else ""
    return {"name": name, "number": "", "score": round(score, 2), "max_score": worth,
            "visibility": visibility,
            "status": "passed" if score >= worth - 1e-9 else "failed",
            "output": "\n".join(filter(None, (done, reason))) or "no test ran"}


def write_student(out: pathlib.Path, grade: Grade, steps: list) -> None:
    """RESULTS/<slug>/results.json and RESULTS/<slug>/report.txt."""
    folder = out / grade.slug
    folder.mkdir(exist_ok=True)
    write_atomically(folder / "results.json",
                     json.dumps(gradescope(grade, steps), indent=2, ensure_ascii=False) + "\n")
    write_atomically(folder / "report.txt", (grade.reason + "\n" if grade.reason else "") + grade.report)
