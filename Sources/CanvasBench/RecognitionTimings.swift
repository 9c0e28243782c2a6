public import CanvasCore
public import CanvasGeometry

/// `ShapeRecognizer.recognize` (or `recognize(_:after:madeAnArrow:)`, each stroke read with
/// those drawn before it) timed stroke by stroke over many real strokes: the
/// distribution a user's strokes meet. The package benchmark times four chosen strokes;
/// the slowest real ones are those no shape explains, which are tried as every shape.
public struct RecognitionTimings: Sendable {
    /// A stroke to recognise, named by where it came from (a file and line, a label).
    public struct Sample: Sendable {
        public var name: String
        public var points: [Point]
        /// The strokes drawn just before it that it is read with, as a node keeps them
        /// (`ShapeRecognizer.recognize(_:after:madeAnArrow:)`), or nil to read it alone
        /// (`recognize`).
        public var before: StrokesBefore<[Point]>?

        /// The stroke `points`, reported as `name`, read alone or after `before`.
        public init(name: String, points: [Point], before: StrokesBefore<[Point]>? = nil) {
            self.name = name
            self.points = points
            self.before = before
        }
    }

    /// One stroke's time and what it was recognised as.
    public struct StrokeTime: Sendable {
        /// The sample's index in `samples`.
        public var sample: Int
        /// The least of the repeated recognitions, in seconds (the one least disturbed by
        /// the machine's other work).
        public var seconds: Double
        public var shape: ShapeKind
    }

    /// The strokes, each recognised `repeats` times.
    public var samples: [Sample]
    public var repeats: Int

    /// `samples`, each recognised `repeats` (at least 1) times.
    public init(samples: [Sample], repeats: Int) {
        self.samples = samples
        self.repeats = max(1, repeats)
    }

    /// Every stroke's time, in the samples' order. The strokes are recognised in rounds
    /// (every stroke once, then again), so that a burst of other work on the machine costs
    /// each stroke one round, not all its repeats.
    public func run() -> [StrokeTime] {
        let clock = ContinuousClock()
        var least = [Double](repeating: .infinity, count: samples.count)
        var shapes = [ShapeKind](repeating: .none, count: samples.count)
        for _ in 0..<repeats {
            for (index, sample) in samples.enumerated() {
                var shape = RecognizedShape.none
                let elapsed = clock.measure {
                    shape =
                        if let before = sample.before {
                            ShapeRecognizer.recognize(
                                sample.points, after: before.parts, madeAnArrow: before.madeAnArrow
                            ).shape
                        } else {
                            ShapeRecognizer.recognize(sample.points)
                        }
                }
                sink(shape)
                least[index] = min(least[index], elapsed.seconds)
                shapes[index] = shape.kind
            }
        }
        return samples.indices.map { StrokeTime(sample: $0, seconds: least[$0], shape: shapes[$0]) }
    }
}
