import FuzzDriver
import CanvasCore
import CanvasProtocol

/// Any bytes as a wire message (JSON of every kind, sync included, or the compact binary
/// form): decoding never crashes, and what decodes re-encodes to bytes that decode to the
/// same message, in JSON and in the compact form.
func fuzzMessageDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let message = try? MessageDecoder.decode(bytes) else { return 0 }
    switch message {
    case .operation(let operation):
        roundTrip(operation)
    case .mega(let operations):
        for operation in operations { roundTrip(operation) }
    case .sync(let sync):
        let encoded = sync.encoded()
        guard (try? MessageDecoder.decode(encoded)) == .sync(sync) else {
            fatalError("a sync message does not survive re-encoding: \(String(decoding: encoded, as: UTF8.self))")
        }
    case .unsupported:
        break
    }
    return 0
}

private func roundTrip(_ operation: CanvasCore.Operation) {
    let json = MessageEncoder.encode(operation)
    guard (try? MessageDecoder.decode(json)) == .operation(operation) else {
        fatalError("\(operation) does not survive JSON: \(String(decoding: json, as: UTF8.self))")
    }
    let compact = CompactOperationCoding.encode(operation)
    guard (try? MessageDecoder.decode(compact)) == .operation(operation) else {
        fatalError("\(operation) does not survive the compact form: \(compact)")
    }
}

runFuzzer { data, size in fuzzMessageDecoder(data, size) }
