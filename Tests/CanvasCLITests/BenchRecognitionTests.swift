import Foundation
import Testing

@Suite("canvas bench recognition")
struct BenchRecognitionTests {
    /// Three gestures as in ../shared/data: a one-stroke rectangle, a two-stroke "X"
    /// (`strokes`, each timed on its own) and a dot, which has no length.
    static let gestures = """
        {"label":"rectangle","points":[[0,0],[100,0],[100,60],[0,60],[0,1]]}
        {"label":"X","strokes":[[[0,0],[50,50]],[[50,0],[0,50]]],"points":[[0,0],[50,50],[50,0],[0,50]]}
        {"label":"dot","points":[[5,5]]}

        """

    @Test func timesEveryStrokeAndNamesTheSlowest() throws {
        let outcome = try CanvasCommand.run(
            ["bench", "recognition", "-", "--repeats", "2", "--slowest", "3", "--json"], input: Self.gestures)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        #expect(object["strokes"] as? Int == 3)
        #expect(object["skipped"] as? Int == 1)
        #expect(object["points"] as? Int == 200)
        let slowest = try #require(object["slowest"] as? [[String: Any]])
        let names = Set(slowest.compactMap { $0["name"] as? String })
        #expect(names == ["-:1 (rectangle)", "-:2 (X stroke 1)", "-:2 (X stroke 2)"])
        let shapes = Dictionary(uniqueKeysWithValues: slowest.map { ($0["name"] as? String, $0["shape"] as? String) })
        #expect(shapes["-:1 (rectangle)"] == "rectangle")
        #expect(shapes["-:2 (X stroke 1)"] == "line")
        for timing in slowest { #expect((timing["us"] as? Double ?? 0) > 0) }
        let median = try #require(object["median_us"] as? Double)
        let slowestTime = try #require(object["max_us"] as? Double)
        #expect(median > 0 && median <= slowestTime)
    }

    @Test func readsGzippedFilesAndDrawsThePlot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-recognition-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("gestures.jsonl")
        try Self.gestures.write(to: plain, atomically: true, encoding: .utf8)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        let plot = folder.appendingPathComponent("plot.svg")
        let outcome = try CanvasCommand.run([
            "bench", "recognition", plain.path, plain.path + ".gz", "--points", "0", "--repeats", "1",
            "--slowest", "3", "--plot", plot.path,
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("Recognition of 6 strokes, each as drawn"))
        let rows = outcome.standardOutput.split(separator: "\n").filter {
            $0.hasPrefix(folder.path) || $0.hasPrefix("all")
        }
        #expect(rows.count == 2 + 1 + 3, "two files, all, three slowest: \(outcome.standardOutput)")
        let svg = try String(contentsOf: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("gestures.jsonl.gz") && svg.contains("target 50.0 µs"))
    }

    @Test func refusesAFileItCannotReadWholly() throws {
        let missing = try CanvasCommand.run(["bench", "recognition", "/nonexistent/strokes.jsonl"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("cannot read /nonexistent/strokes.jsonl"))
        let invalid = try CanvasCommand.run(
            ["bench", "recognition", "-"], input: Self.gestures + #"{"label":"bad","strokes":[[[1,"two"]]]}"# + "\n")
        #expect(invalid.status != 0)
        #expect(invalid.standardError.contains("-:4: error:") && invalid.standardError.contains("strokes[0][0][1]"))
        #expect(invalid.standardOutput.isEmpty && !invalid.standardError.contains("Usage"))
        let none = try CanvasCommand.run(["bench", "recognition", "-"], input: #"{"points":[[1,1]]}"# + "\n")
        #expect(none.status != 0)
        #expect(none.standardError.contains("no stroke with a length"))
    }
}
