import Foundation
import Testing

@testable import canvas

/// The benchmark's CPU figures come from each process's CPU-time clock: a listening node
/// spends about 0.3 s in a run, which `/proc/PID/stat` counts in 10 ms ticks.
@Suite("canvas bench: CPU time of a process")
struct ProcessCPUTests {
    /// Two readings of a busy process differ by what it spent between them, not by a whole
    /// number of clock ticks (as `/proc/PID/stat` would say).
    @Test(.timeLimit(.minutes(1))) func aProcessCPUTimeIsReadFinerThanAClockTick() throws {
        let busy = Process()
        busy.executableURL = URL(fileURLWithPath: "/bin/sh")
        busy.arguments = ["-c", "while :; do :; done"]
        try busy.run()
        defer {
            // SIGKILL: a test process may ignore SIGTERM, and its children inherit that.
            kill(busy.processIdentifier, SIGKILL)
            busy.waitUntilExit()
        }
        let pid = busy.processIdentifier
        let tick = 1 / Double(sysconf(Int32(_SC_CLK_TCK)))
        var first = try #require(ProcessCPU.seconds(of: pid))
        var second = first
        while second == first {
            usleep(3_000)
            second = try #require(ProcessCPU.seconds(of: pid))
            if second == first { first = second }
        }
        let spent = second - first
        let inTicks = spent / tick
        #expect(abs(inTicks - inTicks.rounded()) > 1e-6, "\(spent) s is a whole number of \(tick) s ticks")
        // The same process read from /proc agrees to a tick or two.
        let ticks = try #require(ProcessCPU.ticks(of: pid))
        let clock = try #require(ProcessCPU.seconds(of: pid))
        #expect(abs(ticks - clock) <= 2 * tick, "clock \(clock) s, /proc \(ticks) s")
    }

    @Test func aProcessThatIsGoneHasNoCPUTime() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        #expect(ProcessCPU.seconds(of: child.processIdentifier) == nil)
    }
}
