public import CanvasCore

/// Encodes operations as canonical wire messages: deterministic bytes, no whitespace, keys
/// in a fixed order (`type`, `identifier`, then the fields), numbers in their shortest
/// round-trip form. Equal operations always give equal bytes.
public enum MessageEncoder {
    /// The message for one operation.
    public static func encode(_ operation: Operation) -> [UInt8] {
        var bytes: [UInt8] = []
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
        let fixed = 64  // the keys and punctuation of the longest message shape
        switch operation {
        case .add(let id, let header):
            bytes.appendCanonical(maxBytes: fixed + CanonicalWriter.maxBytes(ofString: id.rawValue) + CanonicalWriter.maxHeaderFieldsBytes) {
                writer in
                prefix(.add, id, &writer)
                writer.byte(UInt8(ascii: ","))
                writer.headerFields(header)
            }
        case .append(let id, let points, let offset):
            let maximum = fixed + CanonicalWriter.maxBytes(ofString: id.rawValue) + points.count * (CanonicalWriter.maxPointBytes + 1)
                + CanonicalWriter.maxNumberBytes
            bytes.appendCanonical(maxBytes: maximum) { writer in
                prefix(.append, id, &writer)
                writer.literal(#","points":["#)
                for (index, point) in points.enumerated() {
                    if index > 0 { writer.byte(UInt8(ascii: ",")) }
                    writer.point(point)
                }
                writer.byte(UInt8(ascii: "]"))
                if let offset {
                    writer.literal(#","offset":"#)
                    writer.integer(Int64(offset))
                }
                writer.byte(UInt8(ascii: "}"))
            }
        case .delete(let id, let start, let end):
            precondition(start.isFinite && end.isFinite, "DELETE bounds must be finite")
            bytes.appendCanonical(maxBytes: fixed + CanonicalWriter.maxBytes(ofString: id.rawValue) + 2 * CanonicalWriter.maxNumberBytes) {
                writer in
                prefix(.delete, id, &writer)
                writer.literal(#","start_offset":"#)
                writer.number(start)
                writer.literal(#","end_offset":"#)
                writer.number(end)
                writer.byte(UInt8(ascii: "}"))
            }
        case .removeStroke(let id):
            bytes.appendCanonical(maxBytes: fixed + CanonicalWriter.maxBytes(ofString: id.rawValue)) { writer in
                prefix(.removeStroke, id, &writer)
                writer.byte(UInt8(ascii: "}"))
            }
        }
    }

    /// `{"type":"T","identifier":"ID"` — the common start of every operation.
    private static func prefix(_ type: MessageKind, _ id: StrokeID, _ writer: inout CanonicalWriter) {
        writer.literal(#"{"type":""#)
        writer.literal(type.literal)
        writer.literal(#"","identifier":"#)
        writer.string(id.rawValue)
    }
}

extension MessageEncoder {
    /// The document as MEGA messages of at most `maxBytes` each, for peers of the original
    /// protocol (see `LegacyMega.messages(for:maxBytes:name:)`), each stroke under
    /// `name(id)` (the name its body form gives it; by default its identifier).
    public static func legacyMegaMessages(
        for document: Document, maxBytes: Int, name: (StrokeID) -> StrokeID = { $0 }
    ) -> [[UInt8]] {
        LegacyMega.messages(for: document, maxBytes: maxBytes, name: name)
    }
}
