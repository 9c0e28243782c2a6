import NIOCore
import NIOPosix
import Testing

@testable import XMPP

/// The client's event buffer on a real loopback TCP connection (a NIO server in the test; no
/// XMPP server needed): a consumer far behind pauses the connection's reading, and its
/// catching up resumes it.
@Suite("XMPPClientEvents", .timeLimit(.minutes(1)))
struct XMPPClientEventsTests {
    @Test func aConsumerFarBehindPausesReadingUntilItCatchesUp() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let channel = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
        let source = XMPPClientEventSource(buffer: XMPPClientEventBuffer(lowWatermark: 1, highWatermark: 3))
        source.connected(channel)
        let stanza = XMLElement(name: "message", namespace: XMPPNamespace.client)

        /// Yields `count` stanzas read from `channel`, on its event loop as the client does.
        func read(_ count: Int) async throws {
            try await channel.eventLoop.submit {
                for _ in 0..<count { source.yield(.stanza(stanza), readFrom: channel) }
            }.get()
        }
        func reading() async throws -> Bool { try await channel.getOption(ChannelOptions.autoRead).get() }

        try await read(2)
        #expect(try await reading(), "two events behind: still reading")
        try await read(1)
        #expect(try await reading() == false, "three behind: paused")
        try await read(2)
        #expect(try await reading() == false, "the events read meanwhile are kept, reading stays paused")

        var events = source.events.makeAsyncIterator()
        for _ in 0..<4 { _ = await events.next() }
        #expect(try await reading() == false, "one behind: not below the low watermark yet")
        _ = await events.next()
        var resumed = false
        for _ in 0..<100 where !resumed {
            resumed = try await reading()
            if !resumed { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(resumed, "caught up: reading again")

        // Events that do not come from a connection (`offline`) never pause one.
        source.connected(nil)
        for _ in 0..<5 {
            source.yield(.offline(ConnectionError(.connectionLost, "test"), reconnectIn: .seconds(1)))
        }
        #expect(try await reading())
        source.finish()
        var count = 0
        while await events.next() != nil { count += 1 }
        #expect(count == 5, "finishing keeps what was not read")

        try await channel.close()
        try await server.close()
        try await group.shutdownGracefully()
    }
}
