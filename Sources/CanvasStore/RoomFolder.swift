/// Maps room names to folder names that are safe on every file system.
public enum RoomFolder {
    /// The folder name of a room: bytes of the UTF-8 name outside `[A-Za-z0-9._-]` become
    /// `%XX` (uppercase hex), and so does a leading `.` (no hidden folder, no `.` or `..`).
    /// Distinct names give distinct folders. Throws for an empty name.
    public static func name(forRoom room: String) throws(StoreError) -> String {
        guard !room.isEmpty else { throw StoreError(.invalidRoomName, path: room, "a room name must not be empty") }
        var result = ""
        for (index, byte) in room.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: ".") where index > 0:
                result.append(".")
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }
}
