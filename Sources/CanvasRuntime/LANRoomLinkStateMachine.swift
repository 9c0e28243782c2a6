import CanvasNode
import CanvasProtocol
import LANCluster

/// The decisions of a room's LAN link, as a value (`LANRoomLink` carries them out):
/// cluster events become session inputs, the cluster's election is tracked, and the
/// capabilities this node announces in its beacons — whether it can relay to XMPP, and a
/// summary of its replica (the digest root) — are renewed whenever either changes.
struct LANRoomLinkStateMachine {
    static let transportID = TransportID("lan")
    /// The largest protocol message (`ClusterConfiguration.roomMessageBytes`).
    static let maxMessageBytes = ClusterConfiguration.roomMessageBytes

    /// What the link must do.
    enum Action {
        /// Hand this input to the room's session.
        case session(SessionInput)
        /// Announce these capabilities in the cluster's beacons.
        case announce(hasXMPPSession: Bool, summary: String)
        /// Report this event.
        case event(NodeEvent)
    }

    let room: String
    let nodeID: String
    /// The node the cluster elected as its gateway to XMPP (nil: none).
    private(set) var gateway: String?
    /// Whether this node reads compact payloads (false only to stand in for a node of the
    /// previous version, which refuses them as malformed).
    let readsCompactPayloads: Bool
    /// Whether every member reads compact payloads (PROTOCOL.md §15), this node included:
    /// then the session sends operations in binary form and the link packs what it sends
    /// in one go.
    private(set) var compactPayloads: Bool
    private var hasXMPPSession = false
    private var announcedRoot: String?

    init(room: String, nodeID: String, readsCompactPayloads: Bool = true) {
        self.room = room
        self.nodeID = nodeID
        self.readsCompactPayloads = readsCompactPayloads
        compactPayloads = readsCompactPayloads
    }

    /// Whether `payload` is compact or packed while this node stands in for the previous
    /// version, which cannot read either.
    private func isUnreadable(_ payload: [UInt8]) -> Bool {
        guard !readsCompactPayloads, let first = payload.first else { return false }
        return first == PackedPayload.marker || CompactOperationCoding.isCompact(firstByte: first)
    }

    /// Whether this node is the cluster's gateway to the XMPP room.
    var isGateway: Bool { gateway == nodeID }

    /// The cluster runs (`transport` describes it): it is the room's transport from now on,
    /// with these members, and the replica's digest root is `root`.
    mutating func started(transport: String, members: [String], root: String) -> [Action] {
        // Only nodes like this one speak the cluster's datagrams: no legacy peers here.
        let up = SessionInput.transportUp(
            Self.transportID, maxMessageBytes: Self.maxMessageBytes, members: Set(members.map(PeerID.init)), legacyPeers: false)
        return [
            .event(.lanStarted(room: room, transport: transport)), .session(up),
            .session(.compactOperations(compactPayloads, via: Self.transportID)), announce(root),
        ]
    }

    /// One event of the cluster.
    mutating func handle(_ event: ClusterEvent) -> [Action] {
        switch event {
        case .delivered(let deliveries):
            if deliveries.count == 1, let delivery = deliveries.first, !PackedPayload.isPacked(delivery.payload),
                !isUnreadable(delivery.payload)
            {
                return [.session(.received(delivery.payload, from: PeerID(delivery.from), via: Self.transportID))]
            }
            var actions: [Action] = []
            var messages: [(bytes: [UInt8], from: PeerID)] = []
            messages.reserveCapacity(deliveries.count)
            for delivery in deliveries {
                if isUnreadable(delivery.payload) {
                    // What a node of the previous version makes of it: not JSON.
                    let error = ProtocolError(.malformedJSON, path: "", "not a JSON message (a compact or packed payload)")
                    actions.append(.event(.rejected(room: room, member: delivery.from, via: Self.transportID.rawValue, error: "\(error)")))
                    continue
                }
                guard PackedPayload.isPacked(delivery.payload) else {
                    messages.append((delivery.payload, PeerID(delivery.from)))
                    continue
                }
                do {
                    for message in try PackedPayload.unpack(delivery.payload) { messages.append((message, PeerID(delivery.from))) }
                } catch {
                    actions.append(.event(.rejected(room: room, member: delivery.from, via: Self.transportID.rawValue, error: "\(error)")))
                }
            }
            if !messages.isEmpty { actions.append(.session(.receivedAll(messages, via: Self.transportID))) }
            return actions
        case .memberJoined(let node):
            return [.session(.memberJoined(PeerID(node), via: Self.transportID))]
        case .memberLeft(let node):
            return [.session(.memberLeft(PeerID(node), via: Self.transportID))]
        case .gatewayChanged(let node):
            gateway = node
            return [.event(.gateway(room: room, node: node))]
        case .membersCapabilities(let capabilities):
            let compact = readsCompactPayloads && capabilities.contains(.compactPayloads)
            guard compact != compactPayloads else { return [] }
            compactPayloads = compact
            return [.session(.compactOperations(compact, via: Self.transportID))]
        }
    }

    /// Whether this node can relay to XMPP (the election's input) changed, or not.
    mutating func setXMPPSession(_ available: Bool, root: String) -> [Action] {
        guard available != hasXMPPSession else { return [] }
        hasXMPPSession = available
        return [announce(root)]
    }

    /// The timer: the summary in the beacons follows the replica's digest root.
    mutating func tick(root: String) -> [Action] {
        root == announcedRoot ? [] : [announce(root)]
    }

    private mutating func announce(_ root: String) -> Action {
        announcedRoot = root
        return .announce(hasXMPPSession: hasXMPPSession, summary: root)
    }
}
