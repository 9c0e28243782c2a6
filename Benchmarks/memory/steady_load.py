"""Does a node's resident memory stay flat under a steady load that leaves its replica the
same size? (docs/benchmarks.md)

One LAN-only `canvas join` without a store (`--memory` where `canvas join` has it), on a
private multicast group and port. It first draws --strokes strokes of --stroke-points
points (ADD, then APPENDs of 15 points), then for --seconds it is fed, through standard
input, a load whose result takes constant space in the replica:

- duplicates: the warm-up strokes' ADDs and APPENDs sent again, --duplicate-points points
  per second (the CRDT ignores them);
- growing erasures: per warm-up stroke in turn, `DELETE [0, e]` with e growing by 0.25 at
  each one, along the stroke and then past its end (--deletes per second). Each is novel
  (it erases something not erased before, so it is applied, persisted and sent like any
  new operation) yet the stroke's erased set stays one interval;
- eraser actions (--erase-actions per second) over 20 strokes of their own, far from the
  others and removed whole (REMOVE_STROKE) during warm-up: the eraser searches and finds
  nothing to erase. (Were they among the DELETEs' strokes, they would erase ahead of the
  DELETEs and make some of those no longer novel.)

New strokes would not do: the document is a grow-only set (erased strokes keep their
points), so a replica that receives new strokes legitimately grows.

VmRSS is sampled every second and the run is cut in thirds. The first third is warm-up:
it fills the LAN retransmission buffer (at most 4,096 fragments or 8 MiB, which a node
keeps for repairs whatever it holds; at 1,000 DELETEs per second it is full after about
5 s). The verdict: the node GROWS (exit status 1) if the highest VmRSS of the last third
exceeds the highest VmRSS of the first third by more than --threshold-mb (default 1 MiB).
Maxima rather than single samples, because VmRSS on a plateau wanders with malloc's
arenas and the event and input buffers; first against last third for the longest span
(a structure that grows in steps, such as a doubling buffer handed memory that smaller
ones freed, may not step between the middle and the last third).

The threshold: 1 MiB over the 80 s between the end of the first third and the end of a
120 s run is 13 KB/s, i.e. about 13 bytes kept per novel operation at the default rate;
anything that keeps a copy of each operation (an Operation value alone is 30-40 bytes)
exceeds it. The baseline (commit 6a762e2), whose node without a store appends every novel
operation to a list, grows by about 60 KB/s under the default load (4-5 MiB rise); the
same node under the same load without the DELETEs (nothing novel) rises by about 0.1
MiB. The rise from the middle to the last third and the least-squares slope over the
second half are reported for information, with the node's CPU time and how many input
lines it had not yet applied at each sample (a node that cannot keep up grows its input
queue, which is growth too but a different finding).

The LAN's retransmission buffer (what the node keeps to answer repair requests, bounded
by 4,096 fragments and 8 MiB) fills as the node sends, for minutes at this load (the
DELETEs go out at about 12 KB/s): a bounded buffer filling, not growth, but about 0.45
MiB of the one-minute form's rise against its 0.5 MiB threshold. So the node is started
with the buffer bounded at 256 fragments (`--lan-retransmission-fragments`, where the
binary has it), which fill in the first seconds: the rise is then the replica's and the
other structures' alone (0.06 MiB in a minute, against 0.45 MiB with the default).

Usage: python3 Benchmarks/memory/steady_load.py --canvas PATH [--seconds 120] [--json]
       [--deletes 1000] [--duplicate-points 300] [--erase-actions 20] [--threshold-mb 1]
       [--lan-interface IF]"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lan_node import LANNode, cpu_seconds, status, supports_memory_flag, supports_option  # noqa: E402

# Sent fragments kept for repairs: few enough to be full in the first seconds (docstring).
RETRANSMISSION_FRAGMENTS = 256

POINTS_PER_APPEND = 15
ERASER_STROKES = 20


def warm_up_strokes(strokes, points, prefix="steady", left=100, seed=7):
    """Strokes in the square [left, left + 1800]²: (identifier, point count, points,
    [(NDJSON line, points it adds)])."""
    rng = random.Random(seed)
    result = []
    for index in range(strokes):
        identifier = f"{prefix}-{index}"
        x, y = rng.uniform(left, left + 1800), rng.uniform(100, 1900)
        walk = []
        for _ in range(points):
            walk.append([round(x, 2), round(y, 2)])
            x += rng.uniform(-4, 4)
            y += rng.uniform(-4, 4)
        lines = [(json.dumps({"type": "ADD", "identifier": identifier, "weight": 2, "colour": [0, 0, 0],
                              "start": walk[0]}, separators=(",", ":")), 1)]
        for offset in range(1, points, POINTS_PER_APPEND):
            batch = walk[offset:offset + POINTS_PER_APPEND]
            lines.append((json.dumps({"type": "APPEND", "identifier": identifier, "points": batch, "offset": offset},
                                     separators=(",", ":")), len(batch)))
        result.append((identifier, points, walk, lines))
    return result


class Load:
    """Produces the steady load's lines, each kind at its own rate."""

    def __init__(self, strokes, erased, duplicate_points, deletes, erase_actions):
        self.strokes = strokes
        self.erased = erased
        self.duplicates = [line for _, _, _, lines in strokes for line in lines]
        self.rates = {"duplicate_points": duplicate_points, "deletes": deletes, "erase_actions": erase_actions}
        self.done = {kind: 0 for kind in self.rates}
        self.next_duplicate = 0
        self.erased_to = [0.0] * len(strokes)
        self.sent_lines = 0

    def due(self, elapsed):
        """The lines due by `elapsed` seconds since the load started."""
        lines = []
        while self.done["duplicate_points"] < self.rates["duplicate_points"] * elapsed:
            line, count = self.duplicates[self.next_duplicate % len(self.duplicates)]
            self.next_duplicate += 1
            self.done["duplicate_points"] += count
            lines.append(line)
        while self.done["deletes"] < self.rates["deletes"] * elapsed:
            stroke = self.done["deletes"] % len(self.strokes)
            self.erased_to[stroke] += 0.25
            lines.append(f'{{"type":"DELETE","identifier":"{self.strokes[stroke][0]}","start_offset":0,'
                         f'"end_offset":{self.erased_to[stroke]}}}')
            self.done["deletes"] += 1
        while self.done["erase_actions"] < self.rates["erase_actions"] * elapsed:
            _, _, walk, _ = self.erased[self.done["erase_actions"] % len(self.erased)]
            middle = walk[len(walk) // 2]
            lines.append(json.dumps({"action": "erase", "points": [middle, [middle[0] + 3, middle[1] + 3]],
                                     "radius": 6}, separators=(",", ":")))
            self.done["erase_actions"] += 1
        self.sent_lines += len(lines)
        return lines


def slope(samples):
    """Least-squares slope of (t, rss bytes) in bytes per second."""
    n = len(samples)
    if n < 2:
        return 0.0
    mean_t = sum(t for t, _ in samples) / n
    mean_r = sum(r for _, r in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    return sum((t - mean_t) * (r - mean_r) for t, r in samples) / var if var else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--canvas", required=True)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--strokes", type=int, default=200, help="warm-up strokes")
    parser.add_argument("--stroke-points", type=int, default=100, help="points per warm-up stroke")
    parser.add_argument("--duplicate-points", type=float, default=300, help="duplicate points per second")
    parser.add_argument("--deletes", type=float, default=1000, help="novel DELETEs per second")
    parser.add_argument("--erase-actions", type=float, default=20, help="eraser actions per second")
    parser.add_argument("--threshold-mb", type=float, default=1.0,
                        help="allowed rise (MiB) of the last third's max VmRSS over the first third's")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between VmRSS samples")
    parser.add_argument("--lan-interface")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    canvas = os.path.abspath(args.canvas)
    work = tempfile.mkdtemp(prefix="canvas-steady-load-")
    memory_flag = supports_memory_flag(canvas)
    bounded = supports_option(canvas, "--lan-retransmission-fragments")
    node = LANNode(canvas, "steady", memory_flag=memory_flag, interface=args.lan_interface,
                   log_path=os.path.join(work, "node.log"),
                   extra=["--lan-retransmission-fragments", str(RETRANSMISSION_FRAGMENTS)] if bounded else []).start()
    samples, states, applied = [], [], []
    try:
        strokes = warm_up_strokes(args.strokes, args.stroke_points)
        # The eraser's strokes lie apart from the others (the DELETEs' strokes) and are
        # removed whole at once, so that the eraser finds nothing to erase and the DELETEs
        # find nothing erased ahead of them: every DELETE is then novel.
        erased = warm_up_strokes(ERASER_STROKES, args.stroke_points, prefix="erased", left=3000, seed=8)
        warm_up = [line for _, _, _, lines in strokes + erased for line, _ in lines]
        warm_up += [f'{{"type":"REMOVE_STROKE","identifier":"{identifier}"}}' for identifier, _, _, _ in erased]
        total = (args.strokes + ERASER_STROKES) * args.stroke_points
        node.write(("\n".join(warm_up) + "\n").encode())
        node.wait_for_points(total, 120)
        load = Load(strokes, erased, args.duplicate_points, args.deletes, args.erase_actions)
        began = time.monotonic()
        next_sample = began
        while True:
            now = time.monotonic()
            elapsed = now - began
            if elapsed >= args.seconds:
                break
            lines = load.due(elapsed)
            if lines:
                node.write(("\n".join(lines) + "\n").encode())
            if now >= next_sample:
                if node.process.poll() is not None:
                    raise RuntimeError(f"canvas join exited with {node.process.returncode}:\n{node.tail()}")
                samples.append((round(elapsed, 2), status(node.pid)["VmRSS"] * 1024))
                applied.append(node.applied_operations)
                state = node.last_state()
                states.append((state["points"], state["strokes"]))
                next_sample += args.interval
            time.sleep(0.05)
        node_cpu = cpu_seconds(node.pid)
    finally:
        exit_status = node.stop()

    # Every warm-up line and every DELETE is one applied operation once the node has read
    # it (`applied` events count them per batch), nothing else is: what is missing is still
    # queued in the node.
    backlog = [max(0, len(warm_up) + min(load.done["deletes"], round(args.deletes * t)) - a)
               for (t, _), a in zip(samples, applied)]
    third = len(samples) // 3
    first, middle, last = samples[:third], samples[third:2 * third], samples[2 * third:]
    rise = max(r for _, r in last) - max(r for _, r in first)
    rise_from_middle = max(r for _, r in last) - max(r for _, r in middle)
    second_half = samples[len(samples) // 2:]
    threshold = args.threshold_mb * 1024 * 1024
    grows = rise > threshold
    replica_constant = len(set(states)) == 1
    result = {
        "canvas": canvas, "memory_flag": memory_flag, "seconds": args.seconds,
        "warm_up_points": total, "rates_per_second": load.rates, "sent": load.done, "lines_sent": load.sent_lines,
        "replica_points_strokes": sorted(set(states)), "replica_constant": replica_constant,
        "rss_first_mb": round(samples[0][1] / 2**20, 2), "rss_last_mb": round(samples[-1][1] / 2**20, 2),
        "rss_max_first_third_mb": round(max(r for _, r in first) / 2**20, 2),
        "rss_max_middle_third_mb": round(max(r for _, r in middle) / 2**20, 2),
        "rss_max_last_third_mb": round(max(r for _, r in last) / 2**20, 2),
        "rise_mb": round(rise / 2**20, 2), "threshold_mb": args.threshold_mb,
        "rise_from_middle_third_mb": round(rise_from_middle / 2**20, 2),
        "slope_second_half_bytes_per_second": round(slope(second_half)),
        "node_cpu_seconds": round(node_cpu, 1), "applied_operations": applied[-1],
        "backlog_by_tenth": [backlog[i] for i in range(0, len(backlog), max(1, len(backlog) // 10))], "backlog_last_sample": backlog[-1], "backlog_max": max(backlog),
        "verdict": "GROWS" if grows else "FLAT", "exit_status": exit_status,
        "samples": [[t, round(r / 2**20, 2)] for t, r in samples],
    }
    # The node's log is kept for a run whose memory grows, and removed with its folder otherwise.
    if grows:
        result["work"] = work
    else:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"canvas join{' --memory' if memory_flag else ''} (no store), {args.seconds:.0f} s; "
              f"warm-up {total} points; load per second: {args.duplicate_points:g} duplicate points, "
              f"{args.deletes:g} DELETEs, {args.erase_actions:g} eraser actions")
        print(f"replica (points, strokes) during the load: {result['replica_points_strokes']}")
        print("VmRSS (MiB) every 10 samples: " + " ".join(f"{r / 2**20:.1f}" for _, r in samples[::10]))
        print(f"max VmRSS by thirds: {result['rss_max_first_third_mb']}, {result['rss_max_middle_third_mb']}, "
              f"{result['rss_max_last_third_mb']} MiB; rise last over first {result['rise_mb']} MiB "
              f"(threshold {args.threshold_mb} MiB), last over middle {result['rise_from_middle_third_mb']} MiB")
        print(f"slope over the second half: {result['slope_second_half_bytes_per_second']} bytes/s")
        print(f"input not yet applied at a sample (lines): max {result['backlog_max']}, "
              f"last {result['backlog_last_sample']}")
        print(result["verdict"])
    if backlog[-1] > args.deletes * 2:
        print("warning: the node did not keep up with the load (its input queue grew)", file=sys.stderr)
    if not replica_constant:
        print("warning: the replica's point or stroke count changed during the load", file=sys.stderr)
    return 1 if grows else 0


if __name__ == "__main__":
    sys.exit(main())
