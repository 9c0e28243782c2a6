"""The page in a real browser: two `canvas join --http` nodes on the LAN, a page on each in
headless Chromium (Debian's chromium and chromium-driver, driven by selenium), drawing with
real pointer input.

Run by scripts/test; alone: `python3 Tests/Integration/test_web.py` with CANVAS_BIN set and
selenium importable (scripts/test's venv). Screenshots of each step go to
$CANVAS_WEB_SCREENSHOTS (default: web-screenshots/ in the test's folder)."""

import json
import math
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import workfolders  # noqa: E402
from canvasnode import Node, multicast_interface, rough_polyline  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.actions.pointer_input import PointerInput  # noqa: E402
from selenium.webdriver.common.actions import interaction  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

CANVAS = os.environ.get("CANVAS_BIN", ".build/debug/canvas")
SCREENSHOTS = os.environ.get("CANVAS_WEB_SCREENSHOTS", os.path.join(os.path.dirname(os.path.abspath(CANVAS)), "web-screenshots"))


def lan_interface():
    """The interface the nodes cluster on: the default one, or loopback when it has multicast."""
    name = multicast_interface()
    if name:
        return name
    links = subprocess.run(["ip", "-o", "link", "show", "lo"], capture_output=True, text=True).stdout
    return "lo" if "MULTICAST" in links else None


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("0.0.0.0", 0))
        return s.getsockname()[1]


class WebNode(Node):
    """A LAN-only `canvas join` serving its page on a free loopback port."""

    def __init__(self, name, work, port, group, interface, extra=()):
        super().__init__(CANVAS, name, "board", None, None, {}, os.path.join(work, name), log_dir=os.path.join(work, "logs"))
        self.lan = (port, group, interface)
        self.extra = list(extra)
        self.url = None
        with socket.socket() as probe:  # a fixed port, so that a restarted node is where its page looks
            probe.bind(("127.0.0.1", 0))
            self.http_port = probe.getsockname()[1]

    def command(self):
        port, group, interface = self.lan
        return [self.canvas, "join", "--room", "board", "--store", self.store, "--events", "--log-level", "info",
                "--lan", "--lan-port", str(port), "--lan-group", group, "--lan-interface", interface,
                "--lan-beacon-interval", "0.25", "--http", f"127.0.0.1:{self.http_port}"] + self.extra

    def start(self):
        super().start()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with open(self.log_path) as log:
                found = re.search(r"the page is at (\S+)", log.read())
            if found:
                self.url = found.group(1)
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{self.name} printed no page URL:\n{self.tail()}")

    def health(self):
        with urllib.request.urlopen(self.url.split("?")[0] + "healthz", timeout=5) as response:
            return json.load(response)


def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,800",
                     "--force-device-scale-factor=1"]:
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


class Page:
    """One browser tab on a node's page."""

    def __init__(self, browser, url, name):
        self.browser, self.name = browser, name
        browser.switch_to.new_window("tab")
        self.handle = browser.current_window_handle
        browser.get(url)
        self.wait(lambda: self.js("return window.canvasPage && window.canvasPage.online"), "the page online")

    def focus(self):
        self.browser.switch_to.window(self.handle)

    def js(self, script, *args):
        self.focus()
        return self.browser.execute_script(script, *args)

    def wait(self, predicate, what, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        raise AssertionError(f"{self.name}: timed out waiting for {what}")

    def ink(self, x, y, radius=3):
        """How many pixels around (x, y) of the drawing layer hold ink."""
        return self.js("""
            const [x, y, r] = arguments;
            const canvas = document.getElementById('base');
            const data = canvas.getContext('2d').getImageData(x - r, y - r, 2 * r + 1, 2 * r + 1).data;
            let inked = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i] > 64) inked++;
            return inked;""", x, y, radius)

    def drag(self, points, pointer="pen", lift=True):
        """A real pointer down at the first point, moves through the others, up at the last
        (unless not `lift`: then `lift_pen` ends it)."""
        self.focus()
        kind = interaction.POINTER_PEN if pointer == "pen" else interaction.POINTER_MOUSE
        builder = ActionBuilder(self.browser, mouse=PointerInput(kind, pointer), duration=8)
        builder.pointer_action.move_to_location(*points[0])
        builder.pointer_action.pointer_down()
        for x, y in points[1:]:
            builder.pointer_action.move_to_location(x, y)
        if lift:
            builder.pointer_action.pointer_up()
        builder.perform()

    def lift_pen(self):
        self.focus()
        builder = ActionBuilder(self.browser, mouse=PointerInput(interaction.POINTER_PEN, "pen"))
        builder.pointer_action.pointer_up()
        builder.perform()

    def click(self, element_id):
        self.focus()
        self.browser.find_element("id", element_id).click()

    def screenshot(self, step):
        self.focus()
        os.makedirs(SCREENSHOTS, exist_ok=True)
        self.browser.save_screenshot(os.path.join(SCREENSHOTS, f"{step}-{self.name}.png"))


def wobbly_line(x0, x1, y, steps=40):
    return [(int(x0 + (x1 - x0) * i / steps), int(y + (2 if i % 2 else -2))) for i in range(steps + 1)]


def rough_rectangle(left, top, right, bottom):
    return rough_polyline([(left, top), (right, top), (right, bottom), (left, bottom), (left + 3, top + 4)])


def small_circle(cx, cy, radius, seed=7, count=36):
    """A small circle drawn with a mouse, on whole pixels: `count` points a turn, each off its
    radius by up to 0.8 px (seeded), run on past the start by a tenth of a turn."""
    rng = random.Random(seed)
    points = []
    for i in range(int(count * 1.1) + 1):
        angle = 2 * math.pi * i / count
        r = radius + rng.uniform(-0.8, 0.8)
        point = (int(round(cx + r * math.cos(angle))), int(round(cy + r * math.sin(angle))))
        if not points or points[-1] != point:
            points.append(point)
    return points


@unittest.skipIf(lan_interface() is None, "no interface with multicast here")
class PageInABrowser(unittest.TestCase):
    """Everything in one scenario, in order, on one pair of nodes (a browser start costs)."""

    def setUp(self):
        self.work = workfolders.make("canvas-web-")
        port, group = free_udp_port(), f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
        self.a = WebNode("a", self.work, port, group, lan_interface()).start()
        self.b = WebNode("b", self.work, port, group, lan_interface()).start()
        self.browser = start_browser()
        self.first_tab = self.browser.current_window_handle

    def tearDown(self):
        self.browser.quit()
        for node in (self.a, self.b):
            if node.process and node.process.poll() is None:
                node.kill()

    def converged(self, points=None):
        health = [node.health()["rooms"][0] for node in (self.a, self.b)]
        return health[0]["digest"] == health[1]["digest"] and (points is None or health[0]["points"] >= points)

    def wait_converged(self, what, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.converged():
                return
            time.sleep(0.1)
        raise AssertionError(f"nodes did not converge after {what}: {self.a.health()} / {self.b.health()}")

    def test_two_pages_draw_erase_recognise_undo_download_reconnect(self):
        a = Page(self.browser, self.a.url, "a")
        b = Page(self.browser, self.b.url, "b")
        b.wait(lambda: len(b.js("return window.canvasPage.status ? window.canvasPage.status.transports[0].members : []")) == 1,
               "node b to see node a on the LAN")

        # 1. A line drawn on page A appears on page B while the pen is still down, and in
        # node B's replica.
        line = wobbly_line(150, 450, 300)
        a.drag(line, lift=False)
        b.wait(lambda: b.ink(300, 300) > 0 and b.ink(160, 300) > 0 and b.ink(440, 300) > 0, "A's line on page B, pen down")
        self.assertEqual(a.js("return window.canvasPage.pensDown"), 1, "the pen is still down on page A")
        b.screenshot("1-line-arriving-pen-down")
        a.lift_pen()
        a.wait(lambda: a.js("return window.canvasPage.pensDown") == 0, "the pen lifted")
        self.assertEqual(b.ink(300, 400), 0, "nothing drawn where A drew nothing")
        self.wait_converged("the line")
        self.assertGreaterEqual(self.b.health()["rooms"][0]["points"], len(line) // 2)
        self.assertGreaterEqual(a.js("return window.canvasPage.stats.partialRedraws"), 1, "a change redraws only its area")
        a.screenshot("1-line-drawn")
        b.screenshot("1-line-arrived")

        # 2. A partial erase on B: the middle of the line goes, on A too; its ends stay.
        b.click("tool-eraser")
        b.drag([(300, 260), (300, 300), (300, 340)], pointer="mouse")
        a.wait(lambda: a.ink(300, 300) == 0, "the erased middle gone from page A")
        self.assertGreater(a.ink(160, 300), 0, "the left end stays")
        self.assertGreater(a.ink(440, 300), 0, "the right end stays")
        self.wait_converged("the erasure")
        a.screenshot("2-partly-erased")
        b.click("tool-pen")

        # 3. A rough rectangle with recognition on becomes a rectangle on both pages.
        a.click("recognize")
        strokes_before = b.js("return window.canvasPage.strokeCount")
        a.drag(rough_rectangle(150, 380, 450, 540))
        shape = "return [...window.canvasPage.strokeIDs()].filter(id => window.canvasPage.isShape(id)).length"
        for page in (a, b):
            page.wait(lambda page=page: page.js(shape) == 1, f"the recognised rectangle on page {page.name}")
        self.assertEqual(b.js("return window.canvasPage.strokeCount"), strokes_before + 1, "the rough stroke was replaced")
        self.assertGreater(b.ink(300, 380, 4), 0, "the rectangle's top side")
        self.assertGreater(b.ink(150, 460, 4), 0, "the rectangle's left side")
        self.wait_converged("the rectangle")
        b.screenshot("3-rectangle-recognised")

        # 4. Undo takes the rectangle back everywhere and brings back the stroke as drawn (a
        # shape taken wrongly costs one undo, not the drawing); undo again takes the stroke
        # away; redo brings the stroke back, then the rectangle in its place.
        count = "return window.canvasPage.strokeCount"
        a.click("undo")
        b.wait(lambda: b.js(shape) == 0 and b.js(count) == strokes_before + 1, "the stroke as drawn back on page B")
        a.click("undo")
        b.wait(lambda: b.js(count) == strokes_before, "the stroke as drawn undone on page B")
        # The page redraws on its next animation frame (on a busy machine, a while later).
        b.wait(lambda: b.ink(300, 380, 4) == 0, "the rectangle's ink gone from page B")
        a.click("redo")
        b.wait(lambda: b.js(shape) == 0 and b.js(count) == strokes_before + 1, "the stroke as drawn redone on page B")
        a.click("redo")
        b.wait(lambda: b.js(shape) == 1 and b.js(count) == strokes_before + 1, "the rectangle redone on page B")
        self.wait_converged("undo and redo")
        b.screenshot("4-undo-redo")

        # 4b. A connector bent once, its head drawn out and back, becomes an elbow arrow: the
        # other page draws the shape, six points with a repeated tip, as it draws any other.
        a.drag(rough_polyline([(620, 380), (620, 540), (880, 540), (845, 515), (880, 540), (845, 565)]))
        for page in (a, b):
            page.wait(lambda page=page: page.js(shape) == 2, f"the recognised elbow arrow on page {page.name}")
        self.assertGreater(b.ink(620, 460, 4), 0, "the elbow arrow's first run")
        self.assertGreater(b.ink(750, 540, 4), 0, "its second run")
        self.assertGreater(b.ink(862, 528, 4), 0, "its head")
        self.wait_converged("the elbow arrow")
        b.screenshot("4b-elbow-arrow-recognised")

        # 4c. A circle 20 px across drawn with a mouse (whole pixels: a shape drawn small, or on
        # a zoomed-out board): the staircase of its pixels is averaged out before fitting, and
        # it becomes an ellipse on both pages (docs/recognition.md, "Drawn small on whole
        # pixels"; before, this stroke was left alone).
        a.drag(small_circle(720, 300, 10), pointer="mouse")
        for page in (a, b):
            page.wait(lambda page=page: page.js(shape) == 3, f"the recognised small circle on page {page.name}")
        self.assertGreater(b.ink(730, 300, 3), 0, "the small circle's right side")
        self.assertEqual(b.ink(720, 300, 2), 0, "nothing drawn inside it")
        self.wait_converged("the small circle")
        b.screenshot("4c-small-circle-recognised")

        # 4d. A shaft, then its head drawn as a stroke of its own (the way most people draw an
        # arrow): the shaft becomes a line, then the line and the head one arrow, on both
        # pages; one undo brings back the line and the head as they showed, redo the arrow.
        strokes_before = b.js(count)
        a.drag(wobbly_line(150, 400, 150))
        for page in (a, b):
            page.wait(lambda page=page: page.js(shape) == 4, f"the shaft as a line on page {page.name}")
        a.drag(rough_polyline([(372, 128), (402, 150), (372, 172)]))
        for page in (a, b):
            page.wait(lambda page=page: page.js(shape) == 4 and page.js(count) == strokes_before + 1,
                      f"one arrow of the shaft and the head on page {page.name}")
        self.assertGreater(b.ink(280, 150, 4), 0, "the arrow's shaft")
        self.assertGreater(b.ink(387, 139, 4), 0, "its first barb")
        self.assertGreater(b.ink(387, 161, 4), 0, "its second barb")
        self.wait_converged("the arrow of two strokes")
        b.screenshot("4d-arrow-of-two-strokes")
        a.click("undo")
        b.wait(lambda: b.js(count) == strokes_before + 2 and b.js(shape) == 4, "the line and the head back on page B")
        a.click("redo")
        b.wait(lambda: b.js(count) == strokes_before + 1 and b.js(shape) == 4, "the arrow again on page B")
        self.wait_converged("undo and redo of the arrow")

        # 4e. A shaft, then its head's barbs each drawn as a stroke of its own: the shaft and
        # the first barb become lines, and the second barb makes one arrow of all three on
        # both pages; then the base across the barbs' ends joins that arrow as its closed
        # head's third side: one arrow of the four strokes, its head closed (tail, tip, barb,
        # barb, tip: the base drawn straight across the barbs' ends). One undo brings back the
        # arrow of three and the base as drawn, the next takes the base away, the next brings
        # back the three as they showed.
        strokes_before = b.js(count)
        shapes_before = b.js(shape)

        def one_arrow(page):
            """Whether `page` shows one more shape than before, the arrow, in place of its strokes."""
            return page.js(shape) == shapes_before + 1 and page.js(count) == strokes_before + 1

        a.drag(wobbly_line(150, 400, 260))
        a.drag(rough_polyline([(372, 238), (402, 260)]))
        for page in (a, b):
            page.wait(lambda page=page: page.js(count) == strokes_before + 2,
                      f"the shaft and the first barb on page {page.name}")
        a.drag(rough_polyline([(402, 260), (372, 282)]))
        for page in (a, b):
            page.wait(lambda page=page: one_arrow(page),
                      f"one arrow of the shaft and the two barbs on page {page.name}")
        self.assertGreater(b.ink(280, 260, 4), 0, "the arrow's shaft")
        self.assertGreater(b.ink(387, 249, 4), 0, "its first barb")
        self.assertGreater(b.ink(387, 271, 4), 0, "its second barb")
        self.wait_converged("the arrow of three strokes")
        b.screenshot("4e-arrow-of-three-strokes")
        # (Drawn 5 px behind the barbs' ends: the closed head the arrow draws has its base
        # across the ends themselves, where the drawn base was not.)
        a.drag(rough_polyline([(367, 282), (367, 238)]))
        for page in (a, b):
            page.wait(lambda page=page: one_arrow(page), f"one arrow of the four strokes on page {page.name}")
        self.assertGreater(b.ink(387, 249, 4), 0, "the arrow's first barb")
        self.assertGreater(b.ink(373, 248, 2), 0, "its closed head's base, off the shaft")
        b.wait(lambda: b.ink(364, 248, 1) == 0, "the base as drawn gone from page B")
        self.wait_converged("the arrow of four strokes")
        b.screenshot("4e-arrow-of-four-strokes")
        a.click("undo")
        b.wait(lambda: b.js(count) == strokes_before + 2, "the arrow of three and the base back on page B")
        a.click("undo")
        b.wait(lambda: b.js(count) == strokes_before + 1, "the base taken away on page B")
        a.click("undo")
        b.wait(lambda: b.js(count) == strokes_before + 3, "the shaft and both barbs back on page B")
        self.wait_converged("undo of the arrow of three strokes")

        # 4f. An arrow with a head at each end drawn in one stroke (a two-way connector: one
        # head, the shaft, the other head) becomes a double arrow on both pages, drawn as any
        # other shape (eight points, each tip repeated). Before 2026-11-29 it became a line:
        # both heads erased.
        strokes_before = b.js(count)
        shapes_before = b.js(shape)
        a.drag(rough_polyline(
            [(130, 610), (100, 630), (130, 650), (100, 630), (460, 630), (430, 610), (460, 630), (430, 650)]))
        for page in (a, b):
            page.wait(lambda page=page: page.js(shape) == shapes_before + 1 and page.js(count) == strokes_before + 1,
                      f"the double arrow on page {page.name}")
        self.assertGreater(b.ink(280, 630, 4), 0, "the double arrow's shaft")
        for x, name in ((115, "the first head"), (445, "the last head")):
            self.assertGreater(b.ink(x, 620, 4), 0, f"{name}'s upper barb")
            self.assertGreater(b.ink(x, 640, 4), 0, f"{name}'s lower barb")
        self.wait_converged("the double arrow")
        b.screenshot("4f-double-arrow")

        # 4g. A box drawn as two L's (the way most people draw a flowchart's box): the first L
        # is left as drawn, the second makes one rectangle of both on both pages; one undo
        # brings back both L's as drawn, redo the rectangle. Before 2026-11-29 (twenty-third
        # session) the two L's stayed as drawn.
        strokes_before = b.js(count)
        shapes_before = b.js(shape)
        a.drag(rough_polyline([(920, 250), (920, 110), (1070, 110)]))
        for page in (a, b):
            page.wait(lambda page=page: page.js(count) == strokes_before + 1, f"the first L on page {page.name}")
        self.assertEqual(b.js(shape), shapes_before, "an L alone is no shape")
        a.drag(rough_polyline([(1070, 110), (1070, 250), (920, 250)]))
        for page in (a, b):
            page.wait(lambda page=page: page.js(shape) == shapes_before + 1 and page.js(count) == strokes_before + 1,
                      f"one rectangle of the two L's on page {page.name}")
        for x, y, side in ((920, 180, "left"), (995, 110, "top"), (1070, 180, "right"), (995, 250, "bottom")):
            self.assertGreater(b.ink(x, y, 4), 0, f"the rectangle's {side} side")
        self.assertEqual(b.ink(995, 180, 4), 0, "nothing inside it")
        self.wait_converged("the box of two strokes")
        b.screenshot("4g-box-of-two-strokes")
        a.click("undo")
        b.wait(lambda: b.js(count) == strokes_before + 2 and b.js(shape) == shapes_before, "both L's back on page B")
        a.click("redo")
        b.wait(lambda: b.js(count) == strokes_before + 1 and b.js(shape) == shapes_before + 1,
               "the rectangle again on page B")
        self.wait_converged("undo and redo of the box")

        # 5. The SVG the page downloads is `canvas export` of the room.
        a.focus()
        downloaded = self.browser.execute_async_script(
            "const done = arguments[0]; fetch(document.getElementById('download').href).then(r => r.text()).then(done);")
        self.a.stop()
        exported = subprocess.run([CANVAS, "export", "--store", self.a.store, "--room", "board", "--output", "-"],
                                  capture_output=True, text=True, check=True).stdout
        self.assertEqual(downloaded, exported, "the page's SVG equals canvas export")

        # 6. Node A restarts: its page reconnects by itself and shows everything again.
        a.wait(lambda: not a.js("return window.canvasPage.online"), "page A to see its node gone")
        # Drawn while the node is away: kept in the page, counted, sent once it is back.
        a.drag(wobbly_line(600, 900, 200))
        self.assertEqual(a.js("return window.canvasPage.outbox"), 1)
        self.assertIn("1 stroke waiting", a.js("return document.getElementById('connection').textContent"))
        a.screenshot("5-node-stopped-a-stroke-waiting")
        self.a.start()
        a.wait(lambda: a.js("return window.canvasPage.online"), "page A back online", timeout=30)
        b.wait(lambda: b.ink(750, 200) > 0, "the stroke drawn while node A was away, on page B")
        self.assertEqual(a.js("return window.canvasPage.outbox"), 0)
        a.wait(lambda: a.js("return window.canvasPage.strokeCount") == b.js("return window.canvasPage.strokeCount"),
               "page A showing the whole room again")
        self.assertGreater(a.ink(160, 300), 0)
        self.assertEqual(a.ink(300, 300), 0)
        a.screenshot("6-reconnected")

        # 7. A malformed message on the socket is refused with an error; nothing changes.
        digest = self.a.health()["rooms"][0]["digest"]
        a.focus()
        replies = self.browser.execute_async_script("""
            const done = arguments[0];
            const replies = [];
            const socket = new WebSocket(`ws://${location.host}/socket?room=board`);
            socket.onmessage = (event) => {
              const message = JSON.parse(event.data);
              if (message.type === 'error') replies.push(message.message);
              if (replies.length === 3) { socket.close(); done(replies); }
            };
            socket.onopen = () => {
              socket.send('{"action":"pen-move","pen":1,"points":[[1,2]]}');
              socket.send('not json');
              socket.send('{"action":"draw","points":[[1,1e999]],"weight":2,"colour":[0,0,0]}');
            };
            setTimeout(() => done(replies), 5000);""")
        self.assertEqual(len(replies), 3, replies)
        self.assertIn("pen 1 is not down", replies[0])
        self.assertIn("draw.points[0][1]", replies[2])
        time.sleep(0.3)
        self.assertEqual(self.a.health()["rooms"][0]["digest"], digest, "the replica is untouched")
        self.assertTrue(self.a.process.poll() is None, "the node still runs")
        with urllib.request.urlopen(self.a.url.split("?")[0] + "metrics", timeout=5) as response:
            self.assertIn("canvas_page_requests_refused_total 3", response.read().decode(), "the refusals are counted")

        # 8. Security: a page of another site may not open a socket; /healthz answers.
        request = urllib.request.Request(self.a.url.split("?")[0] + "healthz", headers={"Origin": "http://evil.example"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        self.assertEqual(refused.exception.code, 403)

        # 9. The node's metrics, in the Prometheus format (gauges are sampled every second).
        deadline = time.monotonic() + 10
        while True:
            with urllib.request.urlopen(self.b.url.split("?")[0] + "metrics", timeout=5) as response:
                metrics = response.read().decode()
            if 'canvas_members{room="board",transport="lan"} 1' in metrics or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        applied = re.search(r'canvas_operations_applied_total\{room="board",transport="lan"\} (\d+)', metrics)
        self.assertTrue(applied and int(applied.group(1)) > 0, metrics[:2000])
        self.assertRegex(metrics, r"canvas_page_sockets_opened_total [1-9]")
        self.assertRegex(metrics, r'canvas_members\{room="board",transport="lan"\} 1')

    def test_beyond_loopback_a_token_is_required(self):
        port, group = free_udp_port(), f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
        node = WebNode("c", self.work, port, group, lan_interface())
        node.command = lambda: WebNode.command(node)[:-1] + [f"0.0.0.0:{node.http_port}"]
        node.start()
        try:
            self.assertRegex(node.url, r"^http://0\.0\.0\.0:\d+/\?token=[0-9a-f]{32}$", "a random token in the URL")
            root, token = node.url.split("?token=")
            with urllib.request.urlopen(root, timeout=5) as response:
                self.assertEqual(response.status, 200, "the page's files need no token")
            for path in ["healthz", "metrics", "export.svg", "socket"]:
                with self.assertRaises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(root + path, timeout=5)
                self.assertEqual(refused.exception.code, 401, path)
            with urllib.request.urlopen(root + "healthz?token=" + token, timeout=5) as response:
                self.assertEqual(json.load(response)["rooms"][0]["room"], "board")
            request = urllib.request.Request(root + "healthz", headers={"Authorization": "Bearer " + token})
            with urllib.request.urlopen(request, timeout=5) as response:
                self.assertEqual(response.status, 200)
            page = Page(self.browser, node.url, "c")
            self.assertTrue(page.js("return window.canvasPage.online"), "the page with the token is let in")
        finally:
            node.kill()


if __name__ == "__main__":
    workfolders.run_tests()
