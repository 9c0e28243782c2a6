import CanvasCore
import CanvasGeometry
import CanvasNode
import CanvasProtocol
import CanvasStore
import CanvasTestSupport
import Foundation
import Testing

/// The one replica type: applying with offset resolution, the identifiers of strokes drawn
/// here, the digest buckets' stroke lists, the eraser's index, and storing through it.
@Suite struct ReplicaTests {
    static let header = StrokeHeader(weight: 2, colour: .black, start: Point(x: 0, y: 0))
    static let line = [Point(x: 0, y: 0), Point(x: 50, y: 0), Point(x: 100, y: 0)]

    static func draw(_ points: [Point] = line, recognize: Bool = false) -> LocalAction {
        .draw(points: points, weight: 2, colour: .black, recognize: recognize)
    }

    @Test func anAppendWithoutOffsetIsResolvedToWhereItsPointsWent() {
        var replica = Replica(author: "me")
        let id = StrokeID("s")
        _ = replica.apply(.add(id, Self.header))
        let (effect, resolved) = replica.apply(.append(id, points: [Point(x: 1, y: 1), Point(x: 2, y: 2)], offset: nil))
        #expect(effect.isNovel)
        #expect(resolved == .append(id, points: [Point(x: 1, y: 1), Point(x: 2, y: 2)], offset: 1))
        let (again, _) = replica.apply(.append(id, points: [Point(x: 1, y: 1)], offset: 1))
        #expect(!again.isNovel)
    }

    @Test func strokesDrawnHereAreNamedAuthorAndCounter() {
        var replica = Replica(author: "node-a")
        var names: [StrokeID] = []
        for _ in 0..<3 {
            let edit = replica.edit(for: Self.draw())
            for operation in edit.operations { _ = replica.apply(operation) }
            names.append(edit.operations[0].strokeID)
        }
        #expect(names == ["node-a_1", "node-a_2", "node-a_3"].map(StrokeID.init))
    }

    /// A recognised shape takes the number after its hand-drawn stroke, which it erases.
    @Test func aRecognisedShapeTakesTheNextNumber() {
        var replica = Replica(author: "me")
        // A straight pen line, a little shaky: recognised as a line.
        let line = (0..<40).map { step in Point(x: Double(step) * 5, y: step % 2 == 0 ? 0.4 : -0.4) }
        let edit = replica.edit(for: Self.draw(line, recognize: true))
        #expect(edit.shape != .none)
        #expect(Set(edit.operations.map(\.strokeID)) == [StrokeID("me_1"), StrokeID("me_2")])
        for operation in edit.operations { _ = replica.apply(operation) }
        #expect(replica.document[StrokeID("me_1")]?.visible.intervals.isEmpty == true, "the hand-drawn stroke is erased")
        #expect(replica.edit(for: Self.draw()).operations[0].strokeID == StrokeID("me_3"))
    }

    /// A stroke drawn live (pen down, moves, pen up) ends as the same operations a finished
    /// `draw` makes, split where the pen paused; ending it with recognition replaces it by
    /// the shape, and undo takes back the shape, then what was drawn.
    @Test func aLiveStrokeGrowsWhileThePenMovesAndEndsLikeADrawnOne() {
        var live = Replica(author: "me")
        func perform(_ action: LocalAction, on replica: inout Replica) -> [CanvasCore.Operation] {
            let edit = replica.edit(for: action)
            for operation in edit.operations { _ = replica.apply(operation) }
            return edit.operations
        }
        let line = (0..<40).map { step in Point(x: Double(step) * 5, y: step % 2 == 0 ? 0.4 : -0.4) }
        let begun = perform(.begin(points: [line[0]], weight: 2, colour: .black), on: &live)
        #expect(begun == [.add(StrokeID("me_1"), StrokeHeader(weight: 2, colour: .black, start: line[0]))])
        let id = begun[0].strokeID
        #expect(live.liveStrokes == [id])
        #expect(perform(.extend(stroke: id, points: Array(line[1..<20])), on: &live) == [.append(id, points: Array(line[1..<20]), offset: 1)])
        #expect(perform(.extend(stroke: id, points: Array(line[20...])), on: &live) == [.append(id, points: Array(line[20...]), offset: 20)])
        #expect(perform(.extend(stroke: StrokeID("someone_1"), points: [line[0]]), on: &live).isEmpty, "only strokes begun here grow")
        var drawn = Replica(author: "me")
        _ = perform(.draw(points: line, weight: 2, colour: .black, recognize: true), on: &drawn)
        let ended = perform(.end(stroke: id, recognize: true), on: &live)
        #expect(ended.map(\.strokeID) == [id, StrokeID("me_2"), StrokeID("me_2")], "erased, then the line as me_2")
        #expect(live.liveStrokes.isEmpty)
        #expect(live.document.digest.rootHex == drawn.document.digest.rootHex, "the same room as a finished draw")
        #expect(perform(.extend(stroke: id, points: [line[0]]), on: &live).isEmpty, "an ended stroke no longer grows")
        // Undo takes the shape back and brings the stroke back as drawn; undo again, the stroke.
        let undone = perform(.undo, on: &live).map(\.strokeID)
        #expect(undone == [StrokeID("me_2"), StrokeID("me_1-r1"), StrokeID("me_1-r1")])
        #expect(live.document[StrokeID("me_1-r1")]?.points == line)
        #expect(perform(.undo, on: &live) == [.removeStroke(StrokeID("me_1-r1"))])
        // Without recognition, pen up sends nothing more, and undo removes the stroke.
        let plain = perform(.begin(points: [Point(x: 0, y: 0), Point(x: 9, y: 9)], weight: 3, colour: .black), on: &live)
        #expect(plain.count == 2)
        #expect(perform(.end(stroke: plain[0].strokeID, recognize: false), on: &live).isEmpty)
        #expect(perform(.undo, on: &live) == [.removeStroke(plain[0].strokeID)])
    }

    /// A replica restored from its store, or one that hears its own old strokes from its
    /// peers, never names a new stroke like an existing one.
    @Test func theCounterSkipsIdentifiersTheRoomAlreadyHolds() {
        let restored = Replica(author: "me", restoring: [.add(StrokeID("me_7"), Self.header)])
        var copy = restored
        #expect(copy.edit(for: Self.draw()).operations[0].strokeID == StrokeID("me_8"))
        var heard = Replica(author: "me")
        _ = heard.apply(.add(StrokeID("me_3"), Self.header))
        _ = heard.apply(.removeStroke(StrokeID("me_4")))  // a placeholder holds the name too
        _ = heard.apply(.add(StrokeID("me_x"), Self.header))
        _ = heard.apply(.add(StrokeID("other_9"), Self.header))
        #expect(heard.edit(for: Self.draw()).operations[0].strokeID == StrokeID("me_5"))
    }

    @Test func theBucketListsHoldEveryStrokeOnce() {
        var generator = SplitMix64(seed: announcedSeed())
        var replica = Replica(author: "me")
        var operations: [CanvasCore.Operation] = []
        for index in 0..<300 {
            let id = StrokeID("s\(Int.random(in: 0..<200, using: &generator))-\(index % 7)")
            operations.append(generator.chance(0.3) ? .removeStroke(id) : .add(id, Self.header))
        }
        for operation in operations + operations.shuffled(using: &generator) { _ = replica.apply(operation) }
        let listed = replica.bucketStrokes.enumerated().flatMap { bucket, ids in ids.map { (bucket, $0) } }
        #expect(listed.count == replica.document.strokeCount)
        #expect(Set(listed.map(\.1)) == Set(replica.document.strokes.map(\.id)))
        #expect(listed.allSatisfy { Digest.bucket(of: $0.1) == $0.0 })
    }

    /// The eraser's index is built at the first erase and kept current afterwards: points
    /// appended later are erased by a later pass.
    @Test func theEraserSeesPointsAppendedAfterItsFirstPass() {
        var replica = Replica(author: "me")
        let drawn = replica.edit(for: Self.draw())
        for operation in drawn.operations { _ = replica.apply(operation) }
        let id = drawn.operations[0].strokeID
        let first = replica.edit(for: .erase(points: [Point(x: 0, y: 0)], radius: 5))
        #expect(first.operations.allSatisfy { $0.strokeID == id } && !first.operations.isEmpty)
        for operation in first.operations { _ = replica.apply(operation) }
        _ = replica.apply(.append(id, points: [Point(x: 100, y: 300)], offset: 3))
        let second = replica.edit(for: .erase(points: [Point(x: 100, y: 300)], radius: 5))
        #expect(!second.operations.isEmpty, "the eraser did not see the appended point")
        let before = replica.document[id]!.visible
        for operation in second.operations { #expect(replica.apply(operation).effect.isNovel) }
        #expect(replica.document[id]!.visible != before)
    }

    /// Applies what `action` stands for; returns those operations.
    @discardableResult
    static func perform(_ action: LocalAction, on replica: inout Replica) -> [CanvasCore.Operation] {
        edited(action, on: &replica).operations
    }

    /// Applies what `action` stands for; returns the edit (those operations and the shape).
    static func edited(_ action: LocalAction, on replica: inout Replica) -> Replica.LocalEdit {
        let edit = replica.edit(for: action)
        for operation in edit.operations { _ = replica.apply(operation) }
        return edit
    }

    /// `value` of each stroke that shows, by name.
    static func visible<Value>(_ replica: Replica, _ value: (Stroke) -> Value) -> [StrokeID: Value] {
        var visible: [StrokeID: Value] = [:]
        for stroke in replica.document.strokes where !stroke.visible.intervals.isEmpty {
            visible[stroke.id] = value(stroke)
        }
        return visible
    }

    static func visibleStrokes(_ replica: Replica) -> [StrokeID: IntervalSet] { visible(replica, \.visible) }

    /// Undo erases the stroke drawn last; redo brings it back as a new stroke named after
    /// it, with the same points; undo and redo again go on alternating.
    @Test func undoAndRedoADrawing() {
        var replica = Replica(author: "me")
        Self.perform(Self.draw(), on: &replica)
        let drawn = Self.visibleStrokes(replica)
        #expect(Self.perform(.undo, on: &replica) == [.removeStroke(StrokeID("me_1"))])
        #expect(Self.visibleStrokes(replica).isEmpty)
        let redone = Self.perform(.redo, on: &replica)
        #expect(redone.first?.strokeID == StrokeID("me_1-r1"))
        #expect(replica.document[StrokeID("me_1-r1")]?.points == replica.document[StrokeID("me_1")]?.points)
        #expect(Array(Self.visibleStrokes(replica).values) == Array(drawn.values))
        #expect(Self.perform(.undo, on: &replica) == [.removeStroke(StrokeID("me_1-r1"))])
        #expect(Self.perform(.redo, on: &replica).first?.strokeID == StrokeID("me_1-r1-r1"))
        #expect(Self.perform(.redo, on: &replica).isEmpty, "nothing more to redo")
        // The next drawing takes the next number, not a derived one.
        #expect(Self.perform(Self.draw(), on: &replica).first?.strokeID == StrokeID("me_2"))
    }

    /// Undoing an erase redraws the erased piece as a new stroke through the same points;
    /// redo erases it again. A new action forgets what could be redone.
    @Test func undoAndRedoAnErasure() {
        var replica = Replica(author: "me")
        Self.perform(.draw(points: (0...10).map { Point(x: Double($0) * 10, y: 0) }, weight: 2, colour: .black, recognize: false), on: &replica)
        let erased = Self.perform(.erase(points: [Point(x: 50, y: 0)], radius: 12), on: &replica)
        guard case .delete(_, let start, let end) = erased.first else {
            Issue.record("the eraser erased nothing: \(erased)")
            return
        }
        let undone = Self.perform(.undo, on: &replica)
        let piece = StrokeID("me_1-p1")
        #expect(undone.map(\.strokeID).allSatisfy { $0 == piece })
        let points = replica.document[piece]?.points ?? []
        #expect(points.first.map { abs($0.x - start * 10) < 1e-9 } == true)
        #expect(points.last.map { abs($0.x - end * 10) < 1e-9 } == true)
        #expect(points.dropFirst().dropLast().map(\.x) == (Int(start) + 1...Int(end.rounded(.up)) - 1).map { Double($0) * 10 })
        #expect(replica.document[StrokeID("me_1")]!.visible.intervals.count == 2, "the original stays erased")
        #expect(Self.perform(.redo, on: &replica) == [.removeStroke(piece)])
        #expect(Self.perform(.undo, on: &replica).first?.strokeID == StrokeID("me_1-p2"))
        Self.perform(Self.draw(), on: &replica)
        #expect(Self.perform(.redo, on: &replica).isEmpty, "a new drawing forgets what could be redone")
        #expect(Self.perform(.undo, on: &replica) == [.removeStroke(StrokeID("me_2"))])
    }

    /// A rough rectangle, recognised.
    static let roughRectangle = [
        Point(x: 0, y: 0), Point(x: 100, y: 2), Point(x: 200, y: 0), Point(x: 201, y: 60), Point(x: 200, y: 120),
        Point(x: 100, y: 121), Point(x: 0, y: 120), Point(x: 1, y: 60), Point(x: 0, y: 2),
    ]

    /// The strokes that show, with the points of each.
    static func visiblePoints(_ replica: Replica) -> [StrokeID: [Point]] { visible(replica, \.points) }

    /// A recognised shape is undone in two steps: the first brings the stroke back as drawn
    /// (a false recognition costs one undo, not the drawing), the second takes it away;
    /// redo does them again in turn, and every step names the strokes as they are now.
    @Test func undoingARecognisedShapeBringsBackTheStrokeAsDrawn() {
        var replica = Replica(author: "me")
        Self.perform(Self.draw(Self.roughRectangle, recognize: true), on: &replica)
        let shape = Self.visiblePoints(replica)
        #expect(shape.keys.map(\.rawValue) == ["me_2"], "the shape alone shows: \(shape.keys)")
        #expect(replica.document[StrokeID("me_2")]?.header?.isShape == true)

        // Undo: the shape goes, the stroke comes back as drawn.
        let undone = Self.perform(.undo, on: &replica)
        #expect(undone.first == .removeStroke(StrokeID("me_2")))
        #expect(Self.visiblePoints(replica) == [StrokeID("me_1-r1"): Self.roughRectangle])
        #expect(replica.document[StrokeID("me_1-r1")]?.header?.isShape == false)
        // Undo again: the stroke goes too.
        #expect(Self.perform(.undo, on: &replica) == [.removeStroke(StrokeID("me_1-r1"))])
        #expect(Self.visiblePoints(replica).isEmpty)
        #expect(Self.perform(.undo, on: &replica).isEmpty, "nothing more to undo")
        // Redo: the stroke as drawn, then the shape in its place.
        #expect(Self.perform(.redo, on: &replica).first?.strokeID == StrokeID("me_1-r1-r1"))
        #expect(Self.visiblePoints(replica) == [StrokeID("me_1-r1-r1"): Self.roughRectangle])
        let redone = Self.perform(.redo, on: &replica)
        #expect(redone.first == .removeStroke(StrokeID("me_1-r1-r1")))
        #expect(Self.visiblePoints(replica) == [StrokeID("me_2-r1"): shape[StrokeID("me_2")]!])
        #expect(replica.document[StrokeID("me_2-r1")]?.header?.isShape == true)
        #expect(Self.perform(.redo, on: &replica).isEmpty, "nothing more to redo")
        // And back again, through the new names.
        #expect(Self.perform(.undo, on: &replica).first == .removeStroke(StrokeID("me_2-r1")))
        #expect(Self.visiblePoints(replica) == [StrokeID("me_1-r1-r1-r1"): Self.roughRectangle])
        #expect(Self.perform(.undo, on: &replica) == [.removeStroke(StrokeID("me_1-r1-r1-r1"))])
        #expect(Self.visiblePoints(replica).isEmpty)
    }

    /// The same for a stroke drawn live (begin, extend, end with recognition), with a piece
    /// a peer erased while it was drawn: it comes back as it was before it was recognised.
    @Test func undoingALiveStrokeRecognisedBringsItBackWithWhatWasErasedOfIt() {
        var replica = Replica(author: "me")
        let begun = Self.perform(
            .begin(points: Array(Self.roughRectangle.prefix(3)), weight: 2, colour: .black), on: &replica)
        let id = begun.first!.strokeID
        Self.perform(.extend(stroke: id, points: Array(Self.roughRectangle.dropFirst(3))), on: &replica)
        _ = replica.apply(.delete(id, start: 0.25, end: 0.5))
        let erased = replica.document[id]!.erased
        let ended = Self.perform(.end(stroke: id, recognize: true), on: &replica)
        #expect(ended.contains { $0.strokeID == StrokeID("me_2") }, "recognised: \(ended)")
        Self.perform(.undo, on: &replica)
        let back = StrokeID("me_1-r1")
        #expect(replica.document[back]?.points == Self.roughRectangle)
        #expect(replica.document[back]?.erased == erased)
        #expect(Self.visiblePoints(replica).keys.map(\.self) == [back])
        #expect(Self.perform(.undo, on: &replica) == [.removeStroke(back)])
    }

    /// A line drawn, its middle erased, the erasure undone (the middle redrawn as a piece of
    /// its own), then the drawing undone: the line goes with its piece, and the canvas is
    /// empty. Redo brings back the line and its piece, then erases the middle again; undo
    /// redraws it and takes everything away again.
    @Test func undoingADrawingTakesAwayThePiecesAnUndoneErasureRedrew() {
        var replica = Replica(author: "me")
        let line = (0...10).map { Point(x: Double($0) * 10, y: 0) }
        Self.perform(.draw(points: line, weight: 2, colour: .black, recognize: false), on: &replica)
        Self.perform(.erase(points: [Point(x: 50, y: 0)], radius: 12), on: &replica)
        let erased = Self.visibleStrokes(replica)
        Self.perform(.undo, on: &replica)
        let whole = Self.visiblePoints(replica)
        #expect(whole.keys.sorted { $0.rawValue < $1.rawValue } == [StrokeID("me_1"), StrokeID("me_1-p1")])
        let undone = Self.perform(.undo, on: &replica)
        #expect(undone == [.removeStroke(StrokeID("me_1")), .removeStroke(StrokeID("me_1-p1"))])
        #expect(Self.visiblePoints(replica).isEmpty, "the redrawn middle went with its line")
        Self.perform(.redo, on: &replica)
        #expect(Set(Self.visiblePoints(replica).values.map { $0 }) == Set(whole.values.map { $0 }))
        #expect(Self.perform(.redo, on: &replica) == [.removeStroke(StrokeID("me_1-p1-r1"))])
        #expect(Array(Self.visibleStrokes(replica).values) == Array(erased.values), "the middle erased again")
        #expect(Self.perform(.redo, on: &replica).isEmpty)
        Self.perform(.undo, on: &replica)
        #expect(Self.visiblePoints(replica).count == 2, "the middle redrawn again")
        Self.perform(.undo, on: &replica)
        #expect(Self.visiblePoints(replica).isEmpty)
        #expect(Self.perform(.undo, on: &replica).isEmpty, "nothing more to undo")
    }

    /// A shaft, a little shaky (a line on its own), and a "<" head drawn at its end.
    static let shaft = (0..<40).map { step in Point(x: Double(step) * 5, y: step % 2 == 0 ? 0.4 : -0.4) }
    static let head = [
        Point(x: 160, y: 30), Point(x: 175, y: 19), Point(x: 190, y: 8), Point(x: 203, y: 0), Point(x: 190, y: -8),
        Point(x: 175, y: -19), Point(x: 160, y: -30),
    ]

    /// A head drawn after a line (recognition on) makes one arrow of both: the line shape and
    /// the head are erased entirely and the arrow added as a shape, from the shaft's tail to
    /// the head's point. Undo takes the arrow back and brings back the line and the head as
    /// they showed; undo again takes the head, then the line becomes the stroke as drawn,
    /// then goes; redo does it all again. Drawn head first, the two make the same arrow.
    @Test func aHeadDrawnAtALinesEndMakesOneArrowOfBoth() {
        var replica = Replica(author: "me")
        Self.perform(Self.draw(Self.shaft, recognize: true), on: &replica)
        let line = Self.visiblePoints(replica)
        #expect(line.keys.map(\.rawValue) == ["me_2"], "the line shape: \(line.keys)")
        let edit = replica.edit(for: Self.draw(Self.head, recognize: true))
        #expect(edit.shape == .arrow)
        #expect(edit.operations.map(\.strokeID).map(\.rawValue) == ["me_3", "me_3", "me_2", "me_3", "me_4", "me_4"])
        for operation in edit.operations { _ = replica.apply(operation) }
        let arrow = Self.visiblePoints(replica)
        #expect(arrow.keys.map(\.rawValue) == ["me_4"], "the arrow alone shows: \(arrow.keys)")
        #expect(replica.document[StrokeID("me_4")]?.header?.isShape == true)
        let points = arrow[StrokeID("me_4")] ?? []
        #expect(points.count == 5)
        #expect(points.first.map { $0.distance(to: Point(x: 0, y: 0)) < 2 } == true, "tail \(points)")
        #expect(points.dropFirst().first.map { $0.distance(to: Point(x: 203, y: 0)) < 2 } == true, "tip \(points)")

        // Undo: the line and the head as they showed; undo again: the head goes.
        #expect(Self.perform(.undo, on: &replica).first == .removeStroke(StrokeID("me_4")))
        #expect(Self.visiblePoints(replica) == [
            StrokeID("me_2-r1"): line[StrokeID("me_2")]!, StrokeID("me_3-r1"): Self.head,
        ])
        #expect(Self.perform(.undo, on: &replica) == [.removeStroke(StrokeID("me_3-r1"))])
        #expect(Self.visiblePoints(replica) == [StrokeID("me_2-r1"): line[StrokeID("me_2")]!])
        Self.perform(.undo, on: &replica)
        #expect(Array(Self.visiblePoints(replica).values) == [Self.shaft], "the line as drawn")
        Self.perform(.undo, on: &replica)
        #expect(Self.visiblePoints(replica).isEmpty)
        for _ in 0..<4 { Self.perform(.redo, on: &replica) }
        #expect(Array(Self.visiblePoints(replica).values) == [points], "redone: the arrow again")
        #expect(Self.perform(.redo, on: &replica).isEmpty, "nothing more to redo")

        var headFirst = Replica(author: "me")
        Self.perform(Self.draw(Self.head, recognize: true), on: &headFirst)
        Self.perform(Self.draw(Self.shaft, recognize: true), on: &headFirst)
        #expect(Array(Self.visiblePoints(headFirst).values) == [points], "the head first: the same arrow")
    }

    /// The names of the strokes `edit` deletes from, in order.
    static func deletedStrokes(_ edit: Replica.LocalEdit) -> [String] {
        edit.operations.compactMap { operation -> String? in
            guard case .delete(let id, _, _) = operation else { return nil }
            return id.rawValue
        }
    }

    /// How many arrows `actions`, done one after the other on a new replica, make.
    static func arrows(_ actions: [LocalAction]) -> Int {
        var replica = Replica(author: "me")
        var made = 0
        for action in actions {
            let edit = replica.edit(for: action)
            if edit.shape == .arrow { made += 1 }
            for operation in edit.operations { _ = replica.apply(operation) }
        }
        return made
    }

    /// The stroke drawn before makes an arrow with the next stroke only: not when that one
    /// was drawn with another pen or without recognition, nor after anything else was done
    /// here in between (an erasure, another stroke), nor with a line a peer erased in part
    /// since, nor with a stroke recognised as another shape; an arrow made of two strokes is
    /// no shaft for a third (the head drawn again over its head joins the arrow instead: one
    /// arrow shows).
    @Test func onlyTheNextStrokeWithTheSamePenJoinsALine() {
        let (shaft, head) = (Self.draw(Self.shaft, recognize: true), Self.draw(Self.head, recognize: true))
        #expect(Self.arrows([shaft, head]) == 1, "the arrow itself")
        #expect(Self.arrows([shaft, .draw(points: Self.head, weight: 2, colour: Colour(red: 200, green: 0, blue: 0),
                                     recognize: true)]) == 0, "another colour")
        let heavier = LocalAction.draw(points: Self.head, weight: 5, colour: .black, recognize: true)
        #expect(Self.arrows([shaft, heavier]) == 0, "another weight")
        #expect(Self.arrows([shaft, Self.draw(Self.head)]) == 0, "the head drawn without recognition")
        #expect(Self.arrows([Self.draw(Self.shaft), head]) == 0, "the shaft drawn without recognition")
        #expect(
            Self.arrows([shaft, .erase(points: [Point(x: 500, y: 500)], radius: 5), head]) == 0, "an erasure between")
        #expect(Self.arrows([shaft, Self.draw(Self.roughRectangle.map { $0 + Point(x: 400, y: 0) }), head]) == 0,
                "another stroke between")
        var erasedByAPeer = Replica(author: "me")
        Self.perform(shaft, on: &erasedByAPeer)
        _ = erasedByAPeer.apply(.delete(StrokeID("me_2"), start: 0.25, end: 0.5))
        #expect(erasedByAPeer.edit(for: head).shape == .none, "the line erased in part by a peer")
        var headTwice = Replica(author: "me")
        for action in [shaft, head, head] { Self.perform(action, on: &headTwice) }
        #expect(Self.visiblePoints(headTwice).values.map(\.count) == [5], "one arrow, no second head on it")
        #expect(Self.arrows([Self.draw(Self.roughRectangle, recognize: true), head]) == 0, "a rectangle is no shaft")
    }

    /// A shaft and its head's two barbs drawn one after the other (recognition on), the
    /// barbs in either order: the third stroke makes one arrow of all three (each barb alone
    /// is a line, and no two of them an arrow), the three strokes as they showed erased
    /// entirely; one undo brings all three back as they showed. Not when a barb was drawn
    /// with another pen, nor with anything done in between.
    @Test func aShaftAndTwoBarbsDrawnApartMakeOneArrow() {
        let upper = Array(Self.head[...3])
        let lower = Array(Self.head[3...])
        for barbs in [(upper, lower), (lower.reversed(), upper.reversed())] {
            var replica = Replica(author: "me")
            let shaft = replica.edit(for: Self.draw(Self.shaft, recognize: true))
            #expect(shaft.shape == .line)
            for operation in shaft.operations { _ = replica.apply(operation) }
            let first = replica.edit(for: Self.draw(barbs.0, recognize: true))
            #expect(first.shape == .line, "a barb alone is a line")
            for operation in first.operations { _ = replica.apply(operation) }
            let shown = Self.visiblePoints(replica)
            #expect(shown.count == 2)
            let edit = replica.edit(for: Self.draw(Array(barbs.1), recognize: true))
            #expect(edit.shape == .arrow)
            let deleted = Self.deletedStrokes(edit)
            #expect(deleted == ["me_2", "me_4", "me_5"], "the shaft's line, the first barb's line, the second barb")
            for operation in edit.operations { _ = replica.apply(operation) }
            let arrow = Self.visiblePoints(replica)
            #expect(arrow.keys.map(\.rawValue) == ["me_6"], "the arrow alone shows: \(arrow.keys)")
            let points = arrow[StrokeID("me_6")] ?? []
            #expect(points.count == 5)
            #expect(points.first.map { $0.distance(to: Point(x: 0, y: 0)) < 2 } == true, "tail \(points)")
            #expect(points.dropFirst().first.map { $0.distance(to: Point(x: 203, y: 0)) < 2 } == true, "tip \(points)")
            Self.perform(.undo, on: &replica)
            #expect(
                Set(Self.visiblePoints(replica).values.map { $0.count }) == Set(shown.values.map(\.count) + [4]),
                "undone: the two lines and the second barb as drawn")
            #expect(Self.visiblePoints(replica).count == 3)
        }
        let (shaft, upperBarb, lowerBarb) = (
            Self.draw(Self.shaft, recognize: true), Self.draw(upper, recognize: true), Self.draw(lower, recognize: true)
        )
        #expect(Self.arrows([shaft, upperBarb, lowerBarb]) == 1)
        #expect(Self.arrows([upperBarb, lowerBarb, shaft]) == 1, "the head first")
        let red = LocalAction.draw(
            points: upper, weight: 2, colour: Colour(red: 200, green: 0, blue: 0), recognize: true)
        #expect(Self.arrows([shaft, red, lowerBarb]) == 0, "a barb of another colour")
        #expect(Self.arrows([shaft, upperBarb, .erase(points: [Point(x: 500, y: 500)], radius: 5), lowerBarb]) == 0)
        #expect(Self.arrows([shaft, Self.draw(upper), lowerBarb]) == 0, "a barb drawn without recognition")
        #expect(Self.arrows([shaft, Self.draw(Self.roughRectangle, recognize: true), upperBarb, lowerBarb]) == 0)
        // A closed head in two strokes: one side, then the other two (no head on its own),
        // makes the arrow at its second stroke; drawn as a "<" and then its base, the "<"
        // makes the arrow with the shaft (which the base then joins:
        // `aBaseDrawnAfterAnArrowOfTwoJoinsIt`).
        let (tip, ends) = (Self.head[3], (Self.head[0], Self.head[6]))
        /// Six points a leg through `corners`.
        func legs(_ corners: [Point]) -> [Point] {
            zip(corners, corners.dropFirst()).flatMap { a, b in (0..<6).map { a + (b - a) * (Double($0) / 6) } }
                + [corners[corners.count - 1]]
        }
        let side = Self.draw(legs([ends.0, tip]), recognize: true)
        let otherTwo = Self.draw(legs([tip, ends.1, ends.0]), recognize: true)
        #expect(Self.arrows([shaft, side, otherTwo]) == 1, "a side, then the other two")
        var vThenBase = Replica(author: "me")
        Self.perform(shaft, on: &vThenBase)
        #expect(vThenBase.edit(for: Self.draw(Self.head, recognize: true)).shape == .arrow)
    }

    /// An elbow connector drawn run by run, then its head (each with recognition on): the
    /// runs are lines, the head makes one elbow arrow of all three (not an arrow of the last
    /// run and the head, the first run left over): the two lines and the head erased, the
    /// arrow from the first run's far end, bent where the runs meet; one undo brings back the
    /// two lines and the head as drawn.
    @Test func anElbowConnectorDrawnRunByRunMakesOneArrow() {
        var replica = Replica(author: "me")
        let firstRun = (0..<30).map { step in Point(x: step % 2 == 0 ? 0.4 : -0.4, y: -150 + Double(step) * 5) }
        for run in [firstRun, Self.shaft] {
            #expect(Self.edited(Self.draw(run, recognize: true), on: &replica).shape == .line)
        }
        let shown = Self.visiblePoints(replica)
        let edit = Self.edited(Self.draw(Self.head, recognize: true), on: &replica)
        #expect(edit.shape == .elbowArrow)
        #expect(Self.deletedStrokes(edit) == ["me_2", "me_4", "me_5"], "the runs' lines and the head")
        let arrow = Self.visiblePoints(replica)
        #expect(arrow.keys.map(\.rawValue) == ["me_6"], "the arrow alone shows: \(arrow.keys)")
        let points = arrow[StrokeID("me_6")] ?? []
        #expect(points.count == 6, "tail, bend, tip, barb, tip, barb: \(points)")
        for (index, drawn) in [(0, Point(x: 0, y: -150)), (1, Point(x: 0, y: 0)), (2, Point(x: 203, y: 0))] {
            #expect(points.count > index && points[index].distance(to: drawn) < 4, "point \(index): \(points)")
        }
        Self.perform(.undo, on: &replica)
        let undone = Self.visiblePoints(replica)
        #expect(undone.count == 3, "the two lines and the head: \(undone.keys)")
        #expect(Set(undone.values.map(\.count)) == Set(shown.values.map(\.count) + [Self.head.count]))
    }

    /// A closed head drawn as a "<" after the shaft (the two make an arrow), then its base
    /// (recognition on): the base joins the arrow, in its place: the arrow erased once
    /// (both its strokes show as it) and the base, one arrow added. One undo brings back the
    /// arrow of two (once) and the base as drawn, the next takes the base away, the next
    /// brings back the shaft's line and the "<" as drawn.
    @Test func aBaseDrawnAfterAnArrowOfTwoJoinsIt() {
        var replica = Replica(author: "me")
        #expect(Self.edited(Self.draw(Self.shaft, recognize: true), on: &replica).shape == .line)
        #expect(Self.edited(Self.draw(Self.head, recognize: true), on: &replica).shape == .arrow)
        Self.expectBaseJoinsTheArrow(
            on: &replica, deleting: ["me_4", "me_5"], adding: "me_6", undoneTo: [2, Self.head.count])
    }

    /// Draws the base across the ends of `head`'s barbs (recognition on) on `replica`, whose
    /// last strokes made an arrow with that head, and expects the base to join it: `deleting` erased (the arrow
    /// once, and the base), the arrow `adding` alone shown, from the shaft's tail to the head's
    /// point, its head closed; one undo brings back the arrow before (once) and the base as drawn, the next
    /// takes the base away, the next leaves strokes of `undoneTo` points.
    static func expectBaseJoinsTheArrow(
        on replica: inout Replica, deleting: [String], adding: String, undoneTo: [Int],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let base = (0...6).map { Point(x: 160, y: -30 + Double($0) * 10) }
        let edit = Self.edited(Self.draw(base, recognize: true), on: &replica)
        #expect(edit.shape == .arrow, sourceLocation: sourceLocation)
        #expect(Self.deletedStrokes(edit) == deleting, "the arrow, once, and the base", sourceLocation: sourceLocation)
        let arrow = Self.visiblePoints(replica)
        #expect(
            arrow.keys.map(\.rawValue) == [adding], "the arrow alone: \(arrow.keys)", sourceLocation: sourceLocation)
        let points = arrow[StrokeID(adding)] ?? []
        #expect(points.count == 5, "tail, tip, barb, barb, tip: \(points)", sourceLocation: sourceLocation)
        #expect(
            points.count == 5 && points[1] == points[4] && points[1] != points[3], "the head closed: \(points)",
            sourceLocation: sourceLocation)
        for (index, drawn) in [(0, Point(x: 0, y: 0)), (1, Point(x: 203, y: 0))] {
            #expect(
                points.count > index && points[index].distance(to: drawn) < 3, "point \(index): \(points)",
                sourceLocation: sourceLocation)
        }
        for (step, expected) in [[5, base.count], [5], undoneTo].enumerated() {
            let undone = Self.perform(.undo, on: &replica)
            let shown = Self.visiblePoints(replica).values.map(\.count).sorted()
            #expect(shown == expected.sorted(), "after undo \(step + 1): \(shown)", sourceLocation: sourceLocation)
            if step == 0 {
                let added = undone.filter { if case .add = $0 { true } else { false } }
                #expect(
                    added.count == 2, "the arrow brought back once, and the base: \(undone)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// A head drawn as two barbs after the shaft (each barb a line on its own; the three make
    /// an arrow), then the base across the barbs' ends (recognition on): the base joins the
    /// arrow of three, in its place: the arrow erased once (its three strokes show as it) and
    /// the base, one arrow added. One undo brings back the arrow of three (once) and the base
    /// as drawn, the next takes the base away, the next brings back the shaft's and the first
    /// barb's lines and the second barb as drawn.
    @Test func aBaseDrawnAfterAnArrowOfThreeJoinsIt() {
        var replica = Replica(author: "me")
        #expect(Self.edited(Self.draw(Self.shaft, recognize: true), on: &replica).shape == .line)
        #expect(Self.edited(Self.draw(Array(Self.head.prefix(4)), recognize: true), on: &replica).shape == .line)
        let three = Self.edited(Self.draw(Array(Self.head.suffix(4)), recognize: true), on: &replica)
        #expect(three.shape == .arrow)
        #expect(Self.deletedStrokes(three) == ["me_2", "me_4", "me_5"], "the shaft's and a barb's lines, the barb")
        Self.expectBaseJoinsTheArrow(on: &replica, deleting: ["me_6", "me_7"], adding: "me_8", undoneTo: [2, 2, 4])
    }

    /// An elbow connector's first run, then its last run, then its head as two barbs
    /// (recognition on; each a line on its own but the last barb): the last run and the
    /// barbs make an arrow of three as the second barb is drawn, and the first run, drawn
    /// before them, joins it as its shaft's first piece: the four strokes as they showed
    /// (three lines and the barb) erased, one elbow arrow added. One undo brings the four
    /// back as they showed; a redo makes the elbow arrow again.
    @Test func aFirstRunDrawnBeforeAnArrowOfThreeJoinsIt() {
        var replica = Replica(author: "me")
        let run = (0...30).map { Point(x: 0, y: -150 + Double($0) * 5) }
        for stroke in [run, Self.shaft, Array(Self.head.prefix(4))] {
            #expect(Self.edited(Self.draw(stroke, recognize: true), on: &replica).shape == .line)
        }
        let edit = Self.edited(Self.draw(Array(Self.head.suffix(4)), recognize: true), on: &replica)
        #expect(edit.shape == .elbowArrow)
        #expect(Self.deletedStrokes(edit) == ["me_2", "me_4", "me_6", "me_7"], "three lines and the barb")
        let shown = Self.visiblePoints(replica)
        #expect(shown.keys.map(\.rawValue) == ["me_8"], "the elbow arrow alone: \(shown.keys)")
        #expect(shown.values.map(\.count) == [6], "tail, bend, tip, barb, tip, barb")
        let joined = Self.drawing(replica)
        Self.perform(.undo, on: &replica)
        #expect(Self.visiblePoints(replica).values.map(\.count).sorted() == [2, 2, 2, 4], "the four as they showed")
        Self.perform(.redo, on: &replica)
        #expect(Self.drawing(replica) == joined, "the elbow arrow again")
    }

    /// A stroke after an arrow of two joins it only as the next stroke with the same pen,
    /// nothing done between: not a base of another colour, nor after an undo or an erasure
    /// (each left a line beside the arrow, or beside its two strokes brought back); drawn
    /// live (begin, extend, end) the base joins as a drawn one does. A head at the arrow's
    /// tail is no part of it: the arrow stays and the head is left as drawn. Three undos
    /// then three redos after a join show the joined arrow again.
    @Test func onlyTheNextStrokeWithTheSamePenJoinsAnArrowOfTwo() {
        let (shaft, head) = (Self.draw(Self.shaft, recognize: true), Self.draw(Self.head, recognize: true))
        let base = (0...6).map { Point(x: 160, y: -30 + Double($0) * 10) }
        /// The visible strokes' point counts after `actions` on a new replica.
        func shown(_ actions: [LocalAction]) -> [Int] {
            var replica = Replica(author: "me")
            for action in actions { Self.perform(action, on: &replica) }
            return Self.visiblePoints(replica).values.map(\.count).sorted()
        }
        #expect(shown([shaft, head, Self.draw(base, recognize: true)]) == [5], "one arrow")
        let red = LocalAction.draw(
            points: base, weight: 2, colour: Colour(red: 200, green: 0, blue: 0), recognize: true)
        #expect(shown([shaft, head, red]) == [2, 5], "another colour: the arrow, and the base a line")
        #expect(shown([shaft, head, .undo, Self.draw(base, recognize: true)]) == [2, 2, Self.head.count], "an undo")
        let erase = LocalAction.erase(points: [Point(x: 500, y: 500)], radius: 5)
        #expect(shown([shaft, head, erase, Self.draw(base, recognize: true)]) == [2, 5], "an erasure between")
        let tailHead = Self.head.map { Point(x: 203 - $0.x, y: $0.y) }
        #expect(
            shown([shaft, head, Self.draw(tailHead, recognize: true)]) == [5, tailHead.count], "a head at the tail")
        var live = Replica(author: "me")
        for action in [shaft, head] { Self.perform(action, on: &live) }
        let begun = Self.perform(.begin(points: Array(base.prefix(2)), weight: 2, colour: .black), on: &live)
        let id = begun[0].strokeID
        Self.perform(.extend(stroke: id, points: Array(base.dropFirst(2))), on: &live)
        #expect(Self.edited(.end(stroke: id, recognize: true), on: &live).shape == .arrow, "a base drawn live")
        let joined = Self.drawing(live)
        for _ in 0..<3 { Self.perform(.undo, on: &live) }
        #expect(Self.visiblePoints(live).values.map(\.count).sorted() == [2, Self.head.count], "undone")
        for _ in 0..<3 { Self.perform(.redo, on: &live) }
        #expect(Self.visiblePoints(live).values.map(\.count) == [5], "redone: the joined arrow")
        #expect(Self.drawing(live) == joined, "the same arrow")
    }

    /// A box drawn as two L's (recognition on): the second makes one rectangle of both, the
    /// first erased entirely with it; one undo brings both back as drawn. Drawn as four sides
    /// (each a line on its own), the fourth makes the rectangle of all four, the three lines
    /// erased. Not when a side was drawn with another pen, nor with anything done between.
    @Test func aBoxDrawnInSeveralStrokesBecomesOneRectangle() {
        let corners = [Point(x: 0, y: 0), Point(x: 240, y: 0), Point(x: 240, y: 120), Point(x: 0, y: 120)]
        /// Eight points a side through `points`.
        func sides(_ points: [Point]) -> [Point] {
            zip(points, points.dropFirst()).flatMap { a, b in (0..<8).map { a + (b - a) * (Double($0) / 8) } }
                + [points[points.count - 1]]
        }
        let firstL = sides([corners[3], corners[0], corners[1]])
        let secondL = sides([corners[1], corners[2], corners[3]])
        var replica = Replica(author: "me")
        #expect(Self.perform(Self.draw(firstL, recognize: true), on: &replica).count == 2, "an L alone: no shape")
        let edit = replica.edit(for: Self.draw(secondL, recognize: true))
        #expect(edit.shape == .rectangle)
        let deleted = Self.deletedStrokes(edit)
        #expect(deleted == ["me_1", "me_2"], "both L's as drawn")
        for operation in edit.operations { _ = replica.apply(operation) }
        let shown = Self.visiblePoints(replica)
        #expect(shown.keys.map(\.rawValue) == ["me_3"], "the rectangle alone shows: \(shown.keys)")
        let rectangle = shown[StrokeID("me_3")] ?? []
        #expect(
            rectangle.count == 5 && corners.allSatisfy { corner in rectangle.contains { $0.distance(to: corner) < 2 } },
            "its corners: \(rectangle)")
        Self.perform(.undo, on: &replica)
        #expect(Set(Self.visiblePoints(replica).values) == [firstL, secondL], "undone: both L's as drawn")
        Self.perform(.redo, on: &replica)
        #expect(Array(Self.visiblePoints(replica).values) == [shown[StrokeID("me_3")]!], "redone")

        let four = [
            [corners[0], corners[1]], [corners[2], corners[3]], [corners[1], corners[2]], [corners[3], corners[0]],
        ].map { Self.draw(sides($0), recognize: true) }
        /// The shapes `actions` make, done one after the other on a new replica.
        func shapes(_ actions: [LocalAction]) -> [ShapeKind] {
            var replica = Replica(author: "me")
            return actions.map { action in
                let edit = replica.edit(for: action)
                for operation in edit.operations { _ = replica.apply(operation) }
                return edit.shape
            }
        }
        #expect(shapes(four) == [.line, .line, .line, .rectangle], "four sides, the top, bottom, right and left")
        let red = LocalAction.draw(
            points: sides([corners[1], corners[2]]), weight: 2, colour: Colour(red: 200, green: 0, blue: 0),
            recognize: true)
        #expect(shapes([four[0], four[1], red, four[3]]).last == .line, "a side of another colour")
        #expect(shapes([four[0], four[1], four[2], .erase(points: [Point(x: 900, y: 900)], radius: 5), four[3]]).last
            == .line, "an erasure between")
    }

    /// Two pens down at once: the stroke lifted first is the one before. A shaft and a head
    /// drawn live with two pens, the head begun first and lifted last, make the arrow; lifted
    /// in the other order too.
    @Test func withTwoPensTheStrokeLiftedFirstIsTheOneBefore() {
        for headLiftedLast in [true, false] {
            var replica = Replica(author: "me")
            let head = Self.perform(.begin(points: Self.head, weight: 2, colour: .black), on: &replica)[0].strokeID
            let shaft = Self.perform(.begin(points: Self.shaft, weight: 2, colour: .black), on: &replica)[0].strokeID
            let (first, last) = headLiftedLast ? (shaft, head) : (head, shaft)
            func end(_ stroke: StrokeID) -> ShapeKind {
                let edit = replica.edit(for: .end(stroke: stroke, recognize: true))
                for operation in edit.operations { _ = replica.apply(operation) }
                return edit.shape
            }
            #expect(end(first) == (headLiftedLast ? .line : .none))
            #expect(end(last) == .arrow, "head lifted last: \(headLiftedLast)")
            #expect(Self.visiblePoints(replica).count == 1, "the arrow alone shows")
        }
    }

    /// A head drawn live (begin, extend, end with recognition) after a line makes the same
    /// arrow as one drawn whole.
    @Test func aLiveHeadMakesTheSameArrow() {
        var live = Replica(author: "me")
        Self.perform(Self.draw(Self.shaft, recognize: true), on: &live)
        let id = Self.perform(.begin(points: [Self.head[0]], weight: 2, colour: .black), on: &live)[0].strokeID
        Self.perform(.extend(stroke: id, points: Array(Self.head.dropFirst())), on: &live)
        let ended = live.edit(for: .end(stroke: id, recognize: true))
        #expect(ended.shape == .arrow)
        for operation in ended.operations { _ = live.apply(operation) }
        var drawn = Replica(author: "me")
        Self.perform(Self.draw(Self.shaft, recognize: true), on: &drawn)
        Self.perform(Self.draw(Self.head, recognize: true), on: &drawn)
        #expect(Self.drawing(live) == Self.drawing(drawn))
        #expect(Self.visiblePoints(live).keys.map(\.rawValue) == ["me_4"])
    }

    @Test func undoWithNothingToUndoDoesNothing() {
        var replica = Replica(author: "me")
        #expect(Self.perform(.undo, on: &replica).isEmpty)
        #expect(Self.perform(.redo, on: &replica).isEmpty)
    }

    /// Undo and redo are ordinary operations: a replica that receives them in any order
    /// converges with the one that made them (recognised shapes among the drawings, and
    /// arrows of two and three strokes).
    @Test func undoAndRedoConvergeOnOtherReplicas() {
        var generator = SplitMix64(seed: announcedSeed())
        var mine = Replica(author: "me")
        var sent = Self.perform(Self.draw(Self.roughRectangle, recognize: true), on: &mine)
        sent += Self.perform(Self.draw(Self.shaft, recognize: true), on: &mine)
        let arrow = mine.edit(for: Self.draw(Self.head, recognize: true))
        #expect(arrow.shape == .arrow, "a line and a head: one arrow of both")
        for operation in arrow.operations { _ = mine.apply(operation) }
        sent += arrow.operations
        // The arrow of three below the first (drawn over it, its shaft would join it).
        let below = Point(x: 0, y: 100)
        let barbs = [Array(Self.head[...3]), Array(Self.head[3...])]
        sent += Self.perform(Self.draw(Self.shaft.map { $0 + below }, recognize: true), on: &mine)
        sent += Self.perform(Self.draw(barbs[0].map { $0 + below }, recognize: true), on: &mine)
        let arrowOfThree = mine.edit(for: Self.draw(barbs[1].map { $0 + below }, recognize: true))
        #expect(arrowOfThree.shape == .arrow, "a line and two barbs: one arrow of the three")
        for operation in arrowOfThree.operations { _ = mine.apply(operation) }
        sent += arrowOfThree.operations
        for _ in 0..<40 {
            let roll = Double.random(in: 0..<1, using: &generator)
            let action: LocalAction =
                roll < 0.1 ? Self.draw(Self.roughRectangle.map { $0 + Point(x: roll * 500, y: 0) }, recognize: true)
                : roll < 0.15 ? Self.draw(Self.shaft, recognize: true)
                : roll < 0.2 ? Self.draw(Self.head, recognize: true)
                : roll < 0.25 ? Self.draw(barbs[roll < 0.225 ? 0 : 1], recognize: true)
                : roll < 0.35 ? .draw(points: (0..<6).map { _ in Point(x: Double.random(in: 0...200, using: &generator), y: Double.random(in: 0...200, using: &generator)) }, weight: 2, colour: .black, recognize: false)
                : roll < 0.55 ? .erase(points: [Point(x: Double.random(in: 0...200, using: &generator), y: Double.random(in: 0...200, using: &generator))], radius: 20)
                : roll < 0.8 ? .undo : .redo
            sent += Self.perform(action, on: &mine)
        }
        let shapes = sent.filter { if case .add(_, let header) = $0 { header.isShape } else { false } }
        #expect(!shapes.isEmpty, "recognised shapes drawn, undone and redone")
        var theirs = Replica(author: "them")
        for operation in sent.shuffled(using: &generator) { _ = theirs.apply(operation) }
        #expect(theirs.document == mine.document)
    }

    /// What shows, whatever the strokes are named: each visible stroke's points, whether it
    /// is a shape, and what of it shows.
    static func drawing(_ replica: Replica) -> [String] {
        visible(replica) { "\($0.points) \($0.header?.isShape == true) \($0.visible.intervals)" }.values.sorted()
    }

    /// Over random histories of drawings (recognised shapes, live strokes among them),
    /// erasures, undos and redos: an undo followed by a redo leaves the drawing as it was,
    /// and so does a redo followed by an undo; undoing everything leaves the canvas empty.
    @Test func undoAndRedoAreInversesOverRandomHistories() {
        var generator = SplitMix64(seed: announcedSeed())
        for _ in 0..<20 {
            var replica = Replica(author: "me")
            func random(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &generator) }
            for _ in 0..<50 {
                let roll = random(0...1)
                let offset = Point(x: random(0...100), y: random(0...100))
                let action: LocalAction =
                    roll < 0.15 ? Self.draw(Self.roughRectangle.map { $0 + offset }, recognize: true)
                    : roll < 0.25 ? Self.draw(Self.shaft.map { $0 + offset }, recognize: true)
                    : roll < 0.35 ? Self.draw((0..<8).map { _ in Point(x: random(0...200), y: random(0...200)) })
                    : roll < 0.45 ? .begin(points: Self.roughRectangle.map { $0 + offset }, weight: 2, colour: .black)
                    : roll < 0.65 ? .erase(points: [Point(x: random(0...200), y: random(0...200))], radius: 25)
                    : roll < 0.85 ? .undo : .redo
                if roll >= 0.15, roll < 0.25 {
                    // A shaft, then (mostly) its head, or its two barbs: an arrow of two strokes
                    // or of three, undone and redone.
                    Self.perform(action, on: &replica)
                    if roll < 0.19 {
                        Self.perform(Self.draw(Self.head.map { $0 + offset }, recognize: true), on: &replica)
                    } else if roll < 0.23 {
                        for barb in [Self.head[...3], Self.head[3...]] {
                            Self.perform(Self.draw(barb.map { $0 + offset }, recognize: true), on: &replica)
                        }
                    }
                    continue
                }
                if case .begin = action {
                    let id = Self.perform(action, on: &replica)[0].strokeID
                    Self.perform(.end(stroke: id, recognize: roll < 0.4), on: &replica)
                    continue
                }
                guard action == .undo || action == .redo else {
                    Self.perform(action, on: &replica)
                    continue
                }
                let (other, before) = (action == .undo ? LocalAction.redo : .undo, Self.drawing(replica))
                guard !Self.perform(action, on: &replica).isEmpty else { continue }
                let after = Self.drawing(replica)
                Self.perform(other, on: &replica)
                #expect(Self.drawing(replica) == before, "\(action) then \(other)")
                Self.perform(action, on: &replica)
                #expect(Self.drawing(replica) == after, "\(action), \(other), \(action)")
            }
            while !Self.perform(.undo, on: &replica).isEmpty {}
            #expect(Self.drawing(replica).count == 0, "strokes still showing with everything undone")
        }
    }

    /// What a session persists goes to the store as novel operations with their offsets,
    /// and the store compacts from the replica (it keeps no document of its own).
    @Test func aStoredReplicaLogsNovelResolvedOperationsAndCompactsFromTheReplica() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-replica-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let policy = CompactionPolicy(logToSnapshotRatio: 2, minimumLogBytes: 2048)
        let options = RoomStore.Options(remoteBatch: RemoteBatchPolicy(maxOperations: 16, maxDelay: .seconds(1)), compaction: policy)
        let store = try RoomStore.open(directory: directory, room: "r", options: options).store
        let stored = StoredReplica(store: store)
        var session = RoomSession(configuration: SessionConfiguration(nodeID: "me", seed: 1))
        let id = StrokeID("peer_1")
        var remote: [CanvasCore.Operation] = [.add(id, Self.header), .add(id, Self.header)]
        for index in 0..<200 {
            remote.append(.append(id, points: [Point(x: Double(index), y: 1)], offset: nil))
        }
        var logged: [CanvasCore.Operation] = []
        var compactions = 0
        _ = session.handle(.transportUp(TransportID("lan"), maxMessageBytes: 1200, members: [PeerID("peer")]), at: .zero)
        for operation in remote {
            let input = SessionInput.received(MessageEncoder.encode(operation), from: PeerID("peer"), via: TransportID("lan"))
            for case .persistRemote(let operations, _) in session.handle(input, at: .zero) {
                logged += operations
                let before = store.snapshotBytes
                try stored.persistRemote(operations, of: session.replica, now: .seconds(1))
                if store.snapshotBytes != before { compactions += 1 }
            }
        }
        #expect(logged.count == 201, "the duplicate ADD is not novel")
        #expect(logged.allSatisfy { if case .append(_, _, nil) = $0 { false } else { true } })
        #expect(compactions >= 1)
        try store.close()
        let reopened = try RoomStore.open(directory: directory, room: "r")
        #expect(Replica(author: "me", restoring: reopened.operations).document == session.document)
        try reopened.store.close()
    }
}
