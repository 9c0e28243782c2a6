"""Stores that drifted apart meet again: how long until the nodes holding them converge.

Each `--group STORE [STORE ...]` is one LAN group (its own multicast port on loopback, a
room key shared by all); every node also joins the room `--room` on a fresh Prosody on
loopback (scripts/prosody-harness), so the groups reach each other only through the
server. A group of one store is a node with XMPP alone. The stores are copied first: the
originals stay as they were. It prints each group's strokes every 5 s and the time to
equal digests (docs/testing.md used it on a fault campaign's stores: what its compaction
policy cost).

Usage: python3 Benchmarks/xmpp/stores_meet.py --room campaign@rooms.localhost
    --group n1 n2 --group n3 n4 [--canvas PATH] [--node-args "--compact-ratio 0 ..."]
where each STORE is a node's store folder (the one holding rooms/)."""

import argparse
import os
import shlex
import shutil
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Integration"))
from canvasnode import Node  # noqa: E402
from test_xmpp import Prosody  # noqa: E402

USERS = ("alice", "bob", "carol", "dave", "erin", "mallory")


class StoreNode(Node):
    """A `canvas join` on a copy of a store, in the room on `server` and, with `lan_port`,
    in a keyed LAN group on loopback; it reports only its `state` events (so that a repair
    of thousands of strokes is not slowed by printing one event per operation)."""

    def __init__(self, options, work, server, group, user, store, lan_port):  # noqa: PLR0913
        name = f"group{group}-{os.path.basename(os.path.normpath(store))}"
        copy = os.path.join(work, name)
        shutil.copytree(store, copy)
        super().__init__(options.canvas, name, options.room, server.jid(user), server.password_file(user), server.env,
                         copy, log_dir=work)
        self.options, self.work, self.lan_port = options, work, lan_port

    def command(self):
        args = [self.canvas, "join", "--room", self.rooms[0], "--store", self.store, "--jid", self.jid,
                "--password-file", self.password_file, "--host", self.env["XMPP_HOST"], "--port", self.env["XMPP_PORT"],
                "--ca-file", self.env["CA_FILE"], "--events-only", "state", "--log-level", "info"]
        if self.lan_port is not None:
            args += ["--lan", "--lan-interface", "lo", "--lan-port", str(self.lan_port), "--lan-group", "239.255.9.9",
                     "--lan-beacon-interval", str(self.options.beacon_interval), "--lan-key-file",
                     os.path.join(self.work, "room.key")]
        return args + shlex.split(self.options.node_args)

    def strokes(self):
        event = self.last("state")
        return event["strokes"] if event else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--canvas", default=os.path.join(ROOT, ".build", "debug", "canvas"))
    parser.add_argument("--room", required=True)
    parser.add_argument("--group", nargs="+", action="append", required=True, metavar="STORE")
    parser.add_argument("--node-args", default="", help="more `canvas join` options for every node")
    parser.add_argument("--beacon-interval", type=float, default=0.25)
    parser.add_argument("--timeout", type=float, default=300)
    options = parser.parse_args()
    if sum(len(g) for g in options.group) > len(USERS):
        parser.error(f"at most {len(USERS)} stores (one XMPP account each)")
    work = tempfile.mkdtemp(prefix="canvas-stores-meet-")
    with open(os.path.join(work, "room.key"), "wb") as f:
        f.write(os.urandom(32))
    server = Prosody("stores-meet", PROSODY_MUC_HISTORY="20")
    nodes, groups = [], []
    try:
        started = time.monotonic()
        for number, stores in enumerate(options.group):
            port = 47901 + number if len(stores) > 1 else None
            group = [StoreNode(options, work, server, number, USERS[len(nodes) + i], store, port).start()
                     for i, store in enumerate(stores)]
            nodes += group
            groups.append(group)
        reported = 0.0
        while time.monotonic() - started < options.timeout:
            digests = {node.digest() for node in nodes}
            elapsed = time.monotonic() - started
            if len(digests) == 1 and None not in digests:
                print(f"converged after {elapsed:.1f} s: {nodes[0].strokes()} strokes, {nodes[0].points()} points "
                      f"(work in {work})", flush=True)
                return 0
            if elapsed - reported >= 5:
                reported = elapsed
                print(f"{elapsed:6.1f} s: strokes per group "
                      + " | ".join(" ".join(str(node.strokes()) for node in group) for group in groups), flush=True)
            time.sleep(0.2)
        print(f"not converged within {options.timeout} s (work in {work})", flush=True)
        return 1
    finally:
        for node in nodes:
            node.stop(timeout=60)
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
