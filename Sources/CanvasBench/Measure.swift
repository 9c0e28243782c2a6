/// Wall-clock timing of a closure, repeated, summarised by the median (robust on a shared
/// machine) and the minimum.
public struct Timing: Sendable {
    /// Every run's duration, in seconds, sorted.
    public let runs: [Double]

    /// The middle run.
    public var median: Double { runs[runs.count / 2] }
    /// The fastest run.
    public var minimum: Double { runs[0] }

    /// Runs `body` `warmup` times untimed, then `repetitions` times timed.
    public static func measure(repetitions: Int, warmup: Int = 2, _ body: () -> Void) -> Timing {
        for _ in 0..<warmup { body() }
        let clock = ContinuousClock()
        var runs: [Double] = []
        for _ in 0..<max(1, repetitions) {
            let elapsed = clock.measure(body)
            runs.append(elapsed.seconds)
        }
        return Timing(runs: runs.sorted())
    }
}

/// Keeps a value alive and opaque to the optimiser, so measured work is not removed.
@inline(never)
public func sink<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
