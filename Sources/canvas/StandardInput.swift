import CanvasCore
import CanvasProtocol
import CanvasRuntime
import Foundation
import Logging

/// `canvas join`'s standard input: NDJSON lines (protocol messages, whose operations count
/// as drawn here, and local actions; docs/actions.md) performed in order in one room. A
/// line that is neither is reported on standard error and as an `input_error` event, and
/// changes nothing.
///
/// The lines that arrive together (one read of the input; reads at most once a frame,
/// `gatherInterval`) are performed together: the operations of consecutive message lines as
/// one edit, made durable with one write of the store (group commit) and sent in one
/// payload, so that a busy writer costs one fsync and one datagram per frame, not per line.
enum StandardInput {
    /// How long lines gather after a read before the next: one frame of a 60 Hz display, the
    /// pace at which a drawing app hands over pen samples. A writer with many authors (the
    /// 1000-user benchmark puts 20–50 on a node) then costs a node at most 60 fsyncs and
    /// payloads a second.
    static let gatherInterval: useconds_t = 16_000

    /// Reads standard input on a thread of its own (reads block) and performs its lines
    /// in `room`, in order, until the input ends or the node stops; the lines are decoded
    /// and handed to the node on `executor` (the node's own loop: no other thread wakes).
    static func feed(_ node: Node, room: String, on executor: EventLoopTaskExecutor, output: EventOutput?, logger: Logger) {
        let (chunks, continuation) = AsyncStream.makeStream(of: [[UInt8]].self, bufferingPolicy: .bufferingOldest(64))
        Task(executorPreference: executor) {
            var number = 0
            for await lines in chunks {
                var operations: [CanvasCore.Operation] = []
                do {
                    for line in lines {
                        number += 1
                        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
                        let input: LocalInput
                        do {
                            input = try LocalInput.decode(line)
                        } catch {
                            logger.error("<stdin>:\(number): error: \(error)")
                            output?.write(EventLine("input_error").field("line", number).field("error", "\(error)").terminated)
                            continue
                        }
                        switch input {
                        case .message(let message):
                            operations += message.operations
                        case .action(let action):
                            try await perform(&operations, in: node, room: room, logger: logger)
                            try await performAction(action, in: node, room: room, line: number, logger: logger)
                        }
                    }
                    try await perform(&operations, in: node, room: room, logger: logger)
                } catch {
                    logger.debug("standard input is no longer read: \(error)")
                    return
                }
            }
        }
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            func send(_ lines: [[UInt8]]) {
                // A full buffer waits for the node: standard input is back-pressured.
                while case .dropped = continuation.yield(lines) { usleep(1000) }
            }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                var lines: [[UInt8]] = []
                var start = 0
                for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                    pending += buffer[start..<index]
                    lines.append(pending)
                    pending = []
                    start = index + 1
                }
                pending += buffer[start..<count]
                if !lines.isEmpty { send(lines) }
                // A writer slower than us: let its next lines gather, so that they are
                // performed (and made durable) together.
                if count < buffer.count { usleep(gatherInterval) }
            }
            if !pending.isEmpty { send([pending]) }
            continuation.finish()
        }
        thread.start()
    }

    /// Performs the operations gathered so far as one edit (one store write), and empties
    /// them. Throws only when the node has stopped.
    private static func perform(
        _ operations: inout [CanvasCore.Operation], in node: Node, room: String, logger: Logger
    ) async throws {
        guard !operations.isEmpty else { return }
        defer { operations = [] }
        do {
            _ = try await node.perform(operations, in: room)
        } catch let error as NodeError where error.kind == .notRunning {
            throw error
        } catch {
            // The node reported it (a store that refuses writes): the next lines may work.
            logger.debug("<stdin>: \(operations.count) operations not performed: \(error)")
        }
    }

    private static func performAction(
        _ action: LocalAction, in node: Node, room: String, line: Int, logger: Logger
    ) async throws {
        do {
            _ = try await node.perform(action, in: room)
        } catch let error as NodeError where error.kind == .notRunning {
            throw error
        } catch {
            logger.debug("<stdin>:\(line): not performed: \(error)")
        }
    }
}
