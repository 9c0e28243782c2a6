import NIOCore
import NIOPosix
import Testing
import XMPP

@Suite struct TLSHandlerTests {
    @Test func directTLSRoundTripOverLoopback() async throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await withEventLoopGroup { group in
            let server = try await startEchoServer(group: group, certificates: certificates)
            let caFile = certificates.caCertificate
            let collected = group.next().makePromise(of: CollectingHandler.Result.self)
            let client = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let engine = try TLSEngine(
                            client: TLSClientConfiguration(serverName: "localhost", caFile: caFile))
                        try channel.pipeline.syncOperations.addHandlers([
                            TLSHandler(engine: engine),
                            CollectingHandler(expectedCount: payload.count, promise: collected),
                        ])
                    }
                }
                .connect(host: "127.0.0.1", port: server.localAddress!.port!).get()

            // Written before the handshake completes: the handler holds it until then.
            try await client.writeAndFlush(ByteBuffer(bytes: payload))
            let result = try await withTimeout(collected, on: group)
            #expect(result.bytes == payload)
            #expect(result.handshakeCompletedBeforeData)

            try await client.close()
            try await server.close()
        }
    }

    @Test func verificationFailureIsReportedAndClosesTheChannel() async throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        try await withEventLoopGroup { group in
            let server = try await startEchoServer(group: group, certificates: certificates)
            let caFile = certificates.caCertificate
            let collected = group.next().makePromise(of: CollectingHandler.Result.self)
            let client = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let engine = try TLSEngine(
                            client: TLSClientConfiguration(serverName: "chat.example.net", caFile: caFile))
                        try channel.pipeline.syncOperations.addHandlers([
                            TLSHandler(engine: engine), CollectingHandler(expectedCount: 1, promise: collected),
                        ])
                    }
                }
                .connect(host: "127.0.0.1", port: server.localAddress!.port!).get()

            let written = client.eventLoop.makePromise(of: Void.self)
            client.writeAndFlush(ByteBuffer(bytes: [1, 2, 3]), promise: written)
            let error = await #expect(throws: TLSError.self) { try await withTimeout(collected, on: group) }
            #expect(error?.kind == .certificateVerificationFailed)
            #expect(error?.detail.contains("chat.example.net") == true)
            // Held by the TLS handler, or refused if the channel closed first: never sent in the clear.
            await #expect(throws: (any Error).self) { try await written.futureResult.get() }
            try await client.closeFuture.get()
            try await server.close()
        }
    }

    @Test func startTLSUpgradesALivePlaintextConnection() async throws {
        let certificates = try TestCertificates.generate()
        defer { certificates.remove() }
        let payload = Array("<iq type='get' id='1'/>".utf8) + Array(repeating: 0x20, count: 70_000)
        try await withEventLoopGroup { group in
            let serverCertificate = certificates.serverCertificate
            let serverKey = certificates.serverKey
            let server = try await ServerBootstrap(group: group)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            StartTLSServerHandler(certificateChainFile: serverCertificate, privateKeyFile: serverKey))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()

            let caFile = certificates.caCertificate
            let collected = group.next().makePromise(of: CollectingHandler.Result.self)
            let client = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            StartTLSClientHandler(caFile: caFile, payload: payload, promise: collected))
                    }
                }
                .connect(host: "127.0.0.1", port: server.localAddress!.port!).get()

            let result = try await withTimeout(collected, on: group)
            #expect(result.bytes == payload)
            #expect(result.handshakeCompletedBeforeData)

            try await client.close()
            try await server.close()
        }
    }

    // MARK: - Helpers

    private func withEventLoopGroup(_ body: (MultiThreadedEventLoopGroup) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await body(group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    private func startEchoServer(group: some EventLoopGroup, certificates: TestCertificates) async throws -> any Channel
    {
        let serverCertificate = certificates.serverCertificate
        let serverKey = certificates.serverKey
        return try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let engine = try TLSEngine(serverCertificateChainFile: serverCertificate, privateKeyFile: serverKey)
                    try channel.pipeline.syncOperations.addHandlers([TLSHandler(engine: engine), EchoHandler()])
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    private struct TimedOut: Error {}

    private func withTimeout<Value: Sendable>(
        _ promise: EventLoopPromise<Value>, on group: some EventLoopGroup
    ) async throws -> Value {
        let timeout = group.next().scheduleTask(in: .seconds(20)) { promise.fail(TimedOut()) }
        defer { timeout.cancel() }
        return try await promise.futureResult.get()
    }
}

/// Echoes every byte back.
private final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The TLS handler closes the channel itself.
    }
}

/// Collects bytes until `expectedCount` have arrived, noting whether the handshake event came first.
private final class CollectingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    struct Result: Sendable {
        var bytes: [UInt8]
        var handshakeCompletedBeforeData: Bool
    }

    private let expectedCount: Int
    private let promise: EventLoopPromise<Result>
    private var result = Result(bytes: [], handshakeCompletedBeforeData: false)
    private var handshakeCompleted = false

    init(expectedCount: Int, promise: EventLoopPromise<Result>) {
        self.expectedCount = expectedCount
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is TLSHandshakeCompleted { handshakeCompleted = true }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if result.bytes.isEmpty { result.handshakeCompletedBeforeData = handshakeCompleted }
        result.bytes += unwrapInboundIn(data).readableBytesView
        if result.bytes.count >= expectedCount { promise.succeed(result) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}

/// Answers the plaintext line `STARTTLS` with `PROCEED`, then puts TLS first in the
/// pipeline and echoes what arrives through it.
private final class StartTLSServerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let certificateChainFile: String
    private let privateKeyFile: String
    private var line: [UInt8] = []
    private var encrypted = false

    init(certificateChainFile: String, privateKeyFile: String) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !encrypted else {
            context.writeAndFlush(data, promise: nil)
            return
        }
        line += unwrapInboundIn(data).readableBytesView
        guard line == Array("STARTTLS\n".utf8) else { return }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "PROCEED\n")), promise: nil)
        encrypted = true
        do {
            let engine = try TLSEngine(serverCertificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile)
            try context.pipeline.syncOperations.addHandler(TLSHandler(engine: engine), position: .first)
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

/// Sends the plaintext line `STARTTLS`; on `PROCEED` puts TLS first in the pipeline, sends
/// `payload` at once (the TLS handler holds it until the handshake completes) and collects the echo.
private final class StartTLSClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let caFile: String
    private let payload: [UInt8]
    private let collector: CollectingHandler
    private var line: [UInt8] = []
    private var encrypted = false

    init(caFile: String, payload: [UInt8], promise: EventLoopPromise<CollectingHandler.Result>) {
        self.caFile = caFile
        self.payload = payload
        self.collector = CollectingHandler(expectedCount: payload.count, promise: promise)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "STARTTLS\n")), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !encrypted else {
            collector.channelRead(context: context, data: data)
            return
        }
        line += unwrapInboundIn(data).readableBytesView
        guard line == Array("PROCEED\n".utf8) else { return }
        encrypted = true
        do {
            let engine = try TLSEngine(client: TLSClientConfiguration(serverName: "localhost", caFile: caFile))
            try context.pipeline.syncOperations.addHandler(TLSHandler(engine: engine), position: .first)
        } catch {
            collector.errorCaught(context: context, error: error)
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: payload)), promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        collector.userInboundEventTriggered(context: context, event: event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        collector.errorCaught(context: context, error: error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        collector.channelInactive(context: context)
    }
}
