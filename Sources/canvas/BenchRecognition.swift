import ArgumentParser
import CanvasBench
import CanvasCore
import CanvasGeometry
import CanvasProtocol
import Foundation

extension Bench {
    struct Recognition: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recognition",
            abstract: "Shape recognition timed stroke by stroke over real strokes: the distribution, the slowest.",
            discussion: """
                Reads NDJSON gestures from each FILE ('-' for standard input; a name ending in \
                .gz is read through gzip -dc), one per line as in ../shared/data: "strokes" \
                ([[[x, y], …], …], each stroke timed on its own) or else "points", and "label". \
                Each stroke is resampled to --points points (0: as drawn) and recognised \
                --repeats times in rounds; its least time counts. Prints the median, p90, p99, \
                p99.9 and slowest time over all strokes and per file, how many strokes take \
                longer than --target, and the slowest strokes with what they were recognised \
                as. With --in-a-row, each stroke of a gesture is read with the strokes drawn \
                before it, as a node reads a stroke drawn with recognition on (the arrows and \
                closed shapes it may make with them: ShapeRecognizer.recognize(_:after:madeAnArrow:)). \
                --plot writes the distribution per file as SVG (docs/benchmarks.md).
                """
        )

        @Argument(help: "NDJSON files of gestures ('-' for standard input, .gz through gzip -dc).")
        var files: [String]

        @Option(help: "Points each stroke is resampled to before it is timed (0: the stroke as drawn).")
        var points = 200

        @Option(help: "Recognitions of each stroke; the least time counts.")
        var repeats = 7

        @Option(help: "The time a stroke should take at most, in microseconds.")
        var target = 50.0

        @Option(help: "How many of the slowest strokes to list.")
        var slowest = 10

        @Option(help: "Write the distribution (one line per file) to this SVG file.")
        var plot: String?

        @Flag(help: "Read each stroke of a gesture with the strokes drawn before it, as a node does.")
        var inARow = false

        @Flag(help: "Print machine-readable JSON instead of tables.")
        var json = false

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("give at least one NDJSON file of gestures") }
            guard points == 0 || points >= 2 else {
                throw ValidationError("--points must be 0 or at least 2, got \(points)")
            }
            guard repeats >= 1 else { throw ValidationError("--repeats must be at least 1, got \(repeats)") }
            guard target > 0, target.isFinite else { throw ValidationError("--target must be positive, got \(target)") }
            guard slowest >= 0 else { throw ValidationError("--slowest must not be negative, got \(slowest)") }
        }

        /// The strokes of the files, each resampled as asked and named by file, line and
        /// label; which file each came from; how many had no length.
        struct Strokes {
            var samples: [RecognitionTimings.Sample] = []
            var file: [Int] = []
            var skipped = 0
        }

        func run() throws {
            let strokes = try readStrokes()
            let timings = RecognitionTimings(samples: strokes.samples, repeats: repeats).run()
            let microseconds = timings.map { $0.seconds * 1e6 }
            let all = Distribution(microseconds)
            let perFile = files.indices.map { index in
                Distribution(microseconds.indices.filter { strokes.file[$0] == index }.map { microseconds[$0] })
            }
            let slowestTimings = timings.sorted { $0.seconds > $1.seconds }.prefix(slowest)
            func name(_ timing: RecognitionTimings.StrokeTime) -> String { strokes.samples[timing.sample].name }
            if let plot {
                try Self.plot(perFile, names: files, target: target)
                    .write(toFile: plot, atomically: true, encoding: .utf8)
            }
            if json {
                func summary(_ distribution: Distribution) -> [String: Any] {
                    [
                        "strokes": distribution.count, "median_us": distribution.median ?? 0,
                        "p90_us": distribution.percentile(0.9) ?? 0, "p99_us": distribution.p99 ?? 0,
                        "p999_us": distribution.percentile(0.999) ?? 0, "max_us": distribution.max ?? 0,
                        "over_target": distribution.count(above: target),
                    ]
                }
                var object = summary(all)
                object["benchmark"] = "recognition"
                object["points"] = points
                object["repeats"] = repeats
                object["target_us"] = target
                object["skipped"] = strokes.skipped
                object["files"] = zip(files, perFile).map { file, distribution in
                    summary(distribution).merging(["file": file]) { $1 }
                }
                object["slowest"] = slowestTimings.map { timing -> [String: Any] in
                    ["name": name(timing), "us": timing.seconds * 1e6, "shape": timing.shape.rawValue]
                }
                try printJSON(object)
                return
            }
            let resampling = points == 0 ? "as drawn" : "resampled to \(points) points"
            print(
                "Recognition of \(all.count) strokes, each \(resampling), the least of \(repeats) recognitions"
                    + (strokes.skipped > 0 ? " (\(strokes.skipped) strokes without length skipped)" : "") + ":")
            var rows = [["", "strokes", "median", "p90", "p99", "p99.9", "slowest", "over \(Self.figure(target)) µs"]]
            let totals = files.count > 1 ? [("all", all)] : []
            for (name, distribution) in Array(zip(files, perFile)) + totals {
                let over = distribution.count(above: target)
                let share = 100 * Double(over) / Double(max(1, distribution.count))
                rows.append(
                    [name, "\(distribution.count)"]
                        + [distribution.median, distribution.percentile(0.9), distribution.p99,
                            distribution.percentile(0.999), distribution.max].map(Self.figure)
                        + [String(format: "%d (%.2f %%)", over, share)])
            }
            print(table(rows))
            guard !slowestTimings.isEmpty else { return }
            print("\nThe slowest strokes (µs, recognised as):")
            print(table(slowestTimings.map { [name($0), Self.figure($0.seconds * 1e6), $0.shape.rawValue] }))
        }

        /// The strokes of `files`; an invalid line in any is reported (file:line) and stops
        /// the benchmark, which would otherwise measure something other than the file.
        func readStrokes() throws -> Strokes {
            var strokes = Strokes()
            for (fileIndex, file) in files.enumerated() {
                var invalid: [String] = []
                NDJSONLines.forEach(in: try Self.read(file)) { lineNumber, line in
                    do {
                        let gesture = try StrokeSample.gesture(from: line)
                        // The strokes before each, as a node keeps them (with --in-a-row).
                        var before = StrokesBefore<[Point]>()
                        for (strokeIndex, stroke) in gesture.strokes.enumerated() {
                            let timed = points == 0 ? stroke : StrokeResampling.resampled(stroke, count: points)
                            guard timed.count >= 2 else {
                                strokes.skipped += 1
                                continue
                            }
                            let part = gesture.strokes.count > 1 ? " stroke \(strokeIndex + 1)" : ""
                            let label = gesture.label.map { " (\($0)\(part))" } ?? part
                            strokes.samples.append(
                                .init(
                                    name: "\(file):\(lineNumber)\(label)", points: timed,
                                    before: inARow ? before : nil))
                            strokes.file.append(fileIndex)
                            if inARow {
                                before.note(
                                    timed,
                                    readAs: ShapeRecognizer.recognize(
                                        timed, after: before.parts, madeAnArrow: before.madeAnArrow))
                            }
                        }
                    } catch {
                        invalid.append("\(file):\(lineNumber): error: \(error)")
                    }
                }
                if !invalid.isEmpty {
                    FileHandle.standardError.write(Data(invalid.map { $0 + "\n" }.joined().utf8))
                    throw ExitCode(1)
                }
            }
            guard !strokes.samples.isEmpty else {
                throw InputError("no stroke with a length in \(files.joined(separator: ", "))")
            }
            return strokes
        }

        /// Microseconds with one decimal, or "-" without a value.
        static func figure(_ value: Double?) -> String {
            value.map { String(format: "%.1f", $0) } ?? "-"
        }

        /// The bytes of `file`: standard input for "-", through `gzip -dc` for a .gz name.
        static func read(_ file: String) throws -> Data {
            if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw InputError("cannot read \(file): no such readable file")
            }
            guard file.hasSuffix(".gz") else {
                do {
                    return try Data(contentsOf: URL(fileURLWithPath: file))
                } catch {
                    throw InputError("cannot read \(file): \(error.localizedDescription)")
                }
            }
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-gzip-\(getpid()).log").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let gzip = try ChildProcess("/bin/gzip", ["-dc", "--", file], log: log, pipeOutput: true)
            let data = FileHandle(fileDescriptor: gzip.output, closeOnDealloc: true).readDataToEndOfFile()
            let status = gzip.wait()
            guard status == 0 else {
                let message = (try? String(contentsOfFile: log, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                throw InputError("cannot read \(file): gzip -dc exited with status \(status): \(message)")
            }
            return data
        }

        /// Each file's times ascending against the share of its strokes, with the target.
        static func plot(_ distributions: [Distribution], names: [String], target: Double) -> String {
            let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
            let series = zip(distributions, names).enumerated().map { index, pair in
                let (distribution, name) = pair
                let count = Double(distribution.count)
                // At most 400 dots a line: every stroke's rank would draw thousands of dots.
                let step = max(1, distribution.count / 400)
                var ranks = Array(stride(from: 0, to: distribution.count, by: step))
                if ranks.last != distribution.count - 1 { ranks.append(distribution.count - 1) }
                return SVGPlot.Series(
                    name: (name as NSString).lastPathComponent, colour: colours[index % colours.count],
                    points: ranks.map { (x: 100 * Double($0 + 1) / count, y: distribution.sorted[$0]) })
            }
            let panel = SVGPlot.Panel(
                title: "Recognising a stroke", xLabel: "strokes at or below (%)", yLabel: "µs (least of the repeats)",
                series: series, target: (y: target, label: "target \(figure(target)) µs"))
            return SVGPlot.document([panel], caption: "canvas bench recognition: each stroke's time, ascending")
        }
    }
}

/// Input `canvas bench recognition` cannot measure, in words (printed as "Error: …").
struct InputError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
