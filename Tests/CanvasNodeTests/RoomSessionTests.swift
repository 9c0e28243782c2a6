import CanvasCore
import CanvasNode
import CanvasProtocol
import Testing

/// The session state machine driven by hand: ordering of persist and send, the per
/// transport outbox, gateway relaying, message sizes, events.
@Suite struct RoomSessionTests {
    static let lan = TransportID("lan")
    static let xmpp = TransportID("xmpp")
    static let header = StrokeHeader(weight: 2, colour: .black, start: Point(x: 1, y: 2))

    static func session(_ node: String = "me") -> RoomSession {
        var configuration = SessionConfiguration(nodeID: node, seed: 1)
        configuration.legacyGrace = nil
        return RoomSession(configuration: configuration)
    }

    static func sends(_ actions: [SessionAction]) -> [(bytes: [UInt8], to: Destination, via: TransportID, id: SendID?)] {
        actions.compactMap { if case .send(let bytes, _, let to, let via, let id) = $0 { (bytes, to, via, id) } else { nil } }
    }

    static func operationSends(_ actions: [SessionAction]) -> [(bytes: [UInt8], to: Destination, via: TransportID, id: SendID?)] {
        sends(actions).filter { !SimulatedNetwork.type(of: $0.bytes).hasPrefix("SYNC_") }
    }

    @Test func localEditsArePersistedBeforeTheyAreSent() {
        var session = Self.session()
        _ = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: []), at: .zero)
        let actions = session.handle(.local([.add(StrokeID("me_1"), Self.header)]), at: .seconds(1))
        let persist = actions.firstIndex { if case .persistLocal = $0 { true } else { false } }
        let send = actions.firstIndex { if case .send = $0 { true } else { false } }
        #expect(persist != nil && send != nil && persist! < send!)
        #expect(session.unacceptedOperations(on: Self.lan).count == 1)
        let id = Self.sends(actions)[0].id!
        _ = session.handle(.accepted(id, via: Self.lan), at: .seconds(1))
        #expect(session.unacceptedOperations(on: Self.lan).isEmpty)
    }

    /// A transport learns what each message carries from the action, not from its bytes.
    @Test func everySendSaysWhatKindOfMessageItIs() {
        var session = Self.session()
        let up = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: [PeerID("b")]), at: .zero)
        let drawn = session.handle(.local([.add(StrokeID("me_1"), Self.header)]), at: .seconds(1))
        let sync = SyncMessage(node: "b", root: 7, body: .summary).encoded()
        let answered = session.handle(.received(sync, from: PeerID("b"), via: Self.lan), at: .seconds(2))
            + session.handle(.timer, at: .seconds(10))
        var kinds: [String: Set<MessageKind>] = [:]
        for action in up + drawn + answered {
            if case .send(let bytes, let kind, _, _, _) = action {
                kinds[SimulatedNetwork.type(of: bytes), default: []].insert(kind)
            }
        }
        #expect(kinds["ADD"] == [.operations])
        #expect(kinds["SYNC_SUMMARY"] == [.sync])
        #expect(kinds["SYNC_BUCKETS"] == [.sync])
    }

    /// A member that stays silent is caught up as a peer of the original app would be (the
    /// document as MEGA, in the body); one that announced it speaks sync is not.
    @Test func onlyMembersThatMayBeLegacyPeersAreSentTheDocumentAsMega() {
        func megaAfterGrace(announced: Bool) -> Int {
            var configuration = SessionConfiguration(nodeID: "me", seed: 1)
            configuration.legacyGrace = .seconds(5)
            var session = RoomSession(configuration: configuration)
            _ = session.handle(.local([.add(StrokeID("me_1"), Self.header), .append(StrokeID("me_1"), points: [Point(x: 5, y: 5)], offset: 1)]), at: .zero)
            _ = session.handle(.transportUp(Self.xmpp, maxMessageBytes: 64_000, members: [PeerID("ipad")]), at: .zero)
            if announced { _ = session.handle(.memberSpeaksSync(PeerID("ipad"), via: Self.xmpp), at: .zero) }
            #expect(session.speaksSync(PeerID("ipad"), on: Self.xmpp) == announced)
            var megas = 0
            for second in 1...8 {
                for action in session.handle(.timer, at: .seconds(second)) {
                    if case .send(let bytes, .legacyState, _, _, _) = action {
                        #expect(SimulatedNetwork.type(of: bytes) == "MEGA")
                        megas += 1
                    }
                }
            }
            return megas
        }
        #expect(megaAfterGrace(announced: false) == 1)
        #expect(megaAfterGrace(announced: true) == 0)
    }

    @Test func unacceptedOperationsAreResentAfterReconnecting() {
        var session = Self.session()
        _ = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: []), at: .zero)
        let sent = session.handle(.local([.add(StrokeID("me_1"), Self.header)]), at: .seconds(1))
        #expect(Self.operationSends(sent).count == 1)
        _ = session.handle(.transportDown(Self.lan), at: .seconds(2))
        let offline = session.handle(
            .local([.append(StrokeID("me_1"), points: [Point(x: 3, y: 4)], offset: 1)]), at: .seconds(3))
        #expect(Self.operationSends(offline).isEmpty)
        #expect(session.unacceptedOperations(on: Self.lan).count == 2)
        let back = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: [PeerID("b")]), at: .seconds(4))
        let types = Self.sends(back).map { SimulatedNetwork.type(of: $0.bytes) }
        #expect(types == ["ADD", "APPEND", "SYNC_SUMMARY"])
    }

    /// A send the transport confirms while it is down (an XMPP room's archive showed it on
    /// rejoining) is not sent again when it comes back; the others are.
    @Test func operationsAcceptedWhileDownAreNotResent() {
        var session = Self.session()
        _ = session.handle(.transportUp(Self.xmpp, maxMessageBytes: 64_000, members: []), at: .zero)
        let first = Self.sends(session.handle(.local([.add(StrokeID("me_1"), Self.header)]), at: .seconds(1)))
        _ = session.handle(.local([.append(StrokeID("me_1"), points: [Point(x: 3, y: 4)], offset: 1)]), at: .seconds(1))
        _ = session.handle(.transportDown(Self.xmpp), at: .seconds(2))
        _ = session.handle(.accepted(first[0].id!, via: Self.xmpp), at: .seconds(3))
        #expect(session.unacceptedOperations(on: Self.xmpp) == [.append(StrokeID("me_1"), points: [Point(x: 3, y: 4)], offset: 1)])
        let back = session.handle(.transportUp(Self.xmpp, maxMessageBytes: 64_000, members: []), at: .seconds(4))
        #expect(Self.operationSends(back).map { SimulatedNetwork.type(of: $0.bytes) } == ["APPEND"])
    }

    /// A burst of messages (one read of the LAN socket) is handled as the messages one by
    /// one would be, with one store write and one `applied` event; relays keep their order.
    @Test func aBurstOfMessagesIsStoredAndReportedOnce() {
        let id = StrokeID("b_1")
        let messages: [(bytes: [UInt8], from: PeerID)] = [
            (MessageEncoder.encode(.add(id, Self.header)), PeerID("b")),
            (MessageEncoder.encode(.append(id, points: [Point(x: 3, y: 4)], offset: 1)), PeerID("b")),
            (MessageEncoder.encode(.add(id, Self.header)), PeerID("c")),  // a duplicate: nothing new
            (MessageEncoder.encode(.append(id, points: [Point(x: 5, y: 6)], offset: 2)), PeerID("c")),
        ]
        var batched = Self.session()
        var oneByOne = Self.session()
        for session in [0, 1] {
            for transport in [Self.lan, Self.xmpp] {
                let up = SessionInput.transportUp(transport, maxMessageBytes: 64_000, members: [PeerID("b"), PeerID("c")])
                if session == 0 { _ = batched.handle(up, at: .zero) } else { _ = oneByOne.handle(up, at: .zero) }
            }
        }
        let actions = batched.handle(.receivedAll(messages, via: Self.lan), at: .seconds(1))
        var single: [SessionAction] = []
        for (bytes, peer) in messages { single += oneByOne.handle(.received(bytes, from: peer, via: Self.lan), at: .seconds(1)) }
        #expect(batched.document == oneByOne.document)
        let persisted = actions.compactMap { if case .persistRemote(let operations, _) = $0 { operations } else { nil } }
        #expect(persisted.count == 1)
        #expect(persisted.first?.count == 3)
        let applied = actions.compactMap { if case .event(.applied(let applied)) = $0 { applied } else { nil } }
        #expect(applied.count == 1)
        #expect(applied.first?.map(\.author?.peer) == [PeerID("b"), PeerID("b"), PeerID("c")])
        // The same relays to the other transport, in the same order.
        let relayed = { (actions: [SessionAction]) in Self.operationSends(actions).filter { $0.via == Self.xmpp }.map(\.bytes) }
        #expect(relayed(actions) == relayed(single))
        #expect(relayed(actions).count == 3)
    }

    /// A node restarted with its store: what the transport had not accepted before (kept by
    /// the driver) goes out with the next transportUp, though the document already has it.
    @Test func restoredUnacceptedOperationsAreSentWhenTheTransportComesUp() {
        let operations: [CanvasCore.Operation] = [
            .add(StrokeID("me_1"), Self.header), .append(StrokeID("me_1"), points: [Point(x: 3, y: 4)], offset: 1),
        ]
        var configuration = SessionConfiguration(nodeID: "me", seed: 1)
        configuration.legacyGrace = nil
        var session = RoomSession(configuration: configuration, restoring: operations)
        session.restoreUnaccepted(operations, on: Self.xmpp)
        #expect(session.unacceptedOperations(on: Self.xmpp) == operations)
        let up = session.handle(.transportUp(Self.xmpp, maxMessageBytes: 1200, members: []), at: .zero)
        #expect(Self.operationSends(up).map { SimulatedNetwork.type(of: $0.bytes) } == ["ADD", "APPEND"])
        for send in Self.operationSends(up) {
            _ = session.handle(.accepted(send.id!, via: Self.xmpp), at: .zero)
        }
        #expect(session.unacceptedOperations(on: Self.xmpp).isEmpty)
    }

    /// What is drawn while an expected transport connects for the first time goes out when
    /// it comes up (a fresh node's first strokes reach the XMPP room and its archive, not
    /// only its members by anti-entropy); a transport never expected gets nothing drawn
    /// before it was up.
    @Test func operationsDrawnBeforeAnExpectedTransportFirstComesUpAreSentThen() {
        var configuration = SessionConfiguration(nodeID: "me", seed: 1)
        configuration.legacyGrace = nil
        var session = RoomSession(configuration: configuration, restoring: [])
        session.expect(transport: Self.xmpp)
        let operations: [CanvasCore.Operation] = [
            .add(StrokeID("me_1"), Self.header), .append(StrokeID("me_1"), points: [Point(x: 3, y: 4)], offset: 1),
        ]
        _ = session.handle(.local(operations), at: .zero)
        #expect(session.unacceptedOperations(on: Self.xmpp) == operations)
        #expect(session.unacceptedOperations(on: Self.lan).isEmpty)
        let up = session.handle(.transportUp(Self.xmpp, maxMessageBytes: 1200, members: []), at: .seconds(1))
        #expect(Self.operationSends(up).map { SimulatedNetwork.type(of: $0.bytes) } == ["ADD", "APPEND"])
        let lanUp = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: []), at: .seconds(1))
        #expect(Self.operationSends(lanUp).isEmpty, "never expected: anti-entropy brings it to the LAN's members")
    }

    /// An archive is read before the transport is up: its operations count (and are
    /// relayed to the other transports), its old sync messages are not answered, and
    /// nobody is "drawing".
    @Test func recordedMessagesApplyOperationsOnly() throws {
        var session = Self.session()
        _ = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: [PeerID("l")]), at: .zero)
        let add = MessageEncoder.encode(CanvasCore.Operation.add(StrokeID("old_1"), Self.header))
        let applied = session.handle(.recorded(add, from: PeerID("someone"), via: Self.xmpp), at: .seconds(1))
        #expect(session.document[StrokeID("old_1")] != nil)
        #expect(Self.operationSends(applied).map(\.via) == [Self.lan])
        #expect(!applied.contains { if case .event(.drawing(let who)) = $0 { !who.isEmpty } else { false } })
        let summary = SyncMessage(node: "other", root: 42, to: nil, body: .summary).encoded()
        let stale = session.handle(.recorded(summary, from: PeerID("someone"), via: Self.xmpp), at: .seconds(2))
        #expect(Self.sends(stale).isEmpty)
        // Live messages on a transport that is not up are not taken.
        let other = MessageEncoder.encode(CanvasCore.Operation.add(StrokeID("old_2"), Self.header))
        _ = session.handle(.received(other, from: PeerID("someone"), via: Self.xmpp), at: .seconds(3))
        #expect(session.document[StrokeID("old_2")] == nil)
    }

    @Test func discardedUnacceptedOperationsAreNotResent() {
        var session = Self.session()
        _ = session.handle(.local([.add(StrokeID("me_1"), Self.header)]), at: .zero)
        #expect(session.unacceptedOperations(on: Self.xmpp).isEmpty)  // no such transport yet
        _ = session.handle(.transportUp(Self.xmpp, maxMessageBytes: 1200, members: []), at: .zero)
        _ = session.handle(.transportDown(Self.xmpp), at: .seconds(1))
        _ = session.handle(.local([.add(StrokeID("me_2"), Self.header)]), at: .seconds(2))
        #expect(session.unacceptedOperations(on: Self.xmpp).count == 1)
        session.discardUnaccepted(on: Self.xmpp)
        #expect(session.unacceptedOperations(on: Self.xmpp).isEmpty)
        let up = session.handle(.transportUp(Self.xmpp, maxMessageBytes: 1200, members: []), at: .seconds(3))
        #expect(Self.operationSends(up).isEmpty)
    }

    @Test func gatewayRelaysNovelOperationsToOtherTransportsOnly() throws {
        var gateway = Self.session("gw")
        _ = gateway.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: [PeerID("a")]), at: .zero)
        _ = gateway.handle(.transportUp(Self.xmpp, maxMessageBytes: 4000, members: [PeerID("b")]), at: .zero)
        let add = MessageEncoder.encode(.add(StrokeID("a_1"), Self.header))
        let first = gateway.handle(.received(add, from: PeerID("a"), via: Self.lan), at: .seconds(1))
        let relayed = Self.sends(first)
        #expect(relayed.count == 1)
        #expect(relayed.first?.via == Self.xmpp && relayed.first?.to == .room && relayed.first?.bytes == add)
        #expect(first.contains { if case .persistRemote = $0 { true } else { false } })
        // The same operation coming back over the other transport is not novel: no loop.
        let echo = gateway.handle(.received(add, from: PeerID("b"), via: Self.xmpp), at: .seconds(2))
        #expect(Self.sends(echo).isEmpty)
    }

    @Test func legacyAppendIsRelayedWithItsResolvedOffset() throws {
        var gateway = Self.session("gw")
        _ = gateway.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: [PeerID("a")]), at: .zero)
        _ = gateway.handle(.transportUp(Self.xmpp, maxMessageBytes: 4000, members: [PeerID("b")]), at: .zero)
        _ = gateway.handle(.received(MessageEncoder.encode(.add(StrokeID("s"), Self.header)), from: PeerID("b"), via: Self.xmpp), at: .seconds(1))
        let append = Array(#"{"type":"APPEND","identifier":"s","points":[[5,5]]}"#.utf8)
        let actions = gateway.handle(.received(append, from: PeerID("b"), via: Self.xmpp), at: .seconds(1))
        let relayed = Self.sends(actions).map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(relayed == [#"{"type":"APPEND","identifier":"s","points":[[5,5]],"offset":1}"#])
    }

    @Test func longAppendsAreSplitUnderTheTransportLimit() throws {
        var session = Self.session()
        _ = session.handle(.transportUp(Self.lan, maxMessageBytes: 600, members: []), at: .zero)
        let points = (0..<500).map { Point(x: Double($0) + 0.123, y: Double($0) * 2.5) }
        let actions = session.handle(
            .local([.add(StrokeID("me_1"), Self.header), .append(StrokeID("me_1"), points: points, offset: 1)]), at: .zero)
        let sends = Self.operationSends(actions)
        #expect(sends.count > 10)
        #expect(sends.allSatisfy { $0.bytes.count <= 600 })
        var copy = Document()
        for send in sends {
            for operation in try MessageDecoder.decode(send.bytes).operations { copy.apply(operation) }
        }
        #expect(copy == session.document)
        // Only the last part of the split APPEND carries the id to acknowledge.
        #expect(sends.filter { $0.id != nil }.count == 2)
    }

    @Test func invalidMessagesChangeNothingAndAreReported() {
        var session = Self.session()
        _ = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: [PeerID("x")]), at: .zero)
        let before = session.document
        let actions = session.handle(
            .received(Array(#"{"type":"ADD","identifier":"z","weight":0,"colour":[0,0,0],"start":[0,0]}"#.utf8), from: PeerID("x"), via: Self.lan),
            at: .seconds(1))
        #expect(session.document == before)
        #expect(actions.contains { if case .event(.rejected(let error, PeerID("x"), Self.lan)) = $0 { error.path == "ADD.weight" } else { false } })
    }

    @Test func drawingEventsFollowRecentAuthors() {
        var session = Self.session()
        _ = session.handle(.transportUp(Self.lan, maxMessageBytes: 1200, members: [PeerID("x")]), at: .zero)
        let actions = session.handle(
            .received(MessageEncoder.encode(.add(StrokeID("x_1"), Self.header)), from: PeerID("x"), via: Self.lan), at: .seconds(1))
        let author = Author(peer: PeerID("x"), transport: Self.lan)
        #expect(actions.contains { if case .event(.drawing(let who)) = $0 { who == [author] } else { false } })
        #expect(actions.contains { if case .scheduleTimer = $0 { true } else { false } })
        let later = session.handle(.timer, at: .seconds(5))
        #expect(later.contains { if case .event(.drawing(let who)) = $0 { who.isEmpty } else { false } })
    }

    @Test func eraseActionsBecomeDeletesOfTheStrokesCrossed() {
        var session = Self.session("pad")
        let line = (0...10).map { Point(x: Double($0) * 10, y: 50) }
        _ = session.handle(.action(.draw(points: line, weight: 2, colour: .black, recognize: false)), at: .zero)
        let actions = session.handle(.action(.erase(points: [Point(x: 50, y: 0), Point(x: 50, y: 100)], radius: 5)), at: .seconds(1))
        let erased = session.document[StrokeID("pad_1")]?.erased ?? IntervalSet()
        #expect(!erased.isEmpty && !erased.contains(0) && !erased.contains(10))
        #expect(actions.contains { if case .persistLocal(let operations) = $0 { operations.allSatisfy { if case .delete = $0 { true } else { false } } } else { false } })
    }

    @Test func drawActionsBecomeStrokesNamedAfterTheNode() {
        var session = Self.session("pad")
        let actions = session.handle(
            .action(.draw(points: [Point(x: 0, y: 0), Point(x: 5, y: 5)], weight: 2, colour: .black, recognize: false)),
            at: .zero)
        #expect(session.document[StrokeID("pad_1")]?.points.count == 2)
        #expect(actions.contains { if case .persistLocal(let operations) = $0 { operations.count == 2 } else { false } })
        // A restored session continues the numbering.
        let restored = RoomSession(configuration: SessionConfiguration(nodeID: "pad", seed: 2), restoring: session.document.operations)
        var next = restored
        _ = next.handle(.action(.draw(points: [Point(x: 1, y: 1)], weight: 2, colour: .black, recognize: false)), at: .zero)
        #expect(next.document[StrokeID("pad_2")] != nil)
    }
}
