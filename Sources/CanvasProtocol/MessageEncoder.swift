public import CanvasCore

/// Encodes operations as canonical wire messages: deterministic bytes, no whitespace, keys
/// in a fixed order (`type`, `identifier`, then the fields), numbers in their shortest
/// round-trip form. Equal operations always give equal bytes.
public enum MessageEncoder {
    /// The message for one operation.
    public static func encode(_ operation: Operation) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96)
        append(operation, to: &bytes)
        return bytes
    }

    /// The message for one operation, as a string.
    public static func encodeString(_ operation: Operation) -> String {
        String(decoding: encode(operation), as: UTF8.self)
    }

    /// Appends the message for `operation` to `bytes`. A DELETE's bounds must be finite
    /// (`Document` never produces others; REMOVE_STROKE stands for erasing to infinity).
    public static func append(_ operation: Operation, to bytes: inout [UInt8]) {
        switch operation {
        case .add(let id, let header):
            appendPrefix("ADD", id, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            CanonicalJSON.appendHeaderFields(header, to: &bytes)
        case .append(let id, let points, let offset):
            appendPrefix("APPEND", id, to: &bytes)
            CanonicalJSON.appendLiteral(#","points":["#, to: &bytes)
            for (index, point) in points.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                CanonicalJSON.appendPoint(point, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
            if let offset {
                CanonicalJSON.appendLiteral(#","offset":"#, to: &bytes)
                CanonicalJSON.appendInteger(Int64(offset), to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .delete(let id, let start, let end):
            precondition(start.isFinite && end.isFinite, "DELETE bounds must be finite")
            appendPrefix("DELETE", id, to: &bytes)
            CanonicalJSON.appendLiteral(#","start_offset":"#, to: &bytes)
            CanonicalJSON.appendNumber(start, to: &bytes)
            CanonicalJSON.appendLiteral(#","end_offset":"#, to: &bytes)
            CanonicalJSON.appendNumber(end, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        case .removeStroke(let id):
            appendPrefix("REMOVE_STROKE", id, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// `{"type":"T","identifier":"ID"` — the common start of every operation.
    private static func appendPrefix(_ type: StaticString, _ id: StrokeID, to bytes: inout [UInt8]) {
        CanonicalJSON.appendLiteral(#"{"type":""#, to: &bytes)
        CanonicalJSON.appendLiteral(type, to: &bytes)
        CanonicalJSON.appendLiteral(#"","identifier":"#, to: &bytes)
        CanonicalJSON.appendString(id.rawValue, to: &bytes)
    }
}
