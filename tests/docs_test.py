#!/usr/bin/env python3
"""The numbers the lesson READMEs quote cannot drift (ctest label docs).

  docs_test.py [ANDREA_EMBED] [--trained]

1. Golden values: each figure a lesson README quotes from the model's tables
   (first columns of a row, row norms, dot products, cosines, parameter counts),
   and the top README's parameter count, equals the value in golden/*.json
   rounded as the README rounds it.
2. The program: each README block that starts with `$ ./build/apps/andrea-embed ARGS`
   or `$ ./build-grade/apps/andrea-embed ARGS` (the student's own, the same program) is run (ANDREA_EMBED is the program, given by ctest) and every line the
   block shows must be a line of its output.
2b. Lesson 9's corpus: when WordNet is installed, the corpus, vocabulary and word counts and
   the untrained cosines the README quotes are those the program gives (a run whose
   subsampling keeps no word: under a second). With --trained, also the trained cosines
   (a full default run: a minute or more of one core, so not in CI).
3. The translations: each README.fr.md holds the same numbers as its README.md
   (French decimal commas and digit-group spaces read as English ones) and the
   same code blocks (comments aside); a block without a language (a diagram)
   may translate its words, not its numbers.
4. The course map: README.md's table has one row per lesson of lessons/lessons.json, in its
   order, naming its folder, title, exercise files (<piece>.cpp, <piece>.cu, each in the
   lesson's folder), tests and label.
5. The links: every relative link and picture of a README (top, lessons, French too) and of
   docs/*.md names a file or folder that exists.
6. The commands: each `python3 PATH`, `bash PATH` or `./PATH` that README.md, docs/*.md or a
   lesson README quotes names a file of the course (build outputs aside), and each option
   given to lessons/grade.py or grader/class/grade_class.py is one that its --help lists.
7. What to do: each lesson README opens (after its title and language link) with
   `## What to do` (`## Ce qu'il faut faire`), at most 10 lines, naming the lesson's exercise
   files and `python3 lessons/grade.py -L LNN`.
8. The student release: no lesson README (English or French) names what the release leaves
   out: grader/release/, grader/hidden/, .ci/, bench/ and its targets, the old paths of the
   CPU layer, or a solution file (reference/<piece>.cpp, cuda/<piece>.cu).
Exits 1 listing every mismatch, with the file and what was expected.
"""
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
errors = []


def golden(piece: str, case: str) -> dict:
    cases = json.loads((ROOT / "golden" / f"{piece}.json").read_text())["cases"]
    return next(c for c in cases if c["name"] == case)


def numbers(text: str) -> list:
    """The numbers of an English line, as strings: 1,024 -> 1024, +0.0151 -> 0.0151, −0.0050 -> -0.0050."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.replace("−", "-"))
    return [n.lstrip("+") for n in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def numbers_fr(text: str) -> list:
    """The same for French: 1 024 (any space) -> 1024, 1,4149 -> 1.4149."""
    text = re.sub(r"(?<=\d)[ \u00a0\u202f](?=\d{3}\b)", "", text)
    text = re.sub(r"(?<=\d),(?=\d)", ".", text)
    return numbers(text)


def rounded(value: float, quoted: str) -> str:
    """value with as many decimals as the quoted number has."""
    decimals = len(quoted.split(".")[1]) if "." in quoted else 0
    text = f"{value:.{decimals}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


# --- 1. golden values --------------------------------------------------------------
def expect_values(lesson: str, line_start: str, values: list, skip: int = 0) -> None:
    """The first line of lesson's README.md that starts with line_start (after
    spaces) quotes `values` after its first `skip` numbers, rounded as quoted."""
    readme = LESSONS / lesson / "README.md"
    for line in readme.read_text().splitlines():
        quoted = numbers(line.strip()[len(line_start):])[skip:skip + len(values)]
        if line.strip().startswith(line_start) and quoted and "." in quoted[0]:
            wanted = [rounded(v, q) for v, q in zip(values, quoted)]
            if len(quoted) < len(values) or quoted != wanted:
                errors.append(f"{readme.relative_to(ROOT)}: `{line.strip()}` quotes {quoted}, "
                              f"the goldens give {wanted or values}")
            return
    errors.append(f"{readme.relative_to(ROOT)}: no line starts with `{line_start}` and a figure")


def expect_text(lesson: str, text: str) -> None:
    readme = LESSONS / lesson / "README.md"
    if text not in re.sub(r"\s+", " ", readme.read_text()):
        errors.append(f"{readme.relative_to(ROOT)}: does not say `{text}` (from the goldens)")


def check_goldens() -> None:
    lookup = golden("lookup", "andrea-120m-example")
    position = golden("position", "andrea-120m-example")
    combine = golden("combine", "andrea-120m-example")
    pair = golden("dot", "andrea-wte-256-1842")
    matrix = golden("dot", "andrea-wte-cosine-matrix")
    init = golden("init", "andrea-120m")
    wte256, wte1842 = lookup["rows"]["0"], lookup["rows"]["1"]  # ids start 256, 1842
    wpe0, wpe1 = position["rows"]["0"], position["rows"]["1"]
    x0, x1 = combine["rows"]["0"], combine["rows"]["1"]
    mean = lambda v: sum(v) / len(v)

    # Lesson 1: the first output row and the first three row norms.
    expect_values("01_lookup", "`out[0] = wte[256]` starts", wte256[:4])
    expect_text("01_lookup", "norms " + ", ".join(f"{n:.4f}" for n in lookup["row_norms"][:3]))
    # Lesson 2: row 42 of wte, the mean norm of x.
    expect_text("02_norm", f"has norm {golden('norm', 'andrea-wte-row-42')['norm']:.7f}")
    expect_text("02_norm", f"of {mean(combine['row_norms']):.4f} over the 1,024 rows")
    # Lesson 3: one pair and the cosine matrix.
    expect_text("03_dot_product", f"= {pair['dot']:.7f} and their cosine is {pair['cosine']:.7f}")
    for token, row in zip(matrix["rows"], matrix["matrix"]):
        expect_values("03_dot_product", f"{token} ", row)
    # Lesson 4: the first two rows of wpe, their norms, the spread over 1,024 rows.
    norms = position["row_norms"]
    for t, row in ((0, wpe0), (1, wpe1)):
        expect_values("04_position_table", f"out[{t}] = wpe[{t}] =", row[:4])
        expect_text("04_position_table", f"||wpe[{t}]|| = {norms[t]:.4f}")
    low, high = min(range(1024), key=norms.__getitem__), max(range(1024), key=norms.__getitem__)
    expect_text("04_position_table", f"from {norms[low]:.4f} (t = {low}) to {norms[high]:.4f} "
                                     f"(t = {high}), mean {mean(norms):.4f}")
    # Lesson 5: the worked example and the norms of x.
    for name, row in (("wte[256]", wte256), ("wpe[0]", wpe0), ("x[0]", x0),
                      ("wte[1842]", wte1842), ("wpe[1]", wpe1), ("x[1]", x1)):
        expect_values("05_combine", name + " ", row[:4])
    expect_text("05_combine", f"‖x[0]‖ = {combine['row_norms'][0]:.4f} and "
                              f"‖x[1]‖ = {combine['row_norms'][1]:.4f}")
    expect_text("05_combine", f"example sequence is {mean(combine['row_norms']):.4f}")
    # Lesson 6: the first element of each table, the parameter counts.
    expect_text("06_parameter_count", f"z/√768 = {init['wte_rows']['0'][0]:.9f}")
    expect_text("06_parameter_count", f"`wpe[0][0]` = {init['wpe_rows']['0'][0]:.9f}")
    params = golden("params", "andrea-120m")
    for count in ("token_table", "position_table", "embedding_total"):
        expect_text("06_parameter_count", f"{params[count]:,}")
    # The top README: the parameter count and its bytes.
    top = re.sub(r"\s+", " ", (ROOT / "README.md").read_text())
    said = (f"{params['token_table']:,} + {params['position_table']:,} = "
            f"**{params['embedding_total']:,}** parameters ({params['bytes_fp32']:,} bytes in fp32)")
    if said not in top:
        errors.append(f"README.md: does not say `{said}` (from golden/params.json)")


# --- 2. the program's output -------------------------------------------------------
def check_program(program: str) -> None:
    for readme in sorted(LESSONS.glob("*/README.md")):
        for block in re.findall(r"```[a-z]*\n(.*?)```", readme.read_text(), re.S):
            lines = block.splitlines()
            if not lines or not re.match(r"\$ \./build(-grade)?/apps/andrea-embed\b", lines[0]):
                continue
            args = shlex.split(lines[0])[2:]
            run = subprocess.run([program, *args], capture_output=True, text=True, check=False)
            printed = set(run.stdout.splitlines())
            for line in lines[1:]:
                if line.strip() and line not in printed:
                    errors.append(f"{readme.relative_to(ROOT)}: `{lines[0][2:]}` does not print "
                                  f"`{line}`")


# --- 2b. lesson 9's corpus and the untrained table ------------------------------------
def check_lesson9(program: str, trained: bool) -> None:
    readme = LESSONS / "09_training" / "README.md"
    text = readme.read_text()
    flat = re.sub(r"\s+", " ", text)
    name = readme.relative_to(ROOT)
    if not pathlib.Path("/usr/share/wordnet/data.noun").exists():
        print("docs: no WordNet in /usr/share/wordnet: lesson 9's corpus figures not checked")
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = f"{tmp}/w.safetensors"
        # subsample 1e-12 keeps no word: the run builds the vocabulary and writes the init.
        run = subprocess.run([program, "train", "--quiet", "--epochs", "1", "--subsample", "1e-12",
                              "--out", out], capture_output=True, text=True, check=False)
        corpus = re.search(r"(\d+) words in (\d+) sentences", run.stdout)
        vocab = re.search(r"V = (\d+) rows: <unk> \(the (\d+) words", run.stdout)
        if run.returncode != 0 or not corpus or not vocab:
            errors.append(f"{name}: `train` did not run: {run.stderr.strip()[:200]}")
            return
        said = [f"{int(corpus[1]):,} words in {int(corpus[2]):,} sentences",
                f"the {int(vocab[2]):,} occurrences of rarer words", f"V = {int(vocab[1]):,}"]
        counts = dict(line.split() for line in pathlib.Path(f"{tmp}/w.vocab.txt").read_text().splitlines())
        said.append(f"exactly {counts['xylophone']} times; *tuesday* appears {counts['tuesday']} times, "
                    f"*pet* {counts['pet']}, *cat* {counts['cat']}, *dog* {counts['dog']}")
        for phrase in said:
            if phrase not in flat:
                errors.append(f"{name}: does not say `{phrase}` (from the program)")
        # The README's first block of cosines is the untrained table's, its second the trained one's.
        blocks = [b for _, b in FENCE.findall(text) if re.search(r"^ +cat +\+1\.000 ", b, re.M)][:2]
        rows = lambda block: [l for l in block.splitlines() if l.strip().startswith(("cat ", "dog "))]
        checks = [("untrained", ["--init-seed", "1337"], rows(blocks[0]) if blocks else [])]
        if trained:  # the default run, as the README's
            subprocess.run([program, "train", "--quiet", "--out", out], capture_output=True, check=False)
            checks.append(("trained", [], rows(blocks[1]) if len(blocks) > 1 else []))
        for what, args, quoted in checks:
            printed = set()
            for extra in ([], ["--centre"]):
                sim = subprocess.run([program, "similar", "--weights", out, *args, *extra],
                                     capture_output=True, text=True, check=False)
                printed |= set(sim.stdout.splitlines())
            if not quoted:
                errors.append(f"{name}: no rows of the {what} table's cosines found")
            for line in quoted:
                if line not in printed:
                    errors.append(f"{name}: `{line.strip()}` is not a line of `similar` on the {what} table")


# --- 3. README.fr.md against README.md -----------------------------------------------
FENCE = re.compile(r"```([a-z]*)\n(.*?)```", re.S)
COMMENT = {"sh": re.compile(r"(^|\s)#.*$", re.M), "cpp": re.compile(r"//.*$", re.M)}


def code(lang: str, block: str) -> str:
    """A code block without its comments (a translation may translate them)."""
    if lang in COMMENT:
        block = COMMENT[lang].sub("", block)
    return "\n".join(line.rstrip() for line in block.splitlines())


def block_numbers(block: str) -> list:
    """Numbers of a diagram or program output; 1 024 and 1,024 both read 1024."""
    return numbers(re.sub(r"(?<=\d)[ \u00a0\u202f](?=\d{3}\b)", "", block))


def check_translations() -> None:
    for english in sorted(LESSONS.glob("*/README.md")):
        french = english.with_name("README.fr.md")
        en, fr = english.read_text(), french.read_text()
        name = french.relative_to(ROOT)
        en_blocks, fr_blocks = FENCE.findall(en), FENCE.findall(fr)
        if len(en_blocks) != len(fr_blocks):
            errors.append(f"{name}: {len(fr_blocks)} code blocks, README.md has {len(en_blocks)}")
        for i, ((lang, a), (_, b)) in enumerate(zip(en_blocks, fr_blocks), 1):
            if lang and code(lang, a) != code(lang, b):
                errors.append(f"{name}: code block {i} ({lang}) differs from README.md's")
            elif not lang and block_numbers(a) != block_numbers(b):
                errors.append(f"{name}: code block {i} has numbers {block_numbers(b)}, "
                              f"README.md's {block_numbers(a)}")
        # Prose: every number of two characters or more, as sets (a translation may
        # say "one warp" or repeat a figure, but may not change one).
        big = lambda ns: {n for n in ns if len(n.lstrip("-")) >= 2}
        en_n, fr_n = big(numbers(FENCE.sub("", en))), big(numbers_fr(FENCE.sub("", fr)))
        if en_n != fr_n:
            errors.append(f"{name}: numbers only in README.md {sorted(en_n - fr_n)}, "
                          f"only in README.fr.md {sorted(fr_n - en_n)}")


# --- 4. the README's course map against lessons/lessons.json -------------------------
def check_course_map() -> None:
    manifest = json.loads((LESSONS / "lessons.json").read_text())["lessons"]
    rows = [line for line in (ROOT / "README.md").read_text().splitlines()
            if re.match(r"^\| \[\d\d ", line)]
    if len(rows) != len(manifest):
        errors.append(f"README.md: the course map has {len(rows)} lessons, "
                      f"lessons/lessons.json {len(manifest)}")
    for row, lesson in zip(rows, manifest):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        pieces = lesson["pieces"]
        wanted = {
            "lesson": f"[{lesson['folder'][:2]} {lesson['title']}](lessons/{lesson['folder']}/)",
            "C++ step": ", ".join(f"{p}.cpp" for p in pieces),
            "CUDA step": ", ".join(f"{p}.cu" for p in pieces),
            "tests": f"tests/{lesson['tests']}_test.cpp",
            "label": f"`{lesson['label']}`",
        }
        got = dict(zip(("lesson", "C++ step", "CUDA step", "tests", "label"),
                       (cells[0], cells[2], cells[3], cells[4], cells[5]))) if len(cells) == 6 else {}
        for column, text in wanted.items():
            if not got.get(column, "").startswith(text):
                errors.append(f"README.md: course map row `{row[:60]}...`: {column} should start "
                              f"with `{text}` (lessons/lessons.json)")
        for exercise in exercises(lesson):
            if not (LESSONS / lesson["folder"] / exercise).is_file():
                errors.append(f"README.md: course map row `{row[:60]}...`: no exercise file "
                              f"lessons/{lesson['folder']}/{exercise}")


def exercises(lesson: dict) -> list:
    """The files a student edits for a lesson, in its folder: <piece>.cpp, then <piece>.cu."""
    return [f"{p}.{ext}" for ext in ("cpp", "cu") for p in lesson["pieces"]]


# --- 5. the READMEs' relative links ----------------------------------------------------
def documents() -> list:
    """The top README, the docs and the lesson READMEs (English and French)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted(LESSONS.glob("*/README*.md"))]


def check_links() -> None:
    for readme in documents():
        for target in re.findall(r"\]\(([^)\s]+)\)", readme.read_text()):
            path = target.split("#")[0]
            if not path or re.match(r"^[a-z]+:", path):  # an anchor or a URL
                continue
            if not (readme.parent / path).exists():
                errors.append(f"{readme.relative_to(ROOT)}: the link `{target}` names no file")


# --- 6. the commands the docs quote ---------------------------------------------------
SCRIPT = re.compile(r"(?:python3|bash|sh) +([\w.-]+(?:/[\w.-]+)+|[\w-]+\.(?:py|sh))")
DOT_SLASH = re.compile(r"(?<![\w./-])\./([\w.-]+(?:/[\w.-]+)*)")
BUILT = re.compile(r"^build[\w-]*/")  # build outputs: made by a build, not in the tree
OPTIONS = {"lessons/grade.py": None, "grader/class/grade_class.py": None}  # script -> its --help
# A student release (grader/release/release.py) holds no solutions and leaves these out.
RELEASE = not (ROOT / "reference" / "lookup.cpp").exists()
RELEASE_LEAVES_OUT = ("grader/release/", "grader/hidden/", ".ci/", "bench/")


def options_of(script: str) -> str:
    if OPTIONS[script] is None:
        done = subprocess.run([sys.executable, str(ROOT / script), "--help"], capture_output=True,
                              text=True, check=False)
        OPTIONS[script] = done.stdout
    return OPTIONS[script]


def check_commands() -> None:
    for document in documents():
        name = document.relative_to(ROOT)
        for line in document.read_text().splitlines():
            paths = SCRIPT.findall(line) + DOT_SLASH.findall(line)
            for path in paths:
                if RELEASE and path.startswith(RELEASE_LEAVES_OUT):
                    continue  # the instructors' tools a student release does not hold
                if not BUILT.match(path) and not (ROOT / path).exists():
                    errors.append(f"{name}: `{line.strip()[:70]}` names {path}, which the course "
                                  "does not hold")
            for script in OPTIONS:
                for call in re.findall(rf"python3 {re.escape(script)}((?: +[^ `#|;]+)*)", line):
                    for option in re.findall(r"(?<![\w-])--[a-z][\w-]*", call):
                        if not re.search(rf"(?<![\w-]){option}\b", options_of(script)):
                            errors.append(f"{name}: `python3 {script}{call}`: {script} has no "
                                          f"option {option}")


# --- 7. each lesson README opens with what to do ---------------------------------------
WHAT_TO_DO = {"README.md": "## What to do", "README.fr.md": "## Ce qu'il faut faire"}


def check_what_to_do() -> None:
    for lesson in json.loads((LESSONS / "lessons.json").read_text())["lessons"]:
        for file, heading in WHAT_TO_DO.items():
            readme = LESSONS / lesson["folder"] / file
            name = readme.relative_to(ROOT)
            lines = readme.read_text().splitlines()
            first = next((i for i, l in enumerate(lines) if l.startswith("## ")), len(lines))
            before = [l for l in lines[:first] if l.strip()]
            if first == len(lines) or lines[first].strip() != heading:
                errors.append(f"{name}: the first section should be `{heading}`")
                continue
            if len(before) != 2 or not before[0].startswith("# ") or not before[1].startswith("*["):
                errors.append(f"{name}: only the title and the language link may come before "
                              f"`{heading}`")
            end = next((i for i in range(first + 1, len(lines)) if lines[i].startswith("## ")),
                       len(lines))
            body = "\n".join(lines[first + 1:end]).strip("\n")
            if len(body.splitlines()) > 10:
                errors.append(f"{name}: `{heading}` is {len(body.splitlines())} lines, at most 10")
            flat = re.sub(r"\s+", " ", body)
            for wanted in [*exercises(lesson), f"python3 lessons/grade.py -L {lesson['label']}",
                           "10.0/10"]:
                if wanted not in flat:
                    errors.append(f"{name}: `{heading}` does not say `{wanted}`")


# --- 8. what the student release leaves out --------------------------------------------
LEFT_OUT = ["grader/release", "grader/hidden", ".ci/", "bench/", "profile_lessons", "make_exercises",
            "cuda/sim", "tests/sim", "grade.py --class"]
def check_release_names() -> None:
    manifest = json.loads((LESSONS / "lessons.json").read_text())["lessons"]
    pieces = [p for lesson in manifest for p in lesson["pieces"]]
    solutions = re.compile(r"(?<![\w/])(?:reference/(?:%s)\.cpp|cuda/(?:%s)\.cu)(?!\w)"
                           % ("|".join(pieces), "|".join(pieces)))
    for readme in sorted(LESSONS.glob("*/README*.md")):
        name = str(readme.relative_to(ROOT))
        for number, line in enumerate(readme.read_text().splitlines(), 1):
            named = [t for t in LEFT_OUT if t in line] + solutions.findall(line)
            for thing in named:
                errors.append(f"{name}:{number}: names `{thing}`, which the student release "
                              "leaves out")


def check_slice(test_program: str) -> None:
    """Lesson 9's end-to-end step: the slice's size and the margins its README quotes are the
    ones the course's solution prints (test_L09_training_cpu, TrainingEndToEnd.*, 0.3 s)."""
    done = subprocess.run([test_program, "--gtest_filter=TrainingEndToEnd.*"], capture_output=True,
                          text=True, check=False)
    found = re.search(r"slice of WordNet: (\d+) words, V = (\d+);.* pair margin \(centred\) "
                      r"(-?[0-9.]+), at init (-?[0-9.]+)", done.stdout)
    if done.returncode != 0 or not found:
        errors.append(f"{test_program} --gtest_filter=TrainingEndToEnd.* did not report the slice "
                      f"(exit {done.returncode})")
        return
    words, vocab, after, before = found.groups()
    expect_text("09_training", f"({int(words):,} words, V = {int(vocab):,}, 3 epochs")
    expect_text("09_training", f"The solution reaches {after}, the random init {before};")


def main() -> int:
    check_course_map()
    check_links()
    check_commands()
    check_what_to_do()
    check_release_names()
    check_goldens()
    args = [a for a in sys.argv[1:] if a != "--trained"]
    if args:
        check_program(args[0])
        check_lesson9(args[0], "--trained" in sys.argv)
    if len(args) > 1:
        check_slice(args[1])
    check_translations()
    for error in errors:
        print(error)
    print(f"docs: {len(errors)} mismatch{'es' if len(errors) != 1 else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
