import ArgumentParser
import COpenSSL
import CanvasRuntime
import CanvasWeb
import Foundation
import LANCluster
import Logging
import NIOPosix
import Prometheus
import ServiceLifecycle
import UnixSignals
import Synchronization

struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join rooms as a node: keep a replica, draw from standard input, sync with the room.",
        discussion: """
            Connects to the XMPP server of --jid, joins every --room (a multi-user chat room \
            ROOM@SERVICE), catches up from the room's archive and its occupants, and keeps the \
            replica durably in the store folder (--store, by default the one canvas export and \
            canvas store use; --memory keeps it in memory only). Standard input takes NDJSON \
            lines: protocol messages (their operations count as drawn here) and local actions \
            (draw, erase, undo, redo; docs/actions.md), applied to the first room. With --events, \
            standard output gets one JSON event per line (docs/operating.md#events). Logs go to standard error. SIGINT or \
            SIGTERM waits up to 10 s for the rooms to confirm what was sent, leaves the rooms, \
            flushes the store and exits 0; a second signal stops at once.

            Settings may also come from --config FILE, a JSON object with the long option names \
            as keys ("room" takes an array); options on the command line win.
            """
    )

    @Option(name: .customLong("room"), help: ArgumentHelp("A room to join, ROOM@SERVICE (repeat for several rooms).", valueName: "ROOM"))
    var rooms: [String] = []

    @Option(help: ArgumentHelp("The XMPP account, USER@DOMAIN.", valueName: "JID"))
    var jid: String?

    @Option(help: ArgumentHelp("A file holding the account's password (one line).", valueName: "FILE"))
    var passwordFile: String?

    @Option(help: "The nickname in the rooms (default: this node's id).")
    var nick: String?

    @Option(
        help: ArgumentHelp(
            "The XMPP server's host, or HOST:PORT (default: the servers of the JID's domain's DNS SRV records, "
                + "then the domain). Repeat it for the members of a cluster: a failed or lost connection tries the "
                + "next at once.", valueName: "HOST"))
    var host: [String] = []

    @Option(help: "The XMPP server's port (default: 5222, or 5223 with --direct-tls).")
    var port: Int?

    @Option(help: ArgumentHelp("Trust the CAs of this PEM file instead of the system's.", valueName: "PEM"))
    var caFile: String?

    @Flag(help: "Use TLS from the first byte (XEP-0368) instead of STARTTLS.")
    var directTLS = false

    @Flag(help: "Accept any server certificate. For tests only: anyone can then read and change the room.")
    var insecureSkipTLSVerify = false

    @Flag(help: .private)  // Plaintext XMPP, for a local test server only.
    var plaintextForTesting = false

    @Option(
        help: ArgumentHelp(
            "Keep the replicas durably in this store folder (default: $XDG_DATA_HOME/canvas, or ~/.local/share/canvas).",
            valueName: "DIR"))
    var store: String?

    @Flag(help: "Keep the replicas in memory only (nothing is stored; peers keep what was sent).")
    var memory = false

    @Option(
        help: ArgumentHelp(
            "Compact a room's store when its log passes BYTES (default 1048576) and --compact-ratio times its snapshot.",
            valueName: "BYTES"))
    var compactLogBytes: Int?

    @Option(
        help: ArgumentHelp(
            "Compact a room's store when its log passes this many times its snapshot (default 4; 0: by --compact-log-bytes alone).",
            valueName: "N"))
    var compactRatio: Int?

    @Flag(help: "Write events as NDJSON on standard output.")
    var events = false

    @Option(
        help: ArgumentHelp(
            "Write only these events (comma-separated names, e.g. state,gateway; implies --events).", valueName: "NAMES"))
    var eventsOnly: String?

    /// The event names `--events-only` lists (nil: all events, when `--events` is given).
    private var eventNames: Set<String>? {
        eventsOnly.map { Set($0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }) }
    }

    @Option(
        help: ArgumentHelp(
            "Report the operations on strokes whose identifier starts with PREFIX as `traced` events, with the time they were applied (for latency measurements).",
            valueName: "PREFIX"))
    var traceStrokes: String?

    @Option(help: ArgumentHelp("Log level on standard error: trace, debug, info, notice, warning, error, critical.", valueName: "LEVEL"))
    var logLevel: String?

    @Option(help: ArgumentHelp("Keep an SVG of the room up to date in this file.", valueName: "FILE.svg"))
    var export: String?

    @Option(help: ArgumentHelp("Seconds between SVG updates (default 5).", valueName: "SECONDS"))
    var exportInterval: Double?

    @Option(help: ArgumentHelp("Read settings from this JSON file.", valueName: "FILE"))
    var config: String?

    @Flag(help: "Also cluster with nodes of the same room on the LAN (implied without --jid).")
    var lan = false

    @Option(help: ArgumentHelp("The LAN interface (name or IPv4 address; default: the first with multicast).", valueName: "IF"))
    var lanInterface: String?

    @Option(help: ArgumentHelp("The LAN multicast group (default 239.255.77.77).", valueName: "ADDRESS"))
    var lanGroup: String?

    @Option(help: ArgumentHelp("The LAN UDP port (default 47777).", valueName: "PORT"))
    var lanPort: Int?

    @Option(help: ArgumentHelp("Authenticate every LAN datagram with the room key in this file.", valueName: "FILE"))
    var lanKeyFile: String?

    @Option(
        help: ArgumentHelp(
            "Serve the page (draw in a browser), /healthz and /metrics on ADDRESS:PORT (e.g. 127.0.0.1:8080; port 0: any).",
            valueName: "ADDRESS:PORT"))
    var http: String?

    @Option(
        help: ArgumentHelp(
            "The page's access token, in this file (one line). Required beyond loopback; without it a random token is printed in the URL.",
            valueName: "FILE"))
    var httpTokenFile: String?

    @Option(help: .private)  // Seconds between LAN beacons (tests shorten it).
    var lanBeaconInterval: Double?

    @Option(help: .private)  // Milliseconds the LAN socket rests between reads (benchmarks compare; 0 reads each datagram at once).
    var lanReadInterval: Double?

    @Option(help: .private)  // Sent fragments the LAN keeps for repairs (tests bound it: it fills for minutes).
    var lanRetransmissionFragments: Int?

    @Flag(help: .private)  // Behave as a node of the previous version: JSON and version 1 datagrams only on the LAN (tests).
    var lanJSONOnly = false

    @Flag(help: .private)  // Behave as a node of the previous version: JSON only in XMPP rooms (tests).
    var xmppJSONOnly = false

    @Option(help: .private)  // Faults injected into outgoing LAN datagrams: dup=P,delay=P,max-delay-ms=N (tests).
    var lanFaults: String?

    mutating func validate() throws {
        if let config { try merge(JoinConfigFile.load(config)) }
        if rooms.isEmpty { throw ValidationError("give at least one --room ROOM@SERVICE (or a room name on the LAN)") }
        if jid != nil && passwordFile == nil {
            throw ValidationError("give --password-file FILE with the password of \(jid ?? "the account")")
        }
        if jid == nil && passwordFile != nil { throw ValidationError("--password-file needs --jid USER@DOMAIN") }
        if let lanPort, !(1...65535).contains(lanPort) { throw ValidationError("--lan-port \(lanPort) is not a UDP port (1-65535)") }
        if let lanRetransmissionFragments, lanRetransmissionFragments < 1 {
            throw ValidationError("--lan-retransmission-fragments must be at least 1")
        }
        if let lanBeaconInterval, !(lanBeaconInterval > 0) {
            throw ValidationError("--lan-beacon-interval must be a positive number of seconds")
        }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port \(port) is not a TCP port (1-65535)") }
        if let exportInterval, !(exportInterval > 0) {
            throw ValidationError("--export-interval must be a positive number of seconds, not \(exportInterval)")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level \(logLevel) is not one of trace, debug, info, notice, warning, error, critical")
        }
        if let names = eventNames {
            if let unknown = names.sorted().first(where: { !NodeEvent.names.contains($0) }) {
                throw ValidationError(
                    "--events-only: no event is named \"\(unknown)\"; known: \(NodeEvent.names.sorted().joined(separator: ", "))")
            }
        }
        if let http, WebListenAddress(http) == nil {
            throw ValidationError("--http \(http) is not ADDRESS:PORT (e.g. 127.0.0.1:8080, [::1]:8080)")
        }
        if httpTokenFile != nil && http == nil { throw ValidationError("--http-token-file needs --http ADDRESS:PORT") }
        if let compactLogBytes, compactLogBytes < 0 {
            throw ValidationError("--compact-log-bytes must be a number of bytes (0 or more), not \(compactLogBytes)")
        }
        if let compactRatio, compactRatio < 0 {
            throw ValidationError("--compact-ratio must be a whole number (0 or more), not \(compactRatio)")
        }
        if memory && (compactLogBytes != nil || compactRatio != nil) {
            throw ValidationError("--compact-log-bytes and --compact-ratio apply to a store; --memory keeps none")
        }
        if memory && store != nil {
            throw ValidationError("--store and --memory contradict each other: choose one")
        }
        if insecureSkipTLSVerify && caFile != nil {
            throw ValidationError("--ca-file and --insecure-skip-tls-verify contradict each other: choose one")
        }
    }

    /// The page's server, with `--http`: started before the node, so that a page opened
    /// at once waits for it; its URL is printed on standard error.
    private func startWebServer(for node: Node, registry: PrometheusCollectorRegistry, logger: Logger) async throws -> WebServer? {
        guard let http, let address = WebListenAddress(http) else { return nil }
        var token: String?
        if let httpTokenFile {
            do {
                token = try String(contentsOfFile: httpTokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw ValidationError("cannot read the token file \(httpTokenFile): \(error.localizedDescription)")
            }
            if token?.isEmpty != false { throw ValidationError("the token file \(httpTokenFile) is empty") }
        } else if !address.isLoopback {
            token = WebAccess.randomToken()
        }
        let server: WebServer
        do {
            server = try WebServer(
                node: node, configuration: WebServer.Configuration(host: address.host, port: address.port, token: token), logger: logger,
                registry: registry)
            try await server.start()
        } catch {
            logger.critical("cannot serve the page: \(error)")
            throw ExitCode(1)
        }
        FileHandle.standardError.write(Data("canvas: the page is at \(server.url ?? http)\n".utf8))
        return server
    }

    /// Prometheus through swift-metrics, with histogram buckets fit for a store's writes
    /// (an fsync takes from tens of microseconds to tens of milliseconds).
    static func metricsFactory(_ registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["canvas_store_local_write_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
        ]
        return factory
    }

    func run() async throws {
        // OpenSSL frees its global state in an atexit handler unless told not to; a thread
        // still using it (or ending, which runs OpenSSL's cleanup of the thread) while the
        // process exits then crashes. The node's loop thread is also joined before exit
        // (below); this covers any other. Before any other use of OpenSSL.
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
        let level = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "canvas")
        var configuration = NodeConfiguration(
            rooms: rooms, storage: memory ? .memory : .folder(store ?? StoreLocation.defaultDirectory.path))
        if let jid, let passwordFile {
            let password: String
            do {
                password = try String(contentsOfFile: passwordFile, encoding: .utf8).trimmingCharacters(in: .newlines)
            } catch {
                throw ValidationError("cannot read the password file \(passwordFile): \(error.localizedDescription)")
            }
            var account = NodeConfiguration.XMPPAccount(jid: jid, password: password)
            account.hosts = host
            account.port = port
            account.caFile = caFile
            account.directTLS = directTLS
            account.insecureSkipTLSVerify = insecureSkipTLSVerify
            account.plaintextForTesting = plaintextForTesting
            account.nickname = nick
            account.compactPayloads = !xmppJSONOnly
            configuration.xmpp = account
        }
        if lan || jid == nil {
            var settings = NodeConfiguration.LANSettings(
                socket: ClusterSocketConfiguration(
                    group: lanGroup ?? "239.255.77.77", port: lanPort ?? 47777, interface: lanInterface))
            if let lanKeyFile {
                do {
                    settings.key = Array(try Data(contentsOf: URL(fileURLWithPath: lanKeyFile)))
                } catch {
                    throw ValidationError("cannot read the LAN key file \(lanKeyFile): \(error.localizedDescription)")
                }
                if settings.key!.isEmpty { throw ValidationError("the LAN key file \(lanKeyFile) is empty") }
            }
            if let lanBeaconInterval { settings.beaconInterval = .milliseconds(Int(lanBeaconInterval * 1000)) }
            if let lanReadInterval {
                guard lanReadInterval >= 0, lanReadInterval <= 1000 else {
                    throw ValidationError("--lan-read-interval \(lanReadInterval): expected 0 to 1000 milliseconds")
                }
                settings.socket.readInterval = .microseconds(Int(lanReadInterval * 1000))
            }
            settings.retransmissionBufferFragments = lanRetransmissionFragments
            settings.compactPayloads = !lanJSONOnly
            if let lanFaults {
                do {
                    settings.socket.faults = try DatagramFaults(parsing: lanFaults)
                } catch {
                    throw ValidationError("--lan-faults: \(error)")
                }
                logger.warning("injecting faults into LAN datagrams (a test setting)", metadata: ["faults": "\(lanFaults)"])
            }
            configuration.lan = settings
        }
        if let compactLogBytes { configuration.compaction.minimumLogBytes = compactLogBytes }
        if let compactRatio { configuration.compaction.logToSnapshotRatio = compactRatio }
        configuration.exportPath = export
        configuration.traceStrokePrefix = traceStrokes
        if let exportInterval { configuration.exportInterval = .milliseconds(Int(exportInterval * 1000)) }
        // One thread for the node's sockets and loop, and for handling standard input: a line
        // read reaches the node without waking another thread.
        let loopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let served: Result<Void, any Error>
        do {
            try await serve(configuration, on: loopGroup, logger: logger)
            served = .success(())
        } catch {
            served = .failure(error)
        }
        // The loop's thread has ended before the process does. A thread that was still
        // ending (OpenSSL's cleanup of the thread) while exit() tore OpenSSL down crashed a
        // node on SIGTERM (SIGSEGV in libcrypto, 1 of 50 nodes in the namespace test).
        try? await loopGroup.shutdownGracefully()
        try served.get()
    }

    /// Runs the node on `loopGroup`, with its page, standard input and events, until it
    /// stops (SIGTERM or SIGINT, or the end of its input).
    private func serve(_ configuration: NodeConfiguration, on loopGroup: MultiThreadedEventLoopGroup, logger: Logger)
        async throws
    {
        // With the page served, the node's metrics are exported on its /metrics.
        let registry = PrometheusCollectorRegistry()
        let node = Node(
            configuration: configuration, logger: logger, eventLoopGroup: loopGroup,
            metrics: http == nil ? nil : Self.metricsFactory(registry))
        let wanted = eventNames
        let loop = EventLoopTaskExecutor(loopGroup.next())
        let output = events || wanted != nil ? await EventOutput.open(on: loop.eventLoop, logger: logger) : nil
        // Subscribed before the node starts, so that `started` is the first line. A reader
        // that stops reading must not stop the node's sockets and timers (its beacons: the
        // LAN would take it for gone): a pipe is written from the node's own loop without
        // blocking it, anything else from a thread of the global pool (`EventOutput`). A
        // reader that falls behind holds back only the node's handling of inputs
        // (`EventSubscribers`).
        let printer = output.map { output in
            let events = wanted.map { node.events(named: $0) } ?? node.events
            return Task(executorPreference: output.writesWithoutBlocking ? loop : nil) {
                for await event in events { await output.writeWaitingForTheReader(event.ndjson) }
                await output.close()
            }
        }
        let web = try await startWebServer(for: node, registry: registry, logger: logger)
        defer { if let web { Task { await web.stop() } } }
        StandardInput.feed(node, room: rooms[0], on: loop, output: output, logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: node, successTerminationBehavior: .gracefullyShutdownGroup)], logger: logger))
        let running = Task { try await group.run() }
        // SIGINT or SIGTERM: the group's graceful shutdown (the node drains); a second one
        // cancels it (the node stops at once). One watcher sees both: the group's own signal
        // handling acts on the first signal only.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let watcher = Task {
            var count = 0
            for await _ in signals {
                count += 1
                if count == 1 { await group.triggerGracefulShutdown() } else { running.cancel() }
            }
        }
        defer { watcher.cancel() }
        do {
            try await running.value
        } catch let error as NodeError {
            logger.critical("\(error)")
            await printer?.value
            throw ExitCode(1)
        } catch let error as ServiceGroupError {
            // The node's own error comes wrapped when the group reports it.
            logger.critical("\(error)")
            await printer?.value
            throw ExitCode(1)
        }
        await printer?.value
    }

    /// Takes the config file's settings where the command line gave none.
    private mutating func merge(_ file: JoinConfigFile) {
        if rooms.isEmpty { rooms = file.rooms }
        jid = jid ?? file.jid
        passwordFile = passwordFile ?? file.passwordFile
        nick = nick ?? file.nick
        if host.isEmpty { host = file.hosts }
        port = port ?? file.port
        caFile = caFile ?? file.caFile
        directTLS = directTLS || file.directTLS
        insecureSkipTLSVerify = insecureSkipTLSVerify || file.insecureSkipTLSVerify
        store = store ?? file.store
        memory = memory || file.memory
        compactLogBytes = compactLogBytes ?? file.compactLogBytes
        compactRatio = compactRatio ?? file.compactRatio
        events = events || file.events
        logLevel = logLevel ?? file.logLevel
        export = export ?? file.export
        exportInterval = exportInterval ?? file.exportInterval
        lan = lan || file.lan
        lanInterface = lanInterface ?? file.lanInterface
        lanGroup = lanGroup ?? file.lanGroup
        lanPort = lanPort ?? file.lanPort
        lanKeyFile = lanKeyFile ?? file.lanKeyFile
    }
}

/// The settings of `canvas join --config FILE`: a JSON object keyed by long option names.
struct JoinConfigFile {
    var rooms: [String] = []
    var hosts: [String] = []
    var jid, passwordFile, nick, caFile, store, logLevel, export: String?
    var port: Int?
    var exportInterval: Double?
    var directTLS = false, insecureSkipTLSVerify = false, events = false, lan = false, memory = false
    var lanInterface, lanGroup, lanKeyFile: String?
    var lanPort: Int?
    var compactLogBytes, compactRatio: Int?

    static let keys: Set<String> = [
        "room", "jid", "password-file", "nick", "host", "port", "ca-file", "direct-tls", "insecure-skip-tls-verify",
        "store", "memory", "events", "log-level", "export", "export-interval", "lan", "lan-interface", "lan-group", "lan-port",
        "lan-key-file", "compact-log-bytes", "compact-ratio",
    ]

    static func load(_ path: String) throws -> JoinConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot read the config file \(path): \(error.localizedDescription)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ValidationError("the config file \(path) is not a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw ValidationError(
                "the config file \(path) has an unknown setting \"\(unknown)\"; known: \(keys.sorted().joined(separator: ", "))")
        }
        func string(_ key: String) throws -> String? {
            guard let value = object[key] else { return nil }
            guard let text = value as? String else { throw ValidationError("\(path): \"\(key)\" must be a string") }
            return text
        }
        func flag(_ key: String) throws -> Bool {
            guard let value = object[key] else { return false }
            guard let bool = value as? Bool else { throw ValidationError("\(path): \"\(key)\" must be true or false") }
            return bool
        }
        func number(_ key: String) throws -> Double? {
            guard let value = object[key] else { return nil }
            guard let number = value as? NSNumber, !(value is Bool) else { throw ValidationError("\(path): \"\(key)\" must be a number") }
            return number.doubleValue
        }
        var file = JoinConfigFile()
        switch object["room"] {
        case nil: break
        case let room as String: file.rooms = [room]
        case let rooms as [String]: file.rooms = rooms
        default: throw ValidationError("\(path): \"room\" must be a string or an array of strings")
        }
        file.jid = try string("jid")
        file.passwordFile = try string("password-file")
        file.nick = try string("nick")
        switch object["host"] {
        case nil: break
        case let host as String: file.hosts = [host]
        case let hosts as [String]: file.hosts = hosts
        default: throw ValidationError("\(path): \"host\" must be a string or an array of strings (the members of a cluster)")
        }
        file.caFile = try string("ca-file")
        file.store = try string("store")
        file.logLevel = try string("log-level")
        file.export = try string("export")
        func wholeNumber(_ key: String) throws -> Int? {
            guard let value = try number(key) else { return nil }
            guard value == value.rounded(), abs(value) < 1e15 else { throw ValidationError("\(path): \"\(key)\" must be a whole number") }
            return Int(value)
        }
        file.port = try wholeNumber("port")
        file.compactLogBytes = try wholeNumber("compact-log-bytes")
        file.compactRatio = try wholeNumber("compact-ratio")
        file.exportInterval = try number("export-interval")
        file.directTLS = try flag("direct-tls")
        file.insecureSkipTLSVerify = try flag("insecure-skip-tls-verify")
        file.events = try flag("events")
        file.memory = try flag("memory")
        file.lan = try flag("lan")
        file.lanInterface = try string("lan-interface")
        file.lanGroup = try string("lan-group")
        file.lanKeyFile = try string("lan-key-file")
        file.lanPort = try wholeNumber("lan-port")
        return file
    }
}

/// `--http ADDRESS:PORT`: `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:0`.
struct WebListenAddress {
    var host: String
    var port: Int

    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }

    /// Whether only this machine can reach it.
    var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }
}
