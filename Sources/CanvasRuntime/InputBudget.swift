import Synchronization

/// Bounds how many inputs of one source wait in the run loop's queue: the source awaits
/// `admit()` before queueing one, and the loop calls `release()` once it has handled it.
/// A source that is not admitted stops pulling from its own (back-pressured) sequence.
final class InputBudget: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
        var closed = false
    }

    private let state: Mutex<State>

    /// At most `limit` inputs waiting (at least 1).
    init(limit: Int) {
        state = Mutex(State(available: max(1, limit)))
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

    /// One queued input was handled: admits a waiting source, if any.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.waiters.isEmpty else { return state.waiters.removeFirst() }
            state.available += 1
            return nil
        }
        waiter?.resume()
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
