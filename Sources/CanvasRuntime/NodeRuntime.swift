import CanvasCore
import CanvasProtocol
import CanvasSVG
import CanvasStore
import Foundation
import LANCluster
public import Logging
import NIOCore
import NIOPosix
import Synchronization
import XMPP

/// Why a node could not start or had to stop.
public struct NodeError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A running node (`canvas join`): its rooms' replicas, the XMPP client they share, the
/// NDJSON input, the event stream, the SVG export, and a clean shutdown on SIGINT/SIGTERM.
///
/// Everything the node does happens on one loop, `run()`, fed by a stream of inputs
/// (client events, standard input lines, a 50 ms tick, signals); the replicas, the
/// transports and the stores are touched only there.
public final class NodeRuntime {
    private let configuration: NodeConfiguration
    private let logger: Logger
    private let writeEvent: @Sendable ([UInt8]) -> Void
    private let clock = NodeClock()
    private var replicas: [RoomReplica] = []
    private var links: [XMPPRoomLink] = []
    /// The LAN link of each room (same order as `replicas`), with `configuration.lan`.
    private var lanLinks: [LANRoomLink] = []
    /// How many LAN events of each room (same order) wait in the loop's queue.
    private var lanBudgets: [InputBudget] = []
    private var client: XMPPClient?
    private var lastExport: Duration = .zero
    private var inputLine = 0

    /// How many LAN events of one room may wait in the loop's queue.
    static let lanInputsQueued = 256

    /// How long a shutdown waits for the rooms to reflect the messages in flight.
    static let drainLimit: Duration = .seconds(10)

    private enum Input: Sendable {
        case client(XMPPClientEvent)
        case lan(room: Int, ClusterEvent)
        case line([UInt8])
        case inputClosed
        case tick
        /// A signal arrived (the loop reads the flag the watcher sets; this wakes it).
        case shutdown(signal: String)
    }

    /// A node for `configuration`, logging to `logger` and writing NDJSON event lines
    /// through `writeEvent` (nothing is written when it is nil).
    public init(configuration: NodeConfiguration, logger: Logger, writeEvent: (@Sendable ([UInt8]) -> Void)?) {
        self.configuration = configuration
        self.logger = logger
        self.writeEvent = writeEvent ?? { _ in }
    }

    /// Runs until SIGINT or SIGTERM (then leaves the rooms, flushes the stores and
    /// returns), or until every room has failed for good (then throws).
    public func run() async throws {
        try openRooms()
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var tasks: [Task<Void, Never>] = []

        if let account = configuration.xmpp {
            let client = try makeClient(account, group: group)
            self.client = client
            for (index, name) in configuration.rooms.enumerated() {
                let room = try makeRoom(name, account: account, replica: replicas[index])
                links.append(
                    XMPPRoomLink(room: room, replica: replicas[index], client: client, clock: clock, logger: logger, emit: emit))
            }
            tasks.append(Task { await client.run() })
            tasks.append(
                Task {
                    for await event in client.events { continuation.yield(.client(event)) }
                })
        }
        if let lan = configuration.lan {
            if lan.key == nil {
                logger.warning(
                    "the LAN is trusted: without --lan-key-file anyone on the LAN can read and change the room")
            }
            for (index, replica) in replicas.enumerated() {
                let link = try await startLAN(lan, replica: replica, group: group)
                lanLinks.append(link)
                let events = link.driver.events
                // The loop handles at most this many of the room's LAN events behind; past
                // that the driver's own buffer fills and it stops reading its socket.
                let budget = InputBudget(limit: Self.lanInputsQueued)
                lanBudgets.append(budget)
                tasks.append(
                    Task {
                        for await event in events {
                            await budget.admit()
                            continuation.yield(.lan(room: index, event))
                        }
                    })
            }
        }
        tasks.append(
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(50))
                    continuation.yield(.tick)
                }
            })
        // A signal is also raised as a flag that the loop reads before each input: behind a
        // backlog of inputs (a flood of datagrams), the queued .shutdown would come late.
        let signalled = Mutex<(name: String, count: Int)>(("", 0))
        let signals = SignalWatcher { name in
            signalled.withLock { $0 = (name, $0.count + 1) }
            continuation.yield(.shutdown(signal: name))
        }
        StandardInputReader.start(line: { continuation.yield(.line($0)) }, closed: { continuation.yield(.inputClosed) })
        emit(
            NodeEvent("started").with("node", replicas.first?.session.nodeID ?? "").with("rooms", configuration.rooms))
        for replica in replicas { replica.reportStateIfChanged() }

        var failure: NodeError?
        // After SIGINT/SIGTERM: until when to wait for the rooms to confirm what was sent.
        var draining: Duration?
        loop: for await input in inputs {
            let signal = signalled.withLock { $0 }
            if signal.count >= 2 || (signal.count == 1 && links.allSatisfy(\.isSettled)) {
                logger.notice("shutting down", metadata: ["signal": "\(signal.name)"])
                break loop
            }
            if signal.count == 1, draining == nil {
                // What was sent but not yet confirmed by the room may still be on its way to
                // the room's archive: give it a moment (a second signal stops at once).
                logger.notice(
                    "shutting down once the rooms confirm what was sent (at most \(Self.drainLimit))",
                    metadata: ["signal": "\(signal.name)"])
                draining = clock.now + Self.drainLimit
            }
            switch input {
            case .client(let event):
                if let error = clientEvent(event) {
                    failure = error
                    break loop
                }
                electGateways()
            case .lan(let room, let event):
                lanLinks[room].handle(event)
                lanBudgets[room].release()
                electGateways()
            case .line(let bytes):
                inputLine += 1
                local(bytes)
            case .inputClosed:
                logger.debug("standard input closed")
            case .tick:
                tick()
                if !links.isEmpty, lanLinks.isEmpty, links.allSatisfy(\.failedPermanently) {
                    failure = NodeError("every room refused us; see the errors above")
                    break loop
                }
                if let deadline = draining, clock.now >= deadline || links.allSatisfy(\.isSettled) {
                    break loop
                }
            case .shutdown:
                // Handled above, before any input: it only wakes the loop.
                break
            }
        }
        signals.cancel()
        for link in links { link.leave() }
        await client?.stop()
        for budget in lanBudgets { budget.close() }
        for link in lanLinks {
            link.reportCounters()
            await link.driver.stop()
        }
        for task in tasks { task.cancel() }
        finish()
        try? await group.shutdownGracefully()
        if let failure { throw failure }
    }

    // MARK: Setting up

    private func openRooms() throws {
        guard !configuration.rooms.isEmpty else { throw NodeError("no room to join: give at least one --room") }
        guard configuration.xmpp != nil || configuration.lan != nil else {
            throw NodeError("no transport: give an XMPP account (--jid) or use the LAN (--lan)")
        }
        var randomID: String {
            var generator = SystemRandomNumberGenerator()
            return String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 16)
        }
        let fallbackID = randomID
        for name in configuration.rooms {
            var store: RoomStore?
            var operations: [CanvasCore.Operation] = []
            if let directory = configuration.storeDirectory {
                do {
                    (store, operations) = try RoomStore.open(directory: URL(fileURLWithPath: directory), room: name)
                } catch {
                    throw NodeError("cannot open the store of room \(name) in \(directory): \(error)")
                }
                if let recovery = store?.recovery, !recovery.isClean {
                    logger.warning("the store was recovered", metadata: ["room": "\(name)", "recovery": "\(recovery)"])
                }
            }
            replicas.append(
                RoomReplica(
                    name: name, nodeID: store?.nodeID ?? fallbackID, store: store, restoring: operations, clock: clock,
                    logger: logger, emit: emit))
        }
    }

    private func makeClient(_ account: NodeConfiguration.XMPPAccount, group: any EventLoopGroup) throws -> XMPPClient {
        let connection: XMPPConnectionConfiguration
        do {
            connection = try XMPPConnectionConfiguration(jid: account.jid, password: account.password)
        } catch {
            throw NodeError("\(error)")
        }
        let tls = TLSClientConfiguration(
            serverName: connection.domain, caFile: account.caFile,
            verification: account.insecureSkipTLSVerify ? .noneInsecureForTestingOnly : .full)
        if account.insecureSkipTLSVerify {
            logger.warning("TLS certificates are NOT verified (--insecure-skip-tls-verify): use this for tests only")
        }
        let security: XMPPClientConfiguration.Security =
            account.plaintextForTesting ? .noneForTesting : account.directTLS ? .directTLS(tls) : .startTLS(tls)
        return XMPPClient(
            configuration: XMPPClientConfiguration(
                connection: connection, host: account.host, port: account.port, security: security),
            eventLoopGroup: group, logger: logger)
    }

    private func startLAN(
        _ settings: NodeConfiguration.LANSettings, replica: RoomReplica, group: any EventLoopGroup
    ) async throws -> LANRoomLink {
        var cluster = ClusterConfiguration(room: replica.name)
        cluster.beaconInterval = settings.beaconInterval
        var random = SystemRandomNumberGenerator()
        let driver: ClusterDriver
        do {
            let node = try ClusterNode(
                configuration: cluster, nodeID: replica.session.nodeID, incarnation: random.next(), key: settings.key)
            driver = ClusterDriver(node: node, socket: settings.socket, eventLoopGroup: group, logger: logger)
            try await driver.start()
        } catch {
            throw NodeError("cannot start the LAN cluster of room \(replica.name): \(error)")
        }
        logger.info("LAN cluster", metadata: ["room": "\(replica.name)", "transport": "\(driver.transportDescription)"])
        let link = LANRoomLink(replica: replica, driver: driver, logger: logger, emit: emit)
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

    private func makeRoom(_ name: String, account: NodeConfiguration.XMPPAccount, replica: RoomReplica) throws -> MUCRoom {
        do {
            return MUCRoom(
                configuration: try MUCRoomConfiguration(roomJID: name, nickname: account.nickname ?? replica.session.nodeID))
        } catch {
            throw NodeError("\(error)")
        }
    }

    // MARK: Inputs

    /// A client event; returns an error when the node cannot go on.
    private func clientEvent(_ event: XMPPClientEvent) -> NodeError? {
        switch event {
        case .online(let jid, let resumed):
            emit(NodeEvent("online").with("jid", jid).with("resumed", resumed))
            for link in links { link.clientOnline(resumed: resumed) }
        case .stanza(let stanza):
            for link in links where link.offer(stanza) { break }
        case .offline(let error, let delay):
            var event = NodeEvent("offline").with("error", "\(error)")
            if let delay { event = event.with("retry_in_s", Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18) }
            emit(event)
            for link in links { link.clientOffline(resumable: delay != nil && error.kind != .streamError) }
            if delay == nil, !(error.kind == .closedByClient) {
                return NodeError("the XMPP connection failed and cannot be retried: \(error)")
            }
        }
        return nil
    }

    /// One NDJSON line from standard input: a protocol message (its operations are local)
    /// or a local action (docs/actions.md).
    private func local(_ bytes: [UInt8]) {
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        let replica = replicas[configuration.inputRoom]
        do {
            let message = try MessageDecoder.decode(bytes)
            let operations = message.operations
            if !operations.isEmpty {
                replica.handle(.local(operations))
            }
            return
        } catch {
            if LocalAction.isAction(bytes) {
                do {
                    replica.handle(.action(try LocalAction.decode(bytes)))
                    return
                } catch {
                    inputError(error)
                    return
                }
            }
            inputError(error)
        }
    }

    private func inputError(_ error: ProtocolError) {
        logger.error("<stdin>:\(inputLine): error: \(error)")
        emit(NodeEvent("input_error").with("line", inputLine).with("error", "\(error)"))
    }

    private func tick() {
        for replica in replicas { replica.tick() }
        for link in links { link.tick() }
        for link in lanLinks { link.tick() }
        electGateways()
        if configuration.exportPath != nil, clock.now - lastExport >= configuration.exportInterval {
            lastExport = clock.now
            export(onlyChanged: true)
        }
    }

    // MARK: Outputs

    private func emit(_ event: NodeEvent) {
        writeEvent(event.ndjson)
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
                    throw NodeError("cannot rename \(temporary) to \(target): \(String(cString: strerror(errno)))")
                }
                replica.markExported()
                emit(NodeEvent("exported").with("room", replica.name).with("path", target))
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
                try replica.store?.close()
            } catch {
                logger.error("cannot close the store", metadata: ["room": "\(replica.name)", "error": "\(error)"])
            }
        }
        emit(NodeEvent("stopped"))
    }
}
