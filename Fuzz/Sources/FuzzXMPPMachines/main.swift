import FuzzDriver
import XMPP

/// The account the client logs in with: its password must never be sent before TLS.
private let password = "pencil-7f3a"

/// Any bytes as what an XMPP server sends, parsed as a stream and handed to the client's
/// connection machine (TLS said established whenever the machine starts it, the parser
/// reset whenever it asks), and every stanza it delivers to a MUC room that has joined:
/// neither machine crashes, and the client never sends its credentials (a SASL `<auth>` or
/// a response) before TLS is up, as its configuration requires.
func fuzzXMPPMachines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let configuration = try? XMPPConnectionConfiguration(jid: "user@example.org", password: password),
        let roomConfiguration = try? MUCRoomConfiguration(roomJID: "board@rooms.example.org", nickname: "ada")
    else { fatalError("the fuzz target's configurations are invalid") }
    var machine = XMPPConnectionStateMachine(configuration: configuration)
    var room = MUCRoom(configuration: roomConfiguration)
    _ = room.join(archivePosition: nil)
    let parser = XMLStreamParser(maximumStanzaSize: 64 * 1024)
    var tls = false
    var pending = machine.start()
    // The input arrives in pieces of up to 64 bytes, as from a socket.
    var start = 0
    repeat {
        let piece = bytes[min(start, bytes.count)..<min(start + 64, bytes.count)]
        start += 64
        while !pending.isEmpty {
            let actions = pending
            pending = []
            for action in actions {
                switch action {
                case .send(let text):
                    let credentials = text.contains("<auth") || text.contains("<response")
                    if credentials && !tls { fatalError("credentials sent before TLS: \(text)") }
                case .startTLS:
                    tls = true
                    pending += machine.tlsEstablished()
                case .resetParser:
                    parser.reset()
                case .deliver(let element):
                    _ = room.handle(element)
                case .fail:
                    return 0
                case .ready, .resumed, .resumptionFailed:
                    break
                }
            }
        }
        guard let events = try? parser.feed(piece) else { return 0 }
        for event in events { pending += machine.handle(event) }
    } while start < bytes.count || !pending.isEmpty
    return 0
}

runFuzzer { data, size in fuzzXMPPMachines(data, size) }
