import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasStore
import Foundation
import Testing

@Suite("A session persisting to a real store")
struct StoredReplicaTests {
    @Test func whatASessionPersistsSurvivesARestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-stored-replica-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var clock = Duration.zero
        var session = RoomSession(configuration: SessionConfiguration(nodeID: "node-a", seed: 7))
        let store = try RoomStore.open(directory: directory, room: "team@rooms.example").store
        let stored = StoredReplica(store: store)

        // Drive the session as a node would: carry out its persistence actions in order.
        func run(_ input: SessionInput) throws {
            for action in session.handle(input, at: clock) {
                switch action {
                case .persistLocal(let operations): try stored.persistLocal(operations, of: session.replica)
                case .persistRemote(let operations, let forms):
                    try stored.persistRemote(operations, compactForms: forms, of: session.replica, now: clock)
                default: break
                }
            }
        }
        try run(.action(.draw(points: [Point(x: 0, y: 0), Point(x: 40, y: 25), Point(x: 90, y: 10)], weight: 2, colour: .black, recognize: false)))
        try run(.action(.erase(points: [Point(x: 40, y: 25)], radius: 5)))
        let remote = StrokeID("node-b_1")
        let received = [
            CanvasCore.Operation.add(remote, StrokeHeader(weight: 1, colour: .black, start: Point(x: 5, y: 50))),
            .append(remote, points: [Point(x: 60, y: 55)], offset: 1),
        ]
        try run(.transportUp(TransportID("lan"), maxMessageBytes: 1200, members: [PeerID("node-b")]))
        for operation in received {
            try run(.received(MessageEncoder.encode(operation), from: PeerID("node-b"), via: TransportID("lan")))
        }
        clock += .seconds(1)
        try stored.flushIfDue(now: clock, of: session.replica)
        let expected = session.document.digest
        #expect(session.document.strokeCount == 2)
        try store.close()

        // A new process: the store restores the same document into a new session.
        let (reopened, operations) = try RoomStore.open(directory: directory, room: "team@rooms.example")
        defer { try? reopened.close() }
        var restored = RoomSession(configuration: SessionConfiguration(nodeID: "node-a", seed: 8), restoring: operations)
        #expect(restored.document.digest == expected)
        // The counter of strokes drawn here continues after the restored ones.
        let drawn = restored.handle(
            .action(.draw(points: [Point(x: 1, y: 1), Point(x: 2, y: 2)], weight: 1, colour: .black, recognize: false)), at: clock)
        let ids = drawn.compactMap { if case .persistLocal(let operations) = $0 { operations.first?.strokeID } else { nil } }
        #expect(ids == [StrokeID("node-a_2")])
    }

    /// A compact message is one operation's compact form: the store records those bytes as
    /// they came (no second encoding), a peer's own valid form included, and recovery reads
    /// them back as the operation applied; an APPEND that came without its offset is
    /// recorded with it, so encoded here.
    @Test func operationsAreRecordedInTheCompactFormTheyCameIn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-compact-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var session = RoomSession(configuration: SessionConfiguration(nodeID: "node-a", seed: 9))
        let store = try RoomStore.open(directory: directory, room: "team@rooms.example").store
        let stored = StoredReplica(store: store)
        func varint(_ value: UInt64) -> [UInt8] {
            var value = value
            var bytes: [UInt8] = []
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            return bytes + [UInt8(value)]
        }
        let stroke = StrokeID("node-b_1")
        let add = CanvasCore.Operation.add(stroke, StrokeHeader(weight: 2, colour: .black, start: Point(x: 5, y: 50)))
        // (60, 55) in thousandths of a pixel, unit 1, where this node's encoder would choose
        // 5000: valid, decoded alike, not the bytes we would write.
        let peersOwnForm: [UInt8] =
            [2] + varint(8) + Array("node-b_1".utf8) + varint(1) + varint(1) + varint(1) + varint(240_000) + varint(220_000)
        let withoutOffset = CompactOperationCoding.encode(.append(stroke, points: [Point(x: 70, y: 40)], offset: nil))
        var persisted: [(operations: [CanvasCore.Operation], forms: [[UInt8]?])] = []
        _ = session.handle(.transportUp(TransportID("lan"), maxMessageBytes: 1200, members: [PeerID("node-b")]), at: .zero)
        for bytes in [CompactOperationCoding.encode(add), peersOwnForm, withoutOffset] {
            for case .persistRemote(let operations, let forms) in session.handle(
                .received(bytes, from: PeerID("node-b"), via: TransportID("lan")), at: .seconds(1))
            {
                persisted.append((operations, forms))
                try stored.persistRemote(operations, compactForms: forms, of: session.replica, now: .seconds(1))
            }
        }
        #expect(persisted.map(\.forms) == [[CompactOperationCoding.encode(add)], [peersOwnForm], [nil]])
        #expect(persisted[1].operations == [.append(stroke, points: [Point(x: 60, y: 55)], offset: 1)])
        #expect(persisted[2].operations == [.append(stroke, points: [Point(x: 70, y: 40)], offset: 2)])
        try stored.close()
        var expectedLog: [UInt8] = []
        LogFormat.appendRecord(compactForm: CompactOperationCoding.encode(add), to: &expectedLog)
        LogFormat.appendRecord(compactForm: peersOwnForm, to: &expectedLog)
        LogFormat.appendRecord(persisted[2].operations[0], to: &expectedLog)
        let log = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store.roomPath + "/" + RoomStore.logFileName)))
        #expect(log.suffix(expectedLog.count) == expectedLog[...])
        var canonical: [UInt8] = []
        LogFormat.appendRecord(add, to: &canonical)
        #expect(canonical == Array(expectedLog.prefix(canonical.count)), "our own form is recorded byte for byte as we encode it")

        let (reopened, operations) = try RoomStore.open(directory: directory, room: "team@rooms.example")
        defer { try? reopened.close() }
        #expect(operations == persisted.flatMap(\.operations))
        #expect(RoomSession(configuration: SessionConfiguration(nodeID: "node-a", seed: 9), restoring: operations).document.digest
            == session.document.digest)
    }
}
