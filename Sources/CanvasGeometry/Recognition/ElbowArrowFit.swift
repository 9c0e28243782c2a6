import CanvasCore
import Foundation

/// A single-stroke elbow arrow: a shaft of straight runs meeting at about right angles (a
/// flowchart's connector routed round the boxes, bent once or twice) and a head, drawn
/// without lifting the pen, head last or head first.
///
/// The bends are the shaft's first sharp turns; the last run and the head are read as a
/// straight arrow (`ArrowFit`), so the head is held to the same tests. The stroke is compared
/// with the runs before the last as straight segments between its tail and bends, then with
/// that arrow as drawn; the replacement makes the bends right angles.
struct ElbowArrowFit {
    /// The shaft as drawn, tail first: the stroke's tail and each bend's sharpest point (the
    /// last bend is the straight arrow's tail).
    var drawnBends: [Point]
    /// The points of each run before the last (between consecutive `drawnBends`).
    var runs: [ArraySlice<Point>]
    /// The straight arrow read from the last bend: its tail is that bend.
    var arrow: ArrowFit

    /// The most bends a shaft may have: a connector leaving one box and entering another
    /// is routed round them with one or two.
    static let maximumBends = 2

    /// How many times more finely than the whole stroke a fit the whole follows but does not
    /// trace enough of is compared with the stroke again (`ShapeRecognizer`): a connector's
    /// head, small beside its runs, may be a sample or two of the whole.
    static let fineness = 4

    /// The shortest barb, as a fraction of the last run: a connector's head is small beside
    /// its runs, and an elbow arrow's bends and two-sided head already tell it from a hooked
    /// line (a straight arrow's barbs are at least `ArrowFit.minimumBarbRatio` of its shaft).
    /// The least value on a 0.025 grid that takes no further development stroke for a shape
    /// it is not (the $1 and MMG development subjects and the flowchart database's writers of
    /// even number; docs/recognition.md, Tolerances).
    static let minimumBarbRatio = 0.025

    /// The pieces the stroke should follow if it is this arrow: each run before the last as
    /// the straight segment between its ends, then the straight arrow's.
    var drawnSides: [[Point]] {
        zip(drawnBends, drawnBends.dropFirst()).map { [$0, $1] } + arrow.drawnSides
    }

    /// Why a reading of the stroke as an elbow arrow was not made: the first test it fails,
    /// with its figures and the tolerance (lengths in the stroke's units), in the order the
    /// tests are made (`stage`).
    enum Refusal: Error, Equatable {
        /// Fewer than two sharp turns (a bend and the tip) past the first `hookLength` of the
        /// stroke: `turns` of them.
        case tooFewTurns(turns: Int, hookLength: Double)
        /// Bend `bend` (1 the first) turns `angle` (radians) from the run before it to the run
        /// after (the last bend: to the run towards the next sharp turn), farther than
        /// `squareness` from a right angle.
        case bendNotSquare(bend: Int, angle: Double, squareness: Double)
        /// A point of run `run` (1 the first; the runs before the arrow's shaft) strays
        /// `stray` from the chord between its ends, more than `most`.
        case bowedRun(run: Int, stray: Double, most: Double)
        /// The stroke from the last bend is no straight arrow.
        case noArrow(ArrowFit.Refusal)
        /// The arrow's shaft turns `angle` (radians) from the run before it, farther than
        /// `squareness` from a right angle.
        case shaftNotSquare(angle: Double, squareness: Double)

        /// How far through the tests the reading came (an arrow's refusal by its own stage).
        var stage: Int {
            switch self {
            case .tooFewTurns: 0
            case .bendNotSquare: 1
            case .bowedRun: 2
            case .noArrow(let refusal): 10 + refusal.stage
            case .shaftNotSquare: 30
            }
        }

        /// The refusal in words, lengths as fractions of `size` (the stroke's).
        func description(size: Double) -> String {
            func degrees(_ angle: Double) -> String { ShapeRecognizer.degrees(angle) }
            return switch self {
            case .tooFewTurns(let turns, let hookLength):
                (turns == 0 ? "no sharp turn" : "only \(turns) sharp turn")
                    + " past the first \(Int((100 * hookLength).rounded())) % of the stroke "
                    + "(a bend and the tip need two)"
            case .bendNotSquare(let bend, let angle, let squareness):
                "bend \(bend) turns \(degrees(angle))° (90° ± \(degrees(squareness))°)"
            case .bowedRun(let run, let stray, let most):
                "run \(run) bows: a point of it lies \(ShapeRecognizer.figure(stray / size)) of the size from "
                    + "straight (at most \(ShapeRecognizer.figure(most / size)))"
            case .noArrow(let refusal): "from the last bend, " + refusal.description(size: size)
            case .shaftNotSquare(let angle, let squareness):
                "the arrow's shaft turns \(degrees(angle))° from the run before it (90° ± \(degrees(squareness))°)"
            }
        }
    }

    /// A reading refused: how many bends it had (none when the stroke turns too few times),
    /// whether the stroke from its last bend was resampled on its own, and why.
    struct RefusedReading: RefusedArrowReading {
        var bends: Int
        var resampled: Bool
        var refusal: Refusal

        var stage: Int { refusal.stage }

        func description(size: Double) -> String {
            let bent = bends == 1 ? "bent once" : bends == 2 ? "bent twice" : "\(bends) bends"
            let resampling = resampled ? ", the stroke from its last bend resampled" : ""
            let reading = bends == 0 ? "" : " (\(bent)\(resampling))"
            return reading + ", " + refusal.description(size: size)
        }
    }

    /// The elbow arrow readings of the stroke (equally spaced points): its first one or two
    /// sharp turns (`sharpTurn`, radians) beyond `hookLength` of it are bends, each run
    /// before them strays at most `maximumBow` from straight, the rest from the last bend
    /// is a straight arrow (`ArrowFit.readings`, head last), and each bend is within
    /// `squareness` (radians) of a right angle. The caller judges which, if any, the stroke
    /// follows.
    ///
    /// `drawn` is the stroke as drawn: when no reading's samples of the whole from the last
    /// bend make an arrow, each such stretch of it is read again resampled on its own to as
    /// many points as the whole, since a connector's head, small beside its runs, may be a
    /// sample or two of the whole, too few to find its tip in.
    ///
    /// When it gives none, why: for each end the head was looked for at, the reading that
    /// came furthest through the tests.
    static func readings(
        _ stroke: [Point], drawn: [Point], hookLength: Double, sharpTurn: Double, maximumBow: Double,
        squareness: Double
    ) -> (fits: [ElbowArrowFit], refusals: FurthestRefusals<RefusedReading>) {
        var refusals = FurthestRefusals<RefusedReading>()
        /// Keeps `refusal` of a reading when it came further than the one kept for its end.
        func refuse(_ refusal: Refusal, bends: Int, resampled: Bool = false, reversed: Bool) {
            refusals.keep(RefusedReading(bends: bends, resampled: resampled, refusal: refusal), headLast: !reversed)
        }
        let length = StrokeResampling.length(of: drawn)
        /// The stroke as drawn from sample `index` of the whole on (of the whole reversed when
        /// `reversed`), resampled to as many points as the whole; nil when it has no length.
        func rest(from index: Int, reversed: Bool) -> [Point]? {
            let start = length * Double(index) / Double(stroke.count - 1)
            let stretch = StrokeResampling.stretch(of: reversed ? drawn.reversed() : drawn, from: start)
            let rest = StrokeResampling.resampled(stretch, count: stroke.count)
            return rest.isEmpty ? nil : rest
        }
        /// The turn from `a` to `b` (radians, 0–π).
        func turn(_ a: Point, _ b: Point) -> Double { abs(atan2(a.cross(b), a.dot(b))) }
        /// Whether the turn from `a` to `b` is within `squareness` of a right angle.
        func isSquare(_ a: Point, _ b: Point) -> Bool { abs(turn(a, b) - Double.pi / 2) <= squareness }
        /// A reading's shaft: the samples it is read on (the whole stroke, or the whole
        /// reversed for a head drawn first), its tail and bends (their indices) with runs that
        /// pass, and which way round.
        typealias Shaft = (points: [Point], bends: [Int], reversed: Bool)
        /// The shafts of `points` bent once and twice whose bends and runs pass.
        func shafts(_ points: [Point], reversed: Bool) -> [Shaft] {
            let turns = sharpTurns(of: points, from: Int(hookLength * Double(points.count - 1)), sharperThan: sharpTurn)
            if turns.count < 2 {
                refuse(.tooFewTurns(turns: turns.count, hookLength: hookLength), bends: 0, reversed: reversed)
            }
            var shafts: [Shaft] = []
            for bendCount in 1...maximumBends where bendCount < turns.count {
                // Bend k's sample (bend 0 is the tail), and the chord of the run from it: tested
                // before anything is gathered, since most strokes fail here.
                func bend(_ k: Int) -> Int { k == 0 ? 0 : turns[k - 1] }
                func chord(_ k: Int) -> Point { points[bend(k + 1)] - points[bend(k)] }
                // Every bend square, the last to the run towards the next sharp turn (where the
                // tip is, or its blur when the head is a sample or two).
                if let k = (0..<bendCount).first(where: { !isSquare(chord($0), chord($0 + 1)) }) {
                    let angle = turn(chord(k), chord(k + 1))
                    refuse(
                        .bendNotSquare(bend: k + 1, angle: angle, squareness: squareness), bends: bendCount,
                        reversed: reversed)
                    continue
                }
                /// The first run that strays beyond `maximumBow`, refused; nil when none does.
                func bowedRun() -> Refusal? {
                    for k in 0..<bendCount {
                        let (start, end) = (points[bend(k)], points[bend(k + 1)])
                        for point in points[bend(k)...bend(k + 1)] {
                            let stray = OutlineMatch.distance(of: point, toSegmentFrom: start, to: end)
                            if !(stray <= maximumBow) { return .bowedRun(run: k + 1, stray: stray, most: maximumBow) }
                        }
                    }
                    return nil
                }
                if let bowed = bowedRun() {
                    refuse(bowed, bends: bendCount, reversed: reversed)
                    continue
                }
                shafts.append((points, (0...bendCount).map(bend), reversed))
            }
            return shafts
        }
        /// The fits of `shaft` with the arrow read on `rest`, the stroke from its last bend
        /// (`resampled` on its own or not).
        func fits(_ shaft: Shaft, _ rest: [Point], resampled: Bool) -> [ElbowArrowFit] {
            let (points, bends) = (shaft.points, shaft.bends)
            let lastChord = points[bends[bends.count - 1]] - points[bends[bends.count - 2]]
            let arrows = ArrowFit.readings(
                rest, hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: maximumBow, headFirst: false,
                minimumBarb: minimumBarbRatio)
            if let refusal = arrows.headLast {
                refuse(.noArrow(refusal), bends: bends.count - 1, resampled: resampled, reversed: shaft.reversed)
            }
            let square = arrows.fits.filter { isSquare(lastChord, $0.tip - $0.tail) }
            if square.isEmpty, let arrow = arrows.fits.first {
                refuse(
                    .shaftNotSquare(angle: turn(lastChord, arrow.tip - arrow.tail), squareness: squareness),
                    bends: bends.count - 1, resampled: resampled, reversed: shaft.reversed)
            }
            return square.map { arrow in
                ElbowArrowFit(
                    drawnBends: bends.map { points[$0] },
                    runs: zip(bends, bends.dropFirst()).map { points[$0...$1] }, arrow: arrow)
            }
        }
        let all = shafts(stroke, reversed: false) + shafts(stroke.reversed(), reversed: true)
        // The whole stroke's samples from the last bend first; when no reading makes an arrow
        // of them, each stretch resampled on its own.
        let found = all.flatMap { fits($0, Array($0.points[$0.bends[$0.bends.count - 1]...]), resampled: false) }
        guard found.isEmpty else { return (found, FurthestRefusals()) }
        let resampled = all.flatMap { shaft in
            rest(from: shaft.bends[shaft.bends.count - 1], reversed: shaft.reversed).map {
                fits(shaft, $0, resampled: true)
            } ?? []
        }
        return (resampled, resampled.isEmpty ? refusals : FurthestRefusals())
    }

    /// The indices of the stroke's sharp turns from sample `start` on, each at its sharpest
    /// sample, in order: the first `limit` (by default one more than an elbow arrow's bends,
    /// which is enough to refuse one).
    static func sharpTurns(
        of points: [Point], from start: Int, sharperThan angle: Double, limit: Int = maximumBends + 1
    ) -> [Int] {
        let filter = StrokeResampling.SharpTurnFilter(angle: angle)
        let reach = StrokeResampling.turnReach
        var turns: [Int] = []
        var index = max(reach, start)
        while index < points.count - reach {
            guard filter.mayTurn(points, at: index), StrokeResampling.turn(of: points, at: index) > angle else {
                index += 1
                continue
            }
            var sharpest = index
            while index + 1 < points.count - reach, StrokeResampling.turn(of: points, at: index + 1) > angle {
                index += 1
                if StrokeResampling.turn(of: points, at: index) > StrokeResampling.turn(of: points, at: sharpest) {
                    sharpest = index
                }
            }
            turns.append(sharpest)
            if turns.count >= limit { break }
            index += 1
        }
        return turns
    }

    /// The arrow with its bends made right angles, as the polyline tail, bends, tip, barb,
    /// tip, barb: the runs' directions are the drawn ones' length-weighted mean modulo 90°
    /// (`PolygonFit.meanDirectionModuloRightAngle`) turned by whole right angles, each run
    /// through its points' mean; the head as the straight arrow's
    /// (`ArrowFit.symmetricPolyline`) about the last run. Nil when two consecutive runs come
    /// out parallel (bends too far from square for the mean).
    var squaredPolyline: [Point]? {
        let lastRun = arrow.drawnSides[0]
        let chords = zip(drawnBends, drawnBends.dropFirst()).map { $1 - $0 } + [arrow.tip - arrow.tail]
        let points = runs + [lastRun[...]]
        let frame = PolygonFit.meanDirectionModuloRightAngle(chords.lazy.map { ($0, $0.length) }) ?? 0
        guard frame.isFinite else { return nil }
        var lines: [FittedLine] = []
        var quarters: [Int] = []
        for (chord, run) in zip(chords, points) {
            let quarter = Int(((atan2(chord.y, chord.x) - frame) / (Double.pi / 2)).rounded())
            let angle = frame + Double(quarter) * Double.pi / 2
            let centroid = run.reduce(Point(x: 0, y: 0), +) / Double(run.count)
            lines.append(FittedLine(centroid: centroid, direction: Point(x: cos(angle), y: sin(angle))))
            quarters.append(quarter)
        }
        guard zip(quarters, quarters.dropFirst()).allSatisfy({ ($0 - $1) % 2 != 0 }) else { return nil }
        var bends: [Point] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            guard let bend = line.intersection(with: next) else { return nil }
            bends.append(bend)
        }
        func foot(of point: Point, on line: FittedLine) -> Point {
            line.centroid + line.direction * line.direction.dot(point - line.centroid)
        }
        let tail = foot(of: drawnBends[0], on: lines[0])
        let tip = foot(of: arrow.tip, on: lines[lines.count - 1])
        guard tip != bends[bends.count - 1] else { return nil }
        var head = arrow
        (head.tail, head.tip) = (bends[bends.count - 1], tip)
        return [tail] + bends.dropLast() + head.symmetricPolyline
    }
}
