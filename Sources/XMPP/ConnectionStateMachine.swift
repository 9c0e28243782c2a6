/// The client side of an XMPP stream (RFC 6120) from the first header to a ready session:
/// STARTTLS, SASL, stream restarts, resource binding and XEP-0198 stream management
/// (enabling it, or resuming an earlier session), as a value-type state machine.
///
/// It performs no I/O and reads no clock. Its driver feeds it the `XMLStreamEvent`s its
/// parser produces and carries out the `ConnectionAction`s it returns, in order:
///
/// ```
/// var machine = XMPPConnectionStateMachine(configuration: configuration)
/// perform(machine.start())                       // send the stream header
/// for event in try parser.feed(bytes) {
///     perform(machine.handle(event))             // .send, .startTLS, .resetParser, .ready, .fail, ...
/// }
/// perform(machine.tlsEstablished())              // once the TLS handshake of .startTLS is done
/// ```
///
/// After authentication, with stream management offered: for `.resume(token)` it sends
/// `<resume/>` instead of binding and returns `.resumed`, or `.resumptionFailed` and goes on
/// with a fresh session; on a fresh session, unless stream management is `.disabled`, it
/// sends `<enable/>` after binding and returns `.ready` only once the server answers.
/// Acks and counters on the ready session are the driver's, through
/// `StreamManagementState`.
///
/// After `.fail` the machine ignores every event; the driver closes the connection.
public struct XMPPConnectionStateMachine: Sendable {
    public let configuration: XMPPConnectionConfiguration
    private var state: State = .idle
    /// The SASL mechanism chosen for this connection, once authentication has begun.
    public private(set) var negotiatedMechanism: SASLMechanism?

    /// How far the stream has come: each restart opens a stream at a later stage.
    private enum Stage: Sendable {
        /// Plaintext, not authenticated.
        case initial
        /// Encrypted (or TLS disabled for testing), not authenticated.
        case secured
        /// Authenticated: only resource binding (or resumption) and stream management are left.
        case authenticated
    }

    /// One SASL exchange in progress.
    private enum Exchange: Sendable {
        case plain
        case scram(SCRAMClient, SCRAMStep)
    }

    /// Which SCRAM message the server sends next.
    private enum SCRAMStep: Sendable {
        case serverFirst
        case serverFinal
        /// The server-final message arrived in a last challenge (RFC 6120 §6.3.10); only
        /// `<success>` is left.
        case verified
    }

    /// Where the connection is.
    private enum State: Sendable {
        /// `start()` not called yet.
        case idle
        /// Our header is sent; the server's header is expected.
        case awaitingStreamHeader(Stage, encrypted: Bool)
        /// The server's header arrived; `<stream:features>` is expected.
        case awaitingFeatures(Stage, encrypted: Bool)
        /// `<starttls/>` sent; `<proceed/>` is expected.
        case awaitingProceed
        /// `.startTLS` returned; the driver calls `tlsEstablished()` when the handshake ends.
        case awaitingTLSEstablished
        /// `<auth>` sent; challenges, then `<success>` or `<failure>`, are expected.
        case authenticating(Exchange, mechanism: SASLMechanism, encrypted: Bool)
        /// The bind request is sent; its result is expected.
        case awaitingBindResult(streamManagementOffered: Bool)
        /// `<resume/>` is sent; `<resumed/>` or `<failed/>` is expected.
        case awaitingResumed(StreamResumptionToken)
        /// The resource is bound and `<enable/>` sent; `<enabled/>` or `<failed/>` is
        /// expected, and stanzas are delivered meanwhile.
        case awaitingEnabled(fullJID: String)
        /// The session is ready; stanzas are delivered.
        case ready(fullJID: String)
        /// The connection failed; every event is ignored.
        case failed
    }

    /// The id of the resource binding request.
    static let bindRequestID = "bind_1"

    public init(configuration: XMPPConnectionConfiguration) {
        self.configuration = configuration
    }

    /// The full JID the server bound, once the session is ready.
    public var fullJID: String? {
        if case .ready(let jid) = state { jid } else { nil }
    }

    /// Opens the stream: the header to the JID's domain.
    public mutating func start() -> [ConnectionAction] {
        guard case .idle = state else {
            return fail(.protocolViolation, "start() was called on a connection that has already started")
        }
        state =
            configuration.tlsPolicy == .direct
            ? .awaitingStreamHeader(.secured, encrypted: true) : .awaitingStreamHeader(.initial, encrypted: false)
        return [.send(ConnectionStreamHeader.opening(to: configuration.domain))]
    }

    /// The TLS handshake that `.startTLS` asked for has finished: the stream restarts.
    public mutating func tlsEstablished() -> [ConnectionAction] {
        guard case .awaitingTLSEstablished = state else {
            return fail(.protocolViolation, "tlsEstablished() was called although no TLS handshake was requested")
        }
        return restartStream(at: .secured, encrypted: true)
    }

    /// The next event from the server's stream.
    public mutating func handle(_ event: XMLStreamEvent) -> [ConnectionAction] {
        if case .failed = state { return [] }
        switch event {
        case .streamClosed:
            if case .ready = state {
                return fail(.streamClosed, "the server closed the stream")
            }
            return fail(.streamClosed, "the server closed the stream while \(phrase)")
        case .stanza(let element) where element.name == "error" && element.namespace == XMPPNamespace.stream:
            return failWithStreamError(element)
        case .streamOpened(let header):
            return handleStreamHeader(header)
        case .stanza(let element):
            return handleElement(element)
        }
    }

    // MARK: Events

    private mutating func handleStreamHeader(_ header: XMLElement) -> [ConnectionAction] {
        guard case .awaitingStreamHeader(let stage, let encrypted) = state else {
            return fail(.protocolViolation, "the server opened a new stream while \(phrase)")
        }
        guard header.name == "stream", header.namespace == XMPPNamespace.stream else {
            return fail(
                .protocolViolation,
                "the server's stream begins with <\(header.name)> in namespace '\(header.namespace)', not <stream:stream>: is this an XMPP server?"
            )
        }
        guard let version = header.attribute("version"), version.hasPrefix("1.") else {
            return fail(
                .protocolViolation,
                "the server speaks stream version \(header.attribute("version") ?? "(none)"), expected 1.x (RFC 6120)")
        }
        state = .awaitingFeatures(stage, encrypted: encrypted)
        return []
    }

    private mutating func handleElement(_ element: XMLElement) -> [ConnectionAction] {
        switch state {
        case .awaitingFeatures(let stage, let encrypted):
            guard element.name == "features", element.namespace == XMPPNamespace.stream else {
                break
            }
            switch stage {
            case .initial: return negotiateTLS(features: element)
            case .secured: return startAuthentication(features: element, encrypted: encrypted)
            case .authenticated: return bindResource(features: element)
            }
        case .awaitingProceed:
            guard element.namespace == XMPPNamespace.tls else { break }
            if element.name == "proceed" {
                state = .awaitingTLSEstablished
                return [.startTLS]
            }
            if element.name == "failure" {
                return fail(
                    .tlsUnavailable,
                    "the server \(configuration.domain) failed to start TLS; check its certificate and TLS configuration"
                )
            }
        case .authenticating(let exchange, let mechanism, let encrypted):
            guard element.namespace == XMPPNamespace.sasl else { break }
            switch element.name {
            case "challenge":
                return answerChallenge(element, exchange: exchange, mechanism: mechanism, encrypted: encrypted)
            case "success": return completeAuthentication(element, exchange: exchange, mechanism: mechanism)
            case "failure": return fail(.authenticationFailed, describeSASLFailure(element, mechanism: mechanism))
            default: break
            }
        case .awaitingBindResult(let streamManagementOffered):
            guard element.name == "iq", element.namespace == XMPPNamespace.client,
                element.attribute("id") == Self.bindRequestID
            else { break }
            return completeBinding(element, streamManagementOffered: streamManagementOffered)
        case .awaitingResumed(let token):
            guard element.namespace == XMPPNamespace.streamManagement else { break }
            switch element.name {
            case "resumed": return completeResumption(element, token: token)
            case "failed": return bindAfterFailedResumption(element, token: token)
            default: break
            }
        case .awaitingEnabled(let fullJID):
            guard element.namespace == XMPPNamespace.streamManagement else {
                return [.deliver(element)]
            }
            switch element.name {
            case "enabled": return completeEnabling(element, fullJID: fullJID)
            case "failed":
                // Not fatal: the session works without stream management.
                state = .ready(fullJID: fullJID)
                return [.ready(fullJID: fullJID, streamManagement: nil)]
            default: break
            }
        case .ready:
            return [.deliver(element)]
        case .idle, .awaitingStreamHeader, .awaitingTLSEstablished, .failed:
            break
        }
        return fail(
            .protocolViolation, "the server sent <\(element.name) xmlns='\(element.namespace)'> while \(phrase)")
    }

    // MARK: Steps

    private mutating func negotiateTLS(features: XMLElement) -> [ConnectionAction] {
        let starttls = features.child(named: "starttls", namespace: XMPPNamespace.tls)
        switch configuration.tlsPolicy {
        case .required:
            guard starttls != nil else {
                return fail(
                    .tlsUnavailable,
                    "the server \(configuration.domain) does not offer STARTTLS, and TLS is required: enable TLS on the server (or connect with direct TLS); disable TLS only for a local test server"
                )
            }
            state = .awaitingProceed
            return [
                .send(
                    XMLElement(name: "starttls", namespace: XMPPNamespace.tls).rendered(
                        defaultNamespace: XMPPNamespace.client))
            ]
        case .disabledForTesting:
            if starttls?.child(named: "required", namespace: XMPPNamespace.tls) != nil {
                return fail(
                    .tlsUnavailable,
                    "the server \(configuration.domain) requires TLS, but TLS is disabled by the configuration: set the TLS policy to required"
                )
            }
            return startAuthentication(features: features, encrypted: false)
        case .direct:
            // Unreachable: a direct TLS stream starts at the secured stage.
            return startAuthentication(features: features, encrypted: true)
        }
    }

    private mutating func startAuthentication(features: XMLElement, encrypted: Bool) -> [ConnectionAction] {
        let offered =
            features.child(named: "mechanisms", namespace: XMPPNamespace.sasl)?
            .children(named: "mechanism", namespace: XMPPNamespace.sasl).map(\.text) ?? []
        let mechanism: SASLMechanism
        let exchange: Exchange
        let initialResponse: [UInt8]
        do {
            mechanism = try SASLMechanism.strongest(offered: offered, streamIsEncrypted: encrypted)
            negotiatedMechanism = mechanism
            if let hash = mechanism.scramHash {
                let scram = try configuration.makeSCRAMClient(hash, configuration.localpart, configuration.password)
                exchange = .scram(scram, .serverFirst)
                initialResponse = scram.initialMessage()
            } else {
                exchange = .plain
                initialResponse = try PlainClient(username: configuration.localpart, password: configuration.password)
                    .initialMessage()
            }
        } catch {
            return failSASL(error)
        }
        state = .authenticating(exchange, mechanism: mechanism, encrypted: encrypted)
        let auth = XMLElement(
            name: "auth", namespace: XMPPNamespace.sasl,
            attributes: [XMLAttribute(name: "mechanism", value: mechanism.rawValue)],
            children: [.text(Crypto.base64Encode(initialResponse))])
        return [.send(auth.rendered(defaultNamespace: XMPPNamespace.client))]
    }

    private mutating func answerChallenge(
        _ challenge: XMLElement, exchange: Exchange, mechanism: SASLMechanism, encrypted: Bool
    ) -> [ConnectionAction] {
        guard case .scram(var scram, let step) = exchange, step != .verified else {
            return fail(
                .protocolViolation, "the server sent a SASL challenge during \(mechanism.rawValue), which has none left"
            )
        }
        guard let data = Self.decodeSASLData(challenge.text) else {
            return fail(.protocolViolation, "the server's SASL challenge \"\(challenge.text)\" is not Base64")
        }
        let response: [UInt8]
        let next: SCRAMStep
        do {
            if step == .serverFirst {
                response = try scram.respond(toChallenge: data)
                next = .serverFinal
            } else {
                // RFC 6120 §6.3.10: the server-final message in a last challenge, answered empty.
                try scram.verify(success: data)
                response = []
                next = .verified
            }
        } catch {
            return failSASL(error)
        }
        state = .authenticating(.scram(scram, next), mechanism: mechanism, encrypted: encrypted)
        let element = XMLElement(
            name: "response", namespace: XMPPNamespace.sasl,
            children: response.isEmpty ? [] : [.text(Crypto.base64Encode(response))])
        return [.send(element.rendered(defaultNamespace: XMPPNamespace.client))]
    }

    private mutating func completeAuthentication(
        _ success: XMLElement, exchange: Exchange, mechanism: SASLMechanism
    ) -> [ConnectionAction] {
        guard let data = Self.decodeSASLData(success.text) else {
            return fail(
                .protocolViolation, "the additional data of the server's SASL success \"\(success.text)\" is not Base64"
            )
        }
        if case .scram(var scram, let step) = exchange, step != .verified {
            do {
                try scram.verify(success: data)
            } catch {
                return failSASL(error)
            }
        }
        return restartStream(at: .authenticated, encrypted: true)
    }

    private mutating func bindResource(features: XMLElement) -> [ConnectionAction] {
        guard features.child(named: "bind", namespace: XMPPNamespace.bind) != nil else {
            return fail(.protocolViolation, "the server offers no resource binding after authentication (RFC 6120 §7)")
        }
        let streamManagementOffered =
            features.child(named: "sm", namespace: XMPPNamespace.streamManagement) != nil
        guard case .resume(let token) = configuration.streamManagement else {
            return requestBinding(streamManagementOffered: streamManagementOffered)
        }
        guard streamManagementOffered else {
            let reason =
                "the server \(configuration.domain) no longer offers stream management, so the session '\(token.id)' cannot be resumed"
            return [.resumptionFailed(reason: reason, acknowledgedByServer: nil)]
                + requestBinding(streamManagementOffered: false)
        }
        state = .awaitingResumed(token)
        return [.send(StreamManagementElement.resume(token))]
    }

    private mutating func requestBinding(streamManagementOffered: Bool) -> [ConnectionAction] {
        state = .awaitingBindResult(streamManagementOffered: streamManagementOffered)
        let resource =
            configuration.resource.map {
                [XMLNode.element(XMLElement(name: "resource", namespace: XMPPNamespace.bind, children: [.text($0)]))]
            } ?? []
        let request = XMLElement(
            name: "iq", namespace: XMPPNamespace.client,
            attributes: [
                XMLAttribute(name: "type", value: "set"), XMLAttribute(name: "id", value: Self.bindRequestID),
            ],
            children: [.element(XMLElement(name: "bind", namespace: XMPPNamespace.bind, children: resource))])
        return [.send(request.rendered(defaultNamespace: XMPPNamespace.client))]
    }

    private mutating func completeBinding(_ iq: XMLElement, streamManagementOffered: Bool) -> [ConnectionAction] {
        switch iq.attribute("type") {
        case "result":
            let jid =
                iq.child(named: "bind", namespace: XMPPNamespace.bind)?
                .child(named: "jid", namespace: XMPPNamespace.bind)?.text ?? ""
            guard !jid.isEmpty else {
                return fail(.protocolViolation, "the server's answer to resource binding holds no <jid>")
            }
            guard streamManagementOffered, configuration.streamManagement != .disabled else {
                state = .ready(fullJID: jid)
                return [.ready(fullJID: jid, streamManagement: nil)]
            }
            state = .awaitingEnabled(fullJID: jid)
            return [.send(StreamManagementElement.enable)]
        case "error":
            let error = iq.child(named: "error")
            let condition =
                error?.elements.first { $0.namespace == XMPPNamespace.stanzaErrors && $0.name != "text" }?.name
                ?? "undefined-condition"
            let text = error?.child(named: "text", namespace: XMPPNamespace.stanzaErrors)?.text
            let hint = condition == "conflict" ? ": another session uses this resource; choose another resource" : ""
            return fail(
                .bindFailed,
                "the server refused to bind the resource \(configuration.resource.map { "\"\($0)\"" } ?? "(server-chosen)") with \(condition)\(text.map { " (\($0))" } ?? "")\(hint)"
            )
        default:
            return fail(
                .protocolViolation,
                "the server answered resource binding with an iq of type \(iq.attribute("type") ?? "(none)")")
        }
    }

    private mutating func completeResumption(
        _ resumed: XMLElement, token: StreamResumptionToken
    ) -> [ConnectionAction] {
        guard resumed.attribute("previd") == token.id else {
            return fail(
                .protocolViolation,
                "the server resumed the session '\(resumed.attribute("previd") ?? "(none)")', but this client asked to resume '\(token.id)'"
            )
        }
        let acknowledged: UInt32
        do {
            acknowledged = try StreamManagementElement.handledCount(of: resumed, required: true) ?? 0
        } catch {
            return fail(error.kind, error.detail)
        }
        state = .ready(fullJID: token.fullJID)
        return [.resumed(previousID: token.id, acknowledgedByServer: acknowledged)]
    }

    private mutating func bindAfterFailedResumption(
        _ failed: XMLElement, token: StreamResumptionToken
    ) -> [ConnectionAction] {
        let condition =
            failed.elements.first { $0.namespace == XMPPNamespace.stanzaErrors && $0.name != "text" }?.name
            ?? "undefined-condition"
        let text = failed.child(named: "text", namespace: XMPPNamespace.stanzaErrors)?.text
        let advice =
            condition == "item-not-found"
            ? ": the session expired on the server (or the server restarted)" : ""
        let reason =
            "the server could not resume the session '\(token.id)' (\(condition)\(text.map { ": \($0)" } ?? ""))\(advice); starting a fresh session"
        // An unreadable h only costs duplicates: every unacknowledged stanza is resent.
        let acknowledged = try? StreamManagementElement.handledCount(of: failed, required: false)
        return [.resumptionFailed(reason: reason, acknowledgedByServer: acknowledged)]
            + requestBinding(streamManagementOffered: true)
    }

    private mutating func completeEnabling(_ enabled: XMLElement, fullJID: String) -> [ConnectionAction] {
        let resumable = ["true", "1"].contains(enabled.attribute("resume"))
        let id = enabled.attribute("id").flatMap { $0.isEmpty ? nil : $0 }
        // A malformed max only loses a hint; the session goes on.
        let maximum = enabled.attribute("max").flatMap { UInt32($0) }.map { Duration.seconds(Int64($0)) }
        let granted = StreamManagementEnabled(
            resumptionID: resumable ? id : nil, maximumResumptionTime: maximum,
            location: enabled.attribute("location"))
        state = .ready(fullJID: fullJID)
        return [.ready(fullJID: fullJID, streamManagement: granted)]
    }

    // MARK: Helpers

    private mutating func restartStream(at stage: Stage, encrypted: Bool) -> [ConnectionAction] {
        state = .awaitingStreamHeader(stage, encrypted: encrypted)
        return [.resetParser, .send(ConnectionStreamHeader.opening(to: configuration.domain))]
    }

    private mutating func fail(_ kind: ConnectionError.Kind, _ detail: String) -> [ConnectionAction] {
        state = .failed
        return [.fail(ConnectionError(kind, detail))]
    }

    /// A SASL error from choosing a mechanism or checking the server's messages.
    private mutating func failSASL(_ error: SASLError) -> [ConnectionAction] {
        if error.kind == .noUsableMechanism {
            return fail(
                .noUsableMechanism,
                "cannot authenticate as \(configuration.bareJID): \(error.detail)")
        }
        return fail(.authenticationFailed, "authentication as \(configuration.bareJID) failed: \(error)")
    }

    /// Where the connection is, for error messages.
    private var phrase: String {
        switch state {
        case .idle: "not started"
        case .awaitingStreamHeader: "waiting for the stream header"
        case .awaitingFeatures(.initial, _): "waiting for the stream features"
        case .awaitingFeatures(.secured, _): "waiting for the stream features after TLS"
        case .awaitingFeatures(.authenticated, _): "waiting for the stream features after authentication"
        case .awaitingProceed: "waiting for the answer to STARTTLS"
        case .awaitingTLSEstablished: "waiting for the TLS handshake"
        case .authenticating(_, let mechanism, _): "authenticating with \(mechanism.rawValue)"
        case .awaitingBindResult: "waiting for resource binding"
        case .awaitingResumed: "waiting for the answer to stream resumption"
        case .awaitingEnabled: "waiting for the answer to enabling stream management"
        case .ready: "the session is ready"
        case .failed: "the connection has failed"
        }
    }

    /// Base64 SASL data; empty, or "=" (RFC 6120 §6.4.2), for none.
    private static func decodeSASLData(_ text: String) -> [UInt8]? {
        let trimmed = text.filter { !$0.isWhitespace }
        if trimmed.isEmpty || trimmed == "=" { return [] }
        return Crypto.base64Decode(trimmed)
    }

    private func describeSASLFailure(_ failure: XMLElement, mechanism: SASLMechanism) -> String {
        let condition =
            failure.elements.first { $0.namespace == XMPPNamespace.sasl && $0.name != "text" }?.name
            ?? "undefined-condition"
        let text = failure.child(named: "text", namespace: XMPPNamespace.sasl)?.text
        let advice: String =
            switch condition {
            case "not-authorized":
                "the server rejected the credentials for \(configuration.bareJID): check the user name and password"
            case "account-disabled": "the account \(configuration.bareJID) is disabled: ask the server's administrator"
            case "credentials-expired": "the password of \(configuration.bareJID) has expired: set a new one"
            case "encryption-required": "the server accepts \(mechanism.rawValue) only over TLS: require TLS"
            case "temporary-auth-failure": "the server failed temporarily: try again later"
            default: "the server refused authentication as \(configuration.bareJID) with \(mechanism.rawValue)"
            }
        return "\(advice) (SASL failure \(condition)\(text.map { ": \($0)" } ?? ""))"
    }

    /// A stream error: `host-unknown` ends the attempts (the server does not serve the
    /// domain), `see-other-host` names the server to try instead; the rest may pass.
    private mutating func failWithStreamError(_ error: XMLElement) -> [ConnectionAction] {
        let conditionElement = error.elements.first { $0.namespace == XMPPNamespace.streamErrors && $0.name != "text" }
        let condition = conditionElement?.name ?? "undefined-condition"
        let text = error.child(named: "text", namespace: XMPPNamespace.streamErrors)?.text
        let said = "the server closed the stream with \(condition)\(text.map { ": \($0)" } ?? "")"
        switch condition {
        case "host-unknown":
            return fail(
                .hostUnknown,
                "\(said): it does not serve \(configuration.domain); check the JID's domain and the host you connect to")
        case "see-other-host":
            let target = conditionElement?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let defaultPort = configuration.tlsPolicy == .direct ? 5223 : 5222
            guard let other = try? ServerAddress(parsing: target, defaultPort: defaultPort) else {
                return fail(.streamError, "\(said) (without an address we can use: \"\(target)\")")
            }
            state = .failed
            return [.fail(ConnectionError(.redirected, "the server sent us to \(other) (see-other-host)", otherHost: other))]
        default:
            return fail(.streamError, said)
        }
    }
}
