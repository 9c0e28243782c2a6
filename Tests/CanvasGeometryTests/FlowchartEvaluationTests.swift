import CanvasCore
import Foundation
import Testing

@testable import CanvasGeometry

/// The recogniser on the online handwritten flowchart database (Awal, Feng, Mouchère and
/// Viard-Gaudin, 2011: 419 flowcharts drawn by 35 writers on a tablet, each symbol labelled;
/// GitHub zevisert/FCinkML1.7-renders at ec845d2, folder sources/), converted by
/// scripts/convert-flowcharts: read when CANVAS_FLOWCHARTS names the file (it is not in
/// ../shared/data, so CI skips this test). A second held-out set (issue 14): people drawing
/// for a task rather than for a recogniser, at their own pace. Held out: its figures were
/// first measured before anything was changed for it, and no tolerance is chosen on it.
/// Elbow arrows (a shape its connectors showed missing) were designed looking at the
/// connectors of the writers of even number only, with no new tolerance; the odd writers'
/// are reported apart.
@Suite("Recognition on the flowchart database")
struct FlowchartEvaluationTests {
    static let file = ProcessInfo.processInfo.environment["CANVAS_FLOWCHARTS"]
    static let isPresent = file.map { FileManager.default.fileExists(atPath: $0) } ?? false

    /// Each label of the database; what a stroke drawing the whole symbol should be
    /// recognised as (`scored`), or may be recognised as without being wrong (not scored:
    /// a stroke of handwriting that is an l or an o is a line or an ellipse); and, for a
    /// scored label, a floor: the share first measured
    /// (2026-11-27; data symbols scored since parallelograms are recognised: 62.5 % before,
    /// 75 % with them), which a change may raise and must not lower. Anything else
    /// recognised is a false recognition.
    static let symbols: [(label: String, accepted: Set<ShapeKind>, scored: Bool, floor: Double)] = [
        ("process", [.rectangle], true, 0.97),
        // A decision is a diamond, or a square on its corner.
        ("decision", [.rectangle, .diamond], true, 0.92),
        // A terminator is a stadium: an ellipse, or a rectangle with its corners rounded.
        ("terminator", [.ellipse, .rectangle], true, 0.99),
        ("connection", [.ellipse], true, 0.98),
        // A parallelogram; squared when it leans less than a rectangle may.
        ("data", [.parallelogram, .rectangle], true, 0.75),
        // A connector: an arrow, straight or bent at right angles (scored since elbow arrows,
        // 2026-11-27: 71.1 % before, counting a connector drawn without a head as a line).
        ("arrow", [.arrow, .elbowArrow, .line], true, 0.91),
        ("text", [.line, .ellipse], false, 0),
    ]

    /// The most one-stroke connectors that may be taken for lines: a line counts as
    /// recognised (a connector drawn without a head is one), but one drawn with a head
    /// loses it. As measured since a head at a line's end is read (2026-11-29, 38 before).
    static let connectorsTakenForLines = 13

    /// One symbol of the converted database.
    struct Symbol: Decodable {
        var label: String
        var writer: String
        var chart: String
        var strokes: [[[Double]]]
        /// Each stroke's place in the order the whole chart was drawn (absent from files
        /// converted before 2026-11-29).
        var order: [Int]?
    }

    @Test(.enabled(if: isPresent, "CANVAS_FLOWCHARTS does not name the converted flowchart database"))
    func recognitionOnTheFlowchartDatabase() throws {
        let symbols = try RecognitionEvaluationTests.records(Symbol.self, inJSONLines: Self.file!)
        let accepted = Dictionary(uniqueKeysWithValues: Self.symbols.map { ($0.label, $0.accepted) })
        // Symbols drawn in one stroke; most are drawn in several, no stroke of which is the
        // symbol on its own.
        var counts: [String: [ShapeKind: Int]] = [:]
        var byWriter: [String: [String: (right: Int, all: Int)]] = [:]
        var falseRecognitions: [String] = []
        var singleStroke = 0
        // Connectors by writer number, even and odd: elbow arrows were designed looking at the
        // even writers' connectors only (the odd writers' are held out).
        var arrowsByParity = [(right: 0, all: 0), (right: 0, all: 0)]
        for symbol in symbols where symbol.strokes.count == 1 {
            guard let acceptable = accepted[symbol.label] else {
                Issue.record("a label the test does not know: \(symbol.label) (\(symbol.chart))")
                continue
            }
            singleStroke += 1
            let kind = ShapeRecognizer.recognize(RecognitionEvaluationTests.points(symbol.strokes[0])).kind
            counts[symbol.label, default: [:]][kind, default: 0] += 1
            var cell = byWriter[symbol.label, default: [:]][symbol.writer] ?? (0, 0)
            cell.all += 1
            if acceptable.contains(kind) { cell.right += 1 }
            if symbol.label == "arrow" {
                arrowsByParity[Self.parity(symbol.writer)].all += 1
                if acceptable.contains(kind) { arrowsByParity[Self.parity(symbol.writer)].right += 1 }
            }
            byWriter[symbol.label, default: [:]][symbol.writer] = cell
            if kind != .none && !acceptable.contains(kind) {
                falseRecognitions.append("\(symbol.label) of \(symbol.chart) as \(kind.rawValue)")
            }
        }
        let kinds = ShapeKind.allCases
        var lines = [
            "| label | strokes | " + kinds.map(\.rawValue).joined(separator: " | ")
                + " | recognised as it should be | mean of writers | worst writer | worst of 5 or more | writers"
                + " | floor |",
            "|---|---:|" + String(repeating: "---:|", count: kinds.count + 6),
        ]
        for symbol in Self.symbols {
            let count = counts[symbol.label] ?? [:]
            let total = count.values.reduce(0, +)
            let share = Double(symbol.accepted.reduce(0) { $0 + (count[$1] ?? 0) }) / Double(max(1, total))
            let writers = (byWriter[symbol.label] ?? [:]).mapValues { Double($0.right) / Double($0.all) }
            let mean = writers.values.reduce(0, +) / Double(max(1, writers.count))
            let expected = kinds.filter(symbol.accepted.contains).map(\.rawValue).joined(separator: " or ")
            // The worst writer, and the worst of those who drew the symbol in one stroke at
            // least five times (one stroke makes a writer's share 0 or 100 %).
            func worst(drawingAtLeast least: Int) -> String {
                let drawn = byWriter[symbol.label] ?? [:]
                return writers.filter { drawn[$0.key]!.all >= least }.min { ($0.value, $0.key) < ($1.value, $1.key) }
                    .map { String(format: "%.1f%% (%@, %d)", 100 * $0.value, $0.key, drawn[$0.key]!.all) } ?? "–"
            }
            lines.append(
                "| \(symbol.label) | \(total) | " + kinds.map { String(count[$0] ?? 0) }.joined(separator: " | ")
                    + String(format: " | %.1f%% (%@) | ", 100 * share, expected)
                    + (symbol.scored
                        ? String(
                            format: "%.1f%% | %@ | %@ | %d | %.0f%% |", 100 * mean, worst(drawingAtLeast: 1),
                            worst(drawingAtLeast: 5), writers.count, 100 * symbol.floor)
                        : String(format: "not scored | – | – | %d | – |", writers.count)))
            #expect(total > 0, "no single-stroke \(symbol.label) in \(Self.file!)")
            if symbol.scored {
                #expect(
                    share >= symbol.floor, "\(symbol.label): \(share) recognised as \(expected), floor \(symbol.floor)")
            }
        }
        print(
            "The flowchart database (35 writers), symbols drawn in one stroke (\(singleStroke) of \(symbols.count));"
                + " worst writer: share (writer, strokes)")
        print(lines.joined(separator: "\n"))
        print(
            String(
                format: "Connectors recognised, writers of even number (looked at): %d of %d (%.1f%%); odd (held out):"
                    + " %d of %d (%.1f%%)", arrowsByParity[0].right, arrowsByParity[0].all,
                100 * Double(arrowsByParity[0].right) / Double(max(1, arrowsByParity[0].all)), arrowsByParity[1].right,
                arrowsByParity[1].all, 100 * Double(arrowsByParity[1].right) / Double(max(1, arrowsByParity[1].all))))
        let falseRate = Double(falseRecognitions.count) / Double(max(1, singleStroke))
        print(
            String(
                format: "False recognitions: %d of %d (%.2f%%)", falseRecognitions.count, singleStroke,
                100 * falseRate))
        for description in falseRecognitions { print("- \(description)") }
        // Issue 14's targets on the worst writer: a process box and a decision are rectangles
        // (squares and diamonds), a terminator and a connection circle ellipses.
        let targets = ["process": 0.97, "decision": 0.97, "terminator": 0.95, "connection": 0.95, "arrow": 0.90]
        print("What sampling alone explains of the worst writer who drew a symbol in one stroke five times or more")
        print(
            RecognitionEvaluationTests.samplingTable(
                Self.symbols.compactMap { symbol in
                    targets[symbol.label].map { (symbol.label, $0, byWriter[symbol.label] ?? [:]) }
                }, subjects: "writers"))
        #expect(falseRate <= RecognitionEvaluationTests.falseRecognitionLimit, "false recognitions: \(falseRate)")
        let connectorLines = counts["arrow"]?[.line] ?? 0
        #expect(
            connectorLines <= Self.connectorsTakenForLines,
            "\(connectorLines) connectors taken for lines (at most \(Self.connectorsTakenForLines)): heads erased")
    }

    /// What connectors drawn in two strokes must make as one arrow, straight or elbow (the
    /// share measured on 2026-11-29, nineteenth session: the straight reading was designed
    /// on MMG's arrowheads alone and first measured here at 67.7 %; then a head's least barb
    /// as an elbow arrow's, elbow shafts and a head split between the strokes (a shaft drawn
    /// with one barb, the other barb apart) were added looking at the connectors of the
    /// writers of even number only, as elbow arrows were, the odd writers' reported apart;
    /// 2026-11-29, twentieth session, the same way: a head drawn askew to its shaft, 83.7 →
    /// 85.4 %), and the most pairs of strokes drawn one after the other that belong to no
    /// one connector which may make an arrow (a text stroke and a decision box's side, a
    /// box's two sides, handwriting: 11, 13 since the askew head).
    static let twoStrokeFloors = (connectors: 0.85, falseRecognitions: 13)

    /// `label` with its article ("an arrow", "a text").
    static func article(_ label: String) -> String {
        ("aeiou".contains(label.first ?? "x") ? "an " : "a ") + label
    }

    /// A stroke of a chart: its place in the order the chart was drawn, the index of its
    /// symbol, its points.
    typealias ChartStroke = (order: Int, symbol: Int, stroke: [[Double]])

    /// A converted file without each stroke's place in the drawing order.
    struct NoDrawingOrder: Error, CustomStringConvertible {
        var chart: String
        var description: String { "\(chart): no drawing order (convert the database again)" }
    }

    /// Each chart's strokes in the order drawn, cut where a stroke of no symbol was drawn
    /// between two (runs of strokes drawn one right after the other).
    static func strokesDrawnInARow(_ symbols: [Symbol]) throws -> [[ChartStroke]] {
        var charts: [String: [ChartStroke]] = [:]
        for (index, symbol) in symbols.enumerated() {
            guard let order = symbol.order, order.count == symbol.strokes.count else {
                throw NoDrawingOrder(chart: symbol.chart)
            }
            for (place, stroke) in zip(order, symbol.strokes) {
                charts[symbol.chart, default: []].append((place, index, stroke))
            }
        }
        var runs: [[ChartStroke]] = []
        for strokes in charts.values {
            var run: [ChartStroke] = []
            for stroke in strokes.sorted(by: { $0.order < $1.order }) {
                if let last = run.last, last.order + 1 != stroke.order {
                    runs.append(run)
                    run = []
                }
                run.append(stroke)
            }
            runs.append(run)
        }
        return runs
    }

    /// Every two strokes drawn one after the other in a chart, whatever symbols they belong
    /// to, read as an arrow of two strokes (`ShapeRecognizer.recognizeArrow`), as a node
    /// reads a stroke with the one drawn before it: a connector drawn in two strokes must
    /// make an arrow (by writer), and two strokes of different symbols, or of one symbol
    /// that is no connector, none. (Two strokes of a connector drawn in three or more are
    /// not scored: a shaft drawn in two pieces, a head in two barbs.)
    @Test(.enabled(if: isPresent, "CANVAS_FLOWCHARTS does not name the converted flowchart database"))
    func connectorsDrawnInTwoStrokes() throws {
        let symbols = try RecognitionEvaluationTests.records(Symbol.self, inJSONLines: Self.file!)
        let runs = try Self.strokesDrawnInARow(symbols)
        var byWriter: [String: (right: Int, all: Int)] = [:]
        var falseRecognitions: [String: Int] = [:]
        var otherPairs = 0
        for drawn in runs {
            for (first, second) in zip(drawn, drawn.dropFirst()) {
                let kind = ShapeRecognizer.recognizeArrow(
                    drawnFirst: RecognitionEvaluationTests.points(first.stroke),
                    then: RecognitionEvaluationTests.points(second.stroke)
                ).kind
                let symbol = symbols[first.symbol]
                if first.symbol == second.symbol && symbol.label == "arrow" {
                    guard symbol.strokes.count == 2 else { continue }
                    var cell = byWriter[symbol.writer] ?? (0, 0)
                    cell.all += 1
                    if kind == .arrow || kind == .elbowArrow { cell.right += 1 }
                    byWriter[symbol.writer] = cell
                } else {
                    otherPairs += 1
                    let other = symbols[second.symbol].label
                    let labels =
                        first.symbol == second.symbol
                        ? "two strokes of one \(symbol.label)"
                        : "a stroke of \(Self.article(symbol.label)) and one of \(Self.article(other))"
                    if kind != .none { falseRecognitions[labels, default: 0] += 1 }
                }
            }
        }
        func share(_ cell: (right: Int, all: Int)) -> Double { Double(cell.right) / Double(max(1, cell.all)) }
        let overall = byWriter.values.reduce((right: 0, all: 0)) { ($0.right + $1.right, $0.all + $1.all) }
        let worst = byWriter.filter { $0.value.all >= 5 }.min { (share($0.value), $0.key) < (share($1.value), $1.key) }
        let falseCount = falseRecognitions.values.reduce(0, +)
        // Writers of even number (looked at) and odd (held out): see `twoStrokeFloors`.
        var byParity = [(right: 0, all: 0), (right: 0, all: 0)]
        for (writer, cell) in byWriter {
            let parity = Self.parity(writer)
            byParity[parity] = (byParity[parity].right + cell.right, byParity[parity].all + cell.all)
        }
        print(
            String(
                format: "Two-stroke connectors, writers of even number (looked at): %d of %d (%.1f%%); odd: %d of %d "
                    + "(%.1f%%)", byParity[0].right, byParity[0].all, 100 * share(byParity[0]), byParity[1].right,
                byParity[1].all, 100 * share(byParity[1])))
        print(
            String(
                format: "Connectors drawn in two strokes made one arrow: %d of %d (%.1f%%), mean of writers %.1f%%, "
                    + "worst of 5 or more %@ %.1f%% (%d); pairs of other strokes drawn one after the other that made "
                    + "an arrow: %d of %d", overall.right, overall.all, 100 * share(overall),
                100 * byWriter.values.reduce(0) { $0 + share($1) } / Double(max(1, byWriter.count)),
                worst?.key ?? "–", 100 * (worst.map { share($0.value) } ?? 0), worst?.value.all ?? 0, falseCount,
                otherPairs))
        for (labels, count) in falseRecognitions.sorted(by: { $0.key < $1.key }) { print("- \(labels): \(count)") }
        #expect(share(overall) >= Self.twoStrokeFloors.connectors, "connectors: \(share(overall))")
        #expect(falseCount <= Self.twoStrokeFloors.falseRecognitions, "false recognitions: \(falseRecognitions)")
    }

    /// What connectors drawn in three strokes must make as one arrow, and the most runs of
    /// three strokes of no one connector which may make one (first measured on 2026-11-29,
    /// twentieth session, the reading designed on the even writers' connectors, the odd
    /// writers' reported apart: 31.2 %, 30.6 % once a tap or tick is no half of a head;
    /// 2026-11-29, twenty-sixth session, a shaft drawn in two pieces: 30.6 → 49.2 %, the odd
    /// writers' 10.1 → 47.8 %, and 1 → 3 false, counted as a node reads the strokes;
    /// 2026-11-30, twenty-seventh session, a stroke joining an arrow made of two: 49.2 →
    /// 62.7 %, the odd writers' 47.8 → 57.2 %, 3 → 4 false).
    static let threeStrokeFloors = (connectors: 0.62, falseRecognitions: 4)

    /// Every three strokes drawn one after the other in a chart, read as a node reads a
    /// stroke with the two drawn before it (`RecognitionEvaluationTests.arrowsOfStrokesInARow`,
    /// the chart's strokes in a row): a connector drawn in three strokes (a shaft and two
    /// barbs, a shaft and a closed head in two, a shaft in two pieces and a head, the third
    /// stroke joining the arrow the first two made or not) must make an arrow (by writer; the
    /// connectors of which two strokes in a row made the arrow are counted apart), and three
    /// strokes of different symbols, or of one symbol that is no connector, none. Three
    /// strokes of a connector drawn in four or more that make an arrow are counted apart: an
    /// arrow, but with a stroke of it left over.
    @Test(.enabled(if: isPresent, "CANVAS_FLOWCHARTS does not name the converted flowchart database"))
    func connectorsDrawnInThreeStrokes() throws {
        try Self.expectConnectorsInARow(drawnIn: 3, moreThan: 400, floors: Self.threeStrokeFloors)
    }

    /// What connectors drawn in four strokes must make as one arrow, the fourth joining the
    /// arrow the first three made, and the most runs of four strokes of no one connector which
    /// may make one (first measured on 2026-11-30, twenty-eighth session, the readings designed
    /// on the even writers' connectors, the odd writers' reported apart: a stroke after an
    /// arrow of three, 14 of 100, 9 of 50 even and 5 of 50 odd; with the stroke before one too,
    /// 37, 16 even and 21 odd; none false of 37,605).
    static let fourStrokeFloors = (connectors: 0.36, falseRecognitions: 0)

    /// Every four strokes drawn one after the other in a chart, read as a node reads them
    /// (`RecognitionEvaluationTests.arrowsOfStrokesInARow`): a connector drawn in four strokes,
    /// three of which made an arrow before or as the fourth is drawn (a shaft, two barbs and
    /// the closed head's base; an elbow connector's runs and head, its first run drawn first
    /// or last), must make one of the four; those of which fewer strokes in a row made the
    /// arrow, and four strokes of a connector of five or more that make one, are counted apart;
    /// four strokes of different symbols, or of one that is no connector, make none.
    @Test(.enabled(if: isPresent, "CANVAS_FLOWCHARTS does not name the converted flowchart database"))
    func connectorsDrawnInFourStrokes() throws {
        try Self.expectConnectorsInARow(drawnIn: 4, moreThan: 90, floors: Self.fourStrokeFloors)
    }

    /// Expects more than `least` connectors drawn in `count` strokes one right after the
    /// other (`connectorsInARow(drawnIn:)`), at least `floors.connectors` of them made one
    /// arrow, and at most `floors.falseRecognitions` runs of `count` strokes of no one
    /// connector that made one.
    static func expectConnectorsInARow(
        drawnIn count: Int, moreThan least: Int, floors: (connectors: Double, falseRecognitions: Int)
    ) throws {
        let counts = try connectorsInARow(drawnIn: count)
        #expect(counts.all.all > least, "connectors drawn in \(count) strokes: \(counts.all.all)")
        #expect(counts.share >= floors.connectors, "connectors: \(counts.share)")
        #expect(counts.falseCount <= floors.falseRecognitions, "false recognitions: \(counts.falseRecognitions)")
    }

    /// What every `count` strokes (three or four) drawn one after the other in a chart make,
    /// read as a node reads them (`RecognitionEvaluationTests.arrowsOfStrokesInARow`): the
    /// connectors drawn in `count` strokes that made one arrow of them, by parity of writer;
    /// those of which fewer strokes in a row made an arrow instead; the `count` strokes of a
    /// connector of more that made one; and the `count` strokes of no one connector that made
    /// one (false recognitions, by the symbols' labels), of `others`. Printed.
    static func connectorsInARow(drawnIn count: Int) throws -> ConnectorCounts {
        let symbols = try RecognitionEvaluationTests.records(Symbol.self, inJSONLines: Self.file!)
        var counts = ConnectorCounts()
        for drawn in try Self.strokesDrawnInARow(symbols) where drawn.count >= count {
            let read = RecognitionEvaluationTests.arrowsOfStrokesInARow(
                drawn.map { RecognitionEvaluationTests.points($0.stroke) })
            let fewer = [read.pairs, read.threes]
            for (start, kind) in (count == 3 ? read.threes : read.fours).enumerated() {
                let strokes = Array(drawn[start..<(start + count)])
                let symbol = symbols[strokes[0].symbol]
                let oneSymbol = strokes.allSatisfy { $0.symbol == strokes[0].symbol }
                if oneSymbol && symbol.label == "arrow" && symbol.strokes.count == count {
                    let parity = Self.parity(symbol.writer)
                    counts.byParity[parity].all += 1
                    if kind == .arrow || kind == .elbowArrow {
                        counts.byParity[parity].right += 1
                    } else if (2..<count).contains(where: { joined in
                        (start..<(start + count - joined + 1)).contains { fewer[joined - 2][$0] != .none }
                    }) {
                        counts.ofFewer += 1
                    }
                } else if oneSymbol && symbol.label == "arrow" {
                    if kind != .none { counts.ofLonger += 1 }
                } else {
                    counts.others += 1
                    let labels = strokes.map { symbols[$0.symbol].label }.joined(separator: ", ")
                    if kind != .none { counts.falseRecognitions[labels, default: 0] += 1 }
                }
            }
        }
        let (all, parities) = (counts.all, counts.byParity)
        print(
            String(
                format: "Connectors drawn in %d strokes made one arrow: %d of %d (%.1f%%; writers of even number, "
                    + "looked at, %d of %d, odd %d of %d); of fewer of their strokes in a row: %d; %d strokes of a "
                    + "connector of more that made an arrow: %d; %d strokes of no one connector that made an "
                    + "arrow: %d of %d", count, all.right, all.all, 100 * counts.share, parities[0].right,
                parities[0].all, parities[1].right, parities[1].all, counts.ofFewer, count, counts.ofLonger, count,
                counts.falseCount, counts.others))
        for (labels, found) in counts.falseRecognitions.sorted(by: { $0.key < $1.key }) {
            print("- \(labels): \(found)")
        }
        return counts
    }

    /// What `connectorsInARow(drawnIn:)` counts.
    struct ConnectorCounts {
        var byParity = [(right: 0, all: 0), (right: 0, all: 0)]
        var ofFewer = 0
        var ofLonger = 0
        var others = 0
        var falseRecognitions: [String: Int] = [:]

        var all: (right: Int, all: Int) {
            (byParity[0].right + byParity[1].right, byParity[0].all + byParity[1].all)
        }
        var share: Double { Double(all.right) / Double(max(1, all.all)) }
        var falseCount: Int { falseRecognitions.values.reduce(0, +) }
    }
}

extension FlowchartEvaluationTests {
    /// The least shares of the boxes drawn in two to four strokes that must become one shape
    /// (measured on 2026-11-29, twenty-third session, when closed shapes drawn in several
    /// strokes were first joined: designed looking at the writers of even number, the odd
    /// writers' reported apart), and the most strokes that may make a closed shape with
    /// strokes of another symbol, or of a symbol that is no closed shape (text, a connector),
    /// or make the wrong one (a decision a parallelogram). Since a curved stroke may be a
    /// rectangle's rounded end (2026-11-29, twenty-fourth session: terminators 0.58 → 0.71,
    /// the odd writers' 0.43 → 0.62; one more false recognition, four strokes of handwriting
    /// whose flat bottom stroke starts with a curl). Since strokes that cross where they meet
    /// are joined there (twenty-fifth session: connections 0.39 → 0.69, terminators 0.71 →
    /// 0.74; one false recognition fewer: two strokes of handwriting, one of them nearly
    /// straight, no longer an ellipse).
    static let severalStrokeFloors = (
        shares: ["process": 0.85, "decision": 0.78, "data": 0.87, "terminator": 0.74, "connection": 0.69],
        falseRecognitions: 25
    )

    /// Each chart's strokes in the order drawn, read as a node reads them
    /// (`ShapeRecognizer.recognizeInARow`: with recognition on, one pen, nothing done between
    /// two strokes drawn one right after the other): a box, decision, data symbol, terminator
    /// or connection circle drawn in two to four strokes must become its shape once its last
    /// stroke is drawn, the strokes it joins all of the symbol's (by writer, even and odd
    /// apart); one that became its shape before its last stroke (a short stroke closing the
    /// gap after) is counted apart. Strokes of several symbols, or of text or a connector,
    /// that make a closed shape, and a symbol's strokes making a shape it is not, are false
    /// recognitions.
    @Test(.enabled(if: isPresent, "CANVAS_FLOWCHARTS does not name the converted flowchart database"))
    func closedShapesDrawnInSeveralStrokes() throws {
        let symbols = try RecognitionEvaluationTests.records(Symbol.self, inJSONLines: Self.file!)
        let accepted = Dictionary(uniqueKeysWithValues: Self.symbols.map { ($0.label, $0.accepted) })
        let closed: Set<ShapeKind> = [.rectangle, .diamond, .parallelogram, .ellipse, .triangle]
        let labels = Self.severalStrokeFloors.shares.keys.sorted()
        // By label, writers of even and odd number: symbols made whole, of all in 2-4 strokes.
        var made: [String: [(right: Int, all: Int)]] = [:]
        var byWriter: [String: [String: (right: Int, all: Int)]] = [:]
        for symbol in symbols where labels.contains(symbol.label) && (2...4).contains(symbol.strokes.count) {
            made[symbol.label, default: [(0, 0), (0, 0)]][Self.parity(symbol.writer)].all += 1
            byWriter[symbol.label, default: [:]][symbol.writer, default: (0, 0)].all += 1
        }
        var early: [String: Int] = [:]
        var falseRecognitions: [String: Int] = [:]
        var strokesRead = 0
        for run in try Self.strokesDrawnInARow(symbols) {
            let readings = ShapeRecognizer.recognizeInARow(run.map { RecognitionEvaluationTests.points($0.stroke) })
            strokesRead += run.count
            for (index, reading) in readings.enumerated()
            where reading.joins > 0 && closed.contains(reading.shape.kind) {
                let taken = run[(index - reading.joins)...index]
                let symbol = symbols[taken.first!.symbol]
                let oneSymbol = taken.allSatisfy { $0.symbol == taken.first!.symbol }
                if oneSymbol && labels.contains(symbol.label) && accepted[symbol.label]!.contains(reading.shape.kind) {
                    if taken.count == symbol.strokes.count {
                        made[symbol.label]![Self.parity(symbol.writer)].right += 1
                        byWriter[symbol.label]![symbol.writer]!.right += 1
                    } else {
                        early[symbol.label, default: 0] += 1
                    }
                } else {
                    let names = Set(taken.map { symbols[$0.symbol].label }).sorted().joined(separator: ", ")
                    let kind = reading.shape.kind.rawValue
                    let description = oneSymbol ? "\(names) as \(kind)" : "strokes of \(names) as \(kind)"
                    falseRecognitions[description, default: 0] += 1
                }
            }
        }
        func share(_ cell: (right: Int, all: Int)) -> Double { Double(cell.right) / Double(max(1, cell.all)) }
        var lines = [
            "| symbol | drawn in 2-4 strokes | made one shape | writers of even number (looked at) | odd (held out) "
                + "| mean of writers | worst of 5 or more | became its shape before its last stroke | floor |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for label in labels {
            let cells = made[label] ?? [(0, 0), (0, 0)]
            let all = (right: cells[0].right + cells[1].right, all: cells[0].all + cells[1].all)
            let floor = Self.severalStrokeFloors.shares[label]!
            let writers = byWriter[label] ?? [:]
            let mean = writers.values.reduce(0) { $0 + share($1) } / Double(max(1, writers.count))
            let worst = writers.filter { $0.value.all >= 5 }.min {
                (share($0.value), $0.key) < (share($1.value), $1.key)
            }
            let worstText = worst.map { String(format: "%.1f%% (%@, %d)", 100 * share($0.value), $0.key, $0.value.all) }
            lines.append(
                String(
                    format: "| %@ | %d | %.1f%% | %d of %d (%.1f%%) | %d of %d (%.1f%%) | %.1f%% | %@ | %d | %.0f%% |",
                    label, all.all, 100 * share(all), cells[0].right, cells[0].all, 100 * share(cells[0]),
                    cells[1].right, cells[1].all, 100 * share(cells[1]), 100 * mean, worstText ?? "–",
                    early[label] ?? 0, 100 * floor))
            #expect(share(all) >= floor, "\(label) drawn in several strokes: \(share(all)) made one shape")
        }
        let falseCount = falseRecognitions.values.reduce(0, +)
        print("Closed symbols drawn in two to four strokes, read as a node reads strokes drawn in a row:")
        print(lines.joined(separator: "\n"))
        print(
            String(
                format: "Strokes that made a closed shape they are not (of %d strokes read): %d (%.2f%%)", strokesRead,
                falseCount, 100 * Double(falseCount) / Double(max(1, strokesRead))))
        for (labels, count) in falseRecognitions.sorted(by: { $0.key < $1.key }) { print("- \(labels): \(count)") }
        #expect(falseCount <= Self.severalStrokeFloors.falseRecognitions, "\(falseRecognitions)")
    }

    /// 0 for a writer of even number, 1 for odd.
    static func parity(_ writer: String) -> Int { (Int(writer.dropFirst("writer".count)) ?? 0) % 2 }
}
