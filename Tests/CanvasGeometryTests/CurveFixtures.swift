import CanvasCore
import CanvasGeometry
import CanvasTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Strokes, documents and reference computations shared by the curve, index and eraser
/// tests.
enum CurveFixtures {
    /// A hand-drawn-looking stroke: a random walk with turns, steps from a fraction of a
    /// pixel to tens of pixels, repeated samples (a pen held still) and sharp reversals.
    static func randomStroke(count: Int, using rng: inout SplitMix64) -> [Point] {
        var point = randomPoint(in: -300...300, using: &rng)
        var heading = Double.random(in: 0..<(2 * .pi), using: &rng)
        var points = [point]
        while points.count < count {
            if rng.chance(0.12) {
                points.append(point)
                continue
            }
            heading += rng.chance(0.06) ? .pi : Double.random(in: -1.2...1.2, using: &rng)
            let step = Double.random(in: -1...1.5, using: &rng)
            let length = exp(step * 2.3)
            point = Point(x: point.x + length * cos(heading), y: point.y + length * sin(heading))
            points.append(point)
        }
        return points
    }

    /// A point with both coordinates uniform in `range`.
    static func randomPoint(in range: ClosedRange<Double>, using rng: inout SplitMix64) -> Point {
        Point(x: Double.random(in: range, using: &rng), y: Double.random(in: range, using: &rng))
    }

    /// e raised to a uniform random power: sizes spread evenly over orders of magnitude.
    static func expRandom(in exponents: ClosedRange<Double>, using rng: inout SplitMix64) -> Double {
        exp(Double.random(in: exponents, using: &rng))
    }

    /// A document with one drawn stroke per entry, identifiers "s0", "s1", …
    static func document(_ strokes: [[Point]], isShape: Bool = false) -> Document {
        var document = Document()
        for (number, points) in strokes.enumerated() {
            add(points, id: StrokeID("s\(number)"), isShape: isShape, to: &document)
        }
        return document
    }

    static func add(_ points: [Point], id: StrokeID, isShape: Bool = false, to document: inout Document) {
        document.apply(.add(id, StrokeHeader(weight: 2, colour: .black, start: points[0], isShape: isShape)))
        if points.count > 1 {
            document.apply(.append(id, points: Array(points[1...]), offset: 1))
        }
    }

    /// The point of the stroke at parameter u ∈ [0, n − 1].
    static func point(at u: Double, of points: [Point], isShape: Bool = false) -> Point {
        let k = min(Int(u.rounded(.down)), points.count - 2)
        return StrokeCurves.segment(k, of: points, isShape: isShape).point(at: u - Double(k))
    }

    /// Arc length of the stroke between parameters `a` ≤ `b`, as a sum of many short chords.
    static func arcLength(from a: Double, to b: Double, of points: [Point], isShape: Bool = false) -> Double {
        let steps = 256
        var length = 0.0
        var previous = point(at: a, of: points, isShape: isShape)
        for step in 1...steps {
            let next = point(at: a + (b - a) * Double(step) / Double(steps), of: points, isShape: isShape)
            length += previous.distance(to: next)
            previous = next
        }
        return length
    }

    /// Distance from `point` to the polyline `path` (a single sample is a point).
    static func distance(from point: Point, toPath path: [Point]) -> Double {
        guard path.count > 1 else { return point.distance(to: path[0]) }
        var best = Double.infinity
        for (a, b) in zip(path, path.dropFirst()) {
            let ab = b - a
            let lengthSquared = ab.dot(ab)
            let along = lengthSquared > 0 ? min(max((point - a).dot(ab) / lengthSquared, 0), 1) : 0
            best = min(best, point.distance(to: a + ab * along))
        }
        return best
    }

    /// The parameters of the stroke within `radius` of `path`, found by brute force: each
    /// segment is bisected wherever the Lipschitz bound of the distance (|B′| is at most
    /// three times the longest control-polygon leg) cannot rule out a crossing, down to
    /// 1e-7 px of arc. Dips into the circle shallower than that are not seen.
    static func referenceErased(_ points: [Point], isShape: Bool, path: [Point], radius: Double) -> IntervalSet {
        var result = IntervalSet()
        for k in 0..<(points.count - 1) {
            let curve = StrokeCurves.segment(k, of: points, isShape: isShape)
            let legs = [curve.p1 - curve.p0, curve.p2 - curve.p1, curve.p3 - curve.p2]
            let speed = 3 * legs.map(\.length).max()!
            func excess(_ t: Double) -> Double {
                distance(from: curve.point(at: t), toPath: path) - radius
            }
            var crossings: [Double] = []
            func explore(_ ta: Double, _ fa: Double, _ tb: Double, _ fb: Double) {
                let reach = speed * (tb - ta)
                if (fa > 0) == (fb > 0) && abs(fa) + abs(fb) > reach {
                    return
                }
                if reach < 1e-7 {
                    if (fa > 0) != (fb > 0) {
                        crossings.append((ta + tb) / 2)
                    }
                    return
                }
                let middle = (ta + tb) / 2
                let fm = excess(middle)
                explore(ta, fa, middle, fm)
                explore(middle, fm, tb, fb)
            }
            explore(0, excess(0), 1, excess(1))
            var inside = excess(0) <= 0
            var start = 0.0
            for crossing in crossings {
                if inside {
                    result.insert(from: Double(k) + start, through: Double(k) + crossing)
                }
                inside.toggle()
                start = crossing
            }
            if inside {
                result.insert(from: Double(k) + start, through: Double(k + 1))
            }
        }
        return result
    }

    /// The erased set the operations describe, per stroke.
    static func intervals(of operations: [Operation]) -> [StrokeID: IntervalSet] {
        var result: [StrokeID: IntervalSet] = [:]
        for case .delete(let id, let start, let end) in operations {
            result[id, default: IntervalSet()].insert(from: start, through: end)
        }
        return result
    }
}
