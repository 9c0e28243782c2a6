import Foundation
import Testing

/// docs/embedding.md's example: the doc quotes the example's source as it is, and the
/// example builds and runs (a node on the LAN that draws a stroke and stops).
@Suite("The embedding example") struct EmbeddingExampleTests {
    static let source = CanvasCommand.repository.appendingPathComponent("examples/EmbeddedNode/main.swift")
    static let doc = CanvasCommand.repository.appendingPathComponent("docs/embedding.md")

    @Test func theDocQuotesTheExampleAsItIs() throws {
        let example = try String(contentsOf: Self.source, encoding: .utf8)
        let doc = try String(contentsOf: Self.doc, encoding: .utf8)
        #expect(doc.contains("```swift\n" + example + "```"), "docs/embedding.md does not quote examples/EmbeddedNode/main.swift as it is")
        #expect(example.split(separator: "\n").count < 40)
    }

    @Test(.enabled(if: hasMulticastInterface(), "no interface with multicast here (scripts/test turns it on for lo)"))
    func theExampleDrawsAStrokeAndStops() throws {
        let room = "embedding-test-\(UUID().uuidString.prefix(8))"
        let outcome = try CanvasCommand.run([room], program: CanvasCommand.built("EmbeddedNode"))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix(#"{"event":"started""#) })
        #expect(lines.contains { $0.hasPrefix("drew ") && $0.hasSuffix("_1") })
        #expect(lines.contains("\(room) holds 1 stroke, 3 points"))
        #expect(lines.contains { $0.hasPrefix(#"{"event":"applied","room":"\#(room)","operations":2,"points":3,"author":null"#) })
        #expect(lines.last == #"{"event":"stopped"}"#)
    }
}

/// Whether an interface is up with multicast (IFF_UP and IFF_MULTICAST in its sysfs flags).
func hasMulticastInterface() -> Bool {
    let folder = "/sys/class/net"
    let interfaces = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return interfaces.contains { name in
        guard let text = try? String(contentsOfFile: "\(folder)/\(name)/flags", encoding: .utf8),
            let flags = Int(text.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(2), radix: 16)
        else { return false }
        return flags & 0x1 != 0 && flags & 0x1000 != 0
    }
}
