import CanvasCore

/// The noise of a stroke's points, averaged out of the stroke when it is large for the
/// stroke's size.
///
/// A shaky hand or a noisy screen moves every point a little off the line it is drawn
/// along. The data's strokes stray 0.3–0.6 % of their size; noise of 2 % turns a stroke by
/// more than 60° between samples a few pixels apart, which the ellipse's corner test reads
/// as corners and the arrow's readings as a tip or barbs (docs/recognition.md, "Pen
/// noise"). The noise is measured on the stroke itself: each point's distance from the
/// chord between its neighbours is, for Gaussian noise of deviation σ in each coordinate,
/// the point's own deviation less half of each neighbour's (√1.5 σ), whose median size is
/// 0.83 σ; a stroke's corners move few points, and its curves all of them only a little
/// when its points are close together (`leastPoints`). When the noise is over
/// `largeNoise` of the stroke's extent, each point is replaced by the mean of the stroke
/// over `halfWindow` deviations either side of it (`StrokeSmoothing.averaged`).
struct PenNoise: Equatable {
    /// The noise's estimated deviation in each coordinate.
    var deviation: Double
    /// The larger side of the stroke's bounding box.
    var extent: Double

    /// Noise over this fraction of the stroke's extent is averaged out: twice what the
    /// development subjects' strokes show at p90 (0.6 %; p99 0.85 %).
    static let largeNoise = 0.012
    /// Fewer distinct points than this show the stroke's curves more than its noise: a
    /// circle through n points strays from its neighbours' chords by π²/n² of its size,
    /// read as noise of 11.9/n² (0.74 % at 40 points, under `largeNoise`).
    static let leastPoints = 40
    /// Half the arc each point is averaged over, in deviations: the least whole number at
    /// which the development subjects' circles and arrows with noise of 2 % of their size
    /// were recognised within a point of the same strokes without it (docs/recognition.md).
    static let halfWindow = 5.0
    /// The median distance from a neighbours' chord, in deviations of Gaussian noise:
    /// 0.674 × √1.5.
    static let medianDistance = 0.674 * 1.5.squareRoot()

    /// The noise of `points` when it is large, or nil: not large, or not to be told from
    /// the stroke's shape (fewer than `leastPoints` distinct points).
    static func large(in points: [Point]) -> PenNoise? {
        guard points.count >= leastPoints else { return nil }
        // Each distinct point's distance from the chord between its distinct neighbours: its
        // cross product with the chord over the chord's length (none for a chord of no
        // length, where the pen turned straight back).
        func eachDistance(_ body: (_ cross: Double, _ chord: Point) -> Bool) {
            var (a, b) = (points[0], points[0])
            var seen = 1
            for point in points.dropFirst() where point != b {
                seen += 1
                if seen >= 3 {
                    let chord = point - a
                    guard body((b - a).cross(chord), chord) else { return }
                }
                (a, b) = (b, point)
            }
        }
        // Most strokes are told apart in one pass that stops halfway: the median distance
        // (`distances[count / 2]` below) is within the threshold once more than half the
        // distances are, counted without a square root against the threshold of a box from
        // five of the points (`StrokeSmoothing.quarterPointsBox`: no larger than the stroke's,
        // so a distance within it is within the stroke's) and more than half the points as
        // they are (so more than half the distinct ones).
        var box = StrokeSmoothing.quarterPointsBox(of: points)
        let least = largeNoise * medianDistance * box.longerSide
        var within = 0
        var stoppedHalfway = false
        eachDistance { cross, chord in
            if cross * cross <= least * least * chord.dot(chord) { within += 1 }
            stoppedHalfway = 2 * within > points.count - 2
            return !stoppedHalfway
        }
        if stoppedHalfway { return nil }
        // The others: the distinct points, the stroke's box and every distance.
        var distinct = 1
        for (a, b) in zip(points, points.dropFirst()) where a != b {
            distinct += 1
            box.formUnion(b)
        }
        let extent = box.longerSide
        guard distinct >= leastPoints, extent > 0, extent.isFinite else { return nil }
        var distances: [Double] = []
        distances.reserveCapacity(distinct)
        eachDistance { cross, chord in
            let length = chord.length
            distances.append(length > 0 ? abs(cross) / length : 0)
            return true
        }
        distances.sort()
        let deviation = distances[distances.count / 2] / medianDistance
        guard deviation > largeNoise * extent else { return nil }
        return PenNoise(deviation: deviation, extent: extent)
    }

    /// `points` with the noise averaged out (`StrokeSmoothing.averaged` over `halfWindow`
    /// deviations).
    func smoothed(_ points: [Point]) -> [Point] {
        StrokeSmoothing.averaged(points, within: Self.halfWindow * deviation)
    }
}
