"""XMPP figures of `canvas join` through a real Prosody on loopback (docs/benchmarks.md):

1. messages per second one node sends, and another receives, through the room;
2. join-to-synced time for a room of 100,000 points: from the start of a fresh node to
   its replica holding every point, caught up from the archive alone and with a peer.

With --rate-only only figure 1 is measured: `--rate-only --messages 25000` is the flood
that once took the sender out of the room (its self-ping stuck behind the queue); the
figure counts how often either node was out of the room.

Usage: python3 Benchmarks/xmpp/xmpp_bench.py [--canvas PATH] [--points N] [--messages N]
[--rate-only] (build first: swift build -c release). Starts and stops its own Prosody with
scripts/prosody-harness."""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Integration"))
from canvasnode import Node  # noqa: E402
from test_xmpp import Prosody  # noqa: E402


def stroke_messages(author, index, points, rng, append_size):
    """ADD then APPENDs (with offsets) of a random walk of `points` points."""
    x, y = rng.uniform(0, 4000), rng.uniform(0, 4000)
    walk = []
    for _ in range(points):
        x += rng.uniform(-6, 6)
        y += rng.uniform(-6, 6)
        walk.append([round(x, 2), round(y, 2)])
    ident = f"{author}-{index}"
    lines = [{"type": "ADD", "identifier": ident, "weight": 2, "colour": [10, 20, 30], "start": walk[0]}]
    for offset in range(1, points, append_size):
        lines.append({"type": "APPEND", "identifier": ident, "points": walk[offset:offset + append_size],
                      "offset": offset})
    return lines


def feed(node, lines):
    data = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines).encode()
    node.process.stdin.write(data)
    node.process.stdin.flush()


def rate(server, canvas, work, messages):
    room = server.room("bench-rate")
    sender = Node(canvas, "sender", room, server.jid("alice"), server.password_file("alice"), server.env,
                  os.path.join(work, "sender"), extra=["--log-level", "warning"]).start()
    receiver = Node(canvas, "receiver", room, server.jid("bob"), server.password_file("bob"), server.env,
                    os.path.join(work, "receiver"), extra=["--log-level", "warning"]).start()
    sender.wait_joined()
    receiver.wait_joined()
    rng = random.Random(1)
    lines = []
    index = 0
    while len(lines) < messages:
        index += 1
        lines += stroke_messages("rate", index, 17, rng, 4)  # ADD + 4 APPENDs of 4 points
    lines = lines[:messages]
    points = sum(1 if line["type"] == "ADD" else len(line["points"]) for line in lines)
    began = time.monotonic()
    feed(sender, lines)
    receiver.wait_for(lambda: receiver.points() == points, 600, f"{points} points")
    elapsed = time.monotonic() - began
    for node in (sender, receiver):
        node.stop()
    out_of_room = 0
    for node in (sender, receiver):
        with open(node.log_path) as log:
            out_of_room += sum("out of the room" in line for line in log)
    return {"messages": len(lines), "points": points, "seconds": round(elapsed, 3),
            "messages_per_second": round(len(lines) / elapsed), "times_out_of_the_room": out_of_room}


def join_to_synced(server, canvas, work, total_points):
    room = server.room("bench-join")
    writer = Node(canvas, "writer", room, server.jid("carol"), server.password_file("carol"), server.env,
                  os.path.join(work, "writer"), extra=["--log-level", "warning"]).start()
    writer.wait_joined()
    rng = random.Random(2)
    lines = []
    for index in range(1, total_points // 100 + 1):
        lines += stroke_messages("big", index, 100, rng, 99)
    feed(writer, lines)
    writer.wait_for(lambda: writer.points() == total_points, 600, "its points")
    # Every message reflected (and archived) before timing the joiners.
    time.sleep(3)
    results = {"points": total_points, "messages_in_archive": len(lines)}

    with_peer_began = time.monotonic()
    joiner = Node(canvas, "joiner-peer", room, server.jid("dave"), server.password_file("dave"), server.env,
                  os.path.join(work, "joiner-peer"), extra=["--log-level", "warning"]).start()
    joiner.wait_for(lambda: joiner.points() == total_points, 600, "every point")
    results["with_peer_online_seconds"] = round(time.monotonic() - with_peer_began, 3)
    joiner.stop()
    writer.stop()

    alone_began = time.monotonic()
    alone = Node(canvas, "joiner-alone", room, server.jid("erin"), server.password_file("erin"), server.env,
                 os.path.join(work, "joiner-alone"), extra=["--log-level", "warning"]).start()
    alone.wait_for(lambda: alone.points() == total_points, 600, "every point")
    results["archive_only_seconds"] = round(time.monotonic() - alone_began, 3)
    alone.stop()
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--canvas", default=os.path.join(ROOT, ".build", "release", "canvas"))
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=5_000)
    parser.add_argument("--rate-only", action="store_true", help="measure the message rate only")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    server = Prosody("bench", PROSODY_LOG_LEVEL="warn")
    work = tempfile.mkdtemp(prefix="canvas-xmpp-bench-")
    try:
        figures = {"rate": rate(server, args.canvas, work, args.messages)}
        if not args.rate_only:
            figures["join"] = join_to_synced(server, args.canvas, work, args.points)
    finally:
        server.stop()
    print(json.dumps(figures, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
