import CanvasCore
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasProtocol

/// The hand-written JSON reader and message decoder checked against Foundation's
/// `JSONSerialization` on random and malformed input: both must accept the same texts with
/// the same values, and the message decoder must give the same message or the same error
/// as validating Foundation's tree.
@Suite("Foundation as an oracle")
struct FoundationOracleTests {
    @Test func readerAgreesWithFoundationOnRandomAndMutatedJSON() {
        let seed: UInt64 = 0x0dd_ba11
        var random = SplitMix64(seed: seed)
        var compared = 0
        var rejectedByBoth = 0
        for iteration in 0..<3000 {
            var bytes = Array(RandomJSON.text(RandomJSON.value(depth: 0, using: &random), using: &random).utf8)
            if iteration % 2 == 1 {
                bytes = RandomJSON.mutate(bytes, using: &random)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let ours = try? JSONValue(parsing: bytes)
            let theirs = FoundationTree.parse(bytes)
            switch (ours, theirs) {
            case (let ours?, let theirs?):
                #expect(FoundationTree.equivalent(ours, theirs), "seed \(seed) iteration \(iteration): \(text)")
                compared += 1
            case (nil, nil):
                rejectedByBoth += 1
            case (let ours?, nil):
                // Foundation refuses numbers beyond a double; we read them as ±∞ and the
                // validator rejects them with a message naming the field.
                #expect(ours.containsNonFinite, "seed \(seed) iteration \(iteration): only we accept \(text)")
            case (nil, _?):
                // Foundation tolerates trailing commas, a byte-order mark and anything after a
                // NUL that follows a top-level number; RFC 8259 allows none of them.
                #expect(FoundationTree.isKnownLeniency(text), "seed \(seed) iteration \(iteration): only Foundation accepts \(text.debugDescription)")
            }
        }
        // The run must exercise both sides, or it proves nothing.
        #expect(compared > 1000)
        #expect(rejectedByBoth > 300)
    }

    @Test func decoderAgreesWithValidatingFoundationsTree() throws {
        let seed: UInt64 = 0xc0de_cafe
        var random = SplitMix64(seed: seed)
        var accepted = 0
        var rejected = 0
        for iteration in 0..<3000 {
            let message = RandomJSON.message(using: &random)
            let text = RandomJSON.text(message, using: &random)
            let bytes = Array(text.utf8)
            let ours = Result { () throws(ProtocolError) in try MessageDecoder.decode(bytes) }
            guard let tree = FoundationTree.parse(bytes) else {
                Issue.record("seed \(seed) iteration \(iteration): Foundation rejects our generated message \(text)")
                continue
            }
            let oracle = Result { () throws(ProtocolError) in try MessageDecoder.decode(tree: tree) }
            switch (ours, oracle) {
            case (.success(let a), .success(let b)):
                #expect(FoundationTree.equivalent(a, b), "seed \(seed) iteration \(iteration): \(text)")
                accepted += 1
            case (.failure(let a), .failure(let b)):
                // The same field and kind; the detail quotes the parsed value, whose last
                // digit Foundation may round differently (see `equivalent`).
                #expect(a.kind == b.kind && a.path == b.path, "seed \(seed) iteration \(iteration): \(a) versus \(b) for \(text)")
                rejected += 1
            default:
                Issue.record("seed \(seed) iteration \(iteration): \(ours) versus \(oracle) for \(text)")
            }
        }
        #expect(accepted > 500)
        #expect(rejected > 500)
    }

    @Test func encodedOperationsDecodeToThemselves() throws {
        let seed: UInt64 = 0x5eed_0001
        var random = SplitMix64(seed: seed)
        for iteration in 0..<2000 {
            let operation = RandomJSON.operation(using: &random)
            let bytes = MessageEncoder.encode(operation)
            let decoded = try MessageDecoder.decode(bytes)
            #expect(decoded == .operation(operation), "seed \(seed) iteration \(iteration)")
            // Foundation reads our bytes too, to the same message.
            let tree = try #require(FoundationTree.parse(bytes))
            #expect(FoundationTree.equivalent(try MessageDecoder.decode(tree: tree), decoded), "seed \(seed) iteration \(iteration)")
        }
    }
}

/// Foundation's parse converted to `JSONValue`.
enum FoundationTree {
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return nil
        }
        return convert(object)
    }

    private static func convert(_ object: Any) -> JSONValue {
        switch object {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" {
                return .bool(number.boolValue)
            }
            return .number(number.doubleValue)
        case let array as [Any]: return .array(array.map(convert))
        case let dictionary as [String: Any]: return .object(dictionary.mapValues(convert))
        default: preconditionFailure("unexpected Foundation JSON type \(type(of: object))")
        }
    }

    /// Equal messages, up to the tolerance on numbers of `equivalent(_:_:)` for values.
    static func equivalent(_ a: Message, _ b: Message) -> Bool {
        guard case .unsupported = a else {
            let encode = { (message: Message) in
                JSONValue.array(message.operations.map { try! JSONValue(parsing: MessageEncoder.encode($0)) })
            }
            return a.operations.count == b.operations.count && equivalent(encode(a), encode(b))
        }
        return a == b
    }

    /// Equal values, numbers within a few units in the last place: Foundation's reader on
    /// Linux rounds some 17-digit decimals to a neighbouring double (ours is exact: a
    /// fast path where that is provably exact, the C library's correctly rounded strtod
    /// otherwise), so exact comparison would blame the wrong side.
    static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return x == y || abs(x - y) <= abs(x) * 1e-15
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy(equivalent)
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { equivalent(value, $0) } ?? false }
        default:
            return a == b
        }
    }

    static func isKnownLeniency(_ text: String) -> Bool {
        text.hasPrefix("\u{FEFF}") || text.contains("\u{0}")
            || text.range(of: #",\s*[\]\}]"#, options: .regularExpression) != nil
    }
}

extension JSONValue {
    var containsNonFinite: Bool {
        switch self {
        case .number(let value): !value.isFinite
        case .array(let elements): elements.contains { $0.containsNonFinite }
        case .object(let members): members.values.contains { $0.containsNonFinite }
        default: false
        }
    }
}
