import CanvasTestSupport

@testable import LANCluster

/// An in-memory LAN of `ClusterNode`s on one simulated clock: each multicast reaches every
/// other attached node, independently lost, duplicated and delayed (so reordered) at
/// random, from a seed.
struct SimulatedLAN {
    struct Faults {
        var loss = 0.0
        var duplication = 0.0
        var maximumDelay: Duration = .milliseconds(2)
    }

    private enum Event {
        case datagram([UInt8], to: Int)
        case tick(Int)
    }

    private struct Scheduled {
        var time: Duration
        var serial: Int
        var event: Event
        func precedes(_ other: Scheduled) -> Bool { (time, serial) < (other.time, other.serial) }
    }

    var nodes: [ClusterNode]
    var faults: Faults
    private(set) var now: Duration = .zero
    /// Nodes that receive and tick (a detached node is a crashed one).
    var attached: Set<Int>
    /// What each node delivered, in order.
    private(set) var deliveries: [[(payload: [UInt8], from: String)]]
    /// Each node's membership and gateway reports, in order.
    private(set) var reports: [[ClusterAction]]
    /// Beacons each node sent.
    private(set) var beaconsSent: [Int]
    private var random: SplitMix64
    private var heap: [Scheduled] = []
    private var serial = 0
    private var tickAt: [Duration?]

    init(nodes: [ClusterNode], faults: Faults, seed: UInt64) {
        self.nodes = nodes
        self.faults = faults
        attached = Set(nodes.indices)
        deliveries = Array(repeating: [], count: nodes.count)
        reports = Array(repeating: [], count: nodes.count)
        beaconsSent = Array(repeating: 0, count: nodes.count)
        tickAt = Array(repeating: nil, count: nodes.count)
        random = SplitMix64(seed: seed)
    }

    mutating func start(_ index: Int) {
        perform(nodes[index].start(now: now), by: index)
    }

    mutating func send(_ payload: [UInt8], from index: Int) throws {
        perform(try nodes[index].send(payload: payload, now: now), by: index)
    }

    mutating func setCapabilities(_ index: Int, hasXMPPSession: Bool) throws {
        perform(try nodes[index].setCapabilities(hasXMPPSession: hasXMPPSession, summary: [], now: now), by: index)
    }

    /// Delivers a datagram to every attached node, without faults (an attacker's injection).
    mutating func inject(_ bytes: [UInt8]) {
        for index in attached.sorted() { schedule(.datagram(bytes, to: index), at: now) }
    }

    /// Runs every event up to `time`.
    mutating func run(until time: Duration) {
        while let first = heap.first, first.time <= time {
            let next = pop()
            now = next.time
            switch next.event {
            case .datagram(let bytes, let index):
                guard attached.contains(index) else { continue }
                perform(nodes[index].receive(bytes: bytes, now: now), by: index)
            case .tick(let index):
                guard attached.contains(index), tickAt[index] == now else { continue }
                tickAt[index] = nil
                perform(nodes[index].tick(now: now), by: index)
            }
        }
        now = time
    }

    mutating func run(for duration: Duration) {
        run(until: now + duration)
    }

    private mutating func perform(_ actions: [ClusterAction], by index: Int) {
        for action in actions {
            switch action {
            case .multicast(let bytes):
                if case .beacon = try? Datagram(decoding: bytes).body { beaconsSent[index] += 1 }
                for receiver in nodes.indices where receiver != index {
                    guard !random.chance(faults.loss) else { continue }
                    let copies = random.chance(faults.duplication) ? 2 : 1
                    for _ in 0..<copies {
                        schedule(
                            .datagram(bytes, to: receiver),
                            at: now + faults.maximumDelay * Double.random(in: 0...1, using: &random))
                    }
                }
            case .deliver(let payload, let from):
                deliveries[index].append((payload, from))
            case .scheduleTick(let time):
                tickAt[index] = time
                schedule(.tick(index), at: time)
            case .memberJoined, .memberLeft, .gatewayChanged:
                reports[index].append(action)
            case .membersCapabilities:
                break
            }
        }
    }

    private mutating func schedule(_ event: Event, at time: Duration) {
        serial += 1
        heap.append(Scheduled(time: time, serial: serial, event: event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func pop() -> Scheduled {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
                if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
