public import CanvasCore

/// An axis-aligned rectangle, for bounds and spatial queries.
public struct Rect: Hashable, Sendable {
    /// Left edge.
    public var minX: Double
    /// Top edge (y grows downwards).
    public var minY: Double
    /// Right edge.
    public var maxX: Double
    /// Bottom edge.
    public var maxY: Double

    /// A rectangle from its edges.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The smallest rectangle holding every point (nil for none).
    public init?(enclosing points: some Sequence<Point>) {
        var iterator = points.makeIterator()
        guard let first = iterator.next() else { return nil }
        self.init(minX: first.x, minY: first.y, maxX: first.x, maxY: first.y)
        while let point = iterator.next() {
            formUnion(point)
        }
    }

    /// Horizontal extent.
    public var width: Double { maxX - minX }
    /// Vertical extent.
    public var height: Double { maxY - minY }

    /// Grows the rectangle to hold `point`.
    public mutating func formUnion(_ point: Point) {
        minX = min(minX, point.x)
        minY = min(minY, point.y)
        maxX = max(maxX, point.x)
        maxY = max(maxY, point.y)
    }

    /// The smallest rectangle holding both.
    public func union(_ other: Rect) -> Rect {
        Rect(minX: min(minX, other.minX), minY: min(minY, other.minY), maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    /// The rectangle grown by `margin` on every side.
    public func expanded(by margin: Double) -> Rect {
        Rect(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    /// True when the rectangles share at least one point.
    public func intersects(_ other: Rect) -> Bool {
        minX <= other.maxX && other.minX <= maxX && minY <= other.maxY && other.minY <= maxY
    }
}
