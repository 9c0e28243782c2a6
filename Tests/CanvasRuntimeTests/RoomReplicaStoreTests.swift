import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasStore
import Foundation
import Logging
import Testing

@testable import CanvasRuntime

/// A room whose store refuses a local write (a full disk; here a closed store) keeps its
/// replica, sends nothing unpersisted, and goes on with everything else the session asked.
@Suite("Room replica: a refusing store") struct RoomReplicaStoreTests {
    final class Recorder: RoomTransport {
        var sent: [[UInt8]] = []
        func send(_ bytes: [UInt8], kind: MessageKind, to destination: Destination, id: SendID?) -> SendOutcome {
            sent.append(bytes)
            return .accepted
        }
    }

    /// Found by the fault campaign: the refused batch held the session's new timer request
    /// (a peer's drawing had just expired), the replica stopped at the refusal and dropped
    /// it, and the session, believing its timer set, never asked again: the node stopped
    /// announcing for good, and what only it held never reached its peers.
    /// Stroke numbers are reserved durably before use: a restarted node names its strokes
    /// past every number it may have used, even one whose operations its store never took
    /// (a full disk) while anti-entropy carried them to peers.
    @Test func aRestartedRoomNamesItsStrokesPastEveryNumberItMayHaveUsed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-replica-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let line = LocalAction.draw(points: [Point(x: 0, y: 0), Point(x: 9, y: 9)], weight: 2, colour: .black, recognize: false)
        var (store, restored) = try RoomStore.open(directory: folder, room: "board")
        var replica = RoomReplica(
            name: "board", nodeID: "ada", store: store, restoring: restored, clock: NodeClock(), logger: logger, emit: { _ in })
        let first = try replica.local(.action(line)).get()
        #expect(first.first?.strokeID == StrokeID("ada_1"))
        try store.close()
        // Drawn while the store refused: kept in the replica only (and possibly sent by anti-entropy).
        #expect(throws: NodeError.self) { try replica.local(.action(line)).get() }
        #expect(replica.document[StrokeID("ada_2")] != nil)

        (store, restored) = try RoomStore.open(directory: folder, room: "board")
        replica = RoomReplica(
            name: "board", nodeID: "ada", store: store, restoring: restored, clock: NodeClock(), logger: logger, emit: { _ in })
        #expect(replica.document[StrokeID("ada_2")] == nil, "the store never took ada_2")
        let next = try replica.local(.action(line)).get()
        #expect(next.first?.strokeID == StrokeID("ada_\(StrokeNumberReservation.block + 1)"))
        try store.close()
    }

    @Test func aRefusedLocalWriteKeepsTheSessionsTimer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-replica-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try RoomStore.open(directory: folder, room: "board")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let replica = RoomReplica(
            name: "board", nodeID: "ada", store: store, restoring: [], clock: NodeClock(), logger: logger, emit: { _ in })
        let lan = TransportID("lan")
        let recorder = Recorder()
        replica.attach(recorder, as: lan)
        replica.handle(.transportUp(lan, maxMessageBytes: 64 * 1024, members: [PeerID("bob")], legacyPeers: false))
        let line = LocalAction.draw(points: [Point(x: 0, y: 0), Point(x: 9, y: 9)], weight: 2, colour: .black, recognize: false)
        _ = try replica.local(.action(line)).get()  // stored, and stroke names reserved
        try store.close()  // every write is refused from now on
        // Bob draws: the session expects his drawing to end within its drawing window.
        let stroke = #"{"type":"ADD","identifier":"bob_1","weight":2,"colour":[0,0,0],"start":[1,2]}"#
        replica.handle(.received(Array(stroke.utf8), from: PeerID("bob"), via: lan))
        try await Task.sleep(for: SessionConfiguration(nodeID: "ada", seed: 0).drawingWindow + .milliseconds(200))
        // Ada draws after Bob's drawing has expired: the session now asks for its next
        // announcement instead, in the same batch as the refused write.
        let sentBefore = recorder.sent.count
        let drawn = replica.local(.action(line))
        #expect(throws: NodeError.self) { try drawn.get() }
        #expect(recorder.sent.count == sentBefore, "an operation the store refused was sent")
        #expect(replica.document.strokeCount == 3, "the replica keeps what was drawn")
        replica.tick()  // Bob's expiry, the deadline asked for before, is past
        #expect(replica.timerDeadline != nil, "the session's timer request was lost: the node would never announce again")
    }
}
