import CanvasRuntime
import Testing

@testable import canvas

/// The end-to-end benchmark reads `traced` lines without Foundation's JSON: it must read
/// what `canvas join` prints, and leave to the JSON parser what it cannot read.
@Suite("canvas bench: event lines")
struct BenchEventLineTests {
    private func line(_ event: NodeEvent) -> ArraySlice<UInt8> { event.ndjson.dropLast()[...] }

    @Test func aTracedLineIsReadAsPrinted() throws {
        let remote = try #require(
            TracedLine(
                line(
                    .traced(
                        room: "bench@rooms.localhost", stroke: "t17-3", offset: 46, points: 15, author: "n1-4",
                        monotonicNanoseconds: 81_234_567_890_123))))
        #expect(remote.stroke == "t17-3" && remote.offset == 46 && remote.remote && remote.nanoseconds == 81_234_567_890_123)
        let local = try #require(
            TracedLine(
                line(.traced(room: "r@m", stroke: "t0-0", offset: 0, points: 1, author: nil, monotonicNanoseconds: 5))))
        #expect(local.stroke == "t0-0" && local.offset == 0 && !local.remote && local.nanoseconds == 5)
    }

    @Test func otherLinesAreLeftToTheJSONParser() {
        #expect(TracedLine(line(.traced(room: "r@m", stroke: #"t"1"#, offset: 0, points: 1, author: nil, monotonicNanoseconds: 5))) == nil)
        #expect(TracedLine(Array(#"{"event":"state","room":"r@m","points":3}"#.utf8)[...]) == nil)
        #expect(TracedLine(Array(#"{"event":"traced","room":"r@m","stroke":"t1","offset":-1,"t_ns":1}"#.utf8)[...]) == nil)
        #expect(TracedLine(Array(#"{"event":"traced","room":"r@m","stroke":"t1","offset":2}"#.utf8)[...]) == nil)
    }
}
