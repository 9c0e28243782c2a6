import CanvasCore
import CanvasProtocol
import CanvasRuntime
import Foundation
import Logging

/// `canvas join`'s standard input: NDJSON lines (protocol messages, whose operations count
/// as drawn here, and local actions; docs/actions.md) performed in order in one room. A
/// line that is neither is reported on standard error and as an `input_error` event, and
/// changes nothing.
enum StandardInput {
    /// Reads standard input on a thread of its own (reads block) and performs each line
    /// in `room`, one after the other, until the input ends or the node stops.
    static func feed(_ node: Node, room: String, output: EventOutput?, logger: Logger) {
        let (lines, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(1024))
        Task {
            var number = 0
            for await line in lines {
                number += 1
                guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
                do {
                    switch try LocalInput.decode(line) {
                    case .message(let message):
                        let operations = message.operations
                        if !operations.isEmpty { try await node.perform(operations, in: room) }
                    case .action(let action):
                        try await node.perform(action, in: room)
                    }
                } catch let error as ProtocolError {
                    logger.error("<stdin>:\(number): error: \(error)")
                    output?.write(EventLine("input_error").field("line", number).field("error", "\(error)").terminated)
                } catch let error as NodeError where error.kind == .notRunning {
                    logger.debug("standard input is no longer read: \(error)")
                    return
                } catch {
                    // The node reported it (a store that refuses writes): the next lines may work.
                    logger.debug("<stdin>:\(number): not performed: \(error)")
                }
            }
        }
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            func send(_ line: [UInt8]) {
                // A full buffer waits for the node: standard input is back-pressured.
                while case .dropped = continuation.yield(line) { usleep(1000) }
            }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                var start = 0
                for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                    pending += buffer[start..<index]
                    send(pending)
                    pending = []
                    start = index + 1
                }
                pending += buffer[start..<count]
            }
            if !pending.isEmpty { send(pending) }
            continuation.finish()
        }
        thread.start()
    }
}
