public import NIOCore

/// The inbound user event a ``TLSHandler`` fires once its handshake has completed and
/// application data is encrypted.
public struct TLSHandshakeCompleted: Sendable, Hashable {
    /// The event.
    public init() {}
}

/// Runs a ``TLSEngine`` in a channel: ciphertext on the network side, plaintext
/// `ByteBuffer`s for the handlers after it.
///
/// Add it before the channel is active (a bootstrap's channel initializer) for direct TLS,
/// or at `.first` of a live pipeline for STARTTLS; either way the handshake starts at once.
/// Writes made before the handshake completes are held and sent after it; then the handler
/// fires ``TLSHandshakeCompleted``. A ``TLSError`` is passed to `errorCaught` and closes the
/// channel. Closing the channel sends close_notify first; the peer's close_notify closes it.
///
/// Like every channel handler, it must only be used on its channel's event loop.
public final class TLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    /// Ciphertext from the network.
    public typealias InboundIn = ByteBuffer
    /// Decrypted application bytes.
    public typealias InboundOut = ByteBuffer
    /// Application bytes to encrypt.
    public typealias OutboundIn = ByteBuffer
    /// Ciphertext for the network.
    public typealias OutboundOut = ByteBuffer

    private enum State {
        /// Added, but the channel is not active yet.
        case idle
        /// Handshake messages are flowing; application writes are held.
        case handshaking
        /// Application data flows both ways.
        case active
        /// Our close_notify is sent and the channel is closing.
        case closing
        /// The channel closed or failed; nothing more is sent or delivered.
        case closed
    }

    private struct HeldWrite {
        var plaintext: ByteBuffer
        var promise: EventLoopPromise<Void>?
    }

    private let engine: TLSEngine
    private var state = State.idle
    private var heldWrites: [HeldWrite] = []

    /// A handler running `engine`, which must be fresh: no bytes received or handshake started.
    public init(engine: TLSEngine) {
        self.engine = engine
    }

    // MARK: - Lifecycle

    /// Starts the handshake if the channel is already active (STARTTLS).
    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHandshake(context: context) }
    }

    /// Fails the writes still held for the handshake.
    public func handlerRemoved(context: ChannelHandlerContext) {
        failHeldWrites(TLSError(.closed, "the TLS handler was removed before these writes were encrypted"))
    }

    /// Starts the handshake (direct TLS), then passes the event on.
    public func channelActive(context: ChannelHandlerContext) {
        startHandshake(context: context)
        context.fireChannelActive()
    }

    /// Fails held writes; reports a ``TLSError`` of kind `.closed` if the handshake had not completed.
    public func channelInactive(context: ChannelHandlerContext) {
        let handshakeUnfinished = state == .idle || state == .handshaking
        state = .closed
        let error = TLSError(
            .closed,
            "the connection closed before the TLS handshake completed; check that the peer speaks TLS on this port")
        failHeldWrites(error)
        if handshakeUnfinished { context.fireErrorCaught(error) }
        context.fireChannelInactive()
    }

    // MARK: - Inbound

    /// Decrypts ciphertext from the network and passes on the plaintext, if any.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ciphertext = unwrapInboundIn(data)
        switch state {
        case .idle:
            startHandshake(context: context)
        case .handshaking, .active:
            break
        case .closing, .closed:
            return
        }
        do throws(TLSError) {
            try engine.receive(ciphertext: ciphertext.readableBytesView)
            try advance(context: context)
        } catch {
            fail(context: context, error)
        }
    }

    // MARK: - Outbound

    /// Encrypts `data`, or holds it until the handshake completes.
    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let plaintext = unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking:
            heldWrites.append(HeldWrite(plaintext: plaintext, promise: promise))
        case .active:
            do throws(TLSError) {
                try encrypt(plaintext, promise: promise, context: context)
            } catch {
                promise?.fail(error)
                fail(context: context, error)
            }
        case .closing, .closed:
            promise?.fail(
                TLSError(.closed, "cannot write \(plaintext.readableBytes) bytes: the TLS connection is closed"))
        }
    }

    /// Flushes encrypted writes; held writes are flushed when the handshake completes.
    public func flush(context: ChannelHandlerContext) {
        guard state != .idle, state != .handshaking else { return }
        context.flush()
    }

    /// Sends close_notify if the handshake has completed, then closes.
    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode != .input else {
            context.close(mode: mode, promise: promise)
            return
        }
        switch state {
        case .active:
            state = .closing
            engine.shutdown()
            sendCiphertext(context: context)
        case .idle, .handshaking:
            state = .closed
            failHeldWrites(TLSError(.closed, "the channel was closed before the TLS handshake completed"))
        case .closing, .closed:
            break
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: - Driving the engine

    private func startHandshake(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        state = .handshaking
        do throws(TLSError) {
            try advance(context: context)
        } catch {
            fail(context: context, error)
        }
    }

    /// Moves the handshake on, then delivers any plaintext; re-checks the state after every
    /// event fired, because the handlers after this one may close the channel.
    private func advance(context: ChannelHandlerContext) throws(TLSError) {
        if state == .handshaking {
            let complete = try engine.advanceHandshake()
            sendCiphertext(context: context)
            guard complete else { return }
            state = .active
            try sendHeldWrites(context: context)
            context.fireUserInboundEventTriggered(TLSHandshakeCompleted())
        }
        guard state == .active else { return }
        let plaintext = try engine.readPlaintext()
        sendCiphertext(context: context)
        if !plaintext.isEmpty {
            context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: plaintext)))
        }
        if engine.peerClosed, state == .active {
            state = .closing
            engine.shutdown()
            sendCiphertext(context: context)
            context.close(promise: nil)
        }
    }

    private func encrypt(
        _ plaintext: ByteBuffer, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext
    ) throws(TLSError) {
        try engine.write(plaintext: plaintext.readableBytesView)
        context.write(
            wrapOutboundOut(context.channel.allocator.buffer(bytes: engine.takeCiphertext())), promise: promise)
    }

    private func sendHeldWrites(context: ChannelHandlerContext) throws(TLSError) {
        guard !heldWrites.isEmpty else { return }
        var pending = heldWrites[...]
        heldWrites = []
        while let next = pending.popFirst() {
            do throws(TLSError) {
                try encrypt(next.plaintext, promise: next.promise, context: context)
            } catch {
                next.promise?.fail(error)
                for write in pending { write.promise?.fail(error) }
                throw error
            }
        }
        context.flush()
    }

    /// Writes and flushes whatever the engine has for the network (handshake messages,
    /// alerts, close_notify).
    private func sendCiphertext(context: ChannelHandlerContext) {
        let ciphertext = engine.takeCiphertext()
        guard !ciphertext.isEmpty else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: ciphertext)), promise: nil)
    }

    private func fail(context: ChannelHandlerContext, _ error: TLSError) {
        guard state != .closed else { return }
        state = .closed
        // An alert explaining the failure to the peer may be waiting.
        sendCiphertext(context: context)
        failHeldWrites(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failHeldWrites(_ error: TLSError) {
        let writes = heldWrites
        heldWrites = []
        for write in writes { write.promise?.fail(error) }
    }
}

@available(*, unavailable)
extension TLSHandler: Sendable {}
