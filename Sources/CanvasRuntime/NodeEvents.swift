import Synchronization

/// A node's events, as one subscriber sees them: every event from the moment `Node.events`
/// was read, in order, none dropped. Iterate it from one task.
///
/// The node waits for its slowest subscriber: while one has `EventSubscribers.highWatermark`
/// events it has not taken yet, the node handles no further input (its transports then
/// buffer, and past their own bounds stop reading their sockets). A subscriber that stops
/// iterating should drop the sequence: that unsubscribes it.
public struct NodeEvents: AsyncSequence, Sendable {
    public typealias Element = NodeEvent
    public typealias Failure = Never

    let stream: AsyncStream<NodeEvent>
    let subscriber: EventSubscriber

    /// Takes the subscription's events one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<NodeEvent>.AsyncIterator
        let subscriber: EventSubscriber

        /// The next event, or nil once the node has stopped.
        public mutating func next() async -> NodeEvent? {
            let event = await base.next()
            if event != nil { subscriber.took() }
            return event
        }

        /// The next event, or nil once the node has stopped, on `actor`.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> NodeEvent? {
            let event = await base.next(isolation: actor)
            if event != nil { subscriber.took() }
            return event
        }
    }

    /// The iterator (one per subscription: iterate from one task).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), subscriber: subscriber)
    }
}

/// One subscriber's stream and how many of its events are waiting to be taken.
final class EventSubscriber: Sendable {
    private struct State {
        var waiting = 0
        var ended = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    let continuation: AsyncStream<NodeEvent>.Continuation
    /// The names of the events wanted (nil: all).
    let names: Set<String>?
    private let state = Mutex(State())

    init(continuation: AsyncStream<NodeEvent>.Continuation, names: Set<String>?) {
        self.continuation = continuation
        self.names = names
    }

    /// Whether the subscriber wants `event`.
    func wants(_ event: NodeEvent) -> Bool { wants(event.name) }

    /// Whether the subscriber wants the events named `name`: those it named, or every event
    /// but those given only to who names them (`NodeEvent.namedOnly`).
    func wants(_ name: String) -> Bool { names?.contains(name) ?? !NodeEvent.namedOnly.contains(name) }

    /// Hands over one event; returns how many now wait.
    func yield(_ event: NodeEvent) -> Int {
        guard case .enqueued = continuation.yield(event) else { return 0 }
        return state.withLock { state in
            state.waiting += 1
            return state.waiting
        }
    }

    /// The subscriber took one event.
    func took() {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.waiting -= 1
            guard state.waiting <= EventSubscribers.lowWatermark else { return [] }
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in resumed { waiter.resume() }
    }

    /// The subscriber is gone: nobody waits for it any more.
    func end() {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Returns once at most `lowWatermark` events wait (at once if the subscriber is gone).
    func waitUntilDrained() async {
        await withCheckedContinuation { waiter in
            let done = state.withLock { state in
                guard !state.ended, state.waiting > EventSubscribers.lowWatermark else { return true }
                state.drained.append(waiter)
                return false
            }
            if done { waiter.resume() }
        }
    }
}

/// Every subscriber of a node's events.
final class EventSubscribers: Sendable {
    /// A subscriber this far behind holds the node back…
    static let highWatermark = 4096
    /// …until it is this close again.
    static let lowWatermark = 1024

    private struct State {
        var subscribers: [Int: EventSubscriber] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())
    /// Subscribers that passed the high watermark since the node last waited for them.
    private let behind = Mutex<[EventSubscriber]>([])

    /// A new subscription, from now on, to the events named `names` (nil: all).
    func subscribe(names: Set<String>? = nil) -> NodeEvents {
        let (stream, continuation) = AsyncStream.makeStream(of: NodeEvent.self, bufferingPolicy: .unbounded)
        let subscriber = EventSubscriber(continuation: continuation, names: names)
        let finished = state.withLock { state -> Bool in
            guard !state.finished else { return true }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = subscriber
            continuation.onTermination = { [weak self] _ in
                subscriber.end()
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            }
            return false
        }
        if finished { continuation.finish() }
        return NodeEvents(stream: stream, subscriber: subscriber)
    }

    /// Whether a subscriber wants the events named `name`: an event nobody wants need
    /// not be built.
    func anyoneWants(_ name: String) -> Bool {
        state.withLock { state in state.subscribers.values.contains { $0.wants(name) } }
    }

    /// Hands `event` to every subscriber that wants it.
    func publish(_ event: NodeEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers where subscriber.wants(event) && subscriber.yield(event) >= Self.highWatermark {
            behind.withLock { $0.append(subscriber) }
        }
    }

    /// Waits for the subscribers that fell behind to catch up.
    func waitForSlowSubscribers() async {
        let slow = behind.withLock { list in
            defer { list = [] }
            return list
        }
        for subscriber in slow { await subscriber.waitUntilDrained() }
    }

    /// The node stopped: every subscription ends after the events already given.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }
}
