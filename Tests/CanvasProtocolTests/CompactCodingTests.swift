import CanvasCore
import Testing

@testable import CanvasProtocol

/// The compact binary form of operations and packed payloads (PROTOCOL.md §15): every
/// operation comes back exactly as the JSON form brings it back, in fewer bytes, and every
/// damaged input is refused with an error naming the field, never a crash.
@Suite("Compact operations and packed payloads")
struct CompactCodingTests {
    /// Coordinates as pens, the JSON form and arithmetic produce them: whole pixels, quarters,
    /// thousandths, and doubles no decimal of three places names (escaped as raw doubles).
    static func coordinate(_ random: inout SplitMix64) -> Double {
        switch random.next() % 6 {
        case 0: Double(Int64(random.next() % 4000) - 2000)
        case 1: Double(Int64(random.next() % 16000) - 8000) / 4
        case 2: Double(Int64(random.next() % 2_000_000) - 1_000_000) / 1000
        case 3: Double(bitPattern: 0x3FF0_0000_0000_0000 | (random.next() >> 12)) * 100
        case 4: [0.1 + 0.2, 1e13, -1e12, 1e-9, 123_456_789.123_4, .leastNonzeroMagnitude][Int(random.next() % 6)]
        default: Double(Int64(random.next() % 1_000_000_000_000)) / 1000 * (random.next() % 2 == 0 ? 1 : -1)
        }
    }

    static func identifier(_ random: inout SplitMix64) -> StrokeID {
        let alphabet = Array("abcXYZ-_019é✏️~")
        let length = 1 + Int(random.next() % 24)
        return StrokeID(String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
    }

    static func operation(_ random: inout SplitMix64) -> CanvasCore.Operation {
        let id = identifier(&random)
        switch random.next() % 4 {
        case 0:
            let weight = [0.5, 1, 2.75, 3.141_592_653_589_793, 40][Int(random.next() % 5)]
            let colour = Colour(red: UInt8(random.next() % 256), green: UInt8(random.next() % 256), blue: UInt8(random.next() % 256))
            let start = Point(x: coordinate(&random), y: coordinate(&random))
            return .add(id, StrokeHeader(weight: weight, colour: colour, start: start, isShape: random.next() % 2 == 0))
        case 1:
            let points = (0..<Int(random.next() % 40)).map { _ in Point(x: coordinate(&random), y: coordinate(&random)) }
            let offset: Int? = random.next() % 4 == 0 ? nil : 1 + Int(random.next() % 100_000)
            return .append(id, points: points, offset: offset)
        case 2:
            return .delete(id, start: coordinate(&random), end: coordinate(&random))
        default:
            return .removeStroke(id)
        }
    }

    @Test func everyOperationComesBackExactlyAsFromJSON() throws {
        var random = SplitMix64(seed: 0xC0FFEE)
        for _ in 0..<3000 {
            let operation = Self.operation(&random)
            let compact = CompactOperationCoding.encode(operation)
            let json = MessageEncoder.encode(operation)
            #expect(CompactOperationCoding.isCompact(firstByte: compact[0]))
            let fromCompact = try MessageDecoder.decode(compact)
            let fromJSON = try MessageDecoder.decode(json)
            #expect(fromCompact == .operation(operation))
            #expect(fromCompact == fromJSON)
            // Bit for bit, not only ==: digests hash bit patterns.
            if case .operation(.append(_, let back, _)) = fromCompact, case .append(_, let sent, _) = operation {
                #expect(back.map(\.x.bitPattern) == sent.map(\.x.bitPattern))
                #expect(back.map(\.y.bitPattern) == sent.map(\.y.bitPattern))
            }
        }
    }

    @Test func theExampleOfPROTOCOLSection15() {
        let operation = CanonicalOperation.append(StrokeID("s"), points: [Point(x: 1, y: 2), Point(x: 1.5, y: 2)], offset: 1)
        #expect(CompactOperationCoding.encode(operation) == [0x02, 0x01, 0x73, 0x01, 0x02, 0xF4, 0x03, 0x08, 0x10, 0x04, 0x00])
        #expect(MessageEncoder.encode(operation).count == 70)
    }

    @Test func aPenStrokeTakesAboutTwoBytesAPoint() throws {
        // Quarter pixels a few pixels apart, as the benchmark's authors and real pens draw.
        var random = SplitMix64(seed: 7)
        var x = 500.0
        var y = 300.0
        let points = (0..<15).map { _ in
            x += Double(Int(random.next() % 32) - 16) / 4
            y += Double(Int(random.next() % 32) - 16) / 4
            return Point(x: x, y: y)
        }
        let operation = CanonicalOperation.append(StrokeID("n3-a17-s4"), points: points, offset: 31)
        let compact = CompactOperationCoding.encode(operation)
        let json = MessageEncoder.encode(operation)
        #expect(compact.count <= 15 * 2 + 20, "compact APPEND of 15 points took \(compact.count) bytes")
        #expect(compact.count * 5 < json.count, "\(compact.count) compact bytes against \(json.count) of JSON")
        print("a 15-point APPEND of quarter pixels: \(compact.count) bytes compact, \(json.count) in JSON")
    }

    @Test func everyCutIsRefusedWithAnError() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<200 {
            let compact = CompactOperationCoding.encode(Self.operation(&random))
            for length in 1..<compact.count {
                #expect(throws: ProtocolError.self) { try MessageDecoder.decode(Array(compact[0..<length])) }
            }
        }
    }

    @Test func damagedMessagesNameTheProblem() {
        func refusal(_ bytes: [UInt8]) -> ProtocolError? {
            do {
                _ = try MessageDecoder.decode(bytes)
                return nil
            } catch { return error }
        }
        let append = CompactOperationCoding.encode(.append(StrokeID("s"), points: [Point(x: 1, y: 2)], offset: 1))
        #expect(refusal(append + [0])?.kind == .malformedCompact)
        #expect(refusal(append + [0])?.detail.contains("after the end") == true)
        // An identifier that is not UTF-8, and an empty one.
        #expect(refusal([4, 2, 0xFF, 0xFE])?.path == "REMOVE_STROKE.identifier")
        #expect(refusal([4, 0])?.kind == .invalidValue)
        // An identifier over the limit.
        #expect(refusal([4, 0x81, 0x02] + Array(repeating: 0x61, count: 257))?.kind == .limitExceeded)
        // A raw double that is not finite.
        let nan = Double.nan.bitPattern
        let rawNaN = (0..<8).map { UInt8(truncatingIfNeeded: nan >> UInt64(56 - 8 * $0)) }
        #expect(refusal([3, 1, 0x73, 1] + rawNaN + [0])?.path == "DELETE.start_offset")
        // ADD with weight 0, and with unknown flags.
        let add = CompactOperationCoding.encode(.add(StrokeID("s"), StrokeHeader(weight: 1, colour: .black, start: Point(x: 0, y: 0))))
        var zeroWeight = add
        zeroWeight[3] = 0
        #expect(refusal(zeroWeight)?.path == "ADD.weight")
        var flags = add
        flags[flags.count - 1] = 2
        #expect(refusal(flags)?.path == "ADD.is_shape")
        // A count of points the bytes cannot hold, and one over the limit.
        #expect(refusal([2, 1, 0x73, 0, 0xFF, 0x7F, 0, 0])?.kind == .malformedCompact)
        #expect(refusal([2, 1, 0x73, 0, 0x81, 0x80, 0x04])?.kind == .limitExceeded)
        // An offset past the largest index, a unit of 0, a prediction that overflows.
        #expect(refusal([2, 1, 0x73, 0x80, 0x80, 0x80, 0x10, 0, 1])?.path == "APPEND.offset")
        #expect(refusal([2, 1, 0x73, 0, 1, 0, 0, 0])?.path == "APPEND.unit")
        let huge: [UInt8] = [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(refusal([2, 1, 0x73, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01] + huge + [0])?.path == "APPEND.points[0][0]")
        // A varint longer than 64 bits.
        #expect(refusal([2, 1, 0x73] + Array(repeating: 0xFF, count: 11))?.kind == .malformedCompact)
        // Unknown number forms.
        #expect(refusal([3, 1, 0x73, 3, 0])?.detail.contains("unknown number form") == true)
    }

    @Test func randomBytesNeverCrashTheDecoder() throws {
        var random = SplitMix64(seed: 99)
        var valid = CompactOperationCoding.encode(.append(StrokeID("s"), points: [Point(x: 1.5, y: 2), Point(x: 0.1 + 0.2, y: 9)], offset: 4))
        for _ in 0..<20_000 {
            var bytes = valid
            bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            if bytes[0] == 0 || bytes[0] > 4 { bytes[0] = 1 + UInt8(random.next() % 4) }
            if let message = try? MessageDecoder.decode(bytes), case .operation(let operation) = message {
                // What decodes re-encodes to the same operation.
                #expect(try MessageDecoder.decode(CompactOperationCoding.encode(operation)) == message)
            }
            if random.next() % 100 == 0 { valid = CompactOperationCoding.encode(Self.operation(&random)) }
        }
    }

    @Test func packedPayloadsHoldTheirMessagesInOrderWithinTheLimit() throws {
        var random = SplitMix64(seed: 5)
        let messages = (0..<200).map { _ in CompactOperationCoding.encode(Self.operation(&random)) }
        let payloads = PackedPayload.pack(messages, maxBytes: 1000)
        #expect(payloads.count < messages.count / 3)
        for payload in payloads where PackedPayload.isPacked(payload) { #expect(payload.count <= 1000) }
        #expect(try payloads.flatMap(PackedPayload.unpack) == messages)
        // One message goes as it is: nothing to unpack, and old receivers read it.
        let one = [MessageEncoder.encode(.removeStroke(StrokeID("s")))]
        #expect(PackedPayload.pack(one, maxBytes: 1000) == one)
        #expect(try PackedPayload.unpack(one[0]) == one)
        // A message larger than the limit goes alone.
        let large = CompactOperationCoding.encode(.append(StrokeID("s"), points: Array(repeating: Point(x: 0.1 + 0.2, y: 0.2), count: 200), offset: 1))
        #expect(PackedPayload.pack([one[0], large, one[0]], maxBytes: 1000).count == 3)
    }

    @Test func damagedPackedPayloadsAreRefused() {
        for bad: [UInt8] in [[0], [0, 0], [0, 5, 1, 2], [0, 0x80], [0, 2, 4, 1, 3]] {
            #expect(throws: ProtocolError.self) { try PackedPayload.unpack(bad) }
        }
    }
}

private typealias CanonicalOperation = CanvasCore.Operation
