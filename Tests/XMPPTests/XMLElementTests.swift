import CanvasTestSupport
import Testing
import XMPP

/// Rendering: escaping, minimal namespace declarations, and parse(render(e)) == e.
@Suite("XMLElement")
struct XMLElementTests {
    static let header = "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>"

    @Test func rendersAStanzaAsAClientWritesIt() {
        let message = XMLElement(
            name: "message", namespace: "jabber:client",
            attributes: [
                XMLAttribute(name: "to", value: "room@muc.example.org"),
                XMLAttribute(name: "type", value: "groupchat"),
                XMLAttribute(name: "lang", namespace: XMLElement.xmlNamespace, value: "en"),
            ],
            children: [
                .element(
                    XMLElement(
                        name: "body", namespace: "jabber:client", children: [.text(#"{"a":"x & <y> 'z' é"}"#)])),
                .element(
                    XMLElement(
                        name: "origin-id", namespace: "urn:xmpp:sid:0",
                        attributes: [XMLAttribute(name: "id", value: "a\"b'c")])),
            ])
        #expect(
            message.rendered(defaultNamespace: "jabber:client")
                == "<message to='room@muc.example.org' type='groupchat' xml:lang='en'>"
                + "<body>{\"a\":\"x &amp; &lt;y&gt; 'z' é\"}</body>"
                + "<origin-id xmlns='urn:xmpp:sid:0' id='a&quot;b&apos;c'/></message>")
        #expect(message.rendered().hasPrefix("<message xmlns='jabber:client' to="))
    }

    @Test func undeclaresTheDefaultNamespaceForAChildInNone() {
        let element = XMLElement(name: "a", namespace: "urn:a", children: [.element(XMLElement(name: "b"))])
        #expect(element.rendered() == "<a xmlns='urn:a'><b xmlns=''/></a>")
    }

    @Test func declaresPrefixesForQualifiedAttributes() {
        let element = XMLElement(
            name: "a",
            attributes: [
                XMLAttribute(name: "x", namespace: "urn:p", value: "1"),
                XMLAttribute(name: "y", namespace: "urn:p", value: "2"),
                XMLAttribute(name: "x", value: "3"),
            ])
        #expect(element.rendered() == "<a xmlns:ns0='urn:p' ns0:x='1' ns0:y='2' x='3'/>")
    }

    @Test func replacesCharactersXMLCannotCarry() {
        let element = XMLElement(name: "a", children: [.text("x\u{0}y\u{1B}z\u{FFFF}")])
        #expect(element.rendered() == "<a>x\u{FFFD}y\u{FFFD}z\u{FFFD}</a>")
    }

    @Test func aCharacterToEscapeAfterALongPlainRunIsStillEscaped() {
        // Plain text is appended whole; one character anywhere in it sends the whole text
        // through the escaping loop (the last of a batch's Base64, say).
        let plain = String(repeating: "QUJDRA+/=", count: 500)
        #expect(XMLElement(name: "a", children: [.text(plain)]).rendered() == "<a>\(plain)</a>")
        for (tail, escaped) in [("<", "&lt;"), ("&", "&amp;"), ("\u{FFFE}", "\u{FFFD}"), ("\u{7}", "\u{FFFD}"), ("\r", "&#13;")] {
            #expect(XMLElement(name: "a", children: [.text(plain + tail)]).rendered() == "<a>\(plain)\(escaped)</a>")
            #expect(
                XMLElement(name: "a", attributes: [XMLAttribute(name: "v", value: tail + plain)]).rendered()
                    == "<a v='\(escaped)\(plain)'/>")
        }
        // Other characters that start with the byte 0xEF are kept.
        #expect(XMLElement(name: "a", children: [.text("\u{FF21}\u{FFFD}")]).rendered() == "<a>\u{FF21}\u{FFFD}</a>")
    }

    @Test func whitespaceAndCarriageReturnsSurviveARoundTrip() throws {
        let element = XMLElement(
            name: "a", namespace: "jabber:client",
            attributes: [XMLAttribute(name: "v", value: " \t\r\n\r x ")],
            children: [.text("\r\n\t line\r")])
        #expect(try Self.reparse(element) == element)
    }

    // MARK: Round trip on random trees

    @Test func randomTreesSurviveARoundTrip() throws {
        let seeds: Range<UInt64> = 7_000_000..<7_000_300
        print("XMLElementTests.randomTreesSurviveARoundTrip seeds", seeds)
        for seed in seeds {
            var random = SplitMix64(seed: seed)
            let element = Self.randomElement(depth: 0, using: &random)
            let reparsed = try Self.reparse(element, splitWith: &random)
            #expect(reparsed == element, "seed \(seed): \(element.rendered(defaultNamespace: "jabber:client"))")
        }
    }

    /// Renders `element` as a stanza of a stream, parses it back (fed in random pieces).
    static func reparse(_ element: XMLElement, splitWith random: inout SplitMix64) throws -> XMLElement? {
        let bytes = Array((header + element.rendered(defaultNamespace: "jabber:client")).utf8)
        let parser = XMLStreamParser()
        var events: [XMLStreamEvent] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...40, using: &random))
            events += try parser.feed(bytes[start..<end])
            start = end
        }
        guard events.count == 2, case .stanza(let stanza) = events[1] else { return nil }
        return stanza
    }

    static func reparse(_ element: XMLElement) throws -> XMLElement? {
        var random = SplitMix64(seed: 0)
        return try reparse(element, splitWith: &random)
    }

    static let names = ["a", "message", "body", "x", "item", "é-名"]
    static let namespaces = ["", "jabber:client", "urn:a", "urn:b?x=1&y='2'<"]
    static let attributeNamespaces = ["", "", XMLElement.xmlNamespace, "urn:a", "urn:c"]
    static let alphabet = Array("ab <>&\"']]>\t\n\r é🎨—")

    static func randomString(using random: inout SplitMix64) -> String {
        String((0..<Int.random(in: 1...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }

    static func randomElement(depth: Int, using random: inout SplitMix64) -> XMLElement {
        var element = XMLElement(
            name: names.randomElement(using: &random)!, namespace: namespaces.randomElement(using: &random)!)
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let attribute = XMLAttribute(
                name: ["id", "to", "lang", "é"].randomElement(using: &random)!,
                namespace: attributeNamespaces.randomElement(using: &random)!,
                value: random.chance(0.2) ? "" : randomString(using: &random))
            if element.attribute(attribute.name, namespace: attribute.namespace) == nil {
                element.attributes.append(attribute)
            }
        }
        guard depth < 4 else { return element }
        var lastWasText = false
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            // The parser gives one text node per run of text, so never generate two in a row.
            if !lastWasText, random.chance(0.4) {
                element.children.append(.text(randomString(using: &random)))
                lastWasText = true
            } else {
                element.children.append(.element(randomElement(depth: depth + 1, using: &random)))
                lastWasText = false
            }
        }
        return element
    }
}
