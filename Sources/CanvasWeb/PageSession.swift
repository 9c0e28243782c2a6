public import CanvasCore
public import CanvasProtocol

/// One page's socket as decisions, apart from its I/O (`PageSocket` carries them out):
/// which requests become which local actions, which stroke each of the page's pens draws,
/// and what the page is told back. Requests are handled one at a time, in order: the
/// stroke of a pen is known before the pen's next request is read.
public struct PageSession: Sendable {
    /// What the I/O does for the session, in order.
    public enum Step: Equatable, Sendable {
        /// Perform the action in the page's room, then report the operations it made to
        /// `performed(_:for:)` (or its error to `failed(_:)`).
        case perform(LocalAction, Purpose)
        /// Send this text message to the page.
        case send([UInt8])
    }

    /// Why an action is performed: what `performed(_:for:)` then does with its result.
    public enum Purpose: Equatable, Sendable {
        /// A pen went down: the ADD names its stroke.
        case penDown(Int)
        /// Anything else.
        case other
    }

    /// How many of a page's pointers may draw at once (fingers of two hands).
    public static let maxPens = 10

    /// The stroke each pen that is down draws.
    public private(set) var pens: [Int: StrokeID] = [:]
    /// Requests refused so far (malformed or out of place).
    public private(set) var refused = 0

    public init() {}

    /// A text message from the page.
    public mutating func received(_ bytes: some Collection<UInt8>) -> [Step] {
        let request: PageRequest
        do {
            request = try PageRequest.decode(bytes)
        } catch {
            return refuse("\(error)")
        }
        switch request {
        case .penDown(let pen, let points, let weight, let colour):
            var steps: [Step] = []
            if let previous = pens.removeValue(forKey: pen) {
                // A pen down twice without an up (a lost pointerup): the first stroke ends as drawn.
                steps.append(.perform(.end(stroke: previous, recognize: false), .other))
            }
            guard pens.count < Self.maxPens else {
                return steps + refuse("pen-down.pen: at most \(Self.maxPens) pens may draw at once")
            }
            return steps + [.perform(.begin(points: points, weight: weight, colour: colour), .penDown(pen))]
        case .penMove(let pen, let points):
            guard let stroke = pens[pen] else { return refuse("pen-move.pen: pen \(pen) is not down") }
            return [.perform(.extend(stroke: stroke, points: points), .other)]
        case .penUp(let pen, let recognize):
            guard let stroke = pens.removeValue(forKey: pen) else { return refuse("pen-up.pen: pen \(pen) is not down") }
            return [.perform(.end(stroke: stroke, recognize: recognize), .other)]
        case .action(let action):
            return [.perform(action, .other)]
        }
    }

    /// What a performed action made.
    public mutating func performed(_ operations: [CanvasCore.Operation], for purpose: Purpose) -> [Step] {
        guard case .penDown(let pen) = purpose, let stroke = operations.first?.strokeID else { return [] }
        pens[pen] = stroke
        return [.send(PageMessages.pen(pen, stroke: stroke))]
    }

    /// An action the node could not perform (its store refused the write, it stopped).
    public mutating func failed(_ error: any Error) -> [Step] {
        refuse("the node could not do it: \(error)")
    }

    /// The page went away: the strokes its pens were drawing end as they are.
    public mutating func closed() -> [Step] {
        defer { pens = [:] }
        return pens.sorted { $0.key < $1.key }.map { .perform(.end(stroke: $0.value, recognize: false), .other) }
    }

    private mutating func refuse(_ message: String) -> [Step] {
        refused += 1
        return [.send(PageMessages.error(message))]
    }
}
