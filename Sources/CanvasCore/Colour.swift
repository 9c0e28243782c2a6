/// An opaque RGB colour with 8-bit components, as the wire protocol carries it.
public struct Colour: Hashable, Sendable {
    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8

    /// A colour from its components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// The default pen.
    public static let black = Colour(red: 0, green: 0, blue: 0)
}
