/// A payload for the room from the member `from` (a node id); each arrives once.
public struct ClusterDelivery: Sendable, Hashable {
    /// The payload, as the member sent it.
    public var payload: [UInt8]
    /// The member's node id.
    public var from: String

    /// `payload` from member `from`.
    public init(payload: [UInt8], from: String) {
        self.payload = payload
        self.from = from
    }
}

/// What a `ClusterDriver` tells the session, in order.
public enum ClusterEvent: Sendable, Hashable {
    /// Payloads for the room that arrived together (one read of the socket), in order: one
    /// event for many datagrams, so that the session handles a burst in one go.
    case delivered([ClusterDelivery])
    /// A node joined the room's cluster (after a restart it leaves and joins again).
    case memberJoined(String)
    /// A node left the room's cluster: it said goodbye, or it missed too many beacons.
    case memberLeft(String)
    /// The gateway between the LAN and the XMPP room is now this node id (possibly this
    /// node's own), or there is none.
    case gatewayChanged(String?)
    /// What every other member announced it can do changed to this (every flag when there
    /// are no members; a member not yet heard in a beacon counts as announcing nothing).
    case membersCapabilities(Capabilities)
}
