public import CanvasCore
import Foundation

/// Recognises lines, rectangles, diamonds, parallelograms, ellipses, triangles, arrows and
/// elbow arrows in hand-drawn strokes.
///
/// Every shape is a hypothesis: the stroke is fitted as each kind in turn, and the fit is
/// compared with the stroke (`OutlineMatch`). A shape is reported only when the stroke
/// stays close to it and traces all of it; a line is preferred when it passes (the
/// simplest explanation), otherwise the closest of the shapes that pass. All distances are
/// fractions of the stroke's size (the largest distance between two of its points), so a
/// small gesture and a whiteboard-sized shape are judged alike. A false recognition
/// destroys the user's drawing while a missed one costs a redraw, so the tolerances favour
/// leaving strokes alone. docs/recognition.md gives the method, the reasons for each
/// tolerance and the evaluation on human-drawn data.
public enum ShapeRecognizer {
    /// The recognised shape, or `.none` to leave the stroke as drawn.
    public static func recognize(_ points: [Point]) -> RecognizedShape {
        var unfitted: [(ShapeKind, String)] = []
        let all = candidates(points, unfitted: &unfitted, decidingOnly: true)
        return choice(among: all).map { all[$0].shape } ?? .none
    }

    /// The index of the accepted candidate to report: a line when one passes, else the
    /// closest, except that a polygon is taken over an ellipse that passes too only when it
    /// follows the stroke more than twice as closely (`polygonCloseness`), and a
    /// parallelogram never over another closed shape but a rectangle it follows the stroke
    /// more than twice as closely as (`Candidate.givesWay(to:)`). (An index, not the
    /// candidate: two readings may give one shape, an arrow's open and closed heads, of
    /// which only one may pass.)
    static func choice(among candidates: [Candidate]) -> Int? {
        var accepted = candidates.indices.filter { candidates[$0].isAccepted }
        if accepted.contains(where: { candidates[$0].shape.kind == .parallelogram }) {
            let passing = accepted
            accepted.removeAll { index in passing.contains { candidates[index].givesWay(to: candidates[$0]) } }
        }
        if let line = accepted.first(where: { candidates[$0].shape.kind == .line }) { return line }
        func isCloser(_ a: Int, _ b: Int) -> Bool { candidates[a].match.rmsDistance < candidates[b].match.rmsDistance }
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

    /// What a shape was fitted to and compared with (`explain` says it in words).
    enum FittedTo {
        /// The stroke, or with the hooks at its ends cut off (`StrokeResampling.trimmingHooks`).
        case stroke(hooksCut: Bool)
        /// The curve the canvas draws through the pen's points, or with its hooks cut off.
        case curve(hooksCut: Bool)
        case dominantDirection, closedLoop, curvedClosedLoop, finelySampled
        /// An arrow's reading: of the whole stroke or without the hook at its head's end,
        /// with its tip at the first sharp turn or the head's forwardmost point, and its head
        /// open (the barbs alone) or closed (and the stroke across their ends).
        case arrow(hookCut: Bool, forwardmostTip: Bool, closedHead: Bool)

        /// In words, as `explain` gives it.
        var description: String {
            switch self {
            case .stroke(let hooksCut): hooksCut ? "the stroke, its hooks cut off" : "the whole stroke"
            case .curve(let hooksCut):
                "the curve through the pen's points" + (hooksCut ? ", its hooks cut off" : "")
            case .dominantDirection: "the whole stroke's dominant direction"
            case .closedLoop: "the stroke's closed loop (its lead-in or run-out cut off)"
            case .curvedClosedLoop:
                "the closed loop of the curve through the pen's points (its lead-in or run-out cut off)"
            case .finelySampled: "the whole stroke, sampled \(ElbowArrowFit.fineness) times as finely"
            case .arrow(let hookCut, let forwardmostTip, let closedHead):
                Self.arrowReading(hookCut: hookCut, forwardmostTip: forwardmostTip)
                    + (closedHead ? ", a closed head" : ", an open head")
            }
        }

        /// An arrow's reading in words: what it was read on and where its tip was sought.
        static func arrowReading(hookCut: Bool, forwardmostTip: Bool) -> String {
            (hookCut ? "the stroke, the hook at its head's end cut off" : "the whole stroke")
                + (forwardmostTip ? ", the tip at the head's forwardmost point" : "")
        }
    }

    /// A shape hypothesis and how well the stroke matches it.
    struct Candidate {
        var shape: RecognizedShape
        var match: OutlineMatch
        /// The stroke's size: its largest extent.
        var size: Double
        /// What the shape was fitted to and compared with.
        var fittedTo: FittedTo
        /// The least share of the outline the stroke must trace: `minimumDrawnFraction`, or
        /// less for a long ellipse left open along a flat side (`minimumDrawnShare`).
        var minimumDrawn = minimumDrawnFraction
        /// For a rectangle the stroke follows as closely as a line but does not trace with
        /// sharp corners: whether its corners were taken as rounded, and the stroke's RMS
        /// distance from its ellipse (a fraction of the size) that decided it.
        var cornerRounding: (isRounded: Bool, ellipseDistance: Double)?

        /// For an ellipse the stroke passes: its comparison with polygons of more sides
        /// (`ShapeRecognizer.straightSides`), when made.
        var polygonComparison: PolygonComparison?
        /// For an ellipse the stroke passes: the polygon of `polygonSides` sides whose sides
        /// it follows straighter than arcs, when under `straightSideRatio`. Such an ellipse
        /// is never chosen (the stroke is that polygon, which is no shape here), but a
        /// triangle or quadrilateral is still taken over it only as over any passing ellipse.
        var straightSides: (sides: Int, ratio: Double)? { polygonComparison?.polygon }
        /// For an ellipse: the ellipse fitted and the points that follow it.
        var fittedEllipse: (ellipse: FittedEllipse, points: [Point])?

        var isAccepted: Bool { failedTest == nil }
        /// Whether it may be the shape recognised: it passes, and is no polygon taken for an
        /// ellipse.
        var isChoosable: Bool { isAccepted && straightSides == nil }

        /// The stroke's RMS distance from the shape, a fraction of its size.
        var relativeRMS: Double { match.rmsDistance / size }

        /// Whether this shape may be chosen over `ellipse`, an ellipse the stroke also passes
        /// that this follows more closely: always unless this is a polygon; a polygon only
        /// when it follows the stroke more than twice as closely (`polygonCloseness`).
        func isCloseEnough(toBeTakenOver ellipse: Candidate) -> Bool {
            let isPolygon = shape.kind.isQuadrilateral || shape.kind == .triangle
            guard ellipse.shape.kind == .ellipse, isPolygon else { return true }
            return match.rmsDistance < polygonCloseness * ellipse.match.rmsDistance
        }

        /// Whether this, a parallelogram, gives way to `other`, another shape the stroke
        /// passes: to an ellipse, a diamond or a triangle always (a parallelogram is the
        /// closed shapes' last resort: small lumpy loops and note heads follow one closely),
        /// and to a rectangle unless the stroke follows this more than twice as closely
        /// (`polygonCloseness`: a long rectangle leaning past the skew tolerance is also
        /// followed by the right-angled rectangle of its dominant direction).
        func givesWay(to other: Candidate) -> Bool {
            guard shape.kind == .parallelogram else { return false }
            switch other.shape.kind {
            case .ellipse, .diamond, .triangle: return true
            case .rectangle: return match.rmsDistance >= polygonCloseness * other.match.rmsDistance
            case .line, .parallelogram, .arrow, .elbowArrow, .none: return false
            }
        }

        /// Why the corners were or were not taken as rounded, in words (for `explain`).
        var cornerRoundingNote: String? {
            guard let cornerRounding else { return nil }
            let ellipseFigure =
                cornerRounding.ellipseDistance.isFinite
                ? "\(figure(cornerRounding.ellipseDistance)) from the ellipse" : "no ellipse fits"
            return (cornerRounding.isRounded ? "corners taken as rounded" : "corners not taken as rounded")
                + ": RMS distance \(figure(relativeRMS)) of the size from its sides, \(ellipseFigure); "
                + "rounded when the ellipse is over \(closenessFactor)× as far"
        }

        /// The tests a stroke must pass against a shape, in the order they are applied.
        enum Test {
            case rmsDistance, maximumDistance, drawnFraction, leastDrawnSide

            /// Whether the stroke failed by not tracing enough of a shape it follows closely.
            var isTracing: Bool { self == .drawnFraction || self == .leastDrawnSide }
        }

        /// The RMS and largest-distance tolerances for this shape (a line's are closer, a
        /// closed shape's RMS distance looser).
        var distanceLimits: (rms: Double, largest: Double) { Self.distanceLimits(of: shape.kind) }

        /// The RMS and largest-distance tolerances for a shape of `kind` (`none` is never
        /// matched; it has the arrow's).
        static func distanceLimits(of kind: ShapeKind) -> (rms: Double, largest: Double) {
            switch kind {
            case .line: (lineRMSTolerance, lineDistanceTolerance)
            case .ellipse, .rectangle, .diamond, .parallelogram, .triangle:
                (closedShapeRMSTolerance, distanceTolerance)
            case .arrow, .elbowArrow, .none: (rmsTolerance, distanceTolerance)
            }
        }

        /// The match of `stroke` (of size `size` and length `length`) with a shape of `kind`
        /// made of `sides`; with `decidingOnly`, given up as soon as the stroke strays beyond
        /// the tolerances, or farther on average than `closest` (the RMS distance of a shape
        /// already accepted), which refuses it all the same or keeps it from being chosen.
        /// With `roundingCorners`, the polygon's corners may be drawn rounded
        /// (`roundedCornerReach`).
        static func match(
            _ stroke: [Point], size: Double, length: Double, with kind: ShapeKind, sides: OutlineMatch.Sides,
            decidingOnly: Bool, closest: Double = .infinity, roundingCorners: Bool
        ) -> OutlineMatch {
            let (rmsLimit, distanceLimit) = distanceLimits(of: kind)
            return OutlineMatch(
                stroke: stroke, length: length, sides: sides,
                roundedCornerReach: roundingCorners ? roundedCornerReach * length : nil,
                givingUpBeyond: decidingOnly
                    ? (rms: min(rmsLimit * size, closest), largest: distanceLimit * size) : nil)
        }

        /// The first test the stroke fails against this shape; nil when it passes them all.
        /// A match given up (`recognize`'s, beyond a limit) fails whatever its distances so
        /// far: at the smallest scales the sum of squares that gave it up and the RMS
        /// distance computed from it can round to opposite sides of the limit (found by
        /// FuzzRecognizer: a stroke 10⁻¹⁵⁹ across was a line for `recognize` alone).
        var failedTest: Test? {
            let (rmsLimit, distanceLimit) = distanceLimits
            if match.isGivenUp {
                return match.maximumDistance > distanceLimit * size ? .maximumDistance : .rmsDistance
            }
            if match.rmsDistance > rmsLimit * size { return .rmsDistance }
            if match.maximumDistance > distanceLimit * size { return .maximumDistance }
            guard shape.kind != .line else { return nil }
            if match.drawnFraction < minimumDrawn { return .drawnFraction }
            if match.leastDrawnSide < minimumDrawnSide { return .leastDrawnSide }
            return nil
        }

        /// The failed test in words, with its figures (for `explain`); nil when it passes.
        var refusal: String? {
            let (rmsLimit, distanceLimit) = distanceLimits
            return switch failedTest {
            case nil: nil
            case .rmsDistance?: "RMS distance \(figure(relativeRMS)) of the size > \(rmsLimit)"
            case .maximumDistance?:
                "largest distance \(figure(match.maximumDistance / size)) of the size > \(distanceLimit)"
            case .drawnFraction?: "traces \(figure(match.drawnFraction)) of the outline < \(figure(minimumDrawn))"
            case .leastDrawnSide?: "traces \(figure(match.leastDrawnSide)) of a side < \(minimumDrawnSide)"
            }
        }
    }

    /// Every shape the stroke could be, each with its match; the shapes that could not
    /// even be fitted go to `unfitted`, with the reason. With `decidingOnly` (for
    /// `recognize`), only what decides the choice: the line alone when it is accepted (it
    /// is chosen whatever else passes), and each match no further than it takes to refuse
    /// it (its scores are then partial).
    static func candidates(
        _ points: [Point], unfitted: inout [(ShapeKind, String)], decidingOnly: Bool = false
    ) -> [Candidate] {
        /// Notes why a shape could not be fitted (for `explain`: not when only deciding).
        func note(_ kind: ShapeKind, _ reason: @autoclosure () -> String) {
            if !decidingOnly { unfitted.append((kind, reason())) }
        }
        let prepared: PreparedStroke
        switch PreparedStroke.of(points) {
        case .success(let stroke): prepared = stroke
        case .failure(let failure):
            note(.line, failure == .noLength ? "the stroke has no length" : "the stroke has no extent")
            return []
        }
        // Hooks are trimmed for every shape but the arrow, whose last barb is a sharp turn
        // near the end.
        let (whole, wholeSize) = (prepared.whole, prepared.wholeSize)
        let (cuts, isTrimmed) = (prepared.cuts, prepared.isTrimmed)
        let (stroke, size) = (prepared.stroke, prepared.size)

        /// `sides`: the pieces the points should follow, by default the replacement's
        /// edges; `following`: the points compared with them, their size and length, by
        /// default the trimmed stroke; `closest`: see `Candidate.match`; `fittedTo`: what
        /// those points are, by default the stroke (its hooks cut off when they were, unless
        /// other points are given).
        func candidate(
            _ kind: ShapeKind, _ replacement: [Point], sides: OutlineMatch.Sides? = nil,
            following followed: Followed? = nil, closest: Double = .infinity, fittedTo: FittedTo? = nil
        ) -> Candidate {
            let (points, pointsSize, pointsLength) = followed ?? prepared.trimmed
            let sides = sides ?? .edges(of: replacement)
            func match(roundingCorners: Bool) -> OutlineMatch {
                Candidate.match(
                    points, size: pointsSize, length: pointsLength, with: kind, sides: sides,
                    decidingOnly: decidingOnly, closest: closest, roundingCorners: roundingCorners)
            }
            var candidate = Candidate(
                shape: RecognizedShape(kind: kind, points: replacement),
                match: match(roundingCorners: kind == .triangle), size: pointsSize,
                fittedTo: fittedTo ?? .stroke(hooksCut: followed == nil && isTrimmed))
            // A rectangle whose sides the stroke follows as closely as a line's, and more
            // closely than the ellipse fitted to it, but which it does not trace: its corners
            // may be rounded. (The sides of a lumpy circle, which traces a square's sides no
            // further than a rounded one, bulge away from them.)
            if kind.isQuadrilateral, candidate.failedTest?.isTracing == true,
                candidate.match.rmsDistance <= min(lineRMSTolerance * pointsSize, closest)
            {
                let ellipseDistance = distanceFromEllipse()
                let isRounded = candidate.match.rmsDistance / pointsSize < polygonCloseness * ellipseDistance
                if isRounded { candidate.match = match(roundingCorners: true) }
                candidate.cornerRounding = (isRounded, ellipseDistance)
            }
            return candidate
        }
        /// A quadrilateral's candidate: a rectangle matched with the sides as drawn (sheared
        /// within the skew tolerance), a diamond or a parallelogram with the shape that
        /// replaces it; and, after a diamond the stroke does not pass, the parallelogram of
        /// its sides as drawn when it would be one.
        func quadrilateral(
            _ fit: PolygonFit.Quadrilateral, following followed: Followed? = nil, fittedTo: FittedTo? = nil
        ) -> (candidate: Candidate, fallback: Candidate?) {
            let sides = fit.kind == .rectangle ? fit.drawn : fit.replacement
            let main = candidate(
                fit.kind, fit.replacement, sides: .edges(of: sides), following: followed, fittedTo: fittedTo)
            guard !main.isAccepted, let parallelogram = fit.parallelogram else { return (main, nil) }
            let fallback = candidate(
                .parallelogram, parallelogram, sides: .edges(of: parallelogram), following: followed,
                fittedTo: fittedTo)
            return (main, fallback)
        }
        /// How closely the stroke follows the ellipse fitted to it, passing or not: the RMS
        /// distance, a fraction of its size (infinity when no ellipse fits it), computed when
        /// first asked for. The ellipse candidate's (`fittedEllipse`) when there is one,
        /// matched again in full when `recognize` gave its match up (stopped at a point beyond
        /// the largest distance, the RMS distance so far can be anything, and `explain`,
        /// which never gives up, would decide otherwise: found by FuzzRecognizer); else the
        /// ellipse refused for a corner (`corneredEllipse`, the first fitted).
        var ellipseDistance: Double?
        var fittedEllipse: (candidate: Candidate, followed: Followed)?
        var corneredEllipse: (ellipse: FittedEllipse, followed: Followed)?
        func distanceFromEllipse() -> Double {
            if let ellipseDistance { return ellipseDistance }
            func distance(from outline: [Point], of followed: Followed) -> Double {
                OutlineMatch(stroke: followed.points, length: followed.length, sides: .each([outline]))
                    .rmsDistance / followed.size
            }
            let found =
                if let (candidate, followed) = fittedEllipse {
                    candidate.match.isGivenUp
                        ? distance(from: candidate.shape.points, of: followed) : candidate.relativeRMS
                } else if let (ellipse, followed) = corneredEllipse {
                    distance(from: Self.outline(of: ellipse), of: followed)
                } else {
                    Double.infinity
                }
            ellipseDistance = found
            return found
        }
        var result = [candidate(.line, FittedLine.segment(through: stroke))]
        /// Appends a quadrilateral's candidates to `result`.
        func append(_ quadrilateral: (candidate: Candidate, fallback: Candidate?)?) {
            guard let quadrilateral else { return }
            result.append(quadrilateral.candidate)
            if let fallback = quadrilateral.fallback { result.append(fallback) }
        }
        result.reserveCapacity(8)
        if decidingOnly && result[0].isAccepted { return result }
        // The ellipse is fitted first, though listed after the polygons: in `recognize`, a
        // triangle or a rectangle of the whole stroke that follows the stroke less closely
        // than a shape already accepted cannot be chosen, and its match stops as soon as
        // that is certain. (Not the split rectangle, whose acceptance decides whether the whole
        // stroke's is tried, nor the arrows, whose acceptance decides the other readings.)
        // An ellipse has no corners (which keeps most pentagons, close to their circles, from
        // being taken for them), and one wider than the stroke cannot be mostly traced by it.
        func ellipse(following followed: Followed, fittedTo: FittedTo) -> (candidate: Candidate?, refusal: String?) {
            guard let ellipse = FittedEllipse(fitting: followed.points) else {
                return (nil, "the best conic through the stroke is not an ellipse")
            }
            guard ellipse.semiMajor <= followed.size else {
                guard !decidingOnly else { return (nil, nil) }
                return (
                    nil,
                    "the fitted ellipse is wider than the stroke: its semi-major axis is "
                        + "\(figure(ellipse.semiMajor / followed.size)) of the stroke's size (at most 1)"
                )
            }
            if let corner = corner(of: followed.points, beyond: ellipse) {
                if corneredEllipse == nil { corneredEllipse = (ellipse, followed) }
                guard !decidingOnly else { return (nil, nil) }
                let at = Int((100 * Double(corner.index) / Double(followed.points.count - 1)).rounded())
                return (
                    nil,
                    "a corner \(at)% along the stroke: it turns \(degrees(corner.turn))° where the ellipse turns "
                        + "\(degrees(corner.expected))° (more than \(degrees(cornerExcess))° beyond)"
                )
            }
            let outline = Self.outline(of: ellipse)
            var candidate = candidate(
                .ellipse, outline, sides: .each([outline]), following: followed, fittedTo: fittedTo)
            if candidate.failedTest == .drawnFraction {
                candidate.minimumDrawn = minimumDrawnShare(of: ellipse, openBetween: followed.points)
            }
            candidate.fittedEllipse = (ellipse, followed.points)
            return (candidate, nil)
        }
        // The ellipse follows the stroke as the canvas draws it: through a dozen or so pen
        // points, a smooth curve where straight chords would meet in corners
        // (`StrokeResampling.curve`). A densely sampled stroke is its own curve; the
        // polygons and the line keep the chords, which a polygon's corners are.
        let drawn = StrokeResampling.curve(
            through: points, spacing: StrokeResampling.length(of: points) / Double(sampleCount - 1))
        let isCurved = drawn.count != points.count
        let curved = isCurved ? (try? PreparedStroke.of(drawn).get()) ?? prepared : prepared
        /// The curve (or the stroke, when it is its own curve), its hooks cut off or not.
        func curve(hooksCut: Bool) -> FittedTo { isCurved ? .curve(hooksCut: hooksCut) : .stroke(hooksCut: hooksCut) }
        var (ellipseCandidate, ellipseRefusal) = ellipse(
            following: curved.trimmed, fittedTo: curve(hooksCut: curved.isTrimmed))
        var ellipseFollowed = curved.trimmed
        // Hook trimming may cut off part of the outline: round the end of a long ellipse the
        // stroke turns by more than a hook does. When the trimmed stroke follows its ellipse
        // but does not trace enough of it, the whole stroke may.
        if curved.isTrimmed, let failed = ellipseCandidate?.failedTest, failed.isTracing {
            let untrimmed = ellipse(following: curved.untrimmed, fittedTo: curve(hooksCut: false))
            if untrimmed.candidate?.isAccepted == true {
                (ellipseCandidate, ellipseRefusal) = untrimmed
                ellipseFollowed = curved.untrimmed
            }
        }
        fittedEllipse = ellipseCandidate.map { ($0, ellipseFollowed) }
        var closest = ellipseCandidate.flatMap { $0.isAccepted ? $0.match.rmsDistance : nil } ?? .infinity
        let polygons = PolygonFit(stroke)
        if let triangle = polygons.triangle() {
            let triangle = candidate(.triangle, triangle, closest: closest)
            if triangle.isAccepted { closest = min(closest, triangle.match.rmsDistance) }
            result.append(triangle)
        } else {
            note(.triangle, "no three straight runs meet in corners")
        }
        let fit = polygons.quadrilateral(quadrilateralTolerances)
        let splits = (try? fit.get()).map { quadrilateral($0) }
        let split = splits?.candidate
        // A parallelogram is the closed shapes' last resort: it neither stops the others'
        // matches early nor the rectangle of the dominant direction from being tried.
        let splitIsDecisive = split.map { $0.isAccepted && $0.shape.kind != .parallelogram } ?? false
        if let split, splitIsDecisive { closest = min(closest, split.match.rmsDistance) }
        // When that split fails or misses a side (on long rectangles, whose short sides are
        // cut off as hooks or folded into a long side's run), the right-angled rectangle of
        // the whole stroke's dominant direction, which the stroke must follow as closely as
        // any other shape.
        let oriented =
            splitIsDecisive
            ? nil
            : PolygonFit.orientedRectangle(whole).map {
                candidate(
                    .rectangle, $0, following: prepared.untrimmed, closest: closest, fittedTo: .dominantDirection)
            }
        // When the stroke follows that rectangle but does not trace one of its sides, and no
        // other closed shape passes: the split of the whole stroke, whose sides may lean. On
        // a long rectangle a short side is a tenth of the stroke or less, which hook trimming
        // cuts off when the stroke starts or ends along it.
        var untrimmedSplits: (candidate: Candidate, fallback: Candidate?)?
        if isTrimmed, closest == .infinity, let failed = oriented?.failedTest, failed.isTracing,
            case .success(let fit) = PolygonFit(whole).quadrilateral(quadrilateralTolerances)
        {
            untrimmedSplits = quadrilateral(fit, following: prepared.untrimmed)
        }
        append(splits)
        append(untrimmedSplits)
        if let oriented { result.append(oriented) }
        if case .failure(let refusal) = fit {
            note(
                .rectangle,
                Self.reason(refusal)
                    + (oriented == nil ? "" : " (the rectangle of the stroke's dominant direction was tried instead)"))
        }
        if let ellipseCandidate {
            result.append(ellipseCandidate)
        } else if let ellipseRefusal {
            note(.ellipse, ellipseRefusal)
        }
        /// The candidates of `arrows` read from `points` (of size `size`): the whole stroke or
        /// with the hook at the head's end cut off (`hookCut`), the tip at the first sharp turn
        /// or the head's forwardmost point.
        func arrowCandidates(
            _ arrows: [ArrowFit], of points: [Point], size: Double, hookCut: Bool = false, forwardmostTip: Bool = false
        ) -> [Candidate] {
            guard !arrows.isEmpty else { return [] }
            let length = StrokeResampling.length(of: points)
            // In `recognize`, a closed head the stroke certainly does not trace enough of is
            // refused without its match: on a stroke that is no arrow (an x, a delete mark), the
            // stroke across its barbs' ends keeps the head's points near it, so its match
            // passes the distances, and is refused only for what it traces, after every point.
            // (An open head's match is mostly given up early, on the distances: for it the
            // bound costs about what it saves.)
            return arrows.compactMap { arrow in
                guard !decidingOnly || !arrow.hasClosedHead
                    || arrow.mayBeTraced(
                        by: points, length: length, minimumDrawn: minimumDrawnFraction,
                        minimumDrawnSide: minimumDrawnSide)
                else { return nil }
                return candidate(
                    .arrow, arrow.symmetricPolyline, sides: .each(arrow.drawnSides), following: (points, size, length),
                    fittedTo: .arrow(hookCut: hookCut, forwardmostTip: forwardmostTip, closedHead: arrow.hasClosedHead))
            }
        }
        /// Why the readings of the stroke as an arrow gave none (for `explain`).
        var arrowRefusals = FurthestRefusals<ArrowFit.RefusedReading>()
        /// The arrows read from `points`, their refusals noted.
        func arrowFits(
            _ points: [Point], headLast: Bool = true, headFirst: Bool = true, hookCut: Bool = false,
            forwardmostTip: Bool = false
        ) -> [ArrowFit] {
            let found = ArrowFit.readings(
                points, hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: distanceTolerance * wholeSize,
                headLast: headLast, headFirst: headFirst, forwardmostTip: forwardmostTip)
            if !decidingOnly {
                let reading = FittedTo.arrowReading(hookCut: hookCut, forwardmostTip: forwardmostTip)
                for (isLast, refusal) in [(true, found.headLast), (false, found.headFirst)] {
                    if let refusal { arrowRefusals.keep(.init(reading: reading, refusal: refusal), headLast: isLast) }
                }
            }
            return found.fits
        }
        var arrows = arrowCandidates(arrowFits(whole), of: whole, size: wholeSize)
        // When no reading of the whole stroke passes, more: the tip at the head's
        // forwardmost point (a "<" drawn after the shaft, which the shaft meets short of its
        // point), and the head's end without the hook the pen makes as it lifts after the
        // last barb, sharp or rounded (a "J": `StrokeResampling.roundedHookCuts`); the hook at
        // the tail's end is part of the shaft, compared with itself.
        if !arrows.contains(where: \.isAccepted) {
            // The whole stroke, and each end's trimmed stroke with both readings of the tip;
            // a trimmed stroke's size is measured once, and only for a reading that fits.
            var readings = [(points: whole, trimmed: -1, headLast: true, headFirst: true, forwardmostTip: true)]
            var trimmedSizes: [Double?] = []
            let rounded = StrokeResampling.roundedHookCuts(whole, within: hookLength, sharperThan: sharpTurn)
            var ends = [(true, whole[...cuts.last]), (false, whole[cuts.first...])]
            if rounded.last != cuts.last { ends.append((true, whole[...rounded.last])) }
            if rounded.first != cuts.first { ends.append((false, whole[rounded.first...])) }
            for (headLast, trimmed) in ends where trimmed.count < whole.count {
                let points = Array(trimmed)
                readings += [false, true].map { (points, trimmedSizes.count, headLast, !headLast, $0) }
                trimmedSizes.append(nil)
            }
            for reading in readings {
                let fits = arrowFits(
                    reading.points, headLast: reading.headLast, headFirst: reading.headFirst,
                    hookCut: reading.trimmed >= 0, forwardmostTip: reading.forwardmostTip)
                guard !fits.isEmpty else { continue }
                var size = wholeSize
                if reading.trimmed >= 0 {
                    size = trimmedSizes[reading.trimmed] ?? StrokeResampling.diameter(of: reading.points)
                    trimmedSizes[reading.trimmed] = size
                }
                arrows += arrowCandidates(
                    fits, of: reading.points, size: size, hookCut: reading.trimmed >= 0,
                    forwardmostTip: reading.forwardmostTip)
            }
        }
        if arrows.isEmpty {
            note(.arrow, "no arrow reading: " + arrowRefusals.description(size: wholeSize))
        }
        result += arrows
        // When no shape passes (but a parallelogram, the last resort), the closed shapes again
        // on the stroke's closed loop alone, without a lead-in inside it or a run-out past its
        // closure (`closedLoop`).
        if !result.contains(where: { $0.isAccepted && $0.shape.kind != .parallelogram }),
            let found = closedLoop(of: stroke, size: size)
        {
            switch found {
            case .failure(let outside):
                for kind in [ShapeKind.triangle, .rectangle, .ellipse] {
                    note(kind, "the stroke's closed loop alone was not tried: " + outside.description)
                }
            case .success(let loop):
                let followed = Self.followed(loop)
                let polygons = PolygonFit(loop)
                if let triangle = polygons.triangle() {
                    result.append(candidate(.triangle, triangle, following: followed, fittedTo: .closedLoop))
                }
                if case .success(let fit) = polygons.quadrilateral(quadrilateralTolerances) {
                    append(quadrilateral(fit, following: followed, fittedTo: .closedLoop))
                }
                // The ellipse again on the curve through the pen's points, when it differs.
                let curvedLoop = isCurved ? (try? closedLoop(of: curved.stroke, size: curved.size)?.get()) : loop
                if let curvedLoop,
                    let ellipse = ellipse(
                        following: Self.followed(curvedLoop), fittedTo: isCurved ? .curvedClosedLoop : .closedLoop
                    ).candidate
                {
                    result.append(ellipse)
                }
            }
        }
        // A polygon of more sides than a rectangle's, whose corners turn too gently to be
        // corners, has straight sides where an ellipse has arcs: such an ellipse is never
        // chosen, but still keeps the polygons the stroke follows less than twice as closely
        // from being chosen. (Not sought when a triangle or quadrilateral is taken over the
        // ellipse anyway.)
        for index in result.indices where result[index].isAccepted {
            guard let (ellipse, followed) = result[index].fittedEllipse else { continue }
            let isOutdone = result.contains { other in
                other.isAccepted && (other.shape.kind == .triangle || other.shape.kind.isQuadrilateral)
                    && other.shape.kind != .parallelogram
                    && other.match.rmsDistance < polygonCloseness * result[index].match.rmsDistance
            }
            if !isOutdone {
                result[index].polygonComparison = straightSides(
                    of: followed, within: ellipse, straying: result[index].match.rmsDistance, drawnBy: points,
                    measuringEvery: !decidingOnly)
            }
        }
        // Last, when nothing else passes: an elbow arrow, whose bends are sharp turns that the
        // straight arrow takes for its tip.
        if result.contains(where: \.isAccepted) {
            note(.elbowArrow, "another shape passes (an elbow arrow is tried only when none does)")
        } else {
            // Each fit is compared with the whole stroke. When none passes, those the stroke
            // follows but does not trace enough of are compared again with the stroke sampled
            // `ElbowArrowFit.fineness` times as finely (a connector's small head may be a
            // sample or two of the whole, too few to trace its barbs).
            var elbows: [Candidate] = []
            var fits: [(fit: ElbowArrowFit, polyline: [Point])] = []
            let readings = ElbowArrowFit.readings(
                whole, drawn: points, hookLength: hookLength, sharpTurn: sharpTurn,
                maximumBow: distanceTolerance * wholeSize, squareness: skewTolerance)
            for fit in readings.fits {
                guard let polyline = fit.squaredPolyline else { continue }
                fits.append((fit, polyline))
                elbows.append(
                    candidate(.elbowArrow, polyline, sides: .each(fit.drawnSides), following: prepared.untrimmed))
            }
            if !fits.isEmpty, !elbows.contains(where: \.isAccepted) {
                let finelySampled = StrokeResampling.resampled(
                    points, count: (sampleCount - 1) * ElbowArrowFit.fineness + 1)
                let followed = (finelySampled, wholeSize, StrokeResampling.length(of: finelySampled))
                for index in elbows.indices where elbows[index].failedTest?.isTracing == true {
                    let (fit, polyline) = fits[index]
                    elbows[index] = candidate(
                        .elbowArrow, polyline, sides: .each(fit.drawnSides), following: followed,
                        fittedTo: .finelySampled)
                }
            }
            if elbows.isEmpty {
                note(.elbowArrow, "no elbow arrow reading: " + readings.refusals.description(size: wholeSize))
            }
            result += elbows
        }
        return result
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
        enum Failure: Error { case noLength, noExtent }

        var whole: [Point]
        var wholeSize: Double
        var wholeLength: Double
        var cuts: (first: Int, last: Int)
        var stroke: [Point]
        var size: Double
        var length: Double

        /// Whether hook trimming cut anything off.
        var isTrimmed: Bool { cuts.first > 0 || cuts.last < whole.count - 1 }

        /// The trimmed stroke and the whole one, each with its size and length.
        var trimmed: Followed { (stroke, size, length) }
        var untrimmed: Followed { (whole, wholeSize, wholeLength) }

        /// `points` prepared; a failure when they have no length, or the trimmed stroke no
        /// extent.
        static func of(_ points: [Point]) -> Result<PreparedStroke, Failure> {
            let whole = StrokeResampling.resampled(points, count: sampleCount)
            guard !whole.isEmpty else { return .failure(.noLength) }
            let cuts = StrokeResampling.hookCuts(whole, within: hookLength, sharperThan: sharpTurn)
            let stroke = StrokeResampling.resampled(Array(whole[cuts.first...cuts.last]), count: sampleCount)
            let size = StrokeResampling.diameter(of: stroke)
            guard size > 0, size.isFinite else { return .failure(.noExtent) }
            return .success(
                PreparedStroke(
                    whole: whole, wholeSize: StrokeResampling.diameter(of: whole),
                    wholeLength: StrokeResampling.length(of: whole), cuts: cuts, stroke: stroke, size: size,
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
