@testable import CanvasStore
import CanvasTestSupport
import Testing

@Suite("CRC-32")
struct CRC32Tests {
    /// The definition, a bit at a time: what the eight-bytes-a-step form must equal.
    static func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func standardCheckValues() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test func equalsTheBitwiseDefinitionAtEveryLengthAndAlignment() {
        var generator = SplitMix64(seed: announcedSeed())
        let bytes = (0..<4_200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for start in 0..<9 {
            for length in Array(0...40) + [63, 64, 65, 1_000, 4_000] {
                let region = bytes[start..<(start + length)]
                let sliced = bytes.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[region.indices])) }
                #expect(sliced == Self.bitwise(region), "start \(start), length \(length)")
            }
        }
    }
}
