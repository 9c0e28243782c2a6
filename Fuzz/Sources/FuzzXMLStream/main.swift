import FuzzDriver
import XMPP

/// Any bytes as an XMPP stream, fed whole and fed in pieces cut where a generator seeded by
/// the bytes says: the same events either way. A malformed stream may be found out at a
/// different byte (expat holds back a token it cannot finish yet: " \0" whole waits for
/// more, " " then "\0" fails at once), so when either fails, the events each gave before
/// it stopped must agree as far as both went.
func fuzzXMLStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let whole = run(of: [bytes[...]])
    var seed = UInt64(truncatingIfNeeded: size) &* 0x9E37_79B9_7F4A_7C15
    for byte in bytes.prefix(64) { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01B3 }
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0
    while start < bytes.count {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let length = 1 + Int((seed >> 33) % 17)
        pieces.append(bytes[start..<min(start + length, bytes.count)])
        start += length
    }
    let split = run(of: pieces)
    let (a, b) = (whole.events, split.events)
    let agree = whole.error == nil && split.error == nil ? a == b : a.starts(with: b) || b.starts(with: a)
    if !agree { fatalError("the stream parses differently in pieces: whole \(whole), in \(pieces.count) pieces \(split)") }
    return 0
}

/// What a run of the parser gave before it stopped.
private struct Run: CustomStringConvertible {
    var events: [XMLStreamEvent]
    var error: XMLStreamError?
    var description: String { "\(events.count) events" + (error.map { ", then \($0)" } ?? "") }
}

private func run(of pieces: [ArraySlice<UInt8>]) -> Run {
    let parser = XMLStreamParser(maximumStanzaSize: 64 * 1024)
    var run = Run(events: [])
    do {
        for piece in pieces { run.events += try parser.feed(piece) }
    } catch {
        run.error = error
    }
    return run
}

runFuzzer { data, size in fuzzXMLStream(data, size) }
