import CanvasRuntime
import CanvasNode
import Foundation
import LANCluster
import Testing

/// Every event's line: its name first, a valid JSON object, and a name that
/// `NodeEvent.names` (what `canvas join --events-only` accepts) knows.
@Suite struct NodeEventTests {
    static let everyKind: [NodeEvent] = [
        .started(node: "n", rooms: ["r"]), .stopped, .state(room: "r", digest: "00", strokes: 1, points: 2),
        .applied(room: "r", operations: 1, points: 2, author: nil), .changed(room: "r", strokes: ["a_1", "b_2"]),
        .memberJoined(room: "r", member: "m", via: "lan"),
        .memberLeft(room: "r", member: "m", via: "lan"), .drawing(room: "r", members: ["lan/m"]),
        .syncStarted(room: "r", member: "m", via: "lan"), .syncFinished(room: "r", member: "m", via: "lan"),
        .rejected(room: "r", member: "m", via: "lan", error: "e"), .error(room: "r", message: "e"),
        .exported(room: "r", path: "p"), .online(jid: "j", resumed: false), .offline(error: "e", retryIn: .seconds(1)),
        .joined(room: "r", nick: "n", occupants: []), .joinRetry(room: "r", error: "e"),
        .caughtUp(room: "r", messages: 1, archive: true), .left(room: "r", reason: "x", rejoin: true),
        .nickname(room: "r", from: "a", to: "b"), .xmppRelay(room: "r", active: true), .lanStarted(room: "r", transport: "t"),
        .gateway(room: "r", node: nil), .lanStats(room: "r", counters: ClusterCounters()),
        .xmppStats(room: "r", messagesSent: 1, operationMessagesSent: 1, bytesSent: 2, messagesReceived: 3, bytesReceived: 4),
        .syncStats(room: "r", statistics: SessionStatistics()),
        .traced(room: "r", stroke: "p1", offset: 5, points: 15, author: "lan/n2", monotonicNanoseconds: 1_234_567_890),
    ]

    @Test func everyEventIsAJSONLineNamedAsNamesSays() throws {
        #expect(Set(Self.everyKind.map(\.name)) == NodeEvent.names)
        #expect(Self.everyKind.count == NodeEvent.names.count)
        for event in Self.everyKind {
            let line = event.ndjson
            #expect(line.last == UInt8(ascii: "\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(object["event"] as? String == event.name)
        }
    }

    @Test func aTracedLineCarriesTheStrokeOffsetAndTime() {
        let line = String(decoding: Self.everyKind.last!.ndjson, as: UTF8.self)
        #expect(
            line
                == #"{"event":"traced","room":"r","stroke":"p1","offset":5,"points":15,"author":"lan/n2","t_ns":1234567890}"#
                + "\n")
    }
}
