import LANCluster
import NIOConcurrencyHelpers
import NIOCore

/// Calls `fire` on `eventLoop` at every instant of `grid` until cancelled. Unlike a
/// repeated task, whose next run is a delay after the last one ended, the ticks stay on the
/// grid, where the LAN socket's reads fall too (`WakeUpGrid`): one wake-up serves both.
final class GridTicker: Sendable {
    private let grid: WakeUpGrid
    private let eventLoop: any EventLoop
    private let fire: @Sendable () -> Void
    private let next = NIOLockedValueBox<(scheduled: Scheduled<Void>?, cancelled: Bool)>((nil, false))

    /// Starts ticking at the grid's next instant.
    init(grid: WakeUpGrid, on eventLoop: any EventLoop, fire: @escaping @Sendable () -> Void) {
        self.grid = grid
        self.eventLoop = eventLoop
        self.fire = fire
        scheduleNext()
    }

    /// No tick after this returns, unless one is running now.
    func cancel() {
        next.withLockedValue { next in
            next.cancelled = true
            next.scheduled?.cancel()
            next.scheduled = nil
        }
    }

    private func scheduleNext() {
        next.withLockedValue { next in
            guard !next.cancelled else { return }
            next.scheduled = eventLoop.scheduleTask(deadline: grid.next(after: .now())) { [self] in
                fire()
                scheduleNext()
            }
        }
    }
}
