/// One LAN cluster datagram: who sent it, for which room, with which sequence number, and
/// what it carries. `Datagram+Codec.swift` defines its binary form.
///
/// Every datagram a node sends takes the next value of one per-node counter as its
/// `sequence` (starting at 1), so that receivers can refuse replays. Data fragments also
/// carry a `DataFragment.dataSequence`, a second counter that only data advances: gaps in
/// it are losses, and negative acknowledgements name it.
public struct Datagram: Hashable, Sendable {
    /// The room the datagram belongs to: nodes ignore datagrams for other rooms.
    public var room: String
    /// The sender's node id.
    public var sender: String
    /// A random number the sender chose when it started, so that a restarted sender's
    /// sequence numbers (starting again at 1) are not taken for replays.
    public var incarnation: UInt64
    /// The sender's datagram counter (1, 2, 3…), for replay protection.
    public var sequence: UInt64
    /// What the datagram carries.
    public var body: Body
    /// Its binary form: version 1, or the compact version 2 (`Datagram+Codec.swift`).
    public var format: Format = .standard

    /// The binary forms of a datagram.
    public enum Format: Hashable, Sendable {
        /// Version 1: names in full and fixed-width numbers; every node reads it.
        case standard
        /// Version 2: the room as an 8-byte tag, a hexadecimal node id as its 16 bytes, and
        /// varints; sent only while every member announces `Capabilities.compactHeaders`.
        case compact
    }

    /// What a datagram carries.
    public enum Body: Hashable, Sendable {
        /// A periodic announcement: the sender is alive, with its state.
        case beacon(Beacon)
        /// One fragment of a payload for the room.
        case data(DataFragment)
        /// A request to re-send lost data fragments.
        case nack(Nack)
        /// The sender is leaving the room now (a clean shutdown).
        case leave
    }

    /// A datagram.
    public init(room: String, sender: String, incarnation: UInt64, sequence: UInt64, body: Body, format: Format = .standard) {
        self.room = room
        self.sender = sender
        self.incarnation = incarnation
        self.sequence = sequence
        self.body = body
        self.format = format
    }
}

/// What a node can do for the cluster, as a set of flags.
public struct Capabilities: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The node has a working XMPP session to the room, so it can be the gateway.
    public static let hasXMPPSession = Capabilities(rawValue: 1 << 0)
    /// The node reads compact payloads: several messages in one payload and operations in
    /// binary form (the room's protocol defines them; PROTOCOL.md §15 for Canvas).
    public static let compactPayloads = Capabilities(rawValue: 1 << 1)
    /// The node reads compact datagrams (format version 2).
    public static let compactHeaders = Capabilities(rawValue: 1 << 2)
    /// What a node of this version reads, and announces unless told to behave as the
    /// previous one: compact payloads and compact datagrams.
    public static let compactFormats: Capabilities = [.compactPayloads, .compactHeaders]
}

/// A beacon's content.
public struct Beacon: Hashable, Sendable {
    /// What the sender can do. Flags unknown to this version are kept, not refused.
    public var capabilities: Capabilities
    /// How often the sender sends beacons, in milliseconds (1 ... 3,600,000): receivers
    /// count missed beacons against it.
    public var intervalMilliseconds: UInt32
    /// The highest `DataFragment.dataSequence` the sender has sent, 0 if none, so that
    /// receivers notice when the last fragments of a burst were lost.
    public var highestDataSequence: UInt64
    /// The sender's sync summary (for instance a digest root), opaque to the cluster.
    public var summary: [UInt8]

    /// A beacon.
    public init(capabilities: Capabilities, intervalMilliseconds: UInt32, highestDataSequence: UInt64, summary: [UInt8])
    {
        self.capabilities = capabilities
        self.intervalMilliseconds = intervalMilliseconds
        self.highestDataSequence = highestDataSequence
        self.summary = summary
    }

    /// The largest interval a beacon can announce: one hour.
    public static let maximumIntervalMilliseconds: UInt32 = 3_600_000
}

/// One fragment of a payload. A payload of `count` fragments takes the consecutive data
/// sequence numbers `messageID ..< messageID + count`; fragment `index` has
/// `messageID + index`.
public struct DataFragment: Hashable, Sendable {
    /// The sender's data counter (1, 2, 3…), dense: a gap is a loss.
    public var dataSequence: UInt64
    /// Which fragment of the payload this is, from 0.
    public var index: UInt16
    /// How many fragments the payload has (at least 1).
    public var count: UInt16
    /// The fragment's bytes.
    public var chunk: [UInt8]

    /// A fragment.
    public init(dataSequence: UInt64, index: UInt16, count: UInt16, chunk: [UInt8]) {
        self.dataSequence = dataSequence
        self.index = index
        self.count = count
        self.chunk = chunk
    }

    /// The data sequence number of the payload's first fragment, which names the payload.
    public var messageID: UInt64 { dataSequence - UInt64(index) }
}

/// A negative acknowledgement: the sender of this datagram misses data fragments of
/// `target`. Every member hears it, so that others missing the same fragments wait
/// for the repair instead of asking again.
public struct Nack: Hashable, Sendable {
    /// The node whose fragments are missing.
    public var target: String
    /// The incarnation of `target` the data sequence numbers belong to.
    public var targetIncarnation: UInt64
    /// The missing data sequence numbers: non-empty, ascending, disjoint and not adjacent
    /// ranges, all above 0.
    public var missing: [ClosedRange<UInt64>]

    /// A negative acknowledgement.
    public init(target: String, targetIncarnation: UInt64, missing: [ClosedRange<UInt64>]) {
        self.target = target
        self.targetIncarnation = targetIncarnation
        self.missing = missing
    }
}
