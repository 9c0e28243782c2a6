import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn and reaped with waitpid, whatever else the
/// command is doing (Foundation's `Process` relies on a run loop to notice its children
/// exit). Its standard input and output are pipes when asked for; its standard error goes
/// to a file.
final class ChildProcess: Sendable {
    let pid: pid_t
    /// The write end of its standard input, or -1.
    let input: Int32
    /// The read end of its standard output, or -1.
    let output: Int32

    /// Starts `executable` with `arguments` (not counting argv[0]) and `environment` added
    /// to this process's, its standard error (and output, unless `pipeOutput`) appended to
    /// `log`.
    init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], log: String,
        pipeInput: Bool = false, pipeOutput: Bool = false
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        if pipeInput {
            guard Self.makePipe(&inputPipe) else { throw ChildProcessError("cannot make a pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
            posix_spawn_file_actions_addclose(&actions, inputPipe[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if pipeOutput {
            guard Self.makePipe(&outputPipe) else { throw ChildProcessError("cannot make a pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, outputPipe[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // A clean signal state: no signal blocked (this process's threads block some, and a
        // mask is inherited), the usual ones at their defaults (an ignored one stays ignored).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        if pipeInput { close(inputPipe[0]) }
        if pipeOutput { close(outputPipe[1]) }
        guard status == 0 else {
            if pipeInput { close(inputPipe[1]) }
            if pipeOutput { close(outputPipe[0]) }
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        input = inputPipe[1]
        output = outputPipe[0]
    }

    /// A pipe whose ends close in every child (the dup2'd copies excepted).
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Waits for the child to end; its exit status (128 + signal when killed).
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Self.exitCode(status)
    }

    /// Whether the child has ended, reaping it if so; its exit status then.
    func poll() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid ? Self.exitCode(status) : nil
    }

    func signal(_ number: Int32) { kill(pid, number) }

    private static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
