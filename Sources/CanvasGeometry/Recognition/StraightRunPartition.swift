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
        moments = PointMoments(points, cyclic: true)
        count = points.count
        longest = max(0, count - (fewestRuns - 1) * Self.minimumRunLength)
        var costs = [Double](repeating: 0, count: count * (longest + 1))
        if longest >= Self.minimumRunLength {
            for start in 0..<count {
                for length in Self.minimumRunLength...longest {
                    costs[start * (longest + 1) + length] = moments.squaredResidual(of: start..<(start + length))
                }
            }
        }
        self.costs = costs
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
        var best = partition(from: 0, runs: runs)
        var tried: Set<Int> = [0]
        var improved = true
        while improved {
            improved = false
            for start in best.boundaries.dropLast().map({ $0 % count }) where tried.insert(start).inserted {
                let candidate = partition(from: start, runs: runs)
                if candidate.residual < best.residual {
                    best = candidate
                    improved = true
                }
            }
        }
        return (zip(best.boundaries, best.boundaries.dropFirst()).map { $0..<$1 }, best.residual)
    }

    /// The optimal partition of the points `start..<start + count` into `runs` runs: its
    /// boundaries `[start, b₁, …, start + count]` and total squared residual.
    private func partition(from start: Int, runs: Int) -> (boundaries: [Int], residual: Double) {
        let minimum = Self.minimumRunLength
        let (width, rowLength, count) = (count + 1, longest + 1, count)
        // cost[m × width + j]: the least residual splitting the first j points into m
        // runs; previous[m × width + j]: where the last of those runs begins.
        var cost = [Double](repeating: .infinity, count: (runs + 1) * width)
        var previous = [Int](repeating: 0, count: (runs + 1) * width)
        costs.withUnsafeBufferPointer { costs in
            cost.withUnsafeMutableBufferPointer { cost in
                previous.withUnsafeMutableBufferPointer { previous in
                    cost[0] = 0
                    // One run: it starts at the start.
                    for j in minimum...(count - (runs - 1) * minimum) {
                        cost[width + j] = costs[start * rowLength + j]
                    }
                    guard runs > 1 else { return }
                    for m in 2...runs {
                        // Leave room for the runs after; the last layer only needs the end.
                        let ends = m == runs ? count...count : (m * minimum)...(count - (runs - m) * minimum)
                        for j in ends {
                            var bestCost = Double.infinity
                            var bestStart = 0
                            for i in ((m - 1) * minimum)...(j - minimum) {
                                let runStart = start + i < count ? start + i : start + i - count
                                let total = cost[(m - 1) * width + i] + costs[runStart * rowLength + j - i]
                                if total < bestCost {
                                    bestCost = total
                                    bestStart = i
                                }
                            }
                            cost[m * width + j] = bestCost
                            previous[m * width + j] = bestStart
                        }
                    }
                }
            }
        }
        var boundaries = [count]
        for m in stride(from: runs, to: 0, by: -1) {
            boundaries.append(previous[m * width + boundaries[boundaries.count - 1]])
        }
        return (boundaries.reversed().map { $0 + start }, cost[runs * width + count])
    }
}
