import CanvasCore

/// How closely a stroke follows a candidate shape, measured both ways: how far the stroke
/// strays from the shape, and how much of each of the shape's sides the stroke draws.
///
/// Every shape hypothesis is judged by these same measures against the shape as it was
/// drawn, so a shape is only reported when the stroke really traces all of it.
struct OutlineMatch {
    /// Root-mean-square distance from the stroke's points to the shape.
    var rmsDistance: Double
    /// The largest distance from a stroke point to the shape.
    var maximumDistance: Double
    /// The smallest fraction of a side that the stroke traces: 1 when every side is drawn
    /// end to end.
    var leastDrawnSide: Double
    /// The fraction of the whole shape that the stroke traces.
    var drawnFraction: Double

    /// Compares `stroke` (equally spaced points) with a shape made of `sides`, each a
    /// polyline.
    ///
    /// A side is drawn where the stroke runs along it: every stroke point belongs to its
    /// nearest side, where it covers its foot on that side; consecutive feet no farther
    /// apart than twice the stroke's sample spacing cover the stretch between them. So a
    /// side that the stroke only passes near (the undrawn base of a caret read as a
    /// triangle, the far side of a thin ellipse the stroke runs along one side of) counts as
    /// undrawn.
    init(stroke: [Point], sides: [[Point]]) {
        var sumOfSquares = 0.0
        var largest = 0.0
        var feet = [[Double]](repeating: [], count: sides.count)
        for point in stroke {
            var nearest = (distance: Double.infinity, side: 0, position: 0.0)
            for k in sides.indices {
                let foot = Self.foot(of: point, on: sides[k])
                if foot.distance < nearest.distance { nearest = (foot.distance, k, foot.position) }
            }
            sumOfSquares += nearest.distance * nearest.distance
            largest = max(largest, nearest.distance)
            feet[nearest.side].append(nearest.position)
        }
        rmsDistance = (sumOfSquares / Double(max(stroke.count, 1))).squareRoot()
        maximumDistance = largest
        let bridge = 2 * StrokeResampling.length(of: stroke) / Double(max(stroke.count - 1, 1))
        var least = 1.0
        var drawn = 0.0
        var total = 0.0
        for k in sides.indices {
            let sorted = feet[k].sorted()
            var covered = 0.0
            for i in sorted.indices.dropFirst() where sorted[i] - sorted[i - 1] <= bridge {
                covered += sorted[i] - sorted[i - 1]
            }
            let length = StrokeResampling.length(of: sides[k])
            if length > 0 { least = min(least, covered / length) }
            drawn += covered
            total += length
        }
        leastDrawnSide = least
        drawnFraction = total > 0 ? drawn / total : 1
    }

    /// The distance from `point` to the polyline, and the arc length along the polyline
    /// to the nearest point.
    static func foot(of point: Point, on polyline: [Point]) -> (distance: Double, position: Double) {
        guard let first = polyline.first else { return (.infinity, 0) }
        var best = (distance: point.distance(to: first), position: 0.0)
        var travelled = 0.0
        for k in polyline.indices.dropFirst() {
            let (a, edge) = (polyline[k - 1], polyline[k] - polyline[k - 1])
            let length = edge.length
            let t = length > 0 ? min(1, max(0, (point - a).dot(edge) / (length * length))) : 0
            let distance = point.distance(to: a + edge * t)
            if distance < best.distance { best = (distance, travelled + t * length) }
            travelled += length
        }
        return best
    }
}
