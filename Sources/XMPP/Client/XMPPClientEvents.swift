import NIOConcurrencyHelpers
import NIOCore

/// The events of an `XMPPClient`, in order, with back-pressure: when its consumer falls
/// `XMPPClientEventBuffer.highWatermark` events behind, the client stops reading its
/// connection (the kernel's receive buffer, then TCP flow control, hold the server back)
/// until fewer than `lowWatermark` events wait. Memory stays bounded however fast
/// the rooms talk.
///
/// One consumer only; it ends when `XMPPClient.run()` returns.
public struct XMPPClientEvents: AsyncSequence, Sendable {
    public typealias Element = XMPPClientEvent
    typealias Producer = NIOAsyncSequenceProducer<
        XMPPClientEvent, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, XMPPReadingResumer
    >

    let producer: Producer

    /// Reads the events in order; each event taken makes room for the client to read more.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Producer.AsyncIterator

        /// The next event, or nil once the client has stopped.
        public mutating func next() async -> XMPPClientEvent? { await base.next() }
    }

    /// The one iterator of this sequence.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: producer.makeAsyncIterator()) }
}

/// How many events an `XMPPClient` lets its consumer fall behind.
public struct XMPPClientEventBuffer: Sendable, Hashable {
    /// Past this many unconsumed events the client stops reading its connection.
    public var highWatermark: Int
    /// Reading resumes once fewer than this many events wait.
    public var lowWatermark: Int

    /// A buffer; `lowWatermark` must not exceed `highWatermark` (both at least 1). Stanzas
    /// may be large (up to the server's stanza limit), so the defaults are modest.
    public init(lowWatermark: Int = 128, highWatermark: Int = 512) {
        self.lowWatermark = max(1, min(lowWatermark, highWatermark))
        self.highWatermark = max(1, highWatermark)
    }
}

/// The producing end of `XMPPClientEvents`: it hands events to the consumer, and pauses
/// the reading of the connection a stanza came from when the consumer falls behind; the
/// consumer's catching up resumes the reading of the current connection.
final class XMPPClientEventSource: Sendable {
    /// The events, for the consumer.
    let events: XMPPClientEvents
    private let source: XMPPClientEvents.Producer.Source
    /// The connection whose reading the consumer's catching up resumes.
    private let connection = NIOLockedValueBox<(any Channel)?>(nil)

    init(buffer: XMPPClientEventBuffer) {
        let resumer = XMPPReadingResumer()
        let made = XMPPClientEvents.Producer.makeSequence(
            backPressureStrategy: .init(lowWatermark: buffer.lowWatermark, highWatermark: buffer.highWatermark),
            finishOnDeinit: false, delegate: resumer)
        events = XMPPClientEvents(producer: made.sequence)
        source = made.source
        resumer.onResume { [connection] in
            // Off the channel's event loop: the option is set there, after the pause that
            // the same loop may be performing now.
            connection.withLockedValue { $0 }?.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
        }
    }

    /// `channel` is the client's connection now (nil: none).
    func connected(_ channel: (any Channel)?) {
        connection.withLockedValue { $0 = channel }
    }

    /// Hands `event` to the consumer. An event read from `channel` (on its event loop) that
    /// puts the consumer too far behind pauses the channel's reading; the event itself is
    /// kept.
    func yield(_ event: XMPPClientEvent, readFrom channel: (any Channel)? = nil) {
        guard source.yield(event) == .stopProducing, let channel else { return }
        channel.eventLoop.preconditionInEventLoop()
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
    }

    /// No more events: the consumer's iteration ends after those it has not read.
    func finish() {
        source.finish()
    }
}

/// Resumes a paused connection's reading when the consumer asks for more events (or is gone).
final class XMPPReadingResumer: NIOAsyncSequenceProducerDelegate {
    private let resume = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

    /// Sets what resuming does (it needs the event source, made after this delegate).
    func onResume(_ action: @escaping @Sendable () -> Void) {
        resume.withLockedValue { $0 = action }
    }

    func produceMore() { resume.withLockedValue { $0 }?() }

    /// A consumer that went away must not leave the connection deaf to the server's pings.
    func didTerminate() { resume.withLockedValue { $0 }?() }
}
