/// The page's files (HTML, JavaScript, CSS in `Page/`, compiled into the binary by the
/// EmbedPage plugin), taken once when a server starts.
struct PageFiles: Sendable {
    struct File: Sendable {
        var bytes: [UInt8]
        var contentType: String
    }

    private let files: [String: File]

    /// The names served and their types; `/` is the page itself.
    private static let served: [(path: String, name: String, type: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/index.html", "index.html", "text/html; charset=utf-8"),
        ("/canvas.js", "canvas.js", "text/javascript; charset=utf-8"),
        ("/canvas.css", "canvas.css", "text/css; charset=utf-8"),
    ]

    /// The files, compiled into the binary (the EmbedPage plugin); throws naming one that
    /// is missing.
    static func load() throws -> PageFiles {
        var files: [String: File] = [:]
        for (path, name, type) in served {
            guard let bytes = EmbeddedPage.files[name] else {
                throw WebServer.StartError(description: "the page's file \(name) was not compiled in (Sources/CanvasWeb/Page)")
            }
            files[path] = File(bytes: bytes, contentType: type)
        }
        return PageFiles(files: files)
    }

    private init(files: [String: File]) { self.files = files }

    /// The file served at `path`, if any.
    func file(at path: String) -> File? { files[path] }
}
