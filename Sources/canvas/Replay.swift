import ArgumentParser
import CanvasCore
import CanvasProtocol
import CanvasSVG
import Foundation

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply NDJSON operations to an empty document and describe the result.",
        discussion: """
            Reads one protocol message per line (ADD, APPEND, DELETE, REMOVE_STROKE, MEGA) from \
            each FILE in turn, or from standard input when no FILE or '-' is given. Blank lines \
            are ignored. An invalid line is reported on standard error as FILE:LINE: error: … \
            and skipped; the output still reflects every valid line, and the exit status is 1.
            """
    )

    @Argument(help: "NDJSON files of operations ('-' for standard input).")
    var files: [String] = []

    @Flag(help: "Print the canonical state as JSON (strokes sorted by identifier).")
    var state = false

    @Flag(help: "Print the root digest as one line of hex.")
    var digest = false

    @Option(name: .customLong("svg"), help: ArgumentHelp("Write the replayed canvas as an SVG file.", valueName: "OUT.svg"))
    var svgPath: String?

    func run() throws {
        var replayer = Replayer()
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
        if !state && !digest {
            print(replayer.summary)
        }
        if replayer.invalidLines > 0 {
            throw ExitCode(1)
        }
    }
}

/// Applies NDJSON lines to a document and keeps count of what it saw.
struct Replayer {
    private(set) var document = Document()
    private(set) var invalidLines = 0
    private(set) var unsupportedMessages = 0

    /// Applies every line of `data`; reports each invalid line through `report`.
    mutating func replay(_ data: Data, source: String, report: (String) -> Void) {
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            do {
                let message = try MessageDecoder.decode(line)
                if case .unsupported = message { unsupportedMessages += 1 }
                for operation in message.operations {
                    document.apply(operation)
                }
            } catch {
                invalidLines += 1
                report("\(source):\(lineNumber): error: \(error)")
            }
        }
    }

    /// One line describing the document and the replay.
    var summary: String {
        let statistics = document.statistics
        var parts = ["strokes \(statistics.strokes)"]
        if statistics.placeholders > 0 { parts.append("placeholders \(statistics.placeholders)") }
        parts.append("points \(statistics.points)")
        if statistics.pendingPoints > 0 { parts.append("pending points \(statistics.pendingPoints)") }
        parts += [
            "erased intervals \(statistics.erasedIntervals)", "anomalies \(document.anomalies)",
            "invalid lines \(invalidLines)",
        ]
        if unsupportedMessages > 0 { parts.append("unsupported messages \(unsupportedMessages)") }
        return parts.joined(separator: ", ")
    }
}
