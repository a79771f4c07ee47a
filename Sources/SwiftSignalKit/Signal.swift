/// The value type of a signal that never produces values.
public enum NoValue {
}

/// The error type of a signal that never fails.
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
///
/// Thread-safety: a `Signal` is immutable; it may be started from any thread,
/// any number of times, concurrently. Events are delivered on whatever thread
/// the generator emits them (use `deliverOn` to choose one).
public final class Signal<T, E>: @unchecked Sendable {
    @usableFromInline let generator: (Subscriber<T, E>) -> any Disposable

    @inlinable
    public init(_ generator: @escaping (Subscriber<T, E>) -> any Disposable) {
        self.generator = generator
    }

    /// Subscribes with the given callbacks (each optional). Returns the
    /// disposable that cancels the subscription: after `dispose()` returns, no
    /// callback starts on the disposing thread, and the callbacks are released.
    ///
    /// Inlinable so that it is specialized in the caller's module: generic
    /// code run unspecialized looks up the metadata of `Subscriber<T, E>` at
    /// run time on every call.
    @inlinable
    public func start(next: ((T) -> Void)! = nil, error: ((E) -> Void)! = nil, completed: (() -> Void)! = nil) -> any Disposable {
        let subscriber = Subscriber<T, E>(next: next, error: error, completed: completed)
        let disposable = SubscriberDisposable(subscriber: subscriber, upstream: self.generator(subscriber))
        subscriber.assignDisposable(disposable)
        return disposable
    }

    /// The same as `start`: a subscription owned by the caller, outside any
    /// leak tracking.
    public func startStandalone(next: ((T) -> Void)! = nil, error: ((E) -> Void)! = nil, completed: (() -> Void)! = nil) -> any Disposable {
        return self.start(next: next, error: error, completed: completed)
    }

    /// Like `start`, but in debug builds the returned disposable reports a
    /// leak (with `file` and `line`) if it is released without being disposed.
    public func startStrict(next: ((T) -> Void)! = nil, error: ((E) -> Void)! = nil, completed: (() -> Void)! = nil, file: String = #file, line: Int = #line) -> any Disposable {
        return self.start(next: next, error: error, completed: completed).strict(file: file, line: line)
    }

    /// Emits `value`, then completes.
    public static func single(_ value: T) -> Signal<T, E> {
        return Signal<T, E> { subscriber in
            subscriber.putNext(value)
            subscriber.putCompletion()
            return EmptyDisposable
        }
    }

    /// Completes at once, without values.
    public static func complete() -> Signal<T, E> {
        return Signal<T, E> { subscriber in
            subscriber.putCompletion()
            return EmptyDisposable
        }
    }

    /// Fails at once with `error`.
    public static func fail(_ error: E) -> Signal<T, E> {
        return Signal<T, E> { subscriber in
            subscriber.putError(error)
            return EmptyDisposable
        }
    }

    /// Never emits anything and never terminates.
    public static func never() -> Signal<T, E> {
        return Signal<T, E> { _ in
            return EmptyDisposable
        }
    }
}
