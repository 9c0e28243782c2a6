import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasTestSupport
import Testing

/// Property: whatever the schedule of edits, losses, duplicates, reorderings, partitions,
/// disconnections, crashes and late joins, once the network heals and goes quiet (timers
/// still running) every replica holds the same document and every authored operation.
@Suite struct ConvergenceSimulationTests {
    /// One random history; returns the network after the quiet period.
    static func simulate(
        seed: UInt64, parameters: SimulatedNetwork.Parameters = SimulatedNetwork.Parameters(), quiet: Duration = .seconds(30)
    ) -> SimulatedNetwork {
        var choice = SplitMix64(seed: seed ^ 0x5eed)
        let nodeCount = Int.random(in: 3...5, using: &choice)
        var net = SimulatedNetwork(nodeCount: nodeCount, parameters: parameters, seed: seed)
        let lateJoiner = choice.chance(0.5) ? nodeCount - 1 : nil
        for index in 0..<nodeCount where index != lateJoiner {
            net.start(index)
        }
        var crashedUntil: [Int: Duration] = [:]
        var disconnectedUntil: [Int: Duration] = [:]
        let activeEnd = Duration.seconds(16)
        let partitionStart = Duration.seconds(10)
        var time = Duration.zero
        while time < activeEnd {
            time += .milliseconds(250)
            net.run(until: time)
            if let late = lateJoiner, time == .seconds(6) { net.start(late) }
            for (index, until) in crashedUntil where until <= time {
                crashedUntil[index] = nil
                net.start(index)
            }
            for (index, until) in disconnectedUntil where until <= time {
                disconnectedUntil[index] = nil
                net.start(index)
            }
            if time == partitionStart {
                // A long partition before the final heal: both sides draw apart for seconds.
                net.group = (0..<nodeCount).map { $0 % 2 }
                net.group.shuffle(using: &net.rng)
            } else if time > partitionStart {
                // It lasts until the heal.
            } else if net.group.allSatisfy({ $0 == 0 }) {
                if net.rng.chance(0.03) {
                    net.group = (0..<nodeCount).map { _ in net.rng.chance(0.5) ? 1 : 0 }
                }
            } else if net.rng.chance(0.08) {
                net.group = Array(repeating: 0, count: nodeCount)
            }
            for index in 0..<nodeCount {
                let session = net.nodes[index].session != nil
                if net.nodes[index].isUp, crashedUntil[index] == nil, disconnectedUntil[index] == nil {
                    if net.rng.chance(0.01) {
                        net.stop(index, crash: true)
                        crashedUntil[index] = time + .seconds(Int64.random(in: 1...5, using: &net.rng))
                        continue
                    }
                    if net.rng.chance(0.01) {
                        net.stop(index, crash: false)
                        disconnectedUntil[index] = time + .seconds(Int64.random(in: 1...5, using: &net.rng))
                    }
                }
                // Users draw while connected and while offline, not while crashed.
                if session, net.rng.chance(0.15) {
                    net.randomEdit(at: index)
                }
            }
        }
        net.group = Array(repeating: 0, count: nodeCount)
        for index in 0..<nodeCount { net.start(index) }
        var settled = activeEnd
        while settled < activeEnd + quiet {
            settled += .milliseconds(500)
            net.run(until: settled)
            if net.converged(), net.nodes.indices.allSatisfy({ net.missing(at: $0).isEmpty }) { break }
        }
        net.settledAfter = settled - activeEnd
        return net
    }

    @Test func replicasConvergeAfterTheNetworkHeals() {
        let seeds: Range<UInt64> = 0..<60
        var failures: [UInt64] = []
        var operations = 0
        for seed in seeds {
            let net = Self.simulate(seed: seed)
            operations += net.created.count
            let complete = net.nodes.indices.allSatisfy { net.missing(at: $0).isEmpty }
            if !net.converged() || !complete {
                failures.append(seed)
            }
        }
        #expect(failures.isEmpty, "replicas diverged; replay with simulate(seed:) for seeds \(failures)")
        #expect(operations > 500)
    }

    /// The same property with 30 % loss, 10 % duplication and messages of at most 512 bytes.
    @Test func replicasConvergeUnderHeavyLossAndSmallMessages() {
        var parameters = SimulatedNetwork.Parameters()
        parameters.loss = 0.3
        parameters.duplication = 0.1
        parameters.maxMessageBytes = 512
        var failures: [UInt64] = []
        for seed: UInt64 in 1000..<1015 {
            let net = Self.simulate(seed: seed, parameters: parameters)
            if !net.converged() || !net.nodes.indices.allSatisfy({ net.missing(at: $0).isEmpty }) || net.largestMessage > 512 {
                failures.append(seed)
            }
        }
        #expect(failures.isEmpty, "replicas diverged; replay with simulate(seed:parameters:) for seeds \(failures)")
    }
}
