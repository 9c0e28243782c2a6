import CanvasCore
import CanvasRuntime
import NIOCore
import NIOWebSocket
import Synchronization

/// One page's open socket: the requests it sends, handled one at a time through a
/// `PageSession`, and what the node sends it. Sendable: the socket's handler hands it
/// messages from the event loop; the room's feed writes to it from its own task.
final class PageConnection: Sendable {
    let channel: any Channel
    let room: String
    private let requests: AsyncStream<[UInt8]>
    private let requestInbox: AsyncStream<[UInt8]>.Continuation
    /// An update was dropped while the socket was backed up: the page needs the whole room.
    private let stale = Mutex(false)
    private let counters: WebCounters

    init(channel: any Channel, room: String, counters: WebCounters) {
        self.channel = channel
        self.room = room
        self.counters = counters
        (requests, requestInbox) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
    }

    /// A text message from the page.
    func received(_ bytes: [UInt8]) { requestInbox.yield(bytes) }

    /// The socket closed.
    func closed() { requestInbox.finish() }

    /// Handles the page's requests in order until its socket closes, then ends the strokes
    /// its pens were drawing.
    func serve(node: Node) async {
        var session = PageSession()
        var refusalsCounted = 0
        for await request in requests {
            await perform(session.received(request), with: &session, node: node)
            counters.refused(session.refused - refusalsCounted)
            refusalsCounted = session.refused
        }
        await perform(session.closed(), with: &session, node: node)
    }

    private func perform(_ steps: [PageSession.Step], with session: inout PageSession, node: Node) async {
        var queue = steps[...]
        while let step = queue.popFirst() {
            switch step {
            case .send(let bytes):
                send(bytes)
            case .perform(let action, let purpose):
                do {
                    let operations = try await node.perform(action, in: room)
                    counters.performed(operations.count)
                    queue.append(contentsOf: session.performed(operations, for: purpose))
                } catch {
                    queue.append(contentsOf: session.failed(error))
                }
            }
        }
    }

    /// Sends one text message.
    func send(_ bytes: [UInt8]) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(bytes: bytes))
        channel.writeAndFlush(frame, promise: nil)
    }

    /// Sends an update meant for every page of the room, unless the socket is backed up:
    /// then the page gets the whole room once it has drained (`needsRoom`).
    func deliver(_ update: [UInt8]) {
        guard channel.isWritable else {
            stale.withLock { $0 = true }
            return
        }
        send(update)
    }

    /// Whether the page missed an update and can now take the whole room; clears the mark.
    func takeNeedsRoom() -> Bool {
        guard channel.isWritable else { return false }
        return stale.withLock { stale in
            defer { stale = false }
            return stale
        }
    }
}
