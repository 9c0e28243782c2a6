/// A set of closed intervals of the real line, kept normalised: sorted, disjoint, and with
/// touching or overlapping intervals coalesced. Two sets holding the same points are equal
/// (`==`) whatever order their intervals were added in, which is what makes the erased set
/// of a stroke a join-semilattice under `union`.
///
/// Results of `subtracting` and `complement(within:)` are closures: the boundary points of
/// the removed part stay in, and pieces of zero length are dropped (they draw nothing).
/// An upper bound of `+infinity` means "to the end, present and future points".
public struct IntervalSet: Hashable, Sendable {
    /// The normalised intervals, in increasing order.
    public private(set) var intervals: [ClosedRange<Double>]

    /// The empty set.
    public init() {
        intervals = []
    }

    /// The union of `ranges`, in any order, overlapping or not.
    public init(_ ranges: some Sequence<ClosedRange<Double>>) {
        intervals = []
        for range in ranges {
            formUnion(range)
        }
    }

    /// True when the set holds no point.
    public var isEmpty: Bool { intervals.isEmpty }

    /// Total length of the intervals (infinite if one is unbounded).
    public var measure: Double {
        intervals.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
    }

    /// Adds `[lower, upper]`. A reversed pair (`lower > upper`) or a NaN bound adds nothing.
    public mutating func insert(from lower: Double, through upper: Double) {
        guard lower <= upper else { return }
        formUnion(lower...upper)
    }

    /// Adds one interval, coalescing it with every interval it overlaps or touches.
    /// Costs O(log n) to find the place plus the number of intervals absorbed.
    public mutating func formUnion(_ range: ClosedRange<Double>) {
        // First interval whose upper bound reaches the new lower bound: it may touch.
        let first = firstIndex(upperAtLeast: range.lowerBound)
        var last = first
        var lower = range.lowerBound
        var upper = range.upperBound
        while last < intervals.count, intervals[last].lowerBound <= upper {
            lower = min(lower, intervals[last].lowerBound)
            upper = max(upper, intervals[last].upperBound)
            last += 1
        }
        if first == last {
            intervals.insert(range, at: first)
        } else {
            intervals.replaceSubrange(first..<last, with: CollectionOfOne(lower...upper))
        }
    }

    /// The union of two sets.
    public func union(_ other: IntervalSet) -> IntervalSet {
        var result = self
        result.formUnion(other)
        return result
    }

    /// Adds every interval of `other`.
    public mutating func formUnion(_ other: IntervalSet) {
        for range in other.intervals {
            formUnion(range)
        }
    }

    /// True when `value` lies in one of the intervals (bounds included).
    public func contains(_ value: Double) -> Bool {
        let index = firstIndex(upperAtLeast: value)
        return index < intervals.count && intervals[index].lowerBound <= value
    }

    /// True when every point of `range` is in the set.
    public func contains(_ range: ClosedRange<Double>) -> Bool {
        let index = firstIndex(upperAtLeast: range.lowerBound)
        return index < intervals.count && intervals[index].lowerBound <= range.lowerBound
            && intervals[index].upperBound >= range.upperBound
    }

    /// The closure of `self` minus `other`, without zero-length pieces.
    public func subtracting(_ other: IntervalSet) -> IntervalSet {
        var result: [ClosedRange<Double>] = []
        var cut = 0
        for range in intervals {
            var lower = range.lowerBound
            while cut < other.intervals.count, other.intervals[cut].upperBound <= lower {
                cut += 1
            }
            var index = cut
            while index < other.intervals.count, other.intervals[index].lowerBound < range.upperBound {
                let hole = other.intervals[index]
                // A single point leaves the closure whole; cutting at it would leave two
                // touching pieces, which a normalised set never holds.
                if hole.lowerBound < hole.upperBound {
                    if hole.lowerBound > lower {
                        result.append(lower...hole.lowerBound)
                    }
                    lower = max(lower, hole.upperBound)
                }
                index += 1
            }
            if lower < range.upperBound {
                result.append(lower...range.upperBound)
            }
        }
        return IntervalSet(normalised: result)
    }

    /// The closure of `range` minus `self`: for an erased set and the parameter range of a
    /// stroke, the visible parts.
    public func complement(within range: ClosedRange<Double>) -> IntervalSet {
        IntervalSet([range]).subtracting(self)
    }

    /// Index of the first interval whose upper bound is ≥ `value` (binary search).
    private func firstIndex(upperAtLeast value: Double) -> Int {
        var low = 0
        var high = intervals.count
        while low < high {
            let middle = (low + high) / 2
            if intervals[middle].upperBound < value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    private init(normalised intervals: [ClosedRange<Double>]) {
        self.intervals = intervals
    }
}

extension IntervalSet: CustomStringConvertible {
    public var description: String {
        intervals.isEmpty ? "∅" : intervals.map { "[\($0.lowerBound), \($0.upperBound)]" }.joined(separator: " ∪ ")
    }
}
