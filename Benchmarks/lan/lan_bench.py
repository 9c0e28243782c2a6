"""LAN cluster figures of `canvas join` (docs/benchmarks.md), on this machine's multicast
interface:

1. end-to-end latency from a local draw action on one node to its apply on another
   (p50, p99) at a steady drawing load;
2. datagrams and bytes per point sent by the drawing node (beacons and sync included);
3. the drawing rate a 10-node cluster sustains: every node draws at once, the rate rises
   step by step (4 s each) until a node falls behind; the figure is the highest step whose
   p99 latency stayed within 250 ms.

With --busy-disk only figure 1 is measured, while a thread writes and fsyncs 1 MiB blocks
to the same file system (the latency tail that store fsyncs on a node's loop cause).

Usage: python3 Benchmarks/lan/lan_bench.py [--canvas PATH] [--json FILE] [--memory] [--busy-disk]
(build first: swift build -c release)."""

import argparse
import json
import os
import random
import socket
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Integration"))
from canvasnode import Node  # noqa: E402

POINTS_PER_STROKE = 10


DURABLE = True  # --memory: nodes without a store (no fsync on the path)


class BenchNode(Node):
    def __init__(self, canvas, name, work, port, group):
        super().__init__(canvas, name, "bench", None, None, {}, os.path.join(work, name), log_dir=work)
        self.port, self.group = port, group

    def command(self):
        store = ["--store", self.store] if DURABLE else ["--memory"]
        return [self.canvas, "join", "--room", "bench", "--events", "--log-level", "warning",
                "--lan-port", str(self.port), "--lan-group", self.group] + store


def applied_points_timeline(node):
    """(time, cumulative points applied from others) after each `applied` event."""
    total, timeline = 0, []
    for event in node.snapshot():
        if event.get("event") == "applied" and event.get("author"):
            total += event["points"]
            timeline.append((event["_time"], total))
    return timeline


def stroke_line(rng):
    x, y = rng.uniform(0, 3000), rng.uniform(0, 3000)
    points = []
    for _ in range(POINTS_PER_STROKE):
        x += rng.uniform(-5, 5)
        y += rng.uniform(-5, 5)
        points.append([round(x, 2), round(y, 2)])
    return {"action": "draw", "points": points, "weight": 2, "colour": [0, 0, 0]}


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cluster(canvas, work, count):
    port = free_port()
    group = f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
    nodes = [BenchNode(canvas, f"n{i}", work, port, group).start() for i in range(count)]
    for node in nodes:
        node.wait_for(lambda n=node: sum(e.get("event") == "member_joined" for e in n.snapshot()) >= count - 1,
                      30, "the cluster")
    return nodes


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("0.0.0.0", 0))
        return s.getsockname()[1]


def latency(canvas, work, strokes=300, rate=20.0):
    """One node draws `rate` strokes per second; another applies them."""
    sender, receiver = cluster(canvas, os.path.join(work, "latency"), 2)
    rng = random.Random(1)
    sent = []
    began = time.monotonic()
    for k in range(strokes):
        due = began + k / rate
        time.sleep(max(0.0, due - time.monotonic()))
        sent.append(time.monotonic())
        sender.send_line(stroke_line(rng))
    total = strokes * POINTS_PER_STROKE
    receiver.wait_for(lambda: receiver.points() >= total, 60, "every point")
    timeline = applied_points_timeline(receiver)
    delays = []
    for k, t in enumerate(sent):
        needed = (k + 1) * POINTS_PER_STROKE
        arrival = next(when for when, cumulative in timeline if cumulative >= needed)
        delays.append((arrival - t) * 1000)
    sender.stop()
    receiver.stop()
    stats = sender.last("lan_stats")
    return {
        "strokes": strokes, "points": total, "rate_points_per_second": rate * POINTS_PER_STROKE,
        "latency_ms_p50": round(percentile(delays, 0.5), 2), "latency_ms_p99": round(percentile(delays, 0.99), 2),
        "datagrams_per_point": round(stats["datagrams_sent"] / total, 3),
        "bytes_per_point": round(stats["bytes_sent"] / total, 1),
    }


def sustained(canvas, work, count=10, steps=(250, 500, 1000, 2000, 4000, 8000, 16000, 32000), seconds=4.0):
    """Every node draws at once at a total rate of `step` points per second."""
    nodes = cluster(canvas, os.path.join(work, "sustained"), count)
    try:
        return sustained_steps(nodes, count, steps, seconds)
    finally:
        for node in nodes:
            if node.process.poll() is None:
                node.kill()


def sustained_steps(nodes, count, steps, seconds):
    rng = random.Random(2)
    results, drawn = [], 0
    for step in steps:
        strokes_per_node_per_second = step / POINTS_PER_STROKE / count
        rounds = int(seconds * strokes_per_node_per_second)
        interval = 1.0 / strokes_per_node_per_second
        began = time.monotonic()
        sent = []
        for k in range(rounds):
            time.sleep(max(0.0, began + k * interval - time.monotonic()))
            now = time.monotonic()
            for node in nodes:
                node.send_line(stroke_line(rng))
            sent.append(now)
        drawn += rounds * count * POINTS_PER_STROKE
        behind = False
        try:
            for node in nodes:
                node.wait_for(lambda n=node: n.points() >= drawn, 20, "every point")
        except AssertionError:
            behind = True
        # Latency of the last node's view of the first node's strokes in this step.
        timeline = [(t, c) for t, c in applied_points_timeline(nodes[-1])]
        delays = []
        # What the last node had from the others before this step, then per round.
        base = (drawn - rounds * count * POINTS_PER_STROKE) * (count - 1) // count
        for k, t in enumerate(sent):
            needed = base + (k + 1) * (count - 1) * POINTS_PER_STROKE
            arrival = next((when for when, cumulative in timeline if cumulative >= needed), None)
            if arrival is not None:
                delays.append((arrival - t) * 1000)
        p99 = percentile(delays, 0.99) if delays else float("inf")
        results.append({"points_per_second": step, "p99_ms": round(p99, 1), "fell_behind": behind})
        print(f"  {step} points/s: p99 {p99:.1f} ms{' (fell behind)' if behind else ''}", flush=True)
        if behind:
            break
    # The highest rate at which nobody fell behind and the p99 stayed within 250 ms.
    good = [r["points_per_second"] for r in results if not r["fell_behind"] and r["p99_ms"] <= 250]
    return {"nodes": count, "steps": results, "sustained_points_per_second": max(good) if good else 0}


class BusyDisk:
    """Writes and fsyncs 1 MiB blocks to a file in `directory` until stopped."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "busy-disk")
        self.running = True
        self.thread = threading.Thread(target=self._write, daemon=True)

    def _write(self):
        block = os.urandom(1 << 20)
        with open(self.path, "wb") as f:
            while self.running:
                for _ in range(64):
                    f.write(block)
                    f.flush()
                    os.fsync(f.fileno())
                    if not self.running:
                        break
                f.seek(0)
                f.truncate()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()
        os.unlink(self.path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--canvas", default=os.path.join(ROOT, ".build", "release", "canvas"))
    parser.add_argument("--json")
    parser.add_argument("--memory", action="store_true", help="nodes keep their replicas in memory (no fsync)")
    parser.add_argument("--busy-disk", action="store_true", help="latency only, while another writer fsyncs")
    args = parser.parse_args()
    global DURABLE
    DURABLE = not args.memory
    work = tempfile.mkdtemp(prefix="canvas-lan-bench-")
    if args.busy_disk:
        with BusyDisk(work):
            figures = {"latency_busy_disk": latency(args.canvas, work)}
        print(json.dumps(figures, indent=2))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(figures, f, indent=2)
        return
    figures = {"latency": latency(args.canvas, work)}
    print(json.dumps(figures["latency"]), flush=True)
    figures["cluster"] = sustained(args.canvas, work)
    print(json.dumps(figures, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
