import ArgumentParser
import CanvasCore
import CanvasProtocol
import CanvasSVG
import CanvasStore
import Foundation

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a stored room's canvas as SVG, or its operations as NDJSON.",
        discussion: """
            Reads the room without locking or changing it, so it works while a node has the \
            room open. --format ndjson writes the room's net effect as canonical operations, \
            one per line: a portable backup that 'canvas replay FILE --store DIR --room NAME' \
            reads back to the same digest.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case svg, ndjson
    }

    @OptionGroup var location: StoreLocation

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write ('-' for standard output).", valueName: "OUT"))
    var output: String

    @Option(help: "What to write: svg (the drawing) or ndjson (the operations).")
    var format: Format = .svg

    func run() throws {
        let document = try loadStoredDocument(directory: location.directory, room: location.room)
        var bytes: [UInt8] = []
        switch format {
        case .svg:
            bytes = SVGExporter.export(document)
        case .ndjson:
            for operation in document.operations {
                MessageEncoder.append(operation, to: &bytes)
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        if output == "-" {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: output))
        } catch {
            throw ValidationError("cannot write \(output): \(error.localizedDescription)")
        }
    }
}
