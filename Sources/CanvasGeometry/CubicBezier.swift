public import CanvasCore

/// A cubic Bézier curve from `p0` to `p3` with control points `p1`, `p2`, parameter
/// t ∈ [0, 1].
public struct CubicBezier: Hashable, Sendable {
    /// The start point (t = 0).
    public var p0: Point
    /// The control point leaving the start.
    public var p1: Point
    /// The control point arriving at the end.
    public var p2: Point
    /// The end point (t = 1).
    public var p3: Point

    /// A curve from its four points.
    public init(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point) {
        self.p0 = p0
        self.p1 = p1
        self.p2 = p2
        self.p3 = p3
    }

    /// The straight segment from `a` to `b`, with t proportional to distance along it.
    public init(line a: Point, _ b: Point) {
        self.init(a, a.interpolated(to: b, at: 1.0 / 3), a.interpolated(to: b, at: 2.0 / 3), b)
    }

    /// The point at parameter `t` (De Casteljau: stable for any t in [0, 1]).
    public func point(at t: Double) -> Point {
        let a = p0.interpolated(to: p1, at: t)
        let b = p1.interpolated(to: p2, at: t)
        let c = p2.interpolated(to: p3, at: t)
        let d = a.interpolated(to: b, at: t)
        let e = b.interpolated(to: c, at: t)
        return d.interpolated(to: e, at: t)
    }

    /// The first derivative at `t`.
    public func derivative(at t: Double) -> Point {
        let u = 1 - t
        return 3 * u * u * (p1 - p0) + 6 * u * t * (p2 - p1) + 3 * t * t * (p3 - p2)
    }

    /// The two halves at `t` (De Casteljau subdivision); each is reparameterised to [0, 1].
    public func split(at t: Double) -> (CubicBezier, CubicBezier) {
        let a = p0.interpolated(to: p1, at: t)
        let b = p1.interpolated(to: p2, at: t)
        let c = p2.interpolated(to: p3, at: t)
        let d = a.interpolated(to: b, at: t)
        let e = b.interpolated(to: c, at: t)
        let f = d.interpolated(to: e, at: t)
        return (CubicBezier(p0, a, d, f), CubicBezier(f, e, c, p3))
    }

    /// The part of the curve between parameters `t0` and `t1` (0 ≤ t0 ≤ t1 ≤ 1),
    /// reparameterised to [0, 1].
    public func trimmed(from t0: Double, to t1: Double) -> CubicBezier {
        if t0 <= 0 && t1 >= 1 { return self }
        if t0 <= 0 { return split(at: t1).0 }
        let right = split(at: t0).1
        if t1 >= 1 { return right }
        return right.split(at: (t1 - t0) / (1 - t0)).0
    }

    /// The tight bounding box: the end points and the curve's extrema (roots of the
    /// derivative in each axis). Allocation-free: it runs for every segment indexed.
    public var bounds: Rect {
        var rect = Rect(minX: min(p0.x, p3.x), minY: min(p0.y, p3.y), maxX: max(p0.x, p3.x), maxY: max(p0.y, p3.y))
        // Only where a control point lies outside the end points' box can the curve do so.
        if p1.x < rect.minX || p1.x > rect.maxX || p2.x < rect.minX || p2.x > rect.maxX {
            CubicBezier.forEachExtremum(p0.x, p1.x, p2.x, p3.x) { rect.formUnion(point(at: $0)) }
        }
        if p1.y < rect.minY || p1.y > rect.maxY || p2.y < rect.minY || p2.y > rect.maxY {
            CubicBezier.forEachExtremum(p0.y, p1.y, p2.y, p3.y) { rect.formUnion(point(at: $0)) }
        }
        return rect
    }

    /// The bounding box of the control polygon: looser than `bounds`, cheaper.
    public var hullBounds: Rect {
        Rect(
            minX: min(p0.x, p1.x, p2.x, p3.x), minY: min(p0.y, p1.y, p2.y, p3.y),
            maxX: max(p0.x, p1.x, p2.x, p3.x), maxY: max(p0.y, p1.y, p2.y, p3.y))
    }

    /// Calls `body` with each parameter in (0, 1) where one coordinate's derivative
    /// vanishes: B'(t)/3 = (b−a)(1−t)² + 2(c−b)(1−t)t + (d−c)t² = A t² + B t + C.
    static func forEachExtremum(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ body: (Double) -> Void) {
        let (first, second) = Quadratic.solve((b - a) - 2 * (c - b) + (d - c), 2 * ((c - b) - (b - a)), b - a)
        if let first, first > 0, first < 1 { body(first) }
        if let second, second > 0, second < 1 { body(second) }
    }

    /// An upper bound of the distance between the curve and its chord at the same t:
    /// B(t) − L(t) = 3t(1−t)[(1−t)·d₁ + t·d₂] with d₁ = p1 − (2p0 + p3)/3 and
    /// d₂ = p2 − (p0 + 2p3)/3, hence at most ¾·max(|d₁|, |d₂|).
    public var chordDeviation: Double {
        let d1 = p1 - (2 * p0 + p3) / 3
        let d2 = p2 - (p0 + 2 * p3) / 3
        return 0.75 * max(d1.length, d2.length)
    }

    /// Points along the curve, with their parameters, such that the straight pieces
    /// between consecutive ones stay within `tolerance` of the curve *at the same t*
    /// (adaptive De Casteljau subdivision). Starts at t = 0, ends at t = 1.
    public func flattened(tolerance: Double) -> [(t: Double, point: Point)] {
        var result: [(t: Double, point: Point)] = [(0, p0)]
        flatten(into: &result, from: 0, to: 1, tolerance: max(tolerance, 1e-9), depth: 0)
        return result
    }

    private func flatten(
        into result: inout [(t: Double, point: Point)], from t0: Double, to t1: Double, tolerance: Double, depth: Int
    ) {
        if depth >= 24 || chordDeviation <= tolerance {
            result.append((t1, p3))
            return
        }
        let (left, right) = split(at: 0.5)
        let middle = (t0 + t1) / 2
        left.flatten(into: &result, from: t0, to: middle, tolerance: tolerance, depth: depth + 1)
        right.flatten(into: &result, from: middle, to: t1, tolerance: tolerance, depth: depth + 1)
    }
}

/// Real roots of a·x² + b·x + c = 0, computed without catastrophic cancellation.
public enum Quadratic {
    /// The real roots in increasing order.
    public static func roots(_ a: Double, _ b: Double, _ c: Double) -> [Double] {
        let (first, second) = solve(a, b, c)
        return [first, second].compactMap { $0 }
    }

    /// Up to two real roots, the smaller first, without allocating.
    public static func solve(_ a: Double, _ b: Double, _ c: Double) -> (Double?, Double?) {
        let scale = max(abs(a), abs(b), abs(c))
        guard scale > 0 else { return (nil, nil) }
        if abs(a) <= 1e-12 * scale {
            return abs(b) <= 1e-12 * scale ? (nil, nil) : (-c / b, nil)
        }
        let discriminant = b * b - 4 * a * c
        if discriminant < 0 { return (nil, nil) }
        if discriminant == 0 { return (-b / (2 * a), nil) }
        // q = −(b + sign(b)·√Δ)/2; roots q/a and c/q (Numerical Recipes §5.6).
        let q = -0.5 * (b + (b >= 0 ? 1 : -1) * discriminant.squareRoot())
        if q == 0 { return (0, nil) }
        let (x, y) = (q / a, c / q)
        return (min(x, y), max(x, y))
    }
}
