import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import CanvasRuntime

/// The embeddable node's lifecycle — start, join, draw, stop with operations the room has
/// not confirmed, restart from the store — over a fake transport: an in-process hub that
/// carries every message to the other nodes, and confirms sends only when told to.
@Suite("Node lifecycle", .timeLimit(.minutes(1))) struct NodeLifecycleTests {
    static let room = "board"
    static let stroke = LocalAction.draw(
        points: [Point(x: 0, y: 0), Point(x: 40, y: 10), Point(x: 80, y: 0)], weight: 2, colour: .black, recognize: false)

    static func node(
        on hub: FakeHub, storage: NodeConfiguration.Storage = .memory, drainLimit: Duration = .seconds(10),
        compaction: CompactionPolicy = CompactionPolicy()
    ) -> Node {
        var configuration = NodeConfiguration(rooms: [room], storage: storage)
        configuration.drainLimit = drainLimit
        configuration.compaction = compaction
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return Node(configuration: configuration, logger: logger, eventLoopGroup: nil) { replica, inject in
            [FakeLink(replica: replica, hub: hub, inject: inject)]
        }
    }

    @Test func twoNodesInOneProcessDrawAndConverge() async throws {
        let hub = FakeHub()
        let ada = Self.node(on: hub)
        let bob = Self.node(on: hub)
        let events = bob.events
        try await ada.start()
        try await bob.start()
        let drawn = try await ada.perform(Self.stroke, in: Self.room)
        #expect(drawn.count == 2)
        let id = drawn[0].strokeID
        #expect(await eventually { try await bob.document(of: Self.room)[id] != nil })
        #expect(try await bob.document(of: Self.room) == ada.document(of: Self.room))
        let svg = String(decoding: try await bob.svg(of: Self.room), as: UTF8.self)
        #expect(svg.contains("<path"))
        try await ada.stop()
        try await bob.stop()
        var names: [String] = []
        var appliedFromAda = false
        for await event in events {
            names.append(event.name)
            if case .applied(_, _, _, let author?) = event, author.hasPrefix("fake/") { appliedFromAda = true }
        }
        #expect(names.first == "started" && names.last == "stopped")
        #expect(appliedFromAda)
    }

    /// A graceful stop waits for the room to confirm what was sent, and no longer.
    @Test func stopWaitsForUnconfirmedOperationsUntilTheyAreConfirmed() async throws {
        let hub = FakeHub(confirms: false)
        let ada = Self.node(on: hub)
        try await ada.start()
        try await ada.perform(Self.stroke, in: Self.room)
        #expect(hub.unconfirmed > 0)
        let stopped = Task { try await ada.stop() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(hub.stops == 0, "the node left before the room confirmed its stroke")
        hub.confirmAll()
        let start = ContinuousClock.now
        try await stopped.value
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(hub.stops == 1)
    }

    /// What the room never confirmed stays in the store: the node gives up after its drain
    /// limit, and a restarted node holds the stroke and names its next one past every number
    /// it had reserved (StrokeNumberReservation).
    @Test func aRestartedNodeKeepsWhatItDrewAndCountsOn() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-node-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let hub = FakeHub(confirms: false)
        let first = Self.node(on: hub, storage: .folder(folder.path), drainLimit: .milliseconds(300))
        try await first.start()
        let drawn = try await first.perform(Self.stroke, in: Self.room)
        let document = try await first.document(of: Self.room)
        let start = ContinuousClock.now
        try await first.stop()
        #expect(ContinuousClock.now - start >= .milliseconds(250), "the node did not wait for the room")
        await #expect(throws: NodeError.self) { try await first.perform(Self.stroke, in: Self.room) }

        let second = Self.node(on: FakeHub(), storage: .folder(folder.path))
        try await second.start()
        #expect(try await second.document(of: Self.room) == document)
        let next = try await second.perform(Self.stroke, in: Self.room)
        let author = String(drawn[0].strokeID.rawValue.split(separator: "_")[0])
        #expect(next[0].strokeID == StrokeID("\(author)_\(StrokeNumberReservation.block + 1)"))
        try await second.stop()
    }

    /// The configured compaction policy is the store's: with any log counting, each local
    /// write starts a compaction (in the background: the log goes on meanwhile), stopping
    /// waits for the one under way and removes the log it set aside, and a restart reads the
    /// room back whole.
    @Test func theStoreCompactsByTheConfiguredPolicy() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-node-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let room = folder.appendingPathComponent("rooms/\(Self.room)")
        let eager = CompactionPolicy(logToSnapshotRatio: 0, minimumLogBytes: 0)
        let first = Self.node(on: FakeHub(), storage: .folder(folder.path), compaction: eager)
        try await first.start()
        try await first.perform(Self.stroke, in: Self.room)
        try await first.perform(Self.stroke, in: Self.room)
        let document = try await first.document(of: Self.room)
        try await first.stop()
        let snapshot = try Data(contentsOf: room.appendingPathComponent(RoomStore.snapshotFileName))
        #expect(!snapshot.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: room.appendingPathComponent(RoomStore.rotatedLogFileName).path))

        let second = Self.node(on: FakeHub(), storage: .folder(folder.path))
        try await second.start()
        #expect(try await second.document(of: Self.room) == document)
        try await second.stop()
    }

    @Test func mistakesAreClearErrors() async throws {
        let node = Self.node(on: FakeHub())
        try await node.start()
        await #expect {
            try await node.perform(Self.stroke, in: "elsewhere")
        } throws: { error in
            (error as? NodeError)?.kind == .unknownRoom && "\(error)".contains("no room \"elsewhere\"")
                && "\(error)".contains(Self.room)
        }
        await #expect(throws: NodeError(.notRunning, "")) { try await node.run() }
        await #expect(throws: NodeError(.notRunning, "")) { try await node.start() }
        try await node.stop()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let unconnected = Node(configuration: NodeConfiguration(rooms: [Self.room], storage: .memory), logger: logger)
        await #expect {
            try await unconnected.start()
        } throws: { error in
            (error as? NodeError)?.kind == .invalidConfiguration && "\(error)".contains("no transport")
        }
    }

    /// In a `ServiceGroup`, the group's graceful shutdown stops the node.
    @Test func aServiceGroupShutsTheNodeDownGracefully() async throws {
        let hub = FakeHub()
        let node = Self.node(on: hub)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let group = ServiceGroup(services: [node], logger: logger)
        let running = Task { try await group.run() }
        try await node.perform(Self.stroke, in: Self.room)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(hub.stops == 1)
        await #expect(throws: NodeError.self) { try await node.perform(Self.stroke, in: Self.room) }
    }
}

/// Carries messages between the fake links of the nodes of a test, in-process.
final class FakeHub: Sendable {
    private struct State {
        var links: [ObjectIdentifier: FakeLink] = [:]
        var unconfirmed: [(FakeLink, SendID)] = []
        var stops = 0
    }

    private let state = Mutex(State())
    /// Whether sends are confirmed at once (otherwise `confirmAll()` confirms them).
    let confirms: Bool

    init(confirms: Bool = true) {
        self.confirms = confirms
    }

    var unconfirmed: Int { state.withLock { $0.unconfirmed.count } }
    /// How many links left (one per stopped node).
    var stops: Int { state.withLock { $0.stops } }

    func join(_ link: FakeLink) -> [FakeLink] {
        state.withLock { state in
            defer { state.links[ObjectIdentifier(link)] = link }
            return Array(state.links.values)
        }
    }

    func leave(_ link: FakeLink) -> [FakeLink] {
        state.withLock { state in
            state.links[ObjectIdentifier(link)] = nil
            state.stops += 1
            return Array(state.links.values)
        }
    }

    func others(than link: FakeLink) -> [FakeLink] {
        state.withLock { $0.links.values.filter { $0 !== link } }
    }

    func hold(_ id: SendID, of link: FakeLink) {
        state.withLock { $0.unconfirmed.append((link, id)) }
    }

    /// The room confirms everything sent so far.
    func confirmAll() {
        let held = state.withLock { state in
            defer { state.unconfirmed = [] }
            return state.unconfirmed
        }
        for (link, id) in held { link.confirmed(id) }
    }
}

/// A room transport through a `FakeHub`. Its inputs reach the session through the node's
/// loop (`inject`), as a real transport's do.
final class FakeLink: RoomLink, @unchecked Sendable {
    static let transport = TransportID("fake")
    let name: String
    private let hub: FakeHub
    private let inject: @Sendable (SessionInput) -> Void
    private let waiting = Mutex(Set<SendID>())

    init(replica: RoomReplica, hub: FakeHub, inject: @escaping @Sendable (SessionInput) -> Void) {
        name = replica.session.nodeID
        self.hub = hub
        self.inject = inject
        replica.attach(self, as: Self.transport)
        let present = hub.join(self)
        replica.handle(
            .transportUp(Self.transport, maxMessageBytes: 64 * 1024, members: Set(present.map { PeerID($0.name) }), legacyPeers: false))
        for other in present { other.inject(.memberJoined(PeerID(name), via: Self.transport)) }
    }

    func send(_ bytes: [UInt8], kind: MessageKind, to destination: Destination, id: SendID?) -> SendOutcome {
        for other in hub.others(than: self) where destination == .room || destination == .peer(PeerID(other.name)) {
            other.inject(.received(bytes, from: PeerID(name), via: Self.transport))
        }
        guard let id, !hub.confirms else { return .accepted }
        waiting.withLock { _ = $0.insert(id) }
        hub.hold(id, of: self)
        return .pending
    }

    func confirmed(_ id: SendID) {
        waiting.withLock { _ = $0.remove(id) }
        inject(.accepted(id, via: Self.transport))
    }

    var isSettled: Bool { waiting.withLock { $0.isEmpty } }

    func leave() {
        for other in hub.leave(self) { other.inject(.memberLeft(PeerID(name), via: Self.transport)) }
    }
}

/// Polls `condition` for up to 5 seconds; returns whether it held.
func eventually(_ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return (try? await condition()) == true
}
