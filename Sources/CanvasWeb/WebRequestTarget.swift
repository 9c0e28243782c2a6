/// A request's target (`/path?key=value&…`) split into its path and its query, percent-
/// decoded.
struct WebRequestTarget: Equatable, Sendable {
    var path: String
    var query: [String: String]

    init(_ uri: String) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = Self.percentDecoded(parts[0], plusIsSpace: false) ?? String(parts[0])
        query = [:]
        guard parts.count > 1 else { return }
        for pair in parts[1].split(separator: "&") {
            let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = Self.percentDecoded(keyValue[0], plusIsSpace: true) else { continue }
            let value = keyValue.count > 1 ? Self.percentDecoded(keyValue[1], plusIsSpace: true) : ""
            if let value, query[key] == nil { query[key] = value }
        }
    }

    /// `text` with `%XX` escapes (and `+`, in a query) decoded; nil if they are malformed
    /// or not UTF-8.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
