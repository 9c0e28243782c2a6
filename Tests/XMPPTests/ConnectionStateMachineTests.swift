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

    static func bindResult(_ jid: String) -> String {
        "<iq type='result' id='bind_1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>\(jid)</jid></bind></iq>"
    }
}

private let clientHeader =
    "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' to='example.org' version='1.0'>"

private func configuration(
    _ vector: SCRAMVector = .sha1, tls: XMPPConnectionConfiguration.TLSPolicy = .required, password: String = "pencil"
) throws -> XMPPConnectionConfiguration {
    let nonce = vector.clientNonce
    return try XMPPConnectionConfiguration(
        jid: "user@example.org/canvas", password: password, tlsPolicy: tls,
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
        #expect(
            try connection.server(Server.bindResult("user@example.org/canvas"))
                == [.ready(fullJID: "user@example.org/canvas", streamManagementOffered: true)])
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
        #expect(
            try connection.server(Server.header + Server.features("<bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/>"))
                .count == 1)
        #expect(
            try connection.server(Server.bindResult("user@example.org/canvas"))
                == [.ready(fullJID: "user@example.org/canvas", streamManagementOffered: false)])
    }

    @Test func plainIsRefusedWithoutTLS() throws {
        var connection = ScriptedConnection(try configuration(tls: .disabledForTesting))
        _ = connection.machine.start()
        let actions = try connection.server(Server.header + Server.features(Server.mechanisms("PLAIN")))
        #expect(
            actions == [
                .fail(
                    ConnectionError(
                        .noUsableMechanism,
                        "cannot authenticate as user@example.org: the server offers only PLAIN, which is refused without TLS"
                    ))
            ])
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
        let actions = try connection.server(
            "<failure xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><not-authorized/><text>Invalid username or password</text></failure>"
        )
        #expect(
            actions == [
                .fail(
                    ConnectionError(
                        .authenticationFailed,
                        "the server rejected the credentials for user@example.org: check the user name and password (SASL failure not-authorized: Invalid username or password)"
                    ))
            ])
    }

    @Test func streamErrorNamesTheCondition() throws {
        var connection = ScriptedConnection(try configuration())
        _ = connection.machine.start()
        let actions = try connection.server(
            Server.header
                + "<stream:error><host-unknown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/><text xmlns='urn:ietf:params:xml:ns:xmpp-streams'>No such domain</text></stream:error>"
        )
        #expect(
            actions == [
                .fail(ConnectionError(.streamError, "the server closed the stream with host-unknown: No such domain"))
            ])
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
