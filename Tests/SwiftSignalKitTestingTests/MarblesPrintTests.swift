import XCTest
import SwiftSignalKitTesting

final class MarblesPrintTests: XCTestCase {
    typealias Timeline = MarbleTimeline<Character, String>

    func testEveryConstruct() {
        XCTAssertEqual(Marbles.print(Timeline([])), "")
        XCTAssertEqual(Marbles.print(Timeline([
            .next("a", at: 1), .next("b", at: 3), .next("c", at: 6), .completed(at: 7),
        ])), "-a-b--c|")
        XCTAssertEqual(Marbles.print(Timeline([.error("e", at: 2)])), "--#")
        XCTAssertEqual(Marbles.print(Timeline([
            .next("a", at: 0), .next("b", at: 0), .next("c", at: 2), .completed(at: 2),
        ])), "(ab)-(c|)")
        XCTAssertEqual(Marbles.print(Timeline([
            .next("a", at: -2), .next("b", at: 0), .completed(at: 1),
        ], subscriptionOffset: 4)), "--a-^b|")
    }

    func testSubscriptionPointWithoutEventsAfterIt() {
        XCTAssertEqual(Marbles.print(Timeline([], subscriptionOffset: 0)), "^")
        XCTAssertEqual(Marbles.print(Timeline([], subscriptionOffset: 2)), "--^")
        XCTAssertEqual(Marbles.print(Timeline([.next("a", at: -3)], subscriptionOffset: 3)), "a--^")
    }

    func testNegativeTimesWithoutAnOffsetGetASubscriptionPoint() {
        XCTAssertEqual(Marbles.print(Timeline([.next("a", at: -2), .next("b", at: 1)])), "a-^-b")
        XCTAssertEqual(Marbles.print(Timeline([.next("a", at: -2)], subscriptionOffset: 1)), "a-^",
                       "an event earlier than the offset moves the start")
    }

    func testEventsAreSortedStablyByTime() {
        XCTAssertEqual(Marbles.print(Timeline([
            .next("c", at: 2), .next("b", at: 0), .next("a", at: 0),
        ])), "(ba)-c")
    }

    func testWhatNoDiagramGivesIsShownAsItIs() {
        XCTAssertEqual(Marbles.print(Timeline([.completed(at: 0), .next("a", at: 1), .error("e", at: 1)])), "|(a#)")
    }

    func testValuesWithoutACharacterArePlaceholders() {
        let timeline = MarbleTimeline<Int, String>([.next(1, at: 0), .next(2, at: 1), .next(3, at: 1)])
        XCTAssertEqual(Marbles.print(timeline, values: { $0 == 1 ? "a" : nil }), "a(??)")
        XCTAssertEqual(Marbles.print(timeline, values: { $0 == 1 ? "-" : "b" }), "?(bb)",
                       "a character outside the grammar is a placeholder too")
        XCTAssertEqual(Marbles.placeholder, "?")
        XCTAssertThrowsError(try Marbles.parse("a(??)", values: ["a": 1], error: "e"),
                             "a diagram with a placeholder never parses")
    }

    func testPrintWithTheDictionaryOfParse() throws {
        let values: [Character: Int] = ["a": 1, "b": 2, "z": 1]
        let timeline = try Marbles.parse("-z-(b|)", values: values, error: "e")
        XCTAssertEqual(Marbles.print(timeline, values: values), "-a-(b|)",
                       "the smallest character of a value")
        XCTAssertEqual(Marbles.print(MarbleTimeline<Int, String>([.next(7, at: 0)]), values: values), "?")
    }

    func testMismatch() {
        XCTAssertEqual(Marbles.mismatch(expected: "-a-b--c|", actual: "-a-b---c|"), """
            expected: -a-b--c|
            actual:   -a-b---c|
            """)
    }

    func testMismatchAlignsSubscriptionPoints() {
        XCTAssertEqual(Marbles.mismatch(expected: "a-^b", actual: "^b"), """
            expected: a-^b
            actual:     ^b
            """)
        XCTAssertEqual(Marbles.mismatch(expected: "^-b", actual: "--^b"), """
            expected:   ^-b
            actual:   --^b
            """)
        XCTAssertEqual(Marbles.mismatch(expected: "^b", actual: "-b"), """
            expected: ^b
            actual:   -b
            """, "nothing to align with one `^`")
    }

    func testDifference() throws {
        let expected = try Marbles.parse("-a-b--c|", error: "e")
        XCTAssertNil(Marbles.difference(expected: expected, actual: expected))
        let actual = try Marbles.parse("-a-b---c|", error: "e")
        XCTAssertEqual(Marbles.difference(expected: expected, actual: actual), """
            expected: -a-b--c|
            actual:   -a-b---c|
            """)
    }

    /// A value without a character shows as `?`: the events follow, so
    /// that the message says what came out (before: only `-?-?|`).
    func testDifferenceShowsTheValuesWithoutACharacter() {
        let expected = MarbleTimeline<Int, String>([.next(10, at: 1), .next(20, at: 3), .completed(at: 4)])
        let actual = MarbleTimeline<Int, String>([.next(11, at: 1), .next(21, at: 3), .completed(at: 4)])
        let names: [Int: Character] = [10: "x", 20: "y"]
        XCTAssertEqual(Marbles.difference(expected: expected, actual: actual, values: { names[$0] }), """
            expected: -x-y|
            actual:   -?-?|
            a value has no character (?); the timelines:
            expected: \(expected)
            actual:   \(actual)
            """)
        XCTAssertTrue(Marbles.difference(expected: expected, actual: actual, values: { names[$0] })?.contains("11") == true)
    }

    func testDifferenceTheDiagramsDoNotShow() {
        let expected = MarbleTimeline<Int, String>([.error("timeout", at: 1)])
        let actual = MarbleTimeline<Int, String>([.error("cancelled", at: 1)])
        XCTAssertEqual(Marbles.difference(expected: expected, actual: actual, values: { _ in nil }), """
            expected: -#
            actual:   -#
            the diagrams are alike; the timelines:
            expected: [error(timeout)@1]
            actual:   [error(cancelled)@1]
            """)
    }
}
