public import CanvasCore

/// What a stroke makes with the strokes drawn just before it: the one decision a node takes
/// for each stroke drawn with recognition on (`Replica`), and the evaluation replays.
extension ShapeRecognizer {
    /// The shape a stroke makes, read with the strokes drawn just before it.
    public struct ShapeInARow: Sendable, Equatable {
        /// The shape that replaces the stroke (and the strokes it joins), or `.none`.
        public var shape: RecognizedShape
        /// How many of the strokes before it the shape takes with it, the last ones (0: the
        /// stroke alone).
        public var joins: Int

        /// A shape taking the last `joins` strokes before with it.
        public init(shape: RecognizedShape, joins: Int) {
            self.shape = shape
            self.joins = joins
        }
    }

    /// The most strokes before a stroke that it may join: a box's other three sides.
    public static var mostStrokesBefore: Int { mostStrokesJoined - 1 }

    /// What `points`, drawn with recognition on, makes with `previous`, the strokes drawn just
    /// before it (the earliest first; only the last `mostStrokesBefore` are read), each left
    /// as drawn or recognised as a line, with nothing else done between:
    /// 1. an arrow with the last two (`recognizeArrow(drawnFirst:then:then:)`: a shaft and a
    ///    head drawn in two strokes, or a shaft drawn in two pieces and its head, whose last
    ///    piece and head alone would make an arrow and leave the first piece as drawn), and
    ///    with the one before those too when it joins that arrow's head or shaft as a fourth
    ///    stroke would (`recognizeArrow(madeOf:_:_:joining:)`: an elbow connector's first run
    ///    drawn before its last run and a head drawn in two strokes), or else with the last
    ///    (a shaft and a head, `recognizeArrow(drawnFirst:then:)`);
    /// 2. else the stroke alone (`recognize`), when it is a shape other than a line;
    /// 3. else, the stroke a line or no shape on its own, a closed shape joined with the last
    ///    one, two or three (`recognizeClosedShape(joining:)`), the fewest that make one;
    /// 4. else the stroke alone.
    ///
    /// With `madeAnArrow`, `previous` are instead the two or three strokes of an arrow already
    /// made of them (a shaft and its head, `StrokesBefore.madeAnArrow`; fewer than two, as
    /// when one is no longer there: none): the stroke makes an arrow with them all
    /// (`recognizeArrow(madeOf:_:joining:)`: a closed head's base drawn after its two sides,
    /// an elbow's first run drawn after the rest; after three,
    /// `recognizeArrow(madeOf:_:_:joining:)`), taking the arrow's place, or else is read alone
    /// (it takes no stroke of the arrow from it).
    public static func recognize(_ points: [Point], after previous: [[Point]], madeAnArrow: Bool) -> ShapeInARow {
        if madeAnArrow {
            let arrow =
                switch previous.count {
                case 2: recognizeArrow(madeOf: previous[0], previous[1], joining: points)
                case 3: recognizeArrow(madeOf: previous[0], previous[1], previous[2], joining: points)
                default: RecognizedShape.none
                }
            if arrow.kind != .none { return ShapeInARow(shape: arrow, joins: previous.count) }
            return ShapeInARow(shape: recognize(points), joins: 0)
        }
        let previous = previous.suffix(mostStrokesBefore)
        if previous.count >= 2 {
            let (first, second) = (previous[previous.endIndex - 2], previous[previous.endIndex - 1])
            let three = [first, second, points]
            let readings = threeStrokeArrowReadings(three, decidingOnly: true)
            let arrow = readings.chosenShape
            if arrow.kind != .none {
                // The stroke before the three may be a piece of the arrow drawn first: an elbow
                // connector's first run, before its last run and a head drawn in two strokes.
                if previous.count >= 3, let parts = arrowParts(three, read: readings) {
                    let before = previous[previous.endIndex - 3]
                    let four = fourStrokeArrowReadings(joining: before, to: parts, decidingOnly: true).chosenShape
                    if four.kind != .none { return ShapeInARow(shape: four, joins: 3) }
                }
                return ShapeInARow(shape: arrow, joins: 2)
            }
        }
        if let last = previous.last {
            let arrow = recognizeArrow(drawnFirst: last, then: points)
            if arrow.kind != .none { return ShapeInARow(shape: arrow, joins: 1) }
        }
        let alone = recognize(points)
        guard alone.kind.mayBeJoined else { return ShapeInARow(shape: alone, joins: 0) }
        for joins in stride(from: 1, through: previous.count, by: 1) {
            let shape = recognizeClosedShape(joining: previous.suffix(joins) + [points])
            if shape.kind != .none { return ShapeInARow(shape: shape, joins: joins) }
        }
        return ShapeInARow(shape: alone, joins: 0)
    }
}

/// The strokes drawn just before the next, that it may join (`ShapeRecognizer.recognize(_:after:madeAnArrow:)`):
/// each stroke left as drawn or recognised as a line is one, up to the last
/// `ShapeRecognizer.mostStrokesBefore`; after two or three strokes that made an arrow
/// together (a shaft and its head), those, which the next may join (`madeAnArrow`); a
/// stroke that made any other shape (an arrow of four among them: it takes no fifth), alone
/// or with strokes before it, leaves none (nor does any other action: `removeAll`). `Part`
/// is what the holder knows a stroke by: its points, or its identifiers in a room
/// (`Replica`).
public struct StrokesBefore<Part> {
    /// The strokes, the earliest first.
    public private(set) var parts: [Part] = []
    /// Whether `parts` are the two or three strokes of an arrow made of them: the next stroke
    /// may make an arrow with them all, in the arrow's place, and with nothing else.
    public private(set) var madeAnArrow = false

    /// None yet.
    public init() {}

    /// After a stroke, `part`, read as `reading`. When it made an arrow with the one or two
    /// strokes before it, `joined` gives what each of them is known by now (for a holder that
    /// knows a stroke by the stroke the room shows for it: the arrow).
    public mutating func note(
        _ part: Part, readAs reading: ShapeRecognizer.ShapeInARow, joined: (Part) -> Part = { $0 }
    ) {
        let madeArrow =
            (1...2).contains(reading.joins) && [.arrow, .elbowArrow].contains(reading.shape.kind)
        guard madeArrow || (reading.joins == 0 && reading.shape.kind.mayBeJoined) else {
            removeAll()
            return
        }
        if madeArrow {
            parts = (parts.suffix(reading.joins) + [part]).map(joined)
            madeAnArrow = true
            return
        }
        if madeAnArrow { removeAll() }
        parts.append(part)
        if parts.count > ShapeRecognizer.mostStrokesBefore { parts.removeFirst() }
    }

    /// After anything else done: no stroke before the next.
    public mutating func removeAll() {
        parts.removeAll()
        madeAnArrow = false
    }
}

extension ShapeRecognizer {
    /// What each of `strokes`, drawn one after the other with recognition on and one pen,
    /// nothing else done between, makes with those before it (`recognize(_:after:madeAnArrow:)`,
    /// the strokes before kept by `StrokesBefore`): what a node replacing them as they are
    /// drawn shows (`canvas recognize --in-a-row`).
    public static func recognizeInARow(_ strokes: [[Point]]) -> [ShapeInARow] {
        var before = StrokesBefore<[Point]>()
        return strokes.map { stroke in
            let reading = recognize(stroke, after: before.parts, madeAnArrow: before.madeAnArrow)
            before.note(stroke, readAs: reading)
            return reading
        }
    }
}

extension StrokesBefore: Sendable where Part: Sendable {}
