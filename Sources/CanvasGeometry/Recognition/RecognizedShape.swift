public import CanvasCore

/// The shapes a finished stroke can be recognised as.
public enum ShapeKind: String, Sendable, CaseIterable {
    case line, rectangle, ellipse, triangle, arrow
    /// Not a shape: the stroke is left as drawn.
    case none
}

/// A recognised shape and the geometry that replaces the hand-drawn stroke.
public struct RecognizedShape: Hashable, Sendable {
    public var kind: ShapeKind
    /// The replacement geometry as a polyline (drawn with is_shape: straight segments
    /// between points): a line's 2 end points; a rectangle's 4 corners (right angles, any
    /// rotation), closed (5 points); a triangle's 3 corners, closed (4 points); an ellipse
    /// as a closed polygon whose chords stray from the curve by at most a quarter of a
    /// pixel; an arrow as tail, tip, barb, tip, barb. Closed shapes start at the corner
    /// nearest the stroke's start and follow the drawing direction. Empty for `.none`.
    public var points: [Point]

    public init(kind: ShapeKind, points: [Point]) {
        self.kind = kind
        self.points = points
    }

    /// Not a shape.
    public static let none = RecognizedShape(kind: .none, points: [])
}
