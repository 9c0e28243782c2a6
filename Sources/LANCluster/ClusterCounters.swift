/// What a `ClusterNode` did and refused, for logs and metrics. Every datagram it receives
/// is counted once: as accepted, or under the reason it was dropped.
public struct ClusterCounters: Hashable, Sendable {
    /// Datagrams this node sent (beacons, data, requests, repairs, leave).
    public var datagramsSent = 0
    /// Their bytes (UDP payloads).
    public var bytesSent = 0
    /// Received datagrams that passed every check.
    public var datagramsAccepted = 0

    /// Dropped: not a valid datagram of this format and version.
    public var droppedMalformed = 0
    /// Dropped: for another room on the same LAN.
    public var droppedOtherRoom = 0
    /// Dropped: the room has a key, and the datagram does not open with it (spoofed,
    /// tampered, or sealed with another key).
    public var droppedUnauthenticated = 0
    /// Dropped: the room has a key, and the datagram is of an earlier format, not sealed
    /// (plain, or only authenticated: a node of an earlier version, or one without the key).
    public var droppedOldFormat = 0
    /// Dropped: sealed or authenticated, and this node has no key (its peers use one).
    public var droppedUnexpectedlyAuthenticated = 0
    /// Dropped: a sequence number seen before, or too old to tell (a replay).
    public var droppedReplayed = 0
    /// Dropped: this node's own datagram, looped back by multicast.
    public var droppedOwn = 0
    /// Dropped: this node's id with another incarnation (another node configured with the
    /// same id, or this node's previous run).
    public var droppedNodeIDConflict = 0

    /// Payloads delivered to the application.
    public var payloadsDelivered = 0
    /// Data fragments received again (repairs for others, duplicated datagrams).
    public var duplicateFragments = 0
    /// Requests (NACK datagrams) this node sent.
    public var nacksSent = 0
    /// Requests this node did not send because another member asked first.
    public var nacksSuppressed = 0
    /// Lost fragments this node stopped asking for (after `nackAttempts` rounds, or
    /// beyond `lossTrackingWindow`): the session's anti-entropy must recover them.
    public var lossesGivenUp = 0
    /// Fragments this node re-sent for others.
    public var repairsSent = 0
    /// Requests for fragments this node re-sent within the repair suppression window.
    public var repairsSuppressed = 0
    /// Requested fragments not re-sent because the repair budget (`maxRepairsPerSecond`)
    /// was spent.
    public var repairsThrottled = 0
    /// Requested fragments no longer (or never) in this node's retransmission buffer.
    public var repairsUnavailable = 0
    /// Partly received payloads dropped (timed out, over the buffer limit, or with
    /// inconsistent fragments).
    public var reassembliesAbandoned = 0

    /// All zero.
    public init() {}

    /// How many received datagrams were dropped, for any reason.
    public var datagramsDropped: Int {
        droppedMalformed + droppedOtherRoom + droppedUnauthenticated + droppedOldFormat + droppedUnexpectedlyAuthenticated
            + droppedReplayed + droppedOwn + droppedNodeIDConflict
    }
}
