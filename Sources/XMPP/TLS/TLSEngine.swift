internal import COpenSSL

/// One TLS connection's OpenSSL state over two memory buffers, doing no I/O of its own:
/// the caller feeds it bytes from the network, drives it, and sends what it produces.
///
/// Not thread-safe: use an engine from one thread (a channel's event loop) at a time.
public final class TLSEngine {
    private let ssl: OpaquePointer
    /// Bytes from the network, read by OpenSSL. Owned by `ssl`.
    private let networkToSSL: OpaquePointer
    /// Bytes OpenSSL wants sent to the network. Owned by `ssl`.
    private let sslToNetwork: OpaquePointer
    /// The name a verifying client expects in the server's certificate, for error messages;
    /// nil on a server or when verification is off.
    private let verifiedServerName: String?
    private var handshakeComplete = false
    private var receivedCloseNotify = false

    /// A client engine that will verify the server as `client` says.
    public init(client: TLSClientConfiguration) throws(TLSError) {
        guard !client.serverName.isEmpty else {
            throw TLSError(
                .configuration, "the server name is empty; give the host name the server's certificate names")
        }
        let context = try Self.makeContext(method: TLS_client_method())
        defer { SSL_CTX_free(context) }
        switch client.verification {
        case .full:
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if let caFile = client.caFile {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw TLSError(
                        .configuration,
                        "cannot load trusted CA certificates from \"\(caFile)\" (\(Self.drainErrorQueue())); "
                            + "check that the file exists, is readable and holds PEM certificates")
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw TLSError(
                    .configuration,
                    "cannot load the system's trusted CA certificates (\(Self.drainErrorQueue())); "
                        + "pass a CA file with --ca-file")
            }
        case .noneInsecureForTestingOnly:
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        (ssl, networkToSSL, sslToNetwork) = try Self.makeSSL(context: context)
        verifiedServerName = client.verification == .full ? client.serverName : nil
        // Fully initialised from here: if this throws, deinit frees `ssl`.
        try configureServerName(client.serverName, verify: client.verification == .full)
        SSL_set_connect_state(ssl)
    }

    /// A server engine presenting the PEM certificate chain (leaf first) and private key in
    /// these files. For tests and test servers; it asks clients for no certificate.
    public init(serverCertificateChainFile: String, privateKeyFile: String) throws(TLSError) {
        let context = try Self.makeContext(method: TLS_server_method())
        defer { SSL_CTX_free(context) }
        guard SSL_CTX_use_certificate_chain_file(context, serverCertificateChainFile) == 1 else {
            throw TLSError(
                .configuration,
                "cannot load the certificate chain from \"\(serverCertificateChainFile)\" (\(Self.drainErrorQueue())); "
                    + "it must be a readable PEM file with the server's certificate first")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError(
                .configuration,
                "cannot load the private key from \"\(privateKeyFile)\" (\(Self.drainErrorQueue())); "
                    + "it must be a readable, unencrypted PEM key")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError(
                .configuration,
                "the private key in \"\(privateKeyFile)\" does not match the certificate in "
                    + "\"\(serverCertificateChainFile)\" (\(Self.drainErrorQueue()))")
        }
        (ssl, networkToSSL, sslToNetwork) = try Self.makeSSL(context: context)
        verifiedServerName = nil
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
    }

    /// Whether the handshake has finished; application data can flow only after it.
    public var isHandshakeComplete: Bool { handshakeComplete }

    /// Whether the peer has sent close_notify: it will send no more application data.
    public var peerClosed: Bool { receivedCloseNotify }

    /// Feeds bytes received from the network.
    public func receive(ciphertext: some Collection<UInt8>) throws(TLSError) {
        let written =
            ciphertext.withContiguousStorageIfAvailable { bytes in
                self.appendToNetworkBuffer(UnsafeRawBufferPointer(bytes))
            } ?? Array(ciphertext).withUnsafeBytes { bytes in self.appendToNetworkBuffer(bytes) }
        guard written else {
            throw TLSError(
                .protocolError, "cannot buffer \(ciphertext.count) received bytes (\(Self.drainErrorQueue()))")
        }
    }

    /// Drives the handshake as far as the bytes received so far allow; returns true once it
    /// is complete. Call ``takeCiphertext()`` afterwards: the handshake usually has bytes to send.
    public func advanceHandshake() throws(TLSError) -> Bool {
        guard !handshakeComplete else { return true }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeComplete = true
            return true
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return false
        case SSL_ERROR_ZERO_RETURN:
            throw TLSError(.closed, "the peer closed the connection during the TLS handshake")
        default:
            throw handshakeFailure()
        }
    }

    /// The decrypted application bytes available now, empty if none. When the peer's
    /// close_notify arrives, ``peerClosed`` becomes true.
    public func readPlaintext() throws(TLSError) -> [UInt8] {
        guard handshakeComplete else {
            throw TLSError(.protocolError, "readPlaintext() called before the TLS handshake completed")
        }
        var plaintext: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while !receivedCloseNotify {
            ERR_clear_error()
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext.append(contentsOf: chunk.prefix(Int(count)))
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return plaintext
            case SSL_ERROR_ZERO_RETURN:
                receivedCloseNotify = true
            default:
                throw TLSError(.protocolError, "cannot decrypt data from the peer (\(Self.drainErrorQueue()))")
            }
        }
        return plaintext
    }

    /// Encrypts application bytes; collect the records with ``takeCiphertext()``.
    public func write(plaintext: some Collection<UInt8>) throws(TLSError) {
        guard handshakeComplete else {
            throw TLSError(.protocolError, "write(plaintext:) called before the TLS handshake completed")
        }
        let result =
            plaintext.withContiguousStorageIfAvailable { bytes in self.encrypt(UnsafeRawBufferPointer(bytes)) }
            ?? Array(plaintext).withUnsafeBytes { bytes in self.encrypt(bytes) }
        try result.get()
    }

    /// Starts a clean shutdown by queueing close_notify; collect it with ``takeCiphertext()``.
    /// Does nothing useful before the handshake has completed.
    public func shutdown() {
        ERR_clear_error()
        if handshakeComplete { _ = SSL_shutdown(ssl) }
        ERR_clear_error()
    }

    /// The bytes to send to the network now, draining them from the engine.
    public func takeCiphertext() -> [UInt8] {
        let pending = BIO_ctrl_pending(sslToNetwork)
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let count = bytes.withUnsafeMutableBytes { BIO_read(sslToNetwork, $0.baseAddress, Int32(clamping: $0.count)) }
        return Array(bytes.prefix(max(0, Int(count))))
    }

    // MARK: - Setup

    private static func makeContext(method: OpaquePointer?) throws(TLSError) -> OpaquePointer {
        ERR_clear_error()
        guard let context = SSL_CTX_new(method) else {
            throw TLSError(.configuration, "cannot create an OpenSSL context (\(drainErrorQueue()))")
        }
        guard SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1 else {
            SSL_CTX_free(context)
            throw TLSError(.configuration, "cannot require TLS 1.2 or later (\(drainErrorQueue()))")
        }
        return context
    }

    /// A connection over two fresh memory BIOs; an empty inbound BIO means "wait for more", not EOF.
    private static func makeSSL(
        context: OpaquePointer
    ) throws(TLSError) -> (OpaquePointer, OpaquePointer, OpaquePointer) {
        guard let ssl = SSL_new(context) else {
            throw TLSError(.configuration, "cannot create an OpenSSL connection (\(drainErrorQueue()))")
        }
        guard let inbound = BIO_new(BIO_s_mem()), let outbound = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSError(.configuration, "cannot create OpenSSL memory buffers (\(drainErrorQueue()))")
        }
        BIO_ctrl(inbound, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        BIO_ctrl(outbound, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(ssl, inbound, outbound)
        return (ssl, inbound, outbound)
    }

    /// Sends SNI and checks the certificate against `name`; an IP literal is checked
    /// against the certificate's IP addresses instead, and RFC 6066 forbids it in SNI.
    private func configureServerName(_ name: String, verify: Bool) throws(TLSError) {
        let isIPAddress = Self.isIPAddressLiteral(name)
        ERR_clear_error()
        if isIPAddress {
            guard verify else { return }
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 else {
                throw TLSError(
                    .configuration, "cannot verify against the IP address \"\(name)\" (\(Self.drainErrorQueue()))")
            }
            return
        }
        let sniSet = name.withCString { hostName in
            SSL_ctrl(
                ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name),
                UnsafeMutableRawPointer(mutating: hostName))
        }
        guard sniSet == 1 else {
            throw TLSError(.configuration, "cannot send \"\(name)\" as the TLS server name (\(Self.drainErrorQueue()))")
        }
        guard verify else { return }
        guard SSL_set1_host(ssl, name) == 1 else {
            throw TLSError(
                .configuration, "cannot verify against the host name \"\(name)\" (\(Self.drainErrorQueue()))")
        }
    }

    private static func isIPAddressLiteral(_ name: String) -> Bool {
        guard let parameters = X509_VERIFY_PARAM_new() else { return false }
        defer { X509_VERIFY_PARAM_free(parameters) }
        return X509_VERIFY_PARAM_set1_ip_asc(parameters, name) == 1
    }

    // MARK: - I/O and errors

    private func appendToNetworkBuffer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = BIO_write(networkToSSL, bytes.baseAddress! + offset, Int32(clamping: bytes.count - offset))
            guard count > 0 else { return false }
            offset += Int(count)
        }
        return true
    }

    private func encrypt(_ bytes: UnsafeRawBufferPointer) -> Result<Void, TLSError> {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let count = SSL_write(ssl, bytes.baseAddress! + offset, Int32(clamping: bytes.count - offset))
            guard count > 0 else {
                let reason =
                    SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN
                    ? "the peer closed the connection" : Self.drainErrorQueue()
                return .failure(TLSError(.protocolError, "cannot encrypt \(bytes.count - offset) bytes (\(reason))"))
            }
            offset += Int(count)
        }
        return .success(())
    }

    private func handshakeFailure() -> TLSError {
        let queue = Self.drainErrorQueue()
        let verifyResult = SSL_get_verify_result(ssl)
        guard let serverName = verifiedServerName, verifyResult != X509_V_OK else {
            return TLSError(
                .handshakeFailed,
                "\(queue) (an \"alert\" gives the peer's reason; otherwise check that the peer speaks TLS 1.2 "
                    + "or later on this port)")
        }
        let reason = String(cString: X509_verify_cert_error_string(verifyResult))
        var detail = "the certificate of \"\(serverName)\" is not trusted: \(reason) (verify error \(verifyResult))"
        if let subject = peerCertificateSubject() { detail += "; the server presented \(subject)" }
        detail += "; OpenSSL: \(queue)"
        detail +=
            ". Connect with the host name the certificate names, pass the server's CA certificate with "
            + "--ca-file PATH, or for a throwaway test server only use --insecure-skip-tls-verify"
        return TLSError(.certificateVerificationFailed, detail)
    }

    /// The subject of the certificate the peer presented. After a failed verification OpenSSL
    /// keeps it only in the peer's chain, where it comes first.
    private func peerCertificateSubject() -> String? {
        guard let chain = SSL_get_peer_cert_chain(ssl), OPENSSL_sk_num(chain) > 0,
            let certificate = OPENSSL_sk_value(chain, 0),
            let line = X509_NAME_oneline(X509_get_subject_name(OpaquePointer(certificate)), nil, 0)
        else { return nil }
        defer { CRYPTO_free(line, nil, 0) }
        return "a certificate for \(String(cString: line))"
    }

    /// The text of every error in OpenSSL's (thread-local) queue, oldest first, emptying it.
    private static func drainErrorQueue() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error reported" : messages.joined(separator: "; ")
    }
}

@available(*, unavailable)
extension TLSEngine: Sendable {}
