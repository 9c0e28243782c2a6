/// The deterministic, compact JSON writing that every replica shares: numbers in their
/// shortest round-trip form (integral values without ".0"), strings with minimal escaping,
/// and no whitespace. It lives in the core because the conflict rule for ADD headers is
/// defined on these bytes; the protocol encoder writes through the same functions.
public enum CanonicalJSON {
    /// Appends `value` in its shortest form that reads back to the same `Double`:
    /// `3`, `-0.25`, `1e-7`, `1.2345678901234568e20`. Negative zero is written `0`.
    /// Non-finite values have no JSON form; callers validate before writing.
    public static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if abs(value) < 1e12 {
            // Canvas coordinates are mostly integers or have a few decimals. A value that is
            // exactly m / 1000 (as doubles) reads back from the decimal m × 10⁻³; with at most
            // 15 significant digits no shorter decimal names the same double, so this is the
            // shortest form, found without formatting a string.
            let scaled = (value * 1000).rounded()
            let thousandths = Int64(scaled)
            if scaled / 1000 == value {
                appendThousandths(thousandths, to: &bytes)
                return
            }
        }
        if value == value.rounded(.towardZero), abs(value) < 1e16 {
            appendInteger(Int64(value), to: &bytes)
            return
        }
        appendShortestDecimal(value.description, to: &bytes)
    }

    /// Appends `thousandths / 1000` as a decimal without trailing zeros.
    private static func appendThousandths(_ thousandths: Int64, to bytes: inout [UInt8]) {
        if thousandths < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        let magnitude = thousandths.magnitude
        appendInteger(Int64(magnitude / 1000), to: &bytes)
        var fraction = magnitude % 1000
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var divisor: UInt64 = 100
        while fraction != 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }

    /// Appends a decimal integer.
    public static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        // Digits are produced last first into a 20-byte scratch (enough for any UInt64).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { scratch in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[index...]))
        }
    }

    /// Appends the bytes of a literal without going through `String`.
    /// Literals are short: a byte loop beats a call to `memmove` here.
    @inlinable
    public static func appendLiteral(_ literal: StaticString, to bytes: inout [UInt8]) {
        let start = literal.utf8Start
        for index in 0..<literal.utf8CodeUnitCount {
            bytes.append(start[index])
        }
    }

    /// Swift's description is already the shortest round-trip decimal; JSON needs only the
    /// exponent tidied (`1e+16` → `1e16`, `1e-05` → `1e-5`) and no trailing `.0`.
    private static func appendShortestDecimal(_ text: String, to bytes: inout [UInt8]) {
        var exponent = false
        var exponentDigits = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "e"):
                exponent = true
                bytes.append(byte)
            case UInt8(ascii: "+") where exponent:
                continue
            case UInt8(ascii: "0") where exponent && !exponentDigits:
                continue
            default:
                exponentDigits = exponent && byte != UInt8(ascii: "-")
                bytes.append(byte)
            }
        }
        if !exponent, bytes.count >= 2, bytes[bytes.count - 1] == UInt8(ascii: "0"),
            bytes[bytes.count - 2] == UInt8(ascii: ".")
        {
            bytes.removeLast(2)
        }
    }

    /// Appends a JSON string literal. Only `"`, `\\` and control characters are escaped;
    /// everything else is written as UTF-8.
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            if !utf8.contains(where: needsEscape) {
                bytes.append(contentsOf: utf8)
            } else {
                for byte in utf8 {
                    appendEscaped(byte, to: &bytes)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): appendLiteral(#"\""#, to: &bytes)
        case UInt8(ascii: "\\"): appendLiteral(#"\\"#, to: &bytes)
        case 0x0A: appendLiteral(#"\n"#, to: &bytes)
        case 0x0D: appendLiteral(#"\r"#, to: &bytes)
        case 0x09: appendLiteral(#"\t"#, to: &bytes)
        case 0x08: appendLiteral(#"\b"#, to: &bytes)
        case 0x0C: appendLiteral(#"\f"#, to: &bytes)
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            appendLiteral(#"\u00"#, to: &bytes)
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0xF)])
        default:
            bytes.append(byte)
        }
    }

    /// Appends `[x,y]`.
    public static func appendPoint(_ point: Point, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        appendNumber(point.x, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        appendNumber(point.y, to: &bytes)
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends `[r,g,b]`.
    public static func appendColour(_ colour: Colour, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        appendInteger(Int64(colour.red), to: &bytes)
        bytes.append(UInt8(ascii: ","))
        appendInteger(Int64(colour.green), to: &bytes)
        bytes.append(UInt8(ascii: ","))
        appendInteger(Int64(colour.blue), to: &bytes)
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends the part of a canonical ADD that follows the identifier:
    /// `"weight":W,"colour":[r,g,b],"start":[x,y]` then `,"is_shape":true` for shapes, and `}`.
    public static func appendHeaderFields(_ header: StrokeHeader, to bytes: inout [UInt8]) {
        appendLiteral(#""weight":"#, to: &bytes)
        appendNumber(header.weight, to: &bytes)
        appendLiteral(#","colour":"#, to: &bytes)
        appendColour(header.colour, to: &bytes)
        appendLiteral(#","start":"#, to: &bytes)
        appendPoint(header.start, to: &bytes)
        if header.isShape {
            appendLiteral(#","is_shape":true"#, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
