import Testing
import XMPP

/// The stream parser against a realistic server stream, fed in every way it can arrive.
@Suite("XMLStreamParser")
struct XMLStreamParserTests {
    static let streamNamespace = "http://etherx.jabber.org/streams"

    /// A server's side of a session: header, features, a groupchat message whose body is
    /// escaped JSON with multi-byte characters, our own MUC presence, an IQ result, the end.
    static let serverStream = """
        <?xml version='1.0'?><stream:stream xmlns='jabber:client' \
        xmlns:stream='http://etherx.jabber.org/streams' from='example.org' id='d7f3c1a2' \
        version='1.0' xml:lang='en'>
        <stream:features><starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'><required/></starttls>\
        <mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>SCRAM-SHA-256</mechanism>\
        <mechanism>SCRAM-SHA-1</mechanism></mechanisms></stream:features>
        <message from='room@muc.example.org/alice' to='bob@example.org/canvas' type='groupchat' \
        id='m1'><body>{&quot;type&quot;:&quot;ADD&quot;,&quot;text&quot;:&quot;a &amp; b &lt; c \
        — é 🎨&quot;}</body></message>\(" ")
        <presence from='room@muc.example.org/bob' to="bob@example.org/canvas"><x \
        xmlns='http://jabber.org/protocol/muc#user'><item affiliation='member' role='participant'/>\
        <status code='110'/></x></presence>
        <iq type='result' id='bind1' to='bob@example.org/canvas'/>
        </stream:stream>
        """

    static let expectedEvents: [XMLStreamEvent] = [
        .streamOpened(
            XMLElement(
                name: "stream", namespace: streamNamespace,
                attributes: [
                    XMLAttribute(name: "from", value: "example.org"),
                    XMLAttribute(name: "id", value: "d7f3c1a2"),
                    XMLAttribute(name: "version", value: "1.0"),
                    XMLAttribute(name: "lang", namespace: XMLElement.xmlNamespace, value: "en"),
                ])),
        .stanza(
            XMLElement(
                name: "features", namespace: streamNamespace,
                children: [
                    .element(
                        XMLElement(
                            name: "starttls", namespace: "urn:ietf:params:xml:ns:xmpp-tls",
                            children: [
                                .element(XMLElement(name: "required", namespace: "urn:ietf:params:xml:ns:xmpp-tls"))
                            ])),
                    .element(
                        XMLElement(
                            name: "mechanisms", namespace: "urn:ietf:params:xml:ns:xmpp-sasl",
                            children: ["SCRAM-SHA-256", "SCRAM-SHA-1"].map {
                                .element(
                                    XMLElement(
                                        name: "mechanism", namespace: "urn:ietf:params:xml:ns:xmpp-sasl",
                                        children: [.text($0)]))
                            })),
                ])),
        .stanza(
            XMLElement(
                name: "message", namespace: "jabber:client",
                attributes: [
                    XMLAttribute(name: "from", value: "room@muc.example.org/alice"),
                    XMLAttribute(name: "to", value: "bob@example.org/canvas"),
                    XMLAttribute(name: "type", value: "groupchat"),
                    XMLAttribute(name: "id", value: "m1"),
                ],
                children: [
                    .element(
                        XMLElement(
                            name: "body", namespace: "jabber:client",
                            children: [.text(#"{"type":"ADD","text":"a & b < c — é 🎨"}"#)]))
                ])),
        .stanza(
            XMLElement(
                name: "presence", namespace: "jabber:client",
                attributes: [
                    XMLAttribute(name: "from", value: "room@muc.example.org/bob"),
                    XMLAttribute(name: "to", value: "bob@example.org/canvas"),
                ],
                children: [
                    .element(
                        XMLElement(
                            name: "x", namespace: "http://jabber.org/protocol/muc#user",
                            children: [
                                .element(
                                    XMLElement(
                                        name: "item", namespace: "http://jabber.org/protocol/muc#user",
                                        attributes: [
                                            XMLAttribute(name: "affiliation", value: "member"),
                                            XMLAttribute(name: "role", value: "participant"),
                                        ])),
                                .element(
                                    XMLElement(
                                        name: "status", namespace: "http://jabber.org/protocol/muc#user",
                                        attributes: [XMLAttribute(name: "code", value: "110")])),
                            ]))
                ])),
        .stanza(
            XMLElement(
                name: "iq", namespace: "jabber:client",
                attributes: [
                    XMLAttribute(name: "type", value: "result"),
                    XMLAttribute(name: "id", value: "bind1"),
                    XMLAttribute(name: "to", value: "bob@example.org/canvas"),
                ])),
        .streamClosed,
    ]

    static var streamBytes: [UInt8] { Array(serverStream.utf8) }

    /// Feeds `bytes` to `parser` in pieces of `chunkSize`, collecting events until it throws.
    static func feed(
        _ bytes: [UInt8], inChunksOf chunkSize: Int, to parser: XMLStreamParser
    ) -> (events: [XMLStreamEvent], error: XMLStreamError?) {
        var events: [XMLStreamEvent] = []
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            do {
                events += try parser.feed(bytes[start..<min(start + chunkSize, bytes.count)])
            } catch {
                return (events, error)
            }
        }
        return (events, nil)
    }

    @Test func wholeStreamGivesTheExpectedEvents() throws {
        let parser = XMLStreamParser()
        let events = try parser.feed(Self.streamBytes)
        #expect(events == Self.expectedEvents)
    }

    @Test(arguments: [1, 2, 3, 64])
    func chunksOfAnySizeGiveTheSameEvents(chunkSize: Int) {
        let (events, error) = Self.feed(Self.streamBytes, inChunksOf: chunkSize, to: XMLStreamParser())
        #expect(error == nil)
        #expect(events == Self.expectedEvents)
    }

    @Test func everySplitIntoTwoChunksGivesTheSameEvents() throws {
        let bytes = Self.streamBytes
        for split in 0...bytes.count {
            let parser = XMLStreamParser()
            let events = try parser.feed(bytes[..<split]) + parser.feed(bytes[split...])
            #expect(events == Self.expectedEvents, "split at byte \(split)")
        }
    }

    /// Found by fuzzing (Fuzz/regressions/FuzzXMLStream/space-then-nul): a malformed byte
    /// may be found out later when it comes with the bytes before it (expat holds back a
    /// token it cannot finish), but it is always found, and nothing is made of it.
    @Test func aMalformedByteIsFoundWhateverTheSplit() {
        for pieces in [[[0x20, 0x00]], [[0x20], [0x00]], [[0x20, 0x00], Array("<a/>".utf8)]] as [[[UInt8]]] {
            let parser = XMLStreamParser()
            var events: [XMLStreamEvent] = []
            var failed = false
            for piece in pieces {
                do { events += try parser.feed(piece) } catch { failed = true }
            }
            #expect(events.isEmpty)
            if pieces.count > 1 { #expect(failed, "\(pieces) must be refused") }
        }
    }

    @Test func lookupHelpersFindWhatAClientNeeds() throws {
        let events = try XMLStreamParser().feed(Self.streamBytes)
        guard case .stanza(let features) = events[1], case .stanza(let message) = events[2],
            case .stanza(let presence) = events[3]
        else {
            Issue.record("unexpected events \(events)")
            return
        }
        let mechanisms = features.child(named: "mechanisms", namespace: "urn:ietf:params:xml:ns:xmpp-sasl")
        #expect(mechanisms?.children(named: "mechanism").map(\.text) == ["SCRAM-SHA-256", "SCRAM-SHA-1"])
        #expect(features.child(named: "starttls", namespace: "urn:ietf:params:xml:ns:xmpp-sasl") == nil)
        #expect(features.child(named: "starttls")?.child(named: "required") != nil)
        #expect(message.attribute("type") == "groupchat")
        #expect(message.child(named: "body", namespace: "jabber:client")?.text.contains("🎨") == true)
        let status = presence.child(named: "x", namespace: "http://jabber.org/protocol/muc#user")?
            .child(named: "status")
        #expect(status?.attribute("code") == "110")
    }

    @Test func prefixedAndDefaultNamespacesAreResolved() throws {
        let input = """
            <stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>\
            <a:query xmlns:a='urn:a' a:flag='1' plain='2'><item/><b:item xmlns:b='urn:b'/>\
            <c xmlns=''/></a:query>
            """
        let events = try XMLStreamParser().feed(Array(input.utf8))
        #expect(
            events.last
                == .stanza(
                    XMLElement(
                        name: "query", namespace: "urn:a",
                        attributes: [
                            XMLAttribute(name: "flag", namespace: "urn:a", value: "1"),
                            XMLAttribute(name: "plain", value: "2"),
                        ],
                        children: [
                            .element(XMLElement(name: "item", namespace: "jabber:client")),
                            .element(XMLElement(name: "item", namespace: "urn:b")),
                            .element(XMLElement(name: "c")),
                        ])))
    }

    @Test func textInSeveralPiecesIsJoinedIntoOneNode() throws {
        let parser = XMLStreamParser()
        var events = try parser.feed(Array("<s xmlns='urn:s'><m>one &amp; ".utf8))
        events += try parser.feed(Array("two<![CDATA[ <three> ]]>four</m>".utf8))
        let joined = XMLElement(name: "m", namespace: "urn:s", children: [.text("one & two <three> four")])
        #expect(events.last == .stanza(joined))
    }

    // MARK: Refusals

    static func error(feeding input: String, limit: Int = 256 * 1024) -> XMLStreamError? {
        let parser = XMLStreamParser(maximumStanzaSize: limit)
        do {
            _ = try parser.feed(Array(input.utf8))
            return nil
        } catch {
            return error
        }
    }

    static let header = "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>"

    @Test func doctypeIsRefused() {
        let input = Array(("<?xml version='1.0'?>\n<!DOCTYPE s [<!ENTITY x 'lol'>]>" + Self.header).utf8)
        // Whole, and one byte at a time: the refusal comes before any entity is declared.
        let errors = [
            Self.error(feeding: String(decoding: input, as: UTF8.self)),
            Self.feed(input, inChunksOf: 1, to: XMLStreamParser()).error,
        ]
        for error in errors {
            guard case .restrictedXML(let what, let line, _) = error else {
                Issue.record("expected restricted XML, got \(String(describing: error))")
                continue
            }
            #expect(what == "DOCTYPE")
            #expect(line == 2)
        }
    }

    @Test func commentIsRefused() {
        let error = Self.error(feeding: Self.header + "\n<message><!-- hi --></message>")
        #expect(error == .restrictedXML(what: "comment", line: 2, column: 10))
        #expect(error?.description.contains("comment") == true)
    }

    @Test func processingInstructionIsRefused() {
        let error = Self.error(feeding: Self.header + "<?evil data?>")
        guard case .restrictedXML(let what, _, _) = error else {
            Issue.record("expected restricted XML, got \(String(describing: error))")
            return
        }
        #expect(what == "processing instruction evil")
    }

    @Test func mismatchedTagIsMalformed() {
        let error = Self.error(feeding: Self.header + "\n<message><body>hi</message>")
        #expect(error == .notWellFormed(message: "mismatched tag", line: 2, column: 20))
    }

    @Test func unclosedTagIsMalformed() {
        let error = Self.error(feeding: Self.header + "<message to='a' <body/>")
        guard case .notWellFormed(let message, let line, _) = error else {
            Issue.record("expected not well-formed, got \(String(describing: error))")
            return
        }
        #expect(!message.isEmpty)
        #expect(line == 1)
    }

    @Test func theParserKeepsFailingUntilReset() throws {
        let parser = XMLStreamParser()
        #expect(throws: XMLStreamError.self) { try parser.feed(Array((Self.header + "<a><!--x--></a>").utf8)) }
        #expect(throws: XMLStreamError.self) { try parser.feed(Array("<b/>".utf8)) }
        parser.reset()
        let events = try parser.feed(Array((Self.header + "<b/>").utf8))
        #expect(events.count == 2)
    }

    // MARK: Size limit

    static let smallLimit = 100

    static func stanza(bodySize: Int) -> String {
        "<message><body>" + String(repeating: "x", count: bodySize) + "</body></message>"
    }

    @Test(arguments: [1, 7, 1000])
    func oversizedStanzaIsRefused(chunkSize: Int) {
        let bytes = Array((Self.header + Self.stanza(bodySize: 200)).utf8)
        let parser = XMLStreamParser(maximumStanzaSize: Self.smallLimit)
        let (events, error) = Self.feed(bytes, inChunksOf: chunkSize, to: parser)
        #expect(events.count <= 1)
        #expect(error == .stanzaTooLarge(limit: Self.smallLimit))
    }

    @Test(arguments: [1, 1000])
    func stanzasUnderTheLimitPassEvenWhenTheirSumDoesNot(chunkSize: Int) {
        // 32 bytes of markup plus the body: exactly the limit.
        let stanza = Self.stanza(bodySize: Self.smallLimit - 32)
        #expect(stanza.utf8.count == Self.smallLimit)
        let bytes = Array((Self.header + String(repeating: stanza + "  ", count: 20)).utf8)
        let parser = XMLStreamParser(maximumStanzaSize: Self.smallLimit)
        let (events, error) = Self.feed(bytes, inChunksOf: chunkSize, to: parser)
        #expect(error == nil)
        #expect(events.count == 21)
    }

    @Test func whitespaceKeepalivesAreIgnoredAndNotCounted() throws {
        let parser = XMLStreamParser(maximumStanzaSize: Self.smallLimit)
        var events = try parser.feed(Array(Self.header.utf8))
        for _ in 0..<(3 * Self.smallLimit) {
            events += try parser.feed(Array(" ".utf8))
        }
        events += try parser.feed(Array("<presence/>".utf8))
        #expect(events.count == 2)
        #expect(events.last == .stanza(XMLElement(name: "presence", namespace: "jabber:client")))
    }

    // MARK: Restarts

    @Test func afterResetANewStreamParses() throws {
        let parser = XMLStreamParser()
        let bytes = Self.streamBytes
        // The first stream is cut off mid-stanza, as at a STARTTLS or SASL restart.
        _ = try parser.feed(bytes[..<(bytes.count / 2)])
        parser.reset()
        #expect(try parser.feed(bytes) == Self.expectedEvents)
        parser.reset()
        #expect(Self.feed(bytes, inChunksOf: 1, to: parser) == (Self.expectedEvents, nil))
    }

    @Test func theParserIsFreedWhenReleased() throws {
        weak var released: XMLStreamParser?
        do {
            let parser = XMLStreamParser()
            released = parser
            _ = try parser.feed(Self.streamBytes.prefix(300))
        }
        #expect(released == nil)
    }
}
