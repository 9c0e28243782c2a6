public import CanvasCore
import CanvasProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operations of the benchmarks, generated deterministically so that every run, and
/// every harness (`canvas bench`, Benchmarks/), measures the same work.
public enum Workloads {
    /// A hand-drawn-looking point: a slow wave along x.
    public static func point(_ index: Int, stroke: Int = 0) -> Point {
        let t = Double(index)
        return Point(x: (t * 1.5).rounded() / 2 + Double(stroke % 40) * 25, y: (100 + 40 * sin(t / 10)).rounded() / 2)
    }

    /// The 1000-point test's stroke: an ADD, then one APPEND per point (offsets 1, 2, …),
    /// `count` points in all.
    public static func onePointAppends(count: Int, id: StrokeID = StrokeID("bench-1")) -> (add: Operation, appends: [Operation]) {
        let add = Operation.add(id, StrokeHeader(weight: 2, colour: Colour(red: 30, green: 60, blue: 200), start: point(0)))
        let appends = (1..<count).map { index in
            Operation.append(id, points: [point(index)], offset: index)
        }
        return (add, appends)
    }

    /// The 1000-user test's traffic, as received: `users` strokes whose authors each send
    /// `batches` APPENDs of `pointsPerBatch` points, interleaved user by user as a busy room
    /// would deliver them. The ADDs come first, in `setup`.
    public static func usersTraffic(users: Int, batches: Int, pointsPerBatch: Int) -> (setup: [[UInt8]], messages: [[UInt8]]) {
        var setup: [[UInt8]] = []
        var messages: [[UInt8]] = []
        messages.reserveCapacity(users * batches)
        for user in 0..<users {
            let header = StrokeHeader(
                weight: Double(1 + user % 5), colour: Colour(red: UInt8(user % 256), green: 80, blue: 160),
                start: point(0, stroke: user))
            setup.append(MessageEncoder.encode(.add(StrokeID("user\(user)-stroke"), header)))
        }
        for batch in 0..<batches {
            for user in 0..<users {
                let offset = 1 + batch * pointsPerBatch
                let points = (offset..<(offset + pointsPerBatch)).map { point($0, stroke: user) }
                messages.append(MessageEncoder.encode(.append(StrokeID("user\(user)-stroke"), points: points, offset: offset)))
            }
        }
        return (setup, messages)
    }
}
