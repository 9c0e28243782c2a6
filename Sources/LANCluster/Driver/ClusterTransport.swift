import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cluster's open UDP socket and where its datagrams go: the multicast group, or the
/// interface's broadcast address when the group cannot be joined.
struct ClusterTransport: Sendable {
    /// How many datagrams one read of the socket takes at most. A wake-up on the grid finds
    /// a few dozen waiting at a thousand authors: 32 a read takes them in one system call
    /// and a second that finds the socket empty (8 a read made five of them).
    static let vectorReadCount = 32
    /// How many reads of the socket one wake-up makes at most.
    static let readsPerWakeUp = 2
    /// How many datagrams one wake-up takes at most: a wake-up that took this many
    /// leaves more in the socket.
    static let datagramsPerRead = vectorReadCount * readsPerWakeUp

    var channel: any Channel
    var destination: SocketAddress
    /// For logs: `multicast GROUP:PORT on NAME (ADDRESS)` or `broadcast ADDRESS:PORT on NAME`.
    var description: String

    /// Binds `socket.port` on all IPv4 addresses, shared with other sockets (SO_REUSEADDR
    /// and SO_REUSEPORT: multicast and broadcast datagrams reach every one), with a
    /// `makeHandler()` handler (and a `DatagramFaultHandler` when `socket.faults` is set),
    /// then joins the group on the chosen interface or falls back to broadcast.
    static func open(
        _ socket: ClusterSocketConfiguration, on eventLoop: any EventLoop, logger: Logger,
        makeHandler: @escaping @Sendable () -> ClusterDatagramHandler
    ) async throws(ClusterError) -> ClusterTransport {
        guard (1...65535).contains(socket.port) else {
            throw ClusterError(.invalidConfiguration, "cluster port \(socket.port); expected 1...65535")
        }
        guard let group = try? SocketAddress(ipAddress: socket.group, port: socket.port), case .v4 = group,
            group.isMulticast
        else {
            throw ClusterError(
                .invalidConfiguration,
                "cluster group \"\(socket.group)\"; expected an IPv4 multicast address (224.0.0.0 to 239.255.255.255)")
        }
        let interface = try ClusterInterface.select(socket.interface)
        let bootstrap = DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            // Up to `vectorReadCount` datagrams per system call (recvmmsg), each its own
            // slice of the receive buffer.
            .channelOption(.datagramVectorReadMessageCount, value: Self.vectorReadCount)
            // A burst is taken in one wake-up (2 reads of 32 datagrams).
            .channelOption(.maxMessagesPerRead, value: UInt(Self.readsPerWakeUp))
            .channelOption(
                .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Datagram.maximumSize * Self.vectorReadCount))
            // Bursts from dozens of members (the kernel caps it at net.core.rmem_max).
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let faults = socket.faults {
                        try channel.pipeline.syncOperations.addHandler(DatagramFaultHandler(faults))
                    }
                    try channel.pipeline.syncOperations.addHandler(makeHandler())
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: "0.0.0.0", port: socket.port).get()
        } catch {
            throw ClusterError(
                .invalidConfiguration,
                "cannot open UDP port \(socket.port) for the cluster: \(error); choose another port")
        }
        do {
            return try await connect(channel, socket: socket, group: group, interface: interface, logger: logger)
        } catch {
            try? await channel.close()
            throw error
        }
    }

    private static func connect(
        _ channel: any Channel, socket: ClusterSocketConfiguration, group: SocketAddress, interface: ClusterInterface,
        logger: Logger
    ) async throws(ClusterError) -> ClusterTransport {
        let place = "\(interface.name) (\(interface.ipAddress))"
        var multicastFailure = "joining the group was turned off"
        if socket.joinsGroup {
            do {
                try await joinGroup(channel, group: group, interface: interface)
                return ClusterTransport(
                    channel: channel, destination: group,
                    description: "multicast \(socket.group):\(socket.port) on \(place)")
            } catch {
                multicastFailure = "\(error)"
            }
            guard socket.broadcastFallback else {
                throw ClusterError(
                    .invalidConfiguration,
                    "cannot join multicast group \(socket.group):\(socket.port) on \(place): \(multicastFailure); "
                        + "choose an interface with multicast or allow the broadcast fallback")
            }
        }
        guard socket.broadcastFallback, var broadcast = interface.broadcastAddress else {
            let hint =
                interface.isLoopback ? "; enable multicast with `ip link set \(interface.name) multicast on`" : ""
            throw ClusterError(
                .invalidConfiguration,
                "cannot reach the cluster on \(place): no multicast (\(multicastFailure)) and "
                    + (socket.broadcastFallback ? "no broadcast address" : "the broadcast fallback is off")
                    + hint + "; or choose another interface")
        }
        broadcast.port = socket.port
        do {
            try await channel.setOption(.socketOption(.so_broadcast), value: 1).get()
        } catch {
            throw ClusterError(
                .invalidConfiguration, "cannot enable broadcast on the cluster socket on \(place): \(error)")
        }
        logger.notice(
            "multicast unavailable; the LAN cluster falls back to broadcast",
            metadata: ["interface": "\(place)", "group": "\(socket.group)", "reason": "\(multicastFailure)"])
        return ClusterTransport(
            channel: channel, destination: broadcast,
            description: "broadcast \(broadcast.ipAddress ?? "?"):\(socket.port) on \(interface.name)")
    }

    /// Joins `group` on `interface` and sends from there, looped back to this host (so that
    /// nodes on one machine hear each other) and never beyond the first router (TTL 1).
    private static func joinGroup(
        _ channel: any Channel, group: SocketAddress, interface: ClusterInterface
    ) async throws {
        guard let multicast = channel as? any MulticastChannel, let options = channel as? any SocketOptionProvider,
            case .v4(let address) = interface.address
        else {
            throw ClusterError(.invalidConfiguration, "the channel supports no IPv4 multicast")
        }
        try await multicast.joinGroup(group, device: interface.device).get()
        try await options.setIPMulticastIF(address.address.sin_addr).get()
        try await options.setIPMulticastLoop(1).get()
        try await options.setIPMulticastTTL(1).get()
    }
}
