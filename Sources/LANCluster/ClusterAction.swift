/// What the driver of a `ClusterNode` must do next, in order.
public enum ClusterAction: Hashable, Sendable {
    /// Send this datagram to the cluster's group (multicast, or broadcast as a fallback).
    case multicast([UInt8])
    /// A payload for the room arrived from the member `from` (a node id): hand it to the
    /// session. Each payload is delivered once, in no particular order.
    case deliver(payload: [UInt8], from: String)
    /// A node joined the room's cluster (or restarted: it then leaves and joins again).
    case memberJoined(String)
    /// A node left the room's cluster: it said so, or it missed too many beacons.
    case memberLeft(String)
    /// The gateway between the LAN and the XMPP room is now this node id (possibly this
    /// node's own), or there is none.
    case gatewayChanged(String?)
    /// What every other member announced it can do (the intersection of their beacons'
    /// capabilities; every flag when there are none) changed to this.
    case membersCapabilities(Capabilities)
    /// Call `tick(now:)` at this time (on the node's clock). It replaces any earlier
    /// request: keep one timer.
    case scheduleTick(at: Duration)
}
