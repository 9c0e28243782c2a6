public import CanvasCore
public import CanvasStore

/// A room's durable store as a session's persistence: local operations are durable when
/// `persistLocal` returns; remote ones go to the store's batches, whose loss window
/// (docs/store.md) is measured on the injected clock. The driver calls `flushIfDue` from
/// its timer so that a quiet room still writes its last batch.
public struct StoredReplica: ReplicaPersistence {
    /// The store; the driver owns its lifetime (`close()` flushes waiting operations).
    public let store: RoomStore
    /// The time since an arbitrary origin, as the session sees it.
    private let now: () -> Duration

    public init(store: RoomStore, now: @escaping () -> Duration) {
        self.store = store
        self.now = now
    }

    public mutating func persistLocal(_ operations: [Operation]) throws {
        _ = try store.appendLocal(operations)
    }

    public mutating func persistRemote(_ operations: [Operation]) throws {
        _ = try store.appendRemote(operations, now: now())
    }

    /// Writes the waiting remote batch if its delay has passed.
    public func flushIfDue() throws {
        try store.flushIfDue(now: now())
    }

    /// The stored room's net effect, which restores a session after a restart.
    public func persistedOperations() -> [Operation] {
        store.document.operations
    }
}
