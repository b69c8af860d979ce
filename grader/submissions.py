"""A folder of submissions, one folder (or git repository) per student: what each holds of the
exercise files, or why it cannot be graded.

A student's exercise file lessons/01_lookup/lookup.cpp may be given at that path, as
01_lookup/lookup.cpp, or as lookup.cpp at the top of the student's folder. Nothing else of a
submission is used: the tests, CMake files, goldens and grader always come from the course.
"""
import dataclasses
import pathlib
import re
import unicodedata

MAX_FILE_BYTES = 1 << 20  # an exercise file larger than this is refused


@dataclasses.dataclass
class Submission:
    name: str                  # the folder's name, as given
    slug: str                  # ASCII, no spaces, unique in the class: the results folder's name
    path: pathlib.Path
    files: dict = dataclasses.field(default_factory=dict)  # "01_lookup/lookup.cpp" -> its text
    reason: str = ""           # why it is not graded ("" when it is)


def slug_of(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_name).strip("._") or "student"


def found(folder: pathlib.Path, exercise: str) -> list:
    """The places a student may have put one exercise file ("01_lookup/lookup.cpp")."""
    relative = pathlib.PurePosixPath(exercise)
    return [folder / "lessons" / relative, folder / relative, folder / relative.name]


def read_files(folder: pathlib.Path, exercises: list) -> tuple:
    """({exercise: text}, reason): the student's exercise files, or why they are refused."""
    root = folder.resolve()
    files = {}
    for exercise in exercises:
        for candidate in found(folder, exercise):
            if not (candidate.is_symlink() or candidate.exists()):
                continue
            target = candidate.resolve()
            if not target.is_relative_to(root):
                return {}, f"{candidate.relative_to(folder)} is a link to {target}, outside the submission"
            if not target.is_file():
                return {}, f"{candidate.relative_to(folder)} is not a file"
            if target.stat().st_size > MAX_FILE_BYTES:
                return {}, (f"{candidate.relative_to(folder)} holds {target.stat().st_size:,} bytes "
                            f"(at most {MAX_FILE_BYTES:,})")
            try:
                files[exercise] = target.read_text(encoding="utf-8")
            except UnicodeDecodeError as error:
                return {}, f"{candidate.relative_to(folder)} is not UTF-8 text ({error.reason} at byte {error.start})"
            break
    if not files:
        return {}, (f"no exercise files found (expected, e.g., lessons/{exercises[0]}, "
                    f"{exercises[0]} or {pathlib.PurePosixPath(exercises[0]).name})")
    return files, ""


def collect(folder: pathlib.Path, exercises: list) -> list:
    """Every entry of the submissions folder, sorted by name, with its files or its reason."""
    entries = sorted(folder.iterdir(), key=lambda p: p.name)
    # The results folder also holds grades.csv: no student's folder may take its name.
    result, slugs = [], {"grades.csv"}
    keys = {}
    for entry in entries:
        key = unicodedata.normalize("NFC", entry.name).casefold()
        keys.setdefault(key, []).append(entry.name)
    for entry in entries:
        slug = slug_of(entry.name)
        while slug.lower() in slugs:  # "José" and "jose", say: two students, two results folders
            slug += "_"
        slugs.add(slug.lower())
        submission = Submission(entry.name, slug, entry)
        same = keys[unicodedata.normalize("NFC", entry.name).casefold()]
        if entry.name.startswith("."):
            continue
        if len(same) > 1:
            submission.reason = (f"two submissions have this name ({' and '.join(map(repr, same))}): "
                                 "rename one so that each student has one")
        elif entry.is_symlink() and not entry.resolve().is_relative_to(folder.resolve()):
            submission.reason = f"a link to {entry.resolve()}, outside the submissions folder"
        elif not entry.is_dir():
            submission.reason = "a plain file, not a folder of exercise files"
        else:
            submission.files, submission.reason = read_files(entry, exercises)
        result.append(submission)
    return result
