public import CanvasCore
import CanvasProtocol

/// The original report's 1000-user test, in process: one replica absorbing the APPENDs of
/// many simultaneous authors, each message decoded from JSON, validated and applied on one
/// core. The original reached 15,220 points/s (≈ 1000 users drawing 15 points/s).
public struct UsersBenchmark: Sendable {
    /// Simultaneous authors, one stroke each.
    public var users: Int
    /// APPENDs per author.
    public var batches: Int
    /// Points per APPEND (the report measured 15 points per second per user).
    public var pointsPerBatch: Int
    /// Timed repetitions; the median is reported.
    public var repetitions: Int

    public init(users: Int = 1000, batches: Int = 20, pointsPerBatch: Int = 15, repetitions: Int = 10) {
        self.users = users
        self.batches = batches
        self.pointsPerBatch = pointsPerBatch
        self.repetitions = repetitions
    }

    /// What one run measured.
    public struct Result: Sendable {
        public var users: Int
        public var points: Int
        public var messages: Int
        public var bytes: Int
        /// Seconds to decode, validate and apply every message (median).
        public var seconds: Double
        /// Points absorbed per second on one core.
        public var pointsPerSecond: Double { Double(points) / seconds }
        /// Authors drawing 15 points/s that one core keeps up with.
        public var sustainableUsers: Double { pointsPerSecond / 15 }
    }

    /// Decodes and applies every message to a replica that already holds the ADDs.
    public func absorb(_ base: Document, _ messages: [[UInt8]]) -> Document {
        var document = base
        for message in messages {
            guard case .operation(let operation) = try? MessageDecoder.decode(message) else {
                preconditionFailure("the benchmark's own messages decode")
            }
            document.apply(operation)
        }
        return document
    }

    public func run() -> Result {
        let traffic = Workloads.usersTraffic(users: users, batches: batches, pointsPerBatch: pointsPerBatch)
        var base = Document()
        for message in traffic.setup {
            for operation in (try? MessageDecoder.decode(message))?.operations ?? [] {
                base.apply(operation)
            }
        }
        let timing = Timing.measure(repetitions: repetitions, warmup: 1) { sink(absorb(base, traffic.messages)) }
        return Result(
            users: users, points: users * batches * pointsPerBatch, messages: traffic.messages.count,
            bytes: traffic.messages.reduce(0) { $0 + $1.count }, seconds: timing.median)
    }
}
