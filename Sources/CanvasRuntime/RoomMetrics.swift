import CanvasNode
import CoreMetrics
import LANCluster

/// A room's metrics, through swift-metrics (`Node(…, metrics:)`; `canvas join --http`
/// exports them on `GET /metrics` in the Prometheus format, docs/operating.md lists them).
/// Every metric carries the room as a dimension; per-transport ones the transport too.
/// Counters kept elsewhere (the LAN cluster's, the session's anti-entropy statistics) are
/// carried over by their increase at each `sample`.
final class RoomMetrics {
    private let factory: any MetricsFactory
    private let room: String
    private var counters: [String: Counter] = [:]
    private var gauges: [String: Gauge] = [:]
    private let localWrite: Timer
    private var lastLAN = ClusterCounters()
    private var lastSync = SessionStatistics()

    init(room: String, factory: any MetricsFactory) {
        self.room = room
        self.factory = factory
        localWrite = Timer(label: "canvas_store_local_write_seconds", dimensions: [("room", room)], factory: factory)
    }

    private func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Counter {
        let key = label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        if let counter = counters[key] { return counter }
        let counter = Counter(label: label, dimensions: [("room", room)] + dimensions, factory: factory)
        counters[key] = counter
        return counter
    }

    private func gauge(_ label: String, _ dimensions: [(String, String)]) -> Gauge {
        let key = label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        if let gauge = gauges[key] { return gauge }
        let gauge = Gauge(label: label, dimensions: [("room", room)] + dimensions, factory: factory)
        gauges[key] = gauge
        return gauge
    }

    /// Operations that changed the replica, and their points, by where they came from
    /// (`local`, or the transport).
    func applied(operations: Int, points: Int, via transport: String) {
        counter("canvas_operations_applied_total", [("transport", transport)]).increment(by: operations)
        counter("canvas_points_applied_total", [("transport", transport)]).increment(by: points)
    }

    /// A message handed to a transport.
    func sent(bytes: Int, via transport: String) {
        counter("canvas_messages_sent_total", [("transport", transport)]).increment()
        counter("canvas_message_bytes_sent_total", [("transport", transport)]).increment(by: bytes)
    }

    /// Local operations made durable (written and fsync'd) in `nanoseconds`.
    func storedLocal(operations: Int, nanoseconds: Int64) {
        counter("canvas_store_writes_total", [("kind", "local")]).increment()
        counter("canvas_operations_sent_total").increment(by: operations)
        localWrite.recordNanoseconds(nanoseconds)
    }

    /// Operations from peers handed to the store (written in batches).
    func storedRemote(operations: Int) {
        counter("canvas_store_writes_total", [("kind", "remote")]).increment()
    }

    /// Something failed: `kind` is `rejected_message`, `store_local`, `store_remote`, `store_flush`.
    func error(_ kind: String) {
        counter("canvas_errors_total", [("kind", kind)]).increment()
    }

    /// Members and waiting operations of each transport, and what the LAN cluster and the
    /// anti-entropy counted since the last sample.
    func sample(transports: [TransportStatus], lan: ClusterCounters?, sync: SessionStatistics) {
        for transport in transports {
            let dimensions = [("transport", transport.transport.rawValue)]
            gauge("canvas_members", dimensions).record(transport.members.count)
            gauge("canvas_outbox_operations", dimensions).record(transport.unacceptedOperations)
            gauge("canvas_transport_up", dimensions).record(transport.isUp ? 1 : 0)
        }
        if let lan {
            let increases: [(String, Int)] = [
                ("canvas_lan_datagrams_sent_total", lan.datagramsSent - lastLAN.datagramsSent),
                ("canvas_lan_bytes_sent_total", lan.bytesSent - lastLAN.bytesSent),
                ("canvas_lan_datagrams_accepted_total", lan.datagramsAccepted - lastLAN.datagramsAccepted),
                ("canvas_lan_datagrams_dropped_total", lan.datagramsDropped - lastLAN.datagramsDropped),
                ("canvas_lan_nacks_sent_total", lan.nacksSent - lastLAN.nacksSent),
                ("canvas_lan_repairs_sent_total", lan.repairsSent - lastLAN.repairsSent),
                ("canvas_lan_losses_given_up_total", lan.lossesGivenUp - lastLAN.lossesGivenUp),
            ]
            carryOver(increases)
            lastLAN = lan
        }
        let syncIncreases: [(String, Int)] = [
            ("canvas_sync_messages_sent_total", sync.syncMessages - lastSync.syncMessages),
            ("canvas_sync_bytes_sent_total", sync.syncBytes - lastSync.syncBytes),
            ("canvas_sync_rounds_answered_total", sync.answers - lastSync.answers),
            ("canvas_sync_repair_messages_sent_total", sync.repairMessages - lastSync.repairMessages),
            ("canvas_sync_deferred_total", sync.deferred - lastSync.deferred),
        ]
        carryOver(syncIncreases)
        lastSync = sync
    }

    /// Adds what counters kept elsewhere grew by since the last sample.
    private func carryOver(_ increases: [(label: String, increase: Int)]) {
        for (label, increase) in increases where increase > 0 { counter(label).increment(by: increase) }
    }
}
