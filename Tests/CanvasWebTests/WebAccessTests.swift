import CanvasCore
import CanvasWeb
import Testing

/// Who may use a node's page, its socket and its room's data (docs/web.md, "Security").
@Suite struct WebAccessTests {
    let loopback = WebAccess(token: nil, loopbackOnly: true)
    let shared = WebAccess(token: "0123456789abcdef0123456789abcdef", loopbackOnly: false)

    @Test func onLoopbackOnlyTheServersOwnPagesGetIn() {
        #expect(loopback.check(host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", queryToken: nil, authorization: nil) == nil)
        #expect(loopback.check(host: "localhost:8080", origin: nil, queryToken: nil, authorization: nil) == nil, "curl sends no Origin")
        #expect(loopback.check(host: "[::1]:8080", origin: "http://[::1]:8080", queryToken: nil, authorization: nil) == nil)
        // Another site's page, and a DNS name rebound to 127.0.0.1.
        #expect(loopback.check(host: "127.0.0.1:8080", origin: "http://evil.example", queryToken: nil, authorization: nil)?.status == 403)
        #expect(loopback.check(host: "evil.example:8080", origin: "http://evil.example:8080", queryToken: nil, authorization: nil)?.status == 403)
    }

    @Test func beyondLoopbackTheTokenIsRequired() {
        let host = "192.168.1.20:8080", origin = "http://192.168.1.20:8080"
        #expect(shared.check(host: host, origin: origin, queryToken: nil, authorization: nil)?.status == 401)
        #expect(shared.check(host: host, origin: origin, queryToken: "0123456789abcdef0123456789abcdee", authorization: nil)?.status == 401)
        #expect(shared.check(host: host, origin: origin, queryToken: "0123456789abcdef", authorization: nil)?.status == 401, "a prefix is not the token")
        #expect(shared.check(host: host, origin: origin, queryToken: "0123456789abcdef0123456789abcdef", authorization: nil) == nil)
        #expect(shared.check(host: host, origin: nil, queryToken: nil, authorization: "Bearer 0123456789abcdef0123456789abcdef") == nil)
        #expect(shared.check(host: host, origin: "http://evil.example", queryToken: "0123456789abcdef0123456789abcdef", authorization: nil)?.status == 403,
            "the token does not let another site's page in")
    }

    @Test func randomTokensAre128BitsOfHex() {
        let tokens = (0..<20).map { _ in WebAccess.randomToken() }
        #expect(Set(tokens).count == tokens.count)
        #expect(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }
}

/// What the node sends its pages: strokes as the SVG export's path data.
@Suite struct PageMessagesTests {
    @Test func strokesCarryTheExportsPathDataAndWhatShowsNothingIsRemoved() throws {
        var document = Document()
        let header = StrokeHeader(weight: 3, colour: Colour(red: 255, green: 0, blue: 16), start: Point(x: 0, y: 0))
        _ = document.apply(.add(StrokeID("a"), header))
        _ = document.apply(.append(StrokeID("a"), points: [Point(x: 10, y: 0), Point(x: 20, y: 5)], offset: 1))
        _ = document.apply(.add(StrokeID("dot"), header))
        _ = document.apply(.add(StrokeID("gone"), header))
        _ = document.apply(.append(StrokeID("gone"), points: [Point(x: 10, y: 0)], offset: 1))
        _ = document.apply(.removeStroke(StrokeID("gone")))
        let message = String(decoding: PageMessages.room(document), as: UTF8.self)
        #expect(message.hasPrefix(##"{"type":"strokes","reset":true,"strokes":[{"id":"a","colour":"#ff0010","weight":3,"shape":false,"paths":["M0,0C"##))
        #expect(message.contains(##"{"id":"dot","colour":"#ff0010","weight":3,"shape":false,"paths":[],"dot":[0,0]}"##))
        #expect(message.hasSuffix(#"],"removed":["gone"]}"#))
    }
}
