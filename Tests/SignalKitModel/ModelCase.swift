#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
// The vocabulary of the model-based differential tester: a pipeline of
// signals and operators (`ModelSignal`), a script of steps that drives it
// (`ModelStep`), and what a subscriber observes (`ModelObservation`). Both the
// reference model (ReferenceModel.swift) and the runner over the real library
// (LibraryRunner.swift) read these; the pure functions the operators apply
// (`ModelMap`, `ModelPredicate`, `ModelUntil`, the combiners) are defined here
// once, as test code, and are not the library's. The operators themselves
// are in Operators/, one `ModelOperator` each.
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

/// A pipeline: a source, or an operator over pipelines. Every one is a
/// `Signal<Int, Int>`. The operators are described in Operators/, one struct
/// each (`ModelOperator`), and written as the sources are, by the functions
/// their files add here: `.then(.ignoreValues(.take(1, .pipe(0))), .just([7]))`.
///
/// `share` and `replay` nodes that are equal within one case are one shared
/// signal (one call of the operator, its result used at each place), as
/// `let s = share(x)` used twice would be: that is how a case gives a shared
/// signal more than one subscriber.
enum ModelSignal: Hashable, CustomStringConvertible {
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
    /// An operator over pipelines.
    case operation(AnyModelOperator)

    init(_ operation: some ModelOperator) {
        self = .operation(AnyModelOperator(operation))
    }

    /// The operator on top, nil for a source.
    var modelOperator: (any ModelOperator)? {
        if case let .operation(operation) = self {
            return operation.base
        }
        return nil
    }

    /// The pipelines this one is made of.
    var children: [ModelSignal] {
        return self.modelOperator?.children ?? []
    }

    /// The same operator over other children (as many as `children`).
    func withChildren(_ c: [ModelSignal]) -> ModelSignal {
        return self.modelOperator?.withChildren(c) ?? self
    }

    /// The number of nodes.
    var size: Int {
        return 1 + self.children.reduce(0) { $0 + $1.size }
    }

    var description: String {
        func list(_ values: [Int]) -> String {
            return "[" + values.map(String.init).joined(separator: ", ") + "]"
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
        case let .operation(operation):
            return operation.base.description
        }
    }
}

/// A list of pipelines as Swift source (`[.pipe(0), .never]`), for the
/// descriptions of the operators over a list.
func modelDescription(_ list: [ModelSignal]) -> String {
    return "[" + list.map { $0.description }.joined(separator: ", ") + "]"
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
#endif
