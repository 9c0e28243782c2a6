import CanvasCore
import Foundation

/// The 1000-point codec loop done with Foundation's `JSONEncoder` and `JSONDecoder`: the
/// measurement behind the decision to write a specialised codec (docs/benchmarks.md). It
/// does less than ours — no canonical number form, no error paths, no limits — so it is a
/// lower bound for a Foundation-based codec.
enum FoundationBaseline {
    private struct Append: Codable {
        var type: String
        var identifier: String
        var points: [[Double]]
        var offset: Int?
    }

    static func codecAll(_ add: CanvasCore.Operation, _ appends: [CanvasCore.Operation]) -> Document {
        var document = Document()
        document.apply(add)
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        for operation in appends {
            guard case .append(let id, let points, let offset) = operation else { continue }
            let message = Append(type: "APPEND", identifier: id.rawValue, points: points.map { [$0.x, $0.y] }, offset: offset)
            guard let bytes = try? encoder.encode(message), let decoded = try? decoder.decode(Append.self, from: bytes) else {
                preconditionFailure("Foundation round-trips the benchmark's own messages")
            }
            let received = decoded.points.map { Point(x: $0[0], y: $0[1]) }
            document.apply(.append(StrokeID(decoded.identifier), points: received, offset: decoded.offset))
        }
        return document
    }
}
