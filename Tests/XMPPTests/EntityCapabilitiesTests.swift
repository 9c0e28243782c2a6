import Testing

@testable import XMPP

/// XEP-0115 entity capabilities: the verification string, the presence element, the
/// occupants' announcements read by MUCRoom, and the join presence that carries ours.
@Suite struct EntityCapabilitiesTests {
    /// XEP-0115 §5.2's simple example: Exodus 0.9.1.
    @Test func theVerificationStringIsTheSpecsExample() {
        let exodus = EntityCapabilities(
            node: "http://code.google.com/p/exodus", category: "client", type: "pc", name: "Exodus 0.9.1",
            features: ["http://jabber.org/protocol/disco#items", "http://jabber.org/protocol/muc"])
        #expect(exodus.ver == "QgayPKawpkPSDYmwT/WM94uAlu0=")
        #expect(
            exodus.presenceElement.rendered(defaultNamespace: "jabber:client")
                == "<c xmlns='http://jabber.org/protocol/caps' hash='sha-1' node='http://code.google.com/p/exodus' ver='QgayPKawpkPSDYmwT/WM94uAlu0='/>")
        #expect(exodus.answers(node: nil) && exodus.answers(node: "http://code.google.com/p/exodus#QgayPKawpkPSDYmwT/WM94uAlu0="))
        #expect(!exodus.answers(node: "http://code.google.com/p/exodus#other"))
        let info = exodus.discoInfo(node: nil).rendered(defaultNamespace: "jabber:client")
        #expect(info.contains("<identity category='client' type='pc' name='Exodus 0.9.1'/>"))
        #expect(info.contains("<feature var='http://jabber.org/protocol/caps'/>"))
    }

    static let canvas = EntityCapabilities(
        node: "urn:x-canvas", category: "client", type: "bot", name: "Canvas", features: ["urn:x-canvas:1"])

    @Test func theJoinPresenceAnnouncesOurCapabilitiesAndOccupantsTheirs() throws {
        var room = MUCRoom(
            configuration: try MUCRoomConfiguration(roomJID: MUCFixture.room, nickname: "bob", capabilities: Self.canvas))
        _ = room.join(archivePosition: nil)
        let join = MUCFixture.sent(try MUCFixture.feed(&room, MUCFixture.discoInfo(archive: false)))
        #expect(join.count == 1 && join[0].contains("<c xmlns='http://jabber.org/protocol/caps' hash='sha-1' node='urn:x-canvas' ver='\(Self.canvas.ver)'/>"))
        let caps = "<c xmlns='http://jabber.org/protocol/caps' hash='sha-1' node='urn:x-canvas' ver='\(Self.canvas.ver)'/>"
        let alice = MUCFixture.occupantPresence("alice").replacingOccurrences(of: "</presence>", with: caps + "</presence>")
        _ = try MUCFixture.feed(&room, alice + MUCFixture.occupantPresence("ipad") + MUCFixture.ownPresence())
        #expect(room.occupants["alice"]?.capabilities == AnnouncedCapabilities(node: "urn:x-canvas", ver: Self.canvas.ver))
        #expect(room.occupants["ipad"]?.capabilities == nil)
    }
}

/// What the client answers to requests addressed to it.
@Suite struct ServerRequestTests {
    static func answer(_ xml: String, capabilities: EntityCapabilities? = EntityCapabilitiesTests.canvas) throws -> String {
        let request = try #require(try MUCFixture.stanzas(xml).first)
        return ServerRequest.answer(to: request, capabilities: capabilities).rendered(defaultNamespace: "jabber:client")
    }

    @Test func discoInfoIsAnsweredWithOurCapabilitiesForNoNodeOrOurs() throws {
        let caps = EntityCapabilitiesTests.canvas
        let plain = try Self.answer("<iq type='get' from='a@b/c' id='d1'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>")
        #expect(plain.hasPrefix("<iq id='d1' to='a@b/c' type='result'><query xmlns='http://jabber.org/protocol/disco#info'>"))
        #expect(plain.contains("<feature var='urn:x-canvas:1'/>"))
        let node = "urn:x-canvas#\(caps.ver)"
        let ours = try Self.answer(
            "<iq type='get' from='a@b/c' id='d2'><query xmlns='http://jabber.org/protocol/disco#info' node='\(node)'/></iq>")
        #expect(ours.contains("<query xmlns='http://jabber.org/protocol/disco#info' node='\(node)'>"))
        let other = try Self.answer(
            "<iq type='get' from='a@b/c' id='d3'><query xmlns='http://jabber.org/protocol/disco#info' node='urn:x-canvas#old'/></iq>")
        #expect(other.contains("<service-unavailable"))
        let none = try Self.answer(
            "<iq type='get' from='a@b/c' id='d4'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>", capabilities: nil)
        #expect(none.contains("<service-unavailable"))
    }

    @Test func pingsGetAResultAndEverythingElseServiceUnavailable() throws {
        #expect(
            try Self.answer("<iq type='get' from='s' id='p1'><ping xmlns='urn:xmpp:ping'/></iq>")
                == "<iq id='p1' to='s' type='result'/>")
        #expect(try Self.answer("<iq type='set' from='s' id='x'><query xmlns='jabber:iq:roster'/></iq>").contains("<service-unavailable"))
    }
}
