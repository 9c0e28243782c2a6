import CanvasCore
import CanvasRuntime

/// `GET /healthz`: the node, and each room's size, transports (up or down, members,
/// operations waiting to be accepted, members being synced) and who is drawing, as JSON.
enum HealthReport {
    static func json(_ status: NodeStatus) -> [UInt8] {
        var bytes = Array(#"{"node":"#.utf8)
        CanonicalJSON.appendString(status.node, to: &bytes)
        let up = status.rooms.allSatisfy { room in room.transports.contains(where: \.isUp) }
        bytes += Array(#","ok":"#.utf8)
        bytes += Array((up ? "true" : "false").utf8)
        bytes += Array(#","rooms":["#.utf8)
        for (index, room) in status.rooms.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "{"))
            PageMessages.appendRoomFields(room, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes += Array("]}\n".utf8)
        return bytes
    }
}
