/// A strict RFC 8259 JSON reader over a buffer of UTF-8 bytes: a cursor with one method
/// per grammar rule. It rejects what JSON forbids (leading zeros, `.5`, raw control
/// characters in strings, lone surrogates, invalid UTF-8, trailing garbage) and nesting
/// deeper than `ProtocolLimits.maxNestingDepth`.
///
/// The reader borrows its buffer: use it only inside the `withUnsafeBufferPointer` call
/// that made the buffer.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Errors

    func syntaxError(_ expected: String) -> ProtocolError {
        guard position < bytes.count else {
            return ProtocolError(.malformedJSON, path: "", "unexpected end of input, expected \(expected)")
        }
        let byte = bytes[position]
        let found =
            byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        return ProtocolError(.malformedJSON, path: "", "at byte \(position): expected \(expected), found \(found)")
    }

    // MARK: Structure

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte, without consuming it.
    var peek: UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    /// Consumes `byte` (after whitespace) or fails naming `expected`.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ expected: @autoclosure () -> String) throws(ProtocolError) {
        guard consume(byte) else { throw syntaxError(expected()) }
    }

    /// Consumes `byte` (after whitespace) if it is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        // Compact JSON (what every canonical encoder writes) has no whitespace: try first.
        if position < bytes.count, bytes[position] == byte {
            position += 1
            return true
        }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Fails unless only whitespace remains.
    mutating func expectEnd() throws(ProtocolError) {
        skipWhitespace()
        guard position == bytes.count else { throw syntaxError("end of input") }
    }

    mutating func enterContainer() throws(ProtocolError) {
        depth += 1
        guard depth <= ProtocolLimits.maxNestingDepth else {
            throw ProtocolError(
                .limitExceeded, path: "", "nesting deeper than \(ProtocolLimits.maxNestingDepth) arrays and objects")
        }
    }

    mutating func leaveContainer() {
        depth -= 1
    }

    /// Calls `body` once per element of an array; the cursor must be at `[`.
    mutating func forEachElement(_ body: (inout JSONReader, Int) throws(ProtocolError) -> Void) throws(ProtocolError) {
        try expect(UInt8(ascii: "["), "'['")
        try enterContainer()
        if consume(UInt8(ascii: "]")) {
            leaveContainer()
            return
        }
        var index = 0
        repeat {
            skipWhitespace()
            try body(&self, index)
            index += 1
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"), "',' or ']'")
        leaveContainer()
    }

    /// A string literal as read: its raw bytes when they are plain ASCII without escapes
    /// (the common case, matched without building a `String`), else the decoded string.
    enum RawString {
        case ascii(UnsafeBufferPointer<UInt8>)
        case decoded(String)

        var string: String {
            switch self {
            case .ascii(let bytes): String(decoding: bytes, as: UTF8.self)
            case .decoded(let string): string
            }
        }
    }

    /// Calls `body` once per member of an object with the member's key, the cursor at its
    /// value; the cursor must be at `{`.
    mutating func forEachMember(_ body: (inout JSONReader, RawString) throws(ProtocolError) -> Void) throws(ProtocolError) {
        try expect(UInt8(ascii: "{"), "'{'")
        try enterContainer()
        if consume(UInt8(ascii: "}")) {
            leaveContainer()
            return
        }
        repeat {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw syntaxError("a string key") }
            let key = try readRawString()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            try body(&self, key)
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "',' or '}'")
        leaveContainer()
    }

    /// Reads a string literal, without decoding it when it is plain ASCII; the cursor must
    /// be at its opening quote.
    mutating func readRawString() throws(ProtocolError) -> RawString {
        var end = position + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let key = UnsafeBufferPointer(rebasing: bytes[(position + 1)..<end])
                position = end + 1
                return .ascii(key)
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
            end += 1
        }
        return .decoded(try readString())
    }

    // MARK: Values

    /// Reads any value into a tree.
    mutating func readValue() throws(ProtocolError) -> JSONValue {
        skipWhitespace()
        guard let byte = peek else { throw syntaxError("a value") }
        switch byte {
        case UInt8(ascii: "{"):
            var members: [String: JSONValue] = [:]
            try forEachMember { (reader, key) throws(ProtocolError) in
                members[key.string] = try reader.readValue()
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            try forEachElement { (reader, _) throws(ProtocolError) in
                elements.append(try reader.readValue())
            }
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        default:
            return .number(try readNumber())
        }
    }

    private mutating func readLiteral(_ literal: StaticString) throws(ProtocolError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count,
            memcmpEqual(literal.utf8Start, count)
        else { throw syntaxError("a value") }
        position += count
    }

    private func memcmpEqual(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for index in 0..<count where bytes[position + index] != pointer[index] {
            return false
        }
        return true
    }

    // MARK: Strings

    /// Reads a string literal; the cursor must be at its opening quote.
    mutating func readString() throws(ProtocolError) -> String {
        guard peek == UInt8(ascii: "\"") else { throw syntaxError("a string") }
        position += 1
        let start = position
        var ascii = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                return try makeString(raw, ascii: ascii)
            }
            if byte == UInt8(ascii: "\\") {
                return try readEscapedString(from: start)
            }
            if byte < 0x20 {
                throw syntaxError("a character (control characters must be escaped in strings)")
            }
            ascii = ascii && byte < 0x80
            position += 1
        }
        throw syntaxError("'\"' closing the string")
    }

    private func makeString(_ raw: some Collection<UInt8>, ascii: Bool) throws(ProtocolError) -> String {
        if ascii {
            return String(decoding: raw, as: UTF8.self)
        }
        guard let string = String(validating: raw, as: UTF8.self) else {
            throw ProtocolError(.malformedJSON, path: "", "string before byte \(position) is not valid UTF-8")
        }
        return string
    }

    /// The slow path of `readString`, for strings with escapes: decodes into a buffer.
    private mutating func readEscapedString(from start: Int) throws(ProtocolError) -> String {
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        var ascii = decoded.allSatisfy { $0 < 0x80 }
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try makeString(decoded, ascii: ascii)
            case UInt8(ascii: "\\"):
                position += 1
                guard let escape = peek else { break }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try readUnicodeEscape()
                    decoded.append(contentsOf: UTF8.encode(scalar)!)
                    ascii = ascii && scalar.isASCII
                default:
                    position -= 1
                    throw syntaxError("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                }
            default:
                if byte < 0x20 {
                    throw syntaxError("a character (control characters must be escaped in strings)")
                }
                ascii = ascii && byte < 0x80
                decoded.append(byte)
                position += 1
            }
        }
        throw syntaxError("'\"' closing the string")
    }

    /// Reads the XXXX of `\uXXXX` (the cursor just after `u`), and a following low
    /// surrogate escape when the first is a high surrogate.
    private mutating func readUnicodeEscape() throws(ProtocolError) -> Unicode.Scalar {
        let first = try readHex4()
        switch first {
        case 0xD800...0xDBFF:
            guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else { throw syntaxError("a low surrogate escape after a high surrogate") }
            position += 2
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw syntaxError("a low surrogate (\\uDC00-\\uDFFF) after a high surrogate")
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        case 0xDC00...0xDFFF:
            throw ProtocolError(.malformedJSON, path: "", "at byte \(position): lone low surrogate escape")
        default:
            return Unicode.Scalar(first)!
        }
    }

    private mutating func readHex4() throws(ProtocolError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek else { throw syntaxError("four hex digits") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntaxError("four hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    // MARK: Numbers

    /// Reads a number. Exact: the result is the double nearest to the decimal text (a
    /// fast path for up to 19 significant digits and small exponents, the C library's
    /// correctly rounded conversion otherwise). Out-of-range values become ±infinity,
    /// which callers reject as non-finite.
    mutating func readNumber() throws(ProtocolError) -> Double {
        let start = position
        let end = bytes.count
        var index = position
        defer { position = index }
        var negative = false
        if index < end, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < end, JSONReader.isDigit(bytes[index]) else {
            position = index
            throw syntaxError("a value")
        }
        // Up to 19 significant digits go into the mantissa, the rest only move the decimal
        // exponent (and send the number to the slow path below).
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < end, JSONReader.isDigit(bytes[index]) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                } else {
                    exponent += 1
                }
                significantDigits += 1
                index += 1
            }
        }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < end, JSONReader.isDigit(bytes[index]) else {
                position = index
                throw syntaxError("a digit after the decimal point")
            }
            while index < end, JSONReader.isDigit(bytes[index]) {
                let digit = UInt64(bytes[index] &- UInt8(ascii: "0"))
                if mantissa == 0 && digit == 0 {
                    exponent -= 1  // a leading zero of the fraction is not significant
                } else {
                    if significantDigits < 19 {
                        mantissa = mantissa &* 10 &+ digit
                        exponent -= 1
                    }
                    significantDigits += 1
                }
                index += 1
            }
        }
        if index < end, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < end, JSONReader.isDigit(bytes[index]) else {
                position = index
                throw syntaxError("a digit in the exponent")
            }
            var written = 0
            while index < end, JSONReader.isDigit(bytes[index]) {
                written = min(written * 10 + Int(bytes[index] &- UInt8(ascii: "0")), 100_000)
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        if significantDigits <= 19, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            // Clinger's fast path: both operands are exact doubles, so the one rounding of
            // the product or quotient gives the correctly rounded result.
            var value = Double(mantissa)
            if exponent < 0 {
                value /= JSONReader.powerOfTen(-exponent)
            } else {
                value *= JSONReader.powerOfTen(exponent)
            }
            return negative ? -value : value
        }
        // The text matched the JSON grammar, which `Double(_:)` accepts (out-of-range values
        // give ±infinity or zero); nil would mean a grammar bug, reported as malformed.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else {
            throw ProtocolError(.malformedJSON, path: "", "at byte \(start): unreadable number \(text)")
        }
        return value
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// 10^0 … 10^22, every one exactly representable as a double.
    private static let powersOfTen: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
        Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) = (
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
        1e21, 1e22
    )

    private static func powerOfTen(_ exponent: Int) -> Double {
        withUnsafeBytes(of: powersOfTen) { $0.load(fromByteOffset: exponent * 8, as: Double.self) }
    }
}
