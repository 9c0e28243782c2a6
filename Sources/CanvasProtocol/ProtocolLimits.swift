/// The limits every message must respect (documented in protocol/PROTOCOL.md). A message
/// beyond them is rejected whole, before anything is applied.
public enum ProtocolLimits {
    /// Largest message accepted, in bytes of JSON.
    public static let maxMessageBytes = 1 << 20
    /// Most points in one message (an APPEND, or all strokes of a MEGA together).
    public static let maxPointsPerMessage = 65_536
    /// Longest stroke identifier, in bytes of UTF-8.
    public static let maxIdentifierBytes = 256
    /// Deepest nesting of arrays and objects.
    public static let maxNestingDepth = 16
    /// Largest index a point of an APPEND with `offset` may have (so a stroke holds at most
    /// 2²⁴ + 1 points that way).
    public static let maxPointIndex = 1 << 24
}
