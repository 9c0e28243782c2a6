/// The answer to an iq request (`get` or `set`) addressed to this client: XEP-0199 pings
/// get a result, disco#info gets our capabilities when we have some (XEP-0030, XEP-0115),
/// everything else `service-unavailable` (RFC 6120 §8.2.3: every request gets an answer).
enum ServerRequest {
    static func answer(to request: XMLElement, capabilities: EntityCapabilities?) -> XMLElement {
        var attributes = [XMLAttribute(name: "id", value: request.attribute("id") ?? "")]
        if let from = request.attribute("from") {
            attributes.append(XMLAttribute(name: "to", value: from))
        }
        if request.child(named: "ping", namespace: XMPPNamespace.ping) != nil {
            attributes.append(XMLAttribute(name: "type", value: "result"))
            return XMLElement(name: "iq", namespace: XMPPNamespace.client, attributes: attributes)
        }
        if request.attribute("type") == "get", let capabilities,
            let query = request.child(named: "query", namespace: EntityCapabilities.discoInfoNamespace),
            capabilities.answers(node: query.attribute("node"))
        {
            attributes.append(XMLAttribute(name: "type", value: "result"))
            return XMLElement(
                name: "iq", namespace: XMPPNamespace.client, attributes: attributes,
                children: [.element(capabilities.discoInfo(node: query.attribute("node")))])
        }
        attributes.append(XMLAttribute(name: "type", value: "error"))
        let error = XMLElement(
            name: "error", namespace: XMPPNamespace.client, attributes: [XMLAttribute(name: "type", value: "cancel")],
            children: [.element(XMLElement(name: "service-unavailable", namespace: XMPPNamespace.stanzaErrors))])
        return XMLElement(name: "iq", namespace: XMPPNamespace.client, attributes: attributes, children: [.element(error)])
    }
}
