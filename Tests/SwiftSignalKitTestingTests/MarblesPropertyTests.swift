import XCTest
import SwiftSignalKitTestSupport
import SwiftSignalKitTesting

/// The draws the generators below need, over the support target's SplitMix64,
/// so that a seed replays the same case on any toolchain and platform.
struct SeededGenerator {
    private var generator: SplitMix64

    init(seed: UInt64) {
        self.generator = SplitMix64(state: seed)
    }

    mutating func next() -> UInt64 {
        return self.generator.next()
    }

    /// A number in 0 ..< bound.
    mutating func below(_ bound: Int) -> Int {
        return self.generator.below(bound)
    }

    mutating func oneIn(_ n: Int) -> Bool {
        return self.below(n) == 0
    }
}

/// Random timelines and diagrams, printed and parsed back. Each case has its
/// own seed (`baseSeed + case`), shown when it fails, so that one case can be
/// replayed alone with `timeline(seed:)` or `diagram(seed:)`.
final class MarblesPropertyTests: XCTestCase {
    static let baseSeed: UInt64 = 0x5EED_0000
    static let cases: UInt64 = 2000
    static let alphabet: [Character] = Array("abcxyz0189")
    static let values: [Character: Int] = Dictionary(
        uniqueKeysWithValues: alphabet.enumerated().map { ($0.element, $0.offset) })

    /// A timeline that a diagram could give: gaps, values, groups, maybe a
    /// terminal event (maybe sharing the last frame), maybe a subscription
    /// point anywhere up to the terminal event, or after the last event.
    static func timeline(seed: UInt64) -> MarbleTimeline<Int, String> {
        var random = SeededGenerator(seed: seed)
        var events: [(frame: Int, kind: TimelineEvent<Int, String>.Kind)] = []
        var frame = 0
        for _ in 0 ..< random.below(10) {
            switch random.below(4) {
            case 0:
                frame += 1 + random.below(3)
            case 1, 2:
                events.append((frame, .next(random.below(alphabet.count))))
                frame += 1
            default:
                for _ in 0 ..< 2 + random.below(2) {
                    events.append((frame, .next(random.below(alphabet.count))))
                }
                frame += 1
            }
        }
        var end = frame + random.below(3)
        switch random.below(3) {
        case 0:
            break
        case let kind:
            // In the last event's frame, or after it.
            let at = !events.isEmpty && random.oneIn(3) ? events[events.count - 1].frame : frame
            events.append((at, kind == 1 ? .completed : .error("e")))
            end = at
        }
        let subscription = random.oneIn(2) ? random.below(end + 1) : nil
        let origin = subscription ?? 0
        return MarbleTimeline(
            events.map { TimelineEvent(time: $0.frame - origin, kind: $0.kind) },
            subscriptionOffset: subscription)
    }

    /// A canonical diagram: no spaces, groups of two events or more, nothing
    /// after the terminal event, no `-` at the end.
    static func diagram(seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        func value() -> String {
            return String(alphabet[random.below(alphabet.count)])
        }
        var tokens: [String] = []
        for _ in 0 ..< random.below(10) {
            switch random.below(4) {
            case 0:
                tokens.append(String(repeating: "-", count: 1 + random.below(3)))
            case 1, 2:
                tokens.append(value())
            default:
                tokens.append("(" + (0 ..< 2 + random.below(2)).map { _ in value() }.joined() + ")")
            }
        }
        if random.oneIn(2) {
            tokens.insert("^", at: random.below(tokens.count + 1))
        }
        let terminal = random.oneIn(2) ? "|" : "#"
        switch random.below(4) {
        case 0:
            tokens.append(terminal)
        case 1:
            tokens.append("(" + (0 ..< 1 + random.below(2)).map { _ in value() }.joined() + terminal + ")")
        default:
            break
        }
        var diagram = tokens.joined()
        while diagram.last == "-" {
            diagram.removeLast()
        }
        return diagram
    }

    /// `diagram` with spaces here and there and silence at the end.
    static func noisy(_ diagram: String, seed: UInt64) -> String {
        var random = SeededGenerator(seed: ~seed)
        var noisy = ""
        for character in diagram {
            if random.oneIn(4) {
                noisy.append(" ")
            }
            noisy.append(character)
        }
        return noisy + String(repeating: "-", count: random.below(3))
    }

    func testParseOfPrintIsTheTimeline() {
        for seed in Self.baseSeed ..< Self.baseSeed + Self.cases {
            let timeline = Self.timeline(seed: seed)
            let diagram = Marbles.print(timeline, values: Self.values)
            do {
                let parsed = try Marbles.parse(diagram, values: Self.values, error: "e")
                if let difference = Marbles.difference(expected: timeline, actual: parsed, values: { Self.alphabet[$0] }) {
                    XCTFail("seed \(seed): `\(diagram)` parses to another timeline\n\(difference)")
                    return
                }
            } catch {
                XCTFail("seed \(seed): `\(diagram)` of \(timeline) does not parse\n\(error)")
                return
            }
        }
    }

    func testPrintOfParseIsTheDiagram() {
        for seed in Self.baseSeed ..< Self.baseSeed + Self.cases {
            let diagram = Self.diagram(seed: seed)
            do {
                // Half the cases with characters as their own values.
                let printed = seed % 2 == 0
                    ? Marbles.print(try Marbles.parse(diagram, error: "e"))
                    : Marbles.print(try Marbles.parse(diagram, values: Self.values, error: "e"), values: Self.values)
                if printed != diagram {
                    XCTFail("seed \(seed): `\(diagram)` prints back differently\n"
                        + Marbles.mismatch(expected: diagram, actual: printed))
                    return
                }
            } catch {
                XCTFail("seed \(seed): `\(diagram)` does not parse\n\(error)")
                return
            }
        }
    }

    func testSpacesAndTrailingSilenceDoNotChangeTheTimeline() {
        for seed in Self.baseSeed ..< Self.baseSeed + Self.cases {
            let diagram = Self.diagram(seed: seed)
            let noisy = Self.noisy(diagram, seed: seed)
            do {
                let printed = Marbles.print(try Marbles.parse(noisy, error: "e"))
                if printed != diagram {
                    XCTFail("seed \(seed): `\(noisy)` prints as another diagram\n"
                        + Marbles.mismatch(expected: diagram, actual: printed))
                    return
                }
            } catch {
                XCTFail("seed \(seed): `\(noisy)` does not parse\n\(error)")
                return
            }
        }
    }

    func testTheGeneratorsCoverEveryConstruct() {
        let diagrams = (Self.baseSeed ..< Self.baseSeed + Self.cases).map { Self.diagram(seed: $0) }
        let timelines = (Self.baseSeed ..< Self.baseSeed + Self.cases).map {
            Marbles.print(Self.timeline(seed: $0), values: Self.values)
        }
        for generated in [diagrams, timelines] {
            for construct in ["-", "(", "^", "|", "#", "|)", "#)", "^|", "-^", "^-"] {
                XCTAssertTrue(generated.contains { $0.contains(construct) }, "no `\(construct)` generated")
            }
            XCTAssertTrue(generated.contains(""), "no empty diagram generated")
            XCTAssertTrue(generated.contains { $0.hasSuffix("^") }, "no `^` at the end generated")
            XCTAssertTrue(generated.contains { $0.hasPrefix("-") && $0.contains("^") },
                          "no silence before the first event of a hot diagram")
        }
    }
}
