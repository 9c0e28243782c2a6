#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Line charts as SVG text, for benchmark figures a reader takes in at a glance: panels side
/// by side, each with its axes, ticks, and one line with dots per series.
public enum SVGPlot {
    /// One line of a panel.
    public struct Series: Sendable {
        /// The legend's text.
        public var name: String
        /// An SVG colour.
        public var colour: String
        /// The values, in any order (the line joins them by x).
        public var points: [(x: Double, y: Double)]

        /// A series named `name`, drawn in `colour`.
        public init(name: String, colour: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.colour = colour
            self.points = points
        }
    }

    /// One chart.
    public struct Panel: Sendable {
        /// The text above the chart, and the axes' labels.
        public var title: String
        public var xLabel: String
        public var yLabel: String
        /// The lines.
        public var series: [Series]
        /// A horizontal line marking a target (e.g. 250 ms), with its label.
        public var target: (y: Double, label: String)?
        /// A logarithmic y axis (decades), for values that span orders of magnitude.
        public var logarithmic: Bool

        /// A chart of `series`.
        public init(
            title: String, xLabel: String, yLabel: String, series: [Series], target: (y: Double, label: String)? = nil,
            logarithmic: Bool = false
        ) {
            self.title = title
            self.xLabel = xLabel
            self.yLabel = yLabel
            self.series = series
            self.target = target
            self.logarithmic = logarithmic
        }
    }

    static let panelWidth = 420.0
    static let panelHeight = 300.0
    static let margin = (left: 62.0, right: 16.0, top: 34.0, bottom: 46.0)

    /// The panels side by side, with `caption` under them.
    public static func document(_ panels: [Panel], caption: String) -> String {
        let width = panelWidth * Double(max(1, panels.count))
        let height = panelHeight + 28
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(format(width))" height="\(format(height))" \
            viewBox="0 0 \(format(width)) \(format(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>

            """
        for (index, panel) in panels.enumerated() {
            svg += draw(panel, at: Double(index) * panelWidth)
        }
        svg += "<text x=\"\(format(width / 2))\" y=\"\(format(height - 8))\" text-anchor=\"middle\" fill=\"#444\">\(escape(caption))</text>\n"
        return svg + "</svg>\n"
    }

    /// Round tick values covering [0, maximum]: 1, 2 or 5 times a power of ten apart.
    static func ticks(upTo maximum: Double) -> [Double] {
        guard maximum > 0, maximum.isFinite else { return [0, 1] }
        let rough = maximum / 5
        var power = 1.0
        while power * 10 <= rough { power *= 10 }
        while power > rough { power /= 10 }
        let step = [1.0, 2.0, 5.0, 10.0].map { $0 * power }.first { $0 >= rough } ?? power * 10
        var values: [Double] = []
        var value = 0.0
        while value < maximum + step * 0.999 {
            values.append(value)
            value += step
        }
        return values
    }

    private static func draw(_ panel: Panel, at left: Double) -> String {
        let all = panel.series.flatMap(\.points)
        let xTicks = ticks(upTo: all.map(\.x).max() ?? 1)
        let ys = all.map(\.y) + (panel.target.map { [$0.y] } ?? [])
        let yTicks = panel.logarithmic ? decades(covering: ys) : ticks(upTo: ys.max() ?? 1)
        let xMax = xTicks.last!
        let plotLeft = left + margin.left, plotRight = left + panelWidth - margin.right
        let plotTop = margin.top, plotBottom = panelHeight - margin.bottom
        func x(_ value: Double) -> Double { plotLeft + (plotRight - plotLeft) * value / xMax }
        func y(_ value: Double) -> Double {
            if panel.logarithmic {
                let low = log10(yTicks.first!), high = log10(yTicks.last!)
                return plotBottom - (plotBottom - plotTop) * (log10(max(value, yTicks.first!)) - low) / (high - low)
            }
            return plotBottom - (plotBottom - plotTop) * value / yTicks.last!
        }
        var svg = "<g>\n"
        svg += "<text x=\"\(format((plotLeft + plotRight) / 2))\" y=\"18\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">\(escape(panel.title))</text>\n"
        for tick in yTicks {
            svg += "<line x1=\"\(format(plotLeft))\" x2=\"\(format(plotRight))\" y1=\"\(format(y(tick)))\" y2=\"\(format(y(tick)))\" stroke=\"#e4e4e4\"/>\n"
            svg += "<text x=\"\(format(plotLeft - 6))\" y=\"\(format(y(tick) + 4))\" text-anchor=\"end\">\(label(tick))</text>\n"
        }
        for tick in xTicks {
            svg += "<line x1=\"\(format(x(tick)))\" x2=\"\(format(x(tick)))\" y1=\"\(format(plotBottom))\" y2=\"\(format(plotBottom + 4))\" stroke=\"#888\"/>\n"
            svg += "<text x=\"\(format(x(tick)))\" y=\"\(format(plotBottom + 16))\" text-anchor=\"middle\">\(label(tick))</text>\n"
        }
        svg += "<line x1=\"\(format(plotLeft))\" x2=\"\(format(plotRight))\" y1=\"\(format(plotBottom))\" y2=\"\(format(plotBottom))\" stroke=\"#888\"/>\n"
        svg += "<line x1=\"\(format(plotLeft))\" x2=\"\(format(plotLeft))\" y1=\"\(format(plotTop))\" y2=\"\(format(plotBottom))\" stroke=\"#888\"/>\n"
        svg += "<text x=\"\(format((plotLeft + plotRight) / 2))\" y=\"\(format(plotBottom + 34))\" text-anchor=\"middle\">\(escape(panel.xLabel))</text>\n"
        svg += "<text transform=\"translate(\(format(left + 14)) \(format((plotTop + plotBottom) / 2))) rotate(-90)\" text-anchor=\"middle\">\(escape(panel.yLabel))</text>\n"
        if let target = panel.target {
            svg += "<line x1=\"\(format(plotLeft))\" x2=\"\(format(plotRight))\" y1=\"\(format(y(target.y)))\" y2=\"\(format(y(target.y)))\" stroke=\"#c00\" stroke-dasharray=\"5 4\"/>\n"
            svg += "<text x=\"\(format(plotRight - 4))\" y=\"\(format(y(target.y) - 4))\" text-anchor=\"end\" fill=\"#c00\">\(escape(target.label))</text>\n"
        }
        for series in panel.series {
            let path = series.points.sorted { $0.x < $1.x }.map { "\(format(x($0.x))),\(format(y($0.y)))" }
            if path.count > 1 {
                svg += "<polyline fill=\"none\" stroke=\"\(series.colour)\" stroke-width=\"2\" points=\"\(path.joined(separator: " "))\"/>\n"
            }
            for point in series.points {
                svg += "<circle cx=\"\(format(x(point.x)))\" cy=\"\(format(y(point.y)))\" r=\"3\" fill=\"\(series.colour)\"/>\n"
            }
        }
        // The legend goes on top, in the first corner free of data (upper left, lower right,
        // upper right, lower left; else upper left), on a white box that keeps it readable.
        let boxWidth = 30 + 6.5 * Double(panel.series.map(\.name.count).max() ?? 0)
        let boxHeight = 8 + 15 * Double(panel.series.count)
        let corners = [
            (plotLeft + 4, plotTop - 4), (plotRight - boxWidth - 4, plotBottom - boxHeight - 4),
            (plotRight - boxWidth - 4, plotTop - 4), (plotLeft + 4, plotBottom - boxHeight - 4),
        ]
        // The points and the lines between them, sampled, in pixels.
        var points: [(Double, Double)] = []
        for series in panel.series {
            let sorted = series.points.sorted { $0.x < $1.x }.map { (x($0.x), y($0.y)) }
            points += sorted
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                for step in 1..<24 {
                    let t = Double(step) / 24
                    points.append((a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t))
                }
            }
        }
        let (boxLeft, boxTop) =
            corners.first { corner in
                !points.contains { $0.0 >= corner.0 - 4 && $0.0 <= corner.0 + boxWidth + 4 && $0.1 >= corner.1 - 4 && $0.1 <= corner.1 + boxHeight + 4 }
            } ?? corners[0]
        svg += "<rect x=\"\(format(boxLeft))\" y=\"\(format(boxTop))\" width=\"\(format(boxWidth))\" height=\"\(format(boxHeight))\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ddd\"/>\n"
        for (index, series) in panel.series.enumerated() {
            let legendY = boxTop + 14 + Double(index) * 15
            svg += "<rect x=\"\(format(boxLeft + 6))\" y=\"\(format(legendY - 9))\" width=\"10\" height=\"10\" fill=\"\(series.colour)\"/>\n"
            svg += "<text x=\"\(format(boxLeft + 20))\" y=\"\(format(legendY))\">\(escape(series.name))</text>\n"
        }
        return svg + "</g>\n"
    }

    /// Powers of ten covering the positive `values` (at least two).
    static func decades(covering values: [Double]) -> [Double] {
        let positive = values.filter { $0 > 0 }
        guard let low = positive.min(), let high = positive.max() else { return [1, 10] }
        var decade = pow(10, (log10(low)).rounded(.down))
        var result = [decade]
        while decade < high || result.count < 2 {
            decade *= 10
            result.append(decade)
        }
        return result
    }

    static func label(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : format(value)
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
