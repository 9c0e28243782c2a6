import CanvasBench

/// The picture of an end-to-end sweep: draw→apply latency (p50 and p99, same LAN and
/// across the XMPP room) and CPU per point received, against the number of authors.
enum EndToEndPlot {
    static func svg(_ results: [EndToEndRun.Result]) -> String {
        func series(_ name: String, _ colour: String, _ value: (EndToEndRun.Result) -> Double?) -> SVGPlot.Series {
            SVGPlot.Series(
                name: name, colour: colour,
                points: results.compactMap { result in value(result).map { (Double(result.run.load.authors), $0) } })
        }
        let latency = SVGPlot.Panel(
            title: "draw → apply at the other nodes", xLabel: "authors drawing 15 points/s", yLabel: "milliseconds (log scale)",
            series: [
                series("same LAN p50", "#4a90d9", { $0.sameLAN.median.map { $0 * 1e3 } }),
                series("same LAN p99", "#1f4e8c", { $0.sameLAN.p99.map { $0 * 1e3 } }),
                series("across XMPP p50", "#e3a33b", { $0.acrossXMPP.median.map { $0 * 1e3 } }),
                series("across XMPP p99", "#a8611a", { $0.acrossXMPP.p99.map { $0 * 1e3 } }),
            ].filter { !$0.points.isEmpty },
            target: (250, "250 ms (same-LAN p99 target)"), logarithmic: true)
        let cpu = SVGPlot.Panel(
            title: "CPU per point received", xLabel: "authors drawing 15 points/s", yLabel: "µs of CPU per point",
            series: [
                series("all nodes, drawing included", "#3a9a5b", { $0.cpuPerPointMicroseconds }),
                series("nodes that only listen", "#8e44ad", { $0.listenerCPUPerPointMicroseconds }),
            ].filter { !$0.points.isEmpty }, target: (1, "1 µs target"))
        let first = results.first?.run
        let caption = first.map {
            "\($0.nodes) canvas join processes\($0.listeners > 0 ? " (+ \($0.listeners) listening)" : "") in \($0.groups) LAN group(s)\($0.server.map { " + \($0.displayName)" } ?? ""), "
                + "\($0.load.seconds) s of drawing each, \(ProcessCPU.cores) cores"
        } ?? ""
        return SVGPlot.document([latency, cpu], caption: caption)
    }
}
