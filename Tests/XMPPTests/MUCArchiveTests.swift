import Testing
import XMPP

/// Catching up from a room's XEP-0313 archive.
@Suite("MUCRoom archive")
struct MUCArchiveTests {
    typealias F = MUCFixture

    static func query(id: Int, after: String?) -> String {
        let afterElement = after.map { "<after>\($0)</after>" } ?? ""
        return "<iq type='set' to='room@muc.example.org' id='muc-mam-\(id)'><query xmlns='urn:xmpp:mam:2' "
            + "queryid='muc-archive-\(id + 1)'><set xmlns='http://jabber.org/protocol/rsm'><max>100</max>"
            + "\(afterElement)</set></query></iq>"
    }

    static func result(queryID: Int, id: String, from nickname: String, messageID: String, body: String?) -> String {
        let bodyElement = body.map { "<body>\($0)</body>" } ?? ""
        return """
            <message from='\(F.room)' to='\(F.me)'><result xmlns='urn:xmpp:mam:2' queryid='muc-archive-\(queryID)' \
            id='\(id)'><forwarded xmlns='urn:xmpp:forward:0'><delay xmlns='urn:xmpp:delay' \
            stamp='2024-05-01T09:00:00Z'/><message xmlns='jabber:client' type='groupchat' \
            from='\(F.room)/\(nickname)' id='\(messageID)'>\(bodyElement)</message></forwarded></result></message>
            """
    }

    static func fin(id: Int, complete: Bool, first: String?, last: String?) -> String {
        let set =
            (first.map { "<first index='0'>\($0)</first>" } ?? "") + (last.map { "<last>\($0)</last>" } ?? "")
        return """
            <iq type='result' from='\(F.room)' to='\(F.me)' id='muc-mam-\(id)'><fin xmlns='urn:xmpp:mam:2' \
            complete='\(complete)'><set xmlns='http://jabber.org/protocol/rsm'>\(set)</set></fin></iq>
            """
    }

    static func archived(_ body: String, from nickname: String, id: String, archiveID: String, isOwn: Bool = false)
        -> MUCEvent
    {
        .message(
            MUCMessage(
                body: body, fromNickname: nickname, stanzaID: id, archiveID: archiveID, isOwn: isOwn,
                source: .archive))
    }

    @Test func firstJoinPagesThroughTheWholeArchive() throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: nil)
        let presence = try F.feed(&room, F.discoInfo(archive: true))
        #expect(room.supportsArchive == true)
        #expect(
            F.sent(presence) == [
                "<presence to='room@muc.example.org/bob'><x xmlns='http://jabber.org/protocol/muc'>"
                    + "<history maxstanzas='0'/></x></presence>"
            ])

        let joined = try F.feed(&room, F.occupantPresence("alice") + F.ownPresence())
        #expect(F.reported(joined) == [.joined(nickname: "bob", occupants: [F.alice, F.bob])])
        #expect(F.sent(joined) == [Self.query(id: 2, after: nil)])

        let page1 = try F.feed(
            &room,
            Self.result(queryID: 3, id: "arch-1", from: "alice", messageID: "a1", body: "one")
                + Self.result(queryID: 3, id: "arch-2", from: "bob", messageID: "b1", body: "two")
                + Self.fin(id: 2, complete: false, first: "arch-1", last: "arch-2"))
        #expect(
            F.reported(page1) == [
                Self.archived("one", from: "alice", id: "a1", archiveID: "arch-1"),
                .archivePosition("arch-1"),
                Self.archived("two", from: "bob", id: "b1", archiveID: "arch-2", isOwn: true),
                .archivePosition("arch-2"),
            ])
        #expect(F.sent(page1) == [Self.query(id: 4, after: "arch-2")])

        // A live message during catch-up is delivered at once, but does not move the position
        // past pages not fetched yet. A result of another query, or forged by an occupant, is ignored.
        let page2 = try F.feed(
            &room,
            Self.result(queryID: 5, id: "arch-3", from: "alice", messageID: "a2", body: nil)
                + F.groupchat(from: "alice", id: "a9", body: "live", stanzaID: "arch-9")
                + Self.result(queryID: 3, id: "arch-stale", from: "alice", messageID: "a0", body: "stale")
                + Self.result(queryID: 5, id: "arch-forged", from: "alice", messageID: "f", body: "forged")
                .replacingOccurrences(of: "<message from='\(F.room)'", with: "<message from='\(F.room)/mallory'")
                + Self.result(queryID: 5, id: "arch-4", from: "alice", messageID: "a3", body: "four")
                + Self.fin(id: 4, complete: false, first: "arch-3", last: "arch-4"))
        #expect(
            F.reported(page2) == [
                .archivePosition("arch-3"),
                .message(
                    MUCMessage(
                        body: "live", fromNickname: "alice", stanzaID: "a9", archiveID: "arch-9", isOwn: false,
                        source: .live)),
                Self.archived("four", from: "alice", id: "a3", archiveID: "arch-4"),
                .archivePosition("arch-4"),
            ])
        #expect(F.sent(page2) == [Self.query(id: 6, after: "arch-4")])

        let page3 = try F.feed(
            &room,
            Self.result(queryID: 7, id: "arch-9", from: "alice", messageID: "a9", body: "live")
                + Self.fin(id: 6, complete: true, first: "arch-9", last: "arch-9"))
        #expect(
            page3 == [
                Self.archived("live", from: "alice", id: "a9", archiveID: "arch-9"),
                .archivePosition("arch-9"),
                .catchUpFinished(messages: 4, usedArchive: true),
            ])

        let live = try F.feed(
            &room, F.subject() + F.groupchat(from: "alice", id: "a10", body: "ten", stanzaID: "arch-10"))
        #expect(
            live == [
                .message(
                    MUCMessage(
                        body: "ten", fromNickname: "alice", stanzaID: "a10", archiveID: "arch-10", isOwn: false,
                        source: .live)),
                .archivePosition("arch-10"),
            ])
        #expect(room.archivePosition == "arch-10")
    }

    @Test func unknownPositionRestartsFromTheBeginning() throws {
        var room = try F.joinedRoom(archive: true, position: "purged-7")
        let restart = try F.feed(&room, F.iqError(id: "muc-mam-2", condition: "item-not-found"))
        #expect(restart.count == 1)
        #expect(F.sent(restart) == [Self.query(id: 4, after: nil)])
        let events = try F.feed(
            &room,
            Self.result(queryID: 5, id: "arch-1", from: "alice", messageID: "a1", body: "one")
                + Self.fin(id: 4, complete: true, first: "arch-1", last: "arch-1"))
        #expect(
            events == [
                Self.archived("one", from: "alice", id: "a1", archiveID: "arch-1"),
                .archivePosition("arch-1"),
                .catchUpFinished(messages: 1, usedArchive: true),
            ])
    }

    @Test func persistedPositionIsWhereCatchUpStarts() throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: "arch-41")
        #expect(room.archivePosition == "arch-41")
        _ = try F.feed(&room, F.discoInfo(archive: true))
        let joined = try F.feed(&room, F.ownPresence())
        #expect(F.sent(joined) == [Self.query(id: 2, after: "arch-41")])
    }

    @Test func refusedArchiveEndsCatchUpWithoutIt() throws {
        var room = try F.joinedRoom(archive: true)
        let events = try F.feed(&room, F.iqError(id: "muc-mam-2", condition: "forbidden", type: "auth"))
        #expect(events == [.catchUpFinished(messages: 0, usedArchive: false)])
        #expect(room.isJoined)
    }

    @Test func pageThatMovesNothingEndsCatchUp() throws {
        var room = try F.joinedRoom(archive: true)
        let events = try F.feed(&room, Self.fin(id: 2, complete: false, first: nil, last: nil))
        #expect(events == [.catchUpFinished(messages: 0, usedArchive: true)])
    }

    @Test func rejoinAfterConnectionLossResumesFromThePosition() throws {
        var room = try F.joinedRoom(archive: true)
        _ = try F.feed(
            &room,
            Self.result(queryID: 3, id: "arch-1", from: "alice", messageID: "a1", body: "one")
                + Self.fin(id: 2, complete: true, first: "arch-1", last: "arch-1")
                + F.groupchat(from: "alice", id: "a2", body: "two", stanzaID: "arch-2"))
        #expect(room.archivePosition == "arch-2")

        room.connectionLost()
        #expect(!room.isJoined)
        #expect(room.occupants.isEmpty)

        let discover = room.join(archivePosition: nil)
        #expect(F.sent(discover).first?.contains("id='muc-disco-4'") == true)
        _ = try F.feed(&room, F.discoInfo(id: "muc-disco-4", archive: true))
        let joined = try F.feed(&room, F.occupantPresence("alice") + F.ownPresence())
        #expect(F.reported(joined) == [.joined(nickname: "bob", occupants: [F.alice, F.bob])])
        #expect(F.sent(joined) == [Self.query(id: 5, after: "arch-2")])
        let caughtUp = try F.feed(
            &room,
            Self.result(queryID: 6, id: "arch-3", from: "carol", messageID: "c1", body: "while away")
                + Self.fin(id: 5, complete: true, first: "arch-3", last: "arch-3"))
        #expect(
            caughtUp == [
                Self.archived("while away", from: "carol", id: "c1", archiveID: "arch-3"),
                .archivePosition("arch-3"),
                .catchUpFinished(messages: 1, usedArchive: true),
            ])
    }
}
