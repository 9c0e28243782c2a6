@testable import CanvasCore
import CanvasTestSupport
import Testing

/// The laws of DESIGN.md §3 over random histories (see `RandomHistory`).
///
/// Each history, and every order it is delivered in, comes from one seed. A failure names
/// its seed; to replay it, call the `check…(seed:coverage:)` function with that seed.
@Suite("Convergence")
struct ConvergenceTests {
    /// Delivery orders tried per history by the permutation law.
    static let ordersPerHistory = 4

    // MARK: Permutations with duplicates

    @Test func anyOrderWithDuplicatesGivesTheSameDocument() throws {
        let seeds: Range<UInt64> = 1_000_000..<1_002_000
        print("ConvergenceTests.anyOrderWithDuplicatesGivesTheSameDocument seeds", seeds)
        var coverage = Coverage()
        for seed in seeds {
            try checkOrderIndependence(seed: seed, coverage: &coverage)
        }
        print("ConvergenceTests.anyOrderWithDuplicatesGivesTheSameDocument", coverage)
        coverage.expectEachFeature(inAtLeast: 0.3)
    }

    /// Delivers the history plus random duplicates in several random orders: every replica
    /// ends equal, with an equal digest, to the one that saw the history once in order.
    func checkOrderIndependence(seed: UInt64, coverage: inout Coverage) throws {
        var rng = SplitMix64(seed: seed)
        let history = RandomHistory(using: &rng)
        let inOrder = Document(applying: history.operations)
        let delivered = history.withDuplicates(using: &rng)
        for order in 0..<Self.ordersPerHistory {
            var features = ScheduleFeatures()
            var replica = Document()
            replica.apply(delivered.shuffled(using: &rng), noting: &features)
            coverage.record(features)
            try #require(replica == inOrder, "seed \(seed), order \(order): replica differs from in-order document")
            try #require(replica.digest == inOrder.digest, "seed \(seed), order \(order): digests differ")
            try #require(
                replica.drawablePointCount == replica.statistics.points,
                "seed \(seed), order \(order): the kept point count differs from the strokes'")
        }
    }

    // MARK: Merge

    @Test func mergeIsAJoin() throws {
        let seeds: Range<UInt64> = 2_000_000..<2_001_500
        print("ConvergenceTests.mergeIsAJoin seeds", seeds)
        var coverage = Coverage()
        var historiesWithDifferentReplicas = 0
        for seed in seeds {
            let replicasDiffered = try checkMergeLaws(seed: seed, coverage: &coverage)
            historiesWithDifferentReplicas += replicasDiffered ? 1 : 0
        }
        print("ConvergenceTests.mergeIsAJoin", coverage, "—", historiesWithDifferentReplicas, "histories with replicas that differed")
        coverage.expectEachFeature(inAtLeast: 0.2)
        #expect(historiesWithDifferentReplicas >= seeds.count / 2)
    }

    /// Splits the history among three replicas (every operation reaches at least one, most
    /// reach several), each applying its share in its own random order; then checks that
    /// merge is commutative, associative and idempotent, that the empty document is its
    /// identity, and that the merge of all three equals one replica that saw everything.
    /// Returns whether two replicas differed (so that merging had work to do).
    func checkMergeLaws(seed: UInt64, coverage: inout Coverage) throws -> Bool {
        var rng = SplitMix64(seed: seed)
        let history = RandomHistory(using: &rng)
        var shares: [[Operation]] = [[], [], []]
        for operation in history.operations {
            let recipients = Int.random(in: 1...7, using: &rng)
            for replica in shares.indices where recipients & (1 << replica) != 0 {
                shares[replica].append(operation)
            }
        }
        var replicas: [Document] = []
        for share in shares {
            var features = ScheduleFeatures()
            var replica = Document()
            replica.apply(share.shuffled(using: &rng), noting: &features)
            coverage.record(features)
            replicas.append(replica)
        }
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        let context = "seed \(seed)"

        for (x, y) in [(a, b), (b, c), (a, c)] {
            let xy = x.merging(y)
            let yx = y.merging(x)
            try #require(xy == yx, "\(context): merge is not commutative")
            try #require(xy.digest == yx.digest, "\(context): digests of x ⊔ y and y ⊔ x differ")
        }
        let leftFirst = a.merging(b).merging(c)
        let rightFirst = a.merging(b.merging(c))
        try #require(leftFirst == rightFirst, "\(context): merge is not associative")
        try #require(leftFirst.digest == rightFirst.digest, "\(context): digests of (a ⊔ b) ⊔ c and a ⊔ (b ⊔ c) differ")
        for replica in replicas {
            try #require(replica.merging(replica) == replica, "\(context): merge is not idempotent")
            try #require(replica.merging(Document()) == replica, "\(context): x ⊔ ∅ ≠ x")
            try #require(Document().merging(replica) == replica, "\(context): ∅ ⊔ x ≠ x")
        }
        let sawEverything = Document(applying: history.operations)
        try #require(leftFirst == sawEverything, "\(context): the merge of all replicas misses something")
        try #require(leftFirst.digest == sawEverything.digest, "\(context): digest of the merge differs")
        return a != b || b != c
    }

    // MARK: Novelty

    @Test func novelOperationsAreExactlyThoseThatChangeTheDocument() throws {
        let seeds: Range<UInt64> = 3_000_000..<3_001_500
        print("ConvergenceTests.novelOperationsAreExactlyThoseThatChangeTheDocument seeds", seeds)
        var coverage = Coverage()
        for seed in seeds {
            try checkNovelty(seed: seed, coverage: &coverage)
        }
        print("ConvergenceTests.novelOperationsAreExactlyThoseThatChangeTheDocument", coverage)
        coverage.expectEachFeature(inAtLeast: 0.3)
    }

    /// Delivers the history with duplicates in a random order and checks every effect
    /// against the change it made; then re-delivers everything (nothing is novel any more)
    /// and rebuilds the document from `operations`.
    func checkNovelty(seed: UInt64, coverage: inout Coverage) throws {
        var rng = SplitMix64(seed: seed)
        let delivered = RandomHistory(using: &rng).withDuplicates(using: &rng).shuffled(using: &rng)
        var document = Document()
        var features = ScheduleFeatures()
        for (step, operation) in delivered.enumerated() {
            let before = document[operation.strokeID]
            let effect = document.apply(operation)
            features.note(effect, of: operation, in: document)
            let after = document[operation.strokeID]
            func context() -> String { "seed \(seed), step \(step): \(operation)" }
            try #require(effect.isNovel == (before != after), "\(context()): isNovel is \(effect.isNovel)")
            try #require(
                effect.isNovel == (before?.summary != after?.summary),
                "\(context()): the digest summary does not follow the change"
            )
            try checkRedrawHints(effect, before: before, after: after, context())
        }
        coverage.record(features)

        let complete = document
        for operation in delivered {
            try #require(!document.apply(operation).isNovel, "seed \(seed): \(operation) is novel a second time")
        }
        try #require(document == complete, "seed \(seed): re-applying operations changed the document")

        let rebuilt = Document(applying: complete.operations)
        try #require(rebuilt == complete, "seed \(seed): `operations` does not rebuild the document")
        try #require(rebuilt.digest == complete.digest, "seed \(seed): the rebuilt document has another digest")
        try #require(rebuilt.operations == complete.operations, "seed \(seed): `operations` is not canonical")
    }

    /// `changedPoints` covers every drawable point that appeared or changed, and stays within
    /// the drawable points; `newlyErased` is exactly what joined the erased set (the two may
    /// share bounds only).
    private func checkRedrawHints(
        _ effect: Effect, before: Stroke?, after: Stroke?, _ context: @autoclosure () -> String
    ) throws {
        let oldPoints = before?.points ?? []
        let newPoints = after?.points ?? []
        let changedIndices = newPoints.indices.filter { $0 >= oldPoints.count || oldPoints[$0] != newPoints[$0] }
        if let changed = effect.changedPoints {
            try #require(changed.upperBound <= newPoints.count, "\(context()): changedPoints \(changed) beyond the points")
        }
        try #require(
            changedIndices.allSatisfy { effect.changedPoints?.contains($0) == true },
            "\(context()): changedPoints \(String(describing: effect.changedPoints)) misses some of \(changedIndices)"
        )
        let oldErased = before?.erased ?? IntervalSet()
        let newErased = after?.erased ?? IntervalSet()
        try #require(
            effect.newlyErased.subtracting(oldErased) == effect.newlyErased,
            "\(context()): newlyErased \(effect.newlyErased) overlaps what was erased before, \(oldErased)"
        )
        try #require(
            oldErased.union(effect.newlyErased) == newErased,
            "\(context()): newlyErased \(effect.newlyErased) does not take \(oldErased) to \(newErased)"
        )
    }
}
