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
    /// The longest run a partition into the fewest runs prepared for may use.
    private let longest: Int
    /// The squared residual of every run: element start × (longest + 1) + length.
    private let costs: [Double]

    /// Prepares partitions of the closed sequence `points` into `fewestRuns` or more runs.
    init(closed points: [Point], fewestRuns: Int) {
        let moments = PointMoments(points, cyclic: true)
        let (count, minimum) = (points.count, Self.minimumRunLength)
        let longest = max(0, count - (fewestRuns - 1) * minimum)
        let rowLength = longest + 1
        costs = [Double](unsafeUninitializedCapacity: count * rowLength) { costs, initialized in
            costs.initialize(repeating: 0)
            initialized = count * rowLength
            guard longest >= minimum else { return }
            moments.withSums { sums in
                for start in 0..<count {
                    // Four lengths at a time, then the rest one by one.
                    var length = minimum
                    while length + 3 <= longest {
                        let residuals = PointMoments.squaredResiduals(
                            sums[start], sums.baseAddress! + start + length,
                            counts: SIMD4(Double(length), Double(length + 1), Double(length + 2), Double(length + 3)))
                        UnsafeMutableRawPointer(costs.baseAddress! + start * rowLength + length).storeBytes(
                            of: residuals, as: SIMD4<Double>.self)
                        length += 4
                    }
                    for length in length..<(longest + 1) {
                        costs[start * rowLength + length] = PointMoments.squaredResidual(
                            sums[start], sums[start + length], count: length)
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
    /// boundary of the best partition so far, until no start improves it.
    func runs(_ runs: Int) -> (runs: [Range<Int>], residual: Double)? {
        guard runs >= 1, count >= runs * Self.minimumRunLength, count - (runs - 1) * Self.minimumRunLength <= longest
        else { return nil }
        let width = count + 1
        // The dynamic program's tables, shared by every start tried.
        var cost = [Double](repeating: .infinity, count: (runs + 1) * width)
        var previous = [Int64](repeating: 0, count: (runs + 1) * width)
        func partition(from start: Int, under bound: Double) -> (boundaries: [Int], residual: Double) {
            self.partition(from: start, runs: runs, under: bound, cost: &cost, previous: &previous)
        }
        var best = partition(from: 0, under: .infinity)
        var tried = [Bool](repeating: false, count: count)
        tried[0] = true
        var improved = true
        while improved {
            improved = false
            for boundary in best.boundaries.dropLast() where !tried[boundary % count] {
                tried[boundary % count] = true
                let candidate = partition(from: boundary % count, under: best.residual)
                if candidate.residual < best.residual {
                    best = candidate
                    improved = true
                }
            }
        }
        return (zip(best.boundaries, best.boundaries.dropFirst()).map { $0..<$1 }, best.residual)
    }

    /// The optimal partition of the points `start..<start + count` into `runs` runs: its
    /// boundaries `[start, b₁, …, start + count]` and total squared residual, when that is
    /// less than `bound`; otherwise a residual of at least `bound` (and boundaries of no
    /// use). `cost` and `previous` are the dynamic program's tables, (runs + 1) × (count +
    /// 1) each.
    ///
    /// Of several equally good places for a run to begin, the first is kept. Residuals
    /// only grow as runs are added, so no run is tried after runs that already cost
    /// `bound`: the optimum under `bound`, and every tie it has, costs less all the way.
    private func partition(
        from start: Int, runs: Int, under bound: Double, cost: inout [Double], previous: inout [Int64]
    ) -> (boundaries: [Int], residual: Double) {
        let minimum = Self.minimumRunLength
        let (width, rowLength, count) = (count + 1, longest + 1, count)
        // cost[m × width + j]: the least residual splitting the first j points into m
        // runs; previous[m × width + j]: where the last of those runs begins.
        costs.withUnsafeBufferPointer { costs in
            cost.withUnsafeMutableBufferPointer { cost in
                previous.withUnsafeMutableBufferPointer { previous in
                    let (costs, cost, previous) = (costs.baseAddress!, cost.baseAddress!, previous.baseAddress!)
                    /// The runs beginning at point i (from the start): element length.
                    func runsBeginning(at i: Int) -> UnsafePointer<Double> {
                        costs + (start + i < count ? start + i : start + i - count) * rowLength
                    }
                    // One run: it starts at the start.
                    for j in minimum...(count - (runs - 1) * minimum) {
                        cost[width + j] = runsBeginning(at: 0)[j]
                    }
                    guard runs > 1 else { return }
                    // The layers before the last, taking each place i where their last run
                    // may begin in turn, for every end j at once.
                    for m in stride(from: 2, to: runs, by: 1) {
                        // Leave room for the runs before and after.
                        let ends = (m * minimum)...(count - (runs - m) * minimum)
                        let (layer, choice) = (cost + m * width, previous + m * width)
                        for j in ends {
                            layer[j] = .infinity
                            choice[j] = 0
                        }
                        for i in ((m - 1) * minimum)...(ends.upperBound - minimum) where cost[(m - 1) * width + i] < bound {
                            Self.lower(
                                layer, choice, to: cost[(m - 1) * width + i], plus: runsBeginning(at: i), from: i,
                                over: max(ends.lowerBound, i + minimum)...ends.upperBound)
                        }
                    }
                    // The last layer only needs the end.
                    var bestCost = Double.infinity
                    var bestStart = 0
                    for i in ((runs - 1) * minimum)...(count - minimum) {
                        let total = cost[(runs - 1) * width + i] + runsBeginning(at: i)[count - i]
                        if total < bestCost {
                            bestCost = total
                            bestStart = i
                        }
                    }
                    cost[runs * width + count] = bestCost
                    previous[runs * width + count] = Int64(bestStart)
                }
            }
        }
        var boundaries = [count]
        for m in stride(from: runs, to: 0, by: -1) {
            boundaries.append(Int(previous[m * width + boundaries[boundaries.count - 1]]))
        }
        return (boundaries.reversed().map { $0 + start }, cost[runs * width + count])
    }

    /// For every j in `range` where `base + costs[j − origin]` is less than `layer[j]`: that
    /// sum becomes `layer[j]` and `origin` becomes `choice[j]`. Taking the origins in
    /// increasing order, each j keeps the first origin of its least sum.
    @inline(__always)
    private static func lower(
        _ layer: UnsafeMutablePointer<Double>, _ choice: UnsafeMutablePointer<Int64>, to base: Double,
        plus costs: UnsafePointer<Double>, from origin: Int, over range: ClosedRange<Int>
    ) {
        var j = range.lowerBound
        let (bases, origins) = (SIMD4<Double>(repeating: base), SIMD4<Int64>(repeating: Int64(origin)))
        while j + 3 <= range.upperBound {
            let sums = bases + UnsafeRawPointer(costs + (j - origin)).loadUnaligned(as: SIMD4<Double>.self)
            let current = UnsafeRawPointer(layer + j).loadUnaligned(as: SIMD4<Double>.self)
            let lower = sums .< current
            UnsafeMutableRawPointer(layer + j).storeBytes(of: current.replacing(with: sums, where: lower), as: SIMD4<Double>.self)
            let chosen = UnsafeRawPointer(choice + j).loadUnaligned(as: SIMD4<Int64>.self)
            UnsafeMutableRawPointer(choice + j).storeBytes(of: chosen.replacing(with: origins, where: lower), as: SIMD4<Int64>.self)
            j += 4
        }
        while j <= range.upperBound {
            let sum = base + costs[j - origin]
            if sum < layer[j] {
                layer[j] = sum
                choice[j] = Int64(origin)
            }
            j += 1
        }
    }
}
