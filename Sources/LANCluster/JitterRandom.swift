/// The node's source of randomness for delays (beacon jitter, request suppression):
/// SplitMix64 seeded from the injected incarnation and node id, so that a run is
/// replayable from its inputs. Nothing secret depends on it.
struct JitterRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(incarnation: UInt64, nodeID: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in nodeID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        state = incarnation ^ hash
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
