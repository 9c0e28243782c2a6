/// How long to wait before each reconnection attempt: exponential backoff with jitter.
///
/// The base delay starts at `initial` and grows by `multiplier` after every attempt, up to
/// `maximum`. Each delay is drawn uniformly from `[base / 2, base]`, so that clients
/// dropped together do not reconnect together, while a delay never falls below half the
/// base. It reads no clock: the driver sleeps, and injects the randomness.
///
/// ```
/// var backoff = ReconnectBackoff()
/// while true {
///     try await connectAndServe(onStable: { backoff.reset() })
///     try await Task.sleep(for: backoff.nextDelay(random: &generator))
/// }
/// ```
public struct ReconnectBackoff: Sendable {
    /// The base delay of the first attempt.
    public let initial: Duration
    /// The largest base delay.
    public let maximum: Duration
    /// How much the base delay grows after each attempt.
    public let multiplier: Double
    /// The base delay of the next attempt.
    private var base: Duration

    /// A backoff from `initial` up to `maximum`, growing by `multiplier` per attempt.
    ///
    /// Values that would make delays shrink are raised: a negative `initial` to zero, a
    /// `maximum` below `initial` to `initial`, a `multiplier` below 1 (or not finite) to 1.
    public init(
        initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), multiplier: Double = 2
    ) {
        self.initial = max(initial, .zero)
        self.maximum = max(maximum, self.initial)
        self.multiplier = multiplier.isFinite && multiplier >= 1 ? multiplier : 1
        self.base = self.initial
    }

    /// The delay before the next attempt, drawn from `[base / 2, base]`; the base then grows.
    public mutating func nextDelay(random: inout some RandomNumberGenerator) -> Duration {
        let delay = base * Double.random(in: 0.5...1, using: &random)
        // Compared before multiplying, so that a large maximum cannot overflow.
        base = base > maximum / multiplier ? maximum : base * multiplier
        return delay
    }

    /// The connection stayed up: the next attempt waits about `initial` again.
    public mutating func reset() {
        base = initial
    }
}
