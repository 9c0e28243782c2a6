import ArgumentParser
import CanvasCore
import CanvasGeometry
import CanvasProtocol
import Foundation

struct Recognize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Recognise shapes in hand-drawn strokes.",
        discussion: """
            Reads NDJSON, one stroke per line as an object with "points": [[x, y], …] (other \
            fields are ignored), from FILE or standard input, and prints one JSON object per \
            line: {"shape": "line" | "rectangle" | "diamond" | "parallelogram" | "ellipse" | \
            "triangle" | "arrow" | "elbow_arrow" | "double_arrow" | "none", "points": […]}, where points \
            is the replacement \
            geometry as a polyline (empty for none). Invalid lines are reported on standard \
            error as FILE:LINE: error: … and make the exit status 1. With --explain, each \
            object also has "explain": every shape tried, with the stroke's scores against it \
            (distances as fractions of the stroke's size, the share of the outline and of its \
            least-drawn side traced) and its verdict: chosen, passes, refused (the failed test \
            and its figures) or not fitted (why); and "smoothing", when the stroke's points lie \
            on a grid coarse for its size (whole pixels on a small shape) or are noisy for it \
            (a shaky hand), how it was smoothed before fitting. With --two-strokes, each line \
            holds "strokes": [[[x, y], …], [[x, y], …]], two strokes drawn one after the other, and \
            the shape printed is the arrow they make together (a shaft and a head drawn on its own, \
            in either order) or none; with --three-strokes, three strokes, the arrow a shaft and a \
            head drawn in two strokes (two barbs apart, or a closed head's sides) make, in any \
            order, or a shaft drawn in two pieces (the first two) and its head; with --after-arrow \
            too, the first two are taken to have made an arrow already (as a node keeps them), and \
            the shape printed is the arrow the third makes with both in its place (a closed head's \
            base, an elbow's first run drawn after the rest) or none; with --four-strokes, four \
            strokes, the first three taken to have made an arrow, and the shape printed the arrow \
            the fourth makes with them (joined to its head or its shaft) or none. With --joined, each line \
            holds two to four strokes, and the shape printed is the closed shape they make joined \
            end to end in any order, or where one runs on across \
            the next (a box drawn as two L's, a circle as two arcs) or none. With --in-a-row, each \
            line holds any number of strokes drawn one after the other, and prints {"shapes": \
            [{"shape": …, "joins": N, "points": \
            […]}, …]}: for each stroke, what a node drawing them with recognition on makes of it \
            with the strokes before it (an arrow or closed shape taking the last N strokes with \
            it, or the stroke alone: N = 0). See docs/recognition.md.
            """
    )

    @Argument(help: "NDJSON file of strokes ('-' or none for standard input).")
    var file: String?

    @Flag(help: "Add every shape tried, its scores and why it was refused (\"explain\").")
    var explain = false

    @Flag(help: "Read two strokes a line (\"strokes\") and print the arrow they make together.")
    var twoStrokes = false

    @Flag(help: "Read three strokes a line (\"strokes\") and print the arrow they make together.")
    var threeStrokes = false

    @Flag(help: "With --three-strokes: the first two taken to have made an arrow, which the third may join.")
    var afterArrow = false

    @Flag(help: "Read four strokes a line, the first three taken to have made an arrow, which the fourth may join.")
    var fourStrokes = false

    @Flag(help: "Read two to four strokes a line (\"strokes\") and print the closed shape they make joined.")
    var joined = false

    @Flag(help: "Read strokes drawn one after the other (\"strokes\") and print what a node makes of each.")
    var inARow = false

    func validate() throws {
        let modes = [
            ("--two-strokes", twoStrokes), ("--three-strokes", threeStrokes), ("--four-strokes", fourStrokes),
            ("--joined", joined), ("--in-a-row", inARow),
        ].filter(\.1).map(\.0)
        if modes.count > 1 { throw ValidationError("\(modes.joined(separator: " and ")) exclude each other") }
        if afterArrow && !threeStrokes {
            throw ValidationError(
                "--after-arrow reads three strokes: add --three-strokes (--four-strokes always reads a stroke after "
                    + "an arrow)")
        }
        if inARow && explain {
            throw ValidationError(
                "--in-a-row prints no explanation: explain a stroke's reading with --two-strokes, --three-strokes "
                    + "or --joined")
        }
    }

    func run() throws {
        let name = file.map { $0 == "-" ? "<stdin>" : $0 } ?? "<stdin>"
        let data: Data
        do {
            data = file == nil || file == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file!))
        } catch {
            throw ValidationError("cannot read \(file ?? "-"): \(error.localizedDescription)")
        }
        var failed = false
        NDJSONLines.forEach(in: data) { lineNumber, line in
            do {
                if inARow {
                    let strokes = try StrokeSample.strokesDrawnTogether(1...Int.max, from: line)
                    var output = Array(#"{"shapes":["#.utf8)
                    for (index, reading) in ShapeRecognizer.recognizeInARow(strokes).enumerated() {
                        if index > 0 { output.append(UInt8(ascii: ",")) }
                        Self.appendMembers(of: reading.shape, to: &output)
                        output.append(contentsOf: ",\"joins\":\(reading.joins)}".utf8)
                    }
                    output.append(contentsOf: "]}\n".utf8)
                    FileHandle.standardOutput.write(Data(output))
                    return
                }
                let explanation: RecognitionExplanation?
                let shape: RecognizedShape
                if joined {
                    let strokes = try StrokeSample.strokesDrawnTogether(
                        2...ShapeRecognizer.mostStrokesJoined, from: line)
                    explanation = explain ? ShapeRecognizer.explainClosedShape(joining: strokes) : nil
                    shape = explanation?.shape ?? ShapeRecognizer.recognizeClosedShape(joining: strokes)
                } else if twoStrokes {
                    let strokes = try StrokeSample.strokesDrawnTogether(2, from: line)
                    explanation = explain ? ShapeRecognizer.explainArrow(drawnFirst: strokes[0], then: strokes[1]) : nil
                    shape =
                        explanation?.shape ?? ShapeRecognizer.recognizeArrow(drawnFirst: strokes[0], then: strokes[1])
                } else if threeStrokes {
                    let strokes = try StrokeSample.strokesDrawnTogether(3, from: line)
                    let (recognize, explainArrow) =
                        afterArrow
                        ? (ShapeRecognizer.recognizeArrow(madeOf:_:joining:),
                           ShapeRecognizer.explainArrow(madeOf:_:joining:))
                        : (ShapeRecognizer.recognizeArrow(drawnFirst:then:then:),
                           ShapeRecognizer.explainArrow(drawnFirst:then:then:))
                    explanation = explain ? explainArrow(strokes[0], strokes[1], strokes[2]) : nil
                    shape = explanation?.shape ?? recognize(strokes[0], strokes[1], strokes[2])
                } else if fourStrokes {
                    let strokes = try StrokeSample.strokesDrawnTogether(4, from: line)
                    explanation =
                        explain
                        ? ShapeRecognizer.explainArrow(madeOf: strokes[0], strokes[1], strokes[2], joining: strokes[3])
                        : nil
                    shape =
                        explanation?.shape
                        ?? ShapeRecognizer.recognizeArrow(
                            madeOf: strokes[0], strokes[1], strokes[2], joining: strokes[3])
                } else {
                    let points = try StrokeSample.points(from: line)
                    explanation = explain ? ShapeRecognizer.explain(points) : nil
                    shape = explanation?.shape ?? ShapeRecognizer.recognize(points)
                }
                var output: [UInt8] = []
                Self.appendMembers(of: shape, to: &output)
                if let explanation { Self.append(explanation, to: &output) }
                output.append(contentsOf: "}\n".utf8)
                FileHandle.standardOutput.write(Data(output))
            } catch {
                failed = true
                FileHandle.standardError.write(Data("\(name):\(lineNumber): error: \(error)\n".utf8))
            }
        }
        if failed {
            throw ExitCode(1)
        }
    }

    /// `{"shape":…,"points":[…]`: the object of `shape`, left open for more members.
    static func appendMembers(of shape: RecognizedShape, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"shape":""#.utf8)
        output.append(contentsOf: shape.kind.rawValue.utf8)
        output.append(contentsOf: #"","points":["#.utf8)
        for (index, point) in shape.points.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            CanonicalJSON.appendPoint(point, to: &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// `,"smoothing":…` when the stroke was smoothed before fitting, then
    /// `,"explain":[{"shape":…,"fitted_to":…,"rms":…,"max":…,"traced":…,"least_side":…,"verdict":…},
    /// …]`, the scores rounded to 3 decimals (null when not finite); what the shape was
    /// fitted to and the scores are absent for shapes that were not fitted.
    static func append(_ explanation: RecognitionExplanation, to output: inout [UInt8]) {
        if let smoothing = explanation.smoothing {
            output.append(contentsOf: #","smoothing":"#.utf8)
            CanonicalJSON.appendString(smoothing, to: &output)
        }
        output.append(contentsOf: #","explain":["#.utf8)
        for (index, hypothesis) in explanation.hypotheses.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: #"{"shape":"#.utf8)
            CanonicalJSON.appendString(hypothesis.kind.rawValue, to: &output)
            if let fittedTo = hypothesis.fittedTo {
                output.append(contentsOf: #","fitted_to":"#.utf8)
                CanonicalJSON.appendString(fittedTo, to: &output)
            }
            let scores: [(String, Double?)] = [
                ("rms", hypothesis.rmsDistance), ("max", hypothesis.maximumDistance),
                ("traced", hypothesis.drawnFraction), ("least_side", hypothesis.leastDrawnSide),
            ]
            for case let (name, value?) in scores {
                output.append(contentsOf: ",\"\(name)\":".utf8)
                // JSON has no infinity: a distance whose square overflowed (a stroke over
                // about 10¹⁵⁴ across) is null.
                let rounded = (value * 1000).rounded() / 1000
                if rounded.isFinite {
                    CanonicalJSON.appendNumber(rounded, to: &output)
                } else if value.isFinite {
                    CanonicalJSON.appendNumber(value, to: &output)
                } else {
                    CanonicalJSON.appendLiteral("null", to: &output)
                }
            }
            output.append(contentsOf: #","verdict":"#.utf8)
            CanonicalJSON.appendString(hypothesis.verdict, to: &output)
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
    }
}
