import CanvasCore
import CanvasNode
import CanvasProtocol
import Logging
import XMPP

/// A room's XMPP transport: the `MUCRoom` occupancy of one multi-user chat room on a
/// shared `XMPPClient`, turned into session inputs, and the session's sends turned into
/// groupchat messages (DESIGN.md §5).
///
/// - Each protocol message is the `<body>` of one message: to the room (`groupchat`), or,
///   for a message meant for one member that speaks sync, to that occupant (a private
///   message through the room, never archived). A member that has never sent a sync
///   message may be a peer of the original protocol, which reads only groupchat: messages
///   meant for it go to the room, unarchived.
/// - A send that carries local operations is accepted when the room reflects it back
///   (matched by the stanza id we set): then it is in the room's archive as well.
/// - Sync messages carry a `no-store` hint (XEP-0334): the archive keeps operations only.
/// - Messages from the archive or the room's history feed the session as operations only:
///   their sync messages are stale.
final class XMPPRoomLink: RoomTransport {
    static let transportID = TransportID("xmpp")
    /// The largest protocol message sent in one body: well under Prosody's default stanza
    /// limit of 256 KiB, escaping and the stanza's own markup included.
    static let maxMessageBytes = 64 * 1024
    /// The store note that keeps the archive position.
    static let archiveNote = "xmpp-archive-position"
    /// The store note that keeps local operations the room has not confirmed yet (NDJSON),
    /// so that a restarted node still gets them into the room and its archive.
    static let unconfirmedNote = "xmpp-unconfirmed"

    private(set) var room: MUCRoom
    let replica: RoomReplica
    private let client: XMPPClient
    private let clock: NodeClock
    private let logger: Logger
    private let emit: (NodeEvent) -> Void
    /// Sends waiting for their reflection, by stanza id.
    private var awaitingReflection: [String: (id: SendID, body: String, kind: MessageKind)] = [:]
    private var sentCounter: UInt64 = 0
    private var transportUp = false
    private var archivePosition: String?
    private var storedArchivePosition: String?
    private var storedUnconfirmed: [CanvasCore.Operation] = []
    private var unconfirmedSavedAt: Duration = .zero
    /// When to try joining again after a kick or a lost self-ping.
    private var rejoinAt: Duration?
    /// While catching up after a join: when to give up waiting for it.
    private var catchUpDeadline: Duration?
    /// Join attempts refused for a reason that may pass, since the last successful join.
    private var joinAttempts = 0
    /// When to ping ourselves in the room next (XEP-0410), and the ping waiting for its answer.
    private var nextSelfPing: Duration?
    private var selfPingSentAt: Duration?
    /// Messages the room refused for its rate limits, sent again after a pause.
    private var throttled: [OutgoingMessage] = []
    private var throttledUntil: Duration?
    /// Messages sent while the connection was down, for a resumed session.
    private var heldWhileOffline: [OutgoingMessage] = []
    /// Our messages to the room not reflected yet, by stanza id, with when they were sent.
    private var unreflected: [String: Duration] = [:]
    /// Messages to the room waiting for `unreflected` to shrink below `reflectionWindow`.
    private var waitingForWindow: [OutgoingMessage] = []
    /// The room refused us for good (banned, bad password …): no more attempts.
    private(set) var failedPermanently = false

    /// At most this many of our messages to the room travel unreflected; the others wait
    /// here, not in the connection's buffer, so that a flood does not put the room's pace
    /// behind our control stanzas (a self-ping stuck behind 25,000 messages timed out and
    /// took the node out of the room).
    static let reflectionWindow = 64
    /// A message whose reflection has not come after this long no longer holds its place.
    static let reflectionTimeout: Duration = .seconds(30)
    static let selfPingInterval: Duration = .seconds(60)
    static let selfPingTimeout: Duration = .seconds(30)
    static let rejoinDelay: Duration = .seconds(2)
    /// How long the session waits for the archive catch-up before syncing anyway.
    static let catchUpLimit: Duration = .seconds(30)

    init(
        room: MUCRoom, replica: RoomReplica, client: XMPPClient, clock: NodeClock, logger: Logger,
        emit: @escaping (NodeEvent) -> Void
    ) {
        self.room = room
        self.replica = replica
        self.client = client
        self.clock = clock
        self.logger = logger
        self.emit = emit
        do {
            archivePosition = try replica.store?.note(named: Self.archiveNote)
        } catch {
            logger.error("cannot read the archive position; catching up from the start", metadata: ["error": "\(error)"])
        }
        storedArchivePosition = archivePosition
        replica.attach(self, as: Self.transportID)
        restoreUnconfirmed()
    }

    /// Local operations sent before a restart that the room never confirmed go out again
    /// after the first join.
    private func restoreUnconfirmed() {
        let text: String?
        do {
            text = try replica.store?.note(named: Self.unconfirmedNote)
        } catch {
            logger.error("cannot read the unconfirmed operations", metadata: ["room": "\(roomJID)", "error": "\(error)"])
            return
        }
        guard let text else { return }
        var operations: [CanvasCore.Operation] = []
        for line in text.split(separator: "\n") {
            do {
                operations += try MessageDecoder.decode(Array(line.utf8)).operations
            } catch {
                logger.error("skipping a damaged unconfirmed operation", metadata: ["room": "\(roomJID)", "error": "\(error)"])
            }
        }
        storedUnconfirmed = operations
        replica.restoreUnaccepted(operations, on: Self.transportID)
        logger.info("restored operations the room had not confirmed", metadata: ["room": "\(roomJID)", "count": "\(operations.count)"])
    }

    /// Keeps the note of unconfirmed local operations current (at most once a second).
    private func saveUnconfirmedIfChanged(force: Bool = false) {
        guard let store = replica.store, force || clock.now - unconfirmedSavedAt >= .seconds(1) else { return }
        unconfirmedSavedAt = clock.now
        let unconfirmed = replica.session.unacceptedOperations(on: Self.transportID)
        guard unconfirmed != storedUnconfirmed else { return }
        var text: [UInt8] = []
        for operation in unconfirmed {
            text += MessageEncoder.encode(operation)
            text.append(UInt8(ascii: "\n"))
        }
        do {
            try store.setNote(named: Self.unconfirmedNote, to: String(decoding: text, as: UTF8.self))
            storedUnconfirmed = unconfirmed
        } catch {
            logger.error("cannot store the unconfirmed operations", metadata: ["room": "\(roomJID)", "error": "\(error)"])
        }
    }

    var roomJID: String { room.configuration.roomJID }

    /// Whether nothing is waiting for the room's confirmation (or it cannot come: the room or
    /// the connection is gone). Just after a join, while the link catches up with the room,
    /// local operations the room has not confirmed are still to be sent: not settled.
    var isSettled: Bool {
        guard client.isOnline, !failedPermanently else { return true }
        guard transportUp else {
            return !(room.isJoined && catchUpDeadline != nil
                && !replica.session.unacceptedOperations(on: Self.transportID).isEmpty)
        }
        return awaitingReflection.isEmpty && throttled.isEmpty && waitingForWindow.isEmpty
    }

    // MARK: The client

    /// The session is ready: join the room (again) unless the session was resumed, in
    /// which case what was held while offline goes out now.
    func clientOnline(resumed: Bool) {
        guard !failedPermanently else { return }
        if resumed && room.isJoined {
            let waiting = heldWhileOffline
            heldWhileOffline = []
            for message in waiting {
                send(message)
            }
            return
        }
        // A fresh session: the old room presence is gone (even if the connection was hoped
        // to resume). The session learns the room went down, and resends its unaccepted
        // operations when the join brings it up again.
        room.connectionLost()
        goDown()
        perform(room.join(archivePosition: archivePosition))
    }

    /// The connection is gone. A session that may be resumed keeps the room: sends wait
    /// for it. Otherwise the room is lost until the next join.
    func clientOffline(resumable: Bool) {
        if resumable { return }
        room.connectionLost()
        goDown()
    }

    /// Offers a stanza of the session; returns whether it was about this room.
    func offer(_ stanza: XMLElement) -> Bool {
        if room.isAbout(stanza) {
            perform(room.handle(stanza))
            return true
        }
        return false
    }

    /// Whether this link relays between the room and the session. A LAN node that is not
    /// the cluster's gateway stays in the room, passive: ready to take over at once.
    private(set) var isActive = true

    /// Makes the link active (the cluster elected this node) or passive.
    func setActive(_ active: Bool) {
        guard active != isActive else { return }
        isActive = active
        logger.info(active ? "relaying between the LAN and the room" : "passive in the room", metadata: ["room": "\(roomJID)"])
        emit(NodeEvent("xmpp_relay").with("room", replica.name).with("active", active))
        if active {
            if catchUpDeadline == nil { bringUp() }
        } else if transportUp {
            transportUp = false
            replica.handle(.transportDown(Self.transportID))
        }
    }

    /// Whether the room is joined: what the LAN cluster's election needs to know.
    var isInRoom: Bool { room.isJoined && client.isOnline }

    /// Tells the session the room is there, with its occupants (once per join).
    private func bringUp() {
        catchUpDeadline = nil
        guard !transportUp, room.isJoined, isActive else { return }
        transportUp = true
        let members = Set(room.occupants.keys.filter { $0 != room.nickname }.map { PeerID($0) })
        replica.handle(.transportUp(Self.transportID, maxMessageBytes: Self.maxMessageBytes, members: members))
    }

    /// Timers: rejoin, self-ping, throttled sends.
    func tick() {
        let now = clock.now
        if !isActive {
            // The gateway carries this node's strokes to the room.
            replica.discardUnaccepted(on: Self.transportID)
        }
        if let deadline = catchUpDeadline, now >= deadline {
            logger.warning("catching up with the room takes too long; syncing with the occupants meanwhile", metadata: ["room": "\(roomJID)"])
            bringUp()
        }
        if let rejoinAt, now >= rejoinAt, client.isOnline {
            self.rejoinAt = nil
            perform(room.join(archivePosition: archivePosition))
        }
        if room.isJoined {
            if let sent = selfPingSentAt, now - sent >= Self.selfPingTimeout {
                selfPingSentAt = nil
                perform(room.selfPingTimedOut())
            } else if selfPingSentAt == nil, let due = nextSelfPing, now >= due {
                sentCounter += 1
                selfPingSentAt = now
                nextSelfPing = now + Self.selfPingInterval
                client.send(room.selfPing(id: "self-ping-\(sentCounter)"))
            }
        }
        if let until = throttledUntil, now >= until {
            throttledUntil = nil
            let waiting = throttled
            throttled = []
            for message in waiting {
                send(message)
            }
        }
        let lost = unreflected.filter { now - $0.value >= Self.reflectionTimeout }.keys
        for stanzaID in lost { unreflected[stanzaID] = nil }
        sendWaitingForWindow()
        savePositionIfChanged()
        saveUnconfirmedIfChanged()
    }

    /// Leaves the room (on shutdown).
    func leave() {
        if room.isJoined {
            perform(room.leave())
        }
        savePositionIfChanged()
        saveUnconfirmedIfChanged(force: true)
    }

    // MARK: RoomTransport

    func send(_ bytes: [UInt8], kind: MessageKind, to destination: Destination, id: SendID?) {
        send(OutgoingMessage(body: String(decoding: bytes, as: UTF8.self), kind: kind, id: id, destination: destination))
    }

    /// Sends `body`; `inTurn`: it comes from `waitingForWindow`, whose first it was.
    private func send(_ message: OutgoingMessage, inTurn: Bool = false) {
        let (body, kind, id, destination) = (message.body, message.kind, message.id, message.destination)
        guard room.isJoined else { return }  // the session resends local operations on the next transportUp
        if !client.isOnline {
            heldWhileOffline.append(message)
            return
        }
        if throttledUntil != nil {
            throttled.append(message)
            return
        }
        var toRoom = destination
        if case .peer(let peer) = destination, !replica.session.speaksSync(peer, on: Self.transportID) {
            toRoom = .room
        }
        // What goes to the room comes back: it waits its turn in the window.
        if toRoom == .room, (!inTurn && !waitingForWindow.isEmpty) || unreflected.count >= Self.reflectionWindow {
            waitingForWindow.append(message)
            return
        }
        sentCounter += 1
        let stanzaID = "\(replica.session.nodeID)-\(sentCounter)"
        var stanza: XMLElement
        switch toRoom {
        case .room:
            // The whole room: everything meant for the room, and what is meant for a member
            // that has never spoken sync (peers of the original protocol read only
            // groupchat). Sync messages and repairs are not archived: the archive keeps the
            // room's own operations, once.
            stanza = room.message(body: body, stanzaID: stanzaID)
            unreflected[stanzaID] = clock.now
            if kind == .sync || destination != .room {
                stanza.children.append(.element(XMLElement(name: "no-store", namespace: Self.hintsNamespace)))
            }
            if let id { awaitingReflection[stanzaID] = (id, body, kind) }
        case .peer(let peer):
            stanza = room.privateMessage(body: body, to: peer.rawValue, stanzaID: stanzaID)
            stanza.children.append(.element(XMLElement(name: "no-store", namespace: Self.hintsNamespace)))
        }
        client.send(stanza)
    }

    // MARK: Room events

    private func perform(_ events: [MUCEvent]) {
        for event in events {
            handle(event)
        }
    }

    private func handle(_ event: MUCEvent) {
        switch event {
        case .send(let stanza):
            client.send(stanza)
        case .joined(let nickname, let occupants):
            logger.info("joined the room", metadata: ["room": "\(roomJID)", "nick": "\(nickname)", "occupants": "\(occupants.count)"])
            emit(NodeEvent("joined").with("room", replica.name).with("nick", nickname).with("occupants", occupants.map(\.nickname).sorted()))
            joinAttempts = 0
            awaitingReflection = [:]
            nextSelfPing = clock.now + Self.selfPingInterval
            selfPingSentAt = nil
            // The session hears of the room once the archive (or history) is read: catching
            // up is cheaper than anti-entropy, which then repairs only what the archive lacks.
            catchUpDeadline = clock.now + Self.catchUpLimit
        case .occupantJoined(let occupant):
            guard transportUp, occupant.nickname != room.nickname else { return }
            replica.handle(.memberJoined(PeerID(occupant.nickname), via: Self.transportID))
        case .occupantLeft(let occupant, _):
            guard transportUp else { return }
            replica.handle(.memberLeft(PeerID(occupant.nickname), via: Self.transportID))
        case .nicknameChanged(let old, let new):
            logger.notice("our nickname in the room changed", metadata: ["room": "\(roomJID)", "from": "\(old)", "to": "\(new)"])
            emit(NodeEvent("nickname").with("room", replica.name).with("from", old).with("to", new))
        case .message(let message):
            received(message)
        case .privateMessage(let nickname, let body):
            guard transportUp, isActive else { return }
            replica.handle(.received(Array(body.utf8), from: PeerID(nickname), via: Self.transportID))
        case .archivePosition(let position):
            archivePosition = position
        case .catchUpFinished(let messages, let usedArchive):
            logger.info("caught up with the room", metadata: ["room": "\(roomJID)", "messages": "\(messages)", "archive": "\(usedArchive)"])
            emit(NodeEvent("caught_up").with("room", replica.name).with("messages", messages).with("archive", usedArchive))
            savePositionIfChanged()
            bringUp()
        case .left(let reason):
            if reason == .voluntary {
                logger.info("left the room", metadata: ["room": "\(roomJID)"])
            } else {
                logger.warning("out of the room", metadata: ["room": "\(roomJID)", "reason": "\(reason)"])
            }
            emit(NodeEvent("left").with("room", replica.name).with("reason", "\(reason)").with("rejoin", reason.mayRejoin))
            goDown()
            if reason.mayRejoin {
                rejoinAt = clock.now + Self.rejoinDelay
            } else {
                failedPermanently = true
            }
        case .failed(let error):
            goDown()
            if error.kind.mayRetry {
                joinAttempts += 1
                let delay = Self.rejoinDelay * min(1 << min(joinAttempts - 1, 4), 16)
                logger.notice(
                    "cannot join the room yet; trying again", metadata: ["room": "\(roomJID)", "error": "\(error)", "in": "\(delay)"])
                emit(NodeEvent("join_retry").with("room", replica.name).with("error", "\(error)"))
                rejoinAt = clock.now + delay
            } else {
                logger.error("cannot join the room", metadata: ["room": "\(roomJID)", "error": "\(error)"])
                emit(NodeEvent("error").with("room", replica.name).with("message", "\(error)"))
                failedPermanently = true
            }
        case .messageRejected(let stanzaID, let condition, let text):
            rejected(stanzaID: stanzaID, condition: condition, text: text)
        }
    }

    private func received(_ message: MUCMessage) {
        guard isActive else { return }  // the gateway relays; the LAN brings it here
        if message.isOwn, message.source == .live {
            if let stanzaID = message.stanzaID {
                if let sent = awaitingReflection.removeValue(forKey: stanzaID) {
                    replica.handle(.accepted(sent.id, via: Self.transportID))
                }
                reflected(stanzaID)
            }
            return
        }
        let nickname = message.fromNickname ?? ""
        let bytes = Array(message.body.utf8)
        guard message.source == .live, transportUp else {
            // The archive, the history, or the room before the session knows it: operations only.
            replica.handle(.recorded(bytes, from: PeerID(nickname), via: Self.transportID))
            return
        }
        replica.handle(.received(bytes, from: PeerID(nickname), via: Self.transportID))
    }

    /// The room reflected (or refused) our message `stanzaID`: its place in the window is free.
    private func reflected(_ stanzaID: String) {
        guard unreflected.removeValue(forKey: stanzaID) != nil else { return }
        sendWaitingForWindow()
    }

    /// Sends what waits for the window, oldest first, while there is room.
    private func sendWaitingForWindow() {
        while !waitingForWindow.isEmpty, unreflected.count < Self.reflectionWindow, throttledUntil == nil,
            client.isOnline, room.isJoined
        {
            let message = waitingForWindow.removeFirst()
            send(message, inTurn: true)
        }
    }

    private func rejected(stanzaID: String?, condition: String, text: String?) {
        if let stanzaID { unreflected[stanzaID] = nil }
        let refused = stanzaID.flatMap { awaitingReflection.removeValue(forKey: $0) }
        logger.notice(
            "the room refused a message",
            metadata: ["room": "\(roomJID)", "condition": "\(condition)", "text": "\(text ?? "")"])
        switch condition {
        case "resource-constraint", "policy-violation", "service-unavailable":
            // Rate limits: pause, then send refused local operations again (others are
            // repaired by anti-entropy).
            throttledUntil = clock.now + .seconds(1)
            if let refused { throttled.append(OutgoingMessage(body: refused.body, kind: refused.kind, id: refused.id, destination: .room)) }
        case "not-acceptable", "forbidden":
            // We are not (or no longer) an occupant: rejoin; the session resends local
            // operations that were not accepted.
            goDown()
            room.connectionLost()
            rejoinAt = clock.now + Self.rejoinDelay
        default:
            break
        }
    }

    private func goDown() {
        if transportUp {
            transportUp = false
            replica.handle(.transportDown(Self.transportID))
        }
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

    private func savePositionIfChanged() {
        guard let position = archivePosition, position != storedArchivePosition, let store = replica.store else { return }
        do {
            try store.setNote(named: Self.archiveNote, to: position)
            storedArchivePosition = position
        } catch {
            logger.error("cannot store the archive position", metadata: ["room": "\(roomJID)", "error": "\(error)"])
        }
    }

    // MARK: Helpers

    static let hintsNamespace = "urn:xmpp:hints"
}

/// A protocol message on its way to the room: its body, what it carries, the session's
/// send id (for local operations) and where it goes.
struct OutgoingMessage {
    var body: String
    var kind: MessageKind
    var id: SendID?
    var destination: Destination
}
