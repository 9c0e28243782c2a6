public import CanvasCore
import Foundation

/// Recognises lines, rectangles, diamonds, parallelograms, ellipses, triangles, arrows and
/// elbow arrows in hand-drawn strokes.
///
/// Every shape is a hypothesis: the stroke is fitted as each kind in turn, and the fit is
/// compared with the stroke (`OutlineMatch`). A shape is reported only when the stroke
/// stays close to it and traces all of it; a line is preferred when it passes (the
/// simplest explanation) unless an arrow passes with it (a small head the line took for a
/// hook), otherwise the closest of the shapes that pass. All distances are fractions of
/// the stroke's size (the largest distance between two of its points), so a small gesture
/// and a whiteboard-sized shape are judged alike. A false recognition
/// destroys the user's drawing while a missed one costs a redraw, so the tolerances favour
/// leaving strokes alone. docs/recognition.md gives the method, the reasons for each
/// tolerance and the evaluation on human-drawn data.
public enum ShapeRecognizer {
    /// The recognised shape, or `.none` to leave the stroke as drawn.
    public static func recognize(_ points: [Point]) -> RecognizedShape {
        var unfitted: [(ShapeKind, String)] = []
        let all = candidates(StrokeSmoothing.smoothed(points), unfitted: &unfitted, decidingOnly: true)
        return choice(among: all).map { all[$0].shape } ?? .none
    }

    /// The index of the accepted candidate to report: a line when one passes (or the closest
    /// arrow, one-headed or double, that passes with it: a head drawn small at the end of a
    /// long shaft, which the line took for a hook), else the closest, except that a polygon
    /// is taken over an ellipse that passes too only when it follows the stroke more than
    /// twice as closely (`polygonCloseness`), and a
    /// parallelogram never over another closed shape but a rectangle it follows the stroke
    /// more than twice as closely as (`Candidate.givesWay(to:)`). (An index, not the
    /// candidate: two readings may give equal shapes, of which only one may pass, as an
    /// arrow's open and closed heads did until a closed head stayed closed.)
    static func choice(among candidates: [Candidate]) -> Int? {
        var accepted = candidates.indices.filter { candidates[$0].isAccepted }
        if accepted.contains(where: { candidates[$0].shape.kind == .parallelogram }) {
            let passing = accepted
            accepted.removeAll { index in passing.contains { candidates[index].givesWay(to: candidates[$0]) } }
        }
        func isCloser(_ a: Int, _ b: Int) -> Bool { candidates[a].match.rmsDistance < candidates[b].match.rmsDistance }
        if let line = accepted.first(where: { candidates[$0].shape.kind == .line }) {
            return accepted.filter { [.arrow, .doubleArrow].contains(candidates[$0].shape.kind) }.min(by: isCloser)
                ?? line
        }
        guard let closest = accepted.filter({ candidates[$0].isChoosable }).min(by: isCloser) else { return nil }
        if let ellipse = accepted.lazy.filter({ candidates[$0].shape.kind == .ellipse }).min(by: isCloser),
            !candidates[closest].isCloseEnough(toBeTakenOver: candidates[ellipse])
        {
            return candidates[ellipse].isChoosable ? ellipse : nil
        }
        return closest
    }

    /// Points the stroke is resampled to before fitting: 16 per side of a rectangle, few
    /// enough that recognition costs about a millisecond.
    static let sampleCount = 64

    /// A line is held to closer tolerances than other shapes, being the easiest to draw
    /// and the one that curves, brackets and ticks most resemble: the root-mean-square
    /// distance from the stroke at most this fraction of its length ...
    static let lineRMSTolerance = 0.025
    /// ... and no point farther than this fraction (30 px for a 500 px line; the original
    /// app allowed 20 px whatever the length).
    static let lineDistanceTolerance = 0.06
    /// An arrow: the root-mean-square distance from the stroke may be at most this fraction
    /// of the stroke's size (also how far outside a closed loop the lead-in or run-out cut
    /// off from it may lie). Letters and scribbles stray much farther from any shape.
    static let rmsTolerance = 0.05
    /// A closed shape (ellipse, rectangle, diamond, parallelogram, triangle): the RMS distance
    /// from the stroke may be at most this fraction of its size. Closed outlines are harder
    /// to draw than an arrow's straight strokes: sides wobble, corners get rounded. The
    /// largest value on a 0.005 grid that takes no further development stroke for a shape
    /// it is not (0.05, `rmsTolerance`, before; docs/recognition.md).
    static let closedShapeRMSTolerance = 0.055
    /// Other shapes: no point of the stroke may be farther than this fraction of its size
    /// from the shape (nor an arrow's shaft from straight). A fast hand overshoots a corner
    /// or swings wide on one side; the largest value on a 0.025 grid that takes no further
    /// development stroke for a shape it is not (0.2 before; docs/recognition.md).
    static let distanceTolerance = 0.225
    /// The stroke must trace at least this fraction of the shape's outline (the rest is
    /// the gap people leave when closing a shape) ...
    static let minimumDrawnFraction = 0.8
    /// ... and at least this fraction of each straight side: a caret is not a triangle
    /// with its base left out, nor an X an arrow with an undrawn edge.
    static let minimumDrawnSide = 0.5
    /// A hand-drawn rectangle's corners may be this far from right angles (radians); the
    /// rectangle that replaces it has right angles.
    static let skewTolerance = 40 * Double.pi / 180
    /// A quadrilateral whose four sides are all at least this fraction of the longest (the
    /// least ratio that two sides drawn to one length reach: the development subjects'
    /// rectangles' opposite sides, as for `oppositeSideRatio`) ...
    static let diamondSideRatio = 0.6
    /// ... and whose corners are on average further from square than the lower bound of
    /// this (radians) is a diamond, a rhombus that keeps its proportions (a flowchart's
    /// decision, a 2:1 diamond, is skewed 37°), refused beyond the upper bound. Below the
    /// lower bound it is a rectangle: people skew their squares, and a skewed square is a
    /// rhombus. The bound is the least multiple of 5° above every development subject's
    /// rectangle whose sides are within `diamondSideRatio` (32.4° at most, sheared by hand
    /// and by 20° more), so that none of them becomes a diamond. A quadrilateral with
    /// unequal sides, a corner further from square than `skewTolerance` and its corners on
    /// average within this range is a parallelogram (a flowchart's input or output), the
    /// closed shapes' last resort (`Candidate.givesWay(to:)`). The upper bound is the
    /// parallelogram trial's, at which no development stroke became a shape it is not
    /// (docs/recognition.md; 70° changes none either, but thins a diamond to 5.7:1).
    static let obliqueSkew = (35 * Double.pi / 180)...(60 * Double.pi / 180)
    /// ... and the shorter of two opposite sides at least this fraction of the longer: a
    /// sheared rectangle keeps opposite sides of one length, while a triangle whose rounded
    /// corner the four-run split made a short fourth side is a trapezoid (hand-drawn
    /// rectangles of the development subjects: 0.60 at the least, as drawn, lengthened or
    /// stretched).
    static let oppositeSideRatio = 0.5

    /// The tolerances above, as `PolygonFit` takes them.
    static let quadrilateralTolerances = PolygonFit.QuadrilateralTolerances(
        skew: skewTolerance, oppositeSideRatio: oppositeSideRatio, oblique: (obliqueSkew, diamondSideRatio))
    /// How much of a polygon's outline, both sides of a corner together and as a share of
    /// the stroke's length, the stroke may leave undrawn where it rounds the corner off
    /// between consecutive points (`OutlineMatch`'s rounded corners). Always for a triangle;
    /// for a rectangle only when the stroke follows its sides as closely as a line's
    /// (`lineRMSTolerance`) and more closely than its ellipse (`polygonCloseness`):
    /// a circle traces as little of its square as a rounded rectangle does, and only the
    /// straightness of the sides tells them apart.
    static let roundedCornerReach = 0.1
    /// A polygon is taken for a stroke that an ellipse also explains only when the stroke's
    /// RMS distance from it is less than this fraction of its distance from the ellipse:
    /// the ellipse is chosen when both pass, unless the polygon follows the stroke more than
    /// twice as closely, and a rectangle's corners may be drawn rounded only then. A
    /// polygon is matched with the sides the stroke drew (a quadrilateral's eight degrees of
    /// freedom, a triangle's six, against the ellipse's five), so a lumpy loop of a few
    /// straightish strokes follows some polygon about as closely as its ellipse; a real
    /// polygon's corners mostly keep an ellipse from passing at all. (Development subjects:
    /// rectangles rounded off over 1-3 % of the stroke 0.46 at most, circles that follow a
    /// rectangle as closely as a line 0.79 at least.)
    static let polygonCloseness = 0.5

    /// A turn sharper than this (radians) is a corner: an ellipse has none; an arrow's tip
    /// is the first; within `hookLength` of the stroke's length from either end it is a
    /// hook, cut off before fitting (pens hook as they land and lift, and closing a
    /// polygon overshoots its first corner).
    static let sharpTurn = 60 * Double.pi / 180
    static let hookLength = 0.1

    /// A recognised ellipse is a polygon whose chords stray from the curve by at most this
    /// many pixels (a quarter: invisible at any zoom a whiteboard is drawn at), with at
    /// least `ellipseMinimumSegments` sides however small it is ...
    static let ellipseFlatness = 0.25
    static let ellipseMinimumSegments = 32
    /// ... and at most this many however large: a quarter of a pixel holds up to a
    /// semi-major axis of about 850,000 px, and a larger ellipse (which only a program
    /// draws) strays by under 3 × 10⁻⁷ of it, with its points well within one message
    /// (`ProtocolLimits.maxPointsPerMessage`, 65,536). Unbounded, a stroke a billion
    /// pixels across made a polygon of 180,000 points, one of 10¹⁵ px a polygon of 10⁸
    /// (gigabytes), and one of 10⁴⁰ more sides than an Int counts (found by
    /// FuzzRecognizer).
    static let ellipseMaximumSegments = 4096

    /// `ellipse` as the polygon that replaces a stroke.
    static func outline(of ellipse: FittedEllipse) -> [Point] {
        ellipse.outline(tolerance: ellipseFlatness, segments: ellipseMinimumSegments...ellipseMaximumSegments)
    }

    /// Points a shape is compared with, with their size (diameter) and length.
    typealias Followed = (points: [Point], size: Double, length: Double)

    /// `points` with their size and length measured.
    static func followed(_ points: [Point]) -> Followed {
        (points, StrokeResampling.diameter(of: points), StrokeResampling.length(of: points))
    }

    /// A stroke resampled for fitting: `whole`, `sampleCount` points equally spaced along it,
    /// and `stroke`, the same without the hooks at its ends (`StrokeResampling.hookCuts`
    /// at `cuts`), resampled again; each with its size (diameter) and length.
    struct PreparedStroke {
        /// Why a stroke cannot be fitted.
        enum Failure: Error {
            case noLength, noExtent

            /// In words, as `explain` gives it.
            var description: String { self == .noLength ? "the stroke has no length" : "the stroke has no extent" }
        }

        var whole: [Point]
        /// The whole stroke's size and length, when measured as it was prepared.
        var wholeMeasures: (size: Double, length: Double)?
        var cuts: (first: Int, last: Int)
        var stroke: [Point]
        var size: Double
        var length: Double

        /// Whether hook trimming cut anything off.
        var isTrimmed: Bool { cuts.first > 0 || cuts.last < whole.count - 1 }

        /// The whole stroke's size (diameter): as measured when the stroke was prepared, or now.
        var wholeSize: Double { wholeMeasures?.size ?? StrokeResampling.diameter(of: whole) }

        /// The trimmed stroke and the whole one, each with its size and length.
        var trimmed: Followed { (stroke, size, length) }
        var untrimmed: Followed {
            (whole, wholeSize, wholeMeasures?.length ?? StrokeResampling.length(of: whole))
        }

        /// `points` prepared; a failure when they have no length, or the trimmed stroke no
        /// extent. `measuringWhole`: whether to measure the whole stroke now, for a search
        /// that uses it (the stroke's own preparation) rather than seldom (the preparation of
        /// the curve through its points, whose whole the ellipse follows only when the
        /// trimmed curve falls short on tracing: measured then, the diameter of 64 points
        /// costs about 1 µs).
        static func of(_ points: [Point], measuringWhole: Bool = true) -> Result<PreparedStroke, Failure> {
            let whole = StrokeResampling.resampled(points, count: sampleCount)
            guard !whole.isEmpty else { return .failure(.noLength) }
            let cuts = StrokeResampling.hookCuts(whole, within: hookLength, sharperThan: sharpTurn)
            let stroke = StrokeResampling.resampled(Array(whole[cuts.first...cuts.last]), count: sampleCount)
            let size = StrokeResampling.diameter(of: stroke)
            guard size > 0, size.isFinite else { return .failure(.noExtent) }
            let wholeMeasures =
                measuringWhole ? (StrokeResampling.diameter(of: whole), StrokeResampling.length(of: whole)) : nil
            return .success(
                PreparedStroke(
                    whole: whole, wholeMeasures: wholeMeasures, cuts: cuts, stroke: stroke, size: size,
                    length: StrokeResampling.length(of: stroke)))
        }
    }

    /// How much more sharply than a circle of the same length a stroke may turn before the
    /// turn is a corner: the stroke must not turn more than this beyond what its fitted
    /// ellipse turns at the same place. On a circle it is the `sharpTurn` of 60° over the
    /// circle's own turn (about 23° over the chords `turn` measures); the ends of a long
    /// thin ellipse turn far more sharply than 60° and are no corners.
    static let cornerExcess = sharpTurn - circleTurn
    /// How much a circle turns over the chords `StrokeResampling.turn` measures.
    static let circleTurn = 2 * Double.pi * Double(2 * StrokeResampling.turnReach) / Double(sampleCount - 1)

    /// The first sample where the stroke (equally spaced points) turns more sharply than
    /// `sharpTurn`, and by more than `cornerExcess` beyond what `ellipse` turns at the same
    /// place, with the two turns; nil when it has no corner. (Where the fit is flatter than
    /// a circle, the excess alone would find corners in lumpy circles that the fixed turn
    /// never did.)
    static func corner(of stroke: [Point], beyond ellipse: FittedEllipse) -> (index: Int, turn: Double, expected: Double)? {
        let reach = StrokeResampling.turnReach
        guard stroke.count > 2 * reach else { return nil }
        let filter = StrokeResampling.SharpTurnFilter(angle: sharpTurn)
        for index in reach..<(stroke.count - reach) where filter.mayTurn(stroke, at: index) {
            let turn = StrokeResampling.turn(of: stroke, at: index)
            guard turn > sharpTurn else { continue }
            // The ellipse's own turn there, from the projections of the same three samples
            // (computed only at the few sharp turns: most strokes have none).
            let expected = StrokeResampling.turn(
                from: ellipse.projection(of: stroke[index - reach]), at: ellipse.projection(of: stroke[index]),
                to: ellipse.projection(of: stroke[index + reach]))
            if turn - expected > cornerExcess * max(1, expected / circleTurn) { return (index, turn, expected) }
        }
        return nil
    }

    /// The least share of `ellipse` that a stroke (`points`, fitted by it) must trace.
    /// People leave up to a fifth of a circle open (`minimumDrawnFraction`), and an ellipse
    /// is a stretched circle: the same opening, a fifth of a turn of eccentric angle, takes
    /// more of the perimeter on a flat side than round an end. This is the share such an
    /// opening leaves when centred where the stroke's own opening is (between its ends),
    /// and never more than `minimumDrawnFraction`: an opening round an end is held to the
    /// circle's rule, since the fit of a lumpy stroke places its ends loosely.
    static func minimumDrawnShare(of ellipse: FittedEllipse, openBetween points: [Point]) -> Double {
        let (end, start) = (ellipse.eccentricAngle(of: points[points.count - 1]), ellipse.eccentricAngle(of: points[0]))
        // The middle of the shorter arc between the ends: an opening of more than half a
        // turn leaves less than half the perimeter traced, refused whatever this returns.
        let middle = atan2(sin(end) + sin(start), cos(end) + cos(start))
        let opening = (1 - minimumDrawnFraction) * 2 * Double.pi
        return min(minimumDrawnFraction, 1 - ellipse.perimeterShare(ofArcAround: middle, sweep: opening))
    }

    /// How far into the stroke, from either end, the closed shape may begin or end.
    static let closureReach = 0.3

    /// A lead-in or run-out that keeps a stroke's closed loop from being tried alone
    /// (`closedLoop`): a point of it lies outside the loop, this far from it (a fraction of
    /// the stroke's size).
    struct TailOutsideLoop: Error {
        /// Whether the point is before the loop (else after it).
        var isLeadIn: Bool
        var distance: Double

        /// In words (for `explain`).
        var description: String {
            "a point of its \(isLeadIn ? "lead-in" : "run-out"), which would be cut off, lies \(figure(distance)) "
                + "of the size outside the loop (at most \(rmsTolerance))"
        }
    }

    /// The closed loop of a stroke (equally spaced points) that begins with a lead-in or
    /// ends with a run-out: the stretch between the two points, one within `closureReach`
    /// of the length from the start and the other from the end, that come closest, resampled;
    /// nil when these are the stroke's ends; a failure when a point cut off lies outside the
    /// loop (closed by the chord between them) and farther from it than `rmsTolerance` (the
    /// first such point).
    static func closedLoop(of stroke: [Point], size: Double) -> Result<[Point], TailOutsideLoop>? {
        let n = stroke.count
        let reach = Int(closureReach * Double(n - 1))
        guard reach >= 1, n > 2 * reach + 2 else { return nil }
        // The first of the closest pairs (compared as `Point.distance(to:)` would).
        let squaredDistance = OutlineMatch.Nearest.squaredDistance(from:to:)
        var best = (first: 0, last: n - 1, squared: squaredDistance(stroke[0], stroke[n - 1]))
        for i in 0...reach {
            for j in (n - 1 - reach)...(n - 1) {
                let squared = squaredDistance(stroke[i], stroke[j])
                if OutlineMatch.Nearest.isNearer(squared, than: best.squared) { best = (i, j, squared) }
            }
        }
        guard best.first > 0 || best.last < n - 1 else { return nil }
        let loop = Array(stroke[best.first...best.last])
        let closed = loop + [loop[0]]
        for (index, point) in zip(stroke.indices, stroke) where index < best.first || index > best.last {
            guard !Self.contains(closed, point) else { continue }
            let distance = OutlineMatch.foot(of: point, on: closed).distance
            guard distance <= rmsTolerance * size else {
                return .failure(TailOutsideLoop(isLeadIn: index < best.first, distance: distance / size))
            }
        }
        return .success(StrokeResampling.resampled(loop, count: sampleCount))
    }

    /// Whether the closed polygon `polygon` (first point repeated last) contains `point`
    /// (even-odd rule).
    static func contains(_ polygon: [Point], _ point: Point) -> Bool {
        var inside = false
        for (a, b) in zip(polygon, polygon.dropFirst()) where (a.y > point.y) != (b.y > point.y) {
            if point.x < a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
        }
        return inside
    }
}
