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
    /// Whether the match stopped early (`givingUpBeyond`): the distances are then those of
    /// the points so far, and one stopped at a point beyond the largest distance may have
    /// any RMS distance.
    var isGivenUp: Bool

    /// The sides of a shape: polylines given one by one, or the edges of one polyline each
    /// a side of its own (a triangle's or a rectangle's, without an array for each).
    enum Sides {
        case each([[Point]])
        case edges(of: [Point])

        var count: Int {
            switch self {
            case .each(let sides): sides.count
            case .edges(of: let polyline): max(0, polyline.count - 1)
            }
        }

        /// Whether each side meets the next at a corner: the edges of one polyline (a
        /// polygon's), not separate polylines.
        var hasCorners: Bool {
            if case .edges = self { true } else { false }
        }

        /// Whether the last side ends where the first begins (a closed polygon).
        var isClosed: Bool {
            guard case .edges(of: let polyline) = self, polyline.count > 2 else { return false }
            return polyline.first == polyline.last
        }

        /// Side `k`'s points.
        @inline(__always)
        subscript(k: Int) -> ArraySlice<Point> {
            switch self {
            case .each(let sides): sides[k][...]
            case .edges(of: let polyline): polyline[k...(k + 1)]
            }
        }
    }

    /// Compares `stroke` (equally spaced points, `length` long when known) with a shape made
    /// of `sides`.
    ///
    /// A side is drawn where the stroke runs along it: every stroke point belongs to its
    /// nearest side, where it covers its foot on that side; consecutive feet no farther
    /// apart than twice the stroke's sample spacing cover the stretch between them. So a
    /// side that the stroke only passes near (the undrawn base of a caret read as a
    /// triangle, the far side of a thin ellipse the stroke runs along one side of) counts as
    /// undrawn.
    ///
    /// With `roundedCornerReach`, a polygon's corners (where the edges of one polyline
    /// meet) may be drawn rounded: where two consecutive stroke points have their feet on
    /// the two sides that meet at a corner, the stroke drew round it, and the stretches from
    /// both feet to the corner are drawn too, when together no longer than the reach. A
    /// rounded corner has no foot near its tip, so by the rule above a corner rounded over
    /// a few samples leaves both sides short of it.
    ///
    /// With `limits`, the match stops at the first stroke point that takes the distances
    /// beyond either (the root-mean-square distance, or the largest): the distances are
    /// then those of the points so far, already beyond the limit, and nothing is drawn.
    ///
    /// `bridging`: the gap between consecutive feet that still covers the stretch between
    /// them, `bridge(length:count:)` of the stroke by default; for part of a stroke, the
    /// whole stroke's.
    init(
        stroke: [Point], length: Double? = nil, sides: Sides, roundedCornerReach: Double? = nil,
        givingUpBeyond limits: (rms: Double, largest: Double)? = nil, bridging: Double? = nil
    ) {
        let edgeCount = (0..<sides.count).reduce(0) { $0 + max(0, sides[$1].count - 1) }
        var sumOfSquares = 0.0
        var largest = 0.0
        var least = 1.0
        var drawn = 0.0
        var total = 0.0
        var givenUp = false
        // Each side's first point, edges and length; the edges' boxes coordinate by
        // coordinate (four rows), to bound four edges at a time. In flat buffers, so that
        // the loop over the stroke touches no array of arrays.
        withUnsafeTemporaryAllocation(of: Side.self, capacity: sides.count) { outline in
            withUnsafeTemporaryAllocation(of: Edge.self, capacity: edgeCount) { edges in
                withUnsafeTemporaryAllocation(of: Double.self, capacity: 4 * edgeCount + edgeCount) { boxes in
                    var (edgeCount, groupCount) = (0, 0)
                    for k in 0..<sides.count {
                        let side = sides[k]
                        var travelled = 0.0
                        for i in side.indices.dropFirst() {
                            let edge = Edge(from: side[i - 1], to: side[i], after: travelled)
                            (edges.baseAddress! + edgeCount).initialize(to: edge)
                            edgeCount += 1
                            travelled += edge.length
                        }
                        let sideEdges = (edgeCount - max(0, side.count - 1))..<edgeCount
                        (outline.baseAddress! + k).initialize(
                            to: Side(
                                first: side.first, edges: sideEdges,
                                groups: groupCount..<(groupCount + sideEdges.count / 4), length: travelled))
                        groupCount += sideEdges.count / 4
                    }
                    for (e, edge) in edges[..<edgeCount].enumerated() {
                        (boxes[e], boxes[edgeCount + e], boxes[2 * edgeCount + e], boxes[3 * edgeCount + e]) =
                            (edge.low.x, edge.low.y, edge.high.x, edge.high.y)
                    }
                    // Each side's groups of four edges (from its first), bounded by one box.
                    let groupRows = boxes.baseAddress! + 4 * edgeCount
                    for side in outline[..<sides.count] {
                        let firsts = stride(from: side.edges.lowerBound, to: side.edges.upperBound - 3, by: 4)
                        for (g, first) in zip(side.groups, firsts) {
                            var (low, high) = (edges[first].low, edges[first].high)
                            for edge in edges[(first + 1)..<(first + 4)] {
                                (low.x, low.y) = (min(low.x, edge.low.x), min(low.y, edge.low.y))
                                (high.x, high.y) = (max(high.x, edge.high.x), max(high.y, edge.high.y))
                            }
                            (groupRows[g], groupRows[groupCount + g]) = (low.x, low.y)
                            (groupRows[2 * groupCount + g], groupRows[3 * groupCount + g]) = (high.x, high.y)
                        }
                    }
                    let boxRows = Boxes(rows: boxes.baseAddress!, count: edgeCount)
                    let groupBoxRows = Boxes(rows: groupRows, count: groupCount)
                    let (outline, edges) = (UnsafeBufferPointer(rebasing: outline[..<sides.count]), UnsafeBufferPointer(rebasing: edges[..<edgeCount]))
                    defer {
                        UnsafeMutablePointer(mutating: outline.baseAddress!).deinitialize(count: outline.count)
                        UnsafeMutablePointer(mutating: edges.baseAddress!).deinitialize(count: edges.count)
                    }
                    // Each stroke point's nearest side, and its foot there.
                    withUnsafeTemporaryAllocation(of: (side: Int, position: Double).self, capacity: stroke.count) { feet in
                        // The edge the last point was nearest, which the next is usually near too.
                        var guess = 0
                        // Sums of squares beyond this make the RMS distance exceed its limit:
                        // the margin of a billionth is far above the rounding of a division
                        // and a square root. Not where the squares are subnormal (a stroke
                        // about 10⁻¹⁶⁰ across), whose few digits can put the sum over it while
                        // the RMS distance is within the limit: there the RMS distance itself
                        // decides, computed as the match's is, from a sum that only grows, so
                        // that a match is given up only if it would be refused in full (found
                        // by FuzzRecognizer: a stroke explained as an arrow was none).
                        let sumLimit = limits.map { $0.rms * $0.rms * Double(stroke.count) * (1 + 1e-9) } ?? .infinity
                        func isBeyondTheLimits() -> Bool {
                            guard let limits else { return false }
                            if largest > limits.largest { return true }
                            return sumOfSquares > sumLimit
                                && (sumOfSquares / Double(stroke.count)).squareRoot() > limits.rms
                        }
                        for (index, point) in stroke.enumerated() {
                            let nearest = Self.nearest(
                                to: point, on: outline, edges, boxRows, groupBoxRows, guess: &guess)
                            let distance = nearest.distance
                            sumOfSquares += distance * distance
                            largest = max(largest, distance)
                            (feet.baseAddress! + index).initialize(to: (nearest.side, nearest.position))
                            if isBeyondTheLimits() {
                                givenUp = true
                                return
                            }
                        }
                        // How much of each side the feet on it cover.
                        let bridge =
                            bridging
                            ?? Self.bridge(length: length ?? StrokeResampling.length(of: stroke), count: stroke.count)
                        // Rounded corners (`roundedCornerReach`): the sides before and after
                        // each side, where they meet it at a corner.
                        let sideCount = outline.count
                        let reach = sides.hasCorners && sideCount > 1 ? roundedCornerReach : nil
                        let wraps = sides.isClosed && sideCount > 2
                        withUnsafeTemporaryAllocation(of: Double.self, capacity: stroke.count) { positions in
                            for (k, side) in outline.enumerated() {
                                let before = k > 0 ? k - 1 : wraps ? sideCount - 1 : nil
                                let after = k + 1 < sideCount ? k + 1 : wraps ? 0 : nil
                                // Drawn by turning a corner: from the start to `start`, and from
                                // `end` to the end.
                                var (start, end) = (0.0, side.length)
                                var count = 0
                                for i in 0..<stroke.count where feet[i].side == k {
                                    let position = feet[i].position
                                    positions[count] = position
                                    count += 1
                                    guard let reach else { continue }
                                    for j in stride(from: i - 1, through: i + 1, by: 2) where j >= 0 && j < stroke.count {
                                        let other = feet[j]
                                        if other.side == after, side.length - position + other.position <= reach {
                                            end = min(end, position)
                                        }
                                        if other.side == before,
                                            outline[other.side].length - other.position + position <= reach
                                        {
                                            start = max(start, position)
                                        }
                                    }
                                }
                                var sorted = UnsafeMutableBufferPointer(rebasing: positions[..<count])
                                sorted.sort()
                                // What those corners draw, and the parts of the other stretches
                                // outside it.
                                (start, end) = (min(start, side.length), max(end, min(start, side.length)))
                                var covered = start + (side.length - end)
                                for i in sorted.indices.dropFirst() where sorted[i] - sorted[i - 1] <= bridge {
                                    covered += max(0, min(sorted[i], end) - max(sorted[i - 1], start))
                                }
                                if side.length > 0 { least = min(least, covered / side.length) }
                                drawn += covered
                                total += side.length
                            }
                        }
                    }
                }
            }
        }
        rmsDistance = (sumOfSquares / Double(max(stroke.count, 1))).squareRoot()
        maximumDistance = largest
        isGivenUp = givenUp
        leastDrawnSide = givenUp ? 0 : least
        drawnFraction = givenUp ? 0 : total > 0 ? drawn / total : 1
    }

    /// The longest gap between consecutive feet on a side that covers the stretch between
    /// them, for a stroke `length` long of `count` equally spaced points: twice their spacing.
    static func bridge(length: Double, count: Int) -> Double {
        2 * length / Double(max(count - 1, 1))
    }

    /// The nearest foot of `point` on the sides of `outline`, whose edges are `edges` with
    /// boxes `boxes` (and `groupBoxes` for the sides' groups of four edges): the first of
    /// the nearest, side by side, each from its first point along its edges. `guess` is an
    /// edge near the point, and becomes the nearest foot's.
    @inline(__always)
    private static func nearest(
        to point: Point, on outline: UnsafeBufferPointer<Side>, _ edges: UnsafeBufferPointer<Edge>, _ boxes: Boxes,
        _ groupBoxes: Boxes, guess: inout Int
    ) -> Nearest {
        var nearest = Nearest(to: point)
        // Edges whose boxes lie farther than the guessed edge's foot, by more than the
        // rounding of a square root, cannot hold the nearest foot.
        let limit =
            edges.isEmpty ? 0 : Nearest.squaredDistance(from: point, to: edges[guess].foot(of: point).point) * (1 + 1e-12)
        /// Takes edge e's foot when the edge may hold the nearest.
        func consider(edge e: Int, on side: Int) {
            let bound = edges[e].squaredDistanceBound(to: point)
            guard bound < nearest.squaredDistance, !(bound > limit) else { return }
            let foot = edges[e].foot(of: point)
            if nearest.consider(foot.point, at: foot.position, on: side) { guess = e }
        }
        for (k, side) in outline.enumerated() {
            guard let first = side.first else { continue }
            nearest.consider(first, at: 0, on: k)
            var e = side.edges.lowerBound
            // Sixteen edges at a time, by their four groups' boxes, then the edges' boxes
            // of the groups that may hold a nearer foot; four at a time; the rest one by
            // one. The edges that may are taken in order, as one at a time: a box holds
            // its edges' boxes, so a group passed over holds no edge that would be taken.
            var g = side.groups.lowerBound
            while e + 16 <= side.edges.upperBound {
                let nearGroups = groupBoxes.mayHoldNearer(g, to: point, than: nearest.squaredDistance, limit: limit)
                if any(nearGroups) {
                    for group in 0..<4 where nearGroups[group] {
                        let first = e + 4 * group
                        let near = boxes.mayHoldNearer(first, to: point, than: nearest.squaredDistance, limit: limit)
                        if any(near) {
                            for lane in 0..<4 where near[lane] { consider(edge: first + lane, on: k) }
                        }
                    }
                }
                e += 16
                g += 4
            }
            while e + 4 <= side.edges.upperBound {
                let near = boxes.mayHoldNearer(e, to: point, than: nearest.squaredDistance, limit: limit)
                if any(near) {
                    for lane in 0..<4 where near[lane] { consider(edge: e + lane, on: k) }
                }
                e += 4
            }
            while e < side.edges.upperBound {
                consider(edge: e, on: k)
                e += 1
            }
        }
        return nearest
    }

    /// One side of the outline: its first point (nil for an empty side), its edges'
    /// indices and its length.
    struct Side {
        var first: Point?
        var edges: Range<Int>
        /// Its groups of four edges, from the first (`edges.count / 4` of them).
        var groups: Range<Int>
        var length: Double
    }

    /// The distance from `point` to the polyline, and the arc length along the polyline
    /// to the nearest point.
    static func foot(of point: Point, on polyline: [Point]) -> (distance: Double, position: Double) {
        guard let first = polyline.first else { return (.infinity, 0) }
        var nearest = Nearest(to: point)
        nearest.consider(first, at: 0, on: 0)
        var travelled = 0.0
        for k in polyline.indices.dropFirst() {
            let edge = Edge(from: polyline[k - 1], to: polyline[k], after: travelled)
            let foot = edge.foot(of: point)
            nearest.consider(foot.point, at: foot.position, on: 0)
            travelled += edge.length
        }
        return (nearest.distance, nearest.position)
    }

    /// The distance from `point` to the segment from `start` to `end`, as `foot(of:on:)`
    /// measures it on the polyline `[start, end]`.
    static func distance(of point: Point, toSegmentFrom start: Point, to end: Point) -> Double {
        var nearest = Nearest(to: point)
        nearest.consider(start, at: 0, on: 0)
        let foot = Edge(from: start, to: end, after: 0).foot(of: point)
        nearest.consider(foot.point, at: foot.position, on: 0)
        return nearest.distance
    }

    /// A straight piece of a side, prepared for finding the feet of many points on it.
    struct Edge {
        var start: Point
        var vector: Point
        var length: Double
        /// `length × length`, which projections onto the edge divide by.
        var lengthSquared: Double
        /// The length of the side before the edge.
        var travelled: Double
        /// The box of the edge's ends (`start` and `start + vector`), which holds every foot
        /// `foot(of:)` computes: each coordinate is rounded monotonically between the ends'.
        var low: Point
        var high: Point

        init(from start: Point, to end: Point, after travelled: Double) {
            self.start = start
            vector = end - start
            length = vector.length
            lengthSquared = length * length
            self.travelled = travelled
            let far = start + vector * 1
            low = Point(x: min(start.x, far.x), y: min(start.y, far.y))
            high = Point(x: max(start.x, far.x), y: max(start.y, far.y))
        }

        /// At most the squared distance `Nearest` computes from `point` to any foot on the
        /// edge: the squared distance to the edge's box, rounded the same (monotonic) way.
        @inline(__always)
        func squaredDistanceBound(to point: Point) -> Double {
            let dx = max(0, max(low.x - point.x, point.x - high.x))
            let dy = max(0, max(low.y - point.y, point.y - high.y))
            return dx * dx + dy * dy
        }

        /// The point of the edge nearest `point`, and the arc length along the side to it.
        /// The projection needs a division only where it falls inside the edge.
        @inline(__always)
        func foot(of point: Point) -> (point: Point, position: Double) {
            let along = (point - start).dot(vector)
            let t: Double
            if length > 0, lengthSquared < .infinity {
                // Before the start the fraction would be a zero (either sign) or less: the
                // start itself.
                if along <= 0 { return (start, travelled) }
                t = along >= lengthSquared ? 1 : min(1, max(0, along / lengthSquared))
            } else {
                t = length > 0 ? min(1, max(0, along / lengthSquared)) : 0
            }
            return (start + vector * t, travelled + t * length)
        }
    }

    /// The edges' boxes (`Edge.low`, `Edge.high`) as four rows of coordinates: low x, low
    /// y, high x, high y.
    struct Boxes {
        let rows: UnsafePointer<Double>
        let count: Int

        /// For edges e..<e + 4: whether `Edge.squaredDistanceBound(to: point)` (computed the
        /// same way, lane by lane) is below `nearest` and not above `limit`.
        @inline(__always)
        func mayHoldNearer(_ e: Int, to point: Point, than nearest: Double, limit: Double) -> SIMDMask<SIMD4<Int64>> {
            func row(_ k: Int) -> SIMD4<Double> {
                UnsafeRawPointer(rows + k * count + e).loadUnaligned(as: SIMD4<Double>.self)
            }
            /// max(a, b) as the standard library takes it: b when b ≥ a, else a.
            func larger(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> SIMD4<Double> {
                a.replacing(with: b, where: b .>= a)
            }
            let zero = SIMD4<Double>(repeating: 0)
            let dx = larger(zero, larger(row(0) - point.x, point.x - row(2)))
            let dy = larger(zero, larger(row(1) - point.y, point.y - row(3)))
            let bounds = dx * dx + dy * dy
            return (bounds .< SIMD4(repeating: nearest)) .& .!(bounds .> SIMD4(repeating: limit))
        }
    }

    /// The nearest of the feet of a point considered so far: the first of the nearest.
    struct Nearest {
        let point: Point
        /// The nearest foot's squared distance, as computed before its square root: a foot
        /// no nearer by this measure is no nearer.
        private(set) var squaredDistance = Double.infinity
        private(set) var side = 0
        private(set) var position = 0.0

        init(to point: Point) {
            self.point = point
        }

        /// The distance to the nearest foot (`Point.distance(to:)`).
        var distance: Double { squaredDistance.squareRoot() }

        /// The squared distance between two points, as `Point.distance(to:)` computes it
        /// before its square root.
        @inline(__always)
        static func squaredDistance(from point: Point, to other: Point) -> Double {
            let offset = point - other
            return offset.x * offset.x + offset.y * offset.y
        }

        /// Takes `foot`, at `position` along side `side`, when it is nearer than every
        /// foot before it; whether it did.
        @inline(__always) @discardableResult
        mutating func consider(_ foot: Point, at position: Double, on side: Int) -> Bool {
            let squared = Self.squaredDistance(from: point, to: foot)
            // A foot at the same distance as an earlier one is not taken.
            guard Self.isNearer(squared, than: squaredDistance) else { return false }
            (squaredDistance, self.side, self.position) = (squared, side, position)
            return true
        }

        /// Whether the distance whose square is `squared` is less than the one whose square
        /// is `other`, as the square roots compare: two squares may round to one root. Only
        /// a square within a hundred-billionth of the other needs the roots (a clearly
        /// smaller square's root is smaller by more than its rounding).
        @inline(__always)
        static func isNearer(_ squared: Double, than other: Double) -> Bool {
            guard squared < other else { return false }
            return squared < other * (1 - 1e-14) || squared.squareRoot() < other.squareRoot()
        }
    }
}
