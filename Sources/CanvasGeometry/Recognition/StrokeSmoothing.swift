import CanvasCore

/// What the recogniser averages out of a stroke before fitting it: detail finer than the
/// pen recorded it with, which is no part of the shape drawn. A stroke on a grid coarse for
/// its size (`PenGrid`: whole pixels on a small shape) is averaged over the grid's step,
/// then one whose points are noisy for its size (`PenNoise`: a shaky hand, a noisy screen)
/// over its noise. Every other stroke is fitted as drawn.
enum StrokeSmoothing {
    /// A stroke as the shapes are fitted to it, and what was averaged out of it.
    struct Smoothed {
        /// The points the shapes are fitted to.
        var points: [Point]
        /// The coarse grid averaged out, if any.
        var grid: PenGrid?
        /// The large noise averaged out (after the grid), if any.
        var noise: PenNoise?
    }

    /// `drawn` as the shapes are fitted to it.
    static func smoothed(_ drawn: [Point]) -> Smoothed {
        let grid = PenGrid.coarse(of: drawn)
        let points = grid?.smoothed(drawn) ?? drawn
        let noise = PenNoise.large(in: points)
        return Smoothed(points: noise?.smoothed(points) ?? points, grid: grid, noise: noise)
    }

    /// The box of a stroke's first point, its last and the three between that split it in
    /// quarters: no larger than the stroke's box, and on most strokes nearly all of it, so
    /// that a test against a fraction of it can end at the stroke's first points.
    static func quarterPointsBox(of points: [Point]) -> Rect {
        var box = Rect(minX: points[0].x, minY: points[0].y, maxX: points[0].x, maxY: points[0].y)
        for quarter in 1...4 { box.formUnion(points[(points.count - 1) * quarter / 4]) }
        return box
    }

    /// `points` averaged along the stroke: each point the mean of the polyline over the arc
    /// of `halfWidth` either side of it, or as far as the nearer end when that is closer
    /// (the ends themselves unchanged). The points keep their number and order, so a
    /// sparsely sampled stroke stays sparse. The points as they are when the sums overflow
    /// (coordinates near the largest a Double holds).
    static func averaged(_ points: [Point], within halfWidth: Double) -> [Point] {
        guard points.count > 2, halfWidth > 0 else { return points }
        // Positions from the first point (so that a small stroke far out on the canvas keeps
        // its precision): the arc length at each point, and the integral of the position
        // along the arc up to it.
        let origin = points[0]
        let local = points.map { $0 - origin }
        var arc = [0.0]
        var integrated = [Point(x: 0, y: 0)]
        arc.reserveCapacity(points.count)
        integrated.reserveCapacity(points.count)
        for (a, b) in zip(local, local.dropFirst()) {
            let length = a.distance(to: b)
            arc.append(arc[arc.count - 1] + length)
            integrated.append(integrated[integrated.count - 1] + (a + b) * (length / 2))
        }
        let total = arc[arc.count - 1]
        guard total > 0, total.isFinite else { return points }
        // The integral of the position from the start to arc length `s`, within the segment
        // that begins at point `j`.
        func integral(to s: Double, segment j: Int) -> Point {
            let along = s - arc[j]
            let length = arc[j + 1] - arc[j]
            guard length > 0 else { return integrated[j] }
            let direction = (local[j + 1] - local[j]) / length
            return integrated[j] + local[j] * along + direction * (along * along / 2)
        }
        // The window's two ends only move forward from one point to the next: each walks the
        // segments once.
        var (lowSegment, highSegment) = (0, 0)
        let averaged = points.indices.map { index in
            let half = min(halfWidth, arc[index], total - arc[index])
            guard half > 0 else { return points[index] }
            let (from, to) = (arc[index] - half, arc[index] + half)
            while lowSegment < points.count - 2, arc[lowSegment + 1] < from { lowSegment += 1 }
            while highSegment < points.count - 2, arc[highSegment + 1] < to { highSegment += 1 }
            return origin
                + (integral(to: to, segment: highSegment) - integral(to: from, segment: lowSegment)) / (2 * half)
        }
        return averaged.allSatisfy { $0.x.isFinite && $0.y.isFinite } ? averaged : points
    }
}

extension Rect {
    /// The larger of the width and the height: a stroke's extent.
    var longerSide: Double { max(width, height) }
}
