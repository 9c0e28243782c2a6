/// What the client asks for about XEP-0198 stream management once it is authenticated.
public enum StreamManagementRequest: Sendable, Hashable {
    /// Never enable stream management.
    case disabled
    /// Enable stream management, with resumption, on a fresh session. The default.
    case enable
    /// Resume the session the token names; if the server cannot, bind a fresh session and
    /// enable stream management on it.
    case resume(StreamResumptionToken)
}

/// What it takes to resume a stream-managed session on a new connection (XEP-0198 §5):
/// `StreamManagementState.resumptionToken(fullJID:)` gives it when the connection drops.
public struct StreamResumptionToken: Sendable, Hashable {
    /// The resumption id the server gave in `<enabled/>`.
    public var id: String
    /// How many stanzas from the server we handled (`h`), modulo 2^32.
    public var inboundCount: UInt32
    /// The full JID of the session; a resumed session keeps it.
    public var fullJID: String

    /// A token, usually from `StreamManagementState.resumptionToken(fullJID:)`.
    public init(id: String, inboundCount: UInt32, fullJID: String) {
        self.id = id
        self.inboundCount = inboundCount
        self.fullJID = fullJID
    }
}

/// What the server granted in `<enabled/>`: stream management is on.
public struct StreamManagementEnabled: Sendable, Hashable {
    /// The id to resume the session with, or `nil` if the server does not allow resumption.
    public var resumptionID: String?
    /// How long the server keeps the session for resumption after the connection drops
    /// (`max`), if it said so.
    public var maximumResumptionTime: Duration?
    /// Where the server prefers the client to reconnect to resume (`location`, `host` or
    /// `host:port`), if it said so.
    public var location: String?

    /// What an `<enabled/>` granted.
    public init(resumptionID: String? = nil, maximumResumptionTime: Duration? = nil, location: String? = nil) {
        self.resumptionID = resumptionID
        self.maximumResumptionTime = maximumResumptionTime
        self.location = location
    }
}

/// XML text the driver must write in answer to a stream-management element.
public struct StreamManagementReply: Sendable, Hashable {
    /// The element to write, rendered.
    public var text: String

    /// A reply of `text`.
    public init(text: String) {
        self.text = text
    }
}

/// The counters of one stream-managed session (XEP-0198 §4), for the driver from the
/// `.ready` action that reports stream management enabled until the session ends.
///
/// It performs no I/O and reads no clock. The driver:
///
/// - calls `outbound(_:)` for every message, presence and iq it writes, and writes
///   `requestAck()` whenever `shouldRequestAck` is true;
/// - calls `inboundStanzaHandled()` once it has handled each delivered stanza for which
///   `isCountedStanza(_:)` is true;
/// - passes every delivered element in the `urn:xmpp:sm:3` namespace (`<r/>`, `<a/>`) to
///   `handle(_:)` and writes the reply, if any; an error closes the stream.
///
/// When the connection drops it keeps this value and connects again with
/// `resumptionToken(fullJID:)` as `StreamManagementRequest.resume`. On `.resumed` it
/// resends `resumed(acknowledgedByServer:)` (recording each again with `outbound(_:)`). On
/// `.resumptionFailed` it resends `takeUnacknowledgedForFreshSession(acknowledgedByServer:)`
/// on the fresh session once that is ready, and drops this value.
///
/// Counters wrap modulo 2^32, as the XEP requires.
public struct StreamManagementState: Sendable {
    /// What the server granted.
    public let enabled: StreamManagementEnabled
    /// How many stanzas may be sent unacknowledged since the last ack request before
    /// `shouldRequestAck` asks for another; at least 1.
    public let ackRequestInterval: Int
    /// How many stanzas from the server we handled (`h`), modulo 2^32.
    public private(set) var inboundCount: UInt32
    /// How many of our stanzas the server acknowledged, modulo 2^32.
    public private(set) var acknowledgedOutboundCount: UInt32
    /// Our stanzas the server has not acknowledged yet, oldest first. The first has the
    /// sequence number `acknowledgedOutboundCount &+ 1`.
    public private(set) var unacknowledged: [String] = []
    /// How many stanzas of `unacknowledged` were sent since the last ack request.
    private var unacknowledgedSinceLastRequest = 0

    /// The counters of a session on which the server just sent `<enabled/>`: all zero.
    public init(enabled: StreamManagementEnabled, ackRequestInterval: Int = 5) {
        self.init(
            enabled: enabled, ackRequestInterval: ackRequestInterval, inboundCount: 0, acknowledgedOutboundCount: 0)
    }

    /// Counters that start elsewhere than zero: for tests of the wrap-around at 2^32.
    init(
        enabled: StreamManagementEnabled, ackRequestInterval: Int, inboundCount: UInt32,
        acknowledgedOutboundCount: UInt32
    ) {
        self.enabled = enabled
        self.ackRequestInterval = max(1, ackRequestInterval)
        self.inboundCount = inboundCount
        self.acknowledgedOutboundCount = acknowledgedOutboundCount
    }

    /// How many of our stanzas were sent on this session, modulo 2^32.
    public var outboundCount: UInt32 {
        acknowledgedOutboundCount &+ UInt32(truncatingIfNeeded: unacknowledged.count)
    }

    /// Records a message, presence or iq just written, kept until the server acknowledges it.
    public mutating func outbound(_ renderedStanza: String) {
        unacknowledged.append(renderedStanza)
        unacknowledgedSinceLastRequest += 1
    }

    /// Counts one stanza from the server as handled.
    public mutating func inboundStanzaHandled() {
        inboundCount &+= 1
    }

    /// Whether the driver should write `requestAck()` now: once `ackRequestInterval`
    /// stanzas sent since the last request are still unacknowledged.
    public var shouldRequestAck: Bool {
        unacknowledgedSinceLastRequest >= ackRequestInterval
    }

    /// The ack request `<r/>` to write; the interval of `shouldRequestAck` starts again.
    public mutating func requestAck() -> String {
        unacknowledgedSinceLastRequest = 0
        return StreamManagementElement.request
    }

    /// Handles a stream-management element from the server: answers `<r/>` with our count,
    /// and drops the stanzas an `<a/>` acknowledges.
    ///
    /// Throws `.protocolViolation` for an `<a/>` whose `h` is not a number or acknowledges
    /// stanzas that were never sent (the driver then closes the stream with
    /// `<undefined-condition/>`, XEP-0198 §4), and for any other element.
    public mutating func handle(_ element: XMLElement) throws(ConnectionError) -> StreamManagementReply? {
        guard element.namespace == XMPPNamespace.streamManagement else {
            throw ConnectionError(
                .protocolViolation,
                "<\(element.name) xmlns='\(element.namespace)'> is not a stream management element: pass only elements in \(XMPPNamespace.streamManagement) to StreamManagementState.handle(_:)"
            )
        }
        switch element.name {
        case "r":
            return StreamManagementReply(text: StreamManagementElement.answer(inboundCount))
        case "a":
            let h = try StreamManagementElement.handledCount(of: element, required: true) ?? 0
            try acknowledge(upTo: h)
            return nil
        default:
            throw ConnectionError(
                .protocolViolation,
                "the server sent <\(element.name) xmlns='\(XMPPNamespace.streamManagement)'> on a session with stream management enabled, where only <r/> and <a/> may come"
            )
        }
    }

    /// The token to resume this session on a new connection, or `nil` if the server does
    /// not allow resumption.
    public func resumptionToken(fullJID: String) -> StreamResumptionToken? {
        enabled.resumptionID.map { StreamResumptionToken(id: $0, inboundCount: inboundCount, fullJID: fullJID) }
    }

    /// The session was resumed and the server says it handled `h` of our stanzas: returns
    /// the rest, oldest first, which the driver writes again (recording each with
    /// `outbound(_:)`, as for any stanza).
    ///
    /// Throws `.protocolViolation` if `h` acknowledges stanzas that were never sent.
    public mutating func resumed(acknowledgedByServer h: UInt32) throws(ConnectionError) -> [String] {
        try acknowledge(upTo: h)
        return takeUnacknowledged()
    }

    /// Resumption failed: returns the stanzas to write again on the fresh session, oldest
    /// first, leaving none here. `h`, if the server's `<failed/>` gave one, drops those it
    /// handled; an `h` that does not fit what was sent is ignored, so that nothing is lost.
    public mutating func takeUnacknowledgedForFreshSession(acknowledgedByServer h: UInt32? = nil) -> [String] {
        if let h {
            let count = h &- acknowledgedOutboundCount
            if count <= unacknowledged.count {
                unacknowledged.removeFirst(Int(count))
            }
        }
        return takeUnacknowledged()
    }

    /// Whether the stream management counters count `element` (XEP-0198 §4): a message,
    /// presence or iq in `jabber:client`.
    public static func isCountedStanza(_ element: XMLElement) -> Bool {
        element.namespace == XMPPNamespace.client && ["message", "presence", "iq"].contains(element.name)
    }

    // MARK: Helpers

    private mutating func acknowledge(upTo h: UInt32) throws(ConnectionError) {
        let count = h &- acknowledgedOutboundCount
        guard count <= unacknowledged.count else {
            let sent = outboundCount
            // A backwards h lies closer below the previous one than a runaway h above `sent`.
            if acknowledgedOutboundCount &- h < h &- sent {
                throw ConnectionError(
                    .protocolViolation,
                    "the server acknowledged \(h) stanza(s) after it had acknowledged \(acknowledgedOutboundCount): its stream management count went backwards; close the stream with <undefined-condition/> (XEP-0198 §4)"
                )
            }
            throw ConnectionError(
                .protocolViolation,
                "the server acknowledged \(h) stanza(s), while this client only sent \(sent) so far: its stream management count is wrong; close the stream with <undefined-condition/> (XEP-0198 §4)"
            )
        }
        unacknowledged.removeFirst(Int(count))
        acknowledgedOutboundCount = h
        unacknowledgedSinceLastRequest = min(unacknowledgedSinceLastRequest, unacknowledged.count)
    }

    private mutating func takeUnacknowledged() -> [String] {
        // The server counted only what it acknowledged: the stanzas written again take the
        // sequence numbers after that.
        let stanzas = unacknowledged
        unacknowledged = []
        unacknowledgedSinceLastRequest = 0
        return stanzas
    }
}

/// The XEP-0198 elements the client writes, and the reading of `h`.
enum StreamManagementElement {
    /// `<enable/>`, asking for resumption.
    static let enable = render("enable", ["resume": "true"])

    /// `<r/>`.
    static let request = render("r", [:])

    /// `<a h='N'/>`.
    static func answer(_ h: UInt32) -> String {
        render("a", ["h": String(h)])
    }

    /// `<resume previd='ID' h='N'/>`.
    static func resume(_ token: StreamResumptionToken) -> String {
        render("resume", ["previd": token.id, "h": String(token.inboundCount)])
    }

    /// The `h` of `<a/>`, `<resumed/>` or `<failed/>`: `nil` if absent and not `required`.
    static func handledCount(of element: XMLElement, required: Bool) throws(ConnectionError) -> UInt32? {
        guard let text = element.attribute("h") else {
            if !required { return nil }
            throw ConnectionError(
                .protocolViolation,
                "the server's <\(element.name) xmlns='\(XMPPNamespace.streamManagement)'> has no 'h' attribute (XEP-0198 requires the count of handled stanzas)"
            )
        }
        guard let h = UInt32(text) else {
            throw ConnectionError(
                .protocolViolation,
                "the server's <\(element.name) xmlns='\(XMPPNamespace.streamManagement)'> has h='\(text)', which is not a count from 0 to 4294967295 (XEP-0198)"
            )
        }
        return h
    }

    /// Attributes in the given order (dictionary literals keep it).
    private static func render(_ name: String, _ attributes: KeyValuePairs<String, String>) -> String {
        XMLElement(
            name: name, namespace: XMPPNamespace.streamManagement,
            attributes: attributes.map { XMLAttribute(name: $0.key, value: $0.value) }
        ).rendered(defaultNamespace: XMPPNamespace.client)
    }
}
