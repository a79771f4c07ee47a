/// An object confined to a queue: created there by `generate`, used there by
/// `with`, `syncWith` and `signalWith`, and released there when the
/// `QueueLocalObject` deinitializes (after the work already enqueued).
///
/// The object is created asynchronously: on a serial queue it exists before any
/// work enqueued after `init`, so `with`, `syncWith` and `signalWith` always
/// find it there; `syncWith` returns nil only if it does not exist yet (for
/// example when called from inside `generate`).
///
/// Ownership: enqueued work keeps the `QueueLocalObject` alive until it has
/// run; the signals of `signalWith` hold it weakly.
///
/// Thread-safety: `@unchecked Sendable` because the reference to the object is
/// kept under an internal lock and the object itself is only touched by work
/// running on `queue`. Every method may be called from any thread. Use a serial
/// queue: on a concurrent queue the confinement means nothing.
public final class QueueLocalObject<T: AnyObject>: @unchecked Sendable {
    /// The queue on which the object lives.
    public let queue: Queue
    private let mutex = _Mutex()
    private var valueRef: Unmanaged<T>?

    /// Enqueues `generate` on `queue` (or runs it at once when already on
    /// `queue`) and keeps the object it returns.
    public init(queue: Queue, generate: @escaping () -> T) {
        self.queue = queue
        self.queue.async {
            let value = Unmanaged.passRetained(generate())
            self.mutex.lock()
            self.valueRef = value
            self.mutex.unlock()
        }
    }

    deinit {
        self.mutex.lock()
        let valueRef = self.valueRef
        self.valueRef = nil
        self.mutex.unlock()
        if let valueRef {
            self.queue.async {
                valueRef.release()
            }
        }
    }

    private func currentObject() -> T? {
        self.mutex.lock()
        let valueRef = self.valueRef
        self.mutex.unlock()
        return valueRef?.takeUnretainedValue()
    }

    /// Enqueues `f` on the queue (or runs it at once when already on it) with
    /// the object.
    public func with(_ f: @escaping (T) -> Void) {
        self.queue.async {
            if let object = self.currentObject() {
                f(object)
            }
        }
    }

    /// Runs `f` on the queue with the object, waits for it and returns its
    /// result; nil if the object does not exist yet. Runs at once when already
    /// on the queue; otherwise it must not be called from work that the queue is
    /// waiting for (as with any synchronous dispatch).
    public func syncWith<R>(_ f: @escaping (T) -> R) -> R? {
        var result: R?
        self.queue.sync {
            if let object = self.currentObject() {
                result = f(object)
            }
        }
        return result
    }

    /// A signal that, when started, runs `f(object, subscriber)` on the queue
    /// and disposes what `f` returns when the subscription is disposed. If the
    /// subscription is disposed before `f` has run, `f` does not run. If the
    /// `QueueLocalObject` is gone when the signal is started, the signal never
    /// emits (as in the original).
    public func signalWith<R, E>(_ f: @escaping (T, Subscriber<R, E>) -> any Disposable) -> Signal<R, E> {
        return Signal { [weak self] subscriber in
            guard let self else {
                return EmptyDisposable
            }
            let disposable = MetaDisposable()
            let cancelled = Atomic<Bool>(value: false)
            self.queue.async {
                if cancelled.with({ $0 }) {
                    return
                }
                if let object = self.currentObject() {
                    disposable.set(f(object, subscriber))
                }
            }
            return ActionDisposable {
                cancelled.swap(true)
                disposable.dispose()
            }
        }
    }
}
