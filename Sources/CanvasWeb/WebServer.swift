public import CanvasRuntime
import CoreMetrics
import Foundation
public import Logging
public import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
public import Prometheus
import Synchronization

/// A node's web server (`canvas join --http`, docs/web.md): the page, a WebSocket per
/// open page (`/socket?room=…`), the room as SVG (`/export.svg?room=…`), and for
/// operators `GET /healthz` and `GET /metrics`.
public final class WebServer: Sendable {
    /// Where and how the server listens.
    public struct Configuration: Sendable {
        /// The address to listen on (`127.0.0.1` by default: loopback only).
        public var host: String
        /// The port (0: any free port; `url` tells which).
        public var port: Int
        /// The access token (nil: none, allowed on loopback only).
        public var token: String?

        public init(host: String = "127.0.0.1", port: Int, token: String? = nil) {
            self.host = host
            self.port = port
            self.token = token
        }
    }

    /// Why the server cannot start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    private let node: Node
    private let configuration: Configuration
    private let logger: Logger
    private let access: WebAccess
    private let page: PageFiles
    private let feeds: [String: RoomFeed]
    private let registry: PrometheusCollectorRegistry
    private let counters: WebCounters
    private let running = Mutex<Running?>(nil)

    private struct Running: @unchecked Sendable {
        var channel: any Channel
        var tasks: [Task<Void, Never>]
        var address: SocketAddress
    }

    /// A server for `node`'s rooms, exporting on `GET /metrics` what `registry` collects
    /// (give the node `PrometheusMetricsFactory(registry:)` of the same registry for its
    /// own metrics). Throws when the page's files cannot be found, or when `configuration`
    /// listens beyond loopback without a token.
    public init(
        node: Node, configuration: Configuration, logger: Logger, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
    ) throws {
        let loopback = WebAccess.isLoopbackHost(configuration.host) || configuration.host == "::1"
        guard loopback || configuration.token != nil else {
            throw StartError(description: "listening on \(configuration.host) needs an access token (--http-token-file)")
        }
        self.node = node
        self.configuration = configuration
        self.logger = logger
        access = WebAccess(token: configuration.token, loopbackOnly: loopback)
        page = try PageFiles.load()
        self.registry = registry
        let counters = WebCounters(factory: PrometheusMetricsFactory(registry: registry))
        self.counters = counters
        let rooms = node.configuration.rooms
        feeds = Dictionary(uniqueKeysWithValues: rooms.map { ($0, RoomFeed(room: $0, rooms: rooms, counters: counters)) })
    }

    /// The page's address (with the token, if one is needed), once started.
    public var url: String? {
        running.withLock { running in
            guard let address = running?.address, let port = address.port else { return nil }
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            let token = configuration.token.map { "?token=" + $0 } ?? ""
            return "http://\(host):\(port)/\(token)"
        }
    }

    /// Starts listening and following the node's rooms, on `eventLoopGroup` (nil: NIO's
    /// shared group).
    public func start(eventLoopGroup: (any EventLoopGroup)? = nil) async throws {
        let eventLoopGroup = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        let node = self.node
        let feeds = self.feeds
        var tasks = feeds.values.map { feed in Task { await feed.run(node: node) } }
        let changes = node.events(named: ["changed"])
        tasks.append(
            Task {
                for await event in changes {
                    if case .changed(let room, let strokes) = event { feeds[room]?.send(.changed(strokes)) }
                }
            })
        tasks.append(
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    for feed in feeds.values { feed.send(.statusTick) }
                }
            })
        let server = self
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: eventLoopGroup)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in server.configure(channel) }
                .bind(host: configuration.host, port: configuration.port).get()
        } catch {
            for task in tasks { task.cancel() }
            for feed in feeds.values { feed.finish() }
            throw StartError(description: "cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        running.withLock { $0 = Running(channel: channel, tasks: tasks, address: channel.localAddress!) }
        logger.info("serving the page", metadata: ["url": "\(url ?? "")"])
    }

    /// Stops listening; open pages are disconnected.
    public func stop() async {
        guard let running = running.withLock({ state in defer { state = nil }; return state }) else { return }
        for task in running.tasks { task.cancel() }
        for feed in feeds.values { feed.finish() }
        try? await running.channel.close()
    }

    // MARK: Pipeline

    private func configure(_ channel: any Channel) -> EventLoopFuture<Void> {
        let server = self
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 20, automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                let allowed = server.socketRoom(for: head) != nil
                return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    guard let room = server.socketRoom(for: head) else { return }
                    let connection = PageConnection(channel: channel, room: room, counters: server.counters)
                    try channel.pipeline.syncOperations.addHandler(NIOWebSocketFrameAggregator(
                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 12, maxAccumulatedFrameSize: 1 << 20))
                    try channel.pipeline.syncOperations.addHandler(PageSocketHandler(connection: connection))
                    server.counters.opened()
                    server.feeds[room]?.send(.opened(connection))
                    let node = server.node
                    let feed = server.feeds[room]
                    Task {
                        await connection.serve(node: node)
                        feed?.send(.closed(connection))
                    }
                }
            })
        return channel.eventLoop.makeCompletedFuture {
            let httpHandler = HTTPRequestHandler(server: server)
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withServerUpgrade: (
                    upgraders: [upgrader],
                    completionHandler: { context in
                        context.pipeline.syncOperations.removeHandler(httpHandler, promise: nil)
                    }
                ))
            try channel.pipeline.syncOperations.addHandler(httpHandler)
        }
    }

    /// The room a socket request opens, if the request may open it (otherwise the plain
    /// HTTP handler answers it, saying why).
    fileprivate func socketRoom(for head: HTTPRequestHead) -> String? {
        let target = WebRequestTarget(head.uri)
        guard target.path == "/socket", let room = target.query["room"] ?? node.configuration.rooms.first,
            feeds[room] != nil, check(head, target) == nil
        else { return nil }
        return room
    }

    private func check(_ head: HTTPRequestHead, _ target: WebRequestTarget) -> WebAccess.Refusal? {
        access.check(
            host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin"),
            queryToken: target.query["token"], authorization: head.headers.first(name: "authorization"))
    }

    // MARK: Requests

    /// The answer to a plain HTTP request.
    fileprivate func respond(to head: HTTPRequestHead) async -> WebResponse {
        guard head.method == .GET || head.method == .HEAD else {
            return .text(405, "only GET is served here\n")
        }
        let target = WebRequestTarget(head.uri)
        if let file = page.file(at: target.path) {
            return WebResponse(status: 200, contentType: file.contentType, body: file.bytes)
        }
        let routes = ["/socket", "/export.svg", "/healthz", "/metrics"]
        guard routes.contains(target.path) else { return .text(404, "no such page: \(target.path)\n") }
        if let refusal = check(head, target) { return .text(refusal.status, refusal.message + "\n") }
        switch target.path {
        case "/socket":
            let room = target.query["room"] ?? ""
            if !room.isEmpty, feeds[room] == nil { return .text(404, "no room \"\(room)\" on this node\n") }
            return .text(400, "/socket expects a WebSocket upgrade\n")
        case "/export.svg":
            let room = target.query["room"] ?? node.configuration.rooms.first ?? ""
            guard let svg = try? await node.svg(of: room) else { return .text(404, "no room \"\(room)\" on this node\n") }
            var response = WebResponse(status: 200, contentType: "image/svg+xml", body: svg)
            response.headers.append(("Content-Disposition", "attachment; filename=\"canvas.svg\""))
            return response
        case "/healthz":
            guard let status = try? await node.status() else { return .text(503, "the node is not running\n") }
            return WebResponse(status: 200, contentType: "application/json", body: HealthReport.json(status))
        default:
            return WebResponse(status: 200, contentType: "text/plain; version=0.0.4", body: registry.emitToBuffer())
        }
    }
}

/// An HTTP response, whole.
struct WebResponse: Sendable {
    var status: Int
    var contentType: String
    var body: [UInt8]
    var headers: [(String, String)] = []

    init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    static func text(_ status: Int, _ text: String) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}

/// Answers one plain HTTP request per connection (`Connection: close`): a page asks for
/// few files, and a socket is a connection of its own.
private final class HTTPRequestHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: WebServer

    init(server: WebServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let channel = context.channel
        let server = self.server
        Task {
            let response = await server.respond(to: head)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: response.contentType)
            headers.add(name: "Content-Length", value: String(response.body.count))
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "X-Content-Type-Options", value: "nosniff")
            for (name, value) in response.headers { headers.add(name: name, value: value) }
            let responseHead = HTTPResponseHead(
                version: head.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
            channel.write(HTTPServerResponsePart.head(responseHead), promise: nil)
            if head.method != .HEAD {
                channel.write(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: response.body))), promise: nil)
            }
            channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// Hands a page's messages to its connection, answers pings, and closes on a close frame.
private final class PageSocketHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let connection: PageConnection

    init(connection: PageConnection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let payload = frame.unmaskedData
            connection.received(payload.getBytes(at: payload.readerIndex, length: payload.readableBytes) ?? [])
        case .binary:
            connection.send(PageMessages.error("binary messages are not understood: send JSON text"))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readSlice(length: min(2, data.readableBytes)) ?? context.channel.allocator.buffer(capacity: 0)
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.closed()
        context.fireChannelInactive()
    }
}
