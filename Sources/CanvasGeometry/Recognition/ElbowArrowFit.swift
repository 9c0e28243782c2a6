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

    /// The pieces the stroke should follow if it is this arrow: each run before the last as
    /// the straight segment between its ends, then the straight arrow's.
    var drawnSides: [[Point]] {
        zip(drawnBends, drawnBends.dropFirst()).map { [$0, $1] } + arrow.drawnSides
    }

    /// Every elbow arrow reading of the stroke (equally spaced points): its first one or two
    /// sharp turns (`sharpTurn`, radians) beyond `hookLength` of it are bends, each run
    /// before them strays at most `maximumBow` from straight, the rest from the last bend
    /// is a straight arrow (`ArrowFit.candidates`, head last), and each bend is within
    /// `squareness` (radians) of a right angle. The caller judges which, if any, the stroke
    /// follows.
    static func candidates(
        _ stroke: [Point], hookLength: Double, sharpTurn: Double, maximumBow: Double, squareness: Double
    ) -> [ElbowArrowFit] {
        /// Whether the turn from `a` to `b` is within `squareness` of a right angle.
        func isSquare(_ a: Point, _ b: Point) -> Bool {
            abs(abs(atan2(a.cross(b), a.dot(b))) - Double.pi / 2) <= squareness
        }
        func readings(_ points: [Point]) -> [ElbowArrowFit] {
            let turns = sharpTurns(of: points, from: Int(hookLength * Double(points.count - 1)), sharperThan: sharpTurn)
            var fits: [ElbowArrowFit] = []
            for bendCount in 1...maximumBends where bendCount < turns.count {
                // Bend k's sample (bend 0 is the tail), and the chord of the run from it: tested
                // before anything is gathered, since most strokes fail here.
                func bend(_ k: Int) -> Int { k == 0 ? 0 : turns[k - 1] }
                func chord(_ k: Int) -> Point { points[bend(k + 1)] - points[bend(k)] }
                guard (0..<(bendCount - 1)).allSatisfy({ isSquare(chord($0), chord($0 + 1)) }),
                    (0..<bendCount).allSatisfy({ k in
                        let (start, end) = (points[bend(k)], points[bend(k + 1)])
                        return points[bend(k)...bend(k + 1)].allSatisfy {
                            OutlineMatch.distance(of: $0, toSegmentFrom: start, to: end) <= maximumBow
                        }
                    })
                else { continue }
                let arrows = ArrowFit.candidates(
                    Array(points[bend(bendCount)...]), hookLength: hookLength, sharpTurn: sharpTurn,
                    maximumBow: maximumBow, headFirst: false)
                for arrow in arrows where isSquare(chord(bendCount - 1), arrow.tip - arrow.tail) {
                    fits.append(
                        ElbowArrowFit(
                            drawnBends: (0...bendCount).map { points[bend($0)] },
                            runs: (0..<bendCount).map { points[bend($0)...bend($0 + 1)] }, arrow: arrow))
                }
            }
            return fits
        }
        return readings(stroke) + readings(stroke.reversed())
    }

    /// The indices of the stroke's sharp turns from sample `start` on, each at its sharpest
    /// sample, in order.
    static func sharpTurns(of points: [Point], from start: Int, sharperThan angle: Double) -> [Int] {
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
            if turns.count > maximumBends { break }
            index += 1
        }
        return turns
    }

    /// The arrow with its bends made right angles, as the polyline tail, bends, tip, barb,
    /// tip, barb: the runs' directions are the drawn ones' length-weighted mean modulo 90°
    /// (averaging 4θ) turned by whole right angles, each run through its points' mean; the
    /// head as the straight arrow's (`ArrowFit.symmetricPolyline`) about the last run. Nil
    /// when two consecutive runs come out parallel (bends too far from square for the mean).
    var squaredPolyline: [Point]? {
        let lastRun = arrow.drawnSides[0]
        let chords = zip(drawnBends, drawnBends.dropFirst()).map { $1 - $0 } + [arrow.tip - arrow.tail]
        let points = runs + [lastRun[...]]
        var sum = Point(x: 0, y: 0)
        for chord in chords {
            let angle = 4 * atan2(chord.y, chord.x)
            sum = sum + Point(x: cos(angle), y: sin(angle)) * chord.length
        }
        let frame = atan2(sum.y, sum.x) / 4
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
