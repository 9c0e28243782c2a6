import FuzzDriver
import CanvasCore
import CanvasStore

/// Any bytes as a room's operation log and as its snapshot, the files a crash or a bad
/// disk may leave damaged: reading never crashes; a log either reports damage or yields
/// operations that, written again, read back the same with no damage; a clean log cut
/// anywhere yields a prefix of its operations; a snapshot that reads re-encodes to one that
/// reads the same.
func fuzzStoreReaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let scan = LogFormat.scan(bytes)
    var rewritten: [UInt8] = []
    for operation in scan.operations { LogFormat.appendRecord(operation, to: &rewritten) }
    let again = LogFormat.scan(rewritten)
    guard again.operations == scan.operations, again.damage.isEmpty else {
        fatalError("the log's operations do not read back the same once written again")
    }
    if scan.damage.isEmpty, !bytes.isEmpty {
        let cut = Int(bytes[bytes.count / 2]) * bytes.count / 256
        let prefix = LogFormat.scan(Array(bytes[..<cut])).operations
        guard prefix.count <= scan.operations.count, Array(scan.operations.prefix(prefix.count)) == prefix else {
            fatalError("a clean log cut at byte \(cut) does not yield a prefix of its operations")
        }
    }
    if let operations = try? SnapshotFormat.decode(bytes, path: "fuzz") {
        guard (try? SnapshotFormat.decode(SnapshotFormat.encode(operations), path: "fuzz")) == operations else {
            fatalError("a snapshot does not read back the same once written again")
        }
    }
    return 0
}

runFuzzer { data, size in fuzzStoreReaders(data, size) }
