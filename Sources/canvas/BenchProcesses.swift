import CanvasRuntime
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `canvas join` process of a benchmark: its standard input takes operations, its
/// standard output gives events (`--events-only`), read on a thread of its own and kept
/// as the few facts a benchmark needs.
final class BenchNode: Sendable {
    /// What the node's events said so far.
    struct Facts: Sendable {
        var nodeID: String?
        /// The latest `state`: digest root and points, and when it was read.
        var digest: String?
        var points = 0
        var stateReadAt: UInt64 = 0
        var lanMembers: Set<String> = []
        var gateway: String?
        var joinedXMPP = false
        var lanStats: [String: Int] = [:]
        var xmppStats: [String: Int] = [:]
        var syncStats: [String: Int] = [:]
        /// Traced operations applied here: (stroke, offset, from another node, time in ns).
        var traced: [(stroke: String, offset: Int, remote: Bool, at: UInt64)] = []
        var stopped = false
        var errors: [String] = []
    }

    let name: String
    let group: Int
    private let process: ChildProcess
    private let state = Box()
    private let inputClosed = Mutex(false)
    private let exitStatus = Mutex<Int32?>(nil)

    /// The facts, shared with the thread that reads the events.
    final class Box: Sendable {
        let facts = Mutex(Facts())
    }

    /// Starts `canvas join` with `arguments` (the events it prints must include `state`).
    init(executable: String, name: String, group: Int, arguments: [String], logFile: URL) throws {
        self.name = name
        self.group = group
        process = try ChildProcess(executable, ["join"] + arguments, log: logFile.path, pipeInput: true, pipeOutput: true)
        let output = process.output
        let thread = Thread { [state] in Self.read(output, into: state) }
        thread.name = "events of \(name)"
        thread.start()
    }

    var pid: Int32 { process.pid }
    var facts: Facts { state.facts.withLock { $0 } }
    var isRunning: Bool {
        exitStatus.withLock { status in
            if status == nil { status = process.poll() }
            return status == nil
        }
    }

    /// Writes one line (an operation) to the node's standard input.
    func write(_ line: [UInt8]) {
        guard !inputClosed.withLock({ $0 }) else { return }
        var bytes = line
        bytes.append(UInt8(ascii: "\n"))
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(process.input, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                inputClosed.withLock { $0 = true }
                return
            }
            written += result
        }
    }

    /// SIGINT: the node leaves its rooms and prints its last events; waits for it.
    func stop(timeout: Double = 20) {
        guard isRunning else { return }
        process.signal(SIGINT)
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { usleep(20_000) }
        if isRunning {
            process.signal(SIGKILL)
            let status = process.wait()
            exitStatus.withLock { $0 = status }
        }
        // The reader finishes the last lines.
        let end = Date().addingTimeInterval(2)
        while !facts.stopped && Date() < end { usleep(10_000) }
    }

    /// CPU seconds the process used so far (user and system), from /proc.
    var cpuSeconds: Double { ProcessCPU.seconds(of: process.pid) ?? 0 }

    private static func read(_ descriptor: Int32, into state: Box) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                Self.handle(line: pending[start..<newline], readAt: MonotonicTime.nanoseconds(), state: state)
                start = newline + 1
            }
            pending.removeFirst(start)
        }
        close(descriptor)
        state.facts.withLock { $0.stopped = true }
    }

    private static func handle(line: ArraySlice<UInt8>, readAt: UInt64, state: Box) {
        // Most lines are `traced` (dozens a second from each of fifty nodes): read without
        // Foundation's JSON, which made the benchmark's own CPU a tenth of a core taken
        // from the nodes it measures.
        if let traced = TracedLine(line) {
            state.facts.withLock { $0.traced.append((traced.stroke, traced.offset, traced.remote, traced.nanoseconds)) }
            return
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let event = object["event"] as? String
        else { return }
        state.facts.withLock { facts in
            switch event {
            case "started":
                facts.nodeID = object["node"] as? String
            case "state":
                facts.digest = object["digest"] as? String
                facts.points = object["points"] as? Int ?? facts.points
                facts.stateReadAt = readAt
            case "traced":
                if let stroke = object["stroke"] as? String, let offset = object["offset"] as? Int,
                    let time = object["t_ns"] as? Int
                {
                    facts.traced.append((stroke, offset, !(object["author"] is NSNull), UInt64(time)))
                }
            case "member_joined":
                if object["via"] as? String == "lan", let member = object["member"] as? String { facts.lanMembers.insert(member) }
            case "member_left":
                if object["via"] as? String == "lan", let member = object["member"] as? String { facts.lanMembers.remove(member) }
            case "gateway":
                facts.gateway = object["node"] as? String
            case "joined":
                facts.joinedXMPP = true
            case "lan_stats", "xmpp_stats", "sync_stats":
                var numbers: [String: Int] = [:]
                for (key, value) in object { if let number = value as? Int { numbers[key] = number } }
                switch event {
                case "lan_stats": facts.lanStats = numbers
                case "xmpp_stats": facts.xmppStats = numbers
                default: facts.syncStats = numbers
                }
            case "error":
                facts.errors.append(object["message"] as? String ?? "")
            default:
                break
            }
        }
    }
}

/// A `traced` event line as `canvas join` prints it (`NodeEvent.ndjson`): a flat object
/// whose stroke identifier needs no escapes. Nil for any other line, or one it cannot read
/// (which `JSONSerialization` then reads).
struct TracedLine {
    var stroke: String
    var offset: Int
    /// Whether another node drew it (its `author` is not null).
    var remote: Bool
    var nanoseconds: UInt64

    private static let prefix = Array(#"{"event":"traced","#.utf8)

    init?(_ line: ArraySlice<UInt8>) {
        guard line.starts(with: Self.prefix),
            let stroke = Self.string(#""stroke":"#, in: line),
            let offset = Self.integer(#""offset":"#, in: line),
            let author = Self.value(after: #""author":"#, in: line),
            let nanoseconds = Self.integer(#""t_ns":"#, in: line), nanoseconds >= 0
        else { return nil }
        self.stroke = stroke
        self.offset = offset
        remote = !line[author...].starts(with: "null".utf8)
        self.nanoseconds = UInt64(nanoseconds)
    }

    /// Where the value of the field named by `key` (`"name":`) starts.
    private static func value(after key: String, in line: ArraySlice<UInt8>) -> Int? {
        line.firstRange(of: key.utf8)?.upperBound
    }

    private static func string(_ key: String, in line: ArraySlice<UInt8>) -> String? {
        guard let start = value(after: key, in: line), start < line.endIndex, line[start] == UInt8(ascii: "\"") else { return nil }
        guard let end = line[(start + 1)...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let bytes = line[(start + 1)..<end]
        guard !bytes.contains(UInt8(ascii: "\\")) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func integer(_ key: String, in line: ArraySlice<UInt8>) -> Int? {
        guard let start = value(after: key, in: line) else { return nil }
        var index = start
        var number = 0
        while index < line.endIndex, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9") {
            let (product, overflowed) = number.multipliedReportingOverflow(by: 10)
            guard !overflowed else { return nil }
            number = product + Int(line[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > start ? number : nil
    }
}

/// CPU time of processes (their CPU-time clocks, else Linux's /proc) and the machine's load.
enum ProcessCPU {
    /// User plus system seconds of process `pid` (all its threads, ended ones too), nil if
    /// it is gone: from its CPU-time clock, to the nanosecond, else from `/proc/PID/stat`,
    /// in clock ticks (10 ms here: a listening node's 0.3 s of a run read in ticks is
    /// 0.033 µs a point apart from one tick to the next).
    static func seconds(of pid: Int32) -> Double? {
        var clock = clockid_t()
        var time = timespec()
        if clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 {
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        return ticks(of: pid)
    }

    /// User plus system seconds of process `pid` from `/proc/PID/stat`, nil if it is gone.
    static func ticks(of pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The machine's load average over the last minute.
    static var loadAverage: Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return Double(text.split(separator: " ").first ?? "") ?? 0
    }

    /// How many processors the machine has.
    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
}
