import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasTestSupport

/// A deterministic discrete-event network of room sessions sharing one room (transport
/// "net"): per-link latency and jitter (hence reordering), loss, duplication, partitions,
/// disconnections (the session survives), crashes (the session is lost, its persisted
/// operations kept) and restarts. Every random choice comes from one seeded generator.
struct SimulatedNetwork {
    struct Parameters {
        var latency: Duration = .milliseconds(20)
        var jitter: Duration = .milliseconds(60)
        var loss = 0.05
        var duplication = 0.02
        var maxMessageBytes = 1200
        /// A tenth of the default, to stress anti-entropy; so the rate at which summaries
        /// stretch while members draw is ten times the default too.
        var announceInterval: Duration = .seconds(1)
        var summariesPerSecondWhileDrawing: Double? = 10
        var suppression: SessionConfiguration.Suppression = .randomDelay(base: .milliseconds(100), perMember: .milliseconds(30))
        var legacyGrace: Duration? = .seconds(2)
        /// Whether the room may hold legacy peers (an XMPP room), or not (a LAN cluster).
        var legacyPeers = true
        /// Whether anti-entropy's search is unlimited while members draw (no `SyncBudget`).
        var unlimitedSyncWhileDrawing = false
    }

    enum Kind {
        case session
        /// Speaks only ADD/APPEND (without offset)/DELETE and MEGA on join; its links are
        /// lossless and in order.
        case legacy
    }

    struct Node {
        var kind: Kind
        var session: RoomSession?
        var legacyDocument = Document()
        /// What the node made durable: its store, which survives a crash.
        var persisted: [Operation] = []
        /// Connected to the room (a crashed node is not).
        var isUp = false
        var timerAt: Duration?
        /// Incremented at each restart: timers of a previous life are ignored.
        var epoch = 0
        var rejected = 0
        var strokes = 0

        var document: Document {
            session?.document ?? legacyDocument
        }
    }

    enum Event {
        case deliver([UInt8], from: Int, to: Int)
        case accepted(SendID, node: Int, epoch: Int)
        case timer(node: Int, epoch: Int)
    }

    static let transport = TransportID("net")

    let parameters: Parameters
    var rng: SplitMix64
    var now: Duration = .zero
    var nodes: [Node] = []
    /// Partition group of each node; messages cross only within a group.
    var group: [Int]
    private var queue = EventQueue()
    /// Every operation any node authored.
    var created: [Operation] = []
    /// Counts of messages and bytes delivered to the network, by `type`.
    var sentMessages: [String: Int] = [:]
    /// Counts of the messages sessions sent, by what they carry.
    var sentKinds: [MessageKind: Int] = [:]
    /// MEGA messages sessions sent as operations: shapes where the original app reads
    /// (`ShapeBodies`), not catch-ups.
    var shapeMegas = 0
    /// With `shapes`: a new stroke is a shape (`is_shape`) a third of the time, and half of
    /// those come as an ADD alone, their points with a later edit (as an embedder streaming
    /// a shape does). Off by default, so that other tests keep their random schedules.
    var shapes = false
    var sentBytes: [String: Int] = [:]
    /// The largest message sent by a session (the test's own MEGA aside).
    var largestMessage = 0
    /// With `sniff`: SYNC_SUMMARY sends per node, and BUCKETS answers per (requester, summary index).
    var sniff = false
    var summariesSent: [String: Int] = [:]
    var answersPerSummary: [String: Int] = [:]
    /// How long after healing the replicas took to converge (set by the scenarios).
    var settledAfter: Duration = .zero

    init(nodeCount: Int, kinds: [Int: Kind] = [:], parameters: Parameters = Parameters(), seed: UInt64) {
        self.parameters = parameters
        rng = SplitMix64(seed: seed)
        group = Array(repeating: 0, count: nodeCount)
        for index in 0..<nodeCount {
            nodes.append(Node(kind: kinds[index] ?? .session))
        }
    }

    static func peer(_ index: Int) -> PeerID { PeerID("n\(index)") }

    func configuration(of index: Int) -> SessionConfiguration {
        var configuration = SessionConfiguration(nodeID: "n\(index)", seed: UInt64(index) &* 7919 &+ UInt64(nodes[index].epoch))
        configuration.announceInterval = parameters.announceInterval
        configuration.suppression = parameters.suppression
        configuration.legacyGrace = parameters.legacyGrace
        configuration.summariesPerSecondWhileDrawing = parameters.summariesPerSecondWhileDrawing
        if parameters.unlimitedSyncWhileDrawing { configuration.syncBytesPerSecondWhileDrawing = nil }
        return configuration
    }

    // MARK: - Membership

    /// Starts (or restarts after a crash) a node: a session restored from its persisted
    /// operations joins the room.
    mutating func start(_ index: Int) {
        guard !nodes[index].isUp else { return }
        nodes[index].epoch += 1
        nodes[index].isUp = true
        let members = Set(nodes.indices.filter { $0 != index && nodes[$0].isUp }.map(Self.peer))
        if nodes[index].kind == .session {
            if nodes[index].session == nil {
                nodes[index].session = RoomSession(
                    configuration: configuration(of: index), restoring: nodes[index].persisted)
            }
            input(
                .transportUp(
                    Self.transport, maxMessageBytes: parameters.maxMessageBytes, members: members,
                    legacyPeers: parameters.legacyPeers),
                to: index)
        } else {
            sendLegacyMega(from: index)
        }
        for other in nodes.indices where other != index && nodes[other].isUp {
            input(.memberJoined(Self.peer(index), via: Self.transport), to: other)
        }
    }

    /// Disconnects a node; with `crash`, its session (memory) is lost too.
    mutating func stop(_ index: Int, crash: Bool) {
        guard nodes[index].isUp else { return }
        nodes[index].isUp = false
        nodes[index].timerAt = nil
        if crash {
            nodes[index].session = nil
            nodes[index].epoch += 1
        } else {
            input(.transportDown(Self.transport), to: index)
        }
        for other in nodes.indices where other != index && nodes[other].isUp {
            input(.memberLeft(Self.peer(index), via: Self.transport), to: other)
        }
    }

    // MARK: - Inputs and actions

    /// Feeds an input to a node's session and performs the actions it returns.
    mutating func input(_ input: SessionInput, to index: Int) {
        guard nodes[index].session != nil else { return }
        let actions = nodes[index].session!.handle(input, at: now)
        perform(actions, of: index)
    }

    private mutating func perform(_ actions: [SessionAction], of index: Int) {
        for action in actions {
            switch action {
            case .send(let bytes, let kind, let destination, _, let id):
                sentKinds[kind, default: 0] += 1
                if kind == .operations, Self.type(of: bytes) == "MEGA" { shapeMegas += 1 }
                send(bytes, from: index, to: destination)
                if let id {
                    queue.push(at: now, .accepted(id, node: index, epoch: nodes[index].epoch))
                }
            case .persistLocal(let operations):
                nodes[index].persisted += operations
            case .persistRemote(let operations, _):
                nodes[index].persisted += operations
            case .event(let event):
                if case .rejected = event { nodes[index].rejected += 1 }
            case .scheduleTimer(let at):
                nodes[index].timerAt = at
                queue.push(at: max(at, now), .timer(node: index, epoch: nodes[index].epoch))
            }
        }
    }

    /// Puts a message on the links from `from` to its destination(s).
    mutating func send(_ bytes: [UInt8], from: Int, to destination: Destination) {
        guard nodes[from].isUp else { return }
        let type = Self.type(of: bytes)
        sentMessages[type, default: 0] += 1
        sentBytes[type, default: 0] += bytes.count
        if type != "MEGA" { largestMessage = max(largestMessage, bytes.count) }
        if sniff { observe(bytes, type: type, from: from) }
        let targets: [Int]
        switch destination {
        case .room: targets = nodes.indices.filter { $0 != from }
        case .peer(let peer): targets = nodes.indices.filter { Self.peer($0) == peer }
        }
        for target in targets where nodes[target].isUp && group[target] == group[from] {
            if nodes[from].kind == .legacy || nodes[target].kind == .legacy {
                // In order and lossless: a fixed latency keeps the sending order.
                queue.push(at: now + parameters.latency, .deliver(bytes, from: from, to: target))
                continue
            }
            guard !rng.chance(parameters.loss) else { continue }
            let copies = rng.chance(parameters.duplication) ? 2 : 1
            for _ in 0..<copies {
                let delay = parameters.latency + parameters.jitter * Double.random(in: 0..<1, using: &rng)
                queue.push(at: now + delay, .deliver(bytes, from: from, to: target))
            }
        }
    }

    /// Runs events until `time` (scheduled events at exactly `time` included).
    mutating func run(until time: Duration) {
        while let next = queue.peekTime, next <= time {
            let (at, event) = queue.pop()!
            now = at
            switch event {
            case .deliver(let bytes, let from, let to):
                guard nodes[to].isUp else { continue }
                if nodes[to].kind == .legacy {
                    if case .operation(let operation)? = try? MessageDecoder.decode(bytes) {
                        nodes[to].legacyDocument.apply(operation)
                    } else if case .mega(let operations)? = try? MessageDecoder.decode(bytes) {
                        for operation in operations { nodes[to].legacyDocument.apply(operation) }
                    }
                } else {
                    input(.received(bytes, from: Self.peer(from), via: Self.transport), to: to)
                }
            case .accepted(let id, let index, let epoch):
                guard nodes[index].epoch == epoch, nodes[index].isUp else { continue }
                input(.accepted(id, via: Self.transport), to: index)
            case .timer(let index, let epoch):
                guard nodes[index].epoch == epoch, nodes[index].isUp, let at = nodes[index].timerAt, at <= now else { continue }
                nodes[index].timerAt = nil
                input(.timer, to: index)
            }
        }
        now = time
    }

    // MARK: - Authoring

    /// Node `index` authors operations (as its user would).
    mutating func author(_ operations: [Operation], at index: Int) {
        created.append(contentsOf: operations)
        switch nodes[index].kind {
        case .session:
            input(.local(operations), to: index)
        case .legacy:
            for operation in operations {
                nodes[index].legacyDocument.apply(operation)
                var wire = operation
                if case .append(let id, let points, _) = operation {
                    wire = .append(id, points: points, offset: nil)
                }
                send(MessageEncoder.encode(wire), from: index, to: .room)
            }
        }
    }

    /// A random edit by node `index`: a new stroke, more points on one of its strokes, or
    /// an erasure of any stroke it knows.
    mutating func randomEdit(at index: Int) {
        let document = nodes[index].document
        let own = document.strokes.filter { $0.id.rawValue.hasPrefix("n\(index)_") && !$0.isPlaceholder }
        let roll = Double.random(in: 0..<1, using: &rng)
        if roll < 0.45 || own.isEmpty {
            nodes[index].strokes += 1
            let id = StrokeID("n\(index)_e\(nodes[index].epoch)_\(nodes[index].strokes)")
            var header = StrokeHeader(
                weight: Double(Int.random(in: 1...8, using: &rng)),
                colour: Colour(red: UInt8.random(in: 0...255, using: &rng), green: 0, blue: 9), start: randomPoint())
            let points = (0..<Int.random(in: 1...40, using: &rng)).map { _ in randomPoint() }
            if shapes, rng.chance(1.0 / 3) {
                header.isShape = true
                if rng.chance(0.5) {
                    author([.add(id, header)], at: index)
                    return
                }
            }
            author([.add(id, header), .append(id, points: points, offset: 1)], at: index)
        } else if roll < 0.8 {
            let stroke = own[Int.random(in: 0..<own.count, using: &rng)]
            let points = (0..<Int.random(in: 1...30, using: &rng)).map { _ in randomPoint() }
            let offset = stroke.points.count + (stroke.pending.last.map { $0.end - stroke.points.count } ?? 0)
            author([.append(stroke.id, points: points, offset: max(offset, 1))], at: index)
        } else {
            let strokes = document.strokes.filter { !$0.isPlaceholder }
            guard !strokes.isEmpty else { return }
            let stroke = strokes[Int.random(in: 0..<strokes.count, using: &rng)]
            // The original app erases within its points: its MEGA could not carry more (PROTOCOL.md §3.5).
            let end = Double(stroke.points.count - (nodes[index].kind == .legacy ? 1 : 0))
            let a = Double.random(in: 0...end, using: &rng)
            let b = Double.random(in: 0...end, using: &rng)
            if rng.chance(0.1) {
                author([.removeStroke(stroke.id)], at: index)
            } else if min(a, b) < max(a, b) {
                author([.delete(stroke.id, start: min(a, b), end: max(a, b))], at: index)
            }
        }
    }

    private mutating func randomPoint() -> Point {
        Point(x: Double(Int.random(in: 0...20000, using: &rng)) / 10, y: Double(Int.random(in: 0...20000, using: &rng)) / 10)
    }

    // MARK: - Legacy peers

    /// The original app's MEGA: its whole state, sent on join.
    private mutating func sendLegacyMega(from index: Int) {
        let strokes = nodes[index].legacyDocument.sortedStrokes.filter { !$0.isPlaceholder }
        guard !strokes.isEmpty else { return }
        var text = #"{"type":"MEGA","data":{"#
        for (k, stroke) in strokes.enumerated() {
            let header = stroke.header!
            if k > 0 { text += "," }
            var identifier: [UInt8] = []
            CanonicalJSON.appendString(stroke.id.rawValue, to: &identifier)
            text += String(decoding: identifier, as: UTF8.self)
            text += #":{"points":["# + stroke.points.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "],"
            text += #""segments":["# + stroke.visible.intervals.map { #"{"start":\#($0.lowerBound),"end":\#($0.upperBound)}"# }
                .joined(separator: ",") + "],"
            let colour = [header.colour.red, header.colour.green, header.colour.blue].map { "\(Double($0) / 255)" }
            text += #""isShape":\#(header.isShape),"thickness":\#(header.weight),"colour":[\#(colour.joined(separator: ","))]}"#
        }
        text += "}}"
        send(Array(text.utf8), from: index, to: .room)
    }

    // MARK: - Observation

    static func type(of bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(32), as: UTF8.self)
        guard let start = text.range(of: #""type":""#)?.upperBound, let end = text[start...].firstIndex(of: "\"") else {
            return "?"
        }
        return String(text[start..<end])
    }

    private mutating func observe(_ bytes: [UInt8], type: String, from: Int) {
        guard case .sync(let message)? = try? MessageDecoder.decode(bytes) else { return }
        switch message.body {
        case .summary:
            summariesSent[message.node, default: 0] += 1
        case .buckets(let first, _) where first == 0:
            let key = "\(message.to ?? "")#\(summariesSent[message.to ?? "", default: 0])"
            answersPerSummary[key, default: 0] += 1
        default:
            break
        }
    }

    /// Session statistics summed over the live sessions.
    var statistics: SessionStatistics {
        nodes.compactMap(\.session?.statistics).reduce(into: SessionStatistics()) { total, next in
            total.syncMessages += next.syncMessages
            total.syncBytes += next.syncBytes
            total.answers += next.answers
            total.answerBytes += next.answerBytes
            total.strokeListBytes += next.strokeListBytes
            total.deferred += next.deferred
            total.repairMessages += next.repairMessages
            total.repairBytes += next.repairBytes
            total.rejected += next.rejected
            total.unsupported += next.unsupported
        }
    }

    /// True when every node holds the same document and every authored operation.
    func converged(among indices: [Int]? = nil) -> Bool {
        let indices = indices ?? Array(nodes.indices)
        guard let first = indices.first else { return true }
        let digest = nodes[first].document.digest
        return indices.allSatisfy { nodes[$0].document.digest == digest }
    }

    /// Operations some node authored that node `index` lacks.
    func missing(at index: Int) -> [Operation] {
        var document = nodes[index].document
        return created.filter { document.apply($0).isNovel }
    }
}

/// A binary heap of events ordered by time, then by insertion (deterministic ties).
struct EventQueue {
    private var heap: [(time: Duration, sequence: Int, event: SimulatedNetwork.Event)] = []
    private var sequence = 0

    var peekTime: Duration? { heap.first?.time }

    private func less(_ a: Int, _ b: Int) -> Bool {
        (heap[a].time, heap[a].sequence) < (heap[b].time, heap[b].sequence)
    }

    mutating func push(at time: Duration, _ event: SimulatedNetwork.Event) {
        sequence += 1
        heap.append((time, sequence, event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (Duration, SimulatedNetwork.Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, less(left, smallest) { smallest = left }
            if right < heap.count, less(right, smallest) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return (top.time, top.event)
    }
}
