/// The node's stable identity: created once, at random, and kept in the store folder
/// (one per store, shared by all its rooms) in a file named `node-id`.
public enum NodeIdentity {
    /// The file name inside the store folder.
    public static let fileName = "node-id"

    /// The node id stored in `directory`, creating it from `generator` (128 random bits as
    /// 32 lowercase hex digits) the first time. The file is written durably.
    public static func loadOrCreate(in directory: String, using generator: inout some RandomNumberGenerator) throws(StoreError) -> String {
        let path = directory + "/" + fileName
        if let bytes = try FileSystem.read(path) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingSuffix(while: { $0 == "\n" })
            guard !text.isEmpty, text.utf8.count <= 128, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 }) else {
                throw StoreError(
                    .corruptNodeID, path: path, offset: 0,
                    "expected one line of up to 128 printable ASCII characters; delete the file to get a new identity")
            }
            return text
        }
        var digits: [UInt8] = []
        for _ in 0..<2 {
            let word = generator.next()
            LogFormat.appendHex(UInt32(truncatingIfNeeded: word >> 32), to: &digits)
            LogFormat.appendHex(UInt32(truncatingIfNeeded: word), to: &digits)
        }
        try FileSystem.replaceDurably(path, with: digits + [0x0A], folder: directory)
        return String(decoding: digits, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var text = self[...]
        while let last = text.last, predicate(last) { text.removeLast() }
        return String(text)
    }
}
