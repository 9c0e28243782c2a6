import CanvasCore
import CanvasNode
import CanvasProtocol
import FuzzDriver

/// Any bytes as a user's session: lines of local actions (draw, erase, begin, extend, end,
/// undo, redo; docs/actions.md), each performed in a replica as a node performs what its
/// page or standard input asks, the operations it stands for applied in order. Nothing
/// crashes or hangs whatever the sequence (undoing a recognised shape, erasing a stroke
/// still being drawn, redoing after a new drawing); every operation made is one the wire
/// carries (it re-encodes to a message that decodes to itself, or is an APPEND too long
/// for one message, which the node splits); and a second replica that applies everything
/// the first made, in reverse order, holds the same document.
func fuzzLocalActions(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var replica = Replica(author: "fuzz")
    var made: [CanvasCore.Operation] = []
    for line in bytes.split(separator: UInt8(ascii: "\n")).prefix(64) {
        guard let action = try? LocalAction.decode(line) else { continue }
        let edit = replica.edit(for: action)
        for operation in edit.operations {
            let resolved = replica.apply(operation).resolved
            made.append(resolved)
            let encoded = MessageEncoder.encode(resolved)
            let decoded = try? MessageDecoder.decode(encoded)
            if case .append(_, let points, _) = resolved, points.count > ProtocolLimits.maxPointsPerMessage / 2
                || encoded.count > ProtocolLimits.maxMessageBytes
            {
                continue
            }
            guard decoded == .operation(resolved) else {
                let message = String(decoding: encoded.prefix(300), as: UTF8.self)
                fatalError("\(action) made \(resolved), which the wire does not carry: \(message)")
            }
        }
    }
    var peer = Replica(author: "peer")
    for operation in made.reversed() { _ = peer.apply(operation) }
    guard peer.document == replica.document else {
        fatalError("a peer applying the \(made.count) operations in reverse holds another document")
    }
    return 0
}

runFuzzer { data, size in fuzzLocalActions(data, size) }
