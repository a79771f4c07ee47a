import XCTest
import SwiftSignalKit
import SwiftSignalKitTesting

final class MarblesParseTests: XCTestCase {
    typealias Event = TimelineEvent<Character, String>

    private func parse(_ diagram: String, file: StaticString = #filePath, line: UInt = #line) -> MarbleTimeline<Character, String>? {
        do {
            return try Marbles.parse(diagram, error: "e")
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testEmptyDiagramIsAnEmptyColdTimeline() {
        XCTAssertEqual(parse(""), MarbleTimeline([]))
        XCTAssertEqual(parse("---"), MarbleTimeline([]), "silence alone has no events")
    }

    func testValuesDashesAndCompletion() {
        XCTAssertEqual(parse("-a-b--c|"), MarbleTimeline([
            .next("a", at: 1), .next("b", at: 3), .next("c", at: 6), .completed(at: 7),
        ]))
        XCTAssertEqual(parse("ab"), MarbleTimeline([.next("a", at: 0), .next("b", at: 1)]),
                       "a value takes one frame")
        XCTAssertEqual(parse("|"), MarbleTimeline([.completed(at: 0)]))
        XCTAssertEqual(parse("0-9"), MarbleTimeline([.next("0", at: 0), .next("9", at: 2)]),
                       "digits are values as letters are")
    }

    func testError() {
        XCTAssertEqual(parse("--#"), MarbleTimeline([.error("e", at: 2)]))
        let timeline = try? Marbles.parse("a#", values: ["a": 1], error: 42)
        XCTAssertEqual(timeline, MarbleTimeline([.next(1, at: 0), .error(42, at: 1)]),
                       "`#` is the error given to parse")
    }

    func testSilenceAfterTheTerminalEventIsAllowed() {
        XCTAssertEqual(parse("a|--"), MarbleTimeline([.next("a", at: 0), .completed(at: 1)]))
        XCTAssertEqual(parse("#- -"), MarbleTimeline([.error("e", at: 0)]))
    }

    func testGroupSharesOneFrameAndTakesOneFrame() {
        XCTAssertEqual(parse("(ab)c"), MarbleTimeline([
            .next("a", at: 0), .next("b", at: 0), .next("c", at: 1),
        ]))
        XCTAssertEqual(parse("-(abc)-d"), MarbleTimeline([
            .next("a", at: 1), .next("b", at: 1), .next("c", at: 1), .next("d", at: 3),
        ]), "a group is one frame however wide it is written")
        XCTAssertEqual(parse("(a|)"), MarbleTimeline([.next("a", at: 0), .completed(at: 0)]))
        XCTAssertEqual(parse("-(a#)"), MarbleTimeline([.next("a", at: 1), .error("e", at: 1)]))
        XCTAssertEqual(parse("(a)b"), MarbleTimeline([.next("a", at: 0), .next("b", at: 1)]),
                       "a group of one is the event alone")
        XCTAssertEqual(parse("(ba)"), MarbleTimeline([.next("b", at: 0), .next("a", at: 0)]),
                       "a group keeps the written order")
    }

    func testSubscriptionPointMakesTimesRelative() {
        XCTAssertEqual(parse("--a-^b-c|"), MarbleTimeline([
            .next("a", at: -2), .next("b", at: 0), .next("c", at: 2), .completed(at: 3),
        ], subscriptionOffset: 4))
        XCTAssertEqual(parse("^"), MarbleTimeline([], subscriptionOffset: 0))
        XCTAssertEqual(parse("^a"), MarbleTimeline([.next("a", at: 0)], subscriptionOffset: 0),
                       "`^` takes no frame: the next character is at time 0")
        XCTAssertEqual(parse("a^"), MarbleTimeline([.next("a", at: -1)], subscriptionOffset: 1))
        XCTAssertEqual(parse("(ab)^(c|)"), MarbleTimeline([
            .next("a", at: -1), .next("b", at: -1), .next("c", at: 0), .completed(at: 0),
        ], subscriptionOffset: 1))
        XCTAssertNotEqual(parse("-^a"), parse("^a"), "the offset is part of the timeline")
    }

    func testSpacesAreIgnored() {
        XCTAssertEqual(parse("  -a - b|"), parse("-a-b|"))
        XCTAssertEqual(parse("( a b ) ^ c"), parse("(ab)^c"))
    }

    func testValuesFromTheDictionary() throws {
        let timeline = try Marbles.parse("a-b(ab)", values: ["a": 1, "b": 2], error: "e")
        XCTAssertEqual(timeline, MarbleTimeline([
            .next(1, at: 0), .next(2, at: 2), .next(1, at: 3), .next(2, at: 3),
        ]))
        let renamed = try Marbles.parse("ab", values: ["a": Character("x"), "b": "y"], error: "e")
        XCTAssertEqual(renamed, MarbleTimeline([.next("x", at: 0), .next("y", at: 1)]),
                       "with a dictionary, characters are looked up even as Character values")
    }

    func testSignalEventConversions() {
        let events: [TimelineEvent<Int, String>] = [.next(1, at: 0), .error("e", at: 1), .completed(at: 2)]
        for event in events {
            XCTAssertEqual(TimelineEvent(event.signalEvent, at: event.time), event)
        }
        XCTAssertEqual(events.map(\.kind.isTerminal), [false, true, true])
        XCTAssertEqual(events.map(\.description), ["next(1)@0", "error(e)@1", "completed@2"])
    }
}
