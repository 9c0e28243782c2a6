/// Points known beyond a stroke's drawable prefix: an APPEND that arrived ahead of a gap
/// waits here until the gap is filled.
public struct PendingRun: Hashable, Sendable {
    /// Index of the first point of the run (≥ 1, and beyond the drawable prefix).
    public var offset: Int
    /// The points, at indices `offset ..< offset + points.count`.
    public var points: [Point]

    /// One past the index of the last point.
    public var end: Int { offset + points.count }
}

/// One stroke of the document: the header from its ADD, the points from its APPENDs
/// (placed by index), and the erased parameter intervals from DELETEs.
///
/// A stroke whose ADD has not arrived yet is a *placeholder*: it records what it is told
/// and is not drawn. A stroke of n drawable points spans the parameter range [0, n − 1];
/// u = k + t is parameter t of the curve segment between points k and k + 1.
public struct Stroke: Sendable {
    /// The stroke's identifier.
    public let id: StrokeID
    /// The winning header, or nil for a placeholder.
    public private(set) var header: StrokeHeader?
    /// The drawable points: indices 0 ..< count with no gap; `points[0]` is the header's
    /// start. Empty for a placeholder.
    public private(set) var points: [Point] = []
    /// Known points beyond a gap: sorted, disjoint and never adjacent to each other or to
    /// the drawable prefix.
    public private(set) var pending: [PendingRun] = []
    /// The erased parameter intervals.
    public private(set) var erased = IntervalSet()

    let idHash: UInt64
    private(set) var headerHash: UInt64 = 0
    /// Sum of `StableHash.point` over every known point with index ≥ 1 (index 0 is the
    /// header's start and is covered by `headerHash`).
    private(set) var pointsHash: UInt64 = 0
    private(set) var erasedHash: UInt64 = 0
    /// The `digestHash` last added to the document's bucket sums (0 while new).
    private(set) var contributedHash: UInt64 = 0

    /// An empty placeholder.
    init(id: StrokeID) {
        self.id = id
        idHash = StableHash.bytes(id.rawValue.utf8)
    }

    /// True until the stroke's ADD arrives.
    public var isPlaceholder: Bool { header == nil }

    /// The parameter range [0, n − 1] of the drawable points, or nil with no point.
    public var parameterRange: ClosedRange<Double>? {
        points.isEmpty ? nil : 0...Double(points.count - 1)
    }

    /// The visible parameter intervals: the parameter range minus the erased set.
    public var visible: IntervalSet {
        guard let range = parameterRange else { return IntervalSet() }
        return erased.complement(within: range)
    }

    /// Where an APPEND without offset goes: after the last known point (never index 0).
    var endForAppendWithoutOffset: Int {
        max(1, points.count, pending.last?.end ?? 0)
    }

    /// The hash this stroke contributes to its digest bucket.
    var digestHash: UInt64 {
        StableHash.combine(idHash, StableHash.combine(headerHash, StableHash.combine(pointsHash, erasedHash)))
    }

    /// Recomputes `digestHash` after a change and records it as contributed.
    mutating func refreshContributedHash() -> UInt64 {
        contributedHash = digestHash
        return contributedHash
    }
}

extension Stroke: Equatable {
    /// Strokes are equal when they hold the same information; digest bookkeeping follows.
    public static func == (lhs: Stroke, rhs: Stroke) -> Bool {
        lhs.id == rhs.id && lhs.header == rhs.header && lhs.points == rhs.points && lhs.pending == rhs.pending
            && lhs.erased == rhs.erased
    }
}

// MARK: - Header

extension Stroke {
    /// The outcome of offering a header.
    struct HeaderOutcome {
        var changed = false
        var anomaly = false
        var changedPoints: Range<Int>?
        var conflicts = 0
    }

    /// Offers an ADD's header: the first one is taken; a different one replaces it only if
    /// its canonical encoding is smaller (DESIGN.md §3), and is an anomaly either way.
    mutating func offerHeader(_ candidate: StrokeHeader) -> HeaderOutcome {
        var outcome = HeaderOutcome()
        if let current = header {
            guard candidate != current else { return outcome }
            outcome.anomaly = true
            guard StrokeHeader.wins(candidate, over: current) else { return outcome }
            setHeader(candidate)
            points[0] = candidate.start
            outcome.changed = true
            outcome.changedPoints = 0..<1
            return outcome
        }
        setHeader(candidate)
        points = [candidate.start]
        outcome.changed = true
        outcome.conflicts = drainPending()
        outcome.changedPoints = 0..<points.count
        return outcome
    }

    private mutating func setHeader(_ newHeader: StrokeHeader) {
        header = newHeader
        headerHash = StableHash.bytes(newHeader.canonicalBytes)
    }
}

// MARK: - Points

extension Stroke {
    /// The outcome of placing a batch of points.
    struct PlaceOutcome {
        /// Some index became known or some value was lowered.
        var novel = false
        /// Drawable indices that appeared or changed.
        var changedPoints: Range<Int>?
        /// Indices where the batch disagreed with what was known.
        var conflicts = 0

        mutating func noteChanged(_ range: Range<Int>) {
            guard !range.isEmpty else { return }
            if let current = changedPoints {
                changedPoints = min(current.lowerBound, range.lowerBound)..<max(current.upperBound, range.upperBound)
            } else {
                changedPoints = range
            }
        }
    }

    /// Places `batch` at indices `offset ..< offset + batch.count` (offset ≥ 1). Known
    /// indices keep the lexicographically smaller value; a batch beyond a gap waits.
    /// O(batch.count) amortised when it extends the drawable prefix.
    mutating func place<Batch: RandomAccessCollection<Point>>(_ batch: Batch, at offset: Int) -> PlaceOutcome
        where Batch.Index == Int {
        guard offset >= 1, !batch.isEmpty else { return PlaceOutcome() }
        guard !points.isEmpty, offset <= points.count else {
            return insertPending(batch, at: offset)
        }
        if offset == points.count, pending.isEmpty {
            // The common case: the author's next points, right at the end.
            addToPointsHash(batch, from: offset)
            points.append(contentsOf: batch)
            return PlaceOutcome(novel: true, changedPoints: offset..<points.count, conflicts: 0)
        }
        var outcome = mergeIntoPrefix(batch, at: offset)
        if !pending.isEmpty, pending[0].offset <= points.count {
            outcome.conflicts += drainPending()
            outcome.noteChanged((outcome.changedPoints?.lowerBound ?? points.count)..<points.count)
        }
        return outcome
    }

    /// Merges a batch that starts inside or right after the drawable prefix.
    private mutating func mergeIntoPrefix<Batch: RandomAccessCollection<Point>>(_ batch: Batch, at offset: Int) -> PlaceOutcome
        where Batch.Index == Int {
        var outcome = PlaceOutcome()
        let overlapEnd = min(points.count, offset + batch.count)
        var source = batch.startIndex
        var index = offset
        while index < overlapEnd {
            let incoming = batch[source]
            let known = points[index]
            if incoming != known {
                outcome.conflicts += 1
                if Point.precedes(incoming, known) {
                    pointsHash = pointsHash &- StableHash.point(known, at: index) &+ StableHash.point(incoming, at: index)
                    points[index] = incoming
                    outcome.novel = true
                    outcome.noteChanged(index..<(index + 1))
                }
            }
            index += 1
            source += 1
        }
        if source < batch.endIndex {
            let first = points.count
            addToPointsHash(batch[source...], from: first)
            points.append(contentsOf: batch[source...])
            outcome.novel = true
            outcome.noteChanged(first..<points.count)
        }
        return outcome
    }

    /// Adds the hashes of points newly known at indices `first`, `first + 1`, ….
    private mutating func addToPointsHash(_ newPoints: some Sequence<Point>, from first: Int) {
        for (index, point) in zip(first..., newPoints) {
            pointsHash = pointsHash &+ StableHash.point(point, at: index)
        }
    }

    /// Moves every pending run that the drawable prefix now reaches into it; returns the
    /// number of conflicting indices found on the way.
    private mutating func drainPending() -> Int {
        var conflicts = 0
        while let run = pending.first, run.offset <= points.count {
            pending.removeFirst()
            // The run's points are already in `pointsHash`; take them out so that merging
            // them into the prefix counts each point once.
            for (k, point) in run.points.enumerated() {
                pointsHash = pointsHash &- StableHash.point(point, at: run.offset + k)
            }
            conflicts += mergeIntoPrefix(run.points[...], at: run.offset).conflicts
        }
        return conflicts
    }

    /// Records a batch beyond a gap, coalescing it with every pending run it overlaps or
    /// touches, so that the pending runs are the same whatever the arrival order.
    private mutating func insertPending<Batch: RandomAccessCollection<Point>>(_ batch: Batch, at offset: Int) -> PlaceOutcome
        where Batch.Index == Int {
        var outcome = PlaceOutcome()
        let batchEnd = offset + batch.count
        if let last = pending.indices.last, pending[last].end == offset {
            // Batches that keep arriving in order after a gap extend the last run in place,
            // in O(batch) rather than by rebuilding the run.
            addToPointsHash(batch, from: offset)
            pending[last].points.append(contentsOf: batch)
            outcome.novel = true
            return outcome
        }
        let first = pending.firstIndex { $0.end >= offset } ?? pending.count
        var last = first
        while last < pending.count, pending[last].offset <= batchEnd {
            last += 1
        }
        let touched = pending[first..<last]
        let start = min(offset, touched.first?.offset ?? offset)
        let end = max(batchEnd, touched.last?.end ?? batchEnd)
        var merged: [Point] = []
        merged.reserveCapacity(end - start)
        var runIndex = touched.startIndex
        for index in start..<end {
            while runIndex < touched.endIndex, touched[runIndex].end <= index {
                runIndex += 1
            }
            let known: Point? =
                runIndex < touched.endIndex && touched[runIndex].offset <= index
                ? touched[runIndex].points[index - touched[runIndex].offset] : nil
            let incoming: Point? = index >= offset && index < batchEnd ? batch[batch.startIndex + index - offset] : nil
            switch (known, incoming) {
            case (let known?, let incoming?):
                if incoming != known {
                    outcome.conflicts += 1
                }
                if Point.precedes(incoming, known) {
                    pointsHash = pointsHash &- StableHash.point(known, at: index) &+ StableHash.point(incoming, at: index)
                    outcome.novel = true
                    merged.append(incoming)
                } else {
                    merged.append(known)
                }
            case (let known?, nil):
                merged.append(known)
            case (nil, let incoming?):
                pointsHash = pointsHash &+ StableHash.point(incoming, at: index)
                outcome.novel = true
                merged.append(incoming)
            case (nil, nil):
                preconditionFailure("pending runs touching a batch leave no gap inside it")
            }
        }
        pending.replaceSubrange(first..<last, with: CollectionOfOne(PendingRun(offset: start, points: merged)))
        return outcome
    }
}

// MARK: - Erasing

extension Stroke {
    /// Adds `range` to the erased set; returns the part that was not erased before
    /// (empty when nothing changed).
    mutating func erase(_ range: ClosedRange<Double>) -> IntervalSet {
        guard !erased.contains(range) else { return IntervalSet() }
        let newlyErased = IntervalSet([range]).subtracting(erased)
        erased.formUnion(range)
        erasedHash = erased.intervals.reduce(StableHash.mix(UInt64(erased.intervals.count))) { hash, interval in
            StableHash.combine(StableHash.combine(hash, interval.lowerBound.bitPattern), interval.upperBound.bitPattern)
        }
        return newlyErased
    }
}
