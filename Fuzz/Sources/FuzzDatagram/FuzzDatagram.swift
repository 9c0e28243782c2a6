import CFuzzer
import LANCluster
import Foundation

/// The room key the target authenticates with (any 32 bytes).
private let key = try! RoomKey(Array(0..<32))

/// Any bytes as a LAN datagram, with and without a room key: decoding and authenticating
/// never crash, and a decoded datagram re-encodes (with the key or without) to bytes that
/// authenticate and decode to the same datagram.
func fuzzDatagram(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let datagram = try? Datagram(decoding: bytes) else { return 0 }
    _ = try? Datagram.authenticate(bytes, key: nil)
    _ = try? Datagram.authenticate(bytes, key: key)
    for roomKey in [nil, key] {
        guard let encoded = try? datagram.encoded(key: roomKey) else { continue }
        do {
            try Datagram.authenticate(encoded, key: roomKey)
        } catch {
            fatalError("a datagram this node encoded does not authenticate: \(error)")
        }
        guard (try? Datagram(decoding: encoded)) == datagram else {
            fatalError("\(datagram) does not survive re-encoding (key: \(roomKey != nil))")
        }
    }
    return 0
}

/// libFuzzer runs `fuzzDatagram` on each input (scripts/fuzz).
@main
enum FuzzDatagramMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzDatagram(data, size) })
    }
}
