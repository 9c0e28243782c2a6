/// What an ADD operation says about a stroke: its pen and where it starts.
public struct StrokeHeader: Hashable, Sendable {
    /// Pen width in pixels; finite and greater than zero.
    public var weight: Double
    /// Pen colour.
    public var colour: Colour
    /// The first point of the stroke (index 0 of its points).
    public var start: Point
    /// A recognised shape (legacy `is_shape`): drawn as a polyline, not a smooth curve.
    public var isShape: Bool

    /// A header; `isShape` is false for hand-drawn strokes.
    public init(weight: Double, colour: Colour, start: Point, isShape: Bool = false) {
        self.weight = weight
        self.colour = colour
        self.start = start
        self.isShape = isShape
    }

    /// The header fields exactly as the canonical ADD encoding writes them after the
    /// identifier. Two conflicting headers of one stroke compare by these bytes.
    public var canonicalBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        CanonicalJSON.appendHeaderFields(self, to: &bytes)
        return bytes
    }

    /// The rule that makes conflicting ADDs converge (DESIGN.md §3): every replica keeps
    /// the header whose canonical encoding is byte-wise smaller.
    public static func wins(_ candidate: StrokeHeader, over current: StrokeHeader) -> Bool {
        candidate != current && candidate.canonicalBytes.lexicographicallyPrecedes(current.canonicalBytes)
    }
}
