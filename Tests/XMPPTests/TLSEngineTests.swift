import Foundation
import Testing
import XMPP

@Suite struct TLSEngineTests {
    @Test func handshakeSucceedsWithTheIssuingCA() throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let (client, server) = try makePair(certificates, serverName: "localhost", caFile: certificates.caCertificate)
        #expect(!client.isHandshakeComplete)
        try handshake(client, server)
        #expect(client.isHandshakeComplete)
        #expect(server.isHandshakeComplete)
    }

    @Test func dataFlowsBothWaysIncludingOneMegabyte() throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let (client, server) = try makePair(certificates, serverName: "localhost", caFile: certificates.caCertificate)
        try handshake(client, server)

        try client.write(plaintext: Array("<stream:stream>".utf8))
        try pump(client, server)
        #expect(try server.readPlaintext() == Array("<stream:stream>".utf8))

        var generator = SystemRandomNumberGenerator()
        let large = (0..<1_048_576).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try server.write(plaintext: large)
        try pump(client, server)
        #expect(try client.readPlaintext() == large)

        try client.write(plaintext: large)
        try pump(client, server)
        #expect(try server.readPlaintext() == large)
        #expect(try server.readPlaintext() == [])
    }

    /// The network may cut the stream anywhere; the engine must only ever wait for more.
    @Test(arguments: [1, 7, 100, 1500])
    func handshakeAndDataSurviveAnyChunking(chunkSize: Int) throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let (client, server) = try makePair(certificates, serverName: "localhost", caFile: certificates.caCertificate)
        try handshake(client, server, chunkSize: chunkSize)
        try client.write(plaintext: Array(repeating: 0x41, count: 5000))
        var received: [UInt8] = []
        for chunk in chunks(of: client.takeCiphertext(), size: chunkSize) {
            try server.receive(ciphertext: chunk)
            received += try server.readPlaintext()
        }
        #expect(received == Array(repeating: 0x41, count: 5000))
    }

    @Test func wrongServerNameFailsVerificationNamingTheHost() throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let (client, server) = try makePair(
            certificates, serverName: "xmpp.example.org", caFile: certificates.caCertificate)
        let error = #expect(throws: TLSError.self) { try handshake(client, server) }
        #expect(error?.kind == .certificateVerificationFailed)
        let description = error?.description ?? ""
        #expect(description.contains("xmpp.example.org"))
        #expect(description.contains("hostname mismatch"))
        #expect(description.contains("CN=localhost"))
        #expect(description.contains("--ca-file"))
        #expect(description.contains("--insecure-skip-tls-verify"))

        // The client's alert tells the server why.
        try server.receive(ciphertext: client.takeCiphertext())
        let serverError = #expect(throws: TLSError.self) { try server.advanceHandshake() }
        #expect(serverError?.kind == .handshakeFailed)
    }

    @Test(arguments: [
        (TestCertificates.Server.signedByTestCA, "unable to get local issuer certificate"),
        (TestCertificates.Server.selfSigned, "self-signed certificate"),
    ])
    func systemStoreDoesNotTrustTestCertificates(server kind: TestCertificates.Server, reason: String) throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let client = try TLSEngine(client: TLSClientConfiguration(serverName: "localhost"))
        let server = try certificates.serverEngine(kind)
        let error = #expect(throws: TLSError.self) { try handshake(client, server) }
        #expect(error?.kind == .certificateVerificationFailed)
        #expect(error?.detail.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func insecureModeAcceptsAnyCertificate() throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let client = try TLSEngine(
            client: TLSClientConfiguration(serverName: "other.example", verification: .noneInsecureForTestingOnly))
        let server = try certificates.serverEngine(.selfSigned)
        try handshake(client, server)
        try client.write(plaintext: [1, 2, 3])
        try pump(client, server)
        #expect(try server.readPlaintext() == [1, 2, 3])
    }

    @Test func missingCAFileIsAConfigurationErrorNamingTheFile() {
        let path = "/nonexistent/canvas-ca.pem"
        let error = #expect(throws: TLSError.self) {
            try TLSEngine(client: TLSClientConfiguration(serverName: "localhost", caFile: path))
        }
        #expect(error?.kind == .configuration)
        #expect(error?.detail.contains(path) == true)
    }

    @Test func emptyServerNameIsAConfigurationError() {
        let error = #expect(throws: TLSError.self) { try TLSEngine(client: TLSClientConfiguration(serverName: "")) }
        #expect(error?.kind == .configuration)
    }

    @Test func missingServerKeyIsAConfigurationErrorNamingTheFile() throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let path = certificates.directory.appendingPathComponent("missing.key").path
        let error = #expect(throws: TLSError.self) {
            try TLSEngine(serverCertificateChainFile: certificates.serverCertificate, privateKeyFile: path)
        }
        #expect(error?.kind == .configuration)
        #expect(error?.detail.contains(path) == true)
    }

    @Test func garbageDuringTheHandshakeIsAnError() throws {
        let client = try TLSEngine(client: TLSClientConfiguration(serverName: "localhost"))
        #expect(try client.advanceHandshake() == false)
        #expect(!client.takeCiphertext().isEmpty)
        try client.receive(ciphertext: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        let error = #expect(throws: TLSError.self) { try client.advanceHandshake() }
        #expect(error?.kind == .handshakeFailed)
    }

    @Test func garbageAfterTheHandshakeIsAnError() throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let (client, server) = try makePair(certificates, serverName: "localhost", caFile: certificates.caCertificate)
        try handshake(client, server)
        var generator = SystemRandomNumberGenerator()
        try server.receive(
            ciphertext: [0x17, 0x03, 0x03, 0x00, 0x40]
                + (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let error = #expect(throws: TLSError.self) { try server.readPlaintext() }
        #expect(error?.kind == .protocolError)
    }

    @Test func writingBeforeTheHandshakeIsAProtocolError() throws {
        let client = try TLSEngine(client: TLSClientConfiguration(serverName: "localhost"))
        let error = #expect(throws: TLSError.self) { try client.write(plaintext: [1]) }
        #expect(error?.kind == .protocolError)
    }

    @Test func shutdownSendsCloseNotifyAfterPendingData() throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let (client, server) = try makePair(certificates, serverName: "localhost", caFile: certificates.caCertificate)
        try handshake(client, server)
        try client.write(plaintext: Array("</stream:stream>".utf8))
        client.shutdown()
        try server.receive(ciphertext: client.takeCiphertext())
        #expect(try server.readPlaintext() == Array("</stream:stream>".utf8))
        #expect(server.peerClosed)
        #expect(!client.peerClosed)

        server.shutdown()
        try client.receive(ciphertext: server.takeCiphertext())
        #expect(try client.readPlaintext() == [])
        #expect(client.peerClosed)
    }

    // MARK: - Helpers

    private func makePair(
        _ certificates: TestCertificates, serverName: String, caFile: String?
    ) throws -> (client: TLSEngine, server: TLSEngine) {
        let client = try TLSEngine(client: TLSClientConfiguration(serverName: serverName, caFile: caFile))
        return (client, try certificates.serverEngine(.signedByTestCA))
    }

    /// Runs both sides of the handshake, delivering ciphertext in pieces of `chunkSize` bytes.
    private func handshake(_ client: TLSEngine, _ server: TLSEngine, chunkSize: Int = .max) throws {
        var clientDone = try client.advanceHandshake()
        var serverDone = false
        var rounds = 0
        while !(clientDone && serverDone) {
            rounds += 1
            try #require(rounds < 100, "the handshake does not progress")
            for chunk in chunks(of: client.takeCiphertext(), size: chunkSize) {
                try server.receive(ciphertext: chunk)
                serverDone = try server.advanceHandshake()
            }
            for chunk in chunks(of: server.takeCiphertext(), size: chunkSize) {
                try client.receive(ciphertext: chunk)
                clientDone = try client.advanceHandshake()
            }
        }
        try #require(clientDone && serverDone)
        // TLS 1.3 session tickets arrive after the handshake; reading consumes them.
        try pump(client, server)
        #expect(try client.readPlaintext() == [])
    }

    private func pump(_ client: TLSEngine, _ server: TLSEngine) throws {
        while true {
            let toServer = client.takeCiphertext()
            let toClient = server.takeCiphertext()
            if toServer.isEmpty && toClient.isEmpty { return }
            try server.receive(ciphertext: toServer)
            try client.receive(ciphertext: toClient)
        }
    }

    private func chunks(of bytes: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
        stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
    }
}

/// A throwaway CA, a certificate for "localhost" it signed, and a self-signed certificate
/// for "localhost", made with the `openssl` command in a fresh temporary directory.
struct TestCertificates: Sendable {
    /// Which certificate a test server presents.
    enum Server: Sendable, CustomTestStringConvertible {
        case signedByTestCA
        case selfSigned

        var testDescription: String {
            switch self {
            case .signedByTestCA: "signed by test CA"
            case .selfSigned: "self-signed"
            }
        }
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    let directory: URL
    var caCertificate: String { path("ca.pem") }
    var serverCertificate: String { path("server.pem") }
    var serverKey: String { path("server.key") }
    var selfSignedCertificate: String { path("self.pem") }
    var selfSignedKey: String { path("self.key") }

    static func generate() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        do {
            try certificates.write()
            return certificates
        } catch {
            certificates.remove()
            throw error
        }
    }

    func serverEngine(_ kind: Server) throws -> TLSEngine {
        switch kind {
        case .signedByTestCA: try TLSEngine(serverCertificateChainFile: serverCertificate, privateKeyFile: serverKey)
        case .selfSigned:
            try TLSEngine(serverCertificateChainFile: selfSignedCertificate, privateKeyFile: selfSignedKey)
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    private func write() throws {
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.config(name: "Canvas Test CA", extensions: Self.caExtensions)
            .write(toFile: path("ca.cnf"), atomically: true, encoding: .utf8)
        try Self.config(name: "localhost", extensions: Self.leafExtensions)
            .write(toFile: path("leaf.cnf"), atomically: true, encoding: .utf8)
        try openssl(
            ["req", "-x509"] + newKey + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-config", "ca.cnf"])
        try openssl(["req", "-new"] + newKey + ["-keyout", "server.key", "-out", "server.csr", "-config", "leaf.cnf"])
        try openssl([
            "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2", "-days", "2",
            "-out", "server.pem", "-extfile", "leaf.cnf", "-extensions", "extensions",
        ])
        try openssl(
            ["req", "-x509"] + newKey + [
                "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-config", "leaf.cnf",
            ])
    }

    private static let caExtensions = """
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        """

    private static let leafExtensions = """
        basicConstraints = CA:FALSE
        subjectAltName = DNS:localhost
        extendedKeyUsage = serverAuth
        """

    private static func config(name: String, extensions: String) -> String {
        """
        [req]
        prompt = no
        distinguished_name = name
        x509_extensions = extensions
        [name]
        CN = \(name)
        [extensions]
        \(extensions)

        """
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SetupError(
                description:
                    "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }
}
