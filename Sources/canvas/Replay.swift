import ArgumentParser
import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasSVG
import CanvasStore
import Foundation

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply NDJSON operations and actions to a document (empty, or a stored room) and describe it.",
        discussion: """
            Reads one JSON object per line from each FILE in turn, or from standard input when \
            no FILE or '-' is given: protocol messages (ADD, APPEND, DELETE, REMOVE_STROKE, MEGA) \
            and local actions (draw, erase, undo, redo; docs/actions.md), applied in order. Blank lines are \
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

    @Option(help: "The author of draw actions: their strokes are named AUTHOR_1, AUTHOR_2 … (skipping identifiers in use).")
    var author = "local"

    @Option(
        name: .customLong("store"),
        help: ArgumentHelp("Also append the operations, durably, to a room of this store (with --room); the output then describes the stored room.", valueName: "DIR"))
    var store: String?

    @Option(help: "The stored room to append to (with --store; created if needed).")
    var room: String?

    @Flag(help: .private)  // For testing: print "durable N" once the first N operations are durable.
    var durableProgress = false

    @Option(help: .private)  // For testing: compact the store after every K operations.
    var compactEvery: Int?

    @Flag(help: .private)  // For testing: with --compact-every, write snapshots on another thread, as a node does.
    var backgroundCompaction = false

    func validate() throws {
        if (store == nil) != (room == nil) {
            throw ValidationError("--store and --room go together")
        }
    }

    func run() throws {
        let opened = try store.map { try RoomStore.open(directory: URL(fileURLWithPath: $0), room: room ?? "") }
        let roomStore = opened?.store
        // Replaying into a stored room continues its document: new strokes get identifiers
        // it does not use yet, and erase actions see what it holds.
        var replayer = Replayer(replica: Replica(author: author, restoring: opened?.operations ?? []))
        if let recovery = roomStore?.recovery, !recovery.isClean {
            FileHandle.standardError.write(Data("canvas: recovered: \(recovery)\n".utf8))
        }
        var stored: [CanvasCore.Operation] = []
        var durable = 0
        let worker = CompactionWorker()
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
            } emit: { operation, isNovel, document in
                if let roomStore {
                    // Only what changed the room is stored; a duplicate is durable already.
                    if isNovel { stored.append(operation) }
                    if durableProgress || compactEvery != nil {
                        appendProgressively(&stored, to: roomStore, document: document, durable: &durable, worker: worker)
                    }
                }
                if ops {
                    var line = MessageEncoder.encode(operation)
                    line.append(UInt8(ascii: "\n"))
                    FileHandle.standardOutput.write(Data(line))
                }
            }
        }
        if let roomStore {
            if let result = worker.waitForResult() { try roomStore.finishCompaction(result) }
            try StoredReplica(store: roomStore).persistLocal(stored, of: replayer.replica)
            try roomStore.close()
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
            print(roomStore.map { storedRoomSummary(document, room: $0.room) + ", invalid lines \(replayer.invalidLines)" } ?? replayer.summary)
        }
        if replayer.invalidLines > 0 {
            throw ExitCode(1)
        }
    }

    /// For the crash test: one durable append per operation (`durable` counts the
    /// operations read, duplicates included), reported on standard output
    /// with an unbuffered write, and a compaction every `compactEvery` operations (its
    /// snapshot written by `worker` with --background-compaction).
    private func appendProgressively(
        _ stored: inout [CanvasCore.Operation], to roomStore: RoomStore, document: Document, durable: inout Int,
        worker: CompactionWorker
    ) {
        do {
            try roomStore.appendLocal(stored)
        } catch {
            FileHandle.standardError.write(Data("canvas: \(error)\n".utf8))
            Foundation.exit(1)
        }
        durable += 1
        stored.removeAll()
        do {
            if let result = worker.takeResult() { try roomStore.finishCompaction(result) }
            if let compactEvery, compactEvery > 0, durable % compactEvery == 0 {
                if !backgroundCompaction {
                    try roomStore.compact(to: document)
                } else if !worker.isBusy, let job = try roomStore.beginCompaction(of: document) {
                    worker.start(job)
                }
            }
        } catch {
            FileHandle.standardError.write(Data("canvas: \(error)\n".utf8))
            Foundation.exit(1)
        }
        if durableProgress {
            FileHandle.standardOutput.write(Data("durable \(durable)\n".utf8))
        }
    }
}
