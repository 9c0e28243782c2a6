import Testing

@testable import XMPP

private let granted = StreamManagementEnabled(resumptionID: "sm-1", maximumResumptionTime: .seconds(300))

private func element(_ text: String) throws -> XMLElement {
    let parser = XMLStreamParser()
    let header =
        "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>"
    for case .stanza(let element) in try parser.feed(Array((header + text).utf8)) {
        return element
    }
    throw ConnectionError(.protocolViolation, "the test's XML \(text) holds no element")
}

private func ack(_ h: UInt32) throws -> XMLElement {
    try element("<a xmlns='urn:xmpp:sm:3' h='\(h)'/>")
}

@Suite("StreamManagementState")
struct StreamManagementTests {
    @Test func requestIsAnsweredWithTheInboundCount() throws {
        var state = StreamManagementState(enabled: granted)
        let request = try element("<r xmlns='urn:xmpp:sm:3'/>")
        #expect(try state.handle(request) == StreamManagementReply(text: "<a xmlns='urn:xmpp:sm:3' h='0'/>"))
        for _ in 1...3 { state.inboundStanzaHandled() }
        #expect(try state.handle(request) == StreamManagementReply(text: "<a xmlns='urn:xmpp:sm:3' h='3'/>"))
    }

    @Test func acksDropAcknowledgedStanzasInOrder() throws {
        var state = StreamManagementState(enabled: granted)
        for index in 1...5 { state.outbound("<message id='\(index)'/>") }
        #expect(state.outboundCount == 5)
        #expect(try state.handle(ack(2)) == nil)
        #expect(state.unacknowledged == ["<message id='3'/>", "<message id='4'/>", "<message id='5'/>"])
        #expect(try state.handle(ack(2)) == nil, "a repeated ack changes nothing")
        #expect(state.unacknowledged.count == 3)
        #expect(try state.handle(ack(5)) == nil)
        #expect(state.unacknowledged.isEmpty && state.acknowledgedOutboundCount == 5 && state.outboundCount == 5)
    }

    @Test func overAcknowledgementIsAProtocolViolation() throws {
        var state = StreamManagementState(enabled: granted)
        for index in 1...3 { state.outbound("<iq id='\(index)'/>") }
        let error = #expect(throws: ConnectionError.self) { try state.handle(ack(5)) }
        #expect(error?.kind == .protocolViolation)
        #expect(
            error?.detail
                == "the server acknowledged 5 stanza(s), while this client only sent 3 so far: its stream management count is wrong; close the stream with <undefined-condition/> (XEP-0198 §4)"
        )
        #expect(state.unacknowledged.count == 3, "a refused ack drops nothing")
    }

    @Test func backwardsAcknowledgementIsAProtocolViolation() throws {
        var state = StreamManagementState(enabled: granted)
        for index in 1...3 { state.outbound("<iq id='\(index)'/>") }
        _ = try state.handle(ack(2))
        let error = #expect(throws: ConnectionError.self) { try state.handle(ack(1)) }
        #expect(error?.detail.contains("acknowledged 1 stanza(s) after it had acknowledged 2") == true)
    }

    @Test(arguments: [
        "<a xmlns='urn:xmpp:sm:3'/>", "<a xmlns='urn:xmpp:sm:3' h='4294967296'/>", "<a xmlns='urn:xmpp:sm:3' h='x'/>",
        "<enabled xmlns='urn:xmpp:sm:3'/>", "<message><body>not SM</body></message>",
    ])
    func malformedOrUnexpectedElementsAreRefused(text: String) throws {
        var state = StreamManagementState(enabled: granted)
        let element = try element(text)
        #expect(throws: ConnectionError.self) { try state.handle(element) }
    }

    /// Both counters wrap from 2^32 − 1 to 0 (XEP-0198 §4), and acks across the wrap work.
    @Test func countersWrapAround() throws {
        var state = StreamManagementState(
            enabled: granted, ackRequestInterval: 5, inboundCount: .max - 1, acknowledgedOutboundCount: .max - 1)
        for _ in 1...3 { state.inboundStanzaHandled() }
        #expect(state.inboundCount == 1)
        #expect(try state.handle(element("<r xmlns='urn:xmpp:sm:3'/>"))?.text == "<a xmlns='urn:xmpp:sm:3' h='1'/>")

        for index in 1...4 { state.outbound("<message id='\(index)'/>") }
        #expect(state.outboundCount == 2)
        #expect(try state.handle(ack(.max)) == nil)
        #expect(state.unacknowledged == ["<message id='2'/>", "<message id='3'/>", "<message id='4'/>"])
        #expect(try state.handle(ack(1)) == nil)
        #expect(state.unacknowledged == ["<message id='4'/>"])
        #expect(throws: ConnectionError.self) { try state.handle(ack(3)) }
        #expect(try state.resumed(acknowledgedByServer: 2) == [])
    }

    @Test func resumedReturnsWhatToResend() throws {
        var state = StreamManagementState(enabled: granted)
        for index in 1...4 { state.outbound("<message id='\(index)'/>") }
        _ = try state.handle(ack(1))
        #expect(try state.resumed(acknowledgedByServer: 3) == ["<message id='4'/>"])
        #expect(state.unacknowledged.isEmpty && state.outboundCount == 3)
        state.outbound("<message id='4'/>")
        #expect(try state.handle(ack(4)) == nil, "the resent stanza has the next sequence number")
        #expect(throws: ConnectionError.self) { try state.resumed(acknowledgedByServer: 9) }
    }

    @Test func freshSessionTakesEverythingTheServerDidNotHandle() {
        var state = StreamManagementState(enabled: granted)
        for index in 1...3 { state.outbound("<message id='\(index)'/>") }
        var copy = state
        #expect(
            copy.takeUnacknowledgedForFreshSession() == ["<message id='1'/>", "<message id='2'/>", "<message id='3'/>"])
        #expect(copy.unacknowledged.isEmpty)
        copy = state
        #expect(copy.takeUnacknowledgedForFreshSession(acknowledgedByServer: 2) == ["<message id='3'/>"])
        copy = state
        #expect(
            copy.takeUnacknowledgedForFreshSession(acknowledgedByServer: 7).count == 3,
            "an impossible h loses nothing")
    }

    @Test func ackIsRequestedEveryIntervalOfUnacknowledgedStanzas() throws {
        var state = StreamManagementState(enabled: granted)
        var requests: [Int] = []
        for index in 1...12 {
            state.outbound("<message id='\(index)'/>")
            if state.shouldRequestAck {
                #expect(state.requestAck() == "<r xmlns='urn:xmpp:sm:3'/>")
                requests.append(index)
            }
        }
        #expect(requests == [5, 10])

        var acked = StreamManagementState(enabled: granted, ackRequestInterval: 3)
        for index in 1...2 { acked.outbound("<message id='\(index)'/>") }
        _ = try acked.handle(ack(2))
        acked.outbound("<message id='3'/>")
        acked.outbound("<message id='4'/>")
        #expect(!acked.shouldRequestAck, "stanzas acknowledged without a request no longer count")
        acked.outbound("<message id='5'/>")
        #expect(acked.shouldRequestAck)
    }

    @Test func resumptionTokenNeedsAResumptionID() {
        var state = StreamManagementState(enabled: granted)
        state.inboundStanzaHandled()
        #expect(
            state.resumptionToken(fullJID: "user@example.org/canvas")
                == StreamResumptionToken(id: "sm-1", inboundCount: 1, fullJID: "user@example.org/canvas"))
        #expect(StreamManagementState(enabled: StreamManagementEnabled()).resumptionToken(fullJID: "u@e/r") == nil)
    }

    @Test(arguments: [
        ("<message><body>hi</body></message>", true), ("<presence/>", true), ("<iq type='get' id='1'/>", true),
        ("<r xmlns='urn:xmpp:sm:3'/>", false), ("<message xmlns='jabber:server'/>", false),
    ])
    func countedStanzas(text: String, counted: Bool) throws {
        #expect(StreamManagementState.isCountedStanza(try element(text)) == counted)
    }
}
