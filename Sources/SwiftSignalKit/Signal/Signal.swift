/// The value type of a signal that never produces values.
///
/// Thread-safety: has no values; nothing to share.
public enum NoValue {
}

/// The error type of a signal that never fails.
///
/// Thread-safety: has no values; nothing to share.
public enum NoError {
}

/// Returns its argument.
public func identity<A>(a: A) -> A {
    return a
}

precedencegroup PipeRight {
    associativity: left
    higherThan: DefaultPrecedence
}

infix operator |> : PipeRight

/// Applies `function` to `value`: `signal |> map { $0 + 1 } |> filter { $0 > 0 }`.
@inlinable
public func |> <T, U>(value: T, function: ((T) -> U)) -> U {
    return function(value)
}

/// A cold stream of values of type `T` that ends with at most one terminal
/// event: an error of type `E` or a completion.
///
/// Nothing runs until `start`: each call runs the generator anew with a fresh
/// `Subscriber` and returns a `Disposable` that cancels that subscription.
/// (The library's own sources — pipes, promises, `single` and the other
/// constant signals — and its synchronous operators `map`, `filter`,
/// `beforeNext`, `afterNext`, `skip`, `skipWhile`, `take`, `take(until:)`, `takeWhile`, `castError` and
/// `distinctUntilChanged` are started without a `Subscriber` of their own, delivering
/// the same events: see `_SubscriberLiveness`.)
///
/// Thread-safety: a `Signal` is immutable; it may be started from any thread,
/// any number of times, concurrently. Events are delivered on whatever thread
/// the generator emits them (use `deliverOn` to choose one).
public final class Signal<T, E>: @unchecked Sendable {
    /// Starts a fused signal (see `_SubscriberLiveness`): given the factory of the
    /// value callback, the error and the completion callbacks, subscribes the
    /// source with the operator's work composed into the value callback.
    ///
    /// `package`, as `init(fused:)` and `startFusing`: the C layer's stages
    /// (SignalKitCAPI) fuse into a chain as the core's own operators do.
    @usableFromInline package typealias FusedStart = (
        _ makeNext: (_SubscriberLiveness) -> ((T) -> Void)?,
        _ error: ((E) -> Void)?,
        _ completed: (() -> Void)?
    ) -> any Disposable

    /// The generator given to `init(_:)`; nil for a fused signal.
    @usableFromInline let generatorFunction: ((Subscriber<T, E>) -> any Disposable)?
    /// Set by the synchronous operators (`map`, `filter`, `beforeNext`,
    /// `afterNext`, `skip`, `skipWhile`, `take`, `take(until:)`, `takeWhile`, `castError`, `distinctUntilChanged`), the broadcasters' signals and the constant signals
    /// (`complete`, `fail`, `never`, and `single` of a value too big to be
    /// kept in place, see `singleStorage`): how to start this signal
    /// without a `Subscriber`.
    @usableFromInline let fused: FusedStart?
    /// Set by `then`: the two signals it runs one after the other, so that a
    /// nested chain of `then` runs as one flat sequence (see `_ThenParts`).
    @usableFromInline let thenParts: _ThenParts<T, E>?
    /// The value of a `single` whose value fits in it (`fitsInPlace`), kept
    /// in the signal: one allocation, the signal's, where a fused start
    /// that captured the value made two. Such a signal has no generator, no
    /// fused start and no parts (`isSingleInPlace`); for any other these
    /// bytes hold nothing. Raw bytes, not a `T?`: the deinit of a generic
    /// class looks up the metadata of `Optional<T>` to destroy one (about
    /// 320 instructions a signal released), where `T`'s own is at hand.
    /// Three words: the C API's value (`SKValue`, 24 bytes) fits, so that a
    /// meta operator delivers a C single without subscribing to it as it
    /// does a Swift one (`_SignalQueueState.runSingle`).
    @usableFromInline @exclusivity(unchecked) var singleStorage: (UInt64, UInt64, UInt64) = (0, 0, 0)

    /// Makes a cold signal: each `start` calls `generator` with a new
    /// subscriber to emit into, and the disposable it returns cancels that
    /// subscription.
    @inlinable
    public init(_ generator: @escaping (Subscriber<T, E>) -> any Disposable) {
        self.generatorFunction = generator
        self.fused = nil
        self.thenParts = nil
    }

    /// A fused signal: `start` uses `fused`; `generator` (for a caller that
    /// hands the signal a subscriber of its own) forwards to it.
    @inlinable
    package init(fused: @escaping FusedStart) {
        self.generatorFunction = nil
        self.fused = fused
        self.thenParts = nil
    }

    /// A `then` signal: started through `parts.run`.
    init(then parts: _ThenParts<T, E>) {
        self.generatorFunction = nil
        self.fused = nil
        self.thenParts = parts
    }

    /// A `single` signal whose value is kept in place (see
    /// `singleStorage`). Invariant: `fitsInPlace`.
    @inlinable
    init(singleInPlace value: T) {
        self.generatorFunction = nil
        self.fused = nil
        self.thenParts = nil
        withUnsafeMutablePointer(to: &self.singleStorage) { storage in
            _ = UnsafeMutableRawPointer(storage).initializeMemory(as: T.self, to: value)
        }
    }

    /// Whether a value of `T` fits in `singleStorage`.
    @inlinable
    static var fitsInPlace: Bool {
        return MemoryLayout<T>.size <= MemoryLayout<(UInt64, UInt64, UInt64)>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<(UInt64, UInt64, UInt64)>.alignment
    }

    /// Whether this is a `single` whose value is kept in place.
    @inlinable
    var isSingleInPlace: Bool {
        return self.generatorFunction == nil && self.fused == nil && self.thenParts == nil
    }

    /// The value of a `single` kept in place (a copy). Invariant:
    /// `isSingleInPlace`.
    @inlinable
    var singleValue: T {
        // Read through a copy of the bytes (a read of the property, not an
        // inout access, which ThreadSanitizer counts as a write when
        // threads start the signal at once); the value copied out of them
        // is retained as any copy.
        return withUnsafePointer(to: self.singleStorage) { storage in
            UnsafeRawPointer(storage).assumingMemoryBound(to: T.self).pointee
        }
    }

    deinit {
        // (A plain value needs nothing: the deinit is not specialized, and
        // `deinitialize` would call the runtime for it.)
        if self.isSingleInPlace && !_isPOD(T.self) {
            withUnsafeMutablePointer(to: &self.singleStorage) { storage in
                _ = UnsafeMutableRawPointer(storage).assumingMemoryBound(to: T.self).deinitialize(count: 1)
            }
        }
    }

    /// Runs the signal with a subscriber of the caller's. A fused signal's
    /// generator is built on demand (creating a fused signal allocates no
    /// generator): it forwards the subscriber's events to its fused start.
    @inlinable
    var generator: (Subscriber<T, E>) -> any Disposable {
        if let generator = self.generatorFunction {
            return generator
        }
        if self.thenParts != nil {
            // Holds the signal, not only its parts (see `_ThenParts.deinit`).
            return { subscriber in
                return self.runThen(subscriber)
            }
        }
        if self.fused == nil {
            // Invariant: a signal with no generator, fused start or parts
            // keeps its single value in place.
            let value = self.singleValue
            return { subscriber in
                subscriber.putNext(value)
                subscriber.putCompletion()
                return EmptyDisposable
            }
        }
        // Invariant: a signal has a generator, `then` parts, a single value
        // or a fused start.
        let fused = self.fused!
        return { subscriber in
            return fused({ _ in
                return { value in
                    subscriber.putNext(value)
                }
            }, { error in
                subscriber.putError(error)
            }, {
                subscriber.putCompletion()
            })
        }
    }

    /// Subscribes with the given callbacks (each optional). Returns the
    /// disposable that cancels the subscription: after `dispose()` returns, no
    /// callback starts on the disposing thread, and the callbacks are released.
    /// The subscriber is terminated before the generator's disposable is
    /// disposed, so nothing that disposal emits reaches the callbacks (the
    /// original terminates it after: there an `ActionDisposable` that calls
    /// `subscriber.putCompletion()` delivers the completion to the callbacks).
    ///
    /// Inlinable so that it is specialized in the caller's module: generic
    /// code run unspecialized looks up the metadata of `Subscriber<T, E>` at
    /// run time on every call.
    @inlinable
    public func start(next: ((T) -> Void)! = nil, error: ((E) -> Void)! = nil, completed: (() -> Void)! = nil) -> any Disposable {
        return self.startFusing({ _ in next }, error: error, completed: completed)
    }

    /// `start` for an operator's upstream: links the subscription it makes
    /// to `downstream`, the operator's own subscriber, for which it is
    /// started, so that an operator still starting inputs further up learns
    /// that the subscription ended below (`Subscriber.isEnded`). Every
    /// operator that starts a signal for its subscriber starts it this way
    /// (or links in its own `startFusing`); a user's generator that calls
    /// `start` makes no link, and nothing stops early through it. (The C
    /// library's custom operators, `sk_signal_create_over`, link the start
    /// of their upstream made by their generator: hence `package`.)
    @inlinable
    package func start<U, F>(downstream: Subscriber<U, F>, next: ((T) -> Void)? = nil, error: ((E) -> Void)? = nil, completed: (() -> Void)? = nil) -> any Disposable {
        return self.start(downstream: downstream.handle, next: next, error: error, completed: completed)
    }

    /// `start(downstream:)` given the downstream subscriber's handle.
    @inlinable
    func start(downstream: _SubscriberDisposable?, next: ((T) -> Void)? = nil, error: ((E) -> Void)? = nil, completed: (() -> Void)? = nil) -> any Disposable {
        return self.startFusing({ upstream in
            upstream.linkDownstream(downstream)
            return next
        }, error: error, completed: completed)
    }

    /// The one way a signal is started (`start` passes its value callback
    /// through): subscribes with the value callback that `makeNext` builds
    /// around the subscription (so that the composed stages of a fused chain
    /// can tell when it has terminated). A fused signal passes the request on
    /// to its own source.
    @inlinable
    package func startFusing(_ makeNext: (_SubscriberLiveness) -> ((T) -> Void)?, error: ((E) -> Void)?, completed: (() -> Void)?) -> any Disposable {
        if let fused = self.fused {
            return fused(makeNext, error, completed)
        }
        if self.generatorFunction == nil && self.thenParts == nil {
            // Invariant: with no fused start either, a single kept in place.
            return self.startSingle(makeNext, completed: completed)
        }
        let subscriber = Subscriber<T, E>(next: nil, error: error, completed: completed)
        // The disposable and the value callback are set before the subscriber
        // is published to the generator. The disposable's upstream comes
        // after; an operator that holds the disposable through the liveness
        // (`take`) may dispose it before (see `setUpstream`).
        let disposable = _SubscriberDisposable(subscriber: subscriber)
        subscriber.handle = disposable
        subscriber.next = _BorrowedCallback(makeNext(_SubscriberLiveness(disposable)))
        if let generator = self.generatorFunction {
            disposable.setUpstream(generator(subscriber))
        } else {
            disposable.setUpstream(self.runThen(subscriber))
        }
        subscriber.assignDisposable()
        return disposable
    }

    /// Starts a `single` signal: a constant source, started as the fused
    /// ones are (see `single`). Apart from `startFusing`, so that a build
    /// without optimization keeps the value's room out of the frame of
    /// every start (a pipeline as deep as SK_SIGNAL_MAX_DEPTH starts on a
    /// small stack).
    @inlinable
    func startSingle(_ makeNext: (_SubscriberLiveness) -> ((T) -> Void)?, completed: (() -> Void)?) -> any Disposable {
        makeNext(_SubscriberLiveness(_neverTerminated))?(self.singleValue)
        completed?()
        return EmptyDisposable
    }

    /// A fused signal that runs a generator of its own (the two-signal
    /// `combineLatest`): each start makes a subscriber that carries the
    /// terminal events, the termination and the disposal exactly as
    /// `startFusing`'s does for a generator, but holds no value callback.
    /// `generator` is given that subscriber and the downstream's composed
    /// value callback (built by `makeNext` around this subscription's
    /// liveness before the generator runs), which it hands to the callbacks
    /// of its inputs, which hold it for as long as they live: a value reaches
    /// the downstream with no `Subscriber.putNext` between. Whoever calls it
    /// checks `subscriber.isTerminated` first, as `putNext` would, and holds
    /// the subscriber (which holds the disposable whose flags the liveness
    /// reads, unretained).
    ///
    /// Built here, where `T` is opaque: a fused start written where `T` is a
    /// tuple would have its value callbacks reabstracted through thunks.
    @inlinable
    convenience init(delivering generator: @escaping (Subscriber<T, E>, _FusedNext<T>?) -> any Disposable) {
        self.init(fused: { makeNext, error, completed in
            let subscriber = Subscriber<T, E>(next: nil, error: error, completed: completed)
            let disposable = _SubscriberDisposable(subscriber: subscriber)
            subscriber.handle = disposable
            // Not `Optional.map`: its closure would take the callback at the
            // most general abstraction (two thunks on every call).
            var next: _FusedNext<T>?
            if let call = makeNext(_SubscriberLiveness(disposable)) {
                next = _FusedNext(call)
            }
            disposable.setUpstream(generator(subscriber, next))
            subscriber.assignDisposable()
            return disposable
        })
    }

    /// Runs a `then` signal (see `_ThenParts`). Invariant: called only for a
    /// signal that has no generator and no fused start, which has parts.
    @usableFromInline
    func runThen(_ subscriber: Subscriber<T, E>) -> any Disposable {
        return self.thenParts!.run(subscriber)
    }

    /// The same as `start`: a subscription owned by the caller, outside any
    /// leak tracking.
    public func startStandalone(next: ((T) -> Void)! = nil, error: ((E) -> Void)! = nil, completed: (() -> Void)! = nil) -> any Disposable {
        return self.start(next: next, error: error, completed: completed)
    }

    /// Like `start`, but in debug builds the returned disposable reports a
    /// leak (with `file` and `line`) if it is released without being
    /// disposed, and stops the process there (`StrictDisposable`).
    public func startStrict(next: ((T) -> Void)! = nil, error: ((E) -> Void)! = nil, completed: (() -> Void)! = nil, file: String = #file, line: Int = #line) -> any Disposable {
        return self.start(next: next, error: error, completed: completed).strict(file: file, line: line)
    }

    // The constant signals are fused sources (a `single` whose value the
    // signal keeps is started as one by `startFusing`): they call the callbacks
    // directly, with no `Subscriber`. Nothing can end such a subscription
    // while it runs (its disposable is returned only afterwards), so the
    // liveness the fused stages read is one that never terminates; the
    // callbacks are released when the start returns, as a subscriber would
    // release them on its terminal event.

    /// Emits `value`, then completes.
    @inlinable
    public static func single(_ value: T) -> Signal<T, E> {
        if Self.fitsInPlace {
            return Signal<T, E>(singleInPlace: value)
        }
        return Signal<T, E>(fused: { makeNext, _, completed in
            makeNext(_SubscriberLiveness(_neverTerminated))?(value)
            completed?()
            return EmptyDisposable
        })
    }

    /// Completes at once, without values.
    @inlinable
    public static func complete() -> Signal<T, E> {
        return Signal<T, E>(fused: { _, _, completed in
            completed?()
            return EmptyDisposable
        })
    }

    /// Fails at once with `error`.
    @inlinable
    public static func fail(_ error: E) -> Signal<T, E> {
        return Signal<T, E>(fused: { _, onError, _ in
            onError?(error)
            return EmptyDisposable
        })
    }

    /// Never emits anything and never terminates.
    @inlinable
    public static func never() -> Signal<T, E> {
        return Signal<T, E>(fused: { _, _, _ in
            return EmptyDisposable
        })
    }
}

/// The downstream's composed value callback, as `Signal.init(delivering:)`
/// hands it to its generator. A struct generic over the value type, so that
/// the callback keeps the abstraction of `(T) -> Void` whatever `T` is: for
/// a pair, a closure of the substituted type `((A, B)) -> Void` would be
/// reabstracted through a thunk on the way in and on every call.
@usableFromInline
struct _FusedNext<T> {
    @usableFromInline let call: (T) -> Void

    @inlinable
    init(_ call: @escaping (T) -> Void) {
        self.call = call
    }

    /// Calls the callback with `value` (generic, so that the callback is
    /// called as it is stored).
    @inlinable
    func callAsFunction(_ value: T) {
        self.call(value)
    }
}
