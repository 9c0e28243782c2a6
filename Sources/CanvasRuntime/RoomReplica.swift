import CanvasCore
import CanvasNode
import CanvasStore
import LANCluster
import Logging

/// Where a room's session sends messages: one transport (an XMPP room, a LAN cluster).
protocol RoomTransport: AnyObject {
    /// Sends one protocol message of `kind`. `id` is set for messages that carry local
    /// operations: the transport answers `.accepted` when it has taken responsibility for
    /// the message at once, otherwise it reports `.accepted(id)` to the replica later, once
    /// it is sure of delivery. It never calls the replica from inside `send`.
    func send(_ bytes: [UInt8], kind: MessageKind, to destination: Destination, id: SendID?) -> SendOutcome
    /// The session's step that made the sends is over: a transport that gathers sends to
    /// pack them sends what it holds now.
    func flush()
}

extension RoomTransport {
    /// A transport that sends each message as it comes (or batches on its own clock).
    func flush() {}
}

/// What became of a message handed to a transport.
enum SendOutcome {
    /// The transport is responsible for it from now on (the LAN cluster repairs losses).
    case accepted
    /// The transport reports `.accepted` later (an XMPP room, once it reflects the message).
    case pending
}

/// One room on this node: its `RoomSession`, its durable store, and its transports. It
/// performs the session's actions: persist before sending, hand sends to the transport
/// they name, keep the session's timer, and report events.
///
/// Not `Sendable`: it lives on the node's run loop.
final class RoomReplica {
    /// The room's name as the user gave it (an XMPP room JID, or a LAN room name).
    let name: String
    private(set) var session: RoomSession
    /// The durable store, unless the node keeps its replicas in memory only.
    private let stored: StoredReplica?
    private let clock: NodeClock
    private let logger: Logger
    private let emit: (NodeEvent) -> Void
    /// Whether anyone wants the events of a name (those costly to build are built only then).
    private let wants: (String) -> Bool
    private var transports: [TransportID: any RoomTransport] = [:]
    /// When the session asked to be called with `.timer` (nil: it asked for nothing).
    private(set) var timerDeadline: Duration?
    /// The digest root last reported in a `state` event.
    private var reportedRoot: String?
    /// Whether the document changed since the last SVG export.
    private(set) var changedSinceExport = true
    /// Local operations the replica holds and its store refused (a full disk): written at
    /// the next tick that can, so that the store catches up with the replica.
    private var unpersisted: [Operation] = []
    /// Whether the store is being written: what to log of an outage (StoreHealth).
    private var storeHealth = StoreHealth()
    /// The stroke numbers local actions may use before the next durable reservation.
    private var strokeNumbers = StrokeNumberReservation()
    /// The room's metrics, when the node reports them.
    var metrics: RoomMetrics?
    /// The identifier prefix of traced strokes (`NodeConfiguration.traceStrokePrefix`).
    private let tracePrefix: [UInt8]?

    /// A room restored from `operations` (what its store holds), kept in `store` (nil: in
    /// memory only), tracing the strokes whose identifiers start with `tracePrefix`.
    init(
        name: String, nodeID: String, store: RoomStore?, restoring operations: [CanvasCore.Operation], clock: NodeClock,
        logger: Logger, tracePrefix: String? = nil, emit: @escaping (NodeEvent) -> Void,
        wants: @escaping (String) -> Bool = { _ in false }
    ) {
        self.wants = wants
        self.name = name
        self.tracePrefix = tracePrefix.map { Array($0.utf8) }
        stored = store.map { StoredReplica(store: $0, compactsInBackground: true) }
        self.clock = clock
        self.logger = logger
        self.emit = emit
        var seed = SystemRandomNumberGenerator()
        session = RoomSession(configuration: SessionConfiguration(nodeID: nodeID, seed: seed.next()), restoring: operations)
        if let store {
            strokeNumbers = Self.strokeNumbers(in: store, room: name, logger: logger)
            session.moveStrokeCounter(past: strokeNumbers.reservedThrough)
        }
    }

    /// The stroke numbers `store` has reserved for room `room`; none when it keeps no
    /// note, or when its note cannot be read or is not a number (logged: strokes are then
    /// named after those the store holds, as before reservations).
    private static func strokeNumbers(in store: RoomStore, room: String, logger: Logger) -> StrokeNumberReservation {
        do {
            guard let text = try store.note(named: StrokeNumberReservation.noteName) else { return StrokeNumberReservation() }
            if let reservation = StrokeNumberReservation(note: text) { return reservation }
            logger.error(
                "the stroke numbers note is not a number; strokes are named after those the store holds",
                metadata: ["room": "\(room)", "note": "\(text.prefix(40))"])
        } catch {
            logger.error("cannot read the stroke numbers note", metadata: ["room": "\(room)", "error": "\(error)"])
        }
        return StrokeNumberReservation()
    }

    /// The room's store, if it has one.
    var store: RoomStore? { stored?.store }

    /// Waits for a compaction under way, then flushes and closes the room's store, with the
    /// local operations a refused write left waiting since the last `tick`; an outage that
    /// this last write ends is reported ended (a node stopped soon after its disk was freed
    /// said only that its store refused writes: found by the fault campaign).
    func closeStore() throws(StoreError) {
        var refusal: StoreError?
        if !unpersisted.isEmpty {
            do {
                try stored?.persistRemote(unpersisted, of: session.replica, now: clock.now)
                unpersisted = []
            } catch {
                refusal = error
            }
        }
        try stored?.close()
        if let refusal { throw refusal }
        storeWritten()
    }

    var document: Document { session.document }

    func attach(_ transport: any RoomTransport, as id: TransportID) {
        transports[id] = transport
        session.expect(transport: id)
    }

    /// Local operations a transport had not accepted before a restart (see
    /// `RoomSession.restoreUnaccepted`).
    func restoreUnaccepted(_ operations: [Operation], on transport: TransportID) {
        session.restoreUnaccepted(operations, on: transport)
    }

    /// See `RoomSession.discardUnaccepted`.
    func discardUnaccepted(on transport: TransportID) {
        session.discardUnaccepted(on: transport)
    }

    /// Hands one input to the session and performs what it asks.
    func handle(_ input: SessionInput) {
        _ = perform(session.handle(input, at: clock.now))
    }

    /// A local edit: applied, made durable, then sent. Returns the novel operations, or
    /// the error that kept them from being stored (then nothing was sent).
    func local(_ input: SessionInput) -> Result<[Operation], any Error> {
        if case .action = input, let store, let renewal = strokeNumbers.renewal(counter: session.strokeCounter) {
            do {
                try store.setNote(named: StrokeNumberReservation.noteName, to: StrokeNumberReservation.text(renewal))
                strokeNumbers.reservedThrough = renewal
            } catch {
                // Nothing is applied: a stroke named past what is durable could take the
                // name of one a crash made this node forget.
                return .failure(refuseLocal("cannot reserve stroke names: the action is refused", error))
            }
        }
        return perform(session.handle(input, at: clock.now))
    }

    /// Fires the session's timer when due and writes the store's waiting batch.
    func tick() {
        if let deadline = timerDeadline, clock.now >= deadline {
            timerDeadline = nil
            handle(.timer)
        }
        let owed = !unpersisted.isEmpty || (stored?.store.waitingOperations ?? 0) > 0
        do {
            if !unpersisted.isEmpty {
                try stored?.persistRemote(unpersisted, of: session.replica, now: clock.now)
                unpersisted = []
            }
            try stored?.flushIfDue(now: clock.now, of: session.replica)
            if owed { storeWritten() }
        } catch {
            metrics?.error("store_flush")
            storeRefused("cannot write the room's store", error, level: .error)
        }
        reportStateIfChanged()
    }

    /// A local write the store refused: counted, logged (see `storeRefused`) and reported to
    /// subscribers. Returns the error for the caller of `local`.
    private func refuseLocal(_ what: String, _ error: any Error) -> NodeError {
        metrics?.error("store_local")
        storeRefused(what, error, level: .critical)
        emit(.error(room: name, message: "cannot store local operations: \(error)"))
        return NodeError(.storage, "cannot store local operations of room \(name): \(error)")
    }

    /// Logs a refused store write: the first of an outage at `level`, then a reminder at
    /// most every `StoreHealth.reminderInterval` (a full disk refuses every write).
    private func storeRefused(_ what: String, _ error: any Error, level: Logger.Level) {
        switch storeHealth.failed(at: clock.now) {
        case .outageStarted?:
            logger.log(
                level: level, "\(what); further refusals are counted and reported every \(StoreHealth.reminderInterval)",
                metadata: ["room": "\(name)", "error": "\(error)"])
        case .stillFailing(let failures, let since)?:
            logger.error(
                "the room's store still cannot be written",
                metadata: [
                    "room": "\(name)", "refused_writes": "\(failures)", "for": "\(clock.now - since)",
                    "local_operations_waiting": "\(unpersisted.count)", "error": "\(error)",
                ])
        case nil:
            break
        }
    }

    /// After a write that succeeded: the end of an outage once nothing is owed to the store.
    private func storeWritten() {
        guard storeHealth.isFailing, unpersisted.isEmpty, (stored?.store.waitingOperations ?? 0) == 0 else { return }
        if let recovery = storeHealth.caughtUp(at: clock.now) {
            logger.notice(
                "the room's store is written again; what waited is stored",
                metadata: ["room": "\(name)", "outage": "\(recovery.lasted)", "refused_writes": "\(recovery.failures)"])
        }
    }

    /// Emits a `state` event when the digest root changed since the last one.
    func reportStateIfChanged() {
        let root = session.document.digest.rootHex
        guard root != reportedRoot else { return }
        reportedRoot = root
        changedSinceExport = true
        let document = session.document
        emit(.state(room: name, digest: root, strokes: document.strokeCount, points: document.drawablePointCount))
    }

    func markExported() { changedSinceExport = false }

    /// Samples what the metrics read from elsewhere: members, waiting operations, the LAN
    /// cluster's counters (`lan`), the anti-entropy statistics.
    func sampleMetrics(lan: ClusterCounters?) {
        metrics?.sample(transports: session.transportStatus, lan: lan, sync: session.statistics)
    }

    /// The room as it is now.
    var status: RoomStatus {
        let document = session.document
        return RoomStatus(
            name: name, digest: document.digest.rootHex, strokes: document.strokeCount, points: document.drawablePointCount,
            transports: session.transportStatus,
            drawing: session.drawingMembers.map { "\($0.transport)/\($0.peer)" })
    }

    /// Performs the session's actions in order; returns the local operations persisted,
    /// or the error that refused them. After a refused `.persistLocal` nothing is sent and the
    /// refused operations are not reported applied (they are not durable: not acknowledged);
    /// every other action is still performed. Stopping at the refusal, as this once did, also
    /// dropped the session's timer request: a node whose store refused a local write at the
    /// wrong moment never fired its timer again and stopped announcing, so the operations
    /// only it held never reached its peers (found by the fault campaign, docs/testing.md).
    private func perform(_ actions: [SessionAction]) -> Result<[Operation], any Error> {
        var local: [Operation] = []
        var refusal: NodeError?
        var accepted: [(SendID, TransportID)] = []
        var sent = false
        defer {
            if sent { for transport in transports.values { transport.flush() } }
            // Sends the transports took at once, reported after the actions (never from
            // inside a send).
            for (id, transport) in accepted { _ = perform(session.handle(.accepted(id, via: transport), at: clock.now)) }
        }
        for action in actions {
            switch action {
            case .persistLocal(let operations):
                guard refusal == nil else {
                    unpersisted += operations
                    continue
                }
                do {
                    let start = MonotonicTime.nanoseconds()
                    try stored?.persistLocal(operations, of: session.replica)
                    metrics?.storedLocal(
                        operations: operations.count, nanoseconds: Int64(truncatingIfNeeded: MonotonicTime.nanoseconds() &- start))
                    local += operations
                    storeWritten()
                } catch {
                    unpersisted += operations
                    // Nothing unpersisted may be sent (DESIGN.md §5): the sends that follow are skipped.
                    refusal = refuseLocal(
                        "cannot make local operations durable: they are not sent now; the replica keeps them, "
                            + "and they are stored (then reach peers) when the store can be written again", error)
                }
            case .persistRemote(let operations, let compactForms):
                do {
                    try stored?.persistRemote(operations, compactForms: compactForms, of: session.replica, now: clock.now)
                    metrics?.storedRemote(operations: operations.count)
                    storeWritten()
                } catch {
                    metrics?.error("store_remote")
                    storeRefused("cannot store operations from peers (peers will repair them)", error, level: .error)
                }
            case .send(let bytes, let kind, let destination, let transport, let id):
                // Nothing unpersisted is sent (DESIGN.md §5): once written, the refused
                // operations reach peers by anti-entropy, and with the next `.transportUp`.
                guard refusal == nil else { continue }
                sent = true
                metrics?.sent(bytes: bytes.count, via: transport.rawValue)
                if transports[transport]?.send(bytes, kind: kind, to: destination, id: id) == .accepted, let id {
                    accepted.append((id, transport))
                }
            case .event(let event):
                if refusal != nil, case .applied = event { continue }
                report(event)
            case .scheduleTimer(let deadline):
                timerDeadline = deadline
            }
        }
        if let refusal { return .failure(refusal) }
        return .success(local)
    }

    /// `traced` events for the operations on traced strokes.
    /// `author` names the operations' author (built only when one is traced).
    private func trace(_ applied: ArraySlice<AppliedOperation>, prefix: [UInt8], author: () -> String?) {
        var now: UInt64?
        for item in applied where item.operation.strokeID.rawValue.utf8.starts(with: prefix) {
            let time = now ?? MonotonicTime.nanoseconds()
            now = time
            let (offset, points): (Int, Int) =
                switch item.operation {
                case .add: (0, 1)
                case .append(_, let points, let offset): (offset ?? -1, points.count)
                case .delete, .removeStroke: (-1, 0)
                }
            emit(
                .traced(
                    room: name, stroke: item.operation.strokeID.rawValue, offset: offset, points: points, author: author(),
                    monotonicNanoseconds: time))
        }
    }

    private func report(_ event: SessionEvent) {
        switch event {
        case .applied(let applied):
            if wants("changed") {
                var seen = Set<StrokeID>()
                let strokes = applied.compactMap { seen.insert($0.operation.strokeID).inserted ? $0.operation.strokeID.rawValue : nil }
                emit(.changed(room: name, strokes: strokes))
            }
            // One event per run of operations from the same author (a batch mixes authors),
            // built only for a subscriber, the metrics or the traces that take it (at a
            // thousand authors a node applies a thousand runs a second).
            let wantsApplied = wants("applied")
            guard wantsApplied || metrics != nil || tracePrefix != nil else { return }
            var start = 0
            while start < applied.count {
                let author = applied[start].author
                var end = start + 1
                while end < applied.count, applied[end].author == author { end += 1 }
                var points = 0
                for operation in applied[start..<end] { points += operation.effect.changedPoints?.count ?? 0 }
                let authorName = { author.map { "\($0.transport)/\($0.peer)" } }
                metrics?.applied(operations: end - start, points: points, via: author?.transport.rawValue ?? "local")
                if wantsApplied { emit(.applied(room: name, operations: end - start, points: points, author: authorName())) }
                if let tracePrefix { trace(applied[start..<end], prefix: tracePrefix, author: authorName) }
                start = end
            }
        case .memberJoined(let peer, let transport):
            emit(.memberJoined(room: name, member: peer.rawValue, via: transport.rawValue))
        case .memberLeft(let peer, let transport):
            emit(.memberLeft(room: name, member: peer.rawValue, via: transport.rawValue))
        case .drawing(let authors):
            emit(.drawing(room: name, members: authors.sorted().map { "\($0.transport)/\($0.peer)" }))
        case .syncStarted(let peer, let transport):
            emit(.syncStarted(room: name, member: peer.rawValue, via: transport.rawValue))
        case .syncFinished(let peer, let transport):
            emit(.syncFinished(room: name, member: peer.rawValue, via: transport.rawValue))
        case .rejected(let error, let peer, let transport):
            metrics?.error("rejected_message")
            logger.notice(
                "rejected a message", metadata: ["room": "\(name)", "from": "\(peer)", "error": "\(error)"])
            emit(.rejected(room: name, member: peer.rawValue, via: transport.rawValue, error: "\(error)"))
        }
    }
}
