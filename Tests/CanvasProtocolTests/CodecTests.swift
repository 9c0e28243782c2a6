import CanvasCore
import Testing

@testable import CanvasProtocol

@Suite("Message codec")
struct CodecTests {
    private func decode(_ text: String) throws(ProtocolError) -> Message {
        try MessageDecoder.decode(text)
    }

    private func operation(_ text: String) throws -> CanvasCore.Operation {
        let message = try decode(text)
        guard case .operation(let operation) = message else {
            Issue.record("expected an operation, got \(message)")
            throw ProtocolError(.wrongType, path: "", "not an operation")
        }
        return operation
    }

    @Test func decodesTheOriginalAppsExamples() throws {
        #expect(
            try operation(#"{"type":"ADD","identifier":"ABC_123","weight":1,"colour":[50,0,0],"start":[0,0]}"#)
                == .add(StrokeID("ABC_123"), StrokeHeader(weight: 1, colour: Colour(red: 50, green: 0, blue: 0), start: Point(x: 0, y: 0))))
        #expect(
            try operation(#"{"type":"APPEND","identifier":"ABC_123","points":[[127,45],[35,78]]}"#)
                == .append(StrokeID("ABC_123"), points: [Point(x: 127, y: 45), Point(x: 35, y: 78)], offset: nil))
        #expect(
            try operation(#"{"type":"DELETE","identifier":"ABC_123","start_offset":15,"end_offset":67}"#)
                == .delete(StrokeID("ABC_123"), start: 15, end: 67))
    }

    @Test func decodesLegacyShapes() throws {
        #expect(
            try operation(#"{"type":"ADD","identifier":"s","weight":2.5,"colour":[0,0,255],"start":[1,2],"is_shape":true}"#)
                == .add(StrokeID("s"), StrokeHeader(weight: 2.5, colour: Colour(red: 0, green: 0, blue: 255), start: Point(x: 1, y: 2), isShape: true)))
        #expect(try operation(#"{"type":"REMOVE_STROKE","identifier":"s"}"#) == .removeStroke(StrokeID("s")))
    }

    @Test func megaBecomesOrdinaryOperations() throws {
        let message = try decode(
            #"{"type":"MEGA","data":{"b":{"points":[[0,0],[10,0],[20,0],[30,0]],"segments":[{"start":0,"end":1},{"start":2.5,"end":3}],"isShape":false,"thickness":3,"colour":[1,0.5,0]},"a":{"points":[[5,5]],"segments":[],"isShape":true,"thickness":1,"colour":[0,0,0]}}}"#
        )
        let a = StrokeID("a")
        let b = StrokeID("b")
        #expect(
            message
                == .mega([
                    .add(a, StrokeHeader(weight: 1, colour: .black, start: Point(x: 5, y: 5), isShape: true)),
                    .add(b, StrokeHeader(weight: 3, colour: Colour(red: 255, green: 128, blue: 0), start: Point(x: 0, y: 0))),
                    .append(b, points: [Point(x: 10, y: 0), Point(x: 20, y: 0), Point(x: 30, y: 0)], offset: 1),
                    .delete(b, start: 1, end: 2.5),
                ]))
    }

    @Test func megaMergesWithWhatWeKnowInsteadOfReplacingIt() throws {
        var document = Document()
        let id = StrokeID("s")
        document.apply(.add(id, StrokeHeader(weight: 3, colour: .black, start: Point(x: 0, y: 0))))
        document.apply(.append(id, points: (1...5).map { Point(x: Double($0), y: 0) }, offset: 1))
        document.apply(.delete(id, start: 4, end: 5))
        // The peer knows only the first three points, with [0.5, 1] erased.
        let mega = try decode(
            #"{"type":"MEGA","data":{"s":{"points":[[0,0],[1,0],[2,0]],"segments":[{"start":0,"end":0.5},{"start":1,"end":2}],"isShape":false,"thickness":3,"colour":[0,0,0]}}}"#)
        for operation in mega.operations {
            document.apply(operation)
        }
        let stroke = try #require(document[id])
        #expect(stroke.points.count == 6)
        #expect(stroke.erased == IntervalSet([0.5...1, 4...5]))
    }

    @Test func unknownFieldsAreIgnoredAndUnknownTypesAreUnsupported() throws {
        #expect(
            try operation(#"{"future":{"nested":[1,2,{"x":null}]},"type":"REMOVE_STROKE","identifier":"s","colourful":"yes"}"#)
                == .removeStroke(StrokeID("s")))
        #expect(try decode(#"{"type":"CURSOR","x":1}"#) == .unsupported(type: "CURSOR"))
        // A DELETE carrying a malformed (but syntactically valid) `points` field still decodes.
        #expect(
            try operation(#"{"type":"DELETE","identifier":"s","start_offset":0,"end_offset":1,"points":"nope"}"#)
                == .delete(StrokeID("s"), start: 0, end: 1))
    }

    @Test(arguments: [
        (#"{"type":"APPEND","identifier":"s","points":[[1,2],[3,4],[5,6],[7,"abc"]]}"#, #"APPEND.points[3][1]: expected a finite number, got "abc""#),
        (#"{"type":"ADD","identifier":"s","weight":0,"colour":[0,0,0],"start":[0,0]}"#, "ADD.weight: expected a number greater than 0, got 0"),
        (#"{"type":"ADD","identifier":"s","weight":1,"colour":[0,256,0],"start":[0,0]}"#, "ADD.colour[1]: expected an integer from 0 to 255, got 256"),
        (#"{"type":"ADD","identifier":"s","weight":1e400,"colour":[0,0,0],"start":[0,0]}"#, "ADD.weight: expected a finite number, got a number beyond the range of a double"),
        (#"{"type":"APPEND","identifier":"s","points":[],"offset":0}"#, "APPEND.offset: expected an integer from 1 to 16777216, got 0"),
        (#"{"type":"DELETE","identifier":"s","start_offset":1}"#, "DELETE.end_offset: missing field"),
        (#"{"identifier":"s"}"#, #"type: missing field (every message has a "type")"#),
        (#"{"type":"ADD","identifier":"","weight":1,"colour":[0,0,0],"start":[0,0]}"#, "ADD.identifier: expected a non-empty identifier"),
        (#"[1,2]"#, #"expected a JSON object with a "type" field"#),
        (#"{"type":"ADD""#, "unexpected end of input, expected ',' or '}'"),
        (#"{"type":"MEGA","data":{"s":{"points":[[0,0]],"segments":[],"thickness":1,"colour":[0,2,0]}}}"#, "MEGA.data.s.colour[1]: expected a number from 0 to 1, got 2"),
    ])
    func rejectsInvalidMessagesNamingTheField(message: String, expected: String) {
        #expect(throws: ProtocolError.self) { try decode(message) }
        do throws(ProtocolError) {
            _ = try decode(message)
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func limitsAreEnforced() {
        let long = String(repeating: "x", count: ProtocolLimits.maxIdentifierBytes + 1)
        #expect(throws: ProtocolError.self) { try decode(#"{"type":"REMOVE_STROKE","identifier":"\#(long)"}"#) }
        let deep = String(repeating: "[", count: ProtocolLimits.maxNestingDepth + 1) + String(repeating: "]", count: ProtocolLimits.maxNestingDepth + 1)
        #expect(throws: ProtocolError.self) { try decode(#"{"type":"X","extra":\#(deep)}"#) }
        let many = Array(repeating: "[0,0]", count: ProtocolLimits.maxPointsPerMessage + 1).joined(separator: ",")
        do throws(ProtocolError) {
            _ = try decode(#"{"type":"APPEND","identifier":"s","points":[\#(many)],"offset":1}"#)
            Issue.record("an oversized APPEND was accepted")
        } catch {
            #expect(error.kind == .limitExceeded)
            #expect(error.path == "APPEND.points")
        }
        let huge = [UInt8](repeating: UInt8(ascii: " "), count: ProtocolLimits.maxMessageBytes + 1)
        #expect(throws: ProtocolError.self) { try MessageDecoder.decode(huge) }
    }

    @Test(arguments: [
        (CanvasCore.Operation.add(StrokeID("s"), StrokeHeader(weight: 1, colour: Colour(red: 1, green: 2, blue: 3), start: Point(x: -0.0, y: 2.5))),
         #"{"type":"ADD","identifier":"s","weight":1,"colour":[1,2,3],"start":[0,2.5]}"#),
        (.add(StrokeID("q\"\\\n"), StrokeHeader(weight: 0.1, colour: .black, start: Point(x: 1e-7, y: 1e21), isShape: true)),
         #"{"type":"ADD","identifier":"q\"\\\n","weight":0.1,"colour":[0,0,0],"start":[1e-7,1e21],"is_shape":true}"#),
        (.append(StrokeID("s"), points: [Point(x: 12.125, y: -7), Point(x: 123456789.123, y: 0.3)], offset: 4),
         #"{"type":"APPEND","identifier":"s","points":[[12.125,-7],[123456789.123,0.3]],"offset":4}"#),
        (.append(StrokeID("s"), points: [], offset: nil), #"{"type":"APPEND","identifier":"s","points":[]}"#),
        (.delete(StrokeID("s"), start: 1.5, end: 1e16), #"{"type":"DELETE","identifier":"s","start_offset":1.5,"end_offset":1e16}"#),
        (.removeStroke(StrokeID("s")), #"{"type":"REMOVE_STROKE","identifier":"s"}"#),
    ])
    func encodesCanonically(operation: CanvasCore.Operation, expected: String) throws {
        #expect(MessageEncoder.encodeString(operation) == expected)
        #expect(try MessageDecoder.decode(expected) == .operation(operation))
    }

    @Test func canonicalStateIsIndependentOfOrder() {
        let id = StrokeID("s")
        let operations: [CanvasCore.Operation] = [
            .add(id, StrokeHeader(weight: 2, colour: .black, start: Point(x: 0, y: 0))),
            .append(id, points: [Point(x: 1, y: 1)], offset: 1),
            .append(id, points: [Point(x: 3, y: 3)], offset: 3),
            .delete(id, start: 0.5, end: 0.75),
            .removeStroke(StrokeID("gone")),
        ]
        var forward = Document()
        operations.forEach { forward.apply($0) }
        var backward = Document()
        operations.reversed().forEach { backward.apply($0) }
        let state = String(decoding: CanonicalState.encode(forward), as: UTF8.self)
        #expect(CanonicalState.encode(forward) == CanonicalState.encode(backward))
        #expect(
            state
                == #"{"strokes":[{"identifier":"gone","header":null,"points":[],"pending":[],"erased":[[0,null]]},{"identifier":"s","header":{"weight":2,"colour":[0,0,0],"start":[0,0],"is_shape":false},"points":[[0,0],[1,1]],"pending":[{"offset":3,"points":[[3,3]]}],"erased":[[0.5,0.75]]}]}"#
                + "\n")
    }
}
