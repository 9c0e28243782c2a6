import CanvasNode
import LANCluster
import Logging

/// A room's LAN transport: the room's `ClusterDriver` (UDP multicast on the LAN) turned
/// into session inputs, and the session's sends into cluster payloads (DESIGN.md §5).
///
/// Every message goes to the whole cluster (the session's sync messages name their
/// addressee; the others use them to suppress their own answers). The cluster repairs
/// lost datagrams itself, so a send counts as accepted once handed to the driver; the
/// session's anti-entropy is the backstop. The cluster's members are the session's members
/// on this transport, named by node id. The link also reports whether this node has a
/// working XMPP session (so that the cluster elects a gateway) and which node the
/// cluster elected.
final class LANRoomLink: RoomTransport {
    static let transportID = TransportID("lan")
    /// The largest protocol message: one datagram's payload, so that an APPEND is split by
    /// offset rather than fragmented (the cluster fragments larger payloads if it must).
    static let maxMessageBytes = 1000

    let replica: RoomReplica
    let driver: ClusterDriver
    private let logger: Logger
    private let emit: (NodeEvent) -> Void
    private(set) var gateway: String?
    private var hasXMPPSession = false
    private var announcedRoot: String?

    init(replica: RoomReplica, driver: ClusterDriver, logger: Logger, emit: @escaping (NodeEvent) -> Void) {
        self.replica = replica
        self.driver = driver
        self.logger = logger
        self.emit = emit
        replica.attach(self, as: Self.transportID)
    }

    /// The driver is running: the cluster is the room's transport from now on.
    func started() {
        emit(.lanStarted(room: replica.name, transport: driver.transportDescription))
        // Only nodes like this one speak the cluster's datagrams: no legacy peers here.
        replica.handle(
            .transportUp(
                Self.transportID, maxMessageBytes: Self.maxMessageBytes, members: Set(driver.members.map(PeerID.init)),
                legacyPeers: false))
        updateCapabilities()
    }

    func handle(_ event: ClusterEvent) {
        switch event {
        case .deliver(let payload, let from):
            replica.handle(.received(payload, from: PeerID(from), via: Self.transportID))
        case .memberJoined(let node):
            replica.handle(.memberJoined(PeerID(node), via: Self.transportID))
        case .memberLeft(let node):
            replica.handle(.memberLeft(PeerID(node), via: Self.transportID))
        case .gatewayChanged(let node):
            gateway = node
            logger.info("LAN gateway", metadata: ["room": "\(replica.name)", "gateway": "\(node ?? "none")"])
            emit(.gateway(room: replica.name, node: node))
        }
    }

    /// The cluster's counters as an event (at shutdown, for operators and benchmarks).
    func reportCounters() {
        emit(.lanStats(room: replica.name, counters: driver.counters))
    }

    /// Whether this node is the cluster's gateway to the XMPP room.
    var isGateway: Bool { gateway == replica.session.nodeID }

    /// Tells the cluster whether this node can relay to XMPP (the election's input).
    func setXMPPSession(_ available: Bool) {
        guard available != hasXMPPSession else { return }
        hasXMPPSession = available
        updateCapabilities()
    }

    /// Keeps the summary in the beacons current (once the digest changed).
    func tick() {
        let root = replica.document.digest.rootHex
        if root != announcedRoot { updateCapabilities() }
    }

    private func updateCapabilities() {
        let root = replica.document.digest.rootHex
        announcedRoot = root
        driver.setCapabilities(hasXMPPSession: hasXMPPSession, summary: Array(root.utf8))
    }

    /// The cluster repairs lost datagrams itself: a send is accepted once handed over.
    func send(_ bytes: [UInt8], kind: MessageKind, to destination: Destination, id: SendID?) -> SendOutcome {
        driver.send(payload: bytes)
        return .accepted
    }
}
