/// What a `ClusterDriver` tells the session, in order.
public enum ClusterEvent: Sendable, Hashable {
    /// A payload for the room from the member `from` (a node id); each arrives once.
    case deliver(payload: [UInt8], from: String)
    /// A node joined the room's cluster (after a restart it leaves and joins again).
    case memberJoined(String)
    /// A node left the room's cluster: it said goodbye, or it missed too many beacons.
    case memberLeft(String)
    /// The gateway between the LAN and the XMPP room is now this node id (possibly this
    /// node's own), or there is none.
    case gatewayChanged(String?)
}
