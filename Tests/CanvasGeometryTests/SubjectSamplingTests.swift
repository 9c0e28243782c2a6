import Foundation
import Testing

@Suite struct SubjectSamplingTests {
    @Test func theBinomialTailIsExact() {
        // (1 + 10 + 45) of the 1,024 equally likely outcomes of ten fair coins.
        #expect(abs(SubjectSampling.chance(atMost: 2, of: 10, rate: 0.5) - 56.0 / 1024) < 1e-12)
        #expect(abs(SubjectSampling.chance(atMost: 9, of: 10, rate: 0.9) - (1 - pow(0.9, 10))) < 1e-12)
        #expect(SubjectSampling.chance(atMost: 10, of: 10, rate: 0.3) == 1)
        #expect(SubjectSampling.chance(atMost: -1, of: 10, rate: 0.3) == 0)
        #expect(SubjectSampling.chance(atMost: 3, of: 10, rate: 1) == 0)
        #expect(SubjectSampling.chance(atMost: 0, of: 10, rate: 0) == 1)
    }

    @Test func manySamplesNeitherUnderflowNorOverflow() {
        // 5,000 samples at 99 %: the mean, 4,950, is about the median.
        let atTheMean = SubjectSampling.chance(atMost: 4950, of: 5000, rate: 0.99)
        #expect(atTheMean > 0.45 && atTheMean < 0.6, "P(X ≤ mean) = \(atTheMean)")
        let farBelow = SubjectSampling.chance(atMost: 4800, of: 5000, rate: 0.99)
        #expect(farBelow >= 0 && farBelow < 1e-20, "P(X ≤ 4,800) = \(farBelow)")
    }

    @Test func sharesAreCountedDespiteRounding() {
        // 28 / 30 computed as a quotient is 0.9333…; it is 28 of 30, not 27.
        #expect(SubjectSampling.count(atMost: 28.0 / 30, of: 30) == 28)
        #expect(SubjectSampling.count(atMost: 0.7, of: 10) == 7)
        #expect(SubjectSampling.count(atMost: 0.7, of: 30) == 21)
    }

    @Test func aWorstSubjectIsLikelierTheMoreSubjects() {
        let one = SubjectSampling.chanceOfAWorst(atMost: 0.9, samples: [10], rate: 0.98)
        #expect(abs(one - SubjectSampling.chance(atMost: 9, of: 10, rate: 0.98)) < 1e-12)
        let many = SubjectSampling.chanceOfAWorst(atMost: 0.9, samples: Array(repeating: 10, count: 86), rate: 0.98)
        #expect(abs(many - (1 - pow(1 - one, 86))) < 1e-12)
        #expect(many > 0.99, "86 people at 98 %: someone recognises 9 of 10 or fewer (\(many))")
    }

    @Test func everySubjectReachingATargetNeedsTheWholeShareRoundedUp() {
        // 97 % of 10 samples is all 10; 95 % of 30 is 29 of them.
        let tens = Array(repeating: 10, count: 86)
        let everyone = SubjectSampling.chanceEverySubjectReaches(0.97, samples: tens, rate: 0.99)
        #expect(abs(everyone - pow(0.99, 860)) < 1e-12)
        let thirty = SubjectSampling.chanceEverySubjectReaches(0.95, samples: [30], rate: 0.9)
        #expect(abs(thirty - (pow(0.9, 30) + 30 * pow(0.9, 29) * 0.1)) < 1e-12)
        // Two subjects of 30 reach 97 % with even odds when p⁶⁰ = ½.
        let rate = SubjectSampling.rateForEverySubject(toReach: 0.97, samples: [30, 30])
        #expect(abs(rate - pow(0.5, 1.0 / 60)) < 2e-5, "rate \(rate)")
    }
}
