// Every random test draws from CanvasCore's SplitMix64, replayable from the seed it prints.
@_exported public import struct CanvasCore.SplitMix64

extension SplitMix64 {
    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
