/// The identifier of a stroke: a non-empty string chosen by the stroke's author and unique
/// within a room (the original app used `NODE_COUNTER` style names).
public struct StrokeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The identifier as it travels on the wire.
    public let rawValue: String

    /// Creates an identifier; the protocol layer rejects empty or oversized identifiers
    /// before they reach the document.
    @inlinable
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Identifiers sort by their UTF-8 bytes, so every platform orders them alike.
    public static func < (lhs: StrokeID, rhs: StrokeID) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    public var description: String { rawValue }
}
