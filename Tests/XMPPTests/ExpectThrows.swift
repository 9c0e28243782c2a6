import Testing

/// Expects `body` to throw an error of `expected`'s kind with `expected`'s message.
/// `#expect(throws: expected)` alone checks only the kind: errors compare by kind.
func expectThrows<E: Error & Equatable & CustomStringConvertible, R>(
    _ expected: E, sourceLocation: SourceLocation = #_sourceLocation, performing body: () throws -> R
) {
    let error = #expect(throws: E.self, sourceLocation: sourceLocation, performing: body)
    #expect(error == expected, sourceLocation: sourceLocation)
    #expect(error?.description == expected.description, sourceLocation: sourceLocation)
}
