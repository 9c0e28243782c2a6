import CanvasTestSupport
import Foundation

@testable import LANCluster

extension SplitMix64 {
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }
}

/// A node of room "sketch" with the defaults, started at `now`.
func startedNode(
    _ nodeID: String, incarnation: UInt64 = 1, key: [UInt8]? = nil, now: Duration = .zero,
    configure: (inout ClusterConfiguration) -> Void = { _ in }
) throws -> (node: ClusterNode, actions: [ClusterAction]) {
    var configuration = ClusterConfiguration(room: "sketch")
    configure(&configuration)
    var node = try ClusterNode(configuration: configuration, nodeID: nodeID, incarnation: incarnation, key: key)
    let actions = node.start(now: now)
    return (node, actions)
}

extension [ClusterAction] {
    /// The datagrams to multicast, in order.
    var datagrams: [[UInt8]] {
        compactMap { if case .multicast(let bytes) = $0 { bytes } else { nil } }
    }

    /// The time of the last tick the node asked for.
    var lastTick: Duration? {
        compactMap { if case .scheduleTick(let time) = $0 { time } else { nil } }.last
    }

    /// The payloads delivered, in order.
    var deliveries: [(payload: [UInt8], from: String)] {
        compactMap { if case .deliver(let payload, let from) = $0 { (payload, from) } else { nil } }
    }

    /// Membership and gateway reports, without datagrams, deliveries and ticks.
    var reports: [ClusterAction] {
        filter {
            switch $0 {
            case .memberJoined, .memberLeft, .gatewayChanged: true
            case .multicast, .deliver, .scheduleTick, .membersCapabilities: false
            }
        }
    }

    /// The decoded datagrams to multicast.
    var decoded: [Datagram] {
        datagrams.compactMap { try? Datagram(decoding: $0) }
    }

    /// The datagrams of room "sketch" sealed with `key`, opened.
    func opened(key: [UInt8]) throws -> [Datagram] {
        let sealer = DatagramSealer(key: try RoomKey(key), room: "sketch")
        return datagrams.compactMap { try? sealer.open($0) }
    }
}
