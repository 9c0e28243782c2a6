/// The text that opens a client stream (RFC 6120 §4.2), sent again at every restart.
public enum ConnectionStreamHeader {
    /// The XML declaration and the opening `<stream:stream>` tag to `domain`, which must not
    /// need escaping (`XMPPConnectionConfiguration` checks it).
    public static func opening(to domain: String) -> String {
        "<?xml version='1.0'?><stream:stream xmlns='\(XMPPNamespace.client)' "
            + "xmlns:stream='\(XMPPNamespace.stream)' to='\(domain)' version='1.0'>"
    }
}

/// The namespaces the connection speaks.
public enum XMPPNamespace {
    public static let client = "jabber:client"
    public static let stream = "http://etherx.jabber.org/streams"
    public static let streamErrors = "urn:ietf:params:xml:ns:xmpp-streams"
    public static let tls = "urn:ietf:params:xml:ns:xmpp-tls"
    public static let sasl = "urn:ietf:params:xml:ns:xmpp-sasl"
    public static let bind = "urn:ietf:params:xml:ns:xmpp-bind"
    public static let stanzaErrors = "urn:ietf:params:xml:ns:xmpp-stanzas"
    public static let streamManagement = "urn:xmpp:sm:3"
}
