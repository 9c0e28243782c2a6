import ArgumentParser
import CanvasCore
import CanvasProtocol
import CanvasSVG
import Foundation

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply NDJSON operations and actions to an empty document and describe the result.",
        discussion: """
            Reads one JSON object per line from each FILE in turn, or from standard input when \
            no FILE or '-' is given: protocol messages (ADD, APPEND, DELETE, REMOVE_STROKE, MEGA) \
            and local actions (draw, erase; docs/actions.md), applied in order. Blank lines are \
            ignored. An invalid line is reported on standard error as FILE:LINE: error: … and \
            skipped; the output still reflects every valid line, and the exit status is 1.
            """
    )

    @Argument(help: "NDJSON files of operations and actions ('-' for standard input).")
    var files: [String] = []

    @Flag(help: "Print the canonical state as JSON (strokes sorted by identifier).")
    var state = false

    @Flag(help: "Print the root digest as one line of hex.")
    var digest = false

    @Option(name: .customLong("svg"), help: ArgumentHelp("Write the replayed canvas as an SVG file.", valueName: "OUT.svg"))
    var svgPath: String?

    @Flag(help: "Print every operation applied, as canonical NDJSON (what a node would send).")
    var ops = false

    @Option(help: "Prefix of the identifiers of strokes that draw actions create.")
    var author = "local"

    func run() throws {
        var replayer = Replayer(author: author)
        for file in files.isEmpty ? ["-"] : files {
            let name = file == "-" ? "<stdin>" : file
            let data: Data
            do {
                data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw ValidationError("cannot read \(file): \(error.localizedDescription)")
            }
            replayer.replay(data, source: name) { message in
                FileHandle.standardError.write(Data((message + "\n").utf8))
            } emit: { operation in
                if ops {
                    var line = MessageEncoder.encode(operation)
                    line.append(UInt8(ascii: "\n"))
                    FileHandle.standardOutput.write(Data(line))
                }
            }
        }
        let document = replayer.document
        if let svgPath {
            do {
                try Data(SVGExporter.export(document)).write(to: URL(fileURLWithPath: svgPath))
            } catch {
                throw ValidationError("cannot write \(svgPath): \(error.localizedDescription)")
            }
        }
        if state {
            FileHandle.standardOutput.write(Data(CanonicalState.encode(document)))
        }
        if digest {
            print(document.digest.rootHex)
        }
        if !state && !digest && !ops {
            print(replayer.summary)
        }
        if replayer.invalidLines > 0 {
            throw ExitCode(1)
        }
    }
}
