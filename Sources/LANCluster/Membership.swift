/// Who is in the room's cluster, learnt from the datagrams members send, with failure
/// detection: a member that sent nothing for `missedBeaconsBeforeLeaving` of its beacon
/// intervals has left. It never reads a clock: times are `Duration`s since the driver's
/// origin.
public struct Membership: Sendable {
    /// What this node knows of another member.
    public struct Member: Hashable, Sendable {
        /// The member's node id.
        public var nodeID: String
        /// The member's current incarnation.
        public var incarnation: UInt64
        /// What its last beacon announced; empty until a beacon arrives.
        public var capabilities: Capabilities
        /// The sync summary of its last beacon; empty until a beacon arrives.
        public var summary: [UInt8]
        /// Its beacon interval, as it announced it (this node's own until a beacon arrives).
        public var beaconInterval: Duration
        /// When this node last heard from it.
        public var lastHeard: Duration
        /// Time since `lastHeard` that does not count as its silence: this node did not
        /// listen then (see `Membership.excuse(_:)`).
        public var excused: Duration = .zero
    }

    /// A change of membership.
    public enum Event: Hashable, Sendable {
        /// A node joined.
        case joined(String)
        /// A node left (or restarted, before joining again with a new incarnation).
        case left(String)
        /// A member's capabilities changed.
        case capabilitiesChanged(String)
    }

    /// This node's id: never a member of its own view.
    public let selfID: String
    /// The beacon interval assumed for members not yet heard in a beacon.
    public let defaultBeaconInterval: Duration
    /// How many beacon intervals of silence make a member leave.
    public let missedBeaconsBeforeLeaving: Int
    /// The other members, by node id.
    public private(set) var members: [String: Member] = [:]
    /// When the next member leaves unless it is heard from, nil without members; kept up to
    /// date as members are heard (a datagram costs O(1), not a pass over the members).
    public private(set) var nextExpiry: Duration?
    /// The member whose expiry `nextExpiry` is.
    private var nextExpiring: String?

    /// An empty view.
    public init(selfID: String, defaultBeaconInterval: Duration, missedBeaconsBeforeLeaving: Int) {
        self.selfID = selfID
        self.defaultBeaconInterval = defaultBeaconInterval
        self.missedBeaconsBeforeLeaving = missedBeaconsBeforeLeaving
    }

    /// An authenticated datagram of this room arrived from `nodeID`, with `beacon` when it
    /// was a beacon.
    public mutating func heard(
        from nodeID: String, incarnation: UInt64, beacon: Beacon?, now: Duration
    ) -> [Event] {
        guard nodeID != selfID else { return [] }
        var events: [Event] = []
        if let known = members[nodeID], known.incarnation != incarnation {
            members[nodeID] = nil
            events.append(.left(nodeID))
        }
        if members[nodeID] == nil {
            members[nodeID] = Member(
                nodeID: nodeID, incarnation: incarnation, capabilities: [], summary: [],
                beaconInterval: defaultBeaconInterval, lastHeard: now)
            events.append(.joined(nodeID))
        }
        if now >= members[nodeID]!.lastHeard {
            members[nodeID]!.lastHeard = now
            members[nodeID]!.excused = .zero
        }
        if let beacon {
            let previous = members[nodeID]!.capabilities
            members[nodeID]!.capabilities = beacon.capabilities
            members[nodeID]!.summary = beacon.summary
            members[nodeID]!.beaconInterval = .milliseconds(Int(beacon.intervalMilliseconds))
            if previous != beacon.capabilities, !events.contains(.joined(nodeID)) {
                events.append(.capabilitiesChanged(nodeID))
            }
        }
        let expiry = expiry(of: members[nodeID]!)
        if nextExpiring == nodeID || events.contains(.left(nodeID)) {
            refreshNextExpiry()  // the earliest may have moved later: look again
        } else if nextExpiry.map({ expiry < $0 }) ?? true {
            nextExpiry = expiry
            nextExpiring = nodeID
        }
        return events
    }

    /// Finds the member that expires first.
    private mutating func refreshNextExpiry() {
        let earliest = members.values.min { expiry(of: $0) < expiry(of: $1) }
        nextExpiry = earliest.map(expiry(of:))
        nextExpiring = earliest?.nodeID
    }

    /// `nodeID` said it is leaving (with `incarnation`, so that a late goodbye of a
    /// previous run does not remove the restarted node).
    public mutating func leave(_ nodeID: String, incarnation: UInt64) -> [Event] {
        guard members[nodeID]?.incarnation == incarnation else { return [] }
        members[nodeID] = nil
        refreshNextExpiry()
        return [.left(nodeID)]
    }

    /// This node did not listen for `duration` (its process was starved of CPU and its timer
    /// came late, or its driver paused reading): what members sent meanwhile may still wait
    /// unread in the socket, so that time does not count as their silence. A member leaves
    /// after `missedBeaconsBeforeLeaving` intervals of silence while this node listened, so
    /// one that is really gone still leaves.
    public mutating func excuse(_ duration: Duration) {
        guard duration > .zero else { return }
        for nodeID in members.keys { members[nodeID]!.excused += duration }
        refreshNextExpiry()
    }

    /// Removes the members that have been silent too long by `now`, in node id order.
    public mutating func expire(now: Duration) -> [Event] {
        let silent = members.values.filter { expiry(of: $0) <= now }.map(\.nodeID).sorted()
        for nodeID in silent { members[nodeID] = nil }
        if !silent.isEmpty { refreshNextExpiry() }
        return silent.map { .left($0) }
    }

    private func expiry(of member: Member) -> Duration {
        member.lastHeard + member.excused + member.beaconInterval * missedBeaconsBeforeLeaving
    }
}
