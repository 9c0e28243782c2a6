import CanvasTestSupport
import Testing

@testable import LANCluster

private let roomKey = Array("a shared room secret".utf8)

/// A datagram from `sender` as a peer node would send it: sealed with `key`, plain without
/// one, or (`oldFormat`) in format version 1 with only its HMAC tag, as nodes sent before
/// datagrams were sealed.
private func datagram(
    from sender: String = "peer", incarnation: UInt64 = 77, sequence: UInt64, body: Datagram.Body,
    room: String = "sketch", key: [UInt8]? = roomKey, oldFormat: Bool = false
) throws -> [UInt8] {
    let datagram = Datagram(room: room, sender: sender, incarnation: incarnation, sequence: sequence, body: body)
    guard let key, !oldFormat else { return try datagram.encoded(key: try key.map { try RoomKey($0) }) }
    let sealer = DatagramSealer(key: try RoomKey(key), room: room)
    return try #require(sealer.seal(try datagram.encoded(key: nil), sender: sender, incarnation: incarnation, sequence: sequence))
}

private func payload(_ dataSequence: UInt64, _ bytes: [UInt8]) -> Datagram.Body {
    .data(DataFragment(dataSequence: dataSequence, index: 0, count: 1, chunk: bytes))
}

@Suite struct AuthenticationTests {
    @Test func acceptsAuthenticDatagrams() throws {
        var (node, _) = try startedNode("self", key: roomKey)
        let actions = node.receive(bytes: try datagram(sequence: 1, body: payload(1, [7])), now: .zero)
        #expect(actions.deliveries.map(\.payload) == [[7]])
        #expect(actions.reports.contains(.memberJoined("peer")))
        #expect(node.counters.datagramsAccepted == 1)
    }

    @Test func rejectsEveryTamperedByte() throws {
        var (node, _) = try startedNode("self", key: roomKey)
        let bytes = try datagram(sequence: 1, body: payload(1, [1, 2, 3]))
        for position in bytes.indices {
            var tampered = bytes
            tampered[position] ^= 0x01
            #expect(node.receive(bytes: tampered, now: .zero).deliveries.isEmpty)
        }
        #expect(node.counters.datagramsAccepted == 0)
        #expect(node.counters.datagramsDropped == bytes.count)
        #expect(node.counters.droppedUnauthenticated > bytes.count / 2)
        #expect(node.receive(bytes: bytes, now: .zero).deliveries.count == 1, "the original still passes")
    }

    @Test func rejectsWrongKeyAndMissingTag() throws {
        var (node, _) = try startedNode("self", key: roomKey)
        _ = node.receive(bytes: try datagram(sequence: 1, body: payload(1, [1]), key: Array("guess".utf8)), now: .zero)
        _ = node.receive(bytes: try datagram(sequence: 2, body: payload(2, [2]), key: nil), now: .zero)
        #expect(node.counters.droppedUnauthenticated == 1)
        #expect(node.counters.droppedOldFormat == 1, "a plain datagram in a room with a key")
        #expect(node.members.isEmpty, "spoofed datagrams make no member")
    }

    /// With a key, datagrams are sealed: nothing of the payload shows in the bytes; a
    /// datagram of the earlier format (HMAC-authenticated, readable by anyone) is refused and
    /// counted as such, even with the right key.
    @Test func sealedDatagramsHideThePayloadAndTheOldFormatIsRefused() throws {
        let secret = Array("the drawing's points".utf8)
        let sealed = try datagram(sequence: 1, body: payload(1, secret))
        #expect(!sealed.indices.contains { sealed[$0...].starts(with: secret.prefix(6)) }, "the payload is not in clear")
        #expect(sealed[4] == DatagramSealer.version)
        let again = try datagram(sequence: 1, body: payload(1, secret))
        #expect(sealed != again, "a fresh nonce for every datagram")
        var (node, _) = try startedNode("self", key: roomKey)
        _ = node.receive(bytes: try datagram(sequence: 2, body: payload(2, secret), oldFormat: true), now: .zero)
        #expect(node.counters.droppedOldFormat == 1)
        #expect(node.receive(bytes: sealed, now: .zero).deliveries.map(\.payload) == [secret])
        #expect(node.receive(bytes: again, now: .zero).deliveries.isEmpty, "the same sequence number again is a replay")
        #expect(node.counters.droppedReplayed == 1)
    }

    /// The key derivation is HKDF-SHA-256: RFC 5869's first test case.
    @Test func keysAreDerivedWithHKDF() throws {
        let key = try RoomKey([UInt8](repeating: 0x0b, count: 22))
        let derived = key.derived(salt: Array(0x00...0x0c), info: Array(0xf0...0xf9), length: 42)
        let expected = "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        #expect(derived.map { String(format: "%02x", $0) }.joined() == expected)
    }

    @Test func countsSpoofedDatagramsByReason() throws {
        var (node, _) = try startedNode("self", key: roomKey)
        let beacon = Datagram.Body.beacon(
            Beacon(capabilities: .hasXMPPSession, intervalMilliseconds: 1000, highestDataSequence: 0, summary: []))
        _ = node.receive(
            bytes: try datagram(from: "a", sequence: 1, body: beacon, key: Array("wrong".utf8)), now: .zero)
        _ = node.receive(bytes: try datagram(from: "a", sequence: 1, body: beacon, key: nil), now: .zero)
        _ = node.receive(bytes: try datagram(from: "a", sequence: 2, body: beacon, oldFormat: true), now: .zero)
        _ = node.receive(bytes: try datagram(sequence: 1, body: beacon, room: "other"), now: .zero)
        _ = node.receive(bytes: Array("GET / HTTP/1.1\r\n".utf8), now: .zero)
        _ = node.receive(bytes: try datagram(from: "self", incarnation: 1, sequence: 1, body: beacon), now: .zero)
        _ = node.receive(bytes: try datagram(from: "self", incarnation: 2, sequence: 1, body: beacon), now: .zero)
        let counters = node.counters
        #expect(counters.droppedUnauthenticated == 1)
        #expect(counters.droppedOldFormat == 2)
        #expect(counters.droppedOtherRoom == 1)
        #expect(counters.droppedMalformed == 1)
        #expect(counters.droppedOwn == 1)
        #expect(counters.droppedNodeIDConflict == 1)
        #expect(counters.datagramsAccepted == 0)
        #expect(node.gateway == nil, "a spoofed gateway is not elected")

        var (trusting, _) = try startedNode("self")
        _ = trusting.receive(bytes: try datagram(sequence: 1, body: beacon), now: .zero)
        #expect(trusting.counters.droppedUnexpectedlyAuthenticated == 1)
    }

    @Test func rejectsReplaysAndAcceptsReordering() throws {
        var (node, _) = try startedNode("self", key: roomKey)
        let first = try datagram(sequence: 1, body: payload(1, [1]))
        let second = try datagram(sequence: 2, body: payload(2, [2]))
        let third = try datagram(sequence: 3, body: payload(3, [3]))
        #expect(node.receive(bytes: third, now: .zero).deliveries.map(\.payload) == [[3]])
        #expect(node.receive(bytes: first, now: .zero).deliveries.isEmpty, "before the first data seen: history")
        #expect(node.receive(bytes: second, now: .zero).deliveries.isEmpty)
        #expect(node.counters.droppedReplayed == 0)
        #expect(node.receive(bytes: third, now: .zero).isEmpty)
        #expect(node.receive(bytes: first, now: .zero).isEmpty)
        #expect(node.counters.droppedReplayed == 2)
    }

    @Test func deliversReorderedDataWithinTheWindow() throws {
        var (node, _) = try startedNode("self", key: roomKey)
        let beacon = Datagram.Body.beacon(
            Beacon(capabilities: [], intervalMilliseconds: 1000, highestDataSequence: 0, summary: []))
        _ = node.receive(bytes: try datagram(sequence: 1, body: beacon), now: .zero)
        var delivered: [[UInt8]] = []
        for sequence in (2...600).reversed() {
            let bytes = try datagram(
                sequence: UInt64(sequence), body: payload(UInt64(sequence - 1), [UInt8(sequence % 256)]))
            delivered += node.receive(bytes: bytes, now: .zero).deliveries.map(\.payload)
        }
        #expect(delivered.count == 599)
        #expect(node.counters.droppedReplayed == 0)
        let tooOld = try datagram(sequence: 700, body: payload(3000, [0]))
        _ = node.receive(bytes: try datagram(sequence: 2000, body: payload(1999, [0])), now: .zero)
        #expect(node.receive(bytes: tooOld, now: .zero).isEmpty)
        #expect(node.counters.droppedReplayed == 1)
    }

    @Test func acceptsARestartedSenderWithANewIncarnation() throws {
        var (node, _) = try startedNode("self", key: roomKey)
        let beforeRestart = try datagram(incarnation: 1, sequence: 1, body: payload(1, [1]))
        #expect(node.receive(bytes: beforeRestart, now: .zero).deliveries.count == 1)
        let afterRestart = try datagram(incarnation: 2, sequence: 1, body: payload(1, [2]))
        let actions = node.receive(bytes: afterRestart, now: .seconds(1))
        #expect(actions.deliveries.map(\.payload) == [[2]])
        #expect(actions.reports == [.memberLeft("peer"), .memberJoined("peer")])
        #expect(node.members.map(\.incarnation) == [2])
        #expect(
            node.receive(bytes: beforeRestart, now: .seconds(2)).isEmpty, "the old run's datagrams are still replays")
        #expect(node.counters.droppedReplayed == 1)
    }

    @Test func keyedNodesTalkAndIgnoreOthersKeys() throws {
        var (a, aStart) = try startedNode("a", key: roomKey)
        var (b, _) = try startedNode("b", key: roomKey)
        var (c, cStart) = try startedNode("c", key: Array("another key".utf8))
        for bytes in aStart.datagrams { _ = b.receive(bytes: bytes, now: .zero) }
        for bytes in cStart.datagrams { _ = b.receive(bytes: bytes, now: .zero) }
        #expect(b.members.map(\.nodeID) == ["a"])
        let sent = try a.send(payload: Array(repeating: 9, count: 3000), now: .zero)
        #expect(sent.datagrams.count == 3)
        #expect(sent.datagrams.allSatisfy { $0.count <= 1200 })
        let delivered = sent.datagrams.flatMap { b.receive(bytes: $0, now: .zero).deliveries }
        #expect(delivered.map(\.payload) == [Array(repeating: 9, count: 3000)])
        _ = c.receive(bytes: sent.datagrams[0], now: .zero)
        #expect(c.counters.droppedUnauthenticated == 1)
    }
}
