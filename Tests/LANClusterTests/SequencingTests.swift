import CanvasTestSupport
import Testing

@testable import LANCluster

private let configuration: ClusterConfiguration = {
    var configuration = ClusterConfiguration(room: "sketch")
    configuration.nackAttempts = 3
    return configuration
}()

private func fragment(_ sequence: UInt64, index: UInt16 = 0, count: UInt16 = 1, _ chunk: [UInt8] = []) -> DataFragment {
    DataFragment(dataSequence: sequence, index: index, count: count, chunk: chunk)
}

@Suite struct InboundStreamTests {
    private var stream = InboundStream(after: 0)
    private var random = SplitMix64(seed: 3)

    @Test mutating func deliversInAnyOrderExactlyOnce() {
        for sequence: UInt64 in [3, 1, 2, 3, 1] {
            let outcome = stream.receive(
                fragment(sequence, [UInt8(sequence)]), now: .zero, configuration: configuration, random: &random)
            #expect(
                outcome
                    == (stream.watermark >= sequence && sequence != 3 || outcome == .duplicate
                        ? outcome : .accepted(payload: [UInt8(sequence)])))
        }
        #expect(stream.watermark == 3)
        #expect(stream.losses.isEmpty)
        #expect(stream.receive(fragment(2), now: .zero, configuration: configuration, random: &random) == .duplicate)
    }

    @Test mutating func reassemblesFragmentsInAnyOrder() {
        let parts: [(UInt16, [UInt8])] = [(2, [5, 6]), (0, [1, 2]), (1, [3, 4])]
        var outcomes: [InboundStream.FragmentOutcome] = []
        for (index, chunk) in parts {
            outcomes.append(
                stream.receive(
                    fragment(11 + UInt64(index), index: index, count: 3, chunk), now: .zero,
                    configuration: configuration, random: &random))
        }
        #expect(
            outcomes == [.accepted(payload: nil), .accepted(payload: nil), .accepted(payload: [1, 2, 3, 4, 5, 6])])
        #expect(stream.partialBytes == 0)
        #expect(stream.losses.keys.sorted() == Array(1...10), "everything before the payload is missing")
    }

    @Test mutating func abandonsInconsistentAndStaleReassemblies() {
        _ = stream.receive(
            fragment(1, index: 0, count: 3, [1]), now: .zero, configuration: configuration, random: &random)
        #expect(
            stream.receive(
                fragment(2, index: 1, count: 4, [2]), now: .zero, configuration: configuration, random: &random)
                == .inconsistent)
        #expect(stream.partial.isEmpty)
        _ = stream.receive(
            fragment(10, index: 0, count: 2, [1]), now: .seconds(1), configuration: configuration, random: &random)
        #expect(stream.expireReassembly(now: .seconds(30), timeout: .seconds(30)) == 0)
        #expect(stream.expireReassembly(now: .seconds(31), timeout: .seconds(30)) == 1)
        #expect(stream.partialBytes == 0)
    }

    @Test mutating func requestsGapsAfterTheSuppressionDelayThenRetriesWithBackoffThenGivesUp() {
        _ = stream.receive(fragment(1), now: .zero, configuration: configuration, random: &random)
        _ = stream.receive(fragment(4), now: .zero, configuration: configuration, random: &random)
        stream.learnHighest(7, now: .zero, configuration: configuration, random: &random)
        #expect(stream.losses.keys.sorted() == [2, 3, 5, 6, 7])
        #expect(stream.dueRequests(now: .milliseconds(9), configuration: configuration, random: &random).isEmpty)
        let first = stream.nextDeadline(reassemblyTimeout: .seconds(30))!
        #expect(first >= .milliseconds(10) && first <= .milliseconds(20))
        #expect(
            stream.dueRequests(now: .milliseconds(20), configuration: configuration, random: &random) == [2...3, 5...7])
        #expect(
            stream.dueRequests(now: .milliseconds(119), configuration: configuration, random: &random).isEmpty,
            "waits for the repair")
        _ = stream.receive(fragment(6), now: .milliseconds(50), configuration: configuration, random: &random)
        #expect(
            stream.dueRequests(now: .milliseconds(120), configuration: configuration, random: &random).isEmpty,
            "suppression delay again")
        #expect(
            stream.dueRequests(now: .milliseconds(140), configuration: configuration, random: &random) == [
                2...3, 5...5, 7...7,
            ])
        #expect(stream.losses[2]!.due == .milliseconds(340), "the second wait is twice as long")
        #expect(stream.dueRequests(now: .milliseconds(340), configuration: configuration, random: &random).isEmpty)
        #expect(stream.dueRequests(now: .milliseconds(360), configuration: configuration, random: &random).count == 3)
        #expect(stream.dueRequests(now: .seconds(1), configuration: configuration, random: &random).isEmpty)
        #expect(
            stream.dueRequests(now: .seconds(2), configuration: configuration, random: &random).isEmpty,
            "three attempts, then given up")
        #expect(stream.losses.isEmpty)
        #expect(stream.takeGivenUp() == 4)
        #expect(stream.watermark == 7)
    }

    @Test mutating func anotherMembersRequestSuppressesOurs() {
        stream.learnHighest(5, now: .zero, configuration: configuration, random: &random)
        let first = stream.heardRequest(for: [2...3, 9...20], now: .milliseconds(5), configuration: configuration)
        let again = stream.heardRequest(for: [2...3], now: .milliseconds(6), configuration: configuration)
        #expect(first)
        #expect(!again, "already waiting")
        #expect(
            stream.dueRequests(now: .milliseconds(20), configuration: configuration, random: &random) == [1...1, 4...5])
        #expect(stream.losses[2]!.attempts == 1)
    }

    @Test mutating func givesUpLossesBeyondTheTrackingWindow() {
        var small = configuration
        small.lossTrackingWindow = 100
        stream.learnHighest(50, now: .zero, configuration: small, random: &random)
        _ = stream.receive(fragment(1_000_000), now: .zero, configuration: small, random: &random)
        #expect(stream.losses.count == 99)
        #expect(stream.watermark == 1_000_000 - 100)
        #expect(stream.takeGivenUp() == 1_000_000 - 100)
    }
}

@Suite struct OutboundStreamTests {
    @Test func fragmentsAndKeepsABoundedBuffer() {
        var stream = OutboundStream()
        let fragments = stream.fragments(of: Array(0..<250), chunkCapacity: 100, fragmentLimit: 5, byteLimit: 10_000)
        #expect(fragments.map(\.chunk.count) == [100, 100, 50])
        #expect(fragments.map(\.dataSequence) == [1, 2, 3])
        #expect(fragments.allSatisfy { $0.count == 3 && $0.messageID == 1 })
        #expect(stream.fragments(of: [], chunkCapacity: 100, fragmentLimit: 5, byteLimit: 10_000).map(\.chunk) == [[]])
        _ = stream.fragments(
            of: Array(repeating: 0, count: 200), chunkCapacity: 100, fragmentLimit: 5, byteLimit: 10_000)
        let plan = stream.repairs(for: [1...4, 6...10], now: .zero, suppressionWindow: .milliseconds(30))
        #expect(plan.fragments.map(\.dataSequence) == [2, 3, 4, 6])
        #expect(plan.unavailable == 5)
    }

    @Test func suppressesRepeatedRepairsWithinTheWindow() {
        var stream = OutboundStream()
        _ = stream.fragments(of: [1], chunkCapacity: 100, fragmentLimit: 5, byteLimit: 10_000)
        #expect(stream.repairs(for: [1...1], now: .zero, suppressionWindow: .milliseconds(30)).fragments.count == 1)
        #expect(
            stream.repairs(for: [1...1], now: .milliseconds(29), suppressionWindow: .milliseconds(30)).suppressed == 1)
        #expect(
            stream.repairs(for: [1...1], now: .milliseconds(30), suppressionWindow: .milliseconds(30)).fragments.count
                == 1)
        #expect(
            stream.repairs(for: [0...UInt64.max], now: .seconds(1), suppressionWindow: .zero).unavailable == Int.max
                - 1, "all but the one retained")
    }

    @Test func boundsTheBufferByBytes() {
        var stream = OutboundStream()
        _ = stream.fragments(
            of: Array(repeating: 0, count: 1000), chunkCapacity: 100, fragmentLimit: 100, byteLimit: 350)
        let plan = stream.repairs(for: [1...10], now: .zero, suppressionWindow: .zero)
        #expect(plan.fragments.map(\.dataSequence) == [8, 9, 10])
    }

    /// Past the repair budget the rest of a request is not re-sent (nor marked as repaired:
    /// a later request gets it).
    @Test func repairsStopAtTheirLimit() {
        var stream = OutboundStream()
        _ = stream.fragments(
            of: Array(repeating: 0, count: 1000), chunkCapacity: 100, fragmentLimit: 100, byteLimit: 1 << 20)
        let first = stream.repairs(for: [1...10], now: .zero, suppressionWindow: .seconds(1), limit: 4)
        #expect(first.fragments.map(\.dataSequence) == [1, 2, 3, 4])
        #expect(first.throttled == 6)
        let second = stream.repairs(for: [1...10], now: .milliseconds(1), suppressionWindow: .seconds(1), limit: 100)
        #expect(second.fragments.map(\.dataSequence) == [5, 6, 7, 8, 9, 10])
        #expect(second.suppressed == 4)
    }

    @Test func aBucketGrantsItsRateAndSavesAtMostOneSecond() {
        var bucket = TokenBucket(perSecond: 100)
        #expect(bucket.take(upTo: 10, now: .zero) == 0)
        #expect(bucket.take(upTo: 1000, now: .milliseconds(500)) == 50)
        #expect(bucket.take(upTo: 1000, now: .seconds(60)) == 100)
        #expect(bucket.take(upTo: 1, now: .seconds(60)) == 0)
    }
}

@Suite struct ClusterRepairTests {
    /// Two nodes; the receiver loses fragments, requests them, and the sender repairs them.
    @Test func repairsLostFragmentsOnRequest() throws {
        var (a, aStart) = try startedNode("a", key: [1, 2, 3])
        var (b, bStart) = try startedNode("b", key: [1, 2, 3])
        for bytes in aStart.datagrams { _ = b.receive(bytes: bytes, now: .zero) }
        for bytes in bStart.datagrams { _ = a.receive(bytes: bytes, now: .zero) }
        let payload = (0..<5000).map { UInt8($0 % 251) }
        let sent = try a.send(payload: payload, now: .milliseconds(1)).datagrams
        #expect(sent.count == 5)
        var actions: [ClusterAction] = []
        for index in [0, 2, 4] { actions += b.receive(bytes: sent[index], now: .milliseconds(2)) }
        #expect(actions.deliveries.isEmpty)
        // Within the largest suppression delay (2 × 10 ms) after the loss was noticed.
        let at = Duration.milliseconds(22)
        let request = b.tick(now: at)
        let nacks = try request.opened(key: [1, 2, 3]).compactMap { if case .nack(let nack) = $0.body { nack } else { nil } }
        #expect(nacks == [Nack(target: "a", targetIncarnation: 1, missing: [2...2, 4...4])])
        let repairs = request.datagrams.flatMap { a.receive(bytes: $0, now: at) }.datagrams
        #expect(repairs.count == 2)
        #expect(a.counters.repairsSent == 2)
        #expect(request.datagrams.flatMap { a.receive(bytes: $0, now: at) }.isEmpty, "a replayed request is dropped")
        let delivered = repairs.flatMap { b.receive(bytes: $0, now: at) }.deliveries
        #expect(delivered.map(\.payload) == [payload])
        #expect(b.counters.nacksSent == 1)
    }

    /// A member that restarts (a new incarnation) while this node holds the stream of its
    /// previous run: the old stream is dropped and the new run's data is delivered. (The
    /// fault campaign found the node crashing here: its index into the senders' table went
    /// stale when the table was changed while being iterated.)
    @Test func aRestartedMembersDataIsDeliveredAndItsPreviousRunForgotten() throws {
        var (first, firstStart) = try startedNode("a", incarnation: 1)
        var (b, _) = try startedNode("b")
        for bytes in firstStart.datagrams { _ = b.receive(bytes: bytes, now: .zero) }
        let early = try first.send(payload: [1], now: .milliseconds(1)).datagrams
        #expect(early.flatMap { b.receive(bytes: $0, now: .milliseconds(1)) }.deliveries.map(\.payload) == [[1]])
        // A payload of the first run in reassembly, so that its stream has state to drop.
        let partial = try first.send(payload: (0..<3000).map { UInt8($0 % 7) }, now: .milliseconds(2)).datagrams
        _ = b.receive(bytes: partial[0], now: .milliseconds(2))
        var (second, secondStart) = try startedNode("a", incarnation: 2, now: .seconds(1))
        var actions = secondStart.datagrams.flatMap { b.receive(bytes: $0, now: .seconds(1)) }
        #expect(actions.contains(.memberLeft("a")) && actions.contains(.memberJoined("a")))
        let later = try second.send(payload: [2], now: .seconds(1) + .milliseconds(1)).datagrams
        actions = later.flatMap { b.receive(bytes: $0, now: .seconds(1) + .milliseconds(1)) }
        #expect(actions.deliveries.map(\.payload) == [[2]])
        // The first run's loss is not asked for: nobody would answer.
        let requests = b.tick(now: .seconds(2)).decoded.compactMap { if case .nack(let nack) = $0.body { nack } else { nil } }
        #expect(requests.allSatisfy { $0.targetIncarnation == 2 })
    }

    /// A member's request for the data of a node this one has never heard from: nothing to
    /// do here, and nothing breaks. (Asking the senders' table about the unknown node made
    /// it grow, which left the index of the requester's state stale: the node crashed on
    /// its next read by it, found by the fault campaign.)
    @Test func aRequestForAnUnknownNodesDataChangesNothingHere() throws {
        var (a, aStart) = try startedNode("a")
        var (b, _) = try startedNode("b")
        var (c, cStart) = try startedNode("c")
        for bytes in aStart.datagrams { _ = b.receive(bytes: bytes, now: .zero) }
        for bytes in cStart.datagrams { _ = a.receive(bytes: bytes, now: .zero) }
        // c sends two payloads; a gets only the second and asks c for the first.
        _ = try c.send(payload: [1], now: .milliseconds(1))
        for bytes in try c.send(payload: [2], now: .milliseconds(2)).datagrams {
            _ = a.receive(bytes: bytes, now: .milliseconds(2))
        }
        let request = a.tick(now: .milliseconds(40)).datagrams
        #expect(
            request.compactMap { try? Datagram(decoding: $0) }.contains {
                if case .nack(let nack) = $0.body { nack.target == "c" } else { false }
            })
        // b, which knows only a, hears a's request for c's data.
        for bytes in request { _ = b.receive(bytes: bytes, now: .milliseconds(40)) }
        let data = try a.send(payload: [9], now: .milliseconds(41)).datagrams
        #expect(data.flatMap { b.receive(bytes: $0, now: .milliseconds(41)) }.deliveries.map(\.payload) == [[9]])
    }

    @Test func noticesATrailingLossFromTheNextBeacon() throws {
        var (a, aStart) = try startedNode("a")
        var (b, _) = try startedNode("b")
        for bytes in aStart.datagrams { _ = b.receive(bytes: bytes, now: .zero) }
        _ = try a.send(payload: [1], now: .milliseconds(1))
        let beacon = a.tick(now: .seconds(1)).datagrams
        #expect(beacon.count == 1)
        _ = b.receive(bytes: beacon[0], now: .seconds(1))
        let request = b.tick(now: .seconds(1) + .milliseconds(20)).decoded.filter {
            if case .nack = $0.body { true } else { false }
        }
        #expect(request.map(\.body) == [.nack(Nack(target: "a", targetIncarnation: 1, missing: [1...1]))])
    }
}
