/// A member of a room as one transport names it (an XMPP occupant, a LAN node). The same
/// person may have different peer ids on different transports.
public struct PeerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static func < (lhs: PeerID, rhs: PeerID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// One transport attached to a session (for instance "xmpp" and "lan" on a gateway).
public struct TransportID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static func < (lhs: TransportID, rhs: TransportID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// Where a transport sends a message: every member of the room, or one of them.
public enum Destination: Hashable, Sendable {
    case room
    case peer(PeerID)
}

/// Identifies a send that carries local operations, so that the transport can report
/// when it has accepted it (for XMPP: acknowledged by stream management).
public struct SendID: Hashable, Comparable, Sendable {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: SendID, rhs: SendID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Who wrote an operation that arrived: a member, on a transport.
public struct Author: Hashable, Comparable, Sendable {
    public var peer: PeerID
    public var transport: TransportID
    public init(peer: PeerID, transport: TransportID) {
        self.peer = peer
        self.transport = transport
    }
    public static func < (lhs: Author, rhs: Author) -> Bool {
        (lhs.transport, lhs.peer) < (rhs.transport, rhs.peer)
    }
}

/// One transport of a room as its session sees it now (`RoomSession.transportStatus`).
public struct TransportStatus: Hashable, Sendable {
    /// The transport (`xmpp`, `lan`).
    public var transport: TransportID
    /// Whether the transport is up (joined the room, the cluster running).
    public var isUp: Bool
    /// The members present on it.
    public var members: [PeerID]
    /// Local operations not yet accepted by it (waiting while it is down, or in flight).
    public var unacceptedOperations: Int
    /// Members the session is bringing up to date by anti-entropy.
    public var syncing: Int

    public init(transport: TransportID, isUp: Bool, members: [PeerID], unacceptedOperations: Int, syncing: Int) {
        self.transport = transport
        self.isUp = isUp
        self.members = members
        self.unacceptedOperations = unacceptedOperations
        self.syncing = syncing
    }
}
