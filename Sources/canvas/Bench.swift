import ArgumentParser
import CanvasBench
import Foundation

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Run the original report's benchmarks, or time shape recognition over real strokes, and print the figures.",
        subcommands: [OnePoint.self, Users.self, Recognition.self]
    )
}

/// Figures from the original report (CRDT Canvas, January 2020), for ratios.
enum OriginalReport {
    static let swiftCRDTThousandPointsMs = 65.7
    static let automergeJSCThousandPointsMs = 48_631.0
    static let pointsPerSecond = 15_220.0
}

extension Bench {
    struct OnePoint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "1000-point",
            abstract: "One stroke, points appended one at a time, each its own APPEND.",
            discussion: """
                Prints the median time for the whole stroke with the CRDT apply alone and with \
                each APPEND encoded to JSON and decoded again, and the bytes per point of the \
                encoded operations. With --peers, also runs the same test on Yrs (pycrdt), Loro \
                and Automerge through their Python bindings (installed on first use into a \
                virtual environment) and prints one table with ratios.
                """
        )

        @Option(help: "Points in the stroke.")
        var points = 1000

        @Option(help: "Timed repetitions (the median is reported).")
        var repetitions = 200

        @Flag(help: "Also run the peer CRDT libraries (Python bindings) and compare.")
        var peers = false

        @Option(help: "Folder of the peer harness (peers.py, setup.sh).")
        var peersHarness = "Benchmarks/peers"

        @Option(help: "Virtual environment for the peers (created on first use).")
        var peersVenv = PeerHarness.defaultVenv

        @Flag(help: "Print machine-readable JSON instead of a table.")
        var json = false

        func validate() throws {
            guard points >= 2 else { throw ValidationError("--points must be at least 2, got \(points)") }
            guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1, got \(repetitions)") }
        }

        func run() throws {
            let result = OnePointBenchmark(points: points, repetitions: repetitions).run()
            let peerResults = peers
                ? try PeerHarness(folder: peersHarness, venv: peersVenv).run(points: points, repeat: 5) : []
            if json {
                var object: [String: Any] = [
                    "benchmark": "1000-point", "points": points, "repetitions": repetitions,
                    "apply_ms": result.applySeconds * 1e3,
                    "apply_us_per_point": result.applySeconds * 1e6 / Double(points),
                    "codec_ms": result.codecSeconds * 1e3,
                    "codec_us_per_point": result.codecSeconds * 1e6 / Double(points),
                    "foundation_codec_ms": result.foundationSeconds * 1e3,
                    "bytes_per_point_single": result.bytesPerPointSingle,
                    "bytes_per_point_batched_15": result.bytesPerPointBatched,
                ]
                if peers {
                    object["peers_bindings"] = "Python"
                    object["peers"] = peerResults.map(\.json)
                }
                try printJSON(object)
                return
            }
            let applyMs = result.applySeconds * 1e3
            let codecMs = result.codecSeconds * 1e3
            print("1000-point test: one stroke of \(points) points, each point its own APPEND (median of \(repetitions) runs)")
            print(table([
                ["", "total", "per point"],
                ["CRDT apply", milliseconds(applyMs), microseconds(applyMs * 1e3 / Double(points))],
                ["encode + decode + apply", milliseconds(codecMs), microseconds(codecMs * 1e3 / Double(points))],
                ["same with Foundation's JSONEncoder/JSONDecoder", milliseconds(result.foundationSeconds * 1e3),
                 microseconds(result.foundationSeconds * 1e6 / Double(points))],
            ]))
            print(String(format: "bytes per point: %.1f (one point per APPEND), %.1f (15 points per APPEND)",
                         result.bytesPerPointSingle, result.bytesPerPointBatched))
            if points == 1000 {
                print(String(format: "original report: native Swift CRDT 65.7 ms (our apply is ×%.0f faster), "
                    + "Automerge via JavaScriptCore 48,631 ms (×%.0f)",
                    OriginalReport.swiftCRDTThousandPointsMs / applyMs, OriginalReport.automergeJSCThousandPointsMs / applyMs))
            }
            guard peers else { return }
            print("\nPeers, measured in this run, called through their Python bindings (the binding adds overhead):")
            var rows = [["library", "apply", "× ours", "replicate", "× ours (codec)", "bytes/point"]]
            rows.append(["Canvas (Swift, native)", milliseconds(applyMs), "1", milliseconds(codecMs), "1",
                         String(format: "%.1f", result.bytesPerPointSingle)])
            for peer in peerResults {
                if let error = peer.error {
                    rows.append(["\(peer.name) \(peer.version)", "error: \(error)", "", "", "", ""])
                    continue
                }
                rows.append([
                    "\(peer.name) \(peer.version)", milliseconds(peer.applyMs), String(format: "%.0f", peer.applyMs / applyMs),
                    milliseconds(peer.replicateMs), String(format: "%.0f", peer.replicateMs / codecMs),
                    String(format: "%.1f", peer.bytesPerPoint),
                ])
            }
            print(table(rows))
            print("apply: the points appended locally, one transaction each; replicate: each update also encoded and applied to a second replica")
        }
    }

    struct Users: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "1000-user",
            abstract: "Many simultaneous authors: in one process, or end to end on real processes (--e2e).",
            discussion: """
                In process: one replica absorbs the APPENDs; every message is decoded from JSON, \
                validated and applied on one core. Prints points per second and how many authors \
                drawing 15 points per second that is.

                With --e2e: starts --nodes `canvas join` processes in --groups LAN groups (each its \
                own multicast group and port) and, unless --server none, a Prosody (or --server \
                ejabberd) server on loopback (scripts/prosody-harness, scripts/ejabberd-harness) \
                with one XMPP room that each group's gateway \
                joins. --users authors, spread over the nodes, draw --rate points per second each \
                through the nodes' standard input for --seconds (an APPEND of the last second's \
                points each second, a new stroke every 4 s, authors out of step). Prints whether \
                and when every node held every point, the draw→apply latency at the other nodes \
                (same LAN, across the XMPP room), CPU per node and per point, and LAN traffic per \
                point; exits 1 if the nodes did not converge. --sweep runs several author counts; \
                --plot draws them (docs/benchmarks.md).
                """
        )

        @Option(name: [.customLong("users"), .customLong("authors")], help: "Simultaneous authors.")
        var users = 1000

        @Flag(help: "Run end to end: real `canvas join` processes, LAN groups, an XMPP room.")
        var e2e = false

        @Flag(
            help: ArgumentHelp(
                "In process, one node's receive path: the LAN datagrams of --members members whose authors draw as with "
                    + "--e2e for --seconds, opened, applied and stored (--memory: not stored) on one thread."))
        var receivePath = false

        @Option(help: "With --receive-path: members sending (a group of 25 nodes has 24 besides the receiver).")
        var members = 24

        @Option(help: "With --e2e: nodes (`canvas join` processes).")
        var nodes = 20

        @Option(
            help: "With --e2e: nodes besides --nodes that draw nothing, spread over the groups: their CPU per point is what receiving alone costs.")
        var listeners = 1

        @Option(help: "With --e2e: LAN groups, bridged through the XMPP room.")
        var groups = 2

        @Option(help: "With --e2e: points per second each author draws.")
        var rate = 15

        @Option(help: "With --e2e: seconds of drawing.")
        var seconds = 30

        @Option(help: "With --e2e: seconds to wait after the load for every node to hold every point.")
        var settle = 60.0

        @Option(
            help: ArgumentHelp(
                "With --e2e: the XMPP server the benchmark starts: prosody, ejabberd, or none (one LAN group only); "
                    + "--xmpp-host uses an existing one instead.",
                valueName: "KIND"))
        var server = "prosody"

        @Option(
            help: ArgumentHelp(
                "With --e2e: use the XMPP server already running at this address instead of starting one "
                    + "(with --xmpp-muc-service, --xmpp-jid and --xmpp-password-file).", valueName: "HOST"))
        var xmppHost: String?

        @Option(help: ArgumentHelp("With --xmpp-host: its client port (STARTTLS).", valueName: "PORT"))
        var xmppPort = 5222

        @Option(help: ArgumentHelp("With --xmpp-host: its multi-user chat service, where the room is made.", valueName: "DOMAIN"))
        var xmppMucService: String?

        @Option(
            help: ArgumentHelp(
                "With --xmpp-host: an account; one per LAN group's gateway (and one more for --legacy-occupant).",
                valueName: "JID"))
        var xmppJid: [String] = []

        @Option(
            help: ArgumentHelp(
                "With --xmpp-host: a file whose first line is the password: one for every --xmpp-jid, or one each in order.",
                valueName: "FILE"))
        var xmppPasswordFile: [String] = []

        @Option(help: ArgumentHelp("With --xmpp-host: the CA its certificate is checked against (default: the system's).", valueName: "FILE"))
        var xmppCaFile: String?

        @Option(help: ArgumentHelp("With --xmpp-host: the server's process id on this machine, to report its CPU.", valueName: "PID"))
        var xmppServerPid: Int32?

        @Flag(
            help: ArgumentHelp(
                "With --e2e: the original app's stand-in joins the room too (Tests/Integration/original_app.py), so the "
                    + "room carries one operation per message for it; reports what it held."))
        var legacyOccupant = false

        @Option(help: ArgumentHelp("With --e2e: author counts to run one after another.", valueName: "N,N,…"))
        var sweep: String?

        @Option(help: ArgumentHelp("With --e2e: draw the runs (latency and CPU against authors) into this SVG.", valueName: "FILE.svg"))
        var plot: String?

        @Flag(help: "With --e2e: nodes without stores (--memory).")
        var memory = false

        @Option(help: ArgumentHelp("With --e2e: the canvas executable the nodes run (default: this one).", valueName: "PATH"))
        var canvas: String?

        @Option(help: ArgumentHelp("With --e2e: the server's harness, scripts/prosody-harness or scripts/ejabberd-harness (default: found above the working directory).", valueName: "PATH"))
        var harness: String?

        @Option(help: ArgumentHelp("With --e2e: keep the nodes' stores and logs in this folder.", valueName: "DIR"))
        var work: String?

        @Option(help: "APPENDs per author.")
        var batches = 20

        @Option(help: "Points per APPEND.")
        var pointsPerBatch = 15

        @Option(help: "Timed repetitions (the median is reported).")
        var repetitions = 10

        @Flag(help: "Print machine-readable JSON instead of text.")
        var json = false

        func validate() throws {
            guard users >= 1, batches >= 1, pointsPerBatch >= 1, repetitions >= 1 else {
                throw ValidationError("--users, --batches, --points-per-batch and --repetitions must be at least 1")
            }
            guard e2e else {
                if sweep != nil || plot != nil { throw ValidationError("--sweep and --plot need --e2e") }
                return
            }
            guard listeners >= 0 else { throw ValidationError("--listeners must be 0 or more (--listeners \(listeners))") }
            guard nodes >= 2, groups >= 1, nodes >= 2 * groups else {
                throw ValidationError("--nodes must be at least 2 per group (--nodes \(nodes), --groups \(groups))")
            }
            guard rate >= 2, seconds >= 1, settle > 0 else {
                throw ValidationError("--rate must be at least 2, --seconds at least 1 and --settle positive")
            }
            let accountsNeeded = groups + (legacyOccupant ? 1 : 0)
            if xmppHost != nil {
                guard xmppMucService != nil, !xmppJid.isEmpty, !xmppPasswordFile.isEmpty else {
                    throw ValidationError("--xmpp-host needs --xmpp-muc-service, --xmpp-jid and --xmpp-password-file")
                }
                guard xmppPasswordFile.count == 1 || xmppPasswordFile.count == xmppJid.count else {
                    throw ValidationError(
                        "--xmpp-password-file: give one for all the accounts or one for each --xmpp-jid (\(xmppJid.count))")
                }
                guard xmppJid.count >= accountsNeeded else {
                    throw ValidationError(
                        "\(groups) LAN group\(groups == 1 ? "" : "s")\(legacyOccupant ? " and the original app's stand-in" : "") need "
                            + "\(accountsNeeded) --xmpp-jid accounts, got \(xmppJid.count)")
                }
                guard (1...65535).contains(xmppPort) else { throw ValidationError("--xmpp-port \(xmppPort): expected 1…65535") }
                _ = try sweepCounts()
                return
            }
            if xmppMucService != nil || !xmppJid.isEmpty || !xmppPasswordFile.isEmpty || xmppCaFile != nil || xmppServerPid != nil {
                throw ValidationError("the --xmpp-… options describe an existing server: they need --xmpp-host")
            }
            guard server == "none" || BenchXMPPServer.Kind(rawValue: server) != nil else {
                throw ValidationError("--server \(server): expected prosody, ejabberd or none")
            }
            if server == "none" && legacyOccupant {
                throw ValidationError("--legacy-occupant needs an XMPP server (--server prosody or ejabberd, or --xmpp-host)")
            }
            if server == "none" && groups > 1 {
                throw ValidationError("--groups \(groups) needs an XMPP server to bridge them; --server none takes one group")
            }
            if server != "none" && accountsNeeded > BenchXMPPServer.harnessUsers.count {
                throw ValidationError(
                    "the harness has \(BenchXMPPServer.harnessUsers.count) accounts: at most \(BenchXMPPServer.harnessUsers.count) groups"
                        + " (one fewer with --legacy-occupant)")
            }
            _ = try sweepCounts()
        }

        func sweepCounts() throws -> [Int] {
            guard let sweep else { return [users] }
            let counts = sweep.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 }) else {
                throw ValidationError("--sweep \(sweep): expected author counts separated by commas, e.g. 100,250,500")
            }
            return counts.map { $0! }
        }

        func run() throws {
            if e2e {
                try runEndToEnd()
                return
            }
            if receivePath {
                try runReceivePath()
                return
            }
            let result = UsersBenchmark(users: users, batches: batches, pointsPerBatch: pointsPerBatch, repetitions: repetitions).run()
            if json {
                try printJSON([
                    "benchmark": "1000-user", "users": users, "points": result.points, "messages": result.messages,
                    "bytes": result.bytes, "seconds": result.seconds, "points_per_second": result.pointsPerSecond,
                    "sustainable_users_at_15_points_per_second": result.sustainableUsers,
                ])
                return
            }
            print("1000-user test: \(users) authors × \(batches) APPENDs × \(pointsPerBatch) points, decoded, validated and applied on one core (median of \(repetitions) runs)")
            print(String(format: "%d messages, %d points, %.1f MB of JSON in %@", result.messages, result.points,
                         Double(result.bytes) / 1e6, milliseconds(result.seconds * 1e3)))
            print(String(format: "%.0f points/s per core: %.0f authors at 15 points/s (original report: 15,220 points/s, ≈1000 authors; ×%.0f)",
                         result.pointsPerSecond, result.sustainableUsers, result.pointsPerSecond / OriginalReport.pointsPerSecond))
        }
    }
}

extension Bench.Users {
    /// `--receive-path`: the traffic made once, received `--repetitions` times by new nodes.
    func runReceivePath() throws {
        let benchmark = ReceivePathBenchmark(
            authors: users, members: members, seconds: seconds, pointsPerSecond: rate,
            storeDirectory: memory ? nil : URL(fileURLWithPath: work ?? NSTemporaryDirectory()))
        let traffic = try benchmark.traffic()
        var results: [ReceivePathBenchmark.Result] = []
        for _ in 0..<max(1, repetitions) {
            let result = try benchmark.run(traffic)
            guard result.pointsHeld == result.points else {
                throw ValidationError("the receiving node holds \(result.pointsHeld) of \(result.points) points: the run is wrong")
            }
            results.append(result)
        }
        let perPoint = results.map(\.microsecondsPerPoint).sorted()
        let perDatagram = results.map(\.microsecondsPerDatagram).sorted()
        let first = results[0]
        if json {
            try printJSON([
                "benchmark": "receive-path", "authors": users, "members": members, "seconds": seconds, "stored": !memory,
                "datagrams": first.datagrams, "operations": first.operations, "points": first.points,
                "cpu_us_per_point_least": perPoint[0], "cpu_us_per_point_median": perPoint[perPoint.count / 2],
                "cpu_us_per_datagram_least": perDatagram[0],
            ])
            return
        }
        print(
            "receive path in process: \(first.points) points in \(first.operations) operations and \(first.datagrams) datagrams "
                + "from \(members) members (\(users) authors × \(rate) points/s for \(seconds) s), "
                + (memory ? "not stored" : "stored") + ", one thread, \(results.count) runs")
        print(
            String(
                format: "CPU %.3f µs per point (least), %.3f (median); %.1f µs per datagram (least)", perPoint[0],
                perPoint[perPoint.count / 2], perDatagram[0]))
    }
}

func milliseconds(_ value: Double) -> String {
    value >= 100 ? String(format: "%.0f ms", value) : value >= 1 ? String(format: "%.2f ms", value) : String(format: "%.3f ms", value)
}

func microseconds(_ value: Double) -> String {
    value >= 1 ? String(format: "%.2f µs", value) : String(format: "%.0f ns", value * 1e3)
}

/// Left-aligned columns separated by two spaces.
func table(_ rows: [[String]]) -> String {
    let widths = rows.reduce(into: [Int]()) { widths, row in
        for (column, cell) in row.enumerated() {
            if column >= widths.count { widths.append(0) }
            widths[column] = max(widths[column], cell.count)
        }
    }
    return rows.map { row in
        row.enumerated().map { column, cell in
            cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
        }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }.joined(separator: "\n")
}

func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}
