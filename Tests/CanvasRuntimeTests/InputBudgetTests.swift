import Synchronization
import Testing

@testable import CanvasRuntime

@Suite("InputBudget", .timeLimit(.minutes(1))) struct InputBudgetTests {
    @Test func aSourceIsAdmittedUpToTheLimitThenWaitsForARelease() async throws {
        let budget = InputBudget(limit: 3)
        let admitted = Counter()
        let source = Task {
            for _ in 0..<5 {
                await budget.admit()
                admitted.increment()
            }
        }
        #expect(await eventually { admitted.value == 3 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(admitted.value == 3, "a fourth input was queued without a release")
        budget.release()
        #expect(await eventually { admitted.value == 4 })
        budget.release()
        await source.value
        #expect(admitted.value == 5)
    }

    /// A source that cannot wait (the LAN driver's handler) takes places until none is
    /// left, pauses, and resumes once the loop has handled half of what waits.
    @Test func aSourceThatCannotWaitPausesAndResumesAtHalf() {
        let budget = InputBudget(limit: 4)
        #expect((0..<4).allSatisfy { _ in budget.take() })
        #expect(!budget.take(), "the fifth input is queued, but the source must pause")
        #expect(!budget.release(), "one handled: not yet")
        #expect(!budget.release())
        #expect(budget.release(), "half the places free: resume")
        #expect(!budget.release(), "said once")
        budget.close()
        #expect(budget.take())
    }

    @Test func releasesBeforeAdmissionsAreKept() async throws {
        let budget = InputBudget(limit: 1)
        budget.release()
        budget.release()
        // One place at the start plus two released: three admissions, then a wait.
        let admitted = Counter()
        let source = Task {
            for _ in 0..<4 {
                await budget.admit()
                admitted.increment()
            }
        }
        #expect(await eventually { admitted.value == 3 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(admitted.value == 3, "a fourth input was queued without a release")
        budget.release()
        await source.value
        #expect(admitted.value == 4)
    }

    @Test func closingAdmitsEveryWaitingAndLaterSource() async throws {
        let budget = InputBudget(limit: 1)
        await budget.admit()
        let admitted = Counter()
        let waiting = (0..<3).map { _ in
            Task {
                await budget.admit()
                admitted.increment()
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(admitted.value == 0, "admitted without a place")
        budget.close()
        for task in waiting { await task.value }
        #expect(admitted.value == 3)
        for _ in 0..<10 { await budget.admit() }
    }
}

/// A count shared by tasks.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
