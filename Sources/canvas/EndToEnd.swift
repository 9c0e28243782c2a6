import ArgumentParser
import CanvasBench
import CanvasRuntime
import Foundation

/// The 1000-user test on real processes (`canvas bench 1000-user --e2e`): `canvas join`
/// nodes in LAN groups (each its own multicast group and port), each group's first node a
/// gateway into one XMPP room on a server started for the run, and authors drawing through
/// the nodes' standard input (`AuthorLoad`). It measures convergence, draw→apply latency
/// (traced strokes), CPU and traffic, and fails when the nodes do not converge.
struct EndToEndRun {
    /// The nodes the authors draw on.
    var nodes: Int
    var groups: Int
    /// Nodes besides `nodes` that draw nothing (spread over the groups, never gateways):
    /// their CPU per point is what receiving alone costs.
    var listeners = 0
    var load: AuthorLoad
    /// How long to wait after the load for every node to hold every point.
    var settle: Double
    /// The XMPP server of the run (nil: LAN only).
    var server: BenchXMPPServer.Source?
    var canvas: String
    /// The repository (for the original app's stand-in).
    var repository: URL?
    var work: URL
    var durable: Bool
    var progress: Bool
    /// Whether the original app's stand-in joins the room (which then carries one
    /// operation per body: `BenchLegacyOccupant`).
    var legacyOccupant = false

    var withServer: Bool { server != nil }

    /// A node's figures.
    struct NodeFigures {
        var name: String
        var group: Int
        /// Whether the node only listens (no author draws on it).
        var listens: Bool
        var cpuSeconds: Double
        var pointsReceived: Int
        /// Points it held when the run ended.
        var pointsHeld: Int
        var converged: Bool
        /// Seconds after the load's end when it held every point (nil: never).
        var convergedAfter: Double?
        var lanStats: [String: Int]
        var xmppStats: [String: Int]
        var syncStats: [String: Int]
    }

    /// What one run measured.
    struct Result {
        var run: EndToEndRun
        var totalPoints: Int
        var converged: Bool
        var convergedAfter: Double?
        var sameLAN: Distribution
        var acrossXMPP: Distribution
        /// Across the room, at the gateways that took it from the room: how much of
        /// `acrossXMPP` the room's leg takes (the rest is the two LANs).
        var atReceivingGateway: Distribution
        var nodes: [NodeFigures]
        var serverCPUSeconds: Double?
        var generatorLagMax: Double
        var loadSeconds: Double
        var loadAverage: Double
        /// What the original app's stand-in held at the end (with `legacyOccupant`).
        var legacyReport: BenchLegacyOccupant.Report?

        /// CPU per point received over every node, drawing included (each node's own
        /// authors' input, its durable writes and sends).
        var cpuPerPointMicroseconds: Double { Self.cpuPerPoint(nodes) }
        /// CPU per point received of the nodes that only listen (nil: none): what absorbing
        /// the LAN's traffic costs a node.
        var listenerCPUPerPointMicroseconds: Double? {
            let listeners = nodes.filter(\.listens)
            return listeners.isEmpty ? nil : Self.cpuPerPoint(listeners)
        }
        private static func cpuPerPoint(_ nodes: [NodeFigures]) -> Double {
            let cpu = nodes.reduce(0) { $0 + $1.cpuSeconds }
            let points = nodes.reduce(0) { $0 + $1.pointsReceived }
            return points > 0 ? cpu / Double(points) * 1e6 : 0
        }
        var fellBehind: [String] { behind.map(\.name) }
        /// The nodes that fell behind, with what tells why: the points each held, the LAN's
        /// NACKs and given-up losses, and anti-entropy's answers and put-off exchanges.
        var behind: [(name: String, held: Int, nacks: Int, lossesGivenUp: Int, answers: Int, deferred: Int)] {
            nodes.filter { !$0.converged }.map {
                (
                    $0.name, $0.pointsHeld, $0.lanStats["nacks_sent"] ?? 0, $0.lanStats["losses_given_up"] ?? 0,
                    $0.syncStats["answers"] ?? 0, $0.syncStats["deferred"] ?? 0
                )
            }
        }
        func lanPerPoint(_ key: String) -> Double { perPoint(\.lanStats, key) }
        /// Anti-entropy's sends (all nodes, all transports) per point drawn.
        func syncPerPoint(_ key: String) -> Double { perPoint(\.syncStats, key) }
        /// A counter of anti-entropy, summed over every node.
        func syncTotal(_ key: String) -> Int { total(\.syncStats, key) }
        /// A counter of every node's shutdown report, summed, per point drawn.
        private func perPoint(_ report: KeyPath<NodeFigures, [String: Int]>, _ key: String) -> Double {
            Double(total(report, key)) / Double(max(1, totalPoints))
        }
        /// A counter of every node's shutdown report, summed.
        private func total(_ report: KeyPath<NodeFigures, [String: Int]>, _ key: String) -> Int {
            nodes.reduce(0) { $0 + ($1[keyPath: report][key] ?? 0) }
        }
        /// What all nodes sent into the XMPP room, in total.
        func xmppTotal(_ key: String) -> Int { total(\.xmppStats, key) }
    }

    func run() throws -> Result {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var server: BenchXMPPServer?
        var started: [BenchNode] = []
        defer {
            for node in started where node.isRunning { node.stop(timeout: 5) }
            server?.stop()
        }
        if let source = self.server {
            if case .harness = source { say("starting \(source.displayName)") }
            server = try BenchXMPPServer.start(source, in: work)
        }
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let room = server.map { "bench-\(tag)@\($0.mucService)" } ?? "bench-\(tag)"
        let lanGroups = try (0..<groups).map { group in
            ("239.255.\(90 + group).\(Int.random(in: 1...254))", try freeUDPPort())
        }
        say(
            "starting \(nodes) nodes\(listeners > 0 ? " and \(listeners) listening" : "") in \(groups) LAN group\(groups == 1 ? "" : "s")"
                + (server == nil ? "" : ", each with a gateway to \(room)"))
        // Node i is in group i % groups, so that authors (author a draws on node a % nodes)
        // spread evenly over the groups; the listeners come after them.
        for index in 0..<(nodes + listeners) {
            let group = index % groups
            let name = index < nodes ? "n\(group)-\(index / groups)" : "l\(group)-\((index - nodes) / groups)"
            var arguments = [
                "--room", room, "--lan", "--lan-group", lanGroups[group].0, "--lan-port", String(lanGroups[group].1),
                "--events-only", "started,state,traced,member_joined,member_left,gateway,joined,lan_stats,xmpp_stats,sync_stats,error",
                "--trace-strokes", AuthorLoad.tracedPrefix, "--log-level", "warning",
            ]
            arguments += durable ? ["--store", work.appendingPathComponent("store-\(name)").path] : ["--memory"]
            if let server, index < groups {  // each group's first node is its gateway
                let account = server.accounts[group]
                arguments += ["--jid", account.jid, "--password-file", account.passwordFile, "--nick", name] + server.connectionArguments
            }
            started.append(
                try BenchNode(
                    executable: canvas, name: name, group: group, arguments: arguments,
                    logFile: work.appendingPathComponent("\(name).log")))
        }
        let nodeList = started
        let isGateway = { (index: Int) in server != nil && index < groups }
        func ready(_ index: Int) -> Bool {
            let facts = nodeList[index].facts
            let groupSize = nodeList.filter { $0.group == nodeList[index].group }.count
            return facts.lanMembers.count == groupSize - 1
                && (!isGateway(index) || (facts.joinedXMPP && facts.gateway != nil && facts.gateway == facts.nodeID))
        }
        try waitUntil(
            seconds: 60, "every node in its LAN group\(server == nil ? "" : " and each group's gateway in the room")",
            status: {
                nodeList.indices.filter { !ready($0) }.map { index in
                    let facts = nodeList[index].facts
                    return "\(nodeList[index].name): \(facts.lanMembers.count) LAN members"
                        + (isGateway(index) ? ", \(facts.joinedXMPP ? "in" : "not in") the room, gateway \(facts.gateway ?? "none")" : "")
                }.joined(separator: "; ")
            }
        ) { nodeList.indices.allSatisfy(ready) }
        for node in nodeList { if let failure = node.facts.errors.first { throw ValidationError("\(node.name): \(failure)") } }
        var occupant: BenchLegacyOccupant?
        defer { if let occupant, occupant.process.poll() == nil { occupant.process.signal(SIGKILL); _ = occupant.process.wait() } }
        if legacyOccupant, let server {
            guard let repository else { throw ValidationError("--legacy-occupant needs the repository (run it from there)") }
            say("the original app's stand-in joins the room")
            occupant = try BenchLegacyOccupant.start(
                repository: repository, server: server, account: server.accounts[groups], room: room, work: work)
            sleep(3)  // joined, seen by the gateways without the Canvas capabilities
        }

        // The load.
        let emits = load.emits()
        say("drawing: \(load.authors) authors × \(load.pointsPerSecond) points/s for \(load.seconds) s (\(load.totalPoints) points)")
        let cpuBefore = nodeList.map(\.cpuSeconds)
        let serverCPUBefore = server?.pid.flatMap(ProcessCPU.seconds(of:))
        let start = MonotonicTime.nanoseconds() + 200_000_000
        var sent: [AuthorLoad.TracedOperation: (at: UInt64, node: Int)] = [:]
        var lagMax = 0.0
        var nextReport = 1.0
        var written = 0
        var drawnAt = Array(repeating: 0, count: nodeList.count)  // points each node drew
        for emit in emits {
            let due = start + UInt64(emit.time * 1e9)
            let now = MonotonicTime.nanoseconds()
            if due > now { usleep(UInt32(min(1_000_000, (due - now) / 1000))) }
            let node = emit.author % nodes
            nodeList[node].write(emit.line)
            let at = MonotonicTime.nanoseconds()
            if at > due { lagMax = max(lagMax, Double(at - due) / 1e9) }
            if let traced = emit.traced { sent[traced] = (at, node) }
            written += emit.points
            drawnAt[node] += emit.points
            if progress, emit.time >= nextReport {
                let points = nodeList.map { $0.facts.points }
                say(String(format: "  %3.0f s: %d points drawn; nodes hold %d…%d", emit.time, written, points.min() ?? 0, points.max() ?? 0))
                nextReport += 5
            }
        }
        let loadEnd = MonotonicTime.nanoseconds()
        say("load done; waiting for every node to hold all \(load.totalPoints) points (at most \(Int(settle)) s)")
        var reachedAt: [UInt64?] = Array(repeating: nil, count: nodeList.count)
        let deadline = loadEnd + UInt64(settle * 1e9)
        while MonotonicTime.nanoseconds() < deadline {
            let facts = nodeList.map(\.facts)
            for (index, fact) in facts.enumerated() where reachedAt[index] == nil && fact.points >= load.totalPoints {
                reachedAt[index] = fact.stateReadAt
            }
            let digests = Set(facts.compactMap(\.digest))
            if reachedAt.allSatisfy({ $0 != nil }) && digests.count == 1 { break }
            usleep(50_000)
        }
        let finalFacts = nodeList.map(\.facts)
        let agreed = Set(finalFacts.compactMap(\.digest)).count == 1 && finalFacts.allSatisfy { $0.points == load.totalPoints }
        let cpuAfter = nodeList.map(\.cpuSeconds)
        let serverCPU = zip(serverCPUBefore.map { [$0] } ?? [], server?.pid.flatMap(ProcessCPU.seconds(of:)).map { [$0] } ?? [])
            .map { $1 - $0 }.first
        let loadAverage = ProcessCPU.loadAverage
        if occupant != nil { say("the original app's stand-in reports and leaves") }
        let legacyReport = occupant?.finish()
        say("stopping the nodes")
        for node in nodeList { node.stop() }

        // Latency of traced operations at the nodes that did not draw them.
        var sameLAN: [Double] = []
        var across: [Double] = []
        var atGateway: [Double] = []
        for (index, node) in nodeList.enumerated() {
            for traced in node.facts.traced where traced.remote {
                guard let origin = sent[AuthorLoad.TracedOperation(stroke: traced.stroke, offset: traced.offset)],
                    origin.node != index, traced.at >= origin.at
                else { continue }
                let seconds = Double(traced.at - origin.at) / 1e9
                if nodeList[origin.node].group == node.group { sameLAN.append(seconds) } else { across.append(seconds) }
                if isGateway(index), nodeList[origin.node].group != node.group { atGateway.append(seconds) }
            }
        }
        var figures: [NodeFigures] = []
        for (index, node) in nodeList.enumerated() {
            figures.append(
                NodeFigures(
                    name: node.name, group: node.group, listens: index >= nodes, cpuSeconds: cpuAfter[index] - cpuBefore[index],
                    pointsReceived: load.totalPoints - drawnAt[index], pointsHeld: finalFacts[index].points,
                    converged: reachedAt[index] != nil,
                    convergedAfter: reachedAt[index].map { $0 > loadEnd ? Double($0 - loadEnd) / 1e9 : 0 },
                    lanStats: node.facts.lanStats, xmppStats: node.facts.xmppStats,
                    syncStats: node.facts.syncStats))
        }
        let convergedAfter = agreed ? figures.compactMap(\.convergedAfter).max() : nil
        return Result(
            run: self, totalPoints: load.totalPoints, converged: agreed, convergedAfter: convergedAfter,
            sameLAN: Distribution(sameLAN), acrossXMPP: Distribution(across), atReceivingGateway: Distribution(atGateway),
            nodes: figures, serverCPUSeconds: serverCPU,
            generatorLagMax: lagMax, loadSeconds: Double(loadEnd - start) / 1e9, loadAverage: loadAverage,
            legacyReport: legacyReport)
    }

    private func say(_ text: String) {
        guard progress else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    private func waitUntil(seconds: Double, _ what: String, status: () -> String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                throw ValidationError("timed out after \(Int(seconds)) s waiting for \(what): \(status()) (logs in \(work.path))")
            }
            usleep(100_000)
        }
    }
}

/// A UDP port nobody on this machine has bound, found by binding port 0.
func freeUDPPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw ValidationError("cannot open a UDP socket to find a free port") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = INADDR_ANY
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw ValidationError("cannot bind a UDP socket to find a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}
