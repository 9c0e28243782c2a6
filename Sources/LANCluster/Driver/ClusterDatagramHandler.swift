import Logging
import NIOCore

/// Hands the datagrams of a cluster's socket to its `ClusterEngine`.
final class ClusterDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let engine: ClusterEngine
    private let logger: Logger

    init(engine: ClusterEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = unwrapInboundIn(data)
        engine.receive(envelope.data.readBytes(length: envelope.data.readableBytes) ?? [])
    }

    /// The end of one read of the socket (several datagrams with vector reads): what they
    /// delivered goes to the consumer as one event.
    func channelReadComplete(context: ChannelHandlerContext) {
        engine.readComplete()
    }

    /// A UDP socket's errors (an ICMP report, a full buffer) concern one datagram: the
    /// socket stays open, and the node's repair recovers what was lost.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("LAN cluster socket error", metadata: ["error": "\(error)"])
    }
}
