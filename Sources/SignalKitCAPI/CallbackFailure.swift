import SignalKitHeader
import SwiftSignalKit
import Synchronization

// sk_callback_fail: an operator callback failing the call it is in, as
// CPython's PyErr_SetString sets an error indicator. Each run of operator
// callbacks (one callback's call, or the calls of a chain of map and filter
// stages for one value) raises the calling thread's depth of runs
// (`sk__callback_state`, signalkit_internal.h) for its duration;
// sk_callback_fail records the error with the depth it was called at, and
// the run looks, after each callback, whether a failure of its own depth is
// pending (one load and compare). So the thread-local is reached once per
// run, not once per callback, and a callback that emits into a pipe whose
// subscription runs operator callbacks (a deeper run) keeps its own
// failure: a deeper failure recorded while an outer one is pending sets the
// outer one aside until the deeper one is taken.

@c @implementation
public func sk_callback_fail(_ error: UnsafePointer<sk_value>?) -> Int32 {
    guard let error else {
        return fail(SK_ERR_NULL_ARGUMENT, "error is NULL")
    }
    if let problem = SKValue.validate(error) {
        return fail(problem.status, "error: \(problem.message)")
    }
    // Invariant: a thread-local's address is never NULL.
    let state = sk__callback_state_here().unsafelyUnwrapped
    let depth = state.pointee.depth
    if depth == 0 {
        return fail(SK_ERR_UNSUPPORTED, "no operator callback is running on this thread (an observer's callback, a queue's work, a generator or code outside the library cannot fail this way; see sk_callback_fail in signalkit.h)")
    }
    let pending = state.pointee.failed_depth
    if pending == depth {
        return SKOK // the first failure stands
    }
    if pending != 0 {
        // An outer run's failure (its callback failed, then emitted into a
        // deeper run): set aside until this one is taken.
        SKSetAsideFailures.push(state)
    }
    SKValue(borrowing: error).copy(into: &state.pointee.error)
    state.pointee.failed_depth = depth
    return SKOK
}

/// The failures of outer runs set aside while a deeper run's is pending
/// (see above): a stack, held by the thread's state (`set_aside`,
/// retained), made only on that rare path.
///
/// Thread-safety: used only by the thread whose state holds it.
final class SKSetAsideFailures {
    var failures: [(depth: UInt32, error: sk_value)] = []

    /// Moves the pending failure of `state` onto the stack.
    static func push(_ state: UnsafeMutablePointer<sk__callback_state>) {
        let stack: SKSetAsideFailures
        if let held = state.pointee.set_aside {
            stack = Unmanaged<SKSetAsideFailures>.fromOpaque(held).takeUnretainedValue()
        } else {
            stack = SKSetAsideFailures()
            state.pointee.set_aside = Unmanaged.passRetained(stack).toOpaque()
        }
        stack.failures.append((state.pointee.failed_depth, state.pointee.error))
        state.pointee.error = sk_value()
        state.pointee.failed_depth = 0
    }

    /// Puts the newest failure set aside back as the pending one, if any
    /// (the stack is dropped once empty).
    static func pop(_ state: UnsafeMutablePointer<sk__callback_state>) {
        guard let held = state.pointee.set_aside else {
            return
        }
        let stack = Unmanaged<SKSetAsideFailures>.fromOpaque(held).takeUnretainedValue()
        // Invariant: a stack is dropped as soon as it is empty.
        let (depth, error) = stack.failures.removeLast()
        state.pointee.error = error
        state.pointee.failed_depth = depth
        if stack.failures.isEmpty {
            state.pointee.set_aside = nil
            Unmanaged<SKSetAsideFailures>.fromOpaque(held).release()
        }
    }
}

/// One run of operator callbacks on the calling thread (see above): made by
/// `withCallbackRun`, asked after each callback whether it failed. Its
/// depth is the thread's while it runs (a deeper run restores it when it
/// ends), so it keeps only the state's address: one register across the
/// callbacks.
struct SKCallbackRun {
    let state: UnsafeMutablePointer<sk__callback_state>

    /// Whether a callback of this run called sk_callback_fail: a failure is
    /// pending (a compare with 0: the usual answer), and at this run's depth
    /// (not an outer run's: read only on that rare path).
    @inline(__always)
    var failed: Bool {
        let failedDepth = self.state.pointee.failed_depth
        return _slowPath(failedDepth != 0) && failedDepth == self.state.pointee.depth
    }

    /// The error of this run's failure, taken (the thread's state holds no
    /// failure of this run afterwards). Only when `failed`.
    @inline(never)
    func takeFailure() -> SKValue {
        let error = SKValue(taking: self.state.pointee.error)
        self.state.pointee.error = sk_value()
        self.state.pointee.failed_depth = 0
        SKSetAsideFailures.pop(self.state)
        return error
    }
}

/// Runs `body` as a run of operator callbacks of the calling thread (see
/// above). `body` asks the run whether it failed after each callback it
/// calls, and takes the failure before it returns.
@inline(__always)
func withCallbackRun<R>(_ body: (SKCallbackRun) -> R) -> R {
    // Invariant: a thread-local's address is never NULL.
    let state = sk__callback_state_here().unsafelyUnwrapped
    state.pointee.depth &+= 1
    let result = body(SKCallbackRun(state: state))
    state.pointee.depth &-= 1
    return result
}

/// Calls `call` (one operator callback) as a run of its own: its result,
/// or, when it failed through sk_callback_fail, nil and the error (the
/// result then dropped by `discard`).
@inline(__always)
func callFailable<R>(_ call: () -> R, discard: (R) -> Void = { _ in }) -> (R?, SKValue?) {
    return withCallbackRun { run in
        let result = call()
        if _slowPath(run.failed) {
            discard(result)
            return (nil, run.takeFailure())
        }
        return (result, nil)
    }
}

/// Ends the subscription of `end` with the failure of `run` (one operator
/// callback's call that failed), releasing the value the callback wrote
/// (`dropping`, nil by default). Off the path of values.
@inline(never)
func failCall(_ run: SKCallbackRun, _ end: SKFailureEnd, dropping result: sk_value = sk_value()) {
    releaseFailedResult(result)
    end.fail(run.takeFailure())
}

/// The end of a subscription whose operator callback may fail (see
/// `SKStagesRun`, `failableOperator`): holds the downstream's error and
/// completion callbacks and lets exactly one terminal event through, the
/// upstream's own or the failure's.
///
/// Thread-safety: `liveness` is set once, before any value arrives; the
/// rest is immutable or atomic.
class SKFailureEnd: @unchecked Sendable {
    let error: ((SKValue) -> Void)?
    let completed: (() -> Void)?
    private let ended = Synchronization.Atomic<Bool>(false)
    @exclusivity(unchecked) var liveness: _SubscriberLiveness?

    init(error: ((SKValue) -> Void)?, completed: (() -> Void)?) {
        self.error = error
        self.completed = completed
    }

    /// Whether the subscription has ended (a terminal event let through).
    final var hasEnded: Bool {
        return self.ended.load(ordering: .acquiring)
    }

    /// Claims the one terminal event: true for the first caller only.
    private func claim() -> Bool {
        return !self.ended.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// The upstream's error, unless the subscription already ended.
    final func forwardError(_ failure: SKValue) {
        if self.claim() {
            self.deliverError(failure)
        }
    }

    /// The upstream's completion, unless the subscription already ended.
    final func forwardCompletion() {
        if self.claim() {
            self.deliverCompletion()
        }
    }

    /// Calls the downstream's error callback (the one terminal event let
    /// through); a subclass holding C callbacks of its own calls those.
    func deliverError(_ failure: SKValue) {
        self.error?(failure)
    }

    /// Calls the downstream's completion callback (see `deliverError`).
    func deliverCompletion() {
        self.completed?()
    }

    /// Ends the subscription with `failure`, a callback's: no value passes
    /// any more; the error callback runs once the value calls in flight
    /// have returned (this one included), then the upstream is disposed
    /// (`_SubscriberLiveness.end(delivering:)`). Nothing when it had ended
    /// (a dispose or the upstream's own terminal event wins). Over a
    /// constant signal, which nothing can end, the error is delivered at
    /// once (its values come from one thread, this one).
    @inline(never)
    final func fail(_ failure: SKValue) {
        guard let liveness = self.liveness else {
            return
        }
        if liveness.isTerminated {
            return
        }
        if liveness.canBeDisposed {
            _ = liveness.end(delivering: {
                if self.claim() {
                    self.deliverError(failure)
                }
            })
            return
        }
        if self.claim() {
            self.deliverError(failure)
        }
    }
}

/// The observer of sk_signal_start_failable over a signal that is no run of
/// C stages (the usual case: a pipe, an operator's result): the observer's
/// callbacks, and the subscription's end (`SKFailureEnd`), in one object,
/// the one context of the closures the subscription holds (as `SKObserver`
/// is for sk_signal_start): its value callback runs as a run of callbacks of
/// its own, which a call of sk_callback_fail fails; `release(ctx)` runs when
/// the subscription lets go of it, after the last callback has returned.
///
/// Thread-safety: immutable but for the base's `liveness` (set once, before
/// any value arrives) and its atomic flag.
final class SKFailableObserver: SKFailureEnd, @unchecked Sendable {
    let next: sk_next_fn
    let errorFunction: sk_error_fn?
    let completedFunction: sk_completed_fn?
    let ctx: UnsafeMutableRawPointer?
    let releaseFunction: sk_release_fn?

    init(_ observer: sk_observer, next: sk_next_fn) {
        self.next = next
        self.errorFunction = observer.error
        self.completedFunction = observer.completed
        self.ctx = observer.ctx
        self.releaseFunction = observer.release
        super.init(error: nil, completed: nil)
        observerMade(self, by: "sk_signal_start_failable")
    }

    deinit {
        observerGone(self, releasing: self.releaseFunction, self.ctx)
    }

    override func deliverError(_ failure: SKValue) {
        if let function = self.errorFunction {
            failure.withC { function(self.ctx, $0) }
        }
    }

    override func deliverCompletion() {
        self.completedFunction?(self.ctx)
    }

    /// One value: the callback's call as a run of its own; a failure ends
    /// the subscription (`SKFailureEnd.fail`).
    @inline(__always)
    func deliver(_ value: SKValue) {
        withCallbackRun { run in
            value.withC { self.next(self.ctx, $0) }
            if _slowPath(run.failed) {
                self.fail(run.takeFailure())
            }
        }
    }

    /// Starts `signal` with this observer, linked to `downstream` (see
    /// `linkedDownstream`) when given.
    func start(_ signal: CSignal, linkedTo downstream: CSubscriber?) -> any Disposable {
        return signal.startFusing({ liveness in
            if let downstream {
                liveness.linkDownstream(downstream)
            }
            return self.valueCallback(liveness)
        },
                                  error: self.errorFunction == nil ? nil : { self.forwardError($0) },
                                  completed: self.completedFunction == nil ? nil : { self.forwardCompletion() })
    }

    /// The value callback for the subscription whose liveness is `liveness`
    /// (see `failableOperator`: over a constant source, which nothing can
    /// dispose, values pass only while the end has not ended). Generic, as
    /// `observingNext` is, so that no conversion thunk stands between the
    /// delivery and the callback.
    @inline(never)
    private func valueCallback<T>(_ liveness: _SubscriberLiveness) -> (T) -> Void {
        // Invariant (the library's own): its only caller starts SKValue signals.
        precondition(T.self == SKValue.self, "a C observer of values other than SKValue")
        self.liveness = liveness
        if liveness.canBeDisposed {
            return { value in
                self.deliver(unsafeBitCast(value, to: SKValue.self))
            }
        }
        return { value in
            if !self.hasEnded {
                self.deliver(unsafeBitCast(value, to: SKValue.self))
            }
        }
    }
}

/// An operator whose C callback may fail (sk_callback_fail), made of a core
/// operator over a closure: `make(end)` builds the core operator for one
/// subscription, so that its closure can reach that subscription's `end`.
/// The closure calls the C function through `callFailable`; on a failure it
/// calls `end.fail(error)` (which disposes the core operator's subscription,
/// or its source's for a fused one, and delivers the error) and returns
/// what makes the core operator emit nothing, or something it then drops
/// (its subscription has ended). A constant source (`single`) cannot be
/// disposed: over one, the values are passed on only while the end has not
/// ended. The error and the completion pass through the end, which lets one
/// terminal event through.
///
/// Generic over the value type, though only ever used with `SKValue`, for
/// the reason given at `fusedStages`: written for `SKValue` alone, the
/// value callback it passes on is wrapped in two conversion thunks, called
/// on every value.
func failableOperator<T>(_ make: @escaping (SKFailureEnd) -> Signal<T, SKValue>) -> Signal<T, SKValue> {
    return Signal<T, SKValue>(fused: { makeNext, error, completed in
        let end = SKFailureEnd(error: error, completed: completed)
        return make(end).startFusing({ liveness in
            end.liveness = liveness
            let next = makeNext(liveness)
            if liveness.canBeDisposed {
                return next
            }
            guard let next else {
                return nil
            }
            return { value in
                if !end.hasEnded {
                    next(value)
                }
            }
        }, error: { end.forwardError($0) }, completed: { end.forwardCompletion() })
    })
}
