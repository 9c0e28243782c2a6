public import CanvasNode

/// A node as it is now: each room's size, transports and members (`Node.status()`,
/// what `GET /healthz` and a page's status line show).
public struct NodeStatus: Hashable, Sendable {
    /// The node's id (the author of its strokes).
    public var node: String
    /// Its rooms, in the configuration's order.
    public var rooms: [RoomStatus]

    public init(node: String, rooms: [RoomStatus]) {
        self.node = node
        self.rooms = rooms
    }
}

/// One room of a node as it is now.
public struct RoomStatus: Hashable, Sendable {
    /// The room's name, as configured.
    public var name: String
    /// The document's digest root (hex) and size.
    public var digest: String
    public var strokes: Int
    public var points: Int
    /// Each transport of the room: up or down, members, what waits to be accepted.
    public var transports: [TransportStatus]
    /// Who drew in the last seconds, as `TRANSPORT/MEMBER`.
    public var drawing: [String]

    public init(name: String, digest: String, strokes: Int, points: Int, transports: [TransportStatus], drawing: [String]) {
        self.name = name
        self.digest = digest
        self.strokes = strokes
        self.points = points
        self.transports = transports
        self.drawing = drawing
    }
}
