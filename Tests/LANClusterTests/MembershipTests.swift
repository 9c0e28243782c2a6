import Testing

@testable import LANCluster

private func beacon(_ capabilities: Capabilities = [], intervalMilliseconds: UInt32 = 1000) -> Beacon {
    Beacon(capabilities: capabilities, intervalMilliseconds: intervalMilliseconds, highestDataSequence: 0, summary: [9])
}

@Suite struct MembershipTests {
    private var membership = Membership(selfID: "me", defaultBeaconInterval: .seconds(1), missedBeaconsBeforeLeaving: 3)

    @Test mutating func joinsOnFirstDatagramAndLeavesAfterThreeMissedBeacons() {
        #expect(membership.heard(from: "a", incarnation: 1, beacon: beacon(), now: .zero) == [.joined("a")])
        #expect(membership.heard(from: "a", incarnation: 1, beacon: beacon(), now: .seconds(1)).isEmpty)
        #expect(membership.heard(from: "b", incarnation: 1, beacon: nil, now: .seconds(1)) == [.joined("b")])
        #expect(membership.heard(from: "me", incarnation: 1, beacon: beacon(), now: .seconds(1)).isEmpty)
        // A bound: "a" expired first at 3 s until heard again, and no pass looked since.
        #expect(membership.nextExpiry == .seconds(3))
        #expect(membership.expire(now: .milliseconds(3999)).isEmpty)
        #expect(membership.nextExpiry == .seconds(4), "exact once the bound was reached and the members looked over")
        #expect(membership.expire(now: .seconds(4)) == [.left("a"), .left("b")])
        #expect(membership.members.isEmpty)
        #expect(membership.nextExpiry == nil)
    }

    @Test mutating func usesEachMembersAnnouncedInterval() {
        _ = membership.heard(from: "slow", incarnation: 1, beacon: beacon(intervalMilliseconds: 5000), now: .zero)
        _ = membership.heard(from: "fast", incarnation: 1, beacon: beacon(intervalMilliseconds: 100), now: .zero)
        #expect(membership.expire(now: .milliseconds(300)) == [.left("fast")])
        #expect(membership.expire(now: .milliseconds(14_999)).isEmpty)
        #expect(membership.expire(now: .seconds(15)) == [.left("slow")])
    }

    @Test mutating func reportsCapabilityChangesAndRestarts() {
        _ = membership.heard(from: "a", incarnation: 1, beacon: nil, now: .zero)
        #expect(membership.members["a"]?.capabilities == [])
        #expect(
            membership.heard(from: "a", incarnation: 1, beacon: beacon(.hasXMPPSession), now: .zero) == [
                .capabilitiesChanged("a")
            ])
        #expect(membership.members["a"]?.summary == [9])
        #expect(membership.heard(from: "a", incarnation: 2, beacon: nil, now: .zero) == [.left("a"), .joined("a")])
        #expect(membership.members["a"]?.capabilities == [], "a restarted node announces its capabilities again")
    }

    @Test mutating func timeThisNodeDidNotListenDoesNotCountAsSilence() {
        _ = membership.heard(from: "a", incarnation: 1, beacon: beacon(), now: .zero)
        membership.excuse(.seconds(2))
        #expect(membership.nextExpiry == .seconds(5))
        membership.excuse(.seconds(4))
        #expect(membership.nextExpiry == .seconds(9))
        #expect(membership.expire(now: .milliseconds(8999)).isEmpty)
        #expect(membership.expire(now: .seconds(9)) == [.left("a")])
    }

    @Test mutating func hearingFromAMemberEndsItsExcuse() {
        _ = membership.heard(from: "a", incarnation: 1, beacon: beacon(), now: .zero)
        membership.excuse(.seconds(3))
        _ = membership.heard(from: "a", incarnation: 1, beacon: nil, now: .seconds(5))
        #expect(membership.nextExpiry == .seconds(6), "the excused expiry, a bound until looked at again")
        #expect(membership.expire(now: .seconds(6)).isEmpty)
        #expect(membership.nextExpiry == .seconds(8))
        // A datagram read late, stamped before the last one, changes nothing.
        _ = membership.heard(from: "a", incarnation: 1, beacon: nil, now: .seconds(4))
        #expect(membership.nextExpiry == .seconds(8))
    }

    /// Over random schedules of datagrams (some beacons with other intervals), restarts,
    /// goodbyes, excuses and expiry passes: `nextExpiry` is never later than the first
    /// member's expiry (a timer set by it is never late), and `expire(now:)` removes exactly
    /// the members silent too long, as a pass over all of them would.
    @Test(arguments: 0..<40) func theExpiryBoundIsNeverLateAndExpiryIsExact(seed: UInt64) {
        var membership = Membership(selfID: "me", defaultBeaconInterval: .seconds(1), missedBeaconsBeforeLeaving: 3)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        var now = Duration.zero
        for _ in 0..<400 {
            now += .milliseconds(Int64(next(400)))
            let node = "n\(next(6))"
            switch next(10) {
            case 0:
                membership.excuse(.milliseconds(Int64(next(2000))))
            case 1:
                let expected = membership.members.values.filter {
                    $0.lastHeard + $0.excused + $0.beaconInterval * 3 <= now
                }.map(\.nodeID).sorted()
                #expect(membership.expire(now: now) == expected.map { .left($0) }, "seed \(seed)")
            case 2:
                _ = membership.leave(node, incarnation: membership.members[node]?.incarnation ?? 0)
            default:
                let interval = UInt32([250, 1000, 3000][Int(next(3))])
                let sent = next(3) == 0 ? beacon(intervalMilliseconds: interval) : nil
                _ = membership.heard(from: node, incarnation: next(8) == 0 ? 2 : 1, beacon: sent, now: now)
            }
            let first = membership.members.values.map { $0.lastHeard + $0.excused + $0.beaconInterval * 3 }.min()
            if let first {
                #expect(membership.nextExpiry.map { $0 <= first } == true, "seed \(seed): bound \(String(describing: membership.nextExpiry)) after \(first)")
            }
        }
    }

    @Test mutating func leavesOnGoodbyeOfTheCurrentIncarnationOnly() {
        _ = membership.heard(from: "a", incarnation: 2, beacon: nil, now: .zero)
        #expect(membership.leave("a", incarnation: 1).isEmpty)
        #expect(membership.leave("a", incarnation: 2) == [.left("a")])
    }
}

@Suite struct ClusterMembershipTests {
    @Test func nodesDiscoverEachOtherAndNoticeACrash() throws {
        var lan = SimulatedLAN(
            nodes: try (0..<5).map {
                try ClusterNode(
                    configuration: .init(room: "sketch"), nodeID: "n\($0)", incarnation: UInt64($0), key: nil)
            },
            faults: .init(), seed: 1)
        for index in 0..<5 { lan.start(index) }
        lan.run(until: .milliseconds(500))
        for node in lan.nodes {
            #expect(node.members.count == 4, "a join hastens the beacons: discovery in well under an interval")
        }
        lan.attached.remove(4)
        lan.run(until: .milliseconds(2900))
        for index in 0..<4 { #expect(!lan.reports[index].contains(.memberLeft("n4"))) }
        lan.run(until: .milliseconds(3500))
        for index in 0..<4 {
            #expect(lan.reports[index].filter { $0 == .memberLeft("n4") }.count == 1)
            #expect(lan.nodes[index].members.map(\.nodeID) == (0..<4).filter { $0 != index }.map { "n\($0)" })
        }
    }

    /// A process starved of CPU runs its timer late, possibly before it reads what members
    /// sent meanwhile: they must not seem gone. A member that is gone still leaves.
    @Test func aLateTickDoesNotTakeMembersForGone() throws {
        var (a, aStart) = try startedNode("a")
        var (b, bStart) = try startedNode("b")
        var actions = aStart
        for bytes in bStart.datagrams { actions += a.receive(bytes: bytes, now: .zero) }
        #expect(a.members.map(\.nodeID) == ["b"])
        let requested = try #require(actions.lastTick)
        #expect(requested < .seconds(1))
        // The tick comes 5 s late (b's timeout is 3 s); b's beacons of those seconds are read
        // after it.
        actions = a.tick(now: .seconds(5))
        #expect(actions.reports.isEmpty, "b taken for gone after a late tick")
        var due = actions.lastTick
        let beacons = b.tick(now: .seconds(5)).datagrams
        #expect(!beacons.isEmpty)
        for bytes in beacons { due = a.receive(bytes: bytes, now: .seconds(5)).lastTick ?? due }
        #expect(a.members.map(\.nodeID) == ["b"])
        // Then b is silent, and a runs on time: b leaves 3 s after it was last heard.
        var leftAt: Duration?
        while leftAt == nil, let now = due, now <= .seconds(20) {
            actions = a.tick(now: now)
            if actions.reports.contains(.memberLeft("b")) { leftAt = now }
            due = actions.lastTick
        }
        #expect(leftAt == .seconds(8))
    }

    /// While the driver does not read the socket (its consumer is behind), members are not
    /// taken for gone; after it resumes, a silent member leaves once a has listened for the
    /// timeout.
    @Test func membersStayWhileListeningIsPaused() throws {
        var (a, aStart) = try startedNode("a")
        let (_, bStart) = try startedNode("b")
        var due = aStart.lastTick
        for bytes in bStart.datagrams { due = a.receive(bytes: bytes, now: .zero).lastTick ?? due }
        /// Runs a's ticks, on time, up to `end`; returns when b left, if it did.
        func run(until end: Duration) -> Duration? {
            while let now = due, now <= end {
                let actions = a.tick(now: now)
                due = actions.lastTick ?? due
                if actions.reports.contains(.memberLeft("b")) { return now }
            }
            return nil
        }
        #expect(run(until: .seconds(1)) == nil)
        due = a.pauseListening(now: .seconds(1)).lastTick ?? due
        #expect(a.pauseListening(now: .seconds(1)).isEmpty, "pausing twice does nothing")
        #expect(run(until: .seconds(30)) == nil, "b taken for gone while a did not listen")
        #expect(a.members.map(\.nodeID) == ["b"])
        // Resumed at 30 s: b, silent since 0 s while a listened for 1 s, leaves after 2 more.
        due = a.resumeListening(now: .seconds(30)).lastTick ?? due
        #expect(run(until: .seconds(60)) == .seconds(32))
    }

    @Test func aGoodbyeIsSeenAtOnce() throws {
        var (a, _) = try startedNode("a")
        var (b, bStart) = try startedNode("b")
        for bytes in bStart.datagrams { _ = a.receive(bytes: bytes, now: .zero) }
        #expect(a.members.map(\.nodeID) == ["b"])
        let goodbye = b.stop(now: .milliseconds(10))
        let actions = goodbye.datagrams.flatMap { a.receive(bytes: $0, now: .milliseconds(10)) }
        #expect(actions.reports == [.memberLeft("b")])
        #expect(throws: ClusterError(.notRunning, "")) { try b.send(payload: [1], now: .seconds(1)) }
    }

    @Test func ignoresOtherRooms() throws {
        var (a, _) = try startedNode("a")
        var (b, bStart) = try startedNode("b") { $0.room = "another room" }
        for bytes in bStart.datagrams + (try b.send(payload: [1], now: .zero)).datagrams {
            #expect(a.receive(bytes: bytes, now: .zero).isEmpty)
        }
        #expect(a.counters.droppedOtherRoom == 2)
        #expect(a.members.isEmpty)
    }

    @Test func refusesInvalidSettingsWithActionableMessages() {
        var configuration = ClusterConfiguration(room: "sketch")
        configuration.maxDatagramBytes = 100
        #expect(throws: ClusterError(.invalidConfiguration, "")) {
            try ClusterNode(configuration: configuration, nodeID: "a", incarnation: 1, key: nil)
        }
        #expect(throws: ClusterError(.invalidNodeID, "")) {
            try ClusterNode(configuration: .init(room: "sketch"), nodeID: "", incarnation: 1, key: nil)
        }
        #expect(throws: ClusterError(.invalidKey, "")) {
            try ClusterNode(configuration: .init(room: "sketch"), nodeID: "a", incarnation: 1, key: [])
        }
        do {
            _ = try ClusterNode(configuration: configuration, nodeID: "a", incarnation: 1, key: nil)
        } catch {
            #expect(error.description == "invalid cluster configuration: maxDatagramBytes 100; expected 1024...65507")
        }
    }

    @Test func refusesOversizedPayloadsAndSummaries() throws {
        var (node, _) = try startedNode("a") { $0.maxPayloadBytes = 10 }
        #expect(throws: ClusterError(.payloadTooLarge, "")) {
            try node.send(payload: Array(repeating: 0, count: 11), now: .zero)
        }
        #expect(throws: ClusterError(.summaryTooLarge, "")) {
            try node.setCapabilities(hasXMPPSession: false, summary: Array(repeating: 0, count: 1200), now: .zero)
        }
        let fits = 1200 - (Datagram.headerOverhead + "sketch".utf8.count + 1) - Datagram.beaconOverhead
        let actions = try node.setCapabilities(
            hasXMPPSession: true, summary: Array(repeating: 0, count: fits), now: .zero)
        #expect(actions.datagrams.map(\.count) == [1200])
    }
}
