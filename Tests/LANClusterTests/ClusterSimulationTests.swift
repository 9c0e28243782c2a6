import CanvasTestSupport
import Testing

@testable import LANCluster

@Suite struct ClusterSimulationTests {
    /// `nodes` nodes on a LAN with `faults`: each sends `payloadsPerNode` payloads of random
    /// sizes (some of several fragments) at random times; every payload must reach every
    /// other node exactly once.
    private func everyPayloadArrivesExactlyOnce(
        nodes count: Int, payloadsPerNode: Int, faults: SimulatedLAN.Faults, key: [UInt8]?, seed: UInt64
    ) throws {
        var generator = SplitMix64(seed: seed)
        let nodes = try (0..<count).map { index in
            try ClusterNode(
                configuration: .init(room: "sketch"), nodeID: "node-\(index)",
                incarnation: generator.next(), key: key)
        }
        var lan = SimulatedLAN(nodes: nodes, faults: faults, seed: generator.next())
        for index in 0..<count {
            lan.run(for: .milliseconds(Int64.random(in: 0...2, using: &generator)))
            lan.start(index)
        }
        // The property holds from the moment a node has heard a sender: what it sent before
        // is for the session's anti-entropy to recover. So every node first hears every other
        // (under loss, some members may be taken for gone for a while: that is harmless).
        func heardEveryone(_ index: Int) -> Bool {
            Set(lan.reports[index].compactMap { if case .memberJoined(let id) = $0 { id } else { nil } }).count
                == count - 1
        }
        while lan.now < .seconds(10), !(0..<count).allSatisfy(heardEveryone) { lan.run(for: .milliseconds(100)) }
        #expect((0..<count).allSatisfy(heardEveryone), "some node did not hear every other within 10 s")
        var sent: [[UInt8]] = []
        var schedule: [(Duration, Int, [UInt8])] = []
        for index in 0..<count {
            for number in 0..<payloadsPerNode {
                let size =
                    generator.chance(0.2)
                    ? Int.random(in: 1200...4000, using: &generator) : Int.random(in: 0...400, using: &generator)
                let payload = Array("\(index)/\(number):".utf8) + generator.bytes(size)
                sent.append(payload)
                schedule.append(
                    (lan.now + .milliseconds(Int64.random(in: 0...2000, using: &generator)), index, payload))
            }
        }
        for (time, index, payload) in schedule.sorted(by: { $0.0 < $1.0 }) {
            lan.run(until: time)
            try lan.send(payload, from: index)
        }
        // A repair round fails when the request or the repair is lost (36% of the time at
        // 20% loss), and retries back off to `nackRetryMaximum`: wait while requests go on
        // (16 rounds take about 25 s), stopping once every payload arrived everywhere.
        let expected = (0..<count).map { index in sent.filter { !$0.starts(with: Array("\(index)/".utf8)) } }
        let lastSent = lan.now
        while lan.now < lastSent + .seconds(30),
            lan.deliveries.indices.contains(where: { lan.deliveries[$0].count < expected[$0].count })
        {
            lan.run(for: .milliseconds(500))
        }
        print("\(count) nodes: every payload everywhere \(lan.now - lastSent) after the last was sent")

        for index in 0..<count {
            let received = lan.deliveries[index].map(\.payload)
            let expected = expected[index]
            #expect(received.count == expected.count, "node \(index): \(received.count) of \(expected.count) payloads")
            #expect(Set(received) == Set(expected), "node \(index) missed or garbled payloads")
            #expect(
                lan.deliveries[index].allSatisfy { $0.payload.starts(with: Array("\($0.from.dropFirst(5))/".utf8)) })
            #expect(lan.nodes[index].counters.lossesGivenUp == 0)
        }
        let totals = lan.nodes.map(\.counters)
        print(
            "\(count) nodes: \(totals.map(\.datagramsSent).reduce(0, +)) datagrams, "
                + "\(totals.map(\.nacksSent).reduce(0, +)) NACKs, \(totals.map(\.nacksSuppressed).reduce(0, +)) suppressed, "
                + "\(totals.map(\.repairsSent).reduce(0, +)) repairs, \(totals.map(\.droppedReplayed).reduce(0, +)) replays dropped"
        )
    }

    @Test func fiveNodesWithoutFaults() throws {
        try everyPayloadArrivesExactlyOnce(
            nodes: 5, payloadsPerNode: 20, faults: .init(), key: nil, seed: announcedSeed())
    }

    @Test func eightNodesWithLossDuplicationAndReordering() throws {
        try everyPayloadArrivesExactlyOnce(
            nodes: 8, payloadsPerNode: 30,
            faults: .init(loss: 0.2, duplication: 0.1, maximumDelay: .milliseconds(20)), key: Array("room key".utf8),
            seed: announcedSeed())
    }

    @Test func fiftyNodesWithLossDuplicationAndReordering() throws {
        try everyPayloadArrivesExactlyOnce(
            nodes: 50, payloadsPerNode: 3,
            faults: .init(loss: 0.2, duplication: 0.05, maximumDelay: .milliseconds(5)), key: Array("room key".utf8),
            seed: announcedSeed())
    }

    /// Beacons stretch in a large group: in a group of 60, each member hears about 25 a
    /// second (not 60), nobody is taken for gone meanwhile, and in a small group the
    /// interval stays the configured one.
    @Test(arguments: [(5, 1.0), (60, 60.0 / 25)]) func beaconsStretchWithTheGroup(count: Int, interval: Double) throws {
        var generator = SplitMix64(seed: announcedSeed())
        let nodes = try (0..<count).map { index in
            try ClusterNode(configuration: .init(room: "sketch"), nodeID: "node-\(index)", incarnation: generator.next(), key: nil)
        }
        var lan = SimulatedLAN(nodes: nodes, faults: .init(), seed: generator.next())
        for index in 0..<count { lan.start(index) }
        lan.run(for: .seconds(10))
        let before = lan.beaconsSent.reduce(0, +)
        lan.run(for: .seconds(60))
        let perSecond = Double(lan.beaconsSent.reduce(0, +) - before) / 60
        // Each beacon comes a little early at random (0.9–1 of the interval).
        #expect(perSecond >= Double(count) / interval * 0.95 && perSecond <= Double(count) / (interval * 0.9) * 1.05, "\(perSecond) beacons a second")
        #expect(lan.nodes.allSatisfy { abs($0.beaconInterval / .seconds(1) - interval) < 1e-9 })
        for index in 0..<count {
            #expect(lan.nodes[index].members.count == count - 1)
            #expect(!lan.reports[index].contains { if case .memberLeft = $0 { true } else { false } }, "node \(index) lost a member")
        }
    }

    /// An overloaded cluster: 20 nodes send 1,000 datagrams in one second and every node
    /// loses 30 % of what arrives (full socket buffers everywhere). Repairs, which every
    /// member receives, stay within the cluster's budget (`maxRepairsPerSecond`) instead of
    /// multiplying the traffic, and the cluster still catches up after the burst.
    @Test func anOverloadedClusterKeepsItsRepairsWithinBudgetAndCatchesUp() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let count = 20
        let configuration = ClusterConfiguration(room: "sketch")
        let nodes = try (0..<count).map {
            try ClusterNode(configuration: configuration, nodeID: "node-\($0)", incarnation: generator.next(), key: nil)
        }
        var lan = SimulatedLAN(nodes: nodes, faults: .init(), seed: generator.next())
        for index in 0..<count { lan.start(index) }
        lan.run(for: .seconds(4))
        lan.faults.loss = 0.3
        let start = lan.now
        var sent: [[UInt8]] = []
        for number in 0..<1000 {
            lan.run(until: start + .milliseconds(number))
            let payload = Array("\(number % count)/\(number):".utf8) + generator.bytes(200)
            sent.append(payload)
            try lan.send(payload, from: number % count)
        }
        lan.run(until: start + .seconds(2))
        let repairsInTwoSeconds = lan.nodes.map(\.counters.repairsSent).reduce(0, +)
        // The budget's rate for two seconds plus one second's worth saved up.
        #expect(repairsInTwoSeconds <= configuration.maxRepairsPerSecond * 3, "\(repairsInTwoSeconds) repairs")
        #expect(lan.nodes.map(\.counters.repairsThrottled).reduce(0, +) > 0, "the budget was reached")
        // The load over, losses stop: the cluster catches up within the retries.
        lan.faults.loss = 0
        let expected = (0..<count).map { index in sent.filter { !$0.starts(with: Array("\(index)/".utf8)) } }
        while lan.now < start + .seconds(40), lan.deliveries.indices.contains(where: { lan.deliveries[$0].count < expected[$0].count }) {
            lan.run(for: .milliseconds(500))
        }
        for index in 0..<count {
            #expect(Set(lan.deliveries[index].map(\.payload)) == Set(expected[index]), "node \(index)")
        }
        let totals = lan.nodes.map(\.counters)
        print(
            "overload: every payload everywhere \(lan.now - start) after the burst; "
                + "\(totals.map(\.repairsSent).reduce(0, +)) repairs (\(repairsInTwoSeconds) in the first 2 s), "
                + "\(totals.map(\.repairsThrottled).reduce(0, +)) throttled, \(totals.map(\.nacksSent).reduce(0, +)) NACKs")
    }

    /// An attacker on the LAN replays every datagram it captured and forges others: nothing
    /// is delivered twice, nothing forged is delivered, and both are counted.
    @Test func replayedAndSpoofedDatagramsAreRejected() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let key = Array("room key".utf8)
        let nodes = try (0..<3).map {
            try ClusterNode(configuration: .init(room: "sketch"), nodeID: "n\($0)", incarnation: UInt64($0), key: key)
        }
        var lan = SimulatedLAN(nodes: nodes, faults: .init(), seed: generator.next())
        for index in 0..<3 { lan.start(index) }
        lan.run(for: .seconds(1))
        var captured: [[UInt8]] = []
        for number in 0..<10 {
            var copy = lan.nodes[0]
            captured += (try copy.send(payload: [UInt8(number)], now: lan.now)).datagrams
            try lan.send([UInt8(number)], from: 0)
        }
        lan.run(for: .seconds(1))
        for bytes in captured { lan.inject(bytes) }
        let inner = try Datagram(
            room: "sketch", sender: "n0", incarnation: 0, sequence: 1_000,
            body: .data(DataFragment(dataSequence: 500, index: 0, count: 1, chunk: [0xEE]))
        ).encoded(key: nil)
        let forged = try #require(
            DatagramSealer(key: try RoomKey(Array("guessed key".utf8)), room: "sketch")
                .seal(inner, sender: "n0", incarnation: 0, sequence: 1_000))
        lan.inject(forged)
        lan.run(for: .seconds(1))
        for index in 1..<3 {
            #expect(lan.deliveries[index].map(\.payload).sorted { $0[0] < $1[0] } == (0..<10).map { [UInt8($0)] })
            #expect(lan.nodes[index].counters.droppedReplayed == 10)
            #expect(lan.nodes[index].counters.droppedUnauthenticated == 1)
        }
    }
}
