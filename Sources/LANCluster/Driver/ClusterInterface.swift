import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The network interface a `ClusterDriver` sends and joins its group on: one IPv4 address
/// of one device.
struct ClusterInterface {
    var device: NIONetworkDevice
    /// The device's IPv4 address, with port 0.
    var address: SocketAddress

    var name: String { device.name }
    var ipAddress: String { address.ipAddress ?? "?" }
    var isLoopback: Bool { ipAddress.hasPrefix("127.") }
    /// The subnet broadcast address, when the device has one.
    var broadcastAddress: SocketAddress? {
        guard case .v4? = device.broadcastAddress else { return nil }
        return device.broadcastAddress
    }

    /// The machine's interface matching `wanted` (a name or an IPv4 address), or without
    /// one, the first that is up, is not loopback and supports multicast, else loopback.
    static func select(_ wanted: String?) throws(ClusterError) -> ClusterInterface {
        let devices: [NIONetworkDevice]
        do {
            devices = try System.enumerateDevices()
        } catch {
            throw ClusterError(.invalidConfiguration, "cannot list the network interfaces: \(error)")
        }
        return try choose(wanted, from: devices, up: upInterfaceNames())
    }

    /// `select(_:)` among `devices`, of which those named in `up` are up (all when nil).
    static func choose(
        _ wanted: String?, from devices: [NIONetworkDevice], up: Set<String>?
    ) throws(ClusterError) -> ClusterInterface {
        let candidates = devices.compactMap { device -> ClusterInterface? in
            guard case .v4? = device.address, let address = device.address else { return nil }
            return ClusterInterface(device: device, address: address)
        }
        let available = candidates.map { "\($0.name) (\($0.ipAddress))" }.joined(separator: ", ")
        if let wanted {
            guard let match = candidates.first(where: { $0.name == wanted || $0.ipAddress == wanted }) else {
                throw ClusterError(
                    .invalidConfiguration,
                    "no IPv4 interface named or addressed \"\(wanted)\"; available: "
                        + (available.isEmpty ? "none" : available))
            }
            return match
        }
        let isUp = { (candidate: ClusterInterface) in up?.contains(candidate.name) ?? true }
        if let best = candidates.first(where: { isUp($0) && !$0.isLoopback && $0.device.multicastSupported }) {
            return best
        }
        if let loopback = candidates.first(where: { isUp($0) && $0.isLoopback }) {
            return loopback
        }
        throw ClusterError(
            .invalidConfiguration,
            "no interface that is up with an IPv4 address and multicast, nor loopback; available: "
                + (available.isEmpty ? "none" : available))
    }

    /// The names of the interfaces that are up, or nil when the system cannot tell.
    private static func upInterfaceNames() -> Set<String>? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(first) }
        var names = Set<String>()
        for entry in sequence(first: first, next: { $0.pointee.ifa_next })
        where entry.pointee.ifa_flags & UInt32(IFF_UP) != 0 {
            names.insert(String(cString: entry.pointee.ifa_name))
        }
        return names
    }
}
