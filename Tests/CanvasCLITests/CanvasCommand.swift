import CanvasTestSupport
import Foundation

/// Runs the built `canvas` executable (or another of the package's), as a user or a
/// script would.
struct CanvasCommand {
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The `canvas` executable SwiftPM built next to the test bundle.
    static let executable = built("canvas")

    /// The executable `name` SwiftPM built next to the test bundle.
    static func built(_ name: String) -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        preconditionFailure("the \(name) executable was not built next to \(bundle.path)")
    }

    /// The repository root (for the bundled examples and vectors).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func run(_ arguments: [String], input: String? = nil, program: URL = executable) throws -> Outcome {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.currentDirectoryURL = repository
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        if let input {
            inputPipe.fileHandleForWriting.write(Data(input.utf8))
            try inputPipe.fileHandleForWriting.close()
        }
        // Drain standard error on another thread while reading standard output, so that
        // neither pipe can fill up and block the child.
        let standardError = ErrorCollector()
        let reader = Thread { standardError.data = error.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let standardOutput = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !standardError.done { usleep(1000) }
        return Outcome(
            status: process.terminationStatus,
            standardOutput: String(decoding: standardOutput, as: UTF8.self),
            standardError: String(decoding: standardError.data, as: UTF8.self))
    }

    private final class ErrorCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Data?
        var data: Data {
            get { lock.withLock { stored ?? Data() } }
            set { lock.withLock { stored = newValue } }
        }
        var done: Bool { lock.withLock { stored != nil } }
    }

    /// Writes `text` to a new temporary file (`TemporaryFolders`: removed when the tests end)
    /// and returns its path.
    static func temporaryFile(_ text: String, name: String = "ops.ndjson") throws -> String {
        let file = TemporaryFolders.make("cli").appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}
