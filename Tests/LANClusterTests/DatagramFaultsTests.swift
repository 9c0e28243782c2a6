import LANCluster
import Testing

@Suite("Injected datagram faults (test setting)")
struct DatagramFaultsTests {
    @Test func aSpecificationIsRead() throws {
        let faults = try DatagramFaults(parsing: "dup=0.2,delay=0.5,max-delay-ms=30")
        #expect(faults == DatagramFaults(duplicate: 0.2, delay: 0.5, maximumDelay: .milliseconds(30)))
        #expect(try DatagramFaults(parsing: "") == DatagramFaults())
    }

    @Test(arguments: ["dup", "dup=x", "dup=1.5", "loss=0.1", "delay=-1"])
    func aBadSpecificationIsNamed(_ text: String) {
        #expect(throws: ClusterError.self) { try DatagramFaults(parsing: text) }
    }
}
