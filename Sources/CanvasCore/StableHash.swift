/// Deterministic 64-bit hashing for digests. Swift's `Hasher` is seeded per process, so it
/// cannot summarise a document for another replica; these functions give the same value on
/// every machine and every run. They detect differences between honest replicas (collision
/// chance about 2⁻⁶⁴ per comparison); they are not a defence against a malicious peer.
enum StableHash {
    /// A bijective 64-bit finaliser (MurmurHash3's fmix64): every input bit affects every
    /// output bit.

    static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }

    /// Hashes a byte sequence (FNV-1a, finalised by `mix`).
    static func bytes(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return mix(hash)
    }

    /// Combines two hashes, order-sensitively.

    static func combine(_ a: UInt64, _ b: UInt64) -> UInt64 {
        mix(a &* 0x9e37_79b9_7f4a_7c15 ^ b)
    }

    /// The contribution of point `index` to a stroke's points hash. Contributions are
    /// added (wrapping), so the hash is independent of arrival order and one point can be
    /// replaced in O(1).

    static func point(_ point: Point, at index: Int) -> UInt64 {
        mix(mix(point.x.bitPattern ^ UInt64(truncatingIfNeeded: index) &* 0x9e37_79b9_7f4a_7c15) ^ point.y.bitPattern)
    }
}
