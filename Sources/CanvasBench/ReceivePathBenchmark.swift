import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasStore
public import Foundation
import LANCluster

/// One node's receive path, in one process and on one thread: the LAN datagrams of a
/// group of members whose authors draw as in the end-to-end 1000-user test, opened by the
/// node's cluster, their packed messages unpacked, applied by its session and stored (with
/// the fsyncs of remote batches, when a store folder is given).
///
/// It measures what a received point costs a node in its own code, with warm caches and
/// no kernel, no event loop and no other process: the floor under the end-to-end figure,
/// and the figure that changes to the node's code move (the end-to-end run also pays for
/// its system calls, its wake-ups and sharing two cores with 49 other nodes).
///
/// The traffic is made by the same code as a real cluster's: each member's session turns
/// its authors' operations into messages, packed as the LAN link packs them and cut into
/// datagrams by the member's `ClusterNode`, after the members have heard each other's
/// beacons (so headers are compact, as between nodes of this version).
public struct ReceivePathBenchmark {
    /// Authors drawing, spread over the members.
    public var authors: Int
    /// Members sending (the receiving node is one more).
    public var members: Int
    /// Seconds of drawing.
    public var seconds: Int
    /// Points each author draws a second.
    public var pointsPerSecond: Int
    /// Where the receiving node's store goes (a new room in this folder); nil: no store.
    public var storeDirectory: URL?

    public init(authors: Int = 1000, members: Int = 24, seconds: Int = 20, pointsPerSecond: Int = 15, storeDirectory: URL? = nil) {
        self.authors = authors
        self.members = members
        self.seconds = seconds
        self.pointsPerSecond = pointsPerSecond
        self.storeDirectory = storeDirectory
    }

    /// The datagrams of a run, in the order they were sent, with when.
    public struct Traffic: Sendable {
        public var datagrams: [(time: Duration, bytes: [UInt8])]
        /// The members' first beacons, which the receiving node hears before the data.
        public var beacons: [[UInt8]]
        public var points: Int
        public var operations: Int
    }

    /// What a run measured.
    public struct Result: Sendable {
        public var datagrams: Int
        public var operations: Int
        public var points: Int
        /// Points the receiving node holds at the end (all of them, or the run is wrong).
        public var pointsHeld: Int
        /// CPU seconds of the receiving thread (`CLOCK_THREAD_CPUTIME_ID`).
        public var cpuSeconds: Double
        public var microsecondsPerPoint: Double { cpuSeconds * 1e6 / Double(max(1, points)) }
        public var microsecondsPerDatagram: Double { cpuSeconds * 1e6 / Double(max(1, datagrams)) }
    }

    static let room = "bench"
    static let transport = TransportID("lan")
    /// What the LAN link gives its session as the largest message, and packs payloads to.
    static let maxMessageBytes = ClusterConfiguration.roomMessageBytes

    /// The members' traffic: every author's operations (`AuthorLoad`), each sent by its
    /// member's session and cluster as the member's node sends them.
    public func traffic() throws -> Traffic {
        let load = AuthorLoad(authors: authors, pointsPerSecond: pointsPerSecond, seconds: seconds)
        var clusters: [ClusterNode] = []
        var sessions: [RoomSession] = []
        var beacons: [[UInt8]] = []
        let names = (0..<members).map(Self.memberID)
        for name in names {
            var cluster = try ClusterNode(configuration: Self.clusterConfiguration, nodeID: name, incarnation: 1, key: nil)
            beacons += cluster.start(now: .zero).compactMap(\.multicastBytes)
            clusters.append(cluster)
            var session = RoomSession(configuration: SessionConfiguration(nodeID: name, seed: 1))
            let others = Set((names + [ReceivePathBenchmark.receiverID]).filter { $0 != name }.map(PeerID.init))
            _ = session.handle(
                .transportUp(Self.transport, maxMessageBytes: Self.maxMessageBytes, members: others, legacyPeers: false), at: .zero)
            _ = session.handle(.compactOperations(true, via: Self.transport), at: .zero)
            sessions.append(session)
        }
        // Every member hears every other's beacon (and the receiver's, made the same way),
        // so that each writes compact headers.
        var receiver = try Self.makeReceiver()
        let receiverBeacons = receiver.start(now: .zero).compactMap(\.multicastBytes)
        for index in clusters.indices {
            for beacon in beacons + receiverBeacons { _ = clusters[index].receive(bytes: beacon, now: .zero) }
        }
        var traffic = Traffic(datagrams: [], beacons: beacons, points: 0, operations: 0)
        for emit in load.emits() {
            let member = emit.author % members
            let now = Duration.seconds(emit.time)
            guard case .operation(let operation) = try MessageDecoder.decode(emit.line) else { continue }
            var messages: [[UInt8]] = []
            for action in sessions[member].handle(.local([operation]), at: now) {
                if case .send(let bytes, _, _, _, _) = action { messages.append(bytes) }
            }
            for payload in PackedPayload.pack(messages, maxBytes: Self.maxMessageBytes) {
                for action in try clusters[member].send(payload: payload, now: now) {
                    if let bytes = action.multicastBytes { traffic.datagrams.append((now, bytes)) }
                }
            }
            traffic.points += emit.points
            traffic.operations += 1
        }
        return traffic
    }

    /// Node ids as a store makes them (`NodeIdentity`): 32 lowercase hexadecimal digits,
    /// which a datagram carries as 16 bytes.
    static let receiverID = String(repeating: "f", count: 32)
    static func memberID(_ index: Int) -> String {
        let hex = String(index + 1, radix: 16)
        return String(repeating: "0", count: 32 - hex.count) + hex
    }

    static func makeReceiver() throws -> ClusterNode {
        try ClusterNode(configuration: clusterConfiguration, nodeID: receiverID, incarnation: 1, key: nil)
    }

    /// What a node's cluster is configured with (`NodeLoop`): the compact formats announced,
    /// so that members that hear each other write compact headers.
    static var clusterConfiguration: ClusterConfiguration {
        var configuration = ClusterConfiguration(room: room)
        configuration.announcedCapabilities = .compactFormats
        return configuration
    }

    /// Receives `traffic` on a new node and measures the thread's CPU time doing it.
    public func run(_ traffic: Traffic) throws -> Result {
        var cluster = try Self.makeReceiver()
        _ = cluster.start(now: .zero)
        for beacon in traffic.beacons { _ = cluster.receive(bytes: beacon, now: .zero) }
        var session = RoomSession(configuration: SessionConfiguration(nodeID: Self.receiverID, seed: 2))
        let members = Set((0..<self.members).map { PeerID(Self.memberID($0)) })
        _ = session.handle(
            .transportUp(Self.transport, maxMessageBytes: Self.maxMessageBytes, members: members, legacyPeers: false), at: .zero)
        _ = session.handle(.compactOperations(true, via: Self.transport), at: .zero)
        var stored: StoredReplica?
        var folder: URL?
        if let storeDirectory {
            let directory = storeDirectory.appendingPathComponent("receive-path-\(UUID().uuidString)")
            folder = directory
            stored = StoredReplica(store: try RoomStore.open(directory: directory, room: Self.room).store)
        }
        defer {
            try? stored?.close()
            if let folder { try? FileManager.default.removeItem(at: folder) }
        }
        let start = Self.threadCPUSeconds()
        for (now, bytes) in traffic.datagrams {
            var messages: [(bytes: [UInt8], from: PeerID)] = []
            for action in cluster.receive(bytes: bytes, now: now) {
                guard case .deliver(let payload, let from) = action else { continue }
                let peer = PeerID(from)
                if PackedPayload.isPacked(payload) {
                    for message in try PackedPayload.unpack(payload) { messages.append((message, peer)) }
                } else {
                    messages.append((payload, peer))
                }
            }
            guard !messages.isEmpty else { continue }
            for action in session.handle(.receivedAll(messages, via: Self.transport), at: now) {
                if case .persistRemote(let operations, let compactForms) = action {
                    try stored?.persistRemote(operations, compactForms: compactForms, of: session.replica, now: now)
                }
            }
        }
        try stored?.flushIfDue(now: .seconds(Int64.max / 2), of: session.replica)
        let cpu = Self.threadCPUSeconds() - start
        return Result(
            datagrams: traffic.datagrams.count, operations: traffic.operations, points: traffic.points,
            pointsHeld: session.document.drawablePointCount, cpuSeconds: cpu)
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension ClusterAction {
    /// The datagram a `.multicast` action sends.
    fileprivate var multicastBytes: [UInt8]? {
        if case .multicast(let bytes) = self { return bytes }
        return nil
    }
}
