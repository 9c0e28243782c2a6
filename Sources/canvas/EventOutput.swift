import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Where `canvas join` writes its event lines: standard output. A reader that went away
/// (EPIPE) stops the events, not the node.
///
/// When standard output is a pipe (a program reads the events), lines are written from the
/// node's own event loop without ever blocking it: the pipe is opened again as a file
/// description of its own (`/proc/self/fd/1`, so that making it non-blocking changes
/// nothing for anyone else writing to the pipe) and written as a SwiftNIO pipe channel.
/// The lines of one turn of the loop (the events of one input) go in one write, at the
/// end of that turn. While more than the channel's high watermark (64 KiB) waits for the
/// reader, the printer waits too, so a reader that falls behind holds back the printer,
/// not the loop's sockets and timers. Events then cost no other thread's wake-up (on a
/// listening node at 1000 authors over 50 nodes the printer's thread woke 40 times a
/// second: docs/benchmarks.md). Anything else (a terminal, a file) is written with
/// blocking writes, which must not be made on the node's loop.
final class EventOutput: Sendable {
    private let logger: Logger
    private let closed = Mutex(false)
    /// The pipe's channel, when standard output is a pipe.
    private let pipe: (any Channel)?
    /// Whether a flush of the pipe is due at the end of the loop's turn.
    private let flushScheduled = Mutex(false)
    /// Set before the channel is closed here: its closing is then no reader going away.
    private let closing = Mutex(false)

    private init(logger: Logger, pipe: (any Channel)?) {
        self.logger = logger
        self.pipe = pipe
        pipe?.closeFuture.whenComplete { [self] _ in
            if !closing.withLock({ $0 }) { readerGone() }
        }
    }

    /// Standard output, as a channel on `eventLoop` when it is a pipe that can be opened
    /// again, else for blocking writes.
    static func open(on eventLoop: any EventLoop, logger: Logger) async -> EventOutput {
        signal(SIGPIPE, SIG_IGN)
        var status = stat()
        guard fstat(STDOUT_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else {
            return EventOutput(logger: logger, pipe: nil)
        }
        // Non-blocking from the start: opening a pipe whose reader is gone fails at once
        // (ENXIO) instead of waiting for a reader.
        let descriptor = Foundation.open("/proc/self/fd/\(STDOUT_FILENO)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            logger.debug("standard output is a pipe that cannot be opened again; events are written from another thread")
            return EventOutput(logger: logger, pipe: nil)
        }
        do {
            let channel = try await NIOPipeBootstrap(group: eventLoop).takingOwnershipOfDescriptor(output: descriptor).get()
            return EventOutput(logger: logger, pipe: channel)
        } catch {
            Foundation.close(descriptor)
            logger.debug("standard output cannot be written without blocking (\(error)); events are written from another thread")
            return EventOutput(logger: logger, pipe: nil)
        }
    }

    /// Whether lines are written without blocking: then they may be written from the node's
    /// event loop.
    var writesWithoutBlocking: Bool { pipe != nil }

    /// Writes `bytes` at the end of the loop's turn, behind lines the reader has not
    /// taken yet.
    func write(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        guard let pipe else {
            writeBlocking(bytes)
            return
        }
        pipe.write(pipe.allocator.buffer(bytes: bytes), promise: nil)
        scheduleFlush(pipe)
    }

    /// Writes `bytes` at the end of the loop's turn; while the reader is behind by more
    /// than the channel's high watermark, returns only once it has caught up (the loop goes
    /// on).
    func writeWaitingForTheReader(_ bytes: [UInt8]) async {
        write(bytes)
        if let pipe, !pipe.isWritable {
            // Done when everything before it is in the pipe.
            try? await Self.flushed(pipe).get()
        }
    }

    /// One flush once the loop's current turn is over: the lines written meanwhile leave
    /// together.
    private func scheduleFlush(_ pipe: any Channel) {
        let due = flushScheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard due else { return }
        pipe.eventLoop.execute { [self] in
            flushScheduled.withLock { $0 = false }
            pipe.flush()
        }
    }

    /// Closes the pipe's own file description (standard output itself stays open) once
    /// the lines written are in the pipe, or after `patience` if its reader stands still.
    func close(patience: TimeAmount = .seconds(5)) async {
        guard let pipe else { return }
        closing.withLock { $0 = true }
        let written = Self.flushed(pipe)
        let giveUp = pipe.eventLoop.scheduleTask(in: patience) { pipe.close(promise: nil) }
        try? await written.get()
        giveUp.cancel()
        try? await pipe.close()
    }

    /// Flushes `pipe`; done when what was written before is in the pipe.
    private static func flushed(_ pipe: any Channel) -> EventLoopFuture<Void> {
        let promise = pipe.eventLoop.makePromise(of: Void.self)
        pipe.writeAndFlush(pipe.allocator.buffer(capacity: 0), promise: promise)
        return promise.futureResult
    }

    private var isClosed: Bool { closed.withLock { $0 } }

    private func writeBlocking(_ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                readerGone()
                return
            }
            written += result
        }
    }

    /// The first failure to write says so; later lines are dropped.
    private func readerGone() {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first { logger.warning("standard output is closed; no more events are written") }
    }
}
