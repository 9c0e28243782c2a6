import ArgumentParser
import Foundation

/// A throwaway XMPP server on loopback for a benchmark, started and stopped with one of the
/// repository's harnesses (`scripts/prosody-harness`, `scripts/ejabberd-harness`, which
/// install their server when missing), and what a node needs to reach it.
struct BenchXMPPServer {
    /// The servers the harnesses start.
    enum Kind: String, CaseIterable {
        case prosody, ejabberd

        /// The harness's path in the repository.
        var harnessPath: String { "scripts/\(rawValue)-harness" }

        /// The server's name as people write it.
        var displayName: String {
            switch self {
            case .prosody: "Prosody"
            case .ejabberd: "ejabberd"
            }
        }
    }

    let directory: URL
    let harness: URL
    /// The harness's `env` file: XMPP_HOST, XMPP_PORT, XMPP_DOMAIN, MUC_SERVICE, CA_FILE …
    let settings: [String: String]

    /// Starts a server in `directory` with `harness`.
    static func start(harness: URL, in directory: URL, environment: [String: String] = [:]) throws -> BenchXMPPServer {
        try run(harness, ["start", directory.path], environment: environment)
        let text = try String(contentsOf: directory.appendingPathComponent("env"), encoding: .utf8)
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
                .trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        }
        for key in ["XMPP_HOST", "XMPP_PORT", "XMPP_DOMAIN", "MUC_SERVICE", "CA_FILE", "SERVER_PID"] where settings[key] == nil {
            throw ValidationError("the XMPP server's settings (\(directory.path)/env) lack \(key)")
        }
        return BenchXMPPServer(directory: directory, harness: harness, settings: settings)
    }

    func stop() {
        try? Self.run(harness, ["stop", directory.path], environment: [:])
    }

    var host: String { settings["XMPP_HOST"]! }
    var port: String { settings["XMPP_PORT"]! }
    var domain: String { settings["XMPP_DOMAIN"]! }
    var mucService: String { settings["MUC_SERVICE"]! }
    var caFile: String { settings["CA_FILE"]! }

    /// The server's process id, for its CPU time.
    var pid: Int32? { Int32(settings["SERVER_PID"]!) }

    /// The account `user` of the harness (alice, bob, carol, dave, erin, mallory) and a
    /// file with its password, written into `folder`.
    func account(_ user: String, passwordFileIn folder: URL) throws -> (jid: String, passwordFile: String) {
        let file = folder.appendingPathComponent("\(user).password")
        try "\(Self.password(of: user))\n".write(to: file, atomically: true, encoding: .utf8)
        return ("\(user)@\(domain)", file.path)
    }

    /// The password of the harness's account `user`.
    static func password(of user: String) -> String { "\(user)-pw" }

    /// The harness's accounts, in order.
    static let users = ["alice", "bob", "carol", "dave", "erin", "mallory"]

    /// Finds the harness of `kind` above the working directory or this executable.
    static func findHarness(_ kind: Kind) -> URL? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for start in [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), executable.deletingLastPathComponent()] {
            var folder = start
            for _ in 0..<8 {
                let candidate = folder.appendingPathComponent(kind.harnessPath)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }

    private static func run(_ harness: URL, _ arguments: [String], environment: [String: String]) throws {
        // Its output goes to a file, not a pipe: the server it starts keeps its descriptors.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-harness-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let status = try ChildProcess(harness.path, arguments, environment: environment, log: log.path).wait()
        guard status == 0 else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw ValidationError("\(harness.path) \(arguments.joined(separator: " ")) failed (status \(status)):\n\(text)")
        }
    }
}
