import _SwiftSignalKitShims

/// What an operator's generator returns when its state object is itself the
/// disposable: disposing it disposes the state, but it holds the state
/// weakly.
///
/// The state captures the downstream subscriber, and the subscriber holds what
/// its generator returned: a strong reference here would close a cycle that
/// keeps an undisposed subscription alive after its sources have let go of it.
/// The state lives as long as something can still deliver through it (the
/// upstream and inner subscriptions' callbacks capture it), as a subscriber
/// lives as long as its source holds it (see `_SubscriberDisposable`).
///
/// Thread-safety: `dispose` may be called from any thread, any number of
/// times; the state's own `dispose` decides what repeated calls do.
@usableFromInline
final class _WeakDisposable: Disposable, @unchecked Sendable {
    @usableFromInline weak var target: (AnyObject & Disposable)?

    @inlinable
    init(_ target: AnyObject & Disposable) {
        self.target = target
    }

    @inlinable
    func dispose() {
        self.target?.dispose()
    }
}

/// `_WeakDisposable` for a state object that holds it back (the meta
/// operators' `_SignalQueueState`, `mergeMap`'s `_MergeMapState`): it keeps
/// the target unretained, and the target's deinit calls `targetEnded()`
/// (which it must, before anything else: `dispose` follows the pointer
/// until then). A Swift weak reference gives its object a side table, and
/// every retain and release of that object, such as one per inner
/// subscription of a meta operator, then takes the runtime's slow path
/// (~150 instructions per inner signal in the cost table).
///
/// `dispose` takes a strong reference with the runtime's `swift_tryRetain`
/// (`_sks_try_retain`) under the lock: when the target's deinit has begun,
/// it gets none and does nothing, and the deinit waits for the lock to
/// clear the pointer, so the pointer is never followed once the target is
/// freed.
///
/// A target that goes before the subscription was disposed (its source let
/// go of its subscriber, whose callbacks held the target) leaves the
/// disposables it had not disposed (`targetEnded(leaving:)`): the
/// upstream's, whose generator may hold something to release (an
/// `ActionDisposable` closing a descriptor). A later `dispose` disposes
/// them, as in the original, where the disposable returned downstream held
/// the upstream's: they were released undisposed.
///
/// Thread-safety: `dispose` and `targetEnded` may be called from any
/// thread; the lock is never held while the target's `dispose` runs.
@usableFromInline
final class _UnretainedDisposable<Target: AnyObject & Disposable>: Disposable, @unchecked Sendable {
    @usableFromInline let mutex = _Mutex()
    // Guarded by `mutex`.
    @exclusivity(unchecked) @usableFromInline var target: Unmanaged<Target>?
    // Guarded by `mutex`: what the target left undisposed (see above), and
    // whether a `dispose` came once the target could no longer be reached
    // (its deinit begun): what the deinit then leaves is disposed at once.
    @exclusivity(unchecked) @usableFromInline var leftover: [any Disposable] = []
    @exclusivity(unchecked) @usableFromInline var disposedAfterTarget = false

    /// Usage: `state.disposer = _UnretainedDisposable(state)` (the state
    /// holds it strongly, and its deinit calls `targetEnded()`).
    @inlinable
    init(_ target: Target) {
        self.target = Unmanaged.passUnretained(target)
    }

    @inlinable
    func dispose() {
        self.mutex.lock()
        guard let target = self.target, _sks_try_retain(target.toOpaque()) != 0 else {
            self.disposedAfterTarget = true
            let leftover = self.leftover
            self.leftover = []
            self.mutex.unlock()
            for disposable in leftover {
                disposable.dispose()
            }
            return
        }
        self.mutex.unlock()
        target.takeRetainedValue().dispose()
    }

    /// The target's deinit: `dispose` disposes `leftover` (the disposables
    /// the target had not disposed, in the order to dispose them) and
    /// nothing else from now on.
    @inlinable
    func targetEnded(leaving leftover: [any Disposable] = []) {
        self.mutex.lock()
        self.target = nil
        guard self.disposedAfterTarget else {
            self.leftover = leftover
            self.mutex.unlock()
            return
        }
        // A dispose came while the deinit ran (it found the target going).
        self.mutex.unlock()
        for disposable in leftover {
            disposable.dispose()
        }
    }
}
