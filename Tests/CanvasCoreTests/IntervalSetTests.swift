@testable import CanvasCore
import CanvasTestSupport
import Testing

@Suite("IntervalSet")
struct IntervalSetTests {
    // MARK: Building

    @Test func emptySetHoldsNothing() {
        let set = IntervalSet()
        #expect(set.isEmpty)
        #expect(set.intervals.isEmpty)
        #expect(set.measure == 0)
        #expect(!set.contains(0))
        #expect(!set.contains(0...0))
        #expect(set == IntervalSet([]))
        #expect(set.description == "∅")
    }

    @Test func singleInterval() {
        let set = IntervalSet([1...3])
        #expect(!set.isEmpty)
        #expect(set.intervals == [1...3])
        #expect(set.measure == 2)
        #expect(set.description == "[1.0, 3.0]")
    }

    @Test func touchingIntervalsCoalesce() {
        #expect(IntervalSet([0...1, 1...2]).intervals == [0...2])
        #expect(IntervalSet([1...2, 0...1]).intervals == [0...2])
        #expect(IntervalSet([0...1, 2...3, 1...2]).intervals == [0...3])
    }

    @Test func overlappingIntervalsCoalesce() {
        #expect(IntervalSet([0...2, 1...3]).intervals == [0...3])
        #expect(IntervalSet([1...3, 0...2]).intervals == [0...3])
        // One interval bridging several others swallows them all.
        #expect(IntervalSet([0...1, 2...3, 4...5, 0.5...4.5]).intervals == [0...5])
    }

    @Test func nestedIntervalIsAbsorbed() {
        #expect(IntervalSet([0...10, 2...3]).intervals == [0...10])
        #expect(IntervalSet([2...3, 0...10]).intervals == [0...10])
        #expect(IntervalSet([0...10, 0...10]).intervals == [0...10])
    }

    @Test(arguments: [
        [0...1, 2...3, 5...8],
        [5...8, 2...3, 0...1],
        [2...3, 5...8, 0...1],
        [5...8, 0...1, 2...3],
    ] as [[ClosedRange<Double>]])
    func disjointIntervalsStaySortedWhateverTheOrder(ranges: [ClosedRange<Double>]) {
        let set = IntervalSet(ranges)
        #expect(set.intervals == [0...1, 2...3, 5...8])
        #expect(set == IntervalSet([0...1, 2...3, 5...8]))
    }

    @Test func reversedPairAddsNothing() {
        var set = IntervalSet([0...1])
        set.insert(from: 5, through: 4)
        #expect(set.intervals == [0...1])
    }

    @Test(arguments: [(Double.nan, 1.0), (0.0, Double.nan), (Double.nan, Double.nan)])
    func nanBoundAddsNothing(lower: Double, upper: Double) {
        var set = IntervalSet()
        set.insert(from: lower, through: upper)
        #expect(set.isEmpty)
    }

    @Test func degenerateIntervalIsAllowedByInsert() {
        var set = IntervalSet()
        set.insert(from: 2, through: 2)
        #expect(set.intervals == [2...2])
        #expect(set.measure == 0)
        #expect(set.contains(2))
        #expect(!set.contains(2.000_000_1))
        // A point touching an interval joins it.
        set.insert(from: 2, through: 3)
        #expect(set.intervals == [2...3])
    }

    // MARK: Membership

    @Test(arguments: [
        (0.0, true), (1.0, true), (0.5, true),  // bounds and inside of [0, 1]
        (2.0, true), (3.0, true),  // bounds of [2, 3]
        (1.5, false), (-0.1, false), (3.1, false),  // gap, before, after
        (Double.nan, false), (Double.infinity, false), (-Double.infinity, false),
    ])
    func containsValue(value: Double, expected: Bool) {
        #expect(IntervalSet([0...1, 2...3]).contains(value) == expected)
    }

    @Test(arguments: [
        (0.0...1.0, true), (0.2...0.8, true), (2.0...2.0, true), (3.0...3.0, true),
        (0.5...2.5, false),  // spans a gap
        (1.0...2.0, false),  // exactly the gap
        (-1.0...0.5, false), (2.5...4.0, false),  // sticks out
    ])
    func containsRange(range: ClosedRange<Double>, expected: Bool) {
        #expect(IntervalSet([0...1, 2...3]).contains(range) == expected)
    }

    // MARK: Subtracting

    @Test func holeInTheMiddle() {
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([3...4])).intervals == [0...3, 4...10])
    }

    @Test func holesAtTheEdges() {
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([-5...2])).intervals == [2...10])
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([8...15])).intervals == [0...8])
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([0...2, 8...10])).intervals == [2...8])
        // A hole that only touches a bound removes a single point: the closure keeps it.
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([-5...0, 10...15])).intervals == [0...10])
    }

    @Test func holeCoveringEverything() {
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([0...10])).isEmpty)
        #expect(IntervalSet([1...2, 4...5]).subtracting(IntervalSet([0...6])).isEmpty)
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([0...Double.infinity])).isEmpty)
    }

    @Test func touchingHolesActAsOne() {
        let holes = IntervalSet([2...3, 3...4])
        #expect(holes.intervals == [2...4])
        #expect(IntervalSet([0...10]).subtracting(holes).intervals == [0...2, 4...10])
    }

    @Test func oneHoleAcrossSeveralIntervals() {
        let set = IntervalSet([0...2, 3...5, 6...8])
        #expect(set.subtracting(IntervalSet([1...7])).intervals == [0...1, 7...8])
    }

    @Test func zeroLengthPiecesAreDropped() {
        // A degenerate interval has nothing to draw, even with nothing taken away.
        #expect(IntervalSet([5...5]).subtracting(IntervalSet()).isEmpty)
        #expect(IntervalSet([0...1, 5...5]).subtracting(IntervalSet()).intervals == [0...1])
        // Holes flush with a bound leave no [a, a] piece behind.
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([0...5])).intervals == [5...10])
        #expect(IntervalSet([0...10]).subtracting(IntervalSet([5...10])).intervals == [0...5])
        #expect(IntervalSet([0...2, 4...6]).subtracting(IntervalSet([2...4])).intervals == [0...2, 4...6])
    }

    @Test func removingSinglePointsLeavesTheClosureWhole() {
        // The closure of [0, 10] minus {5} is [0, 10], and the result must stay normalised.
        let result = IntervalSet([0...10]).subtracting(IntervalSet([5...5, 7...7]))
        #expect(result.intervals == [0...10])
        #expect(result == IntervalSet([0...10]))
    }

    @Test func subtractingNothingKeepsTheSet() {
        let set = IntervalSet([0...1, 2...3])
        #expect(set.subtracting(IntervalSet()) == set)
        #expect(IntervalSet().subtracting(set).isEmpty)
    }

    // MARK: Complement and measure

    @Test func complementWithinAStrokeRange() {
        #expect(IntervalSet().complement(within: 0...9).intervals == [0...9])
        #expect(IntervalSet([2...3, 5...6]).complement(within: 0...9).intervals == [0...2, 3...5, 6...9])
        // An erased interval reaching beyond the last point (offsets may exceed n − 1).
        #expect(IntervalSet([3...50]).complement(within: 0...9).intervals == [0...3])
        #expect(IntervalSet([-4...50]).complement(within: 0...9).isEmpty)
        #expect(IntervalSet([20...30]).complement(within: 0...9).intervals == [0...9])
    }

    @Test func infiniteUpperBound() {
        let set = IntervalSet([0...Double.infinity])
        #expect(set.contains(0))
        #expect(set.contains(1e300))
        #expect(set.contains(.infinity))
        #expect(!set.contains(-1))
        #expect(set.contains(0...1e12))
        #expect(set.measure == .infinity)
        #expect(set.complement(within: 0...9).isEmpty)
        #expect(set.union(IntervalSet([2...3])) == set)
        #expect(IntervalSet([0...4]).union(IntervalSet([4...Double.infinity])) == set)
    }

    @Test func measureSumsLengths() {
        #expect(IntervalSet([0...1, 2...4.5]).measure == 3.5)
        #expect(IntervalSet([0...1, 0.5...2]).measure == 2)
    }

    @Test func unionIsIndependentOfOrder() {
        let a = IntervalSet([0...1, 4...5])
        let b = IntervalSet([1...2, 6...7])
        #expect(a.union(b) == b.union(a))
        #expect(a.union(b).intervals == [0...2, 4...5, 6...7])
        #expect(a.union(a) == a)
    }

    // MARK: Against a brute-force model

    /// Interval bounds are drawn from a grid of halves so that touching and nesting happen
    /// often; sampling at every quarter checks the bounds themselves and the points between.
    @Test func randomInsertsAgreeWithBruteForce() {
        let seed: UInt64 = 0x1A7E_5E75
        print("IntervalSetTests.randomInsertsAgreeWithBruteForce seed", seed)
        var rng = SplitMix64(seed: seed)
        let samples = (-4...84).map { Double($0) / 4 }  // -1 … 21 in quarters
        for round in 0..<300 {
            var set = IntervalSet()
            var inserted: [(Double, Double)] = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                let lower = Double(Int.random(in: 0...40, using: &rng)) / 2
                let upper = Double(Int.random(in: 0...40, using: &rng)) / 2
                set.insert(from: lower, through: upper)
                inserted.append((lower, upper))
            }
            let context = "seed \(seed) round \(round): inserted \(inserted), got \(set)"
            #expect(isNormalised(set), "\(context)")
            for x in samples {
                let expected = inserted.contains { $0.0 <= x && x <= $0.1 }
                #expect(set.contains(x) == expected, "x = \(x); \(context)")
            }
        }
    }

    /// `subtracting` is the set difference everywhere except on the bounds (a closure), so
    /// the model is checked at points that are never a bound: bounds lie on halves, samples
    /// on odd quarters.
    @Test func randomSubtractionsAgreeWithBruteForce() {
        let seed: UInt64 = 0x5B_7AC7
        print("IntervalSetTests.randomSubtractionsAgreeWithBruteForce seed", seed)
        var rng = SplitMix64(seed: seed)
        let samples = (-1...41).map { Double($0) / 2 + 0.25 }
        func randomSet() -> IntervalSet {
            var set = IntervalSet()
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let lower = Double(Int.random(in: 0...40, using: &rng)) / 2
                let length = Double(Int.random(in: 0...8, using: &rng)) / 2  // 0: a single point
                set.insert(from: lower, through: lower + length)
            }
            return set
        }
        for round in 0..<300 {
            let base = randomSet()
            let holes = randomSet()
            let difference = base.subtracting(holes)
            let context = "seed \(seed) round \(round): \(base) minus \(holes) gave \(difference)"
            #expect(isNormalised(difference), "\(context)")
            #expect(difference.intervals.allSatisfy { $0.lowerBound < $0.upperBound }, "\(context)")
            for x in samples {
                let expected = base.contains(x) && !holes.contains(x)
                #expect(difference.contains(x) == expected, "x = \(x); \(context)")
            }
        }
    }

    /// Sorted, each interval well formed, neighbours neither overlapping nor touching.
    private func isNormalised(_ set: IntervalSet) -> Bool {
        set.intervals.allSatisfy { $0.lowerBound <= $0.upperBound }
            && zip(set.intervals, set.intervals.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound }
    }
}
