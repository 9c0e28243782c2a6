public import CanvasCore

/// One decoded protocol message.
public enum Message: Hashable, Sendable {
    /// ADD, APPEND, DELETE or the legacy REMOVE_STROKE.
    case operation(Operation)
    /// The original app's MEGA (its full state on join), converted into ordinary
    /// operations: per stroke an ADD, an APPEND of the points after the start, and DELETEs
    /// for the complement of its visible segments.
    case mega([Operation])
    /// An anti-entropy message (PROTOCOL.md §13); it carries no operation.
    case sync(SyncMessage)
    /// A message whose `type` this node does not know: ignored and counted, never fatal.
    case unsupported(type: String)

    /// The operations the message carries (none for an unsupported message).
    public var operations: [Operation] {
        switch self {
        case .operation(let operation): [operation]
        case .mega(let operations): operations
        case .sync, .unsupported: []
        }
    }
}
