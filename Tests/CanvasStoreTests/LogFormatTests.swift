import CanvasCore
import CanvasProtocol
@testable import CanvasStore
import CanvasTestSupport
import Foundation
import Testing

@Suite("Log format")
struct LogFormatTests {
    @Test func recordsRoundTrip() {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 30, pointsPerStroke: 1...40, using: &generator)
        for append in [LogFormat.appendRecord, LogFormat.appendTextRecord] {
            var bytes: [UInt8] = []
            for operation in operations {
                append(operation, &bytes)
            }
            let scan = LogFormat.scan(bytes)
            #expect(scan.damage.isEmpty)
            #expect(scan.operations == operations)
            #expect(scan.records == operations.count)
        }
    }

    @Test func aLogMayHoldTextRecordsOfAnEarlierVersionThenBinaryOnes() {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 10, pointsPerStroke: 1...20, using: &generator)
        let half = operations.count / 2
        var bytes: [UInt8] = []
        for operation in operations[..<half] { LogFormat.appendTextRecord(operation, to: &bytes) }
        for operation in operations[half...] { LogFormat.appendRecord(operation, to: &bytes) }
        let scan = LogFormat.scan(bytes)
        #expect(scan.damage.isEmpty)
        #expect(scan.operations == operations)
    }

    @Test func aTextRecordIsCanonicalJSONTabCRCNewline() {
        var bytes: [UInt8] = []
        LogFormat.appendTextRecord(.removeStroke(StrokeID("s")), to: &bytes)
        let json = #"{"type":"REMOVE_STROKE","identifier":"s"}"#
        #expect(String(decoding: bytes, as: UTF8.self) == json + "\t" + LogFormat.hex(CRC32.checksum(Array(json.utf8))) + "\n")
        // The standard check value of CRC-32.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func aBinaryRecordIsMarkerEscapedCompactAndCRCNewline() {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 40, pointsPerStroke: 1...40, using: &generator)
        var escapedRecords = 0
        for operation in operations {
            var record: [UInt8] = []
            LogFormat.appendRecord(operation, to: &record)
            #expect(record.first == 0x01 && record.last == 0x0A)
            #expect(!record.dropLast().contains(0x0A))
            // Unescaped, the record is the compact operation and its CRC-32, big-endian.
            var plain: [UInt8] = []
            var index = 1
            while index < record.count - 1 {
                if record[index] == 0x1B {
                    plain.append(record[index + 1] == 0x01 ? 0x0A : 0x1B)
                    index += 2
                } else {
                    plain.append(record[index])
                    index += 1
                }
            }
            if plain.count != record.count - 2 { escapedRecords += 1 }
            let compact = CompactOperationCoding.encode(operation)
            let crc = CRC32.checksum(compact)
            #expect(plain == compact + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        }
        // The history is long enough that some records held a newline or an escape byte.
        #expect(escapedRecords > 0)
    }

    @Test(arguments: [false, true]) func aLastRecordCutAtAnyByteIsATornTail(text: Bool) {
        let append = text ? LogFormat.appendTextRecord : LogFormat.appendRecord
        let operations: [Operation] = [
            .add(StrokeID("a"), StrokeHeader(weight: 2, colour: .black, start: Point(x: 1, y: 2))),
            .append(StrokeID("a\n\u{1B}"), points: [Point(x: 1.25, y: 3), Point(x: 2, y: 4.5), Point(x: 10, y: 27)], offset: 1),
        ]
        var bytes: [UInt8] = []
        append(operations[0], &bytes)
        let lastStart = bytes.count
        append(operations[1], &bytes)
        for cut in lastStart..<bytes.count {
            let scan = LogFormat.scan(Array(bytes[..<cut]))
            #expect(scan.operations == [operations[0]], "cut at \(cut)")
            if cut > lastStart {
                #expect(scan.hasOnlyTornTail, "cut at \(cut)")
                #expect(scan.damage.first?.offset == lastStart)
            } else {
                #expect(scan.damage.isEmpty)
            }
        }
    }

    @Test(arguments: [false, true]) func aFlippedBitIsDetectedAndSpoilsOnlyItsRecord(text: Bool) {
        let append = text ? LogFormat.appendTextRecord : LogFormat.appendRecord
        let before = Operation.removeStroke(StrokeID("before"))
        let damagedOperation = Operation.append(
            StrokeID("stroke\n"), points: [Point(x: 1, y: 2), Point(x: 11.5, y: 12.25), Point(x: 27, y: 0.001)], offset: 4)
        let after = Operation.delete(StrokeID("after"), start: 1, end: 2.5)
        var bytes: [UInt8] = []
        append(before, &bytes)
        let start = bytes.count
        append(damagedOperation, &bytes)
        let end = bytes.count
        append(after, &bytes)
        for index in start..<(end - 1) {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                let scan = LogFormat.scan(damaged)
                // Nothing of the damaged record comes out; its neighbours do. (A flip that makes a
                // newline splits the line: two damaged lines, still nothing read from them.)
                #expect(scan.operations == [before, after], "flipped bit \(bit) of byte \(index)")
                #expect(!scan.damage.isEmpty && scan.damage.allSatisfy { $0.offset >= start && $0.offset < end })
            }
        }
    }
}
