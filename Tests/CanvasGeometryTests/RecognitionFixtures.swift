import CanvasCore
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasGeometry

/// A synthetic hand: draws polylines and arcs as a pen would sample them, a point every
/// few pixels with the spacing varying, each point jittered by Gaussian noise, so that
/// recognition is tested on strokes that are never exactly the shape.
struct SyntheticPen {
    var rng: SplitMix64
    /// Standard deviation of the jitter, in pixels.
    var jitter: Double

    init(seed: UInt64, jitter: Double) {
        rng = SplitMix64(seed: seed)
        self.jitter = jitter
    }

    /// A stroke through `waypoints` in order, about `samples` points long.
    mutating func stroke(through waypoints: [Point], samples: Int = 80) -> [Point] {
        let length = zip(waypoints, waypoints.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
        var points: [Point] = []
        for (a, b) in zip(waypoints, waypoints.dropFirst()) {
            let count = max(2, Int(Double(samples) * a.distance(to: b) / length))
            for k in 0..<count {
                let t = (Double(k) + Double.random(in: -0.3...0.3, using: &rng)) / Double(count)
                points.append(jittered(a.interpolated(to: b, at: min(1, max(0, t)))))
            }
        }
        points.append(jittered(waypoints[waypoints.count - 1]))
        return points
    }

    /// An elliptical arc: centre, semi-axes, the first axis at `rotation`, from parameter
    /// angle `start` through `sweep` radians (negative sweeps run the other way).
    mutating func arc(
        center: Point, radii: (Double, Double), rotation: Double, start: Double, sweep: Double, samples: Int = 80
    ) -> [Point] {
        (0...samples).map { k in
            let angle = start + sweep * (Double(k) + Double.random(in: -0.3...0.3, using: &rng)) / Double(samples)
            let local = Point(x: radii.0 * cos(angle), y: radii.1 * sin(angle))
            return jittered(center + rotated(local, by: rotation))
        }
    }

    /// A uniformly random value, for drawing shape parameters from the same seed.
    mutating func random(in range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &rng)
    }

    private mutating func jittered(_ point: Point) -> Point {
        point + gaussianOffset(deviation: jitter, using: &rng)
    }
}

/// A random offset whose coordinates are Gaussian with standard deviation `deviation`
/// (Box–Muller: two uniforms give one standard normal, its angle uniform).
func gaussianOffset(deviation: Double, using random: inout SplitMix64) -> Point {
    let u = Double.random(in: Double.ulpOfOne..<1, using: &random)
    let v = Double.random(in: 0..<1, using: &random)
    let radius = deviation * (-2 * log(u)).squareRoot()
    return Point(x: radius * cos(2 * .pi * v), y: radius * sin(2 * .pi * v))
}

/// `points` with every corner rounded off as a fast hand rounds it: resampled to 256 points
/// equally spaced along the stroke, then each the Gaussian-weighted mean of its neighbours
/// with a standard deviation of `fraction` of the stroke's length (the ends' neighbourhoods
/// cut short, so the ends stay near where they were).
func roundedOff(_ points: [Point], over fraction: Double) -> [Point] {
    let count = 256
    let even = StrokeResampling.resampled(points, count: count)
    guard even.count == count else { return points }
    let sigma = fraction * Double(count - 1)
    let reach = Int((3 * sigma).rounded(.up))
    return even.indices.map { i in
        var (sum, weights) = (Point(x: 0, y: 0), 0.0)
        for j in max(0, i - reach)...min(count - 1, i + reach) {
            let weight = exp(-Double((j - i) * (j - i)) / (2 * sigma * sigma))
            (sum, weights) = (sum + even[j] * weight, weights + weight)
        }
        return sum / weights
    }
}

/// `point` turned by `angle` radians about the origin.
func rotated(_ point: Point, by angle: Double) -> Point {
    Point(x: point.x * cos(angle) - point.y * sin(angle), y: point.x * sin(angle) + point.y * cos(angle))
}

/// Points placed by `shape` in a unit frame, scaled by `size`, turned by `rotation` and
/// moved to `origin`.
func placed(_ shape: [Point], size: Double, rotation: Double, origin: Point) -> [Point] {
    shape.map { origin + rotated($0 * size, by: rotation) }
}

/// Gestures that are none of the recognised shapes, in a unit frame (about 1 across): each
/// a list of waypoints the pen passes through, or an arc.
enum NonShape: String, CaseIterable, CustomTestStringConvertible {
    case spiral, zigzag, letterS, letterC, letterU, letterL, letterM, letterZ, check, caret, crossedX, deleteMark
    case questionMark, squareBracket, curlyBrace, pigtail, fivePointStar, pentagon, scribble, wave

    var testDescription: String { rawValue }

    /// The gesture drawn by `pen` at `size` pixels, turned by `rotation`.
    func drawn(with pen: inout SyntheticPen, size: Double, rotation: Double) -> [Point] {
        let origin = Point(x: 500, y: 400)
        func through(_ waypoints: [Point]) -> [Point] {
            pen.stroke(through: placed(waypoints, size: size, rotation: rotation, origin: origin))
        }
        func arc(_ center: Point, _ radius: Double, _ start: Double, _ sweep: Double) -> [Point] {
            pen.arc(
                center: origin + rotated(center * size, by: rotation), radii: (radius * size, radius * size),
                rotation: rotation, start: start, sweep: sweep)
        }
        switch self {
        case .spiral:
            return (0...120).map { k in
                let t = Double(k) / 120 * 5 * .pi
                return origin + rotated(Point(x: cos(t), y: sin(t)) * (0.1 + 0.4 * t / (5 * .pi)) * size, by: rotation)
            }
        case .zigzag:
            return through((0...6).map { Point(x: Double($0) / 6, y: $0 % 2 == 0 ? 0 : 0.3) })
        case .letterS:
            return arc(Point(x: 0, y: -0.25), 0.25, -0.1 * .pi, -1.3 * .pi)
                + arc(Point(x: 0, y: 0.25), 0.25, -0.6 * .pi, 1.3 * .pi)
        case .letterC:
            return arc(Point(x: 0, y: 0), 0.5, -0.25 * .pi, -1.45 * .pi)
        case .letterU:
            return through([Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 0.7, y: 1), Point(x: 0.7, y: 0)])
        case .letterL:
            return through([Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 0.6, y: 1)])
        case .letterM:
            return through([
                Point(x: 0, y: 1), Point(x: 0, y: 0), Point(x: 0.4, y: 0.6), Point(x: 0.8, y: 0), Point(x: 0.8, y: 1),
            ])
        case .letterZ:
            return through([Point(x: 0, y: 0), Point(x: 0.8, y: 0), Point(x: 0, y: 1), Point(x: 0.8, y: 1)])
        case .check:
            return through([Point(x: 0, y: 0.5), Point(x: 0.3, y: 0.9), Point(x: 1, y: 0)])
        case .caret:
            return through([Point(x: 0, y: 1), Point(x: 0.3, y: 0), Point(x: 0.6, y: 1)])
        case .crossedX:
            // The $1 "x": a diagonal, up the side, the other diagonal.
            return through([Point(x: 0, y: 0), Point(x: 1, y: 1), Point(x: 1, y: 0), Point(x: 0, y: 1)])
        case .deleteMark:
            return through([Point(x: 0, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1), Point(x: 1, y: 0)])
        case .questionMark:
            return arc(Point(x: 0, y: 0), 0.3, -.pi, 1.4 * .pi)
                + through([Point(x: 0.05, y: 0.35), Point(x: 0, y: 0.8)])
        case .squareBracket:
            return through([Point(x: 0.3, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 0.3, y: 1)])
        case .curlyBrace:
            return through([
                Point(x: 0.3, y: 0), Point(x: 0.15, y: 0.05), Point(x: 0.15, y: 0.4), Point(x: 0, y: 0.5),
                Point(x: 0.15, y: 0.6), Point(x: 0.15, y: 0.95), Point(x: 0.3, y: 1),
            ])
        case .pigtail:
            return through([Point(x: 0, y: 1), Point(x: 0.5, y: 0.6)])
                + arc(Point(x: 0.5, y: 0.35), 0.25, 0.5 * .pi, -1.8 * .pi)
                + through([Point(x: 0.6, y: 0.6), Point(x: 1, y: 1)])
        case .fivePointStar:
            return through(
                (0...5).map { k in
                    let angle = -Double.pi / 2 + Double(k * 2) * 2 * .pi / 5
                    return Point(x: 0.5 * cos(angle), y: 0.5 * sin(angle))
                })
        case .pentagon:
            return through(
                (0...5).map { k in
                    let angle = -Double.pi / 2 + Double(k) * 2 * .pi / 5
                    return Point(x: 0.5 * cos(angle), y: 0.5 * sin(angle))
                })
        case .scribble:
            var waypoints: [Point] = []
            for _ in 0..<12 {
                waypoints.append(Point(x: pen.random(in: 0...1), y: pen.random(in: 0...1)))
            }
            return through(waypoints)
        case .wave:
            return through((0...24).map { k in Point(x: Double(k) / 24, y: 0.15 * sin(Double(k) / 24 * 4 * .pi)) })
        }
    }
}
