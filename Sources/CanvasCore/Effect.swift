/// What applying one operation did to a document: whether it added information (only
/// novel operations are forwarded, which stops relay loops), and what to redraw.
public struct Effect: Equatable, Sendable {
    /// The stroke the operation was about.
    public var strokeID: StrokeID
    /// True when the document changed. Duplicates and operations already implied by the
    /// document are not novel.
    public var isNovel: Bool
    /// The header was set or replaced: redraw the whole stroke.
    public var headerChanged: Bool
    /// Indices of drawable points (the contiguous prefix) that appeared or changed value.
    public var changedPoints: Range<Int>?
    /// The part of the parameter range that became erased.
    public var newlyErased: IntervalSet
    /// For an APPEND, the index its first point was placed at (the resolved offset when the
    /// operation had none): forward the operation with this offset.
    public var appendOffset: Int?
    /// Faulty-peer conflicts this operation revealed (a different header for the same
    /// stroke, or different values for points already known).
    public var anomalies: Int

    /// An effect that changed nothing.
    public init(unchanged strokeID: StrokeID) {
        self.strokeID = strokeID
        isNovel = false
        headerChanged = false
        changedPoints = nil
        newlyErased = IntervalSet()
        appendOffset = nil
        anomalies = 0
    }
}
