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
    /// The highest `N` of the `AUTHOR_N` identifiers seen so far.
    private var strokeCounter = 0
    /// `AUTHOR_`, the prefix that the counter reads.
    private let prefix: [UInt8]

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
        let isNew = document[operation.strokeID] == nil
        let effect = document.apply(operation)
        if isNew, document[operation.strokeID] != nil {
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
        switch action {
        case .draw(let points, let weight, let colour, let recognize):
            let id = nextStrokeID()
            let shapeID = recognize ? nextStrokeID(after: id) : id
            let drawn = Drawing.draw(points, weight: weight, colour: colour, recognize: recognize, id: id, shapeID: shapeID)
            return LocalEdit(operations: drawn.operations, shape: drawn.shape)
        case .erase(let points, let radius):
            let index = eraserIndex ?? SpatialIndex(document: document)
            eraserIndex = index
            return LocalEdit(operations: Eraser.deletions(along: points, radius: radius, in: document, index: index), shape: .none)
        }
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
}
