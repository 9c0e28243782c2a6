import FuzzDriver
import XMPP

/// Any bytes as a SCRAM server's two messages (server-first, then server-final, split at
/// the first zero byte): the client answers or refuses with an error, never crashes, and
/// never counts itself authenticated unless the server's signature verified.
func fuzzSCRAM(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let cut = bytes.firstIndex(of: 0) ?? bytes.count
    let challenge = Array(bytes[..<cut])
    let final = cut < bytes.count ? Array(bytes[(cut + 1)...]) : []
    for hash in [CryptoHash.sha256, CryptoHash.sha1] {
        guard var client = try? SCRAMClient(hash: hash, username: "user", password: "pencil", clientNonce: "rOprNGfwEbeRWgbNEkqO") else {
            fatalError("the client cannot start")
        }
        _ = client.initialMessage()
        guard (try? client.respond(toChallenge: challenge)) != nil else {
            if client.isAuthenticated { fatalError("authenticated after a refused challenge") }
            continue
        }
        let verified = (try? client.verify(success: final)) != nil
        if client.isAuthenticated != verified { fatalError("authenticated: \(client.isAuthenticated), verified: \(verified)") }
    }
    return 0
}

runFuzzer { data, size in fuzzSCRAM(data, size) }
