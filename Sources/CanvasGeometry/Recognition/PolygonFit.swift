import CanvasCore
import Foundation

/// Triangles and rectangles fitted to a closed stroke: the stroke is split into three or
/// four straight runs (`StraightRunPartition`), one per side, and each side is the best
/// line through its run, so the corners are where the drawn sides meet, wherever the pen
/// rounded them off.
struct PolygonFit {
    private let stroke: [Point]
    private let partition: StraightRunPartition

    /// Prepares the fits of `stroke` (equally spaced points), taken as closed.
    init(_ stroke: [Point]) {
        self.stroke = stroke
        partition = StraightRunPartition(closed: stroke, fewestRuns: 3)
    }

    /// The triangle whose sides are the best lines through three runs of the stroke, as its
    /// three corners in drawing order, starting with the one nearest the stroke's start,
    /// repeated at the end; nil when the stroke is too short to split or two sides are
    /// parallel.
    func triangle() -> [Point]? {
        guard let (sides, _) = sides(3) else { return nil }
        var corners: [Point] = []
        for k in 0..<3 {
            guard let corner = sides[(k + 2) % 3].intersection(with: sides[k]) else { return nil }
            corners.append(corner)
        }
        return closed(corners)
    }

    /// Why four runs of a stroke make no rectangle.
    enum RectangleRefusal: Error {
        /// Too short to split, or two neighbouring sides parallel.
        case noCorners
        /// A corner further than the skew tolerance from a right angle.
        case skewedCorner
        /// Two opposite sides whose lengths differ by more than the ratio allows: a
        /// trapezoid (a triangle whose rounded corner the split made a fourth side), where
        /// a rectangle, however sheared, has opposite sides of one length.
        case unequalOppositeSides
    }

    /// A rectangle fitted to four runs of the stroke: `drawn`, the quadrilateral where the
    /// four drawn sides meet, and `rectangle`, the right-angled rectangle (any rotation)
    /// that best matches them, both as corners in drawing order starting with the one
    /// nearest the stroke's start, repeated at the end. Refused when some corner of `drawn`
    /// is more than `skewTolerance` (radians) from a right angle, or when the shorter of
    /// two opposite sides of `drawn` is less than `oppositeSideRatio` of the longer.
    ///
    /// The rectangle's orientation is the length-weighted mean of the four sides'
    /// directions taken modulo 90° (averaging the directions' angles multiplied by four),
    /// and each side sits at the mean offset of its run.
    func rectangle(
        skewTolerance: Double, oppositeSideRatio: Double
    ) -> Result<(drawn: [Point], rectangle: [Point]), RectangleRefusal> {
        guard let (sides, runLengths) = sides(4) else { return .failure(.noCorners) }
        var drawn: [Point] = []
        for k in 0..<4 {
            let (a, b) = (sides[(k + 3) % 4].direction, sides[k].direction)
            // The angle between the two lines, in [0, π/2].
            let angle = atan2(abs(a.cross(b)), abs(a.dot(b)))
            guard angle >= Double.pi / 2 - skewTolerance else { return .failure(.skewedCorner) }
            guard let corner = sides[(k + 3) % 4].intersection(with: sides[k]) else { return .failure(.noCorners) }
            drawn.append(corner)
        }
        var lengths = SIMD4<Double>()
        for k in 0..<4 { lengths[k] = drawn[k].distance(to: drawn[(k + 1) % 4]) }
        for k in 0..<2 where min(lengths[k], lengths[k + 2]) < oppositeSideRatio * max(lengths[k], lengths[k + 2]) {
            return .failure(.unequalOppositeSides)
        }
        var sum = Point(x: 0, y: 0)
        for (side, weight) in zip(sides, runLengths) {
            let angle = 4 * atan2(side.direction.y, side.direction.x)
            sum = sum + Point(x: cos(angle), y: sin(angle)) * weight
        }
        let orientation = atan2(sum.y, sum.x) / 4
        let u = Point(x: cos(orientation), y: sin(orientation))
        let v = Point(x: -u.y, y: u.x)
        // Opposite sides lie along the same axis; those along u fix the rectangle's extent
        // in v and the other way round.
        let firstPairAlongU =
            abs(sides[0].direction.dot(u)) + abs(sides[2].direction.dot(u))
            >= abs(sides[0].direction.dot(v)) + abs(sides[2].direction.dot(v))
        let corners = (0..<4).map { k -> Point in
            let (a, b) = (sides[(k + 3) % 4], sides[k])
            let (alongU, alongV) = (k % 2 == 0) == firstPairAlongU ? (b, a) : (a, b)
            return u * alongV.centroid.dot(u) + v * alongU.centroid.dot(v)
        }
        return .success((closed(drawn), closed(corners)))
    }

    /// A right-angled rectangle fitted without splitting the stroke into runs, for when
    /// the split fails: a long rectangle's short sides are a few samples, mostly rounded
    /// corners, which the least-squares split folds into the long sides' runs. The
    /// orientation is the stroke's dominant direction modulo 90° (the mean of its steps'
    /// directions multiplied by four); each point belongs to the nearest side of the
    /// points' box in that frame, and each side sits at the mean offset of its points.
    /// Corners in drawing order from the one nearest the stroke's start, repeated at the
    /// end; nil when a side has no points. Given the whole stroke, hooks included: on a
    /// rectangle of 4:1 or longer a short side is a tenth of the stroke or less, which
    /// hook trimming would cut off as if it were the pen's landing or lifting.
    static func orientedRectangle(_ stroke: [Point]) -> [Point]? {
        var sum = Point(x: 0, y: 0)
        for (a, b) in zip(stroke, stroke.dropFirst()) {
            let angle = 4 * atan2(b.y - a.y, b.x - a.x)
            sum = sum + Point(x: cos(angle), y: sin(angle))
        }
        guard sum.x != 0 || sum.y != 0 else { return nil }
        let orientation = atan2(sum.y, sum.x) / 4
        let u = Point(x: cos(orientation), y: sin(orientation))
        let v = Point(x: -u.y, y: u.x)
        let along = stroke.map { $0.dot(u) }
        let across = stroke.map { $0.dot(v) }
        let box = (along.min()!, along.max()!, across.min()!, across.max()!)
        // Offsets of the sides: low u, high u, low v, high v.
        var sums = SIMD4<Double>()
        var counts = SIMD4<Int>()
        for k in stroke.indices {
            // The nearest side (the first of the nearest).
            let distances = (along[k] - box.0, box.1 - along[k], across[k] - box.2, box.3 - across[k])
            var (side, least) = (0, distances.0)
            if distances.1 < least { (side, least) = (1, distances.1) }
            if distances.2 < least { (side, least) = (2, distances.2) }
            if distances.3 < least { side = 3 }
            sums[side] += side < 2 ? along[k] : across[k]
            counts[side] += 1
        }
        guard counts.min() > 0 else { return nil }
        let offset = sums / SIMD4<Double>(counts)
        let corners = [
            u * offset[0] + v * offset[2], u * offset[1] + v * offset[2],
            u * offset[1] + v * offset[3], u * offset[0] + v * offset[3],
        ]
        // The drawing direction: the corners' order must follow the stroke's turning.
        var turning = 0.0
        let center = stroke.reduce(Point(x: 0, y: 0), +) / Double(stroke.count)
        for (a, b) in zip(stroke, stroke.dropFirst()) { turning += (a - center).cross(b - center) }
        let ordered = turning >= 0 ? corners : corners.reversed()
        return closed(ordered, from: stroke[0])
    }

    /// The best lines through `count` runs of the stroke, and how many points each run
    /// holds.
    private func sides(_ count: Int) -> (sides: [FittedLine], runLengths: [Double])? {
        guard let runs = partition.runs(count)?.runs else { return nil }
        return (runs.map { partition.moments.line(through: $0) }, runs.map { Double($0.count) })
    }

    /// The closed polygon through `corners` rotated to begin at the corner nearest the
    /// stroke's start, with that corner repeated at the end.
    private func closed(_ corners: [Point]) -> [Point] {
        Self.closed(corners, from: stroke[0])
    }

    private static func closed(_ corners: [Point], from start: Point) -> [Point] {
        let first = corners.indices.min { corners[$0].distance(to: start) < corners[$1].distance(to: start) }!
        return (0...corners.count).map { corners[(first + $0) % corners.count] }
    }
}
