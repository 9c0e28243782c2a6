import NIOCore
import NIOEmbedded
import Testing

@testable import LANCluster

@Suite("Injected datagram faults (test setting)")
struct DatagramFaultsTests {
    @Test func aSpecificationIsRead() throws {
        let faults = try DatagramFaults(parsing: "dup=0.2,delay=0.5,max-delay-ms=30")
        #expect(faults == DatagramFaults(duplicate: 0.2, delay: 0.5, maximumDelay: .milliseconds(30)))
        #expect(try DatagramFaults(parsing: "") == DatagramFaults())
    }

    @Test(arguments: ["dup", "dup=x", "dup=1.5", "loss=0.1", "delay=-1"])
    func aBadSpecificationIsNamed(_ text: String) {
        #expect(throws: ClusterError.self) { try DatagramFaults(parsing: text) }
    }

    @Test func withoutFaultsADatagramLeavesOnce() throws {
        let channel = faultyChannel(DatagramFaults())
        try channel.writeAndFlush(envelope(7)).wait()
        #expect(try sent(channel) == [[7]])
    }

    @Test func aDuplicatedDatagramLeavesTwice() throws {
        let channel = faultyChannel(DatagramFaults(duplicate: 1))
        try channel.writeAndFlush(envelope(7)).wait()
        try channel.writeAndFlush(envelope(8)).wait()
        #expect(try sent(channel) == [[7], [7], [8], [8]])
    }

    @Test func aDelayedDatagramLeavesWithinTheMaximumDelay() throws {
        let channel = faultyChannel(DatagramFaults(delay: 1, maximumDelay: .milliseconds(20)))
        let datagram = try envelope(7)
        let written = channel.writeAndFlush(datagram)
        #expect(try sent(channel) == [])
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(20))
        try written.wait()
        #expect(try sent(channel) == [[7]])
    }

    private func faultyChannel(_ faults: DatagramFaults) -> EmbeddedChannel {
        EmbeddedChannel(handler: DatagramFaultHandler(faults))
    }

    private func envelope(_ byte: UInt8) throws -> AddressedEnvelope<ByteBuffer> {
        AddressedEnvelope(
            remoteAddress: try SocketAddress(ipAddress: "239.255.77.77", port: 47777), data: ByteBuffer(bytes: [byte]))
    }

    /// The payloads written to the socket so far, in order.
    private func sent(_ channel: EmbeddedChannel) throws -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        while let envelope = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) {
            payloads.append(Array(envelope.data.readableBytesView))
        }
        return payloads
    }
}
