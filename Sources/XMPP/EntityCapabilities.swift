/// What this client is and which features it speaks, announced in presence as XEP-0115
/// entity capabilities (`<c xmlns='http://jabber.org/protocol/caps' hash='sha-1' node=… ver=…/>`)
/// and answered to disco#info queries (XEP-0030) — so that others know what it speaks
/// without asking.
public struct EntityCapabilities: Sendable, Hashable {
    /// XEP-0115's namespace, of the `<c/>` element.
    public static let namespace = "http://jabber.org/protocol/caps"
    /// XEP-0030's disco#info namespace.
    public static let discoInfoNamespace = "http://jabber.org/protocol/disco#info"

    /// A URI naming the software (`urn:x-canvas`).
    public let node: String
    /// The identity's category (`client`).
    public let category: String
    /// The identity's type (`bot`).
    public let type: String
    /// The identity's name (`Canvas`).
    public let name: String
    /// The features, disco#info and caps themselves included.
    public let features: [String]
    /// The verification string (XEP-0115 §5.1): the SHA-1 of the identity and sorted
    /// features, in base64.
    public let ver: String

    /// Capabilities of the software `node` with `features` (disco#info and caps are added).
    public init(node: String, category: String, type: String, name: String, features: [String]) {
        self.node = node
        self.category = category
        self.type = type
        self.name = name
        let all = Set(features + [Self.discoInfoNamespace, Self.namespace]).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        self.features = all
        var input = "\(category)/\(type)//\(name)<"
        for feature in all { input += feature + "<" }
        // SHA-1 is always available in OpenSSL; a failure would be a broken library.
        let digest = (try? Crypto.digest(Array(input.utf8), using: .sha1)) ?? []
        ver = Crypto.base64Encode(digest)
    }

    /// The `<c/>` element for a presence.
    public var presenceElement: XMLElement {
        XMLElement(
            name: "c", namespace: Self.namespace,
            attributes: [
                XMLAttribute(name: "hash", value: "sha-1"), XMLAttribute(name: "node", value: node),
                XMLAttribute(name: "ver", value: ver),
            ])
    }

    /// The disco#info answer's `<query/>` (for `node#ver`, or for no node).
    func discoInfo(node queried: String?) -> XMLElement {
        var attributes: [XMLAttribute] = []
        if let queried { attributes.append(XMLAttribute(name: "node", value: queried)) }
        var children: [XMLNode] = [
            .element(
                XMLElement(
                    name: "identity", namespace: Self.discoInfoNamespace,
                    attributes: [
                        XMLAttribute(name: "category", value: category), XMLAttribute(name: "type", value: type),
                        XMLAttribute(name: "name", value: name),
                    ]))
        ]
        for feature in features {
            children.append(
                .element(
                    XMLElement(
                        name: "feature", namespace: Self.discoInfoNamespace, attributes: [XMLAttribute(name: "var", value: feature)])))
        }
        return XMLElement(name: "query", namespace: Self.discoInfoNamespace, attributes: attributes, children: children)
    }

    /// Whether a disco#info query for `node` asks about these capabilities (no node, or
    /// `node#ver`).
    func answers(node queried: String?) -> Bool {
        queried == nil || queried == "\(node)#\(ver)"
    }
}

/// What an occupant's presence announces of its capabilities (XEP-0115 `<c/>`).
public struct AnnouncedCapabilities: Sendable, Hashable {
    /// The software's URI.
    public var node: String
    /// The verification string of its identity and features.
    public var ver: String

    /// What a `<c node=… ver=…/>` says.
    public init(node: String, ver: String) {
        self.node = node
        self.ver = ver
    }

    /// The `<c/>` of `presence`, if any.
    init?(presence: XMLElement) {
        guard let c = presence.child(named: "c", namespace: EntityCapabilities.namespace), let node = c.attribute("node"),
            let ver = c.attribute("ver")
        else { return nil }
        self.init(node: node, ver: ver)
    }
}
