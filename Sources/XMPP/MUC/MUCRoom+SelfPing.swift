/// XEP-0410 MUC self-ping: pinging our own occupant JID tells whether the room still counts
/// us as an occupant (it may have dropped us, say after a server restart, without telling us).
extension MUCRoom {
    /// A ping to our own occupant JID with id `id`, to send. Its answer comes back through
    /// `handle(_:)`: a result, or an error meaning we are still in (`service-unavailable`,
    /// `feature-not-implemented`: our client does not answer pings; `item-not-found`: our
    /// nickname just changed), gives nothing; `remote-server-not-found` and
    /// `remote-server-timeout` decide nothing (the ping stays unanswered, as for a timeout);
    /// any other error (`not-acceptable`: not an occupant) gives `.left` with
    /// `.selfPingFailed`, after which `join` is in order.
    public mutating func selfPing(id: String) -> XMLElement {
        pendingSelfPings.insert(id)
        let ping = MUCStanza.element("ping", MUCNamespace.ping)
        return MUCStanza.iq(type: "get", to: "\(configuration.roomJID)/\(nickname)", id: id, ping)
    }

    /// Call when an answer to a `selfPing(id:)` is overdue. If a ping is still unanswered
    /// while joined: `.left(.selfPingFailed(condition: nil))`; otherwise nothing (the
    /// answer came in time).
    public mutating func selfPingTimedOut() -> [MUCEvent] {
        guard !pendingSelfPings.isEmpty, isJoined else {
            pendingSelfPings = []
            return []
        }
        return depart(.selfPingFailed(condition: nil))
    }

    mutating func completeSelfPing(_ iq: XMLElement, id: String) -> [MUCEvent] {
        guard iq.attribute("type") == "error" else {
            pendingSelfPings.remove(id)
            return []
        }
        let condition = MUCStanzaError(of: iq).condition
        switch condition {
        case "remote-server-not-found", "remote-server-timeout":
            return []
        case "service-unavailable", "feature-not-implemented", "item-not-found":
            pendingSelfPings.remove(id)
            return []
        default:
            pendingSelfPings.remove(id)
            return isJoined ? depart(.selfPingFailed(condition: condition)) : []
        }
    }
}
