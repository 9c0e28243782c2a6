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
    /// No later than when the next member leaves unless it is heard from (nil without
    /// members): when the member that expired first is heard, its expiry moves later and
    /// this stays until `expire(now:)` looks again, so that a datagram costs O(1), not a
    /// pass over the members (one per datagram when members take turns: the one heard
    /// longest ago is the next to send). A timer set by it may come early, never late.
    public private(set) var nextExpiry: Duration?
    /// The member whose expiry `nextExpiry` is; nil when that member was heard since, or
    /// without members.
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
        // One lookup by node id for a member already known (every datagram but the first).
        var index = members.index(forKey: nodeID)
        if let known = index, members.values[known].incarnation != incarnation {
            members.remove(at: known)
            index = nil
            events.append(.left(nodeID))
        }
        if index == nil {
            members[nodeID] = Member(
                nodeID: nodeID, incarnation: incarnation, capabilities: [], summary: [],
                beaconInterval: defaultBeaconInterval, lastHeard: now)
            index = members.index(forKey: nodeID)
            events.append(.joined(nodeID))
        }
        let member = index!
        if now >= members.values[member].lastHeard {
            members.values[member].lastHeard = now
            members.values[member].excused = .zero
        }
        if let beacon {
            let previous = members.values[member].capabilities
            members.values[member].capabilities = beacon.capabilities
            members.values[member].summary = beacon.summary
            members.values[member].beaconInterval = .milliseconds(Int(beacon.intervalMilliseconds))
            if previous != beacon.capabilities, !events.contains(.joined(nodeID)) {
                events.append(.capabilitiesChanged(nodeID))
            }
        }
        let expiry = expiry(of: members.values[member])
        if events.contains(.left(nodeID)) {
            refreshNextExpiry()  // it restarted: its earlier run's expiry is gone
        } else if let bound = nextExpiry, bound <= expiry {
            // The bound holds; if it was this member's expiry, which has moved later, it is
            // no longer exact (`expire(now:)` looks again when it is reached).
            if nextExpiring == nodeID { nextExpiring = nil }
        } else {
            // Earlier than the bound, which no other member's expiry precedes: the first.
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
        // Most calls find nobody to remove: the pass is skipped until the bound is reached.
        guard let bound = nextExpiry, bound <= now else { return [] }
        let silent = members.values.filter { expiry(of: $0) <= now }.map(\.nodeID).sorted()
        for nodeID in silent { members[nodeID] = nil }
        refreshNextExpiry()
        return silent.map { .left($0) }
    }

    private func expiry(of member: Member) -> Duration {
        member.lastHeard + member.excused + member.beaconInterval * missedBeaconsBeforeLeaving
    }
}
