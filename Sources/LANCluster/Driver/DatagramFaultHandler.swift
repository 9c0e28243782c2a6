import NIOCore

/// Duplicates and delays (hence reorders) the datagrams written to a cluster's socket, as
/// `faults` says: a bad LAN, for tests. `ClusterTransport` puts it in the socket's pipeline
/// only when the configuration has faults; the engine writes every datagram the same way.
final class DatagramFaultHandler: ChannelOutboundHandler {
    typealias OutboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let faults: DatagramFaults
    private var random = SystemRandomNumberGenerator()

    init(_ faults: DatagramFaults) {
        self.faults = faults
    }

    /// Sends a duplicate at once, then the datagram now or after a random delay (flushed on
    /// its own then, since the writer's flush has passed).
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if Double.random(in: 0..<1, using: &random) < faults.duplicate {
            context.write(data, promise: nil)
        }
        guard Double.random(in: 0..<1, using: &random) < faults.delay else {
            context.write(data, promise: promise)
            return
        }
        let (seconds, attoseconds) = faults.maximumDelay.components
        let maximum = max(1, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let delay = TimeAmount.microseconds(Int64.random(in: 0...maximum, using: &random))
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            context.writeAndFlush(data, promise: promise)
        }
    }
}
