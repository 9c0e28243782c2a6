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
    /// Largest point index an APPEND offset may name (points per stroke).
    public static let maxPointIndex = 1 << 24
    /// Most strokes in one MEGA.
    public static let maxStrokesPerMega = 100_000
}
