public import CanvasCore

/// The shapes a finished stroke can be recognised as.
public enum ShapeKind: String, Sendable, CaseIterable {
    case line, rectangle, diamond, parallelogram, ellipse, triangle, arrow
    /// An arrow whose shaft bends at right angles, once or twice (a flowchart's connector).
    case elbowArrow = "elbow_arrow"
    /// A straight arrow with a head at each end (a two-way connector).
    case doubleArrow = "double_arrow"
    /// Not a shape: the stroke is left as drawn.
    case none
}

extension ShapeKind {
    /// A rectangle, diamond, parallelogram, ellipse or triangle: an outline that closes.
    public var isClosed: Bool {
        switch self {
        case .rectangle, .diamond, .parallelogram, .ellipse, .triangle: true
        case .line, .arrow, .elbowArrow, .doubleArrow, .none: false
        }
    }

    /// A line or no shape: what a stroke read alone may be to be joined with the strokes
    /// drawn next to it (`ShapeRecognizer.recognize(_:after:madeAnArrow:)`, `StrokesBefore`).
    var mayBeJoined: Bool { self == .line || self == .none }

    /// A rectangle, a diamond or a parallelogram: four corners.
    var isQuadrilateral: Bool {
        switch self {
        case .rectangle, .diamond, .parallelogram: true
        case .line, .ellipse, .triangle, .arrow, .elbowArrow, .doubleArrow, .none: false
        }
    }
}

/// A recognised shape and the geometry that replaces the hand-drawn stroke.
public struct RecognizedShape: Hashable, Sendable {
    public var kind: ShapeKind
    /// The replacement geometry as a polyline (drawn with is_shape: straight segments
    /// between points): a line's 2 end points; a rectangle's 4 corners (right angles, any
    /// rotation), closed (5 points); a diamond's 4 corners (a rhombus: four equal sides,
    /// any angles and rotation), closed; a parallelogram's 4 corners (opposite sides equal
    /// and parallel, corners further than 40° from square), closed; a triangle's 3
    /// corners, closed (4 points); an ellipse
    /// as a closed polygon whose chords stray from the curve by at most a quarter of a
    /// pixel; an arrow as tail, tip, barb, tip, barb; an elbow arrow as tail, its one or
    /// two bends (right angles), tip, barb, tip, barb; a double arrow as barb, tip, barb,
    /// tip, then tip, barb, tip, barb at the other end. A head read closed (its barbs' ends
    /// joined: the closed reading the closer) stays closed, an arrow's, an elbow arrow's or
    /// either of a double arrow's: tip, barb, barb, tip (since 2026-11-30). Closed
    /// shapes start at the corner nearest the stroke's start and follow the drawing
    /// direction. Empty for `.none`.
    public var points: [Point]

    public init(kind: ShapeKind, points: [Point]) {
        self.kind = kind
        self.points = points
    }

    /// An arrow's or elbow arrow's polyline ending in an open head (tip, barb, tip, barb)
    /// with that head closed: tip, barb, barb, tip, the stroke across the barbs' ends drawn;
    /// any other polyline (a head closed already) as it is.
    static func closingHead(of polyline: [Point]) -> [Point] {
        let n = polyline.count
        // Only an open head (its tip repeated two points on): a closed one is left as it is.
        guard n >= 5, polyline[n - 4] == polyline[n - 2] else { return polyline }
        return Array(polyline[..<(n - 2)]) + [polyline[n - 1], polyline[n - 4]]
    }

    /// This arrow or elbow arrow with its head closed (`closingHead(of:)`); another shape as it is.
    func closingHead() -> RecognizedShape {
        guard kind == .arrow || kind == .elbowArrow else { return self }
        return RecognizedShape(kind: kind, points: Self.closingHead(of: points))
    }

    /// Not a shape.
    public static let none = RecognizedShape(kind: .none, points: [])
}

/// Why `ShapeRecognizer` recognised a stroke as it did: every shape it tried, scored.
public struct RecognitionExplanation: Sendable {
    /// One shape tried.
    public struct Hypothesis: Sendable {
        /// The shape tried.
        public var kind: ShapeKind
        /// What the shape was fitted to and compared with (the stroke with its hooks cut
        /// off, the whole stroke, its closed loop, the curve through the pen's points, an
        /// arrow's reading of its head, …), so that two tries of one shape can be told
        /// apart; nil for a shape that could not be fitted.
        public var fittedTo: String?
        /// The root-mean-square distance from the stroke to the shape, as a fraction of the
        /// stroke's size; nil when the shape could not be fitted.
        public var rmsDistance: Double?
        /// The largest distance from the stroke to the shape, as a fraction of its size.
        public var maximumDistance: Double?
        /// How much of the outline the stroke traces (0…1).
        public var drawnFraction: Double?
        /// How much of its least-drawn side the stroke traces (0…1).
        public var leastDrawnSide: Double?
        /// `chosen`, `passes, but …`, `refused: <the failed test and its figures>` or
        /// `not fitted: <why>`; the first three perhaps followed by a note in parentheses
        /// (whether a rectangle's corners were taken as rounded, what comparing an ellipse
        /// with polygons of more sides found), so compare their beginnings.
        public var verdict: String

        /// A hypothesis; the scores are nil for a shape that could not be fitted.
        public init(
            kind: ShapeKind, fittedTo: String? = nil, rmsDistance: Double? = nil, maximumDistance: Double? = nil,
            drawnFraction: Double? = nil, leastDrawnSide: Double? = nil, verdict: String
        ) {
            self.kind = kind
            self.fittedTo = fittedTo
            self.rmsDistance = rmsDistance
            self.maximumDistance = maximumDistance
            self.drawnFraction = drawnFraction
            self.leastDrawnSide = leastDrawnSide
            self.verdict = verdict
        }
    }

    /// What `ShapeRecognizer.recognize` returns for the stroke.
    public var shape: RecognizedShape
    /// Every shape tried, fitted ones first.
    public var hypotheses: [Hypothesis]
    /// How the stroke was smoothed before any shape was fitted, in words, when its points
    /// lie on a grid coarse for its size (whole pixels on a small shape) or are noisy for
    /// it (a shaky hand); nil when they were fitted as drawn.
    public var smoothing: String?

    /// An explanation.
    public init(shape: RecognizedShape, hypotheses: [Hypothesis], smoothing: String? = nil) {
        self.shape = shape
        self.hypotheses = hypotheses
        self.smoothing = smoothing
    }
}
