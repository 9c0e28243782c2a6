import Synchronization

/// Bounds how many inputs of one source wait in the run loop's queue: the source awaits
/// `admit()` before queueing one, and the loop calls `release()` once it has handled it.
/// A source that is not admitted stops pulling from its own (back-pressured) sequence.
final class InputBudget: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
        var closed = false
        /// A `take()` found no place: the source paused until `release()` says to resume.
        var refused = false
    }

    private let state: Mutex<State>
    private let limit: Int

    /// At most `limit` inputs waiting (at least 1).
    init(limit: Int) {
        self.limit = max(1, limit)
        state = Mutex(State(available: max(1, limit)))
    }

    /// For a source that cannot wait (it queues the input anyway): takes a place and
    /// returns true, or returns false when none is left; the source should then pause
    /// until `release()` returns true.
    func take() -> Bool {
        state.withLock { state in
            if state.closed { return true }
            state.available -= 1
            if state.available >= 0 { return true }
            state.refused = true
            return false
        }
    }

    /// Returns once one more input may be queued (at once after `close()`).
    func admit() async {
        guard !state.withLock({ Self.take(&$0) }) else { return }
        await withCheckedContinuation { waiter in
            let admitted = state.withLock { state in
                guard !Self.take(&state) else { return true }
                state.waiters.append(waiter)
                return false
            }
            if admitted { waiter.resume() }
        }
    }

    /// Takes one place, if there is one (always, once closed).
    private static func take(_ state: inout State) -> Bool {
        if state.closed { return true }
        guard state.available > 0 else { return false }
        state.available -= 1
        return true
    }

    /// One queued input was handled: admits a waiting source, if any. Returns true when a
    /// source refused by `take()` may resume (half the places are free again).
    @discardableResult
    func release() -> Bool {
        let (waiter, resume) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
            guard state.waiters.isEmpty else { return (state.waiters.removeFirst(), false) }
            state.available += 1
            guard state.refused, state.available >= limit / 2 else { return (nil, false) }
            state.refused = false
            return (nil, true)
        }
        waiter?.resume()
        return resume
    }

    /// Admits every waiting and future source: the loop has stopped handling inputs.
    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
