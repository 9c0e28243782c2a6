"""A real LAN for the integration tests, built from Linux network namespaces (root only):
one namespace holding a bridge, and one namespace per host with a veth pair into the
bridge, IPv4 addresses in a random private /24, multicast enabled everywhere.

Every name starts with `cvl` and a random suffix, so runs never clash; `LAN.close()`
kills what runs in the host namespaces and deletes them all (also at exit, if a test
forgot)."""

import atexit
import os
import random
import shutil
import signal
import subprocess
import time


def ip(*args, check=True):
    result = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
    return result


def unavailable_reason():
    """Why this machine cannot build a namespace LAN, or None when it can."""
    if os.geteuid() != 0:
        return "network namespaces need root (run as root to test the LAN on namespaces)"
    if shutil.which("ip") is None:
        return "`ip` (iproute2) is not installed"
    probe = f"cvlprobe{os.getpid()}"
    result = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if result.returncode != 0:
        return f"`ip netns add` does not work here: {result.stderr.strip()}"
    try:
        bridge = subprocess.run(["ip", "-n", probe, "link", "add", "br0", "type", "bridge"],
                                capture_output=True, text=True)
        if bridge.returncode != 0:
            return f"cannot create a bridge in a namespace: {bridge.stderr.strip()}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def iptables_reason():
    """Why iptables cannot inject loss in a namespace, or None when it can."""
    if shutil.which("iptables") is None:
        return "`iptables` is not installed (apt-get install iptables)"
    return None


class Host:
    """One namespace on the LAN: its name, its veth device and its address."""

    def __init__(self, lan, index, namespace, interface, port, address):
        self.lan, self.index = lan, index
        self.namespace, self.interface, self.port, self.address = namespace, interface, port, address

    def exec_prefix(self):
        return ["ip", "netns", "exec", self.namespace]

    def run(self, *args, check=True):
        result = subprocess.run(self.exec_prefix() + list(args), capture_output=True, text=True)
        if check and result.returncode != 0:
            raise RuntimeError(f"in {self.namespace}: {' '.join(args)} failed: {result.stderr.strip()}")
        return result

    def iptables(self, *args):
        return self.run("iptables", "-w", *args)

    def drop_randomly(self, probability):
        """Drops this fraction of the datagrams arriving here (iptables statistic match)."""
        self.iptables("-A", "INPUT", "-m", "statistic", "--mode", "random", "--probability", str(probability),
                      "-j", "DROP")

    def input_drops(self):
        """Packets dropped so far by this host's INPUT DROP rules."""
        out = self.iptables("-L", "INPUT", "-v", "-n", "-x").stdout
        return sum(int(line.split()[0]) for line in out.splitlines()[2:] if "DROP" in line)

    def udp_counters(self):
        """This namespace's UDP counters (/proc/net/snmp): InDatagrams, RcvbufErrors …"""
        lines = [line.split() for line in self.run("cat", "/proc/net/snmp").stdout.splitlines()
                 if line.startswith("Udp:")]
        return {name: int(value) for name, value in zip(lines[0][1:], lines[1][1:])}

    def __repr__(self):
        return f"Host({self.namespace}, {self.interface}, {self.address})"


class LAN:
    """A bridge namespace and host namespaces joined to it by veth pairs."""

    def __init__(self):
        self.prefix = f"cvl{random.randrange(16 ** 5):05x}"
        self.subnet = f"10.{random.randrange(1, 255)}.{random.randrange(0, 255)}"
        self.bridge_namespace = f"{self.prefix}br"
        self.namespaces = []
        self.hosts = []
        self.bridges = {}
        atexit.register(self.close)
        self._add_namespace(self.bridge_namespace)
        self.add_bridge("br0")

    def _add_namespace(self, name):
        ip("netns", "add", name)
        self.namespaces.append(name)
        ip("-n", name, "link", "set", "lo", "up")
        ip("-n", name, "link", "set", "lo", "multicast", "on")

    def add_bridge(self, name):
        """A bridge device in the bridge namespace (IGMP snooping off: multicast floods)."""
        ip("-n", self.bridge_namespace, "link", "add", name, "type", "bridge", "stp_state", "0",
           "forward_delay", "0", "mcast_snooping", "0")
        ip("-n", self.bridge_namespace, "link", "set", name, "multicast", "on")
        ip("-n", self.bridge_namespace, "link", "set", name, "up")
        self.bridges[name] = True
        return name

    def add_host(self):
        index = len(self.hosts)
        if index >= 250:
            raise ValueError("a /24 holds at most 250 hosts here")
        namespace = f"{self.prefix}h{index}"
        self._add_namespace(namespace)
        interface, port = f"veth{index}", f"p{index}"
        address = f"{self.subnet}.{index + 2}"
        # Both ends are created in the bridge namespace; the host end moves into its own.
        ip("-n", self.bridge_namespace, "link", "add", port, "type", "veth", "peer", "name", interface,
           "netns", namespace)
        ip("-n", self.bridge_namespace, "link", "set", port, "master", "br0")
        ip("-n", self.bridge_namespace, "link", "set", port, "multicast", "on")
        ip("-n", self.bridge_namespace, "link", "set", port, "up")
        ip("-n", namespace, "addr", "add", f"{address}/24", "dev", interface)
        ip("-n", namespace, "link", "set", interface, "multicast", "on")
        ip("-n", namespace, "link", "set", interface, "up")
        ip("-n", namespace, "route", "add", "224.0.0.0/4", "dev", interface)
        host = Host(self, index, namespace, interface, port, address)
        self.hosts.append(host)
        return host

    def add_hosts(self, count):
        return [self.add_host() for _ in range(count)]

    def move(self, hosts, bridge):
        """Attaches these hosts' bridge ports to another bridge (a partition, or its end)."""
        if bridge not in self.bridges:
            self.add_bridge(bridge)
        for host in hosts:
            ip("-n", self.bridge_namespace, "link", "set", host.port, "master", bridge)

    def pids(self):
        """The processes running in the host namespaces."""
        pids = set()
        for namespace in self.namespaces:
            result = ip("netns", "pids", namespace, check=False)
            pids.update(int(p) for p in result.stdout.split())
        return pids

    def close(self):
        """Kills every process left in the namespaces and deletes them (idempotent)."""
        if not self.namespaces:
            return
        for _ in range(50):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        for namespace in reversed(self.namespaces):
            ip("netns", "del", namespace, check=False)
        self.namespaces = []


_CLONE_NEWNET = 0x40000000


def socket_in(namespace, family, kind):
    """A socket created inside `namespace` (it stays there; this thread comes back)."""
    import ctypes
    import socket
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/var/run/netns/{namespace}", os.O_RDONLY)
    try:
        if libc.setns(target, _CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {namespace}")
        try:
            return socket.socket(family, kind)
        finally:
            if libc.setns(own, _CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back into the test's namespace")
    finally:
        os.close(own)
        os.close(target)
