/// Measured values (latencies, say) and their exact percentiles: every value is kept and
/// sorted, so a percentile is a value that was measured, never an estimate from a sample.
public struct Distribution: Sendable {
    /// The values, ascending.
    public let sorted: [Double]

    /// The distribution of `values`, in any order.
    public init(_ values: [Double]) {
        sorted = values.sorted()
    }

    /// How many values were measured.
    public var count: Int { sorted.count }

    /// The smallest value with at least `fraction` of the values at or below it (nearest
    /// rank); nil without values.
    public func percentile(_ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    /// The median (nil without values).
    public var median: Double? { percentile(0.5) }
    /// The 99th percentile (nil without values).
    public var p99: Double? { percentile(0.99) }
    /// The largest value (nil without values).
    public var max: Double? { sorted.last }

    /// The fraction of values at or below `value`.
    public func fraction(atOrBelow value: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return Double(count(atOrBelow: value)) / Double(sorted.count)
    }

    /// How many values are above `value`.
    public func count(above value: Double) -> Int {
        sorted.count - count(atOrBelow: value)
    }

    /// How many values are at or below `value`.
    private func count(atOrBelow value: Double) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] <= value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
