import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import LANCluster

/// The interface the socket tests use: the one a driver picks by default, when it supports
/// multicast (`lo` does not, unless `ip link set lo multicast on`).
private let multicastInterface: ClusterInterface? = {
    guard let interface = try? ClusterInterface.select(nil), interface.device.multicastSupported else {
        print("ClusterDriverTests: no up interface with an IPv4 address and MULTICAST; socket tests skipped")
        return nil
    }
    return interface
}()

/// The multicast interface when it also has a broadcast address.
private let broadcastInterface: ClusterInterface? = {
    guard let interface = multicastInterface, interface.broadcastAddress != nil else {
        print("ClusterDriverTests: the multicast interface has no broadcast address; broadcast test skipped")
        return nil
    }
    return interface
}()

/// Whether `lo` exists and lacks MULTICAST, as on a default Linux machine.
private let loopbackLacksMulticast: Bool = {
    guard let loopback = try? ClusterInterface.select("lo") else { return false }
    return !loopback.device.multicastSupported
}()

private let testLogger: Logger = {
    var logger = Logger(label: "cluster-driver-test")
    logger.logLevel = .warning
    return logger
}()

/// A fresh group and port, so that tests running at the same time never hear each other.
private func freshSocket(on interface: ClusterInterface) -> ClusterSocketConfiguration {
    ClusterSocketConfiguration(
        group: "239.\(Int.random(in: 1...254)).\(Int.random(in: 0...255)).\(Int.random(in: 1...254))",
        port: Int.random(in: 20_000...60_000), interface: interface.name)
}

/// A driver and the events it reported so far.
///
/// Nodes discover each other at once (a node that hears a new member beacons within a tenth
/// of an interval) and leave with a goodbye, so no test waits for beacons: the interval only
/// sets how long a node starved of CPU (tests run in parallel) may stay silent before the
/// others think it gone, 3 intervals.
private final class TestNode: Sendable {
    let driver: ClusterDriver
    let id: String
    private let log = NIOLockedValueBox<[ClusterEvent]>([])
    private let consumer: Task<Void, Never>

    init(
        _ id: String, socket: ClusterSocketConfiguration, room: String = "sketch", key: [UInt8]? = nil,
        beaconInterval: Duration = .milliseconds(500)
    ) throws {
        var configuration = ClusterConfiguration(room: room)
        configuration.beaconInterval = beaconInterval
        let node = try ClusterNode(
            configuration: configuration, nodeID: id, incarnation: .random(in: .min ... .max), key: key)
        let driver = ClusterDriver(
            node: node, socket: socket, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: testLogger)
        self.driver = driver
        self.id = id
        consumer = Task { [log] in
            for await event in driver.events { log.withLockedValue { $0.append(event) } }
        }
    }

    var events: [ClusterEvent] { log.withLockedValue { $0 } }

    var deliveries: [(payload: [UInt8], from: String)] {
        events.flatMap { event -> [(payload: [UInt8], from: String)] in
            if case .delivered(let deliveries) = event { deliveries.map { ($0.payload, $0.from) } } else { [] }
        }
    }

    /// Waits until `driver.events` has finished.
    func eventsFinished() async { await consumer.value }
}

/// Starts a node per id on `socket`.
private func startNodes(
    _ ids: [String], socket: ClusterSocketConfiguration, room: String = "sketch", key: [UInt8]? = nil,
    beaconInterval: Duration = .milliseconds(500)
) async throws -> [TestNode] {
    var nodes: [TestNode] = []
    for id in ids {
        let node = try TestNode(id, socket: socket, room: room, key: key, beaconInterval: beaconInterval)
        try await node.driver.start()
        nodes.append(node)
    }
    return nodes
}

private func stopAll(_ nodes: [TestNode]) async {
    for node in nodes { await node.driver.stop() }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
@discardableResult
private func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Waits until every node lists all the others as members.
private func awaitFullMembership(_ nodes: [TestNode], within timeout: Duration = .seconds(5)) async -> Bool {
    await eventually(within: timeout) {
        nodes.allSatisfy { node in node.driver.members == nodes.map(\.id).filter { $0 != node.id }.sorted() }
    }
}

@Suite struct ClusterDriverTests {
    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func configuredFaultsDuplicateWhatTheDriverSends() async throws {
        let interface = try #require(multicastInterface)
        let sound = freshSocket(on: interface)
        var faulty = sound
        faulty.faults = DatagramFaults(duplicate: 1)
        let nodes = [try TestNode("a", socket: faulty), try TestNode("b", socket: sound)]
        for node in nodes { try await node.driver.start() }
        #expect(await awaitFullMembership(nodes))
        nodes[0].driver.send(payload: [1, 2, 3])
        #expect(await eventually { nodes[1].deliveries.count == 1 })
        #expect(nodes[1].driver.counters.droppedReplayed > 0, "b heard a's datagrams twice")
        #expect(nodes[0].driver.counters.droppedReplayed == 0, "a heard b's datagrams once")
        await stopAll(nodes)
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func threeDriversDiscoverEachOther() async throws {
        let interface = try #require(multicastInterface)
        let socket = freshSocket(on: interface)
        let nodes = try await startNodes(["a", "b", "c"], socket: socket)
        #expect(await awaitFullMembership(nodes))
        for node in nodes {
            // The membership is the driver's; its events reach the test's consumer a little
            // later (on a loaded machine, noticeably later).
            let others = Set(nodes.map(\.id)).subtracting([node.id])
            func joined() -> Set<String> {
                Set(node.events.compactMap { if case .memberJoined(let id) = $0 { id } else { nil } })
            }
            #expect(await eventually { joined() == others }, "\(node.id) saw \(joined()) join")
            #expect(
                node.driver.transportDescription
                    == "multicast \(socket.group):\(socket.port) on \(interface.name) (\(interface.ipAddress))")
        }
        await stopAll(nodes)
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func aPayloadReachesEveryOtherMemberExactlyOnce() async throws {
        let nodes = try await startNodes(["a", "b", "c"], socket: freshSocket(on: try #require(multicastInterface)))
        #expect(await awaitFullMembership(nodes))
        nodes[0].driver.send(payload: Array("hello".utf8))
        #expect(await eventually { nodes.dropFirst().allSatisfy { !$0.deliveries.isEmpty } })
        try await Task.sleep(for: .milliseconds(300))
        for node in nodes.dropFirst() {
            #expect(node.deliveries.map(\.payload) == [Array("hello".utf8)])
            #expect(node.deliveries.map(\.from) == ["a"])
        }
        #expect(nodes[0].deliveries.isEmpty)
        #expect(nodes[0].driver.counters.droppedOwn > 0, "multicast loops back to the sender's own socket")
        await stopAll(nodes)
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func payloadsSentTogetherArriveInOrderOnce() async throws {
        let nodes = try await startNodes(["a", "b"], socket: freshSocket(on: try #require(multicastInterface)))
        #expect(await awaitFullMembership(nodes))
        // A gateway's burst: full datagrams, one that takes two, and a refused one among
        // them (too large), which does not hold back the others.
        let payloads = (0..<40).map { index in [UInt8](repeating: UInt8(index), count: index == 7 ? 2000 : 1100) }
        let refused = [UInt8](repeating: 0xFF, count: ClusterConfiguration(room: "sketch").maxPayloadBytes + 1)
        let before = nodes[0].driver.counters.datagramsSent
        nodes[0].driver.send(payloads: Array(payloads[..<20]) + [refused] + Array(payloads[20...]))
        nodes[0].driver.send(payloads: [])
        #expect(await eventually { nodes[1].deliveries.count >= 40 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(nodes[1].deliveries.map(\.payload) == payloads)
        #expect(nodes[0].driver.counters.datagramsSent - before >= 41)
        await stopAll(nodes)
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func aLargePayloadArrivesIntactInFragments() async throws {
        let nodes = try await startNodes(["a", "b", "c"], socket: freshSocket(on: try #require(multicastInterface)))
        #expect(await awaitFullMembership(nodes))
        let payload = (0..<50_000).map { _ in UInt8.random(in: .min ... .max) }
        let before = nodes[0].driver.counters.datagramsSent
        nodes[0].driver.send(payload: payload)
        #expect(await eventually { nodes.dropFirst().allSatisfy { !$0.deliveries.isEmpty } })
        for node in nodes.dropFirst() {
            #expect(node.deliveries.count == 1)
            #expect(node.deliveries.first?.payload == payload, "\(node.id) received a garbled payload")
        }
        #expect(nodes[0].driver.counters.datagramsSent - before >= 42, "50 KB take at least 42 datagrams of 1200 bytes")
        await stopAll(nodes)
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func roomsSharingAGroupAndPortStayApart() async throws {
        let socket = freshSocket(on: try #require(multicastInterface))
        let first = try await startNodes(["a1", "a2"], socket: socket, room: "first")
        let second = try await startNodes(["b1", "b2"], socket: socket, room: "second")
        #expect(await awaitFullMembership(first))
        #expect(await awaitFullMembership(second))
        first[0].driver.send(payload: Array("first only".utf8))
        second[0].driver.send(payload: Array("second only".utf8))
        #expect(await eventually { !first[1].deliveries.isEmpty && !second[1].deliveries.isEmpty })
        try await Task.sleep(for: .milliseconds(200))
        #expect(first[1].deliveries.map(\.payload) == [Array("first only".utf8)])
        #expect(second[1].deliveries.map(\.payload) == [Array("second only".utf8)])
        for node in first + second {
            #expect(node.driver.members.count == 1, "\(node.id) sees \(node.driver.members)")
            #expect(node.driver.counters.droppedOtherRoom > 0)
        }
        await stopAll(first + second)
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func aKeyedRoomRejectsAnUnkeyedSender() async throws {
        let socket = freshSocket(on: try #require(multicastInterface))
        let key = Array("a room key of 32 bytes, at least".utf8)
        let keyed = try await startNodes(["k1", "k2"], socket: socket, key: key)
        let intruder = try await startNodes(["u"], socket: socket)[0]
        #expect(await awaitFullMembership(keyed))
        intruder.driver.send(payload: Array("spoofed".utf8))
        keyed[0].driver.send(payload: Array("genuine".utf8))
        #expect(await eventually { !keyed[1].deliveries.isEmpty })
        // The intruder's beacon and data: plain, the format of a node without the key.
        #expect(await eventually { keyed.allSatisfy { $0.driver.counters.droppedOldFormat >= 2 } })
        try await Task.sleep(for: .milliseconds(200))
        #expect(keyed[1].deliveries.map(\.payload) == [Array("genuine".utf8)])
        #expect(keyed[0].deliveries.isEmpty)
        #expect(intruder.deliveries.isEmpty)
        #expect(intruder.driver.members.isEmpty)
        #expect(intruder.driver.counters.droppedUnexpectedlyAuthenticated > 0)
        for node in keyed { #expect(!node.driver.members.contains("u")) }
        await stopAll(keyed + [intruder])
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func stoppingSaysGoodbye() async throws {
        // Beacons so slow that without the goodbye the others would notice after a minute.
        let nodes = try await startNodes(
            ["a", "b", "c"], socket: freshSocket(on: try #require(multicastInterface)), beaconInterval: .seconds(20))
        #expect(await awaitFullMembership(nodes, within: .seconds(10)))
        await nodes[2].driver.stop()
        await nodes[2].eventsFinished()
        #expect(
            await eventually(within: .seconds(10)) {
                nodes[0].events.contains(.memberLeft("c")) && nodes[1].events.contains(.memberLeft("c"))
            })
        #expect(nodes[0].driver.members == ["b"])
        #expect(nodes[1].driver.members == ["a"])
        await stopAll(Array(nodes.prefix(2)))
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func theGatewayFollowsCapabilities() async throws {
        let nodes = try await startNodes(["a", "b", "c"], socket: freshSocket(on: try #require(multicastInterface)))
        #expect(await awaitFullMembership(nodes))
        #expect(nodes.allSatisfy { $0.driver.gateway == nil })
        nodes[2].driver.setCapabilities(hasXMPPSession: true, summary: [1, 2, 3])
        #expect(await eventually { nodes.allSatisfy { $0.driver.gateway == "c" } })
        nodes[1].driver.setCapabilities(hasXMPPSession: true, summary: [])
        #expect(await eventually { nodes.allSatisfy { $0.driver.gateway == "b" } })
        await nodes[1].driver.stop()
        #expect(await eventually { [nodes[0], nodes[2]].allSatisfy { $0.driver.gateway == "c" } })
        // The events reach the recorder a moment after the driver's state changes.
        let changes: [ClusterEvent] = [.gatewayChanged("c"), .gatewayChanged("b"), .gatewayChanged("c")]
        #expect(
            await eventually {
                nodes[0].events.filter { if case .gatewayChanged = $0 { true } else { false } } == changes
            })
        await stopAll([nodes[0], nodes[2]])
    }

    @Test(.enabled(if: broadcastInterface != nil, "needs an up interface with MULTICAST and a broadcast address"))
    func theBroadcastFallbackCarriesTheCluster() async throws {
        let interface = try #require(broadcastInterface)
        var socket = freshSocket(on: interface)
        socket.joinsGroup = false
        let nodes = try await startNodes(["a", "b", "c"], socket: socket)
        let broadcast = try #require(interface.broadcastAddress?.ipAddress)
        #expect(nodes[0].driver.transportDescription == "broadcast \(broadcast):\(socket.port) on \(interface.name)")
        #expect(await awaitFullMembership(nodes))
        let payload = (0..<5_000).map { _ in UInt8.random(in: .min ... .max) }
        nodes[0].driver.send(payload: payload)
        #expect(await eventually { nodes.dropFirst().allSatisfy { !$0.deliveries.isEmpty } })
        for node in nodes.dropFirst() { #expect(node.deliveries.map(\.payload) == [payload]) }
        await stopAll(nodes)
    }

    @Test(.enabled(if: broadcastInterface != nil, "needs an up interface with MULTICAST and a broadcast address"))
    func withoutMulticastOrFallbackStartFails() async throws {
        var socket = freshSocket(on: try #require(broadcastInterface))
        socket.joinsGroup = false
        socket.broadcastFallback = false
        let node = try TestNode("a", socket: socket)
        await #expect(throws: ClusterError(.invalidConfiguration, "")) { try await node.driver.start() }
        await node.driver.stop()
    }

    @Test(.enabled(if: loopbackLacksMulticast, "needs a loopback interface without MULTICAST"))
    func loopbackWithoutMulticastIsRefusedWithAHint() async throws {
        let socket = ClusterSocketConfiguration(port: Int.random(in: 20_000...60_000), interface: "lo")
        let node = try TestNode("a", socket: socket)
        do {
            try await node.driver.start()
            Issue.record("lo without multicast or broadcast was accepted")
        } catch {
            #expect(error.detail.contains("ip link set lo multicast on"), "\(error.detail)")
        }
        await node.driver.stop()
    }

    @Test(.enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"))
    func malformedDatagramsAreCountedAndHarmless() async throws {
        let socket = freshSocket(on: try #require(multicastInterface))
        let nodes = try await startNodes(["a", "b"], socket: socket)
        #expect(await awaitFullMembership(nodes))
        let sender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "0.0.0.0", port: 0).get()
        let target = try SocketAddress(ipAddress: socket.group, port: socket.port)
        for size in [0, 1, 7, 64, 1500] {
            let garbage = (0..<size).map { _ in UInt8.random(in: .min ... .max) }
            try await sender.writeAndFlush(
                AddressedEnvelope(remoteAddress: target, data: sender.allocator.buffer(bytes: garbage)))
        }
        try await sender.close()
        #expect(await eventually { nodes.allSatisfy { $0.driver.counters.droppedMalformed >= 5 } })
        nodes[1].driver.send(payload: Array("still here".utf8))
        #expect(await eventually { nodes[0].deliveries.map(\.payload) == [Array("still here".utf8)] })
        await stopAll(nodes)
    }

    @Test(
        .enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"),
        .timeLimit(.minutes(1)), arguments: [Duration.zero, .milliseconds(16)])
    func aConsumerThatFallsBehindPausesReadingAndLosesNothing(readInterval: Duration) async throws {
        var socket = freshSocket(on: try #require(multicastInterface))
        socket.readInterval = readInterval
        let sender = try await startNodes(["a"], socket: socket)[0]
        var configuration = ClusterConfiguration(room: "sketch")
        configuration.beaconInterval = .milliseconds(500)
        let driver = ClusterDriver(
            node: try ClusterNode(configuration: configuration, nodeID: "slow", incarnation: 1, key: nil),
            socket: socket, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: testLogger,
            eventBuffer: .init(lowWatermark: 4, highWatermark: 16))
        try await driver.start()
        #expect(await eventually { driver.members == ["a"] && sender.driver.members == ["slow"] })
        // Nobody reads the slow node's events while 2000 payloads arrive.
        let payloads = (0..<2000).map { Array("payload \($0)".utf8) }
        for payload in payloads { sender.driver.send(payload: payload) }
        #expect(await eventually { driver.readPauses >= 1 })
        try await Task.sleep(for: .milliseconds(300))
        let heldBack = driver.counters.payloadsDelivered
        #expect(heldBack < payloads.count, "reading went on: \(heldBack) payloads taken off the socket")
        print("a consumer behind: \(heldBack) of \(payloads.count) payloads read while it did not consume")
        // Then it catches up: every payload arrives, once (what the kernel dropped, repaired).
        var received: [[UInt8]] = []
        for await event in driver.events {
            if case .delivered(let deliveries) = event { received += deliveries.map(\.payload) }
            if received.count == payloads.count { break }
        }
        #expect(received.count == payloads.count)
        #expect(Set(received) == Set(payloads))
        #expect(driver.counters.lossesGivenUp == 0)
        await driver.stop()
        await sender.driver.stop()
    }

    /// A trickle of datagrams (one every 5 ms) is read in one wake-up per interval, not one
    /// per datagram, and nothing is lost or held back for longer.
    @Test(
        .enabled(if: multicastInterface != nil, "needs an up interface with an IPv4 address and MULTICAST"),
        .timeLimit(.minutes(1)))
    func aRestingSocketIsReadOnceAnInterval() async throws {
        var socket = freshSocket(on: try #require(multicastInterface))
        socket.readInterval = .milliseconds(100)
        let nodes = try await startNodes(["a", "b"], socket: socket)
        #expect(await awaitFullMembership(nodes))
        let readsBefore = nodes[1].driver.socketReads
        let clock = ContinuousClock()
        let start = clock.now
        let payloads = (0..<120).map { Array("trickle \($0)".utf8) }
        for payload in payloads {
            nodes[0].driver.send(payload: payload)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await eventually { nodes[1].deliveries.count == payloads.count })
        let elapsed = clock.now - start
        let reads = nodes[1].driver.socketReads - readsBefore
        // At most one read an interval, one more after each full read (64 datagrams), and the
        // beacons' (one a node every 500 ms) are among them.
        let bound = Int(elapsed / .milliseconds(100)) + 1 + payloads.count / 64 + 1
        print("a resting socket: \(payloads.count) datagrams in \(reads) reads over \(elapsed)")
        #expect(reads <= bound, "\(reads) reads over \(elapsed), at most \(bound) expected")
        #expect(nodes[1].deliveries.map(\.payload) == payloads)
        await stopAll(nodes)
    }

    @Test func invalidSocketConfigurationsAreNamed() async throws {
        for (socket, mentioned) in [
            (ClusterSocketConfiguration(group: "10.0.0.1"), "10.0.0.1"),
            (ClusterSocketConfiguration(group: "not an address"), "not an address"),
            (ClusterSocketConfiguration(port: 70_000), "70000"),
            (ClusterSocketConfiguration(interface: "no-such-interface0"), "no-such-interface0"),
        ] {
            let node = try TestNode("a", socket: socket)
            do {
                try await node.driver.start()
                Issue.record("\(socket) was accepted")
            } catch {
                #expect(error.kind == .invalidConfiguration)
                #expect(error.detail.contains(mentioned), "\(error.detail)")
            }
            await node.driver.stop()
        }
    }

    @Test func startingAfterStopFails() async throws {
        let node = try TestNode("a", socket: ClusterSocketConfiguration(group: "10.0.0.1"))
        await node.driver.stop()
        await node.eventsFinished()
        await #expect(throws: ClusterError(.notRunning, "")) { try await node.driver.start() }
    }
}

@Suite struct ClusterInterfaceSelectionTests {
    private func device(
        _ name: String, _ address: String, broadcast: String? = nil, multicast: Bool = true
    ) throws -> NIONetworkDevice {
        NIONetworkDevice(
            name: name, address: try SocketAddress(ipAddress: address, port: 0), netmask: nil,
            broadcastAddress: try broadcast.map { try SocketAddress(ipAddress: $0, port: 0) },
            pointToPointDestinationAddress: try SocketAddress(ipAddress: "0.0.0.0", port: 0),
            multicastSupported: multicast, interfaceIndex: 0)
    }

    @Test func theDefaultIsTheFirstUpNonLoopbackInterfaceWithMulticast() throws {
        let devices = [
            try device("lo", "127.0.0.1", multicast: false),
            try device("down0", "10.1.0.1"),
            try device("nomc0", "10.2.0.1", multicast: false),
            try device("eth0", "192.0.2.2", broadcast: "192.0.2.255"),
            try device("eth1", "198.51.100.2"),
        ]
        let chosen = try ClusterInterface.choose(nil, from: devices, up: ["lo", "nomc0", "eth0", "eth1"])
        #expect(chosen.name == "eth0")
        #expect(chosen.broadcastAddress?.ipAddress == "192.0.2.255")
    }

    @Test func withoutOneTheDefaultIsLoopback() throws {
        let devices = [
            try device("lo", "127.0.0.1", multicast: false), try device("nomc0", "10.2.0.1", multicast: false),
        ]
        let chosen = try ClusterInterface.choose(nil, from: devices, up: nil)
        #expect(chosen.name == "lo")
        #expect(chosen.isLoopback)
    }

    @Test func anInterfaceIsChosenByNameOrAddress() throws {
        let devices = [try device("lo", "127.0.0.1"), try device("eth0", "192.0.2.2")]
        #expect(try ClusterInterface.choose("eth0", from: devices, up: nil).ipAddress == "192.0.2.2")
        #expect(try ClusterInterface.choose("127.0.0.1", from: devices, up: nil).name == "lo")
        #expect(throws: ClusterError(.invalidConfiguration, "")) {
            try ClusterInterface.choose("wlan0", from: devices, up: nil)
        }
    }
}
