#!/usr/bin/env python3
"""scripts/convert-gesture-logs on collections written here: what it keeps, how it spells
labels, what it leaves out (clicks, copies, the development logs' gestures, an app's
jumps where told) and how it refuses a broken file; scripts/convert-flowcharts on a
chart written here: each symbol's strokes in the order drawn, with each stroke's place
in the chart's order; and how scripts/held-out-sets takes a folder of a repository at a
commit (on any branch) and unpacks a zip, from a repository made here. The held-out
evaluation (docs/recognition.md, "A fourth held-out set", "Arrows drawn in two strokes")
is only as honest as these conversions."""
import importlib.machinery
import importlib.util
import json
import pathlib
import subprocess
import zipfile
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
CONVERTER = ROOT / "scripts" / "convert-gesture-logs"
FLOWCHART_CONVERTER = ROOT / "scripts" / "convert-flowcharts"
HELD_OUT_SETS = ROOT / "scripts" / "held-out-sets"
DEVELOPMENT_LOGS = ROOT.parent / "shared" / "data" / "dollar1-unistroke" / "dollar1.jsonl"


def gesture_xml(name, points, closing="</Gesture>", times=None):
    times = times or range(len(points))
    body = "".join(f'  <Point X="{x}" Y="{y}" T="{t}" />\n' for t, (x, y) in zip(times, points))
    return f'<?xml version="1.0" encoding="utf-8"?>\n<Gesture Name="{name}" Subject="1">\n{body}{closing}\n'


def square(origin, side=100, step=1):
    """A square drawn a pixel (`step`) at a time from `origin`, clockwise."""
    x0, y0 = origin
    edges = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    points, (x, y) = [(x0, y0)], (x0, y0)
    for dx, dy in edges:
        for _ in range(side // step):
            x, y = x + dx * step, y + dy * step
            points.append((x, y))
    return points


class ConvertGestureLogs(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.directory.name)

    def tearDown(self):
        self.directory.cleanup()

    def write(self, path, text):
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)

    def convert(self, *arguments):
        out = self.root / "out.jsonl"
        run = subprocess.run([sys.executable, str(CONVERTER), str(out), *arguments], capture_output=True, text=True)
        records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        return run, records

    def test_keeps_gestures_with_their_person_and_label_and_leaves_out_clicks_and_copies(self):
        drawn = square((10, 10), step=5)
        self.write("a/s01/medium/rectangle01.xml", gesture_xml("rectangle01", drawn))
        self.write("a/s01/medium/rectangle02.xml", gesture_xml("rectangle02", drawn))  # a copy
        self.write("a/s01/medium/zig-zag03.xml", gesture_xml("zig-zag03", [(0, 0), (10, 10), (20, 0)]))
        self.write("a/s02/left square bracket1.xml", gesture_xml("left square bracket1", [(5, 5), (0, 5), (0, 50)]))
        self.write("a/s02/pig tail1.xml", gesture_xml("pig tail1", [(1, 1), (2, 2), (4, 1)]))
        self.write("a/s02/delete4.xml", gesture_xml("delete4", [(3, 3), (9, 9), (3, 9)]))
        self.write("a/s02/check1.xml", gesture_xml("check1", [(7, 7), (7, 7)]))  # a click
        self.write("a/s02/x1.xml", gesture_xml("x1", [(0, 0), (9, 9), (9, 0), (0, 9)], closing="</Project_1>"))
        # Named by the file where the Name holds no letter, or is missing.
        self.write("a/s03/caret05.xml", gesture_xml("05", [(0, 9), (5, 0), (10, 9)]))
        self.write("a/s03/v02.xml", '<Gesture Gesture="v2">\n<Point X="0" Y="0"/><Point X="5" Y="9"/>\n</Gesture>\n')
        self.write("a/s03/.ds_stor0e.xml", "Bud1 binary")  # a hidden file is no gesture
        run, records = self.convert("one=" + str(self.root / "a"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("8 written, 1 clicks", run.stderr)
        self.assertIn("1 repeated", run.stderr)
        self.assertEqual(
            [(r["subject"], r["label"]) for r in records],
            [("one s01", "rectangle"), ("one s01", "zig_zag"), ("one s02", "delete_mark"),
             ("one s02", "left_sq_bracket"), ("one s02", "pigtail"), ("one s02", "x"), ("one s03", "caret"),
             ("one s03", "v")])
        self.assertEqual(records[0]["strokes"], [[[float(x), float(y)] for x, y in drawn]])
        self.assertEqual(records[0]["sample"], "s01/medium/rectangle01.xml")

    def test_leaves_out_a_gesture_the_app_joined_at_a_pause_only_where_told(self):
        # Epoch milliseconds: a second and a half between two points after the first two
        # (two drawings in one file), and gestures whose only long pauses are the first
        # step (the button's time) or under a second.
        drawn = square((0, 0), side=60, step=3)
        start = 1_677_725_685_171
        steady = [start + 15 * k for k in range(len(drawn))]
        paused = steady[:40] + [t + 1500 for t in steady[40:]]
        first = [start] + [t + 900 for t in steady[1:]]
        slow = steady[:40] + [t + 800 for t in steady[40:]]
        for k, (name, times) in enumerate([("rectangle01", paused), ("rectangle02", first), ("rectangle03", slow)]):
            self.write(f"f/s01/{name}.xml", gesture_xml(name, square((k, 0), side=60, step=3), times=times))
        # The same in epoch seconds.
        seconds = [f"{t / 1000:.3f}" for t in paused]
        self.write("f/s02/circle01.xml", gesture_xml("circle01", square((9, 9), side=60, step=3), times=seconds))
        run, records = self.convert("eight=" + str(self.root / "f"))
        self.assertEqual(len(records), 4, run.stderr)
        run, records = self.convert("--app-joins", "eight", "eight=" + str(self.root / "f"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([r["sample"] for r in records], ["s01/rectangle02.xml", "s01/rectangle03.xml"])
        self.assertIn("2 joined by the app", run.stderr)

    def test_leaves_out_an_apps_jump_only_where_told(self):
        # The app started the gesture where the pointer was, far off, and filled the jump
        # with points at fractions of a pixel; the square itself moves a pixel at a time.
        drawn = square((300, 300))
        start = (500.0, 20.0)
        filled = [(start[0] + (300 - start[0]) * k / 25 + 0.37, start[1] + (300 - start[1]) * k / 25 + 0.21)
                  for k in range(1, 25)]
        self.write("b/1/1rectangle1.xml", gesture_xml("rectangle1", [start] + filled + drawn))
        # A hand moving fast: sparse over several steps, never ten times its neighbours.
        fast = [(0, 0), (40, 0), (90, 0), (140, 0), (150, 10), (150, 60), (150, 110)]
        self.write("b/1/1check1.xml", gesture_xml("check1", fast))
        run, records = self.convert("two=" + str(self.root / "b"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([r["label"] for r in records], ["check", "rectangle"])
        run, records = self.convert("--app-joins", "two", "two=" + str(self.root / "b"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([r["label"] for r in records], ["check"])
        self.assertIn("1 joined by the app", run.stderr)

    @unittest.skipUnless(DEVELOPMENT_LOGS.is_file(), "../shared/data is not beside the repository")
    def test_leaves_out_the_development_logs_gestures(self):
        first = json.loads(DEVELOPMENT_LOGS.read_text().splitlines()[0])
        self.write("c/s02/fast/x.xml", gesture_xml(first["label"] + "01", first["points"]))
        self.write("c/s02/fast/y.xml", gesture_xml("circle01", square((0, 0), side=40, step=4)))
        run, records = self.convert("three=" + str(self.root / "c"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("1 in ../shared/data", run.stderr)
        self.assertEqual([r["label"] for r in records], ["circle"])

    def test_refuses_a_broken_file_naming_it_and_bad_arguments(self):
        self.write("d/s01/arrow01.xml", '<Gesture Name="arrow01">\n<Point X="1" />\n</Gesture>\n')
        run, _ = self.convert("four=" + str(self.root / "d"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("arrow01.xml: point 1 has no X or no Y", run.stderr)
        self.write("e/s01/arrow01.xml", '<Stroke Name="arrow01">\n<Point X="1" Y="2" />\n</Stroke>\n')
        run, _ = self.convert("five=" + str(self.root / "e"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("no <Gesture> tag", run.stderr)
        run, _ = self.convert("six=" + str(self.root / "missing"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("is not a folder", run.stderr)
        run, _ = self.convert("--app-joins", "seven", "six=" + str(self.root / "d"))
        self.assertEqual(run.returncode, 2)
        self.assertIn("--app-joins names no collection given: seven", run.stderr)
        run, _ = self.convert(str(self.root / "d"))
        self.assertEqual(run.returncode, 2)


def inkml(traces, groups, writer="writer7"):
    """An InkML chart: `traces` {id: "x y, x y"} in the order drawn, `groups` [(label, [ids])]."""
    body = "".join(f'<trace id="{i}">{points}</trace>\n' for i, points in traces.items())
    body += "<traceGroup><annotation type=\"truth\">Segmentation</annotation>\n" + "".join(
        f'<traceGroup><annotation type="truth">{label}</annotation>'
        + "".join(f'<traceView traceDataRef="{i}"/>' for i in ids) + "</traceGroup>\n"
        for label, ids in groups) + "</traceGroup>\n"
    return (f'<ink xmlns="http://www.w3.org/2003/InkML"><annotation type="writer">{writer}</annotation>\n'
            f"{body}</ink>\n")


class ConvertFlowcharts(unittest.TestCase):
    def test_keeps_each_symbols_strokes_in_the_order_drawn_with_their_place_in_the_chart(self):
        with tempfile.TemporaryDirectory() as directory:
            root = pathlib.Path(directory)
            (root / "sources").mkdir()
            # Drawn: a shaft (t0), a word (t1), the shaft's head (t2), listed head first.
            (root / "sources" / "writer7_1.inkml").write_text(inkml(
                {"t0": "0 0, 100 0", "t1": "5 20, 9 25", "t2": "90 5, 100 0, 90 -5"},
                [("arrow", ["t2", "t0"]), ("text", ["t1"])]))
            out = root / "out.jsonl"
            run = subprocess.run([sys.executable, str(FLOWCHART_CONVERTER), str(root), str(out)],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            records = [json.loads(line) for line in out.read_text().splitlines()]
            self.assertEqual([r["label"] for r in records], ["arrow", "text"])
            self.assertEqual(records[0]["strokes"], [[[0, 0], [100, 0]], [[90, 5], [100, 0], [90, -5]]])
            self.assertEqual(records[0]["order"], [0, 2])
            self.assertEqual(records[1]["order"], [1])
            self.assertEqual({r["writer"] for r in records} | {r["chart"] for r in records}, {"writer7", "writer7_1"})
            (root / "sources" / "writer7_2.inkml").write_text(inkml({"t0": "0 0, 1"}, [("text", ["t0"])]))
            run = subprocess.run([sys.executable, str(FLOWCHART_CONVERTER), str(root), str(out)],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 1)
            self.assertIn("writer7_2.inkml: a point of fewer than two numbers", run.stderr)


def held_out_sets():
    """scripts/held-out-sets as a module (its file name has no .py)."""
    loader = importlib.machinery.SourceFileLoader("held_out_sets", str(HELD_OUT_SETS))
    spec = importlib.util.spec_from_loader("held_out_sets", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class HeldOutSets(unittest.TestCase):
    """The fetching of scripts/held-out-sets, on a repository made here: a folder as it was
    at a commit of the default branch and of another one, and a zip unpacked beside it."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.directory.name)
        self.script = held_out_sets()

    def tearDown(self):
        self.directory.cleanup()

    def git(self, *arguments, cwd=None):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *arguments],
                              cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()

    def test_a_folder_at_a_commit_of_any_branch_and_a_zip_beside_it(self):
        work = self.root / "owner" / "name"
        work.mkdir(parents=True)
        self.git("init", "-q", "-b", "main", cwd=work)
        (work / "logs" / "s01").mkdir(parents=True)
        (work / "logs" / "s01" / "circle01.xml").write_text("first")
        (work / "other.txt").write_text("not asked for")
        with zipfile.ZipFile(work / "data.zip", "w") as archive:
            archive.writestr("1/arrow01.xml", "zipped")
        self.git("add", "-A", cwd=work)
        self.git("commit", "-q", "-m", "first", cwd=work)
        first = self.git("rev-parse", "--short", "HEAD", cwd=work)
        sources, template = self.root / "sources", str(self.root / "{owner}" / "{name}")
        sources.mkdir()

        folder = self.script.tree("owner/name", first, "logs", sources, template)
        self.assertEqual((folder / "s01" / "circle01.xml").read_text(), "first")
        self.assertFalse((folder.parent / "other.txt").exists(), "only the folder asked for is unpacked")
        # A commit on another branch, made after the clone: fetched.
        self.git("checkout", "-q", "-b", "data", cwd=work)
        (work / "logs" / "s01" / "circle01.xml").write_text("on the branch")
        self.git("commit", "-q", "-am", "second", cwd=work)
        second = self.git("rev-parse", "--short", "HEAD", cwd=work)
        self.git("checkout", "-q", "main", cwd=work)
        branch = self.script.tree("owner/name", second, "logs", sources, template)
        self.assertEqual((branch / "s01" / "circle01.xml").read_text(), "on the branch")
        self.assertEqual(self.script.tree("owner/name", first, "logs", sources, template), folder, "unpacked once")
        unpacked = self.script.unzipped(self.script.tree("owner/name", first, "data.zip", sources, template))
        self.assertEqual((unpacked / "1" / "arrow01.xml").read_text(), "zipped")
        with self.assertRaises(self.script.Failure) as missing:
            self.script.tree("owner/name", first, "no-such-folder", sources, template)
        self.assertIn("no-such-folder", str(missing.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
