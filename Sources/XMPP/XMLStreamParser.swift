import CExpat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `XMLStreamParser` found in the bytes it was fed.
public enum XMLStreamEvent: Sendable, Hashable {
    /// The stream's root element (`<stream:stream>`) with its attributes and no children.
    case streamOpened(XMLElement)
    /// One complete child of the root: a stanza, or a stream-level element such as
    /// `<stream:features>`.
    case stanza(XMLElement)
    /// The root element was closed (`</stream:stream>`).
    case streamClosed
}

/// An incremental parser for an XMPP stream (RFC 6120 §4), on expat with namespace
/// processing.
///
/// Feed it bytes as they arrive, split anywhere; it returns the events they complete. Text
/// between stanzas (whitespace keepalives) is dropped. It refuses DTDs, comments and
/// processing instructions, and stanzas over `maximumStanzaSize` bytes. After it has thrown,
/// it throws the same error for every feed until `reset()`.
///
/// Not `Sendable`: it owns an expat parser. Use it from one thread (an event loop).
public final class XMLStreamParser {
    /// The largest stanza accepted, in bytes from its `<` to its closing `>`. The stream
    /// header and unparsed input waiting to complete an event are held to it too.
    public let maximumStanzaSize: Int

    private let parser: XML_Parser
    /// The elements open inside the current stanza; empty between stanzas.
    private var openElements: [XMLElement] = []
    private var rootIsOpen = false
    /// Character data of the innermost open element not yet stored as a text node; expat
    /// may deliver one run of text in several callbacks.
    private var pendingText: [UInt8] = []
    private var events: [XMLStreamEvent] = []
    private var failure: XMLStreamError?
    /// Bytes given to expat since the stream began.
    private var bytesFed = 0
    /// Byte index where input not yet accounted for by an event begins (the start of the
    /// current stanza, or the end of the last event).
    private var unaccountedStart = 0

    /// Bytes handed to expat per call, so that the size limit is checked at least this often.
    private static let chunkSize = 64 * 1024

    /// - Parameter maximumStanzaSize: the largest stanza accepted, in bytes. Prosody's
    ///   default is 256 KiB (10,000 bytes before authentication).
    public init(maximumStanzaSize: Int = 256 * 1024) {
        self.maximumStanzaSize = maximumStanzaSize
        // XMPP streams are UTF-8 (RFC 6120 §11.6); U+0001 cannot occur in XML names.
        guard let parser = XML_ParserCreateNS("UTF-8", 0x01) else {
            fatalError("expat could not allocate a parser (out of memory)")
        }
        self.parser = parser
        installHandlers()
    }

    deinit {
        XML_ParserFree(parser)
    }

    /// Starts a new stream on the same parser, as after STARTTLS or SASL success
    /// (RFC 6120 §4.3.3). Anything fed before is forgotten, including an error.
    public func reset() {
        XML_ParserReset(parser, "UTF-8")
        openElements = []
        rootIsOpen = false
        pendingText = []
        events = []
        failure = nil
        bytesFed = 0
        unaccountedStart = 0
        installHandlers()
    }

    /// Parses `bytes`, the next part of the stream, and returns the events they complete.
    public func feed(_ bytes: some Collection<UInt8>) throws(XMLStreamError) -> [XMLStreamEvent] {
        if let failure { throw failure }
        if bytes.withContiguousStorageIfAvailable({ parse($0) }) == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { parse($0) }
        }
        if let failure { throw failure }
        defer { events = [] }
        return events
    }

    private func parse(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count, failure == nil {
            let count = min(Self.chunkSize, buffer.count - offset)
            let status = (base + offset).withMemoryRebound(to: CChar.self, capacity: count) {
                XML_Parse(parser, $0, Int32(count), 0)
            }
            offset += count
            bytesFed += count
            if failure != nil { return }
            if status == XML_STATUS_ERROR {
                let message =
                    XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "unknown error"
                failure = .notWellFormed(message: message, line: currentLine, column: currentColumn)
                return
            }
            if bytesFed - unaccountedStart > maximumStanzaSize {
                failure = .stanzaTooLarge(limit: maximumStanzaSize)
            }
        }
    }

    // MARK: Handlers

    private func installHandlers() {
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        XML_SetElementHandler(
            parser,
            { userData, name, attributes in
                XMLStreamParser.from(userData).didStartElement(name, attributes)
            },
            { userData, _ in
                XMLStreamParser.from(userData).didEndElement()
            })
        XML_SetCharacterDataHandler(parser) { userData, characters, length in
            XMLStreamParser.from(userData).didReadCharacters(characters, Int(length))
        }
        XML_SetStartDoctypeDeclHandler(parser) { userData, _, _, _, _ in
            XMLStreamParser.from(userData).refuse("DOCTYPE")
        }
        XML_SetCommentHandler(parser) { userData, _ in
            XMLStreamParser.from(userData).refuse("comment")
        }
        XML_SetProcessingInstructionHandler(parser) { userData, target, _ in
            let name = target.map { String(cString: $0) } ?? ""
            XMLStreamParser.from(userData).refuse("processing instruction \(name)")
        }
        // expat 2.6 and later may hold back the events of a token split across feeds until
        // more input arrives, which would delay stanzas. Debian 12's expat 2.5.0 has no such
        // deferral and no function to turn it off, hence the look-up at run time.
        if let setReparseDeferralEnabled {
            _ = setReparseDeferralEnabled(parser, 0)
        }
    }

    private static func from(_ userData: UnsafeMutableRawPointer?) -> XMLStreamParser {
        Unmanaged<XMLStreamParser>.fromOpaque(userData!).takeUnretainedValue()
    }

    private func didStartElement(
        _ name: UnsafePointer<XML_Char>?, _ attributes: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?
    ) {
        guard failure == nil, let name else { return }
        let (namespace, localName) = Self.split(name)
        var element = XMLElement(name: localName, namespace: namespace)
        if var cursor = attributes {
            while let attributeName = cursor[0], let value = cursor[1] {
                let (attributeNamespace, attributeLocalName) = Self.split(attributeName)
                element.attributes.append(
                    XMLAttribute(name: attributeLocalName, namespace: attributeNamespace, value: String(cString: value)))
                cursor += 2
            }
        }
        if !rootIsOpen {
            rootIsOpen = true
            events.append(.streamOpened(element))
            unaccountedStart = eventEnd
            return
        }
        if openElements.isEmpty {
            unaccountedStart = Int(XML_GetCurrentByteIndex(parser))
        } else {
            flushPendingText()
        }
        openElements.append(element)
    }

    private func didEndElement() {
        guard failure == nil else { return }
        guard !openElements.isEmpty else {
            rootIsOpen = false
            events.append(.streamClosed)
            unaccountedStart = eventEnd
            return
        }
        flushPendingText()
        let finished = openElements.removeLast()
        if openElements.isEmpty {
            if eventEnd - unaccountedStart > maximumStanzaSize {
                fail(.stanzaTooLarge(limit: maximumStanzaSize))
                return
            }
            events.append(.stanza(finished))
            unaccountedStart = eventEnd
        } else {
            openElements[openElements.count - 1].children.append(.element(finished))
        }
    }

    private func didReadCharacters(_ characters: UnsafePointer<XML_Char>?, _ length: Int) {
        guard failure == nil, let characters else { return }
        guard !openElements.isEmpty else {
            // Between stanzas: whitespace keepalives, ignored.
            unaccountedStart = eventEnd
            return
        }
        characters.withMemoryRebound(to: UInt8.self, capacity: length) {
            pendingText.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
    }

    private func flushPendingText() {
        guard !pendingText.isEmpty else { return }
        openElements[openElements.count - 1].children.append(.text(String(decoding: pendingText, as: UTF8.self)))
        pendingText = []
    }

    private func refuse(_ what: String) {
        guard failure == nil else { return }
        fail(.restrictedXML(what: what, line: currentLine, column: currentColumn))
    }

    /// Records `error` from inside a handler and makes expat return at once.
    private func fail(_ error: XMLStreamError) {
        failure = error
        XML_StopParser(parser, 0)
    }

    // MARK: Positions

    /// The byte index just after the event being reported.
    private var eventEnd: Int {
        Int(XML_GetCurrentByteIndex(parser)) + Int(XML_GetCurrentByteCount(parser))
    }

    private var currentLine: Int { Int(XML_GetCurrentLineNumber(parser)) }
    private var currentColumn: Int { Int(XML_GetCurrentColumnNumber(parser)) + 1 }

    /// Splits expat's `URI\u{1}local` (or plain `local`, for no namespace).
    private static func split(_ name: UnsafePointer<XML_Char>) -> (namespace: String, local: String) {
        let full = String(cString: name)
        guard let separator = full.utf8.firstIndex(of: 0x01) else { return ("", full) }
        let namespace = String(full[..<separator])
        let local = String(full[full.utf8.index(after: separator)...])
        return (namespace, local)
    }
}

private typealias SetReparseDeferralEnabled = @convention(c) (XML_Parser?, XML_Bool) -> XML_Bool

/// `XML_SetReparseDeferralEnabled` (expat ≥ 2.6), if the loaded expat has it.
private let setReparseDeferralEnabled: SetReparseDeferralEnabled? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "XML_SetReparseDeferralEnabled") else { return nil }
    return unsafeBitCast(symbol, to: SetReparseDeferralEnabled.self)
}()
