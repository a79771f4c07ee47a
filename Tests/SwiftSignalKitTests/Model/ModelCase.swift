// The vocabulary of the model-based differential tester: a pipeline of
// signals and operators (`ModelSignal`), a script of steps that drives it
// (`ModelStep`), and what a subscriber observes (`ModelObservation`). Both the
// reference model (ReferenceModel.swift) and the runner over the real library
// (LibraryRunner.swift) read these; the pure functions the operators apply
// (`ModelMap`, `ModelPredicate`, `ModelUntil`, the combiners) are defined here
// once, as test code, and are not the library's.
//
// Every description prints as Swift source, so that a shrunk failing case can
// be pasted into ModelRegressionTests.swift as it is.

/// How many `ValuePipe`s and test subjects a case can use. The last pipe
/// replays (`ValuePipe(replay: true)`).
let modelPipeCount = 3
let modelSubjectCount = 2

/// Whether pipe i gives a new subscriber the latest value put.
func modelPipeReplays(_ i: Int) -> Bool {
    return i == modelPipeCount - 1
}

/// What `last` emits (mapped from nil) when its upstream completed without a value.
let modelNilMarker = -1_000_000

/// What `dematerialize` values become: a value stays itself; an error `e`
/// becomes `modelErrorMarker + e`, the completion `modelCompletionMarker`.
let modelErrorMarker = 10_000
let modelCompletionMarker = -10_000

/// How a pair or a list of latest values becomes one value (`combineLatest`).
func modelCombine(_ values: [Int]) -> Int {
    var result = 0
    for value in values {
        result = result &* 1000 &+ value
    }
    return result
}

/// The pure functions `map` is given.
enum ModelMap: Int, CaseIterable, CustomStringConvertible {
    case increment
    case double
    case negate
    case modulo3

    func apply(_ value: Int) -> Int {
        switch self {
        case .increment:
            return value &+ 1
        case .double:
            return value &* 2
        case .negate:
            return 0 &- value
        case .modulo3:
            return value % 3
        }
    }

    var description: String {
        switch self {
        case .increment:
            return ".increment"
        case .double:
            return ".double"
        case .negate:
            return ".negate"
        case .modulo3:
            return ".modulo3"
        }
    }
}

/// The predicates `filter` is given.
enum ModelPredicate: Int, CaseIterable, CustomStringConvertible {
    case even
    case positive
    case nonZero
    /// Holds for nothing (`elementAt` with a negative index).
    case never

    func test(_ value: Int) -> Bool {
        switch self {
        case .even:
            return value % 2 == 0
        case .positive:
            return value > 0
        case .nonZero:
            return value != 0
        case .never:
            return false
        }
    }

    var description: String {
        switch self {
        case .even:
            return ".even"
        case .positive:
            return ".positive"
        case .nonZero:
            return ".nonZero"
        case .never:
            return ".never"
        }
    }
}

/// The decisions `take(until:)` is given: (pass the value, then complete).
enum ModelUntil: Int, CaseIterable, CustomStringConvertible {
    /// Passes every value; completes after one that is 3 or more.
    case untilAtLeast3
    /// Completes at a negative value, without passing it.
    case stopBeforeNegative
    /// Passes the odd values, never completes.
    case oddOnly
    /// Passes the first value and completes.
    case first

    func decide(_ value: Int) -> (passthrough: Bool, complete: Bool) {
        switch self {
        case .untilAtLeast3:
            return (true, value >= 3)
        case .stopBeforeNegative:
            return value < 0 ? (false, true) : (true, false)
        case .oddOnly:
            return (value % 2 != 0, false)
        case .first:
            return (true, true)
        }
    }

    var description: String {
        switch self {
        case .untilAtLeast3:
            return ".untilAtLeast3"
        case .stopBeforeNegative:
            return ".stopBeforeNegative"
        case .oddOnly:
            return ".oddOnly"
        case .first:
            return ".first"
        }
    }
}

/// The meta operators: how the inner signals of an outer signal are run.
enum ModelMeta: Int, CaseIterable, CustomStringConvertible {
    case mapToSignal
    case mapToQueue
    case mapToThrottled
    /// `map` to signals, then `switchToLatest`.
    case switchToLatest
    /// `map` to signals, then `queue`.
    case queue
    /// `map` to signals, then `throttled`.
    case throttled

    /// Inner signals wait for the running one (instead of replacing it).
    var queues: Bool {
        switch self {
        case .mapToSignal, .switchToLatest:
            return false
        case .mapToQueue, .mapToThrottled, .queue, .throttled:
            return true
        }
    }

    /// Only the latest waiting inner signal is kept.
    var throttles: Bool {
        return self == .mapToThrottled || self == .throttled
    }

    var description: String {
        switch self {
        case .mapToSignal:
            return ".mapToSignal"
        case .mapToQueue:
            return ".mapToQueue"
        case .mapToThrottled:
            return ".mapToThrottled"
        case .switchToLatest:
            return ".switchToLatest"
        case .queue:
            return ".queue"
        case .throttled:
            return ".throttled"
        }
    }
}

/// A pipeline: a source, or an operator over pipelines. Every one is a
/// `Signal<Int, Int>`.
///
/// `share` and `replay` nodes that are equal within one case are one shared
/// signal (one call of the operator, its result used at each place), as
/// `let s = share(x)` used twice would be: that is how a case gives a shared
/// signal more than one subscriber.
indirect enum ModelSignal: Hashable, CustomStringConvertible {
    /// The values synchronously, then the completion.
    case just([Int])
    /// The values synchronously, then the error.
    case fail([Int], Int)
    /// Nothing, ever.
    case never
    /// `ValuePipe` i: the values the script puts into it, from subscription
    /// on (the last pipe, `modelPipeCount - 1`, first replays the latest one).
    case pipe(Int)
    /// Test subject i: a hot source the script can also complete or fail.
    case subject(Int)
    case map(ModelMap, ModelSignal)
    case filter(ModelPredicate, ModelSignal)
    case take(Int, ModelSignal)
    case takeUntil(ModelUntil, ModelSignal)
    case distinctUntilChanged(ModelSignal)
    /// `reduceLeft(value:f:)` with +.
    case reduceLeft(Int, ModelSignal)
    /// `reduceLeft(value:f:)` with + that also emits the running sum after an even value.
    case reduceLeftEmitting(Int, ModelSignal)
    /// `last`, nil mapped to `modelNilMarker`.
    case last(ModelSignal)
    case ignoreValues(ModelSignal)
    case then(ModelSignal, ModelSignal)
    case restart(ModelSignal)
    /// `restartIfError`, the error type cast back.
    case restartIfError(ModelSignal)
    /// On error, continues with the second pipeline.
    case `catch`(ModelSignal, ModelSignal)
    /// `mapError` with +100.
    case mapError(ModelSignal)
    /// Outer, inner: each outer value `v` gives the inner pipeline with `v`
    /// added to each of its values.
    case meta(ModelMeta, ModelSignal, ModelSignal)
    case combineLatest(ModelSignal, ModelSignal)
    /// `combineLatest(s1, v1, s2, v2)`.
    case combineLatestWithInitial(ModelSignal, Int, ModelSignal, Int)
    /// The three-signal overload.
    case combineLatest3(ModelSignal, ModelSignal, ModelSignal)
    /// The array overload.
    case combineLatestArray([ModelSignal])
    case merge([ModelSignal])
    case deferred(ModelSignal)
    /// `dematerialize`, each event as a value (see `modelErrorMarker`).
    case dematerialize(ModelSignal)
    /// `materialize(dematerialize(s))`: the identity.
    case roundTrip(ModelSignal)
    // The operators of issue 33.
    /// `scan` with +, from the initial value.
    case scan(Int, ModelSignal)
    case skip(Int, ModelSignal)
    case skipWhile(ModelPredicate, ModelSignal)
    /// `takeWhile(inclusive:)`.
    case takeWhile(ModelPredicate, Bool, ModelSignal)
    case startWith(Int, ModelSignal)
    /// `pairwise`, each pair combined with `modelCombine`.
    case pairwise(ModelSignal)
    case first(ModelSignal)
    case elementAt(Int, ModelSignal)
    case defaultIfEmpty(Int, ModelSignal)
    /// The two-signal `zip`, each pair combined with `modelCombine`.
    case zip(ModelSignal, ModelSignal)
    /// `a |> withLatestFrom(b)`, each pair combined with `modelCombine`.
    case withLatestFrom(ModelSignal, ModelSignal)
    case concat([ModelSignal])
    /// `a |> takeUntil(b)`.
    case takeUntilSignal(ModelSignal, ModelSignal)
    /// `mergeMap(maxConcurrent:)`: outer, inner as in `meta`.
    case mergeMap(Int, ModelSignal, ModelSignal)
    /// `share`: equal nodes in a case are one shared signal (see above).
    case share(ModelSignal)
    /// `replay(n)`: equal nodes in a case are one shared signal (see above).
    case replay(Int, ModelSignal)
    /// `retry(count:)`, without a delay.
    case retry(Int, ModelSignal)

    /// The pipelines this one is made of.
    var children: [ModelSignal] {
        switch self {
        case .just, .fail, .never, .pipe, .subject:
            return []
        case let .map(_, s), let .filter(_, s), let .take(_, s), let .takeUntil(_, s), let .distinctUntilChanged(s),
             let .reduceLeft(_, s), let .reduceLeftEmitting(_, s), let .last(s), let .ignoreValues(s), let .restart(s),
             let .restartIfError(s), let .mapError(s), let .deferred(s), let .dematerialize(s), let .roundTrip(s),
             let .scan(_, s), let .skip(_, s), let .skipWhile(_, s), let .takeWhile(_, _, s), let .startWith(_, s),
             let .pairwise(s), let .first(s), let .elementAt(_, s), let .defaultIfEmpty(_, s),
             let .share(s), let .replay(_, s), let .retry(_, s):
            return [s]
        case let .then(a, b), let .catch(a, b), let .meta(_, a, b), let .combineLatest(a, b),
             let .combineLatestWithInitial(a, _, b, _), let .zip(a, b), let .withLatestFrom(a, b), let .takeUntilSignal(a, b),
             let .mergeMap(_, a, b):
            return [a, b]
        case let .concat(list):
            return list
        case let .combineLatest3(a, b, c):
            return [a, b, c]
        case let .combineLatestArray(list), let .merge(list):
            return list
        }
    }

    /// The same operator over other children (as many as `children`).
    func withChildren(_ c: [ModelSignal]) -> ModelSignal {
        switch self {
        case .just, .fail, .never, .pipe, .subject:
            return self
        case let .map(f, _):
            return .map(f, c[0])
        case let .filter(p, _):
            return .filter(p, c[0])
        case let .take(n, _):
            return .take(n, c[0])
        case let .takeUntil(u, _):
            return .takeUntil(u, c[0])
        case .distinctUntilChanged:
            return .distinctUntilChanged(c[0])
        case let .reduceLeft(v, _):
            return .reduceLeft(v, c[0])
        case let .reduceLeftEmitting(v, _):
            return .reduceLeftEmitting(v, c[0])
        case .last:
            return .last(c[0])
        case .ignoreValues:
            return .ignoreValues(c[0])
        case .restart:
            return .restart(c[0])
        case .restartIfError:
            return .restartIfError(c[0])
        case .mapError:
            return .mapError(c[0])
        case .deferred:
            return .deferred(c[0])
        case .dematerialize:
            return .dematerialize(c[0])
        case .roundTrip:
            return .roundTrip(c[0])
        case .then:
            return .then(c[0], c[1])
        case .catch:
            return .catch(c[0], c[1])
        case let .meta(kind, _, _):
            return .meta(kind, c[0], c[1])
        case .combineLatest:
            return .combineLatest(c[0], c[1])
        case let .combineLatestWithInitial(_, v1, _, v2):
            return .combineLatestWithInitial(c[0], v1, c[1], v2)
        case .combineLatest3:
            return .combineLatest3(c[0], c[1], c[2])
        case .combineLatestArray:
            return .combineLatestArray(c)
        case .merge:
            return .merge(c)
        case let .scan(v, _):
            return .scan(v, c[0])
        case let .skip(n, _):
            return .skip(n, c[0])
        case let .skipWhile(p, _):
            return .skipWhile(p, c[0])
        case let .takeWhile(p, inclusive, _):
            return .takeWhile(p, inclusive, c[0])
        case let .startWith(v, _):
            return .startWith(v, c[0])
        case .pairwise:
            return .pairwise(c[0])
        case .first:
            return .first(c[0])
        case let .elementAt(i, _):
            return .elementAt(i, c[0])
        case let .defaultIfEmpty(v, _):
            return .defaultIfEmpty(v, c[0])
        case .zip:
            return .zip(c[0], c[1])
        case .withLatestFrom:
            return .withLatestFrom(c[0], c[1])
        case .concat:
            return .concat(c)
        case .takeUntilSignal:
            return .takeUntilSignal(c[0], c[1])
        case let .mergeMap(n, _, _):
            return .mergeMap(n, c[0], c[1])
        case .share:
            return .share(c[0])
        case let .replay(n, _):
            return .replay(n, c[0])
        case let .retry(n, _):
            return .retry(n, c[0])
        }
    }

    /// The number of nodes.
    var size: Int {
        return 1 + self.children.reduce(0) { $0 + $1.size }
    }

    var description: String {
        func list(_ values: [Int]) -> String {
            return "[" + values.map(String.init).joined(separator: ", ") + "]"
        }
        func signals(_ list: [ModelSignal]) -> String {
            return "[" + list.map { $0.description }.joined(separator: ", ") + "]"
        }
        switch self {
        case let .just(values):
            return ".just(\(list(values)))"
        case let .fail(values, error):
            return ".fail(\(list(values)), \(error))"
        case .never:
            return ".never"
        case let .pipe(i):
            return ".pipe(\(i))"
        case let .subject(i):
            return ".subject(\(i))"
        case let .map(f, s):
            return ".map(\(f), \(s))"
        case let .filter(p, s):
            return ".filter(\(p), \(s))"
        case let .take(n, s):
            return ".take(\(n), \(s))"
        case let .takeUntil(u, s):
            return ".takeUntil(\(u), \(s))"
        case let .distinctUntilChanged(s):
            return ".distinctUntilChanged(\(s))"
        case let .reduceLeft(v, s):
            return ".reduceLeft(\(v), \(s))"
        case let .reduceLeftEmitting(v, s):
            return ".reduceLeftEmitting(\(v), \(s))"
        case let .last(s):
            return ".last(\(s))"
        case let .ignoreValues(s):
            return ".ignoreValues(\(s))"
        case let .then(a, b):
            return ".then(\(a), \(b))"
        case let .restart(s):
            return ".restart(\(s))"
        case let .restartIfError(s):
            return ".restartIfError(\(s))"
        case let .catch(a, b):
            return ".catch(\(a), \(b))"
        case let .mapError(s):
            return ".mapError(\(s))"
        case let .meta(kind, a, b):
            return ".meta(\(kind), \(a), \(b))"
        case let .combineLatest(a, b):
            return ".combineLatest(\(a), \(b))"
        case let .combineLatestWithInitial(a, v1, b, v2):
            return ".combineLatestWithInitial(\(a), \(v1), \(b), \(v2))"
        case let .combineLatest3(a, b, c):
            return ".combineLatest3(\(a), \(b), \(c))"
        case let .combineLatestArray(l):
            return ".combineLatestArray(\(signals(l)))"
        case let .merge(l):
            return ".merge(\(signals(l)))"
        case let .deferred(s):
            return ".deferred(\(s))"
        case let .dematerialize(s):
            return ".dematerialize(\(s))"
        case let .roundTrip(s):
            return ".roundTrip(\(s))"
        case let .scan(v, s):
            return ".scan(\(v), \(s))"
        case let .skip(n, s):
            return ".skip(\(n), \(s))"
        case let .skipWhile(p, s):
            return ".skipWhile(\(p), \(s))"
        case let .takeWhile(p, inclusive, s):
            return ".takeWhile(\(p), \(inclusive), \(s))"
        case let .startWith(v, s):
            return ".startWith(\(v), \(s))"
        case let .pairwise(s):
            return ".pairwise(\(s))"
        case let .first(s):
            return ".first(\(s))"
        case let .elementAt(i, s):
            return ".elementAt(\(i), \(s))"
        case let .defaultIfEmpty(v, s):
            return ".defaultIfEmpty(\(v), \(s))"
        case let .zip(a, b):
            return ".zip(\(a), \(b))"
        case let .withLatestFrom(a, b):
            return ".withLatestFrom(\(a), \(b))"
        case let .concat(l):
            return ".concat(\(signals(l)))"
        case let .takeUntilSignal(a, b):
            return ".takeUntilSignal(\(a), \(b))"
        case let .mergeMap(n, a, b):
            return ".mergeMap(\(n == Int.max ? "Int.max" : String(n)), \(a), \(b))"
        case let .share(s):
            return ".share(\(s))"
        case let .replay(n, s):
            return ".replay(\(n), \(s))"
        case let .retry(n, s):
            return ".retry(\(n), \(s))"
        }
    }
}

/// One step of a script, run after the subscription has started.
enum ModelStep: Equatable, CustomStringConvertible {
    /// `putNext(value)` on `ValuePipe` i.
    case put(Int, Int)
    /// A value into test subject i.
    case send(Int, Int)
    /// Completes test subject i (its subscribers at the time).
    case complete(Int)
    /// Fails test subject i (its subscribers at the time) with the error.
    case fail(Int, Int)
    /// Disposes the subscription.
    case dispose
    /// Disposes the subscription from inside the callback of the next event
    /// the subscriber receives (in a later step), after recording it.
    case disposeOnNextEvent
    /// Puts the value into `ValuePipe` i from inside the callback of the next
    /// event the subscriber receives (in a later step), after recording it
    /// (and after disposing, if that is armed too). A pipe that is delivering
    /// delivers it once its current delivery is over.
    case putOnNextEvent(Int, Int)
    /// The same into test subject i, which delivers it at once.
    case sendOnNextEvent(Int, Int)

    var description: String {
        switch self {
        case let .put(i, v):
            return ".put(\(i), \(v))"
        case let .send(i, v):
            return ".send(\(i), \(v))"
        case let .complete(i):
            return ".complete(\(i))"
        case let .fail(i, e):
            return ".fail(\(i), \(e))"
        case .dispose:
            return ".dispose"
        case .disposeOnNextEvent:
            return ".disposeOnNextEvent"
        case let .putOnNextEvent(i, v):
            return ".putOnNextEvent(\(i), \(v))"
        case let .sendOnNextEvent(i, v):
            return ".sendOnNextEvent(\(i), \(v))"
        }
    }
}

/// A pipeline and the script that drives it.
struct ModelCase: Equatable, CustomStringConvertible {
    var signal: ModelSignal
    var script: [ModelStep]

    var description: String {
        return "ModelCase(signal: \(self.signal), script: [" + self.script.map { $0.description }.joined(separator: ", ") + "])"
    }
}

/// An event the subscriber receives.
enum ModelEvent: Equatable, CustomStringConvertible {
    case next(Int)
    case error(Int)
    case completed

    var isTerminal: Bool {
        if case .next = self {
            return false
        }
        return true
    }

    var description: String {
        switch self {
        case let .next(v):
            return "next(\(v))"
        case let .error(e):
            return "error(\(e))"
        case .completed:
            return "completed"
        }
    }
}

/// An event and the step during which it arrived (-1: during `start`).
struct ModelObservation: Equatable, CustomStringConvertible {
    var step: Int
    var event: ModelEvent

    var description: String {
        return "\(self.step):\(self.event)"
    }
}

/// Everything compared between the model and the library for one case: the
/// events; after `start` and after each step, how many subscriptions each
/// pipe and then each subject has (a subscription that has ended, by an
/// event or by being disposed, must be gone); and how many subscriptions each
/// subject has received so far (nothing may be started for a subscription
/// that has ended).
struct ModelOutcome: Equatable, CustomStringConvertible {
    var events: [ModelObservation] = []
    var subscriptions: [[Int]] = []
    var subjectStarts: [[Int]] = []

    var description: String {
        func lists(_ counts: [[Int]]) -> String {
            return counts.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }.joined(separator: " ")
        }
        let events = "[" + self.events.map { $0.description }.joined(separator: ", ") + "]"
        return "events \(events)\n  live subscriptions per pipe/subject after start and each step: \(lists(self.subscriptions))\n  subscriptions made per subject: \(lists(self.subjectStarts))"
    }
}
