import CanvasCore
import CanvasProtocol

/// Shapes sent where peers of the original app read (message bodies), so that the app can
/// draw them at every moment (protocol/PROTOCOL.md §14, item 12).
///
/// The app draws a shape (`is_shape`) as the lines between its points, `for i in
/// start...(end - 1)`, and stops ("Range requires lowerBound <= upperBound") on a shape of
/// one point, which an ADD's stroke is until its APPEND arrives; and it redraws after every
/// message it applies. So where it reads, a shape's ADD and first APPEND go out together as
/// one MEGA of that stroke: the app takes an unknown MEGA stroke whole, and a Canvas node
/// reads the same ADD and APPEND from it. A shape's ADD that comes without its first APPEND
/// (relayed from a member that sent them apart, or given alone by an embedder) goes out
/// with the points the replica already holds after its start (an APPEND that arrived
/// first), or else waits here for its APPEND; at most `maximumWaiting` do, and beyond that
/// the oldest goes out alone, as it would without this.
struct ShapeBodies: Sendable {
    /// What goes out: an operation as it is, or a shape's ADD and first APPEND as one MEGA.
    enum Part: Equatable, Sendable {
        /// An operation, with the id of its send when it is local.
        case operation(Operation, SendID?)
        /// A shape's ADD and first APPEND, with the ids of the local sends they came in.
        case shape(add: Operation, append: Operation, sendIDs: [SendID])

        /// The messages that carry it under `maxBytes`: an operation as `MessagePacking`
        /// packs it (`compact`: in the compact form), a shape as `ShapeBodies.messages`.
        func messages(maxBytes: Int, compact: Bool) -> [[UInt8]] {
            switch self {
            case .operation(let operation, _):
                MessagePacking.messages(for: [operation], maxBytes: maxBytes, compact: compact)
            case .shape(let add, let append, _):
                ShapeBodies.messages(add: add, append: append, maxBytes: maxBytes)
            }
        }
    }

    static let maximumWaiting = 256

    private var waiting: [StrokeID: (add: Operation, sendID: SendID?)] = [:]
    /// `waiting`'s strokes, oldest first.
    private var order: [StrokeID] = []

    /// How many shapes' ADDs wait for their first APPEND.
    var waitingCount: Int { waiting.count }

    /// `operations`, in their body form and each with the id of its send when local, as the
    /// parts to send, in order. A shape's ADD not followed by its first APPEND goes out with
    /// `pointsHeld(index)` (the points after its start that the replica holds for the stroke
    /// of the operation at `index`, with no gap) when there are any, and is kept back
    /// otherwise.
    mutating func parts(
        _ operations: [(operation: Operation, sendID: SendID?)], pointsHeld: (_ index: Int) -> [Point] = { _ in [] }
    ) -> [Part] {
        var parts: [Part] = []
        parts.reserveCapacity(operations.count)
        var index = operations.startIndex
        while index < operations.endIndex {
            let (operation, sendID) = operations[index]
            index += 1
            switch operation {
            case .add(let id, let header) where header.isShape:
                if index < operations.endIndex, Self.isFirstAppend(operations[index].operation, of: id) {
                    let append = operations[index]
                    index += 1
                    parts.append(.shape(add: operation, append: append.operation,
                                        sendIDs: [sendID, append.sendID].compactMap { $0 }))
                } else if case let held = pointsHeld(index - 1), !held.isEmpty {
                    let append = Operation.append(id, points: held, offset: 1)
                    parts.append(.shape(add: operation, append: append, sendIDs: [sendID].compactMap { $0 }))
                } else if waiting[id] == nil {
                    waiting[id] = (operation, sendID)
                    order.append(id)
                    if order.count > Self.maximumWaiting {
                        let oldest = order.removeFirst()
                        let released = waiting.removeValue(forKey: oldest)!
                        parts.append(.operation(released.add, released.sendID))
                    }
                } else {
                    parts.append(.operation(operation, sendID))  // the same ADD again: harmless
                }
            case .append(let id, _, _) where Self.isFirstAppend(operation, of: id) && waiting[id] != nil:
                let add = waiting.removeValue(forKey: id)!
                order.removeAll { $0 == id }
                parts.append(.shape(add: add.add, append: operation, sendIDs: [add.sendID, sendID].compactMap { $0 }))
            default:
                parts.append(.operation(operation, sendID))
            }
        }
        return parts
    }

    /// Forgets the ADDs waiting (the transport went down: what is local is sent again with
    /// everything not accepted; what was relayed reaches Canvas members by anti-entropy).
    mutating func reset() {
        waiting = [:]
        order = []
    }

    /// The body messages of a shape's ADD and first APPEND: one MEGA of the stroke, or,
    /// when that would pass `maxBytes`, a MEGA of as many of its first points as fit (two
    /// at least) and APPENDs of the rest.
    static func messages(add: Operation, append: Operation, maxBytes: Int) -> [[UInt8]] {
        guard case .add(let id, _) = add, case .append(_, let points, _) = append else {
            preconditionFailure("a shape is an ADD and an APPEND")
        }
        var count = points.count
        while true {
            var stroke = Document()
            _ = stroke.apply(add)
            _ = stroke.apply(.append(id, points: Array(points.prefix(count)), offset: 1))
            let mega = MessageEncoder.legacyMegaMessages(for: stroke, maxBytes: .max)
            if mega[0].count <= maxBytes || count == 1 {
                guard count < points.count else { return mega }
                let rest = Operation.append(id, points: Array(points[count...]), offset: 1 + count)
                return mega + MessagePacking.messages(for: [rest], maxBytes: maxBytes)
            }
            count = max(1, count / 2)
        }
    }

    private static func isFirstAppend(_ operation: Operation, of id: StrokeID) -> Bool {
        guard case .append(let appended, let points, let offset) = operation else { return false }
        return appended == id && !points.isEmpty && (offset ?? 1) == 1
    }
}
