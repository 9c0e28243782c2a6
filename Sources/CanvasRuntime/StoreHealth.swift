/// Whether a room's store is being written, and what to tell the operator of it: the first
/// refused write of an outage, a reminder at most every `reminderInterval` while it lasts,
/// and its end. A full disk refuses every write for as long as it lasts; logged one by one,
/// that was dozens of lines a second, and nothing said when the store could be written again
/// (found by the fault campaign, docs/testing.md). Pure: the caller injects the time.
struct StoreHealth: Equatable {
    /// What to report after a refused write.
    enum Failure: Equatable {
        /// The first refused write: an outage starts.
        case outageStarted
        /// Still refused: `failures` writes since the outage started at `since`.
        case stillFailing(failures: Int, since: Duration)
    }

    /// An outage that ended: it lasted `lasted`, with `failures` refused writes.
    struct Recovery: Equatable {
        var lasted: Duration
        var failures: Int
    }

    /// How often a lasting outage is reported again.
    static let reminderInterval: Duration = .seconds(30)

    /// When the outage started (nil: the store is being written).
    private(set) var outageStarted: Duration?
    private var failures = 0
    private var lastReport: Duration = .zero

    /// True while writes are refused.
    var isFailing: Bool { outageStarted != nil }

    /// A write was refused at `now`.
    mutating func failed(at now: Duration) -> Failure? {
        failures += 1
        guard let start = outageStarted else {
            outageStarted = now
            lastReport = now
            return .outageStarted
        }
        guard now - lastReport >= Self.reminderInterval else { return nil }
        lastReport = now
        return .stillFailing(failures: failures, since: start)
    }

    /// Everything the store was owed is written, at `now`.
    mutating func caughtUp(at now: Duration) -> Recovery? {
        guard let start = outageStarted else { return nil }
        let recovery = Recovery(lasted: now - start, failures: failures)
        self = StoreHealth()
        return recovery
    }
}
