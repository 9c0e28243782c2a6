import CanvasCore
@testable import CanvasNode
import CanvasProtocol
import Testing

/// Shapes where the original app reads: it stops drawing on a shape of one point, which an
/// ADD alone is, so a shape's ADD and first APPEND go out as one MEGA
/// (Tests/Integration/original_app_model.py `drawing_trap` is the app's side).
@Suite struct ShapeBodiesTests {
    static let shape = StrokeHeader(weight: 2, colour: .black, start: Point(x: 0, y: 0), isShape: true)
    static let pen = StrokeHeader(weight: 2, colour: .black, start: Point(x: 0, y: 0))
    static let corners = [Point(x: 100, y: 0), Point(x: 100, y: 50), Point(x: 0, y: 50), Point(x: 0, y: 0)]

    static func add(_ id: String, _ header: StrokeHeader = shape) -> Operation { .add(StrokeID(id), header) }
    static let (lan, xmpp) = (TransportID("lan"), TransportID("xmpp"))

    /// A gateway: a LAN without peers of the original app, and an XMPP room that may have them.
    static func gateway() -> RoomSession {
        var session = RoomSessionTests.session("gw")
        let lanUp = SessionInput.transportUp(lan, maxMessageBytes: 1200, members: [PeerID("a")], legacyPeers: false)
        _ = session.handle(lanUp, at: .zero)
        _ = session.handle(.transportUp(xmpp, maxMessageBytes: 4000, members: [PeerID("b")]), at: .zero)
        return session
    }

    /// `operation` received from the LAN member "a".
    static func fromTheLAN(_ operation: Operation) -> SessionInput {
        .received(MessageEncoder.encode(operation), from: PeerID("a"), via: lan)
    }
    static func append(_ id: String, offset: Int? = 1) -> Operation {
        .append(StrokeID(id), points: corners, offset: offset)
    }

    @Test func aShapesAddAndFirstAppendAreOnePart() {
        var bodies = ShapeBodies()
        let parts = bodies.parts(
            [(Self.add("r"), SendID(1)), (Self.append("r"), SendID(2)), (Self.add("s", Self.pen), nil)])
        #expect(parts == [.shape(add: Self.add("r"), append: Self.append("r"), sendIDs: [SendID(1), SendID(2)]),
                          .operation(Self.add("s", Self.pen), nil)])
        #expect(bodies.waitingCount == 0)
    }

    @Test func aShapesAddWaitsForItsFirstAppend() {
        var bodies = ShapeBodies()
        #expect(bodies.parts([(Self.add("r"), nil)]).isEmpty)
        #expect(bodies.waitingCount == 1)
        // Other strokes' operations and a later APPEND (offset past 1) pass it by.
        let delete = Operation.delete(StrokeID("t"), start: 0, end: 1)
        #expect(bodies.parts([(delete, nil), (Self.append("r", offset: 5), nil)])
            == [.operation(delete, nil), .operation(Self.append("r", offset: 5), nil)])
        #expect(bodies.parts([(Self.append("r", offset: nil), SendID(9))])
            == [.shape(add: Self.add("r"), append: Self.append("r", offset: nil), sendIDs: [SendID(9)])])
        #expect(bodies.waitingCount == 0)
        // A stroke drawn with a pen is never held back.
        #expect(bodies.parts([(Self.add("p", Self.pen), nil)]) == [.operation(Self.add("p", Self.pen), nil)])
    }

    @Test func theOldestWaitingAddGoesAloneBeyondTheBound() {
        var bodies = ShapeBodies()
        var released: [ShapeBodies.Part] = []
        for index in 0...ShapeBodies.maximumWaiting {
            released += bodies.parts([(Self.add("r\(index)"), SendID(UInt64(index)))])
        }
        #expect(released == [.operation(Self.add("r0"), SendID(0))])
        #expect(bodies.waitingCount == ShapeBodies.maximumWaiting)
        bodies.reset()
        #expect(bodies.waitingCount == 0)
        #expect(bodies.parts([(Self.append("r1"), nil)]) == [.operation(Self.append("r1"), nil)])
    }

    /// The MEGA is what the app takes whole and a Canvas node reads as the ADD and APPEND.
    @Test func theMegaCarriesTheWholeShapeOrWhatFitsAndTheRestAfter() throws {
        let whole = ShapeBodies.messages(add: Self.add("r"), append: Self.append("r"), maxBytes: 4000)
        #expect(whole.count == 1)
        #expect(
            String(decoding: whole[0], as: UTF8.self) == #"{"type":"MEGA","data":{"r":{"points":[[0,0],[100,0],"#
                + #"[100,50],[0,50],[0,0]],"segments":[{"start":0,"end":4}],"isShape":true,"thickness":2,"#
                + #""colour":[0,0,0]}}}"#)
        let ellipse = (0..<400).map { Point(x: Double($0) + 0.25, y: Double($0 % 7) * 1.5) }
        let append = Operation.append(StrokeID("e"), points: ellipse, offset: 1)
        let messages = ShapeBodies.messages(add: Self.add("e"), append: append, maxBytes: 1200)
        #expect(messages.count > 3)
        #expect(messages.allSatisfy { $0.count <= 1200 })
        #expect(SimulatedNetwork.type(of: messages[0]) == "MEGA")
        #expect(messages.dropFirst().allSatisfy { SimulatedNetwork.type(of: $0) == "APPEND" })
        var sent = Document()
        for message in messages {
            for operation in try MessageDecoder.decode(message).operations { sent.apply(operation) }
        }
        var drawn = Document()
        drawn.apply(Self.add("e"))
        drawn.apply(append)
        #expect(sent == drawn)
    }

    /// A session sends a shape drawn here, or relayed in two messages, as one MEGA where the
    /// app may read; elsewhere as it was drawn.
    @Test func aSessionSendsShapesAsOneMegaOnlyWhereTheAppReads() throws {
        let (lan, xmpp) = (Self.lan, Self.xmpp)
        var session = Self.gateway()
        func types(_ actions: [SessionAction], via transport: TransportID) -> [String] {
            RoomSessionTests.operationSends(actions).filter { $0.via == transport }
                .map { SimulatedNetwork.type(of: $0.bytes) }
        }
        let drawn = session.handle(.local([Self.add("me_1"), Self.append("me_1")]), at: .seconds(1))
        #expect(types(drawn, via: lan) == ["ADD", "APPEND"])
        #expect(types(drawn, via: xmpp) == ["MEGA"])
        // The MEGA's acceptance accepts both operations.
        let mega = RoomSessionTests.operationSends(drawn).first { $0.via == xmpp }!
        #expect(session.unacceptedOperations(on: xmpp).count == 2)
        _ = session.handle(.accepted(mega.id!, via: xmpp), at: .seconds(1))
        #expect(session.unacceptedOperations(on: xmpp).isEmpty)
        // A LAN member's shape arrives as two messages: the ADD waits for the APPEND.
        let add = session.handle(Self.fromTheLAN(Self.add("a_1")), at: .seconds(2))
        #expect(types(add, via: xmpp).isEmpty)
        let append = session.handle(Self.fromTheLAN(Self.append("a_1")), at: .seconds(2))
        let relayed = RoomSessionTests.operationSends(append).filter { $0.via == xmpp }
        #expect(relayed.map { SimulatedNetwork.type(of: $0.bytes) } == ["MEGA"])
        #expect(try MessageDecoder.decode(relayed[0].bytes).operations == [Self.add("a_1"), Self.append("a_1")])
    }

    /// A recognised shape drawn, undone (the stroke as drawn comes back) and redone (the
    /// shape again, under a new name): where the app reads, each shape goes out as one MEGA,
    /// and the stroke brought back as an ADD and an APPEND, as any hand-drawn stroke.
    @Test func aShapeUndoneAndRedoneReachesTheAppWhole() throws {
        var session = Self.gateway()
        func types(_ actions: [SessionAction]) -> [String] {
            RoomSessionTests.operationSends(actions).filter { $0.via == Self.xmpp }
                .map { SimulatedNetwork.type(of: $0.bytes) }
        }
        let draw = ReplicaTests.draw(ReplicaTests.roughRectangle, recognize: true)
        let drawn = session.handle(.action(draw), at: .seconds(1))
        #expect(types(drawn) == ["ADD", "APPEND", "DELETE", "MEGA"])
        #expect(types(session.handle(.action(.undo), at: .seconds(2))) == ["REMOVE_STROKE", "ADD", "APPEND"])
        #expect(types(session.handle(.action(.undo), at: .seconds(3))) == ["REMOVE_STROKE"])
        #expect(types(session.handle(.action(.redo), at: .seconds(4))) == ["ADD", "APPEND"])
        let redone = session.handle(.action(.redo), at: .seconds(5))
        #expect(types(redone) == ["REMOVE_STROKE", "MEGA"])
        let mega = try #require(RoomSessionTests.operationSends(redone).last)
        let operations = try MessageDecoder.decode(mega.bytes).operations
        #expect(operations.first?.strokeID == StrokeID("gw_2-r1"), "the shape again: \(operations)")
        #expect(session.replica.document[StrokeID("gw_2-r1")]?.header?.isShape == true)
    }

    /// A LAN member's shape whose APPEND arrives before its ADD (the app drops an APPEND for
    /// a stroke it does not know): the ADD goes out with the points already held, as one MEGA.
    @Test func aShapeWhoseAppendCameFirstGoesOutWholeWithItsAdd() throws {
        var session = Self.gateway()
        let append = session.handle(Self.fromTheLAN(Self.append("a_1")), at: .seconds(1))
        #expect(RoomSessionTests.operationSends(append).map { SimulatedNetwork.type(of: $0.bytes) } == ["APPEND"])
        let add = session.handle(Self.fromTheLAN(Self.add("a_1")), at: .seconds(1))
        let relayed = RoomSessionTests.operationSends(add).filter { $0.via == Self.xmpp }
        #expect(relayed.map { SimulatedNetwork.type(of: $0.bytes) } == ["MEGA"])
        #expect(try MessageDecoder.decode(relayed[0].bytes).operations == [Self.add("a_1"), Self.append("a_1")])
    }

    /// A shape's ADD given alone waits, and is still sent again after a reconnection.
    @Test func aLocalShapeAddWaitingIsNotLostWhenTheTransportGoesDown() {
        let xmpp = TransportID("xmpp")
        var session = RoomSessionTests.session()
        _ = session.handle(.transportUp(xmpp, maxMessageBytes: 4000, members: []), at: .zero)
        #expect(RoomSessionTests.operationSends(session.handle(.local([Self.add("me_1")]), at: .seconds(1))).isEmpty)
        #expect(session.unacceptedOperations(on: xmpp) == [Self.add("me_1")])
        _ = session.handle(.transportDown(xmpp), at: .seconds(2))
        _ = session.handle(.local([Self.append("me_1")]), at: .seconds(3))
        let up = session.handle(.transportUp(xmpp, maxMessageBytes: 4000, members: []), at: .seconds(4))
        let sends = RoomSessionTests.operationSends(up)
        #expect(sends.map { SimulatedNetwork.type(of: $0.bytes) } == ["MEGA"])
        _ = session.handle(.accepted(sends[0].id!, via: xmpp), at: .seconds(5))
        #expect(session.unacceptedOperations(on: xmpp).isEmpty)
    }
}
