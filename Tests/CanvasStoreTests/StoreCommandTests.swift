import Foundation
import Testing

/// `canvas replay --store`, `canvas export` and `canvas store`, run as a user would.
@Suite("canvas store commands")
struct StoreCommandTests {
    private struct Outcome {
        var status: Int32
        var output: String
        var error: String
    }

    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func canvas(_ arguments: String...) throws -> Outcome {
        try canvas(arguments)
    }

    private func canvas(_ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = CrashTests.executable
        process.arguments = arguments
        process.currentDirectoryURL = Self.repository
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Small outputs: both pipes fit in their buffers, so reading one then the other is safe.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
    }

    @Test func replayIntoAStoreThenExportRoundTripsTheDigest() throws {
        let store = temporaryStore().path
        let digest = try canvas("replay", "examples/whiteboard.ndjson", "--digest").output
        let stored = try canvas("replay", "examples/whiteboard.ndjson", "--store", store, "--room", "team/board")
        #expect(stored.status == 0)
        #expect(stored.output.hasPrefix("room team/board: strokes 4, points 78, erased intervals 3, digest "))
        // Appending the same operations again changes nothing.
        #expect(try canvas("replay", "examples/whiteboard.ndjson", "--store", store, "--room", "team/board", "--digest").output == digest)
        let backup = store + "/backup.ndjson"
        #expect(try canvas("export", "--store", store, "--room", "team/board", "-o", backup, "--format", "ndjson").status == 0)
        #expect(try canvas("replay", backup, "--digest").output == digest)
        #expect(try canvas("replay", backup, "--store", store, "--room", "copy", "--digest").output == digest)

        let svg = store + "/room.svg"
        let expected = store + "/replayed.svg"
        #expect(try canvas("export", "--store", store, "--room", "team/board", "-o", svg).status == 0)
        #expect(try canvas("replay", "examples/whiteboard.ndjson", "--svg", expected).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: svg)) == Data(contentsOf: URL(fileURLWithPath: expected)))
    }

    @Test func compactAndVerify() throws {
        let store = temporaryStore().path
        #expect(try canvas("replay", "examples/whiteboard.ndjson", "--store", store, "--room", "r").status == 0)
        let compacted = try canvas("store", "compact", "--store", store, "--room", "r")
        #expect(compacted.status == 0 && compacted.output.hasPrefix("compacted r: snapshot "))
        let verified = try canvas("store", "verify", "--store", store, "--room", "r")
        #expect(verified.status == 0 && verified.output.hasPrefix("ok: room r: strokes 4"))

        let log = store + "/rooms/r/operations.log"
        let handle = try #require(FileHandle(forWritingAtPath: log))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"type":"REMOVE_STROKE","ident"#.utf8))
        try handle.close()
        let torn = try canvas("store", "verify", "--store", store, "--room", "r")
        #expect(torn.status == 1)
        #expect(torn.error.contains("operations.log: byte 0: corrupt log record: record has no end of line (torn write)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)).count == 30)  // verify changed nothing
    }

    @Test func aMissingRoomNamesTheRoomAndTheStore() throws {
        let store = temporaryStore().path
        for arguments in [["export", "-o", store + "/x.svg"], ["store", "verify"], ["store", "compact"]] {
            let outcome = try canvas(arguments + ["--store", store, "--room", "nowhere"])
            #expect(outcome.status != 0)
            #expect(outcome.error.contains("no room \"nowhere\"") && outcome.error.contains(store), "\(arguments)")
        }
    }
}
