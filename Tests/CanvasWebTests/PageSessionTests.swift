import CanvasCore
import CanvasProtocol
import CanvasWeb
import Testing

/// A page's requests as the node's decisions: pens become live strokes, bad requests get an
/// error naming the field and perform nothing.
@Suite struct PageSessionTests {
    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    @Test func aPenDrawsALiveStrokeFromDownToUp() {
        var session = PageSession()
        let down = session.received(Self.text(#"{"action":"pen-down","pen":3,"points":[[1,2]],"weight":2,"colour":[0,0,255]}"#))
        #expect(down == [.perform(.begin(points: [Point(x: 1, y: 2)], weight: 2, colour: Colour(red: 0, green: 0, blue: 255)), .penDown(3))])
        let id = StrokeID("n_1")
        let answer = session.performed([.add(id, StrokeHeader(weight: 2, colour: .black, start: Point(x: 1, y: 2)))], for: .penDown(3))
        #expect(answer == [.send(PageMessages.pen(3, stroke: id))])
        #expect(session.received(Self.text(#"{"action":"pen-move","pen":3,"points":[[4,5],[6,7]]}"#))
            == [.perform(.extend(stroke: id, points: [Point(x: 4, y: 5), Point(x: 6, y: 7)]), .other)])
        #expect(session.received(Self.text(#"{"action":"pen-up","pen":3,"recognize":true}"#)) == [.perform(.end(stroke: id, recognize: true), .other)])
        #expect(session.pens.isEmpty)
    }

    @Test func badRequestsAreRefusedWithTheFieldNamedAndPerformNothing() {
        var session = PageSession()
        let cases: [(String, String)] = [
            ("{", "unexpected end of input"),
            (#"{"action":"paint"}"#, #"action: expected \"pen-down\""#),
            (#"{"action":"pen-move","pen":1,"points":[[1,2]]}"#, "pen-move.pen: pen 1 is not down"),
            (#"{"action":"pen-up","pen":9}"#, "pen-up.pen: pen 9 is not down"),
            (#"{"action":"pen-down","pen":-1,"points":[[1,2]],"weight":2,"colour":[0,0,0]}"#, "pen-down.pen"),
            (#"{"action":"pen-down","pen":1,"points":[[1,"x"]],"weight":2,"colour":[0,0,0]}"#, "pen-down.points[0][1]"),
            (#"{"action":"erase","points":[[1,2]],"radius":0}"#, "erase.radius"),
        ]
        for (request, expected) in cases {
            let steps = session.received(Self.text(request))
            guard steps.count == 1, case .send(let bytes) = steps[0] else {
                Issue.record("\(request) was not refused: \(steps)")
                continue
            }
            let message = String(decoding: bytes, as: UTF8.self)
            #expect(message.hasPrefix(#"{"type":"error","message":"#), "\(message)")
            #expect(message.contains(expected), "\(request) → \(message)")
        }
        #expect(session.refused == cases.count)
    }

    @Test func aPageThatGoesAwayEndsItsStrokesAndAPenDownTwiceEndsTheFirst() {
        var session = PageSession()
        let down = #"{"action":"pen-down","pen":1,"points":[[0,0]],"weight":1,"colour":[0,0,0]}"#
        _ = session.received(Self.text(down))
        _ = session.performed([.add(StrokeID("n_1"), StrokeHeader(weight: 1, colour: .black, start: Point(x: 0, y: 0)))], for: .penDown(1))
        let again = session.received(Self.text(down))
        #expect(again.first == .perform(.end(stroke: StrokeID("n_1"), recognize: false), .other))
        _ = session.performed([.add(StrokeID("n_2"), StrokeHeader(weight: 1, colour: .black, start: Point(x: 0, y: 0)))], for: .penDown(1))
        #expect(session.closed() == [.perform(.end(stroke: StrokeID("n_2"), recognize: false), .other)])
    }
}
