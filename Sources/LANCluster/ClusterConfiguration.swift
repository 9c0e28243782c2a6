/// How a `ClusterNode` behaves: its room, datagram size, timing and memory limits.
///
/// The defaults suit a LAN: 1 s beacons, a member leaves after 3 missed beacons,
/// datagrams of at most 1200 bytes (under a typical 1500-byte MTU with room to spare).
public struct ClusterConfiguration: Hashable, Sendable {
    /// The room: nodes only exchange datagrams with nodes of the same room (1...255 UTF-8 bytes).
    public var room: String
    /// The largest datagram this node sends, tag included. Payloads are split to fit.
    public var maxDatagramBytes = 1200
    /// The largest payload `ClusterNode.send(payload:now:)` accepts, which also bounds
    /// how much one payload can hold in a receiver's reassembly buffer.
    public var maxPayloadBytes = 1 << 20
    /// How often this node sends a beacon (a little earlier at random, so that nodes do not
    /// beacon in step).
    public var beaconInterval: Duration = .seconds(1)
    /// The most beacons a member hears a second from its group: in a group of more than
    /// `beaconsHeardPerSecond × beaconInterval` nodes, each stretches its interval to
    /// `members ÷ beaconsHeardPerSecond` (as RTCP scales its reports, RFC 3550 §6.2), so
    /// that a member's beacon work stays the same however large the group (at 25 a second
    /// and 0.5 s beacons: from 13 nodes on). Each beacon announces its interval, by which
    /// the others time its absence.
    public var beaconsHeardPerSecond = 25.0
    /// A member that sent nothing for this many of its beacon intervals has left.
    public var missedBeaconsBeforeLeaving = 3
    /// A newly noticed loss is requested after a random delay in `[nackDelay, 2 × nackDelay]`,
    /// so that the first of several receivers to ask suppresses the others.
    public var nackDelay: Duration = .milliseconds(10)
    /// How long to wait for a repair after a request before asking again; doubles with
    /// every attempt, up to `nackRetryMaximum`.
    public var nackRetryInterval: Duration = .milliseconds(100)
    /// The longest wait between two requests for the same loss.
    public var nackRetryMaximum: Duration = .seconds(2)
    /// How many rounds of requests a loss gets before this node gives up on it (the
    /// session's anti-entropy recovers it then).
    public var nackAttempts = 16
    /// A sender answers requests for the same fragment at most once in this window, because
    /// several receivers that lost it may ask at about the same time.
    public var repairSuppressionWindow: Duration = .milliseconds(30)
    /// How many sent data fragments this node keeps to answer requests.
    public var retransmissionBufferFragments = 4096
    /// How many bytes of sent data fragments this node keeps to answer requests.
    public var retransmissionBufferBytes = 8 << 20
    /// How long a partly received payload waits for its missing fragments.
    public var reassemblyTimeout: Duration = .seconds(30)
    /// How many bytes of partly received payloads this node keeps, from all senders.
    public var reassemblyBufferBytes = 16 << 20
    /// How far (in data sequence numbers) a receiver tracks losses behind a sender's newest
    /// fragment; older losses are given up.
    public var lossTrackingWindow = 8192
    /// At most this many NACK datagrams per second from this node (a burst of one second's
    /// worth is allowed). Past it, requests wait for their next retry: when many nodes lose
    /// datagrams at once, NACKs multicast to everyone would otherwise cause more loss than
    /// they repair. Anti-entropy is the backstop.
    public var maxNacksPerSecond = 200
    /// At most this many repaired fragments per second from the whole cluster: each
    /// member takes its share (this divided by the members, at least 20), with a burst of
    /// one second's worth. An overloaded cluster, whose members all lose datagrams, must
    /// not multiply its traffic with repairs, which every member receives. Requests past
    /// the budget are asked again later; anti-entropy is the backstop.
    public var maxRepairsPerSecond = 800
    /// Capabilities this node announces in every beacon, besides `hasXMPPSession` (which
    /// follows `ClusterNode.setCapabilities`): what the room's protocol lets it read.
    public var announcedCapabilities: Capabilities = []

    /// The defaults, for `room`.
    public init(room: String) {
        self.room = room
    }

    /// Throws the first value outside its range, naming it.
    func validate() throws(ClusterError) {
        func require(_ condition: Bool, _ detail: @autoclosure () -> String) throws(ClusterError) {
            guard condition else { throw ClusterError(.invalidConfiguration, detail()) }
        }
        let roomBytes = room.utf8.count
        try require((1...255).contains(roomBytes), "room of \(roomBytes) UTF-8 bytes; expected 1...255")
        try require(
            (Self.minimumDatagramBytes...Datagram.maximumSize).contains(maxDatagramBytes),
            "maxDatagramBytes \(maxDatagramBytes); expected \(Self.minimumDatagramBytes)...\(Datagram.maximumSize)")
        try require(maxPayloadBytes >= 0, "maxPayloadBytes \(maxPayloadBytes); expected 0 or more")
        let milliseconds = beaconInterval / .milliseconds(1)
        try require(
            milliseconds >= 1 && milliseconds <= Double(Beacon.maximumIntervalMilliseconds),
            "beaconInterval \(beaconInterval); expected 1 ms ... 1 hour")
        try require(
            beaconsHeardPerSecond > 0,
            "beaconsHeardPerSecond \(beaconsHeardPerSecond); expected more than 0")
        try require(
            missedBeaconsBeforeLeaving >= 1,
            "missedBeaconsBeforeLeaving \(missedBeaconsBeforeLeaving); expected 1 or more")
        try require(nackDelay >= .zero, "nackDelay \(nackDelay); expected zero or more")
        try require(nackRetryInterval > .zero, "nackRetryInterval \(nackRetryInterval); expected more than zero")
        try require(
            nackRetryMaximum >= nackRetryInterval,
            "nackRetryMaximum \(nackRetryMaximum); expected at least nackRetryInterval (\(nackRetryInterval))")
        try require(nackAttempts >= 1, "nackAttempts \(nackAttempts); expected 1 or more")
        try require(maxNacksPerSecond >= 1, "maxNacksPerSecond \(maxNacksPerSecond); expected 1 or more")
        try require(maxRepairsPerSecond >= 1, "maxRepairsPerSecond \(maxRepairsPerSecond); expected 1 or more")
        try require(
            repairSuppressionWindow >= .zero,
            "repairSuppressionWindow \(repairSuppressionWindow); expected zero or more")
        try require(
            retransmissionBufferFragments >= 1,
            "retransmissionBufferFragments \(retransmissionBufferFragments); expected 1 or more")
        try require(
            retransmissionBufferBytes >= 1, "retransmissionBufferBytes \(retransmissionBufferBytes); expected 1 or more"
        )
        try require(reassemblyTimeout > .zero, "reassemblyTimeout \(reassemblyTimeout); expected more than zero")
        try require(reassemblyBufferBytes >= 1, "reassemblyBufferBytes \(reassemblyBufferBytes); expected 1 or more")
        try require(lossTrackingWindow >= 1, "lossTrackingWindow \(lossTrackingWindow); expected 1 or more")
    }

    /// Enough for the longest header (two 255-byte names), a tag and a useful chunk.
    static let minimumDatagramBytes = 1024

    /// The largest protocol message (or packed payload of several) a room hands its
    /// cluster: one datagram's payload at the default datagram size, so that an APPEND is
    /// split by offset rather than fragmented (larger payloads are fragmented if they must).
    public static let roomMessageBytes = 1000
}
