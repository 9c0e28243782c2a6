import CanvasCore
import Foundation

/// A single-stroke arrow: a straight shaft and, at one end, a head of two barbs drawn
/// without lifting the pen, from either end of the stroke (head last or head first).
///
/// The tip is the first sharp turn after the shaft; the barbs' ends are the points of the
/// head farthest to either side of the shaft. The order in which the head was drawn does
/// not matter: two readings are offered, an open head (the barbs alone, however traced:
/// tail → tip → barb → tip → barb is the "arrow" gesture of the $1 data) and a closed one
/// (the barbs and the stroke across their ends, as in tail → tip → barb → barb → tip),
/// and comparing each with the stroke decides.
struct ArrowFit {
    var tail: Point
    var tip: Point
    /// The ends of the two barbs, the first drawn first.
    var barbs: (Point, Point)
    /// Unit vector from the tip back along the end of the shaft, which the head is drawn
    /// about (on a bowed shaft, not the direction of the whole).
    var axis: Point
    /// The pieces the stroke should follow if it is this arrow: the shaft as drawn (its
    /// straightness is checked here, so that a gently bowed shaft is straightened rather
    /// than refused), then the straight sides of the head.
    var drawnSides: [[Point]]
    /// The indices, in the stroke it was read from, of the head's points and the shaft's
    /// last (the tip, or the first sharp turn): each of the stroke's other points is one of
    /// the shaft's other vertices, as drawn.
    var headPoints: Range<Int>

    /// The smallest barb, as a fraction of the shaft's length: shorter ones are hooks
    /// and jitter at the end of a line.
    static let minimumBarbRatio = 0.1
    /// Barbs must point back along the shaft, each between these angles from `axis`
    /// (radians): a head, not a cross-bar or a hook folding back.
    static let barbAngles = (10.0 * Double.pi / 180)...(80.0 * Double.pi / 180)
    /// The shorter barb must be at least this fraction of the longer: a head's two barbs
    /// are drawn to about one length (the development subjects' shorter barb is 0.42 of
    /// the longer at least, 0.84 in the median), where a brace's curl or the hook that
    /// ends a letter, read as barbs, are not.
    static let barbBalance = 1.0 / 3

    /// Why a stroke has no arrow reading with its head at one end: the first test the
    /// reading fails, with its figures and the tolerance (lengths in the stroke's units).
    /// The cases are in the order the tests are made (`stage`).
    enum Refusal: Error, Equatable {
        /// No turn sharper than `sharpTurn` (radians) past `hookLength` of the stroke.
        case noTip(sharpTurn: Double, hookLength: Double)
        /// A point of the shaft (the first) strays `stray` from the chord from the tail to the
        /// tip, more than `most`.
        case bowedShaft(stray: Double, most: Double)
        /// The shaft's last quarter ends where it starts: no direction to read the head about.
        case shaftWithoutDirection
        /// The tip sought at the head's forwardmost point: none lies ahead of its first sharp turn.
        case noPointAhead
        /// Every point of the head lies on one side of the shaft.
        case headOnOneSide
        /// The tip sought at the head's forwardmost point: the first barb was not drawn out
        /// and back past the first sharp turn before it, or the second not after it.
        case barbsNotAroundForwardmostTip
        /// Barb `barb` (0 the first drawn) is `ratio` of the shaft's length, outside `range`.
        case barbLength(barb: Int, ratio: Double, range: ClosedRange<Double>)
        /// Barb `barb` points `angle` (radians) from the shaft, outside `ArrowFit.barbAngles`.
        case barbAngle(barb: Int, angle: Double)
        /// The shorter barb is `ratio` of the longer, under `ArrowFit.barbBalance`.
        case unbalancedBarbs(ratio: Double)
        /// The head reaches `beyond` farther back along the shaft than its barbs, more than `most`.
        case runsBackDownTheShaft(beyond: Double, most: Double)
        /// Read after a lead-in (`readingsAfterLeadIn`): a point the stroke drew before it
        /// turned at the tail (the first) strays `stray` from the shaft, more than `most`.
        case leadInOffTheShaft(stray: Double, most: Double)

        /// How far through the tests the reading came: the refusal of a later test says
        /// more about a stroke that nearly is an arrow.
        var stage: Int {
            switch self {
            case .noTip: 0
            case .bowedShaft: 1
            case .shaftWithoutDirection: 2
            case .noPointAhead: 3
            case .headOnOneSide: 4
            case .barbsNotAroundForwardmostTip: 5
            case .barbLength: 6
            case .barbAngle: 7
            case .unbalancedBarbs: 8
            case .runsBackDownTheShaft: 9
            case .leadInOffTheShaft: 10
            }
        }

        /// The refusal in words, lengths as fractions of `size` (the stroke's).
        func description(size: Double) -> String {
            func figure(_ fraction: Double) -> String { ShapeRecognizer.figure(fraction) }
            func degrees(_ angle: Double) -> String { ShapeRecognizer.degrees(angle) }
            func barb(_ index: Int) -> String { index == 0 ? "the first barb" : "the second barb" }
            return switch self {
            case .noTip(let sharpTurn, let hookLength):
                "no tip: no turn sharper than \(degrees(sharpTurn))° past the first "
                    + "\(Int((100 * hookLength).rounded())) % of the stroke"
            case .bowedShaft(let stray, let most):
                "the shaft bows: a point of it lies \(figure(stray / size)) of the size from straight "
                    + "(at most \(figure(most / size)))"
            case .shaftWithoutDirection: "the shaft has no direction at the tip"
            case .noPointAhead: "no point of the head lies ahead of its first sharp turn"
            case .headOnOneSide: "the head lies on one side of the shaft"
            case .barbsNotAroundForwardmostTip:
                "the head's forwardmost point is not between its barbs (the first drawn out and back past "
                    + "the shaft's end before it, the second after it)"
            case .barbLength(let index, let ratio, let range):
                "\(barb(index)) is \(figure(ratio)) of the shaft's length "
                    + "(\(figure(range.lowerBound))–\(figure(range.upperBound)))"
            case .barbAngle(let index, let angle):
                "\(barb(index)) points \(degrees(angle))° away from the shaft "
                    + "(\(degrees(ArrowFit.barbAngles.lowerBound))–\(degrees(ArrowFit.barbAngles.upperBound))° "
                    + "back along it)"
            case .unbalancedBarbs(let ratio):
                "the shorter barb is \(figure(ratio)) of the longer (at least \(figure(ArrowFit.barbBalance)))"
            case .runsBackDownTheShaft(let beyond, let most):
                "the head runs back down the shaft \(figure(beyond / size)) of the size beyond its barbs "
                    + "(at most \(figure(most / size)))"
            case .leadInOffTheShaft(let stray, let most):
                "before turning at the tail the stroke strays \(figure(stray / size)) of the size from the "
                    + "shaft (at most \(figure(most / size)))"
            }
        }
    }

    /// A reading of the stroke refused: what it was read on (`ShapeRecognizer.FittedTo`'s
    /// words) and why.
    struct RefusedReading: RefusedArrowReading {
        var reading: String
        var refusal: Refusal

        var stage: Int { refusal.stage }

        func description(size: Double) -> String { " (\(reading)), " + refusal.description(size: size) }
    }

    /// The arrow readings of the stroke (equally spaced points) whose shaft strays at most
    /// `maximumBow` from straight and whose head is plausible: barbs on opposite sides of
    /// the shaft, pointing back along it, no longer than it, and no point of the head
    /// farther back along the shaft than the barbs by more than `maximumBow`. The tip is
    /// the first turn sharper than `sharpTurn` (radians) beyond `hookLength` of the
    /// stroke's length from its tail end. The caller judges which reading, if any, the
    /// stroke actually follows.
    /// `headLast` and `headFirst`: which ends the head is looked for at (both by default).
    /// With `forwardmostTip`, only readings whose tip is the head's point farthest forward
    /// along the shaft, beyond the first sharp turn: the first barb drawn out and back past
    /// that turn before the tip, the second after it, and the shaft straight to the tip.
    /// `minimumBarb`: the shortest barb, as a fraction of the shaft (`minimumBarbRatio`, or
    /// an elbow arrow's own).
    ///
    /// For each end the head was looked for at where the stroke gives no reading, why:
    /// `headLast` at the stroke's end, `headFirst` at its start.
    static func readings(
        _ stroke: [Point], hookLength: Double, sharpTurn: Double, maximumBow: Double, headLast: Bool = true,
        headFirst: Bool = true, forwardmostTip: Bool = false, minimumBarb: Double = minimumBarbRatio
    ) -> (fits: [ArrowFit], headLast: Refusal?, headFirst: Refusal?) {
        let filter = StrokeResampling.SharpTurnFilter(angle: sharpTurn)
        /// The readings with the head at the end of `points` (the stroke, `reversed` or not),
        /// or the first test they fail.
        func readings(_ points: [Point], reversed: Bool) -> Result<[ArrowFit], Refusal> {
            guard
                var tipIndex = firstSharpTurn(
                    of: points, hookLength: hookLength, sharpTurn: sharpTurn, filter: filter)
            else { return .failure(.noTip(sharpTurn: sharpTurn, hookLength: hookLength)) }
            let tail = points[0]
            let shaft = points[...tipIndex]
            /// Nil when the shaft strays at most `maximumBow` from the chord from the tail to
            /// `end`; else the refusal, with the first point's distance beyond it.
            func bow(to end: Point) -> Refusal? {
                for point in shaft {
                    let distance = OutlineMatch.distance(of: point, toSegmentFrom: tail, to: end)
                    if !(distance <= maximumBow) { return .bowedShaft(stray: distance, most: maximumBow) }
                }
                return nil
            }
            if let bowed = bow(to: points[tipIndex]) { return .failure(bowed) }
            // The shaft's last quarter gives the axis the head is drawn about.
            let toShaft = points[tipIndex - max(1, tipIndex / 4)] - points[tipIndex]
            guard toShaft.length > 0 else { return .failure(.shaftWithoutDirection) }
            let axis = toShaft / toShaft.length
            // The head begins at the first sharp turn. The tip is that turn or, with
            // `forwardmostTip`, the head's point farthest forward along the axis: a head drawn
            // as a "<" that the shaft meets short of its point. The shaft must then be as
            // straight (within `maximumBow`) from the tail to that tip.
            let headStart = tipIndex
            if forwardmostTip {
                let ahead = points[headStart...].indices.min {
                    axis.dot(points[$0] - points[headStart]) < axis.dot(points[$1] - points[headStart])
                }!
                guard ahead != headStart else { return .failure(.noPointAhead) }
                if let bowed = bow(to: points[ahead]) { return .failure(bowed) }
                tipIndex = ahead
            }
            let tip = points[tipIndex]
            guard
                let (firstIndex, secondIndex, farthestBack) = barbEnds(
                    of: points, from: headStart, tip: tip, axis: axis)
            else { return .failure(.headOnOneSide) }
            let (first, second) = (points[firstIndex], points[secondIndex])
            let shaftLength = tail.distance(to: tip)
            if tipIndex != headStart {
                // The forwardmost tip holds when the first barb was drawn before it and the
                // second after, the stroke having come back from the first past the shaft's
                // end by at least a barb's least length.
                guard firstIndex < tipIndex, tipIndex < secondIndex,
                    first.distance(to: tip)
                        >= points[headStart].distance(to: tip) + minimumBarb * shaftLength
                else { return .failure(.barbsNotAroundForwardmostTip) }
            }
            if let refusal = headRefusal(
                tip: tip, barbs: (first, second), axis: axis, shaftLength: shaftLength, minimumBarb: minimumBarb,
                farthestBack: farthestBack, maximumBow: maximumBow)
            {
                return .failure(refusal)
            }
            let open = ArrowFit(
                tail: tail, tip: tip, barbs: (first, second), axis: axis,
                drawnSides: [Array(shaft), [tip, first], [tip, second]],
                headPoints: reversed ? 0..<(points.count - headStart) : headStart..<points.count)
            var closed = open
            closed.drawnSides.append([first, second])
            return .success([open, closed])
        }
        var fits: [ArrowFit] = []
        /// Adds the readings of `points` to `fits`; why there are none, else nil.
        func read(_ points: [Point], reversed: Bool) -> Refusal? {
            switch readings(points, reversed: reversed) {
            case .success(let found):
                fits += found
                return nil
            case .failure(let refusal): return refusal
            }
        }
        let refusedLast = headLast ? read(stroke, reversed: false) : nil
        let refusedFirst = headFirst ? read(stroke.reversed(), reversed: true) : nil
        return (fits, refusedLast, refusedFirst)
    }

    /// The indices of the barbs' ends among `points` from `start` (the head's): the points
    /// farthest to either side of the axis through `tip` (each the first of the farthest),
    /// in drawing order, and how far back along `axis` the head reaches from the tip; nil
    /// when the head lies on one side of the axis.
    static func barbEnds(
        of points: [Point], from start: Int, tip: Point, axis: Point
    ) -> (first: Int, second: Int, farthestBack: Double)? {
        // Each head point's signed distance from the axis (its sign tells the side).
        var (farthestOneWay, farthestOtherWay) = (start, start)
        var (most, least) = (axis.cross(points[start] - tip), axis.cross(points[start] - tip))
        var farthestBack = axis.dot(points[start] - tip)
        for index in (start + 1)..<points.count {
            let offset = axis.cross(points[index] - tip)
            if most < offset { (farthestOneWay, most) = (index, offset) }
            if offset < least { (farthestOtherWay, least) = (index, offset) }
            farthestBack = max(farthestBack, axis.dot(points[index] - tip))
        }
        guard most > 0, least < 0 else { return nil }
        return (min(farthestOneWay, farthestOtherWay), max(farthestOneWay, farthestOtherWay), farthestBack)
    }

    /// Why `barbs` (their ends, the first drawn first) are no head for the tip `tip` of a
    /// shaft `shaftLength` long that runs back along `axis` (a unit vector): each barb no
    /// shorter than `minimumBarb` of the shaft and no longer than it (which is what makes
    /// it the shaft), pointing back along it (`barbAngles`), the two drawn to about one
    /// length (`barbBalance`), and no point of the head farther back along the shaft than
    /// the barbs by more than `maximumBow` (`farthestBack`, from the tip: beyond, the stroke
    /// runs back down the shaft, as a star whose first three edges read as a shaft and a
    /// head). Nil when they are a head.
    static func headRefusal(
        tip: Point, barbs: (Point, Point), axis: Point, shaftLength: Double, minimumBarb: Double,
        farthestBack: Double, maximumBow: Double
    ) -> Refusal? {
        let lengths = (minimumBarb * shaftLength)...shaftLength
        let (firstArm, secondArm) = (barbs.0 - tip, barbs.1 - tip)
        let (firstLength, secondLength) = (firstArm.length, secondArm.length)
        /// Why barb `barb` (0 the first drawn), `arm` from the tip, is no barb; nil when it is one.
        func barbRefusal(_ barb: Int, _ arm: Point, length: Double) -> Refusal? {
            guard lengths.contains(length) else {
                return .barbLength(barb: barb, ratio: length / shaftLength, range: minimumBarb...1)
            }
            let angle = abs(atan2(axis.cross(arm), axis.dot(arm)))
            return barbAngles.contains(angle) ? nil : .barbAngle(barb: barb, angle: angle)
        }
        if let refusal = barbRefusal(0, firstArm, length: firstLength)
            ?? barbRefusal(1, secondArm, length: secondLength)
        {
            return refusal
        }
        let (shorter, longer) = (min(firstLength, secondLength), max(firstLength, secondLength))
        guard shorter >= barbBalance * longer else { return .unbalancedBarbs(ratio: shorter / longer) }
        let barbsBack = max(axis.dot(firstArm), axis.dot(secondArm))
        guard farthestBack <= barbsBack + maximumBow else {
            return .runsBackDownTheShaft(beyond: farthestBack - barbsBack, most: maximumBow)
        }
        return nil
    }

    /// The readings of `stroke` (equally spaced points) that begin at its first sharp turn:
    /// the stroke drew the shaft from the tip to the tail before drawing it again from
    /// there (one way of drawing an arrow in one stroke), or hooked at the tail. Each is a
    /// reading of the stroke from that turn (`readings`, the head at the end when
    /// `headLast`, else at the start, the turn then sought from the end), kept when every
    /// point before the turn, the lead-in, lies within `leadInStray` of the straight shaft
    /// from the tail to the tip. The caller compares the whole stroke, lead-in included,
    /// with the readings' sides (their `headPoints` index the stroke from the turn, from the
    /// tail, and do not bound what the whole stroke traces). `refusal`: a reading refused for
    /// its lead-in alone (`leadInOffTheShaft`), when no reading is kept. Any other refusal
    /// is dropped: from the first sharp turn most strokes, arrows drawn the usual way among
    /// them, are read with a barb for the shaft, and why that fails says nothing of the
    /// stroke.
    static func readingsAfterLeadIn(
        _ stroke: [Point], headLast: Bool, hookLength: Double, sharpTurn: Double, maximumBow: Double,
        leadInStray: Double
    ) -> (fits: [ArrowFit], refusal: Refusal?) {
        let oriented = headLast ? stroke : stroke.reversed()
        guard let turn = firstSharpTurn(of: oriented, hookLength: hookLength, sharpTurn: sharpTurn) else {
            return ([], nil)
        }
        // The stroke from the turn, in reading order (from the tail): read with its head last.
        let fits = readings(
            Array(oriented[turn...]), hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: maximumBow,
            headLast: true, headFirst: false
        ).fits
        var refusal: Refusal?
        let kept = fits.filter { fit in
            let distances = oriented[...turn].lazy.map {
                OutlineMatch.distance(of: $0, toSegmentFrom: fit.tail, to: fit.tip)
            }
            guard let stray = distances.first(where: { !($0 <= leadInStray) }) else { return true }
            refusal = .leadInOffTheShaft(stray: stray, most: leadInStray)
            return false
        }
        return (kept, kept.isEmpty ? refusal : nil)
    }

    /// Where an arrow read from `points` (equally spaced, the head at their end) has its
    /// tip, before any other reading of it: the first turn sharper than `sharpTurn`
    /// (radians) beyond `hookLength` of the points from their start, at its sharpest
    /// sample; nil when there is none. (`filter`: `sharpTurn`'s, made once by the caller.)
    static func firstSharpTurn(
        of points: [Point], hookLength: Double, sharpTurn: Double,
        filter: StrokeResampling.SharpTurnFilter? = nil
    ) -> Int? {
        let filter = filter ?? StrokeResampling.SharpTurnFilter(angle: sharpTurn)
        let start = max(StrokeResampling.turnReach, Int(hookLength * Double(points.count - 1)))
        guard start < points.count - StrokeResampling.turnReach,
            var index = (start..<(points.count - StrokeResampling.turnReach)).first(where: {
                filter.mayTurn(points, at: $0) && StrokeResampling.turn(of: points, at: $0) > sharpTurn
            })
        else { return nil }
        // Climb to the sharpest point of the turn.
        while index + 1 < points.count - StrokeResampling.turnReach,
            StrokeResampling.turn(of: points, at: index + 1) > StrokeResampling.turn(of: points, at: index)
        {
            index += 1
        }
        return index
    }

    /// Whether this reading's head is closed: the stroke runs across the barbs' ends.
    var hasClosedHead: Bool { drawnSides.count == 4 }

    /// How far back along the shaft from the tip the barbs reach (the farther one's end).
    var barbReach: Double { max(axis.dot(barbs.0 - tip), axis.dot(barbs.1 - tip)) }

    /// Whether `stroke`, the points this was read from (`length` long), may trace at least
    /// `minimumDrawn` of this arrow's sides and `minimumDrawnSide` of each, as its
    /// `OutlineMatch` with `drawnSides` measures them: false only when it certainly does
    /// not, so that the match need not be made. Found from the head's points alone, against
    /// the head's sides alone, which is cheap where the full match is not.
    ///
    /// Why it is an upper bound. The stroke's points outside `headPoints` are vertices of
    /// the shaft, the first side, at no distance from it: each has its foot there. Each of
    /// the other points whose foot is on a head side has the same foot among the head sides
    /// alone (the first of the nearest, in the same order). And a side's feet cover no more
    /// once some are taken away (two gaps become one, covered only when both were). So the
    /// head's points alone trace at least as much of each head side as the stroke does, and
    /// the shaft is traced at most whole. (A billionth of slack for the rounding of sums
    /// taken in another order. A shaft vertex is at no distance from the edge it begins only
    /// while that edge is finite: a stroke whose length overflows, or any figure that is not
    /// finite, may trace anything.)
    func mayBeTraced(by stroke: [Point], length: Double, minimumDrawn: Double, minimumDrawnSide: Double) -> Bool {
        guard length.isFinite else { return true }
        /// Whether `figure` is certainly under `least`.
        func isShort(_ figure: Double, of least: Double) -> Bool { figure.isFinite && figure < least * (1 - 1e-9) }
        let headSides = Array(drawnSides.dropFirst())
        let head = OutlineMatch(
            stroke: Array(stroke[headPoints]), sides: .each(headSides),
            bridging: OutlineMatch.bridge(length: length, count: stroke.count))
        if isShort(head.leastDrawnSide, of: minimumDrawnSide) { return false }
        let shaft = StrokeResampling.length(of: drawnSides[0])
        let headLength = headSides.reduce(0) { $0 + StrokeResampling.length(of: $1) }
        return !isShort((shaft + head.drawnFraction * headLength) / (shaft + headLength), of: minimumDrawn)
    }

    /// The arrow made straight and symmetric: the shaft from tail to tip, and its
    /// `symmetricBarbs`, as the polyline tail, tip, barb, tip, barb; a closed head
    /// (`hasClosedHead`) stays closed: tail, tip, barb, barb, tip.
    var symmetricPolyline: [Point] {
        let barbs = symmetricBarbs
        return hasClosedHead ? [tail, tip, barbs.0, barbs.1, tip] : [tail, tip, barbs.0, tip, barbs.1]
    }

    /// The ends of two barbs of the drawn barbs' mean length at their mean angle from `axis`,
    /// either side of the shaft, the first on the first drawn barb's side. Lengths are taken
    /// by `hypot`, which does not overflow where their squares would (a shaft over about
    /// 10¹⁵⁴ long: its barbs were not finite, found by FuzzRecognizer).
    var symmetricBarbs: (Point, Point) {
        let shaft = tail - tip
        let back = shaft / hypot(shaft.x, shaft.y)
        let arms = [barbs.0 - tip, barbs.1 - tip]
        let length = (hypot(arms[0].x, arms[0].y) + hypot(arms[1].x, arms[1].y)) / 2
        let angle = arms.map { abs(atan2(axis.cross($0), axis.dot($0))) }.reduce(0, +) / 2
        // The first barb keeps its side of the shaft.
        let side: Double = axis.cross(arms[0]) < 0 ? -1 : 1
        func barb(_ turn: Double) -> Point {
            let (c, s) = (cos(turn), sin(turn))
            return tip + Point(x: back.x * c - back.y * s, y: back.x * s + back.y * c) * length
        }
        return (barb(side * angle), barb(-side * angle))
    }
}

/// A refused reading of a stroke as an arrow, straight or bent: how far through the tests
/// it came, and what it was and why in words.
protocol RefusedArrowReading {
    /// How far through the tests the reading came: a later test's refusal says more about a
    /// stroke that nearly is an arrow.
    var stage: Int { get }
    /// The reading and its refusal in words, lengths as fractions of `size`, to follow the
    /// end it was read at ("with the head at the stroke's end").
    func description(size: Double) -> String
}

/// For each end of a stroke its head was looked for at, the refused reading that came
/// furthest through the tests (of two as far, the first kept): what `explain` says of an
/// arrow, straight or bent, that no reading made.
struct FurthestRefusals<Refused: RefusedArrowReading> {
    /// With the head at the stroke's end.
    private(set) var headLast: Refused?
    /// With the head at its start.
    private(set) var headFirst: Refused?

    /// Keeps `refused`, read with the head at the stroke's end (`headLast`) or its start,
    /// when it came further than the one kept for that end.
    mutating func keep(_ refused: Refused, headLast isLast: Bool) {
        func isFurther(than kept: Refused?) -> Bool { kept.map { $0.stage < refused.stage } ?? true }
        if isLast {
            if isFurther(than: headLast) { headLast = refused }
        } else if isFurther(than: headFirst) {
            headFirst = refused
        }
    }

    /// Both ends' refusals in words, lengths as fractions of `size`.
    func description(size: Double) -> String {
        [("with the head at the stroke's end", headLast), ("with the head at its start", headFirst)]
            .compactMap { end, refused in refused.map { end + $0.description(size: size) } }
            .joined(separator: "; ")
    }
}
