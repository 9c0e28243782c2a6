internal import CResolv
internal import Foundation

/// One DNS SRV record (RFC 2782): where a service runs.
public struct ServiceRecord: Hashable, Sendable {
    /// Lower is tried first.
    public var priority: UInt16
    /// Among records of one priority, the share of the choices.
    public var weight: UInt16
    /// The TCP port of the service on `target`.
    public var port: UInt16
    /// The host name, without the final dot ("." alone: the service is not offered).
    public var target: String

    /// A record as DNS gives it.
    public init(priority: UInt16, weight: UInt16, port: UInt16, target: String) {
        self.priority = priority
        self.weight = weight
        self.port = port
        self.target = target
    }
}

/// Finds a domain's XMPP servers in DNS (RFC 6120 §3.2.1): the SRV records of
/// `_xmpp-client._tcp.DOMAIN` (STARTTLS) and `_xmpps-client._tcp.DOMAIN` (direct TLS,
/// XEP-0368), mixed in the order RFC 2782 gives them (by priority, then a weighted random
/// choice); each server keeps the way its record says to secure it. The queries go through
/// the system's resolver (glibc's libresolv); parsing and ordering are pure, for tests.
public enum ServiceRecords {
    /// The SRV name for `domain`'s clients.
    public static func serviceName(domain: String, directTLS: Bool) -> String {
        "\(directTLS ? "_xmpps-client" : "_xmpp-client")._tcp.\(domain)"
    }

    /// The servers of `domain` in the order to try them: its direct TLS records when
    /// `directTLS` is `true`, its STARTTLS records when `false`, both mixed when `nil`;
    /// empty when DNS has none (or says the service is not offered), or cannot be asked.
    /// Blocks while the resolver works: call it off any event loop.
    public static func lookUp(domain: String, directTLS: Bool?, random: inout some RandomNumberGenerator) -> [ServerAddress] {
        let startTLS = directTLS == true ? [] : query(serviceName(domain: domain, directTLS: false))
        let direct = directTLS == false ? [] : query(serviceName(domain: domain, directTLS: true))
        return servers(startTLS: startTLS, directTLS: direct, random: &random)
    }

    /// The SRV records DNS gives for `name`; none when it cannot be asked or answers nonsense.
    private static func query(_ name: String) -> [ServiceRecord] {
        var answer = [UInt8](repeating: 0, count: 4096)
        let length = answer.withUnsafeMutableBufferPointer { buffer in
            canvas_query_srv(name, buffer.baseAddress, Int32(buffer.count))
        }
        guard length > 0 else { return [] }
        return (try? records(inAnswer: Array(answer.prefix(Int(min(length, 4096)))))) ?? []
    }

    /// XEP-0368's mix: the records of both services in one RFC 2782 order, each server
    /// marked with how its record says to secure it. A service whose only record is "."
    /// is not offered; the other one's records still count.
    public static func servers(
        startTLS: [ServiceRecord], directTLS: [ServiceRecord], random: inout some RandomNumberGenerator
    ) -> [ServerAddress] {
        func offered(_ records: [ServiceRecord]) -> [ServiceRecord] {
            records.count == 1 && !isOffered(records[0]) ? [] : records
        }
        let tagged = offered(startTLS).map { ($0, false) } + offered(directTLS).map { ($0, true) }
        return order(tagged.map(\.0), random: &random).map { index in
            let (record, isDirect) = tagged[index]
            return ServerAddress(host: record.target, port: Int(record.port), directTLS: isDirect)
        }
    }

    /// Why a DNS answer could not be read.
    public struct MalformedAnswer: Error, CustomStringConvertible {
        /// What is wrong with the answer, and where.
        public var description: String
    }

    /// The SRV records of a DNS response message (RFC 1035 §4.1; names may be compressed).
    public static func records(inAnswer message: [UInt8]) throws(MalformedAnswer) -> [ServiceRecord] {
        var reader = DNSReader(message: message)
        let header = try reader.bytes(12)
        let questions = Int(header[4]) << 8 | Int(header[5])
        let answers = Int(header[6]) << 8 | Int(header[7])
        for _ in 0..<questions {
            _ = try reader.name()
            _ = try reader.bytes(4)  // type, class
        }
        var records: [ServiceRecord] = []
        for _ in 0..<answers {
            _ = try reader.name()
            let fixed = try reader.bytes(10)  // type, class, TTL, data length
            let type = Int(fixed[0]) << 8 | Int(fixed[1])
            let dataLength = Int(fixed[8]) << 8 | Int(fixed[9])
            let end = reader.position + dataLength
            guard end <= message.count else { throw MalformedAnswer(description: "a record runs past the message") }
            if type == 33 {  // SRV
                let numbers = try reader.bytes(6)
                let target = try reader.name()
                records.append(
                    ServiceRecord(
                        priority: UInt16(numbers[0]) << 8 | UInt16(numbers[1]), weight: UInt16(numbers[2]) << 8 | UInt16(numbers[3]),
                        port: UInt16(numbers[4]) << 8 | UInt16(numbers[5]), target: target))
            }
            reader.position = end
        }
        return records
    }

    /// RFC 2782's order: ascending priority; within a priority, repeatedly a random record
    /// with probability proportional to its weight (zero weights have a small chance). A
    /// single record whose target is "." means the service is not offered: no servers.
    public static func ordered(_ records: [ServiceRecord], random: inout some RandomNumberGenerator) -> [ServiceRecord] {
        if records.count == 1, !isOffered(records[0]) { return [] }
        return order(records, random: &random).map { records[$0] }
    }

    /// Whether a record names a server (its target is not ".").
    private static func isOffered(_ record: ServiceRecord) -> Bool {
        record.target != "." && !record.target.isEmpty
    }

    /// The indices of `records` in RFC 2782's order, records without a target left out.
    private static func order(_ records: [ServiceRecord], random: inout some RandomNumberGenerator) -> [Int] {
        var result: [Int] = []
        for priority in Set(records.map(\.priority)).sorted() {
            var left = records.indices.filter { records[$0].priority == priority && isOffered(records[$0]) }
            // Zero weights first, as RFC 2782 asks, so that they get their small chance.
            left.sort { records[$0].weight == 0 && records[$1].weight != 0 }
            while !left.isEmpty {
                let total = left.reduce(0) { $0 + Int(records[$1].weight) }
                let pick = Int.random(in: 0...total, using: &random)
                var running = 0
                let at =
                    left.firstIndex { index in
                        running += Int(records[index].weight)
                        return running >= pick
                    } ?? left.count - 1
                result.append(left.remove(at: at))
            }
        }
        return result
    }
}

/// Reads a DNS message, names included.
private struct DNSReader {
    let message: [UInt8]
    var position = 0

    /// The next `count` bytes, indexed from 0.
    mutating func bytes(_ count: Int) throws(ServiceRecords.MalformedAnswer) -> [UInt8] {
        guard position + count <= message.count else {
            throw ServiceRecords.MalformedAnswer(description: "the message ends at byte \(message.count), inside a field")
        }
        defer { position += count }
        return Array(message[position..<position + count])
    }

    /// A domain name (labels, or a pointer to an earlier name), without the final dot; "."
    /// for the root.
    mutating func name() throws(ServiceRecords.MalformedAnswer) -> String {
        var labels: [String] = []
        var at = position
        var jumped = false
        var jumps = 0
        while true {
            guard at < message.count else { throw ServiceRecords.MalformedAnswer(description: "a name runs past the message") }
            let length = Int(message[at])
            if length & 0xC0 == 0xC0 {
                guard at + 1 < message.count else { throw ServiceRecords.MalformedAnswer(description: "a name pointer is cut") }
                jumps += 1
                guard jumps <= 32 else { throw ServiceRecords.MalformedAnswer(description: "name pointers loop") }
                if !jumped { position = at + 2 }
                jumped = true
                at = (length & 0x3F) << 8 | Int(message[at + 1])
                continue
            }
            guard length & 0xC0 == 0 else { throw ServiceRecords.MalformedAnswer(description: "an unknown label type") }
            if length == 0 {
                if !jumped { position = at + 1 }
                return labels.isEmpty ? "." : labels.joined(separator: ".")
            }
            guard at + 1 + length <= message.count else {
                throw ServiceRecords.MalformedAnswer(description: "a label runs past the message")
            }
            labels.append(String(decoding: message[(at + 1)...(at + length)], as: UTF8.self))
            at += 1 + length
        }
    }
}
