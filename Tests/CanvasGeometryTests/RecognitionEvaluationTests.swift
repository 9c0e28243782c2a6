import CanvasCore
import CanvasTestSupport
import Foundation
import Synchronization
import Testing

@testable import CanvasGeometry

/// The recogniser on human-drawn gestures: the $1 unistroke logs (Wobbrock, Wilson and Li,
/// 2007) and the development half of the MMG set (Anthony and Wobbrock, 2012), read from
/// ../shared/data beside the repository (never copied into it: they are third-party data).
/// The figures in docs/recognition.md come from this test's output.
@Suite("Recognition evaluation")
struct RecognitionEvaluationTests {
    /// ../shared/data relative to the repository root.
    static let dataDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/data").standardizedFileURL

    /// Each data set, the file holding it, and what its labels should be recognised as
    /// (every other label: nothing).
    static let dataSets: [(name: String, file: String, targets: [String: ShapeKind])] = [
        (
            "$1 unistroke", "dollar1-unistroke/dollar1.jsonl",
            ["rectangle": .rectangle, "triangle": .triangle, "circle": .ellipse, "arrow": .arrow]
        ),
        // MMG's "arrowhead" is a line with a head; only one of its samples is one stroke.
        ("MMG (development half)", "mmg-multistroke/mmg-dev.jsonl.gz", ["line": .line, "arrowhead": .arrow]),
    ]

    /// The least share of each shape's single-stroke samples that must be recognised as it.
    static let targets: [ShapeKind: Double] = [
        .line: 0.99, .rectangle: 0.97, .triangle: 0.95, .ellipse: 0.95, .arrow: 0.90,
    ]
    /// The most single-stroke samples, as a share of all of them, that may be recognised as
    /// a shape they are not.
    static let falseRecognitionLimit = 0.01

    static let isDataPresent = dataSets.allSatisfy {
        FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent($0.file).path)
    }

    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func recognitionMeetsItsTargetsOnHumanDrawnGestures() throws {
        let clock = ContinuousClock()
        let started = clock.now
        // Label (mapped to its target where it has one) → recognised kind → count.
        var singleStroke: [String: [ShapeKind: Int]] = [:]
        var multiStroke: [String: [ShapeKind: Int]] = [:]
        var multiStrokeSamples = 0
        var falseRecognitions: [String] = []
        // Single strokes as drawn: recognised once, in `outcomes`, for both tests.
        for outcome in Self.outcomes where outcome.variant == "as drawn" {
            let row = outcome.expected == .none ? outcome.label : outcome.expected.rawValue
            singleStroke[row, default: [:]][outcome.recognised, default: 0] += 1
            if outcome.isFalse {
                falseRecognitions.append(
                    "\(outcome.label) (subject \(outcome.subject), \(outcome.speed)) as \(outcome.recognised)")
            }
        }
        for dataSet in Self.dataSets {
            for gesture in try Self.gestures(in: dataSet.file) {
                let expected = dataSet.targets[gesture.label] ?? .none
                let row = expected == .none ? gesture.label : expected.rawValue
                let strokes = gesture.strokes ?? [gesture.points]
                if strokes.count > 1 {
                    // Each stroke is recognised on its own, as it would be when drawn.
                    multiStrokeSamples += 1
                    for stroke in strokes {
                        multiStroke[row, default: [:]][
                            ShapeRecognizer.recognize(Self.points(stroke)).kind, default: 0] += 1
                    }
                }
            }
        }
        let elapsed = clock.now - started
        let singleStrokeCount = singleStroke.values.reduce(0) { $0 + $1.values.reduce(0, +) }
        print("Single-stroke samples (\(singleStrokeCount)): rows are labels, columns what they were recognised as")
        print(Self.table(singleStroke, counting: "samples", showingRecall: true))
        print("False recognitions: \(falseRecognitions.count) of \(singleStrokeCount)")
        for description in falseRecognitions { print("- \(description)") }
        print("\nMulti-stroke samples (\(multiStrokeSamples)), each stroke recognised on its own")
        print(Self.table(multiStroke, counting: "strokes", showingRecall: false))
        print("Evaluation took \(elapsed)")

        for (kind, target) in Self.targets.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let row = singleStroke[kind.rawValue] ?? [:]
            let recall = Double(row[kind] ?? 0) / Double(max(1, row.values.reduce(0, +)))
            #expect(recall >= target, "\(kind.rawValue): \(recall) recognised, target \(target)")
        }
        let falseRate = Double(falseRecognitions.count) / Double(max(1, singleStrokeCount))
        #expect(falseRate <= Self.falseRecognitionLimit, "false recognitions: \(falseRate)")
    }

    // MARK: By subject, and on transformed strokes (issue 14)

    /// Subjects kept aside: no tolerance may be chosen by looking at their figures. Chosen
    /// by a rule, not by their results: the two highest subject ids of each set. (The
    /// tolerances of the first version were chosen on every subject, these included;
    /// changes since are held to them.)
    static let sealedSubjects: Set<String> = ["$1 11", "$1 10", "MMG 68", "MMG 66"]

    /// Whether no tolerance may be chosen by looking at `subject`'s strokes: a sealed subject
    /// of the development sets, or a person of a sealed collection of strangers.
    static func isSealed(_ subject: String) -> Bool {
        sealedSubjects.contains(subject) || sealedStrangerCollections.contains { subject.hasPrefix($0 + " ") }
    }

    /// The least share of each class, in the worst subject, recognised as it (the
    /// targets of issue 14; `none` is the share of non-shapes left alone).
    static let worstSubjectTargets: [ShapeKind: Double] = [
        .line: 0.99, .rectangle: 0.97, .ellipse: 0.95, .triangle: 0.95, .arrow: 0.90,
    ]
    /// What the recogniser achieves now in the worst subject, as drawn and transformed: a
    /// floor that changes may raise and must not lower (measured 2026-11-24, raised
    /// 2026-11-26; the targets above are not all met yet).
    static let worstSubjectFloors: [String: [ShapeKind: Double]] = [
        // Arrows 0.73 and ellipses 0.90 before the arrow readings of a sloppy head (a "<"
        // drawn after the shaft, a hook after the last barb) and the closed loop of a stroke
        // with a lead-in; arrows 0.86 before the rounded hook after the last barb (issue 14).
        // Triangles 0.80 before a quadrilateral with opposite sides differing by more than
        // 2:1 was refused as a rectangle (a triangle whose rounded corner the split read as a
        // fourth side), 0.83 before a triangle's corners could be drawn rounded.
        // Non-shapes 0.96 before an arrow's head could not run back down its shaft (MMG 61's
        // lopsided star). Rectangles 0.83 before closed shapes had their own RMS tolerance
        // (0.055, an arrow's staying 0.05); so for every rectangle floor raised below.
        "as drawn": [.line: 1.0, .rectangle: 0.93, .ellipse: 0.96, .triangle: 0.93, .arrow: 0.90, .none: 0.99],
        // 0.92 before the oriented rectangle, which took one thin, pointed oval of 1,800 for
        // a rectangle and brought long rectangles from 6-29 % to 98-100 %; 0.91 before an
        // ellipse's opening was measured where it is and the whole stroke was fitted when
        // hook trimming cut off an end of a long ellipse.
        "ellipses 1.5:1 to 6:1, any rotation": [.ellipse: 0.95],
        // 0.68 and 0.98 before the split of the whole stroke (a short side cut off as a hook).
        // Since parallelograms (2026-11-27, sixth session) the rectangles stretched past the
        // skew tolerance are expected to be parallelograms (a rectangle is right too): the
        // rectangles' floor is that of those within it (0.86 before the closed shapes' RMS
        // tolerance, 0.90 after), the parallelograms' what was first measured.
        "rectangles stretched 1.5:1 to 4:1, any rotation": [.rectangle: 0.93, .parallelogram: 0.18],
        "rectangles with sides lengthened 1.5 to 4 times, any rotation": [.rectangle: 1.0],
        "squares and diamonds (rotated rectangles)": [.rectangle: 0.93],
        // 0.91 before distanceTolerance went from 0.2 to 0.225.
        "triangles up to 2:1, any rotation": [.triangle: 0.92],
        // Measured when these rows were added (2026-11-27, with triangles' rounded corners);
        // rectangles 0.85 before their corners could be drawn rounded.
        "corners rounded off over 1-3 % of the stroke": [.rectangle: 0.95, .triangle: 0.88],
        // Ellipses 0.68 before the ellipse followed the curve the canvas draws, 0.90 before a
        // polygon had to follow the stroke twice as closely as a passing ellipse, 0.91 before
        // closed shapes had their own RMS tolerance.
        "sampled 3 and 6 times less often": [.arrow: 0.90, .ellipse: 0.95, .rectangle: 0.91, .triangle: 0.93],
        // Measured when these rows were added (2026-11-27, later); ellipses 0.95 before a
        // polygon had to follow the stroke twice as closely as a passing ellipse; triangles
        // sheared 0.90 and run on 0.94 before distanceTolerance went from 0.2 to 0.225.
        "sheared by 10° and 20°": [.ellipse: 0.96, .rectangle: 0.93, .triangle: 0.95],
        "left open by a further 5 % of the stroke": [.ellipse: 0.93, .rectangle: 0.86, .triangle: 0.90],
        "run on past the start by 5-15 % of the stroke": [.rectangle: 0.88, .triangle: 0.95],
        // 0.93 before an arrow's head could not run back down its shaft.
        "non-shapes turned, stretched up to 1.5:1": [.none: 0.96],
        // Added 2026-11-27 (eighth session) with the straight sides' test, which brought the
        // row from 5.1 % to 58.1 % left alone (its worst subject, $1 2, from 0.8 % to 11.7 %).
        polygonsFromCircles: [.none: 0.11],
        // Added 2026-11-28 (sixteenth session) with the grid averaged out (`PenGrid`). As
        // drawn before it, 12 px: arrows 0.10, ellipses 0.00, rectangles 0.77, triangles
        // 0.67; 20 px: arrows 0.70, ellipses 0.87, rectangles 0.90, triangles 0.97 (the
        // worst subject); non-shapes 0.99.
        "drawn 12 px across on whole pixels": [.arrow: 0.90, .ellipse: 0.96, .rectangle: 0.76, .triangle: 0.86],
        "drawn 20 px across on whole pixels": [.arrow: 0.93, .ellipse: 0.96, .rectangle: 0.93, .triangle: 0.93],
        "non-shapes drawn 16 px across on whole pixels": [.none: 0.99],
        // Added the same day. Before the noise was averaged out (`PenNoise`), 1 %: arrows 0.86,
        // ellipses 0.93, rectangles 0.86, triangles 0.90; 2 %: arrows 0.20 and ellipses 0.16
        // (the noise read as barbs and corners), rectangles 0.83, triangles 0.90.
        "pen noise of 1 % of the size": [.arrow: 0.86, .ellipse: 0.93, .rectangle: 0.93, .triangle: 0.93],
        "pen noise of 2 % of the size": [.arrow: 0.96, .ellipse: 0.80, .rectangle: 0.90, .triangle: 0.93],
    ]

    /// One sample's outcome.
    struct Outcome {
        var variant: String
        var label: String
        var speed: String
        var subject: String
        var expected: ShapeKind
        var recognised: ShapeKind
        /// Another shape that is as right as `expected` (a stretched rectangle's reading as a
        /// rectangle or a parallelogram); nil for most strokes.
        var alsoRight: ShapeKind? = nil

        /// Recognised as it should be.
        var isRight: Bool { recognised == expected || recognised == alsoRight }
        /// Recognised as a shape it is not.
        var isFalse: Bool { recognised != .none && !isRight }
    }

    /// The variant whose rectangles become parallelograms when stretching takes a corner
    /// further from square than `ShapeRecognizer.skewTolerance` (`stretchedSkew`): those
    /// are expected to be parallelograms (until 2026-11-27, sixth session, the table
    /// reported the others apart, as "whose corners stay within 40° of square"). Either
    /// reading is right for every stroke of it: the skew is measured on the sample's
    /// quadrilateral stretched, the recogniser measures its own on the stretched stroke, and
    /// near 40° the two disagree either way.
    static let stretchedRectangles = "rectangles stretched 1.5:1 to 4:1, any rotation"

    /// How far from square (radians) the worst corner of a rectangle drawn as `points`
    /// becomes when stretched `aspect` times along x: its drawn quadrilateral (the four
    /// straight runs of the hook-trimmed stroke, whatever their angles) stretched, since
    /// stretching multiplies the lean of the sides across it. Nil when the stroke does not
    /// split into four runs that meet.
    static func stretchedSkew(_ points: [Point], aspect: Double) -> Double? {
        guard let stroke = try? ShapeRecognizer.PreparedStroke.of(points).get().stroke else { return nil }
        guard case .success(let fit) = PolygonFit(stroke).quadrilateral(.init(skew: .pi / 2, oppositeSideRatio: 0))
        else { return nil }
        let corners = fit.drawn.dropLast().map { Point(x: $0.x * aspect, y: $0.y) }
        return (0..<4).map { k in
            let (a, b) = (corners[(k + 1) % 4] - corners[k], corners[(k + 3) % 4] - corners[k])
            return abs(atan2(abs(a.cross(b)), a.dot(b)) - .pi / 2)
        }.max()
    }

    /// Ways people really change a shape, applied to the $1 samples of one class: the
    /// variant's name, the class it applies to, what it should be recognised as, and the
    /// transformation (aspect ratio along the x axis, then a rotation).
    /// `lengthens`: the aspect lengthens the horizontal sides (the right half moves right,
    /// the corners and the short sides' lean stay as drawn) instead of stretching the
    /// whole stroke (which also multiplies the short sides' lean).
    static let transformations:
        [(variant: String, label: String, expected: ShapeKind, aspects: [Double], rotations: Int, lengthens: Bool)] = [
            ("ellipses 1.5:1 to 6:1, any rotation", "circle", .ellipse, [1.5, 2, 3, 4, 5, 6], 1, false),
            ("rectangles stretched 1.5:1 to 4:1, any rotation", "rectangle", .rectangle, [1.5, 2, 3, 4], 1, false),
            ("rectangles with sides lengthened 1.5 to 4 times, any rotation", "rectangle", .rectangle, [1.5, 2, 3, 4], 1, true),
            ("squares and diamonds (rotated rectangles)", "rectangle", .rectangle, [1], 2, false),
            ("triangles up to 2:1, any rotation", "triangle", .triangle, [1, 1.5, 2], 1, false),
        ]

    /// A change people make to a shape as they draw it, by an amount.
    enum DrawingChange {
        /// Drawn faster: the corners rounded off over `amount` of the length (`roundedOff`).
        case roundedOff
        /// Sampled less often: every `amount`th of the pen's points kept, and the last, as a
        /// pen or screen sampling at that fraction of the rate records the same stroke.
        case thinned
        /// Slanted: sheared along x by `amount` degrees (`sheared`).
        case sheared
        /// Closed short: the last `amount` of the stroke's length left out (`leftOpen`).
        case leftOpen
        /// Closed past the start: run on along the stroke's beginning by `amount` of its
        /// length (`runOn`).
        case runOn
        /// Drawn as a polygon of `amount` sides (`polygonized`), its corners rounded off over
        /// 1 % of the stroke.
        case polygonized
        /// Drawn small with a mouse: scaled so that the larger side of its box is `amount`
        /// pixels, and recorded on whole pixels (`onWholePixels`). Applied after the turn: the
        /// grid is the screen's, not the shape's.
        case drawnSmall
        /// Drawn by a shakier hand or on a noisier screen: each pen point moved by Gaussian
        /// noise of `amount` of the stroke's size (the larger side of its box) in each
        /// coordinate (`noisy`; the data's own strokes stray about 0.3 % from straight).
        case noisy

        /// Whether the change is made after the stroke is turned.
        var isAfterTheTurn: Bool { self == .drawnSmall }

        /// `points` changed by `amount`; only `noisy` draws from `random`.
        func applied(to points: [Point], by amount: Double, using random: inout SplitMix64) -> [Point] {
            switch self {
            case .roundedOff: CanvasGeometryTests.roundedOff(points, over: amount)
            case .thinned: stride(from: 0, to: points.count, by: Int(amount)).map { points[$0] } + [points.last!]
            case .sheared: RecognitionEvaluationTests.sheared(points, by: amount * .pi / 180)
            case .leftOpen: RecognitionEvaluationTests.leftOpen(points, by: amount)
            case .runOn: RecognitionEvaluationTests.runOn(points, by: amount)
            case .polygonized:
                CanvasGeometryTests.roundedOff(
                    RecognitionEvaluationTests.polygonized(points, sides: Int(amount)), over: 0.01)
            case .drawnSmall: RecognitionEvaluationTests.onWholePixels(points, across: amount)
            case .noisy: RecognitionEvaluationTests.noisy(points, by: amount, using: &random)
            }
        }
    }

    /// Changes that drawing by hand makes, applied to the $1 samples of some classes, each
    /// by every amount and then turned to a random angle: faster (corners rounded off,
    /// sampled less often; `generator` 0) and, added later with their own generator (1) so
    /// that the rows before keep their strokes, slanted or closed short of or past the start;
    /// and (generator 2, 2026-11-27, eighth session) negatives: circles drawn as polygons of
    /// five to eight sides, which no shape of the recogniser is. `expected`: what the
    /// changed strokes should be recognised as (nil: their class's shape).
    static let drawingChanges:
        [(
            variant: String, labels: Set<String>, amounts: [Double], change: DrawingChange, generator: Int,
            expected: ShapeKind?
        )] = [
            (
                "corners rounded off over 1-3 % of the stroke", ["rectangle", "triangle"], [0.01, 0.02, 0.03],
                .roundedOff, 0, nil
            ),
            (
                "sampled 3 and 6 times less often", ["rectangle", "triangle", "circle", "arrow"], [3, 6], .thinned, 0,
                nil
            ),
            ("sheared by 10° and 20°", ["rectangle", "triangle", "circle"], [10, 20], .sheared, 1, nil),
            (
                "left open by a further 5 % of the stroke", ["rectangle", "triangle", "circle"], [0.05], .leftOpen, 1,
                nil
            ),
            (
                "run on past the start by 5-15 % of the stroke", ["rectangle", "triangle"], [0.05, 0.1, 0.15],
                .runOn, 1, nil
            ),
            (polygonsFromCircles, ["circle"], [5, 6, 7, 8], .polygonized, 2, ShapeKind.none),
            ("drawn 12 px across on whole pixels", smallShapes, [12], .drawnSmall, 3, nil),
            ("drawn 20 px across on whole pixels", smallShapes, [20], .drawnSmall, 3, nil),
            ("non-shapes drawn 16 px across on whole pixels", dollarNonShapes, [16], .drawnSmall, 3, ShapeKind.none),
            ("pen noise of 1 % of the size", smallShapes, [0.01], .noisy, 4, nil),
            ("pen noise of 2 % of the size", smallShapes, [0.02], .noisy, 4, nil),
        ]

    /// The $1 shapes drawn small.
    static let smallShapes: Set<String> = ["rectangle", "triangle", "circle", "arrow"]

    /// The $1 gestures that are no shape.
    static let dollarNonShapes: Set<String> = [
        "caret", "check", "delete_mark", "left_curly_brace", "left_sq_bracket", "pigtail", "question_mark",
        "right_curly_brace", "right_sq_bracket", "star", "v", "x",
    ]

    /// `points`, each moved by Gaussian noise (`gaussianOffset`) of standard deviation `fraction`
    /// of the larger side of their box in each coordinate.
    static func noisy(_ points: [Point], by fraction: Double, using random: inout SplitMix64) -> [Point] {
        let deviation = fraction * Rect(enclosing: points)!.longerSide
        return points.map { $0 + gaussianOffset(deviation: deviation, using: &random) }
    }

    /// `points` scaled so that the larger side of their box is `size`, and rounded to whole
    /// pixels, as a mouse records a shape drawn that small (`PenGrid`).
    static func onWholePixels(_ points: [Point], across size: Double) -> [Point] {
        let box = Rect(enclosing: points)!
        let scale = size / box.longerSide
        let corner = Point(x: box.minX, y: box.minY)
        return points.map { Point(x: (($0.x - corner.x) * scale).rounded(), y: (($0.y - corner.y) * scale).rounded()) }
    }

    /// The row of generated negatives: polygons made from circles (`polygonized`). Many of
    /// them, lumpy circles given five to eight sides and rounded corners, are nearly circles;
    /// their false recognitions are counted apart from issue 14's 1 % (over strokes people
    /// drew and changed as people do), and the row is held to its floor.
    static let polygonsFromCircles = "circles drawn as polygons of 5 to 8 sides"

    /// `points` (a circle) drawn as a polygon of `sides` sides, its first corner where the
    /// stroke starts: each point moved along the ray from the points' centroid to where the
    /// ray meets the polygon inscribed in the circle of the point's own distance, so that
    /// the hand's wobble, speed and sampling stay as drawn.
    static func polygonized(_ points: [Point], sides: Int) -> [Point] {
        let center = points.reduce(Point(x: 0, y: 0), +) / Double(points.count)
        let start = atan2(points[0].y - center.y, points[0].x - center.x)
        let sector = 2 * Double.pi / Double(sides)
        return points.map { point in
            let offset = point - center
            var angle = (atan2(offset.y, offset.x) - start).truncatingRemainder(dividingBy: sector)
            if angle < 0 { angle += sector }
            return center + offset * (cos(sector / 2) / cos(angle - sector / 2))
        }
    }

    /// `points` about their centroid, sheared along x by `angle` radians.
    static func sheared(_ points: [Point], by angle: Double) -> [Point] {
        let center = points.reduce(Point(x: 0, y: 0), +) / Double(points.count)
        return points.map { Point(x: $0.x - center.x + tan(angle) * ($0.y - center.y), y: $0.y - center.y) }
    }

    /// `points` up to `fraction` of their length from the end (the pen lifted that much
    /// earlier).
    static func leftOpen(_ points: [Point], by fraction: Double) -> [Point] {
        [points[0]] + along(points, for: (1 - fraction) * StrokeResampling.length(of: points))
    }

    /// The points after the first of `points` within `distance` along them, and the point
    /// that far along (on the edge it falls in).
    static func along(_ points: some Collection<Point>, for distance: Double) -> [Point] {
        var (result, travelled) = ([Point](), 0.0)
        for (a, b) in zip(points, points.dropFirst()) {
            let step = a.distance(to: b)
            guard travelled + step < distance else {
                if step > 0 { result.append(a.interpolated(to: b, at: (distance - travelled) / step)) }
                break
            }
            travelled += step
            result.append(b)
        }
        return result
    }

    /// `points` run on past the start by `fraction` of their length: from their end, along
    /// their beginning again, from the point of the first third nearest where the pen was
    /// heading (two steps on from the end); the pen closes any gap with a straight stretch.
    static func runOn(_ points: [Point], by fraction: Double) -> [Point] {
        let length = StrokeResampling.length(of: points)
        let end = points[points.count - 1]
        let ahead = end + (end - points[points.count - 2]) * 2
        var (firstThird, travelled) = (0, 0.0)
        while firstThird + 1 < points.count, travelled < length / 3 {
            travelled += points[firstThird].distance(to: points[firstThird + 1])
            firstThird += 1
        }
        let from = (0...firstThird).min { points[$0].distance(to: ahead) < points[$1].distance(to: ahead) }!
        return points + along(points[from...], for: fraction * length)
    }

    /// `points` with the horizontal sides lengthened `factor` times: every point right of
    /// the middle of the bounding box moves right by `factor − 1` widths; then turned by
    /// `rotation` radians about the middle.
    static func lengthened(_ points: [Point], by factor: Double, rotation: Double) -> [Point] {
        let xs = points.map(\.x)
        let (low, high) = (xs.min()!, xs.max()!)
        let middle = (low + high) / 2
        let shifted = points.map { point in
            Point(x: point.x > middle ? point.x + (factor - 1) * (high - low) : point.x, y: point.y)
        }
        return transformed(shifted, aspect: 1, rotation: rotation)
    }

    /// `points` about their centroid: stretched `aspect` times along x, then turned by
    /// `rotation` radians.
    static func transformed(_ points: [Point], aspect: Double, rotation: Double) -> [Point] {
        let center = points.reduce(Point(x: 0, y: 0), +) / Double(points.count)
        let (c, s) = (cos(rotation), sin(rotation))
        return points.map { point in
            let p = Point(x: (point.x - center.x) * aspect, y: point.y - center.y)
            return Point(x: c * p.x - s * p.y, y: s * p.x + c * p.y)
        }
    }

    /// Every single-stroke sample as drawn, the transformed $1 shapes, and the $1 and MMG
    /// non-shapes turned to a random angle and stretched by up to 1.5 (which must stay
    /// unrecognised). Computed once for the tests that read it.
    static let outcomes: [Outcome] = {
        // The strokes first, with every random draw made in order (the figures in
        // docs/recognition.md come from this fixed seed); then recognised on every core.
        var work: [(outcome: Outcome, stroke: [Point])] = []
        var generators = Generators(seeds: 14, 27, 28, 29, 30, 31)
        for dataSet in dataSets {
            guard let gestures = try? gestures(in: dataSet.file) else { continue }
            let set = dataSet.name.hasPrefix("$1") ? "$1" : "MMG"
            for gesture in gestures where (gesture.strokes?.count ?? 1) == 1 {
                work += changed(
                    Self.points(gesture.strokes?[0] ?? gesture.points), label: gesture.label,
                    subject: "\(set) \(gesture.subject)", speed: gesture.speed,
                    expected: dataSet.targets[gesture.label] ?? .none, isDollar: set == "$1", using: &generators)
            }
        }
        return recognised(work)
    }()

    /// The random generators of `changed`: one for the non-shapes turned and the
    /// transformations, one for each generator of `drawingChanges`.
    struct Generators {
        var transformations: SplitMix64
        var changes: [SplitMix64]

        init(seeds transformations: UInt64, _ changes: UInt64...) {
            self.transformations = SplitMix64(seed: transformations)
            self.changes = changes.map { SplitMix64(seed: $0) }
        }
    }

    /// A single-stroke sample as drawn, and changed as `outcomes` changes it: a non-shape
    /// turned and stretched by up to 1.5; a $1 gesture (`isDollar`) by `transformations`
    /// and `drawingChanges` of its label.
    static func changed(
        _ points: [Point], label: String, subject: String, speed: String, expected: ShapeKind, isDollar: Bool,
        using generators: inout Generators
    ) -> [(outcome: Outcome, stroke: [Point])] {
        func outcome(_ variant: String, _ expected: ShapeKind) -> Outcome {
            Outcome(
                variant: variant, label: label, speed: speed, subject: subject, expected: expected, recognised: .none)
        }
        var work = [(outcome("as drawn", expected), points)]
        if expected == .none {
            let stroke = transformed(
                points, aspect: Double.random(in: 1...1.5, using: &generators.transformations),
                rotation: Double.random(in: 0..<(2 * .pi), using: &generators.transformations))
            work.append((outcome("non-shapes turned, stretched up to 1.5:1", .none), stroke))
        }
        for transformation in transformations where isDollar && label == transformation.label {
            for aspect in transformation.aspects {
                for turn in 0..<transformation.rotations {
                    // Squares and diamonds: square-ish rectangles at 0° and 45° plus a little.
                    let rotation =
                        transformation.rotations > 1
                        ? Double(turn) * .pi / 4 + Double.random(in: -0.1...0.1, using: &generators.transformations)
                        : Double.random(in: 0..<(2 * .pi), using: &generators.transformations)
                    var transformedOutcome = outcome(transformation.variant, transformation.expected)
                    if transformation.variant == stretchedRectangles {
                        let skew = stretchedSkew(points, aspect: aspect) ?? 0
                        let isSkewed = skew > ShapeRecognizer.skewTolerance
                        transformedOutcome.expected = isSkewed ? .parallelogram : .rectangle
                        transformedOutcome.alsoRight = isSkewed ? .rectangle : .parallelogram
                    }
                    work.append(
                        (
                            transformedOutcome,
                            transformation.lengthens
                                ? lengthened(points, by: aspect, rotation: rotation)
                                : transformed(points, aspect: aspect, rotation: rotation)
                        ))
                }
            }
        }
        // Drawn faster, slanted, closed short or past the start (their own generators, so
        // that the rows above keep their strokes).
        for change in drawingChanges where isDollar && change.labels.contains(label) {
            let expected = change.expected ?? expected
            for amount in change.amounts {
                let rotation = Double.random(in: 0..<(2 * .pi), using: &generators.changes[change.generator])
                let stroke =
                    change.change.isAfterTheTurn
                    ? change.change.applied(
                        to: transformed(points, aspect: 1, rotation: rotation), by: amount,
                        using: &generators.changes[change.generator])
                    : transformed(
                        change.change.applied(to: points, by: amount, using: &generators.changes[change.generator]),
                        aspect: 1, rotation: rotation)
                work.append((outcome(change.variant, expected), stroke))
            }
        }
        return work
    }

    /// `work`'s outcomes with what each stroke was recognised as, recognised on every core.
    static func recognised(_ work: [(outcome: Outcome, stroke: [Point])]) -> [Outcome] {
        let strokes = work.map(\.stroke)
        let results = Mutex<[Int: ShapeKind]>([:])
        let chunks = 64
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var mine: [Int: ShapeKind] = [:]
            for index in stride(from: chunk, to: strokes.count, by: chunks) {
                mine[index] = ShapeRecognizer.recognize(strokes[index]).kind
            }
            results.withLock { $0.merge(mine) { first, _ in first } }
        }
        let recognised = results.withLock { $0 }
        return work.indices.map { index in
            var outcome = work[index].outcome
            outcome.recognised = recognised[index] ?? .none
            return outcome
        }
    }

    /// Per variant and class: the share recognised correctly overall, the mean over
    /// subjects, the worst subject (all, and sealed only).
    struct SubjectFigures {
        var samples: Int
        var overall: Double
        var mean: Double
        var worst: (subject: String, share: Double)
        var worstSealed: (subject: String, share: Double)?
        /// The worst of the subjects that tolerances may be chosen on.
        var worstDevelopment: (subject: String, share: Double)?
    }

    /// Per variant and class, per group (`group` of each outcome: its subject, its speed):
    /// how many were recognised as expected, of how many.
    static func tally(
        _ outcomes: some Sequence<Outcome>, by group: (Outcome) -> String
    ) -> [String: [ShapeKind: [String: (right: Int, all: Int)]]] {
        var cells: [String: [ShapeKind: [String: (right: Int, all: Int)]]] = [:]
        for outcome in outcomes {
            let key = group(outcome)
            var cell = cells[outcome.variant, default: [:]][outcome.expected, default: [:]][key] ?? (0, 0)
            cell.all += 1
            if outcome.isRight { cell.right += 1 }
            cells[outcome.variant, default: [:]][outcome.expected, default: [:]][key] = cell
        }
        return cells
    }

    static func figures(_ outcomes: [Outcome]) -> [String: [ShapeKind: SubjectFigures]] {
        tally(outcomes, by: \.subject).mapValues { byKind in
            byKind.mapValues { bySubject in
                let shares = bySubject.mapValues { Double($0.right) / Double($0.all) }
                let worst = shares.min { ($0.value, $0.key) < ($1.value, $1.key) }!
                let sealed = shares.filter { isSealed($0.key) }.min { ($0.value, $0.key) < ($1.value, $1.key) }
                let development = shares.filter { !isSealed($0.key) }.min {
                    ($0.value, $0.key) < ($1.value, $1.key)
                }
                let right = bySubject.values.reduce(0) { $0 + $1.right }
                let all = bySubject.values.reduce(0) { $0 + $1.all }
                return SubjectFigures(
                    samples: all, overall: Double(right) / Double(all),
                    mean: shares.values.reduce(0, +) / Double(shares.count), worst: (worst.key, worst.value),
                    worstSealed: sealed.map { ($0.key, $0.value) },
                    worstDevelopment: development.map { ($0.key, $0.value) })
            }
        }
    }

    /// The table of `byVariant` (`figures`): per variant, as drawn first, and class, the
    /// share recognised overall, the mean of subjects, the worst subject, sealed and not
    /// (the column of those not sealed headed `unsealed`).
    static func subjectTable(
        _ byVariant: [String: [ShapeKind: SubjectFigures]], unsealed: String = "worst development subject"
    ) -> String {
        var lines = [
            "| strokes | class | samples | overall | mean of subjects | worst subject | worst sealed subject "
                + "| \(unsealed) | target (worst) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        let variants =
            ["as drawn"] + transformations.map(\.variant) + drawingChanges.map(\.variant)
            + ["non-shapes turned, stretched up to 1.5:1"]
        func share(_ subject: (subject: String, share: Double)?) -> String {
            subject.map { String(format: "%.1f%% (%@)", 100 * $0.share, $0.subject) } ?? "–"
        }
        for variant in variants {
            for (kind, figure) in (byVariant[variant] ?? [:]).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let target = worstSubjectTargets[kind] ?? (kind == .none ? 0.99 : 0)
                lines.append(
                    String(
                        format: "| %@ | %@ | %d | %.1f%% | %.1f%% | %.1f%% (%@) | %@ | %@ | %@ |", variant,
                        kind == .none ? "non-shapes (left alone)" : kind.rawValue, figure.samples, 100 * figure.overall,
                        100 * figure.mean, 100 * figure.worst.share, figure.worst.subject,
                        share(figure.worstSealed), share(figure.worstDevelopment),
                        variant == polygonsFromCircles ? "–" : String(format: "%.0f%%", 100 * target)))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// What sampling alone explains of each class's worst subject (`SubjectSampling`), over
    /// the subjects who drew it `leastSamples` times or more: with every sample recognised
    /// at the class's overall share, the chance of a worst subject as low as the one
    /// measured, the chance that every subject reaches its target (issue 14's), and the
    /// overall share at which every subject would reach it with even odds. `classes`: each
    /// class's name, target and count recognised of all, by subject; `subjects` names them
    /// (subjects, people, writers).
    static func samplingTable(
        _ classes: [(name: String, target: Double, bySubject: [String: (right: Int, all: Int)])], subjects: String,
        leastSamples: Int = 5
    ) -> String {
        var lines = [
            "| class | \(subjects) | samples each | overall | worst | a worst as low, by chance "
                + "| every one at the target, by chance | overall share for even odds | target (worst) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        func chance(_ p: Double) -> String {
            p >= 0.095
                ? String(format: "%.0f%%", 100 * p)
                : p >= 0.001 ? String(format: "%.1f%%", 100 * p) : String(format: "%.0e", p)
        }
        for (name, target, all) in classes {
            let bySubject = all.filter { $0.value.all >= leastSamples }
            guard !bySubject.isEmpty else { continue }
            func share(_ count: (right: Int, all: Int)) -> Double { Double(count.right) / Double(count.all) }
            let samples = bySubject.values.map(\.all)
            let overall = Double(bySubject.values.reduce(0) { $0 + $1.right }) / Double(samples.reduce(0, +))
            let worst = bySubject.min { (share($0.value), $0.key) < (share($1.value), $1.key) }!
            lines.append(
                String(
                    format: "| %@ | %d | %d–%d | %.1f%% | %.1f%% (%@, %d of %d) | %@ | %@ | %.2f%% | %.0f%% |", name,
                    samples.count, samples.min()!, samples.max()!, 100 * overall, 100 * share(worst.value),
                    worst.key, worst.value.right, worst.value.all,
                    chance(SubjectSampling.chanceOfAWorst(atMost: share(worst.value), samples: samples, rate: overall)),
                    chance(SubjectSampling.chanceEverySubjectReaches(target, samples: samples, rate: overall)),
                    100 * SubjectSampling.rateForEverySubject(toReach: target, samples: samples), 100 * target))
        }
        return lines.joined(separator: "\n")
    }

    /// `samplingTable` of `outcomes` as drawn, for the classes issue 14 sets a target on.
    static func samplingTable(_ outcomes: [Outcome], subjects: String) -> String {
        let byKind = tally(outcomes.filter { $0.variant == "as drawn" }, by: \.subject)["as drawn"] ?? [:]
        let classes = worstSubjectTargets.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { kind, target in
            byKind[kind].map { (kind.rawValue, target, $0) }
        }
        return samplingTable(classes, subjects: subjects)
    }

    /// The share of `outcomes` recognised as a shape they are not, apart from the generated
    /// polygons (counted on their own), and a line saying both.
    static func falseRecognitions(_ outcomes: [Outcome]) -> (rate: Double, summary: String) {
        let generated = outcomes.filter { $0.variant == polygonsFromCircles }
        let drawn = outcomes.filter { $0.variant != polygonsFromCircles }
        let falseCount = drawn.count(where: \.isFalse)
        let rate = Double(falseCount) / Double(max(1, drawn.count))
        let summary = String(
            format: "False recognitions over every stroke above but the generated polygons: %d of %d (%.2f%%); "
                + "of the generated polygons: %d of %d", falseCount, drawn.count, 100 * rate,
            generated.count(where: \.isFalse), generated.count)
        return (rate, summary)
    }

    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func recognitionBySubjectAsDrawnAndTransformed() {
        let outcomes = Self.outcomes
        let byVariant = Self.figures(outcomes)
        let falseRecognitions = Self.falseRecognitions(outcomes)
        print("Recognition by subject (worst subject against the targets of issue 14)")
        print(Self.subjectTable(byVariant))
        print(falseRecognitions.summary)
        print("What sampling alone explains of the worst subject, as drawn")
        print(Self.samplingTable(outcomes, subjects: "subjects"))
        #expect(outcomes.count > 5_000, "the evaluation read too few samples: \(outcomes.count)")
        #expect(falseRecognitions.rate <= Self.falseRecognitionLimit, "false recognitions: \(falseRecognitions.rate)")
        for (variant, floors) in Self.worstSubjectFloors {
            for (kind, floor) in floors {
                let worst = byVariant[variant]?[kind]?.worst.share ?? 0
                #expect(worst >= floor, "\(variant), \(kind.rawValue): worst subject \(worst), floor \(floor)")
            }
        }
    }

    /// `recognize` decides with less work than `explain` (it stops at an accepted line, after
    /// the whole stroke's arrow readings, gives
    /// a match up once it is refused, and refuses a closed arrow head it certainly does not
    /// trace without matching it): on the strokes of the data, as drawn, single and each of
    /// a multi-stroke gesture's on its own, it must give exactly the shape `explain` gives.
    /// Every fourth stroke (3,795 of 15,178), since `explain` takes about 3 ms a stroke in a
    /// debug build; FuzzRecognizer holds the two to it on made-up strokes.
    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func recognizeDecidesAsExplainOnTheData() throws {
        var read: [[Point]] = []
        for dataSet in Self.dataSets {
            for gesture in try Self.gestures(in: dataSet.file) {
                read += (gesture.strokes ?? [gesture.points]).map(Self.points)
            }
        }
        let strokes = Array(read.enumerated().lazy.filter { $0.offset % 4 == 0 }.map(\.element))
        let differing = Mutex<[String]>([])
        let chunks = 64
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var mine: [String] = []
            for index in stride(from: chunk, to: strokes.count, by: chunks) {
                let (recognised, explained) = (
                    ShapeRecognizer.recognize(strokes[index]), ShapeRecognizer.explain(strokes[index]).shape
                )
                if recognised != explained {
                    mine.append(
                        "stroke \(index) of those compared: recognize \(recognised.kind), explain \(explained.kind)")
                }
            }
            differing.withLock { $0 += mine }
        }
        let found = differing.withLock { $0 }
        #expect(strokes.count > 3_500, "the strokes compared: \(strokes.count)")
        #expect(found.isEmpty, "\(found.count) strokes: \(found.prefix(5).joined(separator: "; "))")
    }

    /// MMG's half notes' heads, small loops drawn fast: the pen often recorded part of the
    /// loop at a few points joined by straight chords, which the test of straight sides took
    /// for a polygon's sides (71 strokes refused, 68 of the 260 heads that are ellipses).
    /// A side counts only with pen points along it (`ShapeRecognizer.drawnSidePoints`):
    /// none is refused so, and `explain` says of the 68 whose sides are straight enough that
    /// a side holds too few of the pen's points (69 since 2026-11-28: one head whose noise
    /// is averaged out, `PenNoise`, follows a heptagon's runs more closely than before,
    /// 0.40 of its arcs' distance instead of 0.52, and is an ellipse as before).
    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func loopsThePenSampledSparselyAreNoPolygons() throws {
        let set = Self.dataSets.first { $0.name.hasPrefix("MMG (development") }!
        var (heads, refused, undrawn) = (0, 0, 0)
        for gesture in try Self.gestures(in: set.file) where gesture.label == "half_note" {
            for stroke in gesture.strokes ?? [] {
                let ellipse = ShapeRecognizer.explain(Self.points(stroke)).hypotheses.first { $0.kind == .ellipse }
                heads += 1
                if ellipse?.verdict.contains("straight sides") == true { refused += 1 }
                if ellipse?.verdict.contains("pen's points: straight where the pen recorded nothing") == true {
                    undrawn += 1
                }
            }
        }
        #expect(heads > 600, "the half notes' strokes: \(heads)")
        #expect(refused == 0, "\(refused) of \(heads) half notes' strokes refused as polygons")
        #expect(undrawn == 69, "\(undrawn) half notes' strokes explained as straight where the pen recorded nothing")
    }

    /// The $1 shapes by the speed they were drawn at (each subject drew each shape slowly,
    /// at a medium pace and as fast as they could), as drawn and changed: where the misses
    /// are. As drawn, slow and medium samples of every shape must be recognised as it at
    /// least 99 % of the time (2026-11-27: all but one arrow, one circle).
    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func recognitionBySpeed() {
        let speeds = ["slow", "medium", "fast"]
        let shapes = Self.outcomes.lazy.filter { $0.subject.hasPrefix("$1") && $0.expected != .none }
        let cells = Self.tally(shapes, by: \.speed)
        var lines = ["| strokes | class | slow | medium | fast |", "|---|---|---:|---:|---:|"]
        let variants = ["as drawn"] + Self.transformations.map(\.variant) + Self.drawingChanges.map(\.variant)
        for variant in variants {
            for (kind, bySpeed) in (cells[variant] ?? [:]).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let shares = speeds.map { speed in
                    bySpeed[speed].map { cell in
                        let share = 100 * Double(cell.right) / Double(cell.all)
                        return String(format: "%.1f%% (%d/%d)", share, cell.right, cell.all)
                    } ?? "–"
                }
                lines.append("| \(variant) | \(kind.rawValue) | " + shares.joined(separator: " | ") + " |")
            }
        }
        print("Recognition of the $1 shapes by the speed they were drawn at")
        print(lines.joined(separator: "\n"))
        #expect(cells["as drawn"]?.count == 4, "as drawn: \(cells["as drawn"]?.keys.map(\.rawValue) ?? [])")
        for (kind, bySpeed) in cells["as drawn"] ?? [:] {
            for speed in ["slow", "medium"] {
                let cell = bySpeed[speed] ?? (0, 0)
                let share = Double(cell.right) / Double(max(1, cell.all))
                #expect(
                    cell.all > 0 && share >= 0.99, "as drawn, \(kind.rawValue), \(speed): \(cell.right)/\(cell.all)")
            }
        }
    }

    // MARK: Arrows drawn in two strokes

    /// The least share of MMG's arrowheads drawn in two strokes (a shaft, then a head) that
    /// must make an arrow together, overall and for the worst subject, and the most pairs of
    /// strokes drawn one after the other in the set's other samples that may: the figures
    /// first measured (2026-11-29, nineteenth session; docs/recognition.md), the overall
    /// share since a head drawn askew to its shaft is read (twentieth session: 97.3 → 98.3 %).
    static let twoStrokeArrowFloors = (overall: 0.98, worstSubject: 0.92, falseRecognitions: 1)

    /// Each pair of strokes drawn one after the other in an MMG sample, read as an arrow of
    /// two strokes (`ShapeRecognizer.recognizeArrow`): an arrowhead drawn in two strokes must
    /// make one, by subject (sealed subjects apart: no tolerance of the reading was chosen
    /// on them); the strokes of every other sample, a letter, a star, a null sign, a half
    /// note, a pitchfork, must make none (an arrowhead's pairs of three strokes are not
    /// scored).
    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func arrowsDrawnInTwoStrokes() throws {
        var bySubject: [String: (right: Int, all: Int)] = [:]
        var falseRecognitions: [String] = []
        var otherPairs = 0
        for gesture in try Self.gestures(in: "mmg-multistroke/mmg-dev.jsonl.gz") {
            guard let strokes = gesture.strokes, strokes.count > 1 else { continue }
            let subject = "MMG \(gesture.subject)"
            for (first, second) in zip(strokes, strokes.dropFirst()) {
                let kind = ShapeRecognizer.recognizeArrow(
                    drawnFirst: Self.points(first), then: Self.points(second)
                ).kind
                if gesture.label == "arrowhead" {
                    guard strokes.count == 2 else { continue }
                    var cell = bySubject[subject] ?? (0, 0)
                    cell.all += 1
                    if kind == .arrow { cell.right += 1 }
                    bySubject[subject] = cell
                } else {
                    otherPairs += 1
                    if kind != .none {
                        falseRecognitions.append("\(gesture.label) (\(subject), \(gesture.speed)) as \(kind.rawValue)")
                    }
                }
            }
        }
        func share(_ cell: (right: Int, all: Int)) -> Double { Double(cell.right) / Double(max(1, cell.all)) }
        let overall = bySubject.values.reduce((right: 0, all: 0)) { ($0.right + $1.right, $0.all + $1.all) }
        print("MMG arrowheads drawn in two strokes, read as one arrow, by subject:")
        print("| subject | arrowheads | arrows | share |\n|---|---:|---:|---:|")
        for (subject, cell) in bySubject.sorted(by: { $0.key < $1.key }) {
            let sealed = Self.isSealed(subject) ? " (sealed)" : ""
            print(
                String(format: "| %@%@ | %d | %d | %.1f%% |", subject, sealed, cell.all, cell.right, 100 * share(cell)))
        }
        let worst = bySubject.min { (share($0.value), $0.key) < (share($1.value), $1.key) }
        let worstShare = worst.map { share($0.value) } ?? 0
        print(
            String(
                format: "Overall %d of %d (%.1f%%); worst subject %@ %.1f%%; other samples' pairs made arrows: "
                    + "%d of %d",
                overall.right, overall.all, 100 * share(overall), worst?.key ?? "–", 100 * worstShare,
                falseRecognitions.count, otherPairs))
        for description in falseRecognitions { print("- \(description)") }
        #expect(overall.all > 250, "the arrowheads drawn in two strokes: \(overall.all)")
        #expect(share(overall) >= Self.twoStrokeArrowFloors.overall, "overall \(share(overall))")
        #expect(worstShare >= Self.twoStrokeArrowFloors.worstSubject, "worst subject \(worst as Any)")
        #expect(falseRecognitions.count <= Self.twoStrokeArrowFloors.falseRecognitions, "\(falseRecognitions)")
    }

    /// Strokes drawn one after the other (with recognition on, one pen) read as a node reads
    /// them (`ShapeRecognizer.recognizeInARow`): the arrow a stroke makes with the one
    /// before it (`pairs[k]`: strokes k and k + 1), with the two before it (`threes[k]`:
    /// strokes k to k + 2) and with the three before it (`fours[k]`: strokes k to k + 3, an
    /// arrow of three joined by a fourth), `.none` where it makes no arrow of those strokes.
    /// (Until 2026-11-29, twenty-sixth session, each run was read afresh, as if no earlier
    /// shape had taken a stroke of it: a shaft drawn in two pieces then counted a box's last
    /// stroke that the box had taken, 13 runs against the node's 3.)
    static func arrowsOfStrokesInARow(
        _ strokes: [[Point]]
    ) -> (pairs: [ShapeKind], threes: [ShapeKind], fours: [ShapeKind]) {
        let read = ShapeRecognizer.recognizeInARow(strokes)
        func arrows(joining joins: Int) -> [ShapeKind] {
            strokes.indices.dropFirst(joins).map { index in
                read[index].joins == joins && [.arrow, .elbowArrow].contains(read[index].shape.kind)
                    ? read[index].shape.kind : .none
            }
        }
        return (arrows(joining: 1), arrows(joining: 2), arrows(joining: 3))
    }

    /// Every three strokes drawn one after the other in an MMG sample, read as a node reads
    /// them (`arrowsOfStrokesInARow`): no three strokes of a sample that is no arrowhead (letters,
    /// stars, null signs, asterisks, pitchforks) may make an arrow (none did, first measured
    /// on 2026-11-29, twentieth session), nor four (an arrow of three joined by a fourth: none
    /// did, 2026-11-30, twenty-eighth session). The arrowheads drawn in three strokes (four) are
    /// counted, not held to a share: two begin with a tap (a dot), and the shaft and head
    /// after it make the arrow as two strokes.
    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func threeStrokesOfOtherSymbolsMakeNoArrow() throws {
        var (arrowheads, made, triples, fours) = (0, 0, 0, 0)
        var falseRecognitions: [String] = []
        for gesture in try Self.gestures(in: "mmg-multistroke/mmg-dev.jsonl.gz") {
            guard let strokes = gesture.strokes, strokes.count > 2 else { continue }
            let read = Self.arrowsOfStrokesInARow(strokes.map(Self.points))
            for kind in read.threes {
                if gesture.label == "arrowhead" {
                    guard strokes.count == 3 else { continue }
                    arrowheads += 1
                    if kind == .arrow { made += 1 }
                } else {
                    triples += 1
                    if kind != .none {
                        falseRecognitions.append(
                            "\(gesture.label) (MMG \(gesture.subject), \(gesture.speed)) as \(kind.rawValue)")
                    }
                }
            }
            for kind in read.fours where gesture.label != "arrowhead" {
                fours += 1
                if kind != .none {
                    falseRecognitions.append(
                        "\(gesture.label) (MMG \(gesture.subject), \(gesture.speed)), four strokes, as "
                            + kind.rawValue)
                }
            }
        }
        print(
            "MMG arrowheads drawn in three strokes made one arrow: \(made) of \(arrowheads); other samples' three "
                + "strokes in a row, and four, that made an arrow: \(falseRecognitions.count) of \(triples) and "
                + "\(fours)")
        for description in falseRecognitions { print("- \(description)") }
        #expect(triples > 1_000, "three strokes in a row: \(triples)")
        #expect(fours > 10, "four strokes in a row: \(fours)")
        #expect(falseRecognitions.isEmpty, "\(falseRecognitions)")
    }

    /// Every MMG sample of several strokes read as a node reads strokes drawn in a row
    /// (`ShapeRecognizer.recognizeInARow`): none of them is a closed shape, so every closed
    /// shape its strokes make together is a false recognition. First measured on 2026-11-29,
    /// twenty-third session, when closed shapes drawn in several strokes were first joined: two
    /// D's of the development subjects, their bowls drawn boxy, became rectangles (205 of 240
    /// D's became shapes before a polygon's strokes had to be straight runs and an ellipse of
    /// two strokes could have no straight one). The sealed subjects are counted apart, held to
    /// the issue's limit only.
    static let mmgClosedShapesOfSeveralStrokes = 2

    @Test(.enabled(if: isDataPresent, "the gesture data sets are not in ../shared/data beside the repository"))
    func strokesOfMMGSamplesMakeNoClosedShape() throws {
        var samples = [0, 0]
        var falseRecognitions: [[String]] = [[], []]
        for gesture in try Self.gestures(in: "mmg-multistroke/mmg-dev.jsonl.gz") {
            guard let strokes = gesture.strokes, strokes.count > 1 else { continue }
            let sealed = Self.isSealed("MMG \(gesture.subject)") ? 1 : 0
            samples[sealed] += 1
            for reading in ShapeRecognizer.recognizeInARow(strokes.map(Self.points))
            where reading.joins > 0 && reading.shape.kind.isClosed {
                falseRecognitions[sealed].append(
                    "\(gesture.label) (MMG \(gesture.subject), \(gesture.speed)) as \(reading.shape.kind.rawValue)")
            }
        }
        print(
            "MMG samples of several strokes whose strokes made a closed shape: development subjects "
                + "\(falseRecognitions[0].count) of \(samples[0]), sealed subjects \(falseRecognitions[1].count) of "
                + "\(samples[1])")
        for description in falseRecognitions[0] { print("- \(description)") }
        #expect(samples[0] > 3_000 && samples[1] > 500, "samples of several strokes: \(samples)")
        #expect(
            falseRecognitions[0].count <= Self.mmgClosedShapesOfSeveralStrokes,
            "development subjects: \(falseRecognitions[0])")
        #expect(
            Double(falseRecognitions[1].count) <= Self.falseRecognitionLimit * Double(samples[1]),
            "sealed subjects: \(falseRecognitions[1].count) of \(samples[1])")
    }

    // MARK: A held-out set from another person and device (issue 14)

    /// The Drawn Shapes Dataset (Apple Pencil on an iPad Pro; GitHub
    /// antoninbouchal/Drawn-shapes-Dataset at c74ac35: circles, ovals, rectangles, squares,
    /// diamonds, triangles), the set issue 14 first measured the recogniser on, converted by
    /// scripts/convert-drawn-shapes: read when CANVAS_DRAWN_SHAPES names the file (it is not
    /// in ../shared/data, so CI skips this test). Held out whole: nothing is chosen on it.
    static let drawnShapesFile = ProcessInfo.processInfo.environment["CANVAS_DRAWN_SHAPES"]
    static let isDrawnShapesPresent = drawnShapesFile.map { FileManager.default.fileExists(atPath: $0) } ?? false

    /// A label of a held-out set: what its strokes should be recognised as (`.none` for a
    /// scribble or a polygon the recogniser has no shape for: left alone), the share issue 14
    /// reported for it before its work (nil: not reported on its own), and a floor: the share
    /// first measured, which a change may raise and must not lower.
    typealias HeldOutClass = (label: String, expected: Set<ShapeKind>, issue: Double?, floor: Double)

    /// Each label of the set (squares are rectangles at any rotation, as issue 14 asks; a
    /// diamond is a rectangle too, a square on its corner, or a diamond when skewed as a
    /// rhombus is); floors first measured on 2026-11-27 (diamonds 0.94 before they could be
    /// diamonds).
    static let drawnShapes: [HeldOutClass] = [
        ("circle", [.ellipse], 0.99, 0.99), ("oval", [.ellipse], 0.86, 0.97), ("rectangle", [.rectangle], 0.94, 0.99),
        ("square", [.rectangle], 0.997, 0.99), ("diamond", [.rectangle, .diamond], nil, 0.97),
        ("triangle", [.triangle], 0.977, 0.99),
    ]

    /// One sample of a converted held-out set.
    struct DrawnShape: Decodable {
        var label: String
        var sample: String
        var strokes: [[[Double]]]
        /// Who drew it, in sets that say (nil: one person, or one a sample).
        var subject: String? = nil
    }

    @Test(.enabled(if: isDrawnShapesPresent, "CANVAS_DRAWN_SHAPES does not name the converted Drawn Shapes Dataset"))
    func recognitionOnTheDrawnShapesDataset() throws {
        try Self.recognizeHeldOut(
            Self.drawnShapesFile!, classes: Self.drawnShapes, title: "The Drawn Shapes Dataset (Apple Pencil)")
    }

    /// scripts/convert-quickdraw: read when CANVAS_QUICKDRAW names the file. Held out whole.
    static let quickDrawFile = ProcessInfo.processInfo.environment["CANVAS_QUICKDRAW"]
    static let isQuickDrawPresent = quickDrawFile.map { FileManager.default.fileExists(atPath: $0) } ?? false

    /// Quick, Draw!'s categories as the recogniser should take them: a square is a rectangle
    /// (or, drawn on its corner and skewed, a diamond); hexagons, octagons, stars, zigzags
    /// and squiggles have no shape of their own and are left alone (an ellipse for an
    /// octagon is a false recognition). Its "diamond" is the gem (drawn as a rhombus, a
    /// pentagon or a triangle): not converted. Floors: the shares first measured
    /// (2026-11-27, eighth session), before anything was looked at; hexagons 0.65 and
    /// octagons 0.51 before the test of straight sides.
    static let quickDraw: [HeldOutClass] = [
        ("circle", [.ellipse], nil, 0.97), ("square", [.rectangle, .diamond], nil, 0.97),
        ("triangle", [.triangle], nil, 0.90), ("line", [.line], nil, 0.96), ("hexagon", [.none], nil, 0.86),
        ("octagon", [.none], nil, 0.79), ("star", [.none], nil, 1), ("zigzag", [.none], nil, 1),
        ("squiggle", [.none], nil, 0.96),
    ]

    /// Quick, Draw!'s false recognitions, 11 of 364 (3.0 %; 24, 6.6 %, as first measured,
    /// before the test of straight sides): over issue 14's 1 %, mostly hexagons and octagons
    /// taken for rectangles and ellipses (docs/recognition.md). A change may lower it and
    /// must not raise it.
    static let quickDrawFalseRecognitionLimit = 11.0 / 364

    @Test(.enabled(if: isQuickDrawPresent, "CANVAS_QUICKDRAW does not name the converted Quick, Draw! drawings"))
    func recognitionOnQuickDrawDrawings() throws {
        try Self.recognizeHeldOut(
            Self.quickDrawFile!, classes: Self.quickDraw, title: "Quick, Draw! (one player a drawing, mouse or touch)",
            falseRecognitionLimit: Self.quickDrawFalseRecognitionLimit)
    }

    /// Quick, Draw!'s drawings of several strokes have no arrow: every two strokes drawn one
    /// after the other in them (hexagons and octagons drawn side by side, triangles as a "^"
    /// and a base, squares, stars, squiggles) must make none (none of the 228 did, first
    /// measured on 2026-11-29, nineteenth session), and every three as a node reads them
    /// (`arrowsOfStrokesInARow`: none of the 125 did, twentieth session), and every four (an
    /// arrow of three joined by a fourth: none did, twenty-eighth session).
    @Test(.enabled(if: isQuickDrawPresent, "CANVAS_QUICKDRAW does not name the converted Quick, Draw! drawings"))
    func quickDrawStrokesDrawnOneAfterAnotherMakeNoArrow() throws {
        let drawings = try Self.records(DrawnShape.self, inJSONLines: Self.quickDrawFile!)
        var pairs = 0
        var arrows: [String] = []
        for drawing in drawings {
            for (first, second) in zip(drawing.strokes, drawing.strokes.dropFirst()) {
                pairs += 1
                let shape = ShapeRecognizer.recognizeArrow(drawnFirst: Self.points(first), then: Self.points(second))
                if shape.kind != .none { arrows.append("\(drawing.label) as \(shape.kind.rawValue)") }
            }
        }
        var (triples, fours) = (0, 0)
        for drawing in drawings where drawing.strokes.count > 2 {
            let read = Self.arrowsOfStrokesInARow(drawing.strokes.map(Self.points))
            for (count, kinds) in [(3, read.threes), (4, read.fours)] {
                for kind in kinds {
                    if count == 3 { triples += 1 } else { fours += 1 }
                    if kind != .none { arrows.append("\(drawing.label), \(count) strokes, as \(kind.rawValue)") }
                }
            }
        }
        print(
            "Quick, Draw!: of \(pairs) pairs, \(triples) threes and \(fours) fours of strokes drawn one after the "
                + "other, \(arrows.count) made an arrow")
        #expect(pairs > 200, "the drawings of several strokes: \(pairs) pairs")
        #expect(triples > 100, "the drawings of three strokes or more: \(triples) threes")
        #expect(fours > 50, "the drawings of four strokes or more: \(fours) fours")
        #expect(arrows.isEmpty, "\(arrows)")
    }

    /// Quick, Draw!'s drawings of several strokes read as a node reads strokes drawn in a row
    /// (`ShapeRecognizer.recognizeInARow`): a square's strokes that make a rectangle (or a
    /// diamond) are counted, and a closed shape made of the strokes of any other drawing is a
    /// false recognition, as is a triangle's (a triangle is never joined: drawn in several
    /// strokes it is most often an arrow's closed head) or a circle's that is no ellipse. First
    /// measured on 2026-11-29, twenty-third session: 6 of the 12 squares, no false recognition.
    static let quickDrawSquaresOfSeveralStrokes = 6

    @Test(.enabled(if: isQuickDrawPresent, "CANVAS_QUICKDRAW does not name the converted Quick, Draw! drawings"))
    func quickDrawShapesDrawnInSeveralStrokes() throws {
        let drawings = try Self.records(DrawnShape.self, inJSONLines: Self.quickDrawFile!)
        var (squares, madeSquares, others) = (0, 0, 0)
        var falseRecognitions: [String] = []
        for drawing in drawings where drawing.strokes.count > 1 {
            let readings = ShapeRecognizer.recognizeInARow(drawing.strokes.map(Self.points))
            let joined = readings.filter { $0.joins > 0 && $0.shape.kind.isClosed }.map(\.shape.kind)
            let expected: Set<ShapeKind> =
                switch drawing.label {
                case "square": [.rectangle, .diamond]
                case "circle": [.ellipse]
                default: []
                }
            if drawing.label == "square" { squares += 1 } else { others += 1 }
            if drawing.label == "square" && joined.contains(where: expected.contains) { madeSquares += 1 }
            for kind in joined where !expected.contains(kind) {
                falseRecognitions.append("\(drawing.label) (\(drawing.sample)) as \(kind.rawValue)")
            }
        }
        print(
            "Quick, Draw! drawings of several strokes: squares whose strokes made one rectangle \(madeSquares) of "
                + "\(squares); closed shapes made by other strokes: \(falseRecognitions.count) (\(others) other "
                + "drawings)")
        for description in falseRecognitions { print("- \(description)") }
        #expect(madeSquares >= Self.quickDrawSquaresOfSeveralStrokes, "squares: \(madeSquares) of \(squares)")
        #expect(falseRecognitions.isEmpty, "\(falseRecognitions)")
    }

    /// scripts/convert-gesture-logs: the $1 gestures drawn by 86 people who are in no other
    /// set (the original archive's pilot subject, and fourteen students' collections of the
    /// $1 set from GitHub, docs/recognition.md), read when CANVAS_STRANGERS names the file.
    static let strangersFile = ProcessInfo.processInfo.environment["CANVAS_STRANGERS"]
    static let isStrangersPresent = strangersFile.map { FileManager.default.fileExists(atPath: $0) } ?? false

    /// The strangers' collections whose strokes may never be looked at (in `figures`, their
    /// subjects count as sealed), chosen before each batch was first measured and not by
    /// any figure: of the first five collections (26 people), the pilot, klarubbio and
    /// nikhithasudati (14 people); of the ten found after (60 people), the first five
    /// owners in alphabetical order (30 people). The others (42 people) may be looked at.
    static let sealedStrangerCollections = [
        "$1 pilot", "klarubbio", "nikhithasudati", "hat359", "jd4386", "jorsab121", "k-finken", "Namita-Namita",
    ]

    /// The $1 gestures as the recogniser should take them (every other gesture left alone).
    /// Floors: the shares first measured (2026-11-27, tenth session, 86 people), by the
    /// recogniser as it was before the set was found, with the gestures the apps joined left
    /// out (docs/recognition.md); arrows 0.95 then, 0.96 since a shaft drawn there and back
    /// is read (2026-11-29: 96.7 %).
    static let strangers: [HeldOutClass] =
        [
            ("circle", [.ellipse], nil, 0.98), ("rectangle", [.rectangle], nil, 0.98),
            ("triangle", [.triangle], nil, 0.97), ("arrow", [.arrow], nil, 0.96),
        ]
        + [
            ("caret", 0.99), ("check", 0.98), ("delete_mark", 0.99), ("left_curly_brace", 0.98),
            ("left_sq_bracket", 0.99), ("pigtail", 0.99), ("question_mark", 1), ("right_curly_brace", 0.99),
            ("right_sq_bracket", 0.99), ("star", 0.99), ("v", 1), ("x", 0.99), ("zig_zag", 1),
        ].map { ($0, [.none], nil, $1) }

    /// The strangers' false recognitions: as first measured, 57 of 13,714 (0.42 %: checks and
    /// brackets taken for lines and braces for arrows the most); 44 (0.32 %) since an
    /// arrow's barbs are drawn to about one length (`ArrowFit.barbBalance`). A change may
    /// lower it and must not raise it.
    static let strangersFalseRecognitionLimit = 44.0 / 13714

    /// The worst stranger's share per class as drawn, as first measured: a floor, as
    /// `worstSubjectFloors` is for the development sets. Arrows 0.2 at first (tj-schultz
    /// S03, who draws the shaft there and back before the head), 0.77 since such an arrow
    /// is read from where it turns at the tail (`ArrowFit.readingsAfterLeadIn`, 2026-11-29).
    static let strangersWorstSubjectFloors: [ShapeKind: Double] = [
        .arrow: 0.77, .ellipse: 0.7, .rectangle: 0.3, .triangle: 0.6, .none: 0.95,
    ]

    /// The strangers' share per class of each way the development subjects' gestures are
    /// changed (`changed`), overall, as first measured (2026-11-27, tenth session): floors.
    static let strangersFloors: [String: [ShapeKind: Double]] = [
        "ellipses 1.5:1 to 6:1, any rotation": [.ellipse: 0.93],
        stretchedRectangles: [.rectangle: 0.98, .parallelogram: 0.53],
        "rectangles with sides lengthened 1.5 to 4 times, any rotation": [.rectangle: 0.99],
        "squares and diamonds (rotated rectangles)": [.rectangle: 0.98],
        "triangles up to 2:1, any rotation": [.triangle: 0.97],
        "corners rounded off over 1-3 % of the stroke": [.rectangle: 0.97, .triangle: 0.96],
        "sampled 3 and 6 times less often": [.arrow: 0.95, .ellipse: 0.98, .rectangle: 0.98, .triangle: 0.97],
        "sheared by 10° and 20°": [.ellipse: 0.97, .rectangle: 0.98, .triangle: 0.97],
        "left open by a further 5 % of the stroke": [.ellipse: 0.98, .rectangle: 0.99, .triangle: 0.96],
        "run on past the start by 5-15 % of the stroke": [.rectangle: 0.98, .triangle: 0.97],
        polygonsFromCircles: [.none: 0.56],
        "non-shapes turned, stretched up to 1.5:1": [.none: 0.99],
    ]

    /// False recognitions over the strangers' gestures as drawn and changed, but the
    /// generated polygons: as first measured, 302 of 64,989 (0.46 %); 275 (0.42 %) since an
    /// arrow's barbs are drawn to about one length; with the rows added on 2026-11-28
    /// (sixteenth session: drawn small on whole pixels, 343 of 81,305; then with pen noise,
    /// whose circles became rectangles and arrows elbow arrows, 436 of 88,151, 0.49 %; 370,
    /// 0.42 %, once the noise is averaged out).
    static let strangersChangedFalseRecognitionLimit = 370.0 / 88151

    @Test(.enabled(if: isStrangersPresent, "CANVAS_STRANGERS does not name the converted collections"))
    func recognitionOnStrangersDrawingTheDollarGestures() throws {
        // As drawn and changed as the development subjects' gestures are (with generators
        // of their own), recognised once: the label table from the strokes as drawn, then
        // the table by person.
        let file = Self.strangersFile!
        let expected = Dictionary(uniqueKeysWithValues: Self.strangers.map { ($0.label, $0.expected.first!) })
        var generators = Generators(seeds: 114, 127, 128, 129, 130, 131)
        var work: [(outcome: Outcome, stroke: [Point])] = []
        let samples = try Self.records(DrawnShape.self, inJSONLines: file)
        for sample in samples where sample.strokes.count == 1 {
            work += Self.changed(
                Self.points(sample.strokes[0]), label: sample.label, subject: sample.subject ?? "", speed: "",
                expected: expected[sample.label] ?? .none, isDollar: true, using: &generators)
        }
        let outcomes = Self.recognised(work)
        Self.reportHeldOut(
            samples, recognisedAs: outcomes.filter { $0.variant == "as drawn" }.map(\.recognised), from: file,
            classes: Self.strangers, title: "Strangers drawing the $1 gestures",
            falseRecognitionLimit: Self.strangersFalseRecognitionLimit)
        let byVariant = Self.figures(outcomes)
        let falseRecognitions = Self.falseRecognitions(outcomes)
        print("Strangers drawing the $1 gestures, by person (\(Set(outcomes.map(\.subject)).count) people)")
        print(Self.subjectTable(byVariant, unsealed: "worst person of those looked at"))
        print(falseRecognitions.summary)
        print("What sampling alone explains of the worst person, as drawn")
        print(Self.samplingTable(outcomes, subjects: "people"))
        #expect(Set(outcomes.map(\.subject)).count >= 80, "too few people in \(file)")
        #expect(
            falseRecognitions.rate <= Self.strangersChangedFalseRecognitionLimit,
            "false recognitions, drawn and changed: \(falseRecognitions.rate)")
        for (kind, floor) in Self.strangersWorstSubjectFloors {
            let worst = byVariant["as drawn"]?[kind]?.worst ?? (subject: "nobody", share: 0)
            #expect(worst.share >= floor, "\(kind.rawValue): worst person \(worst), floor \(floor)")
        }
        for (variant, floors) in Self.strangersFloors {
            for (kind, floor) in floors {
                let overall = byVariant[variant]?[kind]?.overall ?? 0
                #expect(overall >= floor, "\(variant), \(kind.rawValue): \(overall) of the strangers', floor \(floor)")
            }
        }
    }

    /// Recognises a held-out set's samples drawn in one stroke (the few drawn in several are
    /// left out: no stroke of them is the shape on its own), prints the table of what each
    /// label was recognised as and the false recognitions, and expects every label at its
    /// floor and false recognitions within the limit.
    static func recognizeHeldOut(
        _ file: String, classes: [HeldOutClass], title: String, falseRecognitionLimit: Double = falseRecognitionLimit
    ) throws {
        let samples = try records(DrawnShape.self, inJSONLines: file)
        let kinds = samples.filter { $0.strokes.count == 1 }.map {
            ShapeRecognizer.recognize(points($0.strokes[0])).kind
        }
        reportHeldOut(
            samples, recognisedAs: kinds, from: file, classes: classes, title: title,
            falseRecognitionLimit: falseRecognitionLimit)
    }

    /// `recognizeHeldOut`'s table, false recognitions and expectations for `samples` whose
    /// single strokes were recognised as `kinds` (one a sample drawn in one stroke, in order).
    static func reportHeldOut(
        _ samples: [DrawnShape], recognisedAs kinds: [ShapeKind], from file: String, classes: [HeldOutClass],
        title: String, falseRecognitionLimit: Double
    ) {
        let singleStroke = samples.filter { $0.strokes.count == 1 }
        precondition(singleStroke.count == kinds.count, "one kind for each sample drawn in one stroke")
        let leftOut = samples.count - singleStroke.count
        var counts: [String: [ShapeKind: Int]] = [:]
        var falseRecognitions: [String] = []
        let expected = Dictionary(uniqueKeysWithValues: classes.map { ($0.label, $0.expected) })
        for (sample, kind) in zip(singleStroke, kinds) {
            counts[sample.label, default: [:]][kind, default: 0] += 1
            if kind != .none && expected[sample.label]?.contains(kind) != true {
                let subject = sample.subject.map { "\($0) " } ?? ""
                falseRecognitions.append("\(sample.label) \(subject)\(sample.sample) as \(kind.rawValue)")
            }
        }
        let columns = ShapeKind.allCases
        var lines = [
            "| label | samples | " + columns.map(\.rawValue).joined(separator: " | ")
                + " | recognised as it should be | issue 14 before | floor |",
            "|---|---:|" + String(repeating: "---:|", count: columns.count + 3),
        ]
        for shape in classes {
            let count = counts[shape.label] ?? [:]
            let total = count.values.reduce(0, +)
            let share = Double(shape.expected.reduce(0) { $0 + (count[$1] ?? 0) }) / Double(max(1, total))
            let expected = columns.filter(shape.expected.contains).map(\.rawValue).joined(separator: " or ")
            lines.append(
                "| \(shape.label) | \(total) | " + columns.map { String(count[$0] ?? 0) }.joined(separator: " | ")
                    + String(format: " | %.1f%% (%@) | ", 100 * share, expected)
                    + (shape.issue.map { String(format: "%.1f%%", 100 * $0) } ?? "–")
                    + String(format: " | %.0f%% |", 100 * shape.floor))
            #expect(total > 0, "no single-stroke \(shape.label) in \(file)")
            #expect(share >= shape.floor, "\(shape.label): \(share) recognised as \(expected), floor \(shape.floor)")
        }
        let total = counts.values.reduce(0) { $0 + $1.values.reduce(0, +) }
        print("\(title), single strokes (\(leftOut) samples drawn in several left out)")
        print(lines.joined(separator: "\n"))
        print(
            String(
                format: "False recognitions: %d of %d (%.2f%%)", falseRecognitions.count, total,
                100 * Double(falseRecognitions.count) / Double(max(1, total))))
        for description in falseRecognitions { print("- \(description)") }
        let falseRate = Double(falseRecognitions.count) / Double(max(1, total))
        #expect(falseRate <= falseRecognitionLimit, "false recognitions: \(falseRate)")
    }

    /// One gesture of a data set (JSON Lines; other fields ignored).
    struct Gesture: Decodable {
        var label: String
        var subject: Int
        var speed: String
        /// All strokes' points concatenated.
        var points: [[Double]]
        /// The strokes, in multistroke sets.
        var strokes: [[[Double]]]?
    }

    /// The records of the JSON Lines file at `path`, one a line (a converted held-out set).
    static func records<Record: Decodable>(_ type: Record.Type, inJSONLines path: String) throws -> [Record] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try data.split(separator: UInt8(ascii: "\n")).map { try JSONDecoder().decode(Record.self, from: $0) }
    }

    static func points(_ pairs: [[Double]]) -> [Point] {
        pairs.map { Point(x: $0[0], y: $0[1]) }
    }

    /// The gestures of a JSON Lines file in the data directory, gunzipped (by the system's
    /// gzip: Foundation has no gzip on Linux) when its name ends in .gz.
    static func gestures(in file: String) throws -> [Gesture] {
        let url = dataDirectory.appendingPathComponent(file)
        let data: Data
        if url.pathExtension == "gz" {
            let gzip = Process()
            gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            gzip.arguments = ["gzip", "-dc", url.path]
            let output = Pipe()
            gzip.standardOutput = output
            try gzip.run()
            data = output.fileHandleForReading.readDataToEndOfFile()
            gzip.waitUntilExit()
            #expect(gzip.terminationStatus == 0, "gzip -dc \(url.path)")
        } else {
            data = try Data(contentsOf: url)
        }
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(Gesture.self, from: $0) }
    }

    /// A Markdown table of `counts` (of `unit`: samples or strokes), shapes first in
    /// `ShapeKind` order then other labels alphabetically; with `showingRecall`, each row's
    /// share recognised as its target (for other labels: left alone).
    static func table(_ counts: [String: [ShapeKind: Int]], counting unit: String, showingRecall: Bool) -> String {
        let kinds = ShapeKind.allCases
        let shapeRows = kinds.map(\.rawValue).filter { counts[$0] != nil }
        let rows = shapeRows + counts.keys.filter { !shapeRows.contains($0) }.sorted()
        var lines = [
            "| label | \(unit) | " + kinds.map(\.rawValue).joined(separator: " | ")
                + (showingRecall ? " | correct |" : " |"),
            "|---|---:|" + String(repeating: "---:|", count: kinds.count + (showingRecall ? 1 : 0)),
        ]
        for row in rows {
            let count = counts[row] ?? [:]
            let total = count.values.reduce(0, +)
            var line = "| \(row) | \(total) | " + kinds.map { String(count[$0] ?? 0) }.joined(separator: " | ") + " |"
            if showingRecall {
                let target = ShapeKind(rawValue: row) ?? .none
                line += String(format: " %.1f%% |", 100 * Double(count[target] ?? 0) / Double(max(1, total)))
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
