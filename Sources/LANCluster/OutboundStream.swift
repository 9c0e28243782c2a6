/// The sender side: this node's two counters (every datagram's sequence number, and the
/// data sequence numbers of fragments), payload fragmentation, and a bounded buffer of
/// recent fragments to answer negative acknowledgements.
struct OutboundStream: Sendable {
    private struct Retained: Sendable {
        var fragment: DataFragment
        var lastRepaired: Duration?
    }

    /// What to do about a request for our fragments.
    struct RepairPlan: Sendable {
        /// The fragments to send again, ascending.
        var fragments: [DataFragment] = []
        /// Requested fragments re-sent within the suppression window: not sent again.
        var suppressed = 0
        /// Requested fragments not in the buffer.
        var unavailable = 0
        /// Requested fragments over the repair budget: not sent now (asked again later, or
        /// recovered by anti-entropy).
        var throttled = 0
    }

    /// The sequence number of the next datagram.
    private(set) var nextSequence: UInt64 = 1
    /// The highest data sequence number sent, 0 before the first fragment.
    private(set) var highestDataSequence: UInt64 = 0
    /// Retained fragments by data sequence number: always `oldestRetained...highestDataSequence`.
    private var retained: [UInt64: Retained] = [:]
    private var oldestRetained: UInt64 = 1
    private var retainedBytes = 0

    /// Takes the next datagram sequence number.
    mutating func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// Splits `payload` into fragments of at most `chunkCapacity` bytes (at least one, even
    /// for an empty payload), numbers them, and keeps them for repairs within
    /// `fragmentLimit` fragments and `byteLimit` bytes.
    mutating func fragments(
        of payload: [UInt8], chunkCapacity: Int, fragmentLimit: Int, byteLimit: Int
    ) -> [DataFragment] {
        let count = max(1, (payload.count + chunkCapacity - 1) / chunkCapacity)
        var fragments: [DataFragment] = []
        fragments.reserveCapacity(count)
        for index in 0..<count {
            let start = index * chunkCapacity
            let chunk = Array(payload[start..<min(start + chunkCapacity, payload.count)])
            highestDataSequence += 1
            let fragment = DataFragment(
                dataSequence: highestDataSequence, index: UInt16(index), count: UInt16(count), chunk: chunk)
            retained[highestDataSequence] = Retained(fragment: fragment)
            retainedBytes += chunk.count
            fragments.append(fragment)
        }
        while retained.count > fragmentLimit || (retainedBytes > byteLimit && retained.count > 1) {
            retainedBytes -= retained.removeValue(forKey: oldestRetained)?.fragment.chunk.count ?? 0
            oldestRetained += 1
        }
        return fragments
    }

    /// The repairs for a request of `ranges`, at most `limit` fragments; records them
    /// against the suppression window.
    mutating func repairs(
        for ranges: [ClosedRange<UInt64>], now: Duration, suppressionWindow: Duration, limit: Int = .max
    ) -> RepairPlan {
        var plan = RepairPlan()
        for range in ranges {
            let total = Int(clamping: range.upperBound - range.lowerBound).saturatingAdd(1)
            guard highestDataSequence >= oldestRetained else {
                plan.unavailable = plan.unavailable.saturatingAdd(total)
                continue
            }
            let low = max(range.lowerBound, oldestRetained)
            let high = min(range.upperBound, highestDataSequence)
            guard low <= high else {
                plan.unavailable = plan.unavailable.saturatingAdd(total)
                continue
            }
            plan.unavailable = plan.unavailable.saturatingAdd(total - (Int(high - low) + 1))
            for sequence in low...high {
                if let last = retained[sequence]!.lastRepaired, now - last < suppressionWindow {
                    plan.suppressed += 1
                } else if plan.fragments.count >= limit {
                    plan.throttled += 1
                } else {
                    retained[sequence]!.lastRepaired = now
                    plan.fragments.append(retained[sequence]!.fragment)
                }
            }
        }
        return plan
    }
}

extension Int {
    /// `self + other`, or `Int.max` when that overflows: counters of requests from the
    /// network must not trap on absurd ranges.
    func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
