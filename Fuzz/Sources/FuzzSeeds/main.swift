import CanvasCore
import CanvasProtocol
import CanvasStore
import Foundation
import LANCluster

// `FuzzSeeds OUT REPO`: writes the seed corpus of each fuzz target into OUT/TARGET/, from
// the repository's vectors (REPO/protocol/vectors) and from Canvas's own encoders, so that
// every run starts from inputs that reach deep into each parser.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: FuzzSeeds OUT REPO\n".utf8))
    exit(2)
}
let out = URL(fileURLWithPath: arguments[1])
let repository = URL(fileURLWithPath: arguments[2])

func write(_ target: String, _ seeds: [[UInt8]]) throws {
    let folder = out.appendingPathComponent(target)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (index, seed) in seeds.enumerated() {
        try Data(seed).write(to: folder.appendingPathComponent("seed-\(index)"))
    }
}

// Wire messages: every line of the vectors, and each valid operation's compact form.
var messages: [[UInt8]] = []
var operations: [CanvasCore.Operation] = []
let vectors = repository.appendingPathComponent("protocol/vectors/messages")
for file in try FileManager.default.contentsOfDirectory(atPath: vectors.path).sorted() where file.hasSuffix(".jsonl") {
    let text = try String(contentsOf: vectors.appendingPathComponent(file), encoding: .utf8)
    for line in text.split(separator: "\n") {
        // A vector line is the message itself, or an object holding it under "message".
        var bytes = Array(line.utf8)
        if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], let message = object["message"] {
            if let text = message as? String {
                bytes = Array(text.utf8)
            } else if let data = try? JSONSerialization.data(withJSONObject: message) {
                bytes = Array(data)
            }
        }
        messages.append(bytes)
        if let decoded = try? MessageDecoder.decode(bytes) { operations += decoded.operations }
    }
}
let header = StrokeHeader(weight: 2.5, colour: Colour(red: 10, green: 20, blue: 30), start: Point(x: 1, y: 2))
operations += [
    .add(StrokeID("node_1"), header),
    .append(StrokeID("node_1"), points: (1...40).map { Point(x: Double($0) * 1.25, y: Double($0 % 7) - 3.5) }, offset: 1),
    .delete(StrokeID("node_1"), start: 0.5, end: 12.75),
    .removeStroke(StrokeID("node_1")),
]
messages += operations.map(CompactOperationCoding.encode)
try write("FuzzMessageDecoder", messages)
// The same messages for the replica (FuzzReplica), and the document their operations make
// as MEGA messages (several operations in one input, so that the laws have work to do).
var seedDocument = Document()
operations.forEach { seedDocument.apply($0) }
try write("FuzzReplica", messages + MessageEncoder.legacyMegaMessages(for: seedDocument, maxBytes: 1 << 16))

// A page's requests.
try write("FuzzPageRequest", [
    #"{"action":"pen-down","pen":1,"points":[[10,10]],"weight":3,"colour":[20,40,220]}"#,
    #"{"action":"pen-move","pen":1,"points":[[12,11],[15,13.5]]}"#,
    #"{"action":"pen-up","pen":1,"recognize":true}"#,
    #"{"action":"draw","points":[[0,0],[9,9]],"weight":2,"colour":[0,0,0],"recognize":false}"#,
    #"{"action":"erase","points":[[5,5],[6,6]],"radius":4}"#,
    #"{"action":"undo"}"#, #"{"action":"redo"}"#,
].map { Array($0.utf8) })

// LAN datagrams of every kind, both formats, with and without a key.
let key = try RoomKey(Array(0..<32))
let bodies: [Datagram.Body] = [
    .beacon(Beacon(capabilities: [.compactPayloads, .compactHeaders], intervalMilliseconds: 500, highestDataSequence: 7, summary: [1, 2, 3])),
    .data(DataFragment(dataSequence: 3, index: 0, count: 2, chunk: messages.prefix(3).flatMap { $0 })),
    .nack(Nack(target: "peer-b", targetIncarnation: 99, missing: [2...4, 9...9])),
    .leave,
]
var datagrams: [[UInt8]] = []
for body in bodies {
    for format in [Datagram.Format.standard, .compact] {
        let datagram = Datagram(room: "board", sender: "peer-a", incarnation: 42, sequence: 5, body: body, format: format)
        for roomKey in [nil, key] { datagrams.append(try datagram.encoded(key: roomKey)) }
    }
}
let sealer = DatagramSealer(key: key, room: "board")
for body in bodies {
    let datagram = Datagram(room: "board", sender: "peer-a", incarnation: 42, sequence: 6, body: body, format: .compact)
    if let sealed = sealer.seal(try datagram.encoded(key: nil), sender: "peer-a", incarnation: 42, sequence: 6) {
        datagrams.append(sealed)
    }
}
try write("FuzzDatagram", datagrams)

// An XMPP stream: its header, features, a MUC message, presence, an IQ, its end.
try write("FuzzXMLStream", [
    """
    <?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' \
    from='example.org' id='s1' version='1.0'><stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\
    <mechanism>SCRAM-SHA-256</mechanism></mechanisms></stream:features>
    """,
    """
    <stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>\
    <message from='board@rooms.example.org/ada' type='groupchat' id='m1'><body>{"type":"ADD","identifier":"a_1",\
    "weight":2,"colour":[0,0,0],"start":[1,2]}</body><stanza-id xmlns='urn:xmpp:sid:0' id='x' by='board@rooms.example.org'/>\
    </message><presence from='board@rooms.example.org/ben'><x xmlns='http://jabber.org/protocol/muc#user'>\
    <item affiliation='none' role='participant'/><status code='110'/></x></presence>\
    <iq type='result' id='i1'><query xmlns='http://jabber.org/protocol/disco#info'><feature var='urn:xmpp:mam:2'/></query></iq>\
    <r xmlns='urn:xmpp:sm:3'/></stream:stream>
    """,
].map { Array($0.utf8) })

// A server's side of a login with STARTTLS and PLAIN, binding, stream management, then a
// MUC room's presence, history and a message (a stream restarts after TLS and after SASL).
let streamHeader = """
    <?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' \
    from='example.org' id='s1' version='1.0'>
    """
let login: [String] = [
    streamHeader,
    "<stream:features><starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'><required/></starttls></stream:features>",
    "<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>",
    streamHeader,
    "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>",
    "<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>",
    streamHeader,
    "<stream:features><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/><sm xmlns='urn:xmpp:sm:3'/></stream:features>",
    "<iq type='result' id='bind_1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>user@example.org/r1</jid></bind></iq>",
    "<enabled xmlns='urn:xmpp:sm:3' id='sm-1' resume='true'/>",
    "<presence from='board@rooms.example.org/ada'><x xmlns='http://jabber.org/protocol/muc#user'>",
    "<item affiliation='none' role='participant'/><status code='110'/></x></presence>",
    "<message from='board@rooms.example.org/ben' type='groupchat' id='m1'><body>hello</body></message>",
]
try write("FuzzXMPPMachines", [Array(login.joined().utf8)])

// SCRAM-SHA-256 as RFC 7677 gives it: server-first, a zero byte, server-final.
try write("FuzzSCRAM", [
    Array("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".utf8) + [0]
        + Array("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8)
])

// A room's log and snapshot.
var log: [UInt8] = []
for operation in operations { LogFormat.appendRecord(operation, to: &log) }
try write("FuzzStoreReaders", [log, SnapshotFormat.encode(operations), Array(log.prefix(log.count / 2))])

// Strokes for the recogniser, in FuzzRecognizer's format: a scale byte (0: whole units,
// 1: sixty-fourths), then each point as two little-endian 16-bit coordinates. A circle, a
// rectangle, a triangle, a line, an arrow and a zigzag, as people draw them.
func stroke(scale: UInt8, _ points: [(Double, Double)]) -> [UInt8] {
    [scale] + points.flatMap { point in
        [point.0, point.1].flatMap { withUnsafeBytes(of: Int16($0.rounded()).littleEndian, Array.init) }
    }
}
func polyline(_ corners: [(Double, Double)], steps: Int) -> [(Double, Double)] {
    zip(corners, corners.dropFirst()).flatMap { a, b in
        (0..<steps).map { k in
            let t = Double(k) / Double(steps)
            return (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
        }
    } + [corners[corners.count - 1]]
}
let circle = (0...48).map { k -> (Double, Double) in
    let angle = Double(k) * Double.pi / 24
    return (300 + 150 * cos(angle), 300 + 100 * sin(angle))
}
try write("FuzzRecognizer", [
    stroke(scale: 0, circle),
    stroke(scale: 1, circle.map { ($0.0 * 64, $0.1 * 64) }),
    stroke(scale: 0, polyline([(100, 100), (400, 100), (400, 300), (100, 300), (100, 104)], steps: 12)),
    stroke(scale: 0, polyline([(100, 300), (250, 60), (400, 300), (104, 298)], steps: 12)),
    stroke(scale: 0, polyline([(50, 50), (450, 80)], steps: 20)),
    stroke(scale: 0, polyline([(50, 300), (400, 100), (330, 105), (400, 100), (390, 170)], steps: 10)),
    stroke(scale: 0, polyline([(0, 0), (40, 90), (80, 0), (120, 90), (160, 0)], steps: 6)),
])

// A user's session for FuzzLocalActions: drawing with and without recognition, a stroke
// drawn as it moves, erasing, undoing and redoing (docs/actions.md). A second draws arrows
// in strokes: a shaft (a line) and a "<" at its end make an arrow, the base across the "<"
// joins it (a closed head), undone and redone; then a shaft, its head, and an elbow's first
// run drawn after them, which joins that arrow.
func drawnWithRecognition(_ points: [(Double, Double)]) -> String {
    let list = points.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
    return #"{"action":"draw","points":["# + list + #"],"weight":2,"colour":[0,0,0],"recognize":true}"#
}
/// `points` moved down by `dy`.
func moved(_ points: [(Double, Double)], down dy: Double) -> [(Double, Double)] { points.map { ($0.0, $0.1 + dy) } }
let wavyShaft = polyline([(0, 0), (195, 0)], steps: 39).enumerated().map { ($1.0, $0 % 2 == 0 ? 0.4 : -0.4) }
let arrowHead = polyline([(160, 30), (203, 0), (160, -30)], steps: 3)
let arrowSession = [
    drawnWithRecognition(wavyShaft), drawnWithRecognition(arrowHead),
    drawnWithRecognition(polyline([(160, -30), (160, 30)], steps: 6)),
    #"{"action":"undo"}"#, #"{"action":"undo"}"#, #"{"action":"undo"}"#,
    #"{"action":"redo"}"#, #"{"action":"redo"}"#, #"{"action":"redo"}"#,
    drawnWithRecognition(moved(wavyShaft, down: 300)), drawnWithRecognition(moved(arrowHead, down: 300)),
    drawnWithRecognition(polyline([(0, 150), (0, 298)], steps: 30)),
].joined(separator: "\n")
// A third draws arrows of four strokes: a shaft and two barbs drawn apart (an arrow of
// three), then the base across the barbs' ends, which joins it, undone and redone; then an
// elbow's first run, its last run and two barbs, the first run joining the arrow the others
// make.
let barbs = [polyline([(203, 0), (160, 30)], steps: 3), polyline([(160, -30), (203, 0)], steps: 3)]
let fourStrokeSession = [
    drawnWithRecognition(moved(wavyShaft, down: 600)), drawnWithRecognition(moved(barbs[0], down: 600)),
    drawnWithRecognition(moved(barbs[1], down: 600)),
    drawnWithRecognition(polyline([(160, 570), (160, 630)], steps: 6)),
    #"{"action":"undo"}"#, #"{"action":"undo"}"#, #"{"action":"undo"}"#,
    #"{"action":"redo"}"#, #"{"action":"redo"}"#, #"{"action":"redo"}"#,
    drawnWithRecognition(polyline([(0, 750), (0, 898)], steps: 30)),
    drawnWithRecognition(moved(wavyShaft, down: 900)), drawnWithRecognition(moved(barbs[0], down: 900)),
    drawnWithRecognition(moved(barbs[1], down: 900)),
].joined(separator: "\n")
try write("FuzzLocalActions", [Array("""
    {"action":"draw","points":[[10,10],[40,10],[40,30],[10,30],[10,11]],"weight":2,"colour":[0,0,0],"recognize":true}
    {"action":"draw","points":[[0,0],[50,80],[100,0],[150,80]],"weight":3,"colour":[200,0,0],"recognize":false}
    {"action":"begin","points":[[10,10],[20,12]],"weight":2,"colour":[0,0,255]}
    {"action":"extend","stroke":"fuzz_3","points":[[30,14],[40,20]]}
    {"action":"end","stroke":"fuzz_3","recognize":true}
    {"action":"erase","points":[[60,40],[250,100]],"radius":12}
    {"action":"undo"}
    {"action":"undo"}
    {"action":"redo"}
    {"action":"draw","points":[[300,300],[350,350]],"weight":1,"colour":[0,128,0],"recognize":true}
    {"action":"redo"}
    """.utf8), Array(arrowSession.utf8), Array(fourStrokeSession.utf8)])
