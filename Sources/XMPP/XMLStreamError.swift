/// Why `XMLStreamParser` refused its input. Each case maps to the RFC 6120 stream error a
/// client sends before closing the stream.
public enum XMLStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stream holds markup XMPP forbids (RFC 6120 §11.1): `what` is `"DOCTYPE"`,
    /// `"comment"` or `"processing instruction <target>"`. Stream error `restricted-xml`.
    case restrictedXML(what: String, line: Int, column: Int)
    /// A stanza (or the stream header, or unparsed input waiting for its end) grew past
    /// `limit` bytes. Stream error `policy-violation`.
    case stanzaTooLarge(limit: Int)
    /// The input is not well-formed XML: `message` is expat's; `line` and `column` count
    /// from 1. Stream error `not-well-formed`.
    case notWellFormed(message: String, line: Int, column: Int)

    public var description: String {
        switch self {
        case .restrictedXML(let what, let line, let column):
            "XMPP forbids a \(what) in the stream (line \(line), column \(column))"
        case .stanzaTooLarge(let limit):
            "a stanza is larger than the limit of \(limit) bytes"
        case .notWellFormed(let message, let line, let column):
            "the stream is not well-formed XML: \(message) (line \(line), column \(column))"
        }
    }
}
