import CanvasCore

extension ShapeRecognizer {
    /// What a shape was fitted to and compared with (`explain` says it in words).
    enum FittedTo {
        /// The stroke, or with the hooks at its ends cut off (`StrokeResampling.trimmingHooks`).
        case stroke(hooksCut: Bool)
        /// The curve the canvas draws through the pen's points, or with its hooks cut off.
        case curve(hooksCut: Bool)
        case dominantDirection, closedLoop, curvedClosedLoop, finelySampled
        /// An arrow's reading: what of the stroke it was read on, with its tip at the first
        /// sharp turn or the head's forwardmost point, and its head open (the barbs alone) or
        /// closed (and the stroke across their ends).
        case arrow(ArrowReading, forwardmostTip: Bool, closedHead: Bool)
        /// An arrow of two strokes (`TwoStrokeArrow`): the first the shaft and the second the
        /// head, or the other way round, its head open or closed (nil: not yet known).
        case twoStrokes(shaftFirst: Bool, splitHead: Bool, closedHead: Bool?)
        /// An arrow of three strokes: stroke `shaft` (0 the first drawn) the shaft, the other
        /// two joined into its head (`TwoStrokeArrow.joinedHead`), open or closed (nil: not yet known).
        case threeStrokes(shaft: Int, closedHead: Bool?)
        /// An arrow of three strokes: stroke `head` its head (2 the last drawn), open or
        /// closed (nil: not yet known), the other two joined into its shaft
        /// (`TwoStrokeArrow.joinedShaft`).
        case shaftInTwoPieces(head: Int, closedHead: Bool?)
        /// An arrow of four strokes: the arrow three strokes made, the fourth joined to its head
        /// (`toHead`) or to its shaft, its head open or closed (nil: not yet known).
        case fourStrokes(toHead: Bool, closedHead: Bool?)
        /// A double arrow (`DoubleArrowFit`), its heads at the stroke's start and end open or
        /// closed, compared with the whole stroke or with it sampled `ElbowArrowFit.fineness`
        /// times as finely (small heads are a sample or two of the whole).
        case doubleArrow(firstClosed: Bool, lastClosed: Bool, finelySampled: Bool)

        /// What of the stroke an arrow was read on.
        enum ArrowReading {
            /// The whole stroke.
            case whole
            /// The stroke without the hook at its head's end.
            case hookCut
            /// The stroke from its first sharp turn, the tail: what it drew before (the shaft
            /// drawn from the tip, or a hook) is compared with the shaft
            /// (`ArrowFit.readingsAfterLeadIn`).
            case afterLeadIn
            /// The whole stroke, compared again sampled `ElbowArrowFit.fineness` times as
            /// finely: a small head at a line's end may be a sample or two of the whole.
            case wholeFinelySampled

            /// In words, as `explain` gives it.
            var description: String {
                switch self {
                case .whole: "the whole stroke"
                case .hookCut: "the stroke, the hook at its head's end cut off"
                case .afterLeadIn: "the stroke from where it turns at the tail, the shaft drawn there and back"
                case .wholeFinelySampled: "the whole stroke, sampled \(ElbowArrowFit.fineness) times as finely"
                }
            }
        }

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
            case .arrow(let reading, let forwardmostTip, let closedHead):
                Self.arrowReading(reading, forwardmostTip: forwardmostTip)
                    + (closedHead ? ", a closed head" : ", an open head")
            case .twoStrokes(let shaftFirst, let splitHead, let closedHead):
                (shaftFirst ? "the first stroke as the shaft" : "the second stroke as the shaft")
                    + (splitHead ? " and a barb" : "")
                    + (shaftFirst ? ", the second as the " : ", the first as the ")
                    + (splitHead ? "other barb" : "head")
                    + (closedHead.map { $0 ? ", a closed head" : ", an open head" } ?? "")
            case .threeStrokes(let shaft, let closedHead):
                "the \(["first", "second", "third"][min(shaft, 2)]) stroke as the shaft, "
                    + "the other two joined as the head"
                    + (closedHead.map { $0 ? ", a closed head" : ", an open head" } ?? "")
            case .shaftInTwoPieces(let head, let closedHead):
                [
                    "the second and third strokes joined as the shaft, the first as the head",
                    "the first and third strokes joined as the shaft, the second as the head",
                    "the first two strokes joined as the shaft, the third as the head",
                ][min(max(head, 0), 2)]
                    + (closedHead.map { $0 ? ", a closed head" : ", an open head" } ?? "")
            case .fourStrokes(let toHead, let closedHead):
                "the arrow the first three strokes make, the fourth joined to its " + (toHead ? "head" : "shaft")
                    + (closedHead.map { $0 ? ", a closed head" : ", an open head" } ?? "")
            case .doubleArrow(let firstClosed, let lastClosed, let finelySampled):
                (finelySampled ? FittedTo.ArrowReading.wholeFinelySampled : .whole).description
                    + ", a head at each end: "
                    + (firstClosed ? "a closed head" : "an open head") + " at its start, "
                    + (lastClosed ? "a closed head" : "an open head") + " at its end"
            }
        }

        /// An arrow's reading in words: what it was read on and where its tip was sought.
        static func arrowReading(_ reading: ArrowReading, forwardmostTip: Bool) -> String {
            reading.description + (forwardmostTip ? ", the tip at the head's forwardmost point" : "")
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
            case .line, .parallelogram, .arrow, .elbowArrow, .doubleArrow, .none: return false
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
            case .arrow, .elbowArrow, .doubleArrow, .none: (rmsTolerance, distanceTolerance)
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
}
