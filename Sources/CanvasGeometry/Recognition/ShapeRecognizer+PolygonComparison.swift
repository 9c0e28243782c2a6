import CanvasCore
import Foundation

extension ShapeRecognizer {
    /// The numbers of sides of the polygons an ellipse is compared with (`straightSides`):
    /// those whose corners turn too gently for the corner test (a hexagon's 60°, an
    /// octagon's 45°), and the pentagon, whose rounded corners may too.
    static let polygonSides = 5...8
    /// How much straighter than arcs a polygon's sides must be for the stroke to be that
    /// polygon rather than an ellipse: the RMS distance from the stroke to the best
    /// polygon's sides, over that from a circle's arcs to the best polygon's sides
    /// (`arcResidual`), both with the ellipse made a circle.
    static let straightSideRatio = 0.45
    /// The fewest pen points a polygon's side holds, away from its ends, to count as drawn
    /// (`straightSides`).
    static let drawnSidePoints = 2

    /// The root-mean-square distance from the unit circle to the best lines through `sides`
    /// equal arcs of it: each arc of 2α (α = π / sides) strays from its line as cos φ
    /// strays from its mean over |φ| ≤ α.
    static func arcResidual(sides: Int) -> Double {
        let half = Double.pi / Double(sides)
        let meanCosine = sin(half) / half
        return (0.5 + sin(2 * half) / (4 * half) - meanCosine * meanCosine).squareRoot()
    }

    /// What comparing an ellipse the stroke passes with polygons of `polygonSides` sides
    /// found (`straightSides`).
    struct PolygonComparison {
        /// One polygon compared.
        struct Polygon {
            var sides: Int
            /// How far the stroke strays from the polygon's sides, over how far arcs of the
            /// ellipse would (both RMS, the ellipse made a circle).
            var ratio: Double
            /// Whether the sides are straighter than `straightSideRatio` of arcs (decided on
            /// the squared residuals, as the partition that measures them gives up).
            var isStraighter: Bool
            /// Whether each side holds `drawnSidePoints` of the pen's points or more.
            var isDrawn: Bool
        }

        /// The stroke's RMS distance from the ellipse, over its semi-minor axis: the most
        /// the stroke's arcs can differ from the ellipse's (polygons closer to arcs than
        /// that allows are not compared).
        var straying: Double
        /// The polygons compared. Only those with straighter sides when recognising; when
        /// explaining, every one the straying allows.
        var polygons: [Polygon]

        /// The polygon the stroke is, rather than the ellipse: of those straighter than
        /// `straightSideRatio` with every side drawn, the straightest; nil when none is.
        var polygon: (sides: Int, ratio: Double)? {
            polygons.filter { $0.isStraighter && $0.isDrawn }.min { $0.ratio < $1.ratio }.map { ($0.sides, $0.ratio) }
        }

        /// Why the stroke is the ellipse rather than a polygon, in words (for `explain`); nil
        /// when it is a polygon.
        var note: String? {
            guard polygon == nil else { return nil }
            let compared = "compared with polygons of \(polygonSides.lowerBound)–\(polygonSides.upperBound) sides"
            guard let straightest = polygons.min(by: { $0.ratio < $1.ratio }) else {
                return "\(compared): none could have straighter sides, the stroke straying from the ellipse by "
                    + "only \(figure(straying)) of its semi-minor axis"
            }
            let found = "\(compared): the straightest, of \(straightest.sides) sides, strays from them "
                + "\(String(format: "%.2f", straightest.ratio))× as far as arcs of the ellipse would"
            guard straightest.isStraighter else {
                return found + ", not under \(String(format: "%.2f", straightSideRatio))×"
            }
            return found + ", but a side holds fewer than \(drawnSidePoints) of the pen's points: straight where "
                + "the pen recorded nothing"
        }
    }

    /// The stroke (equally spaced points, fitted by `ellipse`) compared with the polygons
    /// of `polygonSides` sides: whether it follows the sides of one straighter, beside arcs,
    /// than `straightSideRatio` (`PolygonComparison.polygon`: the stroke is that polygon, no
    /// ellipse). The stroke is first mapped so that the ellipse becomes the unit circle (an
    /// affine map keeps straight lines straight), so a stretched circle is judged as the
    /// circle it is. With `measuringEvery` (for `explain`), the polygons that are not
    /// straighter are measured too; the verdict is the same.
    ///
    /// A side counts only when it was drawn: at least `drawnSidePoints` of the pen's points
    /// (`pen`) lie along it, away from its ends. Between two pen points far apart (a fast
    /// loop sampled a dozen times), the stroke is straight because the pen recorded nothing
    /// there, not because the hand drew a side.
    static func straightSides(
        of stroke: [Point], within ellipse: FittedEllipse, straying: Double, drawnBy pen: [Point],
        measuringEvery: Bool = false
    ) -> PolygonComparison {
        // A stroke whose points stray from the circle by e (RMS) and from N straight runs by
        // s lies on arcs that stray from those lines by at most e + s, and arcs of the unit
        // circle stray from N lines by `arcResidual(N)` at least: the runs can be straighter
        // than `straightSideRatio` of it only when e exceeds the rest. `straying`, the
        // stroke's RMS distance from the ellipse, is at most that over the semi-minor axis
        // on the circle. (Most circles stop here: drawn round, they stray too little.)
        var comparison = PolygonComparison(straying: straying / ellipse.semiMinor, polygons: [])
        let sides = polygonSides.filter {
            comparison.straying > (1 - straightSideRatio) * arcResidual(sides: $0)
        }
        guard !sides.isEmpty else { return comparison }
        let circle = stroke.map(ellipse.onUnitCircle)
        let partition = StraightRunPartition(closed: circle, fewestRuns: polygonSides.lowerBound)
        // When recognising, only the polygons straighter than `straightSideRatio` are sought:
        // the program gives up on the rest (every ellipse the stroke passes is tried).
        var runs: [[Range<Int>]] = []
        for sides in sides {
            let most = straightSideRatio * arcResidual(sides: sides)
            let bound = Double(circle.count) * most * most
            guard let (found, residual) = partition.runs(sides, under: measuringEvery ? .infinity : bound) else {
                continue
            }
            let ratio = (residual / Double(circle.count)).squareRoot() / arcResidual(sides: sides)
            comparison.polygons.append(.init(sides: sides, ratio: ratio, isStraighter: residual < bound, isDrawn: false))
            runs.append(found)
        }
        guard comparison.polygons.contains(where: \.isStraighter) else { return comparison }
        // Where the pen's points are: the number nearest each sample.
        var penPoints = [Int](repeating: 0, count: stroke.count)
        for point in pen {
            func squared(_ index: Int) -> Double { (stroke[index] - point).dot(stroke[index] - point) }
            let nearest = stroke.indices.min { squared($0) < squared($1) }!
            penPoints[nearest] += 1
        }
        func isDrawn(_ run: Range<Int>) -> Bool {
            guard run.count > 2 else { return false }
            let inside = (run.lowerBound + 1)..<(run.upperBound - 1)
            return inside.reduce(0) { $0 + penPoints[$1 % stroke.count] } >= drawnSidePoints
        }
        for index in comparison.polygons.indices {
            comparison.polygons[index].isDrawn = runs[index].allSatisfy(isDrawn)
        }
        return comparison
    }
}
