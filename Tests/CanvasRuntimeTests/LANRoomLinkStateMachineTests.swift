import CanvasNode
import CanvasProtocol
import LANCluster
import Testing

@testable import CanvasRuntime

/// The LAN link's decisions without sockets: what the session hears, what the beacons
/// announce and when, and the gateway the cluster elected.
@Suite struct LANRoomLinkStateMachineTests {
    typealias Machine = LANRoomLinkStateMachine

    static func announcements(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { if case .announce(let xmpp, let summary) = $0 { "\(xmpp) \(summary)" } else { nil } }
    }

    @Test func startingBringsTheTransportUpWithoutLegacyPeersAndAnnounces() {
        var machine = Machine(room: "board", nodeID: "me")
        let actions = machine.started(transport: "multicast", members: ["a", "b"], root: "r1")
        guard actions.count == 4, case .event(.lanStarted("board", "multicast")) = actions[0],
            case .session(.transportUp(let id, let size, let members, let legacy)) = actions[1]
        else {
            Issue.record("unexpected actions \(actions)")
            return
        }
        #expect(id == Machine.transportID && size == Machine.maxMessageBytes)
        #expect(members == [PeerID("a"), PeerID("b")] && !legacy)
        #expect(Self.announcements(actions) == ["false r1"])
    }

    @Test func clusterEventsBecomeSessionInputs() {
        var machine = Machine(room: "board", nodeID: "me")
        guard case .session(.received(let bytes, let from, _, .canvas)) = machine.handle(.delivered([ClusterDelivery(payload: [1, 2], from: "a")])).first,
            case .session(.memberJoined(let joined, _)) = machine.handle(.memberJoined("b")).first,
            case .session(.memberLeft(let left, _)) = machine.handle(.memberLeft("b")).first
        else {
            Issue.record("a cluster event did not reach the session")
            return
        }
        #expect(bytes == [1, 2] && from == PeerID("a") && joined == PeerID("b") && left == PeerID("b"))
    }

    @Test func theBeaconsFollowTheDigestAndTheXMPPSession() {
        var machine = Machine(room: "board", nodeID: "me")
        _ = machine.started(transport: "multicast", members: [], root: "r1")
        #expect(machine.tick(root: "r1").isEmpty)
        #expect(Self.announcements(machine.tick(root: "r2")) == ["false r2"])
        #expect(machine.tick(root: "r2").isEmpty)
        #expect(Self.announcements(machine.setXMPPSession(true, root: "r2")) == ["true r2"])
        #expect(machine.setXMPPSession(true, root: "r2").isEmpty)
        #expect(Self.announcements(machine.setXMPPSession(false, root: "r3")) == ["false r3"])
        #expect(machine.tick(root: "r3").isEmpty)
    }

    @Test func theElectionIsTrackedAndReported() {
        var machine = Machine(room: "board", nodeID: "me")
        #expect(machine.gateway == nil && !machine.isGateway)
        guard case .event(.gateway("board", "other")) = machine.handle(.gatewayChanged("other")).first else {
            Issue.record("no gateway event")
            return
        }
        #expect(machine.gateway == "other" && !machine.isGateway)
        _ = machine.handle(.gatewayChanged("me"))
        #expect(machine.isGateway)
        _ = machine.handle(.gatewayChanged(nil))
        #expect(machine.gateway == nil && !machine.isGateway)
    }

    @Test func compactPayloadsOnlyWhileEveryMemberReadsThem() {
        var machine = Machine(room: "board", nodeID: "me")
        func compact(_ actions: [Machine.Action]) -> [Bool] {
            actions.compactMap { if case .session(.compactOperations(let on, _)) = $0 { on } else { nil } }
        }
        #expect(compact(machine.started(transport: "multicast", members: [], root: "r")) == [true])
        #expect(compact(machine.handle(.membersCapabilities([.hasXMPPSession]))) == [false] && !machine.compactPayloads)
        #expect(compact(machine.handle(.membersCapabilities([]))).isEmpty, "only changes are told")
        #expect(compact(machine.handle(.membersCapabilities([.compactPayloads]))) == [true] && machine.compactPayloads)
    }

    @Test func packedPayloadsReachTheSessionAsTheirMessagesAndDamagedOnesAreReported() {
        var machine = Machine(room: "board", nodeID: "me")
        let packed = PackedPayload.pack([[1, 1, 0x61], Array("{}".utf8), [4, 1, 0x62]], maxBytes: 1000)
        #expect(packed.count == 1)
        let actions = machine.handle(
            .delivered([ClusterDelivery(payload: packed[0], from: "a"), ClusterDelivery(payload: [0, 9, 1], from: "b"),
                ClusterDelivery(payload: [4, 1, 0x63], from: "c")]))
        guard actions.count == 2, case .event(.rejected("board", "b", "lan", let error)) = actions[0],
            case .session(.receivedAll(let messages, _, .canvas)) = actions[1]
        else {
            Issue.record("unexpected actions \(actions)")
            return
        }
        #expect(error.contains("payload[0]"))
        #expect(messages.map(\.bytes) == [[1, 1, 0x61], Array("{}".utf8), [4, 1, 0x62], [4, 1, 0x63]])
        #expect(messages.map(\.from.rawValue) == ["a", "a", "a", "c"])
    }

    @Test func aNodeStandingInForThePreviousVersionSendsJSONAndRefusesCompactPayloads() {
        var machine = Machine(room: "board", nodeID: "old", readsCompactPayloads: false)
        let started = machine.started(transport: "multicast", members: [], root: "r")
        #expect(started.contains { if case .session(.compactOperations(false, _)) = $0 { true } else { false } })
        #expect(machine.handle(.membersCapabilities([.compactPayloads])).isEmpty && !machine.compactPayloads)
        let actions = machine.handle(
            .delivered([ClusterDelivery(payload: [4, 1, 0x61], from: "a"), ClusterDelivery(payload: Array(#"{"type":"X"}"#.utf8), from: "b")]))
        guard actions.count == 2, case .event(.rejected(_, "a", _, let error)) = actions[0],
            case .session(.receivedAll(let messages, _, _)) = actions[1]
        else {
            Issue.record("unexpected actions \(actions)")
            return
        }
        #expect(error.contains("not a JSON message"))
        #expect(messages.map(\.from.rawValue) == ["b"])
        let single = machine.handle(.delivered([ClusterDelivery(payload: [4, 1, 0x61], from: "a")]))
        #expect(single.count == 1 && { if case .event(.rejected) = single[0] { true } else { false } }())
    }
}
