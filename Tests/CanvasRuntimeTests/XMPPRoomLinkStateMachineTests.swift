import CanvasCore
import CanvasNode
import CanvasProtocol
import Foundation
import Testing
import XMPP

@testable import CanvasRuntime

/// An `XMPPRoomLinkStateMachine` with the facts it is given, driven by Prosody-like stanzas.
struct LinkHarness {
    static let room = "room@muc.example.org"
    static let me = "bob@example.org/canvas"
    static let stanzaErrors = "urn:ietf:params:xml:ns:xmpp-stanzas"

    var machine: XMPPRoomLinkStateMachine
    var now: Duration = .zero
    var isOnline = true
    var syncPeers: Set<PeerID> = []
    var unaccepted: [CanvasCore.Operation] = []

    init(
        archivePosition: String? = nil, storedUnconfirmed: [CanvasCore.Operation] = [], keepsNotes: Bool = true,
        readsCompact: Bool = true
    ) throws {
        let configuration = try MUCRoomConfiguration(
            roomJID: Self.room, nickname: "bob", payloadElement: XMPPRoomLinkStateMachine.payloadElement)
        machine = XMPPRoomLinkStateMachine(
            room: MUCRoom(configuration: configuration), roomName: Self.room, nodeID: "node-b",
            archivePosition: archivePosition, storedUnconfirmed: storedUnconfirmed, keepsNotes: keepsNotes,
            readsCompact: readsCompact)
    }

    /// The presence of a Canvas node `nickname` announcing `capabilities`.
    static func canvasPresence(_ nickname: String, _ capabilities: EntityCapabilities = XMPPRoomLinkStateMachine.capabilities)
        -> String
    {
        presence(nickname).replacingOccurrences(
            of: "</presence>", with: capabilities.presenceElement.rendered(defaultNamespace: "jabber:client") + "</presence>")
    }

    var facts: XMPPRoomLinkStateMachine.Facts {
        let (peers, operations) = (syncPeers, unaccepted)
        return .init(isOnline: isOnline, speaksSync: { peers.contains($0) }, unacceptedOperations: { operations })
    }

    var isSettled: Bool { machine.isSettled(facts) }

    // MARK: Inputs

    mutating func online(resumed: Bool = false) -> [XMPPRoomLinkStateMachine.Action] {
        machine.clientOnline(resumed: resumed, now: now, facts: facts)
    }

    /// Feeds every stanza in `xml`.
    mutating func feed(_ xml: String) throws -> [XMPPRoomLinkStateMachine.Action] {
        let parser = XMLStreamParser()
        let header =
            "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' "
            + "from='example.org' version='1.0'>"
        var actions: [XMPPRoomLinkStateMachine.Action] = []
        for case .stanza(let stanza) in try parser.feed(Array((header + xml).utf8)) {
            #expect(machine.room.isAbout(stanza))
            actions += machine.receive(stanza, now: now, facts: facts)
        }
        return actions
    }

    mutating func tick(at time: Duration) -> [XMPPRoomLinkStateMachine.Action] {
        now = time
        return machine.tick(now: now, facts: facts)
    }

    mutating func send(
        _ body: String, _ kind: MessageKind = .operations, to destination: Destination = .room, id: UInt64? = nil
    ) -> [XMPPRoomLinkStateMachine.Action] {
        send(bytes: Array(body.utf8), kind, to: destination, id: id)
    }

    mutating func send(
        bytes: [UInt8], _ kind: MessageKind = .operations, to destination: Destination = .room, id: UInt64? = nil
    ) -> [XMPPRoomLinkStateMachine.Action] {
        machine.send(
            OutgoingMessage(bytes: bytes, kind: kind, id: id.map(SendID.init), destination: destination), now: now,
            facts: facts)
    }

    /// Joins (with alice in the room) and catches up: the transport is up.
    mutating func joinAndCatchUp(archive: Bool = false) throws {
        _ = online()
        _ = try feed(Self.discoInfo(archive: archive))
        _ = try feed(Self.presence("alice") + Self.ownPresence())
        _ = try feed(archive ? Self.archiveEnd(id: "muc-mam-2") : Self.subject)
        #expect(machine.transportUp)
    }

    // MARK: Stanzas

    static func discoInfo(id: String = "muc-disco-1", archive: Bool) -> String {
        let mam = archive ? "<feature var='urn:xmpp:mam:2'/>" : ""
        return """
            <iq type='result' from='\(room)' to='\(me)' id='\(id)'><query \
            xmlns='http://jabber.org/protocol/disco#info'><feature var='http://jabber.org/protocol/muc'/>\(mam)\
            </query></iq>
            """
    }

    static func presence(_ nickname: String, type: String? = nil) -> String {
        let typeAttribute = type.map { " type='\($0)'" } ?? ""
        return """
            <presence from='\(room)/\(nickname)' to='\(me)'\(typeAttribute)><x \
            xmlns='http://jabber.org/protocol/muc#user'><item affiliation='member' role='participant'/></x></presence>
            """
    }

    static func ownPresence() -> String {
        """
        <presence from='\(room)/bob' to='\(me)'><x xmlns='http://jabber.org/protocol/muc#user'><item \
        affiliation='none' role='participant'/><status code='110'/></x></presence>
        """
    }

    static func joinError(_ condition: String) -> String {
        """
        <presence type='error' from='\(room)/bob' to='\(me)'><error type='cancel'><\(condition) \
        xmlns='\(stanzaErrors)'/></error></presence>
        """
    }

    static let subject = "<message type='groupchat' from='\(room)/alice' to='\(me)' id='subj'><subject/></message>"

    static func groupchat(from nickname: String, id: String, body: String, stanzaID: String? = nil) -> String {
        let sid = stanzaID.map { "<stanza-id xmlns='urn:xmpp:sid:0' by='\(room)' id='\($0)'/>" } ?? ""
        return "<message type='groupchat' from='\(room)/\(nickname)' to='\(me)' id='\(id)'><body>\(body)</body>\(sid)</message>"
    }

    static func archived(
        queryID: String = "muc-archive-3", id: String, from nickname: String, body: String, messageID: String? = nil
    ) -> String {
        """
        <message from='\(room)' to='\(me)'><result xmlns='urn:xmpp:mam:2' queryid='\(queryID)' id='\(id)'>\
        <forwarded xmlns='urn:xmpp:forward:0'><message xmlns='jabber:client' type='groupchat' \
        from='\(room)/\(nickname)' id='\(messageID ?? id + "-orig")'><body>\(body)</body></message></forwarded></result></message>
        """
    }

    static func archiveEnd(id: String, last: String? = nil) -> String {
        let set = last.map { "<set xmlns='http://jabber.org/protocol/rsm'><last>\($0)</last></set>" } ?? ""
        return "<iq type='result' from='\(room)' to='\(me)' id='\(id)'><fin xmlns='urn:xmpp:mam:2' complete='true'>\(set)</fin></iq>"
    }

    static func refusal(id: String, condition: String) -> String {
        """
        <message type='error' from='\(room)' to='\(me)' id='\(id)'><error type='wait'><\(condition) \
        xmlns='\(stanzaErrors)'/></error></message>
        """
    }

    /// Our groupchat message `number` with `body`, as the machine sends it.
    static func ours(_ number: Int, _ body: String, noStore: Bool = false) -> String {
        ours(number, content: "<body>\(body)</body>", noStore: noStore)
    }

    /// Our groupchat message `number` with `text` in the Canvas payload element, no body,
    /// not archived.
    static func oursInPayload(_ number: Int, _ text: String) -> String {
        ours(number, content: "<canvas xmlns='urn:x-canvas:1'>\(text)</canvas>", noStore: true)
    }

    /// Our groupchat message `number` with `content`, not archived (`noStore`), or archived
    /// though it has no body (`store`).
    static func ours(_ number: Int, content: String, noStore: Bool = false, store: Bool = false) -> String {
        let hint = noStore ? "<no-store xmlns='urn:xmpp:hints'/>" : store ? "<store xmlns='urn:xmpp:hints'/>" : ""
        return "<message to='\(room)' type='groupchat' id='node-b-\(number)'>\(content)"
            + "<origin-id xmlns='urn:xmpp:sid:0' id='node-b-\(number)'/>\(hint)</message>"
    }

    static let disco =
        "<iq type='get' to='\(room)' id='muc-disco-1'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>"
}

// MARK: What the actions say

typealias Actions = [XMPPRoomLinkStateMachine.Action]

/// The stanzas sent, rendered as the client writes them.
func sent(_ actions: Actions) -> [String] {
    actions.compactMap { if case .send(let stanza) = $0 { stanza.rendered(defaultNamespace: "jabber:client") } else { nil } }
}

/// Discovery queries sent (each starts a join), whatever their id.
func joinsStarted(_ actions: Actions) -> Int {
    sent(actions).filter { $0.contains("disco#info") }.count
}

/// The session inputs, written out.
func inputs(_ actions: Actions) -> [String] {
    actions.compactMap { action in
        guard case .session(let input) = action else { return nil }
        switch input {
        case .transportUp(let transport, let maxMessageBytes, let members, let legacyPeers):
            return "up \(transport) \(maxMessageBytes) \(members.map(\.rawValue).sorted()) legacy:\(legacyPeers)"
        case .transportDown(let transport): return "down \(transport)"
        case .memberJoined(let peer, _): return "joined \(peer)"
        case .memberLeft(let peer, _): return "left \(peer)"
        case .received(let bytes, let peer, _, _): return "received \(peer): \(String(decoding: bytes, as: UTF8.self))"
        case .recorded(let bytes, let peer, _, _): return "recorded \(peer): \(String(decoding: bytes, as: UTF8.self))"
        case .receivedAll(let messages, _, _): return "received \(messages.count) messages"
        case .accepted(let id, _): return "accepted \(id.rawValue)"
        case .memberSpeaksSync(let peer, _): return "speaks sync \(peer)"
        case .compactOperations(let compact, _): return "compact \(compact)"
        case .timer, .local, .action: return "other"
        }
    }
}

/// The node events, as NDJSON lines without the newline.
func events(_ actions: Actions) -> [String] {
    actions.compactMap { if case .event(let event) = $0 { String(decoding: event.ndjson.dropLast(), as: UTF8.self) } else { nil } }
}

func notes(_ actions: Actions) -> [XMPPRoomLinkNote] {
    actions.compactMap { if case .storeNote(let note) = $0 { note } else { nil } }
}

func discards(_ actions: Actions) -> Int {
    actions.filter { if case .discardUnacceptedOperations = $0 { true } else { false } }.count
}

@Suite("XMPPRoomLinkStateMachine")
struct XMPPRoomLinkStateMachineTests {
    typealias H = LinkHarness
    static let up = "up xmpp \(XMPPRoomLinkStateMachine.maxMessageBytes) [\"alice\"] legacy:true"

    @Test func joinCatchesUpFromTheArchiveThenBringsTheTransportUpWithTheOccupants() throws {
        var link = try H()
        #expect(sent(link.online()) == [H.disco])
        let presence = try link.feed(H.discoInfo(archive: true))
        #expect(
            sent(presence) == [
                "<presence to='\(H.room)/bob'><x xmlns='http://jabber.org/protocol/muc'><history maxstanzas='0'/></x></presence>"
            ])
        let joined = try link.feed(H.presence("alice") + H.ownPresence())
        #expect(events(joined) == [#"{"event":"joined","room":"room@muc.example.org","nick":"bob","occupants":["alice","bob"]}"#])
        #expect(sent(joined).count == 1 && sent(joined)[0].contains("urn:xmpp:mam:2"), "the archive query")
        #expect(inputs(joined) == [], "the session hears of the room after the catch-up")
        #expect(!link.machine.transportUp)

        let archived = try link.feed(H.archived(id: "a-1", from: "alice", body: "old") + H.groupchat(from: "alice", id: "l1", body: "live"))
        #expect(inputs(archived) == ["recorded alice: old", "recorded alice: live"], "before the transport is up: operations only")

        let finished = try link.feed(H.archiveEnd(id: "muc-mam-2", last: "a-1"))
        #expect(events(finished) == [#"{"event":"caught_up","room":"room@muc.example.org","messages":1,"archive":true}"#])
        #expect(notes(finished) == [.archivePosition("a-1")])
        #expect(inputs(finished) == [Self.up])

        let live = try link.feed(
            H.groupchat(from: "alice", id: "l2", body: "now") + H.presence("carol") + H.presence("carol", type: "unavailable")
                + H.groupchat(from: "alice", id: "l3", body: "archived", stanzaID: "a-2"))
        #expect(inputs(live) == ["received alice: now", "joined carol", "left carol", "received alice: archived"])
        #expect(notes(link.tick(at: .seconds(1))) == [.archivePosition("a-2")], "a new position is noted at the next tick")
        #expect(notes(link.tick(at: .seconds(2))) == [], "and only once")
        // A busy room moves the position at every message: it is noted at most once a second.
        _ = try link.feed(H.groupchat(from: "alice", id: "l4", body: "more", stanzaID: "a-3"))
        #expect(notes(link.tick(at: .milliseconds(2500))) == [.archivePosition("a-3")])
        _ = try link.feed(H.groupchat(from: "alice", id: "l5", body: "more", stanzaID: "a-4"))
        #expect(notes(link.tick(at: .milliseconds(3000))) == [], "half a second after the last")
        #expect(notes(link.tick(at: .milliseconds(3500))) == [.archivePosition("a-4")])
    }

    @Test func theCatchUpDeadlineBringsTheTransportUpAnyway() throws {
        var link = try H()
        _ = link.online()
        _ = try link.feed(H.discoInfo(archive: true) + H.presence("alice") + H.ownPresence())
        #expect(inputs(link.tick(at: .seconds(29))) == [])
        let late = link.tick(at: .seconds(30))
        #expect(inputs(late) == [Self.up])
        #expect(late.contains { if case .log(.warning, _, _) = $0 { true } else { false } })
        // The catch-up ending later brings nothing more up.
        #expect(inputs(try link.feed(H.archiveEnd(id: "muc-mam-2"))) == [])
    }

    @Test func theReflectionWindowHoldsTheSixtyFifthMessage() throws {
        var link = try H()
        try link.joinAndCatchUp()
        for number in 1...64 {
            #expect(sent(link.send("m\(number)")) == [H.ours(number, "m\(number)")])
        }
        #expect(sent(link.send("m65", id: 65)) == [], "the window is full")
        #expect(!link.isSettled)

        // A reflection frees a place: the 65th goes out, and is accepted on its own reflection.
        let reflected = try link.feed(H.groupchat(from: "bob", id: "node-b-1", body: "m1"))
        #expect(sent(reflected) == [H.ours(65, "m65")])
        #expect(inputs(reflected) == [])
        #expect(inputs(try link.feed(H.groupchat(from: "bob", id: "node-b-65", body: "m65"))) == ["accepted 65"])

        // Full again (63 + 1 sent since); a message waits, also behind what waits already.
        #expect(sent(link.send("m66")) == [H.ours(66, "m66")])
        #expect(sent(link.send("m67")) == [])
        #expect(sent(link.send("m68")) == [])
        let messages = { (actions: Actions) in sent(actions).filter { !$0.contains("urn:xmpp:ping") } }  // a quiet room's self-pings
        #expect(messages(link.tick(at: .seconds(29))) == [])
        // 30 s on, the unreflected messages no longer hold their places.
        #expect(messages(link.tick(at: .seconds(30))) == [H.ours(67, "m67"), H.ours(68, "m68")])
    }

    @Test func aRateLimitRefusalPausesThenResendsTheRefusedLocalOperations() throws {
        var link = try H()
        try link.joinAndCatchUp()
        #expect(sent(link.send("ops", id: 7)) == [H.ours(1, "ops")])
        #expect(sent(link.send("repair", .repair)) == [H.oursInPayload(2, "repair")])
        let refused = try link.feed(H.refusal(id: "node-b-1", condition: "resource-constraint") + H.refusal(id: "node-b-2", condition: "policy-violation"))
        #expect(sent(refused) == [])
        #expect(inputs(refused) == [])
        #expect(sent(link.send("sync", .sync)) == [], "paused")
        #expect(!link.isSettled)
        #expect(sent(link.tick(at: .milliseconds(999))) == [])
        // The refused local operations go again; the refused repair does not (anti-entropy
        // repairs it); what was sent during the pause follows.
        #expect(sent(link.tick(at: .seconds(1))) == [H.ours(3, "ops"), H.oursInPayload(4, "sync")])
        #expect(inputs(try link.feed(H.groupchat(from: "bob", id: "node-b-3", body: "ops"))) == ["accepted 7"])
    }

    /// The room refuses a message because we are no occupant (it vanished with its cluster
    /// member and started again on another without us): out, and in again at the next tick;
    /// a second time within 30 s waits `rejoinDelay`, so a room that keeps failing is not
    /// hammered; later, at once again.
    @Test func notAcceptableTakesUsOutAndRejoinsAtOnceThenAfterADelay() throws {
        var link = try H()
        try link.joinAndCatchUp()
        let rejoined = { (link: inout H, disco: Int) throws in
            _ = try link.feed(H.discoInfo(id: "muc-disco-\(disco)", archive: false))
            _ = try link.feed(H.presence("alice") + H.ownPresence())
            _ = try link.feed(H.subject)
            #expect(link.machine.transportUp)
        }
        _ = link.send("ops", id: 1)
        let out = try link.feed(H.refusal(id: "node-b-1", condition: "not-acceptable"))
        #expect(inputs(out) == ["down xmpp"])
        #expect(!link.machine.room.isJoined)
        #expect(joinsStarted(link.tick(at: .milliseconds(50))) == 1)
        try rejoined(&link, 2)

        link.now = .seconds(10)
        _ = try link.feed(H.refusal(id: "node-b-2", condition: "not-acceptable"))
        #expect(joinsStarted(link.tick(at: .milliseconds(11_999))) == 0)
        #expect(joinsStarted(link.tick(at: .seconds(12))) == 1)
        try rejoined(&link, 3)

        link.now = .seconds(31)
        _ = try link.feed(H.refusal(id: "node-b-3", condition: "forbidden"))
        #expect(joinsStarted(link.tick(at: .milliseconds(31_050))) == 1, "30 s after the last prompt rejoin")
    }

    /// A join that reached a cluster member while a dying member still held the room is
    /// lost without a word: unanswered after 1.5 s it starts over, then after 3, 6, 12, 12 s;
    /// an answered join resets the wait.
    @Test func anUnansweredJoinStartsOverWithGrowingPatience() throws {
        var link = try H()
        #expect(joinsStarted(link.online()) == 1)
        var starts: [Duration] = []
        for step in 1...800 {
            let now = Duration.milliseconds(50 * step)
            if joinsStarted(link.tick(at: now)) == 1 { starts.append(now) }
        }
        #expect(starts == [.milliseconds(1_500), .milliseconds(4_500), .milliseconds(10_500), .milliseconds(22_500), .milliseconds(34_500)])
        // The fifth attempt is answered: joined, then out again (the room vanished) and a
        // lost join waits 1.5 s once more.
        _ = try link.feed(H.discoInfo(id: "muc-disco-6", archive: false))
        _ = try link.feed(H.presence("alice") + H.ownPresence() + H.subject)
        #expect(link.machine.transportUp)
        link.now = .seconds(41)
        _ = try link.feed(H.refusal(id: "x", condition: "not-acceptable"))
        #expect(joinsStarted(link.tick(at: .milliseconds(41_050))) == 1)
        #expect(joinsStarted(link.tick(at: .milliseconds(42_500))) == 0)
        #expect(joinsStarted(link.tick(at: .milliseconds(42_550))) == 1)
    }

    /// A kick is a person's decision: the rejoin waits `rejoinDelay`, however long ago the
    /// last one was; the service's shutdown (a member leaving the cluster) rejoins at once.
    @Test func aShutdownRejoinsAtOnceAKickAfterTheDelay() throws {
        var link = try H()
        try link.joinAndCatchUp()
        let kicked = "<presence from='\(H.room)/bob' to='\(H.me)' type='unavailable'><x xmlns='http://jabber.org/protocol/muc#user'><item affiliation='none' role='none'/><status code='110'/><status code='307'/></x></presence>"
        let out = try link.feed(kicked)
        #expect(events(out) == [#"{"event":"left","room":"room@muc.example.org","reason":"kicked(reason: nil)","rejoin":true}"#])
        #expect(joinsStarted(link.tick(at: .milliseconds(1_999))) == 0)
        #expect(joinsStarted(link.tick(at: .seconds(2))) == 1)
        _ = try link.feed(H.discoInfo(id: "muc-disco-2", archive: false))
        _ = try link.feed(H.presence("alice") + H.ownPresence() + H.subject)

        link.now = .seconds(3)
        let shutdown = kicked.replacingOccurrences(of: "'307'", with: "'332'")
        #expect(events(try link.feed(shutdown)) == [#"{"event":"left","room":"room@muc.example.org","reason":"serviceShutdown","rejoin":true}"#])
        #expect(joinsStarted(link.tick(at: .milliseconds(3_050))) == 1)
    }

    @Test func sendsHeldWhileOfflineGoOutOnAResumedSession() throws {
        var link = try H()
        try link.joinAndCatchUp()
        link.isOnline = false
        #expect(link.machine.clientOffline(resumable: true).isEmpty)
        #expect(sent(link.send("held", id: 1)) == [])
        #expect(link.isSettled, "offline: nothing can be confirmed")
        link.isOnline = true
        let resumed = link.online(resumed: true)
        #expect(sent(resumed) == [H.ours(1, "held")])
        #expect(inputs(resumed) == [], "the room is still there")
    }

    @Test func aFreshSessionRejoinsAndDropsWhatWasHeld() throws {
        var link = try H()
        try link.joinAndCatchUp()
        link.isOnline = false
        #expect(link.machine.clientOffline(resumable: true).isEmpty)
        _ = link.send("held", id: 1)
        link.isOnline = true
        let fresh = link.online(resumed: false)
        #expect(inputs(fresh) == ["down xmpp"], "the session resends its unaccepted operations on the next up")
        #expect(sent(fresh) == [H.disco.replacingOccurrences(of: "muc-disco-1", with: "muc-disco-2")])
    }

    /// Sent, then the connection and its session were lost before the reflection came: the
    /// room may have passed the message on. The archive read on rejoining shows it (our
    /// nickname, our stanza id): accepted, so the session does not send it again (a peer of
    /// the original app would append its points twice). What the archive lacks is resent.
    @Test func whatTheCatchUpShowsOfOurUnreflectedSendsIsAccepted() throws {
        var link = try H()
        try link.joinAndCatchUp(archive: true)
        #expect(sent(link.send("first", id: 7)) == [H.ours(1, "first")])
        #expect(sent(link.send("second", id: 8)) == [H.ours(2, "second")])
        link.isOnline = false
        #expect(inputs(link.machine.clientOffline(resumable: false)) == ["down xmpp"])
        link.isOnline = true
        _ = link.online(resumed: false)
        _ = try link.feed(H.discoInfo(id: "muc-disco-4", archive: true) + H.presence("alice") + H.ownPresence())
        let caughtUp = try link.feed(
            H.archived(queryID: "muc-archive-6", id: "a-9", from: "bob", body: "first", messageID: "node-b-1")
                + H.archived(queryID: "muc-archive-6", id: "a-10", from: "alice", body: "theirs"))
        #expect(inputs(caughtUp) == ["accepted 7", "recorded bob: first", "recorded alice: theirs"])
        #expect(inputs(try link.feed(H.archiveEnd(id: "muc-mam-5"))) == [Self.up])
        // Once up, an own message seen again is a plain reflection: nothing more is accepted.
        #expect(inputs(try link.feed(H.groupchat(from: "bob", id: "node-b-2", body: "second"))) == [])
    }

    @Test func aConnectionLostForGoodTakesTheRoomDown() throws {
        var link = try H()
        try link.joinAndCatchUp()
        #expect(inputs(link.machine.clientOffline(resumable: false)) == ["down xmpp"])
        #expect(!link.machine.room.isJoined)
        #expect(sent(link.send("lost", id: 1)) == [], "not in the room: the session resends after the next join")
    }

    @Test func rejoinBackoffDoublesUpToSixteenTimesAndResetsAfterAJoin() throws {
        var link = try H()
        _ = link.online()
        var delays: [Duration] = []
        for _ in 0..<7 {
            let failed = try link.feed(H.discoInfo(id: "muc-disco-\(delays.count + 1)", archive: false) + H.joinError("service-unavailable"))
            #expect(events(failed).first?.contains("join_retry") == true)
            let start = link.now
            var step = 0
            repeat {
                step += 1
            } while joinsStarted(link.tick(at: start + .milliseconds(500 * step))) == 0 && step < 100
            delays.append(link.now - start)
        }
        #expect(delays == [2, 4, 8, 16, 32, 32, 32].map { Duration.seconds($0) })
        #expect(!link.machine.failedPermanently)

        // A successful join resets the backoff.
        _ = try link.feed(H.discoInfo(id: "muc-disco-8", archive: false) + H.ownPresence() + H.subject)
        #expect(link.machine.room.isJoined)
        _ = try link.feed(
            "<presence type='unavailable' from='\(H.room)/bob' to='\(H.me)'><x xmlns='http://jabber.org/protocol/muc#user'>"
                + "<item affiliation='none' role='none'/><status code='110'/><status code='307'/></x></presence>")
        let kickedAt = link.now
        #expect(joinsStarted(link.tick(at: kickedAt + .seconds(2))) == 1)
        let failed = try link.feed(H.discoInfo(id: "muc-disco-9", archive: false) + H.joinError("service-unavailable"))
        #expect(events(failed).first?.contains("join_retry") == true)
        #expect(joinsStarted(link.tick(at: link.now + .milliseconds(1999))) == 0)
        #expect(joinsStarted(link.tick(at: link.now + .milliseconds(1))) == 1, "2 s again")
    }

    @Test func aPermanentRefusalEndsTheAttempts() throws {
        var link = try H()
        _ = link.online()
        let banned = try link.feed(H.discoInfo(archive: false) + H.joinError("forbidden"))
        #expect(link.machine.failedPermanently)
        #expect(events(banned).first?.hasPrefix(#"{"event":"error","room":"room@muc.example.org","message":"banned: "#) == true)
        #expect(link.isSettled)
        #expect(joinsStarted(link.tick(at: .seconds(600))) == 0)
        #expect(link.online().isEmpty)
    }

    /// A quiet room gets a self-ping after 4 s; anything from the room puts the next one off
    /// (a busy room costs no pings); an unanswered one takes us out 5 s later, so that a room
    /// that vanished is noticed within 9 s of its last word, and we join again at once.
    @Test func aSelfPingWithoutAnswerTakesUsOutAndSchedulesARejoin() throws {
        var link = try H()
        try link.joinAndCatchUp()
        let ping = "<iq type='get' to='\(H.room)/bob' id='self-ping-1'><ping xmlns='urn:xmpp:ping'/></iq>"
        #expect(sent(link.tick(at: .milliseconds(3_999))) == [])
        #expect(sent(link.tick(at: .seconds(4))) == [ping])
        // Answered: the next one after the next quiet spell.
        link.now = .milliseconds(4_100)
        #expect(try link.feed("<iq type='result' from='\(H.room)/bob' to='\(H.me)' id='self-ping-1'/>").isEmpty)
        #expect(sent(link.tick(at: .seconds(8))) == [])
        #expect(link.machine.room.isJoined)
        // The room speaks: no ping while it does.
        for second in 8...15 {
            link.now = .seconds(second)
            _ = try link.feed(H.groupchat(from: "alice", id: "m\(second)", body: "{}"))
            #expect(sent(link.tick(at: .seconds(second) + .milliseconds(500))) == [], "second \(second)")
        }
        let second = ping.replacingOccurrences(of: "self-ping-1", with: "self-ping-2")
        #expect(sent(link.tick(at: .seconds(19))) == [second])
        // Not answered within 5 s: out, and back in at the next tick (the room vanished).
        #expect(inputs(link.tick(at: .milliseconds(23_999))) == [])
        let timedOut = link.tick(at: .seconds(24))
        #expect(inputs(timedOut) == ["down xmpp"])
        #expect(events(timedOut) == [#"{"event":"left","room":"room@muc.example.org","reason":"selfPingFailed(condition: nil)","rejoin":true}"#])
        #expect(joinsStarted(link.tick(at: .milliseconds(24_050))) == 1)
    }

    @Test func aPassiveLinkDropsUnacceptedOperationsAndRelaysNothing() throws {
        var link = try H()
        try link.joinAndCatchUp()
        link.unaccepted = [.removeStroke(StrokeID("node-b_1"))]
        let passive = link.machine.setActive(false)
        #expect(inputs(passive) == ["down xmpp"])
        #expect(events(passive) == [#"{"event":"xmpp_relay","room":"room@muc.example.org","active":false}"#])
        #expect(link.machine.isInRoom(link.facts), "it stays in the room, ready to take over")
        let tick = link.tick(at: .seconds(1))
        #expect(discards(tick) == 1)
        #expect(notes(tick) == [], "the empty note is already stored")
        #expect(
            inputs(
                try link.feed(
                    H.groupchat(from: "alice", id: "l1", body: "live")
                        + "<message type='chat' from='\(H.room)/alice' to='\(H.me)' id='p1'><body>private</body></message>"
                        + H.presence("carol"))) == [])

        let active = link.machine.setActive(true)
        #expect(inputs(active) == ["up xmpp \(XMPPRoomLinkStateMachine.maxMessageBytes) [\"alice\", \"carol\"] legacy:true"])
        #expect(discards(link.tick(at: .seconds(2))) == 0)
    }

    @Test func privateMessagesReachTheSessionOnceTheTransportIsUp() throws {
        var link = try H()
        _ = link.online()
        let privateMessage = "<message type='chat' from='\(H.room)/alice' to='\(H.me)' id='p1'><body>hello</body></message>"
        _ = try link.feed(H.discoInfo(archive: true) + H.presence("alice") + H.ownPresence())
        #expect(inputs(try link.feed(privateMessage)) == [], "catching up: a private message is not recorded")
        _ = try link.feed(H.archiveEnd(id: "muc-mam-2"))
        #expect(inputs(try link.feed(privateMessage)) == ["received alice: hello"])
    }

    /// A body carries only what the original app understands (operations, MEGA); sync
    /// messages and repairs travel in the Canvas payload, which it never reads; only
    /// operations are archived.
    @Test func bodiesCarryOnlyWhatTheOriginalAppReadsAndOnlyOperationsAreArchived() throws {
        var link = try H()
        try link.joinAndCatchUp()
        link.syncPeers = [PeerID("alice")]
        #expect(sent(link.send("ops")) == [H.ours(1, "ops")])
        #expect(sent(link.send("repair", .repair)) == [H.oursInPayload(2, "repair")])
        #expect(sent(link.send("sync", .sync)) == [H.oursInPayload(3, "sync")])
        // To alice, who speaks sync: privately through the room.
        #expect(
            sent(link.send("for alice", .sync, to: .peer(PeerID("alice")))) == [
                "<message to='\(H.room)/alice' type='chat' id='node-b-4'><canvas xmlns='urn:x-canvas:1'>for alice</canvas>"
                    + "<x xmlns='http://jabber.org/protocol/muc#user'/><no-store xmlns='urn:xmpp:hints'/></message>"
            ])
        // To carol, who never spoke sync (maybe a peer of the original protocol): to the
        // room, where it reads groupchat; the document as MEGA in the body, unarchived.
        #expect(sent(link.send("for carol", .repair, to: .peer(PeerID("carol")))) == [H.oursInPayload(5, "for carol")])
        #expect(sent(link.send("mega", .legacyState, to: .peer(PeerID("carol")))) == [H.ours(6, "mega", noStore: true)])
    }

    /// Occupants whose presence names the Canvas software (XEP-0115) speak sync from the
    /// start: the session never takes them for peers of the original app.
    @Test func occupantsAnnouncingCanvasSpeakSyncFromTheStart() throws {
        var link = try H()
        _ = link.online()
        _ = try link.feed(H.discoInfo(archive: false))
        _ = try link.feed(H.canvasPresence("alice") + H.presence("ipad") + H.ownPresence())
        let up = inputs(try link.feed(H.subject))
        #expect(up.contains("speaks sync alice") && !up.contains("speaks sync ipad"), "\(up)")
        #expect(inputs(try link.feed(H.canvasPresence("carol"))) == ["joined carol", "speaks sync carol"])
        #expect(inputs(try link.feed(H.presence("dave"))) == ["joined dave"])
    }

    /// In a room of Canvas nodes only, operations wait up to `batchDelay` and travel
    /// together in one archived payload message, accepted together on its reflection; a
    /// received batch reaches the session as one burst. Once a peer of the original app is
    /// in the room, operations go one a body again.
    @Test func operationsTravelInBatchesAmongCanvasNodesOnly() throws {
        var link = try H()
        _ = link.online()
        _ = try link.feed(H.discoInfo(archive: false))
        _ = try link.feed(H.canvasPresence("alice") + H.ownPresence())
        _ = try link.feed(H.subject)
        #expect(!link.machine.isMixed)
        #expect(sent(link.send("{\"op\":1}", id: 1)) == [])
        #expect(sent(link.send("{\"op\":2}", id: 2)) == [])
        #expect(!link.isSettled, "a batch waits")
        #expect(sent(link.tick(at: .milliseconds(99))) == [])
        let flushed = sent(link.tick(at: .milliseconds(100)))
        #expect(flushed == ["<message to='\(H.room)' type='groupchat' id='node-b-1'><canvas xmlns='urn:x-canvas:1'>{\"op\":1}\n{\"op\":2}</canvas><origin-id xmlns='urn:xmpp:sid:0' id='node-b-1'/><store xmlns='urn:xmpp:hints'/></message>"])
        let reflection = "<message from='\(H.room)/bob' type='groupchat' id='node-b-1'><canvas xmlns='urn:x-canvas:1'>x\ny</canvas></message>"
        #expect(inputs(try link.feed(reflection)) == ["accepted 1", "accepted 2"])
        let theirs = "<message from='\(H.room)/alice' type='groupchat' id='a-9'><canvas xmlns='urn:x-canvas:1'>{\"a\":1}\n{\"a\":2}</canvas></message>"
        #expect(inputs(try link.feed(theirs)) == ["received 2 messages"])
        // A peer of the original app joins: bodies again, at once.
        _ = try link.feed(H.presence("ipad"))
        #expect(link.machine.isMixed)
        #expect(sent(link.send("{\"op\":3}", id: 3)) == [H.ours(2, "{\"op\":3}")])
        // Leaving reports what went through the room: two messages out (the batch, the
        // body), one in (alice's batch; our reflection is not counted).
        let facts = link.facts
        let stats = events(link.machine.leave(now: .seconds(1), facts: facts)).filter { $0.contains("xmpp_stats") }
        #expect(stats == [#"{"event":"xmpp_stats","room":"room@muc.example.org","messages_sent":2,"operation_messages_sent":2,"bytes_sent":25,"messages_received":1,"bytes_received":15}"#])
    }

    /// Operations go compact while every other occupant announces this version's
    /// capabilities (the same verification string); a node of the previous version (no
    /// compact feature: another string) or a peer of the original app turns it off before
    /// the session hears of the member, and its leaving turns it on again.
    @Test func operationsGoCompactWhileEveryOccupantAnnouncesThisVersion() throws {
        var link = try H()
        _ = link.online()
        _ = try link.feed(H.discoInfo(archive: false))
        _ = try link.feed(H.canvasPresence("alice") + H.ownPresence())
        let up = inputs(try link.feed(H.subject))
        #expect(up.first == "compact true" && up.dropFirst().first?.hasPrefix("up xmpp") == true, "\(up)")
        #expect(link.machine.compactOperations)
        let previous = XMPPRoomLinkStateMachine.capabilities(readsCompact: false)
        #expect(previous.ver != XMPPRoomLinkStateMachine.capabilities.ver)
        #expect(inputs(try link.feed(H.canvasPresence("carol", previous))) == ["compact false", "joined carol", "speaks sync carol"])
        #expect(inputs(try link.feed(H.presence("carol", type: "unavailable"))) == ["left carol", "compact true"])
        #expect(inputs(try link.feed(H.presence("ipad"))) == ["compact false", "joined ipad"])
        #expect(inputs(try link.feed(H.presence("ipad", type: "unavailable"))) == ["left ipad", "compact true"])
        // Going down forgets it; coming up again says it first.
        #expect(inputs(link.machine.setActive(false)) == ["down xmpp", "compact false"])
        #expect(inputs(link.machine.setActive(true)).prefix(1) == ["compact true"])

        // A node standing in for the previous version never goes compact.
        var old = try H(readsCompact: false)
        _ = old.online()
        _ = try old.feed(H.discoInfo(archive: false))
        _ = try old.feed(H.canvasPresence("alice") + H.ownPresence())
        #expect(!inputs(try old.feed(H.subject)).contains { $0.hasPrefix("compact") })
    }

    /// Compact operations travel as `!` and the Base64 of the message (one alone) or of a
    /// packed payload (a batch), always in the archived payload element, never a body; the
    /// receiver gets the same bytes back. A node of the previous version, or a broken
    /// payload, is refused with an error naming the problem, and nothing reaches the session.
    @Test func compactOperationsTravelAsBase64InThePayload() throws {
        var link = try H()
        _ = link.online()
        _ = try link.feed(H.discoInfo(archive: false))
        _ = try link.feed(H.canvasPresence("alice") + H.ownPresence())
        _ = try link.feed(H.subject)
        let operations: [CanvasCore.Operation] = [
            .add(StrokeID("s"), StrokeHeader(weight: 2, colour: .black, start: Point(x: 1, y: 2))),
            .append(StrokeID("s"), points: [Point(x: 1.25, y: 3), Point(x: 2, y: 4.5)], offset: 1),
        ]
        let compact = operations.map(CompactOperationCoding.encode)
        #expect(sent(link.send(bytes: compact[0], id: 1)) == [])
        #expect(sent(link.send(bytes: compact[1], id: 2)) == [])
        let packed = PackedPayload.pack(compact, maxBytes: .max)[0]
        let batch = sent(link.tick(at: .milliseconds(100)))
        #expect(batch == [H.ours(1, content: "<canvas xmlns='urn:x-canvas:1'>!\(Crypto.base64Encode(packed))</canvas>", store: true)])
        #expect(sent(link.send(bytes: compact[0], id: 3)) == [])
        #expect(sent(link.tick(at: .milliseconds(200))) == [H.ours(2, content: "<canvas xmlns='urn:x-canvas:1'>!\(Crypto.base64Encode(compact[0]))</canvas>", store: true)])

        // Received: the messages as they were sent.
        let theirs = "<message from='\(H.room)/alice' type='groupchat' id='a-9'><canvas xmlns='urn:x-canvas:1'>!\(Crypto.base64Encode(packed))</canvas></message>"
        let received = try link.feed(theirs)
        let messages = received.compactMap { action -> [[UInt8]]? in
            if case .session(.receivedAll(let messages, _, _)) = action { messages.map(\.bytes) } else { nil }
        }
        #expect(messages == [compact])
        #expect(try messages[0].map { try MessageDecoder.decode($0) } == operations.map(Message.operation))

        let broken = "<message from='\(H.room)/alice' type='groupchat' id='a-10'><canvas xmlns='urn:x-canvas:1'>!not base64</canvas></message>"
        let refused = try link.feed(broken)
        #expect(inputs(refused) == [])
        #expect(events(refused).count == 1 && events(refused)[0].contains("not the Base64 of a compact message"), "\(events(refused))")

        var old = try H(readsCompact: false)
        try old.joinAndCatchUp()
        let oldRefused = try old.feed(theirs)
        #expect(inputs(oldRefused) == [])
        #expect(events(oldRefused).count == 1 && events(oldRefused)[0].contains("not a JSON message"), "\(events(oldRefused))")
    }

    /// What arrives in the payload reaches the session like a body (sync messages of nodes
    /// of the previous version, in bodies, still do too).
    @Test func payloadsAndBodiesBothReachTheSession() throws {
        var link = try H()
        try link.joinAndCatchUp()
        let payload = "<message from='\(H.room)/alice' type='groupchat' id='a-1'>"
            + "<canvas xmlns='urn:x-canvas:1'>{\"type\":\"SYNC_SUMMARY\"}</canvas></message>"
        let body = "<message from='\(H.room)/alice' type='groupchat' id='a-2'><body>{\"type\":\"SYNC_SUMMARY\"}</body></message>"
        let both = "<message from='\(H.room)/alice' type='groupchat' id='a-3'><body>old</body>"
            + "<canvas xmlns='urn:x-canvas:1'>new</canvas></message>"
        #expect(
            inputs(try link.feed(payload + body + both)) == [
                #"received alice: {"type":"SYNC_SUMMARY"}"#, #"received alice: {"type":"SYNC_SUMMARY"}"#,
                "received alice: new",
            ])
    }

    @Test func notesAreWrittenWhenTheyChangeAtMostOnceASecondAndOnLeave() throws {
        let stored: [CanvasCore.Operation] = [.removeStroke(StrokeID("node-b_1"))]
        var link = try H(archivePosition: "a-0", storedUnconfirmed: stored)
        link.unaccepted = stored
        #expect(notes(link.tick(at: .zero)) == [], "as stored")
        try link.joinAndCatchUp(archive: true)
        let second: [CanvasCore.Operation] = stored + [.removeStroke(StrokeID("node-b_2"))]
        link.unaccepted = second
        #expect(notes(link.tick(at: .milliseconds(999))) == [], "at most once a second")
        #expect(notes(link.tick(at: .seconds(1))) == [.unconfirmed(second)])
        #expect(notes(link.tick(at: .seconds(3))) == [], "unchanged")

        // A note the store could not write is written again.
        link.machine.noteNotStored(.unconfirmed(second))
        #expect(notes(link.tick(at: .seconds(4))) == [.unconfirmed(second)])

        // Leaving writes what changed at once.
        link.unaccepted = []
        _ = try link.feed(H.groupchat(from: "alice", id: "l1", body: "x", stanzaID: "a-9"))
        let left = link.machine.leave(now: .milliseconds(4100), facts: link.facts)
        #expect(sent(left) == ["<presence to='\(H.room)/bob' type='unavailable'/>"])
        #expect(notes(left) == [.archivePosition("a-9"), .unconfirmed([])])
        #expect(XMPPRoomLinkNote.unconfirmed(second).text.split(separator: "\n").count == 2)
    }

    @Test func withoutAStoreNoNotesAreWritten() throws {
        var link = try H(keepsNotes: false)
        link.unaccepted = [.removeStroke(StrokeID("node-b_1"))]
        try link.joinAndCatchUp()
        _ = try link.feed(H.groupchat(from: "alice", id: "l1", body: "x", stanzaID: "a-1"))
        #expect(notes(link.tick(at: .seconds(5)) + link.machine.leave(now: .seconds(5), facts: link.facts)) == [])
    }

    @Test func unconfirmedNoteRoundTripsAndSkipsDamagedLines() throws {
        let operations: [CanvasCore.Operation] = [.removeStroke(StrokeID("node-b_1")), .removeStroke(StrokeID("node-b_2"))]
        let text = XMPPRoomLinkNote.unconfirmed(operations).text
        let restored = XMPPRoomLinkNote.unconfirmedOperations(in: "not json\n" + text)
        #expect(restored.operations == operations)
        #expect(restored.damaged.count == 1)
    }

    @Test func isSettledInEachState() throws {
        var link = try H()
        link.unaccepted = [.removeStroke(StrokeID("node-b_1"))]
        #expect(link.isSettled, "not joined")
        _ = link.online()
        _ = try link.feed(H.discoInfo(archive: true) + H.presence("alice") + H.ownPresence())
        #expect(!link.isSettled, "catching up, with unconfirmed operations to send")
        link.unaccepted = []
        #expect(link.isSettled, "catching up, nothing to send")
        _ = try link.feed(H.archiveEnd(id: "muc-mam-2"))
        #expect(link.isSettled, "up, nothing sent")
        _ = link.send("ops", id: 1)
        #expect(!link.isSettled, "awaiting a reflection")
        _ = try link.feed(H.groupchat(from: "bob", id: "node-b-1", body: "ops"))
        #expect(link.isSettled, "reflected")
        link.isOnline = false
        _ = link.send("ops", id: 2)
        #expect(link.isSettled, "offline")
    }
}
