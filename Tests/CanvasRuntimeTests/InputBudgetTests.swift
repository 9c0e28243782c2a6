import Synchronization
import Testing

@testable import CanvasRuntime

@Suite("InputBudget", .timeLimit(.minutes(1))) struct InputBudgetTests {
    @Test func aSourceIsAdmittedUpToTheLimitThenWaitsForARelease() async throws {
        let budget = InputBudget(limit: 3)
        let admitted = Atomic(0)
        let source = Task {
            for _ in 0..<5 {
                await budget.admit()
                admitted.add(1, ordering: .sequentiallyConsistent)
            }
        }
        #expect(await eventually { admitted.load(ordering: .sequentiallyConsistent) == 3 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(admitted.load(ordering: .sequentiallyConsistent) == 3, "a fourth input was queued without a release")
        budget.release()
        #expect(await eventually { admitted.load(ordering: .sequentiallyConsistent) == 4 })
        budget.release()
        await source.value
        #expect(admitted.load(ordering: .sequentiallyConsistent) == 5)
    }

    @Test func releasesBeforeAdmissionsAreKept() async {
        let budget = InputBudget(limit: 1)
        budget.release()
        budget.release()
        // One place at the start plus two released: three admissions without waiting.
        for _ in 0..<3 { await budget.admit() }
        let fourth = Task { await budget.admit() }
        try? await Task.sleep(for: .milliseconds(50))
        budget.release()
        await fourth.value
    }

    @Test func closingAdmitsEveryWaitingAndLaterSource() async {
        let budget = InputBudget(limit: 1)
        await budget.admit()
        let waiting = (0..<3).map { _ in Task { await budget.admit() } }
        try? await Task.sleep(for: .milliseconds(50))
        budget.close()
        for task in waiting { await task.value }
        for _ in 0..<10 { await budget.admit() }
    }
}

/// Polls `condition` for up to 5 seconds; returns whether it held.
private func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
