extension MUCRoom {
    /// A groupchat message with `body` to the room, with id `stanzaID` and the same id as
    /// XEP-0359 `<origin-id/>` (some services replace `id` in the reflection; the origin-id
    /// survives). The id is remembered so that the reflection counts as `isOwn`.
    public mutating func message(body: String, stanzaID: String) -> XMLElement {
        message(.body(body), stanzaID: stanzaID)
    }

    /// A groupchat message carrying `content` (a payload needs the configuration's
    /// `payloadElement`), as `message(body:stanzaID:)` describes.
    public mutating func message(_ content: MUCMessageContent, stanzaID: String) -> XMLElement {
        sentMessageIDs.append(stanzaID)
        if sentMessageIDs.count > Self.rememberedMessageIDs {
            sentMessageIDs.removeFirst(sentMessageIDs.count - Self.rememberedMessageIDs)
        }
        return MUCStanza.element(
            "message", XMPPNamespace.client, ["to": configuration.roomJID, "type": "groupchat", "id": stanzaID],
            [element(content), MUCStanza.element("origin-id", MUCNamespace.stanzaID, ["id": stanzaID])])
    }

    /// `<body>` or the payload element.
    private func element(_ content: MUCMessageContent) -> XMLElement {
        switch content {
        case .body(let text):
            return MUCStanza.text("body", XMPPNamespace.client, text)
        case .payload(let text):
            guard let payload = configuration.payloadElement else {
                preconditionFailure("a payload for room \(configuration.roomJID), whose configuration names no payload element")
            }
            return MUCStanza.text(payload.name, payload.namespace, text)
        }
    }

    /// What `stanza` carries: its payload element's text, or else its body.
    private func content(of stanza: XMLElement) -> MUCMessageContent? {
        if let payload = configuration.payloadElement,
            let element = stanza.child(named: payload.name, namespace: payload.namespace)
        {
            return .payload(element.text)
        }
        guard let body = stanza.child(named: "body", namespace: stanza.namespace) else { return nil }
        return .body(body.text)
    }

    /// A private message with `body` to the occupant `nickname`, through the room, with id
    /// `stanzaID` (XEP-0045 §7.5: `type='chat'`, with the MUC user `<x/>` that tells the
    /// recipient's client it comes through the room).
    public func privateMessage(body: String, to nickname: String, stanzaID: String) -> XMLElement {
        privateMessage(.body(body), to: nickname, stanzaID: stanzaID)
    }

    /// A private message carrying `content`, as `privateMessage(body:to:stanzaID:)` describes.
    public func privateMessage(_ content: MUCMessageContent, to nickname: String, stanzaID: String) -> XMLElement {
        MUCStanza.element(
            "message", XMPPNamespace.client, ["to": "\(configuration.roomJID)/\(nickname)", "type": "chat", "id": stanzaID],
            [element(content), MUCStanza.element("x", MUCNamespace.user)])
    }

    mutating func handleMessage(_ message: XMLElement, from sender: MUCAddress) -> [MUCEvent] {
        if let result = message.child(named: "result", namespace: MUCNamespace.archive) {
            // Archive results come from the room's bare JID; from an occupant they are forged.
            guard sender.resource == nil else { return [] }
            return handleArchiveResult(result)
        }
        switch message.attribute("type") {
        case "error":
            let error = MUCStanzaError(of: message)
            return [.messageRejected(stanzaID: message.attribute("id"), condition: error.condition, text: error.text)]
        case "groupchat":
            return handleGroupchat(message)
        case "chat":
            return handlePrivateMessage(message, from: sender)
        default:
            // Invitations, voice requests: not about the shared room.
            return []
        }
    }

    /// A private message from an occupant, while we are in the room.
    func handlePrivateMessage(_ message: XMLElement, from sender: MUCAddress) -> [MUCEvent] {
        guard isJoined, let nickname = sender.resource, let content = content(of: message) else { return [] }
        return [.privateMessage(from: nickname, content: content)]
    }

    mutating func handleGroupchat(_ message: XMLElement) -> [MUCEvent] {
        guard case .joined(let catchUp) = state else { return [] }
        var events: [MUCEvent] = []
        let isDelayed = message.child(named: "delay", namespace: MUCNamespace.delay) != nil
        let archiveID = roomStanzaID(of: message)
        if let delivered = makeMessage(message, source: isDelayed ? .history : .live, archiveID: archiveID) {
            events.append(.message(delivered))
            if isDelayed, case .history(let count) = catchUp {
                state = .joined(.history(messages: count + 1))
            }
        } else if message.child(named: "subject", namespace: message.namespace) != nil,
            case .history(let count) = catchUp
        {
            // XEP-0045 §7.2.15: the subject follows the history.
            state = .joined(.finished)
            events.append(.catchUpFinished(messages: count, usedArchive: false))
        }
        // While paging through the archive, a live id would skip the pages not fetched yet
        // if the connection dropped now: the archive results move the position instead.
        if let archiveID, archiveID != archivePosition, !isPagingArchive {
            archivePosition = archiveID
            events.append(.archivePosition(archiveID))
        }
        return events
    }

    var isPagingArchive: Bool {
        if case .joined(.archive) = state { true } else { false }
    }

    /// The XEP-0359 `<stanza-id/>` the room set; those set by anyone else are not ids in
    /// this room's archive (and a sender could forge them).
    func roomStanzaID(of message: XMLElement) -> String? {
        message.children(named: "stanza-id", namespace: MUCNamespace.stanzaID)
            .first { $0.attribute("by").map { MUCAddress($0).bare == roomAddress } ?? false }?
            .attribute("id")
    }

    /// The message in `stanza` (a groupchat message, live or archived), `nil` without a body
    /// or payload.
    func makeMessage(_ stanza: XMLElement, source: MUCMessage.Source, archiveID: String?) -> MUCMessage? {
        guard let content = content(of: stanza) else { return nil }
        let senderNickname = stanza.attribute("from").flatMap { MUCAddress($0).resource }
        let id = stanza.attribute("id")
        let originID = stanza.child(named: "origin-id", namespace: MUCNamespace.stanzaID)?.attribute("id")
        let sentByUs = [id, originID].contains { $0.map(sentMessageIDs.contains) ?? false }
        return MUCMessage(
            content: content, fromNickname: senderNickname, stanzaID: id ?? originID, archiveID: archiveID,
            isOwn: sentByUs || senderNickname == nickname, source: source)
    }
}
