import CanvasCore
import CanvasProtocol

/// What an XMPP room link keeps in the room's store across restarts, one note each.
enum XMPPRoomLinkNote: Hashable {
    /// The newest archive id read: catching up after a restart continues after it.
    case archivePosition(String)
    /// Local operations the room has not confirmed yet, so that a restarted node still gets
    /// them into the room and its archive.
    case unconfirmed([CanvasCore.Operation])

    /// The store note that keeps the archive position.
    static let archivePositionName = "xmpp-archive-position"
    /// The store note that keeps the unconfirmed local operations (NDJSON).
    static let unconfirmedName = "xmpp-unconfirmed"

    /// The note's name in the store.
    var name: String {
        switch self {
        case .archivePosition: Self.archivePositionName
        case .unconfirmed: Self.unconfirmedName
        }
    }

    /// What the note says, for a log line.
    var subject: String {
        switch self {
        case .archivePosition: "the archive position"
        case .unconfirmed: "the unconfirmed operations"
        }
    }

    /// The note's text: the position, or one encoded operation a line.
    var text: String {
        switch self {
        case .archivePosition(let position):
            return position
        case .unconfirmed(let operations):
            var text: [UInt8] = []
            for operation in operations {
                text += MessageEncoder.encode(operation)
                text.append(UInt8(ascii: "\n"))
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// The operations in the text of an unconfirmed-operations note, and the errors of the
    /// lines that could not be read (skipped).
    static func unconfirmedOperations(in text: String) -> (operations: [CanvasCore.Operation], damaged: [ProtocolError]) {
        var operations: [CanvasCore.Operation] = []
        var damaged: [ProtocolError] = []
        for line in text.split(separator: "\n") {
            do {
                operations += try MessageDecoder.decode(Array(line.utf8)).operations
            } catch {
                damaged.append(error)
            }
        }
        return (operations, damaged)
    }
}
