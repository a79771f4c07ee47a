/// Marble diagrams: a timeline of events written as one line of text, one
/// character a frame, for tests that read as pictures of events over time.
///
///     -a-b--c|     a at 1, b at 3, c at 6, the completion at 7
///     --#          the error at 2
///     (ab)-c|      a and b at 0, c at 2, the completion at 3
///     --a-^b-c|    a hot source: a at -2, b at 0, c at 2, completion at 3
///
/// `parse` reads a diagram into a `MarbleTimeline`; `print` writes a timeline
/// back as its canonical diagram; `mismatch` and `difference` show an expected
/// and an actual diagram one above the other, for a failing test's message.
///
/// ## Grammar
///
/// A diagram is read from left to right with a frame counter that starts at 0:
///
/// - `-` : one frame passes.
/// - a letter or a digit: a value at the current frame, then one frame
///   passes. The value is `values[character]`; when `values` is empty and the
///   value type is `Character`, the character is its own value. Any letter
///   or digit (`é` too); the C and Python test signals take only ASCII ones,
///   so a diagram shared with them keeps to those.
/// - `|` : the completion at the current frame, then one frame passes.
/// - `#` : the error (the `error` given to `parse`) at the current frame, then
///   one frame passes.
/// - `(` ... `)` : a group: its events (values, `|`, `#`; spaces allowed) all
///   happen at the current frame, in the written order, and the group as a
///   whole takes one frame, however many characters it has. (RxJS counts
///   every character of a group as a frame; counting the group as one frame
///   is simpler and makes `print(parse(d)) == d` for every canonical diagram.)
///   `(ab)c` is `a` and `b` at 0, `c` at 1. A group holds at least one event.
/// - `^` : the subscription point of a hot source. It takes no frame: it marks
///   time 0, the frame of the next character, and every time becomes relative
///   to it (events before it have negative times). At most one, outside
///   groups, before any terminal event. `a^b` is `a` at -1 and `b` at 0.
/// - a space: ignored (for aligning diagrams), also inside a group.
///
/// After the terminal event (`|` or `#`), only `-` and spaces may follow.
/// Anything else is a `MarbleSyntaxError` naming the offending character's
/// position: another character, a second `^`, a second terminal event, an
/// event, a group or `^` after the terminal event, a `-`, `^` or `(` inside a
/// group, an empty group, `)` without `(`, a group never closed, and a value
/// character that `values` does not have.
///
/// ## Canonical diagrams
///
/// `print` writes frames of silence as `-`, a frame of several events as a
/// group (a single event is never grouped), no spaces and nothing after the
/// last event, or after `^` when no event follows it. It starts at the
/// timeline's subscription offset before `^` (or at its earliest event, if
/// earlier); a timeline with negative times and no offset gets a `^` at time
/// 0. Every error prints as `#`, whatever its value. A value that has no
/// character (or one that is not a letter or a digit) prints as `?`, which is
/// not in the grammar: such a diagram never parses, so it cannot pass for
/// another. For a timeline that a diagram gives (events in order, none after
/// the terminal event, all errors equal), `parse(print(t)) == t`.
///
/// Times are frames; what a frame lasts is up to the code that plays or
/// records a timeline on a queue.
///
/// Thread-safety: a namespace of pure functions; call them from any thread.
public enum Marbles {
    /// The character that `print` writes for a value without a character.
    public static let placeholder: Character = "?"

    /// Reads `diagram` (see the grammar above): its letters and digits are
    /// looked up in `values` (a `Character` is its own value when `values` is
    /// empty), each `#` is `error`.
    ///
    /// - Throws: `MarbleSyntaxError` at the first character that breaks the
    ///   grammar.
    /// - Complexity: O(n) for a diagram of n characters.
    public static func parse<Value, Failure>(
        _ diagram: String,
        values: [Character: Value],
        error: Failure
    ) throws(MarbleSyntaxError) -> MarbleTimeline<Value, Failure> {
        var parser = MarbleParser<Value, Failure>(diagram: diagram, values: values, error: error)
        return try parser.parse()
    }

    /// Reads `diagram`, whose letters and digits are their own values.
    ///
    /// - Throws: `MarbleSyntaxError` at the first character that breaks the
    ///   grammar.
    public static func parse<Failure>(
        _ diagram: String,
        error: Failure
    ) throws(MarbleSyntaxError) -> MarbleTimeline<Character, Failure> {
        return try parse(diagram, values: [:], error: error)
    }
}

/// The state of one `Marbles.parse`: the frame counter, the open group and
/// the markers already met, each with its position for the error messages.
///
/// Thread-safety: a local value of one call.
struct MarbleParser<Value, Failure> {
    let diagram: String
    let values: [Character: Value]
    let error: Failure

    var frame = 0
    // (absolute frame, event), in the written order.
    var events: [(frame: Int, kind: TimelineEvent<Value, Failure>.Kind)] = []
    var subscription: (frame: Int, position: Int)?
    var terminal: (character: Character, position: Int)?
    var group: (position: Int, events: Int)?

    init(diagram: String, values: [Character: Value], error: Failure) {
        self.diagram = diagram
        self.values = values
        self.error = error
    }

    mutating func parse() throws(MarbleSyntaxError) -> MarbleTimeline<Value, Failure> {
        for (position, character) in self.diagram.enumerated() {
            try self.read(character, at: position)
        }
        if let group = self.group {
            throw self.failure(at: group.position, "the group is never closed")
        }
        let origin = self.subscription?.frame ?? 0
        return MarbleTimeline(
            self.events.map { TimelineEvent(time: $0.frame - origin, kind: $0.kind) },
            subscriptionOffset: self.subscription?.frame
        )
    }

    private mutating func read(_ character: Character, at position: Int) throws(MarbleSyntaxError) {
        switch character {
        case " ":
            return
        case "-":
            if let group = self.group {
                throw self.failure(at: position, "`-` inside the group opened at \(group.position) (a group is one frame)")
            }
            self.frame += 1
        case "^":
            if let group = self.group {
                throw self.failure(at: position, "`^` inside the group opened at \(group.position)")
            }
            if let subscription = self.subscription {
                throw self.failure(at: position, "a second subscription point `^` (the first is at \(subscription.position))")
            }
            if let terminal = self.terminal {
                throw self.failure(at: position, "the subscription point `^` after the terminal event `\(terminal.character)` at \(terminal.position)")
            }
            self.subscription = (self.frame, position)
        case "(":
            if let group = self.group {
                throw self.failure(at: position, "a group inside the group opened at \(group.position)")
            }
            if let terminal = self.terminal {
                throw self.failure(at: position, "a group after the terminal event `\(terminal.character)` at \(terminal.position)")
            }
            self.group = (position, 0)
        case ")":
            guard let group = self.group else {
                throw self.failure(at: position, "`)` without `(`")
            }
            if group.events == 0 {
                throw self.failure(at: group.position, "an empty group")
            }
            self.group = nil
            self.frame += 1
        case "|", "#":
            if let terminal = self.terminal {
                throw self.failure(at: position, "a second terminal event `\(character)` (the first, `\(terminal.character)`, is at \(terminal.position))")
            }
            self.terminal = (character, position)
            self.append(character == "|" ? .completed : .error(self.error))
        default:
            guard character.isLetter || character.isNumber else {
                throw self.failure(at: position, "unexpected character \(MarbleSyntaxError.naming(character))")
            }
            if let terminal = self.terminal {
                throw self.failure(at: position, "the value `\(character)` after the terminal event `\(terminal.character)` at \(terminal.position)")
            }
            guard let value = self.value(of: character) else {
                throw self.failure(at: position, "no value for `\(character)`")
            }
            self.append(.next(value))
        }
    }

    private func value(of character: Character) -> Value? {
        if let value = self.values[character] {
            return value
        }
        if self.values.isEmpty {
            return character as? Value
        }
        return nil
    }

    // An event at the current frame; outside a group, one frame passes.
    private mutating func append(_ kind: TimelineEvent<Value, Failure>.Kind) {
        self.events.append((self.frame, kind))
        if var group = self.group {
            group.events += 1
            self.group = group
        } else {
            self.frame += 1
        }
    }

    private func failure(at position: Int, _ message: String) -> MarbleSyntaxError {
        return MarbleSyntaxError(diagram: self.diagram, position: position, message: message)
    }
}
