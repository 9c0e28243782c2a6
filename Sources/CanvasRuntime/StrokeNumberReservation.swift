/// The stroke numbers a node may use before it must write again: every `AUTHOR_N` a local
/// action names has `N` at most `reservedThrough`, durable in the room's store before the
/// action is taken, and a restarted node names its strokes past it.
///
/// Why: operations a full disk refused stay in the replica, and anti-entropy can carry them
/// to peers before the store takes them (docs/testing.md). A node killed then restarts
/// without them and, counting from what its store holds, would name its next stroke
/// `AUTHOR_N` again, a different stroke under a name its peers already hold. Reserving
/// numbers in blocks costs one small durable write per `block` strokes, and a restart
/// skips at most `block` numbers. Pure: the room reads and writes the note.
struct StrokeNumberReservation: Equatable {
    /// The store note that keeps `reservedThrough` (decimal).
    static let noteName = "stroke-numbers"
    /// How many numbers one write reserves.
    static let block = 1000
    /// Numbers one local action may take (a drawing and its recognised shape), with room to spare.
    static let perAction = 16

    /// The highest number reserved durably (0: none yet).
    var reservedThrough: Int

    /// The reservation read from a note's text, if it is one.
    init?(note: String) {
        guard let value = Int(note.filter { !$0.isWhitespace }), value >= 0 else { return nil }
        reservedThrough = value
    }

    /// Nothing reserved yet.
    init() {
        reservedThrough = 0
    }

    /// The value to make durable before a local action, when the stroke counter stands at
    /// `counter`; nil while the reservation covers the action.
    func renewal(counter: Int) -> Int? {
        counter + Self.perAction > reservedThrough ? counter + Self.block : nil
    }

    /// The note's text for `value`.
    static func text(_ value: Int) -> String { String(value) }
}
