/// A JID cut into the parts a room compares: the bare JID, lowercased (XEP-0045 room
/// addresses are case-insensitive in their localpart and domain), and the resource (an
/// occupant's nickname, compared exactly).
struct MUCAddress: Hashable {
    var bare: String
    var resource: String?

    init(_ jid: String) {
        if let slash = jid.firstIndex(of: "/") {
            bare = jid[..<slash].lowercased()
            resource = String(jid[jid.index(after: slash)...])
        } else {
            bare = jid.lowercased()
            resource = nil
        }
    }
}

/// The defined condition and text of a stanza's `<error/>` (RFC 6120 §8.3).
struct MUCStanzaError: Hashable {
    var condition: String
    var text: String?

    /// The error in `stanza`; `undefined-condition` if it names none.
    init(of stanza: XMLElement) {
        let error = stanza.child(named: "error", namespace: stanza.namespace)
        let conditions = error?.elements.filter { $0.namespace == XMPPNamespace.stanzaErrors && $0.name != "text" }
        condition = conditions?.first?.name ?? "undefined-condition"
        let text = error?.child(named: "text", namespace: XMPPNamespace.stanzaErrors)?.text ?? ""
        self.text = text.isEmpty ? nil : text
    }
}

/// What the room's `<x xmlns='http://jabber.org/protocol/muc#user'/>` says in a presence.
struct MUCUserInfo {
    var statusCodes: Set<Int> = []
    var item: XMLElement?
    var destroy: XMLElement?

    init(_ presence: XMLElement) {
        guard let x = presence.child(named: "x", namespace: MUCNamespace.user) else { return }
        statusCodes = Set(
            x.children(named: "status", namespace: MUCNamespace.user).compactMap {
                $0.attribute("code").flatMap(Int.init)
            })
        item = x.child(named: "item", namespace: MUCNamespace.user)
        destroy = x.child(named: "destroy", namespace: MUCNamespace.user)
    }

    /// The occupant `nickname` as the item describes them (and, with their `presence`,
    /// the capabilities it announces).
    func occupant(nickname: String, presence: XMLElement? = nil) -> MUCOccupant {
        MUCOccupant(
            nickname: nickname, realJID: item?.attribute("jid"), role: MUCRole(attribute: item?.attribute("role")),
            affiliation: MUCAffiliation(attribute: item?.attribute("affiliation")),
            capabilities: presence.flatMap(AnnouncedCapabilities.init(presence:)))
    }

    /// Why an unavailable presence removes its occupant. A destruction outranks the status
    /// codes; 333 outranks 307 (a kick "because of an error" is a technical problem).
    var departureReason: MUCDepartureReason {
        if let destroy {
            return .roomDestroyed(
                reason: nonEmpty(destroy.child(named: "reason", namespace: MUCNamespace.user)?.text),
                alternateRoom: destroy.attribute("jid"))
        }
        let reason = nonEmpty(item?.child(named: "reason", namespace: MUCNamespace.user)?.text)
        if statusCodes.contains(301) { return .banned(reason: reason) }
        if statusCodes.contains(333) { return .technicalProblem }
        if statusCodes.contains(307) { return .kicked(reason: reason) }
        if statusCodes.contains(321) { return .affiliationChanged(reason: reason) }
        if statusCodes.contains(322) { return .membersOnly }
        if statusCodes.contains(332) { return .serviceShutdown }
        if statusCodes.contains(303), let newNickname = item?.attribute("nick") {
            return .nicknameChanged(to: newNickname)
        }
        return .voluntary
    }
}

private func nonEmpty(_ text: String?) -> String? {
    text.flatMap { $0.isEmpty ? nil : $0 }
}

/// Builders for the stanzas a room sends, in `jabber:client`.
enum MUCStanza {
    static func element(
        _ name: String, _ namespace: String, _ attributes: KeyValuePairs<String, String> = [:],
        _ children: [XMLElement] = []
    ) -> XMLElement {
        XMLElement(
            name: name, namespace: namespace,
            attributes: attributes.map { XMLAttribute(name: $0.key, value: $0.value) },
            children: children.map { .element($0) })
    }

    static func text(_ name: String, _ namespace: String, _ text: String) -> XMLElement {
        XMLElement(name: name, namespace: namespace, children: [.text(text)])
    }

    static func iq(type: String, to: String, id: String, _ payload: XMLElement) -> XMLElement {
        element("iq", XMPPNamespace.client, ["type": type, "to": to, "id": id], [payload])
    }
}
