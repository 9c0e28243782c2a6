extension XMLElement {
    /// The element as XML text, ready to write to a stream.
    ///
    /// `defaultNamespace` is the default namespace in scope where the element is written:
    /// inside an XMPP client stream, `"jabber:client"`. An `xmlns` declaration is written only
    /// on an element whose namespace differs from its parent's. Attributes in a namespace
    /// other than `xml:` get a prefix declared on their element.
    ///
    /// Text and attribute values are escaped so that parsing gives them back unchanged
    /// (including carriage returns, tabs and line feeds in attributes). Characters XML 1.0
    /// cannot carry at all (most C0 controls, U+FFFE, U+FFFF) are written as U+FFFD.
    public func rendered(defaultNamespace: String = "") -> String {
        var output = ""
        render(into: &output, defaultNamespace: defaultNamespace)
        return output
    }

    private func render(into output: inout String, defaultNamespace: String) {
        output += "<"
        output += name
        if namespace != defaultNamespace {
            output += " xmlns='"
            appendEscaped(namespace, inAttribute: true, to: &output)
            output += "'"
        }
        var prefixes: [String: String] = [:]
        for attribute in attributes {
            output += " "
            if attribute.namespace == XMLElement.xmlNamespace {
                output += "xml:"
            } else if !attribute.namespace.isEmpty {
                let prefix: String
                if let known = prefixes[attribute.namespace] {
                    prefix = known
                } else {
                    prefix = "ns\(prefixes.count)"
                    prefixes[attribute.namespace] = prefix
                    output += "xmlns:\(prefix)='"
                    appendEscaped(attribute.namespace, inAttribute: true, to: &output)
                    output += "' "
                }
                output += prefix
                output += ":"
            }
            output += attribute.name
            output += "='"
            appendEscaped(attribute.value, inAttribute: true, to: &output)
            output += "'"
        }
        if children.isEmpty {
            output += "/>"
            return
        }
        output += ">"
        for child in children {
            switch child {
            case .element(let element): element.render(into: &output, defaultNamespace: namespace)
            case .text(let text): appendEscaped(text, inAttribute: false, to: &output)
            }
        }
        output += "</"
        output += name
        output += ">"
    }
}

private func appendEscaped(_ string: String, inAttribute: Bool, to output: inout String) {
    // Most text needs nothing escaped (a batch's Base64, say: kilobytes of it): then it is
    // appended whole, not scalar by scalar. A byte below 0x20, one of &<>'" or 0xEF (which
    // starts U+FFFE and U+FFFF, among others) sends the string through the loop below.
    if !string.utf8.contains(where: needsAttention) {
        output += string
        return
    }
    for scalar in string.unicodeScalars {
        switch scalar {
        case "&": output += "&amp;"
        case "<": output += "&lt;"
        // Escaped in text too, so that "]]>" never appears.
        case ">": output += "&gt;"
        // A raw carriage return would be normalised to a line feed by the reader.
        case "\r": output += "&#13;"
        case "'" where inAttribute: output += "&apos;"
        case "\"" where inAttribute: output += "&quot;"
        // Attribute-value normalisation would turn raw tabs and line feeds into spaces.
        case "\t" where inAttribute: output += "&#9;"
        case "\n" where inAttribute: output += "&#10;"
        case "\t", "\n": output.unicodeScalars.append(scalar)
        case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
            output += "\u{FFFD}"
        default: output.unicodeScalars.append(scalar)
        }
    }
}

/// Whether a UTF-8 byte may need escaping or replacing (see `appendEscaped`).
private func needsAttention(_ byte: UInt8) -> Bool {
    switch byte {
    case 0..<0x20, UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "'"), UInt8(ascii: "\""), 0xEF: true
    default: false
    }
}
