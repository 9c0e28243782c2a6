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
                case .persistRemote(let operations): try stored.persistRemote(operations, of: session.replica, now: clock)
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
}
