import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Random scripts over the three subjects (`ValuePromise`, `Promise`,
/// `ValuePipe`), which the model-based tester of `Model/` does not generate:
/// subscribe, dispose, set (or put), and, from inside a subscriber's callback,
/// set again or dispose itself. Each script runs through the library and
/// through a small model of the documented semantics; what every subscriber
/// receives, in order, must be the same.
///
/// The model: the subject keeps the latest value (a `ValuePromise` and a
/// `Promise` always, a `ValuePipe` only with replay), a new subscriber receives
/// it at once, and a set (a put) delivers the value to the subscribers live at
/// that moment, in the order they subscribed, skipping those disposed before
/// their turn. A `ValuePromise` with `ignoreRepeated` drops a set equal to the
/// latest value. A `Promise.set` forgets the latest value first, then follows
/// the signal it is given. A set made from inside a callback is delivered
/// after the current delivery (every subscriber sees the values in the same
/// order).
final class SubjectModelTests: XCTestCase {
    enum Kind: CustomStringConvertible {
        case valuePromise(ignoreRepeated: Bool, initial: Int?)
        case promise(initial: Int?)
        case pipe(replay: Bool)

        var description: String {
            switch self {
            case let .valuePromise(ignoreRepeated, initial):
                return "ValuePromise(ignoreRepeated: \(ignoreRepeated), initial: \(String(describing: initial)))"
            case let .promise(initial):
                return "Promise(initial: \(String(describing: initial)))"
            case let .pipe(replay):
                return "ValuePipe(replay: \(replay))"
            }
        }
    }

    enum Step: CustomStringConvertible {
        case subscribe
        case dispose(Int)
        case set(Int)
        /// Promise only: `set(.never())`, which forgets the latest value.
        case setNever
        /// The next time subscriber `id` receives a value, it sets `value`.
        case setOnNext(id: Int, value: Int)
        /// The next time subscriber `id` receives a value, it disposes itself.
        case disposeOnNext(id: Int)

        var description: String {
            switch self {
            case .subscribe:
                return "subscribe"
            case let .dispose(id):
                return "dispose(\(id))"
            case let .set(value):
                return "set(\(value))"
            case .setNever:
                return "set(.never())"
            case let .setOnNext(id, value):
                return "setOnNext(\(id), \(value))"
            case let .disposeOnNext(id):
                return "disposeOnNext(\(id))"
            }
        }
    }

    /// What each subscriber received, as "id:value", in order.
    typealias Outcome = [String]

    // MARK: the model

    final class Model {
        let kind: Kind
        var latest: Int?
        var subscribers: [Int] = []
        var live: Set<Int> = []
        var setOnNext: [Int: Int] = [:]
        var disposeOnNext: Set<Int> = []
        var pending: [Int] = []
        var delivering = false
        var outcome: Outcome = []

        init(_ kind: Kind) {
            self.kind = kind
            switch kind {
            case let .valuePromise(_, initial), let .promise(initial):
                self.latest = initial
            case .pipe:
                self.latest = nil
            }
        }

        var keepsLatest: Bool {
            if case let .pipe(replay) = self.kind {
                return replay
            }
            return true
        }

        func receive(_ id: Int, _ value: Int) {
            guard self.live.contains(id) else {
                return
            }
            self.outcome.append("\(id):\(value)")
            if let next = self.setOnNext.removeValue(forKey: id) {
                self.set(next)
            }
            if self.disposeOnNext.remove(id) != nil {
                self.live.remove(id)
            }
        }

        func subscribe(_ id: Int) {
            self.subscribers.append(id)
            self.live.insert(id)
            if let latest = self.latest {
                self.receive(id, latest)
            }
        }

        func set(_ value: Int) {
            if case let .valuePromise(ignoreRepeated, _) = self.kind, ignoreRepeated, self.latest == value {
                return
            }
            if self.keepsLatest {
                self.latest = value
            }
            self.pending.append(value)
            if self.delivering {
                return
            }
            self.delivering = true
            while !self.pending.isEmpty {
                let next = self.pending.removeFirst()
                for id in self.subscribers where self.live.contains(id) {
                    self.receive(id, next)
                }
            }
            self.delivering = false
        }

        func run(_ script: [Step]) -> Outcome {
            var nextId = 0
            for step in script {
                switch step {
                case .subscribe:
                    self.subscribe(nextId)
                    nextId += 1
                case let .dispose(id):
                    self.live.remove(id)
                case let .set(value):
                    self.set(value)
                case .setNever:
                    self.latest = nil
                case let .setOnNext(id, value):
                    self.setOnNext[id] = value
                case let .disposeOnNext(id):
                    self.disposeOnNext.insert(id)
                }
            }
            return self.outcome
        }
    }

    // MARK: the library

    static func runLibrary(_ kind: Kind, _ script: [Step]) -> Outcome {
        var outcome: Outcome = []
        let signal: () -> Signal<Int, NoError>
        let set: (Int) -> Void
        var setNever: () -> Void = {}
        // The subjects outlive the run (released at the end).
        var keep: [AnyObject] = []
        switch kind {
        case let .valuePromise(ignoreRepeated, initial):
            let promise = initial.map { ValuePromise($0, ignoreRepeated: ignoreRepeated) } ?? ValuePromise<Int>(ignoreRepeated: ignoreRepeated)
            keep.append(promise)
            signal = { promise.get() }
            set = { promise.set($0) }
        case let .promise(initial):
            let promise = initial.map { Promise($0) } ?? Promise<Int>()
            keep.append(promise)
            signal = { promise.get() }
            set = { promise.set(.single($0)) }
            setNever = { promise.set(.never()) }
        case let .pipe(replay):
            let pipe = ValuePipe<Int>(replay: replay)
            keep.append(pipe)
            signal = { pipe.signal() }
            set = { pipe.putNext($0) }
        }
        var disposables: [Int: any Disposable] = [:]
        var setOnNext: [Int: Int] = [:]
        var disposeOnNext: Set<Int> = []
        var nextId = 0
        for step in script {
            switch step {
            case .subscribe:
                let id = nextId
                nextId += 1
                disposables[id] = signal().start(next: { value in
                    outcome.append("\(id):\(value)")
                    if let next = setOnNext.removeValue(forKey: id) {
                        set(next)
                    }
                    if disposeOnNext.remove(id) != nil {
                        disposables[id]?.dispose()
                    }
                })
            case let .dispose(id):
                disposables[id]?.dispose()
            case let .set(value):
                set(value)
            case .setNever:
                setNever()
            case let .setOnNext(id, value):
                setOnNext[id] = value
            case let .disposeOnNext(id):
                disposeOnNext.insert(id)
            }
        }
        for disposable in disposables.values {
            disposable.dispose()
        }
        withExtendedLifetime(keep) {}
        return outcome
    }

    // MARK: the generator

    static func makeCase(_ random: inout SplitMix64) -> (Kind, [Step]) {
        let kind: Kind
        switch random.below(3) {
        case 0:
            kind = .valuePromise(ignoreRepeated: random.below(2) == 0, initial: random.below(2) == 0 ? random.below(3) : nil)
        case 1:
            kind = .promise(initial: random.below(2) == 0 ? random.below(3) : nil)
        default:
            kind = .pipe(replay: random.below(2) == 0)
        }
        var script: [Step] = []
        var subscribers = 0
        for _ in 0 ..< 2 + random.below(14) {
            let choice = random.below(10)
            if choice < 3 || subscribers == 0 {
                script.append(.subscribe)
                subscribers += 1
            } else if choice < 6 {
                // Few distinct values, so that ignoreRepeated has work.
                script.append(.set(random.below(3)))
            } else if choice == 6 {
                script.append(.dispose(random.below(subscribers)))
            } else if choice == 7 {
                script.append(.setOnNext(id: random.below(subscribers), value: random.below(3)))
            } else if choice == 8 {
                script.append(.disposeOnNext(id: random.below(subscribers)))
            } else if case .promise = kind {
                script.append(.setNever)
            } else {
                script.append(.set(random.below(3)))
            }
        }
        return (kind, script)
    }

    func testSubjectsAgreeWithTheModelOnRandomScripts() {
        var random = SplitMix64(state: 0x5EED_5B1E_C7)
        var failures: [String] = []
        for index in 0 ..< 3000 {
            let (kind, script) = Self.makeCase(&random)
            let expected = Model(kind).run(script)
            let actual = Self.runLibrary(kind, script)
            if expected != actual && failures.count < 5 {
                failures.append("case \(index): \(kind), \(script)\n  model:   \(expected)\n  library: \(actual)")
            }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// The model can fail: a script whose outcome it predicts differently if
    /// ignoreRepeated is not honoured.
    func testTheModelSeesIgnoreRepeated() {
        let script: [Step] = [.subscribe, .set(1), .set(1), .set(2)]
        XCTAssertEqual(Model(.valuePromise(ignoreRepeated: true, initial: nil)).run(script), ["0:1", "0:2"])
        XCTAssertEqual(Model(.valuePromise(ignoreRepeated: false, initial: nil)).run(script), ["0:1", "0:1", "0:2"])
        XCTAssertEqual(Self.runLibrary(.valuePromise(ignoreRepeated: true, initial: nil), script), ["0:1", "0:2"])
    }
}
