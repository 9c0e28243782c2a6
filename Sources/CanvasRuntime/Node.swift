public import CanvasCore
public import CanvasProtocol
import CanvasSVG
public import Logging
public import NIOCore
import CanvasNode
import LANCluster
import NIOPosix
public import CoreMetrics
public import ServiceLifecycle
import Synchronization
import XMPP

/// Makes the extra transports of a room (the lifecycle tests' fakes): given the room's
/// replica and a way to hand its session inputs through the node's loop.
typealias ExtraLinks = @Sendable (RoomReplica, _ inject: @escaping @Sendable (SessionInput) -> Void) -> [any RoomLink]

/// Why a node could not start, could not do what it was asked, or had to stop.
///
/// Two errors are equal when their kinds are: the detail, a whole sentence naming what to
/// change, is for the user and the logs.
public struct NodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms. New kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The configuration cannot work: no room, no transport, an invalid JID or room.
        public static let invalidConfiguration = Kind("invalid node configuration")
        /// A room the node was not configured with.
        public static let unknownRoom = Kind("unknown room")
        /// The node has stopped (or has already run and cannot run again).
        public static let notRunning = Kind("node not running")
        /// A room's store could not be opened or written.
        public static let storage = Kind("storage failure")
        /// A transport failed for good: the LAN socket, the XMPP account, every room.
        public static let transport = Kind("transport failure")

        public var description: String { name }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What happened and what to change.
    public var detail: String

    /// An error of `kind`; `detail` says what happened and what to change.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The detail alone: it is a whole sentence, which usually quotes the error behind it.
    public var description: String { detail }

    public static func == (lhs: NodeError, rhs: NodeError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}

/// A Canvas node inside an app: it keeps a replica of each of its rooms, durably (or in
/// memory), and syncs them over its transports — XMPP rooms, a LAN cluster, or both with
/// the LAN's gateway relaying (DESIGN.md §5).
///
/// Run it as a `Service` in the app's `ServiceGroup` (graceful shutdown drains: the node
/// waits up to 10 s for its rooms to confirm what it sent, then leaves them and flushes
/// its stores; cancellation stops it at once), or call `start()` and `stop()`. Draw with
/// `perform(_:in:)`, observe `events`, read `document(of:)` and `svg(of:)` whenever.
/// Several nodes can run in one process; a node holds no global state and never touches
/// signals, standard input or standard output.
///
///     var configuration = NodeConfiguration(rooms: ["board"], storage: .memory)
///     configuration.lan = NodeConfiguration.LANSettings()
///     let node = Node(configuration: configuration, logger: logger)
///     try await node.start()
///     try await node.perform(.draw(points: points, weight: 2, colour: .black, recognize: true), in: "board")
///     try await node.stop()
public final class Node: Service, Sendable {
    /// The node's settings.
    public let configuration: NodeConfiguration
    private let logger: Logger
    private let eventLoopGroup: (any EventLoopGroup)?
    private let subscribers = EventSubscribers()
    private let inbox: AsyncStream<NodeInput>.Continuation
    private let inputs: AsyncStream<NodeInput>
    private let lifecycle = Mutex(Lifecycle())
    /// Extra transports attached to every room: the lifecycle tests' fakes.
    private let extraLinks: ExtraLinks?
    /// Where the node's metrics go (nil: nowhere).
    private let metrics: (any MetricsFactory)?

    private struct Lifecycle {
        enum Phase { case idle, running, stopped }
        var phase = Phase.idle
        /// A stop was asked for: 1 drains, 2 (or cancellation) stops at once.
        var stopRequests = 0
        var started: [CheckedContinuation<Void, any Error>] = []
        var finished: [CheckedContinuation<Void, any Error>] = []
        var failure: NodeError?
    }

    /// A node for `configuration`, logging through `logger`, on `eventLoopGroup`'s threads
    /// (nil: the node makes a one-thread group of its own and shuts it down when it stops),
    /// reporting its metrics (operations applied and sent, messages, store writes and their
    /// latency, members, errors; docs/operating.md) to `metrics` (nil: nowhere).
    public convenience init(
        configuration: NodeConfiguration, logger: Logger, eventLoopGroup: (any EventLoopGroup)? = nil,
        metrics: (any MetricsFactory)? = nil
    ) {
        self.init(configuration: configuration, logger: logger, eventLoopGroup: eventLoopGroup, extraLinks: nil, metrics: metrics)
    }

    init(
        configuration: NodeConfiguration, logger: Logger, eventLoopGroup: (any EventLoopGroup)?,
        extraLinks: ExtraLinks?, metrics: (any MetricsFactory)? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.extraLinks = extraLinks
        self.metrics = metrics
        (inputs, inbox) = AsyncStream.makeStream(of: NodeInput.self, bufferingPolicy: .unbounded)
    }

    // MARK: Lifecycle

    /// Runs the node until a graceful shutdown (of its `ServiceGroup`, or `stop()`), then
    /// drains and returns; stops at once if its task is cancelled. Throws when the node
    /// cannot start, or when it cannot go on (every room refused it, the XMPP account
    /// cannot log in). A node runs once.
    public func run() async throws {
        try lifecycle.withLock { state throws(NodeError) in
            guard state.phase == .idle else { throw NodeError(.notRunning, "this node has already run; make a new one") }
            state.phase = .running
        }
        do {
            try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    try await runLoop()
                } onGracefulShutdown: {
                    self.requestStop()
                }
            } onCancel: {
                self.requestStop()
                self.requestStop()
            }
            finish(nil)
        } catch let error as NodeError {
            finish(error)
            throw error
        }
    }

    /// Starts the node in a task of its own and returns once its rooms are open and its
    /// transports started (their rooms are joined in the background). Throws what keeps
    /// the node from starting.
    public func start() async throws {
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            let idle = lifecycle.withLock { state in
                guard state.phase == .idle else { return false }
                state.started.append(started)
                return true
            }
            guard idle else {
                started.resume(throwing: NodeError(.notRunning, "this node has already run; make a new one"))
                return
            }
            Task { try await self.run() }
        }
    }

    /// Stops the node as a graceful shutdown does (it drains, leaves its rooms and flushes
    /// its stores) and returns when it has stopped. Throws the error that stopped the node
    /// before, if one did.
    public func stop() async throws {
        let phase = lifecycle.withLock { $0.phase }
        guard phase != .idle else { return }
        requestStop()
        try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Void, any Error>) in
            let done = lifecycle.withLock { state -> Result<Void, NodeError>? in
                guard state.phase == .stopped else {
                    state.finished.append(finished)
                    return nil
                }
                return state.failure.map { .failure($0) } ?? .success(())
            }
            if let done { finished.resume(with: done) }
        }
    }

    private func requestStop() {
        lifecycle.withLock { $0.stopRequests += 1 }
        inbox.yield(.stop)
    }

    /// How many stops were asked for (the loop reads it before each input, so that a
    /// backlog of inputs does not delay a stop).
    var stopRequests: Int { lifecycle.withLock { $0.stopRequests } }

    /// The rooms are open and the transports started.
    func didStart() {
        let waiters = lifecycle.withLock { state in
            defer { state.started = [] }
            return state.started
        }
        for waiter in waiters { waiter.resume() }
    }

    private func finish(_ failure: NodeError?) {
        subscribers.finish()
        inbox.finish()
        refuseWaitingRequests()
        let (started, finished) = lifecycle.withLock { state in
            state.phase = .stopped
            state.failure = failure
            defer { (state.started, state.finished) = ([], []) }
            return (state.started, state.finished)
        }
        for waiter in started { waiter.resume(throwing: failure ?? NodeError(.notRunning, "the node stopped before it started")) }
        for waiter in finished {
            if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
        }
    }

    /// Answers the requests still in the loop's queue: the node has stopped.
    private func refuseWaitingRequests() {
        Task { [inputs] in
            for await input in inputs {
                switch input {
                case .local(_, _, let reply): reply.resume(throwing: NodeError(.notRunning, "the node has stopped"))
                case .document(_, let reply): reply.resume(throwing: NodeError(.notRunning, "the node has stopped"))
                case .status(let reply): reply.resume(throwing: NodeError(.notRunning, "the node has stopped"))
                case .client, .lan, .transport, .tick, .stop: break
                }
            }
        }
    }

    private func runLoop() async throws(NodeError) {
        let loop = NodeLoop(
            configuration: configuration, logger: logger, inputs: inputs, inbox: inbox, node: self,
            subscribers: subscribers, extraLinks: extraLinks, metrics: metrics)
        // Without a group of the app's, the node's I/O and its loop share one thread.
        let ownGroup = eventLoopGroup == nil ? MultiThreadedEventLoopGroup(numberOfThreads: 1) : nil
        let group: any EventLoopGroup = eventLoopGroup ?? ownGroup!
        let executor = EventLoopTaskExecutor(group.next())
        let result: Result<Void, NodeError> = await withTaskExecutorPreference(executor) {
            do throws(NodeError) {
                try await loop.run(eventLoopGroup: group, on: executor)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        // Its thread ends before `run` returns: the app may exit next, and a thread still
        // ending while exit() tears down OpenSSL can crash the process.
        try? await ownGroup?.shutdownGracefully()
        try result.get()
    }

    // MARK: Drawing and reading

    /// Performs a local action — draw a stroke (with shape recognition if asked), erase
    /// along a path — in `room`, and returns the operations it made once they are applied,
    /// durable and on their way to the room (none: nothing changed). Asked before the node
    /// runs, it waits for it; after it stopped, it throws.
    @discardableResult
    public func perform(_ action: LocalAction, in room: String) async throws -> [CanvasCore.Operation] {
        try await ask(room) { .local(room: $0, .action(action), reply: $1) }
    }

    /// Applies operations authored here (an app that builds its own strokes, a recorder
    /// replaying a file) in `room`; returns the novel ones, as they now stand (APPENDs
    /// with their offsets).
    @discardableResult
    public func perform(_ operations: [CanvasCore.Operation], in room: String) async throws -> [CanvasCore.Operation] {
        try await ask(room) { .local(room: $0, .operations(operations), reply: $1) }
    }

    /// `room`'s document as it is now.
    public func document(of room: String) async throws -> Document {
        try await ask(room) { .document(room: $0, reply: $1) }
    }

    /// Each room's size, transports and members now. Asked before the node runs, it waits
    /// for it; after it stopped, it throws.
    public func status() async throws -> NodeStatus {
        try await withCheckedThrowingContinuation { reply in
            guard case .enqueued = inbox.yield(.status(reply: reply)) else {
                reply.resume(throwing: NodeError(.notRunning, "the node has stopped"))
                return
            }
        }
    }

    /// `room`'s drawing as a standalone SVG document.
    public func svg(of room: String) async throws -> [UInt8] {
        SVGExporter.export(try await document(of: room))
    }

    /// The node's events from now on (see `NodeEvents`): read it before `start()` to see
    /// every event from `started` on (but `NodeEvent.namedOnly`: ask for those by name).
    public var events: NodeEvents { subscribers.subscribe() }

    /// The node's events named `names` (`NodeEvent.name`) from now on: events nobody
    /// subscribed to cost the node nothing, so a subscriber that wants a few should ask for
    /// those only.
    public func events(named names: Set<String>) -> NodeEvents { subscribers.subscribe(names: names) }

    private func ask<Answer: Sendable>(
        _ room: String, _ input: (Int, CheckedContinuation<Answer, any Error>) -> NodeInput
    ) async throws -> Answer {
        guard let index = configuration.rooms.firstIndex(of: room) else {
            throw NodeError(.unknownRoom, "no room \"\(room)\" on this node (its rooms: \(configuration.rooms.joined(separator: ", ")))")
        }
        // Before the node runs, the request waits for it in the loop's queue.
        return try await withCheckedThrowingContinuation { reply in
            guard case .enqueued = inbox.yield(input(index, reply)) else {
                reply.resume(throwing: NodeError(.notRunning, "the node has stopped"))
                return
            }
        }
    }
}

/// What the node's loop handles, one at a time.
enum NodeInput: Sendable {
    case client(XMPPClientEvent)
    case lan(room: Int, ClusterEvent)
    /// An input for a room's session from a transport the loop does not know by type (the
    /// lifecycle tests' fakes).
    case transport(room: Int, SessionInput)
    case local(room: Int, LocalEdit, reply: CheckedContinuation<[CanvasCore.Operation], any Error>)
    case document(room: Int, reply: CheckedContinuation<Document, any Error>)
    case status(reply: CheckedContinuation<NodeStatus, any Error>)
    case tick
    case stop

    /// A local edit asked for through `Node.perform`.
    enum LocalEdit: Sendable {
        case action(LocalAction)
        case operations([CanvasCore.Operation])
    }
}
