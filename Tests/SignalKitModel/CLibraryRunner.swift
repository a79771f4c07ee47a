#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
// The pipes' subscriptions are counted as LibraryRunner counts a ValuePipe's:
// through the `SignalPipe` an `sk_pipe` handle holds (`SKPipe`).
@testable import SignalKitCAPI
@testable import SwiftSignalKit

// The third side of the differential test: the same `ModelCase` run through
// the C API (include/signalkit.h), every signal built with `sk_*` calls, and
// observed the same way as the model and `LibraryRunner` observe it. Each
// operator's C build is its `buildC`, beside its Swift `build` in its file of
// Operators/; the sources are built here.
//
// The sources: `just` and `fail` are sk_signal_complete / single / fail, or
// a generator that puts the values and the terminal event; `never` is
// sk_signal_never; pipe i is an `sk_pipe` (the last one replaying), its
// signal sk_pipe_signal; subject i is what `TestPipe` is in Swift, a
// generator (sk_signal_create) that keeps each new subscriber (retained)
// until its subscription's disposable (an action disposable) lets it go,
// and that the script drives with sk_subscriber_put_next / _error /
// _completion on the subscribers it has at the time, in the order they
// subscribed.
//
// Every function given to the library (map functions, predicates, folds,
// the functions that make inner signals, the generators, the actions) gets
// a context of its own (`CCallbackContext`) with a `release` that counts:
// after the case, each must have run exactly once. The observer's release
// must have run exactly once too, no subject or pipe may keep a
// subscription, and `sk_live_objects()` must be back to its value before
// the case once the pipes are released.
//
// Operators the C API cannot express (their `cAPIGap` says why; a case
// that uses one is run through the Swift library only):
// - `reduceLeftEmitting`: sk_reduce_fn cannot emit a value while folding
//   (the Swift `reduceLeft(value:f:)` whose f is given `emit`);
// - `combineLatestWithInitial`: sk_signal_combine_latest takes no initial
//   values;
// - `dematerialize`: the C API has no materialize or dematerialize.
// Two are built from other C operators: `mapError` (the C API has none) as
// sk_signal_catch whose function returns sk_signal_fail of the mapped
// error; `roundTrip`, materialize(dematerialize(s)), the identity, as `s`
// itself. `mapToQueue` and `mapToThrottled` are a map to signal values
// followed by sk_signal_queue / sk_signal_throttled, as `queue` and
// `throttled` are.

/// A context given to the C API with a callback (`ctx`): what the callback
/// computes, and how many times the library ran the `release` given with it.
final class CCallbackContext {
    enum Body {
        /// sk_map_fn over integer values.
        case map((Int) -> Int)
        /// sk_map_fn over integer values that fails (sk_callback_fail,
        /// with the integer error) where it gives an error.
        case failable((Int) -> (value: Int, error: Int?))
        /// sk_map_fn over array values of integers.
        case array(([Int]) -> Int)
        /// sk_predicate_fn.
        case predicate((Int) -> Bool)
        /// sk_reduce_fn.
        case fold((Int, Int) -> Int)
        /// sk_take_until_fn.
        case until((Int) -> (passthrough: Bool, complete: Bool))
        /// sk_signal_fn (a signal, +1, for the value), or an sk_map_fn
        /// that makes signal values with it.
        case signal((Int) -> OpaquePointer?)
        /// sk_deferred_fn.
        case deferred(() -> OpaquePointer?)
        /// sk_generator_fn: the disposable (+1) for the new subscriber.
        case generator((OpaquePointer) -> OpaquePointer?)
        /// An action disposable's action.
        case action(() -> Void)
    }

    /// Whose callback it is (for a report).
    let owner: String
    let body: Body
    var releases = 0

    init(owner: String, body: Body) {
        self.owner = owner
        self.body = body
    }

    var pointer: UnsafeMutableRawPointer {
        return Unmanaged.passUnretained(self).toOpaque()
    }

    static func from(_ ctx: UnsafeMutableRawPointer?) -> CCallbackContext {
        return Unmanaged<CCallbackContext>.fromOpaque(ctx!).takeUnretainedValue()
    }

    // The callbacks, one per C function type; each reads its context's body.

    static let release: sk_release_fn = { ctx in
        CCallbackContext.from(ctx).releases += 1
    }

    static let map: sk_map_fn = { ctx, value, out in
        switch CCallbackContext.from(ctx).body {
        case let .map(f):
            CLibraryRunner.set(out, f(CLibraryRunner.int(value)))
        case let .failable(f):
            let result = f(CLibraryRunner.int(value))
            if let error = result.error {
                var failure = CLibraryRunner.value(error)
                _ = sk_callback_fail(&failure)
            } else {
                CLibraryRunner.set(out, result.value)
            }
        case let .array(f):
            CLibraryRunner.set(out, f(CLibraryRunner.ints(value)))
        case let .signal(f):
            // A signal value; the value takes its own reference.
            if let signal = f(CLibraryRunner.int(value)) {
                _ = sk_value_set_signal(out, signal)
                sk_signal_release(signal)
            }
        default:
            preconditionFailure("not a map function")
        }
    }

    static let predicate: sk_predicate_fn = { ctx, value in
        guard case let .predicate(f) = CCallbackContext.from(ctx).body else {
            preconditionFailure("not a predicate")
        }
        return f(CLibraryRunner.int(value))
    }

    static let fold: sk_reduce_fn = { ctx, accumulator, value, out in
        guard case let .fold(f) = CCallbackContext.from(ctx).body else {
            preconditionFailure("not a fold")
        }
        CLibraryRunner.set(out, f(CLibraryRunner.int(accumulator), CLibraryRunner.int(value)))
    }

    static let until: sk_take_until_fn = { ctx, value in
        guard case let .until(f) = CCallbackContext.from(ctx).body else {
            preconditionFailure("not a take-until decision")
        }
        let decision = f(CLibraryRunner.int(value))
        return Int32((decision.passthrough ? SK_TAKE_PASS.rawValue : 0) | (decision.complete ? SK_TAKE_COMPLETE.rawValue : 0))
    }

    static let signal: sk_signal_fn = { ctx, value in
        guard case let .signal(f) = CCallbackContext.from(ctx).body else {
            preconditionFailure("not a signal function")
        }
        return f(CLibraryRunner.int(value))
    }

    static let deferred: sk_deferred_fn = { ctx in
        guard case let .deferred(f) = CCallbackContext.from(ctx).body else {
            preconditionFailure("not a deferred function")
        }
        return f()
    }

    static let generator: sk_generator_fn = { ctx, subscriber in
        guard case let .generator(f) = CCallbackContext.from(ctx).body else {
            preconditionFailure("not a generator")
        }
        return f(subscriber!)
    }

    static let action: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
        guard case let .action(f) = CCallbackContext.from(ctx).body else {
            preconditionFailure("not an action")
        }
        f()
    }
}

/// Test subject i of the C side: the subscribers it keeps (nil once let
/// go), in the order they subscribed, and how many it received.
final class CSubject {
    var subscribers: [OpaquePointer?] = []
    var starts = 0

    var live: Int {
        return self.subscribers.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
    }
}

/// Builds the C signals of a case with `sk_*` calls and runs its script.
final class CLibraryRunner {
    /// SK_OK as the `int` the functions return.
    static let ok = Int32(SK_OK.rawValue)

    let pipes: [OpaquePointer]
    let subjects: [CSubject] = (0 ..< modelSubjectCount).map { _ in CSubject() }
    /// Every context given to the library in this case.
    private var contexts: [CCallbackContext] = []
    /// The one signal (+1) of each `share` / `replay` node of the case.
    private var shared: [ModelSignal: OpaquePointer] = [:]
    /// Calls that failed, and what was left after the final dispose.
    private(set) var problems: [String] = []

    private init() {
        self.pipes = (0 ..< modelPipeCount).map { i in
            var pipe: OpaquePointer?
            precondition(sk_pipe_create(&pipe, modelPipeReplays(i)) == CLibraryRunner.ok, "sk_pipe_create failed")
            return pipe!
        }
    }

    /// Why the C API cannot run `signal` (an operator in it has a
    /// `cAPIGap`), or nil when it can.
    static func gap(in signal: ModelSignal) -> String? {
        guard let modelOperator = signal.modelOperator else {
            return nil
        }
        if let gap = type(of: modelOperator).cAPIGap {
            return "\(type(of: modelOperator)): \(gap)"
        }
        for child in modelOperator.children {
            if let gap = self.gap(in: child) {
                return gap
            }
        }
        return nil
    }

    /// Runs the case through the C API; nil when the C API cannot express
    /// it (`gap(in:)`).
    static func run(_ testCase: ModelCase) -> LibraryResult? {
        if self.gap(in: testCase.signal) != nil {
            return nil
        }
        let liveBefore = sk_live_objects()
        let runner = CLibraryRunner()
        let outcome = runner.run(testCase)
        var leaks = runner.problems
        leaks += runner.finish(liveBefore: liveBefore)
        return LibraryResult(outcome: outcome, leaks: leaks)
    }

    // MARK: - Values

    /// An integer value; nil (`sk_signal_last` of nothing) is
    /// `modelNilMarker`, any other kind a number no case makes.
    static func int(_ value: UnsafePointer<sk_value>?) -> Int {
        guard let value else {
            return Int.min
        }
        switch value.pointee.kind {
        case SK_KIND_NIL:
            return modelNilMarker
        case SK_KIND_INT64:
            return Int(value.pointee.u.int64)
        default:
            return Int.min + 1
        }
    }

    /// The integers of an array value (combine_latest, zip, pairwise,
    /// with_latest_from).
    static func ints(_ value: UnsafePointer<sk_value>?) -> [Int] {
        var count = 0
        guard sk_value_get_array_count(value, &count) == CLibraryRunner.ok else {
            return [Int.min + 2]
        }
        return (0 ..< count).map { index in
            var item: UnsafePointer<sk_value>?
            _ = sk_value_get_array_item(value, index, &item)
            return self.int(item)
        }
    }

    static func set(_ out: UnsafeMutablePointer<sk_value>?, _ value: Int) {
        sk_inline_value_set_int64(out, Int64(value))
    }

    /// `value` as an sk_value.
    static func value(_ value: Int) -> sk_value {
        var made = sk_value()
        self.set(&made, value)
        return made
    }

    // MARK: - Building

    /// A new context for a callback of `owner`, kept for the release check.
    func context(_ owner: String, _ body: CCallbackContext.Body) -> UnsafeMutableRawPointer {
        let context = CCallbackContext(owner: owner, body: body)
        self.contexts.append(context)
        return context.pointer
    }

    /// The signal (+1) that `make` writes into `out`, or nil, reported, when
    /// the call fails.
    func call(_ name: String, _ make: (UnsafeMutablePointer<OpaquePointer?>) -> Int32) -> OpaquePointer? {
        var out: OpaquePointer?
        let status = make(&out)
        if status != CLibraryRunner.ok || out == nil {
            self.problems.append("\(name) returned \(status) (\(String(cString: sk_status_string(status)))): \(String(cString: sk_last_error_message()))")
            return nil
        }
        return out
    }

    /// An operator over `input` (+1, consumed: released after the call);
    /// nil when `input` is.
    func over(_ input: OpaquePointer?, _ name: String, _ make: (UnsafeMutablePointer<OpaquePointer?>, OpaquePointer) -> Int32) -> OpaquePointer? {
        guard let input else {
            return nil
        }
        defer {
            sk_signal_release(input)
        }
        return self.call(name) { make($0, input) }
    }

    /// An operator over the signal of `source`.
    func over(_ source: ModelSignal, _ name: String, _ make: (UnsafeMutablePointer<OpaquePointer?>, OpaquePointer) -> Int32) -> OpaquePointer? {
        return self.over(self.build(source), name, make)
    }

    /// An operator over the signals of two pipelines.
    func over(_ first: ModelSignal, _ second: ModelSignal, _ name: String, _ make: (UnsafeMutablePointer<OpaquePointer?>, OpaquePointer, OpaquePointer) -> Int32) -> OpaquePointer? {
        let firstSignal = self.build(first)
        let secondSignal = self.build(second)
        defer {
            sk_signal_release(firstSignal)
            sk_signal_release(secondSignal)
        }
        guard let firstSignal, let secondSignal else {
            return nil
        }
        return self.call(name) { make($0, firstSignal, secondSignal) }
    }

    /// An operator over an array of the signals of `sources` (NULL and 0 for
    /// none).
    func over(_ sources: [ModelSignal], _ name: String, _ make: (UnsafeMutablePointer<OpaquePointer?>, UnsafePointer<OpaquePointer?>?, Int) -> Int32) -> OpaquePointer? {
        let signals = sources.map { self.build($0) }
        defer {
            signals.forEach { sk_signal_release($0) }
        }
        if signals.contains(where: { $0 == nil }) {
            return nil
        }
        if signals.isEmpty {
            return self.call(name) { make($0, nil, 0) }
        }
        return signals.withUnsafeBufferPointer { buffer in
            self.call(name) { make($0, buffer.baseAddress, buffer.count) }
        }
    }

    /// sk_signal_map over `input` (consumed) with `f`.
    func map(_ input: OpaquePointer?, _ owner: String, _ f: @escaping (Int) -> Int) -> OpaquePointer? {
        let ctx = input == nil ? nil : self.context(owner, .map(f))
        return self.over(input, "sk_signal_map") { sk_signal_map($0, $1, CCallbackContext.map, ctx, CCallbackContext.release) }
    }

    /// sk_signal_map over `input` (consumed) with a function that fails
    /// (sk_callback_fail) where `f` gives an error.
    func failableMap(_ input: OpaquePointer?, _ owner: String,
                     _ f: @escaping (Int) -> (value: Int, error: Int?)) -> OpaquePointer? {
        let ctx = input == nil ? nil : self.context(owner, .failable(f))
        return self.over(input, "sk_signal_map") { sk_signal_map($0, $1, CCallbackContext.map, ctx, CCallbackContext.release) }
    }

    /// sk_signal_map over `input` (consumed, a signal of arrays of
    /// integers) with `modelCombine`.
    func combined(_ input: OpaquePointer?, _ owner: String) -> OpaquePointer? {
        let ctx = input == nil ? nil : self.context(owner, .array(modelCombine))
        return self.over(input, "sk_signal_map") { sk_signal_map($0, $1, CCallbackContext.map, ctx, CCallbackContext.release) }
    }

    /// The one signal (+1) of the `share` / `replay` node `key` in the case
    /// being run: made by `make` at its first place, the same at the others.
    func sharedSignal(_ key: ModelSignal, _ make: () -> OpaquePointer?) -> OpaquePointer? {
        if let existing = self.shared[key] {
            return sk_signal_retain(existing)
        }
        guard let made = make() else {
            return nil
        }
        self.shared[key] = sk_signal_retain(made)
        return made
    }

    /// A generator that puts `values`, then the error (if any) or the
    /// completion.
    private func values(_ values: [Int], error: Int?, _ owner: String) -> OpaquePointer? {
        let ctx = self.context(owner, .generator { subscriber in
            for value in values {
                var v = CLibraryRunner.value(value)
                _ = sk_subscriber_put_next(subscriber, &v)
            }
            if let error {
                var e = CLibraryRunner.value(error)
                _ = sk_subscriber_put_error(subscriber, &e)
            } else {
                _ = sk_subscriber_put_completion(subscriber)
            }
            return nil
        })
        return self.call("sk_signal_create") { sk_signal_create($0, CCallbackContext.generator, ctx, CCallbackContext.release) }
    }

    /// Subject i's signal: its generator keeps the subscriber until the
    /// subscription's disposable lets it go.
    private func subject(_ i: Int) -> OpaquePointer? {
        let subject = self.subjects[i]
        let ctx = self.context("subject(\(i))'s generator", .generator { subscriber in
            subject.starts += 1
            let slot = subject.subscribers.count
            subject.subscribers.append(sk_subscriber_retain(subscriber))
            let actionCtx = self.context("subject(\(i))'s disposable", .action {
                let kept = subject.subscribers[slot]
                subject.subscribers[slot] = nil
                sk_subscriber_release(kept)
            })
            var disposable: OpaquePointer?
            let status = sk_disposable_action(&disposable, CCallbackContext.action, actionCtx, CCallbackContext.release)
            if status != CLibraryRunner.ok {
                self.problems.append("sk_disposable_action returned \(status)")
            }
            return disposable
        })
        return self.call("sk_signal_create") { sk_signal_create($0, CCallbackContext.generator, ctx, CCallbackContext.release) }
    }

    /// The C signal (+1) of a pipeline: a source's here, an operator's in
    /// its file of Operators/ (`buildC`); nil when a call failed (reported).
    func build(_ signal: ModelSignal) -> OpaquePointer? {
        switch signal {
        case let .just(values):
            switch values.count {
            case 0:
                return self.call("sk_signal_complete") { sk_signal_complete($0) }
            case 1:
                var v = CLibraryRunner.value(values[0])
                return self.call("sk_signal_single") { sk_signal_single($0, &v) }
            default:
                return self.values(values, error: nil, "\(signal)'s generator")
            }

        case let .fail(values, error):
            if values.isEmpty {
                var e = CLibraryRunner.value(error)
                return self.call("sk_signal_fail") { sk_signal_fail($0, &e) }
            }
            return self.values(values, error: error, "\(signal)'s generator")

        case .never:
            return self.call("sk_signal_never") { sk_signal_never($0) }

        case let .pipe(i):
            return self.call("sk_pipe_signal") { sk_pipe_signal($0, self.pipes[i]) }

        case let .subject(i):
            return self.subject(i)

        case let .operation(operation):
            return operation.base.buildC(self)
        }
    }

    // MARK: - Running

    /// The subscriber's observer context.
    private final class Recorder {
        var outcome = ModelOutcome()
        var step = -1
        var disposeOnNext = false
        var putOnNext: (() -> Void)?
        var disposable: OpaquePointer?
        var releases = 0

        func record(_ event: ModelEvent) {
            self.outcome.events.append(ModelObservation(step: self.step, event: event))
            if self.disposeOnNext {
                self.disposeOnNext = false
                sk_disposable_dispose(self.disposable)
            }
            if let put = self.putOnNext {
                self.putOnNext = nil
                put()
            }
        }

        static func from(_ ctx: UnsafeMutableRawPointer?) -> Recorder {
            return Unmanaged<Recorder>.fromOpaque(ctx!).takeUnretainedValue()
        }
    }

    /// The current subscriptions of each pipe, then of each subject.
    func subscriptionCounts() -> [Int] {
        let pipeCounts = self.pipes.map { handle -> Int in
            let broadcaster = Unmanaged<SKPipe>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().pipe.broadcaster
            broadcaster.mutex.lock()
            let count = broadcaster.subscribers.count
            broadcaster.mutex.unlock()
            return count
        }
        return pipeCounts + self.subjects.map { $0.live }
    }

    private func put(_ value: Int, into pipe: Int) {
        var v = CLibraryRunner.value(value)
        let status = sk_pipe_put(self.pipes[pipe], &v)
        if status != CLibraryRunner.ok {
            self.problems.append("sk_pipe_put returned \(status)")
        }
    }

    /// Puts into subject i's subscribers of the moment, in order, each kept
    /// alive for its call.
    private func send(_ subject: Int, _ put: (OpaquePointer) -> Int32) {
        let snapshot = self.subjects[subject].subscribers.compactMap { $0 }.map { sk_subscriber_retain($0)! }
        for subscriber in snapshot {
            let status = put(subscriber)
            if status != CLibraryRunner.ok {
                self.problems.append("putting into subject \(subject)'s subscriber returned \(status)")
            }
            sk_subscriber_release(subscriber)
        }
    }

    private func run(_ testCase: ModelCase) -> ModelOutcome {
        let recorder = Recorder()
        let ctx = Unmanaged.passUnretained(recorder).toOpaque()
        var observer = sk_observer(next: { ctx, value in
            Recorder.from(ctx).record(.next(CLibraryRunner.int(value)))
        }, error: { ctx, error in
            Recorder.from(ctx).record(.error(CLibraryRunner.int(error)))
        }, completed: { ctx in
            Recorder.from(ctx).record(.completed)
        }, ctx: ctx, release: { ctx in
            Recorder.from(ctx).releases += 1
        })
        let signal = self.build(testCase.signal)
        if let signal {
            let status = sk_signal_start(&recorder.disposable, signal, &observer)
            if status != CLibraryRunner.ok {
                self.problems.append("sk_signal_start returned \(status)")
            }
            sk_signal_release(signal)
        }
        recorder.outcome.subscriptions.append(self.subscriptionCounts())
        recorder.outcome.subjectStarts.append(self.subjects.map { $0.starts })
        for (index, step) in testCase.script.enumerated() {
            recorder.step = index
            switch step {
            case let .put(i, value):
                self.put(value, into: i)
            case let .send(i, value):
                var v = CLibraryRunner.value(value)
                self.send(i) { sk_subscriber_put_next($0, &v) }
            case let .complete(i):
                self.send(i) { sk_subscriber_put_completion($0) }
            case let .fail(i, error):
                var e = CLibraryRunner.value(error)
                self.send(i) { sk_subscriber_put_error($0, &e) }
            case .dispose:
                sk_disposable_dispose(recorder.disposable)
            case .disposeOnNextEvent:
                recorder.disposeOnNext = true
            case let .putOnNextEvent(i, value):
                recorder.putOnNext = {
                    self.put(value, into: i)
                }
            case let .sendOnNextEvent(i, value):
                recorder.putOnNext = {
                    var v = CLibraryRunner.value(value)
                    self.send(i) { sk_subscriber_put_next($0, &v) }
                }
            }
            recorder.outcome.subscriptions.append(self.subscriptionCounts())
            recorder.outcome.subjectStarts.append(self.subjects.map { $0.starts })
        }
        sk_disposable_dispose(recorder.disposable)
        sk_disposable_release(recorder.disposable)
        recorder.disposable = nil
        recorder.putOnNext = nil
        for (_, signal) in self.shared {
            sk_signal_release(signal)
        }
        self.shared = [:]
        if signal != nil && recorder.releases != 1 {
            self.problems.append("the observer's release ran \(recorder.releases) times after the final dispose (once expected)")
        }
        if recorder.releases == 0 {
            // The library may still call it: keep it.
            _ = Unmanaged.passRetained(recorder)
        }
        return recorder.outcome
    }

    /// What is left once the script is over and everything is disposed and
    /// released (the pipes last): a list of problems.
    private func finish(liveBefore: Int) -> [String] {
        var leaks: [String] = []
        let counts = self.subscriptionCounts()
        if counts.contains(where: { $0 != 0 }) {
            leaks.append("subscriptions left after the final dispose (per pipe/subject): \(counts)")
        }
        for context in self.contexts where context.releases != 1 {
            leaks.append("the context of \(context.owner) was released \(context.releases) times after the final dispose (once expected)")
            if context.releases == 0 {
                // The library may still call it: keep it.
                _ = Unmanaged.passRetained(context)
            }
        }
        for subject in self.subjects {
            for subscriber in subject.subscribers {
                sk_subscriber_release(subscriber)
            }
            subject.subscribers = []
        }
        let live = sk_live_objects()
        if live != liveBefore + modelPipeCount {
            leaks.append("sk_live_objects() is \(live) after the final dispose (\(liveBefore) before the case, and the \(modelPipeCount) pipes, expected)")
        }
        for pipe in self.pipes {
            sk_pipe_release(pipe)
        }
        let after = sk_live_objects()
        if after != liveBefore {
            leaks.append("sk_live_objects() is \(after) once the pipes are released (\(liveBefore) before the case)")
        }
        self.contexts = []
        return leaks
    }
}
#endif
