extension Marbles {
    /// The canonical diagram of `timeline` (see "Canonical diagrams" above),
    /// each value written as the character `values` gives it, or as
    /// `Marbles.placeholder` when it gives none, or one that is not a letter
    /// or a digit.
    ///
    /// - Complexity: O(n log n) for n events, plus the frames of silence.
    public static func print<Value, Failure>(
        _ timeline: MarbleTimeline<Value, Failure>,
        values: (Value) -> Character?
    ) -> String {
        // In time order, ties in the timeline's order (an explicitly stable sort).
        let events = timeline.events.enumerated()
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        let earliest = events.first?.time ?? 0
        let hot = timeline.subscriptionOffset != nil || earliest < 0
        var time = -max(timeline.subscriptionOffset ?? 0, -earliest, 0)
        var subscriptionWritten = !hot
        var diagram = ""

        // `^` goes before the events of time 0.
        func writeSubscriptionIfDue() {
            if !subscriptionWritten && time == 0 {
                diagram.append("^")
                subscriptionWritten = true
            }
        }

        var index = events.startIndex
        while index < events.endIndex {
            let frame = events[index].time
            while time < frame {
                writeSubscriptionIfDue()
                diagram.append("-")
                time += 1
            }
            writeSubscriptionIfDue()
            var end = index
            while end < events.endIndex && events[end].time == frame {
                end += 1
            }
            let symbols = events[index ..< end].map { symbol(of: $0.kind, values: values) }
            if symbols.count == 1 {
                diagram.append(symbols[0])
            } else {
                diagram.append("(" + String(symbols) + ")")
            }
            time += 1
            index = end
        }
        // A subscription point after the last event (or with no events).
        while !subscriptionWritten {
            writeSubscriptionIfDue()
            if !subscriptionWritten {
                diagram.append("-")
                time += 1
            }
        }
        return diagram
    }

    /// The canonical diagram of `timeline`, each value written as the
    /// character that `values` maps to it (the smallest such character when
    /// there are several), as `parse` reads it with the same dictionary.
    ///
    /// - Complexity: O(n·k) for n events and k characters in `values`.
    public static func print<Value: Equatable, Failure>(
        _ timeline: MarbleTimeline<Value, Failure>,
        values: [Character: Value]
    ) -> String {
        let characters = values.keys.sorted()
        return print(timeline, values: { value in characters.first { values[$0] == value } })
    }

    /// The canonical diagram of `timeline`, whose values are characters.
    public static func print<Failure>(_ timeline: MarbleTimeline<Character, Failure>) -> String {
        return print(timeline, values: { $0 })
    }

    private static func symbol<Value, Failure>(
        of kind: TimelineEvent<Value, Failure>.Kind,
        values: (Value) -> Character?
    ) -> Character {
        switch kind {
        case let .next(value):
            if let character = values(value), character.isLetter || character.isNumber {
                return character
            }
            return placeholder
        case .error:
            return "#"
        case .completed:
            return "|"
        }
    }
}
