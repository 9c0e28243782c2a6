import CanvasCore
import Foundation

extension ShapeRecognizer {
    /// Every shape the stroke could be, each with its match; the shapes that could not
    /// even be fitted go to `unfitted`, with the reason. With `decidingOnly` (for
    /// `recognize`), only what decides the choice: the line and the arrows alone when the
    /// line is accepted (it is chosen whatever else passes but an arrow), and each match no
    /// further than it takes to refuse it (its scores are then partial). The stroke is taken
    /// as `StrokeSmoothing` leaves it (a coarse grid or large noise averaged out).
    static func candidates(
        _ stroke: StrokeSmoothing.Smoothed, unfitted: inout [(ShapeKind, String)], decidingOnly: Bool = false
    ) -> [Candidate] {
        let points = stroke.points
        let prepared: PreparedStroke
        switch PreparedStroke.of(points) {
        case .success(let stroke): prepared = stroke
        case .failure(let failure):
            if !decidingOnly {
                unfitted.append((.line, failure.description))
            }
            return []
        }
        var search = CandidateSearch(points: points, prepared: prepared, decidingOnly: decidingOnly)
        let found = search.run()
        unfitted += search.unfitted
        return found
    }

    /// The line fitted to a stroke (`smoothed` as `StrokeSmoothing` leaves it, and
    /// `prepared` from it), and why it is refused (nil when it passes): the line's verdict
    /// alone, no other shape tried. A line that passes is chosen whatever else passes but an
    /// arrow whose head is at the line's end, so `recognize` makes such a stroke that line
    /// or that arrow. With `decidingOnly`, the match gives up as soon as the line cannot
    /// pass (as `recognize`'s does), and the refusal's figures are partial.
    static func line(
        in smoothed: [Point], prepared: PreparedStroke, decidingOnly: Bool
    ) -> (line: RecognizedShape, refusal: String?) {
        var search = CandidateSearch(points: smoothed, prepared: prepared, decidingOnly: decidingOnly)
        let line = search.line()
        return (line.shape, line.refusal)
    }

    /// The search for a stroke's candidates, shape by shape, in the order that lets each
    /// stage use what the ones before it found: the line; the closed shapes (the ellipse
    /// first, whose distance stops the polygons' matches early); the arrows; the closed
    /// shapes again on the stroke's closed loop alone, when none passed; the comparison of
    /// each ellipse that passes with polygons of more sides; last, when nothing passes, the
    /// elbow arrows. It keeps what the stages share: the candidates so far, why shapes
    /// could not be fitted (for `explain`) and the ellipses fitted.
    struct CandidateSearch {
        /// The stroke as drawn.
        let points: [Point]
        let prepared: PreparedStroke
        /// `recognize`'s search (see `candidates`), not `explain`'s.
        let decidingOnly: Bool
        /// The candidates found so far.
        private(set) var result: [Candidate] = []
        /// Why shapes could not be fitted, in the order found (only when not `decidingOnly`).
        private(set) var unfitted: [(ShapeKind, String)] = []

        /// How closely the stroke follows the ellipse fitted to it, once computed (see
        /// `distanceFromEllipse`).
        private var ellipseDistance: Double?
        /// The candidate of the ellipse fitted to the stroke, with the points it follows.
        private var fittedEllipse: (candidate: Candidate, followed: Followed)?
        /// The first ellipse refused for a corner, with the points it was fitted to.
        private var corneredEllipse: (ellipse: FittedEllipse, followed: Followed)?
        /// Why the readings of the stroke as an arrow gave none (for `explain`).
        private var arrowRefusals = FurthestRefusals<ArrowFit.RefusedReading>()
        /// When the line passes, the whole stroke's arrow readings that it follows but does
        /// not trace enough of (`appendArrows` compares them again, finely sampled).
        private var untracedArrows: [ArrowFit] = []

        init(points: [Point], prepared: PreparedStroke, decidingOnly: Bool) {
            self.points = points
            self.prepared = prepared
            self.decidingOnly = decidingOnly
        }

        /// The curve the canvas draws through the pen's points, prepared as the stroke is:
        /// what the ellipse follows (a densely sampled stroke is its own curve).
        struct Curve {
            var prepared: PreparedStroke
            /// Whether it differs from the stroke.
            var isCurved: Bool

            /// The curve (or the stroke, when it is its own curve), its hooks cut off or not.
            func fittedTo(hooksCut: Bool) -> FittedTo {
                isCurved ? .curve(hooksCut: hooksCut) : .stroke(hooksCut: hooksCut)
            }
        }

        /// Every candidate, stage by stage. A search runs once (`candidates` makes one for each
        /// stroke): what it keeps belongs to its stroke.
        mutating func run() -> [Candidate] {
            result = [line()]
            result.reserveCapacity(8)
            linePasses = result[0].isAccepted
            if decidingOnly && linePasses {
                appendArrows()
                return result
            }
            let curve = appendClosedShapes()
            appendArrows()
            appendClosedLoopShapes(curve: curve)
            compareEllipsesWithPolygons()
            appendElbowArrows()
            return result
        }

        /// The line's candidate, the first stage (a line that passes is chosen whatever else
        /// does but an arrow).
        mutating func line() -> Candidate {
            candidate(.line, FittedLine.segment(through: prepared.stroke))
        }

        /// Whether the line passes (`run` finds it first). Its hooks may then hide a head
        /// drawn small at the end of a long shaft, which the arrow readings look for with
        /// barbs as short as an elbow arrow's (`minimumBarb`). Kept, not read off `result`:
        /// copying the line's candidate out of it cost two allocations a stroke.
        private var linePasses = false

        /// The shortest barb the arrow readings take, as a fraction of the shaft: a straight
        /// arrow's (`ArrowFit.minimumBarbRatio`, which keeps out the hooks a pen makes at a
        /// line's end and a curly brace's curls); when the stroke is a line that passes, an
        /// elbow arrow's (`ElbowArrowFit.minimumBarbRatio`): a shaft as straight as a line
        /// leaves a brace out, and a head on both sides of it, its barbs of about one length,
        /// is no hook.
        private var minimumBarb: Double {
            linePasses ? ElbowArrowFit.minimumBarbRatio : ArrowFit.minimumBarbRatio
        }

        /// Notes why a shape could not be fitted (for `explain`: not when only deciding).
        private mutating func note(_ kind: ShapeKind, _ reason: @autoclosure () -> String) {
            if !decidingOnly { unfitted.append((kind, reason())) }
        }

        /// The candidate of a shape of `kind`, replaced by `replacement`, matched with points
        /// of the stroke (given up early when only deciding; its corners taken as rounded when
        /// a rectangle's may be).
        ///
        /// `sides`: the pieces the points should follow, by default the replacement's
        /// edges; `following`: the points compared with them, their size and length, by
        /// default the trimmed stroke; `closest`: see `Candidate.match`; `fittedTo`: what
        /// those points are, by default the stroke (its hooks cut off when they were, unless
        /// other points are given).
        private mutating func candidate(
            _ kind: ShapeKind, _ replacement: [Point], sides: OutlineMatch.Sides? = nil,
            following followed: Followed? = nil, closest: Double = .infinity, fittedTo: FittedTo? = nil
        ) -> Candidate {
            let (points, pointsSize, pointsLength) = followed ?? prepared.trimmed
            let sides = sides ?? .edges(of: replacement)
            let decidingOnly = decidingOnly
            func match(roundingCorners: Bool) -> OutlineMatch {
                Candidate.match(
                    points, size: pointsSize, length: pointsLength, with: kind, sides: sides,
                    decidingOnly: decidingOnly, closest: closest, roundingCorners: roundingCorners)
            }
            var candidate = Candidate(
                shape: RecognizedShape(kind: kind, points: replacement),
                match: match(roundingCorners: kind == .triangle), size: pointsSize,
                fittedTo: fittedTo ?? .stroke(hooksCut: followed == nil && prepared.isTrimmed))
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
        private mutating func quadrilateral(
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

        /// Appends a quadrilateral's candidates.
        private mutating func append(_ quadrilateral: (candidate: Candidate, fallback: Candidate?)?) {
            guard let quadrilateral else { return }
            result.append(quadrilateral.candidate)
            if let fallback = quadrilateral.fallback { result.append(fallback) }
        }

        /// How closely the stroke follows the ellipse fitted to it, passing or not: the RMS
        /// distance, a fraction of its size (infinity when no ellipse fits it), computed when
        /// first asked for. The ellipse candidate's (`fittedEllipse`) when there is one,
        /// matched again in full when `recognize` gave its match up (stopped at a point beyond
        /// the largest distance, the RMS distance so far can be anything, and `explain`,
        /// which never gives up, would decide otherwise: found by FuzzRecognizer); else the
        /// ellipse refused for a corner (`corneredEllipse`, the first fitted).
        private mutating func distanceFromEllipse() -> Double {
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
                    distance(from: ShapeRecognizer.outline(of: ellipse), of: followed)
                } else {
                    Double.infinity
                }
            ellipseDistance = found
            return found
        }

        /// The ellipse fitted to `followed` as a candidate, or why there is none (in words
        /// that `recognize` leaves out, but for a conic that is no ellipse). An ellipse has
        /// no corners (which keeps most pentagons, close to their circles, from being taken
        /// for them), and one wider than the stroke cannot be mostly traced by it.
        private mutating func ellipse(
            following followed: Followed, fittedTo: FittedTo
        ) -> (candidate: Candidate?, refusal: String?) {
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
            let outline = ShapeRecognizer.outline(of: ellipse)
            var candidate = candidate(
                .ellipse, outline, sides: .each([outline]), following: followed, fittedTo: fittedTo)
            if candidate.failedTest == .drawnFraction {
                candidate.minimumDrawn = minimumDrawnShare(of: ellipse, openBetween: followed.points)
            }
            candidate.fittedEllipse = (ellipse, followed.points)
            return (candidate, nil)
        }

        /// The ellipse of the stroke, kept as `fittedEllipse`: fitted to the curve through the
        /// pen's points, its hooks cut off, and when that curve follows its ellipse but does
        /// not trace enough of it, to the whole curve; with the curve, and why there is no
        /// candidate (`ellipse(following:fittedTo:)`).
        private mutating func strokeEllipse() -> (candidate: Candidate?, refusal: String?, curve: Curve) {
            // The ellipse follows the stroke as the canvas draws it: through a dozen or so pen
            // points, a smooth curve where straight chords would meet in corners
            // (`StrokeResampling.curve`). A densely sampled stroke is its own curve; the
            // polygons and the line keep the chords, which a polygon's corners are.
            let drawn = StrokeResampling.curve(
                through: points, spacing: StrokeResampling.length(of: points) / Double(sampleCount - 1))
            let isCurved = drawn.count != points.count
            let curvePrepared = isCurved ? try? PreparedStroke.of(drawn, measuringWhole: false).get() : nil
            let curve = Curve(prepared: curvePrepared ?? prepared, isCurved: isCurved)
            let curved = curve.prepared
            var (candidate, refusal) = ellipse(
                following: curved.trimmed, fittedTo: curve.fittedTo(hooksCut: curved.isTrimmed))
            var followed = curved.trimmed
            // Hook trimming may cut off part of the outline: round the end of a long ellipse the
            // stroke turns by more than a hook does. When the trimmed stroke follows its ellipse
            // but does not trace enough of it, the whole stroke may.
            if curved.isTrimmed, let failed = candidate?.failedTest, failed.isTracing {
                let whole = curved.untrimmed
                let untrimmed = ellipse(following: whole, fittedTo: curve.fittedTo(hooksCut: false))
                if untrimmed.candidate?.isAccepted == true {
                    (candidate, refusal) = untrimmed
                    followed = whole
                }
            }
            fittedEllipse = candidate.map { ($0, followed) }
            return (candidate, refusal, curve)
        }

        /// Appends the closed shapes of the stroke: the triangle, the quadrilaterals (the
        /// split into four runs, of the trimmed stroke and when need be of the whole one, and
        /// the rectangle of the dominant direction) and the ellipse (`strokeEllipse`); returns
        /// the curve the ellipse followed.
        ///
        /// The ellipse is fitted first, though listed after the polygons: in `recognize`, a
        /// triangle or a rectangle of the whole stroke that follows the stroke less closely
        /// than a shape already accepted cannot be chosen, and its match stops as soon as
        /// that is certain. (Not the split rectangle, whose acceptance decides whether the
        /// whole stroke's is tried, nor the arrows, whose acceptance decides the other
        /// readings.)
        private mutating func appendClosedShapes() -> Curve {
            let (ellipseCandidate, ellipseRefusal, curve) = strokeEllipse()
            var closest = ellipseCandidate.flatMap { $0.isAccepted ? $0.match.rmsDistance : nil } ?? .infinity
            let polygons = PolygonFit(prepared.stroke)
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
                : PolygonFit.orientedRectangle(prepared.whole).map {
                    candidate(
                        .rectangle, $0, following: prepared.untrimmed, closest: closest,
                        fittedTo: .dominantDirection)
                }
            // When the stroke follows that rectangle but does not trace one of its sides, and no
            // other closed shape passes: the split of the whole stroke, whose sides may lean. On
            // a long rectangle a short side is a tenth of the stroke or less, which hook trimming
            // cuts off when the stroke starts or ends along it.
            var untrimmedSplits: (candidate: Candidate, fallback: Candidate?)?
            if prepared.isTrimmed, closest == .infinity, let failed = oriented?.failedTest, failed.isTracing,
                case .success(let fit) = PolygonFit(prepared.whole).quadrilateral(quadrilateralTolerances)
            {
                untrimmedSplits = quadrilateral(fit, following: prepared.untrimmed)
            }
            append(splits)
            append(untrimmedSplits)
            if let oriented { result.append(oriented) }
            if case .failure(let refusal) = fit {
                let instead = " (the rectangle of the stroke's dominant direction was tried instead)"
                note(.rectangle, ShapeRecognizer.reason(refusal) + (oriented == nil ? "" : instead))
            }
            if let ellipseCandidate {
                result.append(ellipseCandidate)
            } else if let ellipseRefusal {
                note(.ellipse, ellipseRefusal)
            }
            return curve
        }

        /// The candidates of `arrows` read from `points` (of size `size`) as `reading` says,
        /// the tip at the first sharp turn or the head's forwardmost point. Read after a
        /// lead-in, the arrows were read on part of `points` and are compared with all of
        /// them. When the line passes, the whole stroke's readings that it follows but does
        /// not trace enough of are kept in `untracedArrows`.
        private mutating func arrowCandidates(
            _ arrows: [ArrowFit], of points: [Point], size: Double, reading: FittedTo.ArrowReading = .whole,
            forwardmostTip: Bool = false
        ) -> [Candidate] {
            guard !arrows.isEmpty else { return [] }
            let length = StrokeResampling.length(of: points)
            // In `recognize`, a closed head the stroke certainly does not trace enough of is
            // refused without its match: on a stroke that is no arrow (an x, a delete mark), the
            // stroke across its barbs' ends keeps the head's points near it, so its match
            // passes the distances, and is refused only for what it traces, after every point.
            // (An open head's match is mostly given up early, on the distances: for it the
            // bound costs about what it saves. The bound takes every point but the head's for a
            // vertex of the shaft, which a lead-in's are not. Nor is it made when the line
            // passes: the readings kept for the finer comparison must be the same in
            // `recognize` as in `explain`, and the head's indices are the 64 samples', not the
            // finer stroke's.)
            var found: [Candidate] = []
            for arrow in arrows {
                guard !decidingOnly || !arrow.hasClosedHead || reading == .afterLeadIn || linePasses
                    || arrow.mayBeTraced(
                        by: points, length: length, minimumDrawn: minimumDrawnFraction,
                        minimumDrawnSide: minimumDrawnSide)
                else { continue }
                let fittedTo = FittedTo.arrow(reading, forwardmostTip: forwardmostTip, closedHead: arrow.hasClosedHead)
                let read = candidate(
                    .arrow, arrow.symmetricPolyline, sides: .each(arrow.drawnSides),
                    following: (points, size, length), fittedTo: fittedTo)
                if linePasses, reading == .whole, read.failedTest?.isTracing == true { untracedArrows.append(arrow) }
                found.append(read)
            }
            return found
        }

        /// The arrows read from `points` as `reading` says, their refusals noted.
        private mutating func arrowFits(
            _ points: [Point], headLast: Bool = true, headFirst: Bool = true, reading: FittedTo.ArrowReading = .whole,
            forwardmostTip: Bool = false
        ) -> [ArrowFit] {
            let maximumBow = distanceTolerance * prepared.wholeSize
            let found: (fits: [ArrowFit], headLast: ArrowFit.Refusal?, headFirst: ArrowFit.Refusal?)
            if reading == .afterLeadIn {
                let after = ArrowFit.readingsAfterLeadIn(
                    points, headLast: headLast, hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: maximumBow,
                    leadInStray: lineDistanceTolerance * prepared.wholeSize)
                found = (after.fits, headLast ? after.refusal : nil, headLast ? nil : after.refusal)
            } else {
                found = ArrowFit.readings(
                    points, hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: maximumBow, headLast: headLast,
                    headFirst: headFirst, forwardmostTip: forwardmostTip, minimumBarb: minimumBarb)
            }
            if !decidingOnly {
                let words = FittedTo.arrowReading(reading, forwardmostTip: forwardmostTip)
                for (isLast, refusal) in [(true, found.headLast), (false, found.headFirst)] {
                    if let refusal { arrowRefusals.keep(.init(reading: words, refusal: refusal), headLast: isLast) }
                }
            }
            return found.fits
        }

        /// Appends the arrows read from the whole stroke; when none passes, also from more
        /// readings: the tip at the head's forwardmost point (a "<" drawn after the shaft,
        /// which the shaft meets short of its point), and the head's end without the hook the
        /// pen makes as it lifts after the last barb, sharp or rounded (a "J":
        /// `StrokeResampling.roundedHookCuts`); the hook at the tail's end is part of the
        /// shaft, compared with itself. Last, when still none passes, the stroke from its
        /// first sharp turn from either end: a shaft drawn from the tip to the tail and back
        /// before the head (`ArrowFit.readingsAfterLeadIn`), or a hook at the tail too long to
        /// be cut as one, which the first sharp turn takes for the tip. When the line passes,
        /// the whole stroke alone is read, for a head drawn small at its end (`minimumBarb`):
        /// the other readings are of strokes no line explains. Such a head may be a sample or
        /// two of the whole, too few to trace its barbs: when no reading passes, those the
        /// stroke follows but does not trace enough of are compared again with the stroke
        /// sampled `ElbowArrowFit.fineness` times as finely, as an elbow arrow's are.
        private mutating func appendArrows() {
            let (whole, wholeSize, cuts) = (prepared.whole, prepared.wholeSize, prepared.cuts)
            let fits = arrowFits(whole)
            var arrows = arrowCandidates(fits, of: whole, size: wholeSize)
            if linePasses, !arrows.contains(where: \.isAccepted), !untracedArrows.isEmpty {
                arrows += arrowCandidates(
                    untracedArrows, of: finelySampled.points, size: wholeSize, reading: .wholeFinelySampled)
            }
            if !linePasses, !arrows.contains(where: \.isAccepted) {
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
                    let cut: FittedTo.ArrowReading = reading.trimmed >= 0 ? .hookCut : .whole
                    let fits = arrowFits(
                        reading.points, headLast: reading.headLast, headFirst: reading.headFirst, reading: cut,
                        forwardmostTip: reading.forwardmostTip)
                    guard !fits.isEmpty else { continue }
                    var size = wholeSize
                    if reading.trimmed >= 0 {
                        size = trimmedSizes[reading.trimmed] ?? StrokeResampling.diameter(of: reading.points)
                        trimmedSizes[reading.trimmed] = size
                    }
                    arrows += arrowCandidates(
                        fits, of: reading.points, size: size, reading: cut, forwardmostTip: reading.forwardmostTip)
                }
            }
            if !linePasses, !arrows.contains(where: \.isAccepted) {
                for headLast in [true, false] {
                    let fits = arrowFits(whole, headLast: headLast, headFirst: !headLast, reading: .afterLeadIn)
                    arrows += arrowCandidates(fits, of: whole, size: wholeSize, reading: .afterLeadIn)
                }
            }
            if arrows.isEmpty {
                let refusals = arrowRefusals
                note(.arrow, "no arrow reading: " + refusals.description(size: wholeSize))
            }
            result += arrows
            appendDoubleArrows()
        }

        /// Appends the readings of the whole stroke as an arrow with a head at each end
        /// (`DoubleArrowFit`), with the least barb of the arrows read here (`minimumBarb`):
        /// whether or not a line or a one-headed arrow passes too, as either would erase a
        /// head (the closest passing arrow is chosen, and over a line). As for a head at a
        /// line's end, when none passes, those the stroke follows but does not trace enough
        /// of are compared again with the stroke sampled `ElbowArrowFit.fineness` times as
        /// finely.
        private mutating func appendDoubleArrows() {
            let (whole, size) = (prepared.whole, prepared.wholeSize)
            let (fits, refusal) = DoubleArrowFit.readings(
                whole, hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: distanceTolerance * size,
                minimumBarb: minimumBarb)
            if let refusal { note(.doubleArrow, refusal.description(size: size)) }
            guard !fits.isEmpty else { return }
            /// The candidates of `fits` following `followed`, and the fits refused only for
            /// what the stroke traces of them.
            func candidates(_ fits: [DoubleArrowFit], following followed: Followed, finely: Bool)
                -> (found: [Candidate], untraced: [DoubleArrowFit])
            {
                var (found, untraced): ([Candidate], [DoubleArrowFit]) = ([], [])
                for fit in fits {
                    let heads = fit.closedHeads
                    let read = candidate(
                        .doubleArrow, fit.symmetricPolyline, sides: .each(fit.drawnSides), following: followed,
                        fittedTo: .doubleArrow(firstClosed: heads.first, lastClosed: heads.last, finelySampled: finely))
                    if read.failedTest?.isTracing == true { untraced.append(fit) }
                    found.append(read)
                }
                return (found, untraced)
            }
            let (found, untraced) = candidates(
                fits, following: (whole, size, StrokeResampling.length(of: whole)), finely: false)
            result += found
            guard !found.contains(where: \.isAccepted), !untraced.isEmpty else { return }
            result += candidates(untraced, following: finelySampled, finely: true).found
        }

        /// The pen's stroke resampled `ElbowArrowFit.fineness` times as finely as the samples
        /// the shapes are read from, with the whole stroke's size and its own length: what a
        /// head a sample or two of the 64 long is compared with again.
        private var finelySampled: Followed {
            let fine = StrokeResampling.resampled(points, count: (sampleCount - 1) * ElbowArrowFit.fineness + 1)
            return (fine, prepared.wholeSize, StrokeResampling.length(of: fine))
        }

        /// When no shape passes (but a parallelogram, the last resort), appends the closed
        /// shapes again on the stroke's closed loop alone, without a lead-in inside it or a
        /// run-out past its closure (`closedLoop`); the ellipse on the loop of `curve`.
        private mutating func appendClosedLoopShapes(curve: Curve) {
            guard !result.contains(where: { $0.isAccepted && $0.shape.kind != .parallelogram }),
                let found = closedLoop(of: prepared.stroke, size: prepared.size)
            else { return }
            switch found {
            case .failure(let outside):
                for kind in [ShapeKind.triangle, .rectangle, .ellipse] {
                    note(kind, "the stroke's closed loop alone was not tried: " + outside.description)
                }
            case .success(let loop):
                let followed = ShapeRecognizer.followed(loop)
                let polygons = PolygonFit(loop)
                if let triangle = polygons.triangle() {
                    let candidate = candidate(.triangle, triangle, following: followed, fittedTo: .closedLoop)
                    result.append(candidate)
                }
                if case .success(let fit) = polygons.quadrilateral(quadrilateralTolerances) {
                    let candidates = quadrilateral(fit, following: followed, fittedTo: .closedLoop)
                    append(candidates)
                }
                // The ellipse again on the curve through the pen's points, when it differs.
                let curved = curve.prepared
                let curvedLoop = curve.isCurved ? (try? closedLoop(of: curved.stroke, size: curved.size)?.get()) : loop
                if let curvedLoop,
                    let ellipse = ellipse(
                        following: ShapeRecognizer.followed(curvedLoop),
                        fittedTo: curve.isCurved ? .curvedClosedLoop : .closedLoop
                    ).candidate
                {
                    result.append(ellipse)
                }
            }
        }

        /// A polygon of more sides than a rectangle's, whose corners turn too gently to be
        /// corners, has straight sides where an ellipse has arcs: such an ellipse is never
        /// chosen, but still keeps the polygons the stroke follows less than twice as closely
        /// from being chosen. (Not sought when a triangle or quadrilateral is taken over the
        /// ellipse anyway.)
        private mutating func compareEllipsesWithPolygons() {
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
        }

        /// Last, when nothing else passes, appends the elbow arrows, whose bends are sharp
        /// turns that the straight arrow takes for its tip.
        private mutating func appendElbowArrows() {
            guard !result.contains(where: \.isAccepted) else {
                note(.elbowArrow, "another shape passes (an elbow arrow is tried only when none does)")
                return
            }
            // Each fit is compared with the whole stroke. When none passes, those the stroke
            // follows but does not trace enough of are compared again with the stroke sampled
            // `ElbowArrowFit.fineness` times as finely (a connector's small head may be a
            // sample or two of the whole, too few to trace its barbs).
            let wholeSize = prepared.wholeSize
            var elbows: [Candidate] = []
            var fits: [(fit: ElbowArrowFit, polyline: [Point])] = []
            let readings = ElbowArrowFit.readings(
                prepared.whole, drawn: points, hookLength: hookLength, sharpTurn: sharpTurn,
                maximumBow: distanceTolerance * wholeSize, squareness: skewTolerance)
            for fit in readings.fits {
                guard let polyline = fit.squaredPolyline else { continue }
                fits.append((fit, polyline))
                elbows.append(
                    candidate(.elbowArrow, polyline, sides: .each(fit.drawnSides), following: prepared.untrimmed))
            }
            if !fits.isEmpty, !elbows.contains(where: \.isAccepted) {
                let followed = finelySampled
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
    }
}
