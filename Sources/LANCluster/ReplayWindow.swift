/// The sequence numbers seen from one sender incarnation, so that a datagram is accepted
/// at most once: a sliding window of `width` numbers below the highest seen, as a bitmap
/// (RFC 4303 §3.4.3 style). Older numbers are refused: they may be replays.
public struct ReplayWindow: Hashable, Sendable {
    /// How many sequence numbers, ending at the highest seen, the window remembers.
    public static let width: UInt64 = 1024

    /// The highest sequence number accepted, 0 before the first.
    public private(set) var highest: UInt64 = 0
    /// Bit `i` of the bitmap (word `i / 64`) is set when `highest - i` was accepted.
    private var bitmap = [UInt64](repeating: 0, count: Int(width / 64))

    /// An empty window.
    public init() {}

    /// Whether `sequence` is new and inside the window; when it is, it is recorded.
    public mutating func accept(_ sequence: UInt64) -> Bool {
        guard sequence > 0 else { return false }
        if sequence > highest {
            shift(by: sequence - highest)
            highest = sequence
            setBit(0)
            return true
        }
        let offset = highest - sequence
        guard offset < Self.width, !isBitSet(offset) else { return false }
        setBit(offset)
        return true
    }

    private mutating func shift(by distance: UInt64) {
        guard distance < Self.width else {
            for word in bitmap.indices { bitmap[word] = 0 }
            return
        }
        let words = Int(distance / 64)
        let bits = UInt64(distance % 64)
        for word in bitmap.indices.reversed() {
            let source = word - words
            var value: UInt64 = source >= 0 ? bitmap[source] << bits : 0
            if bits > 0, source - 1 >= 0 { value |= bitmap[source - 1] >> (64 - bits) }
            bitmap[word] = value
        }
    }

    private func isBitSet(_ offset: UInt64) -> Bool {
        bitmap[Int(offset / 64)] & (1 << (offset % 64)) != 0
    }

    private mutating func setBit(_ offset: UInt64) {
        bitmap[Int(offset / 64)] |= 1 << (offset % 64)
    }
}
