/// An XML element with resolved namespaces: what the stream parser produces and what the
/// client renders and writes.
///
/// Namespaces are URIs, never prefixes; the empty string means "no namespace" (as in
/// `xmlns=''`). Prefixes are an artefact of rendering, chosen by `rendered(defaultNamespace:)`.
public struct XMLElement: Sendable, Hashable {
    /// The local name, without any prefix.
    public var name: String
    /// The namespace URI, or `""` for none.
    public var namespace: String
    /// The attributes in document order. Namespace declarations (`xmlns`, `xmlns:p`) are not
    /// attributes: they are resolved into `namespace`.
    public var attributes: [XMLAttribute]
    /// Child elements and text, in document order.
    public var children: [XMLNode]

    public init(
        name: String, namespace: String = "", attributes: [XMLAttribute] = [], children: [XMLNode] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
        self.children = children
    }

    /// The text directly inside this element (not inside its child elements), joined.
    public var text: String {
        var result = ""
        for case .text(let piece) in children {
            result += piece
        }
        return result
    }

    /// The child elements, in document order, without the text between them.
    public var elements: [XMLElement] {
        children.compactMap { node in
            if case .element(let element) = node { element } else { nil }
        }
    }

    /// The first child element called `name`, in `namespace` if given (`""` for none), in
    /// any namespace if `nil`.
    public func child(named name: String, namespace: String? = nil) -> XMLElement? {
        elements.first { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    /// Every child element called `name`, in `namespace` if given, in any namespace if `nil`.
    public func children(named name: String, namespace: String? = nil) -> [XMLElement] {
        elements.filter { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    /// The value of the attribute `name` in `namespace` (`""`, the default, for an
    /// unqualified attribute such as `to` or `type`).
    public func attribute(_ name: String, namespace: String = "") -> String? {
        attributes.first { $0.name == name && $0.namespace == namespace }?.value
    }
}

/// One attribute of an `XMLElement`.
public struct XMLAttribute: Sendable, Hashable {
    /// The local name, without any prefix.
    public var name: String
    /// The namespace URI of a qualified attribute (such as `xml:lang`), `""` for the usual
    /// unqualified one.
    public var namespace: String
    public var value: String

    public init(name: String, namespace: String = "", value: String) {
        self.name = name
        self.namespace = namespace
        self.value = value
    }
}

/// A child of an `XMLElement`: an element or a run of text.
public enum XMLNode: Sendable, Hashable {
    case element(XMLElement)
    case text(String)
}

extension XMLElement {
    /// The namespace of the `xml:` prefix, which is bound without a declaration.
    public static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
}
