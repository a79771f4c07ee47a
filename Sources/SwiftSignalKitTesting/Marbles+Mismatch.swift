extension Marbles {
    /// An expected and an actual diagram one above the other, for a failing
    /// test's message:
    ///
    ///     expected: -a-b--c|
    ///     actual:   -a-b---c|
    ///
    /// When both diagrams have a subscription point `^` in different columns,
    /// the one further left is indented with spaces (which `parse` ignores) so
    /// that the two `^` stand one above the other.
    public static func mismatch(expected: String, actual: String) -> String {
        var expected = expected
        var actual = actual
        if let e = expected.firstIndex(of: "^"), let a = actual.firstIndex(of: "^") {
            let columns = (expected.distance(from: expected.startIndex, to: e),
                           actual.distance(from: actual.startIndex, to: a))
            if columns.0 < columns.1 {
                expected = String(repeating: " ", count: columns.1 - columns.0) + expected
            } else {
                actual = String(repeating: " ", count: columns.0 - columns.1) + actual
            }
        }
        return "expected: \(expected)\nactual:   \(actual)"
    }

    /// Nil when `actual` equals `expected`; otherwise their diagrams (printed
    /// with `values`) one above the other, as `mismatch` gives them. When the
    /// diagrams do not show the difference (they are alike: errors of
    /// different values, values printed with the same character), or one of
    /// them holds a value without a character (the placeholder `?`), the
    /// events follow, one list above the other.
    public static func difference<Value: Equatable, Failure: Equatable>(
        expected: MarbleTimeline<Value, Failure>,
        actual: MarbleTimeline<Value, Failure>,
        values: (Value) -> Character?
    ) -> String? {
        if expected == actual {
            return nil
        }
        let diagrams = (print(expected, values: values), print(actual, values: values))
        var message = mismatch(expected: diagrams.0, actual: diagrams.1)
        if diagrams.0 == diagrams.1 {
            message += "\nthe diagrams are alike; the timelines:\n"
                + "expected: \(expected)\nactual:   \(actual)"
        } else if diagrams.0.contains(placeholder) || diagrams.1.contains(placeholder) {
            message += "\na value has no character (\(placeholder)); the timelines:\n"
                + "expected: \(expected)\nactual:   \(actual)"
        }
        return message
    }

    /// `difference(expected:actual:values:)` for timelines whose values are
    /// characters.
    public static func difference<Failure: Equatable>(
        expected: MarbleTimeline<Character, Failure>,
        actual: MarbleTimeline<Character, Failure>
    ) -> String? {
        return difference(expected: expected, actual: actual, values: { $0 })
    }
}
