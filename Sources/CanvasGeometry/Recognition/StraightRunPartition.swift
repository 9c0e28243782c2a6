import CanvasCore

/// Splitting a closed sequence of points into a given number of contiguous runs, each as
/// straight as possible: the runs minimise the total squared distance from every point to
/// its run's best line (dynamic programming over the run boundaries).
///
/// This finds a polygon's sides without deciding what a corner is: no curvature threshold,
/// so rounded or sloppy corners cost only the little residual they add, and the number of
/// sides is the hypothesis being tested rather than something read off noisy angles.
struct StraightRunPartition {
    /// The fewest points a run may hold, so that every run defines a line.
    static let minimumRunLength = 3

    /// The points' moments, cyclic: runs may wrap round the end of the closed sequence.
    let moments: PointMoments
    private let count: Int
    /// The longest run a partition may use: a side of a closed polygon is shorter than
    /// the rest of it together, so half the points, and an eighth more for a stroke that
    /// stops short of closing (or fewer, when the fewest runs prepared for need it).
    private let longest: Int
    /// The squared residual of every run: element start × (longest + 1) + length.
    private let costs: [Double]

    /// Prepares partitions of the closed sequence `points` into `fewestRuns` or more runs.
    init(closed points: [Point], fewestRuns: Int) {
        let moments = PointMoments(points, cyclic: true)
        let (count, minimum) = (points.count, Self.minimumRunLength)
        let longest = max(0, min(count - (fewestRuns - 1) * minimum, count / 2 + count / 8))
        let rowLength = longest + 1
        costs = [Double](unsafeUninitializedCapacity: count * rowLength) { costs, initialized in
            costs.initialize(repeating: 0)
            initialized = count * rowLength
            guard longest >= minimum else { return }
            // 1 / length for the lengths taken four at a time below, the same for every start.
            let blocks = (longest - minimum + 1) / 4
            let inverses = (0..<blocks).map { block -> SIMD4<Double> in
                let length = Double(minimum + 4 * block)
                return 1 / SIMD4(length, length + 1, length + 2, length + 3)
            }
            moments.withColumns { sums in
                for start in 0..<count {
                    let first = sums[start]
                    // Four lengths at a time, then the rest one by one.
                    var length = minimum
                    while length + 3 <= longest {
                        let residuals = PointMoments.squaredResiduals(
                            first, sums, from: start + length, inverseCounts: inverses[(length - minimum) / 4])
                        UnsafeMutableRawPointer(costs.baseAddress! + start * rowLength + length).storeBytes(
                            of: residuals, as: SIMD4<Double>.self)
                        length += 4
                    }
                    for length in length..<(longest + 1) {
                        costs[start * rowLength + length] = PointMoments.squaredResidual(
                            first, sums[start + length], count: length)
                    }
                }
            }
        }
        self.moments = moments
        self.count = count
        self.longest = longest
    }

    /// The runs (`runs` of them, at least the `fewestRuns` prepared for), as ranges of
    /// point indices (past the end they wrap round: indices up to 2 × count), and their
    /// total squared residual; nil when there are too few points.
    ///
    /// The optimum for a known first boundary is exact; that boundary is first the
    /// sequence's start (where people usually begin a polygon: at a corner), then each
    /// other boundary of that first partition in turn, keeping the best (when the stroke
    /// starts mid-side, a corner it found is where the optimum is).
    func runs(_ runs: Int) -> (runs: [Range<Int>], residual: Double)? {
        guard runs >= 1, count >= runs * Self.minimumRunLength, runs * longest >= count else { return nil }
        // The dynamic program's table, shared by every start tried.
        var cost = [Double](repeating: .infinity, count: (runs + 1) * (count + 1))
        func partition(from start: Int, under bound: Double) -> (boundaries: [Int], residual: Double) {
            self.partition(from: start, runs: runs, under: bound, cost: &cost)
        }
        // The first program is bounded by the residual of equal runs from the start (summed
        // as the program sums: its optimum is at most that), which spares it every place
        // whose runs so far cost more; should it find nothing under that, unbounded.
        var equalRuns = 0.0
        for k in 0..<runs {
            let (from, to) = (k * count / runs, (k + 1) * count / runs)
            equalRuns += costs[from * (longest + 1) + (to - from)]
        }
        var best = partition(from: 0, under: equalRuns.nextUp)
        if best.boundaries.isEmpty { best = partition(from: 0, under: .infinity) }
        for boundary in best.boundaries.dropFirst().dropLast() {
            let candidate = partition(from: boundary % count, under: best.residual)
            if candidate.residual < best.residual { best = candidate }
        }
        return (zip(best.boundaries, best.boundaries.dropFirst()).map { $0..<$1 }, best.residual)
    }

    /// Runs (`runs` of them, as `runs(_:)` gives them) whose total squared residual is under
    /// `bound`, when the partition beginning at the sequence's start, or half an equal run
    /// further on (where a polygon drawn from the middle of a side has a corner), has them;
    /// nil otherwise. Cheap when no partition comes near `bound`: the program drops every
    /// place whose runs so far already cost that much.
    func runs(_ runs: Int, under bound: Double) -> (runs: [Range<Int>], residual: Double)? {
        guard runs >= 1, count >= runs * Self.minimumRunLength, runs * longest >= count else { return nil }
        var cost = [Double](repeating: .infinity, count: (runs + 1) * (count + 1))
        var best: (boundaries: [Int], residual: Double)?
        for start in [0, count / (2 * runs)] {
            let found = partition(from: start, runs: runs, under: best?.residual ?? bound, cost: &cost)
            if !found.boundaries.isEmpty { best = found }
        }
        return best.map { best in (zip(best.boundaries, best.boundaries.dropFirst()).map { $0..<$1 }, best.residual) }
    }

    /// The optimal partition of the points `start..<start + count` into `runs` runs: its
    /// boundaries `[start, b₁, …, start + count]` and total squared residual, when that is
    /// less than `bound`; otherwise a residual of at least `bound` and no boundaries (unless
    /// `bound` is infinite). `cost` is the dynamic program's table, (runs + 1) × (count +
    /// 1).
    ///
    /// Of several equally good places for a run to begin, the first is kept. Residuals
    /// only grow as runs are added, so no run is tried after runs that already cost
    /// `bound`: the optimum under `bound`, and every tie it has, costs less all the way.
    private func partition(
        from start: Int, runs: Int, under bound: Double, cost: inout [Double]
    ) -> (boundaries: [Int], residual: Double) {
        let minimum = Self.minimumRunLength
        let (width, rowLength, count) = (count + 1, longest + 1, count)
        // cost[m × width + j]: the least residual splitting the first j points into m runs.
        return costs.withUnsafeBufferPointer { costs in
            cost.withUnsafeMutableBufferPointer { cost in
                let (costs, cost) = (costs.baseAddress!, cost.baseAddress!)
                /// The runs beginning at point i (from the start): element length.
                func runsBeginning(at i: Int) -> UnsafePointer<Double> {
                    costs + (start + i < count ? start + i : start + i - count) * rowLength
                }
                // One run: it starts at the start.
                for j in minimum...(count - (runs - 1) * minimum) {
                    cost[width + j] = j <= longest ? runsBeginning(at: 0)[j] : .infinity
                }
                // The layers before the last, taking each place i where their last run may
                // begin in turn, for every end j at once.
                for m in stride(from: 2, to: runs, by: 1) {
                    // Leave room for the runs before and after.
                    let ends = (m * minimum)...(count - (runs - m) * minimum)
                    let layer = cost + m * width
                    for j in ends { layer[j] = .infinity }
                    for i in ((m - 1) * minimum)...(ends.upperBound - minimum) where cost[(m - 1) * width + i] < bound {
                        let (nearest, farthest) = (max(ends.lowerBound, i + minimum), min(ends.upperBound, i + longest))
                        guard nearest <= farthest else { continue }
                        Self.lower(
                            layer, to: cost[(m - 1) * width + i], plus: runsBeginning(at: i), from: i,
                            over: nearest...farthest)
                    }
                }
                // The last layer only needs the end.
                if runs > 1 {
                    var least = Double.infinity
                    for i in max((runs - 1) * minimum, count - longest)...(count - minimum) {
                        let total = cost[(runs - 1) * width + i] + runsBeginning(at: i)[count - i]
                        if total < least { least = total }
                    }
                    cost[runs * width + count] = least
                }
                // A partition no better than a finite `bound` is of no use: no boundaries.
                let residual = cost[runs * width + count]
                guard residual < bound || bound == .infinity else { return ([], residual) }
                // Back from the end: where each run begins is the first place giving the
                // least cost (the start when none does: an infinite cost, as the program
                // comparing each place with the best so far would have left it).
                let boundaries = [Int](unsafeUninitializedCapacity: runs + 1) { boundaries, initialized in
                    var j = count
                    boundaries[runs] = start + count
                    for m in stride(from: runs, to: 1, by: -1) {
                        let least = cost[m * width + j]
                        let first = max((m - 1) * minimum, j - longest)
                        let origins = first..<max(first, j - minimum + 1)
                        let origin = least < .infinity
                            ? origins.first { cost[(m - 1) * width + $0] + runsBeginning(at: $0)[j - $0] == least } : nil
                        j = origin ?? 0
                        boundaries[m - 1] = start + j
                    }
                    boundaries[0] = start
                    initialized = runs + 1
                }
                return (boundaries, residual)
            }
        }
    }

    /// For every j in `range`: `layer[j]` becomes `base + costs[j − origin]` where that is
    /// less (never a NaN).
    @inline(__always)
    private static func lower(
        _ layer: UnsafeMutablePointer<Double>, to base: Double, plus costs: UnsafePointer<Double>, from origin: Int,
        over range: ClosedRange<Int>
    ) {
        var j = range.lowerBound
        let bases = SIMD4<Double>(repeating: base)
        while j + 3 <= range.upperBound {
            let sums = bases + UnsafeRawPointer(costs + (j - origin)).loadUnaligned(as: SIMD4<Double>.self)
            let current = UnsafeRawPointer(layer + j).loadUnaligned(as: SIMD4<Double>.self)
            UnsafeMutableRawPointer(layer + j).storeBytes(
                of: current.replacing(with: sums, where: sums .< current), as: SIMD4<Double>.self)
            j += 4
        }
        while j <= range.upperBound {
            let sum = base + costs[j - origin]
            if sum < layer[j] { layer[j] = sum }
            j += 1
        }
    }
}
