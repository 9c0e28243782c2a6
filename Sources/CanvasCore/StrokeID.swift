/// The identifier of a stroke: a non-empty string chosen by the stroke's author and unique
/// within a room (the original app used `NODE_COUNTER` style names).
///
/// Identifiers are equal when their UTF-8 bytes are equal. Swift's `String ==` treats
/// canonically equivalent spellings ("é" and "e" + U+0301) as equal, which would let two
/// replicas file one stroke under different spellings depending on arrival order; bytes
/// are what every replica, in any language, compares alike.
public struct StrokeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The identifier as it travels on the wire.
    public let rawValue: String
    /// For ASCII, `String ==` is byte equality (and fast); only other text needs bytes.
    private let isASCII: Bool

    /// Creates an identifier; the protocol layer rejects empty or oversized identifiers
    /// before they reach the document.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
        var bytes = rawValue
        isASCII = bytes.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 } }
    }

    public static func == (lhs: StrokeID, rhs: StrokeID) -> Bool {
        if lhs.isASCII && rhs.isASCII {
            return lhs.rawValue == rhs.rawValue
        }
        return lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        var bytes = rawValue
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Identifiers sort by their UTF-8 bytes, so every platform orders them alike.
    public static func < (lhs: StrokeID, rhs: StrokeID) -> Bool {
        // Over the contiguous bytes (the generic walk of the two UTF-8 views was most of
        // sorting a document's strokes for its snapshot).
        var left = lhs.rawValue
        var right = rhs.rawValue
        return left.withUTF8 { left in
            right.withUTF8 { right in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
    }

    public var description: String { rawValue }
}
