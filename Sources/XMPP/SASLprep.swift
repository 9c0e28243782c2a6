internal import Foundation

/// SASLprep (RFC 4013), the stringprep profile SCRAM and PLAIN apply to usernames and
/// passwords so that the client and the server hash the same bytes.
///
/// Implemented: mapping (§2.1: non-ASCII spaces to SPACE, "commonly mapped to nothing"
/// characters removed), NFKC normalisation (§2.2, Foundation's Unicode tables) and the
/// prohibited output (§2.3, tables C.1.2 to C.9 of RFC 3454). Not implemented: the
/// bidirectional rule (§2.4; a right-to-left password that breaks it is sent anyway, and a
/// server that enforces it refuses the login) and the check for code points unassigned in
/// Unicode 3.2 (we follow the "query" semantics of RFC 3454 §7, which allow them).
public enum SASLprep {
    /// The prepared form of `string`, or an error naming `field` and the refused character.
    public static func prepare(_ string: String, field: String) throws(SASLError) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in string.unicodeScalars where !isMappedToNothing(scalar.value) {
            mapped.append(isNonASCIISpace(scalar.value) ? " " : scalar)
        }
        let normalised = String(mapped).precomposedStringWithCompatibilityMapping
        for scalar in normalised.unicodeScalars where isProhibited(scalar.value) {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw SASLError(.invalidCredentials, "the \(field) contains \(code), which SASLprep (RFC 4013) prohibits")
        }
        guard !normalised.isEmpty else {
            throw SASLError(.invalidCredentials, "the \(field) is empty (after SASLprep, RFC 4013)")
        }
        return normalised
    }

    /// RFC 3454 table B.1.
    private static func isMappedToNothing(_ value: UInt32) -> Bool {
        switch value {
        case 0x00AD, 0x034F, 0x1806, 0x180B...0x180D, 0x200B...0x200D, 0x2060, 0xFE00...0xFE0F, 0xFEFF: true
        default: false
        }
    }

    /// RFC 3454 table C.1.2.
    private static func isNonASCIISpace(_ value: UInt32) -> Bool {
        switch value {
        case 0x00A0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// RFC 3454 tables C.1.2 and C.2.1 to C.9, as RFC 4013 §2.3 lists them.
    private static func isProhibited(_ value: UInt32) -> Bool {
        if isNonASCIISpace(value) { return true }
        if value & 0xFFFE == 0xFFFE { return true }  // C.4: the last two code points of every plane
        switch value {
        case 0x0000...0x001F, 0x007F: return true  // C.2.1
        case 0x0080...0x009F, 0x06DD, 0x070F, 0x180E, 0x200C, 0x200D, 0x2028, 0x2029, 0x2060...0x2063,
            0x206A...0x206F, 0xFEFF, 0xFFF9...0xFFFC, 0x1D173...0x1D17A:
            return true  // C.2.2
        case 0xE000...0xF8FF, 0xF0000...0xFFFFD, 0x100000...0x10FFFD: return true  // C.3
        case 0xFDD0...0xFDEF: return true  // C.4
        case 0xFFFD: return true  // C.6
        case 0x2FF0...0x2FFB: return true  // C.7
        case 0x0340, 0x0341, 0x200E, 0x200F, 0x202A...0x202E: return true  // C.8
        case 0xE0001, 0xE0020...0xE007F: return true  // C.9
        default: return false
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
