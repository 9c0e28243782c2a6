public import CanvasCore
import Foundation
import Synchronization

/// The part of a compaction that may run on any thread: encode a replica as a snapshot and
/// put it in place durably (`snapshot.tmp`, fsync, rename, fsync of the folder). Made by
/// `RoomStore.beginCompaction(of:)`; its result goes back to
/// `RoomStore.finishCompaction(_:)` on the store's thread.
public struct SnapshotJob: Sendable {
    /// The replica as it was when the log was set aside: it holds every record of
    /// `operations.log.old` (and of any earlier snapshot).
    let document: Document
    let snapshotPath: String
    let roomPath: String

    /// Writes the snapshot; returns its size in bytes.
    public func run() throws(StoreError) -> Int {
        let snapshot = SnapshotFormat.encode(document)
        try FileSystem.replaceDurably(snapshotPath, with: snapshot, folder: roomPath)
        return snapshot.count
    }
}

extension RoomStore {
    /// Starts a compaction whose snapshot is written away from this thread, so that the
    /// owner goes on appending meanwhile: writes the waiting remote operations, sets the log
    /// aside as `operations.log.old` (a rename; the folder is fsync'd) and opens a new empty
    /// log. Run the returned job on any thread, then give its result to
    /// `finishCompaction(_:)` on this one. `document` is the caller's replica: it holds
    /// everything stored.
    ///
    /// Returns nil when a compaction is already under way, or when an `operations.log.old`
    /// is left from one that failed or that a crash cut short: then this compacts at once
    /// on this thread instead (`compact(to:)`, which folds that log in too).
    ///
    /// Crash safety: a crash before the new snapshot's rename leaves the old snapshot, the
    /// set-aside log and the new log, which together hold everything (open reads all
    /// three); after it, the new snapshot already holds the set-aside log's records, read
    /// again harmlessly (applying an operation twice is a no-op).
    public func beginCompaction(of document: Document) throws(StoreError) -> SnapshotJob? {
        try usable()
        guard !isCompacting else { return nil }
        guard rotatedLogBytes == nil else {
            try compact(to: document)
            return nil
        }
        try flush()
        try setLogAside()
        isCompacting = true
        return SnapshotJob(document: document, snapshotPath: snapshotPath, roomPath: roomPath)
    }

    /// Ends the compaction `beginCompaction(of:)` started with its job's result: on
    /// success, the new snapshot is in place and `operations.log.old` is removed. On
    /// failure that log stays (open reads it; the next compaction, a synchronous one, folds
    /// it in) and the job's error is thrown.
    public func finishCompaction(_ result: Result<Int, StoreError>) throws(StoreError) {
        guard isCompacting else { return }
        isCompacting = false
        let bytes = try result.get()
        snapshotBytes = bytes
        try FileSystem.remove(rotatedLogPath)
        rotatedLogBytes = nil
    }

    /// Renames the log to `operations.log.old` and continues in a new, locked, empty log.
    /// If the new log cannot be made, the old one is renamed back (if even that fails, the
    /// store is closed: reopening reads both).
    private func setLogAside() throws(StoreError) {
        try FileSystem.rename(logPath, to: rotatedLogPath)
        let fresh: Int32
        do throws(StoreError) {
            fresh = try FileSystem.openForAppending(logPath)
            do throws(StoreError) {
                try FileSystem.lockExclusively(fresh, path: logPath)
                try FileSystem.syncDirectory(roomPath)
            } catch {
                Foundation.close(fresh)
                throw error
            }
        } catch {
            if (try? FileSystem.rename(rotatedLogPath, to: logPath)) == nil { closeLog() }
            throw error
        }
        replaceLog(with: fresh)
        rotatedLogBytes = logBytes
        logBytes = 0
    }
}

/// Runs one `SnapshotJob` at a time on a thread of its own that runs only when the CPU is
/// otherwise idle, and keeps its result until it is taken.
public final class CompactionWorker: Sendable {
    private enum State {
        case idle
        case running
        case finished(Result<Int, StoreError>)
    }

    private let state = Mutex(State.idle)
    private let finished = DispatchSemaphore(value: 0)

    /// A worker with nothing to do.
    public init() {}

    /// True while a job runs or its result waits to be taken.
    public var isBusy: Bool {
        state.withLock { if case .idle = $0 { false } else { true } }
    }

    /// Runs `job` on a new thread. Precondition: the worker is idle.
    public func start(_ job: SnapshotJob) {
        state.withLock { state in
            precondition({ if case .idle = state { true } else { false } }(), "a compaction is already running")
            state = .running
        }
        let thread = Thread { [self] in
            Self.lowerPriority()
            let result = Result { () throws(StoreError) in try job.run() }
            state.withLock { $0 = .finished(result) }
            finished.signal()
        }
        thread.name = "canvas-compaction"
        thread.start()
    }

    /// The finished job's result, once (nil while it runs or when there is none).
    public func takeResult() -> Result<Int, StoreError>? {
        state.withLock { state in
            guard case .finished(let result) = state else { return nil }
            state = .idle
            return result
        }
    }

    /// Waits for the running job (if any) and returns its result, once.
    public func waitForResult() -> Result<Int, StoreError>? {
        // A signal left by a job whose result `takeResult()` took only costs one more turn.
        while state.withLock({ if case .running = $0 { true } else { false } }) { finished.wait() }
        return takeResult()
    }

    /// Makes the calling thread run only when the CPU is otherwise idle (`SCHED_IDLE`): a
    /// compaction may take as long as it needs, while an event loop that waits for the CPU
    /// shows as latency. Measured on 50 nodes compacting at once on two cores: same-LAN p99
    /// 508-534 ms on the loop, 154-1022 ms at nice 10, 79-185 ms at nice 19, 68-101 ms
    /// idle (docs/benchmarks.md). Such a thread still gets a little CPU under full load, so
    /// the compaction ends; the logs hold everything meanwhile. On Linux a scheduling
    /// policy belongs to a thread, and pid 0 names the calling one.
    private static func lowerPriority() {
        #if os(Linux)
        var parameters = sched_param()
        _ = sched_setscheduler(0, 5 /* SCHED_IDLE, which Glibc's module does not export */, &parameters)
        #endif
    }
}
