/// Why `Marbles.parse` rejected a diagram, and where.
///
/// `position` counts characters (`Character`s, not bytes) from 0, spaces
/// included, so that it points into the diagram as written; `description`
/// shows the diagram with a caret under that character.
///
/// Thread-safety: an immutable value; `Sendable`.
public struct MarbleSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The diagram that was rejected.
    public let diagram: String
    /// The offending character's index in `diagram` (for a group never
    /// closed, the index of its `(`).
    public let position: Int
    /// What is wrong, in a sentence without the position.
    public let message: String

    /// The error `message` at character `position` of `diagram`.
    public init(diagram: String, position: Int, message: String) {
        self.diagram = diagram
        self.position = position
        self.message = message
    }

    /// `marble diagram: MESSAGE at position N:`, then the diagram and a
    /// caret under the offending character, each on a line of its own
    /// indented by two spaces. A control character of the diagram (a line
    /// feed, a tab) is shown as its picture (`␊`, `␉`), one character as
    /// the position counts it, so that the diagram stays on its line and
    /// the caret under its character.
    public var description: String {
        return "marble diagram: \(self.message) at position \(self.position):\n"
            + "  \(Self.shown(self.diagram))\n"
            + "  " + String(repeating: " ", count: self.position) + "^"
    }

    /// `text` with each character that would break a line of the message
    /// (a control or format character) shown as one that does not: the
    /// control pictures (U+2400...) for the ASCII controls, `�` for others.
    package static func shown<S: StringProtocol>(_ text: S) -> String {
        return String(text.map { character -> Character in
            guard Self.isUnprintable(character) else {
                return character
            }
            let scalar = character.unicodeScalars.first.unsafelyUnwrapped.value
            if scalar < 0x20 {
                return Character(Unicode.Scalar(0x2400 + scalar).unsafelyUnwrapped)
            }
            return scalar == 0x7F ? "\u{2421}" : "\u{FFFD}"
        })
    }

    /// `character` as a message names it: between backquotes, or, for a
    /// control or format character, as its code points (`U+000A`).
    package static func naming(_ character: Character) -> String {
        guard Self.isUnprintable(character) else {
            return "`\(character)`"
        }
        return character.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }.joined(separator: " ")
    }

    private static func isUnprintable(_ character: Character) -> Bool {
        return character.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                return true
            default:
                return false
            }
        }
    }
}
