@testable import CanvasCore
import CanvasTestSupport
import Testing

private let a = StrokeID("a")
private let b = StrokeID("b")
private let c = StrokeID("c")

/// The pen most examples draw with; its canonical fields are `"weight":2,…`.
private let pen = StrokeHeader(weight: 2, colour: Colour(red: 10, green: 20, blue: 30), start: Point(x: 0, y: 0))

/// The points of an honest author at `indices`: point k is (k, k / 2).
private func line(_ indices: ClosedRange<Int>) -> [Point] {
    indices.map { Point(x: Double($0), y: Double($0) / 2) }
}

private func p(_ x: Double, _ y: Double) -> Point {
    Point(x: x, y: y)
}

@Suite("Document")
struct DocumentTests {
    // MARK: ADD and APPEND

    @Test func addThenAppendPlacesPointsByIndex() throws {
        var document = Document()
        let add = document.apply(.add(a, pen))
        #expect(add.isNovel)
        #expect(add.headerChanged)
        #expect(add.changedPoints == 0..<1)
        let first = document.apply(.append(a, points: line(1...2), offset: 1))
        #expect(first.isNovel)
        #expect(first.changedPoints == 1..<3)
        #expect(first.appendOffset == 1)
        document.apply(.append(a, points: line(3...4), offset: 3))

        let stroke = try #require(document[a])
        #expect(stroke.points[0] == pen.start)
        #expect(stroke.points == [pen.start] + line(1...4))
        #expect(stroke.header == pen)
        #expect(!stroke.isPlaceholder)
        #expect(stroke.pending.isEmpty)
        #expect(stroke.parameterRange == 0...4)
        #expect(stroke.visible == IntervalSet([0...4]))
        #expect(document.strokeCount == 1)
        #expect(document.anomalies == 0)
    }

    @Test func duplicateAddIsNotNovel() {
        var document = Document(applying: [.add(a, pen), .append(a, points: line(1...2), offset: 1)])
        let before = document
        let again = document.apply(.add(a, pen))
        #expect(!again.isNovel)
        #expect(!again.headerChanged)
        #expect(again.changedPoints == nil)
        #expect(again.anomalies == 0)
        #expect(document == before)
        #expect(document.anomalies == 0)
    }

    static let conflictingHeaders: [(StrokeHeader, StrokeHeader)] = [
        (pen, StrokeHeader(weight: 10, colour: pen.colour, start: pen.start)),
        (pen, StrokeHeader(weight: 2, colour: Colour(red: 9, green: 200, blue: 0), start: pen.start)),
        (pen, StrokeHeader(weight: 2, colour: pen.colour, start: Point(x: -1, y: 7))),
        (pen, StrokeHeader(weight: 2, colour: pen.colour, start: pen.start, isShape: true)),
        (pen, StrokeHeader(weight: 1.5, colour: .black, start: Point(x: 100, y: 100))),
    ]

    @Test(arguments: conflictingHeaders)
    func conflictingAddKeepsTheHeaderWithSmallerCanonicalBytes(first: StrokeHeader, second: StrokeHeader) throws {
        let winner = first.canonicalBytes.lexicographicallyPrecedes(second.canonicalBytes) ? first : second
        var firstThenSecond = Document(applying: [.add(a, first), .append(a, points: line(1...2), offset: 1)])
        let late = firstThenSecond.apply(.add(a, second))
        var secondThenFirst = Document(applying: [.add(a, second), .append(a, points: line(1...2), offset: 1)])
        secondThenFirst.apply(.add(a, first))

        #expect(firstThenSecond == secondThenFirst)
        #expect(firstThenSecond.digest == secondThenFirst.digest)
        let stroke = try #require(firstThenSecond[a])
        #expect(stroke.header == winner)
        #expect(stroke.points == [winner.start] + line(1...2))
        #expect(firstThenSecond.anomalies == 1)
        #expect(secondThenFirst.anomalies == 1)
        #expect(late.anomalies == 1)
        #expect(late.isNovel == (winner == second))
        #expect(late.headerChanged == (winner == second))
    }

    @Test func conflictingHeadersCompareAsBytesNotAsNumbers() {
        // `"weight":10` sorts before `"weight":2` because "1" < "2".
        let heavy = StrokeHeader(weight: 10, colour: pen.colour, start: pen.start)
        #expect(StrokeHeader.wins(heavy, over: pen))
        #expect(!StrokeHeader.wins(pen, over: heavy))
        #expect(!StrokeHeader.wins(pen, over: pen))
    }

    @Test func canonicalHeaderBytes() {
        #expect(String(decoding: pen.canonicalBytes, as: UTF8.self) == #""weight":2,"colour":[10,20,30],"start":[0,0]}"#)
        let shape = StrokeHeader(weight: 0.5, colour: .black, start: p(-1.25, 3), isShape: true)
        #expect(String(decoding: shape.canonicalBytes, as: UTF8.self) == #""weight":0.5,"colour":[0,0,0],"start":[-1.25,3],"is_shape":true}"#)
    }

    // MARK: Gaps and overlaps

    @Test func appendAheadOfAGapWaitsUntilTheGapIsFilled() throws {
        var document = Document(applying: [.add(a, pen)])
        let ahead = document.apply(.append(a, points: line(4...5), offset: 4))
        #expect(ahead.isNovel)
        #expect(ahead.changedPoints == nil)
        #expect(ahead.appendOffset == 4)
        var stroke = try #require(document[a])
        #expect(stroke.points == [pen.start])
        #expect(stroke.pending == [PendingRun(offset: 4, points: line(4...5))])
        #expect(stroke.parameterRange == 0...0)

        let partly = document.apply(.append(a, points: line(1...1), offset: 1))
        #expect(partly.changedPoints == 1..<2)
        // Touching pending runs coalesce; index 2 is still missing.
        document.apply(.append(a, points: line(3...3), offset: 3))
        stroke = try #require(document[a])
        #expect(stroke.points == [pen.start] + line(1...1))
        #expect(stroke.pending == [PendingRun(offset: 3, points: line(3...5))])
        #expect(stroke.visible == IntervalSet([0...1]))

        let filling = document.apply(.append(a, points: line(2...2), offset: 2))
        #expect(filling.isNovel)
        #expect(filling.changedPoints == 2..<6)
        stroke = try #require(document[a])
        #expect(stroke.points == [pen.start] + line(1...5))
        #expect(stroke.pending.isEmpty)
        #expect(stroke.visible == IntervalSet([0...5]))
    }

    @Test func overlappingAppendWithIdenticalValuesIsNotNovel() throws {
        var document = Document(applying: [.add(a, pen), .append(a, points: line(1...3), offset: 1)])
        let resend = document.apply(.append(a, points: line(2...3), offset: 2))
        #expect(!resend.isNovel)
        #expect(resend.changedPoints == nil)
        #expect(resend.anomalies == 0)

        let partlyNew = document.apply(.append(a, points: line(2...4), offset: 2))
        #expect(partlyNew.isNovel)
        #expect(partlyNew.changedPoints == 4..<5)

        document.apply(.append(a, points: line(7...8), offset: 7))
        let pendingResend = document.apply(.append(a, points: line(7...8), offset: 7))
        #expect(!pendingResend.isNovel)
        #expect(document.anomalies == 0)
        #expect(try #require(document[a]).pending == [PendingRun(offset: 7, points: line(7...8))])
    }

    /// Offset 1 lands in the drawable prefix; offset 5 waits beyond a gap.
    @Test(arguments: [1, 5])
    func overlappingAppendWithDifferentValuesKeepsTheSmallerPointPerIndex(offset: Int) throws {
        let honest = [p(3, 3), p(4, 4), p(5, 5)]
        let faulty = [p(3, 1), p(9, 0), p(5, 5)]  // smaller y on an x tie; larger x; identical
        let resolved = [p(3, 1), p(4, 4), p(5, 5)]
        var honestFirst = Document(applying: [.add(a, pen), .append(a, points: honest, offset: offset)])
        let late = honestFirst.apply(.append(a, points: faulty, offset: offset))
        var faultyFirst = Document(applying: [.add(a, pen), .append(a, points: faulty, offset: offset)])
        faultyFirst.apply(.append(a, points: honest, offset: offset))

        #expect(honestFirst == faultyFirst)
        #expect(honestFirst.digest == faultyFirst.digest)
        #expect(late.isNovel)
        #expect(late.anomalies == 1)
        #expect(honestFirst.anomalies == 1)
        #expect(faultyFirst.anomalies == 1)
        var stroke = try #require(honestFirst[a])
        if offset == 1 {
            #expect(Array(stroke.points[1...]) == resolved)
        } else {
            #expect(stroke.pending == [PendingRun(offset: offset, points: resolved)])
            honestFirst.apply(.append(a, points: line(1...(offset - 1)), offset: 1))
            stroke = try #require(honestFirst[a])
            #expect(Array(stroke.points[offset...]) == resolved)
        }
    }

    @Test func conflictRevealedWhileDrainingIsResolvedAndCounted() throws {
        // Indices 2 and 3 wait for index 1; the batch that brings index 1 disagrees on index 2.
        var document = Document(applying: [.add(a, pen), .append(a, points: [p(2, 2), p(3, 3)], offset: 2)])
        let effect = document.apply(.append(a, points: [p(1, 1), p(2, 9)], offset: 1))
        #expect(effect.isNovel)
        #expect(effect.anomalies == 1)
        #expect(effect.changedPoints == 1..<4)
        #expect(document.anomalies == 1)
        let stroke = try #require(document[a])
        #expect(stroke.points == [pen.start, p(1, 1), p(2, 2), p(3, 3)])
        #expect(stroke.pending.isEmpty)
    }

    // MARK: APPEND without offset

    @Test func appendWithoutOffsetGoesAtTheCurrentEnd() throws {
        var document = Document(applying: [.add(a, pen)])
        let first = document.apply(.append(a, points: line(1...2), offset: nil))
        #expect(first.appendOffset == 1)
        let second = document.apply(.append(a, points: line(3...3), offset: nil))
        #expect(second.appendOffset == 3)
        #expect(try #require(document[a]).points == [pen.start] + line(1...3))

        // After the last known point, even when that point waits beyond a gap.
        document.apply(.append(a, points: line(6...6), offset: 6))
        let third = document.apply(.append(a, points: line(7...7), offset: nil))
        #expect(third.appendOffset == 7)
        #expect(try #require(document[a]).pending == [PendingRun(offset: 6, points: line(6...7))])
    }

    @Test func appendWithoutOffsetToAnUnknownStrokeStartsAtIndexOne() throws {
        var document = Document()
        let effect = document.apply(.append(a, points: line(1...2), offset: nil))
        #expect(effect.appendOffset == 1)
        #expect(try #require(document[a]).pending == [PendingRun(offset: 1, points: line(1...2))])
    }

    // MARK: Placeholders

    @Test func appendBeforeAddMakesAPlaceholderThatTheAddCompletes() throws {
        var document = Document()
        let early = document.apply(.append(a, points: line(1...3), offset: 1))
        #expect(early.isNovel)
        #expect(early.changedPoints == nil)
        let placeholder = try #require(document[a])
        #expect(placeholder.isPlaceholder)
        #expect(placeholder.header == nil)
        #expect(placeholder.points.isEmpty)
        #expect(placeholder.parameterRange == nil)
        #expect(placeholder.visible.isEmpty)
        #expect(placeholder.pending == [PendingRun(offset: 1, points: line(1...3))])
        #expect(document.strokeCount == 1)

        let add = document.apply(.add(a, pen))
        #expect(add.isNovel)
        #expect(add.headerChanged)
        #expect(add.changedPoints == 0..<4)
        let stroke = try #require(document[a])
        #expect(!stroke.isPlaceholder)
        #expect(stroke.points == [pen.start] + line(1...3))
        #expect(stroke.pending.isEmpty)
        #expect(stroke.visible == IntervalSet([0...3]))
    }

    @Test func deleteBeforeAddMakesAPlaceholderThatKeepsTheErasure() throws {
        var document = Document()
        let early = document.apply(.delete(a, start: 1, end: 2))
        #expect(early.isNovel)
        #expect(early.newlyErased == IntervalSet([1...2]))
        let placeholder = try #require(document[a])
        #expect(placeholder.isPlaceholder)
        #expect(placeholder.erased == IntervalSet([1...2]))
        #expect(placeholder.visible.isEmpty)

        document.apply(.add(a, pen))
        document.apply(.append(a, points: line(1...3), offset: 1))
        let stroke = try #require(document[a])
        #expect(!stroke.isPlaceholder)
        #expect(stroke.visible == IntervalSet([0...1, 2...3]))
    }

    // MARK: Operations without information

    static let uninformative: [Operation] = [
        .delete(a, start: 2, end: 2),
        .delete(a, start: 3, end: 1),
        .delete(a, start: -5, end: -1),  // nothing left after clamping the start to 0
        .delete(a, start: .nan, end: 1),
        .delete(a, start: 0, end: .nan),
        .delete(a, start: 0, end: .infinity),  // only REMOVE_STROKE erases to infinity
        .append(a, points: [], offset: 1),
        .append(a, points: [], offset: nil),
        .append(a, points: line(1...1), offset: 0),
        .append(a, points: line(1...1), offset: -3),
    ]

    @Test(arguments: uninformative)
    func operationWithoutInformationCreatesNoStroke(operation: Operation) {
        var document = Document()
        let effect = document.apply(operation)
        #expect(!effect.isNovel)
        #expect(effect == Effect(unchanged: a))
        #expect(document.strokeCount == 0)
        #expect(document[a] == nil)
        #expect(document == Document())
        #expect(document.digest == Document().digest)
    }

    @Test(arguments: uninformative)
    func operationWithoutInformationLeavesAStrokeAlone(operation: Operation) {
        var document = Document(applying: [.add(a, pen), .append(a, points: line(1...3), offset: 1)])
        let before = document
        #expect(!document.apply(operation).isNovel)
        #expect(document == before)
        #expect(document.digest == before.digest)
    }

    // MARK: Erasing

    @Test func deleteBeyondTheEndErasesToTheEndAndAheadOfIt() throws {
        var document = Document(applying: [.add(a, pen), .append(a, points: line(1...3), offset: 1)])
        let effect = document.apply(.delete(a, start: 2, end: 10))
        #expect(effect.isNovel)
        #expect(effect.newlyErased == IntervalSet([2...10]))
        #expect(try #require(document[a]).erased == IntervalSet([2...10]))
        #expect(try #require(document[a]).visible == IntervalSet([0...2]))

        document.apply(.append(a, points: line(4...12), offset: 4))
        #expect(try #require(document[a]).visible == IntervalSet([0...2, 10...12]))
    }

    @Test func removeStrokeErasesPresentAndFuturePoints() throws {
        var document = Document(applying: [.add(a, pen), .append(a, points: line(1...3), offset: 1)])
        document.apply(.delete(a, start: 1, end: 2))
        let remove = document.apply(.removeStroke(a))
        #expect(remove.isNovel)
        #expect(remove.newlyErased == IntervalSet([0...1, 2...Double.infinity]))
        #expect(try #require(document[a]).erased == IntervalSet([0...Double.infinity]))
        #expect(try #require(document[a]).visible.isEmpty)

        document.apply(.append(a, points: line(4...6), offset: 4))
        let stroke = try #require(document[a])
        #expect(stroke.parameterRange == 0...6)
        #expect(stroke.visible.isEmpty)
        #expect(!document.apply(.delete(a, start: 1, end: 20)).isNovel)
        #expect(!document.apply(.removeStroke(a)).isNovel)
    }

    @Test func negativeDeleteStartClampsToZero() throws {
        var document = Document(applying: [.add(a, pen), .append(a, points: line(1...3), offset: 1)])
        let effect = document.apply(.delete(a, start: -5, end: 1))
        #expect(effect.newlyErased == IntervalSet([0...1]))
        #expect(try #require(document[a]).erased == IntervalSet([0...1]))
        #expect(!document.apply(.delete(a, start: 0, end: 1)).isNovel)
        let fromZero = Document(applying: [
            .add(a, pen), .append(a, points: line(1...3), offset: 1), .delete(a, start: 0, end: 1),
        ])
        #expect(document == fromZero)
    }

    @Test func newlyErasedIsThePartNotErasedBefore() throws {
        var document = Document(applying: [
            .add(a, pen), .append(a, points: line(1...5), offset: 1),
            .delete(a, start: 1, end: 2), .delete(a, start: 3, end: 4),
        ])
        let wide = document.apply(.delete(a, start: 0, end: 5))
        #expect(wide.isNovel)
        #expect(wide.newlyErased == IntervalSet([0...1, 2...3, 4...5]))
        #expect(try #require(document[a]).erased == IntervalSet([0...5]))

        let inside = document.apply(.delete(a, start: 1.5, end: 2.5))
        #expect(!inside.isNovel)
        #expect(inside.newlyErased.isEmpty)
    }

    // MARK: Operations, digest and summaries

    @Test func operationsRebuildAnEqualDocument() {
        let other = StrokeHeader(weight: 4, colour: .black, start: p(5, 5), isShape: true)
        let document = Document(applying: [
            .append(c, points: line(1...2), offset: 1),  // c never gets its ADD
            .delete(c, start: 0.5, end: 1),
            .add(a, pen),
            .append(a, points: line(1...3), offset: 1),
            .append(a, points: line(6...7), offset: 6),  // waits for 4 and 5
            .delete(a, start: 1, end: 2),
            .delete(a, start: 2.5, end: 3),
            .add(b, other),
            .removeStroke(b),
        ])
        #expect(document.operations == [
            .add(a, pen),
            .append(a, points: line(1...3), offset: 1),
            .append(a, points: line(6...7), offset: 6),
            .delete(a, start: 1, end: 2),
            .delete(a, start: 2.5, end: 3),
            .add(b, other),
            .removeStroke(b),
            .append(c, points: line(1...2), offset: 1),
            .delete(c, start: 0.5, end: 1),
        ])
        let rebuilt = Document(applying: document.operations)
        #expect(rebuilt == document)
        #expect(rebuilt.digest == document.digest)
    }

    @Test func digestIsEqualForEqualDocuments() {
        let operations: [Operation] = [
            .add(a, pen), .append(a, points: line(1...3), offset: 1), .delete(a, start: 0.5, end: 1.5),
            .add(b, pen), .append(b, points: line(1...1), offset: 1), .append(c, points: line(2...2), offset: 2),
        ]
        let forwards = Document(applying: operations)
        let backwards = Document(applying: operations.reversed())
        #expect(forwards == backwards)
        #expect(forwards.digest == backwards.digest)
        #expect(forwards.digest.rootHex == backwards.digest.rootHex)
        #expect(forwards.digest.rootHex.count == 16)
        #expect(Document().digest == Document().digest)
    }

    @Test func digestChangesWithEveryNovelChange() {
        let heavy = StrokeHeader(weight: 10, colour: pen.colour, start: p(-1, -1))  // wins over pen
        let novelSteps: [Operation] = [
            .append(a, points: line(1...2), offset: 1),  // placeholder
            .add(a, pen),
            .append(a, points: line(4...4), offset: 4),  // pending
            .append(a, points: line(3...3), offset: 3),  // drains
            .append(a, points: [p(1, -1)], offset: 1),  // a faulty smaller value
            .add(a, heavy),  // a faulty winning header
            .delete(a, start: 0.5, end: 1),
            .delete(a, start: 1, end: 1.5),  // touches the previous interval
            .removeStroke(a),
            .append(a, points: line(5...5), offset: 5),  // erased, yet a new point
            .add(b, pen),
        ]
        var document = Document()
        var seenRoots: Set<UInt64> = [document.digest.root]
        for operation in novelSteps {
            let before = document
            #expect(document.apply(operation).isNovel, "\(operation)")
            #expect(document != before, "\(operation)")
            #expect(seenRoots.insert(document.digest.root).inserted, "\(operation) left the root unchanged")
        }
        let root = document.digest.root
        for operation in novelSteps {
            #expect(!document.apply(operation).isNovel, "\(operation)")
        }
        #expect(document.digest.root == root)
    }

    @Test func differingBucketsLeadToTheChangedStroke() throws {
        let ids = (0..<20).map { StrokeID("s\($0)") }
        let base = Document(applying: ids.flatMap { id -> [Operation] in
            [.add(id, pen), .append(id, points: line(1...3), offset: 1)]
        })
        let changedID = ids[7]
        var changed = base
        changed.apply(.append(changedID, points: line(4...4), offset: 4))

        #expect(base.digest.differingBuckets(from: base.digest).isEmpty)
        let buckets = changed.digest.differingBuckets(from: base.digest)
        #expect(buckets == [Digest.bucket(of: changedID)])
        #expect(changed.digest.root != base.digest.root)

        let bucket = try #require(buckets.first)
        let mine = changed.summaries(inBucket: bucket)
        let theirs = base.summaries(inBucket: bucket)
        #expect(mine.map(\.id) == theirs.map(\.id))
        #expect(mine.map(\.id).contains(changedID))
        let mySummary = try #require(mine.first { $0.id == changedID })
        let theirSummary = try #require(theirs.first { $0.id == changedID })
        #expect(mySummary.contiguousCount == 5)
        #expect(theirSummary.contiguousCount == 4)
        #expect(mySummary.hasHeader && theirSummary.hasHeader)
        #expect(mySummary.pendingCount == 0)
        #expect(mySummary.pointsHash != theirSummary.pointsHash)
        #expect(mySummary.headerHash == theirSummary.headerHash)
        #expect(mySummary.erasedHash == theirSummary.erasedHash)
        // Strokes sharing the bucket but not the change summarise alike.
        #expect(mine.filter { $0.id != changedID } == theirs.filter { $0.id != changedID })
    }

    @Test func summaryOfAPlaceholderCountsPendingPoints() throws {
        let document = Document(applying: [.append(a, points: line(2...4), offset: 2)])
        let summary = try #require(document.summaries(inBucket: Digest.bucket(of: a)).first)
        #expect(summary.id == a)
        #expect(!summary.hasHeader)
        #expect(summary.contiguousCount == 0)
        #expect(summary.pendingCount == 3)
        #expect(summary.headerHash == 0)
    }

    // MARK: Canonical JSON

    @Test(arguments: [
        (3.0, "3"), (-0.0, "0"), (0.0, "0"), (0.1, "0.1"), (1e-7, "1e-7"), (1e16, "1e16"), (1.5, "1.5"),
        (123_456_789_012_345_680_000.0, "1.2345678901234568e20"),
        (-3.0, "-3"), (-0.25, "-0.25"), (1e-5, "1e-5"), (-1e-7, "-1e-7"), (1e21, "1e21"),
        (1e15, "1000000000000000"), (9_999_999_999_999_998.0, "9999999999999998"),
        (12345.678, "12345.678"), (Double.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e308"),
    ])
    func canonicalNumber(value: Double, expected: String) {
        var bytes: [UInt8] = []
        CanonicalJSON.appendNumber(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    @Test func everyFormattedDoubleReadsBackToTheSameBits() {
        let seed: UInt64 = 0xD0_0B1E
        print("DocumentTests.everyFormattedDoubleReadsBackToTheSameBits seed", seed)
        var rng = SplitMix64(seed: seed)
        // JSON's number grammar, tightened to the canonical form: no trailing zeros in the
        // fraction, no `+` and no leading zeros in the exponent. Built once: a regex literal
        // is compiled each time it is evaluated.
        let grammar = /-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?(e-?[1-9][0-9]*)?/
        for round in 0..<20_000 {
            let value = randomFiniteDouble(using: &rng)
            var bytes: [UInt8] = []
            CanonicalJSON.appendNumber(value, to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            let expectedBits = (value == 0 ? 0 : value).bitPattern  // negative zero is written 0
            #expect(Double(text)?.bitPattern == expectedBits, "seed \(seed) round \(round): \(value) written as \(text)")
            #expect(text.wholeMatch(of: grammar) != nil, "seed \(seed) round \(round): \(value) written as \(text)")
        }
    }

    @Test(arguments: [
        ("plain", #""plain""#), ("quote\"back\\slash", #""quote\"back\\slash""#),
        ("tab\tline\nreturn\r", #""tab\tline\nreturn\r""#), ("\u{01}\u{1F}", #""\u0001\u001f""#),
        ("é✏️", "\"é✏️\""),
    ])
    func canonicalString(value: String, expected: String) {
        var bytes: [UInt8] = []
        CanonicalJSON.appendString(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    /// Random bit patterns cover every exponent; integers, dyadic fractions and short
    /// decimals cover the values drawings really produce.
    private func randomFiniteDouble(using rng: inout SplitMix64) -> Double {
        switch Int.random(in: 0...3, using: &rng) {
        case 0:
            var value = Double(bitPattern: rng.next())
            while !value.isFinite {
                value = Double(bitPattern: rng.next())
            }
            return value
        case 1:
            return Double(Int64.random(in: -(1 << 60)...(1 << 60), using: &rng))
        case 2:
            return Double(Int.random(in: -100_000...100_000, using: &rng)) / Double(1 << Int.random(in: 0...20, using: &rng))
        default:
            return Double(Int.random(in: -100_000...100_000, using: &rng)) / 1000
        }
    }
}

@Suite("Identifiers")
struct IdentifierTests {
    /// "é" precomposed and "e" + combining acute are canonically equivalent Strings but
    /// different bytes: they must be two strokes on every replica, whatever the order.
    @Test func canonicallyEquivalentSpellingsAreDifferentStrokes() {
        let composed = StrokeID("\u{E9}")
        let decomposed = StrokeID("e\u{301}")
        #expect(composed != decomposed)
        let a = Operation.add(composed, StrokeHeader(weight: 1, colour: .black, start: Point(x: 0, y: 0)))
        let b = Operation.add(decomposed, StrokeHeader(weight: 2, colour: .black, start: Point(x: 1, y: 1)))
        var forward = Document()
        forward.apply(a)
        forward.apply(b)
        var backward = Document()
        backward.apply(b)
        backward.apply(a)
        #expect(forward.strokeCount == 2)
        #expect(forward == backward)
        #expect(forward.digest == backward.digest)
        #expect(Set([composed, decomposed]).count == 2)
    }

    /// Identifiers sort by their UTF-8 bytes: prefixes first, bytes compared unsigned, the
    /// same on every platform, whatever the strings' Unicode order.
    @Test func identifiersSortByTheirUTF8Bytes() {
        var generator = SplitMix64(seed: announcedSeed())
        let alphabet = ["a", "b", "z", "_", "0", "\u{E9}", "e\u{301}", "\u{7F}", "\u{80}", "\u{1F600}", "\u{FFFF}"]
        let identifiers = (0..<300).map { _ in
            StrokeID((0..<Int.random(in: 0...5, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined())
        }
        for left in identifiers {
            for right in identifiers.prefix(60) {
                #expect((left < right) == left.rawValue.utf8.lexicographicallyPrecedes(right.rawValue.utf8), "\(left) < \(right)")
            }
        }
        #expect(StrokeID("ab") < StrokeID("abc"))
        #expect(!(StrokeID("abc") < StrokeID("abc")))
        #expect(StrokeID("z") < StrokeID("\u{E9}"))  // 0x7A before 0xC3
    }
}

@Suite("Canonical strings")
struct CanonicalStringTests {
    @Test(arguments: [
        ("", #""""#), ("plain-id_7", #""plain-id_7""#), ("é€😀", "\"é€😀\""), ("a\"b\\c", #""a\"b\\c""#),
        ("\n\t\r\u{8}\u{C}\u{1}\u{1F}", #""\n\t\r\b\f\u0001\u001f""#),
    ])
    func stringsAreEscapedMinimally(string: String, expected: String) {
        var bytes: [UInt8] = []
        CanonicalJSON.appendString(string, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }
}
