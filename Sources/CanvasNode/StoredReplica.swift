public import CanvasCore
public import CanvasStore

/// A replica's durable store: carries out a session's `.persistLocal` and `.persistRemote`
/// actions, and compacts the store from the replica when its log has grown enough (the
/// store keeps no document of its own). Local operations are durable when `persistLocal`
/// returns; remote ones go to the store's batches, whose loss window (docs/store.md) is
/// measured on the caller's clock. The driver calls `flushIfDue` from its timer so that a
/// quiet room still writes its last batch (and, in the background, so that a finished
/// compaction is taken in).
public struct StoredReplica {
    /// The store; the driver owns its lifetime (call `close()`).
    public let store: RoomStore
    /// Writes snapshots on its own thread, when compacting in the background.
    private let worker: CompactionWorker?

    /// Persistence actions carried out on `store`. With `compactsInBackground`, a
    /// compaction writes its snapshot on a thread of its own while appends go on
    /// (`RoomStore.beginCompaction(of:)`): a node's event loop does not stop for it.
    /// Without, it compacts on the caller's thread.
    public init(store: RoomStore, compactsInBackground: Bool = false) {
        self.store = store
        worker = compactsInBackground ? CompactionWorker() : nil
    }

    /// Makes locally authored operations durable (novel ones, as `Replica.apply` resolved
    /// them); `replica` already holds them.
    public func persistLocal(_ operations: [Operation], of replica: Replica) throws(StoreError) {
        try store.appendLocal(operations)
        try compactIfNeeded(replica)
    }

    /// Records operations received from peers (novel ones, resolved); `replica` already
    /// holds them. `compactForms`: each operation's compact form as the peer sent it, or
    /// nil (`SessionAction.persistRemote`).
    public func persistRemote(
        _ operations: [Operation], compactForms: [[UInt8]?]? = nil, of replica: Replica, now: Duration
    ) throws(StoreError) {
        if let compactForms {
            try store.appendRemote(operations, compactForms: compactForms, now: now)
        } else {
            try store.appendRemote(operations, now: now)
        }
        try compactIfNeeded(replica)
    }

    /// Writes the waiting remote batch if its delay has passed; takes in a finished
    /// background compaction.
    public func flushIfDue(now: Duration, of replica: Replica) throws(StoreError) {
        try store.flushIfDue(now: now)
        try compactIfNeeded(replica)
    }

    /// Waits for a background compaction to end, then flushes and closes the store.
    public func close() throws(StoreError) {
        if let result = worker?.waitForResult() { try store.finishCompaction(result) }
        try store.close()
    }

    private func compactIfNeeded(_ replica: Replica) throws(StoreError) {
        guard let worker else {
            if store.needsCompaction { try store.compact(to: replica.document) }
            return
        }
        if let result = worker.takeResult() { try store.finishCompaction(result) }
        if store.needsCompaction, !worker.isBusy, let job = try store.beginCompaction(of: replica.document) {
            worker.start(job)
        }
    }
}
