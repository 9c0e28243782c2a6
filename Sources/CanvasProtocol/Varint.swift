/// Unsigned LEB128 integers (7 bits a byte, low groups first), as the compact forms of
/// PROTOCOL.md §15 write them.
enum Varint {
    /// Appends `value`.
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// How many bytes `value` takes.
    static func size(of value: UInt64) -> Int {
        var size = 1
        var value = value >> 7
        while value != 0 {
            size += 1
            value >>= 7
        }
        return size
    }

    /// The value at `position` (moved past it), or nil when the bytes end inside it or it
    /// does not fit 64 bits.
    static func read<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at position: inout Int) -> UInt64?
    where Bytes.Index == Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.endIndex {
            let byte = bytes[position]
            position += 1
            guard shift < 63 || (shift == 63 && byte <= 1) else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
