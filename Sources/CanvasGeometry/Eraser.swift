public import CanvasCore

/// The circular eraser: which parts of which strokes a circle erases as it moves along the
/// pointer's path, as DELETE operations.
///
/// A point of a stroke is erased when its distance to the path (a polyline of pointer
/// samples) is at most the radius: the circle swept along each step of the path covers a
/// capsule. Each segment near the path (found through the spatial index) is subdivided by
/// De Casteljau: a piece whose control points all lie inside a capsule is inside (the
/// capsule is convex and holds the piece's hull); a piece whose hull a line separates from
/// the capsule is outside; a piece that is neither is split until it is nearly straight,
/// then its chord is intersected with the capsule. The flatness bound holds at the same
/// parameter (`CubicBezier.chordDeviation`), so a chord parameter maps linearly back to the
/// curve's: every point more than `flatness` inside the swept area is erased, every point
/// more than `flatness` outside is not, and a boundary where the stroke crosses the
/// circle at an angle θ lies within flatness / sin θ of the true crossing.
public enum Eraser {
    /// How far (in canvas pixels) a nearly straight piece may stray from its chord: a
    /// micro-pixel, or a thousandth of a smaller radius. Only the pieces along the circle's
    /// edge are split this finely, so it costs a few dozen splits per crossing.
    static func flatness(radius: Double) -> Double {
        min(1e-6, radius / 1000)
    }

    /// Subdivision stops here whatever the flatness: 2⁻⁴⁰ of a segment is far below a
    /// pixel for any segment that fits on a canvas.
    static let maximumDepth = 40

    /// And after this many pieces of one segment against one capsule, the rest are taken
    /// as chords, as at the maximum depth. A segment crossing the circle's edge costs a few
    /// dozen pieces a crossing; but where a peer put a point 10¹⁹ px away, a rounding error
    /// is thousands of pixels, no piece along the capsule can be decided inside or outside
    /// a circle of a few pixels, and all 2⁴⁰ would be split (found by FuzzReplica: erasing
    /// along such a stroke never returned).
    static let maximumPieces = 4096

    /// DELETE operations for every stroke the circle of `radius`, swept along the polyline
    /// `path` of pointer samples (a single sample is a single circle), touches in its
    /// visible parts. Already-erased parts are not erased again; strokes it does not touch
    /// yield nothing. Sorted by stroke identifier, then by start.
    ///
    /// A stroke of one point (a dot) within reach is erased as [0, 1] (a DELETE needs
    /// start < end; offsets beyond the end are allowed). A touch at a single parameter (a
    /// tangent, an end point grazed) erases nothing. Placeholders and strokes without
    /// points are ignored. `index` must be up to date with `document`'s points (see
    /// `SpatialIndex.update(_:)`); erasing does not change it. A path with a
    /// non-finite point, or a radius that is not finite and positive, erases nothing.
    public static func deletions(along path: [Point], radius: Double, in document: Document, index: SpatialIndex) -> [Operation] {
        guard !path.isEmpty, radius > 0, radius.isFinite, path.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            return []
        }
        let capsules =
            path.count == 1
            ? [Capsule(from: path[0], to: path[0], radius: radius)]
            : zip(path, path.dropFirst()).map { Capsule(from: $0, to: $1, radius: radius) }
        // For each segment near each capsule: (stroke number << 32 | segment, capsule),
        // sorted so that each stroke's segments, and each segment's capsules, are together.
        var candidates: [(segment: UInt64, capsule: Int)] = []
        for (number, capsule) in capsules.enumerated() {
            index.forEachSegment(intersecting: capsule.bounds) { stroke, segment in
                candidates.append((UInt64(stroke) << 32 | UInt64(segment), number))
            }
        }
        candidates.sort { $0.segment != $1.segment ? $0.segment < $1.segment : $0.capsule < $1.capsule }

        var erased: [(id: StrokeID, intervals: IntervalSet)] = []
        var start = 0
        while start < candidates.count {
            let number = UInt32(candidates[start].segment >> 32)
            var end = start + 1
            while end < candidates.count, UInt32(candidates[end].segment >> 32) == number {
                end += 1
            }
            let id = index.identifier(of: number)
            if let stroke = document[id] {
                let intervals = newlyErased(stroke, near: candidates[start..<end], capsules, flatness: flatness(radius: radius))
                if !intervals.isEmpty {
                    erased.append((id, intervals))
                }
            }
            start = end
        }
        erased.sort { $0.id < $1.id }
        return erased.flatMap { stroke in
            stroke.intervals.intervals.map { Operation.delete(stroke.id, start: $0.lowerBound, end: $0.upperBound) }
        }
    }

    /// The visible parameters of `stroke` inside the capsules, given its candidate
    /// segments (low 32 bits of `segment`) and the capsules near each.
    private static func newlyErased(
        _ stroke: Stroke, near candidates: ArraySlice<(segment: UInt64, capsule: Int)>, _ capsules: [Capsule],
        flatness: Double
    ) -> IntervalSet {
        guard let header = stroke.header, !stroke.points.isEmpty else { return IntervalSet() }
        let points = stroke.points
        var hits = IntervalSet()
        if points.count == 1 {
            guard !stroke.erased.contains(0), candidates.contains(where: { capsules[$0.capsule].contains(points[0]) }) else {
                return IntervalSet()
            }
            hits.insert(from: 0, through: 1)
        } else {
            var current: (k: Int, curve: CubicBezier?) = (-1, nil)
            for candidate in candidates {
                let k = Int(candidate.segment & 0xFFFF_FFFF)
                guard k < points.count - 1 else { continue }
                if k != current.k {
                    let curve = StrokeCurves.segment(k, of: points, isShape: header.isShape)
                    // A segment already erased is skipped; so is one with a non-finite
                    // coordinate (it draws nothing, and no piece of it would ever be decided).
                    let skip = stroke.erased.contains(Double(k)...Double(k + 1)) || !curve.isFinite
                    current = (k, skip ? nil : curve)
                }
                if let curve = current.curve {
                    var budget = maximumPieces
                    collect(
                        curve, from: 0, to: 1, segment: Double(k), inside: capsules[candidate.capsule], flatness: flatness,
                        depth: 0, budget: &budget, into: &hits)
                }
            }
        }
        return hits.subtracting(stroke.erased)
    }

    /// Adds to `hits` the parameters u = k + t of the points of `piece` (the part t ∈ [t0, t1]
    /// of segment k, reparameterised to [0, 1]) inside `capsule`; `budget` is the pieces
    /// that may still be examined (`maximumPieces`).
    private static func collect(
        _ piece: CubicBezier, from t0: Double, to t1: Double, segment k: Double, inside capsule: Capsule, flatness: Double,
        depth: Int, budget: inout Int, into hits: inout IntervalSet
    ) {
        budget -= 1
        if capsule.containsHull(of: piece) {
            hits.insert(from: k + t0, through: k + t1)
            return
        }
        if capsule.isSeparated(from: piece) {
            return
        }
        if depth >= maximumDepth || budget <= 0 || piece.chordDeviation <= flatness {
            if let (s0, s1) = capsule.chordInterval(from: piece.p0, to: piece.p3) {
                // t0·(1 − s) + t1·s is exact at s = 0 and s = 1, so pieces that meet
                // share their boundary and their intervals coalesce.
                hits.insert(from: k + (t0 * (1 - s0) + t1 * s0), through: k + (t0 * (1 - s1) + t1 * s1))
            }
            return
        }
        let (left, right) = piece.split(at: 0.5)
        let middle = (t0 + t1) / 2
        collect(
            left, from: t0, to: middle, segment: k, inside: capsule, flatness: flatness, depth: depth + 1,
            budget: &budget, into: &hits)
        collect(
            right, from: middle, to: t1, segment: k, inside: capsule, flatness: flatness, depth: depth + 1,
            budget: &budget, into: &hits)
    }
}

extension CubicBezier {
    /// True when every control point, and the chord deviation, is finite.
    fileprivate var isFinite: Bool {
        p0.x.isFinite && p0.y.isFinite && p1.x.isFinite && p1.y.isFinite && p2.x.isFinite && p2.y.isFinite && p3.x.isFinite
            && p3.y.isFinite && chordDeviation.isFinite
    }
}
