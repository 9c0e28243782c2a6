import Foundation

/// The page's files (HTML, JavaScript, CSS in `Page/`, copied into the package's resource
/// bundle), read once when a server starts.
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

    /// Reads the files; throws naming the one that is missing.
    static func load() throws -> PageFiles {
        var files: [String: File] = [:]
        for (path, name, type) in served {
            let parts = name.split(separator: ".")
            guard let url = Bundle.module.url(forResource: String(parts[0]), withExtension: String(parts[1]), subdirectory: "Page"),
                let data = try? Data(contentsOf: url)
            else {
                throw WebServer.StartError(
                    description: "the page's file \(name) is missing from \(Bundle.module.bundlePath): keep the canvas_CanvasWeb.resources folder beside the canvas binary")
            }
            files[path] = File(bytes: Array(data), contentType: type)
        }
        return PageFiles(files: files)
    }

    private init(files: [String: File]) { self.files = files }

    /// The file served at `path`, if any.
    func file(at path: String) -> File? { files[path] }
}
