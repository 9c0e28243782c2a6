import CanvasCore
import CanvasNode
import Logging
import XMPP

/// A room's XMPP transport (DESIGN.md §5): the thin shell around an
/// `XMPPRoomLinkStateMachine`. It feeds the machine the client's events, the room's
/// stanzas, the session's sends and the node's ticks, with the node's time and what the
/// client and the session know now, and carries out the actions the machine returns:
/// stanzas to the client, inputs to the replica, notes to the store, events and logs.
///
/// Not `Sendable`: it lives on the node's run loop.
final class XMPPRoomLink: RoomTransport {
    private var machine: XMPPRoomLinkStateMachine
    let replica: RoomReplica
    private let client: XMPPClient
    private let clock: NodeClock
    private let logger: Logger
    private let emit: (NodeEvent) -> Void

    /// A link for `room` between `client` and `replica`, restoring what the replica's store
    /// noted: the archive position, and local operations the room had not confirmed (they
    /// go out again after the first join).
    init(
        room: MUCRoom, replica: RoomReplica, client: XMPPClient, readsCompact: Bool = true, clock: NodeClock, logger: Logger,
        emit: @escaping (NodeEvent) -> Void
    ) {
        self.replica = replica
        self.client = client
        self.clock = clock
        self.logger = logger
        self.emit = emit
        let roomMetadata: Logger.Metadata = ["room": "\(room.configuration.roomJID)"]
        var archivePosition: String?
        do {
            archivePosition = try replica.store?.note(named: XMPPRoomLinkNote.archivePositionName)
        } catch {
            logger.error(
                "cannot read the archive position; catching up from the start",
                metadata: roomMetadata.merging(["error": "\(error)"]) { $1 })
        }
        var unconfirmed: [CanvasCore.Operation] = []
        do {
            if let text = try replica.store?.note(named: XMPPRoomLinkNote.unconfirmedName) {
                let restored = XMPPRoomLinkNote.unconfirmedOperations(in: text)
                for error in restored.damaged {
                    logger.error(
                        "skipping a damaged unconfirmed operation", metadata: roomMetadata.merging(["error": "\(error)"]) { $1 })
                }
                unconfirmed = restored.operations
                replica.restoreUnaccepted(unconfirmed, on: XMPPRoomLinkStateMachine.transportID)
                logger.info(
                    "restored operations the room had not confirmed",
                    metadata: roomMetadata.merging(["count": "\(unconfirmed.count)"]) { $1 })
            }
        } catch {
            logger.error("cannot read the unconfirmed operations", metadata: roomMetadata.merging(["error": "\(error)"]) { $1 })
        }
        machine = XMPPRoomLinkStateMachine(
            room: room, roomName: replica.name, nodeID: replica.session.nodeID, archivePosition: archivePosition,
            storedUnconfirmed: unconfirmed, keepsNotes: replica.store != nil, readsCompact: readsCompact)
        replica.attach(self, as: XMPPRoomLinkStateMachine.transportID)
    }

    /// The room's bare JID.
    var roomJID: String { machine.roomJID }

    /// Whether nothing is waiting for the room's confirmation (or it cannot come).
    var isSettled: Bool { machine.isSettled(facts) }

    /// Whether the room is joined: what the LAN cluster's election needs to know.
    var isInRoom: Bool { machine.isInRoom(facts) }

    /// The room refused us for good (banned, bad password …): no more attempts.
    var failedPermanently: Bool { machine.failedPermanently }

    /// Whether this link relays between the room and the session.
    var isActive: Bool { machine.isActive }

    /// The session is ready: join the room, or (resumed) send what was held.
    func clientOnline(resumed: Bool) {
        perform(machine.clientOnline(resumed: resumed, now: clock.now, facts: facts))
    }

    /// The connection is gone; `resumable`: the session may be resumed.
    func clientOffline(resumable: Bool) {
        perform(machine.clientOffline(resumable: resumable))
    }

    /// Offers a stanza of the session; returns whether it was about this room.
    func offer(_ stanza: XMLElement) -> Bool {
        guard machine.room.isAbout(stanza) else { return false }
        perform(machine.receive(stanza, now: clock.now, facts: facts))
        return true
    }

    /// Makes the link active (the cluster elected this node) or passive: a LAN node that is
    /// not the cluster's gateway stays in the room, ready to take over at once.
    func setActive(_ active: Bool) {
        perform(machine.setActive(active))
    }

    /// Timers: rejoin, self-ping, catch-up, throttled sends, the store's notes.
    func tick() {
        perform(machine.tick(now: clock.now, facts: facts))
    }

    /// Leaves the room (on shutdown).
    func leave() {
        perform(machine.leave(now: clock.now, facts: facts))
    }

    // MARK: RoomTransport

    /// The room confirms a message by reflecting it: accepted later.
    func send(_ bytes: [UInt8], kind: MessageKind, to destination: Destination, id: SendID?) -> SendOutcome {
        let message = OutgoingMessage(bytes: bytes, kind: kind, id: id, destination: destination)
        perform(machine.send(message, now: clock.now, facts: facts))
        return .pending
    }

    // MARK: Actions

    /// What the client and the session know now.
    private var facts: XMPPRoomLinkStateMachine.Facts {
        let replica = replica
        return XMPPRoomLinkStateMachine.Facts(
            isOnline: client.isOnline,
            speaksSync: { replica.session.speaksSync($0, on: XMPPRoomLinkStateMachine.transportID) },
            unacceptedOperations: { replica.session.unacceptedOperations(on: XMPPRoomLinkStateMachine.transportID) })
    }

    private func perform(_ actions: [XMPPRoomLinkStateMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let stanza):
                client.send(stanza)
            case .session(let input):
                replica.handle(input)
            case .discardUnacceptedOperations:
                replica.discardUnaccepted(on: XMPPRoomLinkStateMachine.transportID)
            case .storeNote(let note):
                guard let store = replica.store else { continue }
                do {
                    try store.setNote(named: note.name, to: note.text)
                } catch {
                    logger.error("cannot store \(note.subject)", metadata: ["room": "\(roomJID)", "error": "\(error)"])
                    machine.noteNotStored(note)
                }
            case .event(let event):
                emit(event)
            case .log(let level, let message, let metadata):
                logger.log(level: level, message, metadata: metadata.merging(["room": "\(roomJID)"]) { $1 })
            }
        }
    }
}
