"""A fault campaign on real processes, checked against a model (issue 16, Jepsen-style).

A room of `canvas join` processes, each in a network namespace of its own on a LAN of
bridges (as root: netns.py), with stores on disk and a room key, draws without pause
while a seeded random schedule injects faults. The nodes form two LAN groups (their own
multicast groups and ports), bridged through a real Prosody in a namespace of its own on
the same LAN: every node has an XMPP account, and each group elects its gateway. The faults:

- SIGKILL of a node, restarted a moment later from its store (at least --min-kills); some
  are aimed at a compaction: the nodes compact often (--compact-log-bytes, --compact-ratio), a
  thread watches the stores for a compaction's `snapshot.tmp` or the log a background
  compaction set aside (`operations.log.old`) and kills its node then (the restarted node's
  report of an unfinished snapshot it removed, or of a set-aside log it read, confirms the hit);
- SIGSTOP and, seconds later, SIGCONT (a frozen node);
- the XMPP server killed (SIGKILL) and, seconds later, restarted with its data;
- a partition: some hosts moved to a second bridge (cut from the server too), then back;
- random loss on a host's interfaces (iptables `statistic`);
- a full disk: node 0's store lives on a small tmpfs, filled for a while, then freed;
- a node's wall clock jumping, forward or back by up to a day, and later back again
  (libfaketime; the server's certificates are made valid from 2 days ago, as a real
  server's are: a clock that jumps back must not meet a certificate not yet valid).

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
import glob
import json
import os
import random
import shutil
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
FAKETIME_LIBRARY = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "prosody-harness")
FAULTS = ("kill", "stop", "xmpp_kill", "partition", "loss", "disk_full", "clock_jump")  # what starts a fault window
STORE_OUTAGE = "further refusals are counted"  # what a node logs when its store starts refusing writes
STORE_RECOVERED = "the room's store is written again"
USERS = ("alice", "bob", "carol", "dave", "erin", "mallory")


class Server:
    """The room's Prosody, in a namespace of its own on the LAN (scripts/prosody-harness)."""

    def __init__(self, host, work):
        self.host, self.dir = host, os.path.join(work, "prosody")
        self.env = None
        # A room history of 20 messages on joining, Prosody's default (the harness's 1,000
        # suits the original app's tests): the gateways change often, and each join would
        # make the server send 1,000 messages (nodes catch up from the archive anyway).
        self._harness("start", CERT_BACKDATE_DAYS="2", PROSODY_C2S_INTERFACES=host.address, PROSODY_MUC_HISTORY="20")

    def _harness(self, verb, **settings):
        result = subprocess.run(self.host.exec_prefix() + ["env"] + [f"{k}={v}" for k, v in settings.items()]
                                + [HARNESS, verb, self.dir], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"prosody-harness {verb} failed:\n{result.stdout}\n{result.stderr}")
        with open(os.path.join(self.dir, "env")) as f:
            self.env = dict(line.strip().split("=", 1) for line in f if "=" in line and not line.startswith("#"))

    def kill(self):
        os.kill(int(self.env["SERVER_PID"]), signal.SIGKILL)

    def restart(self):
        self._harness("restart")

    def password_file(self, user):
        path = os.path.join(self.dir, f"{user}.password")
        with open(path, "w") as f:
            f.write(f"{user}-pw\n")
        return path


class CampaignNode(Node):
    """A node with a store on disk, a room key, and operations traced (`--trace-strokes f`)
    so that the campaign knows what it acknowledged; its events are kept across restarts."""

    def __init__(self, canvas, host, name, work, lan, key_file, store, server, user, options):  # noqa: PLR0913
        room = f"campaign@{server.env['MUC_SERVICE']}"
        super().__init__(canvas, name, room, f"{user}@{server.env['XMPP_DOMAIN']}", server.password_file(user), server.env,
                         store, log_dir=os.path.join(work, "logs"))
        self.host, self.key_file, self.server, self.options = host, key_file, server, options
        self.group, self.port = lan  # the LAN group's multicast address and port
        self.clock_file = os.path.join(work, f"{name}.clock")  # libfaketime's offset: "+0", "-3600"…
        with open(self.clock_file, "w") as f:
            f.write("+0\n")
        self.clock_offset = 0
        # The store's room folder: the room's name with '@' percent-encoded (docs/store.md).
        folder = os.path.join(store, "rooms", room.replace("@", "%40"))
        self.compaction_files = [os.path.join(folder, name) for name in ("snapshot.tmp", "operations.log.old")]
        self.acknowledged = []  # (stroke, offset, points) of operations applied as drawn here
        self.killed = False  # the schedule killed it (its exit is expected)
        self.frozen = False
        self.strokes = 0  # strokes begun here by the campaign
        self.current = None  # (stroke, next offset)

    def command(self):
        # The wall clock only (CLOCK_MONOTONIC stays true, as under an NTP step), its offset
        # read from clock_file at most once a second. libfaketime adds FAKETIME_SHARED (its
        # shared memory) to a process's environment at start-up unless it is there, and a
        # Swift program whose environment moved that early finds no command-line arguments:
        # a shell started under libfaketime gets it, and execs the node (same PID) with it.
        clock = ["env", f"LD_PRELOAD={FAKETIME_LIBRARY}", f"FAKETIME_TIMESTAMP_FILE={self.clock_file}",
                 "FAKETIME_DONT_FAKE_MONOTONIC=1", "FAKETIME_CACHE_DURATION=1", "sh", "-c", 'exec "$0" "$@"']
        return self.host.exec_prefix() + clock + [
            self.canvas, "join", "--room", self.rooms[0], "--store", self.store, "--events-only",
            "started,state,traced,error,lan_started,member_joined,member_left,gateway,joined", "--log-level", "info",
            "--jid", self.jid, "--password-file", self.password_file, "--host", self.server.host.address,
            "--port", self.server.env["XMPP_PORT"], "--ca-file", self.server.env["CA_FILE"], "--lan",
            "--lan-interface", self.host.interface, "--lan-group", self.group, "--lan-port", str(self.port),
            "--lan-beacon-interval", "0.25", "--lan-key-file", self.key_file, "--trace-strokes", "f",
            "--compact-log-bytes", str(self.options.compact_log_bytes), "--compact-ratio", str(self.options.compact_ratio)]

    def set_clock(self, offset):
        """Sets the node's wall clock `offset` seconds from the real one (read within 1 s)."""
        with open(self.clock_file + ".new", "w") as f:
            f.write(f"{offset:+d}\n")
        os.replace(self.clock_file + ".new", self.clock_file)
        self.clock_offset = offset

    def compacting(self):
        """Whether a compaction of the node's store is under way (its snapshot.tmp, or the log a
        background compaction set aside, exists)."""
        return any(os.path.exists(path) for path in self.compaction_files)

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
        self.wall_started = time.time() - 1
        self.lock = threading.Lock()
        self.fault_lock = threading.Lock()  # one fault at a time acts on the nodes
        self.counts = {}
        self.kills = 0
        self.unexpected_exits = []

    def log_fault(self, fault, target, **details):
        entry = {"seed": self.seed, "t": round(time.monotonic() - self.started, 3), "fault": fault, "target": target}
        entry.update(details)
        with self.lock:
            self.fault_log.write(json.dumps(entry) + "\n")
            self.fault_log.flush()
            self.counts[fault] = self.counts.get(fault, 0) + 1

    def run(self):
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
            # libfaketime's shared memory, one pair per node started (never removed by it).
            for leftover in glob.glob("/dev/shm/faketime_shm_*") + glob.glob("/dev/shm/sem.faketime_sem_*"):
                try:
                    if os.path.getmtime(leftover) >= self.wall_started:
                        os.remove(leftover)
                except OSError:
                    pass
            self.lan.close()  # the server too: it runs in one of the namespaces

    def _run(self):
        options = self.options
        hosts = self.lan.add_hosts(options.nodes)
        self.server = Server(self.lan.add_host(), self.work)
        self.second_bridge = self.lan.add_bridge("b2")
        # Two LAN groups, each on a multicast group and port of its own; the server bridges them.
        lans = [(f"239.255.{self.rng.randrange(1, 255)}.{self.rng.randrange(1, 255)}", PORT + i) for i in range(2)]
        key_file = os.path.join(self.work, "room.key")
        with open(key_file, "wb") as f:
            f.write(bytes(self.rng.randrange(256) for _ in range(32)))
        # Node 0's store on a small tmpfs, which the disk fault fills.
        self.disk = os.path.join(self.work, "disk0")
        os.makedirs(self.disk)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={options.disk_mb}m", "tmpfs", self.disk], check=True)
        self.nodes = []
        for index, host in enumerate(hosts):
            store = os.path.join(self.disk, "store") if index == 0 else os.path.join(self.work, f"n{index}")
            lan = lans[0] if index < (options.nodes + 1) // 2 else lans[1]
            self.nodes.append(CampaignNode(options.canvas, host, f"n{index}", self.work, lan, key_file, store,
                                           self.server, USERS[index], options))
        for node in self.nodes:
            node.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(n.has("lan_started") for n in self.nodes):
            time.sleep(0.1)

        stop = threading.Event()
        threads = [threading.Thread(target=work, args=(stop,), daemon=True) for work in (self.draw, self.watch, self.snipe)]
        for thread in threads:
            thread.start()
        active = {}  # fault windows open: key → (heal function, end time)
        end = time.monotonic() + options.seconds
        while time.monotonic() < end or self.kills < options.min_kills:
            if time.monotonic() > end + options.seconds * 4:
                break  # a slow machine: the checker reports the kills that were made
            with self.fault_lock:
                now = time.monotonic()
                for key, (heal, until) in list(active.items()):
                    if now >= until:
                        heal()
                        del active[key]
                self.inject(active)
            time.sleep(self.rng.uniform(*options.fault_interval))
        stop.set()
        for thread in threads:
            thread.join()
        for heal, _ in list(active.values()):
            heal()
        active.clear()
        self.log_fault("healed", "all")
        return self.check()

    def kill(self, node, **details):
        """SIGKILL, then a restart from the store a moment later (the caller holds fault_lock)."""
        node.killed = True
        node.process.send_signal(signal.SIGKILL)
        node.process.wait()
        node._close()
        self.log_fault("kill", node.name, **details)
        time.sleep(self.rng.uniform(0.05, 0.5))
        node.start()
        node.killed = False  # only now: the watcher must not take the old process's exit for a crash
        self.log_fault("restart", node.name)
        self.kills += 1

    def inject(self, active):
        """Starts one fault chosen at random (the first is always a full disk, so that every
        campaign has one)."""
        choice = self.rng.random() if self.counts.get("disk_full") else 1.0
        node = self.rng.choice(self.nodes)
        running = node.process.poll() is None and not node.frozen
        if choice < 0.5:
            if running and ("stop", node.name) not in active:
                self.kill(node)
            return
        if choice < 0.6:
            if running and ("stop", node.name) not in active:
                node.frozen = True
                node.process.send_signal(signal.SIGSTOP)
                seconds = self.rng.uniform(0.5, 3)
                self.log_fault("stop", node.name, seconds=round(seconds, 2))

                def resume(node=node):
                    node.process.send_signal(signal.SIGCONT)
                    node.frozen = False
                    self.log_fault("cont", node.name)
                active[("stop", node.name)] = (resume, time.monotonic() + seconds)
            return
        if choice < 0.65:
            if "xmpp" not in active:
                self.server.kill()
                seconds = self.rng.uniform(0.5, 5)
                self.log_fault("xmpp_kill", "server", seconds=round(seconds, 2))

                def restart():
                    self.server.restart()
                    self.log_fault("xmpp_restart", "server")
                active["xmpp"] = (restart, time.monotonic() + seconds)
            return
        if choice < 0.75:
            if "partition" not in active:
                moved = self.rng.sample([n.host for n in self.nodes], k=len(self.nodes) // 2)
                self.lan.move(moved, self.second_bridge)
                seconds = self.rng.uniform(1, 4)
                self.log_fault("partition", [h.namespace for h in moved], seconds=round(seconds, 2))

                def heal(moved=moved):
                    self.lan.move(moved, "br0")
                    self.log_fault("partition_healed", [h.namespace for h in moved])
                active["partition"] = (heal, time.monotonic() + seconds)
            return
        if choice < 0.85:
            if ("loss", node.name) not in active:
                probability = round(self.rng.uniform(0.1, 0.4), 2)
                node.host.drop_randomly(probability)
                seconds = self.rng.uniform(1, 4)
                self.log_fault("loss", node.name, probability=probability, seconds=round(seconds, 2))

                def heal(node=node):
                    node.host.iptables("-F", "INPUT")
                    self.log_fault("loss_healed", node.name)
                active[("loss", node.name)] = (heal, time.monotonic() + seconds)
            return
        if choice < 0.94:
            if ("clock", node.name) not in active:
                # A step of up to a minute, an hour or a day, forward or back (an NTP step, a
                # wrong manual setting), for a few seconds; then the right time again.
                offset = int(self.rng.choice((60, 3600, 86400)) * self.rng.uniform(0.1, 1)) * self.rng.choice((1, -1))
                node.set_clock(offset)
                seconds = self.rng.uniform(2, 10)
                self.log_fault("clock_jump", node.name, offset=offset, seconds=round(seconds, 2))

                def heal(node=node):
                    node.set_clock(0)
                    self.log_fault("clock_restored", node.name)
                active[("clock", node.name)] = (heal, time.monotonic() + seconds)
            return
        if "disk" not in active:
            filler = os.path.join(self.disk, "filler")
            subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=1M"], capture_output=True)  # until ENOSPC
            seconds = self.rng.uniform(1, 3)
            self.log_fault("disk_full", "n0", seconds=round(seconds, 2))

            def heal(filler=filler):
                os.remove(filler)
                self.log_fault("disk_freed", "n0")
            active["disk"] = (heal, time.monotonic() + seconds)

    def snipe(self, stop):
        """Kills nodes in the middle of a compaction: watches every store for a compaction's
        snapshot.tmp and, for a share of them, kills the node at once."""
        rng = random.Random(self.seed + 2)
        seen = set()  # nodes whose current compaction was already considered
        while not stop.is_set():
            for node in self.nodes:
                if not node.compacting():
                    seen.discard(node.name)
                    continue
                if node.name in seen:
                    continue
                seen.add(node.name)
                if rng.random() >= self.options.compaction_kill_share or not self.fault_lock.acquire(blocking=False):
                    continue
                try:
                    if node.process.poll() is None and not node.frozen and not node.killed:
                        self.kill(node, during="compaction")
                finally:
                    self.fault_lock.release()
            time.sleep(0.001)

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

    def check(self):
        options = self.options
        failures = []
        # Converged: equal digests, stable for 2 s.
        agreed, since = None, None
        healed = time.monotonic()
        deadline = healed + options.converge_timeout
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
            result = subprocess.run([options.canvas, "export", "--store", node.store, "--room", node.rooms[0], "--format", "ndjson",
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
        # Kills that hit a compaction: the restarted node removed the unfinished snapshot.tmp,
        # or read the log a background compaction had set aside.
        # A full disk is said once an outage, and its end too.
        interrupted, outages, recoveries = 0, 0, 0
        for log in glob.glob(os.path.join(self.work, "logs", "*.log")):
            with open(log, errors="replace") as f:
                for line in f:
                    interrupted += ("removed an unfinished snapshot.tmp" in line
                                    or "unfinished compaction's operations.log.old" in line)
                    outages += STORE_OUTAGE in line
                    recoveries += STORE_RECOVERED in line
        # The last process of node 0 ran until the end, after the disk was freed: an outage it
        # saw must have ended.
        with open(self.nodes[0].log_path, errors="replace") as f:
            said = [line for line in f if STORE_OUTAGE in line or STORE_RECOVERED in line]
        if said and STORE_OUTAGE in said[-1]:
            failures.append(f"n0's store outage never ended although the disk was freed: {said[-1].strip()}")
        store_bytes = max(sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(node.store)
                              for name in names) for node in self.nodes)
        summary = {
            "seed": self.seed, "seconds": round(converged_after - self.started, 1), "nodes": len(self.nodes),
            "converged_seconds_after_healing": round(since - healed, 1) if agreed else None,
            "faults": sum(v for k, v in self.counts.items() if k in FAULTS),
            "by_kind": self.counts, "kills": self.kills,
            "kills_aimed_at_compactions": sum(1 for _ in self._faults(fault="kill", during="compaction")),
            "compactions_interrupted": interrupted, "store_outages": outages, "store_recoveries": recoveries,
            "largest_store_bytes": store_bytes,
            "operations_acknowledged": len(acknowledged),
            "operations_checked": len(acknowledged) * len(stores), "missing": missing,
            "unexpected_exits": len(self.unexpected_exits),
        }
        print("fault campaign: " + json.dumps(summary), flush=True)
        if self.kills < options.min_kills:
            failures.append(f"only {self.kills} kills (at least {options.min_kills} asked)")
        return failures

    def _faults(self, **fields):
        """The fault log's entries that have these fields."""
        with open(self.fault_log.name) as f:
            for line in f:
                entry = json.loads(line)
                if all(entry.get(k) == v for k, v in fields.items()):
                    yield entry


def faketime_reason():
    """Why a node's clock cannot be made to jump here (libfaketime is installed by scripts/test)."""
    if not os.path.exists(FAKETIME_LIBRARY):
        return f"{FAKETIME_LIBRARY} is missing (apt-get install libfaketime)"
    return None


def main():
    parser = argparse.ArgumentParser(description="A seeded fault campaign on real canvas join processes, with a checker.")
    parser.add_argument("--canvas", default=os.environ.get("CANVAS_BIN", ".build/debug/canvas"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--min-kills", type=int, default=100)
    parser.add_argument("--converge-timeout", type=float, default=120)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--compact-log-bytes", type=int, default=32768,
                        help="the nodes compact when their log passes this and --compact-ratio times the snapshot")
    # Not 0 (compact by size alone): a compaction rewrites the whole room, and after every
    # 32 KiB of log that cost grows with the room: hour-long rooms of 9-15 MB spent most of
    # their time compacting (then on the node's loop), and their repairs crawled (docs/testing.md).
    parser.add_argument("--compact-ratio", type=int, default=1,
                        help="the nodes compact when their log passes this many times the snapshot (default 1: "
                             "often while the room is small, and never more than the room's own growth)")
    parser.add_argument("--compaction-kill-share", type=float, default=1.0,
                        help="the share of compactions seen under way whose node is killed then")
    parser.add_argument("--fault-interval", type=float, nargs=2, default=(0.1, 0.4), metavar=("MIN", "MAX"),
                        help="seconds between two faults, drawn uniformly (default 0.1 0.4)")
    parser.add_argument("--disk-mb", type=int, help="node 0's tmpfs (default: 16 MiB, and 4 MiB more a minute)")
    options = parser.parse_args()
    if not 2 <= options.nodes <= len(USERS):
        parser.error(f"--nodes must be 2 to {len(USERS)} (one XMPP account each)")
    if options.disk_mb is None:
        options.disk_mb = 16 + int(4 * options.seconds / 60)
    options.canvas = os.path.abspath(options.canvas)
    reason = netns.unavailable_reason() or netns.iptables_reason() or faketime_reason()
    if reason:
        print(f"fault campaign skipped: {reason}")
        return 0
    # SIGTERM (a CI timeout) ends the run through its cleanup: namespaces, the tmpfs, the processes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    campaign = Campaign(options)
    failures = campaign.run()
    campaign.fault_log.close()
    for failure in failures:
        print(f"FAIL: {failure}", flush=True)
    if failures:
        print(f"the campaign's work folder (fault log, node logs) is kept: {campaign.work}", flush=True)
        return 1
    shutil.rmtree(campaign.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
