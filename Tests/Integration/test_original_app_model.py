"""Unit tests of original_app_model.py, the original app's decoder and engine, without a
server. Each case is a behaviour of the app's source (mnckapilan/crdt-canvas, Canvas/);
original_app.py documents where each comes from.

Run: `python3 Tests/Integration/test_original_app_model.py` (standard library only)."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from original_app_model import (  # noqa: E402
    AddPoints, AddStroke, App, Crash, Engine, Erase, Ignored, Mega, RemoveStroke, Segment, Stroke, decode,
    drawing_trap, encode)


def body(**message):
    return json.dumps(message)


ADD = body(type="ADD", identifier="s", weight=2, colour=[255, 0, 51], start=[1, 2])


def app_with(*bodies, device="me"):
    app = App(device)
    for b in bodies:
        app.receive(b, element_id="other")
    return app


class Decoding(unittest.TestCase):
    def test_unknown_type_is_a_crash_counted_not_raised(self):
        for kind in ("SYNC_SUMMARY", "CURSOR", "add", ""):
            with self.subTest(type=kind):
                app = App("me")
                sync = body(type=kind, data={"version": 1})
                self.assertEqual(app.receive(sync, "other"), "crash")
                self.assertEqual(len(app.crashes), 1)
                self.assertEqual(app.crashes[0][1], sync)
        self.assertRaises(Crash, decode, body(type="SYNC_WANT"))

    def test_unknown_type_crashes_whatever_its_other_fields(self):
        self.assertRaises(Crash, decode, '{"type":"X","identifier":7}')

    def test_malformed_bodies_are_ignored(self):
        for text in ("hello", "", "{", "[1]", '"ADD"', "{}", '{"type":null}', '{"type":1}',
                     '{"type":"ADD","weight":NaN}', '{"type":"REMOVE_STROKE"}',
                     '{"type":"REMOVE_STROKE","identifier":5}'):
            with self.subTest(body=text):
                app = App("me")
                self.assertEqual(app.receive(text, "other"), "ignored")
                self.assertEqual(app.crashes, [])

    def test_a_message_without_body_is_ignored(self):
        app = App("me")
        self.assertEqual(app.receive(None, "other"), "no_body")
        self.assertEqual(app.no_body, 1)

    def test_own_messages_are_skipped_by_their_id(self):
        app = App("me")
        self.assertEqual(app.receive(ADD, "me"), "own")
        self.assertEqual(app.view()[0], {})
        self.assertEqual(app.receive(ADD, None), "applied")  # a message without id is applied

    def test_add_reads_is_shape_leniently_and_colour_as_255ths(self):
        change = decode(body(type="ADD", identifier="s", weight=2, colour=[255, 0, 51], start=[1, 2], is_shape=1))
        self.assertIsInstance(change, AddStroke)
        self.assertFalse(change.stroke.is_shape)
        self.assertEqual(change.stroke.colour, (1.0, 0.0, 0.2))
        self.assertEqual(change.stroke.points, [[1.0, 2.0]])
        self.assertEqual([s.pair() for s in change.stroke.segments], [[0.0, 0.0]])

    def test_short_colour_or_point_arrays_are_an_index_out_of_range(self):
        self.assertRaises(Crash, decode, body(type="ADD", identifier="s", weight=1, colour=[0, 0], start=[0, 0]))
        self.assertRaises(Crash, decode, body(type="ADD", identifier="s", weight=1, colour=[0, 0, 0], start=[0]))
        self.assertRaises(Crash, decode, body(type="APPEND", identifier="s", points=[[1, 2], [3]]))
        # Fields are read in the app's order: start, weight, colour, then identifier.
        self.assertRaises(Crash, decode, body(type="ADD", weight=1, colour=[0], start=[0, 0]))
        self.assertRaises(Ignored, decode, body(type="ADD", identifier="s", colour=[0], start=[0, 0]))

    def test_numbers_beyond_a_float_are_a_decoding_error(self):
        self.assertRaises(Ignored, decode, body(type="APPEND", identifier="s", points=[[1e39, 0]]))
        self.assertRaises(Ignored, decode, body(type="ADD", identifier="s", weight=True, colour=[0, 0, 0], start=[0, 0]))

    def test_mega_needs_is_shape_and_every_field(self):
        stroke = {"points": [[0, 0]], "segments": [], "thickness": 1, "colour": [0, 0, 1]}
        self.assertRaises(Ignored, decode, body(type="MEGA", data={"s": stroke}))
        self.assertIsInstance(decode(body(type="MEGA", data={"s": dict(stroke, isShape=False)})), Mega)


class Applying(unittest.TestCase):
    def test_append_ignores_offset_and_goes_at_the_end(self):
        app = app_with(ADD,
                       body(type="APPEND", identifier="s", points=[[5, 5], [6, 6]], offset=1),
                       body(type="APPEND", identifier="s", points=[[3, 3]], offset=1))
        self.assertEqual(app.engine.doc["s"].points, [[1, 2], [5, 5], [6, 6], [3, 3]])
        self.assertEqual(app.view()[1], {"s": [[0.0, 3.0]]})

    def test_a_duplicate_append_duplicates_its_points(self):
        append = body(type="APPEND", identifier="s", points=[[5, 5], [6, 6], [7, 7], [8, 8]])
        app = app_with(ADD, append, append)
        self.assertEqual(app.view()[0], {"s": 9})

    def test_append_to_an_unknown_stroke_is_dropped_even_when_the_add_follows(self):
        app = app_with(body(type="APPEND", identifier="s", points=[[5, 5]], offset=1), ADD)
        self.assertEqual(app.view()[0], {"s": 1})

    def test_a_second_add_keeps_the_first(self):
        other = body(type="ADD", identifier="s", weight=9, colour=[0, 0, 0], start=[100, 100])
        app = app_with(ADD, other)
        self.assertEqual(app.engine.doc["s"].points, [[1, 2]])
        self.assertEqual(app.engine.doc["s"].thickness, 2)

    def test_remove_stroke_removes_it_and_a_later_add_recreates_it(self):
        app = app_with(ADD, body(type="REMOVE_STROKE", identifier="s"))
        self.assertEqual(app.view()[0], {})
        app.receive(body(type="APPEND", identifier="s", points=[[5, 5]]), "other")
        self.assertEqual(app.view()[0], {})
        app.receive(ADD, "other")
        self.assertEqual(app.view()[0], {"s": 1})

    def test_delete_cuts_the_visible_segments(self):
        app = app_with(ADD, body(type="APPEND", identifier="s", points=[[i, i] for i in range(8)]))
        app.receive(body(type="DELETE", identifier="s", start_offset=2, end_offset=3.5), "other")
        self.assertEqual(app.view()[1], {"s": [[0.0, 2.0], [3.5, 8.0]]})
        app.receive(body(type="DELETE", identifier="s", start_offset=3.5, end_offset=8), "other")
        self.assertEqual(app.view()[1], {"s": [[0.0, 2.0]]})
        # Only the first segment grows with later points.
        app.receive(body(type="APPEND", identifier="s", points=[[9, 9]]), "other")
        self.assertEqual(app.view()[1], {"s": [[0.0, 3.0]]})

    def test_delete_of_an_unknown_stroke_does_nothing(self):
        app = app_with(body(type="DELETE", identifier="s", start_offset=0, end_offset=1))
        self.assertEqual(app.view(), ({}, {}))

    def test_mega_longest_points_win_and_segments_are_erased_reversed(self):
        engine = Engine()
        engine.handle(AddStroke(Stroke([[0, 0]], (0, 0, 0), False, 1), "s"))
        engine.handle(AddPoints([[1, 1], [2, 2]], "s"))
        longer = Stroke([[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]], (0, 0, 0), False, 1, [Segment(0, 4)])
        engine.handle(Mega({"s": longer, "t": Stroke([[9, 9]], (0, 0, 0), False, 1)}))
        self.assertEqual(engine.view()[0], {"s": 5, "t": 1})
        # betterPartial(s, 4, 0) on [0, 2] leaves it; segments only go as the reversed
        # erase of each incoming segment leaves them.
        self.assertEqual(engine.view()[1], {"s": [[0.0, 2.0]], "t": [[0.0, 0.0]]})
        shorter = Stroke([[7, 7]], (0, 0, 0), False, 1, [])
        engine.handle(Mega({"s": shorter}))
        self.assertEqual(engine.view(), ({"s": 5, "t": 1}, {"s": [], "t": [[0.0, 0.0]]}))

    def test_a_reflected_mega_of_its_own_state_splits_segments(self):
        app = app_with(ADD, body(type="APPEND", identifier="s", points=[[5, 5], [6, 6], [7, 7], [8, 8]]))
        mega = app.everything()
        self.assertEqual(app.receive(mega, None), "applied")  # sent without id: applied
        self.assertEqual(app.view(), ({"s": 5}, {"s": [[0.0, 4.0], [0.0, 4.0]]}))
        self.assertEqual(app.engine.visible(), {"s": [[0.0, 4.0]]})


class Redrawing(unittest.TestCase):
    """The app draws what a message left (`setNeedsDisplay`) before the next message."""

    SHAPE_ADD = body(type="ADD", identifier="r", weight=2, colour=[0, 0, 0], start=[0, 0], is_shape=True)
    CORNERS = [[100, 0], [100, 50], [0, 50], [0, 0]]

    def test_a_shape_of_one_point_cannot_be_drawn(self):
        app = App("me")
        self.assertEqual(app.receive(self.SHAPE_ADD, "other"), "crash")
        self.assertIn("Range requires lowerBound <= upperBound", app.crashes[0][0])
        self.assertEqual(app.crashes[0][1], self.SHAPE_ADD)
        # Its APPEND makes it drawable again: the crash was the redraw in between.
        self.assertEqual(app.receive(body(type="APPEND", identifier="r", points=self.CORNERS), "other"), "applied")
        self.assertEqual(app.view()[1], {"r": [[0.0, 4.0]]})

    def test_a_curve_of_one_point_and_a_whole_shape_in_a_mega_are_drawn(self):
        app = App("me")
        self.assertEqual(app.receive(ADD, "other"), "applied")
        shape = {"points": [[0, 0]] + self.CORNERS, "segments": [{"start": 0, "end": 4}], "isShape": True,
                 "thickness": 2, "colour": [0, 0, 0]}
        self.assertEqual(app.receive(body(type="MEGA", data={"r": shape}), "other"), "applied")
        self.assertEqual(app.crashes, [])
        self.assertEqual(app.view(), ({"r": 5, "s": 1}, {"r": [[0.0, 4.0]], "s": [[0.0, 0.0]]}))

    def test_segments_past_the_points_cannot_be_drawn(self):
        shape = Stroke([[0, 0], [1, 1], [2, 2]], (0, 0, 0), True, 1, [Segment(0.5, 2.5)])
        self.assertIn("index out of range", drawing_trap(shape))
        curve = Stroke([[0, 0], [1, 1], [2, 2]], (0, 0, 0), False, 1, [Segment(3, 4)])
        self.assertIn("index out of range", drawing_trap(curve))
        erased = Stroke([[0, 0], [1, 1], [2, 2]], (0, 0, 0), True, 1, [Segment(0, 0.5), Segment(1.5, 2)])
        self.assertIsNone(drawing_trap(erased))


class Drawing(unittest.TestCase):
    def test_a_stroke_is_an_add_then_appends_of_four_points_without_offset(self):
        app = App("me")
        touches = [[i, 0] for i in range(11)]
        bodies = [json.loads(b) for b in app.draw("s", touches, (1.0, 0.0, 0.0), 3)]
        self.assertEqual([b["type"] for b in bodies], ["ADD", "APPEND", "APPEND"])
        self.assertEqual(bodies[0], {"type": "ADD", "weight": 3, "start": [0, 0], "is_shape": False,
                                     "colour": [255, 0, 0], "identifier": "s"})
        self.assertEqual([len(b["points"]) for b in bodies[1:]], [4, 4])
        self.assertTrue(all("offset" not in b for b in bodies))
        # The last two touches never made a batch of four: the app drops them.
        self.assertEqual(app.view()[0], {"s": 9})
        self.assertEqual(app.view()[1], {"s": [[0.0, 8.0]]})

    def test_repeated_touches_are_not_points(self):
        app = App("me")
        app.draw("s", [[0, 0], [0, 0], [1, 1], [1, 1], [2, 2], [3, 3], [4, 4]], (0, 0, 0), 1)
        self.assertEqual(app.view()[0], {"s": 5})

    def test_undo_sends_remove_stroke_and_redo_a_mega_of_the_stroke(self):
        app = App("me")
        app.draw("s", [[i, 0] for i in range(5)], (0, 0, 0), 1)
        undo = [json.loads(b) for b in app.undo()]
        self.assertEqual(undo, [{"type": "REMOVE_STROKE", "identifier": "s"}])
        self.assertEqual(app.view()[0], {})
        redo = [json.loads(b) for b in app.redo()]
        self.assertEqual(len(redo), 1)
        self.assertEqual(redo[0]["type"], "MEGA")
        self.assertEqual(list(redo[0]["data"]), ["s"])
        self.assertEqual(redo[0]["data"]["s"]["points"], [[i, 0] for i in range(5)])
        self.assertEqual(redo[0]["data"]["s"]["segments"], [{"start": 0, "end": 4}])
        self.assertEqual(app.view()[0], {"s": 5})
        # Undo again: REMOVE_STROKE (the inverse of the MEGA); nothing more to undo after.
        self.assertEqual([json.loads(b)["type"] for b in app.undo()], ["REMOVE_STROKE"])
        self.assertEqual(app.undo(), [])

    def test_undo_of_a_stroke_removed_by_someone_else_crashes(self):
        app = App("me")
        app.draw("s", [[i, 0] for i in range(5)], (0, 0, 0), 1)
        app.receive(body(type="REMOVE_STROKE", identifier="s"), "other")
        self.assertRaises(Crash, app.undo)  # its redo would be a MEGA of lines["s"]!, which is nil

    def test_the_mega_on_presence_holds_strokes_with_visible_segments_only(self):
        app = App("me")
        app.draw("a", [[i, 0] for i in range(5)], (0, 0, 0), 1)
        app.draw("b", [[i, 1] for i in range(5)], (0, 0, 0), 1)
        app.erase("b", 0, 4)
        self.assertEqual(list(json.loads(app.everything())["data"]), ["a"])

    def test_encode_then_decode_is_the_same_change(self):
        for change in (AddPoints([[1.5, 2]], "s"), RemoveStroke("s"), Erase("s", 0.5, 2)):
            with self.subTest(change=change):
                self.assertEqual(decode(encode(change)), change)


if __name__ == "__main__":
    unittest.main(verbosity=2)
