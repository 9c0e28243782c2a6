public import Foundation

/// Folders for the files tests write (stores, input files), all made under one folder of
/// this test process's in the system's temporary folder, which is removed when the process
/// exits, whatever the tests' outcome: a test need not remove what it made.
public enum TemporaryFolders {
    /// The folder every `make` goes under: made on first use, removed at exit.
    private static let root: URL = {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("canvas-tests-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TemporaryFolders.root) }
        return root
    }()

    /// A new, empty folder whose name starts with `prefix`.
    public static func make(_ prefix: String) -> URL {
        let folder = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
