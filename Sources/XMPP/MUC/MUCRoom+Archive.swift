/// Catching up from the room's XEP-0313 archive, a page at a time (XEP-0059): from the
/// archive position on, or from the start of the archive on a first join.
///
/// If the service no longer knows the position (an `item-not-found` error to a query with
/// `<after/>`: the archive was purged or the room recreated), paging starts over from the
/// beginning of the archive. Messages already seen come again; the consumer must treat
/// messages idempotently (it has to anyway: live messages arriving during catch-up are
/// delivered at once, and may come again from the archive).
extension MUCRoom {
    /// Sends the query for the page after `after` and waits for it.
    mutating func queryArchive(after: String?, messagesSoFar: Int) -> MUCEvent {
        let query = ArchiveQuery(
            iqID: makeQueryID("mam"), queryID: makeQueryID("archive"), after: after, messages: messagesSoFar)
        state = .joined(.archive(query))
        var set = [MUCStanza.text("max", MUCNamespace.resultSet, String(configuration.archivePageSize))]
        if let after {
            set.append(MUCStanza.text("after", MUCNamespace.resultSet, after))
        }
        let payload = MUCStanza.element(
            "query", MUCNamespace.archive, ["queryid": query.queryID],
            [MUCStanza.element("set", MUCNamespace.resultSet, [:], set)])
        return .send(MUCStanza.iq(type: "set", to: configuration.roomJID, id: query.iqID, payload))
    }

    /// One archived message of the page that is out.
    mutating func handleArchiveResult(_ result: XMLElement) -> [MUCEvent] {
        guard case .joined(.archive(var query)) = state, result.attribute("queryid") == query.queryID,
            let archiveID = result.attribute("id")
        else { return [] }
        var events: [MUCEvent] = []
        if let forwarded = result.child(named: "forwarded", namespace: MUCNamespace.forward)?
            .child(named: "message"),
            let archived = makeMessage(forwarded, source: .archive, archiveID: archiveID)
        {
            query.messages += 1
            state = .joined(.archive(query))
            events.append(.message(archived))
        }
        archivePosition = archiveID
        events.append(.archivePosition(archiveID))
        return events
    }

    /// The end of a page: the next page, or the end of catching up.
    mutating func completeArchivePage(_ iq: XMLElement, query: ArchiveQuery) -> [MUCEvent] {
        guard iq.attribute("type") == "result" else {
            let error = MUCStanzaError(of: iq)
            if error.condition == "item-not-found", query.after != nil {
                return [queryArchive(after: nil, messagesSoFar: query.messages)]
            }
            // The archive refused (it may be off for us): live messages from now on.
            state = .joined(.finished)
            return [.catchUpFinished(messages: query.messages, usedArchive: false)]
        }
        let fin = iq.child(named: "fin", namespace: MUCNamespace.archive)
        let last = fin?.child(named: "set", namespace: MUCNamespace.resultSet)?
            .child(named: "last", namespace: MUCNamespace.resultSet)?.text
        // Stop on a page that moved nothing forward, whatever `complete` says, so that a
        // confused service cannot keep us paging forever.
        if fin?.attribute("complete") != "true", let last, !last.isEmpty, last != query.after {
            return [queryArchive(after: last, messagesSoFar: query.messages)]
        }
        state = .joined(.finished)
        return [.catchUpFinished(messages: query.messages, usedArchive: true)]
    }
}
