/// One node of a room's LAN cluster, as a state machine: the driver feeds it datagrams,
/// payloads to send, capability changes and timer ticks, and performs the
/// `ClusterAction`s it returns (send datagrams, deliver payloads, report members and the
/// gateway, schedule the next tick). It opens no socket and reads no clock: times are
/// `Duration`s since any origin the driver chooses, as long as it keeps it.
///
/// ```
/// var node = try ClusterNode(
///     configuration: .init(room: "sketch"), nodeID: id, incarnation: .random(in: .min ... .max), key: key)
/// perform(node.start(now: clock.now))
/// // on a datagram: perform(node.receive(bytes: bytes, now: clock.now))
/// // on a local operation: perform(try node.send(payload: bytes, now: clock.now))
/// // when the scheduled tick fires: perform(node.tick(now: clock.now))
/// ```
public struct ClusterNode: Sendable {
    /// The configuration the node started with.
    public let configuration: ClusterConfiguration
    /// This node's id.
    public let nodeID: String
    /// This run's incarnation.
    public let incarnation: UInt64
    /// What this node did and refused.
    public private(set) var counters = ClusterCounters()

    private enum Phase { case created, running, stopped }

    /// The receive state of one sender incarnation.
    private struct SenderState: Sendable {
        var replay = ReplayWindow()
        /// Created by the first beacon or data fragment: until then, where the sender's
        /// data starts is unknown.
        var stream: InboundStream?
        var lastHeard: Duration
    }

    private struct SenderKey: Hashable, Comparable, Sendable {
        var nodeID: String
        var incarnation: UInt64
        static func < (lhs: SenderKey, rhs: SenderKey) -> Bool {
            guard lhs.nodeID == rhs.nodeID else { return lhs.nodeID.utf8.lexicographicallyPrecedes(rhs.nodeID.utf8) }
            return lhs.incarnation < rhs.incarnation
        }
    }

    /// A sender's incarnations this node remembers at most (its replay windows): older ones
    /// are forgotten first.
    private static let incarnationsPerSender = 4
    /// How long the receive state of a sender that is not a member is kept.
    private static let forgetSendersAfter: Duration = .seconds(600)

    private let key: RoomKey?
    /// Seals and opens this room's datagrams, when it has a key.
    private let sealer: DatagramSealer?
    private var phase = Phase.created
    private var capabilities: Capabilities
    /// What every other member announced it can do (all flags without members), as last
    /// reported in `.membersCapabilities`.
    private var membersCapabilities = Capabilities(rawValue: .max)
    private var summary: [UInt8] = []
    private var outbound = OutboundStream()
    private var senders: [SenderKey: SenderState] = [:]
    /// The next deadline of each sender's stream that has one (a loss to request, a
    /// payload to give up on): kept per sender, so that a datagram costs O(1) here.
    private var streamDeadlines: [SenderKey: Duration] = [:]
    private var membership: Membership
    private var election = GatewayElection()
    private var nextBeacon: Duration?
    /// The room's name in compact datagrams (`Datagram.roomTag`).
    private let roomTag: [UInt8]
    /// The interval the last beacon announced.
    private var announcedBeaconInterval: Duration?
    /// NACK datagrams this node may still send (`maxNacksPerSecond`).
    private var nackBudget: TokenBucket
    /// Repairs this node may still send (`maxRepairsPerSecond`).
    private var repairBudget: TokenBucket
    private var announcedTick: Duration?
    /// Since when the driver has not been reading the socket, if it paused.
    private var listeningPausedAt: Duration?
    private var random: JitterRandom

    /// A node of `configuration.room` named `nodeID`, for the run `incarnation` (choose it
    /// at random on every start), authenticating with `key` when there is one (without, the
    /// LAN is trusted).
    ///
    /// Throws when the configuration is out of range, `nodeID` is empty or longer than 255
    /// UTF-8 bytes, or `key` is empty.
    public init(configuration: ClusterConfiguration, nodeID: String, incarnation: UInt64, key: [UInt8]?)
        throws(ClusterError)
    {
        try configuration.validate()
        guard (1...255).contains(nodeID.utf8.count) else {
            throw ClusterError(.invalidNodeID, "node id of \(nodeID.utf8.count) UTF-8 bytes; expected 1...255")
        }
        self.configuration = configuration
        capabilities = configuration.announcedCapabilities.subtracting(.hasXMPPSession)
        self.nodeID = nodeID
        self.incarnation = incarnation
        self.key = try key.map { bytes throws(ClusterError) in try RoomKey(bytes) }
        sealer = self.key.map { DatagramSealer(key: $0, room: configuration.room) }
        membership = Membership(
            selfID: nodeID, defaultBeaconInterval: configuration.beaconInterval,
            missedBeaconsBeforeLeaving: configuration.missedBeaconsBeforeLeaving)
        random = JitterRandom(incarnation: incarnation, nodeID: nodeID)
        nackBudget = TokenBucket(perSecond: configuration.maxNacksPerSecond)
        repairBudget = TokenBucket(perSecond: configuration.maxRepairsPerSecond)
        roomTag = Datagram.roomTag(configuration.room)
        let fragments = (configuration.maxPayloadBytes + chunkCapacity - 1) / chunkCapacity
        guard fragments <= Int(UInt16.max) else {
            throw ClusterError(
                .invalidConfiguration,
                "maxPayloadBytes \(configuration.maxPayloadBytes) needs \(fragments) fragments of \(chunkCapacity) bytes; "
                    + "at most \(UInt16.max) are possible: lower it or raise maxDatagramBytes")
        }
    }

    /// The other members, sorted by node id (as UTF-8 bytes).
    public var members: [Membership.Member] {
        membership.members.values.sorted { $0.nodeID.utf8.lexicographicallyPrecedes($1.nodeID.utf8) }
    }

    /// The current gateway (possibly this node), nil when no member has an XMPP session.
    public var gateway: String? { election.gateway }

    /// Whether the node was started and not stopped.
    public var isRunning: Bool { phase == .running }

    /// Starts the node: it announces itself with a beacon and elects a gateway.
    public mutating func start(now: Duration) -> [ClusterAction] {
        guard phase == .created else { return [] }
        phase = .running
        var actions = [sendBeacon(now: now)]
        actions += reviewMembers()
        return finish(actions, now: now)
    }

    /// The driver stopped reading the socket (its consumer fell behind): until
    /// `resumeListening(now:)`, members are not taken for gone, since what they send waits
    /// unread (or is dropped by the kernel and repaired later).
    public mutating func pauseListening(now: Duration) -> [ClusterAction] {
        guard phase == .running, listeningPausedAt == nil else { return [] }
        listeningPausedAt = now
        return finish([], now: now)
    }

    /// The driver reads the socket again: the pause does not count as the members' silence.
    public mutating func resumeListening(now: Duration) -> [ClusterAction] {
        guard let pausedAt = listeningPausedAt else { return [] }
        listeningPausedAt = nil
        guard phase == .running else { return [] }
        membership.excuse(now - pausedAt)
        return finish([], now: now)
    }

    /// Stops the node: it says goodbye, so that members see it leave at once. Later inputs
    /// are ignored.
    public mutating func stop(now: Duration) -> [ClusterAction] {
        guard phase == .running else { return [] }
        phase = .stopped
        return [emit(.leave)]
    }

    /// Sends `payload` to every member of the room, in as many datagrams as it needs.
    ///
    /// Throws when the node is not running or the payload is larger than
    /// `configuration.maxPayloadBytes`.
    public mutating func send(payload: [UInt8], now: Duration) throws(ClusterError) -> [ClusterAction] {
        guard phase == .running else {
            throw ClusterError(.notRunning, "send(payload:now:) before start(now:) or after stop(now:)")
        }
        guard payload.count <= configuration.maxPayloadBytes else {
            throw ClusterError(
                .payloadTooLarge,
                "payload of \(payload.count) bytes; maxPayloadBytes is \(configuration.maxPayloadBytes): split it")
        }
        let fragments = outbound.fragments(
            of: payload, chunkCapacity: chunkCapacity, fragmentLimit: configuration.retransmissionBufferFragments,
            byteLimit: configuration.retransmissionBufferBytes)
        return finish(fragments.map { emit(.data($0)) }, now: now)
    }

    /// Sets what this node announces: whether it has a working XMPP session (a change is
    /// announced at once and may move the gateway) and its sync summary (announced with the
    /// next beacon).
    ///
    /// Throws when the summary does not fit in a beacon of `configuration.maxDatagramBytes`.
    public mutating func setCapabilities(
        hasXMPPSession: Bool, summary: [UInt8], now: Duration
    ) throws(ClusterError) -> [ClusterAction] {
        let limit = configuration.maxDatagramBytes - headerBytes - Datagram.beaconOverhead - tagBytes
        guard summary.count <= limit else {
            throw ClusterError(.summaryTooLarge, "summary of \(summary.count) bytes; a beacon has room for \(limit)")
        }
        let capabilities = configuration.announcedCapabilities.union(hasXMPPSession ? [.hasXMPPSession] : [])
        let changed = capabilities != self.capabilities
        self.capabilities = capabilities
        self.summary = summary
        guard phase == .running, changed else { return [] }
        var actions = [sendBeacon(now: now)]
        actions += reviewMembers()
        return finish(actions, now: now)
    }

    /// Handles a datagram received from the group (possibly this node's own, looped back).
    /// Invalid, unauthenticated, replayed and foreign datagrams are dropped and counted.
    public mutating func receive(bytes: [UInt8], now: Duration) -> [ClusterAction] {
        guard phase == .running else { return [] }
        guard let datagram = open(bytes) else { return [] }
        guard datagram.sender != nodeID else {
            if datagram.incarnation == incarnation {
                counters.droppedOwn += 1
            } else {
                counters.droppedNodeIDConflict += 1
            }
            return []
        }
        let sender = SenderKey(nodeID: datagram.sender, incarnation: datagram.incarnation)
        // The sender's state is found once (hashing its id) and reached by index from here
        // on. Nothing below adds or removes a sender, nor changes the table through a key it
        // lacks (which may grow it and invalidate the index: see `handle(_:now:)` of a NACK).
        if senders.index(forKey: sender) == nil { remember(sender, now: now) }
        let state = senders.index(forKey: sender)!
        guard senders.values[state].replay.accept(datagram.sequence) else {
            counters.droppedReplayed += 1
            return []
        }
        counters.datagramsAccepted += 1
        senders.values[state].lastHeard = now
        let actions = handle(datagram, from: sender, state: state, now: now)
        refreshStreamDeadline(of: sender, state: state)
        return finish(actions, now: now)
    }

    /// The datagram in `bytes` if it is this room's and, when the room has a key, sealed
    /// with it; otherwise nil, counted by why it was dropped.
    private mutating func open(_ bytes: [UInt8]) -> Datagram? {
        if DatagramSealer.isSealed(bytes) {
            guard let sealer else {
                counters.droppedUnexpectedlyAuthenticated += 1
                return nil
            }
            do {
                return try sealer.open(bytes, readsCompact: readsCompactHeaders)
            } catch {
                switch error.kind {
                case .otherRoom: counters.droppedOtherRoom += 1
                case .authenticationFailed: counters.droppedUnauthenticated += 1
                default: counters.droppedMalformed += 1
                }
                return nil
            }
        }
        let datagram: Datagram
        do {
            datagram = try Datagram(
                decoding: bytes, room: configuration.room, roomTag: roomTag, readsCompact: readsCompactHeaders)
        } catch {
            if error.kind == .otherRoom {
                counters.droppedOtherRoom += 1
            } else {
                counters.droppedMalformed += 1
            }
            return nil
        }
        guard datagram.room == configuration.room else {
            counters.droppedOtherRoom += 1
            return nil
        }
        // A room with a key takes sealed datagrams only: an earlier format, plain or with
        // only its HMAC tag, comes from a node of an earlier version or one without the key.
        guard key == nil else {
            counters.droppedOldFormat += 1
            return nil
        }
        do {
            try Datagram.authenticate(bytes, key: nil)
        } catch {
            counters.droppedUnexpectedlyAuthenticated += 1
            return nil
        }
        return datagram
    }

    /// Does what is due at `now`: beacons, failure detection, loss requests, reassembly
    /// timeouts.
    public mutating func tick(now: Duration) -> [ClusterAction] {
        guard phase == .running else { return [] }
        if let announced = announcedTick, announced <= now {
            announcedTick = nil
            // A late tick: this node did not run meanwhile, and what members sent may not
            // have been read yet. Under CPU starvation, members would otherwise seem to
            // leave and join again (re-elections, sessions announcing to newcomers).
            membership.excuse(now - announced)
        }
        var actions: [ClusterAction] = []
        if let beacon = nextBeacon, beacon <= now { actions.append(sendBeacon(now: now)) }
        let events = listeningPausedAt == nil ? membership.expire(now: now) : []
        actions += events.compactMap(Self.action(for:))
        if !events.isEmpty { actions += reviewMembers() }
        for sender in senders.keys.sorted() where senders[sender]!.stream != nil {
            // In place, as in `receive(_:from:now:)`.
            let ranges = senders[sender]!.stream!.dueRequests(now: now, configuration: configuration, random: &random)
            counters.reassembliesAbandoned += senders[sender]!.stream!.expireReassembly(
                now: now, timeout: configuration.reassemblyTimeout)
            counters.lossesGivenUp = counters.lossesGivenUp.saturatingAdd(senders[sender]!.stream!.takeGivenUp())
            actions += requests(for: ranges, of: sender, now: now)
        }
        forgetSilentSenders(now: now)
        refreshStreamDeadlines()
        return finish(actions, now: now)
    }

    // MARK: - Receiving

    /// `state`: the index of `sender`'s state in `senders`.
    private mutating func handle(
        _ datagram: Datagram, from sender: SenderKey, state: [SenderKey: SenderState].Index, now: Duration
    ) -> [ClusterAction] {
        var state = state
        if case .leave = datagram.body {
            let events = membership.leave(sender.nodeID, incarnation: sender.incarnation)
            return events.compactMap(Self.action(for:)) + (events.isEmpty ? [] : reviewMembers())
        }
        var beacon: Beacon?
        if case .beacon(let content) = datagram.body { beacon = content }
        let events = membership.heard(from: sender.nodeID, incarnation: sender.incarnation, beacon: beacon, now: now)
        var actions = events.compactMap(Self.action(for:))
        if !events.isEmpty { actions += reviewMembers() }
        if events.contains(.joined(sender.nodeID)) { hastenBeacon(now: now) }
        if events.contains(.left(sender.nodeID)) {
            // It restarted: its previous run will answer no request. (Keys gathered first,
            // so that the table is not copied while iterated; `state` found again all the
            // same: this is rare, and an index must never outlive a change of the table.)
            let previousRuns = senders.keys.filter { $0.nodeID == sender.nodeID && $0 != sender }
            for key in previousRuns {
                senders[key]!.stream = nil
                streamDeadlines[key] = nil
            }
            state = senders.index(forKey: sender)!
        }
        switch datagram.body {
        case .beacon(let beacon):
            if senders.values[state].stream == nil {
                senders.values[state].stream = InboundStream(after: beacon.highestDataSequence)
            } else {
                senders.values[state].stream!.learnHighest(
                    beacon.highestDataSequence, now: now, configuration: configuration, random: &random)
            }
        case .data(let fragment):
            // Most datagrams: nothing else to do but deliver (the delivery's array, not a second).
            let delivery = receive(fragment, from: sender, state: state, now: now)
            if actions.isEmpty { actions = delivery } else { actions += delivery }
        case .nack(let nack):
            actions += handle(nack, now: now)
        case .leave:
            break
        }
        if senders.values[state].stream != nil {
            counters.lossesGivenUp = counters.lossesGivenUp.saturatingAdd(senders.values[state].stream!.takeGivenUp())
        }
        return actions
    }

    private mutating func receive(
        _ fragment: DataFragment, from sender: SenderKey, state: [SenderKey: SenderState].Index, now: Duration
    ) -> [ClusterAction] {
        if senders.values[state].stream == nil {
            senders.values[state].stream = InboundStream(after: fragment.messageID - 1)
        }
        // In place: a copy taken out of `senders` would share the stream's sets and tables,
        // and the first change to them would copy them whole.
        let outcome = senders.values[state].stream!.receive(
            fragment, now: now, configuration: configuration, random: &random)
        switch outcome {
        case .duplicate:
            counters.duplicateFragments += 1
            return []
        case .inconsistent:
            counters.reassembliesAbandoned += 1
            return []
        case .accepted(payload: nil):
            limitReassemblyMemory()
            return []
        case .accepted(payload: let payload?):
            counters.payloadsDelivered += 1
            return [.deliver(payload: payload, from: sender.nodeID)]
        }
    }

    private mutating func handle(_ nack: Nack, now: Duration) -> [ClusterAction] {
        guard nack.target != nodeID else {
            guard nack.targetIncarnation == incarnation else {
                counters.repairsUnavailable = counters.repairsUnavailable.saturatingAdd(
                    nack.missing.reduce(0) {
                        $0.saturatingAdd(Int(clamping: $1.upperBound - $1.lowerBound).saturatingAdd(1))
                    })
                return []
            }
            // A budget for repairs: under overload many members lose datagrams at once, and
            // repairs multicast to everyone would cause more loss than they mend. Every
            // member receives every repair, so the cluster as a whole keeps to the budget.
            repairBudget.perSecond = max(
                Double(Self.minimumRepairsPerSecond),
                Double(configuration.maxRepairsPerSecond) / Double(membership.members.count + 1))
            let allowed = repairBudget.take(upTo: Int(clamping: nack.missing.reduce(UInt64(0)) { total, range in
                total &+ (range.upperBound - range.lowerBound) &+ 1 }), now: now)
            let plan = outbound.repairs(
                for: nack.missing, now: now, suppressionWindow: configuration.repairSuppressionWindow, limit: allowed)
            counters.repairsSuppressed += plan.suppressed
            counters.repairsThrottled = counters.repairsThrottled.saturatingAdd(plan.throttled)
            counters.repairsUnavailable = counters.repairsUnavailable.saturatingAdd(plan.unavailable)
            counters.repairsSent += plan.fragments.count
            return plan.fragments.map { emit(.data($0)) }
        }
        let target = SenderKey(nodeID: nack.target, incarnation: nack.targetIncarnation)
        // Found by index, not through `senders[target]?`: changing the table through its
        // subscript with a key it lacks may grow it (it expects an insertion), which would
        // leave the caller's index of the requester's state stale.
        if let index = senders.index(forKey: target),
            senders.values[index].stream?.heardRequest(for: nack.missing, now: now, configuration: configuration) == true
        {
            counters.nacksSuppressed += 1
        }
        return []
    }

    /// Starts remembering `sender`, forgetting its oldest incarnations beyond the limit.
    private mutating func remember(_ sender: SenderKey, now: Duration) {
        let others = senders.filter { $0.key.nodeID == sender.nodeID }
            .sorted { ($0.value.lastHeard, $0.key) < ($1.value.lastHeard, $1.key) }
        for old in others.prefix(max(0, others.count - Self.incarnationsPerSender + 1)) {
            senders[old.key] = nil
            streamDeadlines[old.key] = nil
        }
        senders[sender] = SenderState(lastHeard: now)
    }

    private mutating func forgetSilentSenders(now: Duration) {
        let silent = senders.filter { key, state in
            state.lastHeard + Self.forgetSendersAfter <= now
                && membership.members[key.nodeID]?.incarnation != key.incarnation
        }
        for key in silent.keys { senders[key] = nil }
    }

    /// Keeps the partial payloads of all senders within `reassemblyBufferBytes` by
    /// abandoning the oldest.
    private mutating func limitReassemblyMemory() {
        var total = senders.values.reduce(0) { $0 + ($1.stream?.partialBytes ?? 0) }
        while total > configuration.reassemblyBufferBytes {
            let oldest = senders.compactMap { key, state in state.stream?.oldestPartial.map { (key, $0) } }
                .min { ($0.1.started, $0.0, $0.1.messageID) < ($1.1.started, $1.0, $1.1.messageID) }
            guard let (sender, partial) = oldest else { return }
            total -= senders[sender]!.stream!.partial[partial.messageID]!.bytes
            senders[sender]!.stream!.abandon(partial.messageID)
            counters.reassembliesAbandoned += 1
            refreshStreamDeadline(of: sender)
        }
    }

    // MARK: - Sending

    /// The interval between this node's beacons: the configured one, stretched in a large
    /// group (`ClusterConfiguration.beaconsHeardPerSecond`), at most doubling from one beacon
    /// to the next, so that the next beacon always comes before the others, who time it by
    /// the interval the last one announced, count 3 missed.
    var beaconInterval: Duration {
        let members = Double(membership.members.count + 1)
        let target = max(configuration.beaconInterval, .seconds(members / configuration.beaconsHeardPerSecond))
        return min(target, (announcedBeaconInterval ?? configuration.beaconInterval) * 2)
    }

    /// Sends a beacon now and schedules the next one a little under an interval later.
    private mutating func sendBeacon(now: Duration) -> ClusterAction {
        let interval = beaconInterval
        announcedBeaconInterval = interval
        nextBeacon = now + interval * Double.random(in: 0.9...1, using: &random)
        let milliseconds = UInt32((interval / .milliseconds(1)).rounded())
        return emit(
            .beacon(
                Beacon(
                    capabilities: capabilities, intervalMilliseconds: max(1, milliseconds),
                    highestDataSequence: outbound.highestDataSequence, summary: summary)))
    }

    /// A new member should learn of this node soon, not a whole interval later; the random
    /// delay keeps many nodes that see it join from answering at once.
    private mutating func hastenBeacon(now: Duration) {
        let soon = now + beaconInterval * Double.random(in: 0...0.1, using: &random)
        if let next = nextBeacon, next <= soon { return }
        nextBeacon = soon
    }

    /// NACK datagrams for `ranges` of `sender`, as many as the ranges need and the NACK
    /// budget allows (`maxNacksPerSecond`).
    private mutating func requests(
        for ranges: [ClosedRange<UInt64>], of sender: SenderKey, now: Duration
    ) -> [ClusterAction] {
        guard !ranges.isEmpty else { return [] }
        let room =
            configuration.maxDatagramBytes - headerBytes - Datagram.nackOverhead - sender.nodeID.utf8.count - tagBytes
        let perDatagram = min(room / Datagram.nackRangeSize, Int(UInt16.max))
        var actions: [ClusterAction] = []
        var start = 0
        while start < ranges.count {
            guard nackBudget.take(upTo: 1, now: now) == 1 else {
                counters.nacksSuppressed += 1
                break
            }
            let end = min(start + perDatagram, ranges.count)
            let nack = Nack(
                target: sender.nodeID, targetIncarnation: sender.incarnation, missing: Array(ranges[start..<end]))
            actions.append(emit(.nack(nack)))
            counters.nacksSent += 1
            start = end
        }
        return actions
    }

    /// Whether this node reads compact datagrams (it announces so: a node standing in for
    /// the previous version does not).
    private var readsCompactHeaders: Bool { configuration.announcedCapabilities.contains(.compactHeaders) }

    /// A datagram of this node with the next sequence number, ready to multicast: compact
    /// while every member reads that (beacons never, so that every node hears them).
    private mutating func emit(_ body: Datagram.Body) -> ClusterAction {
        var compact = readsCompactHeaders && membersCapabilities.contains(.compactHeaders)
        if case .beacon = body { compact = false }
        let datagram = Datagram(
            room: configuration.room, sender: nodeID, incarnation: incarnation, sequence: outbound.takeSequence(),
            body: body, format: compact ? .compact : .standard)
        let inner = datagram.encodedUnchecked(key: nil, roomTag: roomTag)
        let bytes =
            sealer.map { $0.seal(inner, sender: nodeID, incarnation: incarnation, sequence: datagram.sequence) ?? [] } ?? inner
        counters.datagramsSent += 1
        counters.bytesSent += bytes.count
        return .multicast(bytes)
    }

    private var headerBytes: Int { Datagram.headerOverhead + configuration.room.utf8.count + nodeID.utf8.count }
    private var tagBytes: Int { key == nil ? 0 : DatagramSealer.overhead(senderBytes: nodeID.utf8.count) }
    private var chunkCapacity: Int {
        configuration.maxDatagramBytes - headerBytes - Datagram.dataOverhead - tagBytes
    }

    // MARK: - Election and timers

    /// After members joined, left or changed capabilities: the election, and what every
    /// member can read.
    private mutating func reviewMembers() -> [ClusterAction] {
        var actions = reelect()
        var common = Capabilities(rawValue: .max)
        for member in membership.members.values { common.formIntersection(member.capabilities) }
        if common != membersCapabilities {
            membersCapabilities = common
            actions.append(.membersCapabilities(common))
        }
        return actions
    }

    private mutating func reelect() -> [ClusterAction] {
        let candidates =
            [(nodeID: nodeID, capabilities: capabilities)]
            + membership.members.values.map { (nodeID: $0.nodeID, capabilities: $0.capabilities) }
        guard let change = election.reevaluate(candidates: candidates) else { return [] }
        return [.gatewayChanged(change)]
    }

    private static func action(for event: Membership.Event) -> ClusterAction? {
        switch event {
        case .joined(let nodeID): .memberJoined(nodeID)
        case .left(let nodeID): .memberLeft(nodeID)
        case .capabilitiesChanged: nil
        }
    }

    /// Notes the next deadline of `sender`'s stream (after a datagram from it); `state`, the
    /// index of its state in `senders`, when the caller has it.
    private mutating func refreshStreamDeadline(of sender: SenderKey, state: [SenderKey: SenderState].Index? = nil) {
        guard let state = state ?? senders.index(forKey: sender) else {
            streamDeadlines[sender] = nil
            return
        }
        let deadline = senders.values[state].stream?.nextDeadline(reassemblyTimeout: configuration.reassemblyTimeout)
        // Most datagrams leave no deadline where there was none: no table to touch.
        if deadline != nil || !streamDeadlines.isEmpty { streamDeadlines[sender] = deadline }
    }

    /// Notes the next deadline of every sender's stream (after a tick, or memory limits
    /// that touched other senders' streams).
    private mutating func refreshStreamDeadlines() {
        streamDeadlines = [:]
        for (key, state) in senders {
            if let deadline = state.stream?.nextDeadline(reassemblyTimeout: configuration.reassemblyTimeout) {
                streamDeadlines[key] = deadline
            }
        }
    }

    /// The least repair budget of one node, however large the cluster.
    static let minimumRepairsPerSecond = 20

    /// Appends a tick request when the next deadline differs from the one last requested.
    private mutating func finish(_ actions: [ClusterAction], now: Duration) -> [ClusterAction] {
        var next = nextBeacon
        if listeningPausedAt == nil, let expiry = membership.nextExpiry { next = min(next ?? expiry, expiry) }
        for deadline in streamDeadlines.values { next = min(next ?? deadline, deadline) }
        guard let next, next != announcedTick else { return actions }
        announcedTick = next
        return actions + [.scheduleTick(at: max(next, now))]
    }
}
