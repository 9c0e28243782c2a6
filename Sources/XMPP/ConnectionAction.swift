/// What the driver of an `XMPPConnectionStateMachine` must do next, in order.
public enum ConnectionAction: Sendable, Hashable {
    /// Write this XML text to the stream.
    case send(String)
    /// Start the TLS handshake on the connection (drop any plaintext already buffered),
    /// then call `tlsEstablished()`.
    case startTLS
    /// Reset the `XMLStreamParser`: a new stream begins (RFC 6120 §4.3.3).
    case resetParser
    /// The configuration asked to resume a session, and the server cannot resume it:
    /// `reason` says why. The connection goes on with a fresh session, which `.ready`
    /// reports; the driver then resends the old session's
    /// `StreamManagementState.takeUnacknowledgedForFreshSession(acknowledgedByServer:)`,
    /// passing `acknowledgedByServer` (the `h` of the server's `<failed/>`, if any).
    case resumptionFailed(reason: String, acknowledgedByServer: UInt32?)
    /// The session is ready: a fresh session with the resource bound to `fullJID`.
    /// `streamManagement` is what the server granted when XEP-0198 stream management is
    /// enabled (start a `StreamManagementState` with it), `nil` when it is not.
    case ready(fullJID: String, streamManagement: StreamManagementEnabled?)
    /// The session of the configuration's resumption token is resumed (XEP-0198 §5) and
    /// ready, with the token's full JID: the server handled `acknowledgedByServer` of our
    /// stanzas. The driver resends the old session's
    /// `StreamManagementState.resumed(acknowledgedByServer:)` and keeps counting on it.
    case resumed(previousID: String, acknowledgedByServer: UInt32)
    /// A stanza or other element from the server once the resource is bound, for the layers
    /// above. Elements in the `urn:xmpp:sm:3` namespace go to
    /// `StreamManagementState.handle(_:)`.
    ///
    /// Stanzas that arrive between binding and the server's `<enabled/>` come before
    /// `.ready`: XEP-0198 does not count them, and there is no `StreamManagementState` yet.
    case deliver(XMLElement)
    /// The connection cannot go on: close it and report the error.
    case fail(ConnectionError)
}
