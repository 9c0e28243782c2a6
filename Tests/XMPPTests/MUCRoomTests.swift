import Testing
import XMPP

/// Prosody-like stanzas and helpers for the `MUCRoom` tests.
enum MUCFixture {
    static let room = "room@muc.example.org"
    static let me = "bob@example.org/canvas"
    static let stanzaErrors = "urn:ietf:params:xml:ns:xmpp-stanzas"

    static func configuration(password: String? = nil) throws -> MUCRoomConfiguration {
        try MUCRoomConfiguration(roomJID: room, nickname: "bob", password: password)
    }

    /// The stanzas in `xml`, parsed as they would arrive on a client stream.
    static func stanzas(_ xml: String) throws -> [XMLElement] {
        let parser = XMLStreamParser()
        let header =
            "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' "
            + "from='example.org' version='1.0'>"
        return try parser.feed(Array((header + xml).utf8)).compactMap { event in
            if case .stanza(let stanza) = event { stanza } else { nil }
        }
    }

    /// Feeds every stanza in `xml` to `room`, returning all events.
    static func feed(_ room: inout MUCRoom, _ xml: String) throws -> [MUCEvent] {
        try stanzas(xml).flatMap { room.handle($0) }
    }

    /// The stanzas among `events`, rendered as the driver writes them.
    static func sent(_ events: [MUCEvent]) -> [String] {
        events.compactMap { event in
            if case .send(let stanza) = event { stanza.rendered(defaultNamespace: "jabber:client") } else { nil }
        }
    }

    /// The events other than `.send`.
    static func reported(_ events: [MUCEvent]) -> [MUCEvent] {
        events.filter { if case .send = $0 { false } else { true } }
    }

    static func discoInfo(id: String = "muc-disco-1", archive: Bool) -> String {
        let mam = archive ? "<feature var='urn:xmpp:mam:2'/><feature var='urn:xmpp:sid:0'/>" : ""
        return """
            <iq type='result' from='\(room)' to='\(me)' id='\(id)'><query \
            xmlns='http://jabber.org/protocol/disco#info'><identity category='conference' type='text' \
            name='Canvas'/><feature var='http://jabber.org/protocol/muc'/><feature var='muc_public'/>\
            <feature var='muc_open'/><feature var='muc_unmoderated'/>\(mam)</query></iq>
            """
    }

    static func iqError(id: String, from: String = room, condition: String, type: String = "cancel") -> String {
        """
        <iq type='error' from='\(from)' to='\(me)' id='\(id)'><error type='\(type)'><\(condition) \
        xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>
        """
    }

    static func occupantPresence(
        _ nickname: String, affiliation: String = "member", role: String = "participant", statuses: [Int] = [],
        type: String? = nil, extra: String = ""
    ) -> String {
        let typeAttribute = type.map { " type='\($0)'" } ?? ""
        let codes = statuses.map { "<status code='\($0)'/>" }.joined()
        return """
            <presence from='\(room)/\(nickname)' to='\(me)'\(typeAttribute)><x \
            xmlns='http://jabber.org/protocol/muc#user'><item jid='\(nickname.lowercased())@example.org/pad' \
            affiliation='\(affiliation)' role='\(role)'>\(extra)</item>\(codes)</x></presence>
            """
    }

    static func ownPresence(_ nickname: String = "bob", statuses: [Int] = [110], type: String? = nil) -> String {
        let typeAttribute = type.map { " type='\($0)'" } ?? ""
        let codes = statuses.map { "<status code='\($0)'/>" }.joined()
        let role = type == "unavailable" ? "none" : "participant"
        return """
            <presence from='\(room)/\(nickname)' to='\(me)'\(typeAttribute)><x \
            xmlns='http://jabber.org/protocol/muc#user'><item jid='\(me)' affiliation='none' \
            role='\(role)'/>\(codes)</x></presence>
            """
    }

    /// A join error as Prosody sends it: from the occupant JID, without the MUC `<x/>`.
    static func joinError(_ nickname: String = "bob", condition: String, text: String? = nil) -> String {
        let textElement = text.map { "<text xmlns='\(stanzaErrors)'>\($0)</text>" } ?? ""
        return """
            <presence type='error' from='\(room)/\(nickname)' to='\(me)'><error type='cancel' by='\(room)'>\
            <\(condition) xmlns='\(stanzaErrors)'/>\(textElement)</error></presence>
            """
    }

    static func groupchat(
        from nickname: String?, id: String, body: String?, stanzaID: String? = nil, stanzaIDBy: String = room,
        delayed: Bool = false, extra: String = ""
    ) -> String {
        let sender = nickname.map { "\(room)/\($0)" } ?? room
        let bodyElement = body.map { "<body>\($0)</body>" } ?? ""
        let delay = delayed ? "<delay xmlns='urn:xmpp:delay' from='\(room)' stamp='2024-05-01T10:00:00Z'/>" : ""
        let sid = stanzaID.map { "<stanza-id xmlns='urn:xmpp:sid:0' by='\(stanzaIDBy)' id='\($0)'/>" } ?? ""
        return """
            <message type='groupchat' from='\(sender)' to='\(me)' id='\(id)'>\(bodyElement)\(extra)\(delay)\(sid)\
            </message>
            """
    }

    static func subject() -> String {
        "<message type='groupchat' from='\(room)/alice' to='\(me)' id='subj'><subject/></message>"
    }

    static let alice = MUCOccupant(
        nickname: "alice", realJID: "alice@example.org/pad", role: .participant, affiliation: .member)
    static let bob = MUCOccupant(nickname: "bob", realJID: me, role: .participant, affiliation: .none)

    /// A room joined (with alice in it), with or without an archive; catching up has begun.
    static func joinedRoom(archive: Bool, position: String? = nil) throws -> MUCRoom {
        var room = MUCRoom(configuration: try configuration())
        _ = room.join(archivePosition: position)
        _ = try feed(&room, discoInfo(archive: archive))
        _ = try feed(&room, occupantPresence("alice") + ownPresence())
        return room
    }

    /// A joined room without archive whose history is over.
    static func liveRoom() throws -> MUCRoom {
        var room = try joinedRoom(archive: false)
        _ = try feed(&room, subject())
        return room
    }
}

@Suite("MUCRoom")
struct MUCRoomTests {
    typealias F = MUCFixture

    @Test func fullJoinWithoutArchiveGetsHistoryUntilTheSubject() throws {
        var room = MUCRoom(configuration: try F.configuration())
        #expect(room.supportsArchive == nil)
        let start = room.join(archivePosition: nil)
        #expect(
            F.sent(start) == [
                "<iq type='get' to='room@muc.example.org' id='muc-disco-1'><query "
                    + "xmlns='http://jabber.org/protocol/disco#info'/></iq>"
            ])
        #expect(start.count == 1)

        let presence = try F.feed(&room, F.discoInfo(archive: false))
        #expect(room.supportsArchive == false)
        #expect(
            F.sent(presence) == [
                "<presence to='room@muc.example.org/bob'><x xmlns='http://jabber.org/protocol/muc'>"
                    + "<history maxstanzas='1000'/></x></presence>"
            ])
        #expect(presence.count == 1)

        #expect(try F.feed(&room, F.occupantPresence("alice")) == [])
        #expect(!room.isJoined)
        let joined = try F.feed(&room, F.ownPresence())
        #expect(joined == [.joined(nickname: "bob", occupants: [F.alice, F.bob])])
        #expect(room.isJoined)
        #expect(room.occupants == ["alice": F.alice, "bob": F.bob])

        let history = try F.feed(
            &room,
            F.groupchat(from: "alice", id: "a1", body: "first", delayed: true)
                + F.groupchat(from: "bob", id: "b1", body: "mine, earlier", delayed: true)
                + F.groupchat(
                    from: "alice", id: "a2", body: nil, delayed: true,
                    extra: "<active xmlns='http://jabber.org/protocol/chatstates'/>")
                + F.subject())
        #expect(
            history == [
                .message(
                    MUCMessage(
                        body: "first", fromNickname: "alice", stanzaID: "a1", archiveID: nil, isOwn: false,
                        source: .history)),
                .message(
                    MUCMessage(
                        body: "mine, earlier", fromNickname: "bob", stanzaID: "b1", archiveID: nil, isOwn: true,
                        source: .history)),
                .catchUpFinished(messages: 2, usedArchive: false),
            ])

        let live = try F.feed(&room, F.groupchat(from: "alice", id: "a3", body: "now") + F.subject())
        #expect(
            live == [
                .message(
                    MUCMessage(
                        body: "now", fromNickname: "alice", stanzaID: "a3", archiveID: nil, isOwn: false,
                        source: .live))
            ])
    }

    @Test func joinPresenceCarriesThePassword() throws {
        var room = MUCRoom(configuration: try F.configuration(password: "s3cret & <more>"))
        _ = room.join(archivePosition: nil)
        let presence = try F.feed(&room, F.discoInfo(archive: true))
        #expect(
            F.sent(presence) == [
                "<presence to='room@muc.example.org/bob'><x xmlns='http://jabber.org/protocol/muc'>"
                    + "<history maxstanzas='0'/><password>s3cret &amp; &lt;more&gt;</password></x></presence>"
            ])
    }

    @Test func lockedRoomIsCreatedWithTheInstantForm() throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: nil)
        let presence = try F.feed(&room, F.iqError(id: "muc-disco-1", condition: "item-not-found"))
        #expect(room.supportsArchive == false)
        #expect(F.sent(presence).first?.contains("<history maxstanzas='1000'/>") == true)

        let created = try F.feed(&room, F.ownPresence(statuses: [201, 110]))
        #expect(
            F.sent(created) == [
                "<iq type='set' to='room@muc.example.org' id='muc-create-2'><query "
                    + "xmlns='http://jabber.org/protocol/muc#owner'><x xmlns='jabber:x:data' type='submit'/>"
                    + "</query></iq>"
            ])
        #expect(created.count == 1)
        #expect(!room.isJoined)

        let configured = try F.feed(
            &room, "<iq type='result' from='\(F.room)' to='\(F.me)' id='muc-create-2'/>" + F.subject())
        #expect(
            configured == [
                .joined(nickname: "bob", occupants: [F.bob]),
                .catchUpFinished(messages: 0, usedArchive: false),
            ])
        #expect(room.isJoined)
    }

    @Test func refusedRoomConfigurationLeavesAndFails() throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: nil)
        _ = try F.feed(&room, F.iqError(id: "muc-disco-1", condition: "item-not-found"))
        _ = try F.feed(&room, F.ownPresence(statuses: [201, 110]))
        let events = try F.feed(&room, F.iqError(id: "muc-create-2", condition: "forbidden", type: "auth"))
        #expect(F.sent(events) == ["<presence to='room@muc.example.org/bob' type='unavailable'/>"])
        guard case .failed(let error) = events.last else {
            Issue.record("expected a failure, got \(events)")
            return
        }
        #expect(error.kind == .roomConfigurationFailed)
        #expect(error.detail.contains("forbidden"))
        #expect(!room.isJoined)
        #expect(room.occupants.isEmpty)
    }

    @Test func nicknameConflictRetriesWithSuffix() throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: nil)
        _ = try F.feed(&room, F.discoInfo(archive: false))
        let retry = try F.feed(&room, F.joinError(condition: "conflict"))
        #expect(
            F.sent(retry) == [
                "<presence to='room@muc.example.org/bob-2'><x xmlns='http://jabber.org/protocol/muc'>"
                    + "<history maxstanzas='1000'/></x></presence>"
            ])
        #expect(room.nickname == "bob-2")
        let joined = try F.feed(&room, F.occupantPresence("bob") + F.ownPresence("bob-2"))
        let me = MUCOccupant(nickname: "bob-2", realJID: F.me, role: .participant, affiliation: .none)
        let them = MUCOccupant(
            nickname: "bob", realJID: "bob@example.org/pad", role: .participant, affiliation: .member)
        #expect(
            joined == [
                .nicknameChanged(from: "bob", to: "bob-2"),
                .joined(nickname: "bob-2", occupants: [them, me]),
            ])
        #expect(room.nickname == "bob-2")
    }

    @Test func nicknameConflictGivesUpAfterNineNicknames() throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: nil)
        _ = try F.feed(&room, F.discoInfo(archive: false))
        var tried = ["bob"]
        for _ in 2...9 {
            let retry = try F.feed(&room, F.joinError(room.nickname, condition: "conflict"))
            #expect(retry.count == 1)
            tried.append(room.nickname)
        }
        #expect(tried == ["bob"] + (2...9).map { "bob-\($0)" })
        let events = try F.feed(&room, F.joinError("bob-9", condition: "conflict"))
        guard case .failed(let error) = events.first, events.count == 1 else {
            Issue.record("expected a failure, got \(events)")
            return
        }
        #expect(error.kind == .nicknameConflict)
        #expect(error.detail.contains("bob-9"))
        #expect(room.nickname == "bob")
    }

    @Test func serviceAssignedNickname() throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: nil)
        _ = try F.feed(&room, F.discoInfo(archive: false))
        let events = try F.feed(&room, F.ownPresence("Bob (canvas)", statuses: [110, 210]))
        let me = MUCOccupant(nickname: "Bob (canvas)", realJID: F.me, role: .participant, affiliation: .none)
        #expect(
            events == [
                .nicknameChanged(from: "bob", to: "Bob (canvas)"),
                .joined(nickname: "Bob (canvas)", occupants: [me]),
            ])
        #expect(room.nickname == "Bob (canvas)")
    }

    static let joinErrors: [(condition: String, kind: MUCError.Kind)] = [
        ("registration-required", .registrationRequired),
        ("not-authorized", .notAuthorized),
        ("forbidden", .banned),
        ("item-not-found", .roomNotFound),
        ("not-allowed", .creationNotAllowed),
        ("service-unavailable", .roomFull),
        ("not-acceptable", .nicknameRejected),
        ("jid-malformed", .nicknameRejected),
        ("internal-server-error", .joinRejected),
    ]

    @Test(arguments: joinErrors)
    func joinErrorsFailWithAnActionableMessage(condition: String, kind: MUCError.Kind) throws {
        var room = MUCRoom(configuration: try F.configuration())
        _ = room.join(archivePosition: nil)
        _ = try F.feed(&room, F.discoInfo(archive: false))
        let events = try F.feed(&room, F.joinError(condition: condition, text: "Computer says no"))
        guard case .failed(let error) = events.first, events.count == 1 else {
            Issue.record("expected a failure, got \(events)")
            return
        }
        #expect(error.kind == kind)
        #expect(error.detail.contains(F.room))
        #expect(error.detail.contains("Computer says no"))
        #expect(error.description.hasPrefix("\(kind): "))
        #expect(!room.isJoined)
        #expect(try F.feed(&room, F.ownPresence()) == [], "a presence after the failure changes nothing")
    }

    @Test func occupantsJoinLeaveAndChangeNickname() throws {
        var room = try F.liveRoom()
        let carol = MUCOccupant(
            nickname: "carol", realJID: "carol@example.org/pad", role: .participant, affiliation: .member)
        #expect(try F.feed(&room, F.occupantPresence("carol")) == [.occupantJoined(carol)])
        #expect(
            try F.feed(&room, F.occupantPresence("carol", role: "moderator")) == [],
            "a role change is no new occupant")
        #expect(room.occupants["carol"]?.role == .moderator)

        let renamed = try F.feed(
            &room,
            F.occupantPresence("carol", role: "moderator", statuses: [303], type: "unavailable")
                .replacingOccurrences(of: "role='moderator'>", with: "role='moderator' nick='caroline'>")
                + F.occupantPresence("caroline"))
        let caroline = MUCOccupant(
            nickname: "caroline", realJID: "caroline@example.org/pad", role: .participant, affiliation: .member)
        var carolModerator = carol
        carolModerator.role = .moderator
        #expect(
            renamed == [
                .occupantLeft(carolModerator, reason: .nicknameChanged(to: "caroline")),
                .occupantJoined(caroline),
            ])

        #expect(
            try F.feed(&room, F.occupantPresence("caroline", type: "unavailable"))
                == [.occupantLeft(caroline, reason: .voluntary)])
        #expect(
            try F.feed(
                &room,
                F.occupantPresence(
                    "alice", role: "none", statuses: [307], type: "unavailable",
                    extra: "<reason>Spamming</reason>"))
                == [.occupantLeft(F.alice, reason: .kicked(reason: "Spamming"))])
        #expect(try F.feed(&room, F.occupantPresence("nobody", type: "unavailable")) == [])
        #expect(room.occupants.keys.sorted() == ["bob"])
    }

    static let removals: [(statuses: [Int], extra: String, reason: MUCDepartureReason, mayRejoin: Bool)] = [
        (
            [110, 307], "<item affiliation='none' role='none'><reason>Be nice</reason></item>",
            .kicked(reason: "Be nice"), true
        ),
        ([110, 301], "<item affiliation='outcast' role='none'/>", .banned(reason: nil), false),
        ([110, 321], "<item affiliation='none' role='none'/>", .affiliationChanged(reason: nil), true),
        ([110, 322], "<item affiliation='none' role='none'/>", .membersOnly, true),
        ([110, 332], "<item affiliation='none' role='none'/>", .serviceShutdown, true),
        ([110, 307, 333], "<item affiliation='none' role='none'/>", .technicalProblem, true),
        (
            [110],
            "<item affiliation='none' role='none'/><destroy jid='new@muc.example.org'><reason>Moved"
                + "</reason></destroy>", .roomDestroyed(reason: "Moved", alternateRoom: "new@muc.example.org"), false
        ),
    ]

    @Test(arguments: removals)
    func removalFromTheRoom(statuses: [Int], extra: String, reason: MUCDepartureReason, mayRejoin: Bool) throws {
        var room = try F.liveRoom()
        let codes = statuses.map { "<status code='\($0)'/>" }.joined()
        let events = try F.feed(
            &room,
            "<presence type='unavailable' from='\(F.room)/bob' to='\(F.me)'><x "
                + "xmlns='http://jabber.org/protocol/muc#user'>\(extra)\(codes)</x></presence>")
        #expect(events == [.left(reason)])
        #expect(reason.mayRejoin == mayRejoin)
        #expect(!room.isJoined)
        #expect(room.occupants.isEmpty)
        #expect(try F.feed(&room, F.groupchat(from: "alice", id: "late", body: "hello?")) == [])
    }

    @Test func ownMessagesAreRecognisedByIDOriginIDAndNickname() throws {
        var room = try F.liveRoom()
        let outgoing = room.message(body: "{\"op\":\"add\"}", stanzaID: "m-1")
        #expect(
            outgoing.rendered(defaultNamespace: "jabber:client")
                == "<message to='room@muc.example.org' type='groupchat' id='m-1'><body>{\"op\":\"add\"}</body>"
                + "<origin-id xmlns='urn:xmpp:sid:0' id='m-1'/></message>")
        _ = room.message(body: "second", stanzaID: "m-2")

        // Reflected with our id, after another session of ours took our nickname elsewhere.
        let byID = try F.feed(&room, F.groupchat(from: "bob-other", id: "m-1", body: "{\"op\":\"add\"}"))
        // Reflected by a service that rewrote the id: the origin-id survives.
        let byOriginID = try F.feed(
            &room,
            F.groupchat(
                from: "bob-other", id: "server-77", body: "second",
                extra: "<origin-id xmlns='urn:xmpp:sid:0' id='m-2'/>"))
        let byNickname = try F.feed(&room, F.groupchat(from: "bob", id: "from-another-client", body: "hi"))
        let theirs = try F.feed(&room, F.groupchat(from: "alice", id: "m-3", body: "hi bob"))
        #expect(
            [byID, byOriginID, byNickname, theirs].map { events in
                events.compactMap { if case .message(let message) = $0 { message.isOwn } else { nil } }
            } == [[true], [true], [true], [false]])
        #expect(
            byOriginID == [
                .message(
                    MUCMessage(
                        body: "second", fromNickname: "bob-other", stanzaID: "server-77", archiveID: nil,
                        isOwn: true, source: .live))
            ])
    }

    @Test func stanzaIDsAreTrustedOnlyFromTheRoom() throws {
        var room = try F.liveRoom()
        let forged = try F.feed(
            &room,
            F.groupchat(from: "alice", id: "a1", body: "x", stanzaID: "forged-1", stanzaIDBy: "alice@example.org"))
        #expect(
            forged == [
                .message(
                    MUCMessage(
                        body: "x", fromNickname: "alice", stanzaID: "a1", archiveID: nil, isOwn: false, source: .live))
            ])
        #expect(room.archivePosition == nil)

        // `by` compares case-insensitively, like the room JID.
        let genuine = try F.feed(
            &room,
            F.groupchat(from: "alice", id: "a2", body: "y", stanzaID: "arch-2", stanzaIDBy: "Room@MUC.example.org"))
        #expect(
            genuine == [
                .message(
                    MUCMessage(
                        body: "y", fromNickname: "alice", stanzaID: "a2", archiveID: "arch-2", isOwn: false,
                        source: .live)),
                .archivePosition("arch-2"),
            ])
        #expect(room.archivePosition == "arch-2")
    }

    @Test func rejectedMessagesAreReported() throws {
        var room = try F.liveRoom()
        let events = try F.feed(
            &room,
            "<message type='error' from='\(F.room)' to='\(F.me)' id='m-9'><body>too fast</body><error "
                + "type='wait'><resource-constraint xmlns='\(F.stanzaErrors)'/><text xmlns='\(F.stanzaErrors)'>"
                + "You are sending too fast</text></error></message>"
                + "<message type='error' from='\(F.room)' to='\(F.me)' id='m-10'><error type='cancel'>"
                + "<not-acceptable xmlns='\(F.stanzaErrors)'/></error></message>")
        #expect(
            events == [
                .messageRejected(stanzaID: "m-9", condition: "resource-constraint", text: "You are sending too fast"),
                .messageRejected(stanzaID: "m-10", condition: "not-acceptable", text: nil),
            ])
    }

    @Test func privateMessagesFromOccupantsAreReportedWhileJoined() throws {
        var room = try F.liveRoom()
        let events = try F.feed(
            &room,
            "<message type='chat' from='\(F.room)/alice' to='\(F.me)' id='p1'><body>{\"type\":\"SYNC_HELLO\"}</body>"
                + "<x xmlns='http://jabber.org/protocol/muc#user'/></message>"
                // A chat state without a body, and a chat message from the room itself: nothing.
                + "<message type='chat' from='\(F.room)/alice' to='\(F.me)' id='p2'>"
                + "<composing xmlns='http://jabber.org/protocol/chatstates'/></message>"
                + "<message type='chat' from='\(F.room)' to='\(F.me)' id='p3'><body>from the room</body></message>"
                // The room's address compares case-insensitively, the nickname exactly.
                + "<message type='chat' from='Room@MUC.example.org/Carol' to='\(F.me)' id='p4'><body>hi</body>"
                + "</message>")
        #expect(
            events == [
                .privateMessage(from: "alice", content: .body("{\"type\":\"SYNC_HELLO\"}")),
                .privateMessage(from: "Carol", content: .body("hi")),
            ])
        #expect(room.archivePosition == nil, "private messages are not archived")
    }

    @Test func privateMessagesOutsideTheRoomAreIgnored() throws {
        let stanza = try F.stanzas(
            "<message type='chat' from='\(F.room)/alice' to='\(F.me)' id='p1'><body>hi</body></message>")[0]
        var room = MUCRoom(configuration: try F.configuration())
        #expect(room.isAbout(stanza))
        #expect(room.handle(stanza) == [], "not joined yet")
        var joining = try F.joinedRoom(archive: true)
        #expect(joining.handle(stanza) == [.privateMessage(from: "alice", content: .body("hi"))], "joined, catching up")
        _ = joining.leave()
        #expect(joining.handle(stanza) == [], "left")
    }

    @Test func privateMessageGoesToTheOccupantThroughTheRoom() throws {
        let room = try F.liveRoom()
        #expect(
            room.privateMessage(body: "a < b", to: "alice", stanzaID: "n-7").rendered(defaultNamespace: "jabber:client")
                == "<message to='room@muc.example.org/alice' type='chat' id='n-7'><body>a &lt; b</body>"
                + "<x xmlns='http://jabber.org/protocol/muc#user'/></message>")
    }

    @Test func selfPingAnswers() throws {
        var room = try F.liveRoom()
        let ping = room.selfPing(id: "ping-1")
        #expect(
            ping.rendered(defaultNamespace: "jabber:client")
                == "<iq type='get' to='room@muc.example.org/bob' id='ping-1'><ping xmlns='urn:xmpp:ping'/></iq>")
        #expect(try F.feed(&room, "<iq type='result' from='\(F.room)/bob' to='\(F.me)' id='ping-1'/>") == [])
        #expect(room.selfPingTimedOut() == [], "the answer came: no timeout")

        // Still joined: our client does not answer pings, or our nickname just changed (XEP-0410 §3.2).
        for (id, condition) in [
            ("p2", "service-unavailable"), ("p3", "feature-not-implemented"), ("p4", "item-not-found"),
        ] {
            _ = room.selfPing(id: id)
            #expect(try F.feed(&room, F.iqError(id: id, from: "\(F.room)/bob", condition: condition)) == [])
        }
        #expect(room.isJoined)
        #expect(room.selfPingTimedOut() == [])

        // Unreachable service: no verdict, the timeout decides.
        _ = room.selfPing(id: "p5")
        #expect(try F.feed(&room, F.iqError(id: "p5", from: "\(F.room)/bob", condition: "remote-server-timeout")) == [])
        #expect(room.isJoined)
        #expect(room.selfPingTimedOut() == [.left(.selfPingFailed(condition: nil))])
        #expect(!room.isJoined)
    }

    @Test func selfPingNotAcceptableMeansWeAreOut() throws {
        var room = try F.liveRoom()
        _ = room.selfPing(id: "p1")
        let events = try F.feed(
            &room, F.iqError(id: "p1", from: "\(F.room)/bob", condition: "not-acceptable", type: "modify"))
        #expect(events == [.left(.selfPingFailed(condition: "not-acceptable"))])
        #expect(MUCDepartureReason.selfPingFailed(condition: "not-acceptable").mayRejoin)
        #expect(!room.isJoined)
        #expect(room.occupants.isEmpty)
    }

    @Test func leaveSendsUnavailable() throws {
        var room = try F.liveRoom()
        let events = room.leave()
        #expect(F.sent(events) == ["<presence to='room@muc.example.org/bob' type='unavailable'/>"])
        #expect(F.reported(events) == [.left(.voluntary)])
        #expect(!room.isJoined)
        #expect(try F.feed(&room, F.ownPresence(type: "unavailable")) == [], "the echo of our leaving")
        #expect(room.leave() == [])
    }

    @Test func stanzasForOtherRoomsAreIgnored() throws {
        var room = try F.joinedRoom(archive: false)
        let other = try F.stanzas(
            "<message type='groupchat' from='other@muc.example.org/alice' to='\(F.me)' id='o1'><body>x</body>"
                + "</message><presence from='room@other.example.org/carol' to='\(F.me)'/>"
                + "<iq type='result' from='other@muc.example.org' to='\(F.me)' id='muc-disco-1'/>"
                + "<message type='chat' from='alice@example.org/pad' to='\(F.me)' id='d1'><body>hi</body></message>")
        for stanza in other {
            #expect(!room.isAbout(stanza))
            #expect(room.handle(stanza) == [])
        }
        // Room JIDs compare case-insensitively in localpart and domain, nicknames exactly.
        let upper = try F.stanzas(
            F.groupchat(from: "Alice", id: "u1", body: "hey", delayed: true)
                .replacingOccurrences(of: "from='room@muc.example.org", with: "from='ROOM@Muc.Example.org"))
        #expect(upper.allSatisfy(room.isAbout))
        #expect(
            upper.flatMap { room.handle($0) } == [
                .message(
                    MUCMessage(
                        body: "hey", fromNickname: "Alice", stanzaID: "u1", archiveID: nil, isOwn: false,
                        source: .history))
            ])
    }

    @Test func connectionLostClearsTheRoom() throws {
        var room = try F.liveRoom()
        _ = try F.feed(&room, F.groupchat(from: "alice", id: "a1", body: "x", stanzaID: "arch-5"))
        _ = room.selfPing(id: "p1")
        room.connectionLost()
        #expect(!room.isJoined)
        #expect(room.occupants.isEmpty)
        #expect(room.archivePosition == "arch-5")
        #expect(room.selfPingTimedOut() == [], "a ping from the lost session decides nothing")
        #expect(try F.feed(&room, F.groupchat(from: "alice", id: "a2", body: "y")) == [])
        #expect(F.sent(room.join(archivePosition: nil)).count == 1)
    }

    static let invalidConfigurations: [(room: String, nickname: String, pageSize: Int, mentions: String)] = [
        ("room.muc.example.org", "bob", 100, "room.muc.example.org"),
        ("room@muc.example.org/bob", "bob", 100, "no '/'"),
        ("@muc.example.org", "bob", 100, "room@service"),
        ("room@", "bob", 100, "room@service"),
        ("a@b@muc.example.org", "bob", 100, "one '@'"),
        ("room@muc.example.org", "", 100, "nickname"),
        ("room@muc.example.org", "bob", 0, "page size 0"),
    ]

    @Test(arguments: invalidConfigurations)
    func invalidConfigurationIsRefused(room: String, nickname: String, pageSize: Int, mentions: String) {
        let error = #expect(throws: MUCError.self) {
            try MUCRoomConfiguration(roomJID: room, nickname: nickname, archivePageSize: pageSize)
        }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.detail.contains(mentions) == true, "\(String(describing: error))")
    }
}
