public import CanvasCore

/// Recognises lines, rectangles, ellipses, triangles and arrows in hand-drawn strokes.
///
/// Every shape is a hypothesis: the stroke is fitted as each kind in turn, and the fit is
/// compared with the stroke (`OutlineMatch`). A shape is reported only when the stroke
/// stays close to it and traces all of it; a line is preferred when it passes (the
/// simplest explanation), otherwise the closest of the shapes that pass. All distances are
/// fractions of the stroke's size (the largest distance between two of its points), so a
/// small gesture and a whiteboard-sized shape are judged alike. A false recognition
/// destroys the user's drawing while a missed one costs a redraw, so the tolerances favour
/// leaving strokes alone. docs/recognition.md gives the method, the reasons for each
/// tolerance and the evaluation on human-drawn data.
public enum ShapeRecognizer {
    /// The recognised shape, or `.none` to leave the stroke as drawn.
    public static func recognize(_ points: [Point]) -> RecognizedShape {
        let accepted = candidates(points).filter(\.isAccepted)
        let best =
            accepted.first { $0.shape.kind == .line } ?? accepted.min { $0.match.rmsDistance < $1.match.rmsDistance }
        return best?.shape ?? .none
    }

    /// Points the stroke is resampled to before fitting: 16 per side of a rectangle, few
    /// enough that recognition costs about a millisecond.
    static let sampleCount = 64

    /// A line is held to closer tolerances than other shapes, being the easiest to draw
    /// and the one that curves, brackets and ticks most resemble: the root-mean-square
    /// distance from the stroke at most this fraction of its length ...
    static let lineRMSTolerance = 0.025
    /// ... and no point farther than this fraction (30 px for a 500 px line; the original
    /// app allowed 20 px whatever the length).
    static let lineDistanceTolerance = 0.06
    /// Other shapes: the root-mean-square distance from the stroke may be at most this
    /// fraction of the stroke's size. Hand-drawn sides wobble and corners get rounded;
    /// letters and scribbles stray much farther from any shape.
    static let rmsTolerance = 0.05
    /// Other shapes: no point of the stroke may be farther than this fraction of its size
    /// from the shape (nor an arrow's shaft from straight).
    static let distanceTolerance = 0.2
    /// The stroke must trace at least this fraction of the shape's outline (the rest is
    /// the gap people leave when closing a shape) ...
    static let minimumDrawnFraction = 0.8
    /// ... and at least this fraction of each straight side: a caret is not a triangle
    /// with its base left out, nor an X an arrow with an undrawn edge.
    static let minimumDrawnSide = 0.5
    /// A hand-drawn rectangle's corners may be this far from right angles (radians); the
    /// rectangle that replaces it has right angles.
    static let skewTolerance = 40 * Double.pi / 180
    /// A turn sharper than this (radians) is a corner: an ellipse has none; an arrow's tip
    /// is the first; within `hookLength` of the stroke's length from either end it is a
    /// hook, cut off before fitting (pens hook as they land and lift, and closing a
    /// polygon overshoots its first corner).
    static let sharpTurn = 60 * Double.pi / 180
    static let hookLength = 0.1

    /// A recognised ellipse is a polygon whose chords stray from the curve by at most this
    /// many pixels (a quarter: invisible at any zoom a whiteboard is drawn at), with at
    /// least `ellipseMinimumSegments` sides however small it is.
    static let ellipseFlatness = 0.25
    static let ellipseMinimumSegments = 32

    /// A shape hypothesis and how well the stroke matches it.
    struct Candidate {
        var shape: RecognizedShape
        var match: OutlineMatch
        /// The stroke's size: its largest extent.
        var size: Double

        var isAccepted: Bool {
            if shape.kind == .line {
                return match.rmsDistance <= lineRMSTolerance * size
                    && match.maximumDistance <= lineDistanceTolerance * size
            }
            return match.rmsDistance <= rmsTolerance * size && match.maximumDistance <= distanceTolerance * size
                && match.drawnFraction >= minimumDrawnFraction && match.leastDrawnSide >= minimumDrawnSide
        }
    }

    /// Every shape the stroke could be, each with its match.
    static func candidates(_ points: [Point]) -> [Candidate] {
        let whole = StrokeResampling.resampled(points, count: sampleCount)
        guard !whole.isEmpty else { return [] }
        let wholeSize = StrokeResampling.diameter(of: whole)
        // Hooks are trimmed for every shape but the arrow, whose last barb is a sharp turn
        // near the end.
        let stroke = StrokeResampling.resampled(
            StrokeResampling.trimmingHooks(whole, within: hookLength, sharperThan: sharpTurn), count: sampleCount)
        let size = StrokeResampling.diameter(of: stroke)
        guard size > 0, size.isFinite else { return [] }

        /// `sides`: the pieces the stroke should follow, by default the replacement's
        /// segments.
        func candidate(_ kind: ShapeKind, _ replacement: [Point], sides: [[Point]]? = nil) -> Candidate {
            let sides = sides ?? Self.segments(of: replacement)
            let match = OutlineMatch(stroke: stroke, sides: sides)
            return Candidate(shape: RecognizedShape(kind: kind, points: replacement), match: match, size: size)
        }
        var result = [candidate(.line, FittedLine.segment(through: stroke))]
        let polygons = PolygonFit(stroke)
        if let triangle = polygons.triangle() {
            result.append(candidate(.triangle, triangle))
        }
        if let rectangle = polygons.rectangle(skewTolerance: skewTolerance) {
            result.append(candidate(.rectangle, rectangle.rectangle, sides: segments(of: rectangle.drawn)))
        }
        // An ellipse has no corners (which keeps most pentagons, close to their circles, from
        // being taken for them), and one wider than the stroke cannot be mostly traced by it.
        let interior = StrokeResampling.turnReach..<(stroke.count - StrokeResampling.turnReach)
        let hasCorner = interior.contains { StrokeResampling.turn(of: stroke, at: $0) > sharpTurn }
        if !hasCorner, let ellipse = FittedEllipse(fitting: stroke), ellipse.semiMajor <= size {
            let outline = ellipse.outline(tolerance: ellipseFlatness, minimumSegments: ellipseMinimumSegments)
            result.append(candidate(.ellipse, outline, sides: [outline]))
        }
        let arrows = ArrowFit.candidates(
            whole, hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: distanceTolerance * wholeSize)
        for arrow in arrows {
            let match = OutlineMatch(stroke: whole, sides: arrow.drawnSides)
            result.append(
                Candidate(
                    shape: RecognizedShape(kind: .arrow, points: arrow.symmetricPolyline), match: match,
                    size: wholeSize))
        }
        return result
    }

    /// The segments of a polyline.
    private static func segments(of polyline: [Point]) -> [[Point]] {
        zip(polyline, polyline.dropFirst()).map { [$0, $1] }
    }
}
