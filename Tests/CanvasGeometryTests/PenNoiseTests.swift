import CanvasCore
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasGeometry

/// Strokes whose points are noisy for their size (a shaky hand, a noisy screen): the noise
/// measured, and averaged out before fitting (`PenNoise`).
@Suite("Pen noise")
struct PenNoiseTests {
    /// A circle 200 units across through `samples` points, each moved by Gaussian noise of
    /// `noise` of its size in each coordinate.
    static func circle(samples: Int = 120, noise: Double, seed: UInt64 = 1) -> [Point] {
        var random = SplitMix64(seed: seed)
        return (0...samples).map { k in
            let angle = 2 * Double.pi * Double(k) / Double(samples)
            return Point(x: 100 * cos(angle), y: 100 * sin(angle))
                + gaussianOffset(deviation: noise * 200, using: &random)
        }
    }

    /// The root-mean-square distance of `points` from the circle of `circle`.
    static func rmsFromCircle(_ points: [Point]) -> Double {
        (points.map { ($0.length - 100) * ($0.length - 100) }.reduce(0, +) / Double(points.count)).squareRoot()
    }

    @Test(arguments: Array(UInt64(1)...8)) func noiseOf2PercentIsMeasuredAndAveragedOut(seed: UInt64) throws {
        let drawn = Self.circle(noise: 0.02, seed: seed)
        let noise = try #require(PenNoise.large(in: drawn), "seed \(seed)")
        // 4 units of noise in each coordinate, on a stroke about 208 units across.
        #expect(abs(noise.deviation - 4) < 1, "seed \(seed): \(noise)")
        let (before, after) = (Self.rmsFromCircle(drawn), Self.rmsFromCircle(noise.smoothed(drawn)))
        #expect(after < 0.6 * before, "seed \(seed): RMS distance from the circle \(before) as drawn, \(after) after")
    }

    @Test func cleanStrokesSlightNoiseAndFewPointsAreLeftAsDrawn() {
        // No noise; noise of 0.3 % (the data's own); 2 % on 30 points, too few to tell it
        // from the curve.
        #expect(PenNoise.large(in: Self.circle(noise: 0)) == nil)
        #expect(PenNoise.large(in: Self.circle(noise: 0.003)) == nil)
        #expect(PenNoise.large(in: Self.circle(samples: 30, noise: 0.02)) == nil)
        // A clean polygon's corners move few points: a square of 120 points.
        let square = (0..<120).map { k -> Point in
            let t = Double(k % 30) / 30
            return [Point(x: t, y: 0), Point(x: 1, y: t), Point(x: 1 - t, y: 1), Point(x: 0, y: 1 - t)][k / 30] * 100
        }
        #expect(PenNoise.large(in: square) == nil)
    }

    /// Circles, rectangles, triangles and arrows drawn with noise of 2 % of their size (a
    /// hand or screen seven times noisier than the data's), at any size and rotation: each
    /// recognised as itself. As drawn, without the noise averaged out, most circles were
    /// refused for corners and most arrows for barbs read from the noise.
    @Test(arguments: Array(UInt64(1)...24)) func noisyShapes(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = RecognitionTests.size(&pen)
        pen.jitter = 0.02 * size
        let rotation = pen.random(in: 0...(2 * .pi))
        let origin = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        func drawn(_ waypoints: [Point]) -> [Point] {
            pen.stroke(through: placed(waypoints, size: size, rotation: rotation, origin: origin), samples: 120)
        }
        let circle = pen.arc(
            center: origin, radii: (size / 2, size / 2 * pen.random(in: 0.7...1)), rotation: rotation,
            start: pen.random(in: 0...(2 * .pi)), sweep: 2 * .pi * pen.random(in: 0.95...1.03), samples: 120)
        let corners = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 0.7), Point(x: 0, y: 0.7)]
        let expected: [(ShapeKind, [Point])] = [
            (.ellipse, circle), (.rectangle, drawn(corners + [corners[0]])),
            (.triangle, drawn([Point(x: 0, y: 1), Point(x: 0.5, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)])),
            (
                .arrow,
                drawn([
                    Point(x: 0, y: 0.5), Point(x: 1, y: 0.5), Point(x: 0.7, y: 0.3), Point(x: 1, y: 0.5),
                    Point(x: 0.7, y: 0.7),
                ])
            ),
        ]
        for (kind, stroke) in expected {
            #expect(PenNoise.large(in: stroke) != nil, "seed \(seed), \(kind): noisy")
            #expect(ShapeRecognizer.recognize(stroke).kind == kind, "seed \(seed), \(kind) \(Int(size)) px across")
        }
    }

    /// `explain` says when and how a stroke's noise was averaged out.
    @Test func explainSaysTheNoiseWasAveragedOut() throws {
        let smoothing = try #require(ShapeRecognizer.explain(Self.circle(noise: 0.02)).smoothing)
        #expect(smoothing.hasPrefix("the points' noise is 0.0"), "\(smoothing)")
        #expect(smoothing.contains("(over 0.012)") && smoothing.contains("within 5 times that of it"), "\(smoothing)")
        #expect(ShapeRecognizer.explain(Self.circle(noise: 0.003)).smoothing == nil)
    }
}
