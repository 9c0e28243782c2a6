import CanvasCore
@testable import CanvasGeometry
import Foundation
import Testing

/// `StrokeResampling.diameter` of many points, taken from their hull, is exactly the largest
/// distance between any two of them, whatever the points: scattered, on a circle (every
/// point a corner), on a line, repeated, on a coarse grid (many in a line on the hull), or a
/// stroke as drawn.
@Suite struct DiameterTests {
    /// The largest distance between two of `points`, every pair compared.
    static func everyPair(_ points: [Point]) -> Double {
        var largest = 0.0
        for i in points.indices {
            for j in points.indices where j > i {
                let (dx, dy) = (points[i].x - points[j].x, points[i].y - points[j].y)
                largest = max(largest, dx * dx + dy * dy)
            }
        }
        return largest.squareRoot()
    }

    @Test(arguments: Array(UInt64(1)...30)) func theHullsDiameterIsEveryPairsLargest(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let count = StrokeResampling.hullDiameterThreshold + 1 + Int(pen.random(in: 0...700))
        let scale = exp(pen.random(in: log(0.01)...log(1e6)))
        let points: [Point] =
            switch seed % 6 {
            case 0: (0..<count).map { _ in Point(x: pen.random(in: -1...1) * scale, y: pen.random(in: -1...1) * scale) }
            case 1: (0..<count).map { k in
                let angle = 2 * Double.pi * Double(k) / Double(count)
                return Point(x: scale * cos(angle), y: scale * sin(angle))
            }
            case 2: (0..<count).map { k in Point(x: Double(k) * scale, y: Double(k) * scale * 0.5) }
            case 3: (0..<count).map { k in Point(x: Double(k % 3) * scale, y: Double(k % 2) * scale) }
            case 4: (0..<count).map { _ in
                Point(x: pen.random(in: 0...20).rounded() * scale, y: pen.random(in: 0...20).rounded() * scale)
            }
            default: pen.stroke(
                through: [Point(x: 0, y: 0), Point(x: scale, y: 0), Point(x: scale * 0.4, y: scale)], samples: count)
            }
        #expect(points.count > StrokeResampling.hullDiameterThreshold)
        #expect(StrokeResampling.diameter(of: points) == Self.everyPair(points), "seed \(seed)")
    }

    /// 300 points spaced evenly along a line between two random points, 500 times (rounding
    /// leaves a thin hull of a dozen corners, nearly in a line, where an antipodal search
    /// stops short about once in forty).
    @Test func pointsAlongALine() {
        var pen = SyntheticPen(seed: 41, jitter: 0)
        for trial in 0..<500 {
            let (a, b) = (
                Point(x: pen.random(in: 100...1700), y: pen.random(in: 100...1700)),
                Point(x: pen.random(in: 100...1700), y: pen.random(in: 100...1700))
            )
            let points = (0..<300).map { k in a + (b - a) * (Double(k) / 299) }
            #expect(StrokeResampling.diameter(of: points) == Self.everyPair(points), "trial \(trial): \(a) to \(b)")
        }
    }

    @Test func fewPointsAndNone() {
        #expect(StrokeResampling.hullDiameter(of: []) == 0)
        #expect(StrokeResampling.hullDiameter(of: [Point(x: 3, y: 4)]) == 0)
        #expect(StrokeResampling.hullDiameter(of: [Point(x: 0, y: 0), Point(x: 3, y: 4)]) == 5)
        #expect(StrokeResampling.hullDiameter(of: Array(repeating: Point(x: 1, y: 1), count: 500)) == 0)
    }
}
