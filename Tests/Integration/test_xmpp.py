"""Integration tests of `canvas join` against a real Prosody on loopback (started by
scripts/prosody-harness) and a third-party peer written with slixmpp.

Run by scripts/test; alone: `python3 Tests/Integration/test_xmpp.py` with CANVAS_BIN set
to the canvas executable (the venv of scripts/venv.sh provides slixmpp)."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import workfolders  # noqa: E402
from canvasnode import Node, rough_polyline, seeded_random, view_as_the_original_app_knows_it, wait_converged  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS = os.path.join(ROOT, "scripts", "prosody-harness")
CANVAS = os.environ.get("CANVAS_BIN", os.path.join(ROOT, ".build", "debug", "canvas"))
PEER = os.path.join(os.path.dirname(__file__), "xmpp_peer.py")
ORIGINAL_APP = os.path.join(os.path.dirname(__file__), "original_app.py")


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                key, value = line.split("=", 1)
                env[key.removeprefix("export ").strip()] = value.strip().strip("'\"")
    return env


def start_original_app(server, room, *arguments):
    """The original app's stand-in (mallory, nick `ipad`) in `room`, with `arguments`; its
    report is the last line of its standard output."""
    venv_python = os.environ.get("CANVAS_VENV_PYTHON", sys.executable)
    return subprocess.Popen(
        [venv_python, ORIGINAL_APP, "--jid", server.jid("mallory"), "--password", "mallory-pw",
         "--room", room, "--nick", "ipad", "--host", server.env["XMPP_HOST"],
         "--port", server.env["XMPP_PORT"], "--ca-file", server.env["CA_FILE"], *arguments],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Prosody:
    """A Prosody server of the harness in its own folder."""

    def __init__(self, name, **settings):
        self.dir = workfolders.make(f"canvas-prosody-{name}-")
        self.settings = settings
        self.start()

    def _run(self, verb):
        env = dict(os.environ, **self.settings)
        result = subprocess.run([HARNESS, verb, self.dir], env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"prosody-harness {verb} failed:\n{result.stdout}\n{result.stderr}")

    def start(self):
        self._run("start")
        self.env = read_env(os.path.join(self.dir, "env"))

    def stop(self):
        self._run("stop")

    def restart(self):
        self._run("restart")
        self.env = read_env(os.path.join(self.dir, "env"))

    def password_file(self, user):
        path = os.path.join(self.dir, f"{user}.password")
        with open(path, "w") as f:
            f.write(f"{user}-pw\n")
        return path

    def room(self, name):
        return f"{name}@{self.env['MUC_SERVICE']}"

    def jid(self, user):
        return f"{user}@{self.env['XMPP_DOMAIN']}"


class XMPPIntegration(unittest.TestCase):
    """Three nodes, restarts, offline drawing, the archive, a server restart."""

    @classmethod
    def setUpClass(cls):
        cls.server = Prosody("main")
        cls.work = workfolders.make("canvas-xmpp-")
        cls.nodes = []

    @classmethod
    def tearDownClass(cls):
        for node in cls.nodes:
            if node.process and node.process.poll() is None:
                node.kill()
        cls.server.stop()

    def node(self, name, user, room, extra=(), room_flags=True):
        store = os.path.join(self.work, name)
        node = Node(CANVAS, name, room, self.server.jid(user), self.server.password_file(user), self.server.env,
                    store, extra=extra, log_dir=os.path.join(self.work, "logs"), room_flags=room_flags)
        self.nodes.append(node)
        return node

    def test_1_three_nodes_draw_concurrently_and_converge_then_a_killed_node_catches_up(self):
        rng = seeded_random("three nodes")
        room = self.server.room("three")
        nodes = [self.node(n, u, room) for n, u in (("a", "alice"), ("b", "bob"), ("c", "carol"))]
        for node in nodes:
            node.start()
        for node in nodes:
            node.wait_joined()
        total = 0
        for _ in range(5):
            for node in nodes:
                total += node.draw(rng, 4)
        wait_converged(nodes, 60, points=total)

        # One node is killed (no goodbye), the others draw on, and it catches up on restart.
        nodes[1].kill()
        for node in (nodes[0], nodes[2]):
            total += node.draw(rng, 6)
        nodes[1].start()
        nodes[1].wait_joined()
        digest = wait_converged(nodes, 60, points=total)
        for node in nodes:
            self.assertEqual(node.stop(), 0, f"{node.name} did not exit cleanly; log {node.log_path}")
        # The stores hold what the events said.
        for node in nodes:
            out = subprocess.run([CANVAS, "export", "--store", node.store, "--room", room, "--format", "ndjson", "-o", "-"],
                                 capture_output=True, check=True)
            replay = subprocess.run([CANVAS, "replay", "--digest"], input=out.stdout, capture_output=True, check=True)
            self.assertEqual(replay.stdout.decode().strip(), digest, f"{node.name}'s store")

    def test_2_drawing_while_the_server_is_down_loses_nothing(self):
        rng = seeded_random("server restart")
        room = self.server.room("offline")
        nodes = [self.node(n, u, room) for n, u in (("d", "dave"), ("e", "erin"))]
        for node in nodes:
            node.start()
        for node in nodes:
            node.wait_joined()
        total = sum(node.draw(rng, 3) for node in nodes)
        wait_converged(nodes, 60, points=total)

        # The server goes away mid-session; both draw while it is down.
        self.server.stop()
        for node in nodes:
            node.wait_for(lambda n=node: n.has("offline"), 30, "noticing the server is gone")
        total += sum(node.draw(rng, 4) for node in nodes)
        time.sleep(1)
        self.server.restart()
        # They reconnect on their own and exchange what each drew offline.
        wait_converged(nodes, 90, points=total)
        for node in nodes:
            self.assertEqual(node.stop(), 0)

    def test_3_a_node_alone_in_the_room_catches_up_from_the_archive(self):
        rng = seeded_random("archive")
        room = self.server.room("archive")
        writer = self.node("w", "alice", room).start()
        writer.wait_joined()
        total = writer.draw(rng, 15, points=20)
        writer.wait_for(lambda: writer.points() == total, 30, "its own strokes")
        # Wait for the room to reflect (archive) everything: the digest is stable and acked.
        time.sleep(2)
        digest = writer.digest()
        self.assertEqual(writer.stop(), 0)

        reader = self.node("r", "bob", room).start()
        reader.wait_for(lambda: reader.has("caught_up"), 60, "catching up")
        reader.wait_for(lambda: reader.digest() == digest, 30, f"the writer's digest {digest}")
        caught = reader.last("caught_up")
        self.assertTrue(caught["archive"], f"catch-up did not use the archive: {caught}")
        self.assertEqual(reader.stop(), 0)

        # Restarted, it asks the archive only for what came after its stored position.
        reader.start()
        reader.wait_for(lambda: reader.has("caught_up"), 60, "catching up again")
        self.assertEqual(reader.last("caught_up")["messages"], 0)
        self.assertEqual(reader.stop(), 0)

    def test_3b_strokes_drawn_offline_reach_the_archive_even_across_a_crash(self):
        rng = seeded_random("offline crash")
        room = self.server.room("offline-crash")
        drawer = self.node("k", "dave", room).start()
        drawer.wait_joined()
        total = drawer.draw(rng, 3)
        drawer.wait_for(lambda: drawer.points() == total, 30, "its strokes")
        self.server.stop()
        drawer.wait_for(lambda: drawer.has("offline"), 30, "noticing the server is gone")
        total += drawer.draw(rng, 5)
        drawer.wait_for(lambda: drawer.points() == total, 30, "its offline strokes")
        time.sleep(1.5)  # the unconfirmed operations are noted at most once a second
        drawer.kill()  # before the server is back: nothing of the offline drawing was sent
        self.server.restart()
        drawer.start()
        drawer.wait_joined()
        digest = drawer.digest()
        self.assertEqual(drawer.stop(), 0)  # waits for the room to confirm what it sent

        # Alone in the room, a newcomer finds everything in the archive.
        newcomer = self.node("n", "erin", room).start()
        newcomer.wait_for(lambda: newcomer.digest() == digest, 60, f"the drawer's digest {digest}")
        self.assertEqual(newcomer.points(), total)
        self.assertEqual(newcomer.stop(), 0)

    def test_4_slixmpp_peer_speaking_the_original_protocol_interoperates(self):
        room = self.server.room("legacy")
        ours = self.node("o", "carol", room).start()
        ours.wait_joined()
        rng = seeded_random("legacy")
        drawn = ours.draw(rng, 3)
        ours.wait_for(lambda: ours.points() == drawn, 30, "its strokes")
        record = os.path.join(self.work, "legacy-record.ndjson")
        venv_python = os.environ.get("CANVAS_VENV_PYTHON", sys.executable)
        peer = subprocess.run(
            [venv_python, PEER, "--jid", self.server.jid("mallory"), "--password", "mallory-pw",
             "--room", room, "--nick", "ipad", "--host", self.server.env["XMPP_HOST"],
             "--port", self.server.env["XMPP_PORT"], "--ca-file", self.server.env["CA_FILE"],
             "--strokes", "6", "--points-per-stroke", "9", "--erase-every", "2", "--remove-every", "5",
             "--shape-every", "3", "--initial-strokes", "2", "--record", record, "--linger", "8"],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(peer.returncode, 0, f"slixmpp peer failed:\n{peer.stdout}\n{peer.stderr}")
        # The peer's view: every body the room gave it (its own included), in order.
        replay = subprocess.run([CANVAS, "replay", "--digest", record], capture_output=True, text=True)
        theirs = replay.stdout.strip()
        ours.wait_for(lambda: ours.digest() == theirs, 30,
                      f"our digest to equal the legacy peer's view {theirs} ({replay.stderr.strip()})")
        self.assertEqual(ours.stop(), 0)

    def test_4a_the_original_app_shares_a_room_without_crashing_or_duplicating_points(self):
        """The original app (Tests/Integration/original_app.py: it decodes the body of every
        message it receives as the app does) in a room with two of our nodes, over several
        sync periods, while one node is killed and restarted and the other draws (an arrow of
        three strokes among it, and undoes a recognised shape, which brings back the stroke as
        drawn), and the app erases, undoes
        and redoes: nothing we send makes it crash, every stroke has as many
        points in its view as in ours, and the strokes it removed and redid are removed and
        shown again in ours (its redo as a generation of the stroke, PROTOCOL.md §14.7)."""
        room = self.server.room("original")
        rng = seeded_random("original app")
        first, second = self.node("oa", "alice", room).start(), self.node("ob", "bob", room).start()
        first.wait_joined()
        second.wait_joined()
        drawn = first.draw(rng, 3) + second.draw(rng, 3)
        wait_converged([first, second], 30, points=drawn)
        app = start_original_app(
            self.server, room, "--strokes", "6", "--points-per-stroke", "13", "--erase-every", "3", "--interval", "0.05",
            "--undo-every", "2", "--redo-every", "2", "--seed", "11", "--linger", "25")
        try:
            # While the app is in the room: one node is killed and comes back (catch-up and
            # repairs travel), the other draws, among it two shapes it recognises (a
            # rectangle and an elbow arrow: the app draws a shape as straight lines between
            # its points, and stops on one it cannot draw). Before them, an arrow drawn as a
            # shaft and two barbs: the shaft and the first barb become lines, and the second
            # barb makes one arrow of the three (the app sees both lines and the second barb
            # erased whole, and the arrow added).
            time.sleep(6)
            second.kill()
            drawn += first.draw(rng, 2)
            for waypoints in ([(100, 500), (500, 500)], [(502, 500), (452, 470)], [(502, 500), (452, 530)]):
                first.draw_recognized(rough_polyline(waypoints))
            first.draw_recognized(rough_polyline([(100, 100), (400, 100), (400, 300), (100, 300), (103, 104)]))
            first.draw_recognized(rough_polyline([(600, 100), (600, 300), (900, 300), (865, 275), (900, 300),
                                                  (865, 325)]))
            # Undo takes the elbow arrow back and brings back the connector as drawn: the app
            # sees a shape removed and a hand-drawn stroke added.
            first.send_line({"action": "undo"})
            second.start()
            second.wait_joined()
            out, err = app.communicate(timeout=150)
        finally:
            if app.poll() is None:
                app.kill()
        self.assertEqual(app.returncode, 0, f"the original app's stand-in failed:\n{out}\n{err}")
        view = json.loads(out.strip().splitlines()[-1])
        self.assertEqual(view["crashes"]["count"], 0, f"messages that crash the original app: {view['crashes']}")
        wait_converged([first, second], 60)
        self.assertEqual(first.stop(), 0)
        self.assertEqual(second.stop(), 0)
        # Our view of every stroke, from each node's store, as the app knows the strokes.
        for node in (first, second):
            ours, renamed = view_as_the_original_app_knows_it(CANVAS, node.store, room, self.work)
            self.assertEqual(view["strokes"], ours, f"the app's view (points a stroke) and {node.name}'s")
            self.assertEqual(len(renamed), 1, f"the app's one redo, a generation of its stroke: {renamed}")
        # Its strokes 2 and 6 are undone, stroke 4 undone and redone; each shape is a stroke
        # of its own, and the hand-drawn stroke it replaced is there wholly erased; the elbow
        # arrow, undone, is gone, and the connector is back as drawn (61 points). The arrow of
        # three strokes is six: the shaft and the barbs as drawn, the two lines, all wholly
        # erased, and the arrow (5 points).
        self.assertEqual(len(view["strokes"]), 8 + 6 - 2 + 4 + 6,
                         f"our 8 strokes, 2 shapes and an arrow of three strokes (6), its 4: {sorted(view['strokes'])}")
        shapes = sorted(n for name, n in view["strokes"].items() if view["visible"][name] == [[0.0, n - 1.0]] and n < 12)
        self.assertEqual(shapes, [5, 5], f"the rectangle's and the arrow's points, all visible: {view['visible']}")
        lines = [name for name, n in view["strokes"].items() if n == 2]
        self.assertEqual(len(lines), 2, f"the shaft's and the first barb's lines: {sorted(view['strokes'])}")
        self.assertTrue(all(view["visible"][name] == [] for name in lines), f"both erased whole: {view['visible']}")
        back = [name for name in view["strokes"] if name.endswith("-r1")]
        self.assertEqual(len(back), 1, f"the connector brought back by undo: {sorted(view['strokes'])}")
        self.assertEqual((view["strokes"][back[0]], view["visible"][back[0]]), (61, [[0.0, 60.0]]),
                         "the connector as drawn, all of it visible")

    def test_4b_one_node_in_two_rooms_from_a_config_file_keeps_an_svg_of_each(self):
        """The config file names the rooms and the servers (a dead one first: the members
        of a cluster, `"host"` as an array)."""
        rng = seeded_random("two rooms")
        first, second = self.server.room("first"), self.server.room("second")
        config = os.path.join(self.work, "two-rooms.json")
        exports = os.path.join(self.work, "two-rooms.svg")
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]
        dead.close()
        hosts = [f"127.0.0.1:{dead_port}", f"{self.server.env['XMPP_HOST']}:{self.server.env['XMPP_PORT']}"]
        with open(config, "w") as f:
            json.dump({"room": [first, second], "host": hosts, "export": exports, "export-interval": 0.5}, f)
        both = self.node("two", "alice", [first, second], extra=["--config", config], room_flags=False)
        args = both.command()
        at = args.index("--host")
        del args[at:at + 4]  # --host HOST --port PORT: the config file's hosts instead
        both.command = lambda: args
        both.start()
        other = self.node("second-only", "bob", second).start()
        both.wait_joined(room=first)
        both.wait_joined(room=second)
        other.wait_joined()
        # Standard input draws in the first room; the other node draws in the second.
        mine = both.draw(rng, 3)
        theirs = other.draw(rng, 4)
        both.wait_for(lambda: both.points(first) == mine and both.points(second) == theirs, 30,
                      "each room's strokes in its own replica")
        wait_converged([both, other], 30, room=second, points=theirs)
        both.wait_for(lambda: both.has("exported", first) and both.has("exported", second), 30, "the SVGs")
        self.assertEqual(both.stop(), 0)
        for room in (first, second):
            path = both.last("exported", room)["path"]
            with open(path) as f:
                svg = f.read()
            self.assertIn("<svg", svg)
            self.assertEqual(svg.count("<path"), 3 if room == first else 4, path)
        self.assertEqual(other.stop(), 0)

    def test_4c_a_flood_waits_its_turn_in_the_window_and_nobody_leaves_the_room(self):
        rng = seeded_random("flood")
        room = self.server.room("flood")
        sender, receiver = self.node("fa", "alice", room).start(), self.node("fb", "bob", room).start()
        sender.wait_joined()
        receiver.wait_joined()
        # 600 strokes written at once: far more than the 64 messages that travel
        # unreflected; the rest wait in the room link. SIGTERM right away: the node waits
        # (up to 10 s) for the room to reflect what it sent before it leaves.
        total = sender.draw(rng, 600, points=6)
        sender.wait_for(lambda: sender.points() == total, 60, "its own strokes")
        self.assertEqual(sender.stop(), 0)
        receiver.wait_for(lambda: receiver.points() == total, 60, f"{total} points")
        self.assertEqual(receiver.stop(), 0)
        for node in (sender, receiver):
            with open(node.log_path) as log:
                self.assertNotIn("out of the room", log.read(), f"{node.name} left the room; log {node.log_path}")

    def test_4d_nodes_of_this_version_speak_compact_and_a_node_of_the_previous_version_keeps_the_room_on_json(self):
        """PROTOCOL.md §14.11 through Prosody: a node of this version alone in a room sends its
        strokes compact (a fraction of the text), and a node of this version that joins later
        reads them from the archive; with a node of the previous version in the room
        (--xmpp-json-only: no compact feature) the same drawing goes as JSON, which it reads,
        and nothing reaches it that it refuses. (Alone, the drawer exchanges no anti-entropy
        messages, so its text is its operations only.)"""
        drawer = self.node("versions-new-drawer", "alice", self.server.room("versions-new")).start()
        drawer.wait_joined()
        total = drawer.draw(seeded_random("versions"), 40, points=30)
        drawer.wait_for(lambda: drawer.points() == total, 30, "its own strokes")
        self.assertEqual(drawer.stop(), 0)
        compact = drawer.last("xmpp_stats")["bytes_sent"] / total
        reader = self.node("versions-new-reader", "bob", self.server.room("versions-new")).start()
        reader.wait_for(lambda: reader.points() == total, 30, f"the {total} archived points")
        self.assertEqual([e for e in reader.snapshot() if e.get("event") == "rejected"], [])
        self.assertEqual(reader.stop(), 0)

        old = self.node("versions-old-partner", "bob", self.server.room("versions-old"), extra=["--xmpp-json-only"]).start()
        old.wait_joined()
        drawer = self.node("versions-old-drawer", "alice", self.server.room("versions-old")).start()
        drawer.wait_joined()
        drawer.wait_for(lambda: any(e.get("event") == "member_joined" or len(e.get("occupants", [])) >= 2
                                    for e in drawer.snapshot()), 30, "the old node in the room")
        total = drawer.draw(seeded_random("versions"), 40, points=30)
        wait_converged([drawer, old], 60, points=total)
        self.assertEqual(drawer.stop(), 0)
        self.assertEqual(old.stop(), 0)
        self.assertEqual([e for e in old.snapshot() if e.get("event") == "rejected"], [],
                         f"the old node refused messages; log {old.log_path}")
        json_text = drawer.last("xmpp_stats")["bytes_sent"] / total
        self.assertLess(compact * 2, json_text, f"room text a point: {compact:.1f} bytes compact, {json_text:.1f} as JSON")

    def test_5_bad_credentials_and_untrusted_certificates_fail_clearly(self):
        room = self.server.room("refused")
        wrong = os.path.join(self.work, "wrong.password")
        with open(wrong, "w") as f:
            f.write("not-the-password\n")
        base = [CANVAS, "join", "--room", room, "--memory", "--host", self.server.env["XMPP_HOST"],
                "--port", self.server.env["XMPP_PORT"]]
        result = subprocess.run(base + ["--jid", self.server.jid("alice"), "--password-file", wrong,
                                        "--ca-file", self.server.env["CA_FILE"]],
                                capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(result.returncode, 1)
        self.assertIn("check the user name and password", result.stderr)
        result = subprocess.run(base + ["--jid", self.server.jid("alice"),
                                        "--password-file", self.server.password_file("alice")],
                                capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(result.returncode, 1)
        self.assertIn("--ca-file", result.stderr)
        # A server that does not serve the JID's domain (stream error host-unknown): no retry.
        result = subprocess.run(base + ["--jid", "alice@nosuch.example", "--password-file",
                                        self.server.password_file("alice"), "--ca-file", self.server.env["CA_FILE"]],
                                capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(result.returncode, 1, result.stderr[-2000:])
        self.assertIn("host-unknown", result.stderr)
        self.assertIn("check the JID's domain and the host you connect to", result.stderr)

    def test_5b_several_hosts_a_dead_first_one_is_passed_over_at_once(self):
        """--host may repeat (HOST or HOST:PORT): a refused connection moves on to the next
        address at once, without the backoff (issue 13: the members of a cluster)."""
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]
        dead.close()  # nothing listens there: connections are refused
        room = self.server.room("several-hosts")
        node = self.node("several", "alice", room, extra=[])
        args = node.command()
        at = args.index("--host")
        del args[at:at + 4]  # --host HOST --port PORT
        args += ["--host", f"127.0.0.1:{dead_port}", "--host", f"{self.server.env['XMPP_HOST']}:{self.server.env['XMPP_PORT']}"]
        node.command = lambda: args
        started = time.monotonic()
        node.start()
        node.wait_joined(timeout=20)
        self.assertLess(time.monotonic() - started, 5, "the dead first address held the node back")
        self.assertEqual(node.stop(), 0)
        with open(node.log_path) as log:
            text = log.read()
        self.assertIn(f"cannot connect to 127.0.0.1:{dead_port}", text)


class CuttableProxy:
    """A TCP proxy to the server whose connections the test can cut, and which can refuse
    new ones for a while: a node's network failing while the server lives on."""

    def __init__(self, host, port):
        import socket
        import threading
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets = []
        self.lock = threading.Lock()
        self.refusing = False
        self.deaf = False  # drop what the server sends: the client's sends still arrive
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        import socket
        import threading
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing:
                client.close()
                continue
            server = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, server]
            for a, b, downstream in ((client, server, False), (server, client, True)):
                threading.Thread(target=self._pump, args=(a, b, downstream), daemon=True).start()

    def _pump(self, source, sink, downstream):
        import socket
        try:
            while data := source.recv(65536):
                if not (downstream and self.deaf):
                    sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        source.close()

    def cut(self, refuse=True):
        import socket
        self.refusing = refuse
        with self.lock:
            sockets, self.sockets = self.sockets, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def close(self):
        self.listener.close()
        self.cut()


class XMPPConnectionCut(unittest.TestCase):
    """The node's connection breaks while the server runs on: the node draws offline, then
    resumes its XEP-0198 session (no rejoin) and everything converges."""

    @staticmethod
    def cut_and_steady(server, proxy, room, work):
        """Two nodes in `room`, joined: `cut` connects through `proxy`, `steady` directly."""
        cut = Node(CANVAS, "cut", room, server.jid("alice"), server.password_file("alice"),
                   dict(server.env, XMPP_PORT=str(proxy.port)), os.path.join(work, "cut"), log_dir=work)
        steady = Node(CANVAS, "steady", room, server.jid("bob"), server.password_file("bob"), server.env,
                      os.path.join(work, "steady"), log_dir=work)
        for node in (cut, steady):
            node.start()
        for node in (cut, steady):
            node.wait_joined()
        return cut, steady

    def test_a_cut_connection_is_resumed_and_nothing_drawn_offline_is_lost(self):
        server = Prosody("cut")
        work = workfolders.make("canvas-xmpp-cut-")
        proxy = CuttableProxy(server.env["XMPP_HOST"], server.env["XMPP_PORT"])
        try:
            room = server.room("cut")
            cut, steady = self.cut_and_steady(server, proxy, room, work)
            rng = seeded_random("cut")
            total = cut.draw(rng, 3) + steady.draw(rng, 3)
            wait_converged([cut, steady], 60, points=total)

            proxy.cut(refuse=True)
            cut.wait_for(lambda: cut.has("offline"), 30, "noticing the cut")
            total += cut.draw(rng, 4) + steady.draw(rng, 4)
            time.sleep(1)
            proxy.refusing = False
            cut.wait_for(lambda: (cut.last("online") or {}).get("resumed"), 60, "resuming its session")
            wait_converged([cut, steady], 60, points=total)
            joins = [e for e in cut.snapshot() if e.get("event") == "joined"]
            self.assertEqual(len(joins), 1, "a resumed session keeps its room presence: no rejoin")
            for node in (cut, steady):
                self.assertEqual(node.stop(), 0)
        finally:
            proxy.close()
            server.stop()


    def test_what_the_room_got_before_a_lost_session_does_not_reach_the_original_app_twice(self):
        """The node sends strokes while it hears nothing back (the room passes them on, their
        reflections are lost), then loses its connection for longer than the server keeps
        the session: it rejoins with a fresh session, finds those strokes among its own
        messages in the room's archive and does not send them again, so the original app
        (its stand-in, which appends an APPEND's points however often it arrives) holds
        each point once; the stroke drawn offline reaches everyone (PROTOCOL.md §14.8)."""
        server = Prosody("resend", PROSODY_SMACKS_HIBERNATION="2")
        work = workfolders.make("canvas-xmpp-resend-")
        proxy = CuttableProxy(server.env["XMPP_HOST"], server.env["XMPP_PORT"])
        app = None
        try:
            room = server.room("resend")
            cut, steady = self.cut_and_steady(server, proxy, room, work)
            app = start_original_app(server, room, "--linger", "40")
            time.sleep(4)
            rng = seeded_random("resend")
            total = cut.draw(rng, 2) + steady.draw(rng, 2)
            wait_converged([cut, steady], 30, points=total)

            proxy.deaf = True
            total += cut.draw(rng, 2)
            steady.wait_for(lambda: steady.points() == total, 30, "the strokes sent while deaf, through the room")
            proxy.cut(refuse=True)
            proxy.deaf = False
            cut.wait_for(lambda: cut.has("offline"), 30, "noticing the cut")
            total += cut.draw(rng, 1)
            time.sleep(3)  # longer than the server keeps the session
            proxy.refusing = False
            cut.wait_for(lambda: cut.last("online") is not None and not cut.last("online").get("resumed")
                         and sum(e.get("event") == "caught_up" for e in cut.snapshot()) >= 2,
                         60, "a fresh session, rejoined and caught up")
            wait_converged([cut, steady], 60, points=total)

            out, err = app.communicate(timeout=90)
            self.assertEqual(app.returncode, 0, f"the original app's stand-in failed:\n{out}\n{err}")
            view = json.loads(out.strip().splitlines()[-1])
            self.assertEqual(view["crashes"]["count"], 0, f"messages that crash the original app: {view['crashes']}")
            for node in (cut, steady):
                self.assertEqual(node.stop(), 0)
            ours, _ = view_as_the_original_app_knows_it(CANVAS, cut.store, room, work)
            self.assertEqual(view["strokes"], ours, "the app's view (points a stroke) and ours")
            self.assertEqual(view["points"], total)
        finally:
            if app and app.poll() is None:
                app.kill()
            proxy.close()
            server.stop()


class XMPPServerVariants(unittest.TestCase):
    """SCRAM-SHA-256 (Prosody offers one SCRAM hash per password_hash) and direct TLS."""

    def test_scram_sha256_over_direct_tls(self):
        server = Prosody("sha256", PROSODY_SCRAM="sha256")
        work = workfolders.make("canvas-xmpp-variant-")
        try:
            room = server.room("variant")
            env = dict(server.env)
            direct = Node(CANVAS, "tls", room, server.jid("alice"), server.password_file("alice"), env,
                          os.path.join(work, "tls"), extra=["--direct-tls"], log_dir=work)
            env_direct = dict(env, XMPP_PORT=env["XMPP_TLS_PORT"])
            direct.env = env_direct
            starttls = Node(CANVAS, "starttls", room, server.jid("bob"), server.password_file("bob"), env,
                            os.path.join(work, "starttls"), log_dir=work)
            for node in (direct, starttls):
                node.start()
            for node in (direct, starttls):
                node.wait_joined()
            rng = seeded_random("variants")
            total = direct.draw(rng, 3) + starttls.draw(rng, 3)
            wait_converged([direct, starttls], 60, points=total)
            with open(direct.log_path) as f:
                log = f.read()
            self.assertIn("SCRAM-SHA-256", log)
            for node in (direct, starttls):
                self.assertEqual(node.stop(), 0)
        finally:
            server.stop()


if __name__ == "__main__":
    workfolders.run_tests()
