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

extension LegacyMega {
    /// The document as MEGA messages for peers of the original protocol (protocol/PROTOCOL.md
    /// §14): every stroke with a header and at least two points, its drawable points, its
    /// visible segments, pen and shape flag, strokes grouped in messages of at most
    /// `maxBytes` (a stroke larger than that travels alone). A peer of the original protocol
    /// merges a MEGA by keeping the longer points array, so receiving one twice, or after
    /// the operations themselves, never duplicates points; Canvas nodes apply it as the
    /// operations they already hold.
    ///
    /// Each stroke goes by `name(id)` (the name the original app knows it by: §14.7); a
    /// name already given to an earlier stroke is not given twice.
    ///
    /// Left out, as the original app's own MEGA leaves them out: strokes with nothing
    /// visible. Not expressible, so left out too: points beyond a gap (pending runs),
    /// erasure past the last point, and one-point strokes (a degenerate segment reads as
    /// empty, which would erase the dot on every Canvas node).
    static func messages(for document: Document, maxBytes: Int, name: (StrokeID) -> StrokeID) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var current: [UInt8] = []
        var named: Set<StrokeID> = []
        for stroke in document.sortedStrokes {
            guard let header = stroke.header, stroke.points.count > 1, !stroke.visible.isEmpty else { continue }
            let identifier = name(stroke.id)
            guard named.insert(identifier).inserted else { continue }
            var entry: [UInt8] = []
            CanonicalJSON.appendString(identifier.rawValue, to: &entry)
            CanonicalJSON.appendLiteral(#":{"points":["#, to: &entry)
            for (index, point) in stroke.points.enumerated() {
                if index > 0 { entry.append(UInt8(ascii: ",")) }
                CanonicalJSON.appendPoint(point, to: &entry)
            }
            CanonicalJSON.appendLiteral(#"],"segments":["#, to: &entry)
            var first = true
            for interval in stroke.visible.intervals where interval.lowerBound < interval.upperBound {
                if !first { entry.append(UInt8(ascii: ",")) }
                first = false
                CanonicalJSON.appendLiteral(#"{"start":"#, to: &entry)
                CanonicalJSON.appendNumber(interval.lowerBound, to: &entry)
                CanonicalJSON.appendLiteral(#","end":"#, to: &entry)
                CanonicalJSON.appendNumber(interval.upperBound, to: &entry)
                entry.append(UInt8(ascii: "}"))
            }
            CanonicalJSON.appendLiteral(#"],"isShape":"#, to: &entry)
            CanonicalJSON.appendLiteral(header.isShape ? "true" : "false", to: &entry)
            CanonicalJSON.appendLiteral(#","thickness":"#, to: &entry)
            CanonicalJSON.appendNumber(header.weight, to: &entry)
            CanonicalJSON.appendLiteral(#","colour":["#, to: &entry)
            for (index, component) in [header.colour.red, header.colour.green, header.colour.blue].enumerated() {
                if index > 0 { entry.append(UInt8(ascii: ",")) }
                CanonicalJSON.appendNumber(Double(component) / 255, to: &entry)
            }
            CanonicalJSON.appendLiteral("]}", to: &entry)
            if !current.isEmpty, current.count + entry.count + messageOverhead > maxBytes {
                messages.append(finished(current))
                current = []
            }
            if !current.isEmpty { current.append(UInt8(ascii: ",")) }
            current += entry
        }
        if !current.isEmpty { messages.append(finished(current)) }
        return messages
    }

    /// `{"type":"MEGA","data":{` … `}}` around the strokes.
    private static let messageOverhead = 26

    private static func finished(_ strokes: [UInt8]) -> [UInt8] {
        Array(#"{"type":"MEGA","data":{"#.utf8) + strokes + Array("}}".utf8)
    }
}
