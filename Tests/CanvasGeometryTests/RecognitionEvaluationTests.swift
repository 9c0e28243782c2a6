import CanvasCore
import CanvasGeometry
import Foundation
import Testing

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
        for dataSet in Self.dataSets {
            for gesture in try Self.gestures(in: dataSet.file) {
                let expected = dataSet.targets[gesture.label] ?? .none
                let row = expected == .none ? gesture.label : expected.rawValue
                let strokes = gesture.strokes ?? [gesture.points]
                if strokes.count == 1 {
                    let kind = ShapeRecognizer.recognize(Self.points(strokes[0])).kind
                    singleStroke[row, default: [:]][kind, default: 0] += 1
                    if kind != .none && kind != expected {
                        falseRecognitions.append(
                            "\(gesture.label) (subject \(gesture.subject), \(gesture.speed)) as \(kind)")
                    }
                } else {
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
