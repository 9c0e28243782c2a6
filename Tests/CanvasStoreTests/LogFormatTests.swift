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
        var bytes: [UInt8] = []
        for operation in operations {
            LogFormat.appendRecord(operation, to: &bytes)
        }
        let scan = LogFormat.scan(bytes)
        #expect(scan.damage.isEmpty)
        #expect(scan.operations == operations)
    }

    @Test func aRecordIsCanonicalJSONTabCRCNewline() {
        var bytes: [UInt8] = []
        LogFormat.appendRecord(.removeStroke(StrokeID("s")), to: &bytes)
        let json = #"{"type":"REMOVE_STROKE","identifier":"s"}"#
        #expect(String(decoding: bytes, as: UTF8.self) == json + "\t" + LogFormat.hex(CRC32.checksum(Array(json.utf8))) + "\n")
        // The standard check value of CRC-32.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func aLastRecordCutAtAnyByteIsATornTail() {
        let operations: [Operation] = [
            .add(StrokeID("a"), StrokeHeader(weight: 2, colour: .black, start: Point(x: 1, y: 2))),
            .append(StrokeID("a"), points: [Point(x: 1.25, y: 3), Point(x: 2, y: 4.5)], offset: 1),
        ]
        var bytes: [UInt8] = []
        LogFormat.appendRecord(operations[0], to: &bytes)
        let lastStart = bytes.count
        LogFormat.appendRecord(operations[1], to: &bytes)
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

    @Test func aFlippedByteIsDetected() {
        var bytes: [UInt8] = []
        LogFormat.appendRecord(.delete(StrokeID("stroke"), start: 1, end: 2.5), to: &bytes)
        for index in 0..<(bytes.count - 1) {
            var damaged = bytes
            damaged[index] ^= 0x01
            let scan = LogFormat.scan(damaged)
            #expect(scan.operations.isEmpty && scan.damage.count == 1, "flipped byte \(index)")
        }
    }
}
