import CanvasCore
import CanvasProtocol

/// Splits what the session sends into messages that respect a transport's size limit.
enum MessagePacking {
    /// The smallest limit a transport may declare: one summary, one point, one ADD.
    static let minimumMessageBytes = 512

    /// The wire messages for `operations`: one per operation, an APPEND too large for
    /// the limit split into APPENDs of consecutive offsets. `compact`: in the compact binary
    /// form (`CompactOperationCoding`) rather than JSON.
    static func messages(for operations: [Operation], maxBytes: Int, compact: Bool = false) -> [[UInt8]] {
        func encode(_ operation: Operation) -> [UInt8] {
            compact ? CompactOperationCoding.encode(operation) : MessageEncoder.encode(operation)
        }
        var result: [[UInt8]] = []
        for operation in operations {
            let bytes = encode(operation)
            guard bytes.count > maxBytes, case .append(let id, let points, let offset) = operation, points.count > 1 else {
                result.append(bytes)
                continue
            }
            let base = offset ?? 1
            // First guess from the average size of a point, then halve any chunk still too large.
            var chunk = max(1, points.count * max(maxBytes - 128, 1) / bytes.count)
            var start = 0
            while start < points.count {
                let end = min(points.count, start + chunk)
                let message = encode(.append(id, points: Array(points[start..<end]), offset: base + start))
                if message.count > maxBytes, end - start > 1 {
                    chunk = max(1, (end - start) / 2)
                    continue
                }
                result.append(message)
                start = end
            }
        }
        return result
    }

    /// SYNC_BUCKETS messages carrying `buckets` (all of them), as few as the limit allows.
    static func bucketMessages(node: String, root: UInt64, to: String, buckets: [UInt64], maxBytes: Int) -> [[UInt8]] {
        let empty = SyncMessage(node: node, root: root, to: to, body: .buckets(first: 0, hashes: [])).encoded().count
        let perMessage = max(1, (maxBytes - empty - 8) / 16)
        return stride(from: 0, to: buckets.count, by: perMessage).map { first in
            let hashes = Array(buckets[first..<min(buckets.count, first + perMessage)])
            return SyncMessage(node: node, root: root, to: to, body: .buckets(first: first, hashes: hashes)).encoded()
        }
    }

    /// SYNC_STROKES messages covering the given buckets with these summaries (sorted by
    /// identifier within each bucket). Buckets are grouped while they fit; a bucket too
    /// large for one message is split into identifier ranges [lower, upper).
    static func strokeMessages(
        node: String, root: UInt64, to: String, buckets: [(bucket: Int, strokes: [SyncStrokeSummary])], maxBytes: Int
    ) -> [[UInt8]] {
        let overhead = SyncMessage(node: node, root: root, to: to, body: .strokes(cover: [], strokes: [])).encoded().count + 16
        let budget = max(maxBytes - overhead, 64)
        var result: [[UInt8]] = []
        var cover: [SyncCover] = []
        var strokes: [SyncStrokeSummary] = []
        var size = 0
        func flush() {
            guard !cover.isEmpty else { return }
            result.append(SyncMessage(node: node, root: root, to: to, body: .strokes(cover: cover, strokes: strokes)).encoded())
            cover = []
            strokes = []
            size = 0
        }
        for (bucket, summaries) in buckets {
            let coverBytes = 16
            let sizes = summaries.map(SyncMessage.encodedSize(of:))
            let total = coverBytes + sizes.reduce(0, +)
            if total <= budget {
                if size + total > budget { flush() }
                cover.append(SyncCover(bucket: bucket))
                strokes.append(contentsOf: summaries)
                size += total
                continue
            }
            flush()
            var start = 0
            while start < summaries.count {
                var end = start
                var used = coverBytes + 2 * (summaries[start].id.rawValue.utf8.count * 6 + 2)
                while end < summaries.count, end == start || used + sizes[end] <= budget {
                    used += sizes[end]
                    end += 1
                }
                let lower = start == 0 ? nil : summaries[start].id
                let upper = end == summaries.count ? nil : summaries[end].id
                cover = [SyncCover(bucket: bucket, lower: lower, upper: upper)]
                strokes = Array(summaries[start..<end])
                size = used
                flush()
                start = end
            }
        }
        flush()
        return result
    }

    /// SYNC_WANT messages for these summaries.
    static func wantMessages(node: String, root: UInt64, to: String, strokes: [SyncStrokeSummary], maxBytes: Int) -> [[UInt8]] {
        let overhead = SyncMessage(node: node, root: root, to: to, body: .want([])).encoded().count + 16
        let budget = max(maxBytes - overhead, 64)
        var result: [[UInt8]] = []
        var batch: [SyncStrokeSummary] = []
        var size = 0
        for summary in strokes {
            let bytes = SyncMessage.encodedSize(of: summary)
            if !batch.isEmpty, size + bytes > budget {
                result.append(SyncMessage(node: node, root: root, to: to, body: .want(batch)).encoded())
                batch = []
                size = 0
            }
            batch.append(summary)
            size += bytes
        }
        if !batch.isEmpty {
            result.append(SyncMessage(node: node, root: root, to: to, body: .want(batch)).encoded())
        }
        return result
    }
}
