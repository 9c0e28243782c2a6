import Foundation
import Testing

/// `canvas join` refuses what it cannot use before touching the network, naming the
/// option or setting to fix. (Joining real rooms is tested against Prosody in
/// Tests/Integration/test_xmpp.py.)
@Suite("canvas join: settings")
struct JoinCommandTests {
    private func refusal(_ arguments: [String]) throws -> String {
        let outcome = try CanvasCommand.run(["join"] + arguments)
        #expect(outcome.status != 0)
        return outcome.standardError
    }

    @Test func aRoomAndAnAccountAreRequired() throws {
        #expect(try refusal([]).contains("--room"))
        #expect(try refusal(["--room", "a@rooms.example.org", "--password-file", "/dev/null"]).contains("--jid"))
        #expect(try refusal(["--room", "a@rooms.example.org", "--jid", "u@example.org"]).contains("--password-file"))
    }

    @Test func badValuesAreNamed() throws {
        let base = ["--room", "a@rooms.example.org", "--jid", "u@example.org", "--password-file", "/dev/null"]
        #expect(try refusal(base + ["--port", "70000"]).contains("--port 70000"))
        #expect(try refusal(base + ["--log-level", "loud"]).contains("--log-level loud"))
        #expect(try refusal(base + ["--export-interval", "0"]).contains("--export-interval"))
        #expect(try refusal(base + ["--events-only", "state,statte"]).contains(#"no event is named "statte""#))
        #expect(
            try refusal(base + ["--ca-file", "/tmp/ca.pem", "--insecure-skip-tls-verify"]).contains("contradict"))
        #expect(try refusal(base + ["--compact-log-bytes=-1"]).contains("--compact-log-bytes must be a number of bytes"))
        #expect(try refusal(base + ["--compact-ratio=-2"]).contains("--compact-ratio must be a whole number"))
        #expect(try refusal(base + ["--memory", "--compact-ratio", "1"]).contains("--memory keeps none"))
    }

    @Test func theConfigFileGivesSettingsAndNamesItsMistakes() throws {
        let unknown = try CanvasCommand.temporaryFile(#"{"room": "a@rooms.example.org", "colour": "blue"}"#)
        #expect(try refusal(["--config", unknown]).contains("unknown setting \"colour\""))
        let wrongType = try CanvasCommand.temporaryFile(#"{"room": "a@rooms.example.org", "port": "5222"}"#)
        #expect(try refusal(["--config", wrongType]).contains("\"port\" must be a number"))
        let badHosts = try CanvasCommand.temporaryFile(#"{"room": "a@rooms.example.org", "host": [1, 2]}"#)
        #expect(try refusal(["--config", badHosts]).contains("\"host\" must be a string or an array of strings"))
        let fraction = try CanvasCommand.temporaryFile(#"{"room": "a@rooms.example.org", "compact-ratio": 1.5}"#)
        #expect(try refusal(["--config", fraction]).contains("\"compact-ratio\" must be a whole number"))
        let notObject = try CanvasCommand.temporaryFile("[1, 2]")
        #expect(try refusal(["--config", notObject]).contains("is not a JSON object"))
        // Settings from the file count: only the password file is missing here.
        let partial = try CanvasCommand.temporaryFile(#"{"room": ["a@rooms.example.org"], "jid": "u@example.org"}"#)
        #expect(try refusal(["--config", partial]).contains("--password-file"))
    }

    @Test func anInvalidJIDIsRefusedBeforeConnecting() throws {
        let password = try CanvasCommand.temporaryFile("secret\n")
        let outcome = try CanvasCommand.run(
            ["join", "--room", "a@rooms.example.org", "--jid", "no-domain", "--password-file", password],
            input: "")
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("user@domain"))
    }
}
