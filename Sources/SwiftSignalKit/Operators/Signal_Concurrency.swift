// Bridges from signals to Swift concurrency.
//
// Values cross from the thread on which the signal emits to the awaiting task.
// `T` need not be `Sendable`: as with `deliverOn`, handing a value to another
// thread is the caller's decision. `AsyncStream` and `AsyncThrowingStream`
// accept any element type, but their `yield` (like a continuation's `resume`)
// takes a `sending` value, which the compiler cannot prove for a generic
// callback parameter; the hand-over is therefore marked unchecked
// (`nonisolated(unsafe)`), so the standard stream types can be used as they are
// and no AsyncSequence of our own is needed.

/// The shared state of one `get()` / `firstValue()` call: the continuation,
/// whether the call is over and whether it resumes, and the subscription to
/// dispose when it is over.
///
/// Thread-safety: `@unchecked Sendable` because every field is under the lock;
/// the continuation is resumed and the subscription disposed outside it.
private final class FirstValueState<T>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var continuation: UnsafeContinuation<T?, Never>?
    private var finished = false
    /// Whether the call resumes once over (the `resume` of the `finish` that
    /// ended it): read by `install` when the call ended before it.
    private var resumes = false
    private var disposable: (any Disposable)?

    /// Installs the continuation. If the call is already over (the task was
    /// cancelled before it started), resumes it at once with nil when the
    /// call resumes, and otherwise leaves it suspended for ever; returns
    /// false then.
    func install(_ continuation: UnsafeContinuation<T?, Never>) -> Bool {
        self.mutex.lock()
        if self.finished {
            let resumes = self.resumes
            self.mutex.unlock()
            // Only the cancellation handler can end the call before this
            // (nothing is subscribed yet), and it ends it with nil: `get()`
            // must not resume then (it resumed with nil, and `get()` trapped
            // unwrapping it).
            if resumes {
                continuation.resume(returning: nil)
            }
            return false
        }
        self.continuation = continuation
        self.mutex.unlock()
        return true
    }

    /// Keeps the subscription, or disposes it at once if the call is over.
    func setDisposable(_ disposable: any Disposable) {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            disposable.dispose()
            return
        }
        self.disposable = disposable
        self.mutex.unlock()
    }

    /// Ends the call (the first time only): disposes the subscription, then
    /// resumes with `value` unless `resume` is false (then the task stays
    /// suspended for ever).
    func finish(_ value: T?, resume: Bool = true) {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        self.finished = true
        self.resumes = resume
        let continuation = self.continuation
        let disposable = self.disposable
        self.continuation = nil
        self.disposable = nil
        self.mutex.unlock()
        // Disposed before resuming, so that the subscription is gone when the
        // awaiting call returns.
        disposable?.dispose()
        if resume {
            nonisolated(unsafe) let value = value
            continuation?.resume(returning: value)
        }
    }
}

@available(iOS 13.0, macOS 10.15, *)
extension Signal {
    /// Subscribes, and ends `state` on the first value (resuming with it), and
    /// on an error or an empty completion (resuming with nil only when
    /// `resumeWithNil`).
    ///
    /// Through `take(1)`: the subscription ends with the first value, inside
    /// the callback, so a source that keeps emitting synchronously (a
    /// `restart` over a signal that completes at once) stops there; without
    /// it such a start never returned, and the call never did.
    private func awaitFirst(resumeWithNil: Bool) async -> T? {
        let state = FirstValueState<T>()
        let signal = self |> take(1)
        return await withTaskCancellationHandler(operation: {
            return await withUnsafeContinuation { (continuation: UnsafeContinuation<T?, Never>) in
                guard state.install(continuation) else {
                    return
                }
                let disposable = signal.start(next: { value in
                    state.finish(value)
                }, error: { _ in
                    state.finish(nil, resume: resumeWithNil)
                }, completed: {
                    state.finish(nil, resume: resumeWithNil)
                })
                state.setDisposable(disposable)
            }
        }, onCancel: {
            state.finish(nil, resume: resumeWithNil)
        })
    }

    /// Subscribes and returns the first value; the subscription is disposed by
    /// the time it returns.
    ///
    /// Returns nil, instead of waiting, when the signal completes or fails
    /// without a value, and when the task is cancelled before a value arrives
    /// (the subscription is then disposed at once). This is the variant of
    /// `get()` that cannot hang; the name says what it returns: the first
    /// value, if there is one (like `AsyncSequence.first(where:)`).
    public func firstValue() async -> T? {
        return await self.awaitFirst(resumeWithNil: true)
    }
}

@available(iOS 13.0, macOS 10.15, *)
public extension Signal where E == NoError {
    /// Subscribes and returns the first value; the subscription is disposed by
    /// the time it returns.
    ///
    /// As in the original, if the signal completes without a value, or the task
    /// is cancelled before a value arrives, this never returns: the task stays
    /// suspended for ever, and what it holds is never freed (the subscription
    /// itself is disposed). Use `firstValue()` to get nil instead.
    func get() async -> T {
        // Without a value there is no way to resume, so `awaitFirst` returns
        // only with one, in every order of the cancellation, the
        // continuation's installation and the subscription (see
        // `FirstValueState.install`).
        return await self.awaitFirst(resumeWithNil: false)!
    }

    /// The values of the signal as an `AsyncStream`, subscribed to when this
    /// property is read (like any `AsyncStream`, it can be iterated only once).
    ///
    /// Values are buffered without limit until they are consumed; the stream
    /// finishes when the signal completes. When the iteration stops early (the
    /// task is cancelled, the loop breaks, the stream is dropped), the
    /// subscription is disposed.
    ///
    /// The subscription is made on the reading thread, as `start` makes it:
    /// a signal that emits without end during its start (a `restart` over a
    /// signal that completes at once, with no `take` after it) never lets the
    /// read return, so the loop never begins and cannot break out (the values
    /// pile up in memory meanwhile). Start such a signal on another queue
    /// (`signal |> runOn(queue)`): the loop then gets its values, and breaking
    /// out of it disposes the subscription, which stops the signal. (`get()`
    /// and `firstValue()` need no such care: they take one value.)
    var values: AsyncStream<T> {
        return AsyncStream<T>(bufferingPolicy: .unbounded) { continuation in
            let disposable = MetaDisposable()
            continuation.onTermination = { _ in
                disposable.dispose()
            }
            disposable.set(self.start(next: { value in
                nonisolated(unsafe) let value = value
                continuation.yield(value)
            }, completed: {
                continuation.finish()
            }))
        }
    }
}

@available(iOS 13.0, macOS 10.15, *)
public extension Signal where E: Error {
    /// The values of the signal as an `AsyncThrowingStream`, subscribed to when
    /// this property is read (like any `AsyncThrowingStream`, it can be
    /// iterated only once).
    ///
    /// Values are buffered without limit until they are consumed; the stream
    /// finishes when the signal completes and throws the signal's error when it
    /// fails. When the iteration stops early (the task is cancelled, the loop
    /// breaks, the stream is dropped), the subscription is disposed.
    ///
    /// As for the non-throwing `values`, the subscription is made on the
    /// reading thread: a signal that emits without end during its start never
    /// lets the read return; start it on another queue (`|> runOn(queue)`).
    var values: AsyncThrowingStream<T, any Error> {
        return AsyncThrowingStream<T, any Error>(bufferingPolicy: .unbounded) { continuation in
            let disposable = MetaDisposable()
            continuation.onTermination = { _ in
                disposable.dispose()
            }
            disposable.set(self.start(next: { value in
                nonisolated(unsafe) let value = value
                continuation.yield(value)
            }, error: { error in
                continuation.finish(throwing: error)
            }, completed: {
                continuation.finish()
            }))
        }
    }
}
