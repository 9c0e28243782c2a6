import CanvasCore

/// The session's injected randomness: seeded by the configuration, so that a simulation
/// replays exactly from its seed.
typealias SessionRandom = SplitMix64

extension SplitMix64 {
    /// A duration uniformly drawn from `0 ..< upper` (zero when `upper` is not positive).
    mutating func duration(below upper: Duration) -> Duration {
        guard upper > .zero else { return .zero }
        return upper * Double.random(in: 0..<1, using: &self)
    }
}
