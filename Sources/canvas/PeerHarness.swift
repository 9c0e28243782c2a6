import ArgumentParser
import Foundation

/// Runs the peer CRDT libraries' 1000-point test (Benchmarks/peers/peers.py) in a Python
/// virtual environment that `setup.sh` creates on first use.
struct PeerHarness {
    /// One library's figures.
    struct Result {
        var name: String
        var version: String
        var applyMs: Double
        var replicateMs: Double
        var bytesPerPoint: Double
        var error: String?
        var json: [String: Any]
    }

    static var defaultVenv: String {
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache")
        return (cache as NSString).appendingPathComponent("canvas/peers-venv")
    }

    var folder: String
    var venv: String

    func run(points: Int, repeat repetitions: Int) throws -> [Result] {
        let setup = (folder as NSString).appendingPathComponent("setup.sh")
        let script = (folder as NSString).appendingPathComponent("peers.py")
        guard FileManager.default.fileExists(atPath: script) else {
            throw ValidationError("no peer harness at \(script): run from the repository root or pass --peers-harness")
        }
        FileHandle.standardError.write(Data("preparing the peer libraries in \(venv) (first use downloads them)…\n".utf8))
        _ = try execute("/bin/bash", [setup, venv], what: "peer setup")
        let output = try execute((venv as NSString).appendingPathComponent("bin/python"),
                                 [script, "--points", String(points), "--repeat", String(repetitions)], what: "peer harness")
        guard let object = try JSONSerialization.jsonObject(with: output) as? [String: Any],
              let results = object["results"] as? [[String: Any]]
        else { throw ValidationError("the peer harness printed no results") }
        return results.map { entry in
            Result(
                name: entry["peer"] as? String ?? "?", version: entry["version"] as? String ?? "",
                applyMs: entry["apply_ms"] as? Double ?? .nan, replicateMs: entry["replicate_ms"] as? Double ?? .nan,
                bytesPerPoint: entry["update_bytes_per_point"] as? Double ?? .nan, error: entry["error"] as? String,
                json: entry)
        }
    }

    /// Runs a program, passing its standard error through; returns its standard output.
    private func execute(_ executable: String, _ arguments: [String], what: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw ValidationError("\(what): cannot run \(executable): \(error.localizedDescription)")
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("\(what) failed (exit status \(process.terminationStatus)); see the messages above")
        }
        return output
    }
}
