/// Several protocol messages in one transport payload (PROTOCOL.md §15), so that a LAN
/// datagram carries what a node sends in one go — a gateway's relay of an XMPP batch, a
/// burst of local strokes, repairs — instead of one datagram for each.
///
/// ```
/// 0x00  then, for each message: length (varint, ≥ 1) + the message (JSON or compact)
/// ```
///
/// The first byte 0x00 starts neither a JSON text nor a compact message, so a payload
/// holding a single message needs no packing and a receiver tells the two apart by it.
public enum PackedPayload {
    /// The first byte of a packed payload.
    public static let marker: UInt8 = 0

    /// Whether `payload` is a packed payload.
    @inlinable
    public static func isPacked(_ payload: [UInt8]) -> Bool { payload.first == marker }

    /// `messages` (in order) as payloads of at most `maxBytes` each: consecutive messages
    /// share a packed payload while they fit; a payload that would hold only one message
    /// is that message as it is (larger than `maxBytes` if the message is).
    public static func pack(_ messages: [[UInt8]], maxBytes: Int) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var group: [[UInt8]] = []
        var groupBytes = 1
        func close() {
            if group.count == 1 {
                payloads.append(group[0])
            } else if !group.isEmpty {
                var payload: [UInt8] = []
                payload.reserveCapacity(groupBytes)
                payload.append(marker)
                for message in group {
                    Varint.append(UInt64(message.count), to: &payload)
                    payload.append(contentsOf: message)
                }
                payloads.append(payload)
            }
            group = []
            groupBytes = 1
        }
        for message in messages where !message.isEmpty {
            let bytes = Varint.size(of: UInt64(message.count)) + message.count
            if !group.isEmpty, groupBytes + bytes > maxBytes { close() }
            group.append(message)
            groupBytes += bytes
        }
        close()
        return payloads
    }

    /// The messages of `payload`: those of a packed payload, or the payload itself.
    public static func unpack(_ payload: [UInt8]) throws(ProtocolError) -> [[UInt8]] {
        guard isPacked(payload) else { return [payload] }
        var messages: [[UInt8]] = []
        var position = 1
        while position < payload.count {
            guard let length = Varint.read(payload, at: &position) else { throw cut(messages.count) }
            guard length > 0 else {
                throw ProtocolError(.malformedCompact, path: "payload[\(messages.count)]", "empty message in a packed payload")
            }
            guard length <= UInt64(payload.count - position) else { throw cut(messages.count) }
            messages.append(Array(payload[position..<position + Int(length)]))
            position += Int(length)
        }
        guard !messages.isEmpty else {
            throw ProtocolError(.malformedCompact, path: "payload", "packed payload without messages")
        }
        return messages
    }

    private static func cut(_ index: Int) -> ProtocolError {
        ProtocolError(
            .malformedCompact, path: "payload[\(index)]", "packed payload ends in the middle of a message, or a length is not a varint")
    }
}
