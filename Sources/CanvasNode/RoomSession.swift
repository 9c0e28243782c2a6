public import CanvasCore
import CanvasProtocol

/// A room's replica and its conversation with the room over any number of transports
/// (DESIGN.md §5): a pure state machine. Inputs (`SessionInput`) come with the current
/// time; `handle` returns the actions to perform, in order (send, persist, events, timer).
///
/// Local edits are applied, persisted, then sent on every transport; a transport that is
/// down or has not accepted them keeps them and gets them again when it comes back.
/// Remote messages are validated, applied, persisted, and relayed to the *other*
/// transports only when novel, so a gateway between two rooms relays without loops.
/// Anti-entropy (`RoomSession+Sync.swift`) repairs whatever was lost.
public struct RoomSession: Sendable {
    /// The room's replica: the document and what is kept beside it.
    public private(set) var replica: Replica
    /// What the session has sent, for measurements.
    public internal(set) var statistics = SessionStatistics()

    let configuration: SessionConfiguration
    var random: SessionRandom
    var transports: [TransportID: TransportState] = [:]
    var nextSendID: UInt64 = 1
    /// Last novel operation per member, for "who is drawing".
    private var lastDrawn: [Author: Duration] = [:]
    private var drawing: Set<Author> = []
    /// When the first of `lastDrawn` falls out of the drawing window (nil: nobody in it),
    /// and whether a member entered it since the set was last worked out: only then is it
    /// worked out again, not at every input.
    private var drawingExpiry: Duration?
    private var drawingEntered = false
    /// When an operation was last drawn, here or by a member (not repaired).
    private var lastDrawnAnywhere: Duration?
    private var scheduledTimer: Duration?

    /// A session whose replica is rebuilt from persisted operations (empty for a new room).
    public init(configuration: SessionConfiguration, restoring operations: some Sequence<Operation> = [Operation]()) {
        self.init(configuration: configuration, replica: Replica(author: configuration.nodeID, restoring: operations))
    }

    /// A session over a replica built beforehand (authored by `configuration.nodeID`).
    public init(configuration: SessionConfiguration, replica: Replica) {
        self.configuration = configuration
        self.replica = replica
        random = SessionRandom(seed: configuration.seed)
    }

    /// The replica's document.
    public var document: Document { replica.document }

    /// See `Replica.strokeCounter`.
    public var strokeCounter: Int { replica.strokeCounter }

    /// See `Replica.moveStrokeCounter(past:)`.
    public mutating func moveStrokeCounter(past number: Int) {
        replica.moveStrokeCounter(past: number)
    }

    /// The node id.
    public var nodeID: String { configuration.nodeID }

    /// Members present on a transport.
    public func members(of transport: TransportID) -> Set<PeerID> {
        transports[transport]?.members ?? []
    }

    /// What the session knows of each of its transports now, in identifier order.
    public var transportStatus: [TransportStatus] {
        transports.sorted { $0.key < $1.key }.map { id, state in
            TransportStatus(
                transport: id, isUp: state.isUp, members: state.members.sorted(),
                unacceptedOperations: state.outbox.count + state.inFlight.values.reduce(0) { $0 + $1.count },
                syncing: state.syncing.count)
        }
    }

    /// The members who drew in the last seconds (what `SessionEvent.drawing` reported last).
    public var drawingMembers: [Author] { drawing.sorted() }

    /// Whether a member has sent a sync message on this transport since it joined: it
    /// speaks the sync extension (a peer of the original protocol never does).
    public func speaksSync(_ peer: PeerID, on transport: TransportID) -> Bool {
        guard let state = transports[transport] else { return false }
        return state.nodes[peer] != nil || state.announced.contains(peer)
    }

    /// Local operations a transport has not accepted yet (kept across disconnections).
    public func unacceptedOperations(on transport: TransportID) -> [Operation] {
        guard let state = transports[transport] else { return [] }
        return state.inFlight.sorted { $0.key < $1.key }.flatMap(\.value) + state.outbox
    }

    /// Makes a transport known before it first comes up, so that local operations drawn
    /// meanwhile wait in its outbox and go out with its first `.transportUp`. A transport
    /// the session has never heard of gets only what is drawn after it is up, and what it
    /// missed reaches its members by anti-entropy alone: an XMPP room's archive would never
    /// hold strokes drawn while the node was connecting.
    public mutating func expect(transport: TransportID) {
        if transports[transport] == nil { transports[transport] = TransportState() }
    }

    /// Puts local operations that a transport had not accepted before the node restarted
    /// (the driver kept them) back in its outbox: they are sent with the next
    /// `.transportUp`, like those of a disconnection. Call it before the transport comes up.
    public mutating func restoreUnaccepted(_ operations: [Operation], on transport: TransportID) {
        var state = transports[transport] ?? TransportState()
        state.outbox.append(contentsOf: operations)
        transports[transport] = state
    }

    /// Forgets the local operations a transport has not accepted: another node carries
    /// them there (a passive XMPP link while the LAN's gateway relays), and anti-entropy
    /// repairs what it missed.
    public mutating func discardUnaccepted(on transport: TransportID) {
        transports[transport]?.outbox = []
        transports[transport]?.inFlight = [:]
    }

    /// Handles one input at time `now` and returns what to do.
    public mutating func handle(_ input: SessionInput, at now: Duration) -> [SessionAction] {
        var actions: [SessionAction] = []
        switch input {
        case .transportUp(let id, let maxMessageBytes, let members, let legacyPeers):
            transportUp(
                id, maxMessageBytes: maxMessageBytes, members: members, legacyPeers: legacyPeers, now: now, &actions)
        case .transportDown(let id):
            transportDown(id)
        case .memberJoined(let peer, let id):
            guard transports[id] != nil else { break }
            transports[id]!.members.insert(peer)
            noteJoined(peer, on: id, now: now)
            actions.append(.event(.memberJoined(peer, via: id)))
        case .memberLeft(let peer, let id):
            guard transports[id] != nil else { break }
            transports[id]!.forget(peer)
            actions.append(.event(.memberLeft(peer, via: id)))
        case .memberSpeaksSync(let peer, let id):
            guard transports[id]?.members.contains(peer) == true else { break }
            transports[id]!.announced.insert(peer)
            transports[id]!.legacyDeadlines[peer] = nil
        case .compactOperations(let compact, let id):
            transports[id, default: TransportState()].compactOperations = compact
        case .received(let bytes, let peer, let id, let carriage):
            guard transports[id]?.isUp == true else { break }
            received(bytes, from: peer, via: id, carriage: carriage, now: now, &actions)
        case .receivedAll(let messages, let id, let carriage):
            guard transports[id]?.isUp == true else { break }
            for (bytes, peer) in messages {
                received(bytes, from: peer, via: id, carriage: carriage, now: now, &actions)
            }
            actions = Self.coalesced(actions)
        case .recorded(let bytes, let peer, let id, let carriage):
            received(bytes, from: peer, via: id, carriage: carriage, now: now, operationsOnly: true, &actions)
        case .accepted(let sendID, let id):
            transports[id]?.inFlight[sendID] = nil
        case .timer:
            timer(now: now, &actions)
        case .local(let operations):
            noteDrawing(now: now)
            local(operations, &actions)
        case .action(let action):
            noteDrawing(now: now)
            local(replica.edit(for: action).operations, &actions)
        }
        updateDrawing(now: now, &actions)
        scheduleTimer(&actions)
        return actions
    }

    // MARK: - Transports

    private mutating func transportUp(
        _ id: TransportID, maxMessageBytes: Int, members: Set<PeerID>, legacyPeers: Bool, now: Duration,
        _ actions: inout [SessionAction]
    ) {
        var state = transports[id] ?? TransportState()
        if state.syncBudget == nil, let rate = configuration.syncBytesPerSecondWhileDrawing {
            state.syncBudget = SyncBudget(perSecond: rate, minimumPerSecond: 1 << 10, burst: 8 << 10)
        }
        state.isUp = true
        state.legacyPeers = legacyPeers
        state.maxMessageBytes = max(maxMessageBytes, MessagePacking.minimumMessageBytes)
        state.members = members
        transports[id] = state
        for peer in members {
            noteJoined(peer, on: id, now: now)
        }
        // Everything not accepted before, oldest first, then the summary that starts anti-entropy.
        let unaccepted = unacceptedOperations(on: id)
        transports[id]!.inFlight = [:]
        transports[id]!.outbox = []
        transports[id]!.shapeBodies.reset()
        sendLocal(unaccepted, on: id, &actions)
        announce(on: id, now: now, &actions)
    }

    private mutating func transportDown(_ id: TransportID) {
        guard var state = transports[id] else { return }
        // Operations in flight stay there: the transport may still confirm that they got
        // through (an XMPP room's archive, read on rejoining), and then they are not sent
        // again; the rest go with the next `.transportUp`.
        state.isUp = false
        state.members = []
        state.pendingAnswers = [:]
        state.nextAnnounce = nil
        state.announcesEarly = false
        state.legacyDeadlines = [:]
        state.nodes = [:]
        state.announced = []
        state.roots = [:]
        state.syncing = []
        transports[id] = state
    }

    private mutating func noteJoined(_ peer: PeerID, on id: TransportID, now: Duration) {
        guard transports[id]!.nodes[peer] == nil else { return }
        if let grace = configuration.legacyGrace, transports[id]!.legacyPeers {
            transports[id]!.legacyDeadlines[peer] = now + grace
        }
        // A newcomer may have missed our last summary (and we its first): announce soon, so
        // that anti-entropy with it starts now rather than at the next periodic summary, and
        // (where legacy peers may be) so that it hears we speak sync well within the legacy
        // grace; otherwise members that merely started at the same time take each other for
        // legacy peers and send each other whole documents.
        let soon = now + .milliseconds(Int.random(in: 0...1000, using: &random))
        if transports[id]!.isUp, transports[id]!.nextAnnounce.map({ $0 > soon }) ?? true {
            transports[id]!.nextAnnounce = soon
            transports[id]!.announcesEarly = true
        }
    }

    // MARK: - Local edits

    private mutating func local(_ operations: [Operation], _ actions: inout [SessionAction]) {
        var applied: [AppliedOperation] = []
        for operation in operations {
            let (effect, resolved) = replica.apply(operation)
            if effect.isNovel {
                applied.append(AppliedOperation(operation: resolved, effect: effect, author: nil))
            }
        }
        guard !applied.isEmpty else { return }
        let novel = applied.map(\.operation)
        actions.append(.persistLocal(novel))
        actions.append(.event(.applied(applied)))
        for id in transports.keys.sorted() {
            if transports[id]!.isUp {
                sendLocal(novel, on: id, &actions)
            } else {
                transports[id]!.outbox.append(contentsOf: novel)
            }
        }
    }

    /// Sends local operations on an up transport, remembering them until accepted.
    private mutating func sendLocal(_ operations: [Operation], on id: TransportID, _ actions: inout [SessionAction]) {
        guard !operations.isEmpty else { return }
        var batch: [(operation: Operation, sendID: SendID?)] = []
        batch.reserveCapacity(operations.count)
        for operation in operations {
            let sendID = SendID(nextSendID)
            nextSendID += 1
            transports[id]!.inFlight[sendID] = [operation]
            batch.append((outgoing(operation, on: id), sendID))
        }
        let (limit, compact) = (transports[id]!.maxMessageBytes, transports[id]!.compactOperations)
        for part in bodyParts(batch, originals: operations, on: id) {
            let sendID: SendID?
            switch part {
            case .operation(_, let localID):
                sendID = localID
            case .shape(_, _, let sendIDs):
                // One send now: accepted, it accepts the operations of every send it carries.
                sendID = sendIDs.last
                if let sendID {
                    transports[id]!.inFlight[sendID] = sendIDs.flatMap {
                        transports[id]!.inFlight.removeValue(forKey: $0) ?? []
                    }
                }
            }
            let messages = part.messages(maxBytes: limit, compact: compact)
            for (index, message) in messages.enumerated() {
                // A split APPEND is accepted when its last part is.
                let accepting = index == messages.count - 1 ? sendID : nil
                actions.append(.send(message, kind: .operations, to: .room, via: id, id: accepting))
            }
        }
    }

    /// What goes out on transport `id` for `operations` (in the form it sends them): where
    /// peers of the original app read, a shape's ADD and first APPEND as one MEGA (and a
    /// shape's ADD without it kept back until it comes: `ShapeBodies`); elsewhere each as it is.
    /// `originals`: the operations as the replica names their strokes (a body may name a
    /// stroke's generation by its base: `Replica.bodyOperation(_:)`).
    private mutating func bodyParts(
        _ operations: [(operation: Operation, sendID: SendID?)], originals: [Operation], on id: TransportID
    ) -> [ShapeBodies.Part] {
        guard transports[id]!.readByTheOriginalApp else {
            return operations.map { .operation($0.operation, $0.sendID) }
        }
        let document = replica.document
        return transports[id]!.shapeBodies.parts(operations) { index in
            guard let points = document[originals[index].strokeID]?.points, points.count > 1 else { return [] }
            return Array(points.dropFirst())
        }
    }

    /// `operation` as sent in `.operations` on transport `id`: where peers of the original
    /// app may read (a body), named as a body names it.
    private func outgoing(_ operation: Operation, on id: TransportID) -> Operation {
        transports[id]!.legacyPeers ? replica.bodyOperation(operation) : operation
    }

    // MARK: - Remote messages

    private mutating func received(
        _ bytes: [UInt8], from peer: PeerID, via id: TransportID, carriage: Carriage, now: Duration,
        operationsOnly: Bool = false, _ actions: inout [SessionAction]
    ) {
        let message: Message
        do {
            message = try MessageDecoder.decode(bytes)
        } catch {
            statistics.rejected += 1
            actions.append(.event(.rejected(error, from: peer, via: id)))
            return
        }
        // A compact message is one operation's compact form: the store may keep it as it came.
        let compact = bytes.first.map(CompactOperationCoding.isCompact(firstByte:)) == true
        switch message {
        case .operation(let operation) where carriage != .body:
            // Most messages: no array for the one operation or its form.
            applyRemote(
                CollectionOfOne(operation), compactForm: compact ? bytes : nil, from: Author(peer: peer, transport: id),
                now: now, isDrawing: !operationsOnly, &actions)
        case .operation, .mega:
            let operations = carriage == .body ? replica.operationsFromBody(message) : message.operations
            applyRemote(
                operations, compactForm: compact && operations.count == 1 ? bytes : nil,
                from: Author(peer: peer, transport: id), now: now, isDrawing: !operationsOnly, &actions)
        case .sync(let sync):
            if !operationsOnly { handleSync(sync, from: peer, via: id, now: now, &actions) }
        case .unsupported:
            statistics.unsupported += 1
        }
    }

    /// Applies operations from a member; persists the novel ones and relays them to the
    /// other transports (with the resolved offset, for an APPEND that had none).
    /// `compactForm` (only with a single operation): the compact form it arrived in.
    mutating func applyRemote(
        _ operations: some Collection<Operation>, compactForm: [UInt8]? = nil, from author: Author, now: Duration,
        isDrawing: Bool = true, _ actions: inout [SessionAction]
    ) {
        precondition(compactForm == nil || operations.count == 1, "a compact form is given for a single operation only")
        var applied: [AppliedOperation] = []
        applied.reserveCapacity(operations.count)
        var forms: [[UInt8]?] = []
        forms.reserveCapacity(operations.count)
        for operation in operations {
            let (effect, resolved) = replica.apply(operation)
            guard effect.isNovel else { continue }
            applied.append(AppliedOperation(operation: resolved, effect: effect, author: author))
            // What arrived is what is recorded only when resolving changed nothing (an
            // APPEND that came without its offset is recorded with it).
            forms.append(compactForm.flatMap { resolved == operation ? $0 : nil })
        }
        guard !applied.isEmpty else { return }
        let novel = applied.map(\.operation)
        // Repairs from a member we are exchanging summaries with, and the past, are not drawing.
        let from = transports.index(forKey: author.transport)
        if isDrawing, from.map({ transports.values[$0].syncing.contains(author.peer) }) != true {
            if lastDrawn.updateValue(now, forKey: author) == nil { drawingEntered = true }
            noteDrawing(now: now)
        }
        // Room for both at once, growing geometrically (two appends to an empty array were
        // two allocations for every message received).
        if actions.capacity < actions.count + 2 { actions.reserveCapacity(max(4, 2 * actions.count)) }
        actions.append(.persistRemote(novel, compactForms: forms))
        actions.append(.event(.applied(applied)))
        // Relayed to every other transport that is up: none when the author's is the only one
        // (a member of one LAN), so no keys are sorted for nothing.
        if transports.count == 1, from != nil { return }
        for id in transports.keys.sorted() where id != author.transport && transports[id]!.isUp {
            let (limit, compact) = (transports[id]!.maxMessageBytes, transports[id]!.compactOperations)
            for part in bodyParts(novel.map { (outgoing($0, on: id), nil) }, originals: novel, on: id) {
                for message in part.messages(maxBytes: limit, compact: compact) {
                    actions.append(.send(message, kind: .operations, to: .room, via: id, id: nil))
                }
            }
        }
    }

    /// `actions` with every `.persistRemote` merged into the first and every `.applied`
    /// event into the first: what a batch of messages stores and reports, in one go.
    /// Sends keep their order; storing remote operations later than their relay is safe
    /// (their senders hold them).
    static func coalesced(_ actions: [SessionAction]) -> [SessionAction] {
        // Most batches are one message (a datagram of one author's operation): nothing to merge.
        var persists = 0
        var events = 0
        var persistedCount = 0
        var appliedCount = 0
        for action in actions {
            switch action {
            case .persistRemote(let operations, _):
                persists += 1
                persistedCount += operations.count
            case .event(.applied(let operations)):
                events += 1
                appliedCount += operations.count
            default: break
            }
        }
        guard persists > 1 || events > 1 else { return actions }
        var result: [SessionAction] = []
        result.reserveCapacity(actions.count)
        // Gathered apart and put in place at the end: merging into `result` as they come
        // copied the growing arrays once per message (quadratic in a burst).
        // Sized at once: grown as they came, they were most of a node's allocations of a
        // kilobyte or more (a gateway's relay packs dozens of operations in a datagram).
        var persisted: [Operation] = []
        persisted.reserveCapacity(persistedCount)
        var persistedForms: [[UInt8]?] = []
        persistedForms.reserveCapacity(persistedCount)
        var applied: [AppliedOperation] = []
        applied.reserveCapacity(appliedCount)
        var persistAt: Int?
        var appliedAt: Int?
        for action in actions {
            switch action {
            case .persistRemote(let operations, let forms):
                if persistAt == nil {
                    persistAt = result.count
                    result.append(action)
                }
                persisted.append(contentsOf: operations)
                persistedForms.append(contentsOf: forms)
            case .event(.applied(let operations)):
                if appliedAt == nil {
                    appliedAt = result.count
                    result.append(action)
                }
                applied.append(contentsOf: operations)
            default:
                result.append(action)
            }
        }
        if let persistAt { result[persistAt] = .persistRemote(persisted, compactForms: persistedForms) }
        if let appliedAt { result[appliedAt] = .event(.applied(applied)) }
        return result
    }

    // MARK: - Time

    private mutating func timer(now: Duration, _ actions: inout [SessionAction]) {
        for id in transports.keys.sorted() where transports[id]!.isUp {
            if let next = transports[id]!.nextAnnounce, next <= now {
                announce(on: id, now: now, &actions)
            }
            for (node, answer) in transports[id]!.pendingAnswers.sorted(by: { $0.key < $1.key }) where answer.fireAt <= now {
                transports[id]!.pendingAnswers[node] = nil
                answerSummary(of: node, peer: answer.peer, root: answer.root, via: id, now: now, &actions)
            }
            for (peer, deadline) in transports[id]!.legacyDeadlines.sorted(by: { $0.key < $1.key }) where deadline <= now {
                transports[id]!.legacyDeadlines[peer] = nil
                // One member sends: the one with the smallest node id among those that speak sync.
                if transports[id]!.nodes.values.allSatisfy({ nodeID < $0 }) {
                    sendState(to: peer, via: id, &actions)
                }
            }
        }
    }

    /// Takes the bytes of `messages` (one step of anti-entropy's search) on transport `id`
    /// from its budget (always granted when nobody drew within `drawingWindow`); a refusal
    /// is counted as deferred.
    mutating func spendSyncBudget(on messages: [[UInt8]], via id: TransportID, now: Duration) -> Bool {
        let bytes = messages.reduce(0) { $0 + $1.count }
        let members = transports[id]!.members.count
        let drawing = anyoneDrawing(now: now)
        guard transports[id]!.syncBudget?.spend(bytes, members: members, drawing: drawing, now: now) ?? true else {
            statistics.deferred += 1
            return false
        }
        return true
    }

    /// Whether any member (this one included) sent a novel operation within `drawingWindow`
    /// of `now`: while so, replicas differ by what is in flight and anti-entropy yields.
    func anyoneDrawing(now: Duration) -> Bool {
        lastDrawnAnywhere.map { now - $0 < configuration.drawingWindow } ?? false
    }

    /// Someone drew at `now`. When that ends a quiet spell, the periodic announcements
    /// planned for a quiet room are planned again where they stretch (`planNextAnnounce`),
    /// except an early one for a newcomer.
    private mutating func noteDrawing(now: Duration) {
        let quietUntilNow = !anyoneDrawing(now: now)
        lastDrawnAnywhere = now
        guard quietUntilNow, configuration.summariesPerSecondWhileDrawing != nil else { return }
        for id in transports.keys where announceInterval(on: id, now: now) > configuration.announceInterval {
            guard let planned = transports[id]!.nextAnnounce, !transports[id]!.announcesEarly else { continue }
            planNextAnnounce(on: id, now: now)
            transports[id]!.nextAnnounce = max(planned, transports[id]!.nextAnnounce!)
        }
    }

    private mutating func updateDrawing(now: Duration, _ actions: inout [SessionAction]) {
        guard drawingEntered || drawingExpiry.map({ now >= $0 }) == true else { return }
        drawingEntered = false
        lastDrawn = lastDrawn.filter { now - $0.value < configuration.drawingWindow }
        drawingExpiry = lastDrawn.values.min().map { $0 + configuration.drawingWindow }
        let current = Set(lastDrawn.keys)
        if current != drawing {
            drawing = current
            actions.append(.event(.drawing(current)))
        }
    }

    /// Asks for the timer at the earliest deadline, if it changed.
    private mutating func scheduleTimer(_ actions: inout [SessionAction]) {
        // After every input: no array is built, no transport's state copied.
        var earliest = drawingExpiry
        func consider(_ deadline: Duration) {
            if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        for index in transports.values.indices where transports.values[index].isUp {
            transports.values[index].nextAnnounce.map(consider)
            for answer in transports.values[index].pendingAnswers.values { consider(answer.fireAt) }
            for deadline in transports.values[index].legacyDeadlines.values { consider(deadline) }
        }
        if let earliest, earliest != scheduledTimer {
            actions.append(.scheduleTimer(at: earliest))
        }
        scheduledTimer = earliest
    }
}

/// What a session knows of one transport.
struct TransportState: Sendable {
    var isUp = false
    var maxMessageBytes = MessagePacking.minimumMessageBytes
    var members: Set<PeerID> = []
    /// The node id each member announced in its sync messages (members that never sent
    /// one may be legacy peers).
    var nodes: [PeerID: String] = [:]
    /// Members that announced they speak sync (capabilities), before or without sending.
    var announced: Set<PeerID> = []
    /// The digest root each node id last announced in a sync message.
    var roots: [String: UInt64] = [:]
    /// When to send the whole document to members that stay silent (legacy peers).
    var legacyDeadlines: [PeerID: Duration] = [:]
    /// Local operations not yet handed to the transport (it was down).
    var outbox: [Operation] = []
    /// Local operations handed over but not yet accepted.
    var inFlight: [SendID: [Operation]] = [:]
    var nextAnnounce: Duration?
    /// Whether `nextAnnounce` was brought forward for a newcomer.
    var announcesEarly = false
    /// Whether members may be peers of the original protocol (see `SessionInput.transportUp`).
    var legacyPeers = true
    /// Where they may be: shapes' ADDs waiting for their first APPEND, to go out as one MEGA.
    var shapeBodies = ShapeBodies()

    /// Whether peers of the original app may read what goes out (JSON, where they may be).
    var readByTheOriginalApp: Bool { legacyPeers && !compactOperations }
    /// Whether operations go in their compact binary form (`SessionInput.compactOperations`).
    var compactOperations = false
    /// What anti-entropy may still send while members draw (nil: no limit).
    var syncBudget: SyncBudget?
    /// Answers to summaries waiting for their random delay, by requesting node.
    var pendingAnswers: [String: PendingAnswer] = [:]
    /// Requester digest roots answered recently: not answered again before the time given.
    var answeredRoots: [UInt64: Duration] = [:]
    /// Members we exchange stroke summaries with (sent SYNC_STROKES or SYNC_WANT to) and
    /// have not yet seen in our state; their operations meanwhile are repairs, not drawing.
    var syncing: Set<PeerID> = []

    mutating func forget(_ peer: PeerID) {
        members.remove(peer)
        nodes[peer] = nil
        announced.remove(peer)
        legacyDeadlines[peer] = nil
        syncing.remove(peer)
    }
}

/// An answer to a summary, waiting for its random delay to pass.
struct PendingAnswer: Sendable {
    var fireAt: Duration
    var peer: PeerID
    var root: UInt64
}
