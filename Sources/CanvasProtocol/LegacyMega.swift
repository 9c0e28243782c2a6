import CanvasCore

/// The original app's MEGA message: its whole state, sent on join, as
/// `{"type":"MEGA","data":{ID:{"points":[[x,y]…],"segments":[{"start":s,"end":e}…],
/// "isShape":b,"thickness":w,"colour":[r,g,b]}}}` with colour components as 0…1 floats and
/// `segments` the *visible* parameter intervals. It becomes ordinary operations, so it
/// merges like anything else (never "longest array wins").
enum LegacyMega {
    static func operations(from data: JSONValue, path: String) throws(ProtocolError) -> [Operation] {
        let strokes = try Validate.object(data, path)
        var operations: [Operation] = []
        var totalPoints = 0
        for key in strokes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let strokePath = "\(path).\(key)"
            let id = try Validate.identifier(key, strokePath)
            let fields = try Validate.object(strokes[key]!, strokePath)
            func required(_ name: String) throws(ProtocolError) -> JSONValue {
                guard let value = fields[name], value != .null else {
                    throw ProtocolError(.missingField, path: "\(strokePath).\(name)", "missing field")
                }
                return value
            }
            let points = try Validate.points(required("points"), "\(strokePath).points")
            guard let start = points.first else {
                throw ProtocolError(.invalidValue, path: "\(strokePath).points", "expected at least one point")
            }
            totalPoints += points.count
            try Validate.pointCount(totalPoints, path)
            let header = StrokeHeader(
                weight: try Validate.positiveNumber(required("thickness"), "\(strokePath).thickness"),
                colour: try unitColour(required("colour"), "\(strokePath).colour"),
                start: start,
                isShape: try fields["isShape"].flatMap { value throws(ProtocolError) in
                    value == .null ? nil : try Validate.bool(value, "\(strokePath).isShape")
                } ?? false)
            let visible = try segments(required("segments"), "\(strokePath).segments")

            operations.append(.add(id, header))
            if points.count > 1 {
                operations.append(.append(id, points: Array(points[1...]), offset: 1))
            }
            let erased = visible.complement(within: 0...Double(points.count - 1))
            for interval in erased.intervals {
                operations.append(.delete(id, start: interval.lowerBound, end: interval.upperBound))
            }
        }
        return operations
    }

    /// Colour components as 0…1 floats, each mapped to the nearest of 0…255.
    private static func unitColour(_ value: JSONValue, _ path: String) throws(ProtocolError) -> Colour {
        let components = try Validate.array(value, path, count: 3)
        var bytes: [UInt8] = []
        for (index, component) in components.enumerated() {
            let componentPath = "\(path)[\(index)]"
            let fraction = try Validate.finiteNumber(component, componentPath)
            guard (0...1).contains(fraction) else {
                throw ProtocolError(
                    .invalidValue, path: componentPath, "expected a number from 0 to 1, got \(component.excerpt)")
            }
            bytes.append(UInt8((fraction * 255).rounded(.toNearestOrAwayFromZero)))
        }
        return Colour(red: bytes[0], green: bytes[1], blue: bytes[2])
    }

    /// The visible segments `[{"start":s,"end":e}…]` as a set; a segment with start ≥ end
    /// is empty.
    private static func segments(_ value: JSONValue, _ path: String) throws(ProtocolError) -> IntervalSet {
        var visible = IntervalSet()
        for (index, element) in try Validate.array(value, path).enumerated() {
            let segmentPath = "\(path)[\(index)]"
            let segment = try Validate.object(element, segmentPath)
            guard let start = segment["start"], start != .null else {
                throw ProtocolError(.missingField, path: "\(segmentPath).start", "missing field")
            }
            guard let end = segment["end"], end != .null else {
                throw ProtocolError(.missingField, path: "\(segmentPath).end", "missing field")
            }
            let lower = try Validate.finiteNumber(start, "\(segmentPath).start")
            let upper = try Validate.finiteNumber(end, "\(segmentPath).end")
            if lower < upper {
                visible.formUnion(lower...upper)
            }
        }
        return visible
    }
}
