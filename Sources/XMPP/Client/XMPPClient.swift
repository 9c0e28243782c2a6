public import Logging
public import NIOCore
import Foundation
import NIOConcurrencyHelpers
import NIOPosix

/// What an `XMPPClient` tells the layers above, in order.
public enum XMPPClientEvent: Sendable {
    /// The session is ready. `resumed` is true when XEP-0198 resumed the previous session
    /// (room presences survive, unacknowledged stanzas were resent); after a fresh session
    /// the layers above must join their rooms again.
    case online(fullJID: String, resumed: Bool)
    /// A stanza of the session (messages, presences, iq results and errors).
    case stanza(XMLElement)
    /// The connection ended. `reconnectIn` is the wait before the next attempt, `nil` when
    /// the client has stopped for good: after `stop()`, or after an error that trying again
    /// cannot cure (`ConnectionError.Kind.isPermanent`).
    case offline(ConnectionError, reconnectIn: Duration?)
}

/// An XMPP client connection (RFC 6120) on SwiftNIO that stays up: it connects, secures
/// and authenticates the stream, resumes or restarts the session after any failure with
/// exponential backoff and jitter, and keeps the connection alive.
///
/// ```
/// let client = XMPPClient(configuration: configuration, eventLoopGroup: group, logger: logger)
/// Task { await client.run() }
/// for await event in client.events { ... client.send(stanza) ... }
/// ```
public final class XMPPClient: Sendable {
    public let configuration: XMPPClientConfiguration
    /// Everything that happens, in order; finishes when `run()` returns. Consume it
    /// promptly: past `XMPPClientEventBuffer.highWatermark` unconsumed events the client
    /// stops reading its connection until the consumer catches up.
    public var events: XMPPClientEvents { eventSource.events }

    private let eventSource: XMPPClientEventSource
    private let group: any EventLoopGroup
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    private struct State {
        var channel: (any Channel)?
        var online = false
        var stopped = false
        /// The last connection's stream management state, kept for a resumption.
        var streamManagement: StreamManagementState?
        var resumptionToken: StreamResumptionToken?
        /// Completes the current connection attempt with the error that ended it.
        var ended: EventLoopPromise<ConnectionError>?
        var sleeper: Task<Void, Never>?
    }

    /// A client (not running yet) on one event loop of `eventLoopGroup` at a time, letting
    /// the consumer of `events` fall at most `eventBuffer` events behind.
    public init(
        configuration: XMPPClientConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger,
        eventBuffer: XMPPClientEventBuffer = .init()
    ) {
        self.configuration = configuration
        self.group = eventLoopGroup
        self.logger = logger
        eventSource = XMPPClientEventSource(buffer: eventBuffer)
    }

    /// Whether the session is ready now.
    public var isOnline: Bool { state.withLockedValue { $0.online } }

    /// Sends a stanza on the ready session; returns false (and sends nothing) when the
    /// client is offline. With stream management, a stanza that the server has not
    /// acknowledged when the connection drops is resent after a resumption; after a fresh
    /// session it is not (the layers above decide what to send again).
    @discardableResult
    public func send(_ stanza: XMLElement) -> Bool {
        guard let channel = state.withLockedValue({ $0.online ? $0.channel : nil }) else { return false }
        channel.writeAndFlush(XMPPOutbound.stanza(stanza), promise: nil)
        return true
    }

    /// Connects, and reconnects after every failure until `stop()` or a permanent error.
    public func run() async {
        var random = SystemRandomNumberGenerator()
        var servers = configuration.servers
        if configuration.discoversServers {
            let found = await discoverServers()
            // The domain itself stays last, for a domain without SRV records that work.
            servers = found + servers.filter { !found.contains($0) }
        }
        var rotation = ServerRotation(addresses: servers, backoff: configuration.backoff)
        while !state.withLockedValue({ $0.stopped }) {
            let began = ContinuousClock.now
            let server = rotation.current
            let error = await connectOnce(to: server)
            let stopped = state.withLockedValue { state in
                state.online = false
                state.channel = nil
                return state.stopped
            }
            eventSource.connected(nil)
            if stopped {
                eventSource.yield(.offline(error, reconnectIn: nil))
                break
            }
            if error.kind.isPermanent {
                logger.error("XMPP connection failed and will not be retried", metadata: ["error": "\(error)"])
                eventSource.yield(.offline(error, reconnectIn: nil))
                break
            }
            let stable = ContinuousClock.now - began >= configuration.stableConnection
            let delay = rotation.failed(error, stable: stable, random: &random)
            logger.notice(
                "XMPP connection lost; reconnecting",
                metadata: [
                    "server": "\(server)", "error": "\(error)", "next": "\(rotation.current)", "in": "\(delay)",
                ])
            eventSource.yield(.offline(error, reconnectIn: delay))
            if delay > .zero { await sleep(for: delay) }
        }
        eventSource.finish()
    }

    /// Closes the stream cleanly (waiting at most a few seconds for the server) and makes
    /// `run()` return.
    public func stop() async {
        let (channel, sleeper) = state.withLockedValue { state in
            state.stopped = true
            return (state.channel, state.sleeper)
        }
        sleeper?.cancel()
        if let channel {
            let closed = channel.eventLoop.makePromise(of: Void.self)
            channel.writeAndFlush(XMPPOutbound.closeStream, promise: closed)
            try? await closed.futureResult.get()
        }
    }

    /// The domain's servers from DNS SRV records, looked up on a thread of its own (the
    /// resolver blocks).
    private func discoverServers() async -> [ServerAddress] {
        let domain = configuration.connection.domain
        // --direct-tls asks for direct TLS only; STARTTLS (the default) takes both services'
        // records, each server secured as its record says (XEP-0368).
        let directTLS: Bool? =
            switch configuration.security {
            case .startTLS: nil
            case .directTLS: true
            case .noneForTesting: false
            }
        let found = await withCheckedContinuation { (continuation: CheckedContinuation<[ServerAddress], Never>) in
            Thread.detachNewThread {
                var random = SystemRandomNumberGenerator()
                continuation.resume(returning: ServiceRecords.lookUp(domain: domain, directTLS: directTLS, random: &random))
            }
        }
        logger.debug(
            "DNS SRV lookup", metadata: [
                "names": "\((directTLS.map { [$0] } ?? [false, true]).map { ServiceRecords.serviceName(domain: domain, directTLS: $0) })",
                "servers": "\(found.map { $0.description })",
            ])
        return found
    }

    // MARK: One connection

    private func sleep(for delay: Duration) async {
        let task = Task { _ = try? await Task.sleep(for: delay) }
        let stopped = state.withLockedValue { state in
            state.sleeper = task
            return state.stopped
        }
        if stopped { task.cancel() }
        await task.value
        state.withLockedValue { $0.sleeper = nil }
    }

    /// One connection to `server`, from TCP connect to its end; returns why it ended.
    private func connectOnce(to server: ServerAddress) async -> ConnectionError {
        var connection = configuration.connection
        let (previous, token) = state.withLockedValue { ($0.streamManagement, $0.resumptionToken) }
        if connection.streamManagement != .disabled {
            connection.streamManagement = token.map { .resume($0) } ?? .enable
        }
        let tls: TLSClientConfiguration?
        let direct: Bool
        switch configuration.security.securing(server) {
        case .startTLS(let settings):
            tls = settings
            direct = false
            connection.tlsPolicy = .required
        case .directTLS(let settings):
            tls = settings
            direct = true
            connection.tlsPolicy = .direct
        case .noneForTesting:
            tls = nil
            direct = false
            connection.tlsPolicy = .disabledForTesting
        }
        let settings = {
            var settings = configuration
            settings.connection = connection
            return settings
        }()
        let eventLoop = group.next()
        let ended = eventLoop.makePromise(of: ConnectionError.self)
        state.withLockedValue { $0.ended = ended }

        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelInitializer { [logger] channel in
                channel.eventLoop.makeCompletedFuture {
                    if direct, let tls {
                        try channel.pipeline.syncOperations.addHandler(TLSHandler(engine: TLSEngine(client: tls)))
                    }
                    let handler = XMPPStreamHandler(
                        configuration: settings,
                        startTLS: direct ? nil : tls,
                        waitsForDirectTLS: direct,
                        previousStreamManagement: previous,
                        logger: logger
                    ) { [weak channel] event in
                        self.handle(event, channel: channel)
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        logger.debug("connecting", metadata: ["host": "\(server.host)", "port": "\(server.port)"])
        do {
            let channel = try await bootstrap.connect(host: server.host, port: server.port).get()
            let stopped = state.withLockedValue { state in
                state.channel = channel
                return state.stopped
            }
            eventSource.connected(channel)
            if stopped { channel.close(promise: nil) }
        } catch {
            ended.succeed(
                ConnectionError(
                    .connectionLost,
                    "cannot connect to \(server): \(error); check the host, the port and that the server runs"
                ))
        }
        return (try? await ended.futureResult.get())
            ?? ConnectionError(.connectionLost, "the connection ended without a reason")
    }

    /// A connection's event, on its event loop.
    private func handle(_ event: XMPPStreamEvent, channel: (any Channel)?) {
        switch event {
        case .ready(let jid, let resumed, let token):
            state.withLockedValue { state in
                state.online = true
                state.resumptionToken = token
                state.streamManagement = nil
            }
            eventSource.yield(.online(fullJID: jid, resumed: resumed), readFrom: channel)
        case .stanza(let element):
            eventSource.yield(.stanza(element), readFrom: channel)
        case .failed(let error, let streamManagement):
            let ended = state.withLockedValue { state in
                state.online = false
                if let streamManagement, let jid = state.resumptionToken?.fullJID {
                    state.streamManagement = streamManagement
                    state.resumptionToken = streamManagement.resumptionToken(fullJID: jid)
                } else if error.kind != .connectionLost && error.kind != .timeout {
                    state.streamManagement = nil
                    state.resumptionToken = nil
                }
                let ended = state.ended
                state.ended = nil
                return ended
            }
            ended?.succeed(error)
        }
    }
}
