import CanvasCore

/// A straight arrow with a head at each end, drawn in one stroke (a two-way connector):
/// one head, the shaft, the other head.
///
/// The shaft is the stroke's longest stretch between two sharp turns. From the turn before
/// it, the stroke is read as a one-headed arrow with its head last, and up to the turn after
/// it as one with its head first (`ArrowFit.readings`: every test of a shaft and a head the
/// same, each head against the shaft from the other's tip). Each pair of those readings,
/// their heads open or closed, is one double arrow, which the whole stroke must then follow
/// and trace as any shape's stroke must. Without it such a stroke was a line when its heads
/// were small (the line's hooks, cut off at both ends, took the heads with them), or an
/// arrow that erased one head, or nothing when they were large.
struct DoubleArrowFit {
    /// The arrow whose head is at the stroke's start, its tail the other head's tip.
    var first: ArrowFit
    /// The arrow whose head is at the stroke's end, its tail the first head's tip.
    var last: ArrowFit
    /// The shaft as drawn: the stroke from one tip to the other.
    var shaft: [Point]

    /// What the stroke should follow: the shaft as drawn, then each head's sides (its
    /// barbs, and the stroke across their ends for a closed head).
    var drawnSides: [[Point]] { [shaft] + first.drawnSides.dropFirst() + last.drawnSides.dropFirst() }

    /// Whether the head at the stroke's start, and the one at its end, are closed.
    var closedHeads: (first: Bool, last: Bool) { (first.hasClosedHead, last.hasClosedHead) }

    /// The arrow made straight and symmetric, each head as a one-headed arrow's
    /// (`ArrowFit.symmetricPolyline`): barb, tip, barb, tip at the start, then tip, barb,
    /// tip, barb at the end; a closed head stays closed: tip, barb, barb, tip at the start,
    /// or at the end.
    var symmetricPolyline: [Point] {
        let (tip, barbs) = (first.tip, first.symmetricBarbs)
        let startHead = first.hasClosedHead ? [tip, barbs.0, barbs.1, tip] : [barbs.0, tip, barbs.1, tip]
        return startHead + last.symmetricPolyline.dropFirst()
    }

    /// Why a stroke has no double arrow reading.
    enum Refusal {
        /// The stroke turns sharply `count` times: a shaft needs a turn at each end.
        case fewTurns(count: Int)
        /// The reading of one end or both, with its first refused test (lengths in the
        /// stroke's units).
        case noHead(FurthestRefusals<ArrowFit.RefusedReading>)
        /// The heads' barbs reach `reach` back along the shaft together, at least its length
        /// `shaft`: the heads meet (lengths in the stroke's units).
        case headsMeet(reach: Double, shaft: Double)
        /// The head read at the stroke's start has its tip no earlier along the stroke than
        /// the one read at its end: the two readings overlap.
        case tipsOutOfOrder

        /// In words, lengths as fractions of `size`.
        func description(size: Double) -> String {
            switch self {
            case .fewTurns(let count):
                "no head at each end: the stroke turns sharply \(count == 1 ? "once" : "\(count) times"), "
                    + "a shaft between two heads at least twice"
            case .noHead(let refusals): "no head at each end: " + refusals.description(size: size)
            case .headsMeet(let reach, let shaft):
                "the heads meet: their barbs reach \(ShapeRecognizer.figure(reach / shaft)) of the shaft's length "
                    + "back along it together (less than 1)"
            case .tipsOutOfOrder:
                "the heads overlap: the tip of the head at the stroke's start comes no earlier along it "
                    + "than the tip of the head at its end"
            }
        }
    }

    /// The double arrows `stroke` (equally spaced points) may be, with the tolerances of
    /// `ArrowFit.readings` (`hookLength`, `sharpTurn`, `maximumBow`, `minimumBarb`); when
    /// none, why.
    static func readings(
        _ stroke: [Point], hookLength: Double, sharpTurn: Double, maximumBow: Double, minimumBarb: Double
    ) -> (fits: [DoubleArrowFit], refusal: Refusal?) {
        let turns = ElbowArrowFit.sharpTurns(of: stroke, from: 0, sharperThan: sharpTurn, limit: .max)
        guard turns.count >= 2 else { return ([], .fewTurns(count: turns.count)) }
        // The longest stretch between two turns (the first of equally long ones).
        var (start, end) = (turns[0], turns[1])
        for (from, to) in zip(turns.dropFirst(), turns.dropFirst(2)) where to - from > end - start {
            (start, end) = (from, to)
        }
        let headLast = ArrowFit.readings(
            Array(stroke[start...]), hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: maximumBow,
            headLast: true, headFirst: false, minimumBarb: minimumBarb)
        let headFirst = ArrowFit.readings(
            Array(stroke[...end]), hookLength: hookLength, sharpTurn: sharpTurn, maximumBow: maximumBow,
            headLast: false, headFirst: true, minimumBarb: minimumBarb)
        guard !headLast.fits.isEmpty, !headFirst.fits.isEmpty else {
            var refusals = FurthestRefusals<ArrowFit.RefusedReading>()
            for (refused, words, isLast) in [
                (headLast.headLast, "the stroke on from the turn before its longest straight stretch", true),
                (headFirst.headFirst, "the stroke up to the turn after its longest straight stretch", false),
            ] {
                if let refused { refusals.keep(.init(reading: words, refusal: refused), headLast: isLast) }
            }
            return ([], .noHead(refusals))
        }
        // The heads lie at their own ends: how far back along the shaft each one's barbs
        // reach, together, is less than the shaft is long (a five-point star's edge, read as
        // a shaft, has the star's other edges for heads, each reaching most of the way back).
        let (firstHead, lastHead) = (headFirst.fits[0], headLast.fits[0])
        let (reach, shaft) = (firstHead.barbReach + lastHead.barbReach, firstHead.tip.distance(to: lastHead.tip))
        guard reach < shaft else { return ([], .headsMeet(reach: reach, shaft: shaft)) }
        // The tips' places in the stroke: each reading's head begins at its tip (the first
        // read reversed, from the other end).
        let (firstTip, lastTip) = (firstHead.headPoints.upperBound - 1, start + lastHead.headPoints.lowerBound)
        guard firstTip < lastTip else { return ([], .tipsOutOfOrder) }
        var fits: [DoubleArrowFit] = []
        for var first in headFirst.fits {
            for var last in headLast.fits {
                // One shaft, from tip to tip.
                (first.tail, last.tail) = (last.tip, first.tip)
                fits.append(DoubleArrowFit(first: first, last: last, shaft: Array(stroke[firstTip...lastTip])))
            }
        }
        return (fits, nil)
    }
}
