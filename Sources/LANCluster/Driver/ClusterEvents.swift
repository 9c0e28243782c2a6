import NIOConcurrencyHelpers
import NIOCore

/// The events of a `ClusterDriver`, in order, with back-pressure: when its consumer falls
/// `ClusterEventBuffer.highWatermark` events behind, the driver stops reading its socket
/// (the kernel's receive buffer, then loss and repair, take over) until the consumer has
/// caught up to `lowWatermark`. Memory stays bounded however fast the others draw.
///
/// One consumer only; it ends when the driver stops.
public struct ClusterEvents: AsyncSequence, Sendable {
    public typealias Element = ClusterEvent
    typealias Producer = NIOAsyncSequenceProducer<
        ClusterEvent, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, ClusterReadingResumer
    >

    let producer: Producer

    /// Reads the events in order; each event taken makes room for the driver to read more.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Producer.AsyncIterator

        /// The next event, or nil once the driver has stopped.
        public mutating func next() async -> ClusterEvent? { await base.next() }
    }

    /// The one iterator of this sequence.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: producer.makeAsyncIterator()) }
}

/// How many events a `ClusterDriver` lets its consumer fall behind.
public struct ClusterEventBuffer: Sendable, Hashable {
    /// Past this many unconsumed events the driver stops reading its socket.
    public var highWatermark: Int
    /// Reading resumes when the consumer is this close again.
    public var lowWatermark: Int

    /// A buffer; `lowWatermark` must not exceed `highWatermark` (both at least 1).
    public init(lowWatermark: Int = 1024, highWatermark: Int = 4096) {
        self.lowWatermark = max(1, min(lowWatermark, highWatermark))
        self.highWatermark = max(1, highWatermark)
    }
}

/// Resumes a paused driver's reading when its consumer asks for more events (or is gone).
final class ClusterReadingResumer: NIOAsyncSequenceProducerDelegate {
    private let resume = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

    /// Sets what resuming does (the driver's engine exists after its event sequence).
    func onResume(_ action: @escaping @Sendable () -> Void) {
        resume.withLockedValue { $0 = action }
    }

    func produceMore() { resume.withLockedValue { $0 }?() }

    /// A consumer that went away must not leave the node deaf to beacons and requests.
    func didTerminate() { resume.withLockedValue { $0 }?() }
}
