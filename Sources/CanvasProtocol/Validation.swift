import CanvasCore

/// Checks of single JSON values against what the protocol expects; each failure names the
/// field's path and the offending value.
enum Validate {
    static func finiteNumber(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> Double {
        guard case .number(let number) = value else {
            throw ProtocolError(.wrongType, path: path(), "expected a finite number, got \(value.excerpt)")
        }
        guard number.isFinite else {
            throw ProtocolError(.invalidValue, path: path(), "expected a finite number, got \(value.excerpt)")
        }
        return number
    }

    static func positiveNumber(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> Double {
        let number = try finiteNumber(value, path())
        guard number > 0 else {
            throw ProtocolError(.invalidValue, path: path(), "expected a number greater than 0, got \(value.excerpt)")
        }
        return number
    }

    static func integer(_ value: JSONValue, _ path: @autoclosure () -> String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int {
        let number = try finiteNumber(value, path())
        guard number == number.rounded(.towardZero), number >= Double(range.lowerBound),
            number <= Double(range.upperBound)
        else {
            throw ProtocolError(
                .invalidValue, path: path(),
                "expected an integer from \(range.lowerBound) to \(range.upperBound), got \(value.excerpt)")
        }
        return Int(number)
    }

    static func bool(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> Bool {
        guard case .bool(let flag) = value else {
            throw ProtocolError(.wrongType, path: path(), "expected true or false, got \(value.excerpt)")
        }
        return flag
    }

    static func array(_ value: JSONValue, _ path: @autoclosure () -> String, count: Int? = nil) throws(ProtocolError) -> [JSONValue] {
        guard case .array(let elements) = value else {
            let expected = count.map { "an array of \($0) elements" } ?? "an array"
            throw ProtocolError(.wrongType, path: path(), "expected \(expected), got \(value.excerpt)")
        }
        if let count, elements.count != count {
            throw ProtocolError(
                .invalidValue, path: path(),
                "expected an array of \(count) elements, got \(elements.count) element\(elements.count == 1 ? "" : "s")")
        }
        return elements
    }

    static func object(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> [String: JSONValue] {
        guard case .object(let members) = value else {
            throw ProtocolError(.wrongType, path: path(), "expected an object, got \(value.excerpt)")
        }
        return members
    }

    static func identifier(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> StrokeID {
        guard case .string(let text) = value else {
            throw ProtocolError(.wrongType, path: path(), "expected a string, got \(value.excerpt)")
        }
        return try identifier(text, path())
    }

    static func identifier(_ text: String, _ path: @autoclosure () -> String) throws(ProtocolError) -> StrokeID {
        guard !text.isEmpty else {
            throw ProtocolError(.invalidValue, path: path(), "expected a non-empty identifier")
        }
        guard text.utf8.count <= ProtocolLimits.maxIdentifierBytes else {
            throw ProtocolError(
                .limitExceeded, path: path(),
                "identifier of \(text.utf8.count) bytes exceeds the limit of \(ProtocolLimits.maxIdentifierBytes)")
        }
        return StrokeID(text)
    }

    static func point(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> Point {
        let pair = try array(value, path(), count: 2)
        return Point(x: try finiteNumber(pair[0], path() + "[0]"), y: try finiteNumber(pair[1], path() + "[1]"))
    }

    static func points(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> [Point] {
        let elements = try array(value, path())
        try pointCount(elements.count, path())
        var points: [Point] = []
        points.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            points.append(try point(element, "\(path())[\(index)]"))
        }
        return points
    }

    static func pointCount(_ count: Int, _ path: @autoclosure () -> String) throws(ProtocolError) {
        guard count <= ProtocolLimits.maxPointsPerMessage else {
            throw ProtocolError(
                .limitExceeded, path: path(),
                "\(count) points exceed the limit of \(ProtocolLimits.maxPointsPerMessage) per message")
        }
    }

    static func colour(_ value: JSONValue, _ path: @autoclosure () -> String) throws(ProtocolError) -> Colour {
        let components = try array(value, path(), count: 3)
        var bytes: [UInt8] = []
        for (index, component) in components.enumerated() {
            bytes.append(UInt8(try integer(component, "\(path())[\(index)]", in: 0...255)))
        }
        return Colour(red: bytes[0], green: bytes[1], blue: bytes[2])
    }
}
