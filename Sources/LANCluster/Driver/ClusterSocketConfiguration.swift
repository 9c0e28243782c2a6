/// Where a `ClusterDriver` meets its room's other nodes: a UDP port, an IPv4 multicast
/// group and the network interface they are reached on.
///
/// Every node of a room must use the same group and port. Several rooms may share them:
/// a node drops the datagrams of other rooms.
public struct ClusterSocketConfiguration: Sendable, Hashable {
    /// The IPv4 multicast group the nodes send to (224.0.0.0 to 239.255.255.255; the
    /// 239.0.0.0/8 block is for private use).
    public var group: String
    /// The UDP port the nodes send to and receive on (1...65535).
    public var port: Int
    /// The interface, by name (`eth0`) or IPv4 address; nil picks the first interface that
    /// is up, is not loopback and supports multicast, else loopback.
    public var interface: String?
    /// Where joining the group fails (the interface lacks multicast), send to the
    /// interface's subnet broadcast address instead, receiving on all addresses of the port.
    public var broadcastFallback: Bool
    /// How long the socket rests between reads while datagrams trickle in: each read takes
    /// what gathered meanwhile (up to 64 datagrams; a full read is followed at once by the
    /// next), so a node wakes about `1 / readInterval` times a second for its socket however
    /// many members send. Reads fall on the instants of a `WakeUpGrid` of this period; the
    /// default, 50 ms, is the grid of the node's tick, so that a loaded node wakes for both
    /// at once. A datagram waits at most this long in the socket, and one that comes to a
    /// socket that found nothing waiting at its last grid instant is read as it comes.
    /// Zero reads each datagram as it arrives (a wake-up each, when they trickle in).
    public var readInterval = Duration.nanoseconds(WakeUpGrid.tick.period.nanoseconds)
    /// False skips joining the group, as on a LAN without multicast: tests use it to
    /// exercise the broadcast fallback.
    var joinsGroup = true
    /// Faults injected into this node's outgoing datagrams, for tests of a bad LAN (the
    /// kernel's packet loss comes from iptables; duplication, delay and reordering from a
    /// `DatagramFaultHandler` in the socket's pipeline).
    package var faults: DatagramFaults?

    /// A configuration; the defaults suit a LAN.
    public init(
        group: String = "239.255.77.77", port: Int = 47777, interface: String? = nil, broadcastFallback: Bool = true
    ) {
        self.group = group
        self.port = port
        self.interface = interface
        self.broadcastFallback = broadcastFallback
    }
}
