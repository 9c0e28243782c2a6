public import CanvasCore
public import CanvasProtocol

/// The names strokes go by in message bodies, where peers of the original app read
/// (protocol/PROTOCOL.md §14.7).
///
/// The original app undoes a stroke with REMOVE_STROKE and redoes it with a MEGA that adds
/// the same identifier again. In the CRDT an erase is permanent, so that MEGA would leave
/// the stroke erased on every Canvas replica while the app shows it. Instead, a MEGA stroke
/// whose identifier `S` is *wholly removed* (erased from 0 to infinity: only REMOVE_STROKE
/// does that) comes back as a *generation* of it, `S~1`, `S~2` …: the first generation
/// that is not wholly removed itself, or a new one after the last. Every replica that reads
/// the room's bodies in the room's order derives the same name; a replica that derives it
/// later or not at all gets the generation's operations from those that did, because the
/// translated operations are what is stored and relayed.
///
/// In a body, `S` keeps naming the stroke the app shows: an operation on `S` from a body
/// goes to the live generation, and what we send in a body about a generation goes by
/// `S` (so the app, which knows no `S~k`, applies it to its stroke).
extension Replica {
    /// Whether the stroke is erased from its first point to infinity (REMOVE_STROKE).
    public func isWhollyRemoved(_ id: StrokeID) -> Bool {
        guard let erased = document[id]?.erased else { return false }
        return erased.contains(0...Double.infinity)
    }

    /// Generation `k` (≥ 1) of stroke `base`: `base~k`.
    static func generation(_ k: Int, of base: StrokeID) -> StrokeID {
        StrokeID("\(base.rawValue)~\(k)")
    }

    /// The base and generation number of `base~k`, if `id` has that form (k ≥ 1, decimal,
    /// no leading zero).
    static func generationParts(of id: StrokeID) -> (base: StrokeID, k: Int)? {
        let bytes = Array(id.rawValue.utf8)
        guard let tilde = bytes.lastIndex(of: UInt8(ascii: "~")), tilde > 0, tilde + 1 < bytes.count,
            bytes[tilde + 1] != UInt8(ascii: "0"), bytes.count - tilde - 1 <= 9
        else { return nil }
        var k = 0
        for byte in bytes[(tilde + 1)...] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            k = k * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return (StrokeID(String(decoding: bytes[..<tilde], as: UTF8.self)), k)
    }

    /// The stroke that a body's `id` stands for: `id` itself unless it is wholly removed
    /// and one of its generations is not (`nil`: no live generation).
    func liveGeneration(of id: StrokeID) -> StrokeID? {
        guard isWhollyRemoved(id) else { return id }
        var k = 1
        while true {
            let candidate = Self.generation(k, of: id)
            guard document[candidate] != nil else { return nil }
            if !isWhollyRemoved(candidate) { return candidate }
            k += 1
        }
    }

    /// The first generation of `id` that names no stroke yet.
    private func newGeneration(of id: StrokeID) -> StrokeID {
        var k = 1
        while document[Self.generation(k, of: id)] != nil { k += 1 }
        return Self.generation(k, of: id)
    }

    /// The operations a message read from a body stands for, with its stroke names
    /// translated: a MEGA stroke whose identifier is wholly removed goes to its live
    /// generation or a new one (the app's redo, or a stale app re-adding what it still
    /// holds: the app itself shows it again); ADD, APPEND and DELETE of a wholly removed
    /// stroke go to its live generation; REMOVE_STROKE removes the live generation too.
    public func operationsFromBody(_ message: Message) -> [Operation] {
        switch message {
        case .operation(.removeStroke(let id)):
            guard let live = liveGeneration(of: id), live != id else { return [.removeStroke(id)] }
            return [.removeStroke(id), .removeStroke(live)]
        case .operation(let operation):
            guard let live = liveGeneration(of: operation.strokeID) else { return [operation] }
            return [operation.renamed(live)]
        case .mega(let operations):
            var targets: [StrokeID: StrokeID] = [:]
            return operations.map { operation in
                let id = operation.strokeID
                if let target = targets[id] { return operation.renamed(target) }
                let target = liveGeneration(of: id) ?? newGeneration(of: id)
                targets[id] = target
                return operation.renamed(target)
            }
        case .sync, .unsupported:
            return []
        }
    }

    /// The name a body gives stroke `id`: the generation's base while the base is wholly
    /// removed (the app knows the stroke by it), else `id`.
    public func bodyName(of id: StrokeID) -> StrokeID {
        guard let (base, _) = Self.generationParts(of: id), isWhollyRemoved(base) else { return id }
        return base
    }

    /// `operation` as a body names it (`bodyName(of:)`).
    public func bodyOperation(_ operation: Operation) -> Operation {
        let name = bodyName(of: operation.strokeID)
        return name == operation.strokeID ? operation : operation.renamed(name)
    }
}

extension Operation {
    /// The same operation on stroke `id`.
    func renamed(_ id: StrokeID) -> Operation {
        switch self {
        case .add(_, let header): .add(id, header)
        case .append(_, let points, let offset): .append(id, points: points, offset: offset)
        case .delete(_, let start, let end): .delete(id, start: start, end: end)
        case .removeStroke: .removeStroke(id)
        }
    }
}
