@testable import CanvasCore
import CanvasTestSupport

/// A random room history for the property tests: what the authors of 1–6 strokes sent, in
/// the order they sent it, and what the occasional faulty peer sent.
///
/// Every APPEND carries its offset (senders always include it), so the laws of DESIGN.md §3
/// hold for any order. Histories stay small so that thousands of schedules run in seconds,
/// and coordinates sit on a coarse grid so that equal x values (the y tie-break) and
/// touching erased intervals happen often.
struct RandomHistory {
    /// Every operation, in the order it was sent.
    let operations: [Operation]

    init(using rng: inout SplitMix64) {
        let ids = Self.identifiers(count: Int.random(in: 1...6, using: &rng), using: &rng)
        var perStroke: [[Operation]] = []
        for id in ids {
            perStroke.append(Self.operations(ofStroke: id, using: &rng))
        }
        operations = Self.interleave(perStroke, using: &rng)
    }

    /// The operations plus random repeats, as a channel that duplicates messages delivers
    /// them (in the original order; shuffle to deliver them in any order).
    func withDuplicates(using rng: inout SplitMix64) -> [Operation] {
        var delivered = operations
        for operation in operations where rng.chance(0.3) {
            delivered.append(operation)
        }
        return delivered
    }

    // MARK: Strokes

    /// Distinct short identifiers such as `a`, `b`, `ca`.
    private static func identifiers(count: Int, using rng: inout SplitMix64) -> [StrokeID] {
        let letters = Array("abcd")
        var names: [String] = []
        while names.count < count {
            let length = Int.random(in: 1...2, using: &rng)
            let name = String((0..<length).map { _ in letters.randomElement(using: &rng)! })
            if !names.contains(name) {
                names.append(name)
            }
        }
        return names.map(StrokeID.init)
    }

    /// One stroke's operations in the order they were sent: its ADD, its points in APPEND
    /// batches (with re-sends of earlier ranges), erasers' DELETEs and REMOVE_STROKEs at any
    /// time, and sometimes a faulty peer's conflicting ADD or APPEND.
    private static func operations(ofStroke id: StrokeID, using rng: inout SplitMix64) -> [Operation] {
        let header = randomHeader(using: &rng)
        // points[k] is the point at index k + 1: index 0 is the header's start.
        let points = (0..<Int.random(in: 0...10, using: &rng)).map { _ in randomPoint(using: &rng) }
        var sent: [Operation] = []
        // The ADD is sometimes lost: the stroke then stays a placeholder on every replica.
        if rng.chance(0.9) {
            sent.append(.add(id, header))
        }
        var next = 1
        while next <= points.count {
            let last = min(points.count, next + Int.random(in: 0...3, using: &rng))
            sent.append(append(id, points, indices: next...last))
            if rng.chance(0.2) {
                let lower = Int.random(in: 1...last, using: &rng)
                sent.append(append(id, points, indices: lower...Int.random(in: lower...last, using: &rng)))
            }
            next = last + 1
        }
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            let delete = randomDelete(id, lastIndex: points.count, using: &rng)
            sent.insert(delete, at: Int.random(in: 0...sent.count, using: &rng))
        }
        if rng.chance(0.1) {
            sent.insert(.removeStroke(id), at: Int.random(in: 0...sent.count, using: &rng))
        }
        if rng.chance(0.15) {
            sent.append(.add(id, conflicting(header, using: &rng)))
        }
        if !points.isEmpty, rng.chance(0.15) {
            sent.append(conflictingAppend(id, points, using: &rng))
        }
        return sent
    }

    /// The APPEND of the points at `indices`, with its offset.
    private static func append(_ id: StrokeID, _ points: [Point], indices: ClosedRange<Int>) -> Operation {
        .append(id, points: Array(points[(indices.lowerBound - 1)...(indices.upperBound - 1)]), offset: indices.lowerBound)
    }

    /// A DELETE with bounds on a grid of quarters from −2 to 3 past the last point: some
    /// reversed or empty, some beyond the end, some with a negative start.
    private static func randomDelete(_ id: StrokeID, lastIndex: Int, using rng: inout SplitMix64) -> Operation {
        let bounds = -8...(4 * (lastIndex + 3))
        let start = Double(Int.random(in: bounds, using: &rng)) / 4
        let end = Double(Int.random(in: bounds, using: &rng)) / 4
        return .delete(id, start: start, end: end)
    }

    // MARK: Values

    private static func randomHeader(using rng: inout SplitMix64) -> StrokeHeader {
        let weight = rng.chance(0.5) ? [0.5, 1, 2, 3, 10].randomElement(using: &rng)! : Double.random(in: 0.1...20, using: &rng)
        let colour = Colour(red: .random(in: 0...255, using: &rng), green: .random(in: 0...255, using: &rng), blue: .random(in: 0...255, using: &rng))
        return StrokeHeader(weight: weight, colour: colour, start: randomPoint(using: &rng), isShape: rng.chance(0.1))
    }

    private static func randomPoint(using rng: inout SplitMix64) -> Point {
        if rng.chance(0.8) {
            return Point(x: Double(Int.random(in: -40...40, using: &rng)) / 4, y: Double(Int.random(in: -40...40, using: &rng)) / 4)
        }
        return Point(x: .random(in: -1000...1000, using: &rng), y: .random(in: -1000...1000, using: &rng))
    }

    /// The point moved along one axis only, so that half the conflicts tie on x.
    private static func perturbed(_ point: Point, using rng: inout SplitMix64) -> Point {
        let delta = Double(Int.random(in: 1...8, using: &rng)) / 4 * (rng.chance(0.5) ? 1 : -1)
        return rng.chance(0.5) ? Point(x: point.x, y: point.y + delta) : Point(x: point.x + delta, y: point.y)
    }

    // MARK: Faulty peers

    /// A header that differs from `header` in one field.
    private static func conflicting(_ header: StrokeHeader, using rng: inout SplitMix64) -> StrokeHeader {
        var other = header
        switch Int.random(in: 0...3, using: &rng) {
        case 0: other.weight += Double(Int.random(in: 1...20, using: &rng)) / 2
        case 1: other.colour.red &+= .random(in: 1...255, using: &rng)
        case 2: other.start = perturbed(header.start, using: &rng)
        default: other.isShape.toggle()
        }
        return other
    }

    /// An APPEND over known indices in which at least one value differs from the author's.
    private static func conflictingAppend(_ id: StrokeID, _ points: [Point], using rng: inout SplitMix64) -> Operation {
        let lower = Int.random(in: 1...points.count, using: &rng)
        let upper = Int.random(in: lower...points.count, using: &rng)
        let surelyDifferent = Int.random(in: lower...upper, using: &rng)
        let values = (lower...upper).map { index in
            index == surelyDifferent || rng.chance(0.5) ? perturbed(points[index - 1], using: &rng) : points[index - 1]
        }
        return .append(id, points: values, offset: lower)
    }

    // MARK: Sending

    /// Merges the strokes' sequences at random, keeping each stroke's own order (several
    /// authors drawing at once).
    private static func interleave(_ sequences: [[Operation]], using rng: inout SplitMix64) -> [Operation] {
        var queues = sequences.map { $0[...] }
        var result: [Operation] = []
        while let pick = queues.indices.filter({ !queues[$0].isEmpty }).randomElement(using: &rng) {
            result.append(queues[pick].removeFirst())
        }
        return result
    }
}
