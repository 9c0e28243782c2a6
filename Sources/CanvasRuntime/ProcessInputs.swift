import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into calls of a handler (the node then shuts down cleanly)
/// instead of killing the process.
final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    init(handler: @escaping @Sendable (String) -> Void) {
        let queue = DispatchQueue(label: "canvas.signals")
        sources = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(name) }
            source.resume()
            return source
        }
    }

    /// Stops watching; the signals are ignored from then on (the node is already stopping).
    func cancel() {
        for source in sources { source.cancel() }
    }
}

/// Reads standard input line by line on a thread of its own (reads block) and hands each
/// line, without its newline, to the node's loop.
enum StandardInputReader {
    static func start(line: @escaping @Sendable ([UInt8]) -> Void, closed: @escaping @Sendable () -> Void) {
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                var start = 0
                for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                    pending += buffer[start..<index]
                    line(pending)
                    pending = []
                    start = index + 1
                }
                pending += buffer[start..<count]
            }
            if !pending.isEmpty { line(pending) }
            closed()
        }
        thread.start()
    }
}
