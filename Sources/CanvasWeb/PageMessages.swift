public import CanvasCore
import CanvasGeometry
import CanvasNode
public import CanvasRuntime
import CanvasSVG

/// What a node tells its pages (docs/web.md): one JSON object per WebSocket text message,
/// its `"type"` first.
///
/// Strokes travel in the form the page draws directly: each visible run as the path data
/// of the SVG export (`Path2D` takes it as is), so the page draws exactly what
/// `canvas export` writes, with no geometry of its own.
public enum PageMessages {
    /// `{"type":"hello","room":…,"rooms":[…],"node":…}`: the socket is open on `room`.
    public static func hello(room: String, rooms: [String], node: String) -> [UInt8] {
        var bytes = Array(#"{"type":"hello","room":"#.utf8)
        CanonicalJSON.appendString(room, to: &bytes)
        bytes += Array(#","rooms":"#.utf8)
        appendStrings(rooms, to: &bytes)
        bytes += Array(#","node":"#.utf8)
        CanonicalJSON.appendString(node, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `{"type":"strokes","reset":…,"strokes":[…],"removed":[…]}`: the strokes `ids` of
    /// `document` as they are now. A stroke with nothing visible (erased, removed, or
    /// known only as a placeholder) is listed in `removed`. With `reset`, the page forgets
    /// every stroke it holds first (the whole room follows).
    public static func strokes(_ ids: some Sequence<StrokeID>, of document: Document, reset: Bool) -> [UInt8] {
        var bytes = Array(#"{"type":"strokes","reset":"#.utf8)
        bytes += Array((reset ? "true" : "false").utf8)
        bytes += Array(#","strokes":["#.utf8)
        var removed: [StrokeID] = []
        var first = true
        for id in ids {
            guard let stroke = document[id], appendStroke(stroke, separated: !first, to: &bytes) else {
                removed.append(id)
                continue
            }
            first = false
        }
        bytes += Array(#"],"removed":"#.utf8)
        appendStrings(removed.map(\.rawValue), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Every stroke of `document`, in identifier order (the order the export draws them), as
    /// a reset.
    public static func room(_ document: Document) -> [UInt8] {
        strokes(document.sortedStrokes.lazy.map(\.id), of: document, reset: true)
    }

    /// `{"id":…,"colour":"#rrggbb","weight":…,"shape":…,"paths":[…],"dot":[x,y]|null}`;
    /// false (and nothing written) when the stroke shows nothing.
    private static func appendStroke(_ stroke: Stroke, separated: Bool, to bytes: inout [UInt8]) -> Bool {
        guard let header = stroke.header else { return false }
        let dot = StrokeCurves.isVisibleDot(stroke) ? stroke.points[0] : nil
        let runs = dot == nil ? StrokeCurves.visibleRuns(of: stroke) : []
        guard dot != nil || !runs.isEmpty else { return false }
        if separated { bytes.append(UInt8(ascii: ",")) }
        bytes += Array(#"{"id":"#.utf8)
        CanonicalJSON.appendString(stroke.id.rawValue, to: &bytes)
        bytes += Array(#","colour":""#.utf8)
        SVGExporter.appendColour(header.colour, to: &bytes)
        bytes += Array(#"","weight":"#.utf8)
        CanonicalJSON.appendNumber(header.weight, to: &bytes)
        bytes += Array(#","shape":"#.utf8)
        bytes += Array((header.isShape ? "true" : "false").utf8)
        bytes += Array(#","paths":["#.utf8)
        for (index, run) in runs.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            // Path data holds digits, signs, dots, commas, spaces and command letters only:
            // nothing a JSON string must escape.
            bytes.append(UInt8(ascii: "\""))
            SVGExporter.appendPathData(run, isShape: header.isShape, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes += Array(#"],"dot":"#.utf8)
        if let dot {
            bytes.append(UInt8(ascii: "["))
            SVGExporter.appendCoordinate(dot.x, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            SVGExporter.appendCoordinate(dot.y, to: &bytes)
            bytes.append(UInt8(ascii: "]"))
        } else {
            bytes += Array("null".utf8)
        }
        bytes.append(UInt8(ascii: "}"))
        return true
    }

    /// `{"type":"status",…}`: the room's size, transports (up or down, members, operations
    /// waiting to be accepted, members being synced) and who is drawing now.
    public static func status(_ room: RoomStatus) -> [UInt8] {
        var bytes = Array(#"{"type":"status","#.utf8)
        appendRoomFields(room, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// The fields of a room's status, shared by a page's status and `GET /healthz`.
    static func appendRoomFields(_ room: RoomStatus, to bytes: inout [UInt8]) {
        bytes += Array(#""room":"#.utf8)
        CanonicalJSON.appendString(room.name, to: &bytes)
        bytes += Array(#","digest":"#.utf8)
        CanonicalJSON.appendString(room.digest, to: &bytes)
        bytes += Array(#","strokes":"#.utf8)
        CanonicalJSON.appendInteger(Int64(room.strokes), to: &bytes)
        bytes += Array(#","points":"#.utf8)
        CanonicalJSON.appendInteger(Int64(room.points), to: &bytes)
        bytes += Array(#","transports":["#.utf8)
        for (index, transport) in room.transports.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Array(#"{"transport":"#.utf8)
            CanonicalJSON.appendString(transport.transport.rawValue, to: &bytes)
            bytes += Array(#","up":"#.utf8)
            bytes += Array((transport.isUp ? "true" : "false").utf8)
            bytes += Array(#","members":"#.utf8)
            appendStrings(transport.members.map(\.rawValue), to: &bytes)
            bytes += Array(#","waiting":"#.utf8)
            CanonicalJSON.appendInteger(Int64(transport.unacceptedOperations), to: &bytes)
            bytes += Array(#","syncing":"#.utf8)
            CanonicalJSON.appendInteger(Int64(transport.syncing), to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes += Array(#"],"drawing":"#.utf8)
        appendStrings(room.drawing, to: &bytes)
    }

    /// `{"type":"pen","pen":P,"stroke":ID}`: the stroke the page's pen `P` draws.
    public static func pen(_ pen: Int, stroke: StrokeID) -> [UInt8] {
        var bytes = Array(#"{"type":"pen","pen":"#.utf8)
        CanonicalJSON.appendInteger(Int64(pen), to: &bytes)
        bytes += Array(#","stroke":"#.utf8)
        CanonicalJSON.appendString(stroke.rawValue, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `{"type":"error","message":…}`: a request was refused; nothing changed.
    public static func error(_ message: String) -> [UInt8] {
        var bytes = Array(#"{"type":"error","message":"#.utf8)
        CanonicalJSON.appendString(message, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    static func appendStrings(_ strings: [String], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            CanonicalJSON.appendString(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
