public import CanvasCore

/// An anti-entropy message (protocol/PROTOCOL.md §13): how two replicas find out, from the
/// digest down to single strokes, what one holds that the other lacks. The answers
/// themselves are ordinary ADD/APPEND/DELETE messages.
///
/// Every sync message names its sender (`node`, the stable node id) and the sender's
/// current digest root, so that a third member can tell that an answer it was about to
/// give has already been given by a replica in the same state (suppression, §13.3).
public struct SyncMessage: Hashable, Sendable {
    /// The version of the sync messages this implementation speaks. A message with another
    /// version decodes as `.unsupported` and is ignored.
    public static let version = 1

    /// What the message says.
    public enum Body: Hashable, Sendable {
        /// SYNC_SUMMARY: "this is my digest root" (on join, on reconnect, periodically).
        case summary
        /// SYNC_BUCKETS: the sender's bucket hashes `first ..< first + hashes.count`, the
        /// answer to a summary that differs from the sender's.
        case buckets(first: Int, hashes: [UInt64])
        /// SYNC_STROKES: the sender's summaries of every stroke within `cover`: send me what I
        /// lack, and say (SYNC_WANT) what you lack.
        case strokes(cover: [SyncCover], strokes: [SyncStrokeSummary])
        /// SYNC_WANT: the sender's summaries of strokes it knows the addressee holds more of:
        /// send me what I lack. Never answered by another sync message.
        case want([SyncStrokeSummary])
    }

    /// The sender's node id.
    public var node: String
    /// The sender's digest root when it sent the message.
    public var root: UInt64
    /// The node id the message answers (nil for a summary).
    public var to: String?
    /// The content.
    public var body: Body

    public init(node: String, root: UInt64, to: String? = nil, body: Body) {
        self.node = node
        self.root = root
        self.to = to
        self.body = body
    }

    /// The wire `type` of the message.
    public var type: String {
        switch body {
        case .summary: "SYNC_SUMMARY"
        case .buckets: "SYNC_BUCKETS"
        case .strokes: "SYNC_STROKES"
        case .want: "SYNC_WANT"
        }
    }
}

/// A part of one digest bucket: the strokes of `bucket` whose identifiers lie within
/// `lower ..< upper` by byte order (nil: unbounded). A SYNC_STROKES message lists every stroke its
/// sender holds within its covers, so that a stroke missing from the list is one the sender
/// lacks; a bucket too large for one message is split into identifier ranges.
public struct SyncCover: Hashable, Sendable {
    public var bucket: Int
    public var lower: StrokeID?
    public var upper: StrokeID?

    public init(bucket: Int, lower: StrokeID? = nil, upper: StrokeID? = nil) {
        self.bucket = bucket
        self.lower = lower
        self.upper = upper
    }

    /// True when the stroke lies within this cover.
    public func contains(_ id: StrokeID) -> Bool {
        guard Digest.bucket(of: id) == bucket else { return false }
        if let lower, id < lower { return false }
        if let upper, !(id < upper) { return false }
        return true
    }
}

/// What a replica knows of one stroke (CanvasCore's `StrokeSummary`), as the sync messages
/// carry it. A stroke has its header exactly when `contiguousCount` ≥ 1.
public struct SyncStrokeSummary: Hashable, Sendable {
    public var id: StrokeID
    public var contiguousCount: Int
    public var pendingCount: Int
    public var headerHash: UInt64
    public var pointsHash: UInt64
    public var erasedHash: UInt64

    public init(
        id: StrokeID, contiguousCount: Int, pendingCount: Int, headerHash: UInt64, pointsHash: UInt64, erasedHash: UInt64
    ) {
        self.id = id
        self.contiguousCount = contiguousCount
        self.pendingCount = pendingCount
        self.headerHash = headerHash
        self.pointsHash = pointsHash
        self.erasedHash = erasedHash
    }

    /// The summary of a stroke this replica holds.
    public init(_ summary: StrokeSummary) {
        self.init(
            id: summary.id, contiguousCount: summary.contiguousCount, pendingCount: summary.pendingCount,
            headerHash: summary.headerHash, pointsHash: summary.pointsHash, erasedHash: summary.erasedHash)
    }

    /// The summary of a stroke this replica has never heard of.
    public static func absent(_ id: StrokeID) -> SyncStrokeSummary {
        SyncStrokeSummary(id: id, contiguousCount: 0, pendingCount: 0, headerHash: 0, pointsHash: 0, erasedHash: 0)
    }
}
