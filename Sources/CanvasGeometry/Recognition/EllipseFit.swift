import CanvasCore
import Foundation

/// An ellipse fitted to points: first by linear least squares on the general conic
/// A x² + B xy + C y² + D x + E y = 1 (in coordinates centred on the points' mean and
/// scaled to unit spread, so the normal equations are well conditioned at any size), then
/// refined by Levenberg–Marquardt on the points' distances to it (Sampson's first-order
/// approximation of the orthogonal distance).
///
/// The algebraic fit alone is biased for the lumpy, open ellipses people draw (it weights
/// points unevenly round the curve); the refinement brings it to the geometric fit that
/// the recogniser's distance measures then judge.
struct FittedEllipse {
    var center: Point
    /// Semi-axis lengths, `semiMajor` ≥ `semiMinor` > 0.
    var semiMajor: Double
    var semiMinor: Double
    /// Unit vector along the major axis.
    var majorAxis: Point

    /// The fit, or nil when the best conic is not an ellipse (a parabola, a hyperbola, or
    /// degenerate, as the conic through collinear points is); refined in `steps` at most
    /// (`maximumSteps` unless a test asks for more).
    init?(fitting points: [Point], steps: Int = maximumSteps) {
        guard points.count >= 5 else { return nil }
        let mean = points.reduce(Point(x: 0, y: 0), +) / Double(points.count)
        let spread = (points.reduce(0) { $0 + ($1 - mean).dot($1 - mean) } / Double(points.count)).squareRoot()
        guard spread > 0 else { return nil }
        // Normal equations MᵀM c = Mᵀ1 for the rows (x², xy, y², x, y).
        let solution = withUnsafeTemporaryAllocation(of: Double.self, capacity: 5 * 6) { normal -> SIMD8<Double>? in
            normal.initialize(repeating: 0)
            for point in points {
                let p = (point - mean) / spread
                let row = SIMD8<Double>(p.x * p.x, p.x * p.y, p.y * p.y, p.x, p.y, 0, 0, 0)
                for r in 0..<5 {
                    for c in 0..<5 { normal[r * 6 + c] += row[r] * row[c] }
                    normal[r * 6 + 5] += row[r]
                }
            }
            return Self.solve(normal.baseAddress!)
        }
        guard let coefficients = solution else { return nil }
        let (a, b, c, d, e) = (coefficients[0], coefficients[1], coefficients[2], coefficients[3], coefficients[4])
        let determinant = 4 * a * c - b * b
        guard determinant > 0 else { return nil }
        // The centre, where the gradient vanishes; there the conic reads
        // A x² + B xy + C y² = g.
        let cx = (b * e - 2 * c * d) / determinant
        let cy = (b * d - 2 * a * e) / determinant
        let g = 1 - (d * cx + e * cy) / 2
        // Eigenvalues of [[A, B/2], [B/2, C]]: positive for an ellipse (determinant > 0)
        // when g > 0.
        let halfTrace = (a + c) / 2
        let halfGap = (((a - c) / 2) * ((a - c) / 2) + b * b / 4).squareRoot()
        let small = halfTrace - halfGap
        let large = halfTrace + halfGap
        guard g > 0, small > 0 else { return nil }
        // The major axis is the eigenvector of the smaller eigenvalue.
        let axis = abs(b) > 1e-12 ? Point(x: b / 2, y: small - a) : (a <= c ? Point(x: 1, y: 0) : Point(x: 0, y: 1))
        // Centre, semi-axes (the first at `angle`) and angle; the last lanes unused.
        var parameters = SIMD8<Double>(
            mean.x + cx * spread, mean.y + cy * spread, (g / small).squareRoot() * spread,
            (g / large).squareRoot() * spread, atan2(axis.y, axis.x), 0, 0, 0)
        points.withUnsafeBufferPointer { Self.refine(&parameters, to: $0, steps: steps) }
        guard (0..<5).allSatisfy({ parameters[$0].isFinite }), parameters[2] > 0, parameters[3] > 0 else { return nil }
        center = Point(x: parameters[0], y: parameters[1])
        let angle = parameters[2] >= parameters[3] ? parameters[4] : parameters[4] + Double.pi / 2
        semiMajor = max(parameters[2], parameters[3])
        semiMinor = min(parameters[2], parameters[3])
        majorAxis = Point(x: cos(angle), y: sin(angle))
    }

    /// The point of the ellipse at the eccentric angle of `point` (along the ray from the
    /// centre in the ellipse's own frame, scaled to a circle): near its nearest point when
    /// `point` is near the curve, and in the same order round it as the stroke's points.
    func projection(of point: Point) -> Point {
        let angle = eccentricAngle(of: point)
        let minorAxis = Point(x: -majorAxis.y, y: majorAxis.x)
        return center + majorAxis * (semiMajor * cos(angle)) + minorAxis * (semiMinor * sin(angle))
    }

    /// The eccentric angle of `point`: the direction from the centre, in the ellipse's own
    /// frame (0 towards the major axis's end) scaled to a circle. Stretching a circle into
    /// the ellipse keeps every point's angle.
    func eccentricAngle(of point: Point) -> Double {
        let onCircle = onUnitCircle(point)
        return atan2(onCircle.y, onCircle.x)
    }

    /// `point` in the ellipse's own frame scaled so that the ellipse is the unit circle
    /// (x along the major axis): an affine map, which keeps straight lines straight.
    func onUnitCircle(_ point: Point) -> Point {
        let minorAxis = Point(x: -majorAxis.y, y: majorAxis.x)
        let offset = point - center
        return Point(x: offset.dot(majorAxis) / semiMajor, y: offset.dot(minorAxis) / semiMinor)
    }

    /// The share of the ellipse's perimeter taken by the arc of eccentric angles within
    /// `sweep` / 2 of `middle`: `sweep` / 2π on a circle; on a long ellipse more on a flat
    /// side, less round an end of the major axis. (Both lengths by the midpoint rule, 16
    /// steps over the arc and 64 round the whole, on a smooth integrand.)
    func perimeterShare(ofArcAround middle: Double, sweep: Double) -> Double {
        // The speed of the point at eccentric angle t along the curve.
        func speed(_ t: Double) -> Double {
            let (s, c) = (semiMajor * sin(t), semiMinor * cos(t))
            return (s * s + c * c).squareRoot()
        }
        var (arc, whole) = (0.0, 0.0)
        for k in 0..<16 { arc += speed(middle + sweep * ((Double(k) + 0.5) / 16 - 0.5)) }
        for k in 0..<64 { whole += speed(2 * Double.pi * (Double(k) + 0.5) / 64) }
        return (arc * sweep / 16) / (whole * 2 * Double.pi / 64)
    }

    /// The Sampson distances from `points` to the ellipse with centre (p[0], p[1]),
    /// semi-axes p[2] and p[3], the first at angle p[4], written into `residuals`; their
    /// sum of squares. (Internal, as is `jacobian`, for EllipseFitTests.)
    static func residuals(
        _ p: SIMD8<Double>, _ points: UnsafeBufferPointer<Point>, into residuals: UnsafeMutablePointer<Double>
    ) -> Double {
        let (c, s) = (cos(p[4]), sin(p[4]))
        let (a2, b2) = (p[2] * p[2], p[3] * p[3])
        for k in points.indices {
            let (dx, dy) = (points[k].x - p[0], points[k].y - p[1])
            let (u, v) = (dx * c + dy * s, -dx * s + dy * c)
            let value = u * u / a2 + v * v / b2 - 1
            let gradient = 2 * (u * u / (a2 * a2) + v * v / (b2 * b2)).squareRoot()
            residuals[k] = gradient > 0 ? value / gradient : 0
        }
        // Summed apart, so that the loop above has no chain from one point to the next.
        var sum = 0.0
        for k in points.indices { sum += residuals[k] * residuals[k] }
        return sum
    }

    /// The Sampson distances as `residuals` computes them, and their derivatives by the
    /// five parameters: row i of `rows` is (∂rᵢ/∂p₀, …, ∂rᵢ/∂p₄, −rᵢ). With u, v a point's
    /// coordinates in the ellipse's frame, f = u²/a² + v²/b² − 1 and g = 2√(u²/a⁴ + v²/b⁴),
    /// r = f/g and ∂r = (∂f − r ∂g)/g, where ∂g = 2 ∂h / g for h = u²/a⁴ + v²/b⁴.
    static func jacobian(
        _ p: SIMD8<Double>, _ points: UnsafeBufferPointer<Point>, into rows: UnsafeMutableBufferPointer<SIMD8<Double>>
    ) {
        let (c, s) = (cos(p[4]), sin(p[4]))
        // Reciprocals once, so that a point costs one division.
        let (ia, ib) = (1 / p[2], 1 / p[3])
        let (ia2, ib2) = (ia * ia, ib * ib)
        let (ia4, ib4) = (ia2 * ia2, ib2 * ib2)
        for k in points.indices {
            let (dx, dy) = (points[k].x - p[0], points[k].y - p[1])
            let (u, v) = (dx * c + dy * s, -dx * s + dy * c)
            let (uu, vv) = (u * u, v * v)
            let h = uu * ia4 + vv * ib4
            guard h > 0 else {
                rows[k] = SIMD8()
                continue
            }
            let g = 2 * h.squareRoot()
            let ig = 1 / g
            let r = (uu * ia2 + vv * ib2 - 1) * ig
            // ∂f/∂u, ∂f/∂v and ∂h/∂u, ∂h/∂v; u and v move with the centre and the angle:
            // ∂u/∂cx = −c, ∂u/∂cy = −s, ∂u/∂θ = v; ∂v/∂cx = s, ∂v/∂cy = −c, ∂v/∂θ = −u.
            let (fu, fv) = (2 * u * ia2, 2 * v * ib2)
            let (hu, hv) = (2 * u * ia4, 2 * v * ib4)
            // ∂r = (∂f − r ∂g) / g with ∂g = 2 ∂h / g.
            let k1 = ig
            let k2 = 2 * r * ig * ig
            rows[k] = SIMD8(
                k1 * (-fu * c + fv * s) - k2 * (-hu * c + hv * s),
                k1 * (-fu * s - fv * c) - k2 * (-hu * s - hv * c),
                k1 * (-2 * uu * ia2 * ia) - k2 * (-4 * uu * ia4 * ia),
                k1 * (-2 * vv * ib2 * ib) - k2 * (-4 * vv * ib4 * ib),
                k1 * (fu * v - fv * u) - k2 * (hu * v - hv * u),
                -r, 0, 0)
        }
    }

    /// The most steps `refine` tries, accepted or refused. An ellipse the stroke follows is
    /// reached in a few: on the 71,705 strokes of every data set, the 4,432 ellipses that
    /// passed took 2.8 steps on average, 4 of them more than 12 (each passes after 12 as
    /// well); the development subjects' circles, drawn and stretched up to 6:1, need five
    /// at most (EllipseFitTests). The fit of an open stroke (an arc, a check, a zig-zag)
    /// instead grows step by step towards a line, gaining a little each time, until an
    /// ellipse wider than the stroke, which the recogniser refuses: 8,790 of those 9,846
    /// fits took more than 12 steps, 7,416 all of the 20 allowed before. On the development
    /// strokes six steps would change nothing; on the held-out sets fewer than twelve
    /// change a few strokes (at ten, a flowchart's handwritten letter became an ellipse
    /// instead of a rectangle; at six, also one of the strangers' changed strokes became a
    /// false recognition). Twelve, the fewest that leaves every stroke of every set as it
    /// was, saves 27 % of the steps of all their fits (docs/benchmarks.md).
    static let maximumSteps = 12

    /// Levenberg–Marquardt on the parameters of `residuals`, with the derivatives of
    /// `jacobian`; a few iterations suffice from the algebraic start. It stops when a step
    /// gains less than a ten-thousandth of the sum of squares (the RMS distance then moves
    /// by half a ten-thousandth of itself: under a hundredth of a pixel for any ellipse
    /// within the recogniser's tolerance on a 2,000 px stroke), or after `steps`. On a
    /// stroke far from any ellipse (a scribble) each step gains about half what the one
    /// before did: it ran all 20 steps when the bound was a billionth, 12 at a millionth, 6
    /// now. (At a thousandth, one evaluated stroke, a stretched circle, was refused.)
    private static func refine(
        _ parameters: inout SIMD8<Double>, to points: UnsafeBufferPointer<Point>, steps: Int
    ) {
        let n = points.count
        withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { buffer in
            let candidateResiduals = buffer.baseAddress!
            // Row i: the derivatives of residual i by the five parameters, then minus the
            // residual; the products of these rows make the normal equations.
            withUnsafeTemporaryAllocation(of: SIMD8<Double>.self, capacity: n) { rows in
                rows.initialize(repeating: SIMD8())
                var cost = residuals(parameters, points, into: candidateResiduals)
                var damping = 1e-3
                var current = parameters
                // The normal equations' sums at `current`, kept while a refused step only
                // raises the damping.
                var system = (SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>())
                var systemOf: SIMD8<Double>?
                for _ in 0..<steps {
                    if systemOf != current {
                        jacobian(current, points, into: rows)
                        // The damped normal equations (JᵀJ + λ diag JᵀJ) δ = −Jᵀr: row r of
                        // the augmented system is the sum over the points of Jᵢᵣ × (Jᵢ, −rᵢ),
                        // each entry summed in the points' order. The matrix is symmetric:
                        // each product Jᵢᵣ Jᵢc with c ≥ r (and Jᵢᵣ × −rᵢ) is summed once, four
                        // at a time in five local sums that stay in registers, and mirrored
                        // (the same terms in the same order as summing row c).
                        var upper = (SIMD4<Double>(), SIMD4<Double>(), SIMD4<Double>(), SIMD4<Double>(), SIMD4<Double>())
                        for row in rows {
                            let (j0, j1, j2, j3, j4, j5) = (row[0], row[1], row[2], row[3], row[4], row[5])
                            upper.0 += SIMD4(j0, j0, j0, j0) * SIMD4(j0, j1, j2, j3)
                            upper.1 += SIMD4(j0, j0, j1, j1) * SIMD4(j4, j5, j1, j2)
                            upper.2 += SIMD4(j1, j1, j1, j2) * SIMD4(j3, j4, j5, j2)
                            upper.3 += SIMD4(j2, j2, j2, j3) * SIMD4(j3, j4, j5, j3)
                            upper.4 += SIMD4(j3, j3, j4, j4) * SIMD4(j4, j5, j4, j5)
                        }
                        let (e00, e01, e02, e03) = (upper.0[0], upper.0[1], upper.0[2], upper.0[3])
                        let (e04, e05, e11, e12) = (upper.1[0], upper.1[1], upper.1[2], upper.1[3])
                        let (e13, e14, e15, e22) = (upper.2[0], upper.2[1], upper.2[2], upper.2[3])
                        let (e23, e24, e25, e33) = (upper.3[0], upper.3[1], upper.3[2], upper.3[3])
                        let (e34, e35, e44, e45) = (upper.4[0], upper.4[1], upper.4[2], upper.4[3])
                        system = (
                            SIMD8(e00, e01, e02, e03, e04, e05, 0, 0), SIMD8(e01, e11, e12, e13, e14, e15, 0, 0),
                            SIMD8(e02, e12, e22, e23, e24, e25, 0, 0), SIMD8(e03, e13, e23, e33, e34, e35, 0, 0),
                            SIMD8(e04, e14, e24, e34, e44, e45, 0, 0)
                        )
                        systemOf = current
                    }
                    let step = withUnsafeTemporaryAllocation(of: Double.self, capacity: 5 * 6) { augmented in
                        func write(_ sums: SIMD8<Double>, row r: Int) {
                            for c in 0..<6 { augmented[r * 6 + c] = sums[c] }
                            augmented[r * 6 + r] *= 1 + damping
                        }
                        write(system.0, row: 0)
                        write(system.1, row: 1)
                        write(system.2, row: 2)
                        write(system.3, row: 3)
                        write(system.4, row: 4)
                        return solve(augmented.baseAddress!)
                    }
                    guard let step else { break }
                    var candidate = current
                    for k in 0..<5 { candidate[k] += step[k] }
                    guard candidate[2] > 0, candidate[3] > 0 else {
                        damping *= 10
                        continue
                    }
                    let candidateCost = residuals(candidate, points, into: candidateResiduals)
                    if candidateCost < cost {
                        let improvement = cost - candidateCost
                        (current, cost) = (candidate, candidateCost)
                        damping /= 10
                        if improvement < 1e-4 * cost { break }
                    } else {
                        damping *= 10
                        if damping > 1e8 { break }
                    }
                }
                parameters = current
            }
        }
    }

    /// The ellipse as a closed polygon (first point repeated at the end) whose chords stray
    /// from the true curve by at most `tolerance`, with a number of sides within `segments`
    /// (beyond its upper bound, the chords stray farther), a multiple of 4 of them (so the
    /// axes' ends are vertices), starting at an end of the major axis.
    func outline(tolerance: Double, segments bounds: ClosedRange<Int>) -> [Point] {
        // A chord spanning angle θ on a circle of radius r strays r(1 − cos(θ/2)) ≈ rθ²/8.
        let step = (8 * tolerance / semiMajor).squareRoot()
        // Bounded while a Double: an ellipse a billion times the tolerance would need more
        // sides than an Int counts.
        let needed = (Double.pi / 2 / step).rounded(.up)
        let quarter = min(Double(bounds.upperBound / 4), max(Double(bounds.lowerBound / 4), needed))
        let segments = 4 * Int(quarter)
        let minorAxis = Point(x: -majorAxis.y, y: majorAxis.x)
        return (0...segments).map { k in
            let angle = 2 * Double.pi * Double(k % segments) / Double(segments)
            return center + majorAxis * (semiMajor * cos(angle)) + minorAxis * (semiMinor * sin(angle))
        }
    }

    /// Gaussian elimination with partial pivoting on the augmented 5 × 6 system `m` (rows
    /// of 6, overwritten); its solution in the first five lanes, nil when it is singular.
    private static func solve(_ m: UnsafeMutablePointer<Double>) -> SIMD8<Double>? {
        let n = 5
        let width = n + 1
        var scale = 0.0
        for k in 0..<(n * width) { scale = max(scale, abs(m[k])) }
        for column in 0..<n {
            // The first row of the largest entry.
            var pivot = column
            for row in (column + 1)..<n where abs(m[pivot * width + column]) < abs(m[row * width + column]) {
                pivot = row
            }
            guard abs(m[pivot * width + column]) > 1e-12 * scale else { return nil }
            for k in 0..<width { swap(&m[column * width + k], &m[pivot * width + k]) }
            for row in (column + 1)..<n {
                let factor = m[row * width + column] / m[column * width + column]
                for k in column...n { m[row * width + k] -= factor * m[column * width + k] }
            }
        }
        var solution = SIMD8<Double>()
        for row in stride(from: n - 1, through: 0, by: -1) {
            var tail = 0.0
            for k in (row + 1)..<n { tail += m[row * width + k] * solution[k] }
            solution[row] = (m[row * width + n] - tail) / m[row * width + row]
        }
        return solution
    }
}
