public import CanvasCore

/// Finds the stroke segments near a place without looking at the rest of the board: a
/// uniform grid whose cells list the segments whose tight bounding boxes (`CubicBezier.bounds`)
/// meet them.
///
/// The grid is a hash map from cell to entries, so an empty canvas costs nothing and the
/// canvas has no edge. Each entry carries its segment's bounds, so a query filters a cell
/// without looking anything up. A stroke of one point (a dot) is filed as segment 0, its
/// bounds the point itself; placeholders and strokes without points are not filed.
///
/// The index is a cache of the document's geometry: call `update(_:)` with every stroke
/// whose points or header changed (erasing changes neither), or the index answers for the
/// stroke as it was. It keeps its own copy of each stroke's points (16 bytes a point) to
/// tell growth from change, and about 40 bytes per segment and cell it is filed in.
public struct SpatialIndex: Sendable {
    /// Side of a grid cell, in canvas pixels. Pointer samples arrive a few pixels apart
    /// and erasers are some tens of pixels wide, so with 32 px a segment usually sits in
    /// one to four cells and an eraser sample reads one to four cells. Smaller cells would
    /// file long segments many times over; larger ones would make every query filter out
    /// more segments that are not near.
    static let cellSize = 32.0
    /// A segment whose bounds span more cells than this (a long diagonal side of a shape)
    /// goes on a list that every query scans, so that one segment never fills thousands
    /// of cells.
    static let maximumCellsPerSegment = 64.0

    /// A segment filed in a cell (or on the list of large segments).
    struct Entry: Sendable {
        var stroke: UInt32
        var segment: UInt32
        var bounds: Rect
    }

    /// What the index knows of one stroke: the geometry it filed.
    private struct IndexedStroke: Sendable {
        let id: StrokeID
        var isShape: Bool
        /// The points the filed segments were computed from (a copy with its own storage:
        /// sharing the document's would make the document copy its points on every APPEND).
        var points: [Point]
    }

    private var numbers: [StrokeID: UInt32] = [:]
    private var strokes: [IndexedStroke] = []
    private var cells: [UInt64: [Entry]] = [:]
    private var largeSegments: [Entry] = []

    /// An empty index.
    public init() {}

    /// An index of every stroke of `document`.
    public init(document: Document) {
        for stroke in document.strokes {
            update(stroke)
        }
    }

    /// Re-indexes one stroke (after its points or header changed); call with the stroke as
    /// it is now.
    ///
    /// A stroke that only grew at its end (APPEND) costs a comparison of the points already
    /// filed (at memory speed) plus the new segments and the previous last one, whose end
    /// tangent the new points changed. A changed header or a changed point re-files the
    /// whole stroke.
    public mutating func update(_ stroke: Stroke) {
        let points = stroke.header == nil ? [] : stroke.points
        let isShape = stroke.header?.isShape ?? false
        let number = number(for: stroke.id)
        let filedCount = strokes[Int(number)].points.count
        let grew =
            strokes[Int(number)].isShape == isShape && points.count >= filedCount
            && points[..<filedCount].elementsEqual(strokes[Int(number)].points) { $0.hasSameBits(as: $1) }
        if grew {
            guard points.count > filedCount else { return }
            let refiled = Self.segmentsChangedByAppending(to: strokes[Int(number)].points)
            remove(refiled, of: number)
            strokes[Int(number)].points.append(contentsOf: points[filedCount...])
            file(refiled, of: number)
            file(Self.segmentCount(filedCount)..<Self.segmentCount(points.count), of: number)
        } else {
            remove(0..<Self.segmentCount(filedCount), of: number)
            strokes[Int(number)].isShape = isShape
            // A new array rather than a copy of `points`, which would share its storage.
            strokes[Int(number)].points = []
            strokes[Int(number)].points.append(contentsOf: points)
            file(0..<Self.segmentCount(points.count), of: number)
        }
    }

    /// Segments whose bounding box meets `rect`: (stroke id, segment index k), each once,
    /// in no particular order.
    public func segments(intersecting rect: Rect) -> [(id: StrokeID, segment: Int)] {
        var result: [(id: StrokeID, segment: Int)] = []
        forEachSegment(intersecting: rect) { stroke, segment in
            result.append((strokes[Int(stroke)].id, Int(segment)))
        }
        return result
    }

    /// The identifier of the stroke filed under `number`.
    func identifier(of number: UInt32) -> StrokeID {
        strokes[Int(number)].id
    }

    /// Calls `body` with (stroke number, segment) for each segment whose bounds meet `rect`,
    /// once each. A segment filed in several cells is reported by the one cell that holds
    /// the lowest corner of the overlap of its bounds and `rect`.
    func forEachSegment(intersecting rect: Rect, _ body: (UInt32, UInt32) -> Void) {
        guard rect.minX <= rect.maxX, rect.minY <= rect.maxY else { return }
        let (columns, rows) = Self.cellRange(of: rect)
        let scanned = Double(columns.count) * Double(rows.count)
        func visit(_ entries: [Entry], column: Int32, row: Int32) {
            for entry in entries where entry.bounds.intersects(rect) {
                if Self.cell(max(entry.bounds.minX, rect.minX)) == column,
                    Self.cell(max(entry.bounds.minY, rect.minY)) == row {
                    body(entry.stroke, entry.segment)
                }
            }
        }
        if scanned > Double(cells.count) {
            // A query wider than the occupied canvas reads the occupied cells instead.
            for (key, entries) in cells {
                let (column, row) = Self.coordinates(of: key)
                if columns.contains(column), rows.contains(row) {
                    visit(entries, column: column, row: row)
                }
            }
        } else {
            for row in rows {
                for column in columns {
                    if let entries = cells[Self.key(column, row)] {
                        visit(entries, column: column, row: row)
                    }
                }
            }
        }
        for entry in largeSegments where entry.bounds.intersects(rect) {
            body(entry.stroke, entry.segment)
        }
    }

    // MARK: Filing

    private mutating func number(for id: StrokeID) -> UInt32 {
        if let number = numbers[id] {
            return number
        }
        let number = UInt32(strokes.count)
        numbers[id] = number
        strokes.append(IndexedStroke(id: id, isShape: false, points: []))
        return number
    }

    /// The bounds segment `k` is filed under, computed from the filed points.
    private func bounds(of k: Int, of number: UInt32) -> Rect {
        let stroke = strokes[Int(number)]
        if stroke.points.count == 1 {
            return Rect(minX: stroke.points[0].x, minY: stroke.points[0].y, maxX: stroke.points[0].x, maxY: stroke.points[0].y)
        }
        return StrokeCurves.segment(k, of: stroke.points, isShape: stroke.isShape).bounds
    }

    private mutating func file(_ segments: some Sequence<Int>, of number: UInt32) {
        for k in segments {
            let entry = Entry(stroke: number, segment: UInt32(k), bounds: bounds(of: k, of: number))
            if let (columns, rows) = Self.filingCells(of: entry.bounds) {
                for row in rows {
                    for column in columns {
                        cells[Self.key(column, row), default: []].append(entry)
                    }
                }
            } else {
                largeSegments.append(entry)
            }
        }
    }

    /// Takes the segments out of every cell they were filed in. Their bounds are computed
    /// again from the filed points, which are the ones they were filed with.
    private mutating func remove(_ segments: some Sequence<Int>, of number: UInt32) {
        for k in segments {
            let segment = UInt32(k)
            let isThisSegment = { (entry: Entry) in entry.stroke == number && entry.segment == segment }
            if let (columns, rows) = Self.filingCells(of: bounds(of: k, of: number)) {
                for row in rows {
                    for column in columns {
                        let key = Self.key(column, row)
                        cells[key]?.removeAll(where: isThisSegment)
                        if cells[key]?.isEmpty == true {
                            cells[key] = nil
                        }
                    }
                }
            } else {
                largeSegments.removeAll(where: isThisSegment)
            }
        }
    }

    /// Number of entries a stroke of `count` points files: its segments, or one for a dot.
    private static func segmentCount(_ count: Int) -> Int {
        count == 1 ? 1 : max(0, count - 1)
    }

    /// The filed segments whose geometry changes when points are appended to `points`:
    /// the dot of a one-point stroke, and the last segment that is not a repeated point
    /// (its end tangent was taken from a mirrored point, as `StrokeCurves.segment` does
    /// where the next distinct point is not known yet). Segments between repeated
    /// identical points are straight lines that no neighbour changes.
    private static func segmentsChangedByAppending(to points: [Point]) -> [Int] {
        guard points.count >= 2 else { return points.isEmpty ? [] : [0] }
        var runStart = points.count - 1
        while runStart > 0 && points[runStart - 1] == points[points.count - 1] {
            runStart -= 1
        }
        return runStart > 0 ? [runStart - 1] : []
    }

    // MARK: Cells

    /// The cell column (or row) holding coordinate `value`, clamped to the Int32 range so
    /// that far-away or non-finite coordinates cannot trap.
    static func cell(_ value: Double) -> Int32 {
        let cell = (value / cellSize).rounded(.down)
        guard cell == cell else { return Int32.max }
        return Int32(max(Double(Int32.min), min(Double(Int32.max), cell)))
    }

    private static func cellRange(of rect: Rect) -> (ClosedRange<Int32>, ClosedRange<Int32>) {
        (cell(rect.minX)...cell(rect.maxX), cell(rect.minY)...cell(rect.maxY))
    }

    /// The cells a segment with these bounds is filed in, or nil for a large segment (or
    /// one with non-finite bounds, which meet no query).
    private static func filingCells(of bounds: Rect) -> (ClosedRange<Int32>, ClosedRange<Int32>)? {
        guard bounds.minX.isFinite, bounds.minY.isFinite, bounds.maxX.isFinite, bounds.maxY.isFinite else {
            return nil
        }
        let (columns, rows) = cellRange(of: bounds)
        guard Double(columns.count) * Double(rows.count) <= maximumCellsPerSegment else { return nil }
        return (columns, rows)
    }

    private static func key(_ column: Int32, _ row: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: column)) << 32 | UInt64(UInt32(bitPattern: row))
    }

    private static func coordinates(of key: UInt64) -> (column: Int32, row: Int32) {
        (Int32(bitPattern: UInt32(truncatingIfNeeded: key >> 32)), Int32(bitPattern: UInt32(truncatingIfNeeded: key)))
    }
}

extension Point {
    /// Equality of the stored bits: unlike `==`, true for a NaN and itself.
    fileprivate func hasSameBits(as other: Point) -> Bool {
        x.bitPattern == other.x.bitPattern && y.bitPattern == other.y.bitPattern
    }
}
