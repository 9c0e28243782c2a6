import CanvasCore
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasGeometry

/// Strokes recorded on a coarse grid (whole pixels on a small shape): the grid found, and
/// averaged out before fitting (`PenGrid`).
@Suite("Pen grid")
struct PenGridTests {
    /// A circle `diameter` across through `samples` points, each rounded to the grid of
    /// `step` whose origin is at `offset` (nil: not rounded).
    static func circle(diameter: Double, samples: Int = 120, step: Double? = 1, offset: Double = 0) -> [Point] {
        (0...samples).map { k in
            let angle = 2 * Double.pi * Double(k) / Double(samples)
            let point = Point(x: 100 + diameter / 2 * cos(angle), y: 80 + diameter / 2 * sin(angle))
            guard let step else { return point }
            return Point(
                x: ((point.x - offset) / step).rounded() * step + offset,
                y: ((point.y - offset) / step).rounded() * step + offset)
        }
    }

    /// The root-mean-square distance of `points` from the circle of `circle(diameter:)`.
    static func rmsFromCircle(_ points: [Point], diameter: Double) -> Double {
        let squares = points.map { point -> Double in
            let error = point.distance(to: Point(x: 100, y: 80)) - diameter / 2
            return error * error
        }
        return (squares.reduce(0, +) / Double(points.count)).squareRoot()
    }

    @Test func aSmallCircleOnWholePixelsIsOnAGridOfOnePixel() throws {
        let drawn = Self.circle(diameter: 16)
        let grid = try #require(PenGrid.coarse(of: drawn))
        #expect(grid == PenGrid(step: 1, extent: 16))
        // The staircase is averaged out: the points come about three times nearer the circle
        // (a pixel's rounding is uniform over one step: 0.29 px RMS a coordinate).
        let smoothed = grid.smoothed(drawn)
        let (before, after) = (Self.rmsFromCircle(drawn, diameter: 16), Self.rmsFromCircle(smoothed, diameter: 16))
        #expect(
            before > 0.2 && after < before / 2, "RMS distance from the circle: \(before) px as drawn, \(after) after")
    }

    @Test func aZoomedOutGridIsFoundWhereverItsOrigin() throws {
        // A mouse on a canvas zoomed out four times, the view panned by a fraction of a unit.
        let grid = try #require(PenGrid.coarse(of: Self.circle(diameter: 60, step: 4, offset: 0.37)))
        #expect(abs(grid.step - 4) < 1e-9, "\(grid)")
    }

    /// The page's points: whole screen pixels, moved by the view and divided by its zoom,
    /// then rounded to hundredths (`canvas.js`, `worldPoint`): at any zoom, the grid of one
    /// screen pixel is found.
    @Test(arguments: [0.37, 0.8, 1.7, 3.3]) func thePagesGridIsFoundAtAnyZoom(zoom: Double) throws {
        let onScreen = Self.circle(diameter: 20)
        let world = onScreen.map { point in
            Point(x: ((point.x - 13.3) / zoom * 100).rounded() / 100, y: ((point.y - 7.9) / zoom * 100).rounded() / 100)
        }
        let grid = try #require(PenGrid.coarse(of: world))
        #expect(abs(grid.step - 1 / zoom) < 0.011, "zoom \(zoom): \(grid)")
        #expect(ShapeRecognizer.recognize(world).kind == .ellipse, "zoom \(zoom)")
    }

    @Test func strokesOnAFineGridOrNoneAreLeftAsDrawn() {
        // 40 steps across or more: whole pixels on a shape 40 px across and larger.
        #expect(PenGrid.coarse(of: Self.circle(diameter: 40)) == nil)
        #expect(PenGrid.coarse(of: Self.circle(diameter: 300)) == nil)
        // A finer device: no grid at all.
        #expect(PenGrid.coarse(of: Self.circle(diameter: 16, step: nil)) == nil)
        // Few points far apart, on whole pixels: the least difference (3) is no grid, since
        // the others are no multiples of it.
        let triangle = [(0, 0), (10, 3), (20, 0), (9, -14), (0, 0)].map { Point(x: Double($0.0), y: Double($0.1)) }
        #expect(PenGrid.coarse(of: triangle) == nil)
        // No extent, or too few points.
        #expect(PenGrid.coarse(of: Array(repeating: Point(x: 3, y: 4), count: 5)) == nil)
        #expect(PenGrid.coarse(of: [Point(x: 0, y: 0), Point(x: 9, y: 9)]) == nil)
    }

    @Test func smoothingKeepsTheEndsThePointsAndStraightLines() throws {
        // A line 21 px long at 26.6° on whole pixels, every point of it a pixel's staircase.
        let drawn = (0...60).map { k in
            Point(x: (Double(k) / 3).rounded(), y: (Double(k) / 6).rounded())
        }
        let grid = try #require(PenGrid.coarse(of: drawn))
        let smoothed = grid.smoothed(drawn)
        #expect(smoothed.count == drawn.count)
        #expect(smoothed.first == drawn.first && smoothed.last == drawn.last)
        // Distances from the line y = x / 2.
        func farthest(_ points: [Point]) -> Double {
            points.map { abs($0.y - $0.x / 2) / (1.25).squareRoot() }.max()!
        }
        #expect(
            farthest(drawn) > 0.4 && farthest(smoothed) < farthest(drawn) / 2,
            "farthest from the line: \(farthest(drawn)) px as drawn, \(farthest(smoothed)) after")
        // Points exactly on a straight line stay on it.
        let straight = (0...30).map { Point(x: Double($0), y: 2 * Double($0)) }
        let kept = PenGrid(step: 1, extent: 60).smoothed(straight)
        #expect(kept.allSatisfy { abs($0.y - 2 * $0.x) < 1e-9 })
    }

    /// Shapes drawn 12-24 px across on whole pixels (a mouse on a small shape), at any
    /// rotation, with a little jitter: each recognised as itself. As drawn, before the grid
    /// was averaged out, circles that small were refused for the staircase's corners and
    /// arrows for barbs read from its steps.
    @Test(arguments: Array(UInt64(1)...24)) func smallShapesOnWholePixels(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.03)
        let size = pen.random(in: 12...24)
        let rotation = pen.random(in: 0...(2 * .pi))
        let origin = Point(x: pen.random(in: 100...110), y: pen.random(in: 100...110))
        func onPixels(_ points: [Point]) -> [Point] { points.map { Point(x: $0.x.rounded(), y: $0.y.rounded()) } }
        func drawn(_ waypoints: [Point]) -> [Point] {
            onPixels(pen.stroke(through: placed(waypoints, size: size, rotation: rotation, origin: origin)))
        }
        let circle = onPixels(
            pen.arc(
                center: origin, radii: (size / 2, size / 2 * pen.random(in: 0.7...1)), rotation: rotation,
                start: pen.random(in: 0...(2 * .pi)), sweep: 2 * .pi * pen.random(in: 0.95...1.03)))
        let corners = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 0.7), Point(x: 0, y: 0.7)]
        let rectangle = drawn(corners + [corners[0]])
        let triangle = drawn([Point(x: 0, y: 1), Point(x: 0.5, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)])
        let arrow = drawn([
            Point(x: 0, y: 0.5), Point(x: 1, y: 0.5), Point(x: 0.7, y: 0.3), Point(x: 1, y: 0.5),
            Point(x: 0.7, y: 0.7),
        ])
        let expected: [(ShapeKind, [Point])] = [
            (.ellipse, circle), (.rectangle, rectangle), (.triangle, triangle), (.arrow, arrow),
        ]
        for (kind, stroke) in expected {
            #expect(PenGrid.coarse(of: stroke) != nil, "seed \(seed), \(kind): on a coarse grid")
            #expect(ShapeRecognizer.recognize(stroke).kind == kind, "seed \(seed), \(kind) \(size) px across")
        }
    }

    /// `explain` says when and how a stroke was smoothed, and only then.
    @Test func explainSaysTheStrokeWasSmoothed() {
        let small = ShapeRecognizer.explain(Self.circle(diameter: 16))
        #expect(
            small.smoothing?.hasPrefix("the points lie on a grid of 1, 0.062 of the stroke's width or height") == true,
            "\(small.smoothing ?? "nil")")
        #expect(small.shape.kind == .ellipse)
        #expect(ShapeRecognizer.explain(Self.circle(diameter: 200)).smoothing == nil)
    }
}
