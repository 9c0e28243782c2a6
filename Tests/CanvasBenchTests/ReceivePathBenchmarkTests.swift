import CanvasBench
import Foundation
import LANCluster
import Testing

/// The receive-path benchmark measures what it says: the node it builds receives every
/// point its members' authors drew, through datagrams with compact headers, and with a
/// store as without one (its timing is a benchmark's business, not a test's).
@Suite struct ReceivePathBenchmarkTests {
    @Test(arguments: [false, true]) func theReceivingNodeHoldsEveryPointDrawn(stored: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receive-path-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let benchmark = ReceivePathBenchmark(
            authors: 60, members: 4, seconds: 3, pointsPerSecond: 15, storeDirectory: stored ? folder : nil)
        let traffic = try benchmark.traffic()
        #expect(traffic.points == AuthorLoad(authors: 60, pointsPerSecond: 15, seconds: 3).totalPoints)
        #expect(traffic.beacons.count == 4)
        #expect(traffic.datagrams.count == traffic.operations, "one author's operation a datagram at this rate")
        // As between nodes of this version: compact headers (their version byte).
        #expect(traffic.datagrams.allSatisfy { (try? Datagram(decoding: $0.bytes))?.format == .compact })
        let result = try benchmark.run(traffic)
        #expect(result.pointsHeld == traffic.points)
        #expect(result.datagrams == traffic.datagrams.count)
        #expect(result.cpuSeconds > 0)
        // The store was written to a room folder of its own, and removed afterwards.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        #expect(left.isEmpty)
    }
}
