import CanvasCore
@testable import CanvasStore
import CanvasTestSupport
import Foundation
import Testing

/// A compaction whose snapshot is written on another thread while appends go on: every
/// step a crash can stop at leaves a room that opens with everything that was durable.
@Suite("Background compaction")
struct BackgroundCompactionTests {
    private func roomFile(_ directory: URL, _ name: String) throws -> String {
        try RoomStore.path(ofRoom: "bg", in: directory) + "/" + name
    }

    /// A store holding `first` in its log, with a compaction begun from their document;
    /// `second` appended while its job has not run.
    private func beginWithAppends(
        _ directory: URL, first: ArraySlice<Operation>, second: ArraySlice<Operation>
    ) throws -> (RoomStore, SnapshotJob) {
        let store = try RoomStore.open(directory: directory, room: "bg").store
        try store.appendLocal(first.prefix(first.count / 2))
        try store.appendRemote(first.dropFirst(first.count / 2), now: .zero)
        let job = try #require(try store.beginCompaction(of: Histories.document(first)))
        #expect(store.isCompacting && !store.needsCompaction)
        #expect(store.waitingOperations == 0, "the waiting remote batch is written before the log is set aside")
        #expect(store.logBytes == 0)
        try store.appendLocal(second.prefix(second.count / 2))
        try store.appendRemote(second.dropFirst(second.count / 2), now: .zero)
        try store.flush()
        return (store, job)
    }

    @Test func appendsDuringTheJobGoToTheNewLogAndNothingIsLost() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 40, pointsPerStroke: 1...40, using: &generator)
        let directory = temporaryStore()
        let (store, job) = try beginWithAppends(directory, first: operations.prefix(120), second: operations.dropFirst(120))
        #expect(FileManager.default.fileExists(atPath: try roomFile(directory, RoomStore.rotatedLogFileName)))
        try store.finishCompaction(.success(try job.run()))
        #expect(!store.isCompacting && store.snapshotBytes > 0)
        #expect(!FileManager.default.fileExists(atPath: try roomFile(directory, RoomStore.rotatedLogFileName)))
        try store.close()
        let (reopened, stored) = try RoomStore.open(directory: directory, room: "bg")
        #expect(Histories.document(stored) == Histories.document(operations))
        #expect(reopened.recovery.snapshotOperations > 0 && reopened.recovery.isClean)
        #expect(try RoomStore.verify(directory: directory, room: "bg").isEmpty)
    }

    @Test func aCrashAtEveryStepOpensWithEverything() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 30, pointsPerStroke: 1...30, using: &generator)
        let expected = Histories.document(operations)
        // Before the job ran (the old snapshot, the set-aside log, the new log); after its
        // rename but before the set-aside log was removed; with a half-written snapshot.tmp.
        for step in ["before the job", "after the rename", "during the write"] {
            let directory = temporaryStore("crash \(step)")
            let (store, job) = try beginWithAppends(
                directory, first: operations.prefix(80), second: operations.dropFirst(80))
            switch step {
            case "after the rename": _ = try job.run()
            case "during the write": try Data([0x43, 0x41]).write(to: URL(fileURLWithPath: try roomFile(directory, "snapshot.tmp")))
            default: break
            }
            // Every stage reads whole for a reader without the lock, too.
            #expect(Histories.document(try RoomStore.load(directory: directory, room: "bg")) == expected, "\(step)")
            store.closeLog()  // the crash: nothing more is written
            let (reopened, stored) = try RoomStore.open(directory: directory, room: "bg")
            #expect(Histories.document(stored) == expected, "\(step)")
            #expect(reopened.recovery.rotatedLogRecords != nil, "\(step)")
            #expect(try RoomStore.verify(directory: directory, room: "bg").isEmpty, "\(step)")
            // The next compaction folds the set-aside log in at once, on the caller's thread.
            #expect(try reopened.beginCompaction(of: expected) == nil, "\(step)")
            #expect(!FileManager.default.fileExists(atPath: try roomFile(directory, RoomStore.rotatedLogFileName)))
            #expect(reopened.logBytes == 0)
            try reopened.close()
            let (_, again) = try RoomStore.open(directory: directory, room: "bg")
            #expect(Histories.document(again) == expected, "\(step)")
        }
    }

    @Test func aFailedJobKeepsTheSetAsideLogAndTheNextCompactionFoldsItIn() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 20, pointsPerStroke: 1...30, using: &generator)
        let directory = temporaryStore()
        let (store, _) = try beginWithAppends(directory, first: operations.prefix(50), second: operations.dropFirst(50))
        let failure = StoreError(.io, path: "snapshot.tmp", "write: No space left on device")
        #expect(throws: StoreError.self) { try store.finishCompaction(.failure(failure)) }
        #expect(!store.isCompacting)
        #expect(FileManager.default.fileExists(atPath: try roomFile(directory, RoomStore.rotatedLogFileName)))
        #expect(Histories.document(try RoomStore.load(directory: directory, room: "bg")) == Histories.document(operations))
        #expect(try store.beginCompaction(of: Histories.document(operations)) == nil)
        #expect(!FileManager.default.fileExists(atPath: try roomFile(directory, RoomStore.rotatedLogFileName)))
        try store.close()
        #expect(Histories.document(try RoomStore.open(directory: directory, room: "bg").operations) == Histories.document(operations))
    }

    @Test func aSynchronousCompactionIsRefusedWhileOneRunsInTheBackground() throws {
        let directory = temporaryStore()
        let add = Operation.add(StrokeID("s"), StrokeHeader(weight: 1, colour: .black, start: Point(x: 0, y: 0)))
        let (store, job) = try beginWithAppends(directory, first: [add], second: [])
        #expect(throws: StoreError.self) { try store.compact(to: Histories.document([add])) }
        #expect(try store.beginCompaction(of: Histories.document([add])) == nil, "one at a time")
        try store.finishCompaction(.success(try job.run()))
        try store.close()
    }

    @Test func theWorkerRunsAJobOnItsThreadAndHandsTheResultOnce() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 30, pointsPerStroke: 1...30, using: &generator)
        let directory = temporaryStore()
        let (store, job) = try beginWithAppends(directory, first: operations.prefix(60), second: operations.dropFirst(60))
        let worker = CompactionWorker()
        #expect(!worker.isBusy)
        worker.start(job)
        #expect(worker.isBusy)
        let result = try #require(worker.waitForResult())
        #expect(worker.takeResult() == nil && !worker.isBusy)
        try store.finishCompaction(result)
        #expect(store.snapshotBytes == (try result.get()))
        try store.close()
        #expect(Histories.document(try RoomStore.open(directory: directory, room: "bg").operations) == Histories.document(operations))
    }
}
