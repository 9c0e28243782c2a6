import Foundation

/// The lines of an NDJSON input, numbered from 1, blank lines skipped (a trailing `\r` is
/// JSON whitespace and harmless).
enum NDJSONLines {
    static func forEach(in data: Data, _ body: (_ number: Int, _ line: [UInt8]) -> Void) {
        let bytes = [UInt8](data)
        var number = 0
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            number += 1
            let line = Array(bytes[start..<end])
            start = end + 1
            if line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) {
                body(number, line)
            }
        }
    }
}
