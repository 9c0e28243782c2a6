@testable import CanvasBench
import CanvasCore
import CanvasProtocol
import Foundation
import Testing

/// The end-to-end benchmark's pure parts: the authors' load, exact percentiles, the plot.
@Suite struct EndToEndLoadTests {
    @Test func everyAuthorDrawsItsRateEverySecondInValidOperations() throws {
        let load = AuthorLoad(authors: 40, pointsPerSecond: 15, seconds: 9, strokeSeconds: 4, tracedEvery: 10, seed: 7)
        let emits = load.emits()
        #expect(emits.map(\.time) == emits.map(\.time).sorted())
        #expect(emits.reduce(0) { $0 + $1.points } == load.totalPoints)
        var document = Document()
        for emit in emits {
            guard case .operation(let operation) = try MessageDecoder.decode(emit.line) else {
                Issue.record("not an operation: \(String(decoding: emit.line, as: UTF8.self))")
                return
            }
            #expect(document.apply(operation).isNovel)
            // Traced authors' strokes, and only theirs, start with the traced prefix.
            #expect(operation.strokeID.rawValue.hasPrefix(AuthorLoad.tracedPrefix) == load.isTraced(emit.author))
            #expect(emit.traced.map { $0.stroke == operation.strokeID.rawValue } ?? true)
        }
        #expect(document.statistics.points == load.totalPoints)
        // Every stroke is whole: no gap, so every point is drawable.
        #expect(document.strokes.allSatisfy { $0.pending.isEmpty && $0.header != nil })
        // Each author's seconds are a second apart, at a phase of its own.
        let phases = Set(emits.filter { $0.time < 1 }.map(\.time))
        #expect(phases.count > 30)
    }

    @Test func tracedAuthorsAreSpreadEvenlyOverTheNodes() {
        // 1000 authors through 50 nodes in 2 groups (author a through node a % 50, node n in
        // group n % 2), one in 20 traced: one on every node.
        func tracedPerNode(_ load: AuthorLoad, nodes: Int) -> [Int: Int] {
            Dictionary(grouping: (0..<load.authors).filter(load.isTraced)) { $0 % nodes }.mapValues(\.count)
        }
        let perNode = tracedPerNode(AuthorLoad(authors: 1000, seconds: 1, tracedEvery: 20), nodes: 50)
        #expect(perNode.count == 50 && perNode.values.allSatisfy { $0 == 1 })
        // Twice the authors: two a node.
        let twice = tracedPerNode(AuthorLoad(authors: 2000, seconds: 1, tracedEvery: 20), nodes: 50)
        #expect(twice.count == 50 && twice.values.allSatisfy { $0 == 2 })
        // Fewer traced authors than nodes: both groups alike.
        let few = tracedPerNode(AuthorLoad(authors: 1000, seconds: 1, tracedEvery: 80), nodes: 50)
        #expect(few.values.reduce(0, +) == 12)
        #expect(few.keys.filter { $0 % 2 == 0 }.count == 6)
        // At least one author is traced.
        #expect(AuthorLoad(authors: 3, seconds: 1, tracedEvery: 20).isTraced(0))
    }

    @Test func strokesLastStrokeSecondsExceptTheFirst() {
        let load = AuthorLoad(authors: 200, pointsPerSecond: 15, seconds: 12, strokeSeconds: 4, seed: 3)
        let adds = load.emits().filter { String(decoding: $0.line, as: UTF8.self).hasPrefix(#"{"type":"ADD""#) }
        // One stroke at the start, then one every 4 s after a first stroke of 1 to 4 s.
        var perAuthor: [Int: [Double]] = [:]
        for add in adds { perAuthor[add.author, default: []].append(add.time) }
        for times in perAuthor.values {
            #expect(times.count >= 3 && times.count <= 4)
            for (earlier, later) in zip(times.dropFirst(), times.dropFirst(2)) {
                #expect(abs(later - earlier - 4) < 1e-9)
            }
        }
        // Stroke starts are spread: not every author starts its second stroke at once.
        #expect(Set(perAuthor.values.map { Int(($0[1] - $0[0]).rounded()) }) == [1, 2, 3, 4])
    }

    @Test func percentilesAreMeasuredValues() {
        let values = Distribution((1...100).map(Double.init).shuffled())
        #expect(values.median == 50)
        #expect(values.p99 == 99)
        #expect(values.max == 100)
        #expect(values.percentile(0) == 1)
        #expect(values.fraction(atOrBelow: 25.5) == 0.25)
        #expect(Distribution([]).median == nil)
    }

    @Test func thePlotHasAPanelPerChartAndALinePerSeries() {
        let panel = SVGPlot.Panel(
            title: "latency", xLabel: "authors", yLabel: "ms",
            series: [
                .init(name: "p50", colour: "#00f", points: [(100, 3), (1000, 9)]),
                .init(name: "p99", colour: "#f00", points: [(100, 30), (1000, 240)]),
            ], target: (250, "target"))
        let svg = SVGPlot.document([panel, panel], caption: "a <caption>")
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 4)
        #expect(svg.contains("a &lt;caption&gt;"))
        #expect(SVGPlot.ticks(upTo: 240) == [0, 50, 100, 150, 200, 250])
        #expect(SVGPlot.decades(covering: [3.2, 250, 74_000]) == [1, 10, 100, 1000, 10_000, 100_000])
    }

    @Test func theLegendKeepsClearOfTheLines() {
        // A line across the top left: the legend's box goes to the lower right.
        let falling = SVGPlot.Panel(
            title: "t", xLabel: "x", yLabel: "y",
            series: [.init(name: "falling", colour: "#00f", points: [(0, 100), (500, 90), (1000, 10)])], target: nil)
        let svg = SVGPlot.document([falling], caption: "")
        let box = svg.components(separatedBy: "\n").first { $0.contains("fill-opacity") } ?? ""
        let x = Double(box.components(separatedBy: "x=\"").dropFirst().first?.split(separator: "\"").first ?? "") ?? 0
        #expect(x > 200, "legend box at x \(x): \(box)")
    }
}

