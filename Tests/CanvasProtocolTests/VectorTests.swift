import CanvasCore
import Foundation
import Testing

@testable import CanvasProtocol

/// Runs every test vector of protocol/vectors (their format: protocol/vectors/README.md).
@Suite("Protocol test vectors")
struct VectorTests {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("protocol/vectors")

    static var sequenceNames: [String] {
        let folder = vectors.appendingPathComponent("sequences")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".ndjson") }.map { String($0.dropLast(".ndjson".count)) }.sorted()
    }

    @Test func thereAreVectors() {
        #expect(Self.sequenceNames.count >= 12)
    }

    @Test(arguments: sequenceNames)
    func sequenceGivesTheExpectedStateAndDigest(name: String) throws {
        let folder = Self.vectors.appendingPathComponent("sequences")
        let input = try Data(contentsOf: folder.appendingPathComponent("\(name).ndjson"))
        var document = Document()
        for line in input.split(separator: UInt8(ascii: "\n")) {
            for operation in try MessageDecoder.decode(Array(line)).operations {
                document.apply(operation)
            }
        }
        let state = try Data(contentsOf: folder.appendingPathComponent("\(name).state.json"))
        let digest = try String(contentsOf: folder.appendingPathComponent("\(name).digest"), encoding: .utf8)
        #expect(CanonicalState.encode(document) == Array(state), "\(name): state")
        #expect(document.digest.rootHex + "\n" == digest, "\(name): digest")
    }

    private static func entries(_ file: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: vectors.appendingPathComponent("messages/\(file)"))
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        }
    }

    @Test func validMessagesDecodeAndReencodeCanonically() throws {
        let entries = try Self.entries("valid.jsonl")
        #expect(entries.count >= 25)
        for entry in entries {
            let name = entry["name"] as? String ?? "?"
            let text = try #require(entry["message"] as? String)
            let message = try MessageDecoder.decode(text)
            if let canonical = entry["canonical"] as? String {
                let operations = message.operations
                #expect(operations.count == 1, "\(name)")
                #expect(operations.first.map(MessageEncoder.encodeString) == canonical, "\(name)")
            }
        }
    }

    @Test func invalidMessagesAreRejectedWithTheExpectedError() throws {
        let entries = try Self.entries("invalid.jsonl")
        #expect(entries.count >= 30)
        for entry in entries {
            let name = entry["name"] as? String ?? "?"
            let text = try #require(entry["message"] as? String)
            let expected = try #require(entry["error"] as? String)
            do {
                let message = try MessageDecoder.decode(text)
                Issue.record("\(name): accepted as \(message)")
            } catch {
                #expect(error.description == expected, "\(name)")
            }
        }
    }
}
