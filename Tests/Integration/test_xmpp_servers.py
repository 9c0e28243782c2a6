"""Canvas past one XMPP server (issue 13): a 2-member ejabberd cluster whose member holding
the room is stopped, then killed, while everyone draws; two federated Prosody servers
sharing a room of one of them; servers found by DNS SRV records.

Run by scripts/test; alone: `python3 Tests/Integration/test_xmpp_servers.py` with CANVAS_BIN
set to the canvas executable. `python3 Tests/Integration/test_xmpp_servers.py --runs N`
repeats the failover scenario N times and prints the failover figures of docs/benchmarks.md
(time from a member's death until each node's strokes reach every other node)."""

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import workfolders  # noqa: E402
from canvasnode import Node, seeded_random, wait_converged  # noqa: E402
import test_xmpp  # noqa: E402  (its Prosody; imported whole, so that its tests do not run here)
from dns_responder import DNSResponder  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EJABBERD_HARNESS = os.path.join(ROOT, "scripts", "ejabberd-harness")
CANVAS = os.environ.get("CANVAS_BIN", os.path.join(ROOT, ".build", "debug", "canvas"))

# Every node's strokes must reach every other node within this long after a member died.
FAILOVER_LIMIT_S = 5.0
# A node that draws nothing must be back in a room that died with its member within this.
IDLE_LIMIT_S = 10.0


class EjabberdCluster:
    """A cluster of ejabberd members started by scripts/ejabberd-harness cluster-start."""

    def __init__(self, members=2):
        self.dir = workfolders.make("canvas-ejabberd-cluster-")
        self._harness("cluster-start", self.dir, str(members))
        self.env = test_xmpp.read_env(os.path.join(self.dir, "env"))
        self.member_dirs = self.env["MEMBER_DIRS"].split()
        self.hosts = self.env["XMPP_HOSTS"].split()
        self.controls = 0

    def _harness(self, *args):
        result = subprocess.run([EJABBERD_HARNESS, *args], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"ejabberd-harness {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")

    def member_env(self, k):
        return test_xmpp.read_env(os.path.join(self.member_dirs[k], "env"))

    def node_name(self, k):
        return self.member_env(k)["EJABBERD_NODE"]

    def stop(self, k):
        """Stops member k as an operator would (SIGTERM: ejabberd shuts down in order)."""
        self._harness("stop", self.member_dirs[k])

    def kill(self, k):
        """Kills member k outright (SIGKILL: the machine died)."""
        os.kill(int(self.member_env(k)["SERVER_PID"]), signal.SIGKILL)

    def restart(self, k):
        self._harness("restart", self.member_dirs[k])

    def rejoin(self, k):
        """Restarts member k and checks that it is back in the cluster's database."""
        self.restart(k)
        other = (k + 1) % len(self.member_dirs)
        members = self.running_members(other)
        assert all(self.node_name(m) in members for m in range(len(self.member_dirs))), \
            f"member {k} did not rejoin the cluster: {members}"

    def close(self):
        self._harness("cluster-stop", self.dir)

    def control(self, expression):
        """Evaluates an Erlang `expression` on a control node of the cluster's Erlang
        distribution (our cookie, our epmd) and returns what it printed."""
        self.controls += 1
        with open(os.path.join(self.dir, "cookie")) as f:
            cookie = f.read().strip()
        result = subprocess.run(
            ["erl", "-noshell", "-sname", f"control{os.getpid()}x{self.controls}@localhost",
             "-setcookie", cookie, "-kernel", "inet_dist_use_interface", "{127,0,0,1}",
             "-eval", expression + ", halt()."],
            env=dict(os.environ, ERL_EPMD_PORT=self.env["EPMD_PORT"]), capture_output=True, text=True, timeout=60)
        return result.stdout.strip()

    def running_members(self, k):
        """The Erlang node names of the members member k's database runs with."""
        return self.control(f"io:format(\"~p~n\", [rpc:call('{self.node_name(k)}', mnesia, system_info, "
                            "[running_db_nodes])])")

    def member_holding(self, room, asking):
        """The index of the member whose process holds `room` (asking member `asking`), or
        None when no member runs it."""
        name, service = room.split("@")
        where = self.control(
            f"case rpc:call('{self.node_name(asking)}', mod_muc, find_online_room, "
            f"[<<\"{name}\">>, <<\"{service}\">>]) of {{ok, Pid}} -> io:format(\"~s~n\", [node(Pid)]); "
            "Other -> io:format(\"~p~n\", [Other]) end")
        for k in range(len(self.member_dirs)):
            if where == self.node_name(k):
                return k
        return None


class ClusterNode(Node):
    """A `canvas join` given several members of the cluster (--host repeated, in `hosts`'
    order) and tracing every stroke, so that the test knows when each stroke arrived."""

    def __init__(self, cluster, name, user, room, hosts, work):
        password_file = os.path.join(work, f"{user}.password")
        with open(password_file, "w") as f:
            f.write(f"{user}-pw\n")
        env = dict(cluster.env, XMPP_HOST=hosts[0].split(":")[0], XMPP_PORT=hosts[0].split(":")[1])
        super().__init__(CANVAS, name, room, f"{user}@{cluster.env['XMPP_DOMAIN']}", password_file, env,
                         os.path.join(work, name), extra=["--trace-strokes", ""], log_dir=work)
        self.hosts = hosts

    def command(self):
        args = super().command()
        at = args.index("--host")
        del args[at:at + 4]  # the one --host/--port of the base class
        for host in self.hosts:
            args += ["--host", host]
        return args

    def node_id(self):
        return self.last("started")["node"]

    def arrivals(self):
        """{stroke: CLOCK_MONOTONIC seconds} of every stroke's first operation (its ADD)."""
        return {e["stroke"]: e["t_ns"] / 1e9 for e in self.snapshot()
                if e.get("event") == "traced" and e.get("offset") == 0}


class Drawing:
    """Every node draws a stroke of 5 points every `interval` seconds, from one thread (the
    only writer to the nodes' standard input while it runs); `points` counts what all
    nodes hold once it stopped, starting from `points`."""

    def __init__(self, nodes, rng, points=0, interval=0.1):
        self.nodes = nodes
        self.rng = rng
        self.interval = interval
        self.points = points  # drawn so far, these included
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            for node in self.nodes:
                if node.process and node.process.poll() is None:
                    self.points += node.draw(self.rng, 1, points=5)
            time.sleep(self.interval)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.points


def failover_times(nodes, died_at):
    """For each node: seconds from `died_at` (CLOCK_MONOTONIC) until the first stroke it
    drew after that instant had reached every other node."""
    arrivals = {node.name: node.arrivals() for node in nodes}
    times = {}
    for node in nodes:
        prefix = node.node_id() + "_"
        own = sorted((t, stroke) for stroke, t in arrivals[node.name].items()
                     if stroke.startswith(prefix) and t >= died_at)
        if not own:
            raise AssertionError(f"{node.name} drew nothing after the member died")
        stroke = own[0][1]
        reached = [arrivals[other.name].get(stroke) for other in nodes if other is not node]
        if None in reached:
            raise AssertionError(f"{node.name}'s stroke {stroke} never reached every other node")
        times[node.name] = max(reached) - died_at
    return times


def failover_scenario(cluster, work, room_name, report=None):
    """Three nodes (two starting on member 0, one on member 1) draw in a room created on
    member 0. Member 0 is stopped while they draw; it restarts and rejoins the cluster, a
    fourth node joins through it; then the member now holding the room is killed while all
    four draw; that member restarts, a fifth node joins through it, and the member holding
    the room is killed while nobody draws (and restarts: the fourth node, which knows
    member 0 alone, comes back). Returns {"stopped": {node: s}, "killed": {node:
    s}} (failover_times) and {"idle": {"erin": s}}: when the fifth node, on the surviving
    member, was back in the room."""
    room = f"{room_name}@{cluster.env['MUC_SERVICE']}"
    first, second = cluster.hosts
    alice = ClusterNode(cluster, "alice", "alice", room, [first, second], work)
    bob = ClusterNode(cluster, "bob", "bob", room, [second, first], work)
    carol = ClusterNode(cluster, "carol", "carol", room, [first, second], work)
    nodes = [alice, bob, carol]
    figures = {}
    try:
        alice.start()
        alice.wait_joined()  # the room starts on member 0, alice's
        for node in (bob, carol):
            node.start()
        for node in (bob, carol):
            node.wait_joined()
        holder = cluster.member_holding(room, 1)
        assert holder == 0, f"the room should live on member 0, where its first occupant is; it is on {holder}"

        rng = seeded_random(room_name)

        def end_while_drawing(how, end, points):
            """Everyone draws; `end` ends a member; returns the points drawn in all."""
            drawing = Drawing(nodes, rng, points=points)
            time.sleep(1.5)
            died_at = time.monotonic()
            end()
            time.sleep(FAILOVER_LIMIT_S + 1)
            total = drawing.stop()
            wait_converged(nodes, 60, points=total)
            figures[how] = failover_times(nodes, died_at)
            if report:
                report(how, figures[how])
            return total

        def newcomer(user, hosts, points, room_on):
            """A node that joins through `hosts` and catches up; the room must be on member
            `room_on`."""
            node = ClusterNode(cluster, user, user, room, hosts, work)
            nodes.append(node)
            node.start()
            node.wait_joined()
            wait_converged(nodes, 60, points=points)
            holder = cluster.member_holding(room, (room_on + 1) % 2)
            assert holder == room_on, f"the room should be on member {room_on}; it is on {holder}"
            return node

        total = end_while_drawing("stopped", lambda: cluster.stop(0), 0)

        # The stopped member starts again and rejoins the cluster; a node connected to it
        # reaches the room, which now lives on member 1.
        cluster.rejoin(0)
        dave = newcomer("dave", [first], total, room_on=1)

        total = end_while_drawing("killed", lambda: cluster.kill(1), total)
        cluster.rejoin(1)

        # Nobody draws: a node whose room dies with another member learns it from its
        # self-ping of the quiet room, and is back in within 10 s.
        erin = newcomer("erin", [second], total, room_on=0)
        time.sleep(2)
        died_at = time.monotonic()
        cluster.kill(0)
        back_in = lambda: next((e["_time"] for e in erin.snapshot()  # noqa: E731
                                if e.get("event") == "joined" and e["_time"] > died_at), None)
        erin.wait_for(back_in, 10 + 5, "rejoining the room that died with member 0")
        figures["idle"] = {"erin": back_in() - died_at}
        if report:
            report("idle", figures["idle"])
        total += alice.draw(rng, 1, points=5)
        wait_converged([node for node in nodes if node is not dave], 60, points=total)

        # dave knows member 0 alone: it waits for it, and comes back when it rejoins.
        cluster.rejoin(0)
        wait_converged(nodes, 60, points=total)

        for node in nodes:
            code = node.stop()
            assert code == 0, f"{node.name} exited with {code}; log {node.log_path}:\n{node.tail()}"
        return figures
    finally:
        for node in nodes:
            if node.process and node.process.poll() is None:
                node.kill()


class EjabberdClusterFailover(unittest.TestCase):
    """Nodes on different members converge; a node whose path to its member breaks resumes
    its session on the other; the member holding the room is stopped, then killed, while
    everyone draws: every node's strokes reach everyone within 5 s, nothing is lost, and
    the member comes back into the cluster."""

    @classmethod
    def setUpClass(cls):
        cls.cluster = EjabberdCluster(2)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.close()

    def test_1_a_session_cut_from_its_member_is_resumed_on_the_other(self):
        """XEP-0198 across the cluster: the session lives on in member 0, which hands it
        to member 1; the node keeps its room presence (no rejoin) and loses nothing."""
        cluster = self.cluster
        work = workfolders.make("canvas-xmpp-cluster-resume-")
        first, second = cluster.hosts
        proxy = test_xmpp.CuttableProxy("127.0.0.1", first.split(":")[1])
        room = f"resume@{cluster.env['MUC_SERVICE']}"
        cut = ClusterNode(cluster, "cut", "alice", room, [f"127.0.0.1:{proxy.port}", second], work)
        steady = ClusterNode(cluster, "steady", "bob", room, [second, first], work)
        try:
            for node in (cut, steady):
                node.start()
                node.wait_joined()
            rng = seeded_random("cluster-resume")
            total = cut.draw(rng, 3) + steady.draw(rng, 3)
            wait_converged([cut, steady], 30, points=total)
            proxy.cut(refuse=True)
            cut.wait_for(lambda: cut.has("offline"), 30, "noticing the cut")
            total += cut.draw(rng, 3) + steady.draw(rng, 3)
            cut_at = cut.last("offline")["_time"]
            # The first "online" came at start: wait for the one after the cut.
            cut.wait_for(lambda: cut.last("online")["_time"] > cut_at, 30, "reconnecting through member 1")
            self.assertTrue(cut.last("online")["resumed"], "the session should resume on the other member")
            wait_converged([cut, steady], 30, points=total)
            self.assertEqual(sum(e.get("event") == "joined" for e in cut.snapshot()), 1, "a resumed session needs no rejoin")
            for node in (cut, steady):
                self.assertEqual(node.stop(), 0)
        finally:
            for node in (cut, steady):
                if node.process and node.process.poll() is None:
                    node.kill()
            proxy.close()

    def test_2_the_room_survives_its_member_being_stopped_then_killed(self):
        work = workfolders.make("canvas-xmpp-cluster-")

        def report(how, times):
            what = {"stopped": "member stopped: strokes reach everyone again after",
                    "killed": "member killed: strokes reach everyone again after",
                    "idle": "member killed in a quiet room: back in the room after"}[how]
            print(f"\n  {what} "
                  + ", ".join(f"{name} {t:.2f} s" for name, t in times.items()), file=sys.stderr)
        figures = failover_scenario(self.cluster, work, "failover", report)
        for how, times in figures.items():
            for name, seconds in times.items():
                limit = IDLE_LIMIT_S if how == "idle" else FAILOVER_LIMIT_S
                self.assertLess(seconds, limit, f"member {how}: {name} was back only after {seconds:.2f} s")


class ProsodyFederation(unittest.TestCase):
    """Two Prosody servers federated on loopback: users of 127.0.0.2 and of 127.0.0.3, the
    room on 127.0.0.4 (a MUC service of the first). IP-literal domains need no DNS: each
    server reaches the other on port 5269 of the domain's address, and they authenticate
    each other by dialback."""

    def test_nodes_of_two_servers_share_a_room_and_a_late_joiner_catches_up_through_its_own(self):
        home = test_xmpp.Prosody("federation-a", PROSODY_DOMAIN="127.0.0.2", PROSODY_MUC_SERVICE="127.0.0.4",
                                 PROSODY_S2S_INTERFACES="127.0.0.2 127.0.0.4")
        away = test_xmpp.Prosody("federation-b", PROSODY_DOMAIN="127.0.0.3", PROSODY_S2S_INTERFACES="127.0.0.3")
        work = workfolders.make("canvas-xmpp-federation-")
        nodes = []

        def node(server, name, user):
            n = Node(CANVAS, name, room, server.jid(user), server.password_file(user), server.env,
                     os.path.join(work, name), log_dir=work)
            nodes.append(n)
            return n.start()

        try:
            room = home.room("federated")
            alice = node(home, "alice", "alice")
            alice.wait_joined()
            bob = node(away, "bob", "bob")  # through its server's s2s link to 127.0.0.4
            bob.wait_joined(timeout=60)
            rng = seeded_random("federation")
            total = 0
            for _ in range(30):  # in turns, so that the archive holds many messages
                total += alice.draw(rng, 1) + bob.draw(rng, 1)
                time.sleep(0.12)
            digest = wait_converged([alice, bob], 60, points=total)
            for n in (alice, bob):
                self.assertEqual(n.stop(), 0)

            # Nobody is in the room: carol, on bob's server, has only the room's archive.
            carol = node(away, "carol", "carol")
            carol.wait_for(lambda: carol.has("caught_up"), 60, "catching up from the archive")
            caught_up = carol.last("caught_up")
            self.assertTrue(caught_up["archive"], f"caught up from history, not the archive: {caught_up}")
            self.assertGreater(caught_up["messages"], 0)
            wait_converged([carol], 30, points=total)
            self.assertEqual(carol.digest(), digest)
            joined = carol.last("joined")["_time"]
            print(f"\n  late joiner through its own server: caught up {caught_up['messages']} messages "
                  f"from the archive in {caught_up['_time'] - joined:.2f} s", file=sys.stderr)
            self.assertEqual(carol.stop(), 0)
        finally:
            for n in nodes:
                if n.process and n.process.poll() is None:
                    n.kill()
            home.stop()
            away.stop()


class SRVDiscovery(unittest.TestCase):
    """Without --host, a node looks its servers up in DNS (RFC 6120 §3.2.1, XEP-0368): the
    SRV records of _xmpp-client._tcp.DOMAIN (STARTTLS) and _xmpps-client._tcp.DOMAIN
    (direct TLS) in one priority order, each server secured as its record says. The node runs in a mount
    namespace of its own whose /etc/resolv.conf names a DNS responder of the test."""

    RESOLVER = "127.0.0.9"  # not 127.0.0.53, where systemd-resolved may listen

    def test_a_node_without_host_finds_its_servers_by_srv_passes_over_a_dead_one_and_uses_direct_tls(self):
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            self.skipTest("needs root and unshare(1): the node gets a resolv.conf of its own in a mount namespace")
        server = test_xmpp.Prosody("srv")
        work = workfolders.make("canvas-xmpp-srv-")
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]
        dead.close()  # nothing listens there: connections are refused
        domain = server.env["XMPP_DOMAIN"]
        tls_port = int(server.env["XMPP_TLS_PORT"])
        dns = DNSResponder(self.RESOLVER, {
            f"_xmpp-client._tcp.{domain}": [(10, 0, dead_port, "localhost."),
                                            (20, 0, int(server.env["XMPP_PORT"]), "localhost.")],
            f"_xmpps-client._tcp.{domain}": [(15, 0, tls_port, "localhost.")],
        })
        resolv_conf = os.path.join(work, "resolv.conf")
        with open(resolv_conf, "w") as f:
            f.write(f"nameserver {self.RESOLVER}\noptions timeout:2 attempts:1\n")
        node = Node(CANVAS, "srv", server.room("srv"), server.jid("alice"), server.password_file("alice"),
                    server.env, os.path.join(work, "srv"), log_dir=work)
        plain = node.command

        def in_namespace():
            args = plain()
            at = args.index("--host")
            del args[at:at + 4]  # no --host, no --port: DNS decides
            return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                    f"mount --bind {resolv_conf} /etc/resolv.conf && exec \"$@\"", "sh", *args]
        node.command = in_namespace
        try:
            started = time.monotonic()
            node.start()
            node.wait_joined(timeout=30)
            self.assertLess(time.monotonic() - started, 10, "the dead first server held the node back")
            for service in ("_xmpp-client", "_xmpps-client"):
                self.assertIn((f"{service}._tcp.{domain}", DNSResponder.SRV), dns.questions)
            self.assertEqual(node.stop(), 0)
            with open(node.log_path) as log:
                text = log.read()
            self.assertIn(f"localhost:{dead_port} (STARTTLS)", text, "the priority-10 record was tried first")
            self.assertIn(f"port={tls_port} [XMPP] connecting", text, "then the priority-15 direct TLS one")
            self.assertNotIn(f"port={server.env['XMPP_PORT']} [XMPP] connecting", text, "the priority-20 one was not needed")
        finally:
            if node.process and node.process.poll() is None:
                node.kill()
            dns.close()
            server.stop()


def repeat(runs):
    """The failover figures over `runs` runs of the scenario, one cluster for all."""
    cluster = EjabberdCluster(2)
    samples = {"stopped": [], "killed": [], "idle": []}
    try:
        for run in range(runs):
            work = workfolders.make("canvas-xmpp-cluster-")
            figures = failover_scenario(cluster, work, f"failover{run}")
            for how, times in figures.items():
                samples[how] += times.values()
            print(f"run {run + 1}: " + json.dumps({h: {n: round(t, 3) for n, t in v.items()} for h, v in figures.items()}),
                  file=sys.stderr, flush=True)
            shutil.rmtree(work, ignore_errors=True)
    finally:
        cluster.close()
    summary = {}
    for how, values in samples.items():
        values.sort()
        summary[how] = {"samples": len(values), "p50_s": round(statistics.median(values), 3),
                        "p99_s": round(values[min(len(values) - 1, int(0.99 * len(values)))], 3),
                        "max_s": round(values[-1], 3)}
    print(json.dumps(summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, help="repeat the failover scenario and print its figures")
    options, rest = parser.parse_known_args()
    if options.runs:
        repeat(options.runs)
    else:
        workfolders.run_tests(argv=[sys.argv[0], *rest])
