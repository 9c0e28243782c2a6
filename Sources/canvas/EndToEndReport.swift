import ArgumentParser
import CanvasBench
import Foundation

extension Bench.Users {
    /// `canvas bench 1000-user --e2e`: one run per author count, figures as text or JSON,
    /// a plot of a sweep; exit status 1 when a run did not converge.
    func runEndToEnd() throws {
        let executable = canvas ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let repository = BenchXMPPServer.findRepository()
        let source = try serverSource(repository: repository)
        let base = work.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("canvas-e2e-\(UInt32.random(in: 0...UInt32.max))")
        var results: [EndToEndRun.Result] = []
        for (index, authors) in try sweepCounts().enumerated() {
            let run = EndToEndRun(
                nodes: nodes, groups: groups, listeners: listeners,
                load: AuthorLoad(authors: authors, pointsPerSecond: rate, seconds: seconds, seed: UInt64(index + 1)),
                settle: settle, server: source, canvas: executable, repository: repository,
                work: base.appendingPathComponent("run-\(authors)"), durable: !memory, progress: !json,
                legacyOccupant: legacyOccupant)
            let result = try run.run()
            results.append(result)
            if !json { print(Self.text(result)) }
        }
        if json {
            let objects = results.map(Self.object)
            try printJSON(["benchmark": "1000-user-e2e", "machine": Self.machine, "runs": objects])
        }
        if let plot {
            try EndToEndPlot.svg(results).write(toFile: plot, atomically: true, encoding: .utf8)
            if !json { print("plot: \(plot)") }
        }
        if work == nil { try? FileManager.default.removeItem(at: base) }
        if results.contains(where: { !$0.converged }) {
            throw ExitCode(1)
        }
    }

    /// The run's XMPP server: the existing one of `--xmpp-host`, the harness of `--server`
    /// (`--harness`, or the repository's), or none.
    private func serverSource(repository: URL?) throws -> BenchXMPPServer.Source? {
        if let xmppHost, let xmppMucService {
            let accounts = xmppJid.enumerated().map { index, jid in
                BenchXMPPServer.Account(jid: jid, passwordFile: xmppPasswordFile[xmppPasswordFile.count == 1 ? 0 : index])
            }
            for account in accounts { _ = try account.password() }
            return .existing(
                BenchXMPPServer.Existing(
                    host: xmppHost, port: xmppPort, mucService: xmppMucService, accounts: accounts, caFile: xmppCaFile,
                    pid: xmppServerPid))
        }
        guard let kind = BenchXMPPServer.Kind(rawValue: server) else { return nil }
        guard let harness = harness.map({ URL(fileURLWithPath: $0) }) ?? repository?.appendingPathComponent(kind.harnessPath) else {
            throw ValidationError(
                "cannot find \(kind.harnessPath) (run from the repository, or give --harness PATH, --xmpp-host HOST or --server none)")
        }
        return .harness(kind, harness)
    }

    static var machine: [String: Any] {
        ["cores": ProcessCPU.cores, "load_average_1m": ProcessCPU.loadAverage]
    }

    static func ms(_ seconds: Double?) -> String {
        seconds.map { milliseconds($0 * 1e3) } ?? "-"
    }

    static func text(_ result: EndToEndRun.Result) -> String {
        let run = result.run
        var lines: [String] = []
        lines.append(
            "1000-user test end to end: \(run.load.authors) authors × \(run.load.pointsPerSecond) points/s for \(run.load.seconds) s "
                + "over \(run.nodes) nodes\(run.listeners > 0 ? " (and \(run.listeners) listening)" : "") in \(run.groups) LAN group\(run.groups == 1 ? "" : "s")"
                + (run.server.map { " bridged by one \($0.displayName) room" } ?? "")
                + " (\(ProcessCPU.cores) cores, load average \(String(format: "%.1f", result.loadAverage)))")
        lines.append(
            result.converged
                ? String(format: "converged: every node holds all %d points, %.2f s after the load's end", result.totalPoints, result.convergedAfter ?? 0)
                : "NOT converged within \(Int(run.settle)) s: behind: \(result.fellBehind.joined(separator: ", "))")
        for node in result.behind {
            lines.append(
                "  \(node.name) held \(node.held) of \(result.totalPoints) points; LAN: \(node.nacks) NACKs sent, "
                    + "\(node.lossesGivenUp) losses given up; anti-entropy: \(node.answers) answers, \(node.deferred) exchanges put off")
        }
        lines.append(
            "draw→apply, same LAN: p50 \(ms(result.sameLAN.median)), p99 \(ms(result.sameLAN.p99)), max \(ms(result.sameLAN.max)) (\(result.sameLAN.count) traced)")
        if run.groups > 1 {
            lines.append(
                "draw→apply, across the XMPP room: p50 \(ms(result.acrossXMPP.median)), p99 \(ms(result.acrossXMPP.p99)), max \(ms(result.acrossXMPP.max)) (\(result.acrossXMPP.count) traced)")
            if result.atReceivingGateway.count > 0 {
                lines.append(
                    "  of which to the receiving gateway: p50 \(ms(result.atReceivingGateway.median)), p99 \(ms(result.atReceivingGateway.p99))")
            }
        }
        let cpu = result.nodes.map(\.cpuSeconds)
        lines.append(
            String(
                format: "CPU per node: mean %.2f s, max %.2f s over %.1f s of load and settling; %.2f µs per point received",
                cpu.reduce(0, +) / Double(max(1, cpu.count)), cpu.max() ?? 0, result.loadSeconds + (result.convergedAfter ?? run.settle),
                result.cpuPerPointMicroseconds))
        if let listening = result.listenerCPUPerPointMicroseconds {
            lines.append(String(format: "CPU of the nodes that only listen: %.2f µs per point received", listening))
        }
        lines.append(
            String(
                format: "LAN: %.3f datagrams and %.1f bytes sent per point drawn (all nodes), %.3f NACKs, %.3f repairs",
                result.lanPerPoint("datagrams_sent"), result.lanPerPoint("bytes_sent"), result.lanPerPoint("nacks_sent"),
                result.lanPerPoint("repairs_sent")))
        lines.append(
            String(
                format: "anti-entropy: %.1f bytes of sync messages (%.1f of them answers, %.1f stroke lists, %d exchanges put off) "
                    + "and %.1f bytes of repaired operations sent per point drawn (all nodes)",
                result.syncPerPoint("sync_bytes"), result.syncPerPoint("answer_bytes"), result.syncPerPoint("stroke_list_bytes"),
                result.syncTotal("deferred"), result.syncPerPoint("repair_bytes")))
        if run.withServer {
            let messages = result.xmppTotal("messages_sent")
            let operations = result.xmppTotal("operation_messages_sent")
            let seconds = max(result.loadSeconds, 1)
            lines.append(
                String(
                    format: "XMPP: %d messages into the room (%.1f a second of load: %.1f with operations, %.1f of anti-entropy), "
                        + "%.1f bytes of message text per point drawn",
                    messages, Double(messages) / seconds, Double(operations) / seconds, Double(messages - operations) / seconds,
                    Double(result.xmppTotal("bytes_sent")) / Double(max(1, result.totalPoints))))
        }
        if let serverCPU = result.serverCPUSeconds {
            lines.append(String(format: "XMPP server CPU: %.2f s", serverCPU))
        }
        if result.run.legacyOccupant {
            lines.append(
                result.legacyReport.map {
                    "the original app's stand-in held \($0.points) of \(result.totalPoints) points after \($0.applied) bodies, "
                        + "\($0.crashes) that would have crashed it"
                } ?? "the original app's stand-in gave no report (see original-app.log in the work folder)")
        }
        if result.generatorLagMax > 0.05 {
            lines.append(String(format: "note: the load generator fell behind its schedule by up to %.2f s", result.generatorLagMax))
        }
        return lines.joined(separator: "\n")
    }

    static func object(_ result: EndToEndRun.Result) -> [String: Any] {
        func distribution(_ value: Distribution) -> [String: Any] {
            var object: [String: Any] = ["count": value.count]
            if let median = value.median, let p99 = value.p99, let max = value.max {
                object["p50_ms"] = median * 1e3
                object["p99_ms"] = p99 * 1e3
                object["max_ms"] = max * 1e3
            }
            return object
        }
        let run = result.run
        var object: [String: Any] = [
            "authors": run.load.authors, "rate": run.load.pointsPerSecond, "seconds": run.load.seconds, "nodes": run.nodes,
            "groups": run.groups, "listeners": run.listeners, "server": run.server?.tag ?? "none", "stores": run.durable,
            "points": result.totalPoints, "converged": result.converged, "same_lan": distribution(result.sameLAN),
            "across_xmpp": distribution(result.acrossXMPP),
            "across_xmpp_at_receiving_gateway": distribution(result.atReceivingGateway), "cpu_us_per_point": result.cpuPerPointMicroseconds,
            "lan_datagrams_per_point": result.lanPerPoint("datagrams_sent"), "lan_bytes_per_point": result.lanPerPoint("bytes_sent"),
            "lan_nacks_per_point": result.lanPerPoint("nacks_sent"), "lan_repairs_per_point": result.lanPerPoint("repairs_sent"),
            "sync_bytes_per_point": result.syncPerPoint("sync_bytes"), "repair_bytes_per_point": result.syncPerPoint("repair_bytes"),
            "sync_answer_bytes_per_point": result.syncPerPoint("answer_bytes"),
            "sync_stroke_list_bytes_per_point": result.syncPerPoint("stroke_list_bytes"), "sync_deferred": result.syncTotal("deferred"),
            "fell_behind": result.fellBehind,
            "behind": result.behind.map {
                [
                    "node": $0.name, "points_held": $0.held, "nacks_sent": $0.nacks, "losses_given_up": $0.lossesGivenUp,
                    "answers": $0.answers, "deferred": $0.deferred,
                ] as [String: Any]
            },
            "xmpp_messages_sent": result.xmppTotal("messages_sent"),
            "xmpp_operation_messages_sent": result.xmppTotal("operation_messages_sent"),
            "xmpp_bytes_sent": result.xmppTotal("bytes_sent"), "generator_lag_max_s": result.generatorLagMax,
            "load_average_1m": result.loadAverage,
            "node_cpu_s": result.nodes.map(\.cpuSeconds),
        ]
        if let after = result.convergedAfter { object["converged_after_s"] = after }
        if let listening = result.listenerCPUPerPointMicroseconds { object["listener_cpu_us_per_point"] = listening }
        if let serverCPU = result.serverCPUSeconds { object["server_cpu_s"] = serverCPU }
        if let report = result.legacyReport {
            object["legacy_occupant"] = ["points": report.points, "crashes": report.crashes, "applied": report.applied]
        }
        return object
    }
}
