import Benchmark
import CanvasBench
import CanvasCore
import CanvasProtocol

/// The same workloads as `canvas bench`, under package-benchmark for its statistics,
/// allocation counts and baselines.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(3)
    )

    let onePoint = OnePointBenchmark(points: 1000)
    let (add, appends) = Workloads.onePointAppends(count: 1000)

    Benchmark("1000-point: CRDT apply") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(onePoint.applyAll(add, appends))
        }
    }

    Benchmark("1000-point: encode + decode + apply") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(onePoint.codecAll(add, appends))
        }
    }

    let users = UsersBenchmark(users: 1000, batches: 20, pointsPerBatch: 15)
    let traffic = Workloads.usersTraffic(users: users.users, batches: users.batches, pointsPerBatch: users.pointsPerBatch)
    var base = Document()
    for message in traffic.setup {
        for operation in (try? MessageDecoder.decode(message))?.operations ?? [] {
            base.apply(operation)
        }
    }
    let replica = base
    Benchmark(
        "1000-user: absorb 300,000 points (decode + validate + apply)",
        configuration: .init(scalingFactor: .one)
    ) { benchmark in
        blackHole(users.absorb(replica, traffic.messages))
    }

    Benchmark("digest of a 1000-stroke document") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(replica.digest)
        }
    }
}
