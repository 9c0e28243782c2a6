import CanvasCore
import CanvasGeometry
import CanvasProtocol
import CanvasSVG
import FuzzDriver

/// Any bytes as a wire message a peer sends (an operation or a MEGA of them), applied to a
/// replica: the CRDT's laws hold whatever the values (the operations applied in order, in
/// reverse and each twice make one document, with one digest, unless an APPEND has no
/// offset), and what a node then does with the document never crashes (indexing its
/// segments, erasing along the first stroke's points, exporting SVG).
func fuzzReplica(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let operations: [CanvasCore.Operation]
    switch try? MessageDecoder.decode(bytes) {
    case .operation(let operation)?: operations = [operation]
    case .mega(let mega)?: operations = mega
    default: return 0
    }
    var inOrder = Document()
    operations.forEach { inOrder.apply($0) }
    // An APPEND without an offset (from peers that predate it) goes at the stroke's current
    // end: correct only over an in-order channel (DESIGN.md), so the laws are not its.
    let isPlaced = operations.allSatisfy { operation in
        if case .append(_, _, nil) = operation { false } else { true }
    }
    var reversed = Document()
    var twice = Document()
    if isPlaced {
        operations.reversed().forEach { reversed.apply($0) }
        (operations + operations).forEach { twice.apply($0) }
    } else {
        (reversed, twice) = (inOrder, inOrder)
    }
    guard inOrder == reversed, inOrder == twice, inOrder.digest == reversed.digest, inOrder.digest == twice.digest
    else {
        fatalError(
            "\(operations.count) operations make different documents: reversed \(inOrder == reversed), "
                + "twice \(inOrder == twice), digests \(inOrder.digest == reversed.digest) "
                + "\(inOrder.digest == twice.digest): \(operations.prefix(4))")
    }
    let index = SpatialIndex(document: inOrder)
    if let path = inOrder.strokes.first?.points.prefix(64), !path.isEmpty {
        var erased = inOrder
        Eraser.deletions(along: Array(path), radius: 12, in: inOrder, index: index).forEach { erased.apply($0) }
    }
    _ = SVGExporter.export(inOrder)
    return 0
}

runFuzzer { data, size in fuzzReplica(data, size) }
