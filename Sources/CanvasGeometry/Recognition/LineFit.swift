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
    /// The origin the sums are taken about (the points' mean), keeping squares small.
    private let origin: Point
    /// Element i holds the sums over points 0..<i.
    private var sumX: [Double] = [0]
    private var sumY: [Double] = [0]
    private var sumXX: [Double] = [0]
    private var sumXY: [Double] = [0]
    private var sumYY: [Double] = [0]

    /// Moments of `points`; with `cyclic`, of the points twice over, so that runs may wrap
    /// around the end of a closed stroke (indices up to 2 × count).
    init(_ points: [Point], cyclic: Bool) {
        origin = points.reduce(Point(x: 0, y: 0), +) / Double(max(points.count, 1))
        for point in cyclic ? points + points : points {
            let p = point - origin
            sumX.append(sumX[sumX.count - 1] + p.x)
            sumY.append(sumY[sumY.count - 1] + p.y)
            sumXX.append(sumXX[sumXX.count - 1] + p.x * p.x)
            sumXY.append(sumXY[sumXY.count - 1] + p.x * p.y)
            sumYY.append(sumYY[sumYY.count - 1] + p.y * p.y)
        }
    }

    /// The total-least-squares line through points `range` (at least two of them).
    func line(through range: Range<Int>) -> FittedLine {
        let scatter = scatter(of: range)
        // The principal axis of the 2 × 2 scatter matrix, in closed form: the eigenvector
        // (λ − yy, xy) of the larger eigenvalue λ.
        let half = (scatter.xx - scatter.yy) / 2
        let axis = Point(x: half + (half * half + scatter.xy * scatter.xy).squareRoot(), y: scatter.xy)
        // A zero axis means no preferred direction along x: then the points run along y
        // (or are all one point, where any direction will do).
        let direction = axis.length > 0 ? axis / axis.length : Point(x: half >= 0 ? 1 : 0, y: half >= 0 ? 0 : 1)
        return FittedLine(centroid: scatter.mean + origin, direction: direction)
    }

    /// The sum of squared distances from points `range` to their best line: the smaller
    /// eigenvalue of their scatter matrix.
    func squaredResidual(of range: Range<Int>) -> Double {
        let scatter = scatter(of: range)
        let half = (scatter.xx - scatter.yy) / 2
        return max(0, (scatter.xx + scatter.yy) / 2 - (half * half + scatter.xy * scatter.xy).squareRoot())
    }

    /// The mean and the scatter matrix (sums of products of deviations from the mean) of
    /// points `range`.
    private func scatter(of range: Range<Int>) -> (mean: Point, xx: Double, xy: Double, yy: Double) {
        let (i, j) = (range.lowerBound, range.upperBound)
        let n = Double(j - i)
        let sx = sumX[j] - sumX[i]
        let sy = sumY[j] - sumY[i]
        return (
            Point(x: sx / n, y: sy / n),
            sumXX[j] - sumXX[i] - sx * sx / n,
            sumXY[j] - sumXY[i] - sx * sy / n,
            sumYY[j] - sumYY[i] - sy * sy / n
        )
    }
}
