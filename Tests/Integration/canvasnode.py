"""Drives `canvas join` processes for the integration tests: start, draw through
standard input, read the NDJSON events, stop or kill."""

import json
import os
import random
import re
import signal
import subprocess
import threading
import time


class Node:
    """One `canvas join` process and the events it printed."""

    def __init__(self, canvas, name, rooms, jid, password_file, env, store, extra=(), log_dir=None, room_flags=True):
        self.canvas = canvas
        self.name = name
        self.rooms = rooms if isinstance(rooms, list) else [rooms]
        self.jid = jid
        self.password_file = password_file
        self.env = env
        self.store = store
        self.extra = list(extra)
        self.room_flags = room_flags  # False: the rooms come from a --config file
        self.log_dir = log_dir or store
        self.events = []
        self.lock = threading.Lock()
        self.process = None
        self.starts = 0
        # Cleared, the reader stops taking the process's output (a reader that falls behind).
        self.reading = threading.Event()
        self.reading.set()

    def command(self):
        args = [self.canvas, "join", "--jid", self.jid, "--password-file", self.password_file,
                "--host", self.env["XMPP_HOST"], "--port", self.env["XMPP_PORT"],
                "--ca-file", self.env["CA_FILE"], "--store", self.store, "--events", "--log-level", "debug"]
        for room in self.rooms if self.room_flags else []:
            args += ["--room", room]
        return args + self.extra

    def start(self):
        self.starts += 1
        os.makedirs(self.log_dir, exist_ok=True)
        self.log_path = os.path.join(self.log_dir, f"{self.name}.{self.starts}.log")
        self.stderr = open(self.log_path, "w")
        with self.lock:
            self.events = []
        self.process = subprocess.Popen(self.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr)
        self.reader = threading.Thread(target=self._read, args=(self.process,), daemon=True)
        self.reader.start()
        return self

    def _read(self, process):
        for raw in process.stdout:
            self.reading.wait()
            try:
                event = json.loads(raw)
            except ValueError:
                event = {"event": "unparsable", "line": raw.decode("utf-8", "replace")}
            event["_time"] = time.monotonic()
            with self.lock:
                self.events.append(event)

    # Input

    def send_line(self, obj):
        self.process.stdin.write((json.dumps(obj) + "\n").encode())
        self.process.stdin.flush()

    def draw(self, rng, strokes, points=12, recognize=False):
        """Draws random strokes; returns how many points they hold."""
        total = 0
        for _ in range(strokes):
            x, y = rng.uniform(0, 2000), rng.uniform(0, 2000)
            samples = []
            for _ in range(points):
                x += rng.uniform(-8, 8)
                y += rng.uniform(-8, 8)
                samples.append([round(x, 2), round(y, 2)])
            self.send_line({"action": "draw", "points": samples, "weight": 3,
                            "colour": [rng.randrange(256), rng.randrange(256), rng.randrange(256)],
                            "recognize": recognize})
            total += points
        return total

    def draw_recognized(self, points, weight=3, colour=(0, 0, 0)):
        """Draws one stroke through `points` with recognition on (a rough shape becomes a
        perfect one: an ADD with is_shape and an APPEND of its corners)."""
        self.send_line({"action": "draw", "points": [list(p) for p in points], "weight": weight,
                        "colour": list(colour), "recognize": True})

    def erase(self, points, radius=10):
        self.send_line({"action": "erase", "points": points, "radius": radius})

    # Events

    def snapshot(self):
        with self.lock:
            return list(self.events)

    def last(self, name, room=None):
        for event in reversed(self.snapshot()):
            if event.get("event") == name and (room is None or event.get("room") == room):
                return event
        return None

    def has(self, name, room=None):
        return self.last(name, room) is not None

    def digest(self, room=None):
        event = self.last("state", room or self.rooms[0])
        return event and event["digest"]

    def points(self, room=None):
        event = self.last("state", room or self.rooms[0])
        return event["points"] if event else 0

    def wait_for(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode} while waiting for {what}; log {self.log_path}:\n{self.tail()}")
            time.sleep(0.05)
        raise AssertionError(f"{self.name}: timed out after {timeout} s waiting for {what}; log {self.log_path}:\n{self.tail()}")

    def wait_joined(self, timeout=30, room=None):
        self.wait_for(lambda: self.has("joined", room), timeout, "joining the room")

    def tail(self, lines=40):
        try:
            with open(self.log_path) as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    # Ending

    def stop(self, timeout=20):
        """SIGTERM: leave, flush, exit 0."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout)
        self._close()
        return code

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._close()

    def _close(self):
        self.reader.join(timeout=5)
        self.process.stdin.close()
        self.process.stdout.close()
        self.stderr.close()


def wait_converged(nodes, timeout, room=None, points=None):
    """Waits until every node reports the same digest (and, if given, that many points)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        digests = {n.digest(room) for n in nodes}
        counts = {n.points(room) for n in nodes}
        if len(digests) == 1 and None not in digests and (points is None or counts == {points}):
            return digests.pop()
        for n in nodes:
            if n.process.poll() is not None:
                raise AssertionError(f"{n.name} exited with {n.process.returncode}; log {n.log_path}:\n{n.tail()}")
        time.sleep(0.1)
    report = ", ".join(f"{n.name}: {n.digest(room)} ({n.points(room)} points)" for n in nodes)
    raise AssertionError(f"no convergence after {timeout} s (expected {points} points): {report}\n"
                         + "\n".join(f"--- {n.name} log tail:\n{n.tail(15)}" for n in nodes))


GENERATION = re.compile(r"^(.*)~([1-9][0-9]{0,8})$")


def wholly_removed(stroke):
    """Whether a stroke of `canvas replay --state` is erased from 0 to infinity (REMOVE_STROKE)."""
    return any(lower <= 0 and upper is None for lower, upper in stroke["erased"])


def view_as_the_original_app_knows_it(canvas, store, room, work):
    """Our replica in `store` as a peer of the original app should see it (PROTOCOL.md
    §14.7): {name: number of points} of every stroke not wholly removed, a generation
    `S~k` of a removed stroke `S` (the app's redo) under its first name `S`; and the
    generations so named, {generation: name}."""
    backup = os.path.join(work, "as-the-app-knows-it.ndjson")
    subprocess.run([canvas, "export", "--store", store, "--room", room, "--format", "ndjson", "-o", backup],
                   check=True, capture_output=True)
    state = json.loads(subprocess.run([canvas, "replay", "--state", backup], check=True, capture_output=True,
                                      text=True).stdout)
    strokes = {s["identifier"]: s for s in state["strokes"] if s["header"] is not None}
    view, renamed = {}, {}
    for identifier, stroke in strokes.items():
        if wholly_removed(stroke):
            continue
        match = GENERATION.match(identifier)
        name = identifier
        if match and match.group(1) in strokes and wholly_removed(strokes[match.group(1)]):
            name = renamed[identifier] = match.group(1)
        view[name] = len(stroke["points"])
    return view, renamed


def seeded_random(name):
    seed = int(os.environ.get("CANVAS_TEST_SEED", random.randrange(1 << 32)))
    print(f"{name}: seed {seed} (CANVAS_TEST_SEED={seed} to replay)", flush=True)
    return random.Random(seed)


def multicast_interface():
    """The first up, non-loopback interface with MULTICAST and an IPv4 address (what
    `canvas join --lan` picks by default), or None."""
    try:
        links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
        addresses = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with_ipv4 = {line.split()[1] for line in addresses.splitlines() if len(line.split()) > 1}
    for line in links.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        flags = line[line.find("<") + 1:line.find(">")].split(",")
        if "MULTICAST" in flags and "LOOPBACK" not in flags and "UP" in flags and name in with_ipv4:
            return name
    return None


def rough_polyline(waypoints, seed=7):
    """A hand's stroke through `waypoints`: 12 points a leg, each off by up to 2 px (seeded)."""
    rng = random.Random(seed)
    points = []
    for (xa, ya), (xb, yb) in zip(waypoints, waypoints[1:]):
        for i in range(12):
            t = i / 12
            points.append((int(xa + (xb - xa) * t + rng.uniform(-2, 2)), int(ya + (yb - ya) * t + rng.uniform(-2, 2))))
    points.append(waypoints[-1])
    return points
