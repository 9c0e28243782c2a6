import LANCluster
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import CanvasRuntime

@Suite struct GridTickerTests {
    /// Each tick falls in a later instant's slot of the grid than the one before (a late
    /// tick is not followed by a hurried one), most come soon after their instant (a
    /// repeated task's would come anywhere in the slot), and none comes once it is cancelled.
    @Test(.timeLimit(.minutes(1))) func ticksStayOnTheGridAndStopWhenCancelled() async throws {
        let grid = WakeUpGrid(period: .milliseconds(40))
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let fired = NIOLockedValueBox<[NIODeadline]>([])
        let ticker = GridTicker(grid: grid, on: eventLoop) { fired.withLockedValue { $0.append(.now()) } }
        while fired.withLockedValue({ $0.count }) < 20 { try await Task.sleep(for: .milliseconds(5)) }
        ticker.cancel()
        let ticks = fired.withLockedValue { $0 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(fired.withLockedValue { $0.count } <= ticks.count + 1, "ticks went on after cancel()")
        // The slot of a tick: the last grid instant at or before it.
        let slots = ticks.map { tick in
            (Int64(tick.uptimeNanoseconds) - grid.phase.nanoseconds) / grid.period.nanoseconds
        }
        for (earlier, later) in zip(slots, slots.dropFirst()) {
            #expect(later > earlier, "two ticks in one grid slot: \(slots)")
        }
        let lateness = ticks.map { tick in
            (Int64(tick.uptimeNanoseconds) - grid.phase.nanoseconds) % grid.period.nanoseconds
        }.sorted()
        let median = lateness[lateness.count / 2]
        #expect(median < grid.period.nanoseconds * 3 / 8, "ticks come \(median) ns after their instants (median)")
    }
}
