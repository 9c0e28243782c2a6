import Foundation
import Testing

@Suite("canvas replay with actions, --ops and --svg; canvas recognize")
struct ActionCommandTests {
    let input = """
        {"action":"draw","points":[[10,10],[60,12],[120,11],[180,10]],"weight":3,"colour":[20,40,220],"recognize":true}
        {"action":"draw","points":[[0,100],[30,130],[60,100],[90,130],[120,100]],"weight":2,"colour":[200,0,0]}
        {"action":"erase","points":[[60,90],[60,140]],"radius":8}
        {"type":"APPEND","identifier":"local_3","points":[[150,130]]}
        {"action":"erase","points":[[60,90],[60,140]],"radius":8}

        """

    /// The wire operations `canvas replay --ops` prints for `actions`, a line each; expects
    /// it to succeed.
    static func operations(replaying actions: String) throws -> [String] {
        let outcome = try CanvasCommand.run(["replay", "--ops", try CanvasCommand.temporaryFile(actions)])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        return outcome.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func actionsBecomeWireOperations() throws {
        let lines = try Self.operations(replaying: input)
        // The recognised line: the hand-drawn stroke, its erasure, the perfect shape, which
        // takes the next number (docs/actions.md).
        #expect(lines[0] == #"{"type":"ADD","identifier":"local_1","weight":3,"colour":[20,40,220],"start":[10,10]}"#)
        #expect(lines[1] == #"{"type":"APPEND","identifier":"local_1","points":[[60,12],[120,11],[180,10]],"offset":1}"#)
        #expect(lines[2] == #"{"type":"DELETE","identifier":"local_1","start_offset":0,"end_offset":3}"#)
        #expect(lines[3].hasPrefix(#"{"type":"ADD","identifier":"local_2","weight":3,"colour":[20,40,220],"start":["#))
        #expect(lines[3].hasSuffix(#""is_shape":true}"#))
        #expect(lines[4].hasPrefix(#"{"type":"APPEND","identifier":"local_2","points":[["#))
        // The zigzag is left alone (no recognition asked), then erased around x = 60.
        #expect(lines[5] == #"{"type":"ADD","identifier":"local_3","weight":2,"colour":[200,0,0],"start":[0,100]}"#)
        #expect(lines[7].hasPrefix(#"{"type":"DELETE","identifier":"local_3","start_offset":1."#))
        // A legacy APPEND without offset is reported with the offset it was placed at.
        #expect(lines[8] == #"{"type":"APPEND","identifier":"local_3","points":[[150,130]],"offset":5}"#)
        // Erasing the same place again finds nothing left to erase.
        #expect(lines.count == 9)
    }

    @Test func summaryCountsRecognisedShapesAndSVGIsWritten() throws {
        let file = try CanvasCommand.temporaryFile(input)
        let svg = (file as NSString).deletingLastPathComponent + "/board.svg"
        let outcome = try CanvasCommand.run(["replay", "--svg", svg, file])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput == "strokes 3, points 12, erased intervals 2, anomalies 0, invalid lines 0, recognised shapes 1\n")
        let written = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(written.hasPrefix("<?xml"))
        #expect(written.components(separatedBy: "<path").count - 1 == 3)  // the shape and the zigzag's two runs
    }

    /// Undo and redo in `canvas replay`: undo erases the last stroke drawn, redo brings it
    /// back under a name derived from it.
    @Test func undoAndRedoBecomeWireOperations() throws {
        let lines = try Self.operations(
            replaying: """
                {"action":"draw","points":[[0,100],[30,130],[60,100]],"weight":2,"colour":[200,0,0]}
                {"action":"undo"}
                {"action":"redo"}
                {"action":"redo"}

                """)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[2] == #"{"type":"REMOVE_STROKE","identifier":"local_1"}"#)
        #expect(lines[3] == #"{"type":"ADD","identifier":"local_1-r1","weight":2,"colour":[200,0,0],"start":[0,100]}"#)
        #expect(lines[4] == #"{"type":"APPEND","identifier":"local_1-r1","points":[[30,130],[60,100]],"offset":1}"#)
    }

    /// Undo after a recognised shape in `canvas replay`: the shape is removed and the stroke
    /// comes back as drawn; the next undo removes that stroke.
    @Test func undoingARecognisedShapeSendsTheStrokeAsDrawnAgain() throws {
        let rectangle = "[[0,0],[100,2],[200,0],[201,60],[200,120],[100,121],[0,120],[1,60],[0,2]]"
        let lines = try Self.operations(
            replaying: """
                {"action":"draw","points":\(rectangle),"weight":2,"colour":[0,0,0],"recognize":true}
                {"action":"undo"}
                {"action":"undo"}

                """)
        #expect(lines.count == 9, "\(lines)")
        #expect(lines[3].hasPrefix(#"{"type":"ADD","identifier":"local_2","#) && lines[3].contains(#""is_shape":true"#))
        #expect(lines[5] == #"{"type":"REMOVE_STROKE","identifier":"local_2"}"#)
        #expect(lines[6] == #"{"type":"ADD","identifier":"local_1-r1","weight":2,"colour":[0,0,0],"start":[0,0]}"#)
        #expect(lines[7].hasPrefix(#"{"type":"APPEND","identifier":"local_1-r1","points":[[100,2],[200,0],"#))
        #expect(lines[8] == #"{"type":"REMOVE_STROKE","identifier":"local_1-r1"}"#)
    }

    @Test func invalidActionsNameTheField() throws {
        let file = try CanvasCommand.temporaryFile(
            """
            {"action":"draw","points":[[1,2],[3,"x"]],"weight":1,"colour":[0,0,0]}
            {"action":"erase","points":[[1,2]],"radius":0}
            {"action":"paint","points":[[1,2]]}
            {"action":"draw","points":[],"weight":1,"colour":[0,0,0]}

            """)
        let outcome = try CanvasCommand.run(["replay", file])
        #expect(outcome.status == 1)
        #expect(
            outcome.standardError == """
                \(file):1: error: draw.points[1][1]: expected a finite number, got "x"
                \(file):2: error: erase.radius: expected a number greater than 0, got 0
                \(file):3: error: action: expected "draw", "erase", "begin", "extend", "end", "undo" or "redo", got "paint"
                \(file):4: error: draw.points: expected at least one point

                """)
    }

    @Test func recognizePrintsOneShapePerLine() throws {
        let outcome = try CanvasCommand.run(
            ["recognize"],
            input: """
                {"points":[[0,0],[50,1],[100,0],[150,1],[200,0]],"label":"ignored"}
                {"points":[[0,0],[10,30],[20,0],[30,30],[40,0]]}
                {"points":"x"}

                """)
        #expect(outcome.status == 1)
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix(#"{"shape":"line","points":[["#))
        #expect(lines[1] == #"{"shape":"none","points":[]}"#)
        #expect(outcome.standardError == "<stdin>:3: error: points: expected an array, got \"x\"\n")
    }

    /// `canvas recognize --two-strokes`: each line's two strokes, a shaft and a head drawn
    /// apart, print the arrow they make (with --explain, each reading and why); a line
    /// without two strokes is an error naming the field, and the others are still read.
    @Test func recognizeReadsTwoStrokesAsOneArrow() throws {
        let arrow =
            #"{"strokes":[[[0,0],[50,1],[100,0],[150,1],[200,0]],[[170,25],[185,12],[202,0],[185,-12],[170,-25]]]}"#
        let outcome = try CanvasCommand.run(
            ["recognize", "--two-strokes", "--explain"],
            input: """
                \(arrow)
                {"strokes":[[[0,0],[50,1],[100,0],[150,1],[200,0]],[[300,25],[300,-25]]]}
                {"strokes":[[[0,0],[1,1]]]}
                {"points":[[0,0],[1,1]]}

                """)
        #expect(outcome.status == 1)
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let objects = try lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects[0]["shape"] as? String == "arrow")
        #expect((objects[0]["points"] as? [[Double]])?.count == 5)
        let readings = try #require(objects[0]["explain"] as? [[String: Any]])
        #expect(readings.contains { $0["verdict"] as? String == "chosen" }, "\(readings)")
        #expect(objects[1]["shape"] as? String == "none")
        let refused = (objects[1]["explain"] as? [[String: Any]] ?? []).compactMap { $0["verdict"] as? String }
        #expect(refused.contains { $0.hasPrefix("not fitted: the first stroke as the shaft") }, "\(refused)")
        #expect(
            outcome.standardError == """
                <stdin>:3: error: strokes: 2 strokes expected, found 1
                <stdin>:4: error: strokes: missing field

                """)
        let plain = try CanvasCommand.run(["recognize", "--two-strokes"], input: arrow + "\n")
        #expect(plain.standardOutput.hasPrefix(#"{"shape":"arrow","points":[[0,"#), "\(plain.standardOutput)")
    }

    /// `canvas recognize --three-strokes`: a shaft and its two barbs drawn apart print the
    /// arrow they make (with --explain, which stroke was read as the shaft); a line of two
    /// strokes is an error naming the field; `--two-strokes` with it is refused. With
    /// `--after-arrow`, a third stroke joins the arrow the first two made (an elbow's first run);
    /// with `--four-strokes`, a fourth the arrow the first three made (a closed head's base).
    @Test func recognizeReadsThreeStrokesAsOneArrow() throws {
        let arrow = #"{"strokes":[[[0,0],[50,1],[100,0],[150,1],[200,0]],[[170,25],[185,12],[202,0]],"#
            + #"[[202,0],[185,-12],[170,-25]]]}"#
        let outcome = try CanvasCommand.run(
            ["recognize", "--three-strokes", "--explain"],
            input: """
                \(arrow)
                {"strokes":[[[0,0],[1,1]],[[2,2],[3,3]]]}

                """)
        #expect(outcome.status == 1)
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["shape"] as? String == "arrow")
        let readings = try #require(object["explain"] as? [[String: Any]])
        let chosen = readings.first { $0["verdict"] as? String == "chosen" }
        #expect((chosen?["fitted_to"] as? String)?.hasPrefix("the first stroke as the shaft") == true, "\(readings)")
        #expect(outcome.standardError == "<stdin>:2: error: strokes: 3 strokes expected, found 2\n")
        let both = try CanvasCommand.run(["recognize", "--two-strokes", "--three-strokes"], input: arrow + "\n")
        #expect(both.status != 0)
        #expect(both.standardError.contains("--two-strokes and --three-strokes exclude each other"))
        // With --after-arrow, an elbow's first run drawn after the arrow of its last run and
        // head joins both (read as the shaft's other piece); without it, the three make none.
        let elbow = #"{"strokes":[[[0,0],[50,1],[100,0],[150,1],[200,0]],[[170,25],[185,12],[202,0],[185,-12],"#
            + #"[170,-25]],[[0,-150],[1,-100],[0,-50],[1,-4]]]}"#
        let after = try CanvasCommand.run(["recognize", "--three-strokes", "--after-arrow", "--explain"], input: elbow)
        let joined = try Self.chosenReading(in: after.standardOutput)
        #expect(joined.shape == "elbow_arrow", "\(after.standardOutput)")
        #expect(
            joined.fittedTo?.hasPrefix("the first and third strokes joined as the shaft") == true,
            "\(after.standardOutput)")
        let alone = try CanvasCommand.run(["recognize", "--three-strokes"], input: elbow)
        #expect(alone.standardOutput.hasPrefix(#"{"shape":"none""#), "\(alone.standardOutput)")
        let afterAlone = try CanvasCommand.run(["recognize", "--after-arrow"], input: arrow + "\n")
        #expect(afterAlone.status != 0)
        #expect(afterAlone.standardError.contains("--after-arrow reads three strokes: add --three-strokes"))
        // With --four-strokes, the base across the barbs' ends joins the arrow the shaft and the
        // two barbs made, closing its head; --after-arrow with it is refused (it says nothing
        // more).
        let closed = String(arrow.dropLast(2)) + #",[[170,25],[170,0],[170,-25]]]}"#
        let four = try CanvasCommand.run(["recognize", "--four-strokes", "--explain"], input: closed)
        let fourJoined = try Self.chosenReading(in: four.standardOutput)
        #expect(fourJoined.shape == "arrow", "\(four.standardOutput)")
        #expect(
            fourJoined.fittedTo
                == "the arrow the first three strokes make, the fourth joined to its head, a closed head",
            "\(four.standardOutput)")
        let fourAfter = try CanvasCommand.run(["recognize", "--four-strokes", "--after-arrow"], input: closed + "\n")
        #expect(fourAfter.status != 0)
        #expect(fourAfter.standardError.contains("--four-strokes always reads a stroke after an arrow"))
    }

    /// The shape `canvas recognize --explain` printed on its one line of `output`, and what the
    /// chosen reading was fitted to.
    static func chosenReading(in output: String) throws -> (shape: String?, fittedTo: String?) {
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let readings = try #require(object["explain"] as? [[String: Any]])
        let chosen = readings.first { $0["verdict"] as? String == "chosen" }
        return (object["shape"] as? String, chosen?["fitted_to"] as? String)
    }

    /// `canvas recognize --joined`: a box drawn as two L's prints the rectangle they make
    /// joined (with --explain, the joined stroke's shapes), a stroke and one far from it none
    /// (not joined, and why), a line of one stroke is an error naming the field.
    /// `--in-a-row` prints what a node makes of each stroke: the first L none, the second the
    /// rectangle taking the first with it, then a line alone; it explains nothing.
    @Test func recognizeJoinsStrokesIntoAClosedShape() throws {
        let firstL = "[[0,120],[0,60],[0,0],[80,0],[160,0],[240,0]]"
        let secondL = "[[240,0],[240,60],[240,120],[160,120],[80,120],[0,120]]"
        let far = "[[600,0],[700,1],[800,0]]"
        let outcome = try CanvasCommand.run(
            ["recognize", "--joined", "--explain"],
            input: """
                {"strokes":[\(firstL),\(secondL)]}
                {"strokes":[\(firstL),\(far)]}
                {"strokes":[\(firstL)]}

                """)
        #expect(outcome.status == 1)
        let objects = try outcome.standardOutput.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 2)
        #expect(objects.first?["shape"] as? String == "rectangle")
        #expect((objects.first?["points"] as? [[Double]])?.count == 5)
        let verdicts = objects.map { ($0["explain"] as? [[String: Any]] ?? []).compactMap { $0["verdict"] as? String } }
        #expect(verdicts.first?.contains("chosen") == true, "\(verdicts)")
        #expect(objects.last?["shape"] as? String == "none")
        #expect(verdicts.last?.first?.hasPrefix("not joined: the strokes meet end to end in no loop") == true)
        #expect(outcome.standardError == "<stdin>:3: error: strokes: 2 to 4 strokes expected, found 1\n")

        let row = try CanvasCommand.run(
            ["recognize", "--in-a-row"], input: #"{"strokes":[\#(firstL),\#(secondL),\#(far)]}"# + "\n")
        #expect(row.status == 0)
        let shapes = try #require(
            (JSONSerialization.jsonObject(with: Data(row.standardOutput.utf8)) as? [String: Any])?["shapes"]
                as? [[String: Any]])
        #expect(shapes.map { $0["shape"] as? String } == ["none", "rectangle", "line"], "\(row.standardOutput)")
        #expect(shapes.map { $0["joins"] as? Int } == [0, 1, 0])
        let explained = try CanvasCommand.run(["recognize", "--in-a-row", "--explain"], input: "")
        #expect(explained.status != 0)
        #expect(explained.standardError.contains("--in-a-row prints no explanation"))
    }

    /// `canvas recognize --explain` on one stroke: the shape recognised and every shape
    /// tried, as printed (it must succeed).
    static func explain(_ points: [[Double]]) throws -> (shape: String?, explained: [[String: Any]]) {
        let line = try String(data: JSONSerialization.data(withJSONObject: ["points": points]), encoding: .utf8)!
        let outcome = try CanvasCommand.run(["recognize", "--explain"], input: line + "\n")
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        return (object["shape"] as? String, try #require(object["explain"] as? [[String: Any]]))
    }

    /// --explain names every shape tried, its scores and verdict: a hand-drawn square is
    /// chosen as a rectangle, the line is refused by its RMS test, the ellipse meets the
    /// square's corners, the elbow arrow is not tried (another shape passes), and the double
    /// arrow finds no head at each end.
    @Test func recognizeExplainsEveryShapeTried() throws {
        var square: [[Double]] = []
        for (from, to) in [((0.0, 0.0), (100.0, 0.0)), ((100, 0), (100, 100)), ((100, 100), (0, 100)), ((0, 100), (0, 0))] {
            for k in 0..<20 {
                let t = Double(k) / 20
                square.append([from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t + (k % 2 == 0 ? 0.5 : -0.5)])
            }
        }
        square.append([0, 0])
        let (shape, explained) = try Self.explain(square)
        #expect(shape == "rectangle")
        let verdicts = Dictionary(explained.map { ($0["shape"] as! String, $0["verdict"] as! String) }) { a, _ in a }
        #expect(
            Set(verdicts.keys) == ["line", "rectangle", "ellipse", "triangle", "arrow", "elbow_arrow", "double_arrow"])
        #expect(verdicts["rectangle"] == "chosen")
        #expect(verdicts["line"]?.hasPrefix("refused: RMS distance ") == true, "\(verdicts)")
        #expect(verdicts["ellipse"]?.hasPrefix("not fitted: a corner ") == true, "\(verdicts)")
        #expect(verdicts["elbow_arrow"]?.hasPrefix("not fitted: another shape passes") == true, "\(verdicts)")
        #expect(verdicts["double_arrow"]?.hasPrefix("not fitted: no head at each end") == true, "\(verdicts)")
        let rectangle = try #require(explained.first { $0["shape"] as? String == "rectangle" })
        #expect((rectangle["rms"] as? Double ?? 1) < 0.01)
        // What each shape was fitted to, named where it was fitted and only there.
        #expect(rectangle["fitted_to"] as? String == "the whole stroke")
        for hypothesis in explained {
            #expect((hypothesis["fitted_to"] == nil) == (hypothesis["rms"] == nil), "\(hypothesis)")
        }
        #expect((rectangle["traced"] as? Double ?? 0) >= 0.8, "it passes the tracing test")
    }

    /// A stroke so large (10¹⁵² across) that its distances' squares overflow still gets
    /// valid JSON: the line's infinite scores are null, and the arrow it is, recognised.
    @Test func recognizeExplainsAHugeStrokeInValidJSON() throws {
        let arrow = [[0.0, 0], [100, 0], [70, 20], [100, 0], [70, -20]].map { $0.map { $0 * 1e150 } }
        let (shape, explained) = try Self.explain(arrow)
        #expect(shape == "arrow")
        let line = try #require(explained.first { $0["shape"] as? String == "line" })
        #expect(line["rms"] is NSNull && line["max"] is NSNull, "\(line)")
    }

    /// A circle 16 px across on whole pixels (a mouse on a small shape): --explain says the
    /// stroke was smoothed before fitting, and the circle is an ellipse; one 300 px across
    /// is fitted as drawn, and says nothing of it.
    @Test func recognizeExplainsThatASmallStrokeOnWholePixelsWasSmoothed() throws {
        func circle(across size: Double) throws -> [String: Any] {
            let points = (0...100).map { k -> [Double] in
                let angle = 2 * Double.pi * Double(k) / 100
                return [(50 + size / 2 * cos(angle)).rounded(), (50 + size / 2 * sin(angle)).rounded()]
            }
            let line = try String(data: JSONSerialization.data(withJSONObject: ["points": points]), encoding: .utf8)!
            let outcome = try CanvasCommand.run(["recognize", "--explain"], input: line + "\n")
            #expect(outcome.status == 0, "\(outcome.standardError)")
            let object = try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8))
            return try #require(object as? [String: Any])
        }
        let small = try circle(across: 16)
        #expect(small["shape"] as? String == "ellipse")
        let smoothing = small["smoothing"] as? String ?? ""
        #expect(
            smoothing.hasPrefix("the points lie on a grid of 1, 0.062 of the stroke's width or height"), "\(smoothing)")
        let large = try circle(across: 300)
        #expect(large["shape"] as? String == "ellipse" && large["smoothing"] == nil, "\(large)")
    }

    /// An octagon drawn by hand (its corners turn 45°, too gently to be corners) is left
    /// alone, and --explain says why its ellipse was refused: eight straight sides.
    @Test func recognizeLeavesAnOctagonAloneAndSaysWhy() throws {
        var octagon: [[Double]] = []
        for side in 0..<8 {
            let (a, b) = (Double(side) * .pi / 4, Double(side + 1) * .pi / 4)
            for k in 0..<16 {
                let t = Double(k) / 16
                let wobble = k % 2 == 0 ? 0.4 : -0.4
                octagon.append([
                    200 * ((1 - t) * cos(a) + t * cos(b)) + wobble, 200 * ((1 - t) * sin(a) + t * sin(b)) - wobble,
                ])
            }
        }
        octagon.append([200, 0])
        let (shape, explained) = try Self.explain(octagon)
        #expect(shape == "none")
        let ellipse = try #require(explained.first { $0["shape"] as? String == "ellipse" })
        let verdict = ellipse["verdict"] as? String ?? ""
        #expect(verdict.hasPrefix("refused: the stroke follows 8 straight sides"), "\(verdict)")
    }
}
