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
            line: {"shape": "line" | "rectangle" | "ellipse" | "triangle" | "arrow" | "none", \
            "points": […]}, where points is the replacement geometry as a polyline (empty for \
            none). Invalid lines are reported on standard error as FILE:LINE: error: … and \
            make the exit status 1. See docs/recognition.md.
            """
    )

    @Argument(help: "NDJSON file of strokes ('-' or none for standard input).")
    var file: String?

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
                let shape = ShapeRecognizer.recognize(try StrokeSample.points(from: line))
                var output = Array(#"{"shape":""#.utf8) + Array(shape.kind.rawValue.utf8) + Array(#"","points":["#.utf8)
                for (index, point) in shape.points.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    CanonicalJSON.appendPoint(point, to: &output)
                }
                output.append(contentsOf: "]}\n".utf8)
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
}
