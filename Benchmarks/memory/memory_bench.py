"""Resident memory per point of a `canvas join` node holding one big room (docs/benchmarks.md).

Generates a deterministic room of N points as NDJSON (strokes of 50-500 points as a pen
draws them: an ADD, then APPENDs of 15 points with their offsets, coordinates on a
smooth random walk), then measures LAN-only nodes on a private multicast group and port:

- store:  `canvas replay ROOM.ndjson --store DIR --room bench` builds a store; then
          `canvas join --room bench --lan --store DIR --events` opens it;
- memory: `canvas join --room bench --lan --events` (plus `--memory` where `canvas join`
          has it) is fed the NDJSON on standard input (local operations), in chunks of
          --chunk-points, each chunk written once the node reports the previous one;
- empty:  the same two commands on an empty room, the cost of the process itself.

For each node it waits until its `state` event reports every point, lets it settle
(--settle seconds), reads VmRSS and VmHWM from /proc/PID/status and stops it with SIGTERM.
The figure is (VmRSS - VmRSS of the empty node of the same kind) / N, in bytes per point;
the goal is at most 40 (a point is two doubles, 16 bytes). Exit status 1 if a case misses
the goal. The memory node also sends what it is fed on the LAN and keeps the last 4,096
datagrams for repairs (at most 8 MiB; about 1.5 MB here, estimated from the datagram
sizes, so 1.5 bytes per point of a million): a fixed cost of any node that draws,
counted in its figure.

Usage: python3 Benchmarks/memory/memory_bench.py --canvas PATH [--points 1000000] [--json]
       [--cases store,memory] [--settle 8] [--chunk-points 50000] [--lan-interface IF]
       [--work DIR]
(release build first: swift build -c release --product canvas). The node needs an
interface with MULTICAST (by default the first one that has it; `lo` lacks it until
`ip link set lo multicast on`)."""

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lan_node import LANNode, supports_memory_flag  # noqa: E402

ROOM = "bench"
GOAL_BYTES_PER_POINT = 40
POINTS_PER_APPEND = 15  # what a pen produces in about a second


def number(value):
    """A coordinate as a pen reports it: two decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def room_lines(points, seed=1):
    """The room as (NDJSON line, points it adds) pairs, `points` points in all."""
    rng = random.Random(seed)
    lines, total, stroke = [], 0, 0
    while total < points:
        stroke += 1
        length = min(rng.randint(50, 500), points - total)
        x, y = rng.uniform(100, 3900), rng.uniform(100, 2900)
        heading, speed = rng.uniform(0, 6.283), rng.uniform(1.5, 4.0)
        walk = []
        for _ in range(length):
            walk.append(f"[{number(x)},{number(y)}]")
            heading += rng.gauss(0, 0.25)
            speed = min(6.0, max(0.5, speed + rng.gauss(0, 0.3)))
            x = min(4000.0, max(0.0, x + speed * math.cos(heading)))
            y = min(3000.0, max(0.0, y + speed * math.sin(heading)))
        identifier = f"bench-{stroke}"
        colour = f"[{rng.randrange(256)},{rng.randrange(256)},{rng.randrange(256)}]"
        weight = rng.choice((1, 2, 3, 5, 8))
        lines.append((f'{{"type":"ADD","identifier":"{identifier}","weight":{weight},"colour":{colour},'
                       f'"start":{walk[0]}}}', 1))
        for offset in range(1, length, POINTS_PER_APPEND):
            batch = walk[offset:offset + POINTS_PER_APPEND]
            lines.append((f'{{"type":"APPEND","identifier":"{identifier}","points":[{",".join(batch)}],'
                           f'"offset":{offset}}}', len(batch)))
        total += length
    return lines


def write_room(path, lines):
    with open(path, "w") as f:
        for line, _ in lines:
            f.write(line)
            f.write("\n")


def replay_points(canvas, args):
    """Runs `canvas replay ARGS` and returns its output and the point count it printed."""
    result = subprocess.run([canvas, "replay"] + args, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"canvas replay {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    match = re.search(r"\bpoints (\d+)", result.stdout)
    if not match:
        raise RuntimeError(f"canvas replay printed no point count:\n{result.stdout}")
    return result.stdout.strip(), int(match.group(1))


def measure_node(node, settle, points, feed=None, timeout=600):
    """Starts `node`, feeds it (if `feed` is given), waits for `points`, settles, measures."""
    node.start()
    try:
        began = time.monotonic()
        if feed:
            feed(node)
        node.wait_for_points(points, timeout)
        loaded = time.monotonic() - began
        figures = node.settle_and_measure(settle)
        figures["seconds_to_all_points"] = round(loaded, 2)
        state = node.last_state() or {}
        figures["state_points"] = state.get("points")
        figures["state_strokes"] = state.get("strokes")
    finally:
        figures_exit = node.stop()
    figures["exit_status"] = figures_exit
    return figures


def feeder(lines, chunk_points, timeout):
    """Writes the room to the node's standard input; with chunk_points > 0, a chunk at a
    time, waiting for the node to report it (standard input is queued without bound inside
    the node, so a firehose measures the queue as much as the replica)."""
    def feed(node):
        chunk, chunk_count, fed = [], 0, 0
        for line, count in lines:
            chunk.append(line)
            chunk_count += count
            if chunk_points > 0 and chunk_count >= chunk_points:
                node.write(("\n".join(chunk) + "\n").encode())
                fed += chunk_count
                node.wait_for_points(fed, timeout)
                chunk, chunk_count = [], 0
        if chunk:
            node.write(("\n".join(chunk) + "\n").encode())
    return feed


def per_point(rss_kib, empty_kib, points):
    return round((rss_kib - empty_kib) * 1024 / points, 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--canvas", required=True, help="the canvas binary (release build)")
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--cases", default="store,memory", help="comma-separated: store, memory")
    parser.add_argument("--settle", type=float, default=8.0, help="seconds between all points and the reading")
    parser.add_argument("--chunk-points", type=int, default=50_000,
                        help="memory case: points written per chunk (0: the whole room at once)")
    parser.add_argument("--lan-interface", help="passed to canvas join --lan-interface")
    parser.add_argument("--work", help="folder for the room, stores and logs (default: a new temporary one)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    if not set(cases) <= {"store", "memory"}:
        parser.error("--cases takes store and/or memory")
    canvas = os.path.abspath(args.canvas)
    work = args.work or tempfile.mkdtemp(prefix="canvas-memory-bench-")
    os.makedirs(work, exist_ok=True)
    memory_flag = supports_memory_flag(canvas)
    timeout = 120 + args.points / 2_000

    def say(text):
        if not args.json:
            print(text, flush=True)

    began = time.monotonic()
    lines = room_lines(args.points, args.seed)
    room_path = os.path.join(work, f"room-{args.points}.ndjson")
    write_room(room_path, lines)
    summary, replayed = replay_points(canvas, [room_path])
    if replayed != args.points:
        raise SystemExit(f"canvas replay counts {replayed} points in {room_path}, expected {args.points}: {summary}")
    say(f"room: {room_path}, {len(lines)} lines, {os.path.getsize(room_path)} bytes, "
        f"generated in {time.monotonic() - began:.1f} s; canvas replay: {summary}")

    results = {"canvas": canvas, "points": args.points, "lines": len(lines),
               "ndjson_bytes": os.path.getsize(room_path), "memory_flag": memory_flag,
               "goal_bytes_per_point": GOAL_BYTES_PER_POINT, "cases": {}}
    node_options = {"memory_flag": memory_flag, "interface": args.lan_interface}
    for case in cases:
        if case == "store":
            empty_store = os.path.join(work, "store-empty")
            say("store: empty node ...")
            empty = measure_node(LANNode(canvas, ROOM, store=empty_store, log_path=os.path.join(work, "store-empty.log"),
                                         **node_options), args.settle, None, timeout=60)
            store = os.path.join(work, "store")
            made = time.monotonic()
            stored, stored_points = replay_points(canvas, [room_path, "--store", store, "--room", ROOM])
            if stored_points != args.points:
                raise SystemExit(f"the store holds {stored_points} points, expected {args.points}: {stored}")
            say(f"store: built in {time.monotonic() - made:.1f} s ({stored}); node ...")
            full = measure_node(LANNode(canvas, ROOM, store=store, log_path=os.path.join(work, "store.log"),
                                        **node_options), args.settle, args.points, timeout=timeout)
            full["store_bytes"] = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(store) for f in fs)
        else:
            say("memory: empty node ...")
            empty = measure_node(LANNode(canvas, ROOM, log_path=os.path.join(work, "memory-empty.log"), **node_options),
                                 args.settle, None, timeout=60)
            say(f"memory: node fed {args.points} points on standard input ...")
            full = measure_node(LANNode(canvas, ROOM, log_path=os.path.join(work, "memory.log"), **node_options),
                                args.settle, args.points, feed=feeder(lines, args.chunk_points, timeout), timeout=timeout)
            full["chunk_points"] = args.chunk_points
        if full["state_points"] != args.points:
            raise SystemExit(f"{case}: the node reports {full['state_points']} points, expected {args.points}")
        full["bytes_per_point"] = per_point(full["VmRSS"], empty["VmRSS"], args.points)
        full["hwm_bytes_per_point"] = per_point(full["VmHWM"], empty["VmRSS"], args.points)
        results["cases"][case] = {"empty": empty, "room": full}

    results["work"] = work
    failed = [c for c, r in results["cases"].items() if r["room"]["bytes_per_point"] > GOAL_BYTES_PER_POINT]
    results["pass"] = not failed
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print()
        print(f"{args.points} points ({results['ndjson_bytes'] / args.points:.1f} bytes of NDJSON per point); "
              f"canvas join --memory: {'yes' if memory_flag else 'no'}; goal <= {GOAL_BYTES_PER_POINT} B/point")
        print(f"{'case':8} {'empty RSS':>10} {'RSS':>10} {'HWM':>10} {'B/point':>8} {'HWM B/pt':>9} {'load s':>7}")
        for case, r in results["cases"].items():
            e, f = r["empty"], r["room"]
            print(f"{case:8} {e['VmRSS'] / 1024:8.1f}MB {f['VmRSS'] / 1024:8.1f}MB {f['VmHWM'] / 1024:8.1f}MB "
                  f"{f['bytes_per_point']:8.1f} {f['hwm_bytes_per_point']:9.1f} {f['seconds_to_all_points']:7.1f}")
        print(f"(MB = MiB; B/point = (RSS - empty RSS) / points; work folder {work})")
        print("PASS" if not failed else f"FAIL: over {GOAL_BYTES_PER_POINT} B/point: {', '.join(failed)}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
