import XCTest
import SwiftSignalKit

// Checks of an operator's subscription beyond what the shared marble table
// shows, each over a table of operators: ended early over a synchronous
// upstream that never returns otherwise, disposed from inside its own value
// callback, dropped without being disposed. The families' tests
// (Signal_TakeTests, Signal_ReduceTests, Signal_MetaTests,
// Signal_CombineTests) give their own operators' rows.

/// An upstream that never returns from its start unless the subscription is
/// ended early: 1, 2, 3, ... synchronously (`restart` of a single value).
package func endlessCount() -> Signal<Int, NoError> {
    return restart(Signal<Int, NoError>.single(1)) |> scan(0, +)
}

/// Each case's operator over `endlessCount()` ends the subscription by
/// itself: the values expected, then one completion, and the start returns.
package func assertEndsAnEndlessUpstream(_ cases: [(String, (Signal<Int, NoError>) -> Signal<Int, NoError>, [Int])],
                                         file: StaticString = #filePath, line: UInt = #line) {
    for (name, apply, expected) in cases {
        var values: [Int] = []
        var completed = 0
        apply(endlessCount()).start(next: { values.append($0) }, completed: { completed += 1 }).dispose()
        XCTAssertEqual(values, expected, name, file: file, line: line)
        XCTAssertEqual(completed, 1, name, file: file, line: line)
    }
}

/// Each case's subscription disposed from inside its own value callback
/// receives nothing more and lets go of the upstream.
package func assertDisposableFromInsideAValueCallback(_ cases: [(String, (Signal<Int, TestError>) -> Signal<Int, TestError>)],
                                                      file: StaticString = #filePath, line: UInt = #line) {
    for (name, apply) in cases {
        let source = TestPipe<Int, TestError>()
        let box = DisposableBox()
        var values: [Int] = []
        box.disposable.set(apply(source.signal()).start(next: { value in
            values.append(value)
            box.disposable.dispose()
        }, completed: {
            values.append(-1)
        }))
        for value in 1 ... 4 {
            source.putNext(value)
        }
        source.putCompletion()
        XCTAssertEqual(values.count, 1, "\(name): \(values)", file: file, line: line)
        XCTAssertEqual(source.subscriberCount, 0, name, file: file, line: line)
    }
}

/// Each case's subscription, dropped without being disposed, is freed,
/// callbacks included, once its source lets go (no cycle through the
/// operator's state).
package func assertFreedWhenAbandoned(_ cases: [(String, (Signal<Int, TestError>) -> Signal<Int, TestError>)],
                                      file: StaticString = #filePath, line: UInt = #line) {
    for (name, apply) in cases {
        let released = Counter()
        let held = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let source = Signal<Int, TestError> { subscriber in
            held.swap(subscriber)
            return EmptyDisposable
        }
        do {
            _ = apply(source).start(next: { [tracker = DeinitTracker(released)] _ in
                withExtendedLifetime(tracker) {}
            })
        }
        XCTAssertEqual(released.count, 0, "\(name): released while the source holds it", file: file, line: line)
        held.swap(nil)
        XCTAssertEqual(released.count, 1, "\(name): not freed after the source let go", file: file, line: line)
    }
}
