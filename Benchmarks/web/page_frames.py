"""Frame rate of the page on a big room while another member draws (issue 15).

Two LAN nodes (`canvas join --http`, release build); node A's room is filled with
--points points (strokes of 100 points, drawn through its standard input), then a page is
opened on A in headless Chromium (Debian's chromium + chromium-driver, selenium) and node B
draws live: an ADD, then an APPEND of 4 points every 16 ms, a new stroke every second, as a
pen would. The page measures its own frames per second (requestAnimationFrame, a frame
requested every frame) for --seconds, twice: as it draws (only the changed area redrawn),
and with the whole room redrawn every frame (what a page without partial redraws does).

    python3 Benchmarks/web/page_frames.py --canvas .build-release/release/canvas [--points 100000]

Needs selenium (scripts/test's venv: ~/.cache/canvas/xmpp-venv/bin/python) and an interface
with multicast (or loopback with multicast on)."""

import argparse
import json
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "Integration"))
from test_web import lan_interface, start_browser  # noqa: E402


def free_tcp_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_node(canvas, name, work, lan, http_port):
    port, group, interface = lan
    log = open(os.path.join(work, f"{name}.log"), "w")
    process = subprocess.Popen(
        [canvas, "join", "--room", "board", "--store", os.path.join(work, name), "--lan", "--lan-port", str(port),
         "--lan-group", group, "--lan-interface", interface, "--lan-beacon-interval", "0.25",
         "--http", f"127.0.0.1:{http_port}", "--log-level", "warning"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log)
    return process


def health(http_port):
    """The room's /healthz entry, or an empty one while the node is not listening yet."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/healthz", timeout=10) as response:
            return json.load(response)["rooms"][0]
    except OSError:
        return {"strokes": -1, "points": -1}


def wait(predicate, what, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise SystemExit(f"timed out waiting for {what}")


def fill(process, points, rng):
    """Strokes of 100 points over a 4000 × 3000 board, as draw actions."""
    strokes = points // 100
    for index in range(strokes):
        x, y = rng.uniform(0, 4000), rng.uniform(0, 3000)
        heading = rng.uniform(0, 2 * math.pi)
        line = []
        for _ in range(100):
            heading += rng.uniform(-0.3, 0.3)
            x += 4 * math.cos(heading)
            y += 4 * math.sin(heading)
            line.append([round(x, 2), round(y, 2)])
        colour = [rng.randrange(200), rng.randrange(200), rng.randrange(200)]
        process.stdin.write((json.dumps({"action": "draw", "points": line, "weight": 2, "colour": colour}) + "\n").encode())
    process.stdin.flush()
    return strokes


def draw_live(process, stop, rng):
    """A member drawing: an ADD, then 4 points every 16 ms, a new stroke every second."""
    stroke = 0
    while not stop.is_set():
        stroke += 1
        identifier = f"live_{stroke}"
        x, y = rng.uniform(200, 800), rng.uniform(200, 600)
        add = {"type": "ADD", "identifier": identifier, "weight": 3, "colour": [200, 30, 30], "start": [round(x, 2), round(y, 2)]}
        process.stdin.write((json.dumps(add) + "\n").encode())
        offset = 1
        for _ in range(60):
            if stop.is_set():
                break
            batch = []
            for _ in range(4):
                x += rng.uniform(-3, 5)
                y += rng.uniform(-3, 3)
                batch.append([round(x, 2), round(y, 2)])
            append = {"type": "APPEND", "identifier": identifier, "points": batch, "offset": offset}
            offset += len(batch)
            process.stdin.write((json.dumps(append) + "\n").encode())
            process.stdin.flush()
            time.sleep(0.016)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--canvas", default=".build-release/release/canvas")
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    rng = random.Random(15)
    work = tempfile.mkdtemp(prefix="canvas-page-frames-")
    interface = lan_interface()
    if interface is None:
        raise SystemExit("no interface with multicast here")
    lan = (random.randrange(40000, 60000), f"239.255.{rng.randrange(1, 255)}.{rng.randrange(1, 255)}", interface)
    ports = free_tcp_port(), free_tcp_port()
    a = start_node(options.canvas, "a", work, lan, ports[0])
    b = start_node(options.canvas, "b", work, lan, ports[1])
    browser = None
    stop = threading.Event()
    try:
        wait(lambda: health(ports[0])["strokes"] >= 0, "node a", 20)
        strokes = fill(a, options.points, rng)
        wait(lambda: health(ports[0])["strokes"] >= strokes, "node a's room filled", 120)
        wait(lambda: health(ports[1])["strokes"] >= strokes, "node b to hold the room", 120)
        browser = start_browser()
        started = time.monotonic()
        browser.get(f"http://127.0.0.1:{ports[0]}/")
        wait(lambda: browser.execute_script("return window.canvasPage && window.canvasPage.strokeCount") >= strokes,
             "the page to hold the room", 120)
        browser.execute_script("window.canvasPage.view.scale = 0.3; window.canvasPage.view.x = 0; window.canvasPage.view.y = 0;")
        loaded = time.monotonic() - started
        idle = browser.execute_async_script("window.canvasPage.measureFrames(arguments[0]).then(arguments[1])", 2000)
        drawer = threading.Thread(target=draw_live, args=(b, stop, rng), daemon=True)
        drawer.start()
        time.sleep(1)
        partial = browser.execute_async_script(
            "window.canvasPage.measureFrames(arguments[0]).then(arguments[1])", int(options.seconds * 1000))
        everything = browser.execute_async_script(
            "window.canvasPage.measureFrames(arguments[0], true).then(arguments[1])", int(options.seconds * 1000))
        stop.set()
        drawer.join()
        room = health(ports[0])
        result = {
            "points": room["points"], "strokes": room["strokes"], "page_load_s": round(loaded, 2),
            "fps_idle": round(idle["fps"], 1), "fps_while_drawing": round(partial["fps"], 1),
            "partial_redraws": partial["partialRedraws"], "fps_full_redraw_each_frame": round(everything["fps"], 1),
            "cores": os.cpu_count(), "load_average": os.getloadavg()[0],
        }
        if options.json:
            print(json.dumps(result))
        else:
            for key, value in result.items():
                print(f"{key:28} {value}")
        if partial["fps"] < 30:
            raise SystemExit(f"below 30 frames per second while another member draws: {partial['fps']:.1f}")
    finally:
        stop.set()
        if browser:
            browser.quit()
        for process in (a, b):
            process.terminate()
            process.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
