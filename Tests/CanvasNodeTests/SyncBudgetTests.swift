import CanvasCore
import Testing

@testable import CanvasNode

/// Anti-entropy yields to drawing (docs/sync.md, "Under load"): while members draw it
/// sends within its budget, and once the room is quiet it catches up in full.
@Suite struct SyncBudgetTests {
    @Test func theBucketIsBottomlessWhileNobodyDrawsAndMetesOutItsShareWhileSomeoneDoes() {
        var budget = SyncBudget(perSecond: 40_000, minimumPerSecond: 4_000, burst: 32_000)
        func spend(_ bytes: Int, members: Int, drawing: Bool, now: Duration) -> Bool {
            budget.spend(bytes, members: members, drawing: drawing, now: now)
        }
        #expect(spend(1_000_000, members: 3, drawing: false, now: .zero))
        #expect(spend(32_000, members: 3, drawing: true, now: .zero))
        #expect(!spend(1, members: 3, drawing: true, now: .zero))
        // A second later: a quarter of 40,000 (four nodes share it).
        #expect(!spend(10_001, members: 3, drawing: true, now: .seconds(1)))
        #expect(spend(10_000, members: 3, drawing: true, now: .seconds(1)))
        // Forty members: each still gets the minimum.
        #expect(spend(4_000, members: 40, drawing: true, now: .seconds(2)))
        #expect(!spend(1_000, members: 40, drawing: true, now: .seconds(2)))
        // Quiet again: everything goes, and the bucket is full for the next burst.
        #expect(spend(500_000, members: 40, drawing: false, now: .seconds(2)))
        #expect(spend(32_000, members: 40, drawing: true, now: .seconds(2)))
    }

    /// `a` joins a room of 400 strokes while `b` and `c` keep drawing over a slow link: the
    /// repairs that bring it up to date are not held back (it has the room while they still
    /// draw), but the exchanges that look for differences — every summary differs by what
    /// is in flight — stay within the budget.
    @Test func aNewcomerCatchesUpWhileOthersDrawAndTheSearchStaysWithinTheBudget() {
        let lan = GatewayTests.lan
        var rooms = GatewayTests.Rooms()
        // Slow enough that replicas always differ by what is in flight while b and c draw.
        rooms.latency = .milliseconds(300)
        let budget = 8_000
        for node in ["a", "b", "c"] {
            rooms.add(node, to: [lan]) { $0.syncBytesPerSecondWhileDrawing = budget }
        }
        rooms.connect("b", lan)
        rooms.connect("c", lan)
        for index in 0..<400 { rooms.input(.local(GatewayTests.stroke("b_\(index)", points: 20)), to: "b") }
        rooms.run(until: .seconds(3))
        #expect(rooms.sessions["c"]!.document.strokeCount == 400)
        rooms.connect("a", lan)
        let start = rooms.now
        let before = ["b", "c"].map { rooms.sessions[$0]!.statistics }
        var drawn = 0
        while rooms.now < start + .seconds(10) {
            rooms.input(.local(GatewayTests.stroke("c_\(drawn)", points: 3)), to: "c")
            rooms.input(.local(GatewayTests.stroke("b_more_\(drawn)", points: 3)), to: "b")
            drawn += 2
            rooms.run(until: rooms.now + .milliseconds(200))
        }
        #expect(rooms.sessions["a"]!.document.strokeCount >= 400, "the newcomer has the room while c still draws")
        for (index, node) in ["b", "c"].enumerated() {
            let search = rooms.sessions[node]!.statistics.syncBytes - before[index].syncBytes
            // Each node's share is a third of 8,000 bytes a second, on top of 8 KiB saved up;
            // its own summaries (one a second here) are not counted against it.
            #expect(search <= (8 << 10) + 10 * budget / 3 + 10 * 200, "\(node) sent \(search) bytes of sync messages while c drew")
        }
        rooms.run(until: rooms.now + .seconds(10))
        let digests = Set(rooms.sessions.values.map(\.document.digest))
        #expect(digests.count == 1, "everyone converges")
        #expect(rooms.sessions["a"]!.document.strokeCount == 400 + drawn)
    }
}
