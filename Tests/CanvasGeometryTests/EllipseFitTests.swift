import CanvasCore
import Foundation
import Testing

@testable import CanvasGeometry

/// The ellipse fit's analytic derivatives against the residuals they differentiate.
@Suite("Ellipse fit")
struct EllipseFitTests {
    /// Every column of `FittedEllipse.jacobian` equals the central difference of
    /// `FittedEllipse.residuals` by that parameter, for ellipses of any size, proportion and
    /// angle and points near and far from them; the last column is minus the residual (to
    /// rounding: the Jacobian multiplies by reciprocals where the residuals divide).
    @Test(arguments: Array(UInt64(1)...20))
    func theJacobianIsTheResidualsDerivative(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let scale = Double.random(in: 1...1000, using: &random)
        let parameters = SIMD8<Double>(
            Double.random(in: -scale...scale, using: &random), Double.random(in: -scale...scale, using: &random),
            scale * Double.random(in: 0.2...1, using: &random), scale * Double.random(in: 0.05...1, using: &random),
            Double.random(in: -Double.pi...Double.pi, using: &random), 0, 0, 0)
        let points = (0..<40).map { _ in
            let angle = Double.random(in: 0..<(2 * Double.pi), using: &random)
            let stretch = Double.random(in: 0.5...1.5, using: &random)
            let (c, s) = (cos(parameters[4]), sin(parameters[4]))
            let (u, v) = (parameters[2] * stretch * cos(angle), parameters[3] * stretch * sin(angle))
            return Point(x: parameters[0] + u * c - v * s, y: parameters[1] + u * s + v * c)
        }
        points.withUnsafeBufferPointer { points in
            var rows = [SIMD8<Double>](repeating: SIMD8(), count: points.count)
            rows.withUnsafeMutableBufferPointer { FittedEllipse.jacobian(parameters, points, into: $0) }
            var base = [Double](repeating: 0, count: points.count)
            var (plus, minus) = (base, base)
            _ = base.withUnsafeMutableBufferPointer { FittedEllipse.residuals(parameters, points, into: $0.baseAddress!) }
            for i in points.indices {
                // The same distance, computed with reciprocals: equal to rounding.
                #expect(
                    abs(rows[i][5] + base[i]) <= 1e-12 * max(1, abs(base[i])),
                    "seed \(seed), point \(i): the last column is minus the residual, \(rows[i][5]) against \(base[i])")
            }
            for k in 0..<5 {
                let step = (k == 4 ? 1.0 : scale) * 1e-6
                var (up, down) = (parameters, parameters)
                up[k] += step
                down[k] -= step
                _ = plus.withUnsafeMutableBufferPointer { FittedEllipse.residuals(up, points, into: $0.baseAddress!) }
                _ = minus.withUnsafeMutableBufferPointer { FittedEllipse.residuals(down, points, into: $0.baseAddress!) }
                for i in points.indices {
                    let numeric = (plus[i] - minus[i]) / (2 * step)
                    let analytic = rows[i][k]
                    #expect(
                        abs(analytic - numeric) <= 1e-5 * max(1, abs(numeric)),
                        "seed \(seed), point \(i), parameter \(k): analytic \(analytic), numeric \(numeric)")
                }
            }
        }
    }
}
