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
        let edgeCount = sides.reduce(0) { $0 + max(0, $1.count - 1) }
        var sumOfSquares = 0.0
        var largest = 0.0
        var least = 1.0
        var drawn = 0.0
        var total = 0.0
        withUnsafeTemporaryAllocation(of: Edge.self, capacity: edgeCount) { edges in
            // Each side's edges, and its length.
            var sideLengths: [Double] = []
            sideLengths.reserveCapacity(sides.count)
            var edgeCount = 0
            for side in sides {
                var travelled = 0.0
                for k in side.indices.dropFirst() {
                    let edge = Edge(from: side[k - 1], to: side[k], after: travelled)
                    (edges.baseAddress! + edgeCount).initialize(to: edge)
                    edgeCount += 1
                    travelled += edge.length
                }
                sideLengths.append(travelled)
            }
            defer { edges.baseAddress!.deinitialize(count: edgeCount) }
            // Each stroke point's nearest side, and its foot there.
            withUnsafeTemporaryAllocation(of: (side: Int, position: Double).self, capacity: stroke.count) { feet in
                for (index, point) in stroke.enumerated() {
                    var nearest = Nearest(to: point)
                    var firstEdge = 0
                    for (k, side) in sides.enumerated() where !side.isEmpty {
                        nearest.consider(side[0], at: 0, on: k)
                        for edge in edges[firstEdge..<(firstEdge + side.count - 1)] {
                            let foot = edge.foot(of: point)
                            nearest.consider(foot.point, at: foot.position, on: k)
                        }
                        firstEdge += side.count - 1
                    }
                    sumOfSquares += nearest.distance * nearest.distance
                    largest = max(largest, nearest.distance)
                    (feet.baseAddress! + index).initialize(to: (nearest.side, nearest.position))
                }
                // How much of each side the feet on it cover.
                let bridge = 2 * StrokeResampling.length(of: stroke) / Double(max(stroke.count - 1, 1))
                withUnsafeTemporaryAllocation(of: Double.self, capacity: stroke.count) { positions in
                    for k in sides.indices {
                        var count = 0
                        for foot in feet[..<stroke.count] where foot.side == k {
                            positions[count] = foot.position
                            count += 1
                        }
                        var sorted = UnsafeMutableBufferPointer(rebasing: positions[..<count])
                        sorted.sort()
                        var covered = 0.0
                        for i in sorted.indices.dropFirst() where sorted[i] - sorted[i - 1] <= bridge {
                            covered += sorted[i] - sorted[i - 1]
                        }
                        let length = sideLengths[k]
                        if length > 0 { least = min(least, covered / length) }
                        drawn += covered
                        total += length
                    }
                }
            }
        }
        rmsDistance = (sumOfSquares / Double(max(stroke.count, 1))).squareRoot()
        maximumDistance = largest
        leastDrawnSide = least
        drawnFraction = total > 0 ? drawn / total : 1
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

    /// A straight piece of a side, prepared for finding the feet of many points on it.
    struct Edge {
        var start: Point
        var vector: Point
        var length: Double
        /// `length × length`, which projections onto the edge divide by.
        var lengthSquared: Double
        /// The length of the side before the edge.
        var travelled: Double

        init(from start: Point, to end: Point, after travelled: Double) {
            self.start = start
            vector = end - start
            length = vector.length
            lengthSquared = length * length
            self.travelled = travelled
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

    /// The nearest of the feet of a point considered so far: the first of the nearest.
    struct Nearest {
        let point: Point
        private(set) var distance = Double.infinity
        /// `distance` squared, as computed before its square root: a foot no nearer by this
        /// measure is no nearer, and needs no square root.
        private var squaredDistance = Double.infinity
        private(set) var side = 0
        private(set) var position = 0.0

        init(to point: Point) {
            self.point = point
        }

        /// Takes `foot`, at `position` along side `side`, when it is nearer than every
        /// foot before it.
        @inline(__always)
        mutating func consider(_ foot: Point, at position: Double, on side: Int) {
            let offset = point - foot
            let squared = offset.x * offset.x + offset.y * offset.y
            guard squared < squaredDistance else { return }
            let distance = squared.squareRoot()
            guard distance < self.distance else { return }
            (self.distance, squaredDistance, self.side, self.position) = (distance, squared, side, position)
        }
    }
}
