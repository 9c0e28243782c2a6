import CanvasTestSupport
import Testing
import XMPP

@Suite("ReconnectBackoff")
struct ReconnectBackoffTests {
    /// Each delay lies in [base / 2, base]; the base doubles from 500 ms up to 30 s.
    @Test(arguments: [1, 2, 42, 0xDEAD_BEEF] as [UInt64])
    func delaysGrowWithinTheirBoundsUpToTheCap(seed: UInt64) {
        print("ReconnectBackoff seed \(seed)")
        var random = SplitMix64(seed: seed)
        var backoff = ReconnectBackoff()
        let bases: [Duration] = [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000].map { .milliseconds($0) }
        for base in bases {
            let delay = backoff.nextDelay(random: &random)
            #expect(delay >= base / 2 && delay <= base, "delay \(delay) outside [\(base / 2), \(base)]")
        }
    }

    @Test func resetStartsAgainFromTheInitialDelay() {
        var random = SplitMix64(seed: 7)
        var backoff = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(8), multiplier: 3)
        for _ in 1...5 { _ = backoff.nextDelay(random: &random) }
        #expect(backoff.nextDelay(random: &random) >= .seconds(4), "capped at 8 s, at least half of it")
        backoff.reset()
        #expect(backoff.nextDelay(random: &random) <= .seconds(1))
        #expect(backoff.nextDelay(random: &random) >= .milliseconds(1500))
    }

    /// The jitter spreads delays over the whole interval rather than sticking to one end.
    @Test func jitterSpreadsDelays() {
        var random = SplitMix64(seed: 3)
        var delays: [Duration] = []
        for _ in 1...200 {
            var backoff = ReconnectBackoff(initial: .seconds(2))
            delays.append(backoff.nextDelay(random: &random))
        }
        #expect(delays.min()! < .milliseconds(1100) && delays.max()! > .milliseconds(1900))
    }

    @Test func sameSeedGivesSameDelays() {
        var first = SplitMix64(seed: 11)
        var second = SplitMix64(seed: 11)
        var a = ReconnectBackoff()
        var b = ReconnectBackoff()
        for _ in 1...10 {
            #expect(a.nextDelay(random: &first) == b.nextDelay(random: &second))
        }
    }

    @Test func valuesThatWouldShrinkDelaysAreRaised() {
        let backoff = ReconnectBackoff(initial: .seconds(-1), maximum: .seconds(-5), multiplier: .nan)
        #expect(backoff.initial == .zero && backoff.maximum == .zero && backoff.multiplier == 1)
        var random = SplitMix64(seed: 1)
        var steady = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(10), multiplier: 0.5)
        for _ in 1...5 {
            let delay = steady.nextDelay(random: &random)
            #expect(delay >= .milliseconds(500) && delay <= .seconds(1))
        }
    }

    @Test func hugeMaximumDoesNotOverflow() {
        var random = SplitMix64(seed: 5)
        var backoff = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(Int64.max / 2), multiplier: 1000)
        for _ in 1...40 { _ = backoff.nextDelay(random: &random) }
        #expect(backoff.nextDelay(random: &random) >= .seconds(Int64.max / 4))
    }
}
