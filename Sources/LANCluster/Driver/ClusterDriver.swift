public import Logging
public import NIOCore
import NIOConcurrencyHelpers

/// Takes a driver's events on its event loop; returns false when its consumer is behind.
public typealias ClusterEventHandler = @Sendable (ClusterEvent) -> Bool

/// A room's LAN cluster on a UDP socket: drives a `ClusterNode` from SwiftNIO, sending its
/// datagrams to a multicast group (or the subnet broadcast address) and reporting what
/// happens as `events`.
///
/// ```
/// let driver = ClusterDriver(node: node, socket: .init(), eventLoopGroup: group, logger: logger)
/// try await driver.start()
/// driver.send(payload: operation)
/// for await event in driver.events { ... }
/// await driver.stop()
/// ```
public final class ClusterDriver: Sendable {
    /// Payloads, members and gateway changes, in order; finishes when `stop()` is called.
    /// Consume it promptly: past `ClusterEventBuffer.highWatermark` unconsumed events the
    /// driver stops reading its socket.
    public let events: ClusterEvents

    private let socket: ClusterSocketConfiguration
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let source: ClusterEvents.Producer.Source
    /// The node and its socket, on `eventLoop`.
    private let engine: NIOLoopBoundBox<ClusterEngine>
    private let view: NIOLockedValueBox<ClusterView>
    private let lifecycle = NIOLockedValueBox(Lifecycle.idle)

    private enum Lifecycle {
        case idle
        case starting
        case running(any Channel)
        case stopped
    }

    /// A driver for `node` (not started yet) on `socket`, on one event loop of
    /// `eventLoopGroup`, letting its consumer fall at most `eventBuffer` events behind.
    public convenience init(
        node: ClusterNode, socket: ClusterSocketConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger,
        eventBuffer: ClusterEventBuffer = .init()
    ) {
        self.init(node: node, socket: socket, eventLoopGroup: eventLoopGroup, logger: logger, eventBuffer: eventBuffer, handler: nil)
    }

    /// A driver for `node` that hands its events to `handler` on its event loop, in order,
    /// instead of through `events` (which then stays empty): no task switch between the
    /// socket and the consumer. When `handler` returns false (its consumer is behind) the
    /// driver stops reading its socket until `resumeReading()`.
    public convenience init(
        node: ClusterNode, socket: ClusterSocketConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger,
        handler: @escaping ClusterEventHandler
    ) {
        self.init(node: node, socket: socket, eventLoopGroup: eventLoopGroup, logger: logger, eventBuffer: .init(), handler: handler)
    }

    private init(
        node: ClusterNode, socket: ClusterSocketConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger,
        eventBuffer: ClusterEventBuffer, handler: ClusterEventHandler?
    ) {
        self.socket = socket
        self.logger = logger
        eventLoop = eventLoopGroup.next()
        let resumer = ClusterReadingResumer()
        let made = ClusterEvents.Producer.makeSequence(
            backPressureStrategy: .init(lowWatermark: eventBuffer.lowWatermark, highWatermark: eventBuffer.highWatermark),
            finishOnDeinit: false, delegate: resumer)
        events = ClusterEvents(producer: made.sequence)
        source = made.source
        let view = NIOLockedValueBox(ClusterView())
        self.view = view
        let output: ClusterEventOutput = handler.map { .handler($0) } ?? .sequence(made.source)
        let engine = NIOLoopBoundBox.makeBoxSendingValue(
            ClusterEngine(node: node, eventLoop: eventLoop, logger: logger, view: view, events: output),
            eventLoop: eventLoop)
        self.engine = engine
        resumer.onResume { [eventLoop] in eventLoop.execute { engine.value.resumeReading() } }
    }

    /// Reads the socket again after the handler said its consumer was behind.
    public func resumeReading() {
        eventLoop.execute { [engine] in engine.value.resumeReading() }
    }

    /// Opens the socket (shared with other processes on the same port), joins the group on
    /// the interface (or falls back to broadcast) and starts the node.
    ///
    /// Throws when the group, port or interface is invalid, when the socket cannot be
    /// opened or the group joined (without fallback), or when the driver was already started.
    public func start() async throws(ClusterError) {
        let fresh = lifecycle.withLockedValue { state in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard fresh else {
            throw ClusterError(.notRunning, "start() on a driver that was already started or stopped")
        }
        let transport: ClusterTransport
        do {
            transport = try await ClusterTransport.open(socket, on: eventLoop, logger: logger) { [engine, logger] in
                ClusterDatagramHandler(engine: engine.value, logger: logger)
            }
        } catch {
            lifecycle.withLockedValue { state in
                if case .starting = state { state = .idle }
            }
            throw error
        }
        view.withLockedValue { $0.transportDescription = transport.description }
        logger.info("LAN cluster started", metadata: ["transport": "\(transport.description)"])
        let channel = transport.channel
        let readInterval = socket.readInterval
        try? await eventLoop.submit { [engine] in
            engine.value.start(channel: channel, destination: transport.destination, readInterval: readInterval)
        }.get()
        let running = lifecycle.withLockedValue { state in
            guard case .starting = state else { return false }
            state = .running(channel)
            return true
        }
        guard running else {
            await farewell(channel)
            throw ClusterError(.notRunning, "stop() was called while the driver was starting")
        }
    }

    /// Sends `payload` to every member of the room, in as many datagrams as it needs. A
    /// payload over `ClusterConfiguration.maxPayloadBytes`, or sent while the driver is not
    /// running, is logged and dropped.
    public func send(payload: [UInt8]) {
        send(payloads: [payload])
    }

    /// Sends `payloads` to every member of the room, in order, as `send(payload:)` each,
    /// written to the socket together: a burst of datagrams (a gateway relaying a room's
    /// batch, say) leaves in one `sendmmsg` rather than one system call each.
    public func send(payloads: [[UInt8]]) {
        guard !payloads.isEmpty else { return }
        eventLoop.execute { [engine] in engine.value.send(payloads: payloads) }
    }

    /// Announces whether this node has a working XMPP session (which may move the gateway)
    /// and its sync summary. A summary too large for a beacon is logged and dropped.
    public func setCapabilities(hasXMPPSession: Bool, summary: [UInt8]) {
        eventLoop.execute { [engine] in
            engine.value.setCapabilities(hasXMPPSession: hasXMPPSession, summary: summary)
        }
    }

    /// The other members' node ids, sorted.
    public var members: [String] { view.withLockedValue { $0.members } }

    /// The current gateway (possibly this node), nil when no member has an XMPP session.
    public var gateway: String? { view.withLockedValue { $0.gateway } }

    /// What the node did and refused.
    public var counters: ClusterCounters { view.withLockedValue { $0.counters } }

    /// How many times the driver stopped reading its socket because the consumer of
    /// `events` fell behind.
    public var readPauses: Int { view.withLockedValue { $0.readPauses } }

    /// How many times the socket was read (each a wake-up taking what had arrived, up to
    /// `ClusterTransport.datagramsPerRead` datagrams).
    public var socketReads: Int { view.withLockedValue { $0.socketReads } }

    /// How the driver reaches the others, e.g. `multicast 239.255.77.77:47777 on eth0
    /// (192.0.2.2)` or `broadcast 192.0.2.255:47777 on eth0`.
    public var transportDescription: String { view.withLockedValue { $0.transportDescription } }

    /// Says goodbye (so that the members see this node leave at once), closes the socket
    /// and finishes `events`.
    public func stop() async {
        let previous = lifecycle.withLockedValue { state in
            defer { state = .stopped }
            return state
        }
        if case .running(let channel) = previous {
            await farewell(channel)
        }
        source.finish()
    }

    private func farewell(_ channel: any Channel) async {
        try? await eventLoop.flatSubmit { [engine] in engine.value.stop() }.get()
        try? await channel.close()
        logger.info("LAN cluster stopped")
        source.finish()
    }
}
