import XCTest
import SwiftSignalKitTesting

final class MarbleSyntaxErrorTests: XCTestCase {
    private func error(_ diagram: String, values: [Character: Int] = [:]) -> MarbleSyntaxError? {
        do {
            _ = try Marbles.parse(diagram, values: values, error: "e")
            return nil
        } catch {
            return error
        }
    }

    private func characterError(_ diagram: String) -> MarbleSyntaxError? {
        do {
            _ = try Marbles.parse(diagram, error: "e")
            return nil
        } catch {
            return error
        }
    }

    private func assertError(
        _ diagram: String, at position: Int, _ message: String,
        values: [Character: Int] = ["a": 1, "b": 2],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let error = error(diagram, values: values) else {
            XCTFail("`\(diagram)` parsed", file: file, line: line)
            return
        }
        XCTAssertEqual(error, MarbleSyntaxError(diagram: diagram, position: position, message: message),
                       file: file, line: line)
    }

    func testUnexpectedCharacter() {
        assertError("a-b!", at: 3, "unexpected character `!`")
        assertError("a\tb", at: 1, "unexpected character U+0009", values: ["a": 1, "b": 2])
        assertError("-a\r\n", at: 2, "unexpected character U+000D U+000A")
        assertError("(a?)", at: 2, "unexpected character `?`")
        assertError("-a-\u{2014}", at: 3, "unexpected character `\u{2014}`")
    }

    func testSecondSubscriptionPoint() {
        assertError("^-^", at: 2, "a second subscription point `^` (the first is at 0)")
    }

    func testSecondTerminalEvent() {
        assertError("a||", at: 2, "a second terminal event `|` (the first, `|`, is at 1)")
        assertError("a|-#", at: 3, "a second terminal event `#` (the first, `|`, is at 1)")
        assertError("(|#)", at: 2, "a second terminal event `#` (the first, `|`, is at 1)")
    }

    func testEventsAfterTheTerminalEvent() {
        assertError("a|b", at: 2, "the value `b` after the terminal event `|` at 1")
        assertError("#--a", at: 3, "the value `a` after the terminal event `#` at 0")
        assertError("(|a)", at: 2, "the value `a` after the terminal event `|` at 1")
        assertError("a|(b)", at: 2, "a group after the terminal event `|` at 1")
        assertError("a|^", at: 2, "the subscription point `^` after the terminal event `|` at 1")
    }

    func testInsideAGroup() {
        assertError("(a-b)", at: 2, "`-` inside the group opened at 0 (a group is one frame)")
        assertError("-(a^b)", at: 3, "`^` inside the group opened at 1")
        assertError("((a))", at: 1, "a group inside the group opened at 0")
    }

    func testUnbalancedAndEmptyGroups() {
        assertError("()", at: 0, "an empty group")
        assertError("a( )", at: 1, "an empty group")
        assertError("a)", at: 1, "`)` without `(`")
        assertError("(a))", at: 3, "`)` without `(`")
        assertError("-(ab", at: 1, "the group is never closed")
        assertError("(a)(b", at: 3, "the group is never closed")
    }

    func testValueWithoutAValue() {
        assertError("a-q", at: 2, "no value for `q`")
        assertError("(aq)", at: 2, "no value for `q`")
        assertError("a", at: 0, "no value for `a`", values: [:])
    }

    func testCharacterValuesAreTheirOwnOnlyWithoutADictionary() throws {
        XCTAssertNil(characterError("é1"), "any letter or digit is its own value")
        do {
            _ = try Marbles.parse("ab", values: ["a": Character("a")], error: "e")
            XCTFail("`b` has no value")
        } catch {
            XCTAssertEqual(error.position, 1)
            XCTAssertEqual(error.message, "no value for `b`")
        }
    }

    func testPositionsCountCharactersAndSpaces() {
        assertError("  a é!", at: 5, "unexpected character `!`", values: ["a": 1, "é": 2])
        assertError("👍", at: 0, "unexpected character `👍`")
    }

    func testTheFirstErrorIsReported() {
        assertError("!(", at: 0, "unexpected character `!`")
        assertError("a|b|", at: 2, "the value `b` after the terminal event `|` at 1")
    }

    func testDescriptionShowsACaretUnderTheCharacter() {
        let error = MarbleSyntaxError(diagram: "-a-!", position: 3, message: "unexpected character `!`")
        XCTAssertEqual(error.description, """
            marble diagram: unexpected character `!` at position 3:
              -a-!
                 ^
            """)
    }

    /// A control character would break the message's lines (the diagram on
    /// two lines, the caret under nothing): shown as its picture, one
    /// character, the caret still under the offending one.
    func testDescriptionShowsControlCharactersOnTheDiagramsLine() {
        guard let error = error("-a\n-!|\t", values: ["a": 1]) else {
            XCTFail("parsed")
            return
        }
        XCTAssertEqual(error.message, "unexpected character U+000A")
        XCTAssertEqual(error.description, """
            marble diagram: unexpected character U+000A at position 2:
              -a\u{240A}-!|\u{2409}
                ^
            """)
        XCTAssertEqual(error.description.split(separator: "\n").count, 3)
    }
}
