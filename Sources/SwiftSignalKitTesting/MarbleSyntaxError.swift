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

    /// `message at position N:`, then the diagram, then a caret under the
    /// offending character.
    public var description: String {
        return "marble diagram: \(self.message) at position \(self.position):\n"
            + "  \(self.diagram)\n"
            + "  " + String(repeating: " ", count: self.position) + "^"
    }
}
