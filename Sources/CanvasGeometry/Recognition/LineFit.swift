import CanvasCore

/// A straight line fitted to points by total least squares (orthogonal regression): it
/// passes through their centroid along their principal axis, which minimises the sum of
/// squared perpendicular distances whatever the line's direction.
struct FittedLine {
    /// The points' centroid, a point on the line.
    var centroid: Point
    /// Unit vector along the line.
    var direction: Point

    /// Where the two lines cross; nil when they are parallel to within rounding.
    func intersection(with other: FittedLine) -> Point? {
        let denominator = direction.cross(other.direction)
        guard abs(denominator) > 1e-9 else { return nil }
        let t = (other.centroid - centroid).cross(other.direction) / denominator
        return centroid + direction * t
    }

    /// The segment of the best line through `points` that spans them: its ends are the
    /// extreme feet of the points, the one nearer the first point first. This replaces a
    /// stroke recognised as a line; a hook doubling back at either end adds nothing beyond
    /// the stroke's extent.
    static func segment(through points: [Point]) -> [Point] {
        let line = PointMoments(points, cyclic: false).line(through: 0..<points.count)
        let positions = points.map { ($0 - line.centroid).dot(line.direction) }
        var (low, high) = (positions.min()!, positions.max()!)
        if positions[0] - low > high - positions[0] { swap(&low, &high) }
        return [line.centroid + line.direction * low, line.centroid + line.direction * high]
    }
}

/// Running sums of a point sequence's first and second moments, so that the best line
/// through any contiguous run of points, and its residual, cost constant time.
struct PointMoments {
    /// The sums of the moments of points 0..<i (about `origin`).
    struct Sums {
        var x = 0.0, y = 0.0, xx = 0.0, xy = 0.0, yy = 0.0
    }

    /// The origin the sums are taken about (the points' mean), keeping squares small.
    private let origin: Point
    /// Element i holds the sums over points 0..<i.
    private let sums: [Sums]

    /// Moments of `points`; with `cyclic`, of the points twice over, so that runs may wrap
    /// around the end of a closed stroke (indices up to 2 × count).
    init(_ points: [Point], cyclic: Bool) {
        let origin = points.reduce(Point(x: 0, y: 0), +) / Double(max(points.count, 1))
        let count = cyclic ? 2 * points.count : points.count
        sums = [Sums](unsafeUninitializedCapacity: count + 1) { buffer, initialized in
            var running = Sums()
            buffer[0] = running
            for k in 0..<count {
                let p = points[k < points.count ? k : k - points.count] - origin
                running.x += p.x
                running.y += p.y
                running.xx += p.x * p.x
                running.xy += p.x * p.y
                running.yy += p.y * p.y
                buffer[k + 1] = running
            }
            initialized = count + 1
        }
        self.origin = origin
    }

    /// The total-least-squares line through points `range` (at least two of them).
    func line(through range: Range<Int>) -> FittedLine {
        let scatter = Self.scatter(sums[range.lowerBound], sums[range.upperBound], count: range.count)
        // The principal axis of the 2 × 2 scatter matrix, in closed form: the eigenvector
        // (λ − yy, xy) of the larger eigenvalue λ.
        let half = (scatter.xx - scatter.yy) / 2
        let axis = Point(x: half + (half * half + scatter.xy * scatter.xy).squareRoot(), y: scatter.xy)
        // A zero axis means no preferred direction along x: then the points run along y
        // (or are all one point, where any direction will do).
        let direction = axis.length > 0 ? axis / axis.length : Point(x: half >= 0 ? 1 : 0, y: half >= 0 ? 0 : 1)
        return FittedLine(centroid: scatter.mean + origin, direction: direction)
    }

    /// The running sums by moment (element i of each: over points 0..<i), so that four
    /// consecutive ones load at once.
    struct Columns {
        var x, y, xx, xy, yy: UnsafePointer<Double>

        /// The sums over points 0..<i.
        @inline(__always)
        subscript(i: Int) -> Sums { Sums(x: x[i], y: y[i], xx: xx[i], xy: xy[i], yy: yy[i]) }

        @inline(__always)
        func four(_ column: UnsafePointer<Double>, from i: Int) -> SIMD4<Double> {
            UnsafeRawPointer(column + i).loadUnaligned(as: SIMD4<Double>.self)
        }
    }

    /// Calls `body` with the running sums as `Columns`, for loops that take many residuals
    /// (`squaredResidual(_:_:count:)` and `squaredResiduals(_:_:from:inverseCounts:)`).
    func withColumns<Result>(_ body: (Columns) -> Result) -> Result {
        let count = sums.count
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 5 * count) { buffer in
            let base = buffer.baseAddress!
            for (i, sum) in sums.enumerated() {
                base[i] = sum.x
                base[count + i] = sum.y
                base[2 * count + i] = sum.xx
                base[3 * count + i] = sum.xy
                base[4 * count + i] = sum.yy
            }
            return body(
                Columns(
                    x: base, y: base + count, xx: base + 2 * count, xy: base + 3 * count, yy: base + 4 * count))
        }
    }

    /// The squared residual of the `count` points whose running sums are `start` (before
    /// the first) and `end` (after the last): the sum of squared distances to their best
    /// line, the smaller eigenvalue of their scatter matrix.
    @inline(__always)
    static func squaredResidual(_ start: Sums, _ end: Sums, count: Int) -> Double {
        let scatter = scatter(start, end, count: count)
        let half = (scatter.xx - scatter.yy) / 2
        return max(0, (scatter.xx + scatter.yy) / 2 - (half * half + scatter.xy * scatter.xy).squareRoot())
    }

    /// `squaredResidual(start, columns[end + k], count: counts[k])` for k in 0..<4, given
    /// `1 / counts`, computed together lane by lane (multiplying by the reciprocals where
    /// `squaredResidual` divides: equal to rounding).
    @inline(__always)
    static func squaredResiduals(
        _ start: Sums, _ columns: Columns, from end: Int, inverseCounts: SIMD4<Double>
    ) -> SIMD4<Double> {
        let sx = columns.four(columns.x, from: end) - start.x
        let sy = columns.four(columns.y, from: end) - start.y
        let xx = columns.four(columns.xx, from: end) - start.xx - sx * sx * inverseCounts
        let xy = columns.four(columns.xy, from: end) - start.xy - sx * sy * inverseCounts
        let yy = columns.four(columns.yy, from: end) - start.yy - sy * sy * inverseCounts
        let half = (xx - yy) / 2
        let residuals = (xx + yy) / 2 - (half * half + xy * xy).squareRoot()
        // max(0, residual), lane by lane: the residual unless it is not at least 0.
        return SIMD4(repeating: 0).replacing(with: residuals, where: residuals .>= 0)
    }

    /// The mean and the scatter matrix (sums of products of deviations from the mean) of
    /// the `count` points whose running sums are `start` (before the first) and `end`.
    @inline(__always)
    private static func scatter(_ start: Sums, _ end: Sums, count: Int) -> (mean: Point, xx: Double, xy: Double, yy: Double) {
        let n = Double(count)
        let sx = end.x - start.x
        let sy = end.y - start.y
        return (
            Point(x: sx / n, y: sy / n),
            end.xx - start.xx - sx * sx / n,
            end.xy - start.xy - sx * sy / n,
            end.yy - start.yy - sy * sy / n
        )
    }
}
