import CanvasCore
import CanvasGeometry
import CanvasProtocol
import Foundation

/// Applies NDJSON lines — wire messages and local actions — to a document, in order, and
/// keeps count of what it saw. Pure: bytes in, operations and reports out.
struct Replayer {
    private(set) var document = Document()
    private(set) var invalidLines = 0
    private(set) var unsupportedMessages = 0
    private(set) var recognisedShapes = 0
    /// The segments of the document's strokes, for the eraser: built at the first erase
    /// action (a replay without one never pays for it), then kept current.
    private var index: SpatialIndex?
    /// The prefix of the identifiers of strokes that draw actions create.
    let author: String
    private var nextStroke = 1

    /// A replayer that continues `document` (a stored room, or an empty one).
    init(author: String, document: Document = Document()) {
        self.author = author
        self.document = document
    }

    /// Applies every line of `data`; reports each invalid line through `report` and every
    /// operation applied through `emit`.
    mutating func replay(_ data: Data, source: String, report: (String) -> Void, emit: (CanvasCore.Operation) -> Void) {
        NDJSONLines.forEach(in: data) { lineNumber, line in
            do {
                for operation in try operations(for: line) {
                    emit(apply(operation))
                }
            } catch {
                invalidLines += 1
                report("\(source):\(lineNumber): error: \(error)")
            }
        }
    }

    /// The operations one line stands for: a message's, or those an action produces
    /// against the document as it is now.
    private mutating func operations(for line: [UInt8]) throws(ProtocolError) -> [CanvasCore.Operation] {
        let action: LocalAction
        do {
            let message = try MessageDecoder.decode(line)
            if case .unsupported = message { unsupportedMessages += 1 }
            return message.operations
        } catch {
            // Messages are the common case; only a line that is not one may be an action.
            guard LocalAction.isAction(line) else { throw error }
            action = try LocalAction.decode(line)
        }
        switch action {
        case .draw(let points, let weight, let colour, let recognize):
            let id = newStrokeID()
            let drawn = Drawing.draw(
                points, weight: weight, colour: colour, recognize: recognize, id: id, shapeID: StrokeID(id.rawValue + "/shape"))
            recognisedShapes += drawn.shape == .none ? 0 : 1
            return drawn.operations
        case .erase(let points, let radius):
            let index = self.index ?? SpatialIndex(document: document)
            self.index = index
            return Eraser.deletions(along: points, radius: radius, in: document, index: index)
        }
    }

    /// Applies one operation, keeps the eraser's index current, and returns the operation
    /// as it now stands in the document's history (an APPEND with the offset it got).
    private mutating func apply(_ operation: CanvasCore.Operation) -> CanvasCore.Operation {
        let effect = document.apply(operation)
        switch operation {
        case .add, .append:
            // Geometry changed: new points, or a header (start point, shape flag).
            if effect.isNovel, index != nil, let stroke = document[operation.strokeID] {
                index?.update(stroke)
            }
        case .delete, .removeStroke:
            break
        }
        if case .append(let id, let points, nil) = operation, let offset = effect.appendOffset {
            return .append(id, points: points, offset: offset)
        }
        return operation
    }

    /// `AUTHOR-N`, N the first number whose stroke (or shape) does not exist yet.
    private mutating func newStrokeID() -> StrokeID {
        while true {
            let id = StrokeID("\(author)-\(nextStroke)")
            nextStroke += 1
            if document[id] == nil && document[StrokeID(id.rawValue + "/shape")] == nil {
                return id
            }
        }
    }

    /// One line describing the document and the replay.
    var summary: String {
        let statistics = document.statistics
        var parts = ["strokes \(statistics.strokes)"]
        if statistics.placeholders > 0 { parts.append("placeholders \(statistics.placeholders)") }
        parts.append("points \(statistics.points)")
        if statistics.pendingPoints > 0 { parts.append("pending points \(statistics.pendingPoints)") }
        parts += [
            "erased intervals \(statistics.erasedIntervals)", "anomalies \(document.anomalies)",
            "invalid lines \(invalidLines)",
        ]
        if unsupportedMessages > 0 { parts.append("unsupported messages \(unsupportedMessages)") }
        if recognisedShapes > 0 { parts.append("recognised shapes \(recognisedShapes)") }
        return parts.joined(separator: ", ")
    }
}
