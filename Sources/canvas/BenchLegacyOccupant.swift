import ArgumentParser
import Foundation

/// The original app's stand-in (`Tests/Integration/original_app.py`: it receives and draws
/// exactly as the iOS app does) as an occupant of the benchmark's room, so that the nodes
/// keep one operation per `<body>` for it (PROTOCOL.md §14) and the benchmark measures how
/// many authors such a room carries. It runs in the repository's Python environment for the
/// XMPP tests (slixmpp), made with `scripts/venv.sh` when missing.
struct BenchLegacyOccupant {
    let process: ChildProcess
    let log: URL

    /// What the stand-in held when it left.
    struct Report {
        /// Points of the strokes it holds, as the app counts them.
        var points: Int
        /// Messages that would have crashed the app.
        var crashes: Int
        /// Bodies it applied.
        var applied: Int
    }

    /// Joins `room` on `server` with `account` (nick `ipad`), from the repository at `root`.
    static func start(
        repository root: URL, server: BenchXMPPServer, account: BenchXMPPServer.Account, room: String, work: URL
    ) throws -> BenchLegacyOccupant {
        let script = root.appendingPathComponent("Tests/Integration/original_app.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw ValidationError("--legacy-occupant needs the repository's \(script.path)")
        }
        let python = try pythonEnvironment(repository: root, work: work)
        let log = work.appendingPathComponent("original-app.log")
        let process = try ChildProcess(
            python,
            [script.path, "--jid", account.jid, "--password", try account.password(), "--room", room, "--nick", "ipad"]
                + server.connectionArguments + ["--linger", "86400"],
            log: log.path)
        return BenchLegacyOccupant(process: process, log: log)
    }

    /// Asks the stand-in to report and leave (SIGTERM ends its stay); its report, or nil
    /// when it gave none within `timeout` seconds.
    func finish(timeout: Double = 20) -> Report? {
        process.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.poll() == nil {
            guard Date() < deadline else {
                process.signal(SIGKILL)
                _ = process.wait()
                return nil
            }
            usleep(100_000)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n").reversed() {
            guard line.hasPrefix("{"),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let points = object["points"] as? Int
            else { continue }
            let crashes = (object["crashes"] as? [String: Any])?["count"] as? Int ?? 0
            let applied = (object["received"] as? [String: Any])?["applied"] as? Int ?? 0
            return Report(points: points, crashes: crashes, applied: applied)
        }
        return nil
    }

    /// The Python of the XMPP tests' environment (CANVAS_VENV_PYTHON, or the one
    /// `scripts/test` makes), made now if missing.
    private static func pythonEnvironment(repository root: URL, work: URL) throws -> String {
        if let python = ProcessInfo.processInfo.environment["CANVAS_VENV_PYTHON"] { return python }
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
        let venv = URL(fileURLWithPath: cache).appendingPathComponent("canvas/xmpp-venv")
        let python = venv.appendingPathComponent("bin/python").path
        let setup = work.appendingPathComponent("venv-setup.log")
        let status = try ChildProcess(
            "/bin/bash",
            [
                "-c",
                "cd \"$2\" && source scripts/lib.sh && source scripts/venv.sh && require_venv \"$1\" Tests/Integration/requirements.txt",
                "venv", venv.path, root.path,
            ],
            log: setup.path
        ).wait()
        guard status == 0 else {
            throw ValidationError("cannot make the Python environment in \(venv.path) (see \(setup.path))")
        }
        return python
    }
}
