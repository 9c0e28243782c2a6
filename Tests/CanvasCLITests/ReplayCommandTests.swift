import Foundation
import Testing

@Suite("canvas replay")
struct ReplayCommandTests {
    @Test func summarisesTheBundledExample() throws {
        let outcome = try CanvasCommand.run(["replay", "examples/whiteboard.ndjson"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput == "strokes 4, points 78, erased intervals 3, anomalies 0, invalid lines 0\n")
        #expect(outcome.standardError.isEmpty)
    }

    @Test func anyOrderGivesTheSameStateAndDigest() throws {
        let lines = try String(contentsOf: CanvasCommand.repository.appendingPathComponent("examples/whiteboard.ndjson"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let forward = try CanvasCommand.temporaryFile(lines.joined(separator: "\n"))
        let backward = try CanvasCommand.temporaryFile((lines.reversed() + lines.prefix(3)).joined(separator: "\n"))
        let a = try CanvasCommand.run(["replay", "--state", "--digest", forward])
        let b = try CanvasCommand.run(["replay", "--state", "--digest", backward])
        #expect(a.status == 0 && b.status == 0)
        #expect(a.standardOutput == b.standardOutput)
        let digest = try #require(a.standardOutput.split(separator: "\n").last)
        #expect(digest.count == 16 && digest.allSatisfy(\.isHexDigit))
        #expect(a.standardOutput.hasPrefix(#"{"strokes":[{"identifier":"alice-1","header":{"weight":3,"#))
    }

    @Test func invalidLinesAreReportedSkippedAndFailTheExitStatus() throws {
        let file = try CanvasCommand.temporaryFile(
            """
            {"type":"ADD","identifier":"s","weight":1,"colour":[0,0,0],"start":[0,0]}

            {"type":"APPEND","identifier":"s","points":[[1,1],[2,"x"]],"offset":1}
            not json
            {"type":"APPEND","identifier":"s","points":[[1,1],[2,2]],"offset":1}
            {"type":"LASER_POINTER","at":[3,4]}
            """)
        let outcome = try CanvasCommand.run(["replay", file])
        #expect(outcome.status == 1)
        #expect(
            outcome.standardError
                == """
                \(file):3: error: APPEND.points[1][1]: expected a finite number, got "x"
                \(file):4: error: at byte 0: expected a value, found 'n'

                """)
        #expect(
            outcome.standardOutput
                == "strokes 1, points 3, erased intervals 0, anomalies 0, invalid lines 2, unsupported messages 1\n")
    }

    @Test func readsStandardInputWhenNoFileOrDashIsGiven() throws {
        let input = #"{"type":"ADD","identifier":"s","weight":1,"colour":[0,0,0],"start":[0,0]}"# + "\n"
        let implicit = try CanvasCommand.run(["replay"], input: input)
        let dash = try CanvasCommand.run(["replay", "-"], input: input)
        #expect(implicit.status == 0)
        #expect(implicit.standardOutput == "strokes 1, points 1, erased intervals 0, anomalies 0, invalid lines 0\n")
        #expect(dash.standardOutput == implicit.standardOutput)
        let broken = try CanvasCommand.run(["replay"], input: "{\n")
        #expect(broken.standardError.hasPrefix("<stdin>:1: error: "))
    }

    @Test func placeholdersAndPendingPointsAreCounted() throws {
        let file = try CanvasCommand.temporaryFile(
            #"{"type":"APPEND","identifier":"late","points":[[5,5]],"offset":4}"# + "\n")
        let outcome = try CanvasCommand.run(["replay", file])
        #expect(outcome.standardOutput == "strokes 1, placeholders 1, points 0, pending points 1, erased intervals 0, anomalies 0, invalid lines 0\n")
    }

    @Test func aMissingFileIsAClearError() throws {
        let outcome = try CanvasCommand.run(["replay", "/nonexistent/ops.ndjson"])
        #expect(outcome.status != 0)
        #expect(outcome.standardError.contains("cannot read /nonexistent/ops.ndjson"))
    }
}

@Suite("canvas bench")
struct BenchCommandTests {
    @Test func onePointPrintsItsFiguresAsJSON() throws {
        let outcome = try CanvasCommand.run(["bench", "1000-point", "--points", "50", "--repetitions", "2", "--json"])
        #expect(outcome.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        #expect(object["points"] as? Int == 50)
        #expect((object["apply_ms"] as? Double ?? 0) > 0)
        #expect((object["codec_ms"] as? Double ?? 0) > 0)
        #expect((object["bytes_per_point_single"] as? Double ?? 0) > (object["bytes_per_point_batched_15"] as? Double ?? .infinity))
    }

    @Test func usersPrintsItsFigures() throws {
        let outcome = try CanvasCommand.run(["bench", "1000-user", "--users", "20", "--batches", "2", "--repetitions", "1"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains("40 messages, 600 points"))
        #expect(outcome.standardOutput.contains("points/s per core"))
    }

    @Test func badOptionsAreRejected() throws {
        let outcome = try CanvasCommand.run(["bench", "1000-point", "--points", "1"])
        #expect(outcome.status != 0)
        #expect(outcome.standardError.contains("--points must be at least 2"))
    }
}
