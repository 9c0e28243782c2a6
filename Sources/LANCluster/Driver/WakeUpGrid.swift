public import NIOCore

/// Instants every `period` on the monotonic clock, from a phase of this process's own,
/// shared by the timers of the process: timers that fire on the same grid fire in the same
/// wake-up of the event loop instead of one each.
///
/// A node's tick and its resting LAN socket both use the 50 ms grid, so a loaded node wakes
/// about twenty times a second for both together (a wake-up costs far more than the work of
/// one datagram on a busy machine: docs/benchmarks.md). Each process draws its phase at
/// random: nodes on one machine do not all wake at the same instant, and a datagram sent at
/// one node's instant does not just miss the others'.
public struct WakeUpGrid: Sendable, Hashable {
    /// The spacing of the grid's instants.
    public let period: TimeAmount
    /// Where the grid starts on the monotonic clock (an instant is `phase` plus a multiple
    /// of `period`).
    public let phase: TimeAmount

    /// This process's phase, drawn once (up to a second).
    public static let processPhase = TimeAmount.nanoseconds(Int64.random(in: 0..<1_000_000_000))

    /// The grid of the node's tick.
    public static let tick = WakeUpGrid(period: .milliseconds(50))

    /// A grid every `period` (more than zero) from `phase`.
    public init(period: TimeAmount, phase: TimeAmount = WakeUpGrid.processPhase) {
        precondition(period.nanoseconds > 0, "a wake-up grid needs a period of more than zero")
        self.period = period
        self.phase = phase
    }

    /// The first instant of the grid strictly after `instant`.
    public func next(after instant: NIODeadline) -> NIODeadline {
        let period = self.period.nanoseconds
        let sincePhase = Int64(instant.uptimeNanoseconds) - phase.nanoseconds
        // Floor division, for instants before the phase too.
        let steps = sincePhase >= 0 ? sincePhase / period : -((-sincePhase + period - 1) / period)
        return .uptimeNanoseconds(UInt64(max(0, phase.nanoseconds + (steps + 1) * period)))
    }
}
