import CanvasTestSupport
import Testing

@testable import LANCluster

private let key = try! RoomKey(Array("correct horse battery staple".utf8))

/// One datagram of every kind, with awkward values.
private let samples: [Datagram] = [
    Datagram(
        room: "sketch", sender: "node-a", incarnation: 0xdead_beef_0123_4567, sequence: 1,
        body: .beacon(
            Beacon(
                capabilities: .hasXMPPSession, intervalMilliseconds: 1000, highestDataSequence: 42, summary: [1, 2, 3]))
    ),
    Datagram(
        room: "ロビー", sender: "b", incarnation: 0, sequence: .max,
        body: .beacon(Beacon(capabilities: [], intervalMilliseconds: 1, highestDataSequence: 0, summary: []))),
    Datagram(
        room: "sketch", sender: "node-a", incarnation: 7, sequence: 2,
        body: .data(DataFragment(dataSequence: 5, index: 2, count: 3, chunk: Array(0..<200)))),
    Datagram(
        room: "sketch", sender: "node-a", incarnation: 7, sequence: 3,
        body: .data(DataFragment(dataSequence: 1, index: 0, count: 1, chunk: []))),
    Datagram(
        room: "sketch", sender: "node-c", incarnation: 9, sequence: 10,
        body: .nack(Nack(target: "node-a", targetIncarnation: 7, missing: [1...1, 3...9, 100...UInt64.max]))),
    Datagram(room: "sketch", sender: "node-a", incarnation: 7, sequence: 4, body: .leave),
    Datagram(
        room: "bench-1m6ddqk@rooms.localhost", sender: "0123456789abcdef0123456789abcdef", incarnation: 3, sequence: 300,
        body: .nack(Nack(target: "fedcba9876543210fedcba9876543210", targetIncarnation: 1, missing: [1...1, 300...1000]))),
    Datagram(
        room: "bench-1m6ddqk@rooms.localhost", sender: "0123456789ABCDEF0123456789ABCDEF", incarnation: 3, sequence: 300,
        body: .data(DataFragment(dataSequence: 1 << 40, index: 0, count: 1, chunk: Array(0..<20)))),
]

/// The same datagrams in the compact form (version 2).
private let compactSamples: [Datagram] = samples.map { datagram in
    var compact = datagram
    compact.format = .compact
    return compact
}

/// The tags of the samples' rooms, computed once.
private let roomTags = Dictionary(samples.map { ($0.room, Datagram.roomTag($0.room)) }) { first, _ in first }

/// Decodes `bytes` as a node of `datagram`'s room does.
private func decode(_ bytes: [UInt8], like datagram: Datagram) throws(DatagramError) -> Datagram {
    try Datagram(decoding: bytes, room: datagram.room, roomTag: roomTags[datagram.room])
}

@Suite struct DatagramCodecTests {
    @Test(arguments: samples + compactSamples)
    func roundTripsWithoutKey(_ datagram: Datagram) throws {
        let bytes = try datagram.encoded(key: nil)
        #expect(Array(bytes.prefix(5)) == Array("CVLN".utf8) + [datagram.format == .compact ? 2 : 1])
        #expect(try decode(bytes, like: datagram) == datagram)
        try Datagram.authenticate(bytes, key: nil)
    }

    @Test(arguments: samples + compactSamples)
    func roundTripsWithKey(_ datagram: Datagram) throws {
        let bytes = try datagram.encoded(key: key)
        #expect(bytes.count == (try datagram.encoded(key: nil)).count + RoomKey.tagLength)
        #expect(try decode(bytes, like: datagram) == datagram)
        try Datagram.authenticate(bytes, key: key)
    }

    /// The compact form names the room by a tag: another room's datagram is refused as
    /// such (not as malformed), and a node of the previous version refuses version 2.
    @Test func aCompactDatagramIsForItsRoomOnlyAndAnOlderNodeRefusesIt() throws {
        let bytes = try compactSamples[2].encoded(key: nil)
        #expect(throws: DatagramError(.otherRoom, "")) { try Datagram(decoding: bytes, room: "another") }
        #expect(try Datagram(decoding: bytes).room == "", "without a room, the tag is not resolved")
        do {
            _ = try Datagram(decoding: bytes, room: "sketch", readsCompact: false)
            Issue.record("a node of the previous version read version 2")
        } catch {
            #expect(error.description == "unsupported format version: version 2; this node speaks version 1")
        }
        #expect(Datagram.roomTag("sketch") != Datagram.roomTag("sketch2") && Datagram.roomTag("sketch").count == 8)
    }

    /// What the compact form saves on the datagram the 1000-user benchmark sends most: one
    /// author's second of drawing from a node with a 32-digit id, in a room with a long name.
    @Test func theCompactHeaderIsLessThanHalf() throws {
        let datagram = Datagram(
            room: "bench-1m6ddqk@rooms.localhost", sender: "0123456789abcdef0123456789abcdef", incarnation: .max,
            sequence: 5000, body: .data(DataFragment(dataSequence: 4000, index: 0, count: 1, chunk: [])))
        var compact = datagram
        compact.format = .compact
        let standard = try datagram.encoded(key: nil).count
        let small = try compact.encoded(key: nil).count
        #expect(standard == 100)
        #expect(small == 4 + 3 + 8 + 17 + 8 + 2 + 2 + 1 + 1)
        #expect(small * 2 < standard)
    }

    @Test func encodesTheDocumentedLayout() throws {
        let datagram = Datagram(
            room: "r", sender: "s", incarnation: 0x0102_0304_0506_0708, sequence: 9,
            body: .data(DataFragment(dataSequence: 3, index: 1, count: 2, chunk: [0xAA])))
        let expected: [UInt8] =
            Array("CVLN".utf8) + [1, 2, 0] + [1, UInt8(ascii: "r"), 1, UInt8(ascii: "s")]
            + [1, 2, 3, 4, 5, 6, 7, 8] + [0, 0, 0, 0, 0, 0, 0, 9]
            + [0, 0, 0, 0, 0, 0, 0, 3] + [0, 1] + [0, 2] + [0, 1, 0xAA]
        #expect(try datagram.encoded(key: nil) == expected)
        #expect(Datagram.headerOverhead + 2 + Datagram.dataOverhead + 1 == expected.count)
    }

    @Test func refusesToEncodeInvalidFields() {
        let valid = samples[0]
        var emptyRoom = valid
        emptyRoom.room = ""
        var longSender = valid
        longSender.sender = String(repeating: "x", count: 256)
        var sequenceZero = valid
        sequenceZero.sequence = 0
        var badFragment = valid
        badFragment.body = .data(DataFragment(dataSequence: 1, index: 1, count: 1, chunk: []))
        var unsortedNack = valid
        unsortedNack.body = .nack(Nack(target: "a", targetIncarnation: 1, missing: [5...6, 1...2]))
        var adjacentNack = valid
        adjacentNack.body = .nack(Nack(target: "a", targetIncarnation: 1, missing: [1...2, 3...4]))
        var emptyNack = valid
        emptyNack.body = .nack(Nack(target: "a", targetIncarnation: 1, missing: []))
        var zeroInterval = valid
        zeroInterval.body = .beacon(
            Beacon(capabilities: [], intervalMilliseconds: 0, highestDataSequence: 0, summary: []))
        for datagram in [
            emptyRoom, longSender, sequenceZero, badFragment, unsortedNack, adjacentNack, emptyNack, zeroInterval,
        ] {
            #expect(throws: DatagramError(.invalidField, "")) { try datagram.encoded(key: nil) }
        }
    }

    @Test func namesWhatIsWrong() throws {
        let bytes = try samples[0].encoded(key: nil)
        var wrongVersion = bytes
        wrongVersion[4] = 3
        var wrongMagic = bytes
        wrongMagic[0] = UInt8(ascii: "X")
        var unknownKind = bytes
        unknownKind[5] = 9
        var unknownFlag = bytes
        unknownFlag[6] = 2
        let cases: [([UInt8], DatagramError.Kind)] = [
            (wrongVersion, .unsupportedVersion), (wrongMagic, .badMagic), (unknownKind, .unknownKind),
            (unknownFlag, .invalidField), (bytes + [0], .trailingBytes), (Array(bytes.dropLast()), .truncated),
            ([UInt8](repeating: 0, count: Datagram.maximumSize + 1), .tooLarge),
        ]
        for (input, kind) in cases {
            #expect(throws: DatagramError(kind, "")) { try Datagram(decoding: input) }
        }
        do {
            _ = try Datagram(decoding: wrongVersion)
        } catch {
            #expect(error.description == "unsupported format version: version 3; this node speaks version 1 and 2")
        }
    }

    @Test(arguments: samples + compactSamples)
    func everyTruncationIsRefusedOrUnauthenticated(_ datagram: Datagram) throws {
        for keyed in [false, true] {
            let bytes = try datagram.encoded(key: keyed ? key : nil)
            for length in 0..<bytes.count {
                // A compact data chunk runs to the end: cut short, the datagram may still
                // parse, and then only its tag refuses it (without a key nothing can).
                guard let cut = try? decode(Array(bytes.prefix(length)), like: datagram) else { continue }
                #expect(datagram.format == .compact, "a standard datagram cut at \(length) parsed")
                guard case .data = datagram.body else {
                    Issue.record("a compact datagram other than data cut at \(length) parsed")
                    continue
                }
                if keyed {
                    #expect(throws: DatagramError.self) { try Datagram.authenticate(Array(bytes.prefix(length)), key: key) }
                } else {
                    #expect(cut != datagram)
                }
            }
        }
    }

    /// Every value of every byte: the decoder throws or returns a datagram that encodes back
    /// to the same bytes, and never traps.
    @Test(arguments: samples + compactSamples)
    func everySingleByteMutationIsRefusedOrConsistent(_ datagram: Datagram) throws {
        for keyed in [false, true] {
            let bytes = try datagram.encoded(key: keyed ? key : nil)
            for position in bytes.indices {
                var mutated = bytes
                for value in UInt8.min...UInt8.max where value != bytes[position] {
                    mutated[position] = value
                    guard let decoded = try? decode(mutated, like: datagram) else { continue }
                    let tagged = mutated[6] & 1 != 0
                    var untagged = Array(mutated.dropLast(tagged ? RoomKey.tagLength : 0))
                    untagged[6] = 0
                    #expect(decoded.encodedUnchecked(key: nil, roomTag: roomTags[datagram.room]) == untagged)
                    if keyed {
                        #expect(throws: DatagramError.self) { try Datagram.authenticate(mutated, key: key) }
                    }
                }
            }
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SplitMix64(seed: announcedSeed())
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...300, using: &generator)
            var bytes = generator.bytes(count)
            // Half of the inputs get a valid preamble, so that the fuzzing reaches the fields.
            if generator.chance(0.5), bytes.count >= 7 {
                bytes.replaceSubrange(0..<5, with: Array("CVLN".utf8) + [1])
                bytes[5] = UInt8.random(in: 1...4, using: &generator)
                bytes[6] = UInt8.random(in: 0...1, using: &generator)
            }
            if let decoded = try? Datagram(decoding: bytes) {
                #expect(decoded.room.utf8.count >= 1)
            }
        }
    }

    @Test func randomMutationsOfValidDatagramsNeverTrap() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let encoded = try (samples + compactSamples).map { try $0.encoded(key: key) }
        for _ in 0..<20_000 {
            var bytes = encoded.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    bytes[Int.random(in: bytes.indices, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                case 1:
                    bytes.insert(
                        UInt8.random(in: 0...255, using: &generator),
                        at: Int.random(in: 0...bytes.count, using: &generator))
                default: if bytes.count > 1 { bytes.remove(at: Int.random(in: bytes.indices, using: &generator)) }
                }
            }
            if (try? Datagram(decoding: bytes, room: "sketch")) != nil, !encoded.contains(bytes) {
                #expect(throws: DatagramError.self) { try Datagram.authenticate(bytes, key: key) }
            }
        }
    }
}
