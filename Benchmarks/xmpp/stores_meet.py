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
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS = os.path.join(ROOT, "scripts", "prosody-harness")
USERS = ("alice", "bob", "carol", "dave", "erin", "mallory")


class StoreNode:
    """A `canvas join` on a copy of a store; follows its `state` events."""

    def __init__(self, options, work, server, group, index, store, lan_port):
        self.name = f"group{group}-{os.path.basename(os.path.normpath(store))}"
        self.copy = os.path.join(work, self.name)
        shutil.copytree(store, self.copy)
        user = USERS[index]
        password = os.path.join(work, f"{user}.password")
        with open(password, "w") as f:
            f.write(f"{user}-pw\n")
        command = [options.canvas, "join", "--room", options.room, "--store", self.copy,
                   "--jid", f"{user}@{server['XMPP_DOMAIN']}", "--password-file", password,
                   "--host", server["XMPP_HOST"], "--port", server["XMPP_PORT"], "--ca-file", server["CA_FILE"],
                   "--events-only", "state", "--log-level", "info"] + shlex.split(options.node_args)
        if lan_port is not None:
            command += ["--lan", "--lan-interface", "lo", "--lan-port", str(lan_port), "--lan-group", "239.255.9.9",
                        "--lan-beacon-interval", str(options.beacon_interval), "--lan-key-file",
                        os.path.join(work, "room.key")]
        self.log = open(os.path.join(work, f"{self.name}.log"), "w")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.PIPE,
                                        text=True)
        self.digest, self.strokes, self.points = None, 0, 0
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self):
        for line in self.process.stdout:
            event = json.loads(line)
            if event.get("event") == "state":
                self.digest, self.strokes, self.points = event["digest"], event["strokes"], event["points"]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)
        self.log.close()


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
    subprocess.run([HARNESS, "start", os.path.join(work, "prosody")], check=True, capture_output=True,
                   env=dict(os.environ, PROSODY_MUC_HISTORY="20"))
    with open(os.path.join(work, "prosody", "env")) as f:
        server = dict(line.strip().split("=", 1) for line in f if "=" in line and not line.startswith("#"))
    nodes, groups = [], []
    try:
        started = time.monotonic()
        for number, stores in enumerate(options.group):
            port = 47901 + number if len(stores) > 1 else None
            group = [StoreNode(options, work, server, number, len(nodes) + i, store, port) for i, store in enumerate(stores)]
            nodes += group
            groups.append(group)
        reported = 0.0
        while time.monotonic() - started < options.timeout:
            digests = {node.digest for node in nodes}
            elapsed = time.monotonic() - started
            if len(digests) == 1 and None not in digests:
                print(f"converged after {elapsed:.1f} s: {nodes[0].strokes} strokes, {nodes[0].points} points "
                      f"(work in {work})", flush=True)
                return 0
            if elapsed - reported >= 5:
                reported = elapsed
                print(f"{elapsed:6.1f} s: strokes per group "
                      + " | ".join(" ".join(str(node.strokes) for node in group) for group in groups), flush=True)
            time.sleep(0.2)
        print(f"not converged within {options.timeout} s (work in {work})", flush=True)
        return 1
    finally:
        for node in nodes:
            node.stop()
        subprocess.run([HARNESS, "stop", os.path.join(work, "prosody")], capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
