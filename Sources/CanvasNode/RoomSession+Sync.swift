import CanvasCore
import CanvasProtocol

/// Anti-entropy (PROTOCOL.md §13). Per transport:
///
/// 1. every member announces its digest root (SYNC_SUMMARY) on join, on reconnect and
///    every `announceInterval`;
/// 2. a member whose root differs answers, after a random delay, with its bucket hashes
///    (SYNC_BUCKETS, to the room); members in the same state that see this answer before
///    their own delay ends cancel theirs (SRM suppression);
/// 3. the requester sends its summaries of the strokes in the differing buckets
///    (SYNC_STROKES, to the answerer);
/// 4. the answerer sends the operations the requester lacks (to the room: members in the
///    requester's state benefit too) and the summaries of the strokes where the requester
///    holds more (SYNC_WANT);
/// 5. the requester sends those operations (to the room).
extension RoomSession {
    /// Sends our digest root to the room and plans the next announcement.
    mutating func announce(on id: TransportID, now: Duration, _ actions: inout [SessionAction]) {
        let message = SyncMessage(node: nodeID, root: document.digest.root, body: .summary)
        sendSync([message.encoded()], to: .room, via: id, &actions)
        planNextAnnounce(on: id, now: now)
    }

    /// The next periodic announcement: `announceInterval` from now, jittered by ±25 %. While
    /// anyone draws every summary differs and draws an answer of every bucket hash, so the
    /// interval stretches with the members, as RTCP's reports do (RFC 3550 §6.2): the
    /// transport as a whole hears about `summariesPerSecondWhileDrawing`.
    mutating func planNextAnnounce(on id: TransportID, now: Duration) {
        let jitter = 0.75 + 0.5 * Double.random(in: 0..<1, using: &random)
        transports[id]!.nextAnnounce = now + announceInterval(on: id, now: now) * jitter
        transports[id]!.announcesEarly = false
    }

    /// The mean periodic announce interval on transport `id` at `now` (see `planNextAnnounce`).
    func announceInterval(on id: TransportID, now: Duration) -> Duration {
        guard let rate = configuration.summariesPerSecondWhileDrawing, anyoneDrawing(now: now) else {
            return configuration.announceInterval
        }
        return max(configuration.announceInterval, .seconds(Double(transports[id]!.members.count + 1) / rate))
    }

    mutating func handleSync(
        _ message: SyncMessage, from peer: PeerID, via id: TransportID, now: Duration, _ actions: inout [SessionAction]
    ) {
        guard message.node != nodeID else { return }
        transports[id]!.nodes[peer] = message.node
        transports[id]!.legacyDeadlines[peer] = nil
        let requesterRoot = message.to.flatMap { transports[id]!.roots[$0] }
        transports[id]!.roots[message.node] = message.root
        if message.root == document.digest.root, transports[id]!.syncing.remove(peer) != nil {
            actions.append(.event(.syncFinished(peer, via: id)))
        }
        switch message.body {
        case .summary:
            receivedSummary(message, from: peer, via: id, now: now, &actions)
        case .buckets(let first, let hashes):
            guard message.to == nodeID else {
                sawAnswer(message, toRequesterIn: requesterRoot, via: id, now: now)
                return
            }
            receivedBuckets(first: first, hashes: hashes, of: message, from: peer, via: id, now: now, &actions)
        case .strokes(let cover, let theirs):
            guard message.to == nodeID else { return }
            receivedStrokes(cover: cover, theirs, of: message, from: peer, via: id, now: now, &actions)
        case .want(let theirs):
            guard message.to == nodeID else { return }
            let operations = theirs.flatMap { Self.operations(of: document[$0.id], lackedBy: $0) }
            sendRepair(operations, to: .room, via: id, &actions)
        }
    }

    /// A summary: plan an answer if it differs from our state (after a random delay,
    /// unless suppression is off), and if no member in our state answered its root lately.
    private mutating func receivedSummary(
        _ message: SyncMessage, from peer: PeerID, via id: TransportID, now: Duration, _ actions: inout [SessionAction]
    ) {
        guard message.root != document.digest.root else {
            transports[id]!.pendingAnswers[message.node] = nil
            // A member in our state announced for the newcomer: ours would say the same
            // (SRM suppression). Where legacy peers may be, each member must speak for
            // itself within the legacy grace, so the early announcement stays.
            if transports[id]!.announcesEarly, !transports[id]!.legacyPeers || configuration.legacyGrace == nil {
                planNextAnnounce(on: id, now: now)
            }
            return
        }
        guard transports[id]!.pendingAnswers[message.node] == nil else { return }
        if let until = transports[id]!.answeredRoots[message.root], until > now { return }
        switch configuration.suppression {
        case .off:
            answerSummary(of: message.node, peer: peer, root: message.root, via: id, now: now, &actions)
        case .randomDelay(let base, let perMember):
            let window = base + perMember * transports[id]!.members.count
            let delay = random.duration(below: window)
            transports[id]!.pendingAnswers[message.node] = PendingAnswer(fireAt: now + delay, peer: peer, root: message.root)
        }
    }

    /// Someone else's SYNC_BUCKETS: the suppression rules of PROTOCOL.md §13.3.
    private mutating func sawAnswer(_ message: SyncMessage, toRequesterIn requesterRoot: UInt64?, via id: TransportID, now: Duration) {
        let root = document.digest.root
        let holdOff = now + configuration.announceInterval / 2
        // Someone in our state answered this requester already: ours would repeat it. While
        // anyone draws no two replicas are in the same state (they differ by what is in
        // flight), so any answer will do: the requester can use one exchange, and what only
        // we hold goes out when we announce (PROTOCOL.md §13.5).
        if message.root == root || anyoneDrawing(now: now), let requester = message.to,
            let pending = transports[id]!.pendingAnswers.removeValue(forKey: requester)
        {
            transports[id]!.answeredRoots[pending.root] = holdOff
        }
        // A member in our state is about to be repaired by this answerer, and repairs go to
        // the room: a summary in the answerer's state needs no answer of ours for a while.
        if requesterRoot == root {
            transports[id]!.answeredRoots[message.root] = holdOff
            if transports[id]!.pendingAnswers[message.node]?.root == message.root {
                transports[id]!.pendingAnswers[message.node] = nil
            }
        }
    }

    /// An answer to our summary: our summaries of the strokes in the buckets that differ.
    private mutating func receivedBuckets(
        first: Int, hashes: [UInt64], of message: SyncMessage, from peer: PeerID, via id: TransportID, now: Duration,
        _ actions: inout [SessionAction]
    ) {
        let digest = document.digest
        guard message.root != digest.root else { return }
        let differing = hashes.indices.map { first + $0 }.filter { digest.buckets[$0] != hashes[$0 - first] }
        guard !differing.isEmpty else { return }
        let buckets = differing.map { bucket in
            (bucket: bucket, strokes: strokes(inBucket: bucket).map { SyncStrokeSummary($0.summary) })
        }
        let messages = MessagePacking.strokeMessages(
            node: nodeID, root: digest.root, to: message.node, buckets: buckets, maxBytes: transports[id]!.maxMessageBytes)
        guard spendSyncBudget(on: messages, via: id, now: now) else { return }
        statistics.strokeListBytes += messages.reduce(0) { $0 + $1.count }
        sendSync(messages, to: .peer(peer), via: id, &actions)
        noteSyncing(peer, via: id, &actions)
    }

    /// A requester's summaries: send it what it lacks, and ask for what we lack.
    private mutating func receivedStrokes(
        cover: [SyncCover], _ theirs: [SyncStrokeSummary], of message: SyncMessage, from peer: PeerID, via id: TransportID,
        now: Duration, _ actions: inout [SessionAction]
    ) {
        var operations: [Operation] = []
        var listed = Set<StrokeID>()
        var wanted: [SyncStrokeSummary] = []
        for summary in theirs {
            listed.insert(summary.id)
            let stroke = document[summary.id]
            operations.append(contentsOf: Self.operations(of: stroke, lackedBy: summary))
            let mine = stroke.map { SyncStrokeSummary($0.summary) } ?? .absent(summary.id)
            if Self.holdsMore(summary, than: mine) {
                wanted.append(mine)
            }
        }
        for part in cover {
            for stroke in strokes(inBucket: part.bucket) where !listed.contains(stroke.id) && part.contains(stroke.id) {
                listed.insert(stroke.id)
                operations.append(contentsOf: stroke.operations)
            }
        }
        sendRepair(operations, to: .room, via: id, &actions)
        guard !wanted.isEmpty else { return }
        let messages = MessagePacking.wantMessages(
            node: nodeID, root: document.digest.root, to: message.node, strokes: wanted,
            maxBytes: transports[id]!.maxMessageBytes)
        guard spendSyncBudget(on: messages, via: id, now: now) else { return }
        statistics.strokeListBytes += messages.reduce(0) { $0 + $1.count }
        sendSync(messages, to: .peer(peer), via: id, &actions)
        noteSyncing(peer, via: id, &actions)
    }

    private mutating func noteSyncing(_ peer: PeerID, via id: TransportID, _ actions: inout [SessionAction]) {
        if transports[id]!.syncing.insert(peer).inserted {
            actions.append(.event(.syncStarted(peer, via: id)))
        }
    }

    /// The strokes of one digest bucket, sorted by identifier.
    func strokes(inBucket bucket: Int) -> [Stroke] {
        replica.bucketStrokes[bucket].sorted().compactMap { document[$0] }
    }

    /// Sends our bucket hashes in answer to a summary, if it still differs from our state.
    mutating func answerSummary(
        of node: String, peer: PeerID, root: UInt64, via id: TransportID, now: Duration, _ actions: inout [SessionAction]
    ) {
        let digest = document.digest
        guard root != digest.root, transports[id]!.members.contains(peer) else { return }
        let messages = MessagePacking.bucketMessages(
            node: nodeID, root: digest.root, to: node, buckets: digest.buckets, maxBytes: transports[id]!.maxMessageBytes)
        guard spendSyncBudget(on: messages, via: id, now: now) else { return }
        transports[id]!.answeredRoots = transports[id]!.answeredRoots.filter { $0.value > now }
        transports[id]!.answeredRoots[root] = now + configuration.announceInterval / 2
        statistics.answers += 1
        statistics.answerBytes += messages.reduce(0) { $0 + $1.count }
        sendSync(messages, to: .room, via: id, &actions)
    }

    /// Sends the whole document as MEGA messages to a member that speaks no sync messages
    /// (a legacy peer).
    mutating func sendState(to peer: PeerID, via id: TransportID, _ actions: inout [SessionAction]) {
        // MEGA, which the original app merges by keeping the longer points array: an APPEND
        // would add points it already has at the end of its stroke (PROTOCOL.md §14). Each
        // stroke goes by the name the app knows it by (§14.7).
        let replica = replica
        for message in MessageEncoder.legacyMegaMessages(
            for: document, maxBytes: transports[id]!.maxMessageBytes, name: { replica.bodyName(of: $0) })
        {
            statistics.repairMessages += 1
            statistics.repairBytes += message.count
            actions.append(.send(message, kind: .legacyState, to: .peer(peer), via: id, id: nil))
        }
    }

    private mutating func sendSync(_ messages: [[UInt8]], to destination: Destination, via id: TransportID, _ actions: inout [SessionAction]) {
        for message in messages {
            statistics.syncMessages += 1
            statistics.syncBytes += message.count
            actions.append(.send(message, kind: .sync, to: destination, via: id, id: nil))
        }
    }

    /// Sends repairs: all of them, budget or not. The budget holds back the exchanges that
    /// find differences (answers, stroke summaries, wants), which under load were what
    /// multiplied the traffic; what an exchange that went through finds missing is sent in
    /// full, so that a newcomer catches up on a room while others draw.
    private mutating func sendRepair(
        _ operations: [Operation], to destination: Destination, via id: TransportID, _ actions: inout [SessionAction]
    ) {
        let messages = MessagePacking.messages(
            for: operations, maxBytes: transports[id]!.maxMessageBytes, compact: transports[id]!.compactOperations)
        for message in messages {
            statistics.repairMessages += 1
            statistics.repairBytes += message.count
            actions.append(.send(message, kind: .repair, to: destination, via: id, id: nil))
        }
    }

    /// The operations that bring a replica whose stroke is summarised by `theirs` up to
    /// what we hold of it (nothing when we hold nothing it lacks):
    /// - the ADD when the header hashes differ (conflicting headers resolve on arrival);
    /// - the points beyond their contiguous count, and our pending runs that reach beyond
    ///   it; all of them when the counts agree but the points hashes do not (a conflict);
    /// - every erased interval when the erased hashes differ (union on arrival).
    static func operations(of stroke: Stroke?, lackedBy theirs: SyncStrokeSummary) -> [Operation] {
        guard let stroke else { return [] }
        let mine = SyncStrokeSummary(stroke.summary)
        guard mine != theirs else { return [] }
        var result: [Operation] = []
        if let header = stroke.header, mine.headerHash != theirs.headerHash {
            result.append(.add(stroke.id, header))
        }
        if mine.pointsHash != theirs.pointsHash {
            let conflict = mine.contiguousCount == theirs.contiguousCount && mine.pendingCount == theirs.pendingCount
            let from = conflict ? 1 : max(1, theirs.contiguousCount)
            if stroke.points.count > from {
                result.append(.append(stroke.id, points: Array(stroke.points[from...]), offset: from))
            }
            for run in stroke.pending where conflict || run.end > theirs.contiguousCount {
                result.append(.append(stroke.id, points: run.points, offset: run.offset))
            }
        }
        if mine.erasedHash != theirs.erasedHash {
            for interval in stroke.erased.intervals {
                result.append(
                    interval.upperBound == .infinity
                        ? .removeStroke(stroke.id) : .delete(stroke.id, start: interval.lowerBound, end: interval.upperBound))
            }
        }
        return result
    }

    /// True when a stroke summarised by `theirs` may hold something ours (`mine`) lacks.
    static func holdsMore(_ theirs: SyncStrokeSummary, than mine: SyncStrokeSummary) -> Bool {
        guard theirs != mine else { return false }
        let headerDiffers = theirs.contiguousCount > 0 && theirs.headerHash != mine.headerHash
        let morePoints =
            theirs.contiguousCount > mine.contiguousCount || theirs.pendingCount > 0
            || (theirs.pointsHash != mine.pointsHash && theirs.contiguousCount == mine.contiguousCount)
        let erasedDiffers = theirs.erasedHash != 0 && theirs.erasedHash != mine.erasedHash
        return headerDiffers || (morePoints && theirs.pointsHash != mine.pointsHash) || erasedDiffers
    }
}
