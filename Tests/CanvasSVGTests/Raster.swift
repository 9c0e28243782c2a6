import Foundation

/// An SVG rendered by a real renderer: `rsvg-convert` (Debian librsvg2-bin) to PNG on a
/// white background, then `pngtopnm` (Debian netpbm) to a PPM whose pixels are read here.
/// scripts/test installs both.
struct Raster {
    let width: Int
    let height: Int
    private let pixels: [UInt8]

    struct Colour: Equatable, CustomStringConvertible {
        var red, green, blue: Int
        static let white = Colour(red: 255, green: 255, blue: 255)

        func isClose(to other: Colour, tolerance: Int = 40) -> Bool {
            abs(red - other.red) <= tolerance && abs(green - other.green) <= tolerance && abs(blue - other.blue) <= tolerance
        }

        var description: String { "rgb(\(red),\(green),\(blue))" }
    }

    enum Failure: Error, CustomStringConvertible {
        case toolMissing(String)
        case toolFailed(String, String)
        case unreadable(String)

        var description: String {
            switch self {
            case .toolMissing(let tool): "\(tool) is not installed: install librsvg2-bin and netpbm (scripts/test does)"
            case .toolFailed(let tool, let message): "\(tool) failed: \(message)"
            case .unreadable(let why): "cannot read the rendered image: \(why)"
            }
        }
    }

    /// Renders `svg` at its own size (one SVG unit, one pixel).
    init(rendering svg: [UInt8]) throws {
        let png = try Raster.run("rsvg-convert", ["--format=png", "--background-color=white"], input: Data(svg))
        let ppm = try Raster.run("pngtopnm", [], input: png)
        try self.init(ppm: [UInt8](ppm))
    }

    /// Reads a binary PPM (P6, maxval 255).
    private init(ppm: [UInt8]) throws {
        var index = 0
        func token() throws -> String {
            while index < ppm.count, ppm[index] == 0x20 || ppm[index] == 0x0A || ppm[index] == 0x0D || ppm[index] == 0x09 {
                index += 1
            }
            let start = index
            while index < ppm.count, !(ppm[index] == 0x20 || ppm[index] == 0x0A || ppm[index] == 0x0D || ppm[index] == 0x09) {
                index += 1
            }
            guard start < index else { throw Failure.unreadable("truncated header") }
            return String(decoding: ppm[start..<index], as: UTF8.self)
        }
        guard try token() == "P6", let width = Int(try token()), let height = Int(try token()), try token() == "255" else {
            throw Failure.unreadable("not a P6 PPM with maxval 255")
        }
        index += 1
        guard ppm.count - index >= width * height * 3 else { throw Failure.unreadable("short pixel data") }
        self.width = width
        self.height = height
        pixels = Array(ppm[index..<(index + width * height * 3)])
    }

    subscript(x: Int, y: Int) -> Colour {
        let offset = (y * width + x) * 3
        return Colour(red: Int(pixels[offset]), green: Int(pixels[offset + 1]), blue: Int(pixels[offset + 2]))
    }

    /// The colours within `radius` pixels of (x, y), clipped to the image.
    func colours(around x: Double, _ y: Double, radius: Int = 1) -> [Colour] {
        var result: [Colour] = []
        let cx = Int(x.rounded())
        let cy = Int(y.rounded())
        for dy in -radius...radius {
            for dx in -radius...radius where (0..<width).contains(cx + dx) && (0..<height).contains(cy + dy) {
                result.append(self[cx + dx, cy + dy])
            }
        }
        return result
    }

    private static func run(_ tool: String, _ arguments: [String], input: Data) throws -> Data {
        let path = ["/usr/bin", "/usr/local/bin", "/bin"].map { "\($0)/\(tool)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let path else { throw Failure.toolMissing(tool) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Feed the input from another thread while reading the output, so neither pipe fills.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure.toolFailed(tool, String(decoding: errors, as: UTF8.self))
        }
        return output
    }
}
