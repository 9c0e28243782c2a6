import CanvasCore
import CanvasTestSupport
import Foundation

/// The CRDT operation (Foundation has an `Operation` too).
typealias Operation = CanvasCore.Operation

/// A fresh, empty store folder (`TemporaryFolders`: removed when the tests end).
func temporaryStore(_ name: String = #function) -> URL {
    TemporaryFolders.make("store")
}

/// Seeded histories of typical drawing: strokes of points on a 1/4 px, 1/2 px or 1 px
/// grid (sometimes arbitrary doubles), appended in batches with offsets, some erasing,
/// some duplicated operations.
enum Histories {
    static func random(strokes: Int, pointsPerStroke: ClosedRange<Int>, using generator: inout SplitMix64) -> [Operation] {
        var operations: [Operation] = []
        for stroke in 0..<strokes {
            let id = StrokeID("author-\(Int.random(in: 0..<4, using: &generator))-\(stroke)")
            let grid = [0.25, 0.5, 1, 0.1].randomElement(using: &generator)!
            var x = Double.random(in: 0..<1600, using: &generator)
            var y = Double.random(in: 0..<1000, using: &generator)
            func snapped(_ value: Double) -> Double { grid == 0.1 ? value : (value / grid).rounded() * grid }
            let count = Int.random(in: pointsPerStroke, using: &generator)
            var points: [Point] = []
            for _ in 0..<count {
                x += Double.random(in: -6...6, using: &generator)
                y += Double.random(in: -6...6, using: &generator)
                points.append(Point(x: snapped(x), y: snapped(y)))
            }
            let colour = Colour(red: UInt8.random(in: 0...255, using: &generator), green: 0, blue: 80)
            operations.append(.add(id, StrokeHeader(weight: [1, 2, 3.5].randomElement(using: &generator)!, colour: colour, start: points[0])))
            var offset = 1
            while offset < points.count {
                let batch = min(points.count - offset, Int.random(in: 1...8, using: &generator))
                operations.append(.append(id, points: Array(points[offset..<(offset + batch)]), offset: offset))
                offset += batch
            }
            if generator.chance(0.2) {
                let start = Double.random(in: 0..<Double(count), using: &generator)
                operations.append(.delete(id, start: start, end: start + Double.random(in: 0.5...4, using: &generator)))
            }
            if generator.chance(0.05) {
                operations.append(.removeStroke(id))
            }
            if generator.chance(0.1), let last = operations.last {
                operations.append(last)
            }
        }
        return operations
    }

    static func document(_ operations: some Sequence<Operation>) -> Document {
        var document = Document()
        for operation in operations {
            document.apply(operation)
        }
        return document
    }
}
