public import CanvasStore
public import LANCluster

/// What a node runs: its rooms, its XMPP account, its LAN cluster, its store, its outputs.
public struct NodeConfiguration: Sendable {
    /// The LAN cluster: nearby nodes of the same room over UDP multicast (docs/lan.md).
    public struct LANSettings: Sendable {
        /// The interface, multicast group and port.
        public var socket: ClusterSocketConfiguration
        /// The room key: every datagram is authenticated with it. Without one the LAN is
        /// trusted.
        public var key: [UInt8]?
        /// How often members announce themselves (the failure detector waits 3 of them).
        public var beaconInterval: Duration = .milliseconds(500)
        /// Whether the node reads and sends compact payloads (PROTOCOL.md §15) and compact
        /// datagrams (docs/lan.md, format version 2). False makes it behave as a node of the
        /// previous version: it announces neither, sends JSON in version 1 datagrams only, and
        /// refuses compact and packed payloads and version 2 (tests of mixed clusters use it).
        public var compactPayloads = true
        /// At most this many sent fragments are kept to answer repair requests (nil: the
        /// cluster's default, `ClusterConfiguration.retransmissionBufferFragments`). The
        /// buffer fills up to this bound and its byte bound as the node sends, then stays.
        public var retransmissionBufferFragments: Int?

        /// LAN settings: by default the first interface with multicast, 239.255.77.77:47777,
        /// no key.
        public init(socket: ClusterSocketConfiguration = ClusterSocketConfiguration(), key: [UInt8]? = nil) {
            self.socket = socket
            self.key = key
        }
    }

    /// An XMPP account and how to reach its server.
    public struct XMPPAccount: Sendable {
        /// `user@domain` (or `user@domain/resource`).
        public var jid: String
        /// The account's password.
        public var password: String
        /// The server to connect to; by default the JID's domain.
        public var host: String?
        /// Several servers (the members of a cluster), each `HOST` or `HOST:PORT`, tried in
        /// turn: a failed or lost connection moves on to the next at once. Takes the place of
        /// `host` when not empty.
        public var hosts: [String] = []
        /// The servers' port where a host gives none; by default 5222 (5223 with direct TLS).
        public var port: Int?
        /// A PEM file of CAs to trust instead of the system's.
        public var caFile: String?
        /// TLS from the first byte (XEP-0368) instead of STARTTLS.
        public var directTLS = false
        /// Accept any certificate: for testing only.
        public var insecureSkipTLSVerify = false
        /// No TLS at all: for a local test server only.
        public var plaintextForTesting = false
        /// The nickname in every room; by default the node id.
        public var nickname: String?
        /// Whether operations travel compact among the room's Canvas nodes of this version
        /// (PROTOCOL.md §14.11); false stands in for the previous version (tests).
        public var compactPayloads = true

        /// The account `jid` with `password`, its server found from the JID's domain.
        public init(jid: String, password: String) {
            self.jid = jid
            self.password = password
        }
    }

    /// The rooms to join: XMPP room JIDs (`room@service`), or any name for a LAN-only node.
    public var rooms: [String]
    /// The XMPP account the rooms are joined with, if any.
    public var xmpp: XMPPAccount?
    /// The LAN cluster, if any: with `xmpp`, the elected gateway relays between the two.
    public var lan: LANSettings?
    /// Where the rooms' replicas are kept.
    public enum Storage: Sendable, Hashable {
        /// Durably, in this store folder (one folder per room inside; docs/store.md).
        case folder(String)
        /// In memory only: gone when the node stops (peers still hold what was sent).
        case memory
    }

    /// Where the rooms' replicas are kept.
    public var storage: Storage
    /// When a stored room's log is folded into its snapshot (with `.folder` storage).
    public var compaction = CompactionPolicy()
    /// Where to keep an SVG of the room (with several rooms, the room's name is put before
    /// the extension: `board.ROOM.svg`).
    public var exportPath: String?
    /// How often the SVG is rewritten when the room changed.
    public var exportInterval: Duration = .seconds(5)
    /// How long a graceful stop waits for the rooms to confirm what was sent (an XMPP room
    /// reflects each message) before leaving them; what is still unconfirmed then stays in
    /// the store and goes out after the next start.
    public var drainLimit: Duration = .seconds(10)
    /// Operations on strokes whose identifier starts with this are reported as `traced`
    /// events when applied, with the time: for measuring latency across nodes (nil: none,
    /// and tracing costs nothing).
    public var traceStrokePrefix: String?

    /// A node of `rooms`, keeping its replicas in `storage`; add a transport (`xmpp`,
    /// `lan`, or both).
    public init(rooms: [String], storage: Storage) {
        self.rooms = rooms
        self.storage = storage
    }
}
