/// A room's canvas: a grow-only set of strokes keyed by identifier (DESIGN.md §3).
///
/// Every replica that has applied the same operations — in any order, any number of
/// times — holds an equal document with an equal digest. `apply` reports what changed so
/// that a node forwards only novel operations and redraws only what changed.
public struct Document: Sendable {
    /// Strokes in the order this replica first heard of them.
    private var storage: [Stroke] = []
    private var positions: [StrokeID: Int] = [:]
    /// The position of the stroke most recently changed: a cache in front of `positions`.
    private var recentPosition: Int?
    /// Per bucket, the wrapping sum of the digest hashes of its strokes.
    private(set) var bucketSumsForDigest = [UInt64](repeating: 0, count: Digest.bucketCount)

    /// Faulty-peer conflicts seen by this replica (different headers for one stroke,
    /// different values for one point). A local diagnostic: not part of the replicated state.
    public private(set) var anomalies = 0

    /// An empty document.
    public init() {}

    /// Number of strokes, placeholders included.
    public var strokeCount: Int { storage.count }

    /// Drawable points over all strokes (`DocumentStatistics.points`), kept as operations
    /// are applied: O(1), where `statistics` walks every stroke.
    public private(set) var drawablePointCount = 0

    /// The stroke with this identifier, if any operation has mentioned it.
    public subscript(id: StrokeID) -> Stroke? {
        positions[id].map { storage[$0] }
    }

    /// Whether an operation has mentioned this stroke: `self[id] != nil` without copying
    /// the stroke out.
    public func contains(_ id: StrokeID) -> Bool {
        positions[id] != nil
    }

    /// All strokes, placeholders included, in the order this replica first heard of them.
    public var strokes: [Stroke] { storage }

    /// All strokes sorted by identifier: the canonical order.
    public var sortedStrokes: [Stroke] {
        // Positions are sorted, not strokes: a swap moves one integer, not a stroke's fields.
        storage.indices.sorted { storage[$0].id < storage[$1].id }.map { storage[$0] }
    }

    /// Applies one operation and reports its effect. Never fails: operations that carry no
    /// information (an empty APPEND, an offset below 1, a DELETE with start ≥ end or an
    /// infinite end) change nothing and do not even create a placeholder, so they
    /// cannot make replicas differ.
    @discardableResult
    public mutating func apply(_ operation: Operation) -> Effect {
        switch operation {
        case .add(let id, let header):
            return add(id, header)
        case .append(let id, let points, let offset):
            return append(id, points, offset: offset)
        case .delete(let id, let start, let end):
            // Only REMOVE_STROKE erases to infinity; a DELETE's bounds are finite numbers.
            let lower = max(start, 0)
            guard lower < end, end < .infinity else { return Effect(unchanged: id) }
            return erase(id, lower...end)
        case .removeStroke(let id):
            return erase(id, 0...Double.infinity)
        }
    }

    private mutating func add(_ id: StrokeID, _ header: StrokeHeader) -> Effect {
        var effect = Effect(unchanged: id)
        let outcome = mutateStroke(id) { $0.offerHeader(header) }
        effect.isNovel = outcome.changed
        effect.headerChanged = outcome.changed
        effect.changedPoints = outcome.changedPoints
        effect.anomalies = (outcome.anomaly ? 1 : 0) + (outcome.conflicts > 0 ? 1 : 0)
        anomalies += effect.anomalies
        return effect
    }

    private mutating func append(_ id: StrokeID, _ points: [Point], offset: Int?) -> Effect {
        var effect = Effect(unchanged: id)
        guard !points.isEmpty, offset.map({ $0 >= 1 }) ?? true else { return effect }
        var placedAt = 0
        let outcome = mutateStroke(id) { stroke in
            placedAt = offset ?? stroke.endForAppendWithoutOffset
            return stroke.place(points, at: placedAt)
        }
        effect.isNovel = outcome.novel
        effect.changedPoints = outcome.changedPoints
        effect.appendOffset = placedAt
        effect.anomalies = outcome.conflicts > 0 ? 1 : 0
        anomalies += effect.anomalies
        return effect
    }

    private mutating func erase(_ id: StrokeID, _ range: ClosedRange<Double>) -> Effect {
        var effect = Effect(unchanged: id)
        let newlyErased = mutateStroke(id) { $0.erase(range) }
        effect.isNovel = !newlyErased.isEmpty
        effect.newlyErased = newlyErased
        return effect
    }

    /// Runs `body` on the stroke in place (creating a placeholder if needed), keeps the
    /// digest buckets up to date, and drops a placeholder that `body` left empty.
    private mutating func mutateStroke<Result>(_ id: StrokeID, _ body: (inout Stroke) -> Result) -> Result {
        let position = position(of: id)
        // One exclusive access to the stroke for the change and its digest bookkeeping.
        let (result, bucket, before, after, isEmpty, addedPoints) = { (stroke: inout Stroke) in
            let before = stroke.contributedHash
            let pointsBefore = stroke.points.count
            let result = body(&stroke)
            let after = stroke.refreshContributedHash()
            return (
                result, Digest.bucket(ofIdentifierHash: stroke.idHash), before, after, stroke.isEmptyPlaceholder,
                stroke.points.count - pointsBefore
            )
        }(&storage[position])
        bucketSumsForDigest[bucket] = bucketSumsForDigest[bucket] &- before &+ after
        drawablePointCount += addedPoints
        if isEmpty {
            // Only a placeholder created for this call can be empty (strokes never lose
            // information), so it is the last one stored; its contribution goes too.
            bucketSumsForDigest[bucket] = bucketSumsForDigest[bucket] &- after
            storage.removeLast()
            positions[id] = nil
            recentPosition = nil
        }
        return result
    }

    /// The stroke's position in `storage`, appending a placeholder for a new identifier.
    /// Authors send runs of operations on one stroke, so the last position is tried first.
    private mutating func position(of id: StrokeID) -> Int {
        if let recent = recentPosition, storage[recent].id == id {
            return recent
        }
        let position: Int
        if let existing = positions[id] {
            position = existing
        } else {
            position = storage.count
            storage.append(Stroke(id: id))
            positions[id] = position
        }
        recentPosition = position
        return position
    }
}

extension Stroke {
    /// A placeholder that records nothing: it exists only while an operation is applied.
    var isEmptyPlaceholder: Bool {
        header == nil && pending.isEmpty && erased.isEmpty
    }
}

extension Document: Equatable {
    /// Documents are equal when they hold the same strokes, whatever order each replica
    /// heard of them in. Anomaly counts are local diagnostics and do not take part.
    public static func == (lhs: Document, rhs: Document) -> Bool {
        guard lhs.storage.count == rhs.storage.count, lhs.bucketSumsForDigest == rhs.bucketSumsForDigest else { return false }
        return lhs.storage.allSatisfy { rhs[$0.id] == $0 }
    }
}

// MARK: - State join

extension Document {
    /// Joins `other` into this document: per stroke, the header by the canonical rule,
    /// points by index, erased sets by union. Associative, commutative and idempotent.
    public mutating func merge(_ other: Document) {
        for stroke in other.storage {
            for operation in stroke.operations {
                apply(operation)
            }
        }
    }

    /// The join of two documents.
    public func merging(_ other: Document) -> Document {
        var result = self
        result.merge(other)
        return result
    }

    /// The document as operations (sorted by stroke identifier): applied to an empty
    /// document they rebuild it exactly. Used for snapshots and for answering peers.
    public var operations: [Operation] {
        sortedStrokes.flatMap(\.operations)
    }
}

/// One of the operations that make up a stroke (`Stroke.forEachOperation`), its points
/// borrowed from the stroke, not copied.
public enum StrokeOperationPart {
    /// ADD, with the stroke's header.
    case add(StrokeHeader)
    /// APPEND of `points` at `offset`.
    case append(ArraySlice<Point>, offset: Int)
    /// DELETE of the interval `start ..< end`.
    case delete(start: Double, end: Double)
    /// REMOVE_STROKE: the whole stroke, present and future, erased.
    case removeStroke
}

extension Stroke {
    /// The stroke as operations: ADD, one APPEND for the drawable points after the start,
    /// one per pending run, and a DELETE per erased interval (REMOVE_STROKE when the whole
    /// stroke, present and future, is erased).
    public var operations: [Operation] {
        var result: [Operation] = []
        result.reserveCapacity(operationCount)
        forEachOperation { part in
            switch part {
            case .add(let header): result.append(.add(id, header))
            case .append(let points, let offset): result.append(.append(id, points: Array(points), offset: offset))
            case .delete(let start, let end): result.append(.delete(id, start: start, end: end))
            case .removeStroke: result.append(.removeStroke(id))
            }
        }
        return result
    }

    /// How many operations `operations` has.
    public var operationCount: Int {
        (header == nil ? 0 : 1) + (points.count > 1 ? 1 : 0) + pending.count + erased.intervals.count
    }

    /// Calls `body` with each of `operations`, in order, without copying any point (what a
    /// snapshot writes: `SnapshotFormat.encode(_:)`).
    public func forEachOperation(_ body: (StrokeOperationPart) -> Void) {
        if let header {
            body(.add(header))
        }
        if points.count > 1 {
            body(.append(points[1...], offset: 1))
        }
        for run in pending {
            body(.append(run.points[...], offset: run.offset))
        }
        for interval in erased.intervals {
            if interval.upperBound == .infinity {
                body(.removeStroke)
            } else {
                body(.delete(start: interval.lowerBound, end: interval.upperBound))
            }
        }
    }
}
