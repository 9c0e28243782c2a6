import FuzzDriver
import CanvasProtocol
import CanvasWeb

/// Any bytes as a page's request: decoding never crashes; a page's session refuses what
/// does not decode with an error message and performs nothing, and turns what decodes into
/// at most two actions; a whole action decodes as the same local action.
func fuzzPageRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var session = PageSession()
    let steps = session.received(bytes)
    guard let request = try? PageRequest.decode(bytes) else {
        guard steps.count == 1, case .send(let reply) = steps[0], reply.starts(with: Array(#"{"type":"error""#.utf8)) else {
            fatalError("a request that does not decode was not refused: \(steps)")
        }
        return 0
    }
    if case .action(let action) = request, (try? LocalAction.decode(bytes)) != action {
        fatalError("a page's action decodes otherwise as a local action")
    }
    guard steps.count <= 2 else { fatalError("one request made \(steps.count) steps") }
    return 0
}

runFuzzer { data, size in fuzzPageRequest(data, size) }
