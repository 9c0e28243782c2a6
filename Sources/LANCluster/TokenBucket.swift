/// A rate limit: `perSecond` tokens a second, at most one second's worth saved up.
struct TokenBucket: Sendable {
    /// The rate; it may change between takes.
    var perSecond: Double
    private var tokens = 0.0
    private var updated: Duration = .zero

    init(perSecond: Int) {
        self.perSecond = Double(max(perSecond, 1))
    }

    /// Takes up to `wanted` tokens at `now`; returns how many it got.
    mutating func take(upTo wanted: Int, now: Duration) -> Int {
        let elapsed = Double(now.components.seconds - updated.components.seconds)
            + Double(now.components.attoseconds - updated.components.attoseconds) * 1e-18
        tokens = min(perSecond, tokens + max(elapsed, 0) * perSecond)
        updated = now
        let granted = min(wanted, Int(tokens))
        tokens -= Double(granted)
        return max(granted, 0)
    }
}
