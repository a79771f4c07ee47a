import Foundation
import XCTest
import SwiftSignalKit
import SwiftSignalKitTesting

/// Runs every case of the shared marble table (`Tests/marbles/*.marbles`,
/// format in `Tests/marbles/README.md`) through the Swift operators on a
/// virtual-time queue. The C, C++ and Python suites run the same table
/// through their bindings; a case's expectations are the library's
/// contract, whatever the language.
///
/// With `SIGNALKIT_MARBLE_DUMP=PATH` in the environment, the run also writes
/// to PATH, as JSON, what each case played and recorded (its inputs' events,
/// the frames each input was subscribed, and the events the subscriber
/// received): `make docs` draws the operators' marble pictures from it
/// (tools/docs/marbles.py), so a picture shows what ran, never the `out` line.
///
/// A case's bounded operator gives its drops to a recording compared with
/// the case's `dropped` line (README.md's "Bounded operators"); where its
/// policy ends the stream, the `out` line's `#` is its overflow error.
///
/// A case where a callback fails (`!`, the README's "Functions"): a signal
/// function returns a failing signal, whose error the `out` line's `#` must
/// be; Swift's other closures cannot fail, so those cases are left to what
/// Swift can express, each named with why, counted, and not in the dump.
final class MarbleTableTests: XCTestCase {
    func testEveryCaseOfTheSharedTable() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("marbles")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".marbles") }
            .sorted()
        XCTAssertFalse(files.isEmpty, "no .marbles file in \(directory.path)")
        var names = Set<String>()
        var count = 0
        var left: [String] = []
        let dumpPath = ProcessInfo.processInfo.environment["SIGNALKIT_MARBLE_DUMP"].flatMap { $0.isEmpty ? nil : $0 }
        var dump: [[String: Any]] = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let cases: [MarbleCase]
            do {
                cases = try MarbleCase.parse(text, file: file)
            } catch {
                XCTFail(error.message)
                continue
            }
            for marbleCase in cases {
                XCTAssertTrue(names.insert(marbleCase.name).inserted, "\(marbleCase.location): the case name \(marbleCase.name) is used twice")
                count += 1
                do {
                    if let failure = try marbleCase.run(recording: dumpPath == nil ? nil : { dump.append($0) }) {
                        XCTFail("\(marbleCase.location) \(marbleCase.name):\n\(failure)")
                    }
                } catch where error.left {
                    left.append("\(marbleCase.location) \(marbleCase.name): \(error.message)")
                } catch {
                    XCTFail("\(marbleCase.location) \(marbleCase.name): \(error.message)")
                }
            }
        }
        XCTAssertGreaterThan(count, 0)
        XCTAssertLessThan(left.count, count)
        print("marble table: \(count) cases, \(count - left.count) played, \(left.count) left to what Swift can express:\n  "
            + left.joined(separator: "\n  "))
        if let dumpPath {
            XCTAssertEqual(dump.count, count - left.count, "every case played is in the dump")
            let data = try JSONSerialization.data(withJSONObject: ["cases": dump], options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: dumpPath))
        }
    }

    /// The parser refuses what the format does not allow, naming the line.
    func testTheParserNamesTheLineOfAMistake() {
        let texts = [
            "case x\nin a -1|\nout -1|\n",                   // no end
            "case x\nin a -1|\nop nosuch\nout -1|\nend\n",  // unknown operator: at run time
            "in a -1|\n",                                    // outside a case
            "case x\nvalue ab 1\nend\n",                     // a value character is one character
        ]
        for (index, text) in texts.enumerated() {
            do {
                let cases = try MarbleCase.parse(text, file: "t\(index)")
                XCTAssertThrowsError(try cases.first?.run(), "text \(index)")
            } catch {
                XCTAssertTrue(error.message.hasPrefix("t\(index):"), error.message)
            }
        }
    }
}

/// A mistake in the table (or an operator the runner does not know), or,
/// `left`, a case Swift cannot express.
struct MarbleTableError: Error {
    let message: String
    var left = false
}

/// An error of the table: the one every input's `#` emits ("boom"), or the
/// failure of a callback (`!`).
struct MarbleFailure: Error, Equatable, CustomStringConvertible {
    var message = "boom"

    var description: String {
        return self.message
    }
}

/// The callbacks of a case that fail (`!`): the failures they gave, in
/// order. Used on the thread that runs the virtual clock.
final class MarbleFailures {
    var raised: [MarbleFailure] = []

    /// A signal function's failure, called with the value `at`: a signal
    /// that fails with it.
    func fail(at: String) -> MarbleSignal {
        let failure = MarbleFailure(message: "marble callback failed at \(at)")
        self.raised.append(failure)
        return MarbleSignal.fail(failure)
    }
}

/// The case's bounded operator (README.md's `dropped`): every value its
/// drop callback receives, put into `drops` (recorded with its frame), the
/// error its policy ends the stream with (`error`, `block`), and the
/// host-drained queues it delivers on (`deliverOnBounded N P host F...`),
/// closed when the case ends. Used on the thread that runs the virtual clock.
final class MarbleBounded {
    let scheduler: TestScheduler
    let drops = ValuePipe<MarbleValue>()
    /// Whether the case has a bounded operator.
    var used = false
    /// The error its `#` must be, when its policy is `error` or `block`.
    var overflowError: MarbleFailure?
    var hostQueues: [Queue] = []
    /// The inputs a bounded operator of a signal of signals maps its
    /// upstream's values to, where its drop callback finds a dropped one.
    var upstreamSignals: [MarbleSignal] = []

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// The drop callback of the case's bounded operator.
    func onDrop(_ value: MarbleValue, _ count: Int) {
        self.drops.putNext(value)
    }

    /// A policy by the table's name: `error` ends the stream with the error
    /// "overflow", `block` (which cannot wait on the virtual clock's one
    /// thread) with "cannot block".
    func overflow(_ name: String, _ operation: MarbleCase.Operation) throws(MarbleTableError) -> SignalOverflow<MarbleFailure> {
        self.used = true
        let failure: (SignalOverflowError) -> MarbleFailure = { error in
            MarbleFailure(message: error.reason == .overflow ? "overflow" : "cannot block")
        }
        switch name {
        case "dropNewest":
            return .dropNewest
        case "dropOldest":
            return .dropOldest
        case "latest":
            return .latest
        case "error":
            self.overflowError = MarbleFailure(message: "overflow")
            return .fail(failure)
        case "block":
            self.overflowError = MarbleFailure(message: "cannot block")
            return .block(refused: failure)
        default:
            throw MarbleTableError(message: "line \(operation.line): `\(name)` is no policy (dropNewest, dropOldest, latest, error, block)")
        }
    }

    /// A host-drained queue drained at each of `frames`.
    func hostQueue(drainedAt frames: [Int]) throws(MarbleTableError) -> Queue {
        let queue: Queue
        do {
            queue = try Queue.makeHostDrained(name: "marble host")
        } catch {
            throw MarbleTableError(message: "no host-drained queue: \(error)")
        }
        self.hostQueues.append(queue)
        for frame in frames {
            self.scheduler.schedule(at: frame) {
                _ = try? queue.drain()
            }
        }
        return queue
    }

    func close() {
        for queue in self.hostQueues {
            queue.closeHostDrained()
        }
    }
}

/// The first input of a case with a `during` line: its subscriber, to put
/// values into from inside a delivery, and what was put, with its frames.
final class MarbleFeed {
    let scheduler: TestScheduler
    var subscriber: Subscriber<MarbleValue, MarbleFailure>?
    var put: [(frame: Int, value: MarbleValue)] = []

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// `signal`, whose latest subscriber is kept.
    func wrap(_ signal: MarbleSignal) -> MarbleSignal {
        return MarbleSignal { [self] subscriber in
            self.subscriber = subscriber
            return signal.start(next: { subscriber.putNext($0) }, error: { subscriber.putError($0) }, completed: { subscriber.putCompletion() })
        }
    }

    func put(_ values: [MarbleValue]) {
        for value in values {
            self.put.append((self.scheduler.now, value))
            self.subscriber?.putNext(value)
        }
    }
}

/// A value of the table: an integer, or a list of them (what `zip`,
/// `pairwise`, `withLatestFrom`, `buffer`... emit).
enum MarbleValue: Equatable, CustomStringConvertible {
    case int(Int)
    case list([Int])

    var description: String {
        switch self {
        case let .int(value):
            return "\(value)"
        case let .list(values):
            return "[" + values.map { "\($0)" }.joined(separator: ",") + "]"
        }
    }

    /// The integer; a list counts as 0 (the case's expectations then fail,
    /// and say why).
    var int: Int {
        if case let .int(value) = self {
            return value
        }
        return 0
    }

    /// Flattened: an integer is a list of one.
    var ints: [Int] {
        switch self {
        case let .int(value):
            return [value]
        case let .list(values):
            return values
        }
    }

    static func parse(_ text: String) -> MarbleValue? {
        if let value = Int(text) {
            return .int(value)
        }
        guard text.hasPrefix("["), text.hasSuffix("]") else {
            return nil
        }
        let inner = text.dropFirst().dropLast()
        if inner.isEmpty {
            return .list([])
        }
        var values: [Int] = []
        for part in inner.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Int(part) else {
                return nil
            }
            values.append(value)
        }
        return .list(values)
    }

    static func pair(_ a: MarbleValue, _ b: MarbleValue) -> MarbleValue {
        return .list(a.ints + b.ints)
    }
}

typealias MarbleSignal = Signal<MarbleValue, MarbleFailure>

/// One case of the table, as parsed.
struct MarbleCase {
    struct Input {
        let name: String
        let diagram: String
        let hot: Bool
    }

    struct Operation {
        let name: String
        let arguments: [String]
        let line: Int
    }

    let name: String
    let location: String
    var inputs: [Input] = []
    var values: [Character: MarbleValue] = [:]
    var operations: [Operation] = []
    var expected: String?
    var subscriptions: [(input: String, log: SubscriptionLog)] = []
    var disposeAt: Int?
    var neverSubscribed: [String] = []
    /// More subscribers of the same signal: from, to (nil: never disposed),
    /// expected diagram.
    var others: [(from: Int, to: Int?, expected: String)] = []
    /// What the bounded operator's drop callback must receive (`dropped`).
    var dropped: String?
    /// `during C XYZ`: the values put into the first input from inside the
    /// subscriber's call with C's value.
    var during: (trigger: Character, puts: [Character])?
    /// `fails C`: the subscriber's value callback fails at C's value, which
    /// a Swift subscriber cannot (its closures cannot throw): left.
    var failsAt: Character?

    init(name: String, location: String) {
        self.name = name
        self.location = location
    }

    /// The cases of one file, in order.
    static func parse(_ text: String, file: String) throws(MarbleTableError) -> [MarbleCase] {
        var cases: [MarbleCase] = []
        var current: MarbleCase?
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            let where_ = "\(file):\(line)"
            let trimmed = rawLine.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") {
                continue
            }
            let words = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let keyword = words[0]
            if keyword == "case" {
                if current != nil {
                    throw MarbleTableError(message: "\(where_): `case` inside a case (the one before has no `end`)")
                }
                guard words.count == 2 else {
                    throw MarbleTableError(message: "\(where_): `case` takes one name")
                }
                current = MarbleCase(name: words[1], location: where_)
                continue
            }
            guard var building = current else {
                throw MarbleTableError(message: "\(where_): `\(keyword)` outside a case")
            }
            /// The rest of the line after the first `count` words.
            func rest(after count: Int) -> String {
                var remainder = Substring(trimmed)
                for _ in 0 ..< count {
                    remainder = remainder.drop(while: { $0 != " " }).drop(while: { $0 == " " })
                }
                return String(remainder)
            }
            switch keyword {
            case "in", "hot":
                guard words.count >= 3 else {
                    throw MarbleTableError(message: "\(where_): `\(keyword)` takes a name and a diagram")
                }
                building.inputs.append(Input(name: words[1], diagram: rest(after: 2), hot: keyword == "hot"))
            case "value":
                guard words.count == 3, words[1].count == 1, let value = MarbleValue.parse(words[2]) else {
                    throw MarbleTableError(message: "\(where_): `value` takes one character and an integer or a list like [1,2]")
                }
                building.values[words[1].first!] = value
            case "op":
                guard words.count >= 2 else {
                    throw MarbleTableError(message: "\(where_): `op` takes an operator")
                }
                building.operations.append(Operation(name: words[1], arguments: Array(words.dropFirst(2)), line: line))
            case "out":
                building.expected = rest(after: 1)
            case "sub":
                if words.count == 3 && words[2] == "never" {
                    building.neverSubscribed.append(words[1])
                    break
                }
                guard words.count == 4, let from = Int(words[2]), words[3] == "-" || Int(words[3]) != nil else {
                    throw MarbleTableError(message: "\(where_): `sub` takes an input, the frame subscribed and the frame disposed (or -)")
                }
                building.subscriptions.append((words[1], SubscriptionLog(subscribed: from, disposed: Int(words[3]))))
            case "also":
                guard words.count >= 4, let from = Int(words[1]), words[2] == "-" || Int(words[2]) != nil else {
                    throw MarbleTableError(message: "\(where_): `also` takes the frame subscribed, the frame disposed (or -) and a diagram")
                }
                building.others.append((from, Int(words[2]), rest(after: 3)))
            case "dropped":
                building.dropped = rest(after: 1)
            case "during":
                guard words.count == 3, words[1].count == 1 else {
                    throw MarbleTableError(message: "\(where_): `during` takes a value's character and the characters of the values put")
                }
                building.during = (words[1].first!, Array(words[2]))
            case "fails":
                guard words.count == 2, words[1].count == 1 else {
                    throw MarbleTableError(message: "\(where_): `fails` takes a value's character")
                }
                building.failsAt = words[1].first!
            case "dispose":
                guard words.count == 2, let frame = Int(words[1]) else {
                    throw MarbleTableError(message: "\(where_): `dispose` takes a frame")
                }
                building.disposeAt = frame
            case "end":
                guard building.expected != nil, !building.inputs.isEmpty else {
                    throw MarbleTableError(message: "\(where_): the case has no `in` or no `out`")
                }
                cases.append(building)
                current = nil
                continue
            default:
                throw MarbleTableError(message: "\(where_): unknown keyword `\(keyword)`")
            }
            current = building
        }
        if let current {
            throw MarbleTableError(message: "\(file): the case \(current.name) has no `end`")
        }
        return cases
    }

    /// The value of each character: the case's `value` lines, and the digits
    /// as themselves.
    var characterValues: [Character: MarbleValue] {
        var values = self.values
        for digit in 0 ... 9 {
            let character = Character("\(digit)")
            if values[character] == nil {
                values[character] = .int(digit)
            }
        }
        return values
    }

    /// Runs the case; returns what differs from the expectations (nil when
    /// all hold). `recording`, when given, receives what ran, as a JSON
    /// object (see `recordingJSON`).
    func run(recording: (([String: Any]) -> Void)? = nil) throws(MarbleTableError) -> String? {
        if let failsAt = self.failsAt {
            throw MarbleTableError(message: "`fails \(failsAt)`: a Swift subscriber's closures cannot fail (SwiftSignalKit's API: a failure is an error of the signal's type)", left: true)
        }
        let scheduler = TestScheduler()
        let values = self.characterValues
        var sources: [String: TestSignal<MarbleValue, MarbleFailure>] = [:]
        for input in self.inputs {
            do {
                if input.hot {
                    sources[input.name] = try scheduler.hot(input.diagram, values: values, error: MarbleFailure())
                } else {
                    sources[input.name] = try scheduler.cold(input.diagram, values: values, error: MarbleFailure())
                }
            } catch {
                throw MarbleTableError(message: "input \(input.name): \(error)")
            }
        }
        var signal = sources[self.inputs[0].name]!.signal
        // `during`: the first input, with the values the subscriber puts
        // into it from inside its call (recorded with their frames).
        let feed = MarbleFeed(scheduler: scheduler)
        if self.during != nil {
            signal = feed.wrap(signal)
        }
        let callbackFailures = MarbleFailures()
        let bounded = MarbleBounded(scheduler: scheduler)
        defer {
            bounded.close()
        }
        for operation in self.operations {
            signal = try MarbleOperators.apply(operation, to: signal, inputs: sources, scheduler: scheduler, failures: callbackFailures, bounded: bounded)
        }
        if let during = self.during {
            guard let trigger = values[during.trigger] else {
                throw MarbleTableError(message: "`during`: `\(during.trigger)` stands for no value")
            }
            var puts: [MarbleValue] = []
            for character in during.puts {
                guard let value = values[character] else {
                    throw MarbleTableError(message: "`during`: `\(character)` stands for no value")
                }
                puts.append(value)
            }
            var done = false
            signal = signal |> afterNext { value in
                if !done && value == trigger {
                    done = true
                    feed.put(puts)
                }
            }
        }
        if self.dropped != nil && !bounded.used {
            throw MarbleTableError(message: "`dropped` in a case without a bounded operator")
        }
        let failing = self.operations.contains { $0.arguments.contains { $0.contains("!") } }
        let dropRecorder = bounded.used ? scheduler.record(bounded.drops.signal() |> castError(MarbleFailure.self)) : nil
        let recorder = scheduler.record(signal, disposeAt: self.disposeAt)
        let others = self.others.map { other in
            (scheduler.record(signal, subscribeAt: other.from, disposeAt: other.to), other.expected)
        }
        do {
            try scheduler.run()
        } catch {
            throw MarbleTableError(message: "virtual time: \(error)")
        }
        var failures: [String] = []
        // Where a callback fails, the `out` line's `#` is its failure.
        if failing && callbackFailures.raised.isEmpty {
            failures.append("no callback failed: the `!` was never reached")
        }
        // Where the bounded operator's policy ends the stream, its `#` is
        // that operator's overflow error.
        let expectedError = failing ? callbackFailures.raised.first ?? MarbleFailure(message: "no callback failed")
            : bounded.overflowError ?? MarbleFailure()
        if let mismatch = recorder.mismatch(self.expected!, values: values, error: expectedError) {
            failures.append(mismatch)
        }
        if let dropRecorder, let mismatch = dropRecorder.mismatch(self.dropped ?? "", values: values, error: MarbleFailure()) {
            failures.append("dropped:\n" + mismatch)
        }
        for (index, (other, expected)) in others.enumerated() {
            if let mismatch = other.mismatch(expected, values: values, error: MarbleFailure()) {
                failures.append("subscriber \(index + 2):\n" + mismatch)
            }
        }
        var byInput: [String: [SubscriptionLog]] = [:]
        for (input, log) in self.subscriptions {
            byInput[input, default: []].append(log)
        }
        for input in self.neverSubscribed {
            byInput[input] = []
        }
        for (input, expected) in byInput.sorted(by: { $0.key < $1.key }) {
            guard let source = sources[input] else {
                throw MarbleTableError(message: "`sub` names no input: \(input)")
            }
            if source.subscriptions != expected {
                failures.append("subscriptions of \(input): expected \(expected), got \(source.subscriptions)")
            }
        }
        recording?(self.recordingJSON(sources: sources, recorder: recorder, others: others.map(\.0), drops: dropRecorder, during: feed.put))
        recorder.dispose()
        dropRecorder?.dispose()
        for (other, _) in others {
            other.dispose()
        }
        return failures.isEmpty ? nil : failures.joined(separator: "\n")
    }

    /// What the case ran, for the pictures: its operators (`op` lines), each
    /// input's events as its diagram gives them (`t` in frames from its
    /// subscription point) with the frames it was subscribed and disposed
    /// (and, for the first input, `during`: the values put into it from
    /// inside the delivery of the value `on`, `t` in frames of the clock),
    /// the events each subscriber recorded (`t` in frames of the clock),
    /// and, in a case with a bounded operator, `dropped`: what its drop
    /// callback received.
    func recordingJSON(
        sources: [String: TestSignal<MarbleValue, MarbleFailure>],
        recorder: TestRecorder<MarbleValue, MarbleFailure>,
        others: [TestRecorder<MarbleValue, MarbleFailure>],
        drops: TestRecorder<MarbleValue, MarbleFailure>?,
        during: [(frame: Int, value: MarbleValue)]
    ) -> [String: Any] {
        func events(_ timeline: MarbleTimeline<MarbleValue, MarbleFailure>) -> [[String: Any]] {
            return timeline.events.map { event in
                switch event.kind {
                case let .next(value):
                    return ["t": event.time, "kind": "next", "value": value.description]
                case .error:
                    return ["t": event.time, "kind": "error"]
                case .completed:
                    return ["t": event.time, "kind": "completed"]
                }
            }
        }
        let inputs: [[String: Any]] = self.inputs.enumerated().map { index, input in
            let source = sources[input.name]!
            var item: [String: Any] = [
                "name": input.name,
                "hot": input.hot,
                "events": events(source.timeline),
                "subscriptions": source.subscriptions.map { log -> [String: Any] in
                    ["from": log.subscribed, "to": log.disposed.map { $0 as Any } ?? NSNull()]
                },
            ]
            if index == 0, let trigger = self.during.flatMap({ self.characterValues[$0.trigger] }) {
                item["during"] = during.map {
                    ["t": $0.frame, "kind": "next", "value": $0.value.description, "on": trigger.description]
                }
            }
            return item
        }
        var subscribers: [[String: Any]] = [[
            "from": 0, "to": self.disposeAt.map { $0 as Any } ?? NSNull(), "events": events(recorder.timeline),
        ]]
        for (other, recorded) in zip(self.others, others) {
            subscribers.append(["from": other.from, "to": other.to.map { $0 as Any } ?? NSNull(), "events": events(recorded.timeline)])
        }
        var recorded: [String: Any] = [
            "name": self.name,
            "location": self.location,
            "operators": self.operations.map { ([$0.name] + $0.arguments).joined(separator: " ") },
            "inputs": inputs,
            "subscribers": subscribers,
        ]
        if let drops {
            recorded["dropped"] = events(drops.timeline).map { ["t": $0["t"]!, "value": $0["value"]!] }
        }
        return recorded
    }
}
