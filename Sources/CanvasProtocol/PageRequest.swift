public import CanvasCore

/// What a page (the browser client a node serves, docs/web.md) asks of its node: one JSON
/// object per WebSocket text message, validated like every other input.
///
/// `{"action":"pen-down","pen":P,"points":[[x,y],…],"weight":w,"colour":[r,g,b]}`,
/// `{"action":"pen-move","pen":P,"points":[[x,y],…]}`, `{"action":"pen-up","pen":P,"recognize":true|false}`,
/// and the local actions a page may take whole: `draw` (a stroke drawn while the page was
/// offline), `erase`, `undo`, `redo` (docs/actions.md).
///
/// A pen is the page's own number for a pointer that is down (`PointerEvent.pointerId`):
/// the page never names strokes; its node does.
public enum PageRequest: Hashable, Sendable {
    /// A pointer went down: a live stroke begins.
    case penDown(pen: Int, points: [Point], weight: Double, colour: Colour)
    /// A pointer that is down moved: its stroke grows.
    case penMove(pen: Int, points: [Point])
    /// A pointer went up: its stroke is finished (and replaced by a shape, if asked and
    /// one is recognised).
    case penUp(pen: Int, recognize: Bool)
    /// A whole action: `draw`, `erase`, `undo` or `redo`.
    case action(LocalAction)

    /// The largest pen number a page may use.
    public static let maxPen = Int(Int32.max)

    /// Decodes and validates one request; errors name the field (`pen-move.points[3][0]: …`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> PageRequest {
        let fields = try ActionFields(bytes, what: "request")
        func pen() throws(ProtocolError) -> Int {
            try Validate.integer(fields.required("pen"), "\(fields.name).pen", in: 0...maxPen)
        }
        switch fields.name {
        case "pen-down":
            let (number, points, style) = (try pen(), try fields.points(), try fields.pen())
            return .penDown(pen: number, points: points, weight: style.weight, colour: style.colour)
        case "pen-move":
            return .penMove(pen: try pen(), points: try fields.points())
        case "pen-up":
            return .penUp(pen: try pen(), recognize: try fields.recognize())
        case "draw", "erase", "undo", "redo":
            return .action(try LocalAction.decode(bytes))
        default:
            throw fields.unknown(expected: ["pen-down", "pen-move", "pen-up", "draw", "erase", "undo", "redo"])
        }
    }
}
