/// Counts that describe a document at a glance (`canvas replay` prints them).
public struct DocumentStatistics: Hashable, Sendable {
    /// Strokes, placeholders included.
    public var strokes = 0
    /// Strokes whose ADD has not arrived.
    public var placeholders = 0
    /// Drawable points (the contiguous prefixes), starts included.
    public var points = 0
    /// Points waiting beyond a gap.
    public var pendingPoints = 0
    /// Erased intervals over all strokes.
    public var erasedIntervals = 0
}

extension Document {
    /// The document's statistics; O(strokes).
    public var statistics: DocumentStatistics {
        var result = DocumentStatistics()
        for stroke in strokes {
            result.strokes += 1
            result.placeholders += stroke.isPlaceholder ? 1 : 0
            result.points += stroke.points.count
            result.pendingPoints += stroke.pending.reduce(0) { $0 + $1.points.count }
            result.erasedIntervals += stroke.erased.intervals.count
        }
        return result
    }
}
