import Logging
import NIOConcurrencyHelpers
import NIOCore

/// What a `ClusterDriver` shows to callers off its event loop: a copy taken after every
/// step of the node.
struct ClusterView: Sendable {
    var members: [String] = []
    var gateway: String?
    var counters = ClusterCounters()
    var transportDescription = "not started"
    var readPauses = 0
    var socketReads = 0
}

/// Where an engine hands its events.
enum ClusterEventOutput: Sendable {
    /// The driver's `events` sequence.
    case sequence(ClusterEvents.Producer.Source)
    /// A handler called on the event loop (`ClusterDriver.init(…, handler:)`).
    case handler(ClusterEventHandler)
}

/// A `ClusterNode` at work on its channel's event loop: it feeds the node datagrams,
/// payloads, capabilities and timer ticks, and performs the actions the node returns.
/// Everything here runs on `eventLoop`.
final class ClusterEngine {
    private var node: ClusterNode
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let view: NIOLockedValueBox<ClusterView>
    private let events: ClusterEventOutput
    /// Whether reading the socket is paused until the consumer of `events` catches up.
    private var readingPaused = false
    /// Set when the consumer fell behind during `perform(_:)`: reading pauses after it.
    private var consumerBehind = false
    private var channel: (any Channel)?
    /// The group, or the broadcast address in the fallback.
    private var destination: SocketAddress?
    /// The node's time zero, taken at start.
    private var origin: NIODeadline?
    /// The one tick the node asked for.
    private var timer: Scheduled<Void>?
    /// Whether the last datagram failed to leave: failures are logged when they begin and end,
    /// not for every datagram.
    private var sendingFails = false
    /// Payloads delivered during the current read of the socket, handed over at its end.
    private var deliveries: [ClusterDelivery] = []
    /// Whether a read of the socket is under way (between `receive` and `readComplete`).
    private var reading = false
    /// The instants a resting socket is read at (nil: it is read whenever it is readable).
    private var readGrid: WakeUpGrid?
    /// Datagrams taken by the read under way.
    private var datagramsThisRead = 0
    /// The next read of a resting socket.
    private var nextRead: Scheduled<Void>?

    init(
        node: ClusterNode, eventLoop: any EventLoop, logger: Logger, view: NIOLockedValueBox<ClusterView>,
        events: ClusterEventOutput
    ) {
        self.node = node
        self.eventLoop = eventLoop
        self.logger = logger
        self.view = view
        self.events = events
    }

    /// The node's clock: time since `origin`.
    private var now: Duration {
        guard let origin else { return .zero }
        return Duration(NIODeadline.now() - origin)
    }

    /// Starts the node, sending to `destination` on `channel`, reading the socket at the
    /// instants of a grid of period `readInterval` while datagrams trickle in (zero:
    /// whenever it is readable).
    func start(channel: any Channel, destination: SocketAddress, readInterval: Duration) {
        self.channel = channel
        self.destination = destination
        let period = TimeAmount(readInterval)
        readGrid = period.nanoseconds > 0 ? WakeUpGrid(period: period) : nil
        origin = .now()
        if readGrid != nil {
            // Reads are asked for one at a time from now on (`readComplete`).
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
            channel.read()
        }
        perform(node.start(now: .zero))
    }

    /// A datagram from the socket.
    func receive(_ bytes: [UInt8]) {
        reading = true
        datagramsThisRead += 1
        let oldFormat = node.counters.droppedOldFormat
        perform(node.receive(bytes: bytes, now: now))
        let refused = node.counters.droppedOldFormat
        // Said at the first, then at every thousandth: an old node keeps sending.
        if refused > oldFormat, refused == 1 || refused % 1000 == 0 {
            logger.warning(
                "refusing LAN datagrams of an earlier format (not sealed with the room key): a node of an earlier version, or one without the key, is in the room; update it or give it the key",
                metadata: ["refused": "\(refused)"])
        }
    }

    /// The read of the socket ended: its deliveries go to the consumer as one event.
    func readComplete() {
        reading = false
        let taken = datagramsThisRead
        datagramsThisRead = 0
        view.withLockedValue { $0.socketReads += 1 }
        handDeliveries()
        if consumerBehind {
            consumerBehind = false
            pauseReading()
        }
        scheduleRead(soon: taken >= ClusterTransport.datagramsPerRead)
    }

    /// Asks for the next read of a resting socket: at once when the last read left
    /// datagrams in it, else at the next instant of the read grid (what arrives meanwhile
    /// waits in the socket's buffer and is taken in one wake-up, the one of the node's tick
    /// when the grids agree). A socket that finds nothing waiting then is read as soon as
    /// a datagram comes: a lone datagram does not wait.
    private func scheduleRead(soon: Bool) {
        guard let readGrid, !readingPaused, nextRead == nil, let channel else { return }
        if soon {
            channel.read()
            return
        }
        nextRead = eventLoop.assumeIsolated().scheduleTask(deadline: readGrid.next(after: .now())) { [self] in
            nextRead = nil
            guard !readingPaused else { return }
            self.channel?.read()
        }
    }

    /// Sends each payload (one refused is reported, the others go), then flushes once.
    func send(payloads: [[UInt8]]) {
        var actions: [ClusterAction] = []
        for payload in payloads {
            do {
                actions += try node.send(payload: payload, now: now)
            } catch {
                report(error, "payload not sent to the LAN cluster")
            }
        }
        perform(actions)
    }

    func setCapabilities(hasXMPPSession: Bool, summary: [UInt8]) {
        do {
            perform(try node.setCapabilities(hasXMPPSession: hasXMPPSession, summary: summary, now: now))
        } catch {
            report(error, "capabilities not announced to the LAN cluster")
        }
    }

    /// Says goodbye to the members and stops the node; the future completes when the
    /// goodbye has left (or failed to).
    func stop() -> EventLoopFuture<Void> {
        timer?.cancel()
        timer = nil
        nextRead?.cancel()
        nextRead = nil
        let sent = perform(node.stop(now: now))
        channel = nil
        return sent.map { $0.recover { _ in } } ?? eventLoop.makeSucceededVoidFuture()
    }

    private func report(_ error: ClusterError, _ message: Logger.Message) {
        let level: Logger.Level = error.kind == .notRunning ? .debug : .error
        logger.log(level: level, message, metadata: ["error": "\(error)"])
    }

    /// Performs `actions` in order; returns the last datagram's write.
    @discardableResult
    private func perform(_ actions: [ClusterAction]) -> EventLoopFuture<Void>? {
        var lastWrite: EventLoopFuture<Void>?
        // The view first: whoever sees a member or gateway event and then reads `members`
        // or `gateway` finds the change there (the node's state, counters included, is
        // final once it returned `actions`).
        let membershipChanged = actions.contains {
            switch $0 {
            case .memberJoined, .memberLeft: true
            default: false
            }
        }
        publish(members: membershipChanged)
        for action in actions {
            switch action {
            case .multicast(let bytes):
                guard let channel, let destination else { continue }
                let datagram = channel.allocator.buffer(bytes: bytes)
                let envelope = AddressedEnvelope(remoteAddress: destination, data: datagram)
                let write = channel.write(envelope)
                write.assumeIsolated().whenComplete { [self] result in noteSendResult(result) }
                lastWrite = write
            case .deliver(let payload, let from):
                deliveries.append(ClusterDelivery(payload: payload, from: from))
            case .memberJoined(let nodeID):
                handDeliveries()
                hand(.memberJoined(nodeID))
            case .memberLeft(let nodeID):
                handDeliveries()
                hand(.memberLeft(nodeID))
            case .gatewayChanged(let gateway):
                handDeliveries()
                hand(.gatewayChanged(gateway))
            case .membersCapabilities(let capabilities):
                handDeliveries()
                hand(.membersCapabilities(capabilities))
            case .scheduleTick(let deadline):
                schedule(at: deadline)
            }
        }
        if lastWrite != nil { channel?.flush() }
        // Deliveries wait for the end of the socket's read; others (a repair on a tick) go now.
        if !reading { handDeliveries() }
        // After the actions (their timer included), so that the node's newer timer wins.
        if !reading, consumerBehind {
            consumerBehind = false
            pauseReading()
        }
        return lastWrite
    }

    /// Hands the deliveries gathered so far to the consumer, as one event.
    private func handDeliveries() {
        guard !deliveries.isEmpty else { return }
        let batch = deliveries
        deliveries = []
        hand(.delivered(batch))
    }

    /// Hands `event` to the consumer; notes when it falls too far behind (the event is
    /// kept: only what the socket has not read yet waits, or is lost and repaired).
    private func hand(_ event: ClusterEvent) {
        switch events {
        case .sequence(let source):
            if source.yield(event) == .stopProducing { consumerBehind = true }
        case .handler(let handler):
            if !handler(event) { consumerBehind = true }
        }
    }

    /// Stops reading the socket until the consumer catches up, and tells the node.
    private func pauseReading() {
        guard !readingPaused, let channel else { return }
        readingPaused = true
        nextRead?.cancel()
        nextRead = nil
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        view.withLockedValue { $0.readPauses += 1 }
        logger.debug("LAN cluster reading paused: the session is behind")
        perform(node.pauseListening(now: now))
    }

    /// The consumer caught up: reads the socket again.
    func resumeReading() {
        guard readingPaused else { return }
        readingPaused = false
        guard let channel else { return }
        if readGrid != nil {
            channel.read()
        } else {
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
        logger.debug("LAN cluster reading resumed")
        perform(node.resumeListening(now: now))
    }

    private func schedule(at deadline: Duration) {
        timer?.cancel()
        guard let origin else { return }
        timer = eventLoop.assumeIsolated().scheduleTask(deadline: origin + TimeAmount(deadline)) { [self] in
            timer = nil
            perform(node.tick(now: now))
        }
    }

    private func noteSendResult(_ result: Result<Void, any Error>) {
        switch result {
        case .success:
            if sendingFails { logger.notice("LAN cluster datagrams are sent again") }
            sendingFails = false
        case .failure(let error):
            if !sendingFails {
                logger.warning(
                    "cannot send LAN cluster datagrams",
                    metadata: ["to": "\(destination.map { "\($0)" } ?? "-")", "error": "\(error)"])
            }
            sendingFails = true
        }
    }

    private func publish(members: Bool) {
        let list = members ? node.members.map(\.nodeID) : nil
        let gateway = node.gateway
        let counters = node.counters
        view.withLockedValue { view in
            if let list { view.members = list }
            view.gateway = gateway
            view.counters = counters
        }
    }
}
