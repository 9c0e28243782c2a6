public import CanvasCore
import Foundation

/// A closed shape drawn in several strokes, one after the other: a flowchart's box drawn as
/// two L's, or a U and a lid, or four sides; a circle drawn as two arcs. (In the online
/// flowchart database 860 of 945 process boxes are drawn in two to four strokes.)
///
/// The strokes are joined end to end in the loop that leaves the least gap between their
/// ends, in any order and each either way round (people draw a box's sides in any order),
/// opened at its widest gap (where the shape closes, which the recogniser judges); every
/// other junction must be short: within `junctionTolerance` of the joined stroke's size.
/// When that makes no closed shape, the strokes are joined again where they cross
/// (`Junctions.whereTheyCross`): a circle's second arc drawn on past the first's end.
/// The joined stroke is then recognised as one stroke is (`ShapeRecognizer.recognize`),
/// every shape matched in full, and a closed shape that passes is chosen among those the
/// joining does not refuse: a triangle never (drawn in several strokes it is most often an
/// arrow's closed head); a quadrilateral only when each stroke is at most
/// `mostStraightRuns` straight runs (a side, an L, a U: the stem and bowl of a D join into a
/// loop that a rectangle follows as closely as a hand-drawn box, but the bowl is a curve,
/// many runs), or when a curved stroke is a rounded end and the strokes make no other
/// closed shape (`isRoundedEnd`: a flowchart's terminator, a stadium, drawn as two sides and
/// two arcs); an ellipse not of two strokes one of which is straight (`isStem`: a D again). MMG's D's
/// joined: 205 of 240 became shapes without these tests, 2 with them (docs/recognition.md,
/// "Closed shapes drawn in several strokes").
struct JoinedStrokes {
    /// Why strokes drawn one after the other make no closed shape together.
    enum Refusal: Error, Equatable {
        /// Fewer than two strokes, or more than `ShapeRecognizer.mostStrokesJoined`.
        case strokeCount(Int)
        /// A stroke has no point.
        case strokeWithoutPoints(stroke: Int)
        /// However the strokes are put in a loop, two that the loop joins lie apart: stroke
        /// `stroke` (0 the first drawn) starts `gap` (of the joined size, or at least that when
        /// `measuredOnBounds`: against the diagonal of the strokes' bounds, which is no less
        /// than their size) from the end of stroke `after`, more than `most`.
        case strokesApart(stroke: Int, after: Int, gap: Double, measuredOnBounds: Bool, most: Double)
        /// Joined where they cross (`Junctions.whereTheyCross`): the strokes cross at no junction
        /// of their loop, or a stroke is crossed so near both its ends that nothing of it is left.
        case noCrossing
        /// The joined stroke is recognised as `kind`, no closed shape.
        case notClosed(ShapeKind)
        /// The joined stroke is recognised as a triangle: drawn in several strokes, most often an
        /// arrow's closed head (two strokes, the shaft drawn before or after them).
        case triangle
        /// The joined stroke is recognised as an ellipse, but it is two strokes, and stroke
        /// `stem` is straight: a letter's stem and bowl (a D).
        case stemAndBowl(stem: Int)
        /// The joined stroke is recognised as the quadrilateral `kind`, but stroke `stroke` bends
        /// into `runs` straight runs, more than `most`, and is no rounded end that may be taken
        /// (`isRoundedEnd`; only when the strokes make no other closed shape: `roundedEnds`).
        case curvedStroke(kind: ShapeKind, stroke: Int, runs: Int, most: Int, roundedEnds: Bool)

        /// `kind` with its article ("an ellipse"), or "no shape".
        static func named(_ kind: ShapeKind) -> String {
            switch kind {
            case .none: "no shape"
            case .ellipse, .arrow, .elbowArrow: "an " + kind.rawValue.replacingOccurrences(of: "_", with: " ")
            case .line, .rectangle, .diamond, .parallelogram, .triangle, .doubleArrow:
                "a " + kind.rawValue.replacingOccurrences(of: "_", with: " ")
            }
        }

        /// In words, as `explain` gives it (strokes counted from 1, the first drawn).
        var description: String {
            switch self {
            case .strokeCount(let count): "\(count) strokes (2 to \(ShapeRecognizer.mostStrokesJoined) are joined)"
            case .strokeWithoutPoints(let stroke): "stroke \(stroke + 1) has no point"
            case .strokesApart(let stroke, let after, let gap, let measuredOnBounds, let most):
                "the strokes meet end to end in no loop: in the closest, stroke \(stroke + 1) starts "
                    + "\(ShapeRecognizer.figure(gap))\(measuredOnBounds ? " or more" : "") of the joined size from an "
                    + "end of stroke \(after + 1) (at most \(ShapeRecognizer.figure(most)))"
            case .noCrossing:
                "the strokes cross at no junction of their loop (a stroke's end across the next one's start, "
                    + "both running the same way, neither running on past it more than "
                    + "\(ShapeRecognizer.figure(mostRunOn)) of the strokes' size), or a stroke is crossed so near both "
                    + "its ends that nothing of it is left"
            case .notClosed(let kind):
                "the strokes joined make \(Self.named(kind)), no closed shape"
            case .triangle:
                "the strokes joined make a triangle, which drawn in several strokes is most often an arrow's "
                    + "closed head, its shaft drawn before or after it: left as drawn"
            case .stemAndBowl(let stem):
                "the strokes joined make an ellipse, but of two strokes, and stroke \(stem + 1) is straight (one "
                    + "straight run, or within \(ShapeRecognizer.figure(stemBend)) of its chord's length of it): an "
                    + "ellipse has no straight side, and a curve closing on a straight stroke is a letter's stem and "
                    + "bowl (a D)"
            case .curvedStroke(let kind, let stroke, let runs, let most, let roundedEnds):
                "the strokes joined make \(Self.named(kind)), but stroke \(stroke + 1) bends into \(runs) "
                    + "straight runs (at most \(most)): a polygon's sides drawn apart are straight, and a curve "
                    + "joined to a straight stroke is a letter's bowl and stem (a D, a P)"
                    + (roundedEnds
                        ? "; nor is it a rounded end: at most \(ShapeRecognizer.figure(roundedEndShare)) of the "
                            + "strokes' length, its ends the shortest side apart (within "
                            + "\(ShapeRecognizer.figure(roundedEndSpan))× either way)"
                        : " (a curve is taken for a rounded end only when the strokes make no other closed shape)")
            }
        }
    }

    /// The longest a junction may be, as a fraction of the joined stroke's size: a tenth
    /// (the gap a closed shape may leave where its stroke closes is `OutlineMatch`'s). In
    /// the flowchart database, joined whole, 93.6 % of the boxes drawn in two to four strokes
    /// become rectangles within it (writers of even number looked at; docs/recognition.md).
    static let junctionTolerance = 0.1
    /// A stroke's straight runs: its polyline simplified (Douglas–Peucker) to within this
    /// fraction of the stroke's own size ...
    static let straightRunTolerance = 0.04
    /// ... has at most this many segments for a polygon's stroke: a side, an L or a U ...
    static let mostStraightRuns = 3
    /// ... not counting those shorter than this fraction of the stroke's length: a hook where
    /// the pen lands or lifts, a corner rounded off.
    static let shortestRun = 0.1
    /// A curved stroke rounds a quadrilateral's end off (`isRoundedEnd`) when it is at most
    /// this fraction of the strokes' length together (a stadium's half circle is 0.17 to
    /// 0.31 of its outline from 4:1 to 2:1; a D's bowl, three of its sides, about 0.7) ...
    static let roundedEndShare = 1.0 / 3
    /// ... and its ends are as far apart as the quadrilateral's shortest side, within this
    /// ratio either way: it spans the end it stands for, from corner to corner (a curl of
    /// handwriting beside a box's undrawn side spans part of a side, a curved stroke along a
    /// long side is no end).
    static let roundedEndSpan = 0.75

    /// A stroke of two that an ellipse is refused for (`isStem`) strays at most this fraction
    /// of its chord's length from its chord (or is one straight run): MMG's D's stems, 96 % within
    /// 0.063; the straighter half of a flowchart's terminator or connection circle drawn in two,
    /// 0.17 and more (but for four terminators drawn as a side and a U); half an ellipse of 6:1
    /// drawn along its long axis, 0.083.
    static let stemBend = 0.08
    /// Joined where they cross (`Junctions.whereTheyCross`), a stroke may run on at most this
    /// fraction of the strokes' size past the crossing ...
    static let mostRunOn = 0.2
    /// ... the crossing within `ShapeRecognizer.closureReach` of its points from its end (as one
    /// stroke's lead-in and run-out round its closed loop) ...
    static let crossingReach = ShapeRecognizer.closureReach
    /// ... and the strokes running the same way there, within 45°: a stroke drawn on past
    /// another's end, not across it (a D's stem crossed by its bowl, a box's sides crossing at
    /// a corner: those are joined end to end).
    static let crossingAgreement = (0.5 as Double).squareRoot()

    /// How the strokes are joined where they meet.
    enum Junctions: CaseIterable {
        /// Each stroke's end to the next one's start.
        case endToEnd
        /// Where a stroke's end crosses the next one's start, each running on past the other a
        /// little (a circle's second arc drawn on past the first's end, the two ends 0.1 to 0.17
        /// of the size apart): the strokes cut at the crossing; end to end where none crosses.
        case whereTheyCross
    }

    /// Stroke `from` ending (reversed or not) where stroke `to` starts (reversed or not).
    struct Junction: Hashable {
        var from: Int
        var fromReversed: Bool
        var to: Int
        var toReversed: Bool
    }

    /// Where a stroke's end crosses the next one's start: the first kept up to `end` (an index
    /// of its points as placed), then `point`; the next from `point`, then its points from `start`.
    struct Crossing {
        var end: Int
        var start: Int
        var point: Point
    }

    /// The strokes joined end to end round the loop, as one stroke.
    var points: [Point]
    /// The strokes as drawn, in the order drawn (what the refusals count from).
    var strokes: [[Point]]
    /// How many straight runs each stroke is (`straightRuns(in:)`).
    var runs: [Int]
    /// Each stroke's length, as drawn (`isRoundedEnd` compares them).
    var lengths: [Double]
    /// The junctions joined where the strokes cross, as (stroke, the stroke after it), counted
    /// from 0 the first drawn (what `explain` names).
    var crossed: [(Int, Int)] = []

    /// Every order of `count` strokes that begins with the first.
    static func orders(of count: Int) -> [[Int]] {
        guard count > 1 else { return [Array(0..<count)] }
        return orders(of: count - 1).flatMap { order in
            (1...order.count).map { place in
                var longer = order
                longer.insert(count - 1, at: place)
                return longer
            }
        }
    }

    /// `strokes` (the first drawn first) joined round their loop at `junctions`, or why they
    /// cannot be.
    static func join(_ strokes: [[Point]], at junctions: Junctions = .endToEnd) -> Result<JoinedStrokes, Refusal> {
        guard (2...ShapeRecognizer.mostStrokesJoined).contains(strokes.count) else {
            return .failure(.strokeCount(strokes.count))
        }
        // A tap (a stroke without length) is a point of the loop: a pen set down at a corner
        // while drawing a box is joined with it, one set down elsewhere keeps it from closing.
        if let empty = strokes.firstIndex(where: \.isEmpty) {
            return .failure(.strokeWithoutPoints(stroke: empty))
        }
        var crossings: [Junction: Crossing] = [:]
        if junctions == .whereTheyCross {
            crossings = Self.crossings(of: strokes)
            if crossings.isEmpty { return .failure(.noCrossing) }
        }
        // The loop through every stroke's ends that leaves the least gap between them: the
        // strokes in any order, each either way round (the first as drawn; 48 loops of four);
        // a junction where the strokes cross leaves none.
        var best: (order: [Int], reversed: [Bool], gaps: [Double], total: Double)?
        for order in Self.orders(of: strokes.count) {
            for flips in 0..<(1 << (strokes.count - 1)) {
                let reversed = order.indices.map { $0 > 0 && flips & (1 << ($0 - 1)) != 0 }
                func start(_ k: Int) -> Point { reversed[k] ? strokes[order[k]].last! : strokes[order[k]][0] }
                func end(_ k: Int) -> Point { reversed[k] ? strokes[order[k]][0] : strokes[order[k]].last! }
                let gaps = order.indices.map { k in
                    let next = (k + 1) % order.count
                    let junction = Junction(loop: order, reversed: reversed, from: k, to: next)
                    return crossings[junction] == nil ? end(k).distance(to: start(next)) : 0
                }
                let total = gaps.reduce(0, +)
                if best == nil || total < best!.total { best = (order, reversed, gaps, total) }
            }
        }
        // Opened at its widest gap, the shape's closing; the other gaps are the junctions.
        let (order, reversed, gaps, _) = best!
        let opening = gaps.indices.max { gaps[$0] < gaps[$1] }!
        let placed = order.indices.map { (opening + 1 + $0) % order.count }
        var chain = placed.map { reversed[$0] ? strokes[order[$0]].reversed() : strokes[order[$0]] }
        var crossed: [(Int, Int)] = []
        if !crossings.isEmpty {
            // Each stroke from where the one before crosses it to where it crosses the next.
            var (starts, ends) = (chain.map { _ in 0 }, chain.map { $0.count - 1 })
            var (heads, tails) = (chain.map { _ in [Point]() }, chain.map { _ in [Point]() })
            for k in chain.indices.dropLast() {
                let junction = Junction(loop: order, reversed: reversed, from: placed[k], to: placed[k + 1])
                guard let crossing = crossings[junction] else { continue }
                (ends[k], starts[k + 1]) = (crossing.end, crossing.start)
                (tails[k], heads[k + 1]) = ([crossing.point], [crossing.point])
                crossed.append((junction.from, junction.to))
            }
            // No crossing on the loop (the strokes joined as end to end), or a stroke crossed so
            // near both its ends that nothing of it is left between the crossings.
            if crossed.isEmpty || chain.indices.contains(where: { starts[$0] > ends[$0] }) {
                return .failure(.noCrossing)
            }
            chain = chain.indices.map { heads[$0] + chain[$0][starts[$0]...ends[$0]] + tails[$0] }
        }
        let points = chain.flatMap { $0 }
        let widest = order.indices.filter { $0 != opening }.max { gaps[$0] < gaps[$1] }
        let (size, measuredOnBounds) =
            widest.map { Self.size(of: points, judging: gaps[$0], tolerance: junctionTolerance) }
            ?? (StrokeResampling.diameter(of: points), false)
        let most = junctionTolerance * size
        if let widest, !(gaps[widest] <= most) {
            return .failure(
                .strokesApart(
                    stroke: order[(widest + 1) % order.count], after: order[widest], gap: gaps[widest] / size,
                    measuredOnBounds: measuredOnBounds, most: junctionTolerance))
        }
        return .success(
            JoinedStrokes(
                points: points, strokes: strokes, runs: strokes.map(Self.straightRuns(in:)),
                lengths: strokes.map(StrokeResampling.length(of:)), crossed: crossed))
    }

    /// The size of `points` (not empty) that tells whether ends `gap` apart lie farther apart
    /// than `tolerance` of it: the diagonal of their bounds when they lie farther apart than
    /// that of it (`onBounds`: no less than the size, found in one pass, where the size may
    /// compare every pair or sort the points; most strokes drawn one after the other lie that
    /// far apart), else the size (`StrokeResampling.diameter`).
    static func size(of points: [Point], judging gap: Double, tolerance: Double) -> (size: Double, onBounds: Bool) {
        let diagonal = diagonal(enclosing: points)
        return gap > tolerance * diagonal ? (diagonal, true) : (StrokeResampling.diameter(of: points), false)
    }

    /// The diagonal of the bounds of `points` (not empty): no less than their size.
    static func diagonal(enclosing points: [Point]) -> Double {
        let bounds = Rect(enclosing: points)!
        return (bounds.width * bounds.width + bounds.height * bounds.height).squareRoot()
    }

    /// Every junction of two of `strokes` (each either way round) where the first's end
    /// crosses the second's start (`crossing(of:into:runningOn:)`).
    static func crossings(of strokes: [[Point]]) -> [Junction: Crossing] {
        let ends = strokes.map {
            (start: CrossingReach(of: $0, atStart: true), end: CrossingReach(of: $0, atStart: false))
        }
        // Looked for first with each stroke running on as far as the strokes' bounds allow (the
        // diagonal is no less than their size), then again, measuring the size, where found.
        func crossings(runningOn most: Double, at junctions: [Junction]) -> [Junction: Crossing] {
            var crossings: [Junction: Crossing] = [:]
            for junction in junctions {
                // A stroke reversed ends where it was drawn from.
                let first = junction.fromReversed ? ends[junction.from].start : ends[junction.from].end
                let second = junction.toReversed ? ends[junction.to].end : ends[junction.to].start
                guard first.bounds.intersects(second.bounds),
                    var crossing = crossing(of: first, into: second, runningOn: most)
                else { continue }
                // As indices of the strokes as placed.
                if junction.fromReversed { crossing.end = strokes[junction.from].count - 1 - crossing.end }
                if junction.toReversed { crossing.start = strokes[junction.to].count - 1 - crossing.start }
                crossings[junction] = crossing
            }
            return crossings
        }
        let all = strokes.flatMap { $0 }
        let diagonal = Self.diagonal(enclosing: all)
        let junctions = strokes.indices.flatMap { from in
            strokes.indices.filter { $0 != from }.flatMap { to in
                [(false, false), (false, true), (true, false), (true, true)].map {
                    Junction(from: from, fromReversed: $0.0, to: to, toReversed: $0.1)
                }
            }
        }
        let found = crossings(runningOn: mostRunOn * diagonal, at: junctions)
        guard !found.isEmpty else { return [:] }
        return crossings(runningOn: mostRunOn * StrokeResampling.diameter(of: all), at: Array(found.keys))
    }

    /// A stroke's points within `crossingReach` of its start or end (of its points), looked
    /// at in steps of a sixteenth of that reach (whole points, at least one: 16 to 31
    /// segments, fewer on a short stroke), from that end inward: where it may cross another
    /// stroke.
    struct CrossingReach {
        /// The points' indices in the stroke as drawn, the end's first.
        var indices: [Int]
        var points: [Point]
        var bounds: Rect

        init(of stroke: [Point], atStart: Bool) {
            let reach = max(1, Int(crossingReach * Double(stroke.count - 1)))
            let step = max(1, reach / 16)
            indices =
                atStart
                ? Array(stride(from: 0, to: min(reach, stroke.count - 1), by: step)) + [min(reach, stroke.count - 1)]
                : Array(stride(from: stroke.count - 1, to: max(0, stroke.count - 1 - reach), by: -step))
                    + [max(0, stroke.count - 1 - reach)]
            points = indices.map { stroke[$0] }
            bounds = Rect(enclosing: points)!
        }
    }

    /// Where the end of the first stroke crosses the start of the second (`first` and
    /// `second` their reaches there), the two running the same way there (within
    /// `crossingAgreement`) and neither running on past it more than `most` (measured along
    /// it): of those, the crossing that cuts off least, its indices those of the strokes as
    /// drawn; nil when none.
    static func crossing(of first: CrossingReach, into second: CrossingReach, runningOn most: Double) -> Crossing? {
        var best: (crossing: Crossing, cut: Double)?
        // The first's segments from its end back (drawn from `p` to `q`, its end), the second's
        // from its start on (drawn from `r` to `s`), each with the length run on beyond it.
        var runOnFirst = 0.0
        for k in first.points.indices.dropLast() where runOnFirst <= most {
            let (p, q) = (first.points[k + 1], first.points[k])
            var runOnSecond = 0.0
            for m in second.points.indices.dropLast() where runOnSecond <= most {
                let (r, s) = (second.points[m], second.points[m + 1])
                if (q - p).dot(s - r) >= crossingAgreement * p.distance(to: q) * r.distance(to: s),
                    let (t, u) = Self.intersection(from: p, to: q, withSegmentFrom: r, to: s)
                {
                    let cut = (runOnFirst + (1 - t) * p.distance(to: q), runOnSecond + u * r.distance(to: s))
                    if cut.0 <= most, cut.1 <= most, best == nil || cut.0 + cut.1 < best!.cut {
                        let crossing = Crossing(
                            end: first.indices[k + 1], start: second.indices[m + 1], point: p + (q - p) * t)
                        best = (crossing, cut.0 + cut.1)
                    }
                }
                runOnSecond += r.distance(to: s)
            }
            runOnFirst += p.distance(to: q)
        }
        return best?.crossing
    }

    /// Where the segment `p`–`q` crosses the segment `r`–`s`, as the fraction of the way along
    /// each; nil when they do not, are parallel, or are so long that their cross products
    /// overflow (a crossing found then would be none).
    static func intersection(from p: Point, to q: Point, withSegmentFrom r: Point, to s: Point) -> (Double, Double)? {
        let (along, across) = (q - p, s - r)
        let denominator = along.cross(across)
        guard denominator != 0, denominator.isFinite else { return nil }
        let offset = r - p
        let (t, u) = (offset.cross(across) / denominator, offset.cross(along) / denominator)
        guard t.isFinite, u.isFinite, t >= 0, t <= 1, u >= 0, u <= 1 else { return nil }
        return (t, u)
    }

    /// Why `shape` is not taken for the joined stroke (nil when it may be): a triangle; a
    /// quadrilateral of a stroke of more than `mostStraightRuns` straight runs, unless
    /// `roundedEnds` and the stroke is a rounded end of it (`isRoundedEnd`); an ellipse of two
    /// strokes, one of them straight. (Other shapes than closed ones are refused after the
    /// choice: a line that passes is chosen, and the strokes then make none.)
    func refusal(of shape: RecognizedShape, roundedEnds: Bool) -> Refusal? {
        let kind = shape.kind
        switch kind {
        case .triangle: return .triangle
        case .rectangle, .diamond, .parallelogram:
            let curved = curvedStrokes.first { !(roundedEnds && isRoundedEnd($0, of: shape.points)) }
            return curved.map {
                .curvedStroke(
                    kind: kind, stroke: $0, runs: runs[$0], most: Self.mostStraightRuns, roundedEnds: roundedEnds)
            }
        case .ellipse:
            guard strokes.count == 2 else { return nil }
            return strokes.indices.first(where: isStem).map { .stemAndBowl(stem: $0) }
        case .line, .arrow, .elbowArrow, .doubleArrow, .none: return nil
        }
    }

    /// Whether stroke `k` may be an end of the quadrilateral `corners` (closed: the first
    /// repeated last) drawn rounded: at most `roundedEndShare` of the strokes' length, its
    /// ends as far apart as the shortest side within `roundedEndSpan` either way.
    func isRoundedEnd(_ k: Int, of corners: [Point]) -> Bool {
        let shortestSide = zip(corners, corners.dropFirst()).map { $0.distance(to: $1) }.min() ?? 0
        let span = strokes[k][0].distance(to: strokes[k][strokes[k].count - 1])
        // Compared, not made a range: a range of figures that are not numbers would trap.
        return lengths[k] <= Self.roundedEndShare * lengths.reduce(0, +)
            && span >= Self.roundedEndSpan * shortestSide && span <= shortestSide / Self.roundedEndSpan
    }

    /// Whether stroke `k` is straight, as an ellipse's stroke of two may not be: one straight
    /// run, or within `stemBend` of its chord's length of its chord.
    func isStem(_ k: Int) -> Bool {
        guard runs[k] > 1 else { return true }
        let (first, last) = (strokes[k][0], strokes[k][strokes[k].count - 1])
        let chord = first.distance(to: last)
        let farthest = strokes[k].lazy.map { OutlineMatch.distance(of: $0, toSegmentFrom: first, to: last) }.max()!
        return farthest <= Self.stemBend * chord
    }

    /// The strokes that bend into more than `mostStraightRuns` straight runs (a quadrilateral
    /// of them is taken only when each is a rounded end).
    var curvedStrokes: [Int] { runs.indices.filter { runs[$0] > Self.mostStraightRuns } }

    /// How many straight runs `stroke` is, not counting short ones (under `shortestRun` of
    /// its length: a hook, a rounded corner): its polyline simplified (Douglas–Peucker) to
    /// within `straightRunTolerance` of its size.
    static func straightRuns(in stroke: [Point]) -> Int {
        let size = StrokeResampling.diameter(of: stroke)
        let length = StrokeResampling.length(of: stroke)
        guard stroke.count > 2, size > 0, length > 0 else { return 1 }
        let tolerance = straightRunTolerance * size
        // The simplified polyline's corners, as indices of the stroke; stretches still to split.
        var corners = [0, stroke.count - 1]
        var stretches = [(0, stroke.count - 1)]
        while let (first, last) = stretches.popLast() {
            guard last - first > 1 else { continue }
            let (a, b) = (stroke[first], stroke[last])
            var farthest = (index: first, distance: 0.0)
            for index in (first + 1)..<last {
                let distance = OutlineMatch.distance(of: stroke[index], toSegmentFrom: a, to: b)
                if distance > farthest.distance { farthest = (index, distance) }
            }
            guard farthest.distance > tolerance else { continue }
            corners.append(farthest.index)
            stretches.append((first, farthest.index))
            stretches.append((farthest.index, last))
        }
        corners.sort()
        return zip(corners, corners.dropFirst()).count { first, last in
            StrokeResampling.length(of: Array(stroke[first...last])) >= shortestRun * length
        }
    }
}

extension JoinedStrokes.Junction {
    /// The junction of a loop of strokes (`order`, each `reversed` or not) between its places
    /// `place` and `next`.
    init(loop order: [Int], reversed: [Bool], from place: Int, to next: Int) {
        self.init(from: order[place], fromReversed: reversed[place], to: order[next], toReversed: reversed[next])
    }
}

extension ShapeRecognizer {
    /// The most strokes a shape is joined from: a box's four sides.
    public static let mostStrokesJoined = 4

    /// The closed shape that `strokes` (two to four, in the order drawn) make joined end to
    /// end (`JoinedStrokes`): a rectangle, diamond, parallelogram or ellipse, as `recognize`
    /// chooses among the shapes the joined stroke passes but those the joining refuses
    /// (first without rounded ends, then, when that makes none, with them); when that makes
    /// none, the same with the strokes joined where they cross (`Junctions.whereTheyCross`);
    /// `.none` when they make none.
    public static func recognizeClosedShape(joining strokes: [[Point]]) -> RecognizedShape {
        for junctions in JoinedStrokes.Junctions.allCases {
            guard case .success(let joined) = JoinedStrokes.join(strokes, at: junctions) else { continue }
            // Every shape matched in full: one the joining refuses may not cut another's match short.
            var unfitted: [(ShapeKind, String)] = []
            let found = candidates(StrokeSmoothing.smoothed(joined.points), unfitted: &unfitted)
            for roundedEnds in joined.curvedStrokes.isEmpty ? [false] : [false, true] {
                let all = found.filter { joined.refusal(of: $0.shape, roundedEnds: roundedEnds) == nil }
                if let chosen = choice(among: all), all[chosen].shape.kind.isClosed { return all[chosen].shape }
            }
        }
        return .none
    }

    /// What `recognizeClosedShape(joining:)` decides and why: the joined stroke explained as
    /// `explain` explains one, the shapes the joining refuses with the reason (without rounded
    /// ends, or, when that makes no closed shape and a stroke is curved, with them); joined end
    /// to end, or, when only that makes a closed shape, where the strokes cross.
    public static func explainClosedShape(joining strokes: [[Point]]) -> RecognitionExplanation {
        let endToEnd = explainClosedShape(joining: strokes, at: .endToEnd)
        guard !endToEnd.shape.kind.isClosed else { return endToEnd }
        let crossing = explainClosedShape(joining: strokes, at: .whereTheyCross)
        return crossing.shape.kind.isClosed ? crossing : endToEnd
    }

    /// `explainClosedShape(joining:)` with the strokes joined at `junctions`.
    static func explainClosedShape(
        joining strokes: [[Point]], at junctions: JoinedStrokes.Junctions
    ) -> RecognitionExplanation {
        let joined: JoinedStrokes
        switch JoinedStrokes.join(strokes, at: junctions) {
        case .failure(let refusal):
            return RecognitionExplanation(
                shape: .none, hypotheses: [.init(kind: .none, verdict: "not joined: " + refusal.description)])
        case .success(let success): joined = success
        }
        // The candidates found once, explained without rounded ends and, when that makes no
        // closed shape and a stroke is curved, with them, whatever that makes: its refusals say
        // why a curve is no rounded end.
        var unfitted: [(ShapeKind, String)] = []
        let smoothed = StrokeSmoothing.smoothed(joined.points)
        let found = candidates(smoothed, unfitted: &unfitted)
        func explained(roundedEnds: Bool) -> RecognitionExplanation {
            ShapeRecognizer.explanation(of: found, unfitted: unfitted, smoothed: smoothed) {
                joined.refusal(of: $0.shape, roundedEnds: roundedEnds)?.description
            }
        }
        var explanation = explained(roundedEnds: false)
        var notes: [String] = []
        let curved = joined.curvedStrokes
        if !explanation.shape.kind.isClosed, !curved.isEmpty {
            explanation = explained(roundedEnds: true)
            if explanation.shape.kind.isQuadrilateral {
                let strokes = curved.map { String($0 + 1) }.joined(separator: " and ")
                notes.append(
                    (curved.count == 1
                        ? "stroke \(strokes) taken for a rounded end" : "strokes \(strokes) taken for rounded ends")
                        + ": the strokes make no other closed shape")
            }
        }
        if !joined.crossed.isEmpty {
            let crossings = joined.crossed.map { "stroke \($0.0 + 1) into stroke \($0.1 + 1)" }.joined(separator: ", ")
            notes.append(
                "joined where the strokes cross, each running on past the other (\(crossings)): joined end to end, "
                    + "they make no closed shape")
        }
        if let chosen = explanation.hypotheses.firstIndex(where: { $0.verdict.hasPrefix("chosen") }) {
            if !explanation.shape.kind.isClosed && explanation.shape.kind != .none {
                explanation.hypotheses[chosen].verdict =
                    "not taken: " + JoinedStrokes.Refusal.notClosed(explanation.shape.kind).description
                explanation.shape = .none
            } else if !notes.isEmpty {
                explanation.hypotheses[chosen].verdict += " (" + notes.joined(separator: "; ") + ")"
            }
        }
        return explanation
    }
}
