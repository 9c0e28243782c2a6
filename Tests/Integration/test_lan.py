"""Integration tests of the LAN cluster: `canvas join` processes on real UDP sockets
(multicast on this machine's interface), LAN-only and bridged to XMPP through the elected
gateway (Prosody from scripts/prosody-harness).

Run by scripts/test; alone: `python3 Tests/Integration/test_lan.py` with CANVAS_BIN set."""

import array
import fcntl
import json
import os
import random
import socket
import subprocess
import sys
import termios
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import workfolders  # noqa: E402
from canvasnode import (  # noqa: E402
    Node, multicast_interface, rough_polyline, seeded_random, view_as_the_original_app_knows_it, wait_converged)
from lan_wire import data_chunk, is_compact  # noqa: E402
from test_xmpp import CANVAS, HARNESS, Prosody, start_original_app  # noqa: E402


def setUpModule():
    if multicast_interface() is None:
        raise unittest.SkipTest("no up interface with MULTICAST and an IPv4 address here "
                                "(test_lan_netns.py builds its own LAN when run as root)")


class LANNode(Node):
    """A `canvas join` with the LAN cluster (LAN-only unless given an XMPP account)."""

    def __init__(self, name, room, work, port, group, key_file=None, xmpp=None, extra=()):  # noqa: PLR0913
        super().__init__(CANVAS, name, room, None, None, xmpp[0].env if xmpp else {}, os.path.join(work, name),
                         extra=extra, log_dir=os.path.join(work, "logs"))
        self.port, self.group, self.key_file, self.xmpp = port, group, key_file, xmpp

    def command(self):
        args = [self.canvas, "join", "--room", self.rooms[0], "--store", self.store, "--events",
                "--log-level", "debug", "--lan", "--lan-port", str(self.port), "--lan-group", self.group,
                "--lan-beacon-interval", "0.25"]
        if self.key_file:
            args += ["--lan-key-file", self.key_file]
        if self.xmpp:
            server, user = self.xmpp
            args += ["--jid", server.jid(user), "--password-file", server.password_file(user),
                     "--host", server.env["XMPP_HOST"], "--port", server.env["XMPP_PORT"],
                     "--ca-file", server.env["CA_FILE"]]
        return args + self.extra

    def wait_members(self, count, timeout=20):
        def members():
            joined = sum(1 for e in self.snapshot() if e.get("event") == "member_joined" and e.get("via") == "lan")
            left = sum(1 for e in self.snapshot() if e.get("event") == "member_left" and e.get("via") == "lan")
            return joined - left
        self.wait_for(lambda: members() >= count, timeout, f"{count} LAN members")


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("0.0.0.0", 0))
        return s.getsockname()[1]


class LANCluster(unittest.TestCase):
    def setUp(self):
        self.work = workfolders.make("canvas-lan-")
        self.port = free_udp_port()
        self.group = f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
        self.nodes = []

    def tearDown(self):
        for node in self.nodes:
            if node.process and node.process.poll() is None:
                node.kill()

    def node(self, name, room="lan-room", **options):
        node = LANNode(name, room, self.work, self.port, self.group, **options)
        self.nodes.append(node)
        return node

    def test_five_nodes_converge(self):
        rng = seeded_random("five LAN nodes")
        nodes = [self.node(f"n{i}").start() for i in range(5)]
        for node in nodes:
            node.wait_members(4)
        total = 0
        for _ in range(3):
            for node in nodes:
                total += node.draw(rng, 3)
        wait_converged(nodes, 60, points=total)
        for node in nodes:
            self.assertEqual(node.stop(), 0)

    def test_a_node_whose_event_reader_stalls_stays_in_the_cluster_and_catches_up(self):
        """A program that stops reading a node's events must not stop the node's sockets and
        timers: events are written from the node's loop (a pipe, non-blocking), and had they
        blocked it, its beacons would stop and the others would see it leave."""
        rng = seeded_random("a stalled event reader")
        a = self.node("a").start()
        b = self.node("b").start()
        pipe = b.process.stdout.fileno()
        fcntl.fcntl(pipe, 1031, 4096)  # F_SETPIPE_SZ: a page, filled by a few dozen events
        a.wait_members(1)
        b.wait_members(1)
        b.reading.clear()
        total = 0
        stalled_until = time.monotonic() + 5
        while time.monotonic() < stalled_until:
            total += a.draw(rng, 2)
            time.sleep(0.1)
        unread = array.array("i", [0])
        fcntl.ioctl(pipe, termios.FIONREAD, unread)
        self.assertGreaterEqual(unread[0], 3072, "b's events did not fill its pipe: nothing was stalled")
        left = [e for e in a.snapshot() if e.get("event") == "member_left"]
        self.assertEqual(left, [], "b stopped answering the LAN while its event reader stood still")
        b.reading.set()
        wait_converged([a, b], 60, points=total)
        with open(b.log_path) as log:
            self.assertNotIn("standard output is closed", log.read())
        for node in (a, b):
            self.assertEqual(node.stop(), 0)

    def sniffer(self):
        """A socket on the cluster's group and port that only listens (no beacons: no
        member), to see what the nodes send."""
        interface = multicast_interface()
        address = subprocess.run(["ip", "-o", "-4", "addr", "show", "dev", interface], capture_output=True,
                                 text=True, check=True).stdout.split()[3].split("/")[0]
        sniffer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(sniffer.close)
        sniffer.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sniffer.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sniffer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        sniffer.bind(("", self.port))
        sniffer.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                           socket.inet_aton(self.group) + socket.inet_aton(address))
        sniffer.setblocking(False)
        return sniffer

    @staticmethod
    def payloads(sniffer):
        """(sender, payload, datagram format version) of the data datagrams heard since the last call."""
        found = []
        while True:
            try:
                datagram, _ = sniffer.recvfrom(65535)
            except BlockingIOError:
                return found
            chunk = data_chunk(datagram)
            if chunk:
                found.append((*chunk, datagram[4]))

    def test_a_node_of_the_previous_version_keeps_the_cluster_on_json(self):
        """Compact payloads (PROTOCOL.md §15) and compact datagrams (docs/lan.md, version 2)
        only while every member announces them: with a node that stands in for the previous
        version (JSON in version 1 datagrams, refusing the rest), the others send JSON in
        version 1, nothing it must refuse, and all converge; once it has left they go compact
        again."""
        rng = seeded_random("a node of the previous version")
        sniffer = self.sniffer()
        nodes = [self.node(f"new{i}").start() for i in range(2)]
        old = self.node("old", extra=["--lan-json-only"]).start()
        for node in nodes + [old]:
            node.wait_members(2)
        self.payloads(sniffer)  # what was sent before everyone had heard everyone
        total = sum(node.draw(rng, 4) for node in nodes + [old])
        wait_converged(nodes + [old], 60, points=total)
        heard = self.payloads(sniffer)
        self.assertTrue(heard, "the sniffer heard no data")
        self.assertEqual([p[:40] for _, p, _ in heard if is_compact(p)], [], "compact payloads with an old member")
        self.assertEqual({version for _, _, version in heard}, {1}, "version 2 datagrams with an old member")
        refused = [e for e in old.snapshot() if e.get("event") == "rejected"]
        self.assertEqual(refused, [], "the others sent the old node payloads it cannot read")
        self.assertEqual(old.stop(), 0)
        for node in nodes:
            node.wait_for(lambda node=node: any(e.get("event") == "member_left" for e in node.snapshot()), 20,
                          "the old node's goodbye")
        self.payloads(sniffer)
        total += sum(node.draw(rng, 4) for node in nodes)
        wait_converged(nodes, 60, points=total)
        heard = self.payloads(sniffer)
        operations = [p for _, p, _ in heard if not p.startswith(b'{"type":"SYNC')]
        self.assertEqual({version for _, _, version in heard}, {2}, "not version 2 among new nodes")
        self.assertTrue(operations and all(is_compact(p) for p in operations),
                        f"not compact among new nodes: {[p[:40] for p in operations if not is_compact(p)]}")
        for node in nodes:
            self.assertEqual(node.stop(), 0)

    def test_duplicated_delayed_and_reordered_datagrams_still_converge_exactly(self):
        rng = seeded_random("faulty LAN")
        faults = ["--lan-faults", "dup=0.2,delay=0.3,max-delay-ms=40"]
        nodes = [self.node(f"f{i}", extra=faults).start() for i in range(4)]
        for node in nodes:
            node.wait_members(3)
        total = 0
        for _ in range(4):
            for node in nodes:
                total += node.draw(rng, 3)
        wait_converged(nodes, 60, points=total)
        for node in nodes:
            self.assertEqual(node.stop(), 0)

    def test_a_node_that_leaves_and_rejoins_catches_up(self):
        rng = seeded_random("leave and rejoin")
        nodes = [self.node(f"r{i}").start() for i in range(3)]
        for node in nodes:
            node.wait_members(2)
        total = sum(node.draw(rng, 2) for node in nodes)
        wait_converged(nodes, 30, points=total)
        self.assertEqual(nodes[2].stop(), 0)
        total += nodes[0].draw(rng, 4) + nodes[1].draw(rng, 4)
        nodes[2].start()
        wait_converged(nodes, 30, points=total)
        for node in nodes:
            self.assertEqual(node.stop(), 0)

    def test_rooms_sharing_the_lan_stay_apart_and_a_key_keeps_strangers_out(self):
        rng = seeded_random("rooms and keys")
        key = os.path.join(self.work, "room.key")
        with open(key, "wb") as f:
            f.write(os.urandom(32))
        keyed = [self.node(f"k{i}", room="keyed", key_file=key).start() for i in range(2)]
        stranger = self.node("stranger", room="keyed").start()  # same room, no key
        elsewhere = self.node("elsewhere", room="other").start()
        for node in keyed:
            node.wait_members(1)
        total = keyed[0].draw(rng, 3) + keyed[1].draw(rng, 3)
        wait_converged(keyed, 30, points=total)
        stranger.draw(rng, 2)
        elsewhere.draw(rng, 2)
        time.sleep(2)
        for node in keyed:
            self.assertEqual(node.points(), total, f"{node.name} took something from outside its keyed room")
        self.assertEqual(stranger.points(), 2 * 12)
        for node in keyed + [stranger, elsewhere]:
            self.assertEqual(node.stop(), 0)


class LANGateway(unittest.TestCase):
    """A LAN of nodes with XMPP accounts: one gateway relays to the XMPP room; when it is
    killed another takes over and nothing drawn during the switch is lost."""

    def test_gateway_failover_loses_nothing(self):
        server = Prosody("lan-gateway")
        work = workfolders.make("canvas-lan-gw-")
        port = free_udp_port()
        group = f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
        room = server.room("bridged")
        lan = [LANNode(f"g{i}", room, work, port, group, xmpp=(server, user))
               for i, user in enumerate(("alice", "bob", "carol"))]
        remote = Node(CANVAS, "remote", room, server.jid("dave"), server.password_file("dave"), server.env,
                      os.path.join(work, "remote"), log_dir=os.path.join(work, "logs"))
        everyone = lan + [remote]
        try:
            for node in everyone:
                node.start()
            for node in lan:
                node.wait_members(2)
                node.wait_for(lambda n=node: n.has("gateway"), 20, "a gateway")
            remote.wait_joined()
            rng = seeded_random("gateway failover")
            total = sum(node.draw(rng, 2) for node in everyone)
            wait_converged(everyone, 60, points=total)

            gateway_id = lan[0].last("gateway")["node"]
            gateway = next(n for n in lan if n.last("started")["node"] == gateway_id)
            others = [n for n in lan if n is not gateway]
            gateway.kill()
            began = time.monotonic()
            # Drawing on both sides during the switch.
            total += sum(node.draw(rng, 3) for node in others + [remote])
            for node in others:
                node.wait_for(lambda n=node: (n.last("gateway") or {}).get("node") not in (None, gateway_id),
                              10, "a new gateway")
            takeover = time.monotonic() - began
            print(f"gateway takeover after {takeover:.2f} s (beacons every 0.25 s)", flush=True)
            self.assertLess(takeover, 3.0, f"the takeover took {takeover:.1f} s")
            wait_converged(others + [remote], 60, points=total)
            for node in others + [remote]:
                self.assertEqual(node.stop(), 0)
        finally:
            for node in everyone:
                if node.process and node.process.poll() is None:
                    node.kill()
            server.stop()

    def test_the_gateway_speaks_to_the_original_app_without_crashing_or_duplicating_points(self):
        """Two LAN nodes, one of them the gateway to an XMPP room where the original app
        (its stand-in) draws too: strokes drawn on the LAN reach the app through the
        gateway once, nothing the gateway sends would crash it, and the app's strokes reach
        the LAN, its undo and redo too (the gateway names a redone stroke, the LAN keeps
        the name)."""
        server = Prosody("lan-original")
        work = workfolders.make("canvas-lan-app-")
        port = free_udp_port()
        group = f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
        room = server.room("bridged-app")
        gateway = LANNode("gw", room, work, port, group, xmpp=(server, "alice"))
        quiet = LANNode("lan", room, work, port, group)
        nodes = [gateway, quiet]
        app = None
        try:
            for node in nodes:
                node.start()
            gateway.wait_members(1)
            quiet.wait_members(1)
            gateway.wait_joined()
            gateway.wait_for(lambda: (gateway.last("gateway") or {}).get("node") == gateway.last("started")["node"],
                             20, "being the gateway")
            rng = seeded_random("gateway and the original app")
            drawn = quiet.draw(rng, 3)
            wait_converged(nodes, 30, points=drawn)
            app = start_original_app(
                server, room, "--strokes", "4", "--points-per-stroke", "13", "--interval", "0.05", "--seed", "5",
                "--undo-every", "2", "--redo-every", "1", "--linger", "15")
            time.sleep(4)
            drawn += quiet.draw(rng, 2)
            # A shape recognised on the LAN: its ADD and APPEND cross the LAN apart, and the
            # gateway sends them on as one MEGA (the app cannot draw a shape of one point).
            quiet.draw_recognized(rough_polyline([(100, 100), (400, 100), (400, 300), (100, 300), (103, 104)]))
            out, err = app.communicate(timeout=120)
            self.assertEqual(app.returncode, 0, f"the original app's stand-in failed:\n{out}\n{err}")
            view = json.loads(out.strip().splitlines()[-1])
            self.assertEqual(view["crashes"]["count"], 0, f"messages that crash the original app: {view['crashes']}")
            # The app holds the LAN's strokes and its own; the LAN holds the same points (and
            # the strokes the app removed, which it no longer holds: compared below).
            wait_converged(nodes, 60)
            for node in nodes:
                self.assertEqual(node.stop(), 0)
            ours, renamed = view_as_the_original_app_knows_it(CANVAS, quiet.store, room, work)
            self.assertEqual(view["strokes"], ours, "the app's view (points a stroke) and the LAN's")
            self.assertEqual(len(renamed), 2, f"the app's two redone strokes, generations on the LAN: {renamed}")
            self.assertEqual(len(view["strokes"]), 5 + 2 + 4,
                             "the app should hold the LAN's 5 strokes, the shape and the stroke it replaced, and its 4")
            shapes = [n for name, n in view["strokes"].items() if view["visible"][name] == [[0.0, n - 1.0]] and n < 12]
            self.assertEqual(shapes, [5], f"the rectangle's points, all visible: {view['visible']}")
        finally:
            if app and app.poll() is None:
                app.kill()
            for node in nodes:
                if node.process and node.process.poll() is None:
                    node.kill()
            server.stop()


class EndToEndBenchmark(unittest.TestCase):
    """`canvas bench 1000-user --e2e` in a small form: real nodes in two LAN groups bridged
    by an XMPP room, authors drawing through standard input: once on a Prosody this test
    starts (the benchmark's --xmpp-host: an existing server), once on an ejabberd the
    benchmark starts itself (--server ejabberd). CI asserts that every node ends with every
    point (the benchmark's own check) and that latency was measured on both paths; the
    figures are docs/benchmarks.md's."""

    def run_small(self, server_arguments, expected_server):
        work = workfolders.make(f"canvas-e2e-{expected_server}-")
        result = subprocess.run(
            [CANVAS, "bench", "1000-user", "--e2e", "--nodes", "6", "--groups", "2", "--authors", "100",
             "--seconds", "8", "--settle", "30", *server_arguments, "--work", work, "--json"],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, f"the benchmark failed:\n{result.stdout}\n{result.stderr[-3000:]}")
        run = json.loads(result.stdout.strip().splitlines()[-1])["runs"][0]
        self.assertEqual(run["server"], expected_server)
        self.assertTrue(run["converged"], run)
        self.assertEqual(run["points"], 100 * 15 * 8)
        self.assertEqual(run["fell_behind"], [])
        self.assertEqual(run["behind"], [])
        # The node that only listens (--listeners, default 1) converged too, and its CPU is
        # reported apart.
        self.assertEqual(run["listeners"], 1)
        self.assertGreater(run["listener_cpu_us_per_point"], 0, run)
        self.assertGreater(run["same_lan"]["count"], 0)
        self.assertGreater(run["across_xmpp"]["count"], 0)
        # Compact payloads on the LAN (PROTOCOL.md §15): JSON took 29 or more bytes a point.
        self.assertLess(run["lan_bytes_per_point"], 29, run)
        return run

    def test_a_small_end_to_end_run_converges_on_an_existing_prosody(self):
        server = Prosody("e2e")
        self.addCleanup(server.stop)
        env = server.env
        run = self.run_small(
            ["--xmpp-host", env["XMPP_HOST"], "--xmpp-port", env["XMPP_PORT"], "--xmpp-muc-service", env["MUC_SERVICE"],
             "--xmpp-jid", server.jid("alice"), "--xmpp-password-file", server.password_file("alice"),
             "--xmpp-jid", server.jid("bob"), "--xmpp-password-file", server.password_file("bob"),
             "--xmpp-ca-file", env["CA_FILE"], "--xmpp-server-pid", env["SERVER_PID"]],
            "existing")
        self.assertGreater(run["server_cpu_s"], 0)

    def test_a_small_end_to_end_run_converges_through_ejabberd(self):
        self.run_small(["--server", "ejabberd", "--harness", os.path.join(os.path.dirname(HARNESS), "ejabberd-harness")],
                       "ejabberd")

    def test_the_benchmark_names_what_an_existing_server_lacks(self):
        result = subprocess.run(
            [CANVAS, "bench", "1000-user", "--e2e", "--groups", "2", "--xmpp-host", "127.0.0.1",
             "--xmpp-muc-service", "rooms.example", "--xmpp-jid", "a@example", "--xmpp-password-file", "/dev/null"],
            capture_output=True, text=True, timeout=30)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("need 2 --xmpp-jid accounts, got 1", result.stderr)


if __name__ == "__main__":
    workfolders.run_tests()
