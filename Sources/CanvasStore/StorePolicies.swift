/// How long remote operations may wait in memory before they are written.
///
/// Remote operations are written in batches: they are flushed (one write, one fsync) when
/// `maxOperations` are waiting, when `maxDelay` has passed since the oldest one arrived
/// (checked by `RoomStore.appendRemote(_:now:)` and `RoomStore.flushIfDue(now:)`, so the
/// owner calls `flushIfDue` on a timer), before every local append, on compaction and on
/// `flush()`/`close()`. A crash loses at most the waiting batch: at most `maxOperations`
/// operations received within `maxDelay` (plus the owner's timer period) — operations that
/// peers still hold and anti-entropy brings back.
public struct RemoteBatchPolicy: Hashable, Sendable {
    /// Most operations waiting in memory.
    public var maxOperations: Int
    /// Longest time the oldest waiting operation waits.
    public var maxDelay: Duration

    /// A policy; the defaults lose at most 4,096 operations or 1 s of remote traffic.
    ///
    /// A node that only watches writes nothing else, so these fsyncs are all its store
    /// costs: each took about 140 µs of CPU on the benchmark's host, five a second under a
    /// thousand authors (200 ms, 256 operations) were 5 % of a listening node's CPU. A
    /// second is the window of other group-commit stores (Redis' `appendfsync everysec`);
    /// what it loses is held by the peers that sent it. Local operations are unaffected:
    /// each is fsync'd before it is sent, with the waiting batch.
    public init(maxOperations: Int = 4_096, maxDelay: Duration = .seconds(1)) {
        self.maxOperations = maxOperations
        self.maxDelay = maxDelay
    }
}

/// When the log is folded into the snapshot.
public struct CompactionPolicy: Hashable, Sendable {
    /// Compact when the log is larger than this many times the snapshot …
    public var logToSnapshotRatio: Int
    /// … and larger than this many bytes (so that small rooms do not compact constantly).
    public var minimumLogBytes: Int

    /// A policy: by default, compact when the log passes 4 × the snapshot and 1 MiB.
    public init(logToSnapshotRatio: Int = 4, minimumLogBytes: Int = 1 << 20) {
        self.logToSnapshotRatio = logToSnapshotRatio
        self.minimumLogBytes = minimumLogBytes
    }

    /// True when a log of `logBytes` next to a snapshot of `snapshotBytes` should be compacted.
    public func shouldCompact(logBytes: Int, snapshotBytes: Int) -> Bool {
        logBytes > minimumLogBytes && logBytes > logToSnapshotRatio * snapshotBytes
    }
}
