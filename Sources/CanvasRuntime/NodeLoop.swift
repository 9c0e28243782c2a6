import CanvasCore
import CanvasProtocol
import CanvasSVG
import CanvasStore
import Foundation
import LANCluster
import CoreMetrics
import Logging
import NIOCore
import NIOPosix
import Synchronization
import XMPP

/// A transport of a room beyond what the loop knows by type (the lifecycle tests' fakes):
/// besides sending, it says whether anything waits for confirmation, and leaves when the
/// node stops.
protocol RoomLink: RoomTransport {
    var isSettled: Bool { get }
    func leave()
}

/// A node's run loop: its rooms' replicas, the XMPP client they share, their LAN clusters,
/// the SVG export, and a draining stop.
///
/// Everything happens on one loop, `run`, fed by one stream of inputs (client and cluster
/// events, local edits and questions from the app, a 50 ms tick, stop requests); the
/// replicas, the transports and the stores are touched only there. Each transport has a
/// bounded number of inputs waiting in the stream (`InputBudget`): past it the transport
/// stops reading its socket.
final class NodeLoop {
    private let configuration: NodeConfiguration
    private let logger: Logger
    private let inputs: AsyncStream<NodeInput>
    private let inbox: AsyncStream<NodeInput>.Continuation
    private unowned let node: Node
    private let subscribers: EventSubscribers
    private let extraLinkMaker: ExtraLinks?
    private var hasExtraLinks: Bool { extraLinkMaker != nil }
    private let clock = NodeClock()
    private var replicas: [RoomReplica] = []
    private var links: [XMPPRoomLink] = []
    /// The LAN link of each room (same order as `replicas`), with `configuration.lan`.
    private var lanLinks: [LANRoomLink] = []
    /// How many LAN events of each room (same order) wait in the loop's queue.
    private var lanBudgets: [InputBudget] = []
    /// How many XMPP client events wait in the loop's queue.
    private let clientBudget = InputBudget(limit: NodeLoop.transportInputsQueued)
    private var extraLinks: [any RoomLink] = []
    private var client: XMPPClient?
    private var lastExport: Duration = .zero
    private let metrics: (any MetricsFactory)?
    private var lastMetricsSample: Duration = .zero

    /// How many events of one transport (a room's LAN cluster, the XMPP client) may wait
    /// in the loop's queue.
    static let transportInputsQueued = 256

    init(
        configuration: NodeConfiguration, logger: Logger, inputs: AsyncStream<NodeInput>,
        inbox: AsyncStream<NodeInput>.Continuation, node: Node, subscribers: EventSubscribers, extraLinks: ExtraLinks?,
        metrics: (any MetricsFactory)? = nil
    ) {
        self.metrics = metrics
        self.configuration = configuration
        self.logger = logger
        self.inputs = inputs
        self.inbox = inbox
        self.node = node
        self.subscribers = subscribers
        self.extraLinkMaker = extraLinks
    }

    /// Runs until a stop (then leaves the rooms, flushes the stores and returns), or until
    /// every room has failed for good (then throws). `executor` is the loop's own (an event
    /// loop of `group`): the tick and the tasks that feed the loop run there too, so that
    /// what they hand over wakes no other thread.
    func run(eventLoopGroup group: any EventLoopGroup, on executor: EventLoopTaskExecutor) async throws(NodeError) {
        try openRooms()
        var tasks: [Task<Void, Never>] = []
        var ticker: GridTicker?
        let continuation = inbox
        defer {
            for task in tasks { task.cancel() }
            ticker?.cancel()
        }

        if let account = configuration.xmpp {
            let client = try makeClient(account, group: group)
            self.client = client
            for (index, name) in configuration.rooms.enumerated() {
                let room = try makeRoom(name, account: account, replica: replicas[index])
                links.append(
                    XMPPRoomLink(
                        room: room, replica: replicas[index], client: client, readsCompact: account.compactPayloads, clock: clock,
                        logger: logger, emit: emit))
            }
            tasks.append(Task(executorPreference: executor) { await client.run() })
            let budget = clientBudget
            tasks.append(
                Task(executorPreference: executor) {
                    for await event in client.events {
                        await budget.admit()
                        continuation.yield(.client(event))
                    }
                })
        }
        if let lan = configuration.lan {
            if lan.key == nil {
                logger.warning("the LAN is trusted: without a room key anyone on the LAN can read and change the room")
            }
            for (index, replica) in replicas.enumerated() {
                // The driver queues its events for the loop from its own thread (no task in
                // between); past this many unhandled it stops reading its socket until the
                // loop has caught up.
                let budget = InputBudget(limit: Self.transportInputsQueued)
                let handler: ClusterEventHandler = { event in
                    continuation.yield(.lan(room: index, event))
                    return budget.take()
                }
                let link: LANRoomLink
                do {
                    link = try await startLAN(lan, replica: replica, group: group, handler: handler)
                } catch {
                    await stopTransports()
                    throw error
                }
                lanLinks.append(link)
                lanBudgets.append(budget)
            }
        }
        for (index, replica) in replicas.enumerated() {
            extraLinks += extraLinkMaker?(replica) { input in continuation.yield(.transport(room: index, input)) } ?? []
        }
        // On the loop's own thread: a tick wakes one thread, not a timer thread and then this
        // one (an idle node woke 40 times a second for its ticks); on the grid of the LAN
        // socket's reads, so that a loaded node wakes once for both.
        ticker = GridTicker(grid: .tick, on: executor.eventLoop) { continuation.yield(.tick) }
        emit(.started(node: replicas.first?.session.nodeID ?? "", rooms: configuration.rooms))
        for replica in replicas { replica.reportStateIfChanged() }
        node.didStart()

        var failure: NodeError?
        // After a stop request: until when to wait for the rooms to confirm what was sent.
        var draining: Duration?
        loop: for await input in inputs {
            let stops = node.stopRequests
            if stops >= 2 || (stops == 1 && isSettled) {
                logger.notice("stopping")
                break loop
            }
            if stops == 1, draining == nil {
                // What was sent but not yet confirmed by the room may still be on its way to
                // the room's archive: give it a moment (a second request stops at once).
                logger.notice("stopping once the rooms confirm what was sent (at most \(configuration.drainLimit))")
                draining = clock.now + configuration.drainLimit
            }
            switch input {
            case .client(let event):
                clientBudget.release()
                if let error = clientEvent(event) {
                    failure = error
                    break loop
                }
                electGateways()
            case .lan(let room, let event):
                lanLinks[room].handle(event)
                if lanBudgets[room].release() { lanLinks[room].driver.resumeReading() }
                electGateways()
            case .transport(let room, let input):
                replicas[room].handle(input)
            case .local(let room, let edit, let reply):
                reply.resume(with: local(edit, in: replicas[room]))
            case .document(let room, let reply):
                reply.resume(returning: replicas[room].document)
            case .status(let reply):
                reply.resume(returning: NodeStatus(node: replicas.first?.session.nodeID ?? "", rooms: replicas.map(\.status)))
            case .tick:
                tick()
                if !links.isEmpty, lanLinks.isEmpty, extraLinks.isEmpty, links.allSatisfy(\.failedPermanently) {
                    failure = NodeError(.transport, "every room refused us; see the errors above")
                    break loop
                }
                if let deadline = draining, clock.now >= deadline || isSettled {
                    break loop
                }
            case .stop:
                // Read above, before any input: it only wakes the loop.
                break
            }
            await subscribers.waitForSlowSubscribers()
        }
        for link in links { link.leave() }
        for link in extraLinks { link.leave() }
        await stopTransports()
        finish()
        if let failure { throw failure }
    }

    /// Whether nothing sent waits for a room's confirmation.
    private var isSettled: Bool { links.allSatisfy(\.isSettled) && extraLinks.allSatisfy(\.isSettled) }

    private func stopTransports() async {
        await client?.stop()
        clientBudget.close()
        for budget in lanBudgets { budget.close() }
        for link in lanLinks {
            link.reportCounters()
            await link.driver.stop()
        }
        for replica in replicas { emit(.syncStats(room: replica.name, statistics: replica.session.statistics)) }
    }

    // MARK: Setting up

    private func openRooms() throws(NodeError) {
        guard !configuration.rooms.isEmpty else { throw NodeError(.invalidConfiguration, "no room to join: give at least one --room") }
        guard configuration.xmpp != nil || configuration.lan != nil || hasExtraLinks else {
            throw NodeError(.invalidConfiguration, "no transport: give an XMPP account (--jid) or use the LAN (--lan)")
        }
        var randomID: String {
            var generator = SystemRandomNumberGenerator()
            return String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 16)
        }
        let fallbackID = randomID
        for name in configuration.rooms {
            var store: RoomStore?
            var operations: [CanvasCore.Operation] = []
            if case .folder(let directory) = configuration.storage {
                do {
                    (store, operations) = try RoomStore.open(
                        directory: URL(fileURLWithPath: directory), room: name,
                        options: RoomStore.Options(compaction: configuration.compaction))
                } catch {
                    throw NodeError(.storage, "cannot open the store of room \(name) in \(directory): \(error)")
                }
                if let recovery = store?.recovery, !recovery.isClean {
                    logger.warning("the store was recovered", metadata: ["room": "\(name)", "recovery": "\(recovery)"])
                }
            }
            replicas.append(
                RoomReplica(
                    name: name, nodeID: store?.nodeID ?? fallbackID, store: store, restoring: operations, clock: clock,
                    logger: logger, tracePrefix: configuration.traceStrokePrefix, emit: emit,
                    wants: { [subscribers] name in subscribers.anyoneWants(name) }))
            if let metrics { replicas.last?.metrics = RoomMetrics(room: name, factory: metrics) }
        }
    }

    private func makeClient(_ account: NodeConfiguration.XMPPAccount, group: any EventLoopGroup) throws(NodeError) -> XMPPClient {
        let connection: XMPPConnectionConfiguration
        do {
            connection = try XMPPConnectionConfiguration(jid: account.jid, password: account.password)
        } catch {
            throw NodeError(.invalidConfiguration, "\(error)")
        }
        let tls = TLSClientConfiguration(
            serverName: connection.domain, caFile: account.caFile,
            verification: account.insecureSkipTLSVerify ? .noneInsecureForTestingOnly : .full)
        if account.insecureSkipTLSVerify {
            logger.warning("TLS certificates are NOT verified (--insecure-skip-tls-verify): use this for tests only")
        }
        let security: XMPPClientConfiguration.Security =
            account.plaintextForTesting ? .noneForTesting : account.directTLS ? .directTLS(tls) : .startTLS(tls)
        let defaultPort = account.port ?? XMPPClientConfiguration.defaultPort(for: security)
        let servers: [ServerAddress]
        do {
            servers = try (account.hosts.isEmpty ? [account.host ?? connection.domain] : account.hosts).map {
                (text) throws(ConnectionError) in try ServerAddress(parsing: text, defaultPort: defaultPort)
            }
        } catch {
            throw NodeError(.invalidConfiguration, "\(error)")
        }
        var client = XMPPClientConfiguration(connection: connection, servers: servers, security: security)
        // Neither a host nor a port: the domain's SRV records first (RFC 6120 §3.2.1).
        client.discoversServers = account.hosts.isEmpty && account.host == nil && account.port == nil
        client.capabilities = XMPPRoomLinkStateMachine.capabilities(readsCompact: account.compactPayloads)
        return XMPPClient(configuration: client, eventLoopGroup: group, logger: logger)
    }

    private func startLAN(
        _ settings: NodeConfiguration.LANSettings, replica: RoomReplica, group: any EventLoopGroup,
        handler: @escaping ClusterEventHandler
    ) async throws(NodeError) -> LANRoomLink {
        var cluster = ClusterConfiguration(room: replica.name)
        cluster.announcedCapabilities = settings.compactPayloads ? .compactFormats : []
        cluster.beaconInterval = settings.beaconInterval
        if let fragments = settings.retransmissionBufferFragments { cluster.retransmissionBufferFragments = fragments }
        var random = SystemRandomNumberGenerator()
        let driver: ClusterDriver
        do {
            let node = try ClusterNode(
                configuration: cluster, nodeID: replica.session.nodeID, incarnation: random.next(), key: settings.key)
            driver = ClusterDriver(node: node, socket: settings.socket, eventLoopGroup: group, logger: logger, handler: handler)
            try await driver.start()
        } catch {
            throw NodeError(.transport, "cannot start the LAN cluster of room \(replica.name): \(error)")
        }
        logger.info("LAN cluster", metadata: ["room": "\(replica.name)", "transport": "\(driver.transportDescription)"])
        let link = LANRoomLink(
            replica: replica, driver: driver, readsCompactPayloads: settings.compactPayloads, logger: logger, emit: emit)
        link.started()
        return link
    }

    /// With both a LAN cluster and an XMPP room, only the cluster's gateway relays: the
    /// others stay in the room, passive, ready to take over.
    private func electGateways() {
        guard !lanLinks.isEmpty, !links.isEmpty else { return }
        for (lan, xmpp) in zip(lanLinks, links) {
            lan.setXMPPSession(xmpp.isInRoom)
            xmpp.setActive(lan.isGateway || lan.gateway == nil)
        }
    }

    private func makeRoom(
        _ name: String, account: NodeConfiguration.XMPPAccount, replica: RoomReplica
    ) throws(NodeError) -> MUCRoom {
        do {
            return MUCRoom(
                configuration: try MUCRoomConfiguration(
                    roomJID: name, nickname: account.nickname ?? replica.session.nodeID,
                    payloadElement: XMPPRoomLinkStateMachine.payloadElement,
                    capabilities: XMPPRoomLinkStateMachine.capabilities(readsCompact: account.compactPayloads)))
        } catch {
            throw NodeError(.invalidConfiguration, "\(error)")
        }
    }

    // MARK: Inputs

    /// A client event; returns an error when the node cannot go on.
    private func clientEvent(_ event: XMPPClientEvent) -> NodeError? {
        switch event {
        case .online(let jid, let resumed):
            emit(.online(jid: jid, resumed: resumed))
            for link in links { link.clientOnline(resumed: resumed) }
        case .stanza(let stanza):
            for link in links where link.offer(stanza) { break }
        case .offline(let error, let delay):
            emit(.offline(error: "\(error)", retryIn: delay))
            for link in links { link.clientOffline(resumable: delay != nil && error.kind != .streamError) }
            if delay == nil, !(error.kind == .closedByClient) {
                return NodeError(.transport, "the XMPP connection failed and cannot be retried: \(error)")
            }
        }
        return nil
    }

    /// A local edit from the app: applied, made durable and sent; returns the novel
    /// operations.
    private func local(_ edit: NodeInput.LocalEdit, in replica: RoomReplica) -> Result<[CanvasCore.Operation], any Error> {
        switch edit {
        case .action(let action): replica.local(.action(action))
        case .operations(let operations): replica.local(.local(operations))
        }
    }

    private func tick() {
        for replica in replicas { replica.tick() }
        for link in links { link.tick() }
        for link in lanLinks { link.tick() }
        electGateways()
        if metrics != nil, clock.now - lastMetricsSample >= .seconds(1) {
            lastMetricsSample = clock.now
            for (index, replica) in replicas.enumerated() {
                replica.sampleMetrics(lan: index < lanLinks.count ? lanLinks[index].driver.counters : nil)
            }
        }
        if configuration.exportPath != nil, clock.now - lastExport >= configuration.exportInterval {
            lastExport = clock.now
            export(onlyChanged: true)
        }
    }

    // MARK: Outputs

    private func emit(_ event: NodeEvent) {
        subscribers.publish(event)
    }

    private func export(onlyChanged: Bool) {
        guard let path = configuration.exportPath else { return }
        for replica in replicas where replica.changedSinceExport || !onlyChanged {
            let target = exportPath(path, for: replica.name)
            let svg = SVGExporter.export(replica.document)
            do {
                let temporary = target + ".tmp"
                try Data(svg).write(to: URL(fileURLWithPath: temporary))
                if rename(temporary, target) != 0 {
                    throw NodeError(.storage, "cannot rename \(temporary) to \(target): \(String(cString: strerror(errno)))")
                }
                replica.markExported()
                emit(.exported(room: replica.name, path: target))
            } catch {
                logger.error("cannot write the SVG", metadata: ["path": "\(target)", "error": "\(error)"])
            }
        }
    }

    private func exportPath(_ path: String, for room: String) -> String {
        guard replicas.count > 1 else { return path }
        let safe = String(room.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        if path.hasSuffix(".svg") {
            return String(path.dropLast(4)) + "." + safe + ".svg"
        }
        return path + "." + safe
    }

    private func finish() {
        for replica in replicas { replica.reportStateIfChanged() }
        export(onlyChanged: false)
        for replica in replicas {
            do {
                try replica.closeStore()
            } catch {
                logger.error("cannot close the store", metadata: ["room": "\(replica.name)", "error": "\(error)"])
            }
        }
        emit(.stopped)
    }
}

/// The node's time: a monotonic clock from the node's start, the time base of its sessions.
struct NodeClock: Sendable {
    private let origin = ContinuousClock.now
    var now: Duration { ContinuousClock.now - origin }
}
