import CanvasTestSupport
import Testing

@testable import LANCluster

@Suite struct ReplayWindowTests {
    @Test func acceptsEachSequenceOnceInAnyOrderWithinTheWindow() {
        var window = ReplayWindow()
        let sequences: [UInt64] = [
            0, 5, 3, 5, 3, 4, 1029, 5, 6, 100_000, 98_000, 99_000, 100_000 - 1023, 100_000 - 1024,
        ]
        let accepted = sequences.map { window.accept($0) }
        // 5 is at offset 1024 from 1029, just outside the window.
        #expect(accepted == [false, true, true, false, false, true, true, false, true, true, false, true, true, false])
    }

    /// Agrees with a model that remembers every sequence number.
    @Test func matchesAReferenceModel() {
        var generator = SplitMix64(seed: announcedSeed())
        var window = ReplayWindow()
        var seen: Set<UInt64> = []
        var highest: UInt64 = 0
        for _ in 0..<50_000 {
            let jump =
                generator.chance(0.01)
                ? UInt64.random(in: 0...3000, using: &generator) : UInt64.random(in: 0...70, using: &generator)
            let sequence =
                generator.chance(0.5)
                ? highest + jump : max(1, highest &- min(highest, UInt64.random(in: 0...1100, using: &generator)))
            let expected =
                sequence > 0 && !seen.contains(sequence)
                && (sequence > highest || highest - sequence < ReplayWindow.width)
            #expect(window.accept(sequence) == expected)
            if expected {
                seen.insert(sequence)
                highest = max(highest, sequence)
            }
        }
    }
}
