/// The session's injected randomness (SplitMix64): seeded by the configuration, so that a
/// simulation replays exactly from its seed.
struct SessionRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A duration uniformly drawn from `0 ..< upper` (zero when `upper` is not positive).
    mutating func duration(below upper: Duration) -> Duration {
        guard upper > .zero else { return .zero }
        return upper * Double.random(in: 0..<1, using: &self)
    }
}
