"""A folder of submissions, one folder (or git repository) per student: what each holds of the
exercise files, or why it cannot be graded.

A student's exercise file lessons/01_lookup/lookup.cpp may be given at that path, as
01_lookup/lookup.cpp, or as lookup.cpp at the top of the student's folder. Nothing else of a
submission is used: the tests, CMake files, goldens and grader always come from the course.
"""
import dataclasses
import os
import pathlib
import re
import unicodedata
import zipfile

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
    # The results folder also holds grades.csv and its LMS forms: no student folder takes their names.
    result, slugs = [], {"grades.csv", "grades-canvas.csv", "grades-moodle.csv"}
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


# An upload to an autograder (grader/class/gradescope.py): the files as a student uploaded them, a
# zip of them, or a repository, at any depth. Each exercise file is looked for anywhere in it.
MAX_DEPTH = 8                # folders below the upload
MAX_ENTRIES = 20000          # files and folders looked at
MAX_ZIPS = 4                 # zip files opened (one level: a zip inside one is not)
MAX_UNZIPPED = 64 << 20      # bytes a zip may hold


def gather(upload: pathlib.Path, exercises: list, scratch: pathlib.Path) -> tuple:
    """({exercise: text}, [notes]): each exercise file of an upload, wherever it lies (at most
    MAX_DEPTH folders deep, or in a zip file of the upload, which is opened into scratch), and
    what was not taken, and why: links, files too large or not UTF-8, two copies of one file
    (the one nearest its place in the course is taken: lessons/01_lookup/lookup.cpp, then
    01_lookup/lookup.cpp, then the least deep)."""
    notes, seen, others = [], [0], []
    by_name = {pathlib.PurePosixPath(e).name: e for e in exercises}
    found_files = walk(upload, upload, by_name, notes, seen, others)
    archives = [f for f in found_files if f[1].suffix.lower() == ".zip"]
    if len(archives) > MAX_ZIPS:
        notes.append(f"{len(archives)} zip files: the first {MAX_ZIPS} were opened, not "
                     f"{', '.join(str(a[0]) for a in archives[MAX_ZIPS:MAX_ZIPS + 3])}")
    for archive in archives[:MAX_ZIPS]:
        place = scratch / f"zip{len(notes)}-{archive[1].stem}"
        if unzip(archive[1], place, set(by_name), notes, upload):
            found_files += walk(place, place, by_name, notes, seen, [])
    if others:
        notes.append(f"not exercise files, not used: {', '.join(others[:5])}"
                     + (f" and {len(others) - 5} more" if len(others) > 5 else ""))
    candidates = {}
    for relative, path in found_files:
        exercise = by_name.get(path.name)
        if exercise and path.suffix.lower() != ".zip":
            wanted = pathlib.PurePosixPath("lessons", exercise).parts
            rank = next(n for n in (3, 2, 1) if relative.parts[-n:] == wanted[-n:])
            candidates.setdefault(exercise, []).append((-rank, len(relative.parts), str(relative), path))
    files = {}
    for exercise, options in sorted(candidates.items()):
        options.sort(key=lambda o: o[:3])
        same = [o for o in options if o[:2] == options[0][:2]]
        if len(same) > 1:
            notes.append(f"{len(same)} copies of {exercise} ({', '.join(o[2] for o in same[:3])}): "
                         f"{same[0][2]} is graded")
        for _, _, shown, path in options:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                notes.append(f"{shown} holds {size:,} bytes (at most {MAX_FILE_BYTES:,}): not read")
                continue
            try:
                files[exercise] = path.read_text(encoding="utf-8")
                break
            except UnicodeDecodeError as error:
                notes.append(f"{shown} is not UTF-8 text ({error.reason} at byte {error.start}): not read")
    # A name that is not UTF-8 (kept by Python as surrogates) is shown with U+FFFD: the notes
    # go into a results.json, which must be UTF-8.
    return files, [n.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for n in notes]


def walk(top: pathlib.Path, base: pathlib.Path, by_name: dict, notes: list, seen: list,
         others: list) -> list:
    """[(path relative to base, path)] of the regular files under top that an exercise or a zip
    may be: links are noted and not followed, nor read; a name that differs from an exercise's
    by case only is noted; the other files are listed in others."""
    by_lower = {name.lower(): name for name in by_name}
    found_files = []
    for folder, folders, names in os.walk(top):
        here = pathlib.Path(folder)
        depth = len(here.relative_to(top).parts)
        seen[0] += len(folders) + len(names)
        if seen[0] > MAX_ENTRIES:
            notes.append(f"the upload holds more than {MAX_ENTRIES:,} files and folders: the rest "
                         "was not looked at")
            folders.clear()
            break
        if depth >= MAX_DEPTH:
            if folders:
                notes.append(f"{here.relative_to(base)}/ lies {depth} folders deep: what is below "
                             "it was not looked at")
            folders.clear()
        folders[:] = sorted(f for f in folders if f != ".git")
        for name in sorted(names):
            path = here / name
            relative = path.relative_to(base)
            if name not in by_name and not name.lower().endswith(".zip"):
                if name.lower() in by_lower:
                    notes.append(f"{relative} is not used: did you mean {by_lower[name.lower()]}? "
                                 "(names are case-sensitive)")
                else:
                    others.append(str(relative))
                continue
            if path.is_symlink():
                notes.append(f"{relative} is a link: not read (upload the file itself)")
            elif path.is_file():
                found_files.append((relative, path))
    return found_files


def unzip(archive: pathlib.Path, place: pathlib.Path, names: set, notes: list,
          upload: pathlib.Path) -> bool:
    """Opens a zip of the upload into place, taking only the files an exercise may be: no path
    outside place, no link, at most MAX_UNZIPPED bytes in all. False (with a note) when it
    cannot be read."""
    shown = archive.relative_to(upload)
    try:
        with zipfile.ZipFile(archive) as zipped:
            members = zipped.infolist()
            if sum(m.file_size for m in members) > MAX_UNZIPPED or len(members) > MAX_ENTRIES:
                notes.append(f"{shown} holds more than {MAX_UNZIPPED >> 20} MiB or "
                             f"{MAX_ENTRIES:,} files: not opened")
                return False
            unused = []
            for member in members:
                inner = pathlib.PurePosixPath(member.filename)
                link = (member.external_attr >> 16) & 0o170000 == 0o120000
                if member.is_dir() or inner.name not in names:
                    if inner.suffix.lower() == ".zip":
                        notes.append(f"{shown}: {inner} is a zip inside a zip: not opened")
                    elif not member.is_dir():
                        unused.append(str(inner))
                    continue
                if inner.is_absolute() or ".." in inner.parts or link:
                    notes.append(f"{shown}: {inner} is a link or a path out of the zip: not read")
                    continue
                target = place / inner
                target.parent.mkdir(parents=True, exist_ok=True)
                with zipped.open(member) as source:
                    target.write_bytes(source.read(MAX_FILE_BYTES + 1))
            notes.append(f"{shown} was opened" + (
                f"; not exercise files, not used: {', '.join(unused[:5])}"
                + (f" and {len(unused) - 5} more" if len(unused) > 5 else "") if unused else ""))
            return True
    except Exception as error:  # noqa: BLE001 — a zip that cannot be read (zlib, EOF...) is a note
        notes.append(f"{shown} is not a zip file that can be read ({error}): not opened")
        return False
