import CanvasCore
import CanvasNode
import CanvasProtocol
import Logging
import XMPP

/// Every decision of an `XMPPRoomLink`, as a value: the room's occupancy (`MUCRoom`), when
/// the session hears of the room, how sends become stanzas and wait their turn, timers
/// (rejoin, self-ping, catch-up, throttling) and what the store's notes should say.
///
/// It reads no clock and touches no socket, session or store: each input comes with the
/// time (`now`, the node's clock) and, where a decision needs them, with `Facts` about the
/// client and the session; each returns the actions for the link to carry out, in order.
///
/// - A `<body>` carries only what the original app understands (PROTOCOL.md §14): the
///   operations drawn here or relayed, and the whole document as MEGA for members that may
///   be peers of the original protocol. Sync messages and repairs travel in the Canvas
///   payload element (`<canvas xmlns='urn:x-canvas:1'>`) with no body, which the original
///   app never reads. Each goes to the room (`groupchat`), or, for a message meant for one
///   member that speaks sync, to that occupant (a private message through the room, never
///   archived). A member that has never sent a sync message may be a peer of the original
///   protocol, which reads only groupchat: messages meant for it go to the room.
/// - A send that carries local operations is accepted when the room reflects it back
///   (matched by the stanza id we set): then it is in the room's archive as well. One
///   still unreflected when the room was lost is accepted if the catch-up after the next
///   join shows it (our own message, same stanza id), and only otherwise sent again.
/// - Everything but operations carries a `no-store` hint (XEP-0334): the archive keeps each
///   operation once, as first sent.
/// - Messages from the archive or the room's history feed the session as operations only:
///   their sync messages are stale.
/// - After a join the session hears of the room once the archive (or history) is read:
///   catching up is cheaper than anti-entropy, which then repairs only what the archive
///   lacks. A catch-up that takes longer than `catchUpLimit` is not waited for.
/// - A passive link (a LAN node that is not its cluster's gateway) stays in the room,
///   ready to take over, but relays nothing: the gateway carries this node's strokes.
struct XMPPRoomLinkStateMachine {
    /// What the link must do, in order.
    enum Action {
        /// Send this stanza on the client's session.
        case send(XMLElement)
        /// Hand this input to the room's session.
        case session(SessionInput)
        /// Forget the local operations the session has not had accepted on this transport:
        /// the link is passive and the LAN's gateway carries them to the room.
        case discardUnacceptedOperations
        /// Write this note to the room's store; report a failure with `noteNotStored(_:)`.
        case storeNote(XMPPRoomLinkNote)
        /// Report this on the node's event stream.
        case event(NodeEvent)
        /// Log this, with the room's JID added to `metadata`.
        case log(Logger.Level, Logger.Message, metadata: Logger.Metadata)
    }

    /// What the machine needs to know, at an input, of the client and the room's session:
    /// facts it does not keep itself.
    struct Facts {
        /// Whether the client's session is ready now (it may have gone offline before the
        /// link hears of it).
        var isOnline: Bool
        /// Whether a member has sent a sync message on this transport since it joined.
        var speaksSync: (PeerID) -> Bool
        /// The local operations the session has not had accepted on this transport yet.
        var unacceptedOperations: () -> [CanvasCore.Operation]
    }

    /// The transport the session knows this link by.
    static let transportID = TransportID("xmpp")
    /// The largest text sent in one stanza (a body, or the payload of a batch): well under
    /// Prosody's default stanza limit of 256 KiB, escaping and the stanza's own markup included.
    static let maxTextBytes = 64 * 1024
    /// The largest protocol message the session hands over: in Base64 (compact, §14.11) it
    /// still fits `maxTextBytes`.
    static let maxMessageBytes = maxTextBytes / 4 * 3 - 4
    /// At most this many of our messages to the room travel unreflected; the others wait
    /// here, not in the connection's buffer, so that a flood does not put the room's pace
    /// behind our control stanzas (a self-ping stuck behind 25,000 messages timed out and
    /// took the node out of the room).
    static let reflectionWindow = 64
    /// A message whose reflection has not come after this long no longer holds its place.
    static let reflectionTimeout: Duration = .seconds(30)
    /// We ping ourselves in the room (XEP-0410) when it has been quiet this long, to learn
    /// whether we are still in: a room that vanished (its cluster member died, the server
    /// restarted) is noticed within `quietBeforeSelfPing + selfPingTimeout` even when nobody
    /// draws, and a busy room, whose traffic shows we are in, costs no pings.
    static let quietBeforeSelfPing: Duration = .seconds(4)
    /// How long a self-ping may go unanswered before we count ourselves out of the room.
    static let selfPingTimeout: Duration = .seconds(5)
    /// The wait before joining again; after refusals that may pass it doubles with each
    /// attempt, up to `maxRejoinBackoff` times.
    static let rejoinDelay: Duration = .seconds(2)
    /// A room that vanished under us is joined again at once, unless we did that less than
    /// this long ago (then after `rejoinDelay`): a cluster restarts the room on another
    /// member, and a room that keeps vanishing is not hammered.
    static let promptRejoinWindow: Duration = .seconds(30)
    /// How long a join may go unanswered (the room's disco#info answer, our own presence)
    /// before it starts over: a join that reached a cluster member while a dying member
    /// still held the room is lost without a word. Doubles with each unanswered attempt, up
    /// to `maxJoinAnswerBackoff` times.
    static let joinAnswerTimeout: Duration = .milliseconds(1500)
    /// The largest multiple of `joinAnswerTimeout` a join waits for its answer.
    static let maxJoinAnswerBackoff = 8
    /// The largest multiple of `rejoinDelay` between join attempts.
    static let maxRejoinBackoff = 16
    /// How long the session waits for the archive catch-up before syncing anyway.
    static let catchUpLimit: Duration = .seconds(30)
    /// How long operations for a room of Canvas nodes wait to travel together: a gateway
    /// relaying a thousand authors sends about ten messages a second, not a thousand.
    static let batchDelay: Duration = .milliseconds(100)
    /// How long sends pause after the room refused one for its rate limits.
    static let throttlePause: Duration = .seconds(1)
    /// The note of unconfirmed local operations is written at most this often (and on leave).
    static let unconfirmedNoteInterval: Duration = .seconds(1)
    /// XEP-0334 message processing hints.
    static let hintsNamespace = "urn:xmpp:hints"
    /// The element that carries Canvas's own messages (sync, repairs) instead of a body, so
    /// that peers of the original protocol, which hand every body to their decoder, never
    /// see them (PROTOCOL.md §14).
    static let payloadElement = MUCPayloadElement(name: "canvas", namespace: "urn:x-canvas:1")
    /// The feature of nodes that read compact payloads (PROTOCOL.md §14.11).
    static let compactFeature = "urn:x-canvas:1#compact"

    /// What a Canvas node announces in its room presence and answers to disco#info
    /// (XEP-0115): the software `urn:x-canvas`, speaking the Canvas payload (sync) and,
    /// unless it stands in for the previous version, compact payloads.
    static func capabilities(readsCompact: Bool) -> EntityCapabilities {
        EntityCapabilities(
            node: "urn:x-canvas", category: "client", type: "bot", name: "Canvas",
            features: [payloadElement.namespace, "http://jabber.org/protocol/muc"] + (readsCompact ? [compactFeature] : []))
    }

    /// This version's capabilities.
    static let capabilities = capabilities(readsCompact: true)

    /// Where a message travels: operations and MEGA in the body, the rest (and batches of
    /// operations, and anything compact) in the payload.
    static func content(of message: OutgoingMessage) -> MUCMessageContent {
        if message.isBatch || !message.isJSON { return .payload(message.text) }
        switch message.kind {
        case .operations, .legacyState: return .body(message.text)
        case .sync, .repair: return .payload(message.text)
        }
    }

    /// How the session reads a message: a body names strokes as the original app knows them.
    static func carriage(of content: MUCMessageContent) -> Carriage {
        switch content {
        case .body: .body
        case .payload: .canvas
        }
    }

    /// The room's occupancy.
    private(set) var room: MUCRoom
    /// Whether this node reads compact payloads (false: it stands in for the previous
    /// version, which announced no `compactFeature` and reads JSON only).
    let readsCompact: Bool
    /// Whether the session sends operations here in their compact form: while the room is
    /// up and every other occupant announces the capabilities of this version.
    private(set) var compactOperations = false
    /// The room's name in the node's events.
    let roomName: String
    /// This node's id: the prefix of our stanza ids.
    let nodeID: String
    /// Whether the room has a store to keep notes in.
    let keepsNotes: Bool
    /// Whether this link relays between the room and the session.
    private(set) var isActive = true
    /// The room refused us for good (banned, bad password …): no more attempts.
    private(set) var failedPermanently = false
    /// Whether the session knows the room is there (once per join, while active).
    private(set) var transportUp = false

    /// Messages (and their text's bytes) sent to and received from the room, for `xmppStats`.
    private var messagesSent = 0, operationMessagesSent = 0, bytesSent = 0, messagesReceived = 0, bytesReceived = 0
    /// Sends carrying local operations that wait for their reflection, by stanza id.
    private var awaitingReflection: [String: OutgoingMessage] = [:]
    /// Those still unreflected when the room was lost, by stanza id: the room may have
    /// passed them on before we lost it. Found among our own messages in the catch-up
    /// after the next join, they are accepted rather than sent again, which would hand
    /// their points to a peer of the original app a second time (PROTOCOL.md §14.8).
    private var unreflectedWhenLost: [String: [SendID]] = [:]
    /// Operations for a room of Canvas nodes only, gathered for one message (`batchDelay`).
    private var batch: [OutgoingMessage] = []
    private var batchBytes = 0
    private var batchStartedAt: Duration?
    /// Counts our stanzas, for their ids.
    private var sentCounter: UInt64 = 0
    /// The newest archive id seen, and the one in the store.
    private var archivePosition: String?
    private var storedArchivePosition: String?
    /// When the archive position was last stored (see `saveArchivePosition`).
    private var archivePositionSavedAt: Duration?
    /// The unconfirmed local operations in the store (`nil`: unknown, the last write failed),
    /// and when they were last compared.
    private var storedUnconfirmed: [CanvasCore.Operation]?
    private var unconfirmedComparedAt: Duration?
    /// When to try joining again after a kick, a lost self-ping or a refusal that may pass.
    private var rejoinAt: Duration?
    /// When a vanished room was last joined again at once (`promptRejoinWindow`).
    private var promptRejoinAt: Duration?
    /// When the join under way started, and how many before it went unanswered.
    private var joinStartedAt: Duration?
    private var unansweredJoins = 0
    /// While catching up after a join: when to give up waiting for it.
    private var catchUpDeadline: Duration?
    /// Join attempts refused for a reason that may pass, since the last successful join.
    private var joinAttempts = 0
    /// When to ping ourselves in the room next (XEP-0410), and when the ping waiting for
    /// its answer went out.
    private var nextSelfPing: Duration?
    private var selfPingSentAt: Duration?
    /// Counts our self-pings, for their ids.
    private var selfPingCounter: UInt64 = 0
    /// Messages the room refused for its rate limits (and those sent since), sent again
    /// once `throttledUntil` has passed.
    private var throttled: [OutgoingMessage] = []
    private var throttledUntil: Duration?
    /// Messages sent while the connection was down, for a resumed session.
    private var heldWhileOffline: [OutgoingMessage] = []
    /// Our messages to the room not reflected yet, by stanza id, with when they were sent.
    private var unreflected: [String: Duration] = [:]
    /// Messages to the room waiting for `unreflected` to shrink below `reflectionWindow`.
    private var waitingForWindow: [OutgoingMessage] = []

    /// A link to `room`, not joined yet. `archivePosition` and `storedUnconfirmed` are what
    /// the store's notes said at start (`keepsNotes`: whether there is a store at all).
    init(
        room: MUCRoom, roomName: String, nodeID: String, archivePosition: String?,
        storedUnconfirmed: [CanvasCore.Operation], keepsNotes: Bool, readsCompact: Bool = true
    ) {
        self.room = room
        self.readsCompact = readsCompact
        self.roomName = roomName
        self.nodeID = nodeID
        self.keepsNotes = keepsNotes
        self.archivePosition = archivePosition
        storedArchivePosition = archivePosition
        self.storedUnconfirmed = storedUnconfirmed
    }

    /// The room's bare JID.
    var roomJID: String { room.configuration.roomJID }

    /// Whether the room is joined: what the LAN cluster's election needs to know.
    func isInRoom(_ facts: Facts) -> Bool { room.isJoined && facts.isOnline }

    /// Whether nothing is waiting for the room's confirmation (or it cannot come: the room or
    /// the connection is gone). Just after a join, while the link catches up with the room,
    /// local operations the room has not confirmed are still to be sent: not settled.
    func isSettled(_ facts: Facts) -> Bool {
        guard facts.isOnline, !failedPermanently else { return true }
        guard transportUp else {
            return !(room.isJoined && catchUpDeadline != nil && !facts.unacceptedOperations().isEmpty)
        }
        return awaitingReflection.isEmpty && throttled.isEmpty && waitingForWindow.isEmpty && batch.isEmpty
    }

    // MARK: The client

    /// The session is ready: join the room (again) unless the session was resumed, in
    /// which case what was held while offline goes out now.
    mutating func clientOnline(resumed: Bool, now: Duration, facts: Facts) -> [Action] {
        guard !failedPermanently else { return [] }
        var actions: [Action] = []
        if resumed && room.isJoined {
            let waiting = heldWhileOffline
            heldWhileOffline = []
            for message in waiting {
                send(message, now: now, facts: facts, into: &actions)
            }
            return actions
        }
        // A fresh session: the old room presence is gone (even if the connection was hoped
        // to resume). The session learns the room went down, and resends its unaccepted
        // operations when the join brings it up again.
        room.connectionLost()
        goDown(into: &actions)
        join(now: now, facts: facts, into: &actions)
        return actions
    }

    /// The connection is gone. A session that may be resumed keeps the room: sends wait
    /// for it. Otherwise the room is lost until the next join.
    mutating func clientOffline(resumable: Bool) -> [Action] {
        guard !resumable else { return [] }
        var actions: [Action] = []
        room.connectionLost()
        goDown(into: &actions)
        return actions
    }

    /// A stanza from the room or one of its occupants (`room.isAbout(stanza)`).
    mutating func receive(_ stanza: XMLElement, now: Duration, facts: Facts) -> [Action] {
        var actions: [Action] = []
        handle(room.handle(stanza), now: now, facts: facts, into: &actions)
        // The room spoke: we are in; the next self-ping waits for the next quiet spell.
        if room.isJoined, nextSelfPing != nil { nextSelfPing = now + Self.quietBeforeSelfPing }
        return actions
    }

    // MARK: The node

    /// Makes the link active (the cluster elected this node) or passive.
    mutating func setActive(_ active: Bool) -> [Action] {
        guard active != isActive else { return [] }
        isActive = active
        var actions: [Action] = [
            .log(.info, active ? "relaying between the LAN and the room" : "passive in the room", metadata: [:]),
            .event(.xmppRelay(room: roomName, active: active)),
        ]
        if active {
            if catchUpDeadline == nil { bringUp(into: &actions) }
        } else if transportUp {
            transportUp = false
            actions.append(.session(.transportDown(Self.transportID)))
            updateCompactOperations(into: &actions)
        }
        return actions
    }

    /// Timers: rejoin, self-ping, catch-up deadline, throttled sends, lost reflections, and
    /// the store's notes.
    mutating func tick(now: Duration, facts: Facts) -> [Action] {
        var actions: [Action] = []
        if let started = batchStartedAt, now - started >= Self.batchDelay {
            flushBatch(now: now, facts: facts, into: &actions)
        }
        if !isActive {
            // The gateway carries this node's strokes to the room.
            actions.append(.discardUnacceptedOperations)
        }
        if let deadline = catchUpDeadline, now >= deadline {
            actions.append(
                .log(.warning, "catching up with the room takes too long; syncing with the occupants meanwhile", metadata: [:]))
            bringUp(into: &actions)
        }
        if let rejoinAt, now >= rejoinAt, facts.isOnline {
            join(now: now, facts: facts, into: &actions)
        }
        if room.isJoining, facts.isOnline, let started = joinStartedAt,
            now - started >= Self.joinAnswerTimeout * min(1 << min(unansweredJoins, 3), Self.maxJoinAnswerBackoff)
        {
            unansweredJoins += 1
            actions.append(
                .log(
                    .notice, "the room did not answer our join; joining again",
                    metadata: ["after": "\(now - started)", "attempt": "\(unansweredJoins + 1)"]))
            join(now: now, facts: facts, into: &actions)
        }
        if room.isJoined {
            if let sent = selfPingSentAt, now - sent >= Self.selfPingTimeout {
                selfPingSentAt = nil
                handle(room.selfPingTimedOut(), now: now, facts: facts, into: &actions)
            } else if selfPingSentAt == nil, let due = nextSelfPing, now >= due {
                selfPingCounter += 1
                selfPingSentAt = now
                nextSelfPing = now + Self.quietBeforeSelfPing
                actions.append(.send(room.selfPing(id: "self-ping-\(selfPingCounter)")))
            }
        }
        if let until = throttledUntil, now >= until {
            throttledUntil = nil
            let waiting = throttled
            throttled = []
            for message in waiting {
                send(message, now: now, facts: facts, into: &actions)
            }
        }
        let lost = unreflected.filter { now - $0.value >= Self.reflectionTimeout }.keys
        for stanzaID in lost { unreflected[stanzaID] = nil }
        sendWaitingForWindow(now: now, facts: facts, into: &actions)
        saveArchivePosition(now: now, force: false, into: &actions)
        saveUnconfirmed(now: now, force: false, facts: facts, into: &actions)
        return actions
    }

    /// Leaves the room (on shutdown) and brings the notes up to date.
    mutating func leave(now: Duration, facts: Facts) -> [Action] {
        var actions: [Action] = []
        if room.isJoined {
            handle(room.leave(), now: now, facts: facts, into: &actions)
        }
        saveArchivePosition(now: now, force: true, into: &actions)
        saveUnconfirmed(now: now, force: true, facts: facts, into: &actions)
        actions.append(
            .event(
                .xmppStats(
                    room: roomName, messagesSent: messagesSent, operationMessagesSent: operationMessagesSent,
                    bytesSent: bytesSent, messagesReceived: messagesReceived, bytesReceived: bytesReceived)))
        return actions
    }

    /// The store could not write `note`: it is written again when next due.
    mutating func noteNotStored(_ note: XMPPRoomLinkNote) {
        switch note {
        case .archivePosition: storedArchivePosition = nil
        case .unconfirmed: storedUnconfirmed = nil
        }
    }

    // MARK: Joining and leaving

    private mutating func join(now: Duration, facts: Facts, into actions: inout [Action]) {
        rejoinAt = nil
        joinStartedAt = now
        handle(room.join(archivePosition: archivePosition), now: now, facts: facts, into: &actions)
    }

    /// Tells the session the room is there, with its occupants (once per join).
    private mutating func bringUp(into actions: inout [Action]) {
        catchUpDeadline = nil
        unreflectedWhenLost = [:]  // the session sends what the catch-up did not show
        guard !transportUp, room.isJoined, isActive else { return }
        transportUp = true
        let others = room.occupants.values.filter { $0.nickname != room.nickname }
        let members = Set(others.map { PeerID($0.nickname) })
        // First, so that what the session sends again on coming up goes in the right form.
        updateCompactOperations(into: &actions)
        actions.append(.session(.transportUp(Self.transportID, maxMessageBytes: Self.maxMessageBytes, members: members)))
        for occupant in others.sorted(by: { $0.nickname < $1.nickname }) where Self.isCanvas(occupant) {
            actions.append(.session(.memberSpeaksSync(PeerID(occupant.nickname), via: Self.transportID)))
        }
    }

    /// Whether an occupant's presence says it is a Canvas node (it speaks sync), by the
    /// software its capabilities name (PROTOCOL.md §14).
    static func isCanvas(_ occupant: MUCOccupant) -> Bool {
        occupant.capabilities?.node == capabilities.node
    }

    /// Whether an occupant reads compact payloads: it announces the capabilities of this
    /// version (the same verification string: XEP-0115 §5 makes it name the same features).
    static func readsCompact(_ occupant: MUCOccupant) -> Bool {
        occupant.capabilities?.node == capabilities.node && occupant.capabilities?.ver == capabilities.ver
    }

    /// Tells the session when operations start or stop going compact (PROTOCOL.md §14.11).
    private mutating func updateCompactOperations(into actions: inout [Action]) {
        let compact =
            readsCompact && transportUp
            && room.occupants.values.allSatisfy { $0.nickname == room.nickname || Self.readsCompact($0) }
        guard compact != compactOperations else { return }
        compactOperations = compact
        actions.append(.session(.compactOperations(compact, via: Self.transportID)))
    }

    /// Out of the room: the session hears of it, and nothing waits any longer.
    private mutating func goDown(into actions: inout [Action]) {
        if transportUp {
            transportUp = false
            actions.append(.session(.transportDown(Self.transportID)))
        }
        updateCompactOperations(into: &actions)
        for (stanzaID, message) in awaitingReflection where !message.ids.isEmpty {
            unreflectedWhenLost[stanzaID] = message.ids
        }
        // The session keeps what was batched and not sent, and sends it again when it is up.
        batch = []
        batchBytes = 0
        batchStartedAt = nil
        awaitingReflection = [:]
        throttled = []
        heldWhileOffline = []
        unreflected = [:]
        waitingForWindow = []
        throttledUntil = nil
        catchUpDeadline = nil
        selfPingSentAt = nil
        nextSelfPing = nil
    }

    // MARK: Sending

    /// The session sends `message`. Operations for the room wait up to `batchDelay` to
    /// travel with others in one message when every occupant is a Canvas node.
    mutating func send(_ message: OutgoingMessage, now: Duration, facts: Facts) -> [Action] {
        var actions: [Action] = []
        if message.kind == .operations, message.destination == .room, room.isJoined, !isMixed {
            let size = message.isJSON ? message.bytes.count + 1 : (message.bytes.count + 3) * 4 / 3 + 4
            if batchBytes + size > Self.maxTextBytes { flushBatch(now: now, facts: facts, into: &actions) }
            batch.append(message)
            batchBytes += size
            if batchStartedAt == nil { batchStartedAt = now }
            return actions
        }
        // Sync messages and repairs need no order with operations (the CRDT does not).
        send(message, now: now, facts: facts, into: &actions)
        return actions
    }

    /// Whether some occupant is not a Canvas node (a peer of the original app, say): then
    /// operations travel one a body, which it reads (PROTOCOL.md §14).
    var isMixed: Bool {
        room.occupants.values.contains { $0.nickname != room.nickname && !Self.isCanvas($0) }
    }

    /// Sends the batched operations as one message (one alone goes as it came).
    private mutating func flushBatch(now: Duration, facts: Facts, into actions: inout [Action]) {
        guard !batch.isEmpty else { return }
        let messages = batch
        batch = []
        batchBytes = 0
        batchStartedAt = nil
        if messages.count == 1 {
            send(messages[0], now: now, facts: facts, into: &actions)
            return
        }
        // JSON messages one a line; with any compact one, all packed (PROTOCOL.md §14.10-11).
        let bytes =
            messages.allSatisfy(\.isJSON)
            ? Array(messages.map(\.bytes).joined(separator: [0x0A]))
            : PackedPayload.pack(messages.map(\.bytes), maxBytes: .max)[0]
        let combined = OutgoingMessage(
            bytes: bytes, kind: .operations, id: nil, destination: .room, isBatch: true, batchedIDs: messages.flatMap(\.ids))
        send(combined, now: now, facts: facts, into: &actions)
    }

    /// Sends `message`; `inTurn`: it comes from `waitingForWindow`, whose first it was.
    private mutating func send(
        _ message: OutgoingMessage, inTurn: Bool = false, now: Duration, facts: Facts, into actions: inout [Action]
    ) {
        guard room.isJoined else { return }  // the session resends local operations on the next transportUp
        if !facts.isOnline {
            heldWhileOffline.append(message)
            return
        }
        if throttledUntil != nil {
            throttled.append(message)
            return
        }
        var target = message.destination
        if case .peer(let peer) = target, !facts.speaksSync(peer) {
            target = .room
        }
        // What goes to the room comes back: it waits its turn in the window.
        if target == .room, (!inTurn && !waitingForWindow.isEmpty) || unreflected.count >= Self.reflectionWindow {
            waitingForWindow.append(message)
            return
        }
        sentCounter += 1
        let stanzaID = "\(nodeID)-\(sentCounter)"
        let content = Self.content(of: message)
        var stanza: XMLElement
        switch target {
        case .room:
            // The whole room: everything meant for the room, and what is meant for a member
            // that has never spoken sync (peers of the original protocol read only
            // groupchat). Sync messages and what is meant for one member are not archived:
            // the archive keeps the room's own operations, once.
            stanza = room.message(content, stanzaID: stanzaID)
            unreflected[stanzaID] = now
            if message.kind != .operations || message.destination != .room {
                stanza.children.append(.element(XMLElement(name: "no-store", namespace: Self.hintsNamespace)))
            } else if case .payload = content {
                // A batch has no body: servers archive body-less messages only when asked.
                stanza.children.append(.element(XMLElement(name: "store", namespace: Self.hintsNamespace)))
            }
            if !message.ids.isEmpty { awaitingReflection[stanzaID] = message }
        case .peer(let peer):
            stanza = room.privateMessage(content, to: peer.rawValue, stanzaID: stanzaID)
            stanza.children.append(.element(XMLElement(name: "no-store", namespace: Self.hintsNamespace)))
        }
        messagesSent += 1
        if message.kind == .operations { operationMessagesSent += 1 }
        bytesSent += content.text.utf8.count
        actions.append(.send(stanza))
    }

    /// The protocol messages a received text holds: a payload may hold several, one a line
    /// (a batch of JSON operations, split as bytes: JSON text holds no raw line feed), or,
    /// after `!`, the Base64 of a compact message or packed payload (PROTOCOL.md §14.11).
    static func messages(of content: MUCMessageContent, readsCompact: Bool) throws(ProtocolError) -> [[UInt8]] {
        guard case .payload(let text) = content else { return [Array(content.text.utf8)] }
        if text.utf8.first == OutgoingMessage.compactMarker {
            guard readsCompact else {
                // What a node of the previous version makes of it: not JSON.
                throw ProtocolError(.malformedJSON, path: "", "not a JSON message (a compact payload)")
            }
            guard let bytes = Crypto.base64Decode(String(text.dropFirst())), let first = bytes.first,
                first == PackedPayload.marker || CompactOperationCoding.isCompact(firstByte: first)
            else {
                throw ProtocolError(.malformedCompact, path: "", "a payload after '!' is not the Base64 of a compact message")
            }
            return try PackedPayload.unpack(bytes)
        }
        let bytes = Array(text.utf8)
        return bytes.contains(0x0A) ? bytes.split(separator: 0x0A).map(Array.init) : [bytes]
    }

    /// Sends what waits for the window, oldest first, while there is room.
    private mutating func sendWaitingForWindow(now: Duration, facts: Facts, into actions: inout [Action]) {
        while !waitingForWindow.isEmpty, unreflected.count < Self.reflectionWindow, throttledUntil == nil,
            facts.isOnline, room.isJoined
        {
            let message = waitingForWindow.removeFirst()
            send(message, inTurn: true, now: now, facts: facts, into: &actions)
        }
    }

    // MARK: Room events

    private mutating func handle(_ events: [MUCEvent], now: Duration, facts: Facts, into actions: inout [Action]) {
        for event in events {
            handle(event, now: now, facts: facts, into: &actions)
        }
    }

    private mutating func handle(_ event: MUCEvent, now: Duration, facts: Facts, into actions: inout [Action]) {
        switch event {
        case .send(let stanza):
            actions.append(.send(stanza))
        case .joined(let nickname, let occupants):
            actions.append(
                .log(.info, "joined the room", metadata: ["nick": "\(nickname)", "occupants": "\(occupants.count)"]))
            actions.append(
                .event(
                    .joined(room: roomName, nick: nickname, occupants: occupants.map(\.nickname).sorted())))
            joinAttempts = 0
            unansweredJoins = 0
            awaitingReflection = [:]
            nextSelfPing = now + Self.quietBeforeSelfPing
            selfPingSentAt = nil
            catchUpDeadline = now + Self.catchUpLimit
        case .occupantJoined(let occupant):
            guard transportUp, occupant.nickname != room.nickname else { return }
            // Before the member: nothing goes compact to it if it does not read that.
            updateCompactOperations(into: &actions)
            actions.append(.session(.memberJoined(PeerID(occupant.nickname), via: Self.transportID)))
            if Self.isCanvas(occupant) {
                actions.append(.session(.memberSpeaksSync(PeerID(occupant.nickname), via: Self.transportID)))
            }
        case .occupantLeft(let occupant, _):
            guard transportUp else { return }
            actions.append(.session(.memberLeft(PeerID(occupant.nickname), via: Self.transportID)))
            updateCompactOperations(into: &actions)
        case .nicknameChanged(let old, let new):
            actions.append(.log(.notice, "our nickname in the room changed", metadata: ["from": "\(old)", "to": "\(new)"]))
            actions.append(.event(.nickname(room: roomName, from: old, to: new)))
        case .message(let message):
            received(message, now: now, facts: facts, into: &actions)
        case .privateMessage(let nickname, let content):
            guard transportUp, isActive else { return }
            actions.append(
                .session(
                    .received(
                        Array(content.text.utf8), from: PeerID(nickname), via: Self.transportID,
                        carriage: Self.carriage(of: content))))
        case .archivePosition(let position):
            archivePosition = position
        case .catchUpFinished(let messages, let usedArchive):
            actions.append(
                .log(.info, "caught up with the room", metadata: ["messages": "\(messages)", "archive": "\(usedArchive)"]))
            actions.append(
                .event(
                    .caughtUp(room: roomName, messages: messages, archive: usedArchive)))
            saveArchivePosition(now: now, force: true, into: &actions)
            bringUp(into: &actions)
        case .left(let reason):
            if reason == .voluntary {
                actions.append(.log(.info, "left the room", metadata: [:]))
            } else {
                actions.append(.log(.warning, "out of the room", metadata: ["reason": "\(reason)"]))
            }
            actions.append(
                .event(
                    .left(room: roomName, reason: "\(reason)", rejoin: reason.mayRejoin)))
            goDown(into: &actions)
            if reason.mayRejoin {
                scheduleRejoin(now: now, roomVanished: reason.roomVanished)
            } else {
                failedPermanently = true
            }
        case .failed(let error):
            goDown(into: &actions)
            unansweredJoins = 0  // the room answered
            if error.kind.mayRetry {
                joinAttempts += 1
                let delay = Self.rejoinDelay * min(1 << min(joinAttempts - 1, 4), Self.maxRejoinBackoff)
                actions.append(
                    .log(.notice, "cannot join the room yet; trying again", metadata: ["error": "\(error)", "in": "\(delay)"]))
                actions.append(.event(.joinRetry(room: roomName, error: "\(error)")))
                rejoinAt = now + delay
            } else {
                actions.append(.log(.error, "cannot join the room", metadata: ["error": "\(error)"]))
                actions.append(.event(.error(room: roomName, message: "\(error)")))
                failedPermanently = true
            }
        case .messageRejected(let stanzaID, let condition, let text):
            rejected(stanzaID: stanzaID, condition: condition, text: text, now: now, into: &actions)
        }
    }

    private mutating func received(_ message: MUCMessage, now: Duration, facts: Facts, into actions: inout [Action]) {
        guard isActive else { return }  // the gateway relays; the LAN brings it here
        if message.isOwn, message.source == .live {
            if let stanzaID = message.stanzaID {
                for id in awaitingReflection.removeValue(forKey: stanzaID)?.ids ?? [] {
                    actions.append(.session(.accepted(id, via: Self.transportID)))
                }
                if unreflected.removeValue(forKey: stanzaID) != nil {
                    // Its place in the window is free.
                    sendWaitingForWindow(now: now, facts: facts, into: &actions)
                }
            }
            return
        }
        if message.isOwn, message.source != .live, let stanzaID = message.stanzaID,
            let ids = unreflectedWhenLost.removeValue(forKey: stanzaID)
        {
            // Sent before the room was lost, and the room has it: not to be sent again.
            for id in ids { actions.append(.session(.accepted(id, via: Self.transportID))) }
        }
        let sender = PeerID(message.fromNickname ?? "")
        let carriage = Self.carriage(of: message.content)
        messagesReceived += 1
        bytesReceived += message.content.text.utf8.count
        let lines: [[UInt8]]
        do {
            lines = try Self.messages(of: message.content, readsCompact: readsCompact)
        } catch {
            actions.append(.event(.rejected(room: roomName, member: sender.rawValue, via: Self.transportID.rawValue, error: "\(error)")))
            return
        }
        guard message.source == .live, transportUp else {
            // The archive, the history, or the room before the session knows it: operations only.
            for bytes in lines {
                actions.append(.session(.recorded(bytes, from: sender, via: Self.transportID, carriage: carriage)))
            }
            return
        }
        if lines.count == 1 {
            actions.append(.session(.received(lines[0], from: sender, via: Self.transportID, carriage: carriage)))
        } else {
            actions.append(
                .session(.receivedAll(lines.map { ($0, sender) }, via: Self.transportID, carriage: carriage)))
        }
    }

    private mutating func rejected(
        stanzaID: String?, condition: String, text: String?, now: Duration, into actions: inout [Action]
    ) {
        if let stanzaID { unreflected[stanzaID] = nil }
        let refused = stanzaID.flatMap { awaitingReflection.removeValue(forKey: $0) }
        actions.append(
            .log(.notice, "the room refused a message", metadata: ["condition": "\(condition)", "text": "\(text ?? "")"]))
        switch condition {
        case "resource-constraint", "policy-violation", "service-unavailable":
            // Rate limits: pause, then send refused local operations again (others are
            // repaired by anti-entropy).
            throttledUntil = now + Self.throttlePause
            if var refused {
                refused.destination = .room
                throttled.append(refused)
            }
        case "not-acceptable", "forbidden":
            // We are not (or no longer) an occupant: the room vanished and came back without
            // us (its cluster member died), or threw us out. Rejoin; the session resends
            // local operations that were not accepted.
            goDown(into: &actions)
            room.connectionLost()
            scheduleRejoin(now: now, roomVanished: true)
        default:
            break
        }
    }

    /// Plans the next join after we lost the room: at once when the room vanished under us
    /// and we have not rejoined at once within `promptRejoinWindow`, else after `rejoinDelay`.
    private mutating func scheduleRejoin(now: Duration, roomVanished: Bool) {
        if roomVanished, promptRejoinAt.map({ now - $0 >= Self.promptRejoinWindow }) ?? true {
            promptRejoinAt = now
            rejoinAt = now
        } else {
            rejoinAt = now + Self.rejoinDelay
        }
    }

    // MARK: Notes

    /// Stores the archive position when it moved, at most every `unconfirmedNoteInterval`
    /// unless `force`: a restart that finds an older one reads a second more of the archive
    /// (operations are idempotent), where a durable write at every tick of a busy room cost
    /// a gateway 5 % of its CPU.
    private mutating func saveArchivePosition(now: Duration, force: Bool, into actions: inout [Action]) {
        guard keepsNotes, let position = archivePosition, position != storedArchivePosition else { return }
        if !force, let saved = archivePositionSavedAt, now - saved < Self.unconfirmedNoteInterval { return }
        archivePositionSavedAt = now
        storedArchivePosition = position
        actions.append(.storeNote(.archivePosition(position)))
    }

    /// Keeps the note of unconfirmed local operations current (at most once every
    /// `unconfirmedNoteInterval` unless `force`).
    private mutating func saveUnconfirmed(now: Duration, force: Bool, facts: Facts, into actions: inout [Action]) {
        guard keepsNotes else { return }
        if !force, let compared = unconfirmedComparedAt, now - compared < Self.unconfirmedNoteInterval { return }
        unconfirmedComparedAt = now
        // A passive link has dropped them (`discardUnacceptedOperations`, at each tick).
        let unconfirmed = isActive ? facts.unacceptedOperations() : []
        guard unconfirmed != storedUnconfirmed else { return }
        storedUnconfirmed = unconfirmed
        actions.append(.storeNote(.unconfirmed(unconfirmed)))
    }
}

/// A protocol message on its way to the room: its body, what it carries, the session's
/// send id (for local operations) and where it goes.
struct OutgoingMessage: Hashable {
    /// The protocol message (JSON or compact); batched, several: JSON ones a line each, or
    /// a packed payload.
    var bytes: [UInt8]
    /// What the message carries: it decides whether the room archives it.
    var kind: MessageKind
    /// The session's id for a send that carries local operations, reported `.accepted` on
    /// its reflection.
    var id: SendID?
    /// The whole room or one member.
    var destination: Destination
    /// Operations of several sends in one message for a room of Canvas nodes only
    /// (PROTOCOL.md §14.10): it travels in the payload element, archived.
    var isBatch = false
    /// The ids of the sends in a batch that carried local operations.
    var batchedIDs: [SendID] = []

    /// The ids reported `.accepted` when the room reflects the message.
    var ids: [SendID] { (id.map { [$0] } ?? []) + batchedIDs }

    /// The first character of a stanza text holding compact bytes (no JSON text starts so).
    static let compactMarker = UInt8(ascii: "!")

    /// Whether the bytes are JSON text (a compact message or packed payload starts with a
    /// byte below 0x20, which no JSON text starts with).
    var isJSON: Bool { (bytes.first ?? 0x20) >= 0x20 }

    /// The stanza's text: JSON as it is; compact bytes as `!` and their Base64.
    var text: String {
        isJSON ? String(decoding: bytes, as: UTF8.self) : "!" + Crypto.base64Encode(bytes)
    }
}
