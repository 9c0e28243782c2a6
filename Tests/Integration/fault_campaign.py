"""A fault campaign on real processes, checked against a model (issue 16, Jepsen-style).

A room of `canvas join` processes, each in a network namespace of its own on a LAN of
bridges (as root: netns.py), with stores on disk and a room key, draws without pause
while a seeded random schedule injects faults:

- SIGKILL of a node, restarted a moment later from its store (at least --min-kills);
- SIGSTOP and, seconds later, SIGCONT (a frozen node);
- a partition: some hosts moved to a second bridge, then back;
- random loss on a host's interfaces (iptables `statistic`);
- a full disk: node 0's store lives on a small tmpfs, filled for a while, then freed.

Then every fault is healed, the nodes must converge, stop cleanly (exit 0), and the checker
reads every store (`canvas export --format ndjson`) and requires:
- every operation any node acknowledged — reported applied as drawn here (`traced`, which
  a node emits only after the operation is durable) — is in every store;
- every store holds the same room (equal digests);
- no node exited except when the schedule killed it.

Every fault window is written, with the seed, to `faults.jsonl` in the work folder, so that a
failure can be replayed (`--seed`). Run by scripts/test in a short form; alone:

    sudo python3 Tests/Integration/fault_campaign.py --canvas .build/debug/canvas --seconds 60 [--seed S]
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
import netns  # noqa: E402
from canvasnode import Node  # noqa: E402

PORT = 47777
ROOM = "campaign"


class CampaignNode(Node):
    """A node with a store on disk, a room key, and operations traced (`--trace-strokes f`)
    so that the campaign knows what it acknowledged; its events are kept across restarts."""

    def __init__(self, canvas, host, name, work, group, key_file, store):
        super().__init__(canvas, name, ROOM, None, None, {}, store, log_dir=os.path.join(work, "logs"))
        self.host, self.group, self.key_file = host, group, key_file
        self.acknowledged = []  # (stroke, offset, points) of operations applied as drawn here
        self.killed = False  # the schedule killed it (its exit is expected)
        self.frozen = False
        self.strokes = 0  # strokes begun here by the campaign
        self.current = None  # (stroke, next offset)

    def command(self):
        return self.host.exec_prefix() + [
            self.canvas, "join", "--room", ROOM, "--store", self.store, "--events-only",
            "started,state,traced,error,lan_started,member_joined,member_left", "--log-level", "info", "--lan",
            "--lan-interface", self.host.interface, "--lan-group", self.group, "--lan-port", str(PORT),
            "--lan-beacon-interval", "0.25", "--lan-key-file", self.key_file, "--trace-strokes", "f"]

    def _read(self, process):
        for raw in process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            event["_time"] = time.monotonic()
            with self.lock:
                self.events.append(event)
                if event.get("event") == "traced" and event.get("author") is None:
                    self.acknowledged.append((event["stroke"], event["offset"], event["points"]))

    def draw_step(self, rng):
        """One line of drawing: a new stroke's ADD, or 3 more points of the current one."""
        if self.current is None or self.current[1] > 40:
            self.strokes += 1
            stroke = f"f{self.name}-{self.strokes}"
            x, y = rng.uniform(0, 1500), rng.uniform(0, 1500)
            line = {"type": "ADD", "identifier": stroke, "weight": 2, "colour": [0, 0, 0], "start": [round(x, 2), round(y, 2)]}
            self.current = (stroke, 1, x, y)
        else:
            stroke, offset, x, y = self.current
            points = []
            for _ in range(3):
                x += rng.uniform(-5, 5)
                y += rng.uniform(-5, 5)
                points.append([round(x, 2), round(y, 2)])
            line = {"type": "APPEND", "identifier": stroke, "points": points, "offset": offset}
            self.current = (stroke, offset + 3, x, y)
        self.send_line(line)


class Campaign:
    def __init__(self, options):
        self.options = options
        self.seed = options.seed if options.seed is not None else random.randrange(1 << 32)
        self.rng = random.Random(self.seed)
        self.work = tempfile.mkdtemp(prefix="canvas-campaign-")
        self.fault_log = open(os.path.join(self.work, "faults.jsonl"), "w")
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.counts = {}
        self.unexpected_exits = []

    def log_fault(self, fault, target, **details):
        entry = {"seed": self.seed, "t": round(time.monotonic() - self.started, 3), "fault": fault, "target": target}
        entry.update(details)
        with self.lock:
            self.fault_log.write(json.dumps(entry) + "\n")
            self.fault_log.flush()
            self.counts[fault] = self.counts.get(fault, 0) + 1

    def run(self):
        options = self.options
        print(f"fault campaign: seed {self.seed} (--seed {self.seed} to replay), work in {self.work}", flush=True)
        self.lan = netns.LAN()
        try:
            return self._run()
        finally:
            for node in getattr(self, "nodes", []):
                if node.process and node.process.poll() is None:
                    if node.frozen:
                        node.process.send_signal(signal.SIGCONT)
                    node.kill()
            if getattr(self, "disk", None):
                subprocess.run(["umount", "-l", self.disk], check=False)
            self.lan.close()

    def _run(self):
        options = self.options
        hosts = self.lan.add_hosts(options.nodes)
        self.second_bridge = self.lan.add_bridge("b2")
        group = f"239.255.{self.rng.randrange(1, 255)}.{self.rng.randrange(1, 255)}"
        key_file = os.path.join(self.work, "room.key")
        with open(key_file, "wb") as f:
            f.write(bytes(self.rng.randrange(256) for _ in range(32)))
        # Node 0's store on a small tmpfs, which the disk fault fills.
        self.disk = os.path.join(self.work, "disk0")
        os.makedirs(self.disk)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", self.disk], check=True)
        self.nodes = []
        for index, host in enumerate(hosts):
            store = os.path.join(self.disk, "store") if index == 0 else os.path.join(self.work, f"n{index}")
            self.nodes.append(CampaignNode(options.canvas, host, f"n{index}", self.work, group, key_file, store))
        for node in self.nodes:
            node.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(n.has("lan_started") for n in self.nodes):
            time.sleep(0.1)

        stop = threading.Event()
        drawer = threading.Thread(target=self.draw, args=(stop,), daemon=True)
        watcher = threading.Thread(target=self.watch, args=(stop,), daemon=True)
        drawer.start()
        watcher.start()
        active = {}  # fault windows open: key → (heal function, end time)
        kills = 0
        end = time.monotonic() + options.seconds
        while time.monotonic() < end or kills < options.min_kills:
            if time.monotonic() > end + options.seconds * 4:
                break  # a slow machine: the checker reports the kills that were made
            now = time.monotonic()
            for key, (heal, until) in list(active.items()):
                if now >= until:
                    heal()
                    del active[key]
            kills += self.inject(active)
            time.sleep(self.rng.uniform(0.1, 0.4))
        for heal, _ in list(active.values()):
            heal()
        active.clear()
        stop.set()
        drawer.join()
        self.log_fault("healed", "all")
        return self.check(kills)

    def inject(self, active):
        """Starts one fault chosen at random (the first is always a full disk, so that every
        campaign has one); returns 1 for a kill."""
        choice = self.rng.random() if self.counts.get("disk_full") else 1.0
        node = self.rng.choice(self.nodes)
        if choice < 0.55:
            if node.frozen or node.process.poll() is not None or ("stop", node.name) in active:
                return 0
            node.killed = True
            node.process.send_signal(signal.SIGKILL)
            node.process.wait()
            node._close()
            self.log_fault("kill", node.name)
            time.sleep(self.rng.uniform(0.05, 0.5))
            node.start()
            node.killed = False  # only now: the watcher must not take the old process's exit for a crash
            self.log_fault("restart", node.name)
            return 1
        if choice < 0.7 and ("stop", node.name) not in active and node.process.poll() is None:
            node.frozen = True
            node.process.send_signal(signal.SIGSTOP)
            seconds = self.rng.uniform(0.5, 3)
            self.log_fault("stop", node.name, seconds=round(seconds, 2))

            def resume(node=node):
                node.process.send_signal(signal.SIGCONT)
                node.frozen = False
                self.log_fault("cont", node.name)
            active[("stop", node.name)] = (resume, time.monotonic() + seconds)
            return 0
        if choice < 0.82 and "partition" not in active:
            moved = self.rng.sample([n.host for n in self.nodes], k=len(self.nodes) // 2)
            self.lan.move(moved, self.second_bridge)
            seconds = self.rng.uniform(1, 4)
            self.log_fault("partition", [h.namespace for h in moved], seconds=round(seconds, 2))

            def heal(moved=moved):
                self.lan.move(moved, "br0")
                self.log_fault("partition_healed", [h.namespace for h in moved])
            active["partition"] = (heal, time.monotonic() + seconds)
            return 0
        if choice < 0.94 and ("loss", node.name) not in active:
            probability = round(self.rng.uniform(0.1, 0.4), 2)
            node.host.drop_randomly(probability)
            seconds = self.rng.uniform(1, 4)
            self.log_fault("loss", node.name, probability=probability, seconds=round(seconds, 2))

            def heal(node=node):
                node.host.iptables("-F", "INPUT")
                self.log_fault("loss_healed", node.name)
            active[("loss", node.name)] = (heal, time.monotonic() + seconds)
            return 0
        if "disk" not in active:
            filler = os.path.join(self.disk, "filler")
            subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k", "count=1000"], capture_output=True)
            seconds = self.rng.uniform(1, 3)
            self.log_fault("disk_full", "n0", seconds=round(seconds, 2))

            def heal(filler=filler):
                os.remove(filler)
                self.log_fault("disk_freed", "n0")
            active["disk"] = (heal, time.monotonic() + seconds)
        return 0

    def draw(self, stop):
        rng = random.Random(self.seed + 1)
        while not stop.is_set():
            for node in self.nodes:
                if node.process and node.process.poll() is None and not node.killed:
                    try:
                        node.draw_step(rng)
                    except (BrokenPipeError, OSError, ValueError):
                        pass  # killed meanwhile: what it did not acknowledge is not owed
            time.sleep(0.05)

    def watch(self, stop):
        """Records every exit the schedule did not cause."""
        while not stop.is_set():
            for node in self.nodes:
                code = node.process.poll() if node.process else None
                if code is not None and not node.killed:
                    self.unexpected_exits.append((node.name, code, node.log_path))
                    node.killed = True  # reported once; restarted to go on
                    node._close()
                    node.start()
                    node.killed = False
            time.sleep(0.1)

    def check(self, kills):
        options = self.options
        failures = []
        # Converged: equal digests, stable for 2 s.
        agreed, since = None, None
        deadline = time.monotonic() + options.converge_timeout
        while time.monotonic() < deadline:
            digests = {node.digest() for node in self.nodes}
            if len(digests) == 1 and None not in digests:
                digest = digests.pop()
                if digest != agreed:
                    agreed, since = digest, time.monotonic()
                elif time.monotonic() - since >= 2:
                    break
            else:
                agreed = None
            time.sleep(0.2)
        else:
            failures.append(f"the nodes did not converge within {options.converge_timeout} s after the faults: "
                            f"{ {n.name: n.digest() for n in self.nodes} }")
        converged_after = time.monotonic()
        for node in self.nodes:
            node.killed = True  # stopping now: exits are expected
            node.process.send_signal(signal.SIGTERM)
        for node in self.nodes:
            code = node.process.wait(timeout=60)
            node._close()
            if code != 0:
                failures.append(f"{node.name} exited with {code} on SIGTERM; log {node.log_path}")
        for name, code, log in self.unexpected_exits:
            failures.append(f"{name} exited with {code} although nobody killed it; log {log}")

        acknowledged = [(node.name, op) for node in self.nodes for op in node.acknowledged]
        stores = {}
        for node in self.nodes:
            result = subprocess.run([options.canvas, "export", "--store", node.store, "--room", ROOM, "--format", "ndjson",
                                     "--output", "-"], capture_output=True, text=True)
            if result.returncode != 0:
                failures.append(f"canvas export of {node.name}'s store failed: {result.stderr.strip()}")
                continue
            points = {}
            for line in result.stdout.splitlines():
                operation = json.loads(line)
                identifier = operation.get("identifier")
                if operation["type"] == "ADD":
                    points[identifier] = max(points.get(identifier, 0), 1)
                elif operation["type"] == "APPEND":
                    end = operation["offset"] + len(operation["points"])
                    points[identifier] = max(points.get(identifier, 0), end)
            stores[node.name] = points
        missing = 0
        for author, (stroke, offset, count) in acknowledged:
            for name, points in stores.items():
                if points.get(stroke, 0) < offset + max(count, 1):
                    missing += 1
                    if missing <= 5:
                        failures.append(f"{stroke} [{offset}, +{count}] acknowledged by {author} is missing from {name}'s store")
        if len({json.dumps(sorted(points.items())) for points in stores.values()}) > 1:
            failures.append("the stores hold different rooms")
        summary = {
            "seed": self.seed, "seconds": round(converged_after - self.started, 1), "nodes": len(self.nodes),
            "faults": sum(v for k, v in self.counts.items() if k in ("kill", "stop", "partition", "loss", "disk_full")),
            "by_kind": self.counts, "kills": kills, "operations_acknowledged": len(acknowledged),
            "operations_checked": len(acknowledged) * len(stores), "missing": missing,
            "unexpected_exits": len(self.unexpected_exits), "fault_log": self.fault_log.name,
        }
        print("fault campaign: " + json.dumps(summary), flush=True)
        if kills < options.min_kills:
            failures.append(f"only {kills} kills (at least {options.min_kills} asked)")
        return failures


def main():
    parser = argparse.ArgumentParser(description="A seeded fault campaign on real canvas join processes, with a checker.")
    parser.add_argument("--canvas", default=os.environ.get("CANVAS_BIN", ".build/debug/canvas"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--min-kills", type=int, default=100)
    parser.add_argument("--converge-timeout", type=float, default=120)
    parser.add_argument("--seed", type=int)
    options = parser.parse_args()
    options.canvas = os.path.abspath(options.canvas)
    reason = netns.unavailable_reason() or netns.iptables_reason()
    if reason:
        print(f"fault campaign skipped: {reason}")
        return 0
    failures = Campaign(options).run()
    for failure in failures:
        print(f"FAIL: {failure}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
