import CoreMetrics

/// What the web server counts of its pages, as swift-metrics counters (exported on
/// `GET /metrics` through swift-prometheus).
struct WebCounters: Sendable {
    private let socketsOpened: Counter
    private let requestsRefused: Counter
    private let operationsPerformed: Counter
    private let updatesSent: Counter

    init(factory: any MetricsFactory) {
        socketsOpened = Counter(label: "canvas_page_sockets_opened_total", factory: factory)
        requestsRefused = Counter(label: "canvas_page_requests_refused_total", factory: factory)
        operationsPerformed = Counter(label: "canvas_page_operations_total", factory: factory)
        updatesSent = Counter(label: "canvas_page_updates_sent_total", factory: factory)
    }

    func opened() { socketsOpened.increment() }
    func refused(_ requests: Int) { if requests > 0 { requestsRefused.increment(by: requests) } }
    func performed(_ operations: Int) { operationsPerformed.increment(by: operations) }
    func sentUpdate() { updatesSent.increment() }
}
