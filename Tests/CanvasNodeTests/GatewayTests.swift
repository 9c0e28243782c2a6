import CanvasCore
import CanvasNode
import Testing

/// Two rooms joined by a gateway session attached to both (LAN ⇄ XMPP): operations cross
/// once, never loop, and offline work on either side reaches the other through
/// anti-entropy on one room and relaying by the gateway.
@Suite struct GatewayTests {
    static let lan = TransportID("lan")
    static let xmpp = TransportID("xmpp")

    /// Sessions wired to rooms with in-order, lossless delivery after `latency`.
    struct Rooms {
        var sessions: [String: RoomSession] = [:]
        var rooms: [TransportID: [String]] = [:]
        var up: [TransportID: Set<String>] = [:]
        var queue: [(at: Duration, node: String, input: SessionInput)] = []
        var timers: [String: Duration] = [:]
        var now = Duration.zero
        var delivered = 0
        var syncEvents: [String: [String]] = [:]
        /// Whether the LAN's members all read compact operations (PROTOCOL.md §15).
        var compactLAN = false
        /// How long a message takes (in order, no loss).
        var latency: Duration = .milliseconds(10)
        /// The first byte of every message that carried operations, by transport.
        var operationFirstBytes: [TransportID: Set<UInt8>] = [:]

        mutating func add(
            _ node: String, to transports: [TransportID], configure: (inout SessionConfiguration) -> Void = { _ in }
        ) {
            var configuration = SessionConfiguration(nodeID: node, seed: UInt64(node.utf8.first!))
            configuration.announceInterval = .seconds(1)
            configure(&configuration)
            sessions[node] = RoomSession(configuration: configuration)
            for transport in transports { rooms[transport, default: []].append(node) }
        }

        mutating func connect(_ node: String, _ transport: TransportID) {
            let members = Set(up[transport, default: []].map(PeerID.init))
            up[transport, default: []].insert(node)
            input(.transportUp(transport, maxMessageBytes: 1200, members: members), to: node)
            if transport == GatewayTests.lan, compactLAN { input(.compactOperations(true, via: transport), to: node) }
            for other in up[transport]! where other != node {
                input(.memberJoined(PeerID(node), via: transport), to: other)
            }
        }

        mutating func disconnect(_ node: String, _ transport: TransportID) {
            up[transport]!.remove(node)
            input(.transportDown(transport), to: node)
            for other in up[transport]! {
                input(.memberLeft(PeerID(node), via: transport), to: other)
            }
        }

        mutating func input(_ input: SessionInput, to node: String) {
            for action in sessions[node]!.handle(input, at: now) {
                switch action {
                case .send(let bytes, let kind, let destination, let transport, let id):
                    if kind != .sync, let first = bytes.first { operationFirstBytes[transport, default: []].insert(first) }
                    let targets: [String]
                    switch destination {
                    case .room: targets = up[transport, default: []].filter { $0 != node }.sorted()
                    case .peer(let peer): targets = [peer.rawValue]
                    }
                    for target in targets where up[transport, default: []].contains(target) {
                        queue.append((now + latency, target, .received(bytes, from: PeerID(node), via: transport)))
                    }
                    if let id { queue.append((now, node, .accepted(id, via: transport))) }
                case .scheduleTimer(let at):
                    timers[node] = at
                case .event(.syncStarted(let peer, _)):
                    syncEvents[node, default: []].append("started \(peer)")
                case .event(.syncFinished(let peer, _)):
                    syncEvents[node, default: []].append("finished \(peer)")
                default:
                    break
                }
            }
        }

        mutating func run(until time: Duration) {
            while now < time {
                if let index = queue.indices.min(by: { queue[$0].at < queue[$1].at }), queue[index].at <= time {
                    let next = queue.remove(at: index)
                    fireTimers(before: next.at)
                    now = max(now, next.at)
                    delivered += 1
                    input(next.input, to: next.node)
                } else if let timer = timers.filter({ $0.value <= time }).min(by: { $0.value < $1.value }) {
                    now = max(now, timer.value)
                    timers[timer.key] = nil
                    input(.timer, to: timer.key)
                } else {
                    now = time
                }
            }
        }

        private mutating func fireTimers(before time: Duration) {
            while let timer = timers.filter({ $0.value < time }).min(by: { $0.value < $1.value }) {
                now = max(now, timer.value)
                timers[timer.key] = nil
                input(.timer, to: timer.key)
            }
        }
    }

    static func stroke(_ id: String, points: Int) -> [Operation] {
        let header = StrokeHeader(weight: 2, colour: .black, start: Point(x: 0, y: 0))
        return [.add(StrokeID(id), header), .append(StrokeID(id), points: (1...points).map { Point(x: Double($0), y: 1) }, offset: 1)]
    }

    @Test(arguments: [false, true])
    func operationsCrossTheGatewayOnceAndOfflineWorkArrives(compactLAN: Bool) {
        var rooms = Rooms()
        rooms.compactLAN = compactLAN
        rooms.add("a", to: [Self.lan])
        rooms.add("gw", to: [Self.lan, Self.xmpp])
        rooms.add("b", to: [Self.xmpp])
        rooms.add("c", to: [Self.xmpp])
        for (node, transport) in [("a", Self.lan), ("gw", Self.lan), ("gw", Self.xmpp), ("b", Self.xmpp), ("c", Self.xmpp)] {
            rooms.connect(node, transport)
        }
        rooms.run(until: .seconds(2))
        rooms.input(.local(Self.stroke("a_1", points: 30)), to: "a")
        rooms.run(until: .seconds(3))
        #expect(rooms.sessions["b"]!.document[StrokeID("a_1")]?.points.count == 31)
        let quiet = rooms.delivered
        rooms.run(until: .seconds(4))
        // Only summaries travel once everyone agrees: no operation loops between the rooms.
        #expect(rooms.delivered - quiet < 20)

        // b draws offline; a draws meanwhile; both reach everyone after b reconnects.
        rooms.disconnect("b", Self.xmpp)
        rooms.input(.local(Self.stroke("b_1", points: 12)), to: "b")
        rooms.input(.local(Self.stroke("a_2", points: 5)), to: "a")
        rooms.run(until: .seconds(6))
        rooms.connect("b", Self.xmpp)
        rooms.run(until: .seconds(10))
        let digests = Set(rooms.sessions.values.map(\.document.digest))
        #expect(digests.count == 1)
        #expect(rooms.sessions["a"]!.document[StrokeID("b_1")]?.points.count == 13)
        #expect(rooms.sessions["b"]!.document[StrokeID("a_2")]?.points.count == 6)
        // Whoever exchanged stroke summaries with b saw the exchange start and finish.
        let exchanges = rooms.syncEvents.values.flatMap { $0 }
        #expect(exchanges.contains("started b") || exchanges.contains("started gw") || exchanges.contains("started c"))
        #expect(exchanges.filter { $0.hasPrefix("started") }.count == exchanges.filter { $0.hasPrefix("finished") }.count)
        // Compact operations on the LAN only; the XMPP room always gets JSON.
        #expect(rooms.operationFirstBytes[Self.xmpp] == [UInt8(ascii: "{")])
        #expect(rooms.operationFirstBytes[Self.lan] == (compactLAN ? [1, 2] : [UInt8(ascii: "{")]))
    }
}
