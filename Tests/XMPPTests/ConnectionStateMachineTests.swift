import Testing
import XMPP

/// A scripted server: its text goes through a real `XMLStreamParser` into the machine,
/// and the test plays the driver (resetting the parser when asked).
private struct ScriptedConnection {
    var machine: XMPPConnectionStateMachine
    let parser = XMLStreamParser()

    init(_ configuration: XMPPConnectionConfiguration) {
        machine = XMPPConnectionStateMachine(configuration: configuration)
    }

    /// A connection whose machine has started (it sent its stream header).
    static func started(_ configuration: XMPPConnectionConfiguration) -> ScriptedConnection {
        var connection = ScriptedConnection(configuration)
        _ = connection.machine.start()
        return connection
    }

    /// Feeds the server's `text` and returns every action the machine asked for.
    mutating func server(_ text: String) throws -> [ConnectionAction] {
        var actions: [ConnectionAction] = []
        for event in try parser.feed(Array(text.utf8)) {
            actions += perform(machine.handle(event))
        }
        return actions
    }

    mutating func tlsEstablished() -> [ConnectionAction] {
        perform(machine.tlsEstablished())
    }

    private func perform(_ actions: [ConnectionAction]) -> [ConnectionAction] {
        if actions.contains(.resetParser) { parser.reset() }
        return actions
    }
}

private enum Server {
    static let header = """
        <?xml version='1.0'?><stream:stream xmlns='jabber:client' \
        xmlns:stream='http://etherx.jabber.org/streams' from='example.org' id='s1' version='1.0'>
        """

    static func features(_ inner: String) -> String {
        "<stream:features>\(inner)</stream:features>"
    }

    static let startTLSRequired =
        "<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'><required/></starttls>"

    static func mechanisms(_ names: String...) -> String {
        "<mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>"
            + names.map { "<mechanism>\($0)</mechanism>" }.joined() + "</mechanisms>"
    }

    static func sasl(_ name: String, _ data: String) -> String {
        "<\(name) xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(Crypto.base64Encode(Array(data.utf8)))</\(name)>"
    }

    static let bindAndStreamManagement =
        "<bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/><sm xmlns='urn:xmpp:sm:3'/>"

    static let bindOnly = "<bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/>"

    static func bindResult(_ jid: String) -> String {
        "<iq type='result' id='bind_1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>\(jid)</jid></bind></iq>"
    }
}

private let clientHeader =
    "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' to='example.org' version='1.0'>"

private func configuration(
    _ vector: SCRAMVector = .sha1, tls: XMPPConnectionConfiguration.TLSPolicy = .required, password: String = "pencil",
    streamManagement: StreamManagementRequest = .enable
) throws -> XMPPConnectionConfiguration {
    let nonce = vector.clientNonce
    return try XMPPConnectionConfiguration(
        jid: "user@example.org/canvas", password: password, tlsPolicy: tls, streamManagement: streamManagement,
        makeSCRAMClient: { hash, username, password throws(SASLError) in
            try SCRAMClient(hash: hash, username: username, password: password, clientNonce: nonce)
        })
}

private func saslSend(_ name: String, _ data: String, mechanism: String? = nil) -> ConnectionAction {
    let attribute = mechanism.map { " mechanism='\($0)'" } ?? ""
    return .send(
        "<\(name) xmlns='urn:ietf:params:xml:ns:xmpp-sasl'\(attribute)>\(Crypto.base64Encode(Array(data.utf8)))</\(name)>"
    )
}

private let bindRequest = ConnectionAction.send(
    "<iq type='set' id='bind_1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>canvas</resource></bind></iq>"
)

private let enable = ConnectionAction.send("<enable xmlns='urn:xmpp:sm:3' resume='true'/>")

/// A connection without TLS, through SCRAM-SHA-1 and the restart after authentication:
/// the server's post-authentication features come next.
private func authenticated(
    streamManagement: StreamManagementRequest = .enable
) throws -> ScriptedConnection {
    let vector = SCRAMVector.sha1
    var connection = ScriptedConnection(
        try configuration(vector, tls: .disabledForTesting, streamManagement: streamManagement))
    _ = connection.machine.start()
    _ = try connection.server(Server.header + Server.features(Server.mechanisms("SCRAM-SHA-1")))
    _ = try connection.server(Server.sasl("challenge", vector.serverFirst))
    #expect(try connection.server(Server.sasl("success", vector.serverFinal)) == [.resetParser, .send(clientHeader)])
    return connection
}

private func failure(in actions: [ConnectionAction]) -> ConnectionError? {
    guard actions.count == 1, case .fail(let error) = actions[0] else { return nil }
    return error
}

@Suite("XMPPConnectionStateMachine")
struct ConnectionStateMachineTests {
    @Test func streamHeader() {
        #expect(ConnectionStreamHeader.opening(to: "example.org") == clientHeader)
    }

    /// STARTTLS, SCRAM-SHA-1 with the RFC 5802 exchange, restart, bind, ready.
    @Test func happyPathWithStartTLSAndSCRAMSHA1() throws {
        let vector = SCRAMVector.sha1
        var connection = ScriptedConnection(try configuration(vector))
        #expect(connection.machine.start() == [.send(clientHeader)])
        #expect(try connection.server(Server.header) == [])
        #expect(
            try connection.server(Server.features(Server.startTLSRequired + Server.mechanisms("SCRAM-SHA-1", "PLAIN")))
                == [.send("<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>")])
        #expect(try connection.server("<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>") == [.startTLS])
        #expect(connection.tlsEstablished() == [.resetParser, .send(clientHeader)])

        #expect(
            try connection.server(Server.header + Server.features(Server.mechanisms("SCRAM-SHA-1", "PLAIN")))
                == [saslSend("auth", vector.clientFirst, mechanism: "SCRAM-SHA-1")])
        #expect(
            try connection.server(Server.sasl("challenge", vector.serverFirst)) == [
                saslSend("response", vector.clientFinal)
            ])
        #expect(
            try connection.server(Server.sasl("success", vector.serverFinal)) == [.resetParser, .send(clientHeader)])

        #expect(
            try connection.server(Server.header + Server.features(Server.bindAndStreamManagement))
                == [
                    .send(
                        "<iq type='set' id='bind_1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>canvas</resource></bind></iq>"
                    )
                ])
        #expect(try connection.server(Server.bindResult("user@example.org/canvas")) == [enable])
        #expect(connection.machine.fullJID == nil, "the session is not ready before <enabled/>")
        #expect(
            try connection.server("<enabled xmlns='urn:xmpp:sm:3' id='sm-1' resume='true' max='300'/>")
                == [
                    .ready(
                        fullJID: "user@example.org/canvas",
                        streamManagement: StreamManagementEnabled(
                            resumptionID: "sm-1", maximumResumptionTime: .seconds(300)))
                ])
        #expect(connection.machine.fullJID == "user@example.org/canvas")

        let message = "<message from='room@muc.example.org/alice' type='groupchat'><body>hi</body></message>"
        let delivered = try connection.server(message)
        guard case .deliver(let stanza) = delivered.first else {
            Issue.record("expected the message delivered, got \(delivered)")
            return
        }
        #expect(stanza.name == "message" && stanza.child(named: "body")?.text == "hi")
    }

    /// With TLS disabled for testing and SCRAM-SHA-256 offered beside SCRAM-SHA-1 and PLAIN,
    /// the RFC 7677 exchange runs; the server-final message comes in a last challenge.
    @Test func scramSHA256IsChosenWhenOffered() throws {
        let vector = SCRAMVector.sha256
        var connection = ScriptedConnection(try configuration(vector, tls: .disabledForTesting))
        _ = connection.machine.start()
        #expect(
            try connection.server(
                Server.header + Server.features(Server.mechanisms("PLAIN", "SCRAM-SHA-1", "SCRAM-SHA-256")))
                == [saslSend("auth", vector.clientFirst, mechanism: "SCRAM-SHA-256")])
        #expect(
            try connection.server(Server.sasl("challenge", vector.serverFirst)) == [
                saslSend("response", vector.clientFinal)
            ])
        #expect(
            try connection.server(Server.sasl("challenge", vector.serverFinal))
                == [.send("<response xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>")])
        #expect(
            try connection.server("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>") == [
                .resetParser, .send(clientHeader),
            ])
        #expect(try connection.server(Server.header + Server.features(Server.bindOnly)).count == 1)
        #expect(
            try connection.server(Server.bindResult("user@example.org/canvas"))
                == [.ready(fullJID: "user@example.org/canvas", streamManagement: nil)])
    }

    @Test func plainIsRefusedWithoutTLS() throws {
        var connection = ScriptedConnection(try configuration(tls: .disabledForTesting))
        _ = connection.machine.start()
        let error = failure(in: try connection.server(Server.header + Server.features(Server.mechanisms("PLAIN"))))
        #expect(error?.kind == .noUsableMechanism)
        #expect(
            error?.detail
                == "cannot authenticate as user@example.org: the server offers only PLAIN, which is refused without TLS")
    }

    @Test func plainIsUsedInsideTLSWhenAlone() throws {
        var connection = ScriptedConnection(try configuration())
        _ = connection.machine.start()
        _ = try connection.server(Server.header + Server.features(Server.startTLSRequired))
        _ = try connection.server("<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>")
        _ = connection.tlsEstablished()
        #expect(
            try connection.server(Server.header + Server.features(Server.mechanisms("PLAIN")))
                == [saslSend("auth", "\0user\0pencil", mechanism: "PLAIN")])
    }

    @Test func tlsRequiredButNotOffered() throws {
        var connection = ScriptedConnection(try configuration())
        _ = connection.machine.start()
        let error = failure(
            in: try connection.server(Server.header + Server.features(Server.mechanisms("SCRAM-SHA-1"))))
        #expect(error?.kind == .tlsUnavailable)
        #expect(
            error?.detail
                == "the server example.org does not offer STARTTLS, and TLS is required: enable TLS on the server (or connect with direct TLS); disable TLS only for a local test server"
        )
        #expect(try connection.server(Server.sasl("success", "")) == [], "a failed machine ignores later events")
    }

    @Test func serverRequiresTLSThatIsDisabled() throws {
        var connection = ScriptedConnection(try configuration(tls: .disabledForTesting))
        _ = connection.machine.start()
        let error = failure(in: try connection.server(Server.header + Server.features(Server.startTLSRequired)))
        #expect(error?.kind == .tlsUnavailable)
        #expect(error?.detail.contains("requires TLS, but TLS is disabled") == true)
    }

    @Test func notAuthorizedNamesTheCredentials() throws {
        var connection = ScriptedConnection(try configuration(tls: .disabledForTesting))
        _ = connection.machine.start()
        _ = try connection.server(Server.header + Server.features(Server.mechanisms("SCRAM-SHA-1")))
        let error = failure(
            in: try connection.server(
                "<failure xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><not-authorized/><text>Invalid username or password</text></failure>"
            ))
        #expect(error?.kind == .authenticationFailed)
        #expect(
            error?.detail
                == "the server rejected the credentials for user@example.org: check the user name and password (SASL failure not-authorized: Invalid username or password)"
        )
    }

    @Test func streamErrorNamesTheCondition() throws {
        var connection = ScriptedConnection(try configuration())
        _ = connection.machine.start()
        let error = failure(
            in: try connection.server(
                Server.header
                    + "<stream:error><host-unknown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/><text xmlns='urn:ietf:params:xml:ns:xmpp-streams'>No such domain</text></stream:error>"
            ))
        #expect(error?.kind == .hostUnknown && error?.kind.isPermanent == true)
        #expect(
            error?.detail
                == "the server closed the stream with host-unknown: No such domain: it does not serve example.org; check the JID's domain and the host you connect to")
        var another = ScriptedConnection.started(try configuration())
        let passing = failure(
            in: try another.server(
                Server.header + "<stream:error><system-shutdown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>"))
        #expect(passing?.kind == .streamError && passing?.kind.isPermanent == false)
        #expect(passing?.detail == "the server closed the stream with system-shutdown")
    }

    /// `see-other-host` (RFC 6120 §4.9.3.19) names where to go: a host, a host and port, or
    /// an IPv6 address in brackets; anything else is a plain stream error.
    @Test(arguments: [
        ("xmpp2.example.org", ServerAddress(host: "xmpp2.example.org", port: 5222)),
        ("192.0.2.7:5333", ServerAddress(host: "192.0.2.7", port: 5333)),
        ("[2001:db8::1]:5223", ServerAddress(host: "2001:db8::1", port: 5223)),
        ("", nil), ("host:99999", nil), ("2001:db8::1", nil),
    ] as [(String, ServerAddress?)])
    func seeOtherHostNamesTheNextServer(text: String, expected: ServerAddress?) throws {
        var connection = ScriptedConnection.started(try configuration())
        let error = failure(
            in: try connection.server(
                Server.header
                    + "<stream:error><see-other-host xmlns='urn:ietf:params:xml:ns:xmpp-streams'>\(text)</see-other-host></stream:error>"))
        #expect(error?.otherHost == expected)
        #expect(error?.kind == (expected == nil ? .streamError : .redirected))
        #expect(error?.kind.isPermanent == false)
    }

    @Test func wrongServerSignatureFails() throws {
        let vector = SCRAMVector.sha1
        var connection = ScriptedConnection(try configuration(vector, tls: .disabledForTesting))
        _ = connection.machine.start()
        _ = try connection.server(Server.header + Server.features(Server.mechanisms("SCRAM-SHA-1")))
        _ = try connection.server(Server.sasl("challenge", vector.serverFirst))
        let forged = "v=" + Crypto.base64Encode([UInt8](repeating: 7, count: 20))
        let error = failure(in: try connection.server(Server.sasl("success", forged)))
        #expect(error?.kind == .authenticationFailed)
        #expect(error?.detail.contains("server signature mismatch") == true)
    }

    @Test func wrongPasswordFailsAtTheServerSignature() throws {
        let vector = SCRAMVector.sha1
        var connection = ScriptedConnection(try configuration(vector, tls: .disabledForTesting, password: "pencils"))
        _ = connection.machine.start()
        _ = try connection.server(Server.header + Server.features(Server.mechanisms("SCRAM-SHA-1")))
        _ = try connection.server(Server.sasl("challenge", vector.serverFirst))
        #expect(
            failure(in: try connection.server(Server.sasl("success", vector.serverFinal)))?.kind
                == .authenticationFailed)
    }

    @Test func unexpectedStanzaIsAProtocolViolation() throws {
        var connection = ScriptedConnection(try configuration())
        _ = connection.machine.start()
        let error = failure(in: try connection.server(Server.header + "<message><body>early</body></message>"))
        #expect(error?.kind == .protocolViolation)
        #expect(
            error?.detail == "the server sent <message xmlns='jabber:client'> while waiting for the stream features")
    }

    @Test func tlsEstablishedWithoutRequestIsAProtocolViolation() throws {
        var machine = XMPPConnectionStateMachine(configuration: try configuration())
        _ = machine.start()
        #expect(failure(in: machine.tlsEstablished())?.kind == .protocolViolation)
    }

    @Test func bindConflictFails() throws {
        var connection = ScriptedConnection(try configuration(tls: .disabledForTesting))
        _ = connection.machine.start()
        _ = try connection.server(Server.header + Server.features(Server.mechanisms("SCRAM-SHA-1")))
        _ = try connection.server(Server.sasl("challenge", SCRAMVector.sha1.serverFirst))
        _ = try connection.server(Server.sasl("success", SCRAMVector.sha1.serverFinal))
        _ = try connection.server(Server.header + Server.features(Server.bindAndStreamManagement))
        let error = failure(
            in: try connection.server(
                "<iq type='error' id='bind_1'><error type='cancel'><conflict xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>"
            ))
        #expect(error?.kind == .bindFailed)
        #expect(error?.detail.contains("conflict") == true)
    }

    @Test(arguments: ["example.org", "@example.org", "user@", "user@example.org/", "a@b@c"])
    func invalidJIDIsRefused(jid: String) {
        #expect(throws: ConnectionError.self) {
            try XMPPConnectionConfiguration(jid: jid, password: "pencil")
        }
    }
}

/// XEP-0198 after authentication: enabling, resuming, and falling back to a fresh session.
@Suite("XMPPConnectionStateMachine stream management")
struct ConnectionStreamManagementTests {
    static let fullJID = "user@example.org/canvas"
    static let token = StreamResumptionToken(id: "sm-1", inboundCount: 7, fullJID: "user@example.org/old")
    static let resume = ConnectionAction.send("<resume xmlns='urn:xmpp:sm:3' previd='sm-1' h='7'/>")

    /// Binds the resource on a connection whose post-authentication features offer
    /// `features`, and returns the actions of the bind result.
    private static func bind(_ connection: inout ScriptedConnection, features: String) throws -> [ConnectionAction] {
        #expect(try connection.server(Server.header + Server.features(features)) == [bindRequest])
        return try connection.server(Server.bindResult(fullJID))
    }

    @Test(arguments: [
        (
            "<enabled xmlns='urn:xmpp:sm:3' id='sm-1' resume='1' location='[2001:db8::1]:5222'/>",
            StreamManagementEnabled(resumptionID: "sm-1", location: "[2001:db8::1]:5222")
        ),
        ("<enabled xmlns='urn:xmpp:sm:3' id='sm-1'/>", StreamManagementEnabled()),
        ("<enabled xmlns='urn:xmpp:sm:3' resume='true' max='soon'/>", StreamManagementEnabled()),
        (
            "<enabled xmlns='urn:xmpp:sm:3' id='sm-1' resume='false' max='60'/>",
            StreamManagementEnabled(maximumResumptionTime: .seconds(60))
        ),
    ])
    func enabledIsReadAsGranted(enabled: String, granted: StreamManagementEnabled) throws {
        var connection = try authenticated()
        #expect(try Self.bind(&connection, features: Server.bindAndStreamManagement) == [enable])
        #expect(try connection.server(enabled) == [.ready(fullJID: Self.fullJID, streamManagement: granted)])
    }

    @Test func failedEnableIsReadyWithoutStreamManagement() throws {
        var connection = try authenticated()
        #expect(try Self.bind(&connection, features: Server.bindAndStreamManagement) == [enable])
        #expect(
            try connection.server(
                "<failed xmlns='urn:xmpp:sm:3'><unexpected-request xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></failed>"
            ) == [.ready(fullJID: Self.fullJID, streamManagement: nil)])
        #expect(connection.machine.fullJID == Self.fullJID)
    }

    @Test func notOfferedIsReadyWithoutStreamManagement() throws {
        var connection = try authenticated()
        #expect(
            try Self.bind(&connection, features: Server.bindOnly)
                == [.ready(fullJID: Self.fullJID, streamManagement: nil)])
    }

    @Test func disabledNeverEnables() throws {
        var connection = try authenticated(streamManagement: .disabled)
        #expect(
            try Self.bind(&connection, features: Server.bindAndStreamManagement)
                == [.ready(fullJID: Self.fullJID, streamManagement: nil)])
    }

    /// A stanza between binding and `<enabled/>` is delivered at once, before `.ready`: the
    /// server does not count it, so the driver, without a `StreamManagementState` yet, must not.
    @Test func stanzaBeforeEnabledIsDeliveredBeforeReady() throws {
        var connection = try authenticated()
        #expect(try Self.bind(&connection, features: Server.bindAndStreamManagement) == [enable])
        let actions = try connection.server(
            "<message from='alice@example.org/a' id='m1'><body>early</body></message>"
                + "<presence from='alice@example.org/a'/>"
                + "<enabled xmlns='urn:xmpp:sm:3' id='sm-2' resume='true'/>"
                + "<message from='alice@example.org/a' id='m2'><body>late</body></message>")
        #expect(actions.count == 4)
        guard actions.count == 4, case .deliver(let early) = actions[0], case .deliver(let presence) = actions[1],
            case .deliver(let late) = actions[3]
        else {
            Issue.record("expected deliver, deliver, ready, deliver; got \(actions)")
            return
        }
        #expect(early.attribute("id") == "m1" && presence.name == "presence" && late.attribute("id") == "m2")
        #expect(
            actions[2] == .ready(fullJID: Self.fullJID, streamManagement: StreamManagementEnabled(resumptionID: "sm-2"))
        )
    }

    @Test func unexpectedStreamManagementElementBeforeEnabledFails() throws {
        var connection = try authenticated()
        _ = try Self.bind(&connection, features: Server.bindAndStreamManagement)
        let error = failure(in: try connection.server("<r xmlns='urn:xmpp:sm:3'/>"))
        #expect(
            error?.detail
                == "the server sent <r xmlns='urn:xmpp:sm:3'> while waiting for the answer to enabling stream management"
        )
    }

    /// The old session sent four stanzas; the server handled two of them before the
    /// connection dropped, so the other two are resent on the resumed stream.
    @Test func resumptionResendsWhatTheServerMissed() throws {
        var old = StreamManagementState(enabled: StreamManagementEnabled(resumptionID: "sm-1"))
        for index in 1...4 { old.outbound("<message id='\(index)'/>") }
        for _ in 1...7 { old.inboundStanzaHandled() }
        let token = try #require(old.resumptionToken(fullJID: "user@example.org/old"))
        #expect(token == Self.token)

        var connection = try authenticated(streamManagement: .resume(token))
        #expect(try connection.server(Server.header + Server.features(Server.bindAndStreamManagement)) == [Self.resume])
        #expect(connection.machine.fullJID == nil)
        #expect(
            try connection.server("<resumed xmlns='urn:xmpp:sm:3' previd='sm-1' h='2'/>")
                == [.resumed(previousID: "sm-1", acknowledgedByServer: 2)])
        #expect(connection.machine.fullJID == "user@example.org/old", "a resumed session keeps its full JID")

        let resend = try old.resumed(acknowledgedByServer: 2)
        #expect(resend == ["<message id='3'/>", "<message id='4'/>"])
        for stanza in resend { old.outbound(stanza) }
        #expect(old.outboundCount == 4 && old.acknowledgedOutboundCount == 2)
        #expect(old.inboundCount == 7, "inbound counting goes on from the old session")

        let delivered = try connection.server("<message from='alice@example.org/a'><body>missed</body></message>")
        guard case .deliver(let message) = delivered.first else {
            Issue.record("expected the message delivered, got \(delivered)")
            return
        }
        #expect(message.child(named: "body")?.text == "missed")
    }

    @Test func resumedWithAnotherSessionFails() throws {
        var connection = try authenticated(streamManagement: .resume(Self.token))
        _ = try connection.server(Server.header + Server.features(Server.bindAndStreamManagement))
        let error = failure(in: try connection.server("<resumed xmlns='urn:xmpp:sm:3' previd='sm-9' h='2'/>"))
        #expect(error?.kind == .protocolViolation)
        #expect(error?.detail == "the server resumed the session 'sm-9', but this client asked to resume 'sm-1'")
    }

    @Test func resumedWithInvalidHFails() throws {
        var connection = try authenticated(streamManagement: .resume(Self.token))
        _ = try connection.server(Server.header + Server.features(Server.bindAndStreamManagement))
        let error = failure(in: try connection.server("<resumed xmlns='urn:xmpp:sm:3' previd='sm-1' h='-1'/>"))
        #expect(error?.kind == .protocolViolation)
        #expect(error?.detail.contains("h='-1', which is not a count") == true)
    }

    /// The server forgot the session: bind a fresh one, enable stream management again, and
    /// resend what the server did not handle according to the `h` of its `<failed/>`.
    @Test func failedResumptionBindsAndEnablesAFreshSession() throws {
        var old = StreamManagementState(enabled: StreamManagementEnabled(resumptionID: "sm-1"))
        for index in 1...3 { old.outbound("<message id='\(index)'/>") }

        var connection = try authenticated(streamManagement: .resume(Self.token))
        #expect(try connection.server(Server.header + Server.features(Server.bindAndStreamManagement)) == [Self.resume])
        #expect(
            try connection.server(
                "<failed xmlns='urn:xmpp:sm:3' h='1'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></failed>"
            ) == [
                .resumptionFailed(
                    reason:
                        "the server could not resume the session 'sm-1' (item-not-found): the session expired on the server (or the server restarted); starting a fresh session",
                    acknowledgedByServer: 1),
                bindRequest,
            ])
        #expect(try connection.server(Server.bindResult(Self.fullJID)) == [enable])
        #expect(
            try connection.server("<enabled xmlns='urn:xmpp:sm:3' id='sm-2' resume='true'/>")
                == [.ready(fullJID: Self.fullJID, streamManagement: StreamManagementEnabled(resumptionID: "sm-2"))])
        #expect(connection.machine.fullJID == Self.fullJID)
        #expect(
            old.takeUnacknowledgedForFreshSession(acknowledgedByServer: 1) == [
                "<message id='2'/>", "<message id='3'/>",
            ])
    }

    @Test func resumptionWithoutStreamManagementOfferedBindsAFreshSession() throws {
        var connection = try authenticated(streamManagement: .resume(Self.token))
        #expect(
            try connection.server(Server.header + Server.features(Server.bindOnly)) == [
                .resumptionFailed(
                    reason:
                        "the server example.org no longer offers stream management, so the session 'sm-1' cannot be resumed",
                    acknowledgedByServer: nil),
                bindRequest,
            ])
        #expect(
            try connection.server(Server.bindResult(Self.fullJID))
                == [.ready(fullJID: Self.fullJID, streamManagement: nil)])
    }
}

@Suite("Direct TLS")
struct DirectTLSConnectionTests {
    /// XEP-0368: the stream is encrypted from the start, so the first features offer SASL
    /// (PLAIN included) and STARTTLS is never sent.
    @Test func aDirectTLSStreamAuthenticatesAtOnce() throws {
        let configuration = try XMPPConnectionConfiguration(jid: "juliet@example.org", password: "pencil", tlsPolicy: .direct)
        var machine = XMPPConnectionStateMachine(configuration: configuration)
        let parser = XMLStreamParser()
        _ = machine.start()
        var actions: [ConnectionAction] = []
        let server = """
            <?xml version='1.0'?><stream:stream xmlns='jabber:client' \
            xmlns:stream='http://etherx.jabber.org/streams' from='example.org' id='s1' version='1.0'>\
            <stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>
            """
        for event in try parser.feed(Array(server.utf8)) {
            actions += machine.handle(event)
        }
        guard case .send(let auth)? = actions.first, actions.count == 1 else {
            Issue.record("expected one <auth>, got \(actions)")
            return
        }
        #expect(auth.contains("mechanism='PLAIN'"))
        #expect(!auth.contains("starttls"))
    }
}
