import CanvasCore
import CanvasProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the end-to-end 1000-user test's authors draw, and when: every author draws
/// `pointsPerSecond` points a second, sent once a second as an APPEND of the last second's
/// points, and starts a new stroke (an ADD with its first point) every `strokeSeconds`.
/// Authors do not act in step: each has its own phase within the second and its own
/// moment of starting strokes, as people drawing together do (a thousand strokes started in
/// the same millisecond is a burst no room sees).
///
/// Deterministic for a seed. Strokes of traced authors (one in `tracedEvery`) are named
/// `t…`, the others `a…`, so that nodes report when they apply the traced ones
/// (`canvas join --trace-strokes t`).
public struct AuthorLoad: Sendable {
    /// How many people draw at once.
    public var authors: Int
    /// Points each author draws a second (one APPEND of them a second).
    public var pointsPerSecond: Int
    /// How long the load lasts.
    public var seconds: Int
    /// How long a stroke lasts before its author starts the next.
    public var strokeSeconds: Int
    /// One author in this many is traced (1: all of them).
    public var tracedEvery: Int
    /// Seeds the paths, colours and phases.
    public var seed: UInt64

    /// A load of `authors` drawing `pointsPerSecond` for `seconds`.
    public init(authors: Int, pointsPerSecond: Int = 15, seconds: Int, strokeSeconds: Int = 4, tracedEvery: Int = 20, seed: UInt64 = 1) {
        self.authors = authors
        self.pointsPerSecond = pointsPerSecond
        self.seconds = seconds
        self.strokeSeconds = strokeSeconds
        self.tracedEvery = tracedEvery
        self.seed = seed
    }

    /// The prefix of traced strokes' identifiers.
    public static let tracedPrefix = "t"

    /// One line an author writes to its node.
    public struct Emit: Sendable {
        /// Seconds after the load's start.
        public var time: Double
        /// Which author draws it (author `a` draws through node `a % nodes`).
        public var author: Int
        /// The operation, encoded (one protocol message, no newline).
        public var line: [UInt8]
        /// The stroke and the index of the operation's first point, when the author is traced.
        public var traced: TracedOperation?
        /// Points the operation adds.
        public var points: Int
    }

    /// An operation whose application nodes report: its stroke and first point's index.
    public struct TracedOperation: Sendable, Hashable {
        /// The stroke's identifier.
        public var stroke: String
        /// The index of the operation's first point (0 for the ADD).
        public var offset: Int

        /// The operation at `offset` of `stroke`.
        public init(stroke: String, offset: Int) {
            self.stroke = stroke
            self.offset = offset
        }
    }

    /// Whether `author` is traced: the first of them, one in `tracedEvery` (at least one).
    /// Author `a` draws through node `a % nodes`, so consecutive authors spread over every
    /// node and every LAN group. (Every `tracedEvery`-th author instead traced only the
    /// nodes whose index shares the factor: with 50 nodes and one in 20, five nodes, all in
    /// one LAN group of two.)
    public func isTraced(_ author: Int) -> Bool { author < max(1, authors / max(1, tracedEvery)) }

    /// Every line of the load, in time order.
    public func emits() -> [Emit] {
        var random = SplitMix64(seed: seed)
        var result: [Emit] = []
        result.reserveCapacity(authors * seconds * (strokeSeconds + 1) / max(1, strokeSeconds))
        for author in 0..<authors {
            let phase = Double(random.next() % 1_000_000) / 1_000_000
            // The first stroke is cut short at random: stroke starts spread over the authors.
            let firstStrokeLength = Int(random.next() % UInt64(max(1, strokeSeconds))) + 1
            let colour = Colour(red: UInt8(random.next() % 256), green: UInt8(random.next() % 256), blue: UInt8(random.next() % 256))
            let weight = Double(1 + random.next() % 6)
            var walker = Walker(random: &random)
            let prefix = isTraced(author) ? Self.tracedPrefix : "a"
            var stroke = -1
            var nextOffset = 0
            var strokeID = StrokeID("")
            for second in 0..<seconds {
                let time = phase + Double(second)
                let startsStroke = second == 0 || (second - firstStrokeLength) % max(1, strokeSeconds) == 0 && second >= firstStrokeLength
                var batch = pointsPerSecond
                if startsStroke {
                    stroke += 1
                    strokeID = StrokeID("\(prefix)\(author)-\(stroke)")
                    walker.jump(random: &random)
                    let start = walker.step(random: &random)
                    let header = StrokeHeader(weight: weight, colour: colour, start: start)
                    result.append(emit(time, author, .add(strokeID, header), offset: 0, points: 1))
                    nextOffset = 1
                    batch -= 1
                }
                guard batch > 0 else { continue }
                let points = (0..<batch).map { _ in walker.step(random: &random) }
                result.append(emit(time, author, .append(strokeID, points: points, offset: nextOffset), offset: nextOffset, points: batch))
                nextOffset += batch
            }
        }
        result.sort { ($0.time, $0.author) < ($1.time, $1.author) }
        return result
    }

    private func emit(_ time: Double, _ author: Int, _ operation: Operation, offset: Int, points: Int) -> Emit {
        let traced = isTraced(author) ? TracedOperation(stroke: operation.strokeID.rawValue, offset: offset) : nil
        return Emit(time: time, author: author, line: MessageEncoder.encode(operation), traced: traced, points: points)
    }

    /// Total points of the load.
    public var totalPoints: Int { authors * seconds * pointsPerSecond }

    /// A hand's path on a quarter-pixel grid: small steps that turn slowly.
    struct Walker {
        var x: Double
        var y: Double
        var heading: Double

        init(random: inout SplitMix64) {
            x = Double(random.next() % 8000) / 4
            y = Double(random.next() % 8000) / 4
            heading = Double(random.next() % 628) / 100
        }

        mutating func jump(random: inout SplitMix64) {
            x = Double(random.next() % 8000) / 4
            y = Double(random.next() % 8000) / 4
        }

        mutating func step(random: inout SplitMix64) -> Point {
            heading += (Double(random.next() % 100) - 49.5) / 200
            let length = 2 + Double(random.next() % 24) / 4
            x = ((x + length * cos(heading)) * 4).rounded() / 4
            y = ((y + length * sin(heading)) * 4).rounded() / 4
            return Point(x: x, y: y)
        }
    }
}
