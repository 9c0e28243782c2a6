public import CanvasCore

/// Where a session's operations become durable: the seam that CanvasStore fills. The
/// session itself never writes; it returns `.persistLocal` and `.persistRemote` actions,
/// and the code that drives it hands them to a persistence in order.
public protocol ReplicaPersistence {
    /// Makes locally authored operations durable; must return only once they are (the
    /// session sends them after this action).
    mutating func persistLocal(_ operations: [Operation]) throws
    /// Records operations received from peers; may batch (a loss is repaired by peers).
    mutating func persistRemote(_ operations: [Operation]) throws
    /// Every operation persisted so far, to restore a session after a restart.
    func persistedOperations() throws -> [Operation]
}

/// A persistence in memory: for tests and for sessions that need no durability.
public struct InMemoryPersistence: ReplicaPersistence, Sendable {
    public private(set) var operations: [Operation] = []

    public init() {}

    public mutating func persistLocal(_ operations: [Operation]) {
        self.operations.append(contentsOf: operations)
    }

    public mutating func persistRemote(_ operations: [Operation]) {
        self.operations.append(contentsOf: operations)
    }

    public func persistedOperations() -> [Operation] { operations }
}
