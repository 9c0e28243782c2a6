/// Which node relays between the LAN and the XMPP room: the lowest node id, compared as
/// UTF-8 bytes, among the members (this node included) that have a working XMPP session;
/// none when no member has one.
///
/// Every node computes it from its own membership view, so nodes with the same view agree
/// without exchanging a message. While views differ (a node joining or leaving), two nodes
/// may both act as gateway for a moment, which the session tolerates: relaying is
/// novelty-based, and duplicates are no-ops.
public struct GatewayElection: Hashable, Sendable {
    /// The current gateway's node id.
    public private(set) var gateway: String?

    /// No gateway yet.
    public init() {}

    /// The gateway among `candidates` (node id and capabilities of every member, this node
    /// included).
    public static func winner(among candidates: some Sequence<(nodeID: String, capabilities: Capabilities)>) -> String?
    {
        candidates.lazy
            .filter { $0.capabilities.contains(.hasXMPPSession) }
            .map(\.nodeID)
            .min { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Elects again from `candidates`; returns the new gateway (`.some(nil)` for none) when
    /// it changed, nil when it did not.
    public mutating func reevaluate(
        candidates: some Sequence<(nodeID: String, capabilities: Capabilities)>
    ) -> String?? {
        let winner = Self.winner(among: candidates)
        guard winner != gateway else { return nil }
        gateway = winner
        return .some(winner)
    }
}
