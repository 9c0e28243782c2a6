/// What opening a room found and repaired.
public struct RecoveryReport: Hashable, Sendable, CustomStringConvertible {
    /// Operations read from the snapshot.
    public var snapshotOperations = 0
    /// Valid records read from the log.
    public var logRecords = 0
    /// Valid records read from `operations.log.old`, the log of a background compaction
    /// that failed or that a crash cut short (nil: there was none).
    public var rotatedLogRecords: Int?
    /// The torn or corrupt last record that was dropped (the log was cut before it), if any.
    public var droppedTail: LogFormat.Damage?
    /// True when a `snapshot.tmp` left by a compaction cut short was removed.
    public var removedTemporarySnapshot = false
    /// True when the room's folder was created by this open.
    public var created = false

    /// True when nothing had to be repaired.
    public var isClean: Bool { droppedTail == nil && !removedTemporarySnapshot && rotatedLogRecords == nil }

    public var description: String {
        var parts = ["snapshot operations \(snapshotOperations)", "log records \(logRecords)"]
        if created { parts.append("created") }
        if let droppedTail { parts.append("dropped the last log record (\(droppedTail.length) bytes at \(droppedTail))") }
        if removedTemporarySnapshot { parts.append("removed an unfinished snapshot.tmp") }
        if let rotatedLogRecords { parts.append("read \(rotatedLogRecords) records of an unfinished compaction's operations.log.old") }
        return parts.joined(separator: ", ")
    }
}
