#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `read(2)`, reachable where `FileSystem.read` shadows it.
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `rename(2)`, reachable where `FileSystem.rename` shadows it.
private func posixRename(_ path: String, _ target: String) -> Int32 {
    rename(path, target)
}

/// The few POSIX calls the store needs, with errors that name the file and the call.
/// Durability comes from `fsync` on files and on the folders whose entries change.
enum FileSystem {
    private static func failure(_ call: String, _ path: String) -> StoreError {
        let code = errno
        return StoreError(.io, path: path, "\(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }

    /// True when `path` exists (file or folder).
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Creates `path` and its missing parents.
    static func createDirectories(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw failure("mkdir", prefix)
            }
            prefix += "/"
        }
    }

    /// The whole content of a file, or nil when it does not exist.
    static func read(_ path: String) throws(StoreError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw failure("open", path)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("fstat", path) }
        let size = Int(status.st_size)
        var readError: StoreError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialised in
            while initialised < size {
                let count = posixRead(descriptor, buffer.baseAddress! + initialised, size - initialised)
                if count < 0 && errno == EINTR { continue }
                if count < 0 { readError = failure("read", path) }
                if count <= 0 { break }
                initialised += count
            }
        }
        if let readError { throw readError }
        return bytes
    }

    /// Opens (creating if needed) a file for appending.
    static func openForAppending(_ path: String) throws(StoreError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open", path) }
        return descriptor
    }

    /// Writes every byte, retrying short writes and interruptions.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(StoreError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            written += count
        }
    }

    static func sync(_ descriptor: Int32, path: String) throws(StoreError) {
        guard fsync(descriptor) == 0 else { throw failure("fsync", path) }
    }

    /// Flushes a folder's entries (a created, renamed or removed file) to disk.
    static func syncDirectory(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { close(descriptor) }
        try sync(descriptor, path: path)
    }

    static func truncate(_ descriptor: Int32, to length: Int, path: String) throws(StoreError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw failure("ftruncate", path) }
    }

    /// Writes `bytes` to `path` so that a crash leaves either the old file or the new one:
    /// `path.tmp` is written and fsync'd, renamed over `path`, and the folder fsync'd.
    static func replaceDurably(_ path: String, with bytes: [UInt8], folder: String) throws(StoreError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open", temporary) }
        do {
            try writeAll(descriptor, bytes, path: temporary)
            try sync(descriptor, path: temporary)
        } catch {
            close(descriptor)
            throw error
        }
        close(descriptor)
        try rename(temporary, to: path)
        try syncDirectory(folder)
    }

    /// Renames `path` to `target` (replacing it atomically if it exists).
    static func rename(_ path: String, to target: String) throws(StoreError) {
        guard posixRename(path, target) == 0 else { throw failure("rename", path) }
    }

    /// Removes a file if it exists.
    static func remove(_ path: String) throws(StoreError) {
        if unlink(path) != 0 && errno != ENOENT { throw failure("unlink", path) }
    }

    /// How long a busy lock is tried again before it is taken to be another process's.
    static let lockPatience = Duration.milliseconds(200)

    /// Takes an exclusive advisory lock, so that two processes never append to one room.
    ///
    /// A lock that is busy is tried again, for up to `lockPatience`: a child process that
    /// another thread is starting holds a copy of every open descriptor until it executes
    /// its program (close-on-exec ones included), and with it the lock of a log this
    /// process has just closed. Reopening a room while other threads started processes
    /// found the lock busy one time in eight (RoomStoreTests); such a copy lives for
    /// microseconds to a few milliseconds, so a lock still busy after the patience belongs
    /// to a room open elsewhere (another process, or another store of this one).
    static func lockExclusively(_ descriptor: Int32, path: String) throws(StoreError) {
        let clock = ContinuousClock()
        let deadline = clock.now + lockPatience
        var pauseMicroseconds: UInt32 = 100
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw failure("flock", path) }
            guard clock.now < deadline else {
                throw StoreError(
                    .io, path: path, "the room is open in another process (its log is locked); close that one first")
            }
            usleep(pauseMicroseconds)
            pauseMicroseconds = min(2 * pauseMicroseconds, 10_000)
        }
    }
}
