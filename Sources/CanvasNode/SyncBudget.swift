/// How many bytes of anti-entropy's search for differences (answers, stroke summaries,
/// wants; never repairs) a node may send on one transport while members draw
/// (PROTOCOL.md §13.5, docs/sync.md): a token bucket that is bottomless while the room is
/// quiet.
///
/// While operations stream in, replicas always differ by what is in flight, so every
/// summary finds a difference and every exchange lists the strokes of every bucket: on a
/// cluster already short of CPU that traffic (measured: 331 bytes of summaries per point
/// drawn against 20 of data) caused the losses it meant to repair, and an overload became
/// a collapse. Live traffic repairs itself (the LAN's NACKs, XMPP's acknowledgements);
/// anti-entropy is for what that missed, which can wait until the drawing stops.
struct SyncBudget: Sendable {
    /// Bytes a second for the whole transport while members draw; each node takes its
    /// share (this divided by the members, at least `minimumPerSecond`).
    let perSecond: Int
    /// The least a node may send a second while members draw.
    let minimumPerSecond: Int
    /// What may be saved up: enough for one answer to a summary (256 bucket hashes).
    let burst: Int

    private var tokens: Double
    private var updated: Duration?

    init(perSecond: Int, minimumPerSecond: Int, burst: Int) {
        self.perSecond = perSecond
        self.minimumPerSecond = minimumPerSecond
        self.burst = burst
        tokens = Double(burst)
    }

    /// Takes `bytes` at `now` if the budget allows them (always when nobody draws);
    /// `members` share the transport's rate.
    mutating func spend(_ bytes: Int, members: Int, drawing: Bool, now: Duration) -> Bool {
        let share = Double(max(minimumPerSecond, perSecond / max(members + 1, 1)))
        if let updated, now > updated {
            tokens = min(Double(burst), tokens + (now - updated) / .seconds(1) * share)
        }
        updated = now
        guard drawing else {
            tokens = Double(burst)
            return true
        }
        guard tokens >= Double(bytes) else { return false }
        tokens -= Double(bytes)
        return true
    }
}
