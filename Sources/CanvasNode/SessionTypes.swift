public import CanvasCore
public import CanvasProtocol

/// How a session is set up. Every duration is in the session's own time base (the `now`
/// given with each input): the session reads no clock.
public struct SessionConfiguration: Sendable {
    /// How answers to a visible difference are delayed (Scalable Reliable Multicast).
    public enum Suppression: Sendable, Hashable {
        /// Answer at once: every member that sees a difference answers.
        case off
        /// Answer after a random delay in [0, base + perMember × members); a member that
        /// sees an equivalent answer first (same digest root, same requester) cancels its own.
        case randomDelay(base: Duration, perMember: Duration)
    }

    /// This replica's stable node id (persisted by the store); also the prefix of the
    /// identifiers of the strokes it draws.
    public var nodeID: String
    /// Seeds the session's randomness (answer delays, announce jitter).
    public var seed: UInt64
    /// How often the digest root is announced to each room (jittered by ±25 %).
    public var announceInterval: Duration = .seconds(10)
    /// While anyone drew in the last `drawingWindow`, periodic announcements stretch so that
    /// all members of a transport together send about this many a second (never more often
    /// than `announceInterval`). nil: they do not stretch.
    public var summariesPerSecondWhileDrawing: Double? = 1
    /// Answer delays and suppression.
    public var suppression: Suppression = .randomDelay(base: .milliseconds(200), perMember: .milliseconds(50))
    /// A member that has sent no sync message this long after joining is taken for a
    /// legacy peer and sent the whole document as ordinary operations (by the member with
    /// the smallest node id among those that speak sync); nil: never.
    public var legacyGrace: Duration? = .seconds(5)
    /// A member counts as drawing for this long after its last novel operation.
    public var drawingWindow: Duration = .seconds(3)
    /// While anyone drew in the last `drawingWindow`, the messages that look for
    /// differences (answers, stroke summaries, wants) take at most this many bytes a second
    /// on each transport, shared by its members (each at least 1 KiB a second, with up to
    /// 8 KiB saved up: one answer of 256 bucket hashes); exchanges that do not fit wait for
    /// the next summary. Repairs are never held back. nil: no limit. See `SyncBudget`.
    public var syncBytesPerSecondWhileDrawing: Int? = 32 << 10

    public init(nodeID: String, seed: UInt64) {
        self.nodeID = nodeID
        self.seed = seed
    }
}

/// What happens to a session. Each input comes with the current time.
public enum SessionInput: Sendable {
    /// A transport connected (or reconnected) to the room, with the members present and the
    /// largest message it carries. `legacyPeers`: whether members may be peers of the
    /// original protocol (an XMPP room may hold them; a LAN cluster only holds nodes like
    /// this one): only then is a silent member taken for one after `legacyGrace`.
    case transportUp(TransportID, maxMessageBytes: Int, members: Set<PeerID>, legacyPeers: Bool = true)
    /// A transport lost the room; local operations it had not accepted are kept (and may
    /// still be reported `.accepted` before it comes back up: those are not sent again).
    case transportDown(TransportID)
    case memberJoined(PeerID, via: TransportID)
    case memberLeft(PeerID, via: TransportID)
    /// A member announced that it speaks the sync extension (an XMPP occupant's
    /// capabilities): it is no peer of the original protocol, whatever it has sent yet.
    case memberSpeaksSync(PeerID, via: TransportID)
    /// Whether every member of the transport reads operations in their compact binary form
    /// (`CompactOperationCoding`, PROTOCOL.md §15); until told, operations go as JSON.
    case compactOperations(Bool, via: TransportID)
    /// One message's bytes from a member, read from where `carriage` says.
    case received([UInt8], from: PeerID, via: TransportID, carriage: Carriage = .canvas)
    /// Messages from members that arrived together (one read of a socket), in order: each
    /// handled as `.received`, their bookkeeping (storing, events, timers) done once.
    case receivedAll([(bytes: [UInt8], from: PeerID)], via: TransportID, carriage: Carriage = .canvas)
    /// One message from a transport's record of the past (an XMPP room's archive or
    /// history), or one that arrived before the transport came up: its operations are
    /// applied (and relayed when novel) whether or not the transport is up; sync messages
    /// describe a past state and are ignored.
    case recorded([UInt8], from: PeerID, via: TransportID, carriage: Carriage = .canvas)
    /// The transport has accepted (for XMPP: acknowledged) a send that carried local operations.
    case accepted(SendID, via: TransportID)
    /// The timer asked for by `.scheduleTimer` fired (early or late calls are harmless).
    case timer
    /// Operations authored here.
    case local([Operation])
    /// A local user action, turned into operations (CanvasGeometry's Drawing and Eraser).
    case action(LocalAction)
}

/// Where a received message was read, which decides the names its strokes go by.
public enum Carriage: Sendable, Hashable {
    /// Canvas's own carriage (a LAN datagram, an XMPP `<canvas>` element): identifiers are
    /// the replicas' own.
    case canvas
    /// A message body, where peers of the original app read and write: a stroke the app
    /// removed and redid goes by its first name (`Replica.operationsFromBody(_:)`).
    case body
}

/// What the driver of a session must do, in order. After a failed `.persistLocal` the driver
/// performs none of the sends that follow (nothing unpersisted is sent) and does not report
/// the refused operations applied, but performs every other action: a session that asked
/// for its timer relies on getting it (`scheduleTimer` is asked once, when it changes).
public enum SessionAction: Sendable {
    /// Send one message of `kind`. `id` is set when the message carries local operations:
    /// report `.accepted(id, via:)` once the transport has taken responsibility for it.
    case send([UInt8], kind: MessageKind, to: Destination, via: TransportID, id: SendID?)
    /// Make locally authored operations durable before the sends that follow.
    case persistLocal([Operation])
    /// Record operations received from peers; `compactForms` has one entry per operation:
    /// the compact form it arrived in when that is exactly the operation recorded (the
    /// store writes it as it came), else nil.
    case persistRemote([Operation], compactForms: [[UInt8]?])
    case event(SessionEvent)
    /// Call `.timer` at this time (replaces any earlier request).
    case scheduleTimer(at: Duration)
}

/// What a message the session sends carries, so that a transport can treat it as it
/// should (archive it or not, put it where peers of the original protocol look or not)
/// without reading it.
public enum MessageKind: Sendable, Hashable {
    /// Operations drawn here, or relayed from another transport. On a transport that may
    /// hold peers of the original app they travel in a body, named as a body names them
    /// (`Replica.bodyOperation(_:)`).
    case operations
    /// Operations sent to repair members' replicas (anti-entropy): only for members that
    /// speak sync (a peer of the original protocol would append their points again).
    case repair
    /// A sync message (`SYNC_*`, protocol/PROTOCOL.md §13).
    case sync
    /// The whole document as MEGA messages, for members that may be peers of the original
    /// protocol (they merge a MEGA without ever duplicating points).
    case legacyState
}

/// An operation applied to the document, with what it changed and who sent it (nil: local).
public struct AppliedOperation: Sendable {
    public var operation: Operation
    public var effect: Effect
    public var author: Author?
}

/// What an embedding application hears about.
public enum SessionEvent: Sendable {
    /// Operations that changed the document (redraw by their effects).
    case applied([AppliedOperation])
    case memberJoined(PeerID, via: TransportID)
    case memberLeft(PeerID, via: TransportID)
    /// The members who sent novel operations within the drawing window ("someone is
    /// drawing"), repairs from a member we are syncing with aside.
    case drawing(Set<Author>)
    /// An exchange of stroke summaries with this member began (we asked it for strokes).
    case syncStarted(PeerID, via: TransportID)
    /// This member was last seen with the same digest root as ours.
    case syncFinished(PeerID, via: TransportID)
    /// A message was rejected; nothing changed.
    case rejected(ProtocolError, from: PeerID, via: TransportID)
}

/// Counters of what a session sent, for measurements.
public struct SessionStatistics: Sendable, Hashable {
    /// Sync messages (SYNC_*) sent, and their bytes.
    public var syncMessages = 0
    public var syncBytes = 0
    /// SYNC_BUCKETS answers (to one summary; counted once however many chunks), and the
    /// bytes of their messages.
    public var answers = 0
    public var answerBytes = 0
    /// Bytes of the stroke lists of exchanges (SYNC_STROKES and SYNC_WANT). The rest of
    /// `syncBytes` are summaries (SYNC_SUMMARY).
    public var strokeListBytes = 0
    /// Operations sent in answer to SYNC_STROKES, SYNC_WANT or a legacy member, and bytes.
    public var repairMessages = 0
    public var repairBytes = 0
    /// Exchanges (answers, summaries of strokes, wants) put off because members were
    /// drawing and the sync budget was spent.
    public var deferred = 0
    /// Messages rejected and messages of unknown types or versions.
    public var rejected = 0
    public var unsupported = 0

    public init() {}
}
