/// The deterministic, compact JSON writing that every replica shares: numbers in their
/// shortest round-trip form (integral values without ".0"), strings with minimal escaping,
/// and no whitespace. It lives in the core because the conflict rule for ADD headers is
/// defined on these bytes; the protocol encoder writes through the same code.
///
/// The writing itself is done by `CanonicalWriter` into memory reserved up front (no
/// capacity check per byte); these functions append one value to an array.
public enum CanonicalJSON {
    /// Appends `value` in its shortest form that reads back to the same `Double`:
    /// `3`, `-0.25`, `1e-7`, `1.2345678901234568e20`. Negative zero is written `0`.
    /// Non-finite values have no JSON form; callers validate before writing.
    public static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { $0.number(value) }
    }

    /// Appends a decimal integer.
    public static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { $0.integer(value) }
    }

    /// Appends the bytes of a literal.
    public static func appendLiteral(_ literal: StaticString, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: literal.utf8CodeUnitCount) { $0.literal(literal) }
    }

    /// Appends a JSON string literal. Only `"`, `\` and control characters are escaped;
    /// everything else is written as UTF-8.
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxBytes(ofString: string)) { $0.string(string) }
    }

    /// Appends `[x,y]`.
    public static func appendPoint(_ point: Point, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxPointBytes) { $0.point(point) }
    }

    /// Appends `[r,g,b]`.
    public static func appendColour(_ colour: Colour, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxColourBytes) { $0.colour(colour) }
    }

    /// Appends the part of a canonical ADD that follows the identifier:
    /// `"weight":W,"colour":[r,g,b],"start":[x,y]` then `,"is_shape":true` for shapes, and `}`.
    public static func appendHeaderFields(_ header: StrokeHeader, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxHeaderFieldsBytes) { $0.headerFields(header) }
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes, at most `maxBytes` bytes. The writer fills scratch memory
    /// (on the stack when small) without a capacity check per byte; one copy appends it.
    public mutating func appendCanonical(maxBytes: Int, _ body: (inout CanonicalWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxBytes) { scratch in
            var writer = CanonicalWriter(scratch.baseAddress!, capacity: maxBytes)
            body(&writer)
            append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress!, count: writer.count))
        }
    }
}

/// Writes canonical JSON into memory reserved by `appendCanonical(maxBytes:_:)`. Callers
/// reserve enough with the `max…Bytes` bounds; writing past them is a programming error.
public struct CanonicalWriter {
    /// Longest number: `-1.2345678901234567e-308` is 24 bytes.
    public static let maxNumberBytes = 32
    /// Longest `[x,y]`.
    public static let maxPointBytes = 2 * maxNumberBytes + 3
    /// Longest `[r,g,b]`.
    public static let maxColourBytes = 13
    /// Longest output of `headerFields(_:)`.
    public static let maxHeaderFieldsBytes = 64 + maxNumberBytes + maxColourBytes + maxPointBytes

    /// Longest quoted form of `string` (every byte escaped as `\u00XX`).
    public static func maxBytes(ofString string: String) -> Int {
        string.utf8.count * 6 + 2
    }

    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    /// Bytes written so far.
    public var count: Int { written }
    @usableFromInline var written = 0

    init(_ base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// One byte.
    @inlinable
    public mutating func byte(_ byte: UInt8) {
        assert(written < capacity, "CanonicalWriter: reserved space exceeded")
        base[written] = byte
        written += 1
    }

    /// The bytes of a literal, copied at once.
    @inlinable
    public mutating func literal(_ literal: StaticString) {
        let length = literal.utf8CodeUnitCount
        assert(written + length <= capacity, "CanonicalWriter: reserved space exceeded")
        (base + written).update(from: literal.utf8Start, count: length)
        written += length
    }

    /// A decimal integer.
    public mutating func integer(_ value: Int64) {
        if value < 0 {
            byte(UInt8(ascii: "-"))
        }
        unsigned(value.magnitude)
    }

    private mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var digits = 2
        var limit: UInt64 = 100
        while digits < 20, value >= limit {
            digits += 1
            limit &*= 10
        }
        var remaining = value
        var offset = written + digits
        repeat {
            offset -= 1
            base[offset] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
        } while remaining != 0
        written += digits
    }

    /// `value` in its shortest round-trip form (see `CanonicalJSON.appendNumber`).
    public mutating func number(_ value: Double) {
        if value == 0 {
            byte(UInt8(ascii: "0"))
            return
        }
        if abs(value) < 1e12 {
            // Canvas coordinates are mostly integers or have a few decimals. A value that is
            // exactly m / 1000 (as doubles) reads back from the decimal m × 10⁻³; with at most
            // 15 significant digits no shorter decimal names the same double, so this is the
            // shortest form, found without formatting a string.
            let scaled = (value * 1000).rounded()
            if scaled / 1000 == value {
                thousandths(Int64(scaled))
                return
            }
        }
        if value == value.rounded(.towardZero), abs(value) < 1e16 {
            integer(Int64(value))
            return
        }
        shortestDecimal(value.description)
    }

    /// `thousandths / 1000` as a decimal without trailing zeros.
    private mutating func thousandths(_ thousandths: Int64) {
        if thousandths < 0 {
            byte(UInt8(ascii: "-"))
        }
        let magnitude = thousandths.magnitude
        unsigned(magnitude / 1000)
        var fraction = magnitude % 1000
        guard fraction != 0 else { return }
        byte(UInt8(ascii: "."))
        var divisor: UInt64 = 100
        while fraction != 0 {
            byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }

    /// Swift's description is already the shortest round-trip decimal; JSON needs only the
    /// exponent tidied (`1e+16` → `1e16`, `1e-05` → `1e-5`) and no trailing `.0`.
    private mutating func shortestDecimal(_ text: String) {
        let start = written
        var exponent = false
        var exponentDigits = false
        for character in text.utf8 {
            switch character {
            case UInt8(ascii: "e"):
                exponent = true
                byte(character)
            case UInt8(ascii: "+") where exponent:
                continue
            case UInt8(ascii: "0") where exponent && !exponentDigits:
                continue
            default:
                exponentDigits = exponent && character != UInt8(ascii: "-")
                byte(character)
            }
        }
        if !exponent, written - start >= 2, base[written - 1] == UInt8(ascii: "0"), base[written - 2] == UInt8(ascii: ".") {
            written -= 2
        }
    }

    /// A quoted string: only `"`, `\` and control characters are escaped.
    public mutating func string(_ string: String) {
        byte(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            if let start = utf8.baseAddress,
                !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            {
                // Nothing to escape (the usual identifier): one copy.
                assert(written + utf8.count <= capacity, "CanonicalWriter: reserved space exceeded")
                (base + written).update(from: start, count: utf8.count)
                written += utf8.count
                return
            }
            for character in utf8 {
                switch character {
                case UInt8(ascii: "\""): literal(#"\""#)
                case UInt8(ascii: "\\"): literal(#"\\"#)
                case 0x0A: literal(#"\n"#)
                case 0x0D: literal(#"\r"#)
                case 0x09: literal(#"\t"#)
                case 0x08: literal(#"\b"#)
                case 0x0C: literal(#"\f"#)
                case 0..<0x20:
                    let hex: StaticString = "0123456789abcdef"
                    literal(#"\u00"#)
                    byte(hex.utf8Start[Int(character >> 4)])
                    byte(hex.utf8Start[Int(character & 0xF)])
                default:
                    byte(character)
                }
            }
        }
        byte(UInt8(ascii: "\""))
    }

    /// `[x,y]`.
    public mutating func point(_ point: Point) {
        byte(UInt8(ascii: "["))
        number(point.x)
        byte(UInt8(ascii: ","))
        number(point.y)
        byte(UInt8(ascii: "]"))
    }

    /// `[r,g,b]`.
    public mutating func colour(_ colour: Colour) {
        byte(UInt8(ascii: "["))
        unsigned(UInt64(colour.red))
        byte(UInt8(ascii: ","))
        unsigned(UInt64(colour.green))
        byte(UInt8(ascii: ","))
        unsigned(UInt64(colour.blue))
        byte(UInt8(ascii: "]"))
    }

    /// The part of a canonical ADD that follows the identifier:
    /// `"weight":W,"colour":[r,g,b],"start":[x,y]` then `,"is_shape":true` for shapes, and `}`.
    public mutating func headerFields(_ header: StrokeHeader) {
        literal(#""weight":"#)
        number(header.weight)
        literal(#","colour":"#)
        colour(header.colour)
        literal(#","start":"#)
        point(header.start)
        if header.isShape {
            literal(#","is_shape":true"#)
        }
        byte(UInt8(ascii: "}"))
    }
}
