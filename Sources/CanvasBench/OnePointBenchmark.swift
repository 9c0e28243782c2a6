public import CanvasCore
import CanvasProtocol

/// The original report's 1000-point test: one stroke, points appended one at a time, each
/// as its own APPEND operation. Measured twice: the CRDT apply alone, and with every APPEND
/// encoded to JSON and decoded again on the way in (what a receiving replica does).
public struct OnePointBenchmark: Sendable {
    /// Points in the stroke (the start included).
    public var points: Int
    /// Timed repetitions; the median is reported.
    public var repetitions: Int

    public init(points: Int = 1000, repetitions: Int = 200) {
        self.points = points
        self.repetitions = repetitions
    }

    /// What one run measured.
    public struct Result: Sendable {
        public var points: Int
        /// Seconds to apply every APPEND (median of the repetitions).
        public var applySeconds: Double
        /// Seconds to encode, decode and apply every APPEND (median).
        public var codecSeconds: Double
        /// The same with Foundation's JSONEncoder and JSONDecoder (median).
        public var foundationSeconds: Double
        /// Bytes of JSON per point when each APPEND carries one point.
        public var bytesPerPointSingle: Double
        /// Bytes of JSON per point in APPENDs of 15 points (a typical batch).
        public var bytesPerPointBatched: Double
    }

    /// Applies the workload to a fresh document: the unit the benchmarks time.
    public func applyAll(_ add: Operation, _ appends: [Operation]) -> Document {
        var document = Document()
        document.apply(add)
        for operation in appends {
            document.apply(operation)
        }
        return document
    }

    /// Encodes, decodes and applies every APPEND, as a receiving replica would.
    public func codecAll(_ add: Operation, _ appends: [Operation]) -> Document {
        var document = Document()
        document.apply(add)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(128)
        for operation in appends {
            buffer.removeAll(keepingCapacity: true)
            MessageEncoder.append(operation, to: &buffer)
            guard case .operation(let decoded) = try? MessageDecoder.decode(buffer) else {
                preconditionFailure("the benchmark's own messages decode")
            }
            document.apply(decoded)
        }
        return document
    }

    public func run() -> Result {
        let (add, appends) = Workloads.onePointAppends(count: points)
        let apply = Timing.measure(repetitions: repetitions) { sink(applyAll(add, appends)) }
        let codec = Timing.measure(repetitions: repetitions) { sink(codecAll(add, appends)) }
        let foundation = Timing.measure(repetitions: max(1, repetitions / 20), warmup: 1) {
            sink(FoundationBaseline.codecAll(add, appends))
        }
        let single = appends.reduce(0) { $0 + MessageEncoder.encode($1).count }
        let id = StrokeID("bench-1")
        let batched = stride(from: 1, to: points, by: 15).reduce(0) { total, offset in
            let batch = (offset..<min(offset + 15, points)).map { Workloads.point($0) }
            return total + MessageEncoder.encode(.append(id, points: batch, offset: offset)).count
        }
        let appended = Double(max(points - 1, 1))
        return Result(
            points: points, applySeconds: apply.median, codecSeconds: codec.median, foundationSeconds: foundation.median,
            bytesPerPointSingle: Double(single) / appended, bytesPerPointBatched: Double(batched) / appended)
    }
}
