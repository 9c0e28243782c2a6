// Every random test draws from CanvasCore's SplitMix64, replayable from the seed it prints.
import Foundation
@_exported public import struct CanvasCore.SplitMix64

extension SplitMix64 {
    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}

/// A seed printed so that a failing run can be replayed: `CANVAS_SEED`, or a random one.
public func announcedSeed(_ test: String = #function) -> UInt64 {
    let seed = UInt64(ProcessInfo.processInfo.environment["CANVAS_SEED"] ?? "") ?? UInt64.random(in: 0..<1_000_000)
    print("\(test): seed \(seed) (set CANVAS_SEED to replay)")
    return seed
}
