import FuzzDriver
import LANCluster

/// The room key the target authenticates with (any 32 bytes), and the sealer of room
/// "board" with it.
private let key = try! RoomKey(Array(0..<32))
private let sealer = DatagramSealer(key: key, room: "board")

/// Any bytes as a LAN datagram, with and without a room key, and as a sealed one: decoding,
/// authenticating and opening never crash; a decoded datagram re-encodes (with the key or
/// without) to bytes that authenticate and decode to the same datagram; an opened one seals
/// again to bytes that open to the same datagram.
func fuzzDatagram(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // The decryption path: what opens was sealed with the key (a forgery that opens would be
    // a broken AEAD), and seals again to bytes that open to the same datagram.
    if let opened = try? sealer.open(bytes) {
        guard let inner = try? opened.encoded(key: nil),
            let resealed = sealer.seal(inner, sender: opened.sender, incarnation: opened.incarnation, sequence: opened.sequence),
            (try? sealer.open(resealed)) == opened
        else { fatalError("a sealed datagram does not survive sealing again: \(opened)") }
    }
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

runFuzzer { data, size in fuzzDatagram(data, size) }
