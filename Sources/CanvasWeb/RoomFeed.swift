import CanvasCore
import CanvasRuntime

/// What a room's pages are sent as the room changes: the strokes that changed, gathered
/// over a frame (`flushDelay`) and fetched once for every page; the room's status when it
/// changes; the whole room to a page that opened or missed an update. One loop per room,
/// so that updates reach each page in the order the document went through them.
final class RoomFeed: Sendable {
    enum Input: Sendable {
        case changed([String])
        case opened(PageConnection)
        case closed(PageConnection)
        case flush
        case statusTick
    }

    /// How long changes are gathered before the pages are told (about a frame).
    static let flushDelay = Duration.milliseconds(16)

    let room: String
    private let rooms: [String]
    private let inputs: AsyncStream<Input>
    private let inbox: AsyncStream<Input>.Continuation
    private let counters: WebCounters

    init(room: String, rooms: [String], counters: WebCounters) {
        self.room = room
        self.rooms = rooms
        self.counters = counters
        (inputs, inbox) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
    }

    func send(_ input: Input) { inbox.yield(input) }

    func finish() { inbox.finish() }

    /// Runs until `finish()`.
    func run(node: Node) async {
        var pages: [ObjectIdentifier: PageConnection] = [:]
        var pending = Set<String>()
        var flushScheduled = false
        var lastStatus: [UInt8] = []
        for await input in inputs {
            switch input {
            case .changed(let strokes):
                guard !pages.isEmpty else { continue }
                pending.formUnion(strokes)
                if !flushScheduled {
                    flushScheduled = true
                    let inbox = self.inbox
                    Task {
                        try? await Task.sleep(for: Self.flushDelay)
                        inbox.yield(.flush)
                    }
                }
            case .flush:
                flushScheduled = false
                guard !pending.isEmpty, let document = try? await node.document(of: room) else { continue }
                let ids = pending.map(StrokeID.init).sorted()
                pending = []
                let update = PageMessages.strokes(ids, of: document, reset: false)
                for page in pages.values { page.deliver(update) }
                counters.sentUpdate()
            case .opened(let page):
                pages[ObjectIdentifier(page)] = page
                guard let document = try? await node.document(of: room), let status = try? await node.status() else { continue }
                page.send(PageMessages.hello(room: room, rooms: rooms, node: status.node))
                page.send(PageMessages.room(document))
                if let room = status.rooms.first(where: { $0.name == self.room }) { page.send(PageMessages.status(room)) }
            case .closed(let page):
                pages[ObjectIdentifier(page)] = nil
            case .statusTick:
                guard !pages.isEmpty, let status = try? await node.status(),
                    let room = status.rooms.first(where: { $0.name == self.room })
                else { continue }
                let message = PageMessages.status(room)
                let stale = pages.values.filter { $0.takeNeedsRoom() }
                if !stale.isEmpty, let document = try? await node.document(of: self.room) {
                    let whole = PageMessages.room(document)
                    for page in stale { page.send(whole) }
                }
                guard message != lastStatus else { continue }
                lastStatus = message
                for page in pages.values { page.deliver(message) }
            }
        }
    }
}
