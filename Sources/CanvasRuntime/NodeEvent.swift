import CanvasCore
public import CanvasNode
public import LANCluster

/// Something that happened to a node: what an embedding app observes through
/// `Node.events`, and what `canvas join --events` prints, one JSON object a line
/// (`ndjson`, docs/operating.md lists them). Rooms are named as in the configuration.
public enum NodeEvent: Sendable, Hashable {
    /// The node runs: its id and its rooms.
    case started(node: String, rooms: [String])
    /// The node stopped (after leaving its rooms and flushing its stores).
    case stopped
    /// A room's document changed: its digest root and size now.
    case state(room: String, digest: String, strokes: Int, points: Int)
    /// Operations changed a room's document: how many, how many points they placed, and
    /// who sent them (`TRANSPORT/MEMBER`; nil: drawn here).
    case applied(room: String, operations: Int, points: Int, author: String?)
    /// The strokes that operations just changed (built only for a subscriber that asks
    /// for `changed` by name: a page's view of the room follows it).
    case changed(room: String, strokes: [String])
    /// A member joined or left a room on a transport (`xmpp` or `lan`).
    case memberJoined(room: String, member: String, via: String)
    case memberLeft(room: String, member: String, via: String)
    /// The members (`TRANSPORT/MEMBER`) who drew in the last seconds.
    case drawing(room: String, members: [String])
    /// Anti-entropy with a member began, or found the same document on both sides.
    case syncStarted(room: String, member: String, via: String)
    case syncFinished(room: String, member: String, via: String)
    /// A member's message was refused; nothing changed.
    case rejected(room: String, member: String, via: String, error: String)
    /// Something failed in a room (a store that refuses writes, a room that refuses us).
    case error(room: String, message: String)
    /// The room's SVG was written.
    case exported(room: String, path: String)
    /// The XMPP session is up (`resumed`: stream management kept it).
    case online(jid: String, resumed: Bool)
    /// The XMPP session is down; the client tries again after `retryIn` (nil: never).
    case offline(error: String, retryIn: Duration?)
    /// We joined an XMPP room with this nickname; the occupants present.
    case joined(room: String, nick: String, occupants: [String])
    /// The room refused us for a reason that may pass: we try again.
    case joinRetry(room: String, error: String)
    /// We read the room's archive (or history) after joining: how many messages.
    case caughtUp(room: String, messages: Int, archive: Bool)
    /// We are out of the room, and whether we rejoin.
    case left(room: String, reason: String, rejoin: Bool)
    /// The room changed our nickname.
    case nickname(room: String, from: String, to: String)
    /// This node relays between the LAN and the XMPP room (the LAN's gateway), or stays
    /// passive in the room.
    case xmppRelay(room: String, active: Bool)
    /// The room's LAN cluster runs on this transport (interface, group, port).
    case lanStarted(room: String, transport: String)
    /// The LAN cluster elected this node as its gateway to XMPP (nil: none).
    case gateway(room: String, node: String?)
    /// The LAN cluster's counters, at shutdown.
    case lanStats(room: String, counters: ClusterCounters)
    /// What a node's XMPP link to a room sent and received (messages and the bytes of their
    /// bodies or payloads; our own reflections not counted), when it leaves the room.
    /// `operationMessagesSent`: those of `messagesSent` that carried operations (one, or a
    /// batch); the rest are anti-entropy and the original app's MEGA.
    case xmppStats(
        room: String, messagesSent: Int, operationMessagesSent: Int, bytesSent: Int, messagesReceived: Int, bytesReceived: Int)
    /// What the room's session sent for anti-entropy (docs/sync.md), at shutdown.
    case syncStats(room: String, statistics: SessionStatistics)
    /// An operation on a traced stroke (`NodeConfiguration.traceStrokePrefix`) was applied:
    /// the stroke, the index of its first point (0 for an ADD, the offset of an APPEND, -1
    /// for an erase), how many points, who sent it (nil: drawn here) and when, on the
    /// machine's monotonic clock (`MonotonicTime`), so that a benchmark can tell how long
    /// an operation took from one node's input to another node's replica.
    case traced(room: String, stroke: String, offset: Int, points: Int, author: String?, monotonicNanoseconds: UInt64)

    /// The event's name, the `"event"` field of its line.
    public var name: String {
        switch self {
        case .started: "started"
        case .stopped: "stopped"
        case .state: "state"
        case .applied: "applied"
        case .changed: "changed"
        case .memberJoined: "member_joined"
        case .memberLeft: "member_left"
        case .drawing: "drawing"
        case .syncStarted: "sync_started"
        case .syncFinished: "sync_finished"
        case .rejected: "rejected"
        case .error: "error"
        case .exported: "exported"
        case .online: "online"
        case .offline: "offline"
        case .joined: "joined"
        case .joinRetry: "join_retry"
        case .caughtUp: "caught_up"
        case .left: "left"
        case .nickname: "nickname"
        case .xmppRelay: "xmpp_relay"
        case .lanStarted: "lan_started"
        case .gateway: "gateway"
        case .lanStats: "lan_stats"
        case .traced: "traced"
        case .xmppStats: "xmpp_stats"
        case .syncStats: "sync_stats"
        }
    }

    /// Every event's name.
    public static let names: Set<String> = [
        "started", "stopped", "state", "applied", "changed", "member_joined", "member_left", "drawing", "sync_started",
        "sync_finished", "rejected", "error", "exported", "online", "offline", "joined", "join_retry", "caught_up", "left",
        "nickname", "xmpp_relay", "lan_started", "gateway", "lan_stats", "traced", "xmpp_stats",
        "sync_stats",
    ]

    /// Events given only to subscribers that name them (not to those of every event):
    /// frequent, and of use to few.
    public static let namedOnly: Set<String> = ["changed"]

    /// The room the event is about (nil for the node's own events).
    public var room: String? {
        switch self {
        case .started, .stopped, .online, .offline: nil
        case .state(let room, _, _, _), .applied(let room, _, _, _), .changed(let room, _), .memberJoined(let room, _, _),
            .memberLeft(let room, _, _), .drawing(let room, _), .syncStarted(let room, _, _),
            .syncFinished(let room, _, _), .rejected(let room, _, _, _), .error(let room, _), .exported(let room, _),
            .joined(let room, _, _), .joinRetry(let room, _), .caughtUp(let room, _, _), .left(let room, _, _),
            .nickname(let room, _, _), .xmppRelay(let room, _), .lanStarted(let room, _), .gateway(let room, _),
            .lanStats(let room, _), .traced(let room, _, _, _, _, _), .xmppStats(let room, _, _, _, _, _), .syncStats(let room, _):
            room
        }
    }

    /// The event as one line of JSON with its newline: `"event"` first, then its fields
    /// in a fixed order, so that tools reading the stream can rely on both.
    public var ndjson: [UInt8] {
        var line = EventLine(name)
        switch self {
        case .started(let node, let rooms):
            line = line.field("node", node).field("rooms", rooms)
        case .stopped:
            break
        case .state(let room, let digest, let strokes, let points):
            line = line.field("room", room).field("digest", digest).field("strokes", strokes).field("points", points)
        case .applied(let room, let operations, let points, let author):
            line = line.field("room", room).field("operations", operations).field("points", points).field("author", author)
        case .changed(let room, let strokes):
            line = line.field("room", room).field("strokes", strokes)
        case .memberJoined(let room, let member, let via), .memberLeft(let room, let member, let via),
            .syncStarted(let room, let member, let via), .syncFinished(let room, let member, let via):
            line = line.field("room", room).field("member", member).field("via", via)
        case .drawing(let room, let members):
            line = line.field("room", room).field("members", members)
        case .rejected(let room, let member, let via, let error):
            line = line.field("room", room).field("member", member).field("via", via).field("error", error)
        case .error(let room, let message):
            line = line.field("room", room).field("message", message)
        case .exported(let room, let path):
            line = line.field("room", room).field("path", path)
        case .online(let jid, let resumed):
            line = line.field("jid", jid).field("resumed", resumed)
        case .offline(let error, let retryIn):
            line = line.field("error", error)
            if let retryIn {
                line = line.field("retry_in_s", Double(retryIn.components.seconds) + Double(retryIn.components.attoseconds) * 1e-18)
            }
        case .joined(let room, let nick, let occupants):
            line = line.field("room", room).field("nick", nick).field("occupants", occupants)
        case .joinRetry(let room, let error):
            line = line.field("room", room).field("error", error)
        case .caughtUp(let room, let messages, let archive):
            line = line.field("room", room).field("messages", messages).field("archive", archive)
        case .left(let room, let reason, let rejoin):
            line = line.field("room", room).field("reason", reason).field("rejoin", rejoin)
        case .nickname(let room, let from, let to):
            line = line.field("room", room).field("from", from).field("to", to)
        case .xmppRelay(let room, let active):
            line = line.field("room", room).field("active", active)
        case .lanStarted(let room, let transport):
            line = line.field("room", room).field("transport", transport)
        case .gateway(let room, let node):
            line = line.field("room", room).field("node", node)
        case .lanStats(let room, let counters):
            line = line.field("room", room).field("datagrams_sent", counters.datagramsSent).field("bytes_sent", counters.bytesSent)
                .field("datagrams_accepted", counters.datagramsAccepted).field("datagrams_dropped", counters.datagramsDropped)
                .field("dropped_unauthenticated", counters.droppedUnauthenticated)
                .field("dropped_old_format", counters.droppedOldFormat)
                .field("dropped_replayed", counters.droppedReplayed).field("dropped_malformed", counters.droppedMalformed)
                .field("payloads_delivered", counters.payloadsDelivered).field("nacks_sent", counters.nacksSent)
                .field("repairs_sent", counters.repairsSent).field("repairs_throttled", counters.repairsThrottled)
                .field("losses_given_up", counters.lossesGivenUp)
        case .xmppStats(let room, let messagesSent, let operationMessagesSent, let bytesSent, let messagesReceived, let bytesReceived):
            line = line.field("room", room).field("messages_sent", messagesSent)
                .field("operation_messages_sent", operationMessagesSent).field("bytes_sent", bytesSent)
                .field("messages_received", messagesReceived).field("bytes_received", bytesReceived)
        case .syncStats(let room, let statistics):
            line = line.field("room", room).field("sync_messages", statistics.syncMessages)
                .field("sync_bytes", statistics.syncBytes).field("answers", statistics.answers)
                .field("answer_bytes", statistics.answerBytes).field("stroke_list_bytes", statistics.strokeListBytes)
                .field("repair_messages", statistics.repairMessages).field("repair_bytes", statistics.repairBytes)
                .field("deferred", statistics.deferred).field("rejected", statistics.rejected)
        case .traced(let room, let stroke, let offset, let points, let author, let nanoseconds):
            line = line.field("room", room).field("stroke", stroke).field("offset", offset).field("points", points)
                .field("author", author).field("t_ns", Int(truncatingIfNeeded: nanoseconds))
        }
        return line.terminated
    }
}

/// One JSON object built field by field, in order: an event's line.
///
/// The builders consume the line and return it grown, so that a chain of fields writes into
/// one buffer (a copy per field, as each added to a copy of a shared buffer, was most of
/// the allocations of a traced event's line).
public struct EventLine: Sendable {
    private var bytes: [UInt8]

    /// A line whose `"event"` is `name`, with no fields yet.
    public init(_ name: String) {
        bytes = []
        bytes.reserveCapacity(160)
        bytes += #"{"event":"#.utf8
        CanonicalJSON.appendString(name, to: &bytes)
    }

    /// The object, closed and followed by a newline.
    public var terminated: [UInt8] {
        consuming get {
            bytes += "}\n".utf8
            return bytes
        }
    }

    /// Adds a string field (`nil` writes `null`).
    public consuming func field(_ key: String, _ value: String?) -> Self {
        append(key: key)
        if let value { CanonicalJSON.appendString(value, to: &bytes) } else { bytes += "null".utf8 }
        return self
    }

    /// Adds an integer field.
    public consuming func field(_ key: String, _ value: Int) -> Self {
        append(key: key)
        CanonicalJSON.appendInteger(Int64(value), to: &bytes)
        return self
    }

    /// Adds a number field.
    public consuming func field(_ key: String, _ value: Double) -> Self {
        append(key: key)
        CanonicalJSON.appendNumber(value, to: &bytes)
        return self
    }

    /// Adds a Boolean field.
    public consuming func field(_ key: String, _ value: Bool) -> Self {
        append(key: key)
        bytes += (value ? "true" : "false").utf8
        return self
    }

    /// Adds an array of strings.
    public consuming func field(_ key: String, _ values: [String]) -> Self {
        append(key: key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            CanonicalJSON.appendString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return self
    }

    /// Appends `,"key":`, ready for the value.
    private mutating func append(key: String) {
        bytes.append(UInt8(ascii: ","))
        CanonicalJSON.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }
}
