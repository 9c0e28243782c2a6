public import CanvasCore
import Foundation

/// `explain`: what `recognize` decides and why, in words and figures.
extension ShapeRecognizer {
    /// What `recognize` decides and why: every shape it tried, with the stroke's scores
    /// against it and the test that refused it (`canvas recognize --explain`).
    public static func explain(_ points: [Point]) -> RecognitionExplanation {
        var unfitted: [(ShapeKind, String)] = []
        let smoothed = StrokeSmoothing.smoothed(points)
        let all = candidates(smoothed, unfitted: &unfitted)
        return explanation(of: all, unfitted: unfitted, smoothed: smoothed) { _ in nil }
    }

    /// The explanation of `all`, the candidates found for the stroke as `smoothed` leaves it
    /// (every match in full), and of the shapes that could not be fitted, `unfitted`; each
    /// candidate that `refusing` gives a reason for refused before any is chosen.
    static func explanation(
        of all: [Candidate], unfitted: [(ShapeKind, String)], smoothed: StrokeSmoothing.Smoothed,
        refusing: (Candidate) -> String?
    ) -> RecognitionExplanation {
        let refused = all.map(refusing)
        let choosable = all.indices.filter { refused[$0] == nil }
        let chosenIndex = choice(among: choosable.map { all[$0] }).map { choosable[$0] }
        let chosen = chosenIndex.map { all[$0] }
        var hypotheses: [RecognitionExplanation.Hypothesis] = all.indices.map { index in
            let candidate = all[index]
            var verdict: String
            if index == chosenIndex {
                verdict = "chosen"
            } else if let refusal = refused[index] {
                verdict = "refused: " + refusal
            } else if let refusal = candidate.refusal {
                verdict = "refused: " + refusal
            } else if let polygon = candidate.straightSides {
                verdict = "refused: the stroke follows \(polygon.sides) straight sides, straying from them "
                    + "\(String(format: "%.2f", polygon.ratio))× as far as an arc of this ellipse would (under "
                    + "\(String(format: "%.2f", straightSideRatio))×): a polygon of \(polygon.sides) sides, no ellipse"
            } else if chosen == nil, let polygon = all.first(where: { $0.straightSides != nil }),
                !candidate.isCloseEnough(toBeTakenOver: polygon)
            {
                verdict = "passes, but its ellipse passes too, refused as a polygon of more sides, and the stroke "
                    + "follows this less than \(closenessFactor)× as closely (RMS distance "
                    + "\(figure(candidate.relativeRMS)) of the size against \(figure(polygon.relativeRMS)))"
            } else if chosen?.shape.kind == .line {
                verdict = "passes, but a line passes too (the simplest explanation)"
            } else if chosen?.shape.kind == .arrow, candidate.shape.kind == .line {
                verdict = "passes, but an arrow passes too: a head at the line's end"
                if case .stroke(hooksCut: true) = candidate.fittedTo { verdict += ", which the line cut off as a hook" }
            } else if chosen?.shape.kind == .doubleArrow, candidate.shape.kind == .line {
                verdict = "passes, but a double arrow passes too: a head at each of the line's ends"
                if case .stroke(hooksCut: true) = candidate.fittedTo { verdict += ", which the line cut off as hooks" }
            } else if let kind = chosen?.shape.kind, [.arrow, .doubleArrow].contains(kind),
                candidate.shape.kind != kind, all.contains(where: { $0.shape.kind == .line && $0.isAccepted })
            {
                verdict = kind == .arrow
                    ? "passes, but a line passes too, and an arrow with it (a head at the line's end)"
                    : "passes, but a line passes too, and a double arrow with it (a head at each of its ends)"
            } else if let chosen, candidate.givesWay(to: chosen) {
                verdict =
                    "passes, but \(chosen.shape.kind.rawValue) passes too, and a parallelogram gives way to every "
                    + "other closed shape but a rectangle that the stroke follows less than half as closely (RMS "
                    + "distance \(figure(candidate.relativeRMS)) of the size against \(figure(chosen.relativeRMS)))"
            } else if let chosen, candidate.match.rmsDistance < chosen.match.rmsDistance,
                !candidate.isCloseEnough(toBeTakenOver: chosen)
            {
                verdict = "passes, but an ellipse passes too, and the stroke follows this less than "
                    + "\(closenessFactor)× as closely (RMS distance \(figure(candidate.relativeRMS)) "
                    + "of the size against \(figure(chosen.relativeRMS)))"
            } else {
                verdict = "passes, but \(chosen?.shape.kind.rawValue ?? "another shape") is closer"
            }
            if let note = candidate.cornerRoundingNote { verdict += " (\(note))" }
            if let note = candidate.polygonComparison?.note { verdict += " (\(note))" }
            return RecognitionExplanation.Hypothesis(candidate, verdict: verdict)
        }
        for (kind, reason) in unfitted {
            hypotheses.append(RecognitionExplanation.Hypothesis(kind: kind, verdict: "not fitted: " + reason))
        }
        let grid = smoothed.grid.map { grid in
            let (step, share) = (String(format: "%g", grid.step), figure(grid.step / grid.extent))
            return "the points lie on a grid of \(step), \(share) of the stroke's width or height (over "
                + "\(figure(PenGrid.coarseness))): each point was replaced by the mean of the stroke within "
                + "\(figure(PenGrid.halfWindow)) steps of it along the stroke before fitting"
        }
        let noise = smoothed.noise.map { noise in
            "the points' noise is \(figure(noise.deviation / noise.extent)) of the stroke's width or height (over "
                + "\(figure(PenNoise.largeNoise))): each point was replaced by the mean of the stroke within "
                + "\(String(format: "%g", PenNoise.halfWindow)) times that of it along the stroke before fitting"
        }
        let smoothing = [grid, noise].compactMap { $0 }
        return RecognitionExplanation(
            shape: chosen?.shape ?? .none, hypotheses: hypotheses,
            smoothing: smoothing.isEmpty ? nil : smoothing.joined(separator: "; then "))
    }

    /// How many times closer a polygon must be, as `explain` says it ("2").
    static var closenessFactor: String { String(format: "%g", 1 / polygonCloseness) }

    /// A fraction (of the size, of the outline) as `explain` prints it: three decimals.
    static func figure(_ fraction: Double) -> String { String(format: "%.3f", fraction) }

    /// Why the four straight runs make no quadrilateral, in words (for `explain`).
    static func reason(_ refusal: PolygonFit.QuadrilateralRefusal) -> String {
        switch refusal {
        case .noCorners:
            "no four straight runs meet in corners"
        case .skewedCorner(let largest, let mean):
            "the four straight runs meet at a corner \(degrees(largest))° from square (at most "
                + "\(degrees(skewTolerance))°), and make no diamond or parallelogram: their corners are "
                + "\(degrees(mean))° from square on average (\(degrees(obliqueSkew.lowerBound))-"
                + "\(degrees(obliqueSkew.upperBound))°)"
        case .unequalOppositeSides(let ratio):
            "two opposite sides of the four straight runs differ in length by more than "
                + "\(Int((1 / oppositeSideRatio).rounded())):1 (a trapezoid): the shorter is \(figure(ratio)) of "
                + "the longer"
        }
    }

    /// `angle` (radians) in whole degrees, as `explain` prints it; an angle that is not a
    /// finite number (from a stroke whose coordinates' products overflow) as it is.
    static func degrees(_ angle: Double) -> String {
        let degrees = (angle * 180 / .pi).rounded()
        return abs(degrees) < 1e15 ? String(Int(degrees)) : String(degrees)
    }
}

extension RecognitionExplanation.Hypothesis {
    /// `candidate` with its scores (distances as fractions of its size) and `verdict`.
    init(_ candidate: ShapeRecognizer.Candidate, verdict: String) {
        self.init(
            kind: candidate.shape.kind, fittedTo: candidate.fittedTo.description, rmsDistance: candidate.relativeRMS,
            maximumDistance: candidate.match.maximumDistance / candidate.size,
            drawnFraction: candidate.match.drawnFraction, leastDrawnSide: candidate.match.leastDrawnSide,
            verdict: verdict)
    }
}
