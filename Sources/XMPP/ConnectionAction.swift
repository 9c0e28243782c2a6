/// What the driver of an `XMPPConnectionStateMachine` must do next, in order.
public enum ConnectionAction: Sendable, Hashable {
    /// Write this XML text to the stream.
    case send(String)
    /// Start the TLS handshake on the connection (drop any plaintext already buffered),
    /// then call `tlsEstablished()`.
    case startTLS
    /// Reset the `XMLStreamParser`: a new stream begins (RFC 6120 §4.3.3).
    case resetParser
    /// The session is ready: resource bound to `fullJID`. `streamManagementOffered` tells
    /// whether the server offered XEP-0198 stream management.
    case ready(fullJID: String, streamManagementOffered: Bool)
    /// A stanza that arrived once the session was ready, for the layers above.
    case deliver(XMLElement)
    /// The connection cannot go on: close it and report the error.
    case fail(ConnectionError)
}
