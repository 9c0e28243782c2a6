/// The namespaces of multi-user chat and the extensions `MUCRoom` speaks with a room.
public enum MUCNamespace {
    /// XEP-0045: the join presence's `<x/>`.
    public static let muc = "http://jabber.org/protocol/muc"
    /// XEP-0045: the room's `<x/>` in occupant presences (items, status codes, destroy).
    public static let user = "http://jabber.org/protocol/muc#user"
    /// XEP-0045: owner queries, such as the instant-room form.
    public static let owner = "http://jabber.org/protocol/muc#owner"
    /// XEP-0004 data forms.
    public static let dataForms = "jabber:x:data"
    /// XEP-0030 service discovery, information query.
    public static let discoInfo = "http://jabber.org/protocol/disco#info"
    /// XEP-0313 message archive management, version 2.
    public static let archive = "urn:xmpp:mam:2"
    /// XEP-0059 result set management.
    public static let resultSet = "http://jabber.org/protocol/rsm"
    /// XEP-0297 stanza forwarding.
    public static let forward = "urn:xmpp:forward:0"
    /// XEP-0203 delayed delivery.
    public static let delay = "urn:xmpp:delay"
    /// XEP-0359 unique and stable stanza IDs (`<stanza-id/>`, `<origin-id/>`).
    public static let stanzaID = "urn:xmpp:sid:0"
    /// XEP-0199 ping, used by the XEP-0410 self-ping.
    public static let ping = "urn:xmpp:ping"
}
