import CanvasCore
import CanvasProtocol
import Testing

/// The sync messages' canonical bytes, round trips, validation and versioning (PROTOCOL.md §13).
@Suite struct SyncMessageTests {
    static let root: UInt64 = 0x0123_4567_89ab_cdef

    static let examples: [SyncMessage] = [
        SyncMessage(node: "alice", root: root, body: .summary),
        SyncMessage(node: "bob", root: 1, to: "alice", body: .buckets(first: 254, hashes: [0, .max])),
        SyncMessage(
            node: "alice", root: root, to: "bob",
            body: .strokes(
                cover: [SyncCover(bucket: 7), SyncCover(bucket: 9, lower: StrokeID("a"), upper: StrokeID("m"))],
                strokes: [
                    SyncStrokeSummary(id: StrokeID("a_1"), contiguousCount: 3, pendingCount: 2, headerHash: 1, pointsHash: 2, erasedHash: 0)
                ])),
        SyncMessage(node: "bob", root: 2, to: "alice", body: .want([.absent(StrokeID("é"))])),
    ]

    @Test func canonicalBytes() {
        let texts = Self.examples.map { String(decoding: $0.encoded(), as: UTF8.self) }
        #expect(texts[0] == #"{"type":"SYNC_SUMMARY","data":{"version":1,"node":"alice","root":"0123456789abcdef"}}"#)
        #expect(
            texts[1]
                == #"{"type":"SYNC_BUCKETS","data":{"version":1,"node":"bob","root":"0000000000000001","to":"alice","first":254,"hashes":"0000000000000000ffffffffffffffff"}}"#
        )
        #expect(
            texts[2]
                == #"{"type":"SYNC_STROKES","data":{"version":1,"node":"alice","root":"0123456789abcdef","to":"bob","cover":[[7,null,null],[9,"a","m"]],"strokes":[["a_1",3,2,"0000000000000001","0000000000000002","0000000000000000"]]}}"#
        )
        #expect(
            texts[3]
                == #"{"type":"SYNC_WANT","data":{"version":1,"node":"bob","root":"0000000000000002","to":"alice","strokes":[["é",0,0,"0000000000000000","0000000000000000","0000000000000000"]]}}"#
        )
    }

    @Test(arguments: 0..<4)
    func roundTrip(index: Int) throws {
        let message = Self.examples[index]
        #expect(try MessageDecoder.decode(message.encoded()) == .sync(message))
    }

    @Test func unknownVersionIsIgnored() throws {
        let message = try MessageDecoder.decode(#"{"type":"SYNC_SUMMARY","data":{"version":2,"whatever":[]}}"#)
        #expect(message == .unsupported(type: "SYNC_SUMMARY"))
    }

    @Test func unknownFieldsAreIgnored() throws {
        let message = try MessageDecoder.decode(
            #"{"extra":1,"type":"SYNC_SUMMARY","data":{"root":"0000000000000001","node":"n","version":1,"later":{}}}"#)
        #expect(message == .sync(SyncMessage(node: "n", root: 1, body: .summary)))
    }

    @Test(arguments: [
        (#"{"type":"SYNC_SUMMARY"}"#, "SYNC_SUMMARY.data", ProtocolError.Kind.missingField),
        (#"{"type":"SYNC_SUMMARY","data":[]}"#, "SYNC_SUMMARY.data", .wrongType),
        (#"{"type":"SYNC_SUMMARY","data":{"node":"n","root":"0000000000000001"}}"#, "SYNC_SUMMARY.data.version", .missingField),
        (#"{"type":"SYNC_SUMMARY","data":{"version":0,"node":"n","root":"0000000000000001"}}"#, "SYNC_SUMMARY.data.version", .invalidValue),
        (#"{"type":"SYNC_SUMMARY","data":{"version":1,"node":"","root":"0000000000000001"}}"#, "SYNC_SUMMARY.data.node", .invalidValue),
        (#"{"type":"SYNC_SUMMARY","data":{"version":1,"node":"n","root":"0000000000000001F"}}"#, "SYNC_SUMMARY.data.root", .invalidValue),
        (#"{"type":"SYNC_SUMMARY","data":{"version":1,"node":"n","root":"000000000000000G"}}"#, "SYNC_SUMMARY.data.root", .invalidValue),
        (#"{"type":"SYNC_SUMMARY","data":{"version":1,"node":"n","root":1}}"#, "SYNC_SUMMARY.data.root", .wrongType),
        (#"{"type":"SYNC_BUCKETS","data":{"version":1,"node":"n","root":"0000000000000001","first":0,"hashes":""}}"#, "SYNC_BUCKETS.data.to", .missingField),
        (#"{"type":"SYNC_BUCKETS","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","first":0,"hashes":""}}"#, "SYNC_BUCKETS.data.hashes", .invalidValue),
        (#"{"type":"SYNC_BUCKETS","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","first":255,"hashes":"00000000000000000000000000000000"}}"#, "SYNC_BUCKETS.data.hashes", .invalidValue),
        (#"{"type":"SYNC_BUCKETS","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","first":256,"hashes":"0000000000000000"}}"#, "SYNC_BUCKETS.data.first", .invalidValue),
        (#"{"type":"SYNC_STROKES","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","cover":[[256,null,null]],"strokes":[]}}"#, "SYNC_STROKES.data.cover[0][0]", .invalidValue),
        (#"{"type":"SYNC_STROKES","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","cover":[[1,null]],"strokes":[]}}"#, "SYNC_STROKES.data.cover[0]", .invalidValue),
        (#"{"type":"SYNC_STROKES","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","cover":[],"strokes":[["a",-1,0,"0000000000000000","0000000000000000","0000000000000000"]]}}"#, "SYNC_STROKES.data.strokes[0][1]", .invalidValue),
        (#"{"type":"SYNC_WANT","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","strokes":[["",1,0,"0000000000000000","0000000000000000","0000000000000000"]]}}"#, "SYNC_WANT.data.strokes[0][0]", .invalidValue),
        (#"{"type":"SYNC_WANT","data":{"version":1,"node":"n","root":"0000000000000001","to":"m","strokes":[["a",1,0,"0000000000000000","0000000000000000"]]}}"#, "SYNC_WANT.data.strokes[0]", .invalidValue),
    ])
    func invalidMessagesNameTheField(text: String, path: String, kind: ProtocolError.Kind) {
        #expect {
            try MessageDecoder.decode(text)
        } throws: { error in
            guard let error = error as? ProtocolError else { return false }
            return error.path == path && error.kind == kind
        }
    }

    @Test func coverIsHalfOpenByBytes() {
        let id = StrokeID("k")
        let bucket = Digest.bucket(of: id)
        #expect(SyncCover(bucket: bucket).contains(id))
        #expect(SyncCover(bucket: bucket, lower: id, upper: nil).contains(id))
        #expect(!SyncCover(bucket: bucket, lower: nil, upper: id).contains(id))
        #expect(!SyncCover(bucket: (bucket + 1) % Digest.bucketCount).contains(id))
    }
}

import Foundation

/// protocol/vectors/messages/sync.jsonl: each message decodes, and its canonical encoding
/// (null for an ignored version) is what `SyncMessage.encoded()` writes.
@Test func syncVectorsReencodeCanonically() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("protocol/vectors/messages/sync.jsonl")
    let lines = try Data(contentsOf: url).split(separator: UInt8(ascii: "\n"))
    #expect(lines.count >= 7)
    for line in lines {
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        let name = entry["name"] as? String ?? "?"
        let message = try MessageDecoder.decode(try #require(entry["message"] as? String))
        if let canonical = entry["canonical"] as? String {
            guard case .sync(let sync) = message else {
                Issue.record("\(name): not a sync message")
                continue
            }
            #expect(String(decoding: sync.encoded(), as: UTF8.self) == canonical, "\(name)")
        } else {
            #expect(message == .unsupported(type: "SYNC_SUMMARY"), "\(name)")
        }
    }
}
