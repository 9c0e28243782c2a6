public import CanvasCore
import Foundation

/// Preparing a hand-drawn stroke for fitting.
///
/// Input devices sample by time, so a slow pen leaves many points where a fast one leaves
/// few, and the same point is often repeated. Fits weighted per point would then favour the
/// slowly drawn parts; resampling at equal arc-length spacing weights every part of the
/// stroke by its length instead, and a fixed number of samples makes every measure below
/// independent of the stroke's size.
public enum StrokeResampling {
    /// The polyline's length.
    static func length(of points: [Point]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
    }

    /// `count` points (at least 2) equally spaced by arc length along the polyline, the
    /// first and last of them being its ends. Empty for a polyline of zero or non-finite
    /// length.
    public static func resampled(_ points: [Point], count: Int) -> [Point] {
        let total = length(of: points)
        guard total > 0, total.isFinite, count >= 2 else { return [] }
        let spacing = total / Double(count - 1)
        var result = [points[0]]
        result.reserveCapacity(count)
        // Arc length still to cover before the next sample, walking segment by segment.
        var remaining = spacing
        for (a, b) in zip(points, points.dropFirst()) {
            let segmentLength = a.distance(to: b)
            var travelled = 0.0
            while segmentLength - travelled >= remaining && result.count < count - 1 {
                travelled += remaining
                result.append(a.interpolated(to: b, at: travelled / segmentLength))
                remaining = spacing
            }
            remaining -= segmentLength - travelled
        }
        result.append(points[points.count - 1])
        return result
    }

    /// The part of the polyline from arc length `start` on: the point at that length, then
    /// the polyline's points beyond it (its last point alone when `start` is its length or
    /// more).
    static func stretch(of points: [Point], from start: Double) -> [Point] {
        var travelled = 0.0
        for index in points.indices.dropLast() {
            let segment = points[index].distance(to: points[index + 1])
            if segment > 0, travelled + segment > start {
                let at = points[index].interpolated(to: points[index + 1], at: max(0, (start - travelled) / segment))
                return [at] + points[(index + 1)...]
            }
            travelled += segment
        }
        return [points[points.count - 1]]
    }

    /// The stroke as the canvas draws it, for resampling at `spacing`: the pen's points,
    /// and between two of them farther apart than the spacing, points at most half of it
    /// apart (by their chord) along the centripetal Catmull-Rom curve through them
    /// (`StrokeCurves`, which draws every hand-drawn stroke). A pen or screen that samples
    /// a fast stroke a dozen times draws a smooth curve, whose straight chords would
    /// otherwise meet in corners that nobody drew. Dense strokes come back as they are.
    static func curve(through points: [Point], spacing: Double) -> [Point] {
        guard points.count > 2, spacing > 0 else { return points }
        let pieces = { (k: Int) -> Int in
            let chord = points[k].distance(to: points[k + 1])
            return chord > spacing ? min(16, Int((2 * chord / spacing).rounded(.up))) : 1
        }
        guard (0..<(points.count - 1)).contains(where: { pieces($0) > 1 }) else { return points }
        var result: [Point] = []
        result.reserveCapacity(2 * points.count)
        for k in 0..<(points.count - 1) {
            result.append(points[k])
            let count = pieces(k)
            guard count > 1 else { continue }
            let segment = StrokeCurves.segment(k, of: points, isShape: false)
            for j in 1..<count { result.append(segment.point(at: Double(j) / Double(count))) }
        }
        result.append(points[points.count - 1])
        return result
    }

    /// The stroke (equally spaced points) without the hooks at its ends: where the stroke
    /// turns by more than `angle` (radians) within `fraction` of its length from an end,
    /// it is cut at the sharpest such turn.
    ///
    /// Pens leave hooks as they land and lift, and closing a polygon often overshoots
    /// its first corner; both would otherwise count as parts of the shape.
    static func trimmingHooks(_ stroke: [Point], within fraction: Double, sharperThan angle: Double) -> [Point] {
        let (first, last) = hookCuts(stroke, within: fraction, sharperThan: angle)
        return Array(stroke[first...last])
    }

    /// Where `trimmingHooks` cuts the stroke (non-empty, equally spaced points): the first
    /// and last samples it keeps.
    static func hookCuts(_ stroke: [Point], within fraction: Double, sharperThan angle: Double) -> (first: Int, last: Int) {
        let window = Int(fraction * Double(stroke.count - 1))
        guard window >= turnReach, stroke.count > 2 * (window + turnReach) else { return (0, stroke.count - 1) }
        let filter = SharpTurnFilter(angle: angle)
        func sharpest(_ range: ClosedRange<Int>) -> Int? {
            // Most ends have no turn near `angle`: then no angle need be computed.
            guard range.contains(where: { filter.mayTurn(stroke, at: $0) }) else { return nil }
            let i = range.max { turn(of: stroke, at: $0) < turn(of: stroke, at: $1) }!
            return turn(of: stroke, at: i) > angle ? i : nil
        }
        let first = sharpest(turnReach...window) ?? 0
        let last = sharpest((stroke.count - 1 - window)...(stroke.count - 1 - turnReach)) ?? stroke.count - 1
        return (first, last)
    }

    /// Where the stroke (equally spaced points) would be cut to drop the hooks at its ends
    /// however rounded their turn: the first and last samples kept. A hook here is an end
    /// piece, no longer than `fraction` of the stroke, that leaves the direction of the
    /// stroke before it by more than `angle` (radians): the angle between the chord over
    /// the `fraction` before a sample and the chord from that sample to the end (at the
    /// start, mirrored). The cut is at the sample where that angle is largest.
    ///
    /// `hookCuts` measures a turn over a few samples, so a pen that curls as it lifts, a
    /// "J" rather than a "V", turns too gently at any one sample to be cut there.
    static func roundedHookCuts(_ stroke: [Point], within fraction: Double, sharperThan angle: Double) -> (
        first: Int, last: Int
    ) {
        let window = Int(fraction * Double(stroke.count - 1))
        let end = stroke.count - 1
        guard window >= turnReach, stroke.count > 2 * (window + turnReach) else { return (0, end) }
        /// The sample of `range` where the chords `before(i)` and `after(i)` differ most in
        /// direction, when by more than `angle`.
        func widest(_ range: ClosedRange<Int>, _ before: (Int) -> Point, _ after: (Int) -> Point) -> Int? {
            var best: (index: Int, turn: Double)?
            for i in range {
                let (a, b) = (before(i), after(i))
                let turn = abs(atan2(a.cross(b), a.dot(b)))
                if turn > angle, turn > best?.turn ?? 0 { best = (i, turn) }
            }
            return best?.index
        }
        let first = widest(turnReach...window, { stroke[$0] - stroke[0] }, { stroke[$0 + window] - stroke[$0] }) ?? 0
        let last =
            widest((end - window)...(end - turnReach), { stroke[$0] - stroke[$0 - window] }, { stroke[end] - stroke[$0] })
            ?? end
        return (first, last)
    }

    /// How many samples either side of a point the chords measuring its turn span, so that
    /// single-sample jitter is not mistaken for a turn.
    static let turnReach = 2

    /// How sharply the stroke (equally spaced points) turns at sample `i` (at least
    /// `turnReach` from either end), in radians from 0 (straight on) to π (doubling back):
    /// the angle between the chords arriving from `turnReach` samples before and leaving
    /// to `turnReach` samples after.
    static func turn(of stroke: [Point], at i: Int) -> Double {
        turn(from: stroke[i - turnReach], at: stroke[i], to: stroke[i + turnReach])
    }

    /// A quick test for turns sharper than an angle: false when `turn(of: stroke, at: i)`
    /// is certainly no more than the angle, found without computing the turn (the chords'
    /// cross product is well within the angle's slope times their dot product, a margin of
    /// a millionth, far above the rounding of the turn); true when it may be sharper.
    struct SharpTurnFilter {
        /// The angle's tangent less a millionth; nil for angles of 90° or more, or none.
        private let slope: Double?

        init(angle: Double) {
            slope = angle > 0 && angle < Double.pi / 2 ? tan(angle) * (1 - 1e-6) : nil
        }

        func mayTurn(_ stroke: [Point], at i: Int) -> Bool {
            guard let slope else { return true }
            let (a, b) = (stroke[i] - stroke[i - turnReach], stroke[i + turnReach] - stroke[i])
            let (cross, dot) = (a.cross(b), a.dot(b))
            return !(dot > 0 && abs(cross) < dot * slope)
        }
    }

    /// How sharply a path turns at `point` coming from `previous` and going to `next`, in
    /// radians from 0 (straight on) to π (doubling back).
    static func turn(from previous: Point, at point: Point, to next: Point) -> Double {
        let (a, b) = (point - previous, next - point)
        return abs(atan2(a.cross(b), a.dot(b)))
    }

    /// The largest distance between two of the points: the stroke's size for every
    /// tolerance, whatever its shape or rotation.
    static func diameter(of points: [Point]) -> Double {
        // Many points (a stroke as drawn, not its samples): only the corners of their hull can
        // be the farthest apart, found without comparing every pair.
        if points.count > hullDiameterThreshold { return hullDiameter(of: points) }
        // Squared: one square root at the end. The largest does not depend on the order
        // the pairs are taken in, so four at a time, each lane keeping its own, from the
        // coordinates in two arrays (four consecutive ones load at once).
        let count = points.count
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * count) { buffer in
            let (xs, ys) = (buffer.baseAddress!, buffer.baseAddress! + count)
            for (k, point) in points.enumerated() {
                (xs + k).initialize(to: point.x)
                (ys + k).initialize(to: point.y)
            }
            var largest = SIMD4<Double>()
            var last = 0.0
            for i in 0..<count {
                let (x, y) = (xs[i], ys[i])
                var j = i + 1
                while j + 4 <= count {
                    let dx = UnsafeRawPointer(xs + j).loadUnaligned(as: SIMD4<Double>.self)
                    let dy = UnsafeRawPointer(ys + j).loadUnaligned(as: SIMD4<Double>.self)
                    let squares = (x - dx) * (x - dx) + (y - dy) * (y - dy)
                    // max(largest, square), lane by lane: the square when it is at least as large.
                    largest.replace(with: squares, where: squares .>= largest)
                    j += 4
                }
                for j in j..<count {
                    let (dx, dy) = (x - xs[j], y - ys[j])
                    last = max(last, dx * dx + dy * dy)
                }
            }
            return max(last, largest.max()).squareRoot()
        }
    }

    /// How many points `diameter` compares pair by pair; over it, it takes the hull.
    static let hullDiameterThreshold = 256

    /// The largest distance between two of `points`, from their convex hull (the monotone
    /// chain): O(n log n) where comparing every pair is O(n²) (a stroke of 30,000 points:
    /// 6 s). The farthest two points are corners of the hull; up to `hullDiameterThreshold`
    /// corners (a stroke's hull, however many its points, has a few dozen) every two are
    /// compared, as `diameter` compares points, so both give the same figure. A hull of more
    /// corners (thousands of points on a circle) is searched by its antipodal corners
    /// (rotating calipers), which rounding can mislead on a hull nearly flat: there only.
    static func hullDiameter(of points: [Point]) -> Double {
        let sorted = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        /// One chain of the hull: each point kept only while the chain turns left at it.
        func chain(_ points: some Sequence<Point>) -> [Point] {
            var chain: [Point] = []
            for point in points {
                while chain.count >= 2,
                    (chain[chain.count - 1] - chain[chain.count - 2]).cross(point - chain[chain.count - 2]) <= 0
                {
                    chain.removeLast()
                }
                chain.append(point)
            }
            return chain
        }
        // Anticlockwise, each end once, no three corners in a line.
        let hull = Array(chain(sorted).dropLast()) + Array(chain(sorted.reversed()).dropLast())
        func squaredDistance(_ a: Point, _ b: Point) -> Double {
            let (dx, dy) = (a.x - b.x, a.y - b.y)
            return dx * dx + dy * dy
        }
        guard hull.count > hullDiameterThreshold else {
            var largest = 0.0
            for i in hull.indices {
                for j in hull.indices where j > i { largest = max(largest, squaredDistance(hull[i], hull[j])) }
            }
            return largest.squareRoot()
        }
        // For each side, the corner farthest from its line (which only moves on as the side
        // does), and its distance from either end of the side.
        var (largest, far) = (0.0, 1)
        for i in hull.indices {
            let (start, end) = (hull[i], hull[(i + 1) % hull.count])
            let side = end - start
            while side.cross(hull[(far + 1) % hull.count] - start) > side.cross(hull[far] - start) {
                far = (far + 1) % hull.count
            }
            largest = max(largest, squaredDistance(start, hull[far]), squaredDistance(end, hull[far]))
        }
        return largest.squareRoot()
    }
}
