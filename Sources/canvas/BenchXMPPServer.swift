import ArgumentParser
import Foundation

/// The XMPP server of a benchmark: a throwaway one on loopback, started and stopped with one
/// of the repository's harnesses (`scripts/prosody-harness`, `scripts/ejabberd-harness`,
/// which install their server when missing), or an existing one the user names
/// (`--xmpp-host …`); and what a node needs to reach it.
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

    /// Where a run's server comes from.
    enum Source {
        /// Started for the run by the harness of `kind`, in the run's work folder.
        case harness(Kind, URL)
        /// A server that is already running, reached with these settings.
        case existing(Existing)

        /// The server's name in the figures.
        var displayName: String {
            switch self {
            case .harness(let kind, _): kind.displayName
            case .existing(let existing): "XMPP server at \(existing.host):\(existing.port)"
            }
        }

        /// The name in the JSON figures: the kind, or "existing".
        var tag: String {
            switch self {
            case .harness(let kind, _): kind.rawValue
            case .existing: "existing"
            }
        }
    }

    /// An existing server (`--xmpp-host`, `--xmpp-port`, `--xmpp-muc-service`, `--xmpp-jid`,
    /// `--xmpp-password-file`, `--xmpp-ca-file`, `--xmpp-server-pid`).
    struct Existing {
        var host: String
        var port: Int
        var mucService: String
        var accounts: [Account]
        var caFile: String?
        var pid: Int32?
    }

    /// An account on the server: the gateways use them in order, the original app's
    /// stand-in (`--legacy-occupant`) the one after.
    struct Account {
        var jid: String
        var passwordFile: String

        /// The password, the file's first line.
        func password() throws -> String {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8),
                let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, !line.isEmpty
            else { throw ValidationError("cannot read the password of \(jid) from \(passwordFile)") }
            return String(line)
        }
    }

    let displayName: String
    let host: String
    let port: String
    let mucService: String
    /// The CA the server's certificate is checked against (nil: the system's).
    let caFile: String?
    /// The server's process id, for its CPU time (nil: not known, or not on this machine).
    let pid: Int32?
    let accounts: [Account]
    /// What stops the server (nothing for an existing one).
    private let stopAction: () -> Void

    /// The server of `source`; a harness starts its server in `folder`, where the accounts'
    /// password files are written too.
    static func start(_ source: Source, in folder: URL) throws -> BenchXMPPServer {
        switch source {
        case .existing(let existing):
            return BenchXMPPServer(
                displayName: source.displayName, host: existing.host, port: String(existing.port), mucService: existing.mucService,
                caFile: existing.caFile, pid: existing.pid, accounts: existing.accounts, stopAction: {})
        case .harness(let kind, let harness):
            let directory = folder.appendingPathComponent(kind.rawValue)
            try run(harness, ["start", directory.path])
            let text = try String(contentsOf: directory.appendingPathComponent("env"), encoding: .utf8)
            var settings: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
                    .trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
            }
            for key in ["XMPP_HOST", "XMPP_PORT", "XMPP_DOMAIN", "MUC_SERVICE", "CA_FILE", "SERVER_PID"] where settings[key] == nil {
                try? run(harness, ["stop", directory.path])
                throw ValidationError("the XMPP server's settings (\(directory.path)/env) lack \(key)")
            }
            let accounts = try harnessUsers.map { user in
                let file = folder.appendingPathComponent("\(user).password")
                try "\(harnessPassword(of: user))\n".write(to: file, atomically: true, encoding: .utf8)
                return Account(jid: "\(user)@\(settings["XMPP_DOMAIN"]!)", passwordFile: file.path)
            }
            return BenchXMPPServer(
                displayName: kind.displayName, host: settings["XMPP_HOST"]!, port: settings["XMPP_PORT"]!,
                mucService: settings["MUC_SERVICE"]!, caFile: settings["CA_FILE"]!, pid: Int32(settings["SERVER_PID"]!),
                accounts: accounts, stopAction: { try? run(harness, ["stop", directory.path]) })
        }
    }

    func stop() { stopAction() }

    /// The options of `canvas join` (and of the original app's stand-in) that reach the server.
    var connectionArguments: [String] {
        ["--host", host, "--port", port] + (caFile.map { ["--ca-file", $0] } ?? [])
    }

    /// The password of the harness's account `user`.
    static func harnessPassword(of user: String) -> String { "\(user)-pw" }

    /// The harness's accounts, in order: one per LAN group's gateway, the last for the
    /// original app's stand-in.
    static let harnessUsers = ["alice", "bob", "carol", "dave", "erin", "mallory"]

    /// The repository this executable belongs to: the first folder above the working
    /// directory or the executable that holds `scripts/prosody-harness`.
    static func findRepository() -> URL? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for start in [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), executable.deletingLastPathComponent()] {
            var folder = start
            for _ in 0..<8 {
                if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent(Kind.prosody.harnessPath).path) {
                    return folder
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }

    private static func run(_ harness: URL, _ arguments: [String]) throws {
        // Its output goes to a file, not a pipe: the server it starts keeps its descriptors.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-harness-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let status = try ChildProcess(harness.path, arguments, log: log.path).wait()
        guard status == 0 else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw ValidationError("\(harness.path) \(arguments.joined(separator: " ")) failed (status \(status)):\n\(text)")
        }
    }
}
