import CanvasNode
import CanvasProtocol
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
    static let transportID = LANRoomLinkStateMachine.transportID

    let replica: RoomReplica
    let driver: ClusterDriver
    private let logger: Logger
    private let emit: (NodeEvent) -> Void
    private var machine: LANRoomLinkStateMachine
    /// Messages sent during the session's current step, packed at `flush()`.
    private var pending: [[UInt8]] = []

    init(
        replica: RoomReplica, driver: ClusterDriver, readsCompactPayloads: Bool = true, logger: Logger,
        emit: @escaping (NodeEvent) -> Void
    ) {
        self.replica = replica
        self.driver = driver
        self.logger = logger
        self.emit = emit
        machine = LANRoomLinkStateMachine(
            room: replica.name, nodeID: replica.session.nodeID, readsCompactPayloads: readsCompactPayloads)
        replica.attach(self, as: Self.transportID)
    }

    /// The driver is running: the cluster is the room's transport from now on.
    func started() {
        perform(machine.started(transport: driver.transportDescription, members: driver.members, root: root))
    }

    func handle(_ event: ClusterEvent) {
        perform(machine.handle(event))
    }

    /// The cluster's counters as an event (at shutdown, for operators and benchmarks).
    func reportCounters() {
        emit(.lanStats(room: replica.name, counters: driver.counters))
    }

    /// The node the cluster elected as its gateway to XMPP (nil: none).
    var gateway: String? { machine.gateway }

    /// Whether this node is the cluster's gateway to the XMPP room.
    var isGateway: Bool { machine.isGateway }

    /// Tells the cluster whether this node can relay to XMPP (the election's input).
    func setXMPPSession(_ available: Bool) {
        perform(machine.setXMPPSession(available, root: root))
    }

    /// Keeps the summary in the beacons current (once the digest changed).
    func tick() {
        perform(machine.tick(root: root))
    }

    /// The cluster repairs lost datagrams itself: a send is accepted once handed over.
    /// While every member reads packed payloads, sends wait for `flush()` (the end of the
    /// session's step) and go packed, as few payloads as the size limit allows.
    func send(_ bytes: [UInt8], kind: MessageKind, to destination: Destination, id: SendID?) -> SendOutcome {
        if machine.compactPayloads {
            pending.append(bytes)
        } else {
            driver.send(payload: bytes)
        }
        return .accepted
    }

    func flush() {
        guard !pending.isEmpty else { return }
        let messages = pending
        pending = []
        driver.send(payloads: PackedPayload.pack(messages, maxBytes: LANRoomLinkStateMachine.maxMessageBytes))
    }

    private var root: String { replica.document.digest.rootHex }

    private func perform(_ actions: [LANRoomLinkStateMachine.Action]) {
        for action in actions {
            switch action {
            case .session(let input):
                replica.handle(input)
            case .announce(let hasXMPPSession, let summary):
                driver.setCapabilities(hasXMPPSession: hasXMPPSession, summary: Array(summary.utf8))
            case .event(let event):
                if case .gateway(_, let node) = event {
                    logger.info("LAN gateway", metadata: ["room": "\(replica.name)", "gateway": "\(node ?? "none")"])
                }
                emit(event)
            }
        }
    }
}
