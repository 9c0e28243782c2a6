/// One change to a document, as the wire protocol carries it (DESIGN.md §3).
public enum Operation: Hashable, Sendable {
    /// ADD: creates the stroke with its header (weight, colour, start, shape flag).
    case add(StrokeID, StrokeHeader)
    /// APPEND: points after the start. `offset` is the index of the first point of the
    /// batch (≥ 1); without it (peers that predate the extension) the batch goes at the
    /// stroke's current end, which is correct only over an in-order channel.
    case append(StrokeID, points: [Point], offset: Int?)
    /// DELETE: erases the parameter interval [start, end]; `start >= end` erases nothing.
    case delete(StrokeID, start: Double, end: Double)
    /// Legacy REMOVE_STROKE: erases the whole stroke, present and future points.
    case removeStroke(StrokeID)

    /// The stroke the operation is about.
    public var strokeID: StrokeID {
        switch self {
        case .add(let id, _), .append(let id, _, _), .delete(let id, _, _), .removeStroke(let id):
            id
        }
    }
}
