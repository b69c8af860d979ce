#!/usr/bin/env python3
"""The class's gradebook with hostile folder names (ctest grader/gradebook, label core-cpu):
a folder named like the gradebook gets a results folder of its own, a name a spreadsheet would
run as a formula is written as text, and any name (a newline, "..", bytes that are not UTF-8)
gets a safe id and keeps its row, byte for byte. And a Gradescope step's visible half: what the
public tests found, never what only the hidden tests found."""
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve()
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parents[2])]  # grader/class/, grader/ (the engine)
import gradebook  # noqa: E402
import grading  # noqa: E402
import submissions  # noqa: E402

MEMORY_ERROR = ("memcheck: kernel 'lookup_kernel' block (0,0,0) thread (3,0,0): invalid write of "
                "4 bytes at 0x10, 0 bytes past the end of a 64-byte allocation")


class HostileNames(unittest.TestCase):
    def test_a_folder_named_grades_csv_gets_another_results_folder(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in ("grades.csv", "ana"):
                (pathlib.Path(folder) / name).mkdir()
                (pathlib.Path(folder) / name / "lookup.cpp").write_text("// mine\n")
            class_ = submissions.collect(pathlib.Path(folder), ["01_lookup/lookup.cpp"])
            self.assertEqual([(s.name, s.slug) for s in class_],
                             [("ana", "ana"), ("grades.csv", "grades.csv_")])
            out = pathlib.Path(folder) / "results"
            out.mkdir()
            grade = gradebook.Grade(class_[1].name, class_[1].slug, reason="not graded here")
            gradebook.write_student(out, grade, [("L01-cpu", 5.0)])
            gradebook.write_atomically(out / "grades.csv", gradebook.csv_text([grade], [("L01-cpu", 5.0)]))
            self.assertTrue((out / "grades.csv").is_file())
            self.assertTrue((out / "grades.csv_" / "results.json").is_file())

    def test_a_cell_that_a_spreadsheet_would_run_is_written_as_text(self):
        grades = [gradebook.Grade("=1+1", "1_1", reason="-2 tests"),
                  gradebook.Grade("@SUM(A1)", "SUM_A1_"), gradebook.Grade("+cmd", "cmd"),
                  gradebook.Grade("ana-maria", "ana-maria")]
        rows = gradebook.csv_text(grades, [("L01-cpu", 5.0)]).splitlines()
        self.assertEqual(rows[2], "'=1+1,0.00,0.00,'-2 tests")
        self.assertEqual(rows[3], "'@SUM(A1),0.00,0.00,")
        self.assertEqual(rows[4], "'+cmd,0.00,0.00,")
        self.assertEqual(rows[5], "ana-maria,0.00,0.00,")

    def test_the_lms_files_hold_a_column_per_step_and_the_total(self):
        steps = [("L01-cpu", 5.0), ("L01-cudasim", 5.0)]
        ana = gradebook.Grade("ana", "ana", steps=[gradebook.Step("L01-cpu", "", 5.0, 5.0),
                                                   gradebook.Step("L01-cudasim", "", 2.5, 5.0)])
        bob = gradebook.Grade("=bob", "bob", reason="no exercise files found")
        canvas = gradebook.lms_csv([ana, bob], steps, "canvas").splitlines()
        self.assertEqual(canvas, ["Student,SIS Login ID,Section,L01-cpu,L01-cudasim,Total",
                                  "Points Possible,,,5.00,5.00,10.00",
                                  "ana,ana,,5.00,2.50,7.50",
                                  "'=bob,'=bob,,0.00,0.00,0.00"])
        moodle = gradebook.lms_csv([ana, bob], steps, "moodle").splitlines()
        self.assertEqual(moodle, ["username,L01-cpu,L01-cudasim,Total", "ana,5.00,2.50,7.50",
                                  "'=bob,0.00,0.00,0.00"])

    def test_any_folder_name_gets_a_safe_id_and_its_row(self):
        names = ["../x", "a\nb", "=cmd", "caf\udce9", ".."]  # \udce9: the byte 0xE9, not UTF-8
        with tempfile.TemporaryDirectory() as folder:
            made = []
            for name in names[:4]:
                try:
                    path = pathlib.Path(folder) / pathlib.Path(name).name
                    path.mkdir()
                    (path / "lookup.cpp").write_text("// mine\n")
                    made.append(path.name)
                except OSError:  # a file system that refuses the name: nothing to grade
                    pass
            class_ = submissions.collect(pathlib.Path(folder), ["01_lookup/lookup.cpp"])
            self.assertEqual(sorted(s.name for s in class_), sorted(made))
            for s in class_:
                self.assertRegex(s.slug, r"^[A-Za-z0-9._-]+$")
            out = pathlib.Path(folder) / "results"
            out.mkdir()
            grades = [gradebook.Grade(s.name, s.slug) for s in class_]
            for grade in grades:
                gradebook.write_student(out, grade, [("L01-cpu", 5.0)])
            gradebook.write_atomically(out / "grades.csv", gradebook.csv_text(grades, [("L01-cpu", 5.0)]))
            text = (out / "grades.csv").read_bytes()
            self.assertIn(b"caf\xe9,", text)  # the name as it was, byte for byte
            self.assertIn(b"'=cmd,", text)
            self.assertIn(b'"a\nb",', text)  # quoted by the CSV writer: one cell
            self.assertEqual(sorted(p.name for p in out.iterdir() if p.is_dir()),
                             sorted(s.slug for s in class_))


class VisibleHalf(unittest.TestCase):
    """Lesson 1's C++ step (worth 5): 3 public tests and 2 hidden ones, all run once."""

    def halves(self, public_reasons: list, hidden_reasons: list) -> list:
        runs = {f"Lookup.T{i}": [("", "fail" if r else "pass", r)] for i, r in enumerate(public_reasons)}
        runs |= {f"HiddenLookup.T{i}": [("hidden", "fail" if r else "pass", r)]
                 for i, r in enumerate(hidden_reasons)}
        step = grading.Step("L01", "cpu")
        col = grading.column(step, {"L01": {"cpu": runs}}, {})
        public = [f for f in col.failures if not f[0].startswith("Hidden")]
        graded = gradebook.Step("L01-cpu", "L01 lookup, C++ step", 5.0 * col.share, 5.0,
                                public=col.public, hidden=col.hidden,
                                public_reason=grading.first_reason(public),
                                hidden_reason=grading.first_reason([f for f in col.failures if f not in public]),
                                public_share=col.public_share)
        result = gradebook.gradescope(gradebook.Grade("ana", "ana", steps=[graded]),
                                      [("L01-cpu", 5.0)], hidden_apart=True)
        return [(t["visibility"], t["score"], t["output"]) for t in result["tests"]]

    def test_a_memory_error_only_the_hidden_inputs_reach_does_not_show_before_the_due_date(self):
        visible, hidden = self.halves(["", "", ""], ["", MEMORY_ERROR])
        self.assertEqual(visible, ("visible", 2.5, "3/3 tests pass"))
        self.assertEqual(hidden[:2], ("after_due_date", -2.5))  # the step: 0 in all
        self.assertIn("invalid write", hidden[2])
        self.assertIn("takes back the public half's 2.5 points", hidden[2])

    def test_a_memory_error_the_public_tests_find_scores_both_halves_0(self):
        visible, hidden = self.halves([MEMORY_ERROR, "", ""], ["", ""])
        self.assertEqual(visible[:2], ("visible", 0.0))
        self.assertIn("invalid write", visible[2])
        self.assertEqual(hidden[:2], ("after_due_date", 0.0))

    def test_wrong_values_in_the_hidden_tests_cost_the_hidden_half_only(self):
        visible, hidden = self.halves(["", "", ""], ["", "first wrong element [0, 0]"])
        self.assertEqual(visible[:2], ("visible", 2.5))
        self.assertEqual(hidden[:2], ("after_due_date", 1.25))


if __name__ == "__main__":
    unittest.main()
