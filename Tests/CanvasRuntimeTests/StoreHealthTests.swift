import Testing

@testable import CanvasRuntime

/// What a node says of a store that refuses writes (a full disk): once when the outage
/// starts, a reminder at most every 30 s, and once when everything owed is written.
@Suite("Store health") struct StoreHealthTests {
    @Test func anOutageIsReportedOnceThenRemindedThenEnded() {
        var health = StoreHealth()
        #expect(health.caughtUp(at: .seconds(1)) == nil, "a store that never failed has nothing to report")
        #expect(health.failed(at: .seconds(10)) == .outageStarted)
        #expect(health.isFailing)
        for tenth in 1..<300 {  // a refused write every 100 ms for 29.9 s: nothing more is said
            #expect(health.failed(at: .seconds(10) + .milliseconds(100 * tenth)) == nil)
        }
        #expect(health.failed(at: .seconds(40)) == .stillFailing(failures: 301, since: .seconds(10)))
        #expect(health.failed(at: .seconds(45)) == nil)
        #expect(health.failed(at: .seconds(70)) == .stillFailing(failures: 303, since: .seconds(10)))
        #expect(health.caughtUp(at: .seconds(72)) == StoreHealth.Recovery(lasted: .seconds(62), failures: 303))
        #expect(!health.isFailing)
        #expect(health.caughtUp(at: .seconds(73)) == nil, "the end of an outage is said once")
        #expect(health.failed(at: .seconds(80)) == .outageStarted, "a new outage is a new report")
        #expect(health.caughtUp(at: .seconds(81)) == StoreHealth.Recovery(lasted: .seconds(1), failures: 1))
    }
}

@Suite("Stroke number reservation") struct StrokeNumberReservationTests {
    @Test func aBlockIsReservedBeforeItsNumbersAreUsed() {
        var reservation = StrokeNumberReservation()
        #expect(reservation.renewal(counter: 0) == StrokeNumberReservation.block, "nothing is reserved at first")
        reservation.reservedThrough = 1000
        #expect(reservation.renewal(counter: 1) == nil)
        #expect(reservation.renewal(counter: 1000 - StrokeNumberReservation.perAction) == nil)
        #expect(reservation.renewal(counter: 1000 - StrokeNumberReservation.perAction + 1) == 1000 - StrokeNumberReservation.perAction + 1 + 1000)
        #expect(StrokeNumberReservation(note: " 2000\n")?.reservedThrough == 2000)
        #expect(StrokeNumberReservation(note: "-3") == nil)
        #expect(StrokeNumberReservation(note: "many") == nil)
        #expect(StrokeNumberReservation(note: StrokeNumberReservation.text(42))?.reservedThrough == 42)
    }
}
