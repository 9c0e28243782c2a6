import CanvasCore
import CanvasNode
import CanvasProtocol
import Testing

/// The original app's redo (a MEGA adding again a stroke it removed) and the names strokes
/// go by in message bodies (protocol/PROTOCOL.md §14.7).
@Suite struct LegacyNamesTests {
    static let s = StrokeID("S")
    static let add = #"{"type":"ADD","identifier":"S","weight":3,"colour":[255,0,0],"start":[0,0],"is_shape":false}"#
    static let append = #"{"type":"APPEND","identifier":"S","points":[[10,0],[20,0],[30,0],[40,0]]}"#
    static let remove = #"{"type":"REMOVE_STROKE","identifier":"S"}"#
    /// What the app's redo sends: the stroke as it was when undone.
    static let redo =
        #"{"type":"MEGA","data":{"S":{"points":[[0,0],[10,0],[20,0],[30,0],[40,0]],"segments":[{"start":0,"end":4}],"isShape":false,"thickness":3,"colour":[1,0,0]}}}"#
    static let erase = #"{"type":"DELETE","identifier":"S","start_offset":1.5,"end_offset":2.5}"#

    /// Reads bodies as a Canvas node reads a room's bodies, in order.
    static func read(_ bodies: [String], into replica: inout Replica) -> [Operation] {
        var stored: [Operation] = []
        for body in bodies {
            let message = try! MessageDecoder.decode(Array(body.utf8))
            for operation in replica.operationsFromBody(message) {
                let (effect, resolved) = replica.apply(operation)
                if effect.isNovel { stored.append(resolved) }
            }
        }
        return stored
    }

    static func generation(_ k: Int) -> StrokeID { StrokeID("S~\(k)") }

    @Test func theAppsRedoComesBackAsTheStrokesFirstGeneration() {
        var replica = Replica(author: "me")
        _ = Self.read([Self.add, Self.append, Self.remove, Self.redo], into: &replica)
        #expect(replica.isWhollyRemoved(Self.s))
        let first = replica.document[Self.generation(1)]
        #expect(first?.points.count == 5)
        #expect(first?.visible == IntervalSet([0...4]))
        #expect(first?.header?.colour == Colour(red: 255, green: 0, blue: 0))
    }

    @Test func laterBodiesAboutTheStrokeReachItsLiveGeneration() {
        var replica = Replica(author: "me")
        _ = Self.read([Self.add, Self.append, Self.remove, Self.redo, Self.erase], into: &replica)
        #expect(replica.document[Self.generation(1)]?.erased == IntervalSet([1.5...2.5]))
        // The app's join MEGA (everything it shows) merges into the live generation: nothing new.
        let joinMega =
            #"{"type":"MEGA","data":{"S":{"points":[[0,0],[10,0],[20,0],[30,0],[40,0]],"segments":[{"start":0,"end":1.5},{"start":2.5,"end":4}],"isShape":false,"thickness":3,"colour":[1,0,0]}}}"#
        #expect(Self.read([joinMega], into: &replica).isEmpty)
        // Undo again removes the generation; redo again makes the next one.
        _ = Self.read([Self.remove], into: &replica)
        #expect(replica.isWhollyRemoved(Self.generation(1)))
        _ = Self.read([Self.redo], into: &replica)
        #expect(replica.document[Self.generation(2)]?.visible == IntervalSet([0...4]))
        #expect(replica.document[StrokeID("S~3")] == nil)
    }

    @Test func aMegaOfAStrokeThatIsNotRemovedMergesAsBefore() {
        var replica = Replica(author: "me")
        _ = Self.read([Self.add, Self.append, Self.redo], into: &replica)
        #expect(replica.document[Self.generation(1)] == nil)
        #expect(replica.document[Self.s]?.points.count == 5)
    }

    /// Replicas reading the same bodies agree; one that only hears the translated
    /// operations (relayed over the LAN), and one that read the redo before the removal
    /// (then heard the others), end up with the same document.
    @Test func everyReplicaConvergesOnTheSameGenerations() {
        let bodies = [Self.add, Self.append, Self.remove, Self.redo, Self.erase, Self.remove, Self.redo]
        var first = Replica(author: "a")
        var second = Replica(author: "b")
        let relayed = Self.read(bodies, into: &first)
        _ = Self.read(bodies, into: &second)
        #expect(first.document == second.document)

        var lan = Replica(author: "c")
        for operation in relayed { _ = lan.apply(operation) }
        #expect(lan.document == first.document)

        var late = Replica(author: "d")
        _ = Self.read([Self.add, Self.append, Self.redo], into: &late)
        for operation in relayed.reversed() { _ = late.apply(operation) }
        #expect(late.document == first.document)
        #expect(first.document[Self.generation(2)]?.visible.isEmpty == false)
        #expect(first.isWhollyRemoved(Self.generation(1)))
    }

    @Test func aBodyNamesAGenerationByItsBaseWhileTheBaseIsRemoved() {
        var replica = Replica(author: "me")
        _ = Self.read([Self.add, Self.append, Self.remove, Self.redo], into: &replica)
        #expect(replica.bodyName(of: Self.generation(1)) == Self.s)
        #expect(replica.bodyOperation(.delete(Self.generation(1), start: 1, end: 2)) == .delete(Self.s, start: 1, end: 2))
        // Names that only look like generations keep their own.
        #expect(replica.bodyName(of: StrokeID("S~1-p1")) == StrokeID("S~1-p1"))
        _ = replica.apply(.add(StrokeID("T"), StrokeHeader(weight: 1, colour: .black, start: Point(x: 0, y: 0))))
        #expect(replica.bodyName(of: StrokeID("T~1")) == StrokeID("T~1"))
        #expect(replica.bodyName(of: StrokeID("S~01")) == StrokeID("S~01"))
    }

    /// The MEGA that catches up a late peer of the original app names the generation as the
    /// app knows it and leaves out what nothing shows (the removed stroke).
    @Test func theCatchUpMegaNamesTheLiveGenerationByItsBase() throws {
        var replica = Replica(author: "me")
        _ = Self.read([Self.add, Self.append, Self.remove, Self.redo, Self.erase], into: &replica)
        let messages = MessageEncoder.legacyMegaMessages(
            for: replica.document, maxBytes: 64_000, name: { [replica] in replica.bodyName(of: $0) })
        #expect(messages.count == 1)
        let text = String(decoding: messages[0], as: UTF8.self)
        #expect(!text.contains("S~"))
        guard case .mega(let operations) = try MessageDecoder.decode(messages[0]) else {
            Issue.record("not a MEGA: \(text)")
            return
        }
        #expect(Set(operations.map(\.strokeID)) == [Self.s])
        // Read back from a body by a replica that holds the same, it changes nothing.
        var again = replica
        #expect(Self.read([text], into: &again).isEmpty)
    }

    /// In a session, what is sent in a body (an XMPP room that may hold the app) goes by the
    /// body's names; the LAN carries the replica's own.
    @Test func aSessionNamesGenerationsByTheirBaseOnlyWhereTheAppReads() {
        var configuration = SessionConfiguration(nodeID: "me", seed: 1)
        configuration.legacyGrace = nil
        var session = RoomSession(configuration: configuration)
        let xmpp = TransportID("xmpp"), lan = TransportID("lan")
        _ = session.handle(.transportUp(xmpp, maxMessageBytes: 64_000, members: [PeerID("ipad")]), at: .zero)
        _ = session.handle(.transportUp(lan, maxMessageBytes: 1200, members: [PeerID("b")], legacyPeers: false), at: .zero)
        var relayedToLAN: [String] = []
        for body in [Self.add, Self.append, Self.remove, Self.redo] {
            let actions = session.handle(.received(Array(body.utf8), from: PeerID("ipad"), via: xmpp, carriage: .body), at: .seconds(1))
            for case .send(let bytes, .operations, _, let via, _) in actions where via == lan {
                relayedToLAN.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(relayedToLAN.contains { $0.contains(#""identifier":"S~1""#) })
        // Erasing the redone stroke here: DELETE S in the body, DELETE S~1 on the LAN.
        let erased = session.handle(.local([.delete(Self.generation(1), start: 0.5, end: 1)]), at: .seconds(2))
        var sent: [TransportID: String] = [:]
        for case .send(let bytes, .operations, _, let via, _) in erased {
            sent[via] = String(decoding: bytes, as: UTF8.self)
        }
        #expect(sent[xmpp]?.contains(#""identifier":"S""#) == true)
        #expect(sent[lan]?.contains(#""identifier":"S~1""#) == true)
    }
}
