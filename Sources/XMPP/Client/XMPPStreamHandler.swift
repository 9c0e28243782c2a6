import Logging
import NIOCore

/// What the client writes into a connection's pipeline.
enum XMPPOutbound: Sendable {
    /// A stanza of the session (message, presence, iq), counted by stream management.
    case stanza(XMLElement)
    /// Close the stream cleanly: `</stream:stream>`, then close once the server has
    /// closed its side (or at once if the session never became ready).
    case closeStream
}

/// What a connection reports to its `XMPPClient`, on the connection's event loop.
enum XMPPStreamEvent {
    /// The session is ready: fresh (resource bound) or resumed (XEP-0198).
    case ready(fullJID: String, resumed: Bool, resumption: StreamResumptionToken?)
    /// A stanza of the ready session, for the layers above.
    case stanza(XMLElement)
    /// The connection failed; it is being closed. The stream management state, if any, is
    /// what a later connection needs to resume the session and resend what was not
    /// acknowledged.
    case failed(ConnectionError, StreamManagementState?)
}

/// The thin shell around `XMPPConnectionStateMachine` and `StreamManagementState`: it
/// feeds the server's bytes to an `XMLStreamParser`, hands the events to the machines and
/// carries out their actions on the channel (writes, STARTTLS, parser resets), answers
/// server pings and keeps the connection alive. Lives on its channel's event loop.
final class XMPPStreamHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = XMPPOutbound
    typealias OutboundOut = ByteBuffer

    private let parser: XMLStreamParser
    private var machine: XMPPConnectionStateMachine
    private var streamManagement: StreamManagementState?
    private var fullJID: String?
    /// The TLS client settings for STARTTLS, `nil` when the stream is not upgraded.
    private let startTLS: TLSClientConfiguration?
    /// Whether the stream must wait for a TLS handshake (direct TLS) before its header.
    private let waitsForDirectTLS: Bool
    private let keepAliveInterval: TimeAmount
    private let keepAliveTimeout: TimeAmount
    private let onEvent: (XMPPStreamEvent) -> Void
    private let logger: Logger
    /// The previous connection's stream management state, for a resumption.
    private let previousStreamManagement: StreamManagementState?

    private var context: ChannelHandlerContext?
    private var started = false
    private var failed = false
    private var closing = false
    private var lastReceived = NIODeadline.now()
    private var keepAliveTask: Scheduled<Void>?
    private var awaitingKeepAliveAnswerSince: NIODeadline?
    private var pingCounter = 0
    /// What disco#info queries are answered with.
    private let capabilities: EntityCapabilities?

    init(
        configuration: XMPPClientConfiguration,
        startTLS: TLSClientConfiguration?,
        waitsForDirectTLS: Bool,
        previousStreamManagement: StreamManagementState?,
        logger: Logger,
        onEvent: @escaping (XMPPStreamEvent) -> Void
    ) {
        capabilities = configuration.capabilities
        parser = XMLStreamParser(maximumStanzaSize: configuration.connection.maximumStanzaSize)
        machine = XMPPConnectionStateMachine(configuration: configuration.connection)
        self.startTLS = startTLS
        self.waitsForDirectTLS = waitsForDirectTLS
        keepAliveInterval = TimeAmount(configuration.keepAliveInterval)
        keepAliveTimeout = TimeAmount(configuration.keepAliveTimeout)
        self.previousStreamManagement = previousStreamManagement
        self.logger = logger
        self.onEvent = onEvent
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { begin(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        keepAliveTask?.cancel()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    private func begin(context: ChannelHandlerContext) {
        lastReceived = .now()
        scheduleKeepAlive(context: context)
        if !waitsForDirectTLS { startStream(context: context) }
    }

    private func startStream(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        perform(machine.start(), context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is TLSHandshakeCompleted {
            if waitsForDirectTLS && !started {
                startStream(context: context)
            } else {
                perform(machine.tlsEstablished(), context: context)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let buffer = unwrapInboundIn(data)
        lastReceived = .now()
        awaitingKeepAliveAnswerSince = nil
        let events: [XMLStreamEvent]
        do {
            events = try buffer.withUnsafeReadableBytes { try parser.feed($0) }
        } catch let error as XMLStreamError {
            failStream(error, context: context)
            return
        } catch {
            fail(ConnectionError(.protocolViolation, "\(error)"), context: context)
            return
        }
        for event in events {
            guard !failed else { return }
            handle(event, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepAliveTask?.cancel()
        if !failed {
            failed = true
            onEvent(
                .failed(
                    closing
                        ? ConnectionError(.closedByClient, "the connection was closed")
                        : ConnectionError(.connectionLost, "the server closed the TCP connection"),
                    streamManagement))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tls = error as? TLSError {
            let kind: ConnectionError.Kind = tls.kind == .certificateVerificationFailed ? .tlsFailed : .connectionLost
            fail(ConnectionError(kind, "TLS with \(machine.configuration.domain): \(tls)"), context: context)
        } else {
            fail(ConnectionError(.connectionLost, "\(error)"), context: context)
        }
    }

    // MARK: Writes from the client

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .stanza(let element):
            guard !failed, fullJID != nil else {
                promise?.fail(ConnectionError(.connectionLost, "the session is not ready"))
                return
            }
            let text = element.rendered(defaultNamespace: XMPPNamespace.client)
            writeText(text, context: context, promise: promise)
            if streamManagement != nil, StreamManagementState.isCountedStanza(element) {
                streamManagement!.outbound(text)
                if streamManagement!.shouldRequestAck {
                    writeText(streamManagement!.requestAck(), context: context, promise: nil)
                }
            }
        case .closeStream:
            closing = true
            guard context.channel.isActive else {
                promise?.succeed()
                return
            }
            if started {
                writeText("</stream:stream>", context: context, promise: nil)
                context.flush()
            }
            // The server answers with its own closing tag; close if it does not within 2 s.
            let channel = context.channel
            context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
            channel.closeFuture.cascade(to: promise)
        }
    }

    private func writeText(_ text: String, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    // MARK: The machines

    private func handle(_ event: XMLStreamEvent, context: ChannelHandlerContext) {
        if case .streamClosed = event, closing {
            context.close(promise: nil)
            return
        }
        if case .stanza(let element) = event, element.namespace == XMPPNamespace.streamManagement,
            streamManagement != nil
        {
            handleStreamManagement(element, context: context)
            return
        }
        perform(machine.handle(event), context: context)
    }

    private func handleStreamManagement(_ element: XMLElement, context: ChannelHandlerContext) {
        do {
            if let reply = try streamManagement!.handle(element) {
                writeText(reply.text, context: context, promise: nil)
                context.flush()
            }
        } catch {
            // XEP-0198 §4: an impossible acknowledgement ends the stream.
            let text = XMLElement(
                name: "text", namespace: XMPPNamespace.streamErrors, children: [.text(error.detail)])
            sendStreamError("undefined-condition", text: text, context: context)
            fail(error, context: context)
        }
    }

    private func perform(_ actions: [ConnectionAction], context: ChannelHandlerContext) {
        var wrote = false
        for action in actions {
            switch action {
            case .send(let text):
                writeText(text, context: context, promise: nil)
                wrote = true
            case .startTLS:
                guard let startTLS else {
                    fail(ConnectionError(.protocolViolation, "STARTTLS requested on a stream without TLS"), context: context)
                    return
                }
                if wrote { context.flush() }
                wrote = false
                do {
                    let engine = try TLSEngine(client: startTLS)
                    try context.pipeline.syncOperations.addHandler(TLSHandler(engine: engine), position: .first)
                } catch {
                    fail(ConnectionError(.tlsFailed, "cannot start TLS: \(error)"), context: context)
                    return
                }
            case .resetParser:
                parser.reset()
            case .ready(let jid, let enabled):
                fullJID = jid
                streamManagement = enabled.map { StreamManagementState(enabled: $0) }
                logger.info(
                    "XMPP session ready",
                    metadata: [
                        "jid": "\(jid)", "mechanism": "\(machine.negotiatedMechanism?.rawValue ?? "none")",
                        "stream-management": "\(enabled != nil)",
                    ])
                onEvent(.ready(fullJID: jid, resumed: false, resumption: streamManagement?.resumptionToken(fullJID: jid)))
            case .resumed(let previousID, let acknowledged):
                guard var state = previousStreamManagement,
                    case .resume(let token) = machine.configuration.streamManagement
                else {
                    fail(
                        ConnectionError(.protocolViolation, "the server resumed \(previousID), which we did not ask for"),
                        context: context)
                    return
                }
                let jid = token.fullJID
                fullJID = jid
                let resend: [String]
                do {
                    resend = try state.resumed(acknowledgedByServer: acknowledged)
                } catch {
                    fail(error, context: context)
                    return
                }
                streamManagement = state
                for text in resend {
                    writeText(text, context: context, promise: nil)
                }
                wrote = true
                logger.info("XMPP session resumed", metadata: ["jid": "\(jid)", "resent": "\(resend.count)"])
                onEvent(.ready(fullJID: jid, resumed: true, resumption: state.resumptionToken(fullJID: jid)))
            case .resumptionFailed(let reason, _):
                // The old session's unacknowledged stanzas are not resent on the fresh one:
                // its room presences are gone, so the layers above rejoin and resend what
                // their rooms did not confirm.
                logger.notice(
                    "XMPP session could not be resumed; starting a fresh one",
                    metadata: [
                        "reason": "\(reason)",
                        "unacknowledged": "\(previousStreamManagement?.unacknowledged.count ?? 0)",
                    ])
            case .deliver(let element):
                if streamManagement != nil, StreamManagementState.isCountedStanza(element) {
                    streamManagement!.inboundStanzaHandled()
                }
                if answerServerRequest(element, context: context) {
                    wrote = true
                } else {
                    onEvent(.stanza(element))
                }
            case .fail(let error):
                if wrote { context.flush() }
                fail(error, context: context)
                return
            }
        }
        if wrote { context.flush() }
    }

    /// Answers the iq requests addressed to us (`ServerRequest`); returns whether the
    /// stanza was one (answers to our keepalive pings included, which end here).
    private func answerServerRequest(_ element: XMLElement, context: ChannelHandlerContext) -> Bool {
        guard element.name == "iq", element.namespace == XMPPNamespace.client else { return false }
        let type = element.attribute("type")
        guard type == "get" || type == "set" else {
            return element.attribute("id")?.hasPrefix(Self.pingPrefix) == true
        }
        writeCounted(ServerRequest.answer(to: element, capabilities: capabilities), context: context)
        return true
    }

    private func writeCounted(_ element: XMLElement, context: ChannelHandlerContext) {
        let text = element.rendered(defaultNamespace: XMPPNamespace.client)
        writeText(text, context: context, promise: nil)
        streamManagement?.outbound(text)
    }

    // MARK: Keepalive

    private static let pingPrefix = "keepalive-"

    private func scheduleKeepAlive(context: ChannelHandlerContext) {
        keepAliveTask?.cancel()
        let deadline: NIODeadline
        if let since = awaitingKeepAliveAnswerSince {
            deadline = since + keepAliveTimeout
        } else {
            deadline = lastReceived + keepAliveInterval
        }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        keepAliveTask = context.eventLoop.scheduleTask(deadline: deadline) {
            handler.value.keepAliveFired()
        }
    }

    private func keepAliveFired() {
        guard let context, !failed else { return }
        let now = NIODeadline.now()
        if context.channel.syncOptions.flatMap({ try? $0.getOption(ChannelOptions.autoRead) }) == false {
            // Reading is paused until the client's consumer catches up: what the server sent
            // waits unread, so its silence says nothing. Check again after a full interval.
            lastReceived = now
            awaitingKeepAliveAnswerSince = nil
            scheduleKeepAlive(context: context)
            return
        }
        if let since = awaitingKeepAliveAnswerSince, now >= since + keepAliveTimeout {
            fail(
                ConnectionError(
                    .timeout,
                    "the server sent nothing for \(keepAliveTimeout.nanoseconds / 1_000_000_000) s after a keepalive check"),
                context: context)
            return
        }
        if awaitingKeepAliveAnswerSince == nil, now >= lastReceived + keepAliveInterval {
            awaitingKeepAliveAnswerSince = now
            if !started || fullJID == nil {
                // Still negotiating: a silent server this long has failed.
                fail(ConnectionError(.timeout, "the server stopped answering during stream negotiation"), context: context)
                return
            }
            if streamManagement != nil {
                writeText(streamManagement!.requestAck(), context: context, promise: nil)
            } else {
                pingCounter += 1
                writeCounted(
                    XMLElement(
                        name: "iq", namespace: XMPPNamespace.client,
                        attributes: [
                            XMLAttribute(name: "type", value: "get"),
                            XMLAttribute(name: "id", value: "\(Self.pingPrefix)\(pingCounter)"),
                            XMLAttribute(name: "to", value: machine.configuration.domain),
                        ],
                        children: [.element(XMLElement(name: "ping", namespace: XMPPNamespace.ping))]),
                    context: context)
            }
            context.flush()
        }
        scheduleKeepAlive(context: context)
    }

    // MARK: Failure

    private func failStream(_ error: XMLStreamError, context: ChannelHandlerContext) {
        let condition: String =
            switch error {
            case .restrictedXML: "restricted-xml"
            case .stanzaTooLarge: "policy-violation"
            case .notWellFormed: "not-well-formed"
            }
        sendStreamError(condition, text: nil, context: context)
        fail(ConnectionError(.protocolViolation, "the server's stream was refused: \(error)"), context: context)
    }

    /// Writes a stream error and the closing tag (RFC 6120 §4.9.1.1).
    private func sendStreamError(_ condition: String, text: XMLElement?, context: ChannelHandlerContext) {
        guard started, context.channel.isActive else { return }
        let rendered =
            "<stream:error>"
            + XMLElement(name: condition, namespace: XMPPNamespace.streamErrors).rendered(
                defaultNamespace: XMPPNamespace.client) + (text?.rendered(defaultNamespace: XMPPNamespace.client) ?? "")
            + "</stream:error>"
        writeText(rendered + "</stream:stream>", context: context, promise: nil)
        context.flush()
    }

    private func fail(_ error: ConnectionError, context: ChannelHandlerContext) {
        guard !failed else { return }
        failed = true
        keepAliveTask?.cancel()
        if started, context.channel.isActive, error.kind != .streamError, error.kind != .connectionLost {
            writeText("</stream:stream>", context: context, promise: nil)
            context.flush()
        }
        logger.warning("XMPP connection failed", metadata: ["error": "\(error)"])
        onEvent(.failed(error, streamManagement))
        context.close(promise: nil)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
