/// Duplication and delay (hence reordering) of outgoing datagrams, for tests only: set in
/// `ClusterSocketConfiguration.faults` (by `canvas join --lan-faults`), performed by a
/// `DatagramFaultHandler` in the socket's pipeline.
package struct DatagramFaults: Sendable, Hashable {
    /// The probability that a datagram is sent twice.
    package var duplicate: Double
    /// The probability that a datagram is held back, by up to `maximumDelay`.
    package var delay: Double
    /// The longest a held-back datagram waits.
    package var maximumDelay: Duration

    /// Faults with these probabilities; none by default.
    package init(duplicate: Double = 0, delay: Double = 0, maximumDelay: Duration = .milliseconds(50)) {
        self.duplicate = duplicate
        self.delay = delay
        self.maximumDelay = maximumDelay
    }

    /// Reads `dup=P,delay=P,max-delay-ms=N` (any subset), as given to `canvas join --lan-faults`.
    package init(parsing text: String) throws(ClusterError) {
        self.init()
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let value = Double(pair[1]), value >= 0 else {
                throw ClusterError(.invalidConfiguration, "fault \"\(part)\" is not NAME=NUMBER (dup, delay, max-delay-ms)")
            }
            switch pair[0] {
            case "dup" where value <= 1: duplicate = value
            case "delay" where value <= 1: delay = value
            case "max-delay-ms": maximumDelay = .milliseconds(Int(value))
            default:
                throw ClusterError(
                    .invalidConfiguration,
                    "fault \"\(part)\": expected dup=P or delay=P with P in [0, 1], or max-delay-ms=N")
            }
        }
    }
}
