public import CanvasCore
import Foundation

/// An arrow drawn in two strokes, one after the other: a shaft, and a head drawn on its own
/// at one end of it, an open "<" or a closed triangle, before or after the shaft (the way
/// most people draw an arrow, and the $N set's "arrowhead").
///
/// The shaft is a stroke recognised as a line on its own (`ShapeRecognizer.line`), or
/// one bent at right angles once or twice, as an elbow arrow's shaft is (`elbowShaft`: a
/// flowchart's connector routed round its boxes); then the arrow is an elbow arrow, its
/// last run the shaft the head is read against. The shaft's end nearer the head is where
/// the head goes; the tip is the head's point farthest forward along the shaft (the shaft
/// often stops short of the head's point, inside the "<"), and the barbs' ends are the
/// head's points farthest to either side of the shaft, as for an arrow drawn in one
/// stroke (`ArrowFit`), whose tests of a head this reading shares (a barb as short as an
/// elbow arrow's may be: a head drawn as a stroke of its own is no hook at a line's end,
/// which is what a one-stroke arrow's longer least barb keeps out); the head's stroke must
/// also turn at the tip as sharply as a shaft turns into its head. The shaft must meet the
/// head: its line passes by the tip, and it ends no farther back than the barbs reach. Then
/// the head's stroke alone must follow the head's sides (its barbs, and for a closed head
/// the stroke across their ends) and trace them, as any shape's stroke must
/// (`OutlineMatch`), its distances measured against the arrow's size as a one-stroke
/// arrow's are. Where the head meets the shaft is judged at the head's own size: the tip
/// must lie on the shaft's line within `distanceTolerance` of it (at the arrow's size, a
/// half note's head, a small oval beside its stem, passed for a closed head), or else the
/// head is drawn askew to the shaft: the arrow is aimed from the tail at the head's point,
/// the shaft's end lying off that line no farther than a one-stroke arrow's shaft may bow,
/// and the shaft must end within the head, nearer its point than its barbs' ends (a stroke
/// ending at a barb's end goes on round an outline, and a stem meets a note's head at its
/// side). When neither
/// stroke makes a shaft for the other's head, the head may be split between them: one
/// stroke a shaft turning back into one barb, the other the other barb
/// (`read(shaftAndBarb:barb:decidingOnly:)`).
struct TwoStrokeArrow {
    /// Why two strokes make no arrow with one of them for the shaft.
    enum Refusal: Error, Equatable {
        /// The shaft's stroke is no line nor a shaft bent at right angles (`reason`: why, in
        /// words).
        case noShaft(reason: String)
        /// An elbow shaft's last run turns `angle` (radians) from the run before it, once drawn
        /// on to the tip, farther than `squareness` from a right angle; or the bends cannot be
        /// made right angles (`angle` nil).
        case tipNotSquare(angle: Double?, squareness: Double)
        /// The head's stroke has no length.
        case headWithoutLength
        /// A shaft drawn with one barb does not turn back at its end (`read(shaftAndBarb:barb:)`).
        case noTurnAtTheTip
        /// The second barb starts `gap` from the tip, more than `most` (`read(shaftAndBarb:barb:)`).
        case barbAwayFromTheTip(gap: Double, most: Double)
        /// The head lies on one side of the shaft.
        case headOnOneSide
        /// The head's barbs open `opening` (radians) at the tip, wider than `widest`: the head's
        /// stroke turns there less sharply than a shaft turns into its head.
        case headWithoutTurn(opening: Double, widest: Double)
        /// The tip lies `stray` to the side of the shaft's line (more than `most`), and the
        /// shaft's end `offset` of the arrow's size from the line from its tail to the tip (more
        /// than `mostOffset`): no head drawn askew to its shaft either.
        case tipOffTheShaft(stray: Double, most: Double, offset: Double, mostOffset: Double)
        /// The head is drawn askew to the shaft, which ends `toTip` from the tip and `toBarb`
        /// from the nearer barb's end: not within the head nearer its point.
        case askewShaftAtABarb(toTip: Double, toBarb: Double)
        /// The shaft ends `gap` behind the tip, farther back than the barbs reach (`reach`).
        case shaftShortOfTheHead(gap: Double, reach: Double)
        /// The head is no head (`ArrowFit.headRefusal`).
        case head(ArrowFit.Refusal)
        /// A head drawn in two strokes whose nearest ends lie `gap` apart, more than `most`.
        case headStrokesApart(gap: Double, most: Double)
        /// A head drawn in two strokes, one of them `length` long, less than `least`: a tap or
        /// a tick beside a head is no half of it.
        case headStrokeTooShort(length: Double, least: Double)
        /// A shaft drawn in two pieces whose nearest ends lie `gap` apart, more than `most`.
        case shaftPiecesApart(gap: Double, most: Double)
        /// A shaft drawn in two pieces, one of them `length` long, no longer than `least`: a
        /// tick or a hook the pen left is no piece of a shaft.
        case shaftPieceTooShort(length: Double, least: Double)

        /// In words, lengths as fractions of `size` (the head's).
        func description(size: Double) -> String {
            func figure(_ length: Double) -> String { ShapeRecognizer.figure(length / size) }
            return switch self {
            case .noShaft(let reason): "the shaft's stroke is \(reason)"
            case .tipNotSquare(let angle?, let squareness):
                "the shaft's last run drawn on to the head's point turns \(ShapeRecognizer.degrees(angle))° from the "
                    + "run before it (90 ± \(ShapeRecognizer.degrees(squareness))°)"
            case .tipNotSquare(nil, _): "the shaft's bends cannot be made right angles"
            case .headWithoutLength: "the head's stroke has no length"
            case .noTurnAtTheTip: "the shaft's stroke does not turn back into a barb"
            case .barbAwayFromTheTip(let gap, let most):
                "the other barb starts \(figure(gap)) of the head's size from the tip (> \(figure(most)))"
            case .headOnOneSide: "the head lies on one side of the shaft"
            case .headWithoutTurn(let opening, let widest):
                "the head's barbs open \(ShapeRecognizer.degrees(opening))° at its point (at most "
                    + "\(ShapeRecognizer.degrees(widest))°: its stroke must turn there as sharply as a shaft turns "
                    + "into its head)"
            case .tipOffTheShaft(let stray, let most, let offset, let mostOffset):
                "the head's point lies \(figure(stray)) of the head's size to the side of the shaft's line "
                    + "(> \(figure(most))), and the shaft's end \(ShapeRecognizer.figure(offset)) of the arrow's size "
                    + "from the line from its tail to the point (> \(ShapeRecognizer.figure(mostOffset)))"
            case .askewShaftAtABarb(let toTip, let toBarb):
                "the head is askew to the shaft, which ends nearer a barb's end (\(figure(toBarb)) of the head's "
                    + "size) than the head's point (\(figure(toTip)))"
            case .shaftShortOfTheHead(let gap, let reach):
                "the shaft ends \(figure(gap)) of the head's size behind the head's point, short of its barbs "
                    + "(they reach \(figure(reach)) back)"
            case .head(let refusal): refusal.description(size: size)
            case .headStrokeTooShort(let length, let least):
                "one of the head's two strokes is \(figure(length)) of the head's size long (< \(figure(least))): "
                    + "no half of a head"
            case .headStrokesApart(let gap, let most):
                "the head's two strokes do not meet: their nearest ends lie \(figure(gap)) of the head's size apart "
                    + "(> \(figure(most)))"
            case .shaftPieceTooShort(let length, let least):
                "one of the shaft's two pieces is \(figure(length)) of the shaft's size long, no longer than a hook "
                    + "(\(figure(least)), a tenth of the shaft's length): no piece of a shaft"
            case .shaftPiecesApart(let gap, let most):
                "the shaft's two pieces do not meet: their nearest ends lie \(figure(gap)) of the shaft's size apart "
                    + "(> \(figure(most)))"
            }
        }
    }

    /// The arrow read, with the head's points (equally spaced) and the size of the two
    /// strokes together, which the head's match is measured against (as a one-stroke
    /// arrow's is against its own size), and the shape that replaces the two strokes: the
    /// arrow made straight and symmetric, or the elbow arrow with its bends made right angles,
    /// its head open (`ShapeRecognizer.ArrowReadings.add` closes it for a closed head's
    /// reading).
    var fit: ArrowFit
    var headPoints: [Point]
    var size: Double
    var shape: RecognizedShape

    /// A shaft as its stroke draws it, tail first: the tail, each bend and the end the head
    /// goes at (two points for a straight shaft), the points of each run before the last
    /// and of the last, and points that span the stroke (its line's ends, or its samples),
    /// which the arrow's size takes in.
    struct Shaft {
        var corners: [Point]
        var runs: [ArraySlice<Point>]
        var lastRun: [Point]
        var extent: [Point]
    }

    /// Why two strokes make no arrow, and the head's size its lengths are measured against.
    struct Refused: Error {
        var refusal: Refusal
        var size: Double
    }

    /// The arrow `stroke`, the shaft, and `head` make, or why they make none (with
    /// `decidingOnly`, the shaft's line test gives up as soon as it fails, as `recognize`'s
    /// does: its refusal's figures are then partial).
    static func read(shaft stroke: [Point], head: [Point], decidingOnly: Bool) -> Result<TwoStrokeArrow, Refused> {
        let headPoints = StrokeResampling.resampled(
            StrokeSmoothing.smoothed(head).points, count: ShapeRecognizer.sampleCount)
        guard headPoints.count > 1, StrokeResampling.length(of: headPoints) > 0 else {
            return .failure(Refused(refusal: .headWithoutLength, size: 1))
        }
        let shaft: Shaft
        switch Self.shaft(of: stroke, towards: headPoints, decidingOnly: decidingOnly) {
        case .success(let read): shaft = read
        case .failure(let refusal): return .failure(Refused(refusal: refusal, size: 1))
        }
        let (tail, end) = (shaft.corners[shaft.corners.count - 2], shaft.corners[shaft.corners.count - 1])
        var axis = (tail - end) / tail.distance(to: end)
        let arrowSize = StrokeResampling.diameter(of: headPoints + shaft.extent)
        // Where the head meets the shaft is judged at the head's own size.
        let size = StrokeResampling.diameter(of: headPoints)
        func refuse(_ refusal: Refusal) -> Result<TwoStrokeArrow, Refused> {
            .failure(Refused(refusal: refusal, size: size))
        }
        // The tip: the head's point farthest forward, or the shaft's end when the head lies
        // wholly behind it. The shaft drawn on to it stays on its line, as a point of any
        // shape stays near the shape (`distanceTolerance`).
        let forwardmost = headPoints.min { axis.dot($0 - end) < axis.dot($1 - end) }!
        var tip = axis.dot(forwardmost - end) < 0 ? forwardmost : end
        let (stray, most) = (abs(axis.cross(tip - end)), ShapeRecognizer.distanceTolerance * size)
        let isAskew = stray > most
        if isAskew {
            // A head drawn askew to its shaft, the shaft stopping within it beside its point:
            // the arrow is aimed from the tail at the point, and the shaft's end lies off that
            // line no farther than a one-stroke arrow's shaft may bow (`distanceTolerance` of
            // the arrow's size).
            let aimed = (tail - tip) / tail.distance(to: tip)
            let (offset, mostOffset) = (abs(aimed.cross(end - tail)), ShapeRecognizer.distanceTolerance * arrowSize)
            guard offset <= mostOffset else {
                return refuse(
                    .tipOffTheShaft(
                        stray: stray, most: most, offset: offset / arrowSize,
                        mostOffset: ShapeRecognizer.distanceTolerance))
            }
            axis = aimed
            tip = headPoints.min { aimed.dot($0 - tail) < aimed.dot($1 - tail) }!
        }
        guard let (first, second, farthestBack) = ArrowFit.barbEnds(of: headPoints, from: 0, tip: tip, axis: axis)
        else { return refuse(.headOnOneSide) }
        let barbs = (headPoints[first], headPoints[second])
        if isAskew {
            // Drawn askew, the shaft must still end within the head, nearer its point than the
            // barbs' ends: a stroke that ends at a barb's end goes on round an outline (a
            // terminator's end, a data box's corner), as no shaft does. (It cannot end past the
            // point: the point lies ahead of it along the shaft, and so along the aimed line.)
            let (toTip, toBarb) = (end.distance(to: tip), min(end.distance(to: barbs.0), end.distance(to: barbs.1)))
            guard toTip <= toBarb else { return refuse(.askewShaftAtABarb(toTip: toTip, toBarb: toBarb)) }
        }
        // The head's stroke turns at the tip at least as sharply as a stroke turns from its
        // shaft into its head (`sharpTurn`): a "<", not a stroke across the shaft's end.
        let (firstArm, secondArm) = (barbs.0 - tip, barbs.1 - tip)
        let opening = abs(atan2(firstArm.cross(secondArm), firstArm.dot(secondArm)))
        let widest = Double.pi - ShapeRecognizer.sharpTurn
        guard opening <= widest else { return refuse(.headWithoutTurn(opening: opening, widest: widest)) }
        let barbsReach = max(axis.dot(barbs.0 - tip), axis.dot(barbs.1 - tip))
        let gap = axis.dot(end - tip)
        guard gap <= barbsReach else { return refuse(.shaftShortOfTheHead(gap: gap, reach: barbsReach)) }
        if let refusal = ArrowFit.headRefusal(
            tip: tip, barbs: barbs, axis: axis, shaftLength: tail.distance(to: tip),
            minimumBarb: ElbowArrowFit.minimumBarbRatio, farthestBack: farthestBack,
            maximumBow: ShapeRecognizer.distanceTolerance * size)
        {
            return refuse(.head(refusal))
        }
        // The last run as drawn, which an elbow arrow's squared run goes through the middle of.
        let fit = ArrowFit(
            tail: tail, tip: tip, barbs: barbs, axis: axis,
            drawnSides: [shaft.lastRun, [tip, barbs.0], [tip, barbs.1]], headPoints: headPoints.indices)
        guard shaft.corners.count > 2 else {
            let shape = RecognizedShape(kind: .arrow, points: fit.symmetricPolyline)
            return .success(TwoStrokeArrow(fit: fit, headPoints: headPoints, size: arrowSize, shape: shape))
        }
        // An elbow shaft's last run, drawn on to the tip, still meets the run before it square.
        let (before, last) = (tail - shaft.corners[shaft.corners.count - 3], tip - tail)
        let angle = abs(atan2(before.cross(last), before.dot(last)))
        let squareness = ShapeRecognizer.skewTolerance
        guard abs(angle - Double.pi / 2) <= squareness else {
            return refuse(.tipNotSquare(angle: angle, squareness: squareness))
        }
        let elbow = ElbowArrowFit(drawnBends: Array(shaft.corners.dropLast()), runs: shaft.runs, arrow: fit)
        guard let polyline = elbow.squaredPolyline else {
            return refuse(.tipNotSquare(angle: nil, squareness: squareness))
        }
        let shape = RecognizedShape(kind: .elbowArrow, points: polyline)
        return .success(TwoStrokeArrow(fit: fit, headPoints: headPoints, size: arrowSize, shape: shape))
    }

    /// The arrow drawn as a shaft and one barb in one stroke (`stroke`, turning back at the
    /// tip: its last sharp turn), and the other barb as a stroke of its own (`barb`), which
    /// starts at the tip: within `distanceTolerance` of the head's size from it (one way of
    /// drawing a connector). The two barbs, joined at the tip, are read as a head drawn
    /// apart (`read(shaft:head:decidingOnly:)`, every test the same) against the stroke up
    /// to the turn.
    static func read(
        shaftAndBarb stroke: [Point], barb: [Point], decidingOnly: Bool
    ) -> Result<TwoStrokeArrow, Refused> {
        var points = StrokeResampling.resampled(
            StrokeSmoothing.smoothed(stroke).points, count: ShapeRecognizer.sampleCount)
        var other = StrokeSmoothing.smoothed(barb).points
        guard points.count > 1, !other.isEmpty else {
            return .failure(Refused(refusal: .headWithoutLength, size: 1))
        }
        /// How far `point` is from the other barb.
        func distanceToBarb(_ point: Point) -> Double { other.lazy.map { $0.distance(to: point) }.min()! }
        if distanceToBarb(points[0]) < distanceToBarb(points[points.count - 1]) { points.reverse() }
        guard
            let turnFromEnd = ElbowArrowFit.sharpTurns(
                of: points.reversed(), from: 0, sharperThan: ShapeRecognizer.sharpTurn
            ).first
        else { return .failure(Refused(refusal: .noTurnAtTheTip, size: 1)) }
        let tipIndex = points.count - 1 - turnFromEnd
        let tip = points[tipIndex]
        if tip.distance(to: other[0]) > tip.distance(to: other[other.count - 1]) { other.reverse() }
        let head = Array(points[tipIndex...].reversed()) + other
        let size = StrokeResampling.diameter(of: head)
        let (gap, most) = (tip.distance(to: other[0]), ShapeRecognizer.distanceTolerance * size)
        guard gap <= most else {
            return .failure(Refused(refusal: .barbAwayFromTheTip(gap: gap, most: most), size: size))
        }
        return read(shaft: Array(points[...tipIndex]), head: head, decidingOnly: decidingOnly)
    }

    /// A head drawn in two strokes, `first` and `second` (two barbs drawn apart, or a closed
    /// head's base and its two sides), as one stroke: joined where their nearest ends meet,
    /// within `distanceTolerance` of the head's size, as a split head's barbs meet at the tip
    /// (`read(shaftAndBarb:barb:decidingOnly:)`), each at least that long (a tap or a tick
    /// by a head's end is no half of it); the head it makes is then read as any head drawn
    /// apart. With `decidingOnly`, strokes whose ends lie apart by more than the tolerance of
    /// their bounds' diagonal (no less than their size) are refused without measuring their
    /// size (`measured(_:apartBy:tolerance:_:)`).
    static func joinedHead(_ first: [Point], _ second: [Point], decidingOnly: Bool) -> Result<[Point], Refused> {
        guard let (head, gap) = joinedAtNearestEnds(first, second) else {
            return .failure(Refused(refusal: .headWithoutLength, size: 1))
        }
        let (size, apart) = measured(head, apartBy: gap, tolerance: ShapeRecognizer.distanceTolerance, decidingOnly)
        let most = ShapeRecognizer.distanceTolerance * size
        guard !apart else { return .failure(Refused(refusal: .headStrokesApart(gap: gap, most: most), size: size)) }
        let shorter = min(StrokeResampling.length(of: first), StrokeResampling.length(of: second))
        guard shorter >= most else {
            return .failure(Refused(refusal: .headStrokeTooShort(length: shorter, least: most), size: size))
        }
        return .success(head)
    }

    /// A shaft drawn in two pieces, `first` and `second` (an elbow connector's runs drawn
    /// one at a time, the pen lifted at the bend, or a line lifted midway), as one stroke:
    /// joined where their nearest ends meet, within `lineDistanceTolerance` of the shaft's
    /// size (as near as a line's points keep to it: the pen set down again where it was
    /// lifted), each piece longer than a hook (`hookLength` of the shaft's length: a shorter
    /// one, a tick such as a box's last stroke ends with, would be cut off as a hook when the
    /// shaft is read, and erased with the others without being drawn). The caller reads the
    /// shaft it makes as any shaft (`shaft(of:towards:decidingOnly:)`: a line, or bent at
    /// right angles). `decidingOnly`: as for `joinedHead`.
    static func joinedShaft(_ first: [Point], _ second: [Point], decidingOnly: Bool) -> Result<[Point], Refused> {
        guard let (shaft, gap) = joinedAtNearestEnds(first, second) else {
            return .failure(Refused(refusal: .noShaft(reason: "empty"), size: 1))
        }
        let tolerance = ShapeRecognizer.lineDistanceTolerance
        let (size, apart) = measured(shaft, apartBy: gap, tolerance: tolerance, decidingOnly)
        guard !apart else {
            return .failure(Refused(refusal: .shaftPiecesApart(gap: gap, most: tolerance * size), size: size))
        }
        let (shorter, least) = (
            min(StrokeResampling.length(of: first), StrokeResampling.length(of: second)),
            ShapeRecognizer.hookLength * StrokeResampling.length(of: shaft)
        )
        guard shorter > least else {
            return .failure(Refused(refusal: .shaftPieceTooShort(length: shorter, least: least), size: size))
        }
        return .success(shaft)
    }

    /// The size of two strokes joined into `joined`, and whether their nearest ends, `gap`
    /// apart, lie farther apart than `tolerance` of it. With `decidingOnly`, judged first on
    /// the bounds' diagonal (`JoinedStrokes.size(of:judging:tolerance:)`), which then stands
    /// for the size (`recognize` needs no figures; `explain` gets exact ones).
    static func measured(
        _ joined: [Point], apartBy gap: Double, tolerance: Double, _ decidingOnly: Bool
    ) -> (size: Double, apart: Bool) {
        let size =
            decidingOnly
            ? JoinedStrokes.size(of: joined, judging: gap, tolerance: tolerance).size
            : StrokeResampling.diameter(of: joined)
        return (size, !(gap <= tolerance * size))
    }

    /// `first` and `second` as one stroke, joined where their nearest ends meet (each turned
    /// round as that needs), and how far apart those ends lie; nil when either is empty.
    static func joinedAtNearestEnds(_ first: [Point], _ second: [Point]) -> (points: [Point], gap: Double)? {
        guard !first.isEmpty, !second.isEmpty else { return nil }
        let ends = [(false, false), (false, true), (true, false), (true, true)].map { firstReversed, secondReversed in
            let (last, start) = (firstReversed ? first[0] : first[first.count - 1],
                                 secondReversed ? second[second.count - 1] : second[0])
            return (firstReversed, secondReversed, gap: last.distance(to: start))
        }
        let (firstReversed, secondReversed, gap) = ends.min { $0.gap < $1.gap }!
        return ((firstReversed ? first.reversed() : first) + (secondReversed ? second.reversed() : second), gap)
    }

    /// The shaft `stroke` draws, its end nearer `head` (equally spaced points) last: a line
    /// (`ShapeRecognizer.line`), or else an elbow shaft (`elbowShaft`); why it is neither,
    /// in words.
    static func shaft(of stroke: [Point], towards head: [Point], decidingOnly: Bool) -> Result<Shaft, Refusal> {
        /// How far `point` is from the head.
        func distanceToHead(_ point: Point) -> Double { head.lazy.map { $0.distance(to: point) }.min()! }
        let smoothed = StrokeSmoothing.smoothed(stroke).points
        let prepared: ShapeRecognizer.PreparedStroke
        switch ShapeRecognizer.PreparedStroke.of(smoothed) {
        case .success(let stroke): prepared = stroke
        case .failure(let failure): return .failure(.noShaft(reason: "no line: " + failure.description))
        }
        // A line that passes is the shaft. (`recognize` makes the stroke that line, or an arrow
        // when a head of its own is at an end; a node keeps only strokes it made lines, or
        // left alone, for the next stroke to join.)
        let (line, lineRefusal) = ShapeRecognizer.line(in: smoothed, prepared: prepared, decidingOnly: decidingOnly)
        if lineRefusal == nil, line.points.count == 2, line.points[0] != line.points[1] {
            let ends =
                distanceToHead(line.points[0]) < distanceToHead(line.points[1]) ? line.points.reversed() : line.points
            return .success(Shaft(corners: ends, runs: [], lastRun: ends, extent: ends))
        }
        return elbowShaft(prepared, endingNear: distanceToHead).mapError { reason in
            .noShaft(reason: "no line (\(lineRefusal ?? "no length")) nor bent at right angles (\(reason.words))")
        }
    }

    /// Why a stroke is no elbow shaft, in words.
    struct NoElbowShaft: Error {
        var words: String
    }

    /// The stroke (`prepared`) as an elbow arrow's shaft without its head, the end nearer the
    /// head (`distanceToHead` the smaller) last: its hooks cut off
    /// (`StrokeResampling.hookCuts`), one or two sharp turns (`ElbowArrowFit.sharpTurns`),
    /// each within `skewTolerance` of a right angle between the chords of the runs it joins
    /// (as an elbow arrow's bends), and the stroke following those runs, straight segments
    /// between its tail, bends and end, within an elbow arrow's distances of its own size
    /// and tracing them (`Candidate.failedTest`).
    static func elbowShaft(
        _ prepared: ShapeRecognizer.PreparedStroke, endingNear distanceToHead: (Point) -> Double
    ) -> Result<Shaft, NoElbowShaft> {
        // The samples of the whole stroke, its hooks cut off (resampled once, as an elbow arrow
        // is read: resampling again rounds its bends off).
        var points = Array(prepared.whole[prepared.cuts.first...prepared.cuts.last])
        if distanceToHead(points[0]) < distanceToHead(points[points.count - 1]) { points.reverse() }
        let turns = ElbowArrowFit.sharpTurns(of: points, from: 0, sharperThan: ShapeRecognizer.sharpTurn)
        guard (1...ElbowArrowFit.maximumBends).contains(turns.count) else {
            return .failure(
                NoElbowShaft(words: "\(turns.count) sharp turns, 1 to \(ElbowArrowFit.maximumBends) bends"))
        }
        let cornerIndices = [0] + turns + [points.count - 1]
        let corners = cornerIndices.map { points[$0] }
        let chords = zip(corners, corners.dropFirst()).map { $1 - $0 }
        for (k, (a, b)) in zip(chords, chords.dropFirst()).enumerated() {
            let angle = abs(atan2(a.cross(b), a.dot(b)))
            guard abs(angle - Double.pi / 2) <= ShapeRecognizer.skewTolerance else {
                return .failure(
                    NoElbowShaft(
                        words: "bend \(k + 1) turns \(ShapeRecognizer.degrees(angle))°, 90 ± "
                            + "\(ShapeRecognizer.degrees(ShapeRecognizer.skewTolerance))°"))
            }
        }
        let sides = zip(corners, corners.dropFirst()).map { [$0, $1] }
        let (_, size, length) = ShapeRecognizer.followed(points)
        let candidate = ShapeRecognizer.Candidate(
            shape: RecognizedShape(kind: .elbowArrow, points: corners),
            match: ShapeRecognizer.Candidate.match(
                points, size: size, length: length, with: .elbowArrow, sides: .each(sides), decidingOnly: false,
                roundingCorners: false),
            size: size, fittedTo: .stroke(hooksCut: prepared.isTrimmed))
        if let refusal = candidate.refusal { return .failure(NoElbowShaft(words: "its runs: \(refusal)")) }
        let runs = zip(cornerIndices, cornerIndices.dropFirst()).map { points[$0...$1] }
        return .success(
            Shaft(corners: corners, runs: Array(runs.dropLast()), lastRun: Array(runs.last!), extent: points))
    }

    /// The head's sides, open (the barbs) or closed (and the stroke across their ends).
    func headSides(closed: Bool) -> [[Point]] {
        let sides = Array(fit.drawnSides.dropFirst())
        return closed ? sides + [[fit.barbs.0, fit.barbs.1]] : sides
    }
}

extension ShapeRecognizer {
    /// The arrow that two strokes drawn one after the other make together, `first` then
    /// `second`: a shaft and a head drawn as a stroke of its own at one end of it (an open
    /// "<" or a closed triangle), in either order (`TwoStrokeArrow`); `.none` when they make
    /// none. A straight shaft makes an `.arrow`, made straight and symmetric as one drawn in
    /// one stroke is (tail, tip, barb, tip, barb); a shaft bent at right angles once or
    /// twice an `.elbowArrow` (tail, bends, tip, barb, tip, barb), its bends made right
    /// angles; a closed head stays closed (tip, barb, barb, tip).
    public static func recognizeArrow(drawnFirst first: [Point], then second: [Point]) -> RecognizedShape {
        twoStrokeArrowReadings(first, second, decidingOnly: true).chosenShape
    }

    /// What `recognizeArrow` decides and why: each reading (either stroke for the shaft), its
    /// heads' scores against the head's stroke and the test that refused it.
    public static func explainArrow(drawnFirst first: [Point], then second: [Point]) -> RecognitionExplanation {
        twoStrokeArrowReadings(first, second, decidingOnly: false).explanation
    }

    /// The arrow that three strokes drawn one after the other make together, `first`, then
    /// `second`, then `third`: a shaft (a line, or bent at right angles) and a head drawn in
    /// two strokes (two barbs apart, or a closed head's sides), in any order, the head's two
    /// strokes meeting at an end (`TwoStrokeArrow.joinedHead`); or a shaft drawn in two
    /// pieces, `first` and `second`, meeting at an end (`TwoStrokeArrow.joinedShaft`: an
    /// elbow connector's runs drawn one at a time), and its head; `.none` when they make none.
    /// The shape is what `recognizeArrow(drawnFirst:then:)` makes of a shaft and a head.
    public static func recognizeArrow(
        drawnFirst first: [Point], then second: [Point], then third: [Point]
    ) -> RecognizedShape {
        threeStrokeArrowReadings([first, second, third], decidingOnly: true).chosenShape
    }

    /// What `recognizeArrow(drawnFirst:then:then:)` decides and why: each reading (each
    /// stroke for the shaft), its heads' scores and the test that refused it.
    public static func explainArrow(
        drawnFirst first: [Point], then second: [Point], then third: [Point]
    ) -> RecognitionExplanation {
        threeStrokeArrowReadings([first, second, third], decidingOnly: false).explanation
    }

    /// The readings of strokes drawn one after the other as one arrow: the candidates of
    /// those that gave an arrow (its head open and closed) and why the others gave none.
    struct ArrowReadings {
        var decidingOnly: Bool
        var candidates: [Candidate] = []
        var refusals: [(reading: String, refusal: String)] = []

        /// Adds what `reading` gave, read as `fittedTo` says (its head open or closed, or nil
        /// when it gave none).
        mutating func add(_ reading: Result<TwoStrokeArrow, TwoStrokeArrow.Refused>, _ fittedTo: (Bool?) -> FittedTo) {
            switch reading {
            case .failure(let refused):
                if !decidingOnly {
                    refusals.append((fittedTo(nil).description, refused.refusal.description(size: refused.size)))
                }
            case .success(let arrow):
                let length = StrokeResampling.length(of: arrow.headPoints)
                for closed in [false, true] {
                    candidates.append(
                        Candidate(
                            shape: closed ? arrow.shape.closingHead() : arrow.shape,
                            match: Candidate.match(
                                arrow.headPoints, size: arrow.size, length: length, with: .arrow,
                                sides: .each(arrow.headSides(closed: closed)), decidingOnly: decidingOnly,
                                roundingCorners: false),
                            size: arrow.size, fittedTo: fittedTo(closed)))
                }
            }
        }

        /// Whether some reading gave an arrow that passes.
        var anyAccepted: Bool { candidates.contains(where: \.isAccepted) }

        /// The index of the closest candidate that passes.
        var chosen: Int? {
            candidates.indices.filter { candidates[$0].isAccepted }.min {
                candidates[$0].relativeRMS < candidates[$1].relativeRMS
            }
        }

        /// The arrow chosen, or `.none`.
        var chosenShape: RecognizedShape { chosen.map { candidates[$0].shape } ?? .none }

        /// Every reading, its scores and verdict.
        var explanation: RecognitionExplanation {
            let chosen = chosen
            var hypotheses: [RecognitionExplanation.Hypothesis] = candidates.indices.map { index in
                let candidate = candidates[index]
                let verdict =
                    index == chosen
                    ? "chosen" : candidate.refusal.map { "refused: " + $0 } ?? "passes, but another reading is closer"
                return RecognitionExplanation.Hypothesis(candidate, verdict: verdict)
            }
            for (reading, refusal) in refusals {
                hypotheses.append(.init(kind: .arrow, verdict: "not fitted: \(reading): \(refusal)"))
            }
            return RecognitionExplanation(shape: chosenShape, hypotheses: hypotheses)
        }
    }

    /// Both readings of two strokes (each stroke the shaft in turn), and when neither passes
    /// the head split between them.
    static func twoStrokeArrowReadings(_ first: [Point], _ second: [Point], decidingOnly: Bool) -> ArrowReadings {
        var readings = ArrowReadings(decidingOnly: decidingOnly)
        for shaftFirst in [true, false] {
            let (shaft, head) = shaftFirst ? (first, second) : (second, first)
            readings.add(TwoStrokeArrow.read(shaft: shaft, head: head, decidingOnly: decidingOnly)) {
                .twoStrokes(shaftFirst: shaftFirst, splitHead: false, closedHead: $0)
            }
        }
        // When neither is an arrow: the head split between the strokes, one barb drawn on from
        // the shaft, the other apart.
        if !readings.anyAccepted {
            for shaftFirst in [true, false] {
                let (shaft, barb) = shaftFirst ? (first, second) : (second, first)
                readings.add(TwoStrokeArrow.read(shaftAndBarb: shaft, barb: barb, decidingOnly: decidingOnly)) {
                    .twoStrokes(shaftFirst: shaftFirst, splitHead: true, closedHead: $0)
                }
            }
        }
        return readings
    }

    /// The arrow that `stroke` makes with `first` and `second`, the strokes of an arrow
    /// already made of them (a shaft and its head, `first` drawn first): what
    /// `recognizeArrow(drawnFirst:then:then:)` makes of the three, or else a shaft drawn in two
    /// pieces of which `stroke` is one, drawn after the rest (an elbow connector's first run
    /// added to the arrow of its last run and head), the other piece `first` or `second` and
    /// the head the other (`TwoStrokeArrow.joinedShaft`); `.none` when they make none. What a
    /// node makes of a stroke drawn after two that made an arrow
    /// (`recognize(_:after:madeAnArrow:)`).
    public static func recognizeArrow(madeOf first: [Point], _ second: [Point], joining stroke: [Point])
        -> RecognizedShape
    {
        threeStrokeArrowReadings([first, second, stroke], decidingOnly: true, headsOfPieces: headsAfterAnArrow)
            .chosenShape
    }

    /// What `recognizeArrow(madeOf:_:joining:)` decides and why.
    public static func explainArrow(madeOf first: [Point], _ second: [Point], joining stroke: [Point])
        -> RecognitionExplanation
    {
        threeStrokeArrowReadings([first, second, stroke], decidingOnly: false, headsOfPieces: headsAfterAnArrow)
            .explanation
    }

    /// The arrow that `stroke` makes with `first`, `second` and `third`, the strokes of an
    /// arrow already made of them (`first` drawn first): the three taken as that arrow's shaft
    /// and head, as `recognizeArrow(madeOf:_:joining:)` reads them (`arrowParts(madeOf:)`),
    /// and `stroke` joined to the head (`TwoStrokeArrow.joinedHead`: a closed head's base drawn
    /// after its sides, which were drawn apart) or else to the shaft
    /// (`TwoStrokeArrow.joinedShaft`: an elbow connector's first run, drawn last), the other
    /// part as it was; `.none` when they make none. What a node makes of a stroke drawn after
    /// three that made an arrow (`recognize(_:after:madeAnArrow:)`; `StrokesBefore` keeps no
    /// stroke of an arrow of four, so that no arrow takes a fifth).
    public static func recognizeArrow(
        madeOf first: [Point], _ second: [Point], _ third: [Point], joining stroke: [Point]
    ) -> RecognizedShape {
        fourStrokeArrowReadings(joining: stroke, to: arrowParts(madeOf: [first, second, third]), decidingOnly: true)
            .chosenShape
    }

    /// What `recognizeArrow(madeOf:_:_:joining:)` decides and why.
    public static func explainArrow(
        madeOf first: [Point], _ second: [Point], _ third: [Point], joining stroke: [Point]
    ) -> RecognitionExplanation {
        fourStrokeArrowReadings(joining: stroke, to: arrowParts(madeOf: [first, second, third]), decidingOnly: false)
            .explanation
    }

    /// The readings of `stroke` joining `arrow`, the shaft and the head of an arrow of three
    /// strokes (nil: the three make none): joined to its head, and when that is no arrow, to
    /// its shaft.
    static func fourStrokeArrowReadings(
        joining stroke: [Point], to arrow: (shaft: [Point], head: [Point])?, decidingOnly: Bool
    ) -> ArrowReadings {
        var readings = ArrowReadings(decidingOnly: decidingOnly)
        guard let (shaft, head) = arrow else {
            if !decidingOnly { readings.refusals.append(("the first three strokes", "they make no arrow")) }
            return readings
        }
        let toHead = TwoStrokeArrow.joinedHead(head, stroke, decidingOnly: decidingOnly).flatMap {
            TwoStrokeArrow.read(shaft: shaft, head: $0, decidingOnly: decidingOnly)
        }
        readings.add(toHead) { .fourStrokes(toHead: true, closedHead: $0) }
        if !readings.anyAccepted {
            let toShaft = TwoStrokeArrow.joinedShaft(shaft, stroke, decidingOnly: decidingOnly).flatMap {
                TwoStrokeArrow.read(shaft: $0, head: head, decidingOnly: decidingOnly)
            }
            readings.add(toShaft) { .fourStrokes(toHead: false, closedHead: $0) }
        }
        return readings
    }

    /// The shaft and the head of the arrow that three strokes made, read as
    /// `recognizeArrow(madeOf:_:joining:)` reads them: it reads three strokes as
    /// `recognizeArrow(drawnFirst:then:then:)` does, and only when that makes no arrow reads
    /// them further, so the arrow of three a node made, either way, is read again as it was
    /// made (`arrowParts(_:read:)`). Nil when they make no arrow.
    static func arrowParts(madeOf strokes: [[Point]]) -> (shaft: [Point], head: [Point])? {
        let readings = threeStrokeArrowReadings(strokes, decidingOnly: true, headsOfPieces: headsAfterAnArrow)
        return arrowParts(strokes, read: readings)
    }

    /// The shaft and the head of the arrow that `readings` of the three `strokes` chose, each
    /// as one stroke (two of them joined as that reading joined them); nil when they chose none.
    static func arrowParts(_ strokes: [[Point]], read readings: ArrowReadings) -> (shaft: [Point], head: [Point])? {
        guard let chosen = readings.chosen else { return nil }
        /// The two strokes but `index`, in the order drawn.
        func others(_ index: Int) -> (first: [Point], second: [Point]) {
            let indices = strokes.indices.filter { $0 != index }
            return (strokes[indices[0]], strokes[indices[1]])
        }
        switch readings.candidates[chosen].fittedTo {
        case .threeStrokes(let shaft, _):
            let (first, second) = others(shaft)
            let head = try? TwoStrokeArrow.joinedHead(first, second, decidingOnly: true).get()
            return head.map { (strokes[shaft], $0) }
        case .shaftInTwoPieces(let head, _):
            let (first, second) = others(head)
            let shaft = try? TwoStrokeArrow.joinedShaft(first, second, decidingOnly: true).get()
            return shaft.map { ($0, strokes[head]) }
        default:
            return nil
        }
    }

    /// The head of each shaft in two pieces that a stroke joining an arrow of two is read
    /// with, in turn: the new stroke (the arrow's strokes the pieces), then the arrow's
    /// second stroke (its first and the new stroke the pieces), then its first.
    private static let headsAfterAnArrow = [2, 1, 0]

    /// The readings of three strokes: each the shaft in turn, the other two joined into its
    /// head (`TwoStrokeArrow.joinedHead`); and when none of those is an arrow, two joined into
    /// the shaft, the other its head (`TwoStrokeArrow.joinedShaft`), for each of
    /// `headsOfPieces` in turn (by default the third, the first two the pieces) until one is.
    static func threeStrokeArrowReadings(
        _ strokes: [[Point]], decidingOnly: Bool, headsOfPieces: [Int] = [2]
    ) -> ArrowReadings {
        var readings = ArrowReadings(decidingOnly: decidingOnly)
        for shaft in strokes.indices {
            let headStrokes = strokes.indices.filter { $0 != shaft }.map { strokes[$0] }
            let head = TwoStrokeArrow.joinedHead(headStrokes[0], headStrokes[1], decidingOnly: decidingOnly)
            let reading = head.flatMap {
                TwoStrokeArrow.read(shaft: strokes[shaft], head: $0, decidingOnly: decidingOnly)
            }
            readings.add(reading) { .threeStrokes(shaft: shaft, closedHead: $0) }
        }
        // When none of those is an arrow: the shaft drawn in two pieces, one after the other,
        // and then the head (a shaft and a barb drawn on from its tip meet as pieces do).
        for head in headsOfPieces where !readings.anyAccepted {
            let pieces = strokes.indices.filter { $0 != head }.map { strokes[$0] }
            let reading = TwoStrokeArrow.joinedShaft(pieces[0], pieces[1], decidingOnly: decidingOnly).flatMap {
                TwoStrokeArrow.read(shaft: $0, head: strokes[head], decidingOnly: decidingOnly)
            }
            readings.add(reading) { .shaftInTwoPieces(head: head, closedHead: $0) }
        }
        return readings
    }
}
