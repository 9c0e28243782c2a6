// A whiteboard app that embeds a Canvas node (docs/embedding.md quotes this file).
import CanvasCore
import CanvasProtocol
import CanvasRuntime
import Logging

@main struct EmbeddedNode {
    static func main() async throws {
        let room = CommandLine.arguments.dropFirst().first ?? "embedded-demo"
        var configuration = NodeConfiguration(rooms: [room], storage: .memory)
        configuration.lan = NodeConfiguration.LANSettings()  // nearby nodes of the room, over UDP multicast
        let node = Node(configuration: configuration, logger: Logger(label: "whiteboard"))

        let events = node.events  // read before start: every event from "started" on
        let printer = Task {
            for await event in events { print(String(decoding: event.ndjson, as: UTF8.self), terminator: "") }
        }
        try await node.start()
        let stroke = LocalAction.draw(
            points: [Point(x: 10, y: 10), Point(x: 60, y: 40), Point(x: 120, y: 20)],
            weight: 3, colour: Colour(red: 20, green: 40, blue: 220), recognize: false)
        let operations = try await node.perform(stroke, in: room)
        print("drew \(operations[0].strokeID.rawValue)")
        let document = try await node.document(of: room)
        print("\(room) holds \(document.strokeCount) stroke, \(document.statistics.points) points")
        try await node.stop()  // drains like SIGTERM: confirms, leaves, flushes
        await printer.value
    }
}
