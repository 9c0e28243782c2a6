#!/usr/bin/env python3
"""The 1000-point test on peer CRDT libraries, through their Python bindings.

Usage (after `bash Benchmarks/peers/setup.sh VENV`):

    VENV/bin/python Benchmarks/peers/peers.py --points 1000 --repeat 5

Models the whiteboard: the document has a map "strokes" holding the stroke "s1",
a map with "weight" (number), "colour" (list of 3 ints) and "points" (a list).
Each point [x, y] is appended in its own transaction/commit, as a user drawing
would. Per library, over --repeat runs each on fresh documents:

  apply_ms      median total ms to append the N points to one document
  replicate_ms  median total ms when, additionally, each append's incremental
                update is encoded on doc A and applied to a second doc B
  update_bytes_per_point  bytes of the N updates A -> B / N (median over runs)
  reply_bytes_per_point   bytes B -> A / N; only Automerge's sync protocol replies
  converged     B's stroke equals A's at the end of every replicate run

Prints one JSON object on stdout and nothing else; diagnostics go to stderr.
A library that fails to import or errors gets {"peer", "package", "error"}; the
exit status is still 0.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback
from importlib import metadata

WEIGHT = 2.0
COLOUR = [255, 0, 0]


def stroke_points(n):
    """The deterministic test stroke: x = i * 1.5, y = sin(i / 10) * 100."""
    return [(i * 1.5, math.sin(i / 10) * 100) for i in range(n)]


# Each library class imports its bindings in __init__ (so a missing one becomes
# that peer's "error") and provides:
#   new_doc()                    -> A: a document holding the empty stroke, committed
#   append(A, x, y)              one point, in its own transaction/commit
#   new_replica(A)               -> B: a second document synced with A (untimed)
#   append_and_send(A, B, x, y)  -> (bytes A -> B, bytes B -> A): append, then replicate
#   strokes(A, B)                -> (A's stroke, B's stroke) as plain Python values


class Yrs:
    peer, package = "Yrs", "pycrdt"
    model = ("strokes: Y.Map; s1: Y.Map; colour: JSON list (pycrdt stores ints as f64); "
             "points: Y.Array, each point one JSON [x, y] element (as Yjs points.push([[x, y]]))")
    replication = "update = A.get_update(A's state vector before the transaction); B.apply_update"

    def __init__(self):
        import pycrdt
        self.y = pycrdt

    def new_doc(self):
        y = self.y
        doc = y.Doc()
        with doc.transaction():
            doc.get("strokes", type=y.Map)["s1"] = y.Map(
                {"weight": WEIGHT, "colour": COLOUR, "points": y.Array()})
        return doc, doc.get("strokes", type=y.Map)["s1"]["points"]

    def append(self, a, x, y):
        doc, points = a
        with doc.transaction():
            points.append([x, y])

    def new_replica(self, a):
        b = self.y.Doc()
        b.apply_update(a[0].get_update())
        return b

    def append_and_send(self, a, b, x, y):
        state = a[0].get_state()
        self.append(a, x, y)
        update = a[0].get_update(state)
        b.apply_update(update)
        return len(update), 0

    def stroke(self, doc):
        return doc.get("strokes", type=self.y.Map)["s1"].to_py()

    def strokes(self, a, b):
        return self.stroke(a[0]), self.stroke(b)


class Loro:
    peer, package = "Loro", "loro"
    model = ("strokes: LoroMap; s1: LoroMap; colour: LoroList; points: LoroList, "
             "each point one [x, y] list value")
    replication = "update = A.export(ExportMode.Updates(A's oplog_vv before the commit)); B.import_"

    def __init__(self):
        import loro
        self.loro = loro

    def new_doc(self):
        lo = self.loro
        doc = lo.LoroDoc()
        s1 = doc.get_map("strokes").insert_container("s1", lo.LoroMap())
        s1.insert("weight", WEIGHT)
        colour = s1.insert_container("colour", lo.LoroList())
        for c in COLOUR:
            colour.push(c)
        points = s1.insert_container("points", lo.LoroList())
        doc.commit()
        return doc, points

    def append(self, a, x, y):
        doc, points = a
        points.push([x, y])
        doc.commit()

    def new_replica(self, a):
        b = self.loro.LoroDoc()
        b.import_(a[0].export(self.loro.ExportMode.Snapshot()))
        return b

    def append_and_send(self, a, b, x, y):
        version = a[0].oplog_vv
        self.append(a, x, y)
        update = a[0].export(self.loro.ExportMode.Updates(version))
        b.import_(update)
        return len(update), 0

    def strokes(self, a, b):
        return (a[0].get_deep_value()["strokes"]["s1"],
                b.get_deep_value()["strokes"]["s1"])


class Automerge:
    peer, package = "Automerge", "automerge"
    model = ("strokes: Map; s1: Map; colour: List of Int; points: List, "
             "each point a nested List of two F64 (as JS d.points.push([x, y]))")
    replication = ("sync protocol: A.generate_sync_message -> B.receive_sync_message, "
                   "B's reply back, until both are quiet (the bindings have no "
                   "apply-changes/load-incremental)")

    def __init__(self):
        from automerge import core
        self.am = core

    def new_doc(self):
        am = self.am
        doc = am.Document()
        with doc.transaction() as tx:
            strokes = tx.put_object(am.ROOT, "strokes", am.ObjType.Map)
            s1 = tx.put_object(strokes, "s1", am.ObjType.Map)
            tx.put(s1, "weight", am.ScalarType.F64, WEIGHT)
            colour = tx.put_object(s1, "colour", am.ObjType.List)
            for i, c in enumerate(COLOUR):
                tx.insert(colour, i, am.ScalarType.Int, c)
            points = tx.put_object(s1, "points", am.ObjType.List)
        return doc, s1, points

    def append(self, a, x, y):
        am = self.am
        doc, _, points = a
        with doc.transaction() as tx:
            point = tx.insert_object(points, tx.length(points), am.ObjType.List)
            tx.insert(point, 0, am.ScalarType.F64, x)
            tx.insert(point, 1, am.ScalarType.F64, y)

    def new_replica(self, a):
        b = (self.am.Document(), self.am.SyncState(), self.am.SyncState())
        self._sync(a[0], b)
        return b

    def _sync(self, doc_a, b):
        """Exchanges sync messages until neither side has anything to send.
        Returns (bytes sent A -> B, bytes sent B -> A)."""
        am = self.am
        doc_b, state_a, state_b = b  # state_X: X's view of the other peer
        sent = replied = 0
        while True:
            msg = doc_a.generate_sync_message(state_a)
            if msg is not None:
                data = msg.encode()
                sent += len(data)
                doc_b.receive_sync_message(state_b, am.Message.decode(data))
            reply = doc_b.generate_sync_message(state_b)
            if reply is not None:
                data = reply.encode()
                replied += len(data)
                doc_a.receive_sync_message(state_a, am.Message.decode(data))
            if msg is None and reply is None:
                return sent, replied

    def append_and_send(self, a, b, x, y):
        self.append(a, x, y)
        return self._sync(a[0], b)

    def strokes(self, a, b):
        doc_a, s1, _ = a
        # s1's object id is the same in every replica: ids are (counter, actor) of the op.
        return self.am.extract(doc_a, s1), self.am.extract(b[0], s1)


def ms_since(start_ns):
    return (time.perf_counter_ns() - start_ns) / 1e6


def run_apply(lib, points):
    a = lib.new_doc()
    start = time.perf_counter_ns()
    for x, y in points:
        lib.append(a, x, y)
    return ms_since(start)


def run_replicate(lib, points):
    """Returns (ms, bytes A -> B, bytes B -> A, converged)."""
    a = lib.new_doc()
    b = lib.new_replica(a)  # B starts with the empty stroke, untimed
    sent = replied = 0
    start = time.perf_counter_ns()
    for x, y in points:
        s, r = lib.append_and_send(a, b, x, y)
        sent += s
        replied += r
    elapsed = ms_since(start)
    stroke_a, stroke_b = lib.strokes(a, b)
    # Guards the workload itself, so that "converged" cannot mean "both empty".
    expected = [list(p) for p in points]
    if stroke_a["points"] != expected or stroke_a["weight"] != WEIGHT or stroke_a["colour"] != COLOUR:
        raise AssertionError(f"doc A's stroke is not the expected one: {str(stroke_a)[:200]}")
    return elapsed, sent, replied, stroke_a == stroke_b


def bench(cls, n, repeat):
    head = {"peer": cls.peer, "package": cls.package}
    try:
        head["version"] = metadata.version(cls.package)
        lib = cls()
        points = stroke_points(n)
        apply_ms, replicate_ms, sent, replied, converged = [], [], [], [], True
        for r in range(repeat):
            apply_ms.append(run_apply(lib, points))
            ms, s, rep, conv = run_replicate(lib, points)
            replicate_ms.append(ms)
            sent.append(s)
            replied.append(rep)
            converged = converged and conv
            print(f"{cls.peer}: run {r + 1}/{repeat}: apply {apply_ms[-1]:.1f} ms, "
                  f"replicate {ms:.1f} ms, {s} B sent, {rep} B replied, converged={conv}",
                  file=sys.stderr)
        return {**head,
                "model": lib.model,
                "replication": lib.replication,
                "apply_ms": round(statistics.median(apply_ms), 3),
                "replicate_ms": round(statistics.median(replicate_ms), 3),
                "update_bytes_per_point": round(statistics.median(sent) / n, 2),
                "reply_bytes_per_point": round(statistics.median(replied) / n, 2),
                "converged": converged}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # pyo3's PanicException (a Rust panic) is a BaseException
        traceback.print_exc(file=sys.stderr)
        return {**head, "error": f"{type(e).__name__}: {e}"}


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=positive_int, default=1000, help="points per stroke (default 1000)")
    parser.add_argument("--repeat", type=positive_int, default=5, help="runs per library (default 5)")
    args = parser.parse_args()

    # Keep stdout for the JSON alone: anything the libraries (or their native
    # code, which bypasses sys.stdout) print goes to stderr instead.
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    results = [bench(cls, args.points, args.repeat) for cls in (Yrs, Loro, Automerge)]
    json.dump({"bindings": "Python", "points": args.points, "repeat": args.repeat,
               "results": results}, out, indent=2)
    out.write("\n")
    out.close()


if __name__ == "__main__":
    main()
