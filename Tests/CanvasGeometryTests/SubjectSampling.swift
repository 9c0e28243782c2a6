import Foundation

/// What sampling alone does to the worst of several subjects (issue 14's targets are on the
/// worst subject): each subject draws a few samples of a class, and each sample is taken to
/// be recognised independently at one rate, the class's overall share. With ten or thirty
/// samples a subject, a recogniser that is equally good for everybody still has a worst
/// subject well under its overall rate, and the more subjects, the lower: a target on the
/// worst subject asks more of the rate the more subjects and the fewer samples each.
///
/// These say how far a worst subject is explained by that: how likely a worst as low is
/// at the overall rate (a subject the recogniser really fails makes it unlikely), how
/// likely every subject is to reach a target at that rate, and what rate the target needs.
enum SubjectSampling {
    /// P(X ≤ `k`) for X ~ Binomial(`n`, `rate`): the chance that at most `k` of `n` samples
    /// are recognised. Summed in log space, so that thousands of samples do not underflow.
    static func chance(atMost k: Int, of n: Int, rate: Double) -> Double {
        precondition(n >= 0 && (0...1).contains(rate), "a binomial needs n ≥ 0 and a rate in 0...1")
        guard k >= 0 else { return 0 }
        guard k < n else { return 1 }
        if rate == 0 { return 1 }
        if rate == 1 { return 0 }
        let (logRate, logMiss) = (log(rate), log1p(-rate))
        let logChoose = { (j: Int) in lgamma(Double(n + 1)) - lgamma(Double(j + 1)) - lgamma(Double(n - j + 1)) }
        return (0...k).reduce(0) { sum, j in
            sum + exp(logChoose(j) + Double(j) * logRate + Double(n - j) * logMiss)
        }
    }

    /// The most samples of `n` whose share is at most `share` (tolerating the rounding of a
    /// share computed as a quotient).
    static func count(atMost share: Double, of n: Int) -> Int {
        Int((share * Double(n) + 1e-9).rounded(.down))
    }

    /// The chance that some subject recognises at most `worst` of its samples, when the
    /// subjects draw `samples` each and every sample is recognised at `rate`.
    static func chanceOfAWorst(atMost worst: Double, samples: [Int], rate: Double) -> Double {
        1 - samples.reduce(1) { product, n in
            product * (1 - chance(atMost: count(atMost: worst, of: n), of: n, rate: rate))
        }
    }

    /// The chance that every subject recognises at least `target` of its samples, at `rate`.
    static func chanceEverySubjectReaches(_ target: Double, samples: [Int], rate: Double) -> Double {
        samples.reduce(1) { product, n in
            // Below the target: fewer than ⌈target · n⌉ recognised.
            let needed = Int((target * Double(n) - 1e-9).rounded(.up))
            return product * (1 - chance(atMost: needed - 1, of: n, rate: rate))
        }
    }

    /// The least rate at which every subject reaches `target` with even odds (to 10⁻⁵).
    static func rateForEverySubject(toReach target: Double, samples: [Int]) -> Double {
        var (low, high) = (0.0, 1.0)
        while high - low > 1e-5 {
            let middle = (low + high) / 2
            if chanceEverySubjectReaches(target, samples: samples, rate: middle) >= 0.5 {
                high = middle
            } else {
                low = middle
            }
        }
        return high
    }
}
