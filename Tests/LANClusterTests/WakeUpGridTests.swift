import CanvasTestSupport
import NIOCore
import Testing

@testable import LANCluster

@Suite struct WakeUpGridTests {
    /// The next instant is on the grid, strictly after the given one and at most a period
    /// later, for instants on, between and before the grid's phase.
    @Test func theNextInstantIsTheFirstOnTheGridStrictlyAfter() {
        var generator = SplitMix64(seed: announcedSeed())
        for _ in 0..<2000 {
            let period = Int64(generator.next() % 100_000_000) + 1
            let phase = Int64(generator.next() % 1_000_000_000)
            let grid = WakeUpGrid(period: .nanoseconds(period), phase: .nanoseconds(phase))
            // Around the phase, on an instant of the grid, and anywhere.
            let candidates: [Int64] = [
                phase, phase - 1, phase + 1, phase + period * 7, phase - period * 3,
                Int64(generator.next() % 5_000_000_000_000),
            ]
            for instant in candidates where instant >= 0 {
                let next = Int64(grid.next(after: .uptimeNanoseconds(UInt64(instant))).uptimeNanoseconds)
                #expect(next > instant, "period \(period) phase \(phase): \(next) is not after \(instant)")
                #expect(next - instant <= period, "period \(period) phase \(phase): \(next) is more than a period after \(instant)")
                let offset = (next - phase) % period
                #expect(offset == 0, "period \(period) phase \(phase): \(next) is off the grid by \(offset)")
            }
        }
    }

    /// Two grids of one process with periods that divide each other meet at every instant
    /// of the longer one: the tick and a socket read at the same instant are one wake-up.
    @Test func gridsOfOneProcessMeet() {
        let tick = WakeUpGrid.tick
        let reads = WakeUpGrid(period: .milliseconds(25))
        #expect(tick.phase == reads.phase)
        var instant = NIODeadline.uptimeNanoseconds(123_456_789_000)
        for _ in 0..<100 {
            instant = tick.next(after: instant)
            let read = reads.next(after: instant - .nanoseconds(1))
            #expect(read == instant)
        }
    }
}
