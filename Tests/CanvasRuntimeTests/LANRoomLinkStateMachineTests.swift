import CanvasNode
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
        guard actions.count == 3, case .event(.lanStarted("board", "multicast")) = actions[0],
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
}
