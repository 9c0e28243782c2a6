public import CanvasCore
public import Foundation

/// The durable replica of one room: an append-only operation log and a compacted snapshot
/// in the room's own folder (DESIGN.md §5 "Store").
///
///     STORE/node-id                     this node's identity, shared by every room
///     STORE/rooms/ROOM/snapshot         the net effect of older operations (SnapshotFormat)
///     STORE/rooms/ROOM/operations.log   every later novel operation (LogFormat)
///     STORE/rooms/ROOM/operations.log.old   the log a background compaction is folding in
///
/// The store keeps no document of its own: opening hands over the operations it holds (the
/// snapshot's, then the log's), from which the caller builds its replica, and compaction
/// writes the caller's replica as the new snapshot, on the caller's thread (`compact(to:)`)
/// or on another while appends go on (`beginCompaction(of:)`, `SnapshotJob`). Local
/// operations are durable when `appendLocal` returns (written and fsync'd); remote ones
/// are written in batches (`RemoteBatchPolicy` bounds what a crash can lose). The caller
/// stores only novel operations, APPENDs with the offset they were placed at
/// (`Replica.apply` gives both), so the log never depends on order.
///
/// A `RoomStore` owns a file descriptor and an advisory lock on the log: one per room and
/// process, used from one task or actor at a time. Call `close()` to flush waiting remote
/// operations; after an error from a write, close the store and open it again.
public final class RoomStore {
    /// File names inside a room's folder.
    public static let logFileName = "operations.log"
    public static let snapshotFileName = "snapshot"
    /// The log a background compaction set aside: its records are in the snapshot being
    /// written; it is removed once that snapshot is in place.
    public static let rotatedLogFileName = logFileName + ".old"
    /// The folder of the store that holds one folder per room.
    public static let roomsFolderName = "rooms"

    /// How to open a room.
    public struct Options: Sendable {
        /// Create the store and the room's folder when they do not exist (otherwise a
        /// missing room is a `.missingRoom` error).
        public var createIfMissing: Bool
        /// Batching of remote operations.
        public var remoteBatch: RemoteBatchPolicy
        /// When appends compact the log.
        public var compaction: CompactionPolicy

        public init(createIfMissing: Bool = true, remoteBatch: RemoteBatchPolicy = .init(), compaction: CompactionPolicy = .init()) {
            self.createIfMissing = createIfMissing
            self.remoteBatch = remoteBatch
            self.compaction = compaction
        }
    }

    /// The store folder.
    public let directory: URL
    /// The room's name.
    public let room: String
    /// The room's folder.
    public let roomPath: String
    /// This node's stable identity (see `NodeIdentity`).
    public let nodeID: String
    /// What opening found and repaired.
    public let recovery: RecoveryReport
    /// The options the room was opened with.
    public var options: Options
    /// Size of the log in bytes.
    public internal(set) var logBytes: Int
    /// Size of the snapshot in bytes (0 without one).
    public internal(set) var snapshotBytes: Int
    /// True while a background compaction is under way (`beginCompaction(of:)` until
    /// `finishCompaction(_:)`).
    public internal(set) var isCompacting = false
    /// Number of remote operations waiting to be written.
    public var waitingOperations: Int { waitingCount }

    private var log: Int32
    private var waiting: [UInt8] = []
    private var waitingCount = 0
    private var waitingSince: Duration?
    /// Size of `operations.log.old` while there is one (a compaction under way, or one that
    /// failed or was cut short by a crash: then the next compaction is a synchronous one).
    var rotatedLogBytes: Int?

    var logPath: String { roomPath + "/" + Self.logFileName }
    var snapshotPath: String { roomPath + "/" + Self.snapshotFileName }
    var rotatedLogPath: String { roomPath + "/" + Self.rotatedLogFileName }

    private init(
        directory: URL, room: String, roomPath: String, nodeID: String, contents: RoomContents, recovery: RecoveryReport,
        options: Options, log: Int32
    ) {
        self.directory = directory
        self.room = room
        self.roomPath = roomPath
        self.nodeID = nodeID
        self.recovery = recovery
        self.options = options
        self.logBytes = contents.logBytes
        self.snapshotBytes = contents.snapshotBytes
        self.rotatedLogBytes = contents.rotated?.bytes
        self.log = log
    }

    deinit {
        if log >= 0 { Foundation.close(log) }
    }

    // MARK: Opening

    /// A room just opened: its store, and the operations it holds (the snapshot's, then the
    /// log's), to build the replica from.
    public typealias Opened = (store: RoomStore, operations: [CanvasCore.Operation])

    /// Opens the room `room` of the store in `directory` (creating both if needed, unless
    /// `options` says otherwise), with a node id drawn from the system's generator the
    /// first time. A torn last log record is dropped (and reported in `recovery`); any
    /// other damage is an error naming the file and the byte offset.
    public static func open(directory: URL, room: String, options: Options = Options()) throws(StoreError) -> Opened {
        var generator = SystemRandomNumberGenerator()
        return try open(directory: directory, room: room, options: options, using: &generator)
    }

    /// Opens a room like `open(directory:room:options:)`, drawing a new node id from `generator`.
    public static func open(
        directory: URL, room: String, options: Options = Options(), using generator: inout some RandomNumberGenerator
    ) throws(StoreError) -> Opened {
        let storePath = directory.path
        let roomPath = try path(ofRoom: room, in: directory)
        var recovery = RecoveryReport()
        if !FileSystem.exists(roomPath) {
            guard options.createIfMissing else { throw missingRoom(room, directory) }
            try FileSystem.createDirectories(roomPath)
            try FileSystem.syncDirectory(storePath + "/" + roomsFolderName)
            try FileSystem.syncDirectory(storePath)
            recovery.created = true
        }
        let nodeID = try NodeIdentity.loadOrCreate(in: storePath, using: &generator)
        let logPath = roomPath + "/" + logFileName
        let log = try FileSystem.openForAppending(logPath)
        do throws(StoreError) {
            try FileSystem.lockExclusively(log, path: logPath)
            // A compaction cut short before its rename: the old snapshot and the whole log
            // are still in place, so the unfinished snapshot is simply discarded.
            let temporary = roomPath + "/" + snapshotFileName + ".tmp"
            if FileSystem.exists(temporary) {
                try FileSystem.remove(temporary)
                recovery.removedTemporarySnapshot = true
            }
            let contents = try RoomContents.read(roomPath: roomPath)
            if let damage = contents.scan.damage.first {
                try refuseCorruption(contents.scan, path: logPath)
                // The write that a crash cut short: never acknowledged, so dropped. Cut it
                // off so that the next record starts on a clean line.
                try FileSystem.truncate(log, to: damage.offset, path: logPath)
                try FileSystem.sync(log, path: logPath)
                recovery.droppedTail = damage
            }
            var current = contents
            current.logBytes = contents.scan.damage.first?.offset ?? contents.logBytes
            recovery.snapshotOperations = contents.snapshotOperations
            recovery.logRecords = contents.scan.records
            recovery.rotatedLogRecords = contents.rotated?.scan.records
            let store = RoomStore(
                directory: directory, room: room, roomPath: roomPath, nodeID: nodeID, contents: current, recovery: recovery,
                options: options, log: log)
            return (store, contents.operations)
        } catch {
            Foundation.close(log)
            throw error
        }
    }

    /// The room's operations as stored (the snapshot's, then the log's), read without
    /// locking, repairing or creating anything (a torn last record is ignored): for
    /// exporting a room that a node may have open.
    public static func load(directory: URL, room: String) throws(StoreError) -> [CanvasCore.Operation] {
        let roomPath = try path(ofRoom: room, in: directory)
        guard FileSystem.exists(roomPath) else { throw missingRoom(room, directory) }
        let contents = try RoomContents.read(roomPath: roomPath)
        try refuseCorruption(contents.scan, path: roomPath + "/" + logFileName)
        return contents.operations
    }

    /// Every problem of a stored room — an unfinished compaction, a damaged snapshot, a
    /// torn last record, corrupt records — without changing anything. Empty when the room
    /// is sound. Throws only when the room does not exist or cannot be read at all.
    public static func verify(directory: URL, room: String) throws(StoreError) -> [StoreError] {
        let roomPath = try path(ofRoom: room, in: directory)
        guard FileSystem.exists(roomPath) else { throw missingRoom(room, directory) }
        var problems: [StoreError] = []
        let temporary = roomPath + "/" + snapshotFileName + ".tmp"
        if FileSystem.exists(temporary) {
            problems.append(StoreError(.corruptSnapshot, path: temporary, "unfinished compaction (removed on the next open)"))
        }
        let snapshotPath = roomPath + "/" + snapshotFileName
        if let bytes = try FileSystem.read(snapshotPath) {
            do {
                _ = try SnapshotFormat.decode(bytes, path: snapshotPath)
            } catch {
                problems.append(error)
            }
        }
        // The log an unfinished background compaction set aside is part of the room (open
        // reads it, the next compaction folds it in); only damage in it is a problem.
        let rotatedPath = roomPath + "/" + rotatedLogFileName
        if let rotated = try FileSystem.read(rotatedPath) {
            problems += logProblems(LogFormat.scan(rotated), path: rotatedPath, torn: " (torn last record: ignored)")
        }
        let logPath = roomPath + "/" + logFileName
        problems += logProblems(
            LogFormat.scan(try FileSystem.read(logPath) ?? []), path: logPath,
            torn: " (torn last record: dropped on the next open)")
        let nodePath = directory.path + "/" + NodeIdentity.fileName
        if let bytes = try FileSystem.read(nodePath), bytes.isEmpty || bytes.count > 129 {
            problems.append(StoreError(.corruptNodeID, path: nodePath, offset: 0, "expected one line of up to 128 characters"))
        }
        return problems
    }

    private static func logProblems(_ scan: LogFormat.Scan, path: String, torn: String) -> [StoreError] {
        scan.damage.map { damage in
            StoreError(
                .corruptRecord, path: path, offset: damage.offset,
                damage.reason + (scan.hasOnlyTornTail ? torn : corruptAdvice))
        }
    }

    /// The folder of `room` in the store `directory`.
    public static func path(ofRoom room: String, in directory: URL) throws(StoreError) -> String {
        directory.path + "/" + roomsFolderName + "/" + (try RoomFolder.name(forRoom: room))
    }

    /// Throws `.corruptRecord` for the first damaged record of the log at `path` unless its
    /// only damage is a torn last record (the write a crash cut short).
    static func refuseCorruption(_ scan: LogFormat.Scan, path: String) throws(StoreError) {
        guard let damage = scan.damage.first, !scan.hasOnlyTornTail else { return }
        throw StoreError(.corruptRecord, path: path, offset: damage.offset, damage.reason + corruptAdvice)
    }

    static let corruptAdvice =
        "; this is not a torn last write, so the store will not drop it: restore the room from a backup"
        + " (canvas export --format ndjson) or from peers, or cut the log at this offset by hand"

    private static func missingRoom(_ room: String, _ directory: URL) -> StoreError {
        StoreError(
            .missingRoom, path: directory.path,
            "no room \"\(room)\" in this store (no folder \(roomsFolderName)/\((try? RoomFolder.name(forRoom: room)) ?? room)); "
                + "check --store and --room, or create it with canvas replay FILE --store DIR --room NAME")
    }

    // MARK: Appending

    /// Makes locally authored operations durable — written and fsync'd together with any
    /// waiting remote operations — before returning. Give only novel operations, APPENDs
    /// with their offsets (`Replica.apply` resolves them). Then compact if
    /// `needsCompaction` says so.
    public func appendLocal(_ operations: some Sequence<CanvasCore.Operation>) throws(StoreError) {
        var records = waiting
        for operation in operations {
            LogFormat.appendRecord(operation, to: &records)
        }
        guard !records.isEmpty else { return }
        try write(records)
    }

    /// Keeps operations received from peers waiting to be written (novel ones, APPENDs with
    /// their offsets); writes the batch when `options.remoteBatch` says it is due at time
    /// `now` (read from any monotonic clock the caller chooses, the same for every call).
    public func appendRemote(_ operations: some Sequence<CanvasCore.Operation>, now: Duration) throws(StoreError) {
        for operation in operations {
            LogFormat.appendRecord(operation, to: &waiting)
            noteWaiting(now: now)
        }
        try flushIfDue(now: now)
    }

    /// `appendRemote(_:now:)` for operations some of which came in their compact form:
    /// `compactForms` has one entry per operation, the form the peer sent (written as it
    /// came: `LogFormat.appendRecord(compactForm:to:)`) or nil (encoded here).
    public func appendRemote(
        _ operations: [CanvasCore.Operation], compactForms: [[UInt8]?], now: Duration
    ) throws(StoreError) {
        precondition(compactForms.count == operations.count, "one compact form (or nil) per operation")
        for (operation, form) in zip(operations, compactForms) {
            if let form {
                LogFormat.appendRecord(compactForm: form, to: &waiting)
            } else {
                LogFormat.appendRecord(operation, to: &waiting)
            }
            noteWaiting(now: now)
        }
        try flushIfDue(now: now)
    }

    private func noteWaiting(now: Duration) {
        waitingCount += 1
        waitingSince = waitingSince ?? now
    }

    /// Writes the waiting remote operations if there are `maxOperations` of them or the
    /// oldest has waited `maxDelay`. Call it on a timer to bound the loss window in time.
    public func flushIfDue(now: Duration) throws(StoreError) {
        guard let since = waitingSince else { return }
        if waitingCount >= options.remoteBatch.maxOperations || now - since >= options.remoteBatch.maxDelay {
            try flush()
        }
    }

    /// Writes and fsyncs the waiting remote operations now.
    public func flush() throws(StoreError) {
        guard !waiting.isEmpty else { return }
        try write(waiting)
    }

    /// Flushes and closes the log. The store cannot be used afterwards.
    public func close() throws(StoreError) {
        guard log >= 0 else { return }
        try flush()
        Foundation.close(log)
        log = -1
    }

    private func write(_ records: [UInt8]) throws(StoreError) {
        try usable()
        do {
            try FileSystem.writeAll(log, records, path: logPath)
            try FileSystem.sync(log, path: logPath)
        } catch {
            // A write cut short (a full disk) must not leave half a record for the next
            // write to follow: the log goes back to what was durable before it (found by
            // the fault campaign: the next open refused the log as corrupt in the middle).
            try? FileSystem.truncate(log, to: logBytes, path: logPath)
            throw error
        }
        logBytes += records.count
        waiting.removeAll(keepingCapacity: true)
        waitingCount = 0
        waitingSince = nil
    }

    func usable() throws(StoreError) {
        guard log >= 0 else { throw StoreError(.io, path: logPath, "the store is closed") }
    }

    /// Continues in `descriptor` (a new log, already locked), closing the current one.
    func replaceLog(with descriptor: Int32) {
        if log >= 0 { Foundation.close(log) }
        log = descriptor
    }

    /// Closes the log without writing: the store refuses every write from now on.
    func closeLog() {
        if log >= 0 { Foundation.close(log) }
        log = -1
    }

    // MARK: Compaction

    /// True when the log has grown past `options.compaction`'s multiple of the snapshot:
    /// time to `compact(to:)`.
    public var needsCompaction: Bool {
        !isCompacting
            && options.compaction.shouldCompact(logBytes: logBytes + (rotatedLogBytes ?? 0), snapshotBytes: snapshotBytes)
    }

    /// Makes `document` the new snapshot and empties the log. `document` is the caller's
    /// replica: it holds everything stored, the log and the waiting remote operations.
    ///
    /// Crash safety, step by step: the snapshot is written to `snapshot.tmp` and fsync'd
    /// (a crash here leaves the old snapshot and the whole log; open removes the tmp file);
    /// it is renamed over `snapshot` and the folder fsync'd (atomic: either file is whole);
    /// then the log is truncated and fsync'd. A crash between the rename and the truncation
    /// leaves a snapshot that already contains every record of the log: replaying them on
    /// open is harmless, because applying an operation twice is a no-op in the CRDT
    /// (DESIGN.md §3: idempotent, order-free with offsets).
    ///
    /// An `operations.log.old` left by a background compaction that failed or that a crash
    /// cut short is folded in too: removed after the rename, before the truncation.
    ///
    /// Throws while a background compaction is under way (both would write `snapshot.tmp`).
    public func compact(to document: Document) throws(StoreError) {
        try usable()
        guard !isCompacting else {
            throw StoreError(.io, path: snapshotPath, "a background compaction is under way; finish it first")
        }
        let snapshot = SnapshotFormat.encode(document)
        try FileSystem.replaceDurably(snapshotPath, with: snapshot, folder: roomPath)
        snapshotBytes = snapshot.count
        if rotatedLogBytes != nil {
            try FileSystem.remove(rotatedLogPath)
            rotatedLogBytes = nil
        }
        try FileSystem.truncate(log, to: 0, path: logPath)
        try FileSystem.sync(log, path: logPath)
        logBytes = 0
        waiting.removeAll(keepingCapacity: true)
        waitingCount = 0
        waitingSince = nil
    }
}

/// A room's files as read from disk.
struct RoomContents {
    /// The snapshot's operations, then the set-aside log's, then the log's.
    var operations: [CanvasCore.Operation] = []
    var snapshotOperations = 0
    var snapshotBytes = 0
    var logBytes = 0
    var scan = LogFormat.Scan()
    /// `operations.log.old`, when a background compaction had set it aside.
    var rotated: (bytes: Int, scan: LogFormat.Scan)?

    /// Reads the snapshot and the logs (without their damaged records). Damage in the
    /// set-aside log other than a torn last record is an error naming it.
    static func read(roomPath: String) throws(StoreError) -> RoomContents {
        var contents = RoomContents()
        // The log, then the set-aside log, then the snapshot: `load` reads without the
        // lock. A compaction sets the log aside (a rename) before it writes the snapshot,
        // renames the new snapshot into place before it removes the set-aside log, and
        // truncates the log (synchronous compaction) only after the rename. Whatever a
        // reader finds at each step, what it missed in a log is in the snapshot it reads
        // last; what it reads twice is applied once.
        let log = try FileSystem.read(roomPath + "/" + RoomStore.logFileName) ?? []
        let rotatedPath = roomPath + "/" + RoomStore.rotatedLogFileName
        let rotated = try FileSystem.read(rotatedPath)
        let snapshotPath = roomPath + "/" + RoomStore.snapshotFileName
        if let bytes = try FileSystem.read(snapshotPath) {
            contents.operations = try SnapshotFormat.decode(bytes, path: snapshotPath)
            contents.snapshotOperations = contents.operations.count
            contents.snapshotBytes = bytes.count
        }
        if let rotated {
            let scan = LogFormat.scan(rotated)
            try RoomStore.refuseCorruption(scan, path: rotatedPath)
            contents.rotated = (rotated.count, scan)
            contents.operations += scan.operations
        }
        contents.logBytes = log.count
        contents.scan = LogFormat.scan(log)
        contents.operations += contents.scan.operations
        return contents
    }
}
