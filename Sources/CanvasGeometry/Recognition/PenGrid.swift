import CanvasCore

/// The grid a stroke's points were recorded on, averaged out of the stroke when it is
/// coarse for the stroke's size.
///
/// A mouse records whole pixels, and so do many touch screens and pens; on a canvas
/// zoomed out by a factor z, a pixel is z units. A shape drawn a few dozen pixels across
/// (a small circle, an arrow on a zoomed-out board) is then a staircase whose steps are a
/// large share of its size: at 15 px, a circle's 64 samples lie about a pixel apart, and
/// every step turns 45°–90°, which the ellipse's corner test reads as a corner and an
/// arrow's head reading as barbs. When the grid's step is more than `coarseness` of the
/// stroke's extent, each point is replaced by the mean of the stroke over an arc of
/// `halfWindow` steps either side of it (`StrokeSmoothing.averaged`): the staircase
/// averages out to the line it steps along, and the shape, many steps across, stays.
struct PenGrid: Equatable {
    /// The grid's step: the least non-zero difference of either coordinate between two
    /// consecutive points.
    var step: Double
    /// The larger side of the stroke's bounding box.
    var extent: Double

    /// A grid step over this fraction of the stroke's extent is averaged out: the stroke
    /// is fewer than 40 steps across. At 40 px on whole pixels, the development subjects'
    /// shapes are recognised as at full size; at 20 px, before smoothing, 91 % of circles
    /// and 85 % of arrows were (docs/recognition.md, "Drawn small on whole pixels").
    static let coarseness = 1.0 / 40
    /// Half the arc each point is averaged over, in grid steps. A uniform window of half
    /// width h has the spread (standard deviation) h/√3 of the arc it covers: √3 steps
    /// spread the mean over one step, which takes out a staircase's corners (a step's
    /// quantisation error is uniform over one step) and leaves a corner of the shape, many
    /// steps long on each side, nearly as drawn.
    static let halfWindow = 3.0.squareRoot()
    /// The share of the non-zero coordinate differences that must be whole multiples of
    /// the least one (to a tenth of it) for the points to be on a grid of that step: every
    /// one of them on whole pixels; for points of a finer device or of a stroke whose
    /// points are far apart (a fast line of six points), the least difference is no grid,
    /// and a random difference is that near a multiple of it about one time in five.
    static let onGridShare = 0.75

    /// The coarse grid of `points`, or nil when they are on no grid coarser than
    /// `coarseness` of their extent (nor have any extent).
    static func coarse(of points: [Point]) -> PenGrid? {
        guard points.count > 2 else { return nil }
        // One pass for the least difference and the box. A difference within `coarseness` of
        // the box so far (which only grows) is a step of a fine grid: most strokes end here,
        // at their first points, the box being started from five of them
        // (`StrokeSmoothing.quarterPointsBox`).
        var box = StrokeSmoothing.quarterPointsBox(of: points)
        var step = Double.infinity
        for (a, b) in zip(points, points.dropFirst()) {
            box.formUnion(b)
            let fine = coarseness * box.longerSide
            for difference in [abs(b.x - a.x), abs(b.y - a.y)] where difference > 0 {
                guard difference > fine else { return nil }
                step = min(step, difference)
            }
        }
        let extent = box.longerSide
        guard extent > 0, extent.isFinite, step > coarseness * extent else { return nil }
        var (moves, multiples) = (0, 0)
        for (a, b) in zip(points, points.dropFirst()) {
            for difference in [abs(b.x - a.x), abs(b.y - a.y)] where difference > 0 {
                moves += 1
                let steps = difference / step
                if abs(steps - steps.rounded()) <= 0.1 { multiples += 1 }
            }
        }
        guard Double(multiples) >= onGridShare * Double(moves) else { return nil }
        return PenGrid(step: step, extent: extent)
    }

    /// `points` with the grid averaged out (`StrokeSmoothing.averaged` over `halfWindow`
    /// steps).
    func smoothed(_ points: [Point]) -> [Point] {
        StrokeSmoothing.averaged(points, within: Self.halfWindow * step)
    }
}
