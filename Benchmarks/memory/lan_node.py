"""One LAN-only `canvas join` process for the memory benchmarks: started on a private
multicast group and port, fed NDJSON on standard input, watched through its `state`
events, measured through /proc/PID/status."""

import json
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time


def private_lan():
    """A UDP port nobody on this machine uses now and a random administratively scoped
    multicast group, so that parallel runs do not meet."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("0.0.0.0", 0))
        port = s.getsockname()[1]
    return port, f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"


# How many operations an `applied` event reports (events of earlier versions: one each).
APPLIED_OPERATIONS = re.compile(rb'"operations":(\d+)')


def supports_memory_flag(canvas):
    """Whether `canvas join` has `--memory` (the version that keeps replicas in a default
    data folder unless told otherwise)."""
    text = subprocess.run([canvas, "join", "--help"], capture_output=True, text=True).stdout
    return "--memory" in text


def supports_option(canvas, option):
    """Whether `canvas join` takes `option` (also a private one, which no help lists): given
    with the value 0, which no option of this kind accepts, it fails on something else than
    an unknown option."""
    result = subprocess.run([canvas, "join", "--room", "probe", "--lan", option, "0"], capture_output=True, text=True,
                            timeout=30)
    return "Unknown option" not in result.stderr + result.stdout


def status(pid):
    """VmRSS, VmHWM, RssAnon and RssFile of a process, in KiB."""
    figures = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                figures[key] = int(value.split()[0])
    return figures


def cpu_seconds(pid):
    """User plus system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class LANNode:
    """`canvas join --room ROOM --lan --events` with a store folder or none."""

    def __init__(self, canvas, room, store=None, memory_flag=False, interface=None, log_path=os.devnull, extra=()):  # noqa: PLR0913
        self.port, self.group = private_lan()
        self.command = [canvas, "join", "--room", room, "--lan", "--events", "--log-level", "warning",
                        "--lan-port", str(self.port), "--lan-group", self.group, *extra]
        if interface:
            self.command += ["--lan-interface", interface]
        if store:
            self.command += ["--store", store]
        elif memory_flag:
            self.command.append("--memory")
        self.log_path = log_path
        self.lock = threading.Lock()
        self.state = None  # the last `state` event
        self.first_state_time = None
        self.applied_operations = 0  # summed over `applied` events (one per batch the node applied)

    def start(self):
        self.log = open(self.log_path, "w")
        self.started = time.monotonic()
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        return self

    def _read(self):
        for raw in self.process.stdout:
            # Only `state` events matter here; a million-point feed prints tens of
            # thousands of `applied` lines that are not worth parsing.
            if b'"event":"state"' not in raw:
                if raw.startswith(b'{"event":"applied"'):
                    match = APPLIED_OPERATIONS.search(raw)
                    with self.lock:
                        self.applied_operations += int(match.group(1)) if match else 1
                continue
            event = json.loads(raw)
            with self.lock:
                self.state = event
                if self.first_state_time is None:
                    self.first_state_time = time.monotonic()

    @property
    def pid(self):
        return self.process.pid

    def points(self):
        with self.lock:
            return self.state["points"] if self.state else None

    def last_state(self):
        with self.lock:
            return dict(self.state) if self.state else None

    def write(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def wait_for_points(self, points, timeout):
        """Waits until the node's `state` reports `points` points (or, with points None,
        any `state` at all)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            current = self.points()
            if current is not None and (points is None or current >= points):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"canvas join exited with {self.process.returncode}; log {self.log_path}:\n{self.tail()}")
            time.sleep(0.02)
        raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {points} points "
                           f"(last state: {self.last_state()}); log {self.log_path}:\n{self.tail()}")

    def settle_and_measure(self, seconds):
        """Waits `seconds`, then reads /proc: VmRSS is the last of five readings one
        second apart at the end of the wait (the node's tick and beacons keep running)."""
        time.sleep(max(0.0, seconds - 4))
        readings = []
        for index in range(5):
            readings.append(status(self.pid))
            if index < 4:
                time.sleep(1)
        last = readings[-1]
        last["VmRSS_min"] = min(r["VmRSS"] for r in readings)
        last["VmRSS_max"] = max(r["VmRSS"] for r in readings)
        return last

    def stop(self, timeout=120):
        """SIGTERM (the node leaves and flushes its store), SIGKILL if it does not exit."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.log.close()
        return self.process.returncode

    def tail(self, lines=20):
        try:
            with open(self.log_path) as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""
