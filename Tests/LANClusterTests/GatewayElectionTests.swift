import CanvasTestSupport
import Testing

@testable import LANCluster

@Suite struct GatewayElectionTests {
    @Test func electsTheLowestNodeIDWithAnXMPPSession() {
        let xmpp = Capabilities.hasXMPPSession
        #expect(GatewayElection.winner(among: [("b", xmpp), ("a", Capabilities()), ("c", xmpp)]) == "b")
        #expect(GatewayElection.winner(among: [("b", Capabilities()), ("a", Capabilities())]) == nil)
        #expect(GatewayElection.winner(among: []) == nil)
        #expect(
            GatewayElection.winner(among: [("Z", xmpp), ("a", xmpp), ("é", xmpp)]) == "Z", "compared as UTF-8 bytes")
    }

    @Test func isIndependentOfOrder() {
        var generator = SplitMix64(seed: announcedSeed())
        for _ in 0..<200 {
            let candidates = (0..<Int.random(in: 0...10, using: &generator)).map { index in
                (
                    nodeID: "node-\(UInt8.random(in: 0...255, using: &generator))",
                    capabilities: generator.chance(0.5) ? Capabilities.hasXMPPSession : []
                )
            }
            #expect(
                GatewayElection.winner(among: candidates)
                    == GatewayElection.winner(among: candidates.shuffled(using: &generator)))
        }
    }

    @Test func reportsOnlyChanges() {
        var election = GatewayElection()
        #expect(election.reevaluate(candidates: [("a", Capabilities())]) == nil)
        #expect(election.reevaluate(candidates: [("a", .hasXMPPSession)]) == .some("a"))
        #expect(election.reevaluate(candidates: [("a", .hasXMPPSession), ("b", .hasXMPPSession)]) == nil)
        #expect(election.reevaluate(candidates: [("b", .hasXMPPSession)]) == .some("b"))
        #expect(election.reevaluate(candidates: [("b", Capabilities())]) == .some(nil))
        #expect(election.gateway == nil)
    }

    @Test func everyNodeAgreesAndAnotherTakesOverWhenTheGatewayCrashes() throws {
        var lan = SimulatedLAN(
            nodes: try (0..<6).map {
                try ClusterNode(
                    configuration: .init(room: "sketch"), nodeID: "n\($0)", incarnation: UInt64($0), key: nil)
            },
            faults: .init(), seed: 2)
        for index in 0..<6 { lan.start(index) }
        lan.run(until: .seconds(1))
        for index in lan.nodes.indices { #expect(lan.nodes[index].gateway == nil) }
        try lan.setCapabilities(3, hasXMPPSession: true)
        try lan.setCapabilities(5, hasXMPPSession: true)
        lan.run(for: .milliseconds(50))
        for index in lan.nodes.indices {
            #expect(lan.nodes[index].gateway == "n3")
            #expect(
                lan.reports[index].filter { if case .gatewayChanged = $0 { true } else { false } }.last
                    == .gatewayChanged("n3"))
        }
        try lan.setCapabilities(1, hasXMPPSession: true)
        lan.run(for: .milliseconds(50))
        for node in lan.nodes { #expect(node.gateway == "n1", "capability changes are announced at once") }
        let crash = lan.now
        lan.attached.remove(1)
        lan.run(for: .seconds(3) + .milliseconds(100))
        for index in lan.nodes.indices where index != 1 {
            #expect(lan.nodes[index].gateway == "n3", "takeover within 3 s of the last beacon, since \(crash)")
        }
        try lan.setCapabilities(3, hasXMPPSession: false)
        lan.run(for: .milliseconds(50))
        for index in lan.nodes.indices where index != 1 { #expect(lan.nodes[index].gateway == "n5") }
    }
}

/// What every member can read, reported as members come, go and change.
@Suite struct MembersCapabilitiesTests {
    static func reported(_ actions: [ClusterAction]) -> [Capabilities] {
        actions.compactMap { if case .membersCapabilities(let capabilities) = $0 { capabilities } else { nil } }
    }

    @Test func theIntersectionFollowsTheMembersBeacons() throws {
        let compact: (inout ClusterConfiguration) -> Void = { $0.announcedCapabilities = [.compactPayloads] }
        var (me, _) = try startedNode("me", configure: compact)
        let (_, newer) = try startedNode("newer", configure: compact)
        var (older, olderStart) = try startedNode("older")
        let newerBeacon = try #require(newer.datagrams.first)
        #expect(try Datagram(decoding: newerBeacon).body == .beacon(Beacon(capabilities: [.compactPayloads], intervalMilliseconds: 1000, highestDataSequence: 0, summary: [])))
        #expect(Self.reported(me.receive(bytes: newerBeacon, now: .milliseconds(10))) == [[.compactPayloads]])
        #expect(Self.reported(me.receive(bytes: try #require(olderStart.datagrams.first), now: .milliseconds(20))) == [[]])
        // The XMPP flag of a member does not count against the others'.
        #expect(Self.reported(try older.setCapabilities(hasXMPPSession: true, summary: [], now: .milliseconds(30))).isEmpty)
        let leave = try #require(older.stop(now: .milliseconds(40)).datagrams.last)
        #expect(Self.reported(me.receive(bytes: leave, now: .milliseconds(50))) == [[.compactPayloads]])
    }

    /// Data goes in compact datagrams (version 2) while every member announces that it reads
    /// them, and in version 1 while a member of the previous version is there, which then
    /// receives it; beacons are always version 1, so that every node hears every other.
    @Test func compactDatagramsWhileEveryMemberReadsThem() throws {
        let compact: (inout ClusterConfiguration) -> Void = { $0.announcedCapabilities = [.compactHeaders] }
        var (me, myStart) = try startedNode("me", configure: compact)
        var (newer, newerStart) = try startedNode("newer", configure: compact)
        var (older, olderStart) = try startedNode("older")
        #expect(myStart.datagrams.allSatisfy { $0[4] == 1 }, "beacons in version 1")
        _ = newer.receive(bytes: try #require(myStart.datagrams.first), now: .milliseconds(10))
        _ = me.receive(bytes: try #require(newerStart.datagrams.first), now: .milliseconds(10))
        let alone = try me.send(payload: Array("among us".utf8), now: .milliseconds(20)).datagrams
        #expect(alone.count == 1 && alone[0][4] == 2)
        #expect(newer.receive(bytes: alone[0], now: .milliseconds(21)).contains(.deliver(payload: Array("among us".utf8), from: "me")))
        // What the older node makes of a version 2 datagram: nothing (it speaks version 1).
        #expect(older.receive(bytes: alone[0], now: .milliseconds(22)).isEmpty)
        #expect(older.counters.droppedMalformed == 1)

        _ = me.receive(bytes: try #require(olderStart.datagrams.first), now: .milliseconds(30))
        _ = older.receive(bytes: try #require(myStart.datagrams.first), now: .milliseconds(30))
        let mixed = try me.send(payload: Array("with an older node".utf8), now: .milliseconds(40)).datagrams
        #expect(mixed.count == 1 && mixed[0][4] == 1)
        #expect(older.receive(bytes: mixed[0], now: .milliseconds(41)).contains(.deliver(payload: Array("with an older node".utf8), from: "me")))
        #expect(newer.receive(bytes: mixed[0], now: .milliseconds(41)).contains(.deliver(payload: Array("with an older node".utf8), from: "me")))
    }
}
