public import CanvasCore

/// The geometry of a stroke: n points make n − 1 segments, segment k spanning the
/// parameter u ∈ [k, k + 1] (u = k + t), so CRDT offsets map onto the curve exactly.
///
/// Hand-drawn strokes are smooth curves through every point: centripetal Catmull-Rom
/// splines (α = ½) converted to cubic Béziers, which have no cusps or self-intersections
/// within a segment and are C¹ where the neighbours are distinct (Yuksel, Schaefer and
/// Keyser, "Parameterization and applications of Catmull-Rom curves", 2011). Shapes
/// (`is_shape`) are polylines: segment k is the straight line from point k to k + 1.
public enum StrokeCurves {
    /// Every segment of a stroke with these points.
    public static func segments(of points: [Point], isShape: Bool) -> [CubicBezier] {
        guard points.count >= 2 else { return [] }
        return (0..<(points.count - 1)).map { segment($0, of: points, isShape: isShape) }
    }

    /// Segment `k` (0 ≤ k < points.count − 1).
    public static func segment(_ k: Int, of points: [Point], isShape: Bool) -> CubicBezier {
        let p1 = points[k]
        let p2 = points[k + 1]
        if isShape || p1 == p2 {
            return CubicBezier(line: p1, p2)
        }
        // Neighbours: the nearest distinct point before p1 and after p2 (repeated identical
        // samples are common in real input); at the ends, p1 or p2 mirrored.
        var before = k - 1
        while before >= 0 && points[before] == p1 { before -= 1 }
        var after = k + 2
        while after < points.count && points[after] == p2 { after += 1 }
        let p0 = before >= 0 ? points[before] : p1 + (p1 - p2)
        let p3 = after < points.count ? points[after] : p2 + (p2 - p1)
        return catmullRom(p0, p1, p2, p3)
    }

    /// The centripetal Catmull-Rom segment from `p1` to `p2` as a cubic Bézier.
    static func catmullRom(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point) -> CubicBezier {
        // d_i = |P_i − P_{i−1}|^α with α = ½, so d_i² is the distance itself.
        let d1Squared = p1.distance(to: p0)
        let d2Squared = p2.distance(to: p1)
        let d3Squared = p3.distance(to: p2)
        let d1 = d1Squared.squareRoot()
        let d2 = d2Squared.squareRoot()
        let d3 = d3Squared.squareRoot()
        let tiny = 1e-12
        let b1 =
            d1 > tiny
            ? (d1Squared * p2 - d2Squared * p0 + (2 * d1Squared + 3 * d1 * d2 + d2Squared) * p1) / (3 * d1 * (d1 + d2))
            : p1.interpolated(to: p2, at: 1.0 / 3)
        let b2 =
            d3 > tiny
            ? (d3Squared * p1 - d2Squared * p3 + (2 * d3Squared + 3 * d3 * d2 + d2Squared) * p2) / (3 * d3 * (d3 + d2))
            : p2.interpolated(to: p1, at: 1.0 / 3)
        return CubicBezier(p1, b1, b2, p2)
    }

    /// The visible parts of a stroke as curves: for each visible interval of u, the exact
    /// sub-curves of the segments it covers (split at fractional parameters). A stroke with
    /// one point has no curve; see `isVisibleDot`.
    public static func visibleRuns(of stroke: Stroke) -> [[CubicBezier]] {
        guard let header = stroke.header, stroke.points.count >= 2 else { return [] }
        return stroke.visible.intervals.map { interval in
            curves(of: stroke.points, isShape: header.isShape, from: interval.lowerBound, to: interval.upperBound)
        }.filter { !$0.isEmpty }
    }

    /// True for a drawn stroke of a single point whose point is not erased.
    public static func isVisibleDot(_ stroke: Stroke) -> Bool {
        stroke.header != nil && stroke.points.count == 1 && !stroke.erased.contains(0)
    }

    /// The sub-curves covering u ∈ [from, to] (clamped to the stroke's range).
    public static func curves(of points: [Point], isShape: Bool, from: Double, to: Double) -> [CubicBezier] {
        let last = Double(points.count - 1)
        let lower = max(0, from)
        let upper = min(last, to)
        guard upper > lower else { return [] }
        var result: [CubicBezier] = []
        var k = Int(lower.rounded(.down))
        while Double(k) < upper, k < points.count - 1 {
            let t0 = max(0, lower - Double(k))
            let t1 = min(1, upper - Double(k))
            if t1 > t0 {
                result.append(segment(k, of: points, isShape: isShape).trimmed(from: t0, to: t1))
            }
            k += 1
        }
        return result
    }
}
