/// A sampled position on the canvas, in canvas pixels.
///
/// Points are stored by value in contiguous arrays; a stroke of a million points is one
/// allocation of 16 MB, never a million objects.
public struct Point: Hashable, Sendable {
    /// Horizontal coordinate, growing to the right.
    public var x: Double
    /// Vertical coordinate, growing downwards (the SVG convention).
    public var y: Double

    /// Creates a point. Negative zero is stored as zero so that equal points have equal bits
    /// (digests hash bit patterns).
    @inlinable
    public init(x: Double, y: Double) {
        self.x = x + 0
        self.y = y + 0
    }

    /// The lexicographic order on (x, y) that resolves two different values for one index
    /// (DESIGN.md §3): the smaller point wins on every replica.
    @inlinable
    public static func precedes(_ a: Point, _ b: Point) -> Bool {
        a.x < b.x || (a.x == b.x && a.y < b.y)
    }
}
