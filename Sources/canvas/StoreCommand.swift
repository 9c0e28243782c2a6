import ArgumentParser
import CanvasCore
import CanvasNode
import CanvasStore
import Foundation

/// `--store DIR --room NAME`: where a stored room lives.
struct StoreLocation: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp("The store folder (default: $XDG_DATA_HOME/canvas, or ~/.local/share/canvas).", valueName: "DIR"))
    var store: String?

    @Option(help: "The room's name.")
    var room: String

    /// The store folder: `--store`, or the default one.
    var directory: URL {
        store.map { URL(fileURLWithPath: $0) } ?? StoreLocation.defaultDirectory
    }

    /// `$XDG_DATA_HOME/canvas`, or `~/.local/share/canvas`.
    static var defaultDirectory: URL {
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data).appendingPathComponent("canvas")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/canvas")
    }
}

/// A stored room's document, read without locking (a node may have the room open).
func loadStoredDocument(directory: URL, room: String) throws -> Document {
    Replica(author: "", restoring: try RoomStore.load(directory: directory, room: room)).document
}

/// One line describing a stored room.
func storedRoomSummary(_ document: Document, room: String) -> String {
    let statistics = document.statistics
    var parts = ["room \(room): strokes \(statistics.strokes)"]
    if statistics.placeholders > 0 { parts.append("placeholders \(statistics.placeholders)") }
    parts.append("points \(statistics.points)")
    if statistics.pendingPoints > 0 { parts.append("pending points \(statistics.pendingPoints)") }
    parts += ["erased intervals \(statistics.erasedIntervals)", "digest \(document.digest.rootHex)"]
    return parts.joined(separator: ", ")
}

struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Maintain a room's durable store (docs/store.md).",
        subcommands: [Compact.self, Verify.self]
    )

    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fold a room's operation log into its snapshot.",
            discussion: "Nodes compact on their own as the log grows; this does it now (the room must not be open elsewhere)."
        )

        @OptionGroup var location: StoreLocation

        func run() throws {
            let (store, operations) = try RoomStore.open(
                directory: location.directory, room: location.room, options: RoomStore.Options(createIfMissing: false))
            if !store.recovery.isClean {
                FileHandle.standardError.write(Data("canvas: recovered: \(store.recovery)\n".utf8))
            }
            let document = Replica(author: store.nodeID, restoring: operations).document
            try store.compact(to: document)
            let points = document.statistics.points + document.statistics.pendingPoints
            let perPoint = points == 0 ? "" : String(format: " (%.2f bytes per point)", Double(store.snapshotBytes) / Double(points))
            print("compacted \(store.room): snapshot \(store.snapshotBytes) bytes\(perPoint), log 0 bytes")
            try store.close()
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a room's snapshot and log without changing anything.",
            discussion: """
                Reports an unfinished compaction, a damaged snapshot, a torn last log record \
                (which the next open drops) and corrupt records, one per line as \
                FILE: byte OFFSET: PROBLEM. Exits 1 when there is any problem.
                """
        )

        @OptionGroup var location: StoreLocation

        func run() throws {
            let problems = try RoomStore.verify(directory: location.directory, room: location.room)
            for problem in problems {
                FileHandle.standardError.write(Data("\(problem)\n".utf8))
            }
            guard problems.isEmpty else {
                print("\(location.room): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
                throw ExitCode(1)
            }
            let document = try loadStoredDocument(directory: location.directory, room: location.room)
            print("ok: " + storedRoomSummary(document, room: location.room))
        }
    }
}
