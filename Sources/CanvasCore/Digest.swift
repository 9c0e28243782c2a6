/// An order-independent summary of a document that two replicas exchange to find out
/// whether, and where, they differ (DESIGN.md §3).
///
/// Strokes fall into `bucketCount` buckets by a stable hash of their identifier; a bucket's
/// hash is the wrapping sum of its strokes' hashes, so it is independent of order and is
/// kept up to date in O(1) per operation. The root hashes the buckets in order. Equal
/// roots mean equal documents (up to a 64-bit hash collision); different roots lead to the
/// differing buckets, and `Document.summaries(inBucket:)` to the differing strokes.
public struct Digest: Hashable, Sendable {
    /// Number of buckets.
    public static let bucketCount = 256

    /// The hash of the whole document.
    public let root: UInt64
    /// One hash per bucket.
    public let buckets: [UInt64]

    /// A digest from its `bucketCount` bucket hashes (a programming error otherwise).
    public init(buckets: [UInt64]) {
        precondition(buckets.count == Digest.bucketCount, "a digest has \(Digest.bucketCount) buckets")
        self.buckets = buckets
        root = buckets.reduce(StableHash.mix(UInt64(Digest.bucketCount)), StableHash.combine)
    }

    /// The root as 16 lowercase hex digits.
    public var rootHex: String {
        let hex = String(root, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Indices of the buckets in which the two digests differ.
    public func differingBuckets(from other: Digest) -> [Int] {
        buckets.indices.filter { buckets[$0] != other.buckets[$0] }
    }

    /// The bucket a stroke belongs to.
    public static func bucket(of id: StrokeID) -> Int {
        bucket(ofIdentifierHash: StableHash.bytes(id.rawValue.utf8))
    }

    static func bucket(ofIdentifierHash hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> 56)
    }
}

/// What a replica knows of one stroke, in a few bytes: enough for a peer to tell which
/// operations to send (DESIGN.md §3).
public struct StrokeSummary: Hashable, Sendable {
    /// The stroke.
    public var id: StrokeID
    /// True once the stroke's ADD is known.
    public var hasHeader: Bool
    /// Number of drawable (contiguous) points, start included.
    public var contiguousCount: Int
    /// Number of points known beyond a gap.
    public var pendingCount: Int
    /// Hash of the header, or 0 without one.
    public var headerHash: UInt64
    /// Order-independent hash of every known point after the start.
    public var pointsHash: UInt64
    /// Hash of the erased set.
    public var erasedHash: UInt64
}

extension Document {
    /// The document's digest. O(bucketCount): the buckets are maintained as operations apply.
    public var digest: Digest {
        Digest(buckets: bucketSumsForDigest)
    }

    /// Summaries of the strokes of one bucket, sorted by identifier.
    public func summaries(inBucket bucket: Int) -> [StrokeSummary] {
        strokes.filter { Digest.bucket(ofIdentifierHash: $0.idHash) == bucket }
            .sorted { $0.id < $1.id }
            .map(\.summary)
    }
}

extension Stroke {
    /// This stroke's summary.
    public var summary: StrokeSummary {
        StrokeSummary(
            id: id,
            hasHeader: header != nil,
            contiguousCount: points.count,
            pendingCount: pending.reduce(0) { $0 + $1.points.count },
            headerHash: headerHash,
            pointsHash: pointsHash,
            erasedHash: erasedHash
        )
    }
}
