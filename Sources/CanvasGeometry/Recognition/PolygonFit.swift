import CanvasCore
import Foundation

/// Triangles, rectangles, diamonds and parallelograms fitted to a closed stroke: the
/// stroke is split into three or four straight runs (`StraightRunPartition`), one per
/// side, and each side is the best line through its run, so the corners are where the
/// drawn sides meet, wherever the pen rounded them off.
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

    /// What a quadrilateral may be: how far from square a rectangle's corners may be drawn
    /// (radians), how unequal its opposite sides, and which quadrilaterals are oblique.
    struct QuadrilateralTolerances {
        /// The most any corner of a rectangle may be from a right angle.
        var skew: Double
        /// The least ratio of the shorter of two opposite sides to the longer.
        var oppositeSideRatio: Double
        /// Oblique quadrilaterals, whose corners are on average further from square
        /// (radians) than the lower bound of `skew`, and refused beyond its upper bound: a
        /// diamond (a rhombus) when its four sides are all at least `diamondSideRatio` of the
        /// longest, else a parallelogram when a corner is further from square than a
        /// rectangle's may be. nil: rectangles only.
        var oblique: (skew: ClosedRange<Double>, diamondSideRatio: Double)? = nil
    }

    /// Why four runs of a stroke make no quadrilateral, with the figures that decided it.
    enum QuadrilateralRefusal: Error, Equatable {
        /// Too short to split, or two neighbouring sides parallel.
        case noCorners
        /// A corner further than the skew tolerance from a right angle, on a quadrilateral
        /// that is not oblique (or one skewed beyond the oblique tolerance): the largest
        /// corner's and the mean corner's angles from square (radians).
        case skewedCorner(largest: Double, mean: Double)
        /// Two opposite sides whose lengths differ by more than the ratio allows: a
        /// trapezoid (a triangle whose rounded corner the split made a fourth side), where
        /// a rectangle, however sheared, has opposite sides of one length. `ratio`: the
        /// shorter side's length over the longer's.
        case unequalOppositeSides(ratio: Double)
    }

    /// A quadrilateral fitted to four runs of the stroke: `drawn`, the quadrilateral where
    /// the four drawn sides meet, and `replacement`, the shape that replaces it, both as
    /// corners in drawing order starting with the one nearest the stroke's start, repeated
    /// at the end.
    struct Quadrilateral {
        /// `.rectangle`, `.diamond` or `.parallelogram`.
        var kind: ShapeKind
        var drawn: [Point]
        var replacement: [Point]
        /// For a diamond: whether it would be a parallelogram if its sides were unequal.
        var isAlsoParallelogram = false

        /// For a diamond that would be a parallelogram: that parallelogram (`drawn` with its
        /// opposite sides made equal), for a stroke that does not follow the rhombus;
        /// computed when asked for.
        var parallelogram: [Point]? {
            guard isAlsoParallelogram else { return nil }
            let corners = PolygonFit.parallelogram(matching: Array(drawn.dropLast()))
            return corners + [corners[0]]
        }
    }

    /// The quadrilateral of four runs of the stroke, as a rectangle, a diamond or a
    /// parallelogram; refused when the shorter of two opposite sides is less than
    /// `oppositeSideRatio` of the longer (a trapezoid).
    ///
    /// A diamond when `drawn` has four sides of about one length and corners on average
    /// further from square than `oblique.skew`'s lower bound (and within its upper): the
    /// rhombus whose diagonals best match `drawn`'s (`rhombus(matching:)`), with the
    /// parallelogram below beside it when it would be one. A parallelogram when some
    /// corner of `drawn` is more than `skew` from a right angle and its corners are on
    /// average within `oblique.skew`: `drawn` with its opposite sides made equal
    /// (`parallelogram(matching:)`). Otherwise a rectangle, refused when some corner of
    /// `drawn` is more than `skew` from a right angle: the right-angled rectangle (any
    /// rotation) that best matches the drawn sides. Its orientation is the length-weighted
    /// mean of the four sides' directions taken modulo 90° (averaging the directions'
    /// angles multiplied by four), and each side sits at the mean offset of its run.
    func quadrilateral(_ tolerances: QuadrilateralTolerances) -> Result<Quadrilateral, QuadrilateralRefusal> {
        guard let (sides, runLengths) = sides(4) else { return .failure(.noCorners) }
        var drawn: [Point] = []
        drawn.reserveCapacity(4)
        var skews = SIMD4<Double>()
        for k in 0..<4 {
            let (a, b) = (sides[(k + 3) % 4].direction, sides[k].direction)
            // The angle between the two lines, in [0, π/2].
            skews[k] = Double.pi / 2 - atan2(abs(a.cross(b)), abs(a.dot(b)))
            guard let corner = sides[(k + 3) % 4].intersection(with: sides[k]) else { return .failure(.noCorners) }
            drawn.append(corner)
        }
        var lengths = SIMD4<Double>()
        for k in 0..<4 { lengths[k] = drawn[k].distance(to: drawn[(k + 1) % 4]) }
        for k in 0..<2 {
            let (shorter, longer) = (min(lengths[k], lengths[k + 2]), max(lengths[k], lengths[k + 2]))
            if shorter < tolerances.oppositeSideRatio * longer {
                return .failure(.unequalOppositeSides(ratio: shorter / longer))
            }
        }
        let meanSkew = skews.sum() / 4
        let isSquare = skews.max() <= tolerances.skew
        let isParallelogram = !isSquare && tolerances.oblique?.skew.contains(meanSkew) == true
        if let oblique = tolerances.oblique, meanSkew > oblique.skew.lowerBound,
            lengths.min() >= oblique.diamondSideRatio * lengths.max()
        {
            guard meanSkew <= oblique.skew.upperBound else {
                return .failure(.skewedCorner(largest: skews.max(), mean: meanSkew))
            }
            let rhombus = Self.rhombus(matching: drawn)
            return .success(
                Quadrilateral(
                    kind: .diamond, drawn: closed(drawn), replacement: closed(rhombus),
                    isAlsoParallelogram: isParallelogram))
        }
        guard isSquare else {
            guard isParallelogram else { return .failure(.skewedCorner(largest: skews.max(), mean: meanSkew)) }
            let parallelogram = Self.parallelogram(matching: drawn)
            return .success(
                Quadrilateral(kind: .parallelogram, drawn: closed(drawn), replacement: closed(parallelogram)))
        }
        let orientation = Self.meanDirectionModuloRightAngle(zip(sides.lazy.map(\.direction), runLengths)) ?? 0
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
        return .success(Quadrilateral(kind: .rectangle, drawn: closed(drawn), replacement: closed(corners)))
    }

    /// The mean of `directions` (vectors, each with its weight) taken modulo 90°, in radians:
    /// their angles multiplied by four averaged as unit vectors, so that a direction and the
    /// same turned by a right angle agree (the sides of a rectangle, the runs of an elbow
    /// arrow). Nil when they cancel out exactly.
    static func meanDirectionModuloRightAngle<Directions: Sequence>(_ directions: Directions) -> Double?
    where Directions.Element == (Point, Double) {
        var sum = Point(x: 0, y: 0)
        for (direction, weight) in directions {
            let angle = 4 * atan2(direction.y, direction.x)
            sum = sum + Point(x: cos(angle), y: sin(angle)) * weight
        }
        guard sum.x != 0 || sum.y != 0 else { return nil }
        return atan2(sum.y, sum.x) / 4
    }

    /// The parallelogram that best matches the quadrilateral `corners` (4, in order): its
    /// opposite sides each the mean of the two drawn ones (as vectors, the second turned
    /// round), about the corners' mean; its corners in the same order.
    static func parallelogram(matching corners: [Point]) -> [Point] {
        let center = (corners[0] + corners[1] + corners[2] + corners[3]) / 4
        let across = ((corners[1] - corners[0]) + (corners[2] - corners[3])) / 2
        let down = ((corners[3] - corners[0]) + (corners[2] - corners[1])) / 2
        let start = center - (across + down) / 2
        return [start, start + across, start + across + down, start + down]
    }

    /// The rhombus (four equal sides, perpendicular diagonals that halve each other) that
    /// best matches the quadrilateral `corners` (4, in order): centred on their mean, its
    /// diagonals along the length-weighted mean direction of the quadrilateral's diagonals
    /// (the second turned a right angle back), each as long as its counterpart's extent in
    /// that direction; its corners in the same order.
    static func rhombus(matching corners: [Point]) -> [Point] {
        let center = (corners[0] + corners[1] + corners[2] + corners[3]) / 4
        let (first, second) = (corners[2] - corners[0], corners[3] - corners[1])
        // Directions modulo 180° averaged as doubled angles, each weighted by its length
        // relative to the longer (no squares, which overflow); the second diagonal turned
        // back by 90° (its doubled angle by 180°: negated).
        let (firstLength, secondLength) = (hypot(first.x, first.y), hypot(second.x, second.y))
        let longer = max(firstLength, secondLength, .leastNormalMagnitude)
        let doubled = { (d: Point, length: Double) in
            let angle = 2 * atan2(d.y, d.x)
            return Point(x: cos(angle), y: sin(angle)) * (length / longer)
        }
        let sum = doubled(first, firstLength) - doubled(second, secondLength)
        let angle = atan2(sum.y, sum.x) / 2
        let u = Point(x: cos(angle), y: sin(angle))
        let v = Point(x: -u.y, y: u.x)
        let (a, b) = (first.dot(u) / 2, second.dot(v) / 2)
        return [center - u * a, center - v * b, center + u * a, center + v * b]
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
        let steps = zip(stroke, stroke.dropFirst()).lazy.map { ($1 - $0, 1.0) }
        guard let orientation = meanDirectionModuloRightAngle(steps) else { return nil }
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
