import CanvasTestSupport
import Testing
import XMPP

@Suite("ServiceRecords")
struct ServiceRecordsTests {
    /// A DNS name as labels.
    static func name(_ text: String) -> [UInt8] {
        text.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    /// A response to the SRV query for `_xmpp-client._tcp.example.org` with `records`
    /// (priority, weight, port, target); targets under example.org are compressed to a
    /// pointer at the question's "example.org".
    static func response(_ records: [(UInt16, UInt16, UInt16, String)]) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        var message: [UInt8] = [0x12, 0x34, 0x81, 0x80] + u16(1) + u16(UInt16(records.count)) + u16(0) + u16(0)
        let question = name("_xmpp-client._tcp.example.org")
        let exampleOrg = UInt16(12 + 1 + 12 + 1 + 4)  // after "_xmpp-client" and "_tcp"
        message += question + u16(33) + u16(1)
        for (priority, weight, port, target) in records {
            var data = u16(priority) + u16(weight) + u16(port)
            if target.hasSuffix(".example.org") {
                let host = String(target.dropLast(".example.org".count))
                data += host.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + u16(0xC000 | exampleOrg)
            } else {
                data += target == "." ? [0] : name(target)
            }
            message += [0xC0, 0x0C] + u16(33) + u16(1) + [0, 0, 0x0E, 0x10] + u16(UInt16(data.count)) + data
        }
        return message
    }

    @Test func readsTheRecordsOfAnAnswerWithCompressedNames() throws {
        let records = try ServiceRecords.records(
            inAnswer: Self.response([(10, 60, 5222, "xmpp1.example.org"), (20, 0, 5333, "backup.other.net")]))
        #expect(
            records == [
                ServiceRecord(priority: 10, weight: 60, port: 5222, target: "xmpp1.example.org"),
                ServiceRecord(priority: 20, weight: 0, port: 5333, target: "backup.other.net"),
            ])
        #expect(ServiceRecords.serviceName(domain: "example.org", directTLS: true) == "_xmpps-client._tcp.example.org")
    }

    /// Any cut or damage is an error or fewer records, never a trap or a loop.
    @Test func damagedAnswersAreRefused() {
        let message = Self.response([(10, 60, 5222, "xmpp1.example.org"), (20, 0, 5333, "backup.other.net")])
        for length in 0..<message.count {
            #expect(throws: ServiceRecords.MalformedAnswer.self) { try ServiceRecords.records(inAnswer: Array(message.prefix(length))) }
        }
        var generator = SplitMix64(seed: announcedSeed())
        for _ in 0..<5000 {
            var damaged = message
            damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            _ = try? ServiceRecords.records(inAnswer: damaged)
        }
        // A question whose name is a pointer to itself is a loop, refused.
        let looping: [UInt8] = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 33, 0, 1]
        #expect(throws: ServiceRecords.MalformedAnswer.self) { try ServiceRecords.records(inAnswer: looping) }
    }

    /// RFC 2782: lower priority first; within one, weighted random order.
    @Test func orderFollowsPriorityThenWeight() {
        var generator = SplitMix64(seed: announcedSeed())
        let records = [
            ServiceRecord(priority: 20, weight: 1, port: 1, target: "late"),
            ServiceRecord(priority: 10, weight: 90, port: 2, target: "heavy"),
            ServiceRecord(priority: 10, weight: 10, port: 3, target: "light"),
        ]
        var heavyFirst = 0
        for _ in 0..<2000 {
            let order = ServiceRecords.ordered(records, random: &generator).map(\.target)
            #expect(Set(order.prefix(2)) == ["heavy", "light"] && order.last == "late")
            if order.first == "heavy" { heavyFirst += 1 }
        }
        #expect((1600...1950).contains(heavyFirst), "heavy first \(heavyFirst) times of 2000 (expected about 1800)")
        #expect(ServiceRecords.ordered([ServiceRecord(priority: 0, weight: 0, port: 0, target: ".")], random: &generator).isEmpty)
    }

    /// XEP-0368: both services' records in one RFC 2782 order, each server marked with how
    /// its record secures it; a service whose only record is "." adds nothing, and the
    /// client secures each server as marked with the same trust settings.
    @Test func directTLSAndStartTLSRecordsMixByPriority() {
        var generator = SplitMix64(seed: announcedSeed())
        let startTLS = [
            ServiceRecord(priority: 10, weight: 0, port: 5222, target: "a.example.org"),
            ServiceRecord(priority: 30, weight: 0, port: 5222, target: "c.example.org"),
        ]
        let direct = [ServiceRecord(priority: 20, weight: 0, port: 5223, target: "b.example.org")]
        let servers = ServiceRecords.servers(startTLS: startTLS, directTLS: direct, random: &generator)
        #expect(servers.map(\.description) == ["a.example.org:5222 (STARTTLS)", "b.example.org:5223 (direct TLS)", "c.example.org:5222 (STARTTLS)"])
        let notOffered = [ServiceRecord(priority: 0, weight: 0, port: 0, target: ".")]
        #expect(ServiceRecords.servers(startTLS: startTLS, directTLS: notOffered, random: &generator).map(\.directTLS) == [false, false])
        #expect(ServiceRecords.servers(startTLS: notOffered, directTLS: direct, random: &generator).map(\.port) == [5223])

        let trust = TLSClientConfiguration(serverName: "example.org")
        let configured = XMPPClientConfiguration.Security.startTLS(trust)
        #expect(configured.securing(servers[1]) == .directTLS(trust))
        #expect(configured.securing(servers[0]) == .startTLS(trust))
        #expect(configured.securing(ServerAddress(host: "given.example.org", port: 5222)) == configured)
        #expect(XMPPClientConfiguration.Security.directTLS(trust).securing(servers[0]) == .startTLS(trust))
        #expect(XMPPClientConfiguration.Security.noneForTesting.securing(servers[1]) == .noneForTesting)
    }
}
