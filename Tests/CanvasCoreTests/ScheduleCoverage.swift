@testable import CanvasCore
import CanvasTestSupport
import Testing

/// What one schedule (one delivery order of a history) exercised. The property tests check
/// that many schedules exercise each feature, so that they cannot pass on trivial cases.
struct ScheduleFeatures {
    /// An APPEND arrived ahead of a gap and waited in `pending`.
    var usedPendingRuns = false
    /// An APPEND or DELETE arrived before its ADD.
    var usedPlaceholders = false
    /// A faulty peer's ADD or APPEND was resolved (an anomaly was counted).
    var resolvedConflicts = false
    /// A DELETE or REMOVE_STROKE erased something.
    var erased = false
}

extension ScheduleFeatures {
    /// Notes what applying `operation` to `document` (now holding its result) exercised.
    mutating func note(_ effect: Effect, of operation: Operation, in document: Document) {
        let stroke = document[operation.strokeID]
        if case .append = operation, stroke?.pending.isEmpty == false {
            usedPendingRuns = true
        }
        if stroke?.isPlaceholder == true {
            usedPlaceholders = true
        }
        if effect.anomalies > 0 {
            resolvedConflicts = true
        }
        if !effect.newlyErased.isEmpty {
            erased = true
        }
    }
}

extension Document {
    /// The document that applying `operations` in order to an empty document gives.
    init(applying operations: some Sequence<Operation>) {
        self.init()
        for operation in operations {
            apply(operation)
        }
    }

    /// Applies `operations` in order, noting what the schedule exercised.
    mutating func apply(_ operations: some Sequence<Operation>, noting features: inout ScheduleFeatures) {
        for operation in operations {
            let effect = apply(operation)
            features.note(effect, of: operation, in: self)
        }
    }
}

/// Counts, over a run, the schedules that exercised each feature.
struct Coverage: CustomStringConvertible {
    private(set) var schedules = 0
    private var pendingRuns = 0
    private var placeholders = 0
    private var conflicts = 0
    private var erasures = 0

    mutating func record(_ features: ScheduleFeatures) {
        schedules += 1
        pendingRuns += features.usedPendingRuns ? 1 : 0
        placeholders += features.usedPlaceholders ? 1 : 0
        conflicts += features.resolvedConflicts ? 1 : 0
        erasures += features.erased ? 1 : 0
    }

    /// Records an issue for every feature exercised by less than `fraction` of the schedules.
    func expectEachFeature(inAtLeast fraction: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let minimum = Int((Double(schedules) * fraction).rounded(.up))
        #expect(schedules > 0, sourceLocation: sourceLocation)
        #expect(pendingRuns >= minimum, "out-of-order APPENDs: \(self)", sourceLocation: sourceLocation)
        #expect(placeholders >= minimum, "placeholders: \(self)", sourceLocation: sourceLocation)
        #expect(conflicts >= minimum, "conflicts: \(self)", sourceLocation: sourceLocation)
        #expect(erasures >= minimum, "erasures: \(self)", sourceLocation: sourceLocation)
    }

    var description: String {
        "\(schedules) schedules: \(pendingRuns) with pending runs, \(placeholders) with placeholders, "
            + "\(conflicts) with conflicts, \(erasures) with erasures"
    }
}
