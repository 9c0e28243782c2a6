"""Integration tests of the LAN cluster on a real LAN built from network namespaces (root
only): a bridge namespace, one namespace per `canvas join` node with a veth pair into the
bridge, UDP multicast on the veths; packet loss from `iptables ... -m statistic` inside the
node namespaces, a partition by moving bridge ports to a second bridge, and spoofed and
replayed datagrams sent from an extra namespace on the LAN (netns.py builds the LAN).

Skipped when not root or when `ip netns` does not work. The loss test needs `iptables`
(Debian: `apt-get install iptables`). Alone:
`CANVAS_BIN=.build/debug/canvas python3 Tests/Integration/test_lan_netns.py`."""

import json
import os
import random
import signal
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import workfolders  # noqa: E402
import netns  # noqa: E402
from canvasnode import Node, seeded_random, wait_converged  # noqa: E402
from lan_wire import (KIND_DATA, MAGIC, SEALED_VERSION, carries_append, data_datagram, is_for_room,  # noqa: E402
                      open_sealed, parse_header, with_sequence)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CANVAS = os.path.abspath(os.environ.get("CANVAS_BIN", os.path.join(ROOT, ".build", "debug", "canvas")))
PORT = 47777
# Seconds the 50-node cluster is left alone between forming and drawing (see test 1).
SETTLE = float(os.environ.get("CANVAS_NETNS_SETTLE", "0"))
STARTED = time.monotonic()


def setUpModule():
    reason = netns.unavailable_reason()
    if reason:
        raise unittest.SkipTest(f"no LAN of network namespaces: {reason}")
    if not os.access(CANVAS, os.X_OK):
        raise unittest.SkipTest(f"no canvas binary at {CANVAS} (set CANVAS_BIN)")


class NSNode(Node):
    """A LAN-only `canvas join` running in one host namespace of the LAN."""

    def __init__(self, host, name, room, work, group, key_file=None, beacon=0.5, log_level="debug", faults=None):
        super().__init__(CANVAS, name, room, None, None, {}, os.path.join(work, name),
                         log_dir=os.path.join(work, "logs"))
        self.host, self.group, self.key_file, self.beacon, self.log_level = host, group, key_file, beacon, log_level
        self.faults = faults

    def command(self):
        args = self.host.exec_prefix() + [
            self.canvas, "join", "--room", self.rooms[0], "--memory", "--events", "--log-level", self.log_level, "--lan",
            "--lan-interface", self.host.interface, "--lan-group", self.group, "--lan-port", str(PORT),
            "--lan-beacon-interval", str(self.beacon)]
        if self.key_file:
            args += ["--lan-key-file", self.key_file]
        if self.faults:
            args += ["--lan-faults", self.faults]
        return args

    def node_id(self):
        event = self.last("started")
        return event and event["node"]

    def members(self):
        count = 0
        for e in self.snapshot():
            if e.get("via") == "lan":
                count += {"member_joined": 1, "member_left": -1}.get(e.get("event"), 0)
        return count

    def wait_members(self, count, timeout=30):
        self.wait_for(lambda: self.members() >= count, timeout, f"{count} LAN members")

    def wait_started(self, timeout=60):
        self.wait_for(lambda: self.has("lan_started") and self.has("started"), timeout, "the LAN transport")


def stop_all(nodes, timeout=30):
    """SIGTERM to every node at once, then their exit codes (and their lan_stats events)."""
    for node in nodes:
        node.process.send_signal(signal.SIGTERM)
    codes = {}
    for node in nodes:
        codes[node.name] = node.process.wait(timeout=timeout)
        node._close()
    return codes


def stroke(rng, points):
    x, y = rng.uniform(0, 2000), rng.uniform(0, 2000)
    samples = []
    for _ in range(points):
        x += rng.uniform(-8, 8)
        y += rng.uniform(-8, 8)
        samples.append([round(x, 2), round(y, 2)])
    return samples


def forged_stroke(rng, identifier, points):
    """An ADD and an APPEND (protocol messages) drawing a stroke of `points` points."""
    samples = stroke(rng, points)
    add = {"type": "ADD", "identifier": identifier, "weight": 3, "colour": [255, 0, 0], "start": samples[0]}
    append = {"type": "APPEND", "identifier": identifier, "points": samples[1:], "offset": 1}
    return [json.dumps(add).encode(), json.dumps(append).encode()]


class NamespaceLAN(unittest.TestCase):
    def setUp(self):
        self.started = time.monotonic()
        self.work = workfolders.make("canvas-lan-netns-")
        self.lan = netns.LAN()
        self.addCleanup(self.lan.close)  # runs after tearDown, also when setUp fails later
        # A random group per run: runs never hear each other even on a shared bridge.
        self.group = f"239.255.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
        self.nodes = []
        print(f"\n{self.id()}: LAN {self.lan.prefix} on {self.lan.subnet}.0/24, group {self.group}:{PORT}, "
              f"logs in {self.work}/logs", flush=True)

    def tearDown(self):
        for node in self.nodes:
            if node.process and node.process.poll() is None:
                node.kill()
        self.lan.close()
        print(f"{self.id()}: {time.monotonic() - self.started:.1f} s in all", flush=True)

    def lap(self, what, since):
        now = time.monotonic()
        print(f"  {what}: {now - since:.2f} s", flush=True)
        return now

    def node(self, host, name, room="netns-room", **options):
        node = NSNode(host, name, room, self.work, self.group, **options)
        self.nodes.append(node)
        return node

    def assert_alive(self, nodes):
        for node in nodes:
            self.assertIsNone(node.process.poll(),
                              f"{node.name} exited with {node.process.returncode}; log {node.log_path}:\n{node.tail()}")

    def assert_stopped_cleanly(self, nodes):
        codes = stop_all(nodes)
        self.assertEqual(codes, {n.name: 0 for n in nodes}, "nodes that did not exit 0 on SIGTERM")

    # 1

    def test_fifty_nodes_converge(self):
        rng = seeded_random("fifty nodes on namespaces")
        t = time.monotonic()
        hosts = self.lan.add_hosts(50)
        t = self.lap("50 namespaces with veths", t)
        nodes = [self.node(h, f"f{h.index}", log_level="info").start() for h in hosts]
        for node in nodes:
            node.wait_started(timeout=90)
        t = self.lap("50 nodes started", t)
        # Everyone draws as soon as the cluster has formed. (This once set off a storm of
        # NACKs that never converged: full receive buffers lost datagrams, whose NACKs, sent
        # to all 50, lost more. Fixed by a 4 MiB receive buffer and a NACK budget per node;
        # CANVAS_NETNS_SETTLE=S waits S seconds before drawing, to compare.)
        for node in nodes:
            node.wait_members(49, timeout=60)
        t = self.lap("every node sees the 49 others", t)
        time.sleep(SETTLE)
        t = self.lap(f"settled (CANVAS_NETNS_SETTLE={SETTLE:g})", t)
        total = 0
        for node in nodes:
            total += node.draw(rng, 2, points=4)
        t = self.lap(f"50 x 2 strokes drawn ({total} points)", t)
        digest = wait_converged(nodes, 100, points=total)
        t = self.lap(f"all 50 converged on {digest} with {total} points", t)
        members = [n.members() for n in nodes]
        print(f"  LAN members seen per node: min {min(members)}, max {max(members)}", flush=True)
        self.assert_stopped_cleanly(nodes)
        self.lap("50 nodes stopped", t)

    # 2

    def test_twenty_percent_loss_loses_nothing(self):
        reason = netns.iptables_reason()
        if reason:
            self.skipTest(f"no loss injection: {reason}")
        rng = seeded_random("20% loss on namespaces")
        t = time.monotonic()
        hosts = self.lan.add_hosts(5)
        for host in hosts:
            host.drop_randomly(0.2)
        # On top of the kernel's loss, the nodes' own datagrams are duplicated and reordered.
        faults = "dup=0.1,delay=0.2,max-delay-ms=30"
        nodes = [self.node(h, f"l{h.index}", faults=faults).start() for h in hosts]
        for node in nodes:
            node.wait_members(4, timeout=60)
        t = self.lap("5 nodes see each other through 20% loss, 10% duplication, 20% delay", t)
        total = 0
        for _ in range(6):  # concurrent: every node draws in every round
            for node in nodes:
                total += node.draw(rng, 1, points=rng.randrange(10, 40))
            time.sleep(0.1)
        t = self.lap(f"30 strokes drawn ({total} points)", t)
        digest = wait_converged(nodes, 90, points=total)
        t = self.lap(f"converged on {digest} with {total} points", t)
        drops = {h.namespace: h.input_drops() for h in hosts}
        print(f"  packets dropped by iptables per node: {sorted(drops.values())}", flush=True)
        for namespace, dropped in drops.items():
            self.assertGreater(dropped, 0, f"no packet was dropped in {namespace}: the loss was not injected")
        self.assert_stopped_cleanly(nodes)
        stats = [n.last("lan_stats") or {} for n in nodes]
        print("  nacks sent " + str([s.get("nacks_sent") for s in stats]) + ", repairs sent "
              + str([s.get("repairs_sent") for s in stats]) + ", losses given up "
              + str([s.get("losses_given_up") for s in stats]), flush=True)

    # 3

    def test_partition_heals_and_converges(self):
        rng = seeded_random("partition on namespaces")
        t = time.monotonic()
        hosts = self.lan.add_hosts(6)
        nodes = [self.node(h, f"p{h.index}").start() for h in hosts]
        for node in nodes:
            node.wait_members(5)
        t = self.lap("6 nodes see each other", t)
        base = sum(node.draw(rng, 1, points=6) for node in nodes)
        wait_converged(nodes, 30, points=base)
        t = self.lap(f"converged before the partition ({base} points)", t)

        west, east = nodes[:3], nodes[3:]
        self.lan.move([n.host for n in east], "br1")
        # Both sides notice the other half is gone (missed beacons).
        for node in nodes:
            node.wait_for(lambda n=node: n.members() <= 2, 30, "the other half to leave")
        t = self.lap("the halves lost each other", t)
        west_points = sum(node.draw(rng, 3, points=8) for node in west)
        east_points = sum(node.draw(rng, 2, points=10) for node in east)
        west_digest = wait_converged(west, 30, points=base + west_points)
        east_digest = wait_converged(east, 30, points=base + east_points)
        self.assertNotEqual(west_digest, east_digest)
        time.sleep(2)  # nothing crosses the partition
        for node in west:
            self.assertEqual(node.points(), base + west_points, f"{node.name} got points across the partition")
        for node in east:
            self.assertEqual(node.points(), base + east_points, f"{node.name} got points across the partition")
        t = self.lap(f"each half converged on its own ({base + west_points} / {base + east_points} points)", t)

        self.lan.move([n.host for n in east], "br0")
        total = base + west_points + east_points
        digest = wait_converged(nodes, 60, points=total)
        t = self.lap(f"healed: all 6 converged on {digest} with {total} points", t)
        for node in nodes:
            node.wait_members(5)
        self.assert_stopped_cleanly(nodes)

    # 4

    def test_spoofed_and_replayed_datagrams_are_rejected_with_a_key(self):
        rng = seeded_random("spoofing and replays on namespaces")
        room = "keyed-room"
        key = bytes(rng.randrange(256) for _ in range(32))
        key_file = os.path.join(self.work, "room.key")
        with open(key_file, "wb") as f:
            f.write(key)
        t = time.monotonic()
        hosts = self.lan.add_hosts(3)
        attacker = self.lan.add_host()

        # The attacker's ears: a socket joined to the group in its own namespace.
        listener = netns.socket_in(attacker.namespace, socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(listener.close)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        listener.bind(("", PORT))
        listener.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                            socket.inet_aton(self.group) + socket.inet_aton(attacker.address))
        listener.settimeout(0.2)
        # Its mouth.
        sender = netns.socket_in(attacker.namespace, socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(sender.close)
        sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(attacker.address))
        sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)

        def send(datagrams, pause=0.002):
            for datagram in datagrams:
                sender.sendto(datagram, (self.group, PORT))
                time.sleep(pause)
            return len(datagrams)

        nodes = [self.node(h, f"k{h.index}", room=room, key_file=key_file).start() for h in hosts]
        for node in nodes:
            node.wait_members(2)
        t = self.lap("3 keyed nodes see each other", t)
        # Forget what was heard while the nodes started (a datagram sent before a node ran
        # would be new to it, and rightly accepted once): capture from the drawing on.
        listener.settimeout(0)
        while True:
            try:
                listener.recvfrom(65535)
            except BlockingIOError:
                break
        listener.settimeout(0.2)
        total = sum(node.draw(rng, 2, points=8) for node in nodes)
        wait_converged(nodes, 30, points=total)
        t = self.lap(f"converged on their own drawings ({total} points)", t)

        # (b, capture) a real data datagram of k0's, with a valid tag.
        victim = nodes[0].node_id()
        captured = None
        deadline = time.monotonic() + 5
        while captured is None and time.monotonic() < deadline:
            try:
                datagram, _ = listener.recvfrom(65535)
            except socket.timeout:
                continue
            header = parse_header(datagram)
            if not header or header.version != SEALED_VERSION or not is_for_room(header, room) or header.sender != victim:
                continue
            # The attacker cannot read it; the test, which knows the key, picks a data datagram
            # carrying an APPEND, so that replaying it would matter.
            inner = open_sealed(datagram, room, key)
            self.assertIsNotNone(inner, "a datagram of the room does not open with its key (RFC 8439 in Python)")
            if parse_header(inner).kind == KIND_DATA and carries_append(inner):
                captured = datagram
        self.assertIsNotNone(captured, f"the attacker captured no data datagram of {victim}")
        header = parse_header(captured)
        self.assertNotIn(b'"type"', captured, "the captured datagram is readable although the room has a key")

        # (a) garbage, and well-formed strokes from a stranger with a wrong, a missing or a
        # stolen (tampered datagram) tag.
        garbage = [os.urandom(rng.randrange(1, 1400)) for _ in range(60)]
        garbage = [g for g in garbage if not g.startswith(MAGIC)]
        garbage += [MAGIC + bytes([1]) + os.urandom(rng.randrange(0, 60)) for _ in range(40)]
        sent_garbage = send(garbage)
        wrong_key = bytes(rng.randrange(256) for _ in range(32))
        forged = []
        for i in range(20):
            incarnation_forged = rng.randrange(1, 1 << 63)
            for j, payload in enumerate(forged_stroke(rng, f"mallory{i}_1", 5)):
                forged.append(data_datagram(room, f"mallory{i}", incarnation_forged, j + 1, j + 1, payload,
                                            key=wrong_key))
                forged.append(data_datagram(room, f"nokey{i}", incarnation_forged, j + 1, j + 1, payload))
                # The earlier format, authenticated with the room's key but readable by all.
                forged.append(data_datagram(room, f"old{i}", incarnation_forged, j + 1, j + 1, payload, key=key,
                                            old_format=True))
                # A victim's datagram with a fresh sequence number and its old tag.
                forged.append(with_sequence(captured, header.sequence + 1000 + 2 * i + j))
        sent_forged = send(forged)
        # (b, replay) the captured datagram, again and again.
        sent_replays = send([captured] * 200)
        t = self.lap(f"sent {sent_garbage} garbage, {sent_forged} forged and {sent_replays} replayed datagrams", t)

        time.sleep(3)  # several beacon and anti-entropy rounds
        self.assert_alive(nodes)
        for node in nodes:
            self.assertEqual(node.points(), total, f"{node.name} applied something nobody in the room drew")
        digests = {n.digest() for n in nodes}
        self.assertEqual(len(digests), 1, f"the nodes diverged under attack: {digests}")
        # They keep converging on their own drawings.
        total += sum(node.draw(rng, 1, points=6) for node in nodes)
        wait_converged(nodes, 30, points=total)
        for node in nodes:
            self.assertEqual(node.points(), total)
        t = self.lap(f"still converging after the attack ({total} points)", t)

        # The control: the same forgery with the room's key is applied, so the forgeries above
        # were refused for their tags alone.
        control = forged_stroke(rng, "insider_1", 5)
        incarnation_control = rng.randrange(1, 1 << 63)
        send([data_datagram(room, "insider", incarnation_control, j + 1, j + 1, payload, key=key)
              for j, payload in enumerate(control)])
        wait_converged(nodes, 30, points=total + 5)
        t = self.lap("control: the same stroke signed with the room key is applied", t)

        self.assert_stopped_cleanly(nodes)
        for node in nodes:
            udp = node.host.udp_counters()
            lost = udp["RcvbufErrors"]  # datagrams the kernel dropped before the node saw them
            print(f"  {node.name} UDP: in {udp['InDatagrams']}, receive buffer errors {lost}", flush=True)
            stats = node.last("lan_stats")
            self.assertIsNotNone(stats, f"{node.name} reported no lan_stats")
            print(f"  {node.name}: {json.dumps({k: v for k, v in stats.items() if k not in ('event', 'room', '_time')})}",
                  flush=True)
            self.assertGreaterEqual(stats["dropped_malformed"], sent_garbage - lost, f"{node.name}: {stats}")
            # Wrong key and tampered: unauthenticated; plain and HMAC-only: the old format.
            refused = stats["dropped_unauthenticated"] + stats["dropped_old_format"]
            self.assertGreaterEqual(refused, sent_forged - lost, f"{node.name}: {stats}")
            self.assertGreaterEqual(stats["dropped_old_format"], sent_forged * 2 // 4 - lost, f"{node.name}: {stats}")
            if node is not nodes[0]:  # k0 drops its own datagram as its own, not as a replay
                self.assertGreaterEqual(stats["dropped_replayed"], sent_replays - lost, f"{node.name}: {stats}")


if __name__ == "__main__":
    workfolders.run_tests()
