import CanvasCore
import CanvasTestSupport

@testable import CanvasProtocol

/// Random JSON for the oracle tests: values, their text in many legal spellings, byte-level
/// mutations of that text, and protocol messages with and without faults.
enum RandomJSON {
    static func value(depth: Int, using random: inout SplitMix64) -> JSONValue {
        let leaf = depth >= 3 || random.chance(0.5)
        switch Int.random(in: 0..<(leaf ? 4 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(random.chance(0.5))
        case 2: return .number(number(using: &random))
        case 3: return .string(string(using: &random))
        case 4: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1, using: &random) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                members[string(using: &random)] = value(depth: depth + 1, using: &random)
            }
            return .object(members)
        }
    }

    static func number(using random: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return Double(Int.random(in: -1000...1000, using: &random))
        case 1: return Double(Int.random(in: -100_000...100_000, using: &random)) / 8
        case 2: return Double.random(in: -1e6...1e6, using: &random)
        default:
            let mantissa = Double(Int.random(in: 1...999_999, using: &random))
            var scale = 1.0
            for _ in 0..<Int.random(in: 0...25, using: &random) { scale *= 10 }
            return random.chance(0.5) ? mantissa * scale : mantissa / scale
        }
    }

    static func string(using random: inout SplitMix64) -> String {
        let alphabet: [Unicode.Scalar] = ["a", "b", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "€", "😀", "中", "\u{7F}"]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            scalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)])
        }
        return String(scalars)
    }

    /// The value as JSON text with random whitespace, random escapes and random number
    /// spellings, all legal.
    static func text(_ value: JSONValue, using random: inout SplitMix64) -> String {
        var out = ""
        write(value, to: &out, using: &random)
        return space(&random) + out + space(&random)
    }

    private static func space(_ random: inout SplitMix64) -> String {
        random.chance(0.7) ? "" : [" ", "\n", "\t", "\r\n", "  "][Int.random(in: 0..<5, using: &random)]
    }

    private static func write(_ value: JSONValue, to out: inout String, using random: inout SplitMix64) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += spell(number, using: &random)
        case .string(let string): out += quote(string, using: &random)
        case .array(let elements):
            out += "[" + space(&random)
            for (index, element) in elements.enumerated() {
                if index > 0 { out += space(&random) + "," + space(&random) }
                write(element, to: &out, using: &random)
            }
            out += space(&random) + "]"
        case .object(let members):
            out += "{" + space(&random)
            // Sorted first: a dictionary's own order changes from process to process.
            for (index, key) in members.keys.sorted().shuffled(using: &random).enumerated() {
                if index > 0 { out += space(&random) + "," + space(&random) }
                out += quote(key, using: &random) + space(&random) + ":" + space(&random)
                write(members[key]!, to: &out, using: &random)
            }
            out += space(&random) + "}"
        }
    }

    /// Legal spellings of one double: canonical, Swift's, with an upper-case or signed
    /// exponent, or with trailing fraction zeros.
    static func spell(_ number: Double, using random: inout SplitMix64) -> String {
        var canonical: [UInt8] = []
        CanonicalJSON.appendNumber(number, to: &canonical)
        let text = String(decoding: canonical, as: UTF8.self)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return text
        case 1: return text.contains("e") ? text.replacingOccurrences(of: "e", with: "E") : text
        case 2: return text.contains("e") ? text.replacingOccurrences(of: "e", with: "e+").replacingOccurrences(of: "e+-", with: "e-") : text + "e0"
        default: return text.contains(".") && !text.contains("e") ? text + "00" : text
        }
    }

    private static func quote(_ string: String, using random: inout SplitMix64) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += random.chance(0.5) ? "\\n" : "\\u000a"
            case "\t": out += "\\t"
            case "/" where random.chance(0.5): out += "\\/"
            case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            case _ where scalar.value > 0xFFFF && random.chance(0.5):
                let value = scalar.value - 0x10000
                out += "\\u" + String(0xD800 + (value >> 10), radix: 16) + "\\u" + String(0xDC00 + (value & 0x3FF), radix: 16, uppercase: true)
            case _ where scalar.value > 0x7F && scalar.value <= 0xFFFF && random.chance(0.3):
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// One to three byte-level faults: deletion, insertion of a JSON-significant byte,
    /// replacement, truncation.
    static func mutate(_ bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        let significant = Array("{}[],:\"\\0123456789.-+eE tfn\u{0}".utf8) + [0xFF, 0xC3, 0x80]
        for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes.remove(at: index)
            case 1: bytes.insert(significant[Int.random(in: 0..<significant.count, using: &random)], at: index)
            case 2: bytes[index] = significant[Int.random(in: 0..<significant.count, using: &random)]
            default: bytes.removeSubrange(index...)
            }
        }
        return bytes
    }

    // MARK: Messages

    static func operation(using random: inout SplitMix64) -> CanvasCore.Operation {
        let id = StrokeID(["s", "stroke-1", "ß", "a\"b", "node_7_42"][Int.random(in: 0..<5, using: &random)])
        func point() -> Point { Point(x: number(using: &random), y: number(using: &random)) }
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            let colour = Colour(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random), blue: .random(in: 0...255, using: &random))
            return .add(id, StrokeHeader(weight: abs(number(using: &random)) + 0.5, colour: colour, start: point(), isShape: random.chance(0.3)))
        case 1:
            let points = (0..<Int.random(in: 0...20, using: &random)).map { _ in point() }
            return .append(id, points: points, offset: random.chance(0.8) ? Int.random(in: 1...5000, using: &random) : nil)
        case 2:
            return .delete(id, start: number(using: &random), end: number(using: &random))
        default:
            return .removeStroke(id)
        }
    }

    /// A message tree: mostly well-formed, often with one fault (a field removed, of the
    /// wrong type, or out of range), sometimes with unknown fields or an unknown type.
    static func message(using random: inout SplitMix64) -> JSONValue {
        var members: [String: JSONValue]
        if random.chance(0.1) {
            members = megaMembers(using: &random)
        } else {
            guard case .object(let fields) = try! JSONValue(parsing: MessageEncoder.encode(operation(using: &random))) else {
                preconditionFailure("an encoded operation is an object")
            }
            members = fields
        }
        if random.chance(0.2) {
            members[string(using: &random)] = value(depth: 1, using: &random)
        }
        if random.chance(0.6), let key = members.keys.sorted().filter({ $0 != "type" || random.chance(0.1) }).randomElement(using: &random) {
            let faults: [JSONValue] = [
                .null, .string("abc"), .number(0), .number(-1), .number(1.5), .number(256), .number(1e30), .array([]),
                .array([.number(1)]), .array([.number(1), .string("x")]), .array([.array([.number(1), .bool(true)])]),
                .object([:]), .bool(true),
            ]
            if random.chance(0.2) {
                members[key] = nil
            } else {
                members[key] = faults[Int.random(in: 0..<faults.count, using: &random)]
            }
        }
        if random.chance(0.05) {
            members["type"] = .string("FUTURE_TYPE")
        }
        return .object(members)
    }

    private static func megaMembers(using random: inout SplitMix64) -> [String: JSONValue] {
        var data: [String: JSONValue] = [:]
        for index in 0..<Int.random(in: 0...3, using: &random) {
            let count = Int.random(in: 1...6, using: &random)
            let points = (0..<count).map { _ in JSONValue.array([.number(number(using: &random)), .number(number(using: &random))]) }
            let segments = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                JSONValue.object(["start": .number(Double.random(in: 0...Double(count), using: &random)), "end": .number(Double.random(in: 0...Double(count), using: &random))])
            }
            data["m\(index)"] = .object([
                "points": .array(points), "segments": .array(segments), "isShape": .bool(random.chance(0.5)),
                "thickness": .number(Double.random(in: 0.5...9, using: &random)),
                "colour": .array((0..<3).map { _ in .number(Double.random(in: 0...1, using: &random)) }),
            ])
        }
        return ["type": .string("MEGA"), "data": .object(data)]
    }
}
