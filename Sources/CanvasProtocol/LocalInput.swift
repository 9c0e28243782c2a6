/// One NDJSON line of local input (`canvas replay`, `canvas join`'s standard input): a
/// protocol message, whose operations count as drawn here, or a local action
/// (docs/actions.md).
public enum LocalInput: Sendable {
    case message(Message)
    case action(LocalAction)

    /// Decodes a line. Messages are the common case; only a line that is not one may be an
    /// action, and the error reported is the one for what the line looks like.
    public static func decode(_ line: [UInt8]) throws(ProtocolError) -> LocalInput {
        do {
            return .message(try MessageDecoder.decode(line))
        } catch {
            guard LocalAction.isAction(line) else { throw error }
            return .action(try LocalAction.decode(line))
        }
    }
}
