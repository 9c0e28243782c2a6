import CanvasCore
import CanvasProtocol
import CanvasStore
import CanvasTestSupport
import Foundation
import Testing

/// Kills a writer with SIGKILL at random moments — while it appends durably and while it
/// compacts, on its own thread or in the background as a node does (every other run) — then checks that the store opens, keeps every operation the writer reported
/// durable, and holds exactly a prefix of the input.
@Suite("Crash recovery", .serialized)
struct CrashTests {
    /// How many times a writer is killed in one run (the reliability target: at least 100).
    static let kills = 100

    /// The `canvas` executable SwiftPM built next to the test bundle.
    static let executable: URL = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("canvas")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        preconditionFailure("the canvas executable was not built next to \(bundle.path)")
    }()

    /// Starts `canvas replay INPUT --store DIR --room crash --durable-progress --compact-every K`
    /// (and `--background-compaction`), kills it after `delay` (if still running), and
    /// returns the last "durable N" it printed.
    private func runWriter(
        input: String, store: URL, compactEvery: Int, background: Bool, killAfter delay: Duration?
    ) throws -> Int {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = [
            "replay", input, "--store", store.path, "--room", "crash", "--durable-progress", "--compact-every", "\(compactEvery)",
        ] + (background ? ["--background-compaction"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        if let delay {
            let (seconds, attoseconds) = delay.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            kill(process.processIdentifier, SIGKILL)
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        return lines.last { $0.hasPrefix("durable ") }.flatMap { Int($0.dropFirst("durable ".count)) } ?? 0
    }

    @Test func killedWritersLoseNothingDurableAndKeepAPrefix() throws {
        let seed = announcedSeed()
        var generator = SplitMix64(seed: seed)
        let operations = Histories.random(strokes: 40, pointsPerStroke: 1...30, using: &generator)
        let input = temporaryStore().appendingPathComponent("input.ndjson")
        try Data(operations.map { MessageEncoder.encodeString($0) + "\n" }.joined().utf8).write(to: input)
        // Every prefix's digest, to find which prefix a recovered store holds.
        var prefixDigests: [Digest] = []
        var running = Document()
        prefixDigests.append(running.digest)
        for operation in operations {
            running.apply(operation)
            prefixDigests.append(running.digest)
        }
        let compactEvery = 9
        let calibrationStart = ContinuousClock.now
        let complete = try runWriter(
            input: input.path, store: temporaryStore(), compactEvery: compactEvery, background: false, killAfter: nil)
        let fullRun = ContinuousClock.now - calibrationStart
        #expect(complete == operations.count)
        let completeInBackground = try runWriter(
            input: input.path, store: temporaryStore(), compactEvery: compactEvery, background: true, killAfter: nil)
        #expect(completeInBackground == operations.count)
        print("crash test: \(operations.count) operations, a full run takes \(fullRun)")

        let deadline = ContinuousClock.now + .seconds(300)
        var iterations = 0
        var tornTails = 0
        var unfinishedCompactions = 0
        var setAsideLogs = 0
        var killedEarly = 0
        while iterations < Self.kills && ContinuousClock.now < deadline {
            iterations += 1
            let store = temporaryStore()
            let delay = fullRun * Double.random(in: 0.05...1.1, using: &generator)
            let background = iterations.isMultiple(of: 2)
            let durable = try runWriter(
                input: input.path, store: store, compactEvery: compactEvery, background: background, killAfter: delay)
            if durable < operations.count { killedEarly += 1 }
            guard FileManager.default.fileExists(atPath: store.appendingPathComponent("rooms/crash").path) else {
                #expect(durable == 0, "seed \(seed), iteration \(iterations)")
                continue
            }
            let problems = try RoomStore.verify(directory: store, room: "crash")
            tornTails += problems.filter { $0.kind == .corruptRecord }.count
            unfinishedCompactions += problems.filter { $0.kind == .corruptSnapshot }.count
            let setAside = store.appendingPathComponent("rooms/crash/" + RoomStore.rotatedLogFileName).path
            if FileManager.default.fileExists(atPath: setAside) { setAsideLogs += 1 }
            let (reopened, stored) = try RoomStore.open(directory: store, room: "crash")
            let document = Histories.document(stored)
            let digest = document.digest
            let prefix = prefixDigests[durable...].firstIndex(of: digest)
            #expect(prefix != nil, "seed \(seed), iteration \(iterations): the store is no prefix of at least \(durable) operations")
            if let prefix {
                #expect(document == Histories.document(operations.prefix(prefix)), "seed \(seed), iteration \(iterations)")
            }
            try reopened.close()
            #expect(try RoomStore.verify(directory: store, room: "crash").isEmpty)
        }
        print(
            "crash test: \(iterations) kills (\(killedEarly) before the end), \(tornTails) torn tails, "
                + "\(unfinishedCompactions) unfinished compactions, \(setAsideLogs) logs set aside by a background "
                + "compaction, all recovered")
        #expect(iterations >= Self.kills, "only \(iterations) kills in the time allowed")
    }
}
