/// What a receiver knows of one sender incarnation's data: which data sequence numbers
/// arrived (so each payload is delivered once, in any order), which are lost and when to
/// ask for them again (SRM-style negative acknowledgements with random suppression
/// delays), and the payloads still being reassembled.
///
/// Every data sequence number up to `watermark` arrived or was given up; above it, up to
/// `highestKnown`, each one is either in `received` or in `losses`.
struct InboundStream: Sendable {
    /// One lost data sequence number.
    struct Loss: Sendable {
        /// Rounds of requests so far (ours, or another member's that we heard).
        var attempts = 0
        /// True while waiting to send a request; false while waiting for the repair.
        var requestPending = true
        /// When the current wait ends.
        var due: Duration
    }

    /// A payload whose fragments are arriving.
    struct PartialPayload: Sendable {
        var count: UInt16
        var chunks: [UInt16: [UInt8]] = [:]
        var bytes = 0
        var started: Duration
    }

    /// What became of a received fragment.
    enum FragmentOutcome: Equatable, Sendable {
        /// Seen before (or given up): dropped.
        case duplicate
        /// New; completes `payload` when it is not nil.
        case accepted(payload: [UInt8]?)
        /// New, and its fragment count disagrees with earlier fragments of its payload,
        /// which is abandoned.
        case inconsistent
    }

    private(set) var watermark: UInt64
    private(set) var highestKnown: UInt64
    private var received: Set<UInt64> = []
    private(set) var losses: [UInt64: Loss] = [:]
    private(set) var partial: [UInt64: PartialPayload] = [:]
    /// How many bytes `partial` holds.
    private(set) var partialBytes = 0
    /// Lost data sequence numbers given up since the owner last took the count.
    private(set) var givenUp = 0

    /// A stream whose history up to `watermark` this receiver does not expect (it was not
    /// listening then; anti-entropy covers it).
    init(after watermark: UInt64) {
        self.watermark = watermark
        self.highestKnown = watermark
    }

    /// Takes the count of losses given up.
    mutating func takeGivenUp() -> Int {
        defer { givenUp = 0 }
        return givenUp
    }

    /// Records `fragment`, returning the payload when it completes one.
    mutating func receive(
        _ fragment: DataFragment, now: Duration, configuration: ClusterConfiguration,
        random: inout some RandomNumberGenerator
    ) -> FragmentOutcome {
        let sequence = fragment.dataSequence
        guard sequence > watermark, !received.contains(sequence) else { return .duplicate }
        // The payload's last fragment exists too: a lost tail is noticed now, not at the
        // next beacon (within reason, for huge announced counts).
        let last = fragment.messageID + UInt64(fragment.count - 1)
        let (ahead, overflow) = sequence.addingReportingOverflow(UInt64(configuration.lossTrackingWindow / 2))
        let reach = overflow ? last : min(last, ahead)
        learnHighest(max(sequence, reach), now: now, configuration: configuration, random: &random)
        guard sequence > watermark else { return .duplicate }
        losses[sequence] = nil
        received.insert(sequence)
        advanceWatermark()
        return reassemble(fragment, now: now)
    }

    /// The sender has sent data up to `highest`: whatever above `highestKnown` did not
    /// arrive is lost.
    mutating func learnHighest(
        _ highest: UInt64, now: Duration, configuration: ClusterConfiguration, random: inout some RandomNumberGenerator
    ) {
        guard highest > highestKnown else { return }
        let window = UInt64(configuration.lossTrackingWindow)
        let floor = highest > window ? highest - window : 0
        if floor > watermark {
            for sequence in losses.keys where sequence <= floor {
                losses[sequence] = nil
                givenUp += 1
            }
            givenUp += Int(clamping: floor > highestKnown ? floor - highestKnown : 0)
            received = received.filter { $0 > floor }
            watermark = floor
            highestKnown = max(highestKnown, floor)
            advanceWatermark()
        }
        for sequence in (highestKnown + 1)...highest {
            losses[sequence] = Loss(due: now + Self.suppressionDelay(configuration, random: &random))
        }
        highestKnown = highest
    }

    /// The losses whose request is due at `now`: every loss awaiting a request is asked for
    /// in the same round, as ascending ranges. Losses out of attempts are given up.
    mutating func dueRequests(
        now: Duration, configuration: ClusterConfiguration, random: inout some RandomNumberGenerator
    ) -> [ClosedRange<UInt64>] {
        var requestDue = false
        for sequence in losses.keys.sorted() where losses[sequence]!.due <= now {
            if losses[sequence]!.requestPending {
                requestDue = true
            } else {
                losses[sequence]!.requestPending = true
                losses[sequence]!.due = now + Self.suppressionDelay(configuration, random: &random)
            }
        }
        guard requestDue else { return [] }
        var requested: [UInt64] = []
        for sequence in losses.keys.sorted() where losses[sequence]!.requestPending {
            guard losses[sequence]!.attempts < configuration.nackAttempts else {
                losses[sequence] = nil
                received.insert(sequence)
                givenUp += 1
                continue
            }
            awaitRepair(sequence, now: now, configuration: configuration)
            requested.append(sequence)
        }
        advanceWatermark()
        return Self.ranges(of: requested)
    }

    /// Another member asked for `ranges`: the losses among them still waiting to be asked
    /// for wait for the repair instead. Returns whether any request of ours was suppressed.
    mutating func heardRequest(for ranges: [ClosedRange<UInt64>], now: Duration, configuration: ClusterConfiguration)
        -> Bool
    {
        var suppressed = false
        if losses.count < ranges.reduce(0, { $0 + Int(clamping: $1.upperBound - $1.lowerBound) }) {
            for sequence in losses.keys where losses[sequence]!.requestPending {
                guard Self.ranges(ranges, contain: sequence) else { continue }
                awaitRepair(sequence, now: now, configuration: configuration)
                suppressed = true
            }
        } else {
            for range in ranges {
                for sequence in range where losses[sequence]?.requestPending == true {
                    awaitRepair(sequence, now: now, configuration: configuration)
                    suppressed = true
                }
            }
        }
        return suppressed
    }

    /// Abandons partial payloads started before `now - timeout`; returns how many.
    mutating func expireReassembly(now: Duration, timeout: Duration) -> Int {
        let stale = partial.filter { $0.value.started + timeout <= now }.keys
        for messageID in stale { abandon(messageID) }
        return stale.count
    }

    /// Abandons the partial payload `messageID` (to free memory).
    mutating func abandon(_ messageID: UInt64) {
        guard let payload = partial.removeValue(forKey: messageID) else { return }
        partialBytes -= payload.bytes
    }

    /// When the next request or reassembly timeout is due.
    func nextDeadline(reassemblyTimeout: Duration) -> Duration? {
        // Asked after every datagram: no array in between (it was one allocation a datagram).
        var next: Duration?
        for loss in losses.values { next = min(next ?? loss.due, loss.due) }
        for payload in partial.values {
            let due = payload.started + reassemblyTimeout
            next = min(next ?? due, due)
        }
        return next
    }

    /// The oldest partial payload, to abandon first when memory runs short.
    var oldestPartial: (messageID: UInt64, started: Duration)? {
        partial.min { ($0.value.started, $0.key) < ($1.value.started, $1.key) }.map { ($0.key, $0.value.started) }
    }

    private mutating func awaitRepair(_ sequence: UInt64, now: Duration, configuration: ClusterConfiguration) {
        losses[sequence]!.attempts += 1
        losses[sequence]!.requestPending = false
        losses[sequence]!.due = now + Self.retryDelay(attempt: losses[sequence]!.attempts, configuration)
    }

    private mutating func advanceWatermark() {
        while received.remove(watermark + 1) != nil { watermark += 1 }
    }

    private mutating func reassemble(_ fragment: DataFragment, now: Duration) -> FragmentOutcome {
        guard fragment.count > 1 else { return .accepted(payload: fragment.chunk) }
        let messageID = fragment.messageID
        if let existing = partial[messageID], existing.count != fragment.count {
            abandon(messageID)
            return .inconsistent
        }
        var payload = partial[messageID] ?? PartialPayload(count: fragment.count, started: now)
        guard payload.chunks[fragment.index] == nil else { return .duplicate }
        payload.chunks[fragment.index] = fragment.chunk
        payload.bytes += fragment.chunk.count
        partialBytes += fragment.chunk.count
        guard payload.chunks.count == Int(payload.count) else {
            partial[messageID] = payload
            return .accepted(payload: nil)
        }
        partial[messageID] = nil
        partialBytes -= payload.bytes
        return .accepted(payload: (0..<payload.count).flatMap { payload.chunks[$0]! })
    }

    /// A random delay in `[nackDelay, 2 × nackDelay]`.
    private static func suppressionDelay(
        _ configuration: ClusterConfiguration, random: inout some RandomNumberGenerator
    ) -> Duration {
        configuration.nackDelay * Double.random(in: 1...2, using: &random)
    }

    /// `nackRetryInterval` doubled per attempt after the first, at most `nackRetryMaximum`.
    private static func retryDelay(attempt: Int, _ configuration: ClusterConfiguration) -> Duration {
        var delay = configuration.nackRetryInterval
        for _ in 1..<max(attempt, 1) where delay < configuration.nackRetryMaximum { delay *= 2 }
        return min(delay, configuration.nackRetryMaximum)
    }

    private static func ranges(_ ranges: [ClosedRange<UInt64>], contain sequence: UInt64) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < sequence { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(sequence)
    }

    /// Ascending sequence numbers as ranges of consecutive numbers.
    static func ranges(of sequences: [UInt64]) -> [ClosedRange<UInt64>] {
        var result: [ClosedRange<UInt64>] = []
        for sequence in sequences {
            if let last = result.last, last.upperBound &+ 1 == sequence {
                result[result.count - 1] = last.lowerBound...sequence
            } else {
                result.append(sequence...sequence)
            }
        }
        return result
    }
}
