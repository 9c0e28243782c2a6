public import CanvasCore
public import CanvasStore

/// A replica's durable store: carries out a session's `.persistLocal` and `.persistRemote`
/// actions, and compacts the store from the replica when its log has grown enough (the
/// store keeps no document of its own). Local operations are durable when `persistLocal`
/// returns; remote ones go to the store's batches, whose loss window (docs/store.md) is
/// measured on the caller's clock. The driver calls `flushIfDue` from its timer so that a
/// quiet room still writes its last batch.
public struct StoredReplica {
    /// The store; the driver owns its lifetime (`close()` flushes waiting operations).
    public let store: RoomStore

    /// Persistence actions carried out on `store`.
    public init(store: RoomStore) {
        self.store = store
    }

    /// Makes locally authored operations durable (novel ones, as `Replica.apply` resolved
    /// them); `replica` already holds them.
    public func persistLocal(_ operations: [Operation], of replica: Replica) throws(StoreError) {
        try store.appendLocal(operations)
        try compactIfNeeded(replica)
    }

    /// Records operations received from peers (novel ones, resolved); `replica` already
    /// holds them.
    public func persistRemote(_ operations: [Operation], of replica: Replica, now: Duration) throws(StoreError) {
        try store.appendRemote(operations, now: now)
        try compactIfNeeded(replica)
    }

    /// Writes the waiting remote batch if its delay has passed.
    public func flushIfDue(now: Duration, of replica: Replica) throws(StoreError) {
        try store.flushIfDue(now: now)
        try compactIfNeeded(replica)
    }

    private func compactIfNeeded(_ replica: Replica) throws(StoreError) {
        if store.needsCompaction { try store.compact(to: replica.document) }
    }
}
