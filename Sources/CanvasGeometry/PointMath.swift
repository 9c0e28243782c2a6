public import CanvasCore

extension Point {
    @inlinable public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    @inlinable public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    @inlinable public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }
    @inlinable public static func * (s: Double, a: Point) -> Point { Point(x: a.x * s, y: a.y * s) }
    @inlinable public static func / (a: Point, s: Double) -> Point { Point(x: a.x / s, y: a.y / s) }

    /// Dot product, treating points as vectors.
    @inlinable public func dot(_ other: Point) -> Double { x * other.x + y * other.y }
    /// The z component of the cross product, treating points as vectors.
    @inlinable public func cross(_ other: Point) -> Double { x * other.y - y * other.x }
    /// Euclidean length, treating the point as a vector.
    @inlinable public var length: Double { (x * x + y * y).squareRoot() }
    /// Distance to another point.
    @inlinable public func distance(to other: Point) -> Double { (self - other).length }

    /// The point at `t` on the segment from `self` to `other`.
    @inlinable public func interpolated(to other: Point, at t: Double) -> Point {
        Point(x: x + (other.x - x) * t, y: y + (other.y - y) * t)
    }
}
