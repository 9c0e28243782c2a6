public import CanvasCore
public import CanvasGeometry
public import CanvasProtocol

/// A room's replica: the only place where operations are applied (DESIGN.md §3).
///
/// It owns the document and what is kept beside it — the digest buckets' stroke lists (for
/// answering peers without scanning the document), the eraser's spatial index, and the
/// counter of the strokes drawn here — and turns local actions into operations.
/// `RoomSession`, `canvas replay`, a store's restore and the simulated network all go
/// through it.
///
/// Strokes drawn here are named `AUTHOR_N`: the author (a node's stable id) and a counter
/// that skips every identifier the document already holds, so that a replica restored from
/// its store, or one that hears its own old strokes from peers, never reuses one. A
/// recognised shape takes the next number after its hand-drawn stroke (docs/actions.md).
///
/// The spatial index exists only once the replica has erased: a replica that never
/// erases (most of them, and every one that only relays) does not pay for it.
public struct Replica: Sendable {
    /// The prefix of the identifiers of strokes drawn here.
    public let author: String
    /// The room's state.
    public private(set) var document: Document
    /// The identifiers of the strokes of each digest bucket.
    public private(set) var bucketStrokes = [[StrokeID]](repeating: [], count: Digest.bucketCount)
    /// The segments of the document's strokes, from the first erase on.
    private var eraserIndex: SpatialIndex?
    /// The highest `N` of the `AUTHOR_N` identifiers seen so far (or reserved: the next
    /// stroke drawn here is named past it).
    public private(set) var strokeCounter = 0
    /// `AUTHOR_`, the prefix that the counter reads.
    private let prefix: [UInt8]
    /// What undo takes back, the latest last, and what redo does again.
    private var undoable: [HistoryEntry] = []
    private var redoable: [HistoryEntry] = []
    /// Strokes begun here and not ended yet (`LocalAction.begin`), drawn while the pen moves.
    public private(set) var liveStrokes: Set<StrokeID> = []
    /// The last strokes drawn here with recognition on (at most three, the earlier first),
    /// each left as drawn or recognised as a line, or the two or three that made an arrow, with nothing
    /// else done here since: the next stroke to end here (a `draw`, or the `end` of a live
    /// stroke, whenever it began) may make an arrow or a closed shape with them
    /// (`ShapeRecognizer.recognize(_:after:madeAnArrow:)`).
    private var strokesBefore = StrokesBefore<StrokeBefore>()

    /// How many drawings and erasures undo can take back.
    public static let historyLimit = 200

    /// A replica authored as `author`, rebuilt from `operations` (none: a new room).
    public init(author: String, restoring operations: some Sequence<Operation> = [Operation]()) {
        self.author = author
        prefix = Array((author + "_").utf8)
        document = Document()
        for operation in operations {
            _ = apply(operation)
        }
    }

    // MARK: Applying

    /// Applies one operation (local or remote, in any order, any number of times) and
    /// returns what it changed together with the operation as it now stands in the room's
    /// history: an APPEND without an offset gets the offset its points were placed at, so
    /// that storing or relaying it no longer depends on order.
    public mutating func apply(_ operation: Operation) -> (effect: Effect, resolved: Operation) {
        // A stroke the document first heard of now is one more in it (a count, not two
        // lookups of the identifier: they were 1.6 % of a listening node's CPU).
        let strokesBefore = document.strokeCount
        let effect = document.apply(operation)
        if document.strokeCount > strokesBefore {
            bucketStrokes[Digest.bucket(of: operation.strokeID)].append(operation.strokeID)
            noteIdentifier(operation.strokeID)
        }
        if effect.isNovel, effect.headerChanged || effect.changedPoints != nil, eraserIndex != nil,
            let stroke = document[effect.strokeID]
        {
            eraserIndex?.update(stroke)
        }
        if case .append(let id, let points, nil) = operation, let offset = effect.appendOffset {
            return (effect, .append(id, points: points, offset: offset))
        }
        return (effect, operation)
    }

    // MARK: Local actions

    /// What a local action stands for.
    public struct LocalEdit: Sendable {
        /// The operations, not applied yet: apply them in order.
        public var operations: [Operation]
        /// The shape recognised in a drawn stroke (`.none` otherwise).
        public var shape: ShapeKind
    }

    /// The operations that `action` stands for against the document as it is now: a drawn
    /// stroke (with the shape recognised in it, if asked), or the deletions an eraser
    /// path makes. Nothing is applied: `apply(_:)` each operation.
    public mutating func edit(for action: LocalAction) -> LocalEdit {
        // The strokes drawn before may make a shape with the next stroke drawn, and with no
        // later one: any action but a stroke's beginning and its points takes them.
        let before = strokesBefore
        switch action {
        case .begin, .extend: break
        case .draw, .end, .erase, .undo, .redo: strokesBefore.removeAll()
        }
        switch action {
        case .draw(let points, let weight, let colour, let recognize):
            let id = nextStrokeID()
            let drawn = Drawing.draw(points, weight: weight, colour: colour, recognize: false, id: id, shapeID: id)
            guard !drawn.operations.isEmpty else { return LocalEdit(operations: [], shape: .none) }
            record(.drawn(id))
            guard recognize else { return LocalEdit(operations: drawn.operations, shape: .none) }
            let shaped = shape(
                points, after: before, weight: weight, colour: colour, id: id, shapeID: nextStrokeID(after: id),
                erasedBefore: IntervalSet())
            return LocalEdit(operations: drawn.operations + shaped.operations, shape: shaped.shape)
        case .begin(let points, let weight, let colour):
            let id = nextStrokeID()
            let drawn = Drawing.draw(points, weight: weight, colour: colour, recognize: false, id: id, shapeID: id)
            if !drawn.operations.isEmpty { liveStrokes.insert(id) }
            return LocalEdit(operations: drawn.operations, shape: .none)
        case .extend(let id, let points):
            // Points go after those already placed: only this replica appends to its live strokes.
            guard liveStrokes.contains(id), !points.isEmpty, let stroke = document[id] else {
                return LocalEdit(operations: [], shape: .none)
            }
            return LocalEdit(operations: [.append(id, points: points, offset: stroke.points.count)], shape: .none)
        case .end(let id, let recognize):
            guard liveStrokes.remove(id) != nil, let stroke = document[id], let header = stroke.header else {
                return LocalEdit(operations: [], shape: .none)
            }
            record(.drawn(id))
            guard recognize else { return LocalEdit(operations: [], shape: .none) }
            // A stroke partly erased while drawn joins no other: it shows as it is.
            let shaped = shape(
                stroke.points, after: stroke.erased.isEmpty ? before : StrokesBefore(), weight: header.weight,
                colour: header.colour, id: id, shapeID: nextStrokeID(after: id), erasedBefore: stroke.erased)
            return LocalEdit(operations: shaped.operations, shape: shaped.shape)
        case .erase(let points, let radius):
            let index = eraserIndex ?? SpatialIndex(document: document)
            eraserIndex = index
            let deletions = Eraser.deletions(along: points, radius: radius, in: document, index: index)
            let pieces = deletions.compactMap { operation -> ErasedPiece? in
                guard case .delete(let id, let start, let end) = operation else { return nil }
                return ErasedPiece(stroke: id, range: start...end)
            }
            if !pieces.isEmpty { record(.erasure(pieces)) }
            return LocalEdit(operations: deletions, shape: .none)
        case .undo:
            guard let entry = undoable.popLast() else { return LocalEdit(operations: [], shape: .none) }
            let (operations, inverse) = perform(entry)
            redoable.append(inverse)
            return LocalEdit(operations: operations, shape: .none)
        case .redo:
            guard let entry = redoable.popLast() else { return LocalEdit(operations: [], shape: .none) }
            let (operations, inverse) = perform(entry)
            undoable.append(inverse)
            return LocalEdit(operations: operations, shape: .none)
        }
    }

    /// A stroke drawn here that the next may make a shape with: the stroke as drawn, and the
    /// stroke the room shows for it (the line recognised in it, itself, or the arrow it made
    /// with the stroke before it).
    struct StrokeBefore: Sendable {
        var drawn: StrokeID
        var shown: StrokeID
    }

    /// The shape that the stroke `id` of `points`, drawn here with recognition on (its
    /// history step recorded), makes alone or with the strokes drawn just before it
    /// (`before`: `ShapeRecognizer.recognize(_:after:madeAnArrow:)` reads those drawn with
    /// this pen and shown as they were drawn, or as the arrow they made), as it replaces them
    /// (`Drawing.replacing`), the shape added as `shapeID`; records the step that undoes it
    /// (the shape taken away, the strokes brought back as they showed: `erasedBefore`, what
    /// was erased of the stroke while drawn) and the stroke among the strokes before the
    /// next. No operations when it makes no shape.
    private mutating func shape(
        _ points: [Point], after before: StrokesBefore<StrokeBefore>, weight: Double, colour: Colour, id: StrokeID,
        shapeID: StrokeID, erasedBefore: IntervalSet
    ) -> Drawing.Result {
        // Each stroke before as `Drawing.replacing` takes it, the latest back to the first drawn
        // with another pen or erased since.
        var previous: [Drawing.PreviousStroke] = []
        for part in before.parts.reversed() {
            guard let drawn = document[part.drawn], let shown = document[part.shown], let header = shown.header,
                header.weight == weight, header.colour == colour, shown.erased.isEmpty
            else { break }
            previous.insert(
                Drawing.PreviousStroke(
                    drawnPoints: drawn.points, shown: part.shown, shownPointCount: shown.points.count),
                at: 0)
        }
        // The strokes of an arrow all show as it: the loop above keeps all of them or none
        // (`recognize` reads a stroke after fewer than two of an arrow's alone).
        let reading = ShapeRecognizer.recognize(
            points, after: previous.map(\.drawnPoints), madeAnArrow: before.madeAnArrow)
        let taken = Array(previous.suffix(reading.joins))
        let replaced = Drawing.replacing(
            points, joining: taken, by: reading.shape, weight: weight, colour: colour, id: id, shapeID: shapeID)
        if taken.isEmpty {
            if replaced.shape != .none { record(.shape(shapeID, replacing: id, erasedBefore: erasedBefore)) }
        } else {
            // The strokes the room showed, each once, the latest first.
            let restored = Drawing.shownOnce(taken).reversed().map {
                Restoration(stroke: $0.shown, erasedBefore: IntervalSet())
            }
            record(
                .replaced(
                    removing: [shapeID], restoring: [Restoration(stroke: id, erasedBefore: IntervalSet())] + restored))
        }
        strokesBefore = before
        strokesBefore.note(
            StrokeBefore(drawn: id, shown: replaced.shape == .line ? shapeID : id), readAs: reading,
            joined: { StrokeBefore(drawn: $0.drawn, shown: shapeID) })
        return replaced
    }

    /// The first `AUTHOR_N` past the counter (and past `after`) that names no stroke yet.
    private func nextStrokeID(after taken: StrokeID? = nil) -> StrokeID {
        var counter = strokeCounter
        while true {
            counter += 1
            let id = StrokeID(author + "_" + String(counter))
            if id != taken, document[id] == nil { return id }
        }
    }

    /// Names the strokes drawn from now on past `AUTHOR_number`: numbers a node may have
    /// used before a restart (`StrokeNumberReservation`) are never used again.
    public mutating func moveStrokeCounter(past number: Int) {
        strokeCounter = max(strokeCounter, number)
    }

    /// Moves the counter past `AUTHOR_N` identifiers, however they arrived.
    private mutating func noteIdentifier(_ id: StrokeID) {
        let bytes = id.rawValue.utf8
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return }
        var number = 0
        for byte in bytes.dropFirst(prefix.count) {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), number < Int.max / 10 - 9 else { return }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
        }
        strokeCounter = max(strokeCounter, number)
    }

    // MARK: Undo and redo

    /// A part of a stroke that an erase action erased.
    struct ErasedPiece: Sendable {
        var stroke: StrokeID
        var range: ClosedRange<Double>
    }

    /// A stroke to bring back, with what was erased of it before it was taken away.
    struct Restoration: Sendable {
        var stroke: StrokeID
        var erasedBefore: IntervalSet
    }

    /// One step of the history, as what taking it back does. Every step is carried out
    /// with ordinary operations, so every replica converges on it (erasing is permanent
    /// in the CRDT: what comes back comes back as new strokes, and every step that names
    /// a stroke names the new one from then on).
    ///
    /// A stroke recognised as a shape is two steps: the drawing, then the shape in its
    /// place: the first undo brings the stroke back as drawn, the next takes it away.
    enum HistoryEntry: Sendable {
        /// Strokes to take away, and strokes to bring back (each as a new stroke named after
        /// it, with the same points and the erasures it had before): a drawing (its stroke
        /// taken away), a drawing undone (brought back), a recognised shape (the shape taken
        /// away, the stroke as drawn brought back) and a shape undone. The pieces of a stroke
        /// that undoing an erasure redrew go with it.
        case replaced(removing: [StrokeID], restoring: [Restoration])
        /// Pieces an erase action erased: they come back as new strokes, one a piece.
        case erasure([ErasedPiece])
        /// Pieces redrawn by undoing an erasure: erasing them again erases the pieces.
        case redrawn([StrokeID], pieces: [ErasedPiece])

        /// A stroke drawn here: undo takes it away.
        static func drawn(_ id: StrokeID) -> HistoryEntry { .replaced(removing: [id], restoring: []) }

        /// A shape recognised in stroke `drawn` (its erasures then `erasedBefore`): undo takes
        /// the shape away and brings the stroke back as drawn.
        static func shape(_ shape: StrokeID, replacing drawn: StrokeID, erasedBefore: IntervalSet) -> HistoryEntry {
            .replaced(removing: [shape], restoring: [Restoration(stroke: drawn, erasedBefore: erasedBefore)])
        }

        /// The entry with `new` wherever it names `old` (a stroke that came back as `new`).
        func renaming(_ old: StrokeID, to new: StrokeID) -> HistoryEntry {
            func name(_ id: StrokeID) -> StrokeID { id == old ? new : id }
            func names(_ pieces: [ErasedPiece]) -> [ErasedPiece] {
                pieces.map { ErasedPiece(stroke: name($0.stroke), range: $0.range) }
            }
            switch self {
            case .replaced(let removing, let restoring):
                return .replaced(
                    removing: removing.map(name),
                    restoring: restoring.map { Restoration(stroke: name($0.stroke), erasedBefore: $0.erasedBefore) })
            case .erasure(let pieces): return .erasure(names(pieces))
            case .redrawn(let ids, let pieces): return .redrawn(ids.map(name), pieces: names(pieces))
            }
        }

        /// The entry with `piece`, redrawn from `source`, taken away with it wherever it
        /// takes `source` away.
        func taking(_ piece: StrokeID, with source: StrokeID) -> HistoryEntry {
            guard case .replaced(let removing, let restoring) = self, removing.contains(source) else { return self }
            return .replaced(removing: removing + [piece], restoring: restoring)
        }

        /// The entry without `pieces` among what it takes away (erased again).
        func forgetting(_ pieces: [StrokeID]) -> HistoryEntry {
            guard case .replaced(let removing, let restoring) = self else { return self }
            return .replaced(removing: removing.filter { !pieces.contains($0) }, restoring: restoring)
        }
    }

    /// A new step: what was undone can no longer be redone.
    private mutating func record(_ entry: HistoryEntry) {
        undoable.append(entry)
        if undoable.count > Self.historyLimit { undoable.removeFirst(undoable.count - Self.historyLimit) }
        redoable = []
    }

    /// The operations that take `entry` back, and the entry that takes those back; a stroke
    /// that comes back under a new name is renamed in every step still to undo or redo.
    private mutating func perform(_ entry: HistoryEntry) -> (operations: [Operation], inverse: HistoryEntry) {
        switch entry {
        case .replaced(let removing, let restoring):
            let removed = removing.map { Restoration(stroke: $0, erasedBefore: document[$0]?.erased ?? IntervalSet()) }
            var operations: [Operation] = removing.map { .removeStroke($0) }
            var copies: [StrokeID] = []
            for restoration in restoring {
                guard let (restored, copy) = bringBack(restoration.stroke, erasedBefore: restoration.erasedBefore)
                else { continue }
                operations += restored
                copies.append(copy)
            }
            return (operations, .replaced(removing: copies, restoring: removed))
        case .erasure(let pieces):
            var operations: [Operation] = []
            var redrawn: [StrokeID] = []
            for piece in pieces {
                guard let stroke = document[piece.stroke], let header = stroke.header,
                    let points = Self.points(of: stroke, within: piece.range), let start = points.first
                else { continue }
                // Several pieces of one stroke: names not applied yet are not handed out twice.
                let id = derivedStrokeID(from: piece.stroke, tag: "p", avoiding: Set(redrawn))
                redrawn.append(id)
                operations.append(.add(id, StrokeHeader(weight: header.weight, colour: header.colour, start: start, isShape: header.isShape)))
                if points.count > 1 { operations.append(.append(id, points: Array(points[1...]), offset: 1)) }
                // Undoing the stroke's drawing takes the piece away too.
                rewriteHistory { $0.taking(id, with: piece.stroke) }
            }
            return (operations, .redrawn(redrawn, pieces: pieces))
        case .redrawn(let ids, let pieces):
            rewriteHistory { $0.forgetting(ids) }
            return (ids.map { .removeStroke($0) }, .erasure(pieces))
        }
    }

    /// The operations that bring back stroke `id` (erased) as a new stroke named after it,
    /// with the same points and the erasures `erasedBefore`, and its name; the steps still
    /// to undo or redo that name `id` name the new stroke from now on. Nil when the replica
    /// has no such stroke.
    private mutating func bringBack(
        _ id: StrokeID, erasedBefore: IntervalSet
    ) -> (operations: [Operation], copy: StrokeID)? {
        guard let stroke = document[id], let header = stroke.header else { return nil }
        let copy = derivedStrokeID(from: id, tag: "r", avoiding: [])
        var operations: [Operation] = [.add(copy, header)]
        if stroke.points.count > 1 {
            operations.append(.append(copy, points: Array(stroke.points[1...]), offset: 1))
        }
        for interval in erasedBefore.intervals where interval.upperBound.isFinite {
            operations.append(.delete(copy, start: interval.lowerBound, end: interval.upperBound))
        }
        if erasedBefore.intervals.contains(where: { !$0.upperBound.isFinite }) {
            operations.append(.removeStroke(copy))
        }
        rewriteHistory { $0.renaming(id, to: copy) }
        return (operations, copy)
    }

    /// Every step still to undo or redo, changed by `change`.
    private mutating func rewriteHistory(_ change: (HistoryEntry) -> HistoryEntry) {
        undoable = undoable.map(change)
        redoable = redoable.map(change)
    }

    /// `ID-TAGk`, k the first number naming no stroke yet (nor one of `taken`).
    private func derivedStrokeID(from id: StrokeID, tag: String, avoiding taken: Set<StrokeID>) -> StrokeID {
        var number = 1
        while true {
            let candidate = StrokeID("\(id.rawValue)-\(tag)\(number)")
            if document[candidate] == nil, !taken.contains(candidate) { return candidate }
            number += 1
        }
    }

    /// The stroke's polyline between parameters `range`: its two ends, placed on their
    /// segments, and the points between them.
    static func points(of stroke: Stroke, within range: ClosedRange<Double>) -> [Point]? {
        let points = stroke.points
        guard !points.isEmpty else { return nil }
        let last = Double(points.count - 1)
        let lower = min(max(range.lowerBound, 0), last)
        let upper = min(max(range.upperBound, 0), last)
        guard lower <= upper else { return nil }
        func at(_ u: Double) -> Point {
            let index = min(Int(u.rounded(.down)), points.count - 1)
            guard index < points.count - 1 else { return points[index] }
            let t = u - Double(index)
            let a = points[index], b = points[index + 1]
            return Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
        }
        var result = [at(lower)]
        var index = Int(lower.rounded(.down)) + 1
        while Double(index) < upper {
            result.append(points[index])
            index += 1
        }
        if upper > lower { result.append(at(upper)) }
        return result
    }
}
