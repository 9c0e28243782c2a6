import CanvasCore
import CanvasGeometry
import CanvasNode
import CanvasProtocol
import Foundation

/// Applies NDJSON lines — wire messages and local actions — to a replica, in order, and
/// keeps count of what it saw. Pure: bytes in, operations and reports out. The replica
/// does the applying and the drawing (`Replica`); this reads lines.
struct Replayer {
    private(set) var replica: Replica
    private(set) var invalidLines = 0
    private(set) var unsupportedMessages = 0
    private(set) var recognisedShapes = 0

    /// A replayer that continues `replica` (a stored room, or an empty one).
    init(replica: Replica) {
        self.replica = replica
    }

    var document: Document { replica.document }

    /// Applies every line of `data`; reports each invalid line through `report` and every
    /// operation applied through `emit`, as it now stands in the document's history (an
    /// APPEND with the offset it got), with whether it changed anything and the document
    /// it made.
    mutating func replay(
        _ data: Data, source: String, report: (String) -> Void,
        emit: (CanvasCore.Operation, _ isNovel: Bool, _ document: Document) -> Void
    ) {
        NDJSONLines.forEach(in: data) { lineNumber, line in
            do {
                for operation in try operations(for: line) {
                    let (effect, resolved) = replica.apply(operation)
                    emit(resolved, effect.isNovel, replica.document)
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
        switch try LocalInput.decode(line) {
        case .message(let message):
            if case .unsupported = message { unsupportedMessages += 1 }
            return message.operations
        case .action(let local):
            action = local
        }
        let edit = replica.edit(for: action)
        recognisedShapes += edit.shape == .none ? 0 : 1
        return edit.operations
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
