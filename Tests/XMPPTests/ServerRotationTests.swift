import CanvasTestSupport
import Testing
import XMPP

@Suite("ServerRotation")
struct ServerRotationTests {
    static let lost = ConnectionError(.connectionLost, "gone")
    static let a = ServerAddress(host: "a.example", port: 5222)
    static let b = ServerAddress(host: "b.example", port: 5222)
    static let c = ServerAddress(host: "c.example", port: 5333)

    @Test func addressesAreReadAsTheUserWritesThem() throws {
        #expect(try ServerAddress(parsing: "xmpp.example.org", defaultPort: 5222) == ServerAddress(host: "xmpp.example.org", port: 5222))
        #expect(try ServerAddress(parsing: "127.0.0.1:5333", defaultPort: 5222) == ServerAddress(host: "127.0.0.1", port: 5333))
        #expect(try ServerAddress(parsing: "[::1]:5223", defaultPort: 5222) == ServerAddress(host: "::1", port: 5223))
        #expect(try ServerAddress(parsing: "[::1]", defaultPort: 5223) == ServerAddress(host: "::1", port: 5223))
        #expect(ServerAddress(host: "::1", port: 5223).description == "[::1]:5223")
        for bad in ["", ":5222", "host:", "host:0", "host:65536", "host:x", "::1", "[::1", "[::1]x", "a b"] {
            do {
                _ = try ServerAddress(parsing: bad, defaultPort: 5222)
                Issue.record("\"\(bad)\" was accepted")
            } catch {
                #expect(error.kind == .invalidConfiguration)
                #expect(error.detail.contains("expected HOST, HOST:PORT or [IPV6]:PORT"), "\(error)")
            }
        }
    }

    /// A failure moves on to the next address at once; only when every address has failed
    /// since the last stable connection does the client wait, and the wait grows.
    @Test func theNextAddressAtOnceAndABackoffOnlyOnceAllFailed() {
        var random = SplitMix64(seed: announcedSeed())
        var rotation = ServerRotation(
            addresses: [Self.a, Self.b, Self.c], backoff: ReconnectBackoff(initial: .seconds(1), maximum: .seconds(8)))
        var tried: [ServerAddress] = [rotation.current]
        var waits: [Duration] = []
        for _ in 0..<6 {
            waits.append(rotation.failed(Self.lost, stable: false, random: &random))
            tried.append(rotation.current)
        }
        #expect(tried == [Self.a, Self.b, Self.c, Self.a, Self.b, Self.c, Self.a])
        #expect(waits[0] == .zero && waits[1] == .zero && waits[3] == .zero && waits[4] == .zero)
        #expect(waits[2] >= .milliseconds(500) && waits[2] <= .seconds(1))
        #expect(waits[5] >= .seconds(1) && waits[5] <= .seconds(2), "the wait grows round after round")
        // A connection that was stable and then lost: the next member at once, the backoff from the start.
        #expect(rotation.failed(Self.lost, stable: true, random: &random) == .zero)
        #expect(rotation.current == Self.b)
        #expect(rotation.failed(Self.lost, stable: false, random: &random) == .zero)
        let wait = rotation.failed(Self.lost, stable: false, random: &random)
        #expect(wait >= .milliseconds(500) && wait <= .seconds(1))
    }

    @Test func oneAddressBacksOffAfterEveryFailureAsBefore() {
        var random = SplitMix64(seed: announcedSeed())
        var rotation = ServerRotation(addresses: [Self.a], backoff: ReconnectBackoff(initial: .seconds(1)))
        for _ in 0..<3 {
            #expect(rotation.failed(Self.lost, stable: false, random: &random) > .zero)
            #expect(rotation.current == Self.a)
        }
    }

    /// `see-other-host` sends the next attempt where the server said, at once; a few times
    /// in a row at most (two servers sending a client to each other do not keep it busy);
    /// when the address it was sent to fails, the list goes on where it was.
    @Test func aRedirectionIsFollowedAFewTimesInARow() {
        var random = SplitMix64(seed: announcedSeed())
        var rotation = ServerRotation(addresses: [Self.a, Self.b])
        let toC = ConnectionError(.redirected, "see-other-host", otherHost: Self.c)
        #expect(rotation.failed(toC, stable: false, random: &random) == .zero)
        #expect(rotation.current == Self.c)
        #expect(rotation.failed(Self.lost, stable: false, random: &random) == .zero)
        #expect(rotation.current == Self.a, "the redirection's target failed: back to the list")
        #expect(rotation.failed(toC, stable: false, random: &random) == .zero)
        #expect(rotation.failed(toC, stable: false, random: &random) == .zero)
        #expect(rotation.current == Self.c)
        // The fourth redirection in a row is not followed: the list moves on.
        _ = rotation.failed(toC, stable: false, random: &random)
        #expect(rotation.current == Self.a || rotation.current == Self.b)
        #expect(rotation.current != Self.c)
    }
}
