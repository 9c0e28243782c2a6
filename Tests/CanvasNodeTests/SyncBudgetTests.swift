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

    /// `a` comes back from a long absence to a room of 400 strokes while `c` keeps
    /// drawing: `b`'s repairs to `a` stay within its budget, and when `c` stops, `a`
    /// catches up within a few summaries.
    @Test func aLargeCatchUpWaitsForTheDrawingToStopAndThenFinishes() {
        let lan = GatewayTests.lan
        var rooms = GatewayTests.Rooms()
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
        let before = rooms.sessions["b"]!.statistics
        var drawn = 0
        while rooms.now < start + .seconds(10) {
            rooms.input(.local(GatewayTests.stroke("c_\(drawn)", points: 3)), to: "c")
            drawn += 1
            rooms.run(until: rooms.now + .milliseconds(200))
        }
        let during = rooms.sessions["b"]!.statistics
        let sent = (during.repairBytes - before.repairBytes) + (during.syncBytes - before.syncBytes)
        // b's share is a third of 8,000 bytes a second, on top of the 8 KiB saved up.
        #expect(sent <= (8 << 10) + 10 * budget / 3, "b sent \(sent) bytes of anti-entropy while c drew")
        #expect(during.deferred > before.deferred)
        #expect(rooms.sessions["a"]!.document.strokeCount < 400, "the catch-up was spread out")
        rooms.run(until: rooms.now + .seconds(10))
        let digests = Set(rooms.sessions.values.map(\.document.digest))
        #expect(digests.count == 1, "everyone converges once the drawing stops")
        #expect(rooms.sessions["a"]!.document.strokeCount == 400 + drawn)
    }
}
