public import CanvasCore

/// A finished pen stroke as operations: what a node sends when its user lifts the pen.
public enum Drawing {
    /// The operations of one drawn stroke, and the shape recognised in it (`.none` when
    /// recognition is off or found nothing).
    public struct Result: Sendable {
        public var operations: [Operation]
        public var shape: ShapeKind
    }

    /// ADD and APPEND (offset 1) of the hand-drawn stroke `id`. With `recognize`, a
    /// recognised shape then replaces it, as on a live board where everyone saw the stroke
    /// being drawn: the hand-drawn stroke is erased entirely and the perfect shape is added
    /// as the new stroke `shapeID`, a polyline (`is_shape`) with the same pen.
    public static func draw(
        _ points: [Point], weight: Double, colour: Colour, recognize: Bool, id: StrokeID, shapeID: StrokeID
    ) -> Result {
        guard let start = points.first else { return Result(operations: [], shape: .none) }
        var operations: [Operation] = [.add(id, StrokeHeader(weight: weight, colour: colour, start: start))]
        if points.count > 1 {
            operations.append(.append(id, points: Array(points.dropFirst()), offset: 1))
        }
        guard recognize else { return Result(operations: operations, shape: .none) }
        let replacement = shapeReplacing(points, weight: weight, colour: colour, id: id, shapeID: shapeID)
        return Result(operations: operations + replacement.operations, shape: replacement.shape)
    }

    /// The shape recognised in the stroke `id` of `points` as it replaces the stroke: the
    /// stroke erased entirely, then the perfect shape added as `shapeID`, a polyline
    /// (`is_shape`) with the same pen. No operations when no shape is recognised.
    public static func shapeReplacing(
        _ points: [Point], weight: Double, colour: Colour, id: StrokeID, shapeID: StrokeID
    ) -> Result {
        replacing(
            points, joining: [], by: ShapeRecognizer.recognize(points), weight: weight, colour: colour, id: id,
            shapeID: shapeID)
    }

    /// A stroke drawn just before, as `replacing` takes it: its points as drawn, and the
    /// stroke the room shows for it (the line recognised in it, the stroke itself, or the
    /// arrow it made with the stroke before it) with that stroke's number of points.
    public struct PreviousStroke: Sendable {
        /// The stroke's points as drawn.
        public var drawnPoints: [Point]
        /// The stroke the room shows for it: the line recognised in it, or itself.
        public var shown: StrokeID
        /// How many points `shown` has (what erasing it whole covers).
        public var shownPointCount: Int

        /// A stroke drawn just before, as `replacing` takes it.
        public init(drawnPoints: [Point], shown: StrokeID, shownPointCount: Int) {
            self.drawnPoints = drawnPoints
            self.shown = shown
            self.shownPointCount = shownPointCount
        }
    }

    /// `shape` replacing the stroke `id` of `points` and the strokes drawn just before it that
    /// it takes with it, `joining` (none, or the last of those
    /// `ShapeRecognizer.recognize(_:after:madeAnArrow:)` read: `ShapeInARow.joins` of them, the
    /// earliest first): the strokes the room shows erased entirely, each once (two strokes
    /// that made an arrow show as one), then the shape added as `shapeID`, a polyline
    /// (`is_shape`) with the same pen. No operations for `.none`.
    public static func replacing(
        _ points: [Point], joining previous: [PreviousStroke], by shape: RecognizedShape, weight: Double,
        colour: Colour, id: StrokeID, shapeID: StrokeID
    ) -> Result {
        guard shape.kind != .none, !shape.points.isEmpty else { return Result(operations: [], shape: .none) }
        let erased: [Operation] =
            shownOnce(previous).map { .delete($0.shown, start: 0, end: Double(max($0.shownPointCount - 1, 1))) }
            + [.delete(id, start: 0, end: Double(max(points.count - 1, 1)))]
        let added = adding(shape, weight: weight, colour: colour, as: shapeID)
        return Result(operations: erased + added, shape: shape.kind)
    }

    /// `previous` with each stroke the room shows for them once, in their order: two strokes
    /// that made an arrow both show as it.
    public static func shownOnce(_ previous: [PreviousStroke]) -> [PreviousStroke] {
        var seen: Set<StrokeID> = []
        return previous.filter { seen.insert($0.shown).inserted }
    }

    /// ADD and APPEND of `shape` as the stroke `id`, a polyline (`is_shape`).
    private static func adding(
        _ shape: RecognizedShape, weight: Double, colour: Colour, as id: StrokeID
    ) -> [Operation] {
        // The fitted corners need no more precision than 1/100 px: fewer bytes on the wire.
        let corners = shape.points.map { Point(x: ($0.x * 100).rounded() / 100, y: ($0.y * 100).rounded() / 100) }
        let header = StrokeHeader(weight: weight, colour: colour, start: corners[0], isShape: true)
        var operations: [Operation] = [.add(id, header)]
        if corners.count > 1 {
            operations.append(.append(id, points: Array(corners.dropFirst()), offset: 1))
        }
        return operations
    }
}
