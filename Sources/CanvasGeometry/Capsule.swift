import CanvasCore

/// The points within `radius` of the segment from `a` to `b`: the area a circular eraser
/// sweeps between two pointer samples (a disc when `a == b`). Convex, which the eraser's
/// tests rely on.
struct Capsule {
    let a: Point
    let b: Point
    let radius: Double
    /// Unit vector from `a` to `b` (any unit vector for a disc).
    private let direction: Point
    /// Unit normal to `direction`.
    private let normal: Point
    /// |b − a|.
    private let length: Double

    init(from a: Point, to b: Point, radius: Double) {
        self.a = a
        self.b = b
        self.radius = radius
        length = a.distance(to: b)
        direction = length > 0 ? (b - a) / length : Point(x: 1, y: 0)
        normal = Point(x: -direction.y, y: direction.x)
    }

    /// The bounding box of the capsule.
    var bounds: Rect {
        Rect(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y)).expanded(by: radius)
    }

    /// Squared distance from `point` to the capsule's core segment.
    func distanceSquared(to point: Point) -> Double {
        let offset = point - a
        let along = min(max(direction.dot(offset), 0), length)
        let nearest = a + direction * along
        let d = point - nearest
        return d.dot(d)
    }

    func contains(_ point: Point) -> Bool {
        distanceSquared(to: point) <= radius * radius
    }

    /// True when every control point is inside: the convex hull, hence the curve, is.
    func containsHull(of curve: CubicBezier) -> Bool {
        contains(curve.p0) && contains(curve.p1) && contains(curve.p2) && contains(curve.p3)
    }

    /// True when a line separates the convex hull of the control points from the capsule,
    /// so the curve cannot meet it. Conservative: false does not mean they meet.
    func isSeparated(from curve: CubicBezier) -> Bool {
        let (o0, o1, o2, o3) = (curve.p0 - a, curve.p1 - a, curve.p2 - a, curve.p3 - a)
        let along = (direction.dot(o0), direction.dot(o1), direction.dot(o2), direction.dot(o3))
        let across = (normal.dot(o0), normal.dot(o1), normal.dot(o2), normal.dot(o3))
        let lowAlong = min(along.0, along.1, along.2, along.3)
        let highAlong = max(along.0, along.1, along.2, along.3)
        // The sides of the capsule's oriented bounding box.
        if min(across.0, across.1, across.2, across.3) > radius || max(across.0, across.1, across.2, across.3) < -radius
            || highAlong < -radius || lowAlong > length + radius {
            return true
        }
        // Wholly beyond one end, the hull's nearest core point is that end: separate the
        // hull from the end's disc along the direction from the end to the hull's centre.
        if highAlong <= 0 {
            return Self.isBeyond(curve, distance: radius, from: a)
        }
        if lowAlong >= length {
            return Self.isBeyond(curve, distance: radius, from: b)
        }
        return false
    }

    /// True when every control point lies more than `distance` from `centre` along the
    /// direction from `centre` to their centroid.
    private static func isBeyond(_ curve: CubicBezier, distance: Double, from centre: Point) -> Bool {
        let toward = (curve.p0 + curve.p1 + curve.p2 + curve.p3) / 4 - centre
        let length = toward.length
        guard length > 0 else { return false }
        let unit = toward / length
        return unit.dot(curve.p0 - centre) > distance && unit.dot(curve.p1 - centre) > distance
            && unit.dot(curve.p2 - centre) > distance && unit.dot(curve.p3 - centre) > distance
    }

    /// The parameters s ∈ [0, 1] of the points p + s·(q − p) of the chord from `p` to `q`
    /// that are inside the capsule: one interval (the capsule is convex), or nil.
    func chordInterval(from p: Point, to q: Point) -> (lower: Double, upper: Double)? {
        let d = q - p
        guard d.x != 0 || d.y != 0 else {
            return contains(p) ? (0, 1) : nil
        }
        // The capsule is the union of the two end discs and the rectangle between them;
        // the chord meets each in an interval, and their union is one interval.
        var lower = Double.infinity
        var upper = -Double.infinity
        func include(_ interval: (lower: Double, upper: Double)?) {
            guard let interval else { return }
            lower = min(lower, interval.lower)
            upper = max(upper, interval.upper)
        }
        include(discInterval(centre: a, from: p, direction: d))
        if length > 0 {
            include(discInterval(centre: b, from: p, direction: d))
            include(bandInterval(from: p, direction: d))
        }
        lower = max(lower, 0)
        upper = min(upper, 1)
        return lower <= upper ? (lower, upper) : nil
    }

    /// Where the line p + s·d is within `radius` of `centre`: the roots of
    /// |d|²s² + 2(d·q)s + |q|² − r² = 0 with q = p − centre, computed without cancellation
    /// (the larger root from q = −(b′ + sign(b′)√Δ′), the other as c/q; Δ′ = |d|²r² − (d×q)²
    /// factored as a difference of squares).
    private func discInterval(centre: Point, from p: Point, direction d: Point) -> (lower: Double, upper: Double)? {
        let q = p - centre
        let a = d.dot(d)
        let halfB = d.dot(q)
        let cross = abs(d.cross(q))
        let reach = a.squareRoot() * radius
        guard cross <= reach else { return nil }
        let root = ((reach - cross) * (reach + cross)).squareRoot()
        let distance = q.length
        let c = (distance - radius) * (distance + radius)
        let big = -(halfB + (halfB >= 0 ? root : -root))
        guard big != 0 else { return (0, 0) }
        let first = big / a
        let second = c / big
        return (min(first, second), max(first, second))
    }

    /// Where the line p + s·d is inside the rectangle between the end discs: within
    /// `radius` of the core line and between the perpendiculars through `a` and `b`.
    private func bandInterval(from p: Point, direction d: Point) -> (lower: Double, upper: Double)? {
        let offset = p - a
        var lower = -Double.infinity
        var upper = Double.infinity
        // Clips to low ≤ value + s·rate ≤ high; false when no s qualifies.
        func clip(_ value: Double, _ rate: Double, _ low: Double, _ high: Double) -> Bool {
            if rate == 0 {
                return value >= low && value <= high
            }
            let s1 = (low - value) / rate
            let s2 = (high - value) / rate
            lower = max(lower, min(s1, s2))
            upper = min(upper, max(s1, s2))
            return true
        }
        guard clip(normal.dot(offset), normal.dot(d), -radius, radius),
            clip(direction.dot(offset), direction.dot(d), 0, length)
        else { return nil }
        return lower <= upper ? (lower, upper) : nil
    }
}
