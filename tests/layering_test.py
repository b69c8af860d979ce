#!/usr/bin/env python3
"""The layers of the tree stay apart (ctest core/layering, label core-cpu).

  core/       what every piece shares: includes only core/ (never a piece)
  reference/  the graded C++ pieces: includes only core/ and reference/ (never cuda/),
              and holds only the pieces lessons/lessons.json lists (X.hpp, X.cpp)
  cudasim/    the CPU execution layer, a project of its own: no file of it includes a course
              folder ("core/...", "cuda/...", ...) or names an ANDREA_ macro or variable; the
              course includes of it only its public face, "cudasim/X" of cudasim/include/cudasim
  lessons/lessons.json  every piece has its four files (reference/X.{hpp,cpp},
              cuda/X.{hpp,cu}), every lesson its folder and its tests/<tests>_test.cpp,
              every going-further kernel ("further") its cuda/X.{hpp,cu} and tests/X_test.cpp
Exits 1 listing every break, with the file and line.
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ALLOWED = {"core": ("core/",), "reference": ("core/", "reference/")}
COURSE_FOLDERS = ("core/", "cuda/", "reference/", "training/", "apps/")
COURSE_NAME = re.compile(r"ANDREA_\w*")


def cudasim_breaks() -> list:
    """Where a file under cudasim/ includes a course folder or names an ANDREA_ identifier."""
    errors = []
    for path in sorted((ROOT / "cudasim").rglob("*")):
        if not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue  # not a text file
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            match = INCLUDE.match(line)
            if match and match.group(1).startswith(COURSE_FOLDERS):
                errors.append(f"{where}: includes \"{match.group(1)}\": cudasim/ includes "
                              f"nothing of the course ({', '.join(COURSE_FOLDERS)})")
            for name in COURSE_NAME.findall(line):
                errors.append(f"{where}: names {name}: cudasim/ knows no ANDREA_ macro or variable")
    return errors


def face_breaks() -> list:
    """Where a course file includes a header of cudasim/ that is not of its face (include/)."""
    errors = []
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if (path.suffix not in (".hpp", ".cpp", ".h", ".cu", ".cuh") or parts[0] == "cudasim"
                or parts[0].startswith(("build", "."))):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if (match and match.group(1).startswith("cudasim/")
                    and not (ROOT / "cudasim" / "include" / match.group(1)).is_file()):
                errors.append(f"{path.relative_to(ROOT)}:{number}: includes \"{match.group(1)}\", "
                              "which is not of cudasim's public face (cudasim/include/cudasim/)")
    return errors


def main() -> int:
    errors = []
    for folder, allowed in ALLOWED.items():
        for path in sorted((ROOT / folder).iterdir()):
            if path.suffix not in (".hpp", ".cpp", ".h", ".cu", ".cuh"):
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = INCLUDE.match(line)
                if match and not match.group(1).startswith(allowed):
                    errors.append(f"{path.relative_to(ROOT)}:{number}: includes \"{match.group(1)}\": "
                                  f"{folder}/ may include only {', '.join(allowed)}")

    errors += cudasim_breaks()
    errors += face_breaks()

    lessons = json.loads((ROOT / "lessons" / "lessons.json").read_text())["lessons"]
    pieces = [piece for lesson in lessons for piece in lesson["pieces"]]
    # A student release holds no solution (reference/<piece>.cpp, cuda/<piece>.cu, the
    # going-further kernels): the exercise files in lessons/ stand in for them.
    solutions = (ROOT / "reference" / f"{pieces[0]}.cpp").exists()
    for lesson in lessons:
        for needed in (f"lessons/{lesson['folder']}", f"tests/{lesson['tests']}_test.cpp"):
            if not (ROOT / needed).exists():
                errors.append(f"lessons/lessons.json: {lesson['label']} names {needed}, which does not exist")
        for further in lesson.get("further", []):
            for name in (f"cuda/{further}.hpp", f"tests/{further}_test.cpp",
                         *([f"cuda/{further}.cu"] if solutions else [])):
                if not (ROOT / name).exists():
                    errors.append(f"lessons/lessons.json: {lesson['label']}'s going-further kernel "
                                  f"'{further}' has no {name}")
        for need in lesson.get("needs", []) + lesson.get("tests_need_cpu", []):
            if need not in pieces:
                errors.append(f"lessons/lessons.json: {lesson['label']} needs '{need}', which is no piece")
    for piece in pieces:
        folder = f"lessons/{next(l['folder'] for l in lessons if piece in l['pieces'])}"
        for name in (f"reference/{piece}.hpp", f"cuda/{piece}.hpp",
                     *([f"reference/{piece}.cpp", f"cuda/{piece}.cu"] if solutions else
                       [f"{folder}/{piece}.cpp", f"{folder}/{piece}.cu"])):
            if not (ROOT / name).exists():
                errors.append(f"lessons/lessons.json: piece '{piece}' has no {name}")
    for path in sorted((ROOT / "reference").iterdir()):
        if path.name != "CMakeLists.txt" and path.stem not in pieces:
            errors.append(f"{path.relative_to(ROOT)}: reference/ holds only the pieces of "
                          f"lessons/lessons.json; '{path.stem}' is none (shared code goes in core/)")

    for error in errors:
        print(error)
    print(f"layering: {len(errors)} break{'s' if len(errors) != 1 else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
