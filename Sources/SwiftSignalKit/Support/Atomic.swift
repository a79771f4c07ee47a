import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The error thrown by `Atomic.tryWith` when the value is locked by another caller.
///
/// Thread-safety: an immutable value, safe to share between threads.
public enum AtomicLockError: Error {
    /// The value is locked by another caller.
    case isLocked
}

/// A value protected by a mutex.
///
/// Thread-safety: every method may be called from any thread. The closures run
/// with the lock held, so they should be short. Touching the same `Atomic`
/// again from inside one of its closures, on the thread that runs it
/// (`with`, `modify`, `swap`), runs at once without locking again, as a
/// recursive lock would (the original deadlocks silently): the inner call
/// sees and may replace the value, and an outer `modify` then stores its own
/// result over whatever the inner call stored. `tryWith` there throws
/// `isLocked`.
public final class Atomic<T>: @unchecked Sendable {
    @usableFromInline let mutex = _Mutex()
    /// The thread holding `mutex` while a closure runs (`_LockOwner`).
    @usableFromInline let owner = _LockOwner()
    /// Read and written only with `mutex` held, so the runtime's dynamic
    /// exclusivity check (a call per access in a client module that inlines
    /// these methods) has nothing to find.
    @exclusivity(unchecked) @usableFromInline var value: T

    /// Makes an atomic holding `value`.
    public init(value: T) {
        self.value = value
    }

    /// Calls `f` with the current value and returns its result.
    @inlinable
    public func with<R>(_ f: (T) -> R) -> R {
        let thread = _LockOwner.currentThread()
        if self.owner.isHeld(by: thread) {
            // Called from inside one of this atomic's closures: the lock is
            // this thread's already.
            let value = self.value
            return f(value)
        }
        self.mutex.lock()
        self.owner.set(thread)
        // A copy, not the stored value borrowed: `f` may replace the stored
        // one through a nested call (see above) while it reads this one.
        let value = self.value
        let result = f(value)
        self.owner.clear()
        self.mutex.unlock()
        return result
    }

    /// Like `with`, but throws `AtomicLockError.isLocked` instead of waiting
    /// when another thread holds the lock.
    public func tryWith<R>(_ f: (T) -> R) throws -> R {
        if !self.mutex.tryLock() {
            throw AtomicLockError.isLocked
        }
        self.owner.set(_LockOwner.currentThread())
        let result = f(self.value)
        self.owner.clear()
        self.mutex.unlock()
        return result
    }

    /// Replaces the value with `f(value)` and returns the new value.
    @inlinable
    @discardableResult
    public func modify(_ f: (T) -> T) -> T {
        let thread = _LockOwner.currentThread()
        if self.owner.isHeld(by: thread) {
            // Nested in one of this atomic's closures, as in `with`.
            let value = self.value
            let result = f(value)
            self.value = result
            return result
        }
        self.mutex.lock()
        self.owner.set(thread)
        let value = self.value
        let result = f(value)
        self.value = result
        self.owner.clear()
        self.mutex.unlock()
        return result
    }

    /// The value, read under the lock without looking for a holder on this
    /// thread, for the library's own operators (`distinctUntilChanged`,
    /// `last`), which are never called from inside one of its closures: the
    /// look-up costs a thread identity per value on their value paths.
    @inlinable
    func _load() -> T {
        self.mutex.lock()
        let value = self.value
        self.mutex.unlock()
        return value
    }

    /// `swap(_:)` without looking for a holder on this thread, as `_load()`.
    @inlinable
    @discardableResult
    func _exchange(_ value: T) -> T {
        self.mutex.lock()
        let previous = self.value
        self.value = value
        self.mutex.unlock()
        return previous
    }

    /// Stores `value` and returns the previous one.
    @inlinable
    @discardableResult
    public func swap(_ value: T) -> T {
        if self.owner.isHeld(by: _LockOwner.currentThread()) {
            // Nested in one of this atomic's closures, as in `with` (it runs
            // no closure itself: nothing to record).
            let previous = self.value
            self.value = value
            return previous
        }
        self.mutex.lock()
        let previous = self.value
        self.value = value
        self.mutex.unlock()
        return previous
    }
}

/// The thread that holds a lock while the lock runs a caller's closure, so
/// that a second locking from inside that closure on the same thread (which
/// would deadlock: the mutexes are not recursive) runs at once instead, as a
/// recursive lock would. A relaxed word: only the holding thread stores its
/// own identity and clears it before unlocking, so a thread reads its own
/// identity there exactly while it holds the lock (a few instructions on the
/// uncontended path; an error-checking mutex cost about half the lock's time
/// again). Stored inline in its lock's owner (no allocation of its own).
@usableFromInline
struct _LockOwner: ~Copyable, Sendable {
    @usableFromInline let thread: Synchronization.Atomic<UInt>

    @inlinable init() {
        self.thread = Synchronization.Atomic<UInt>(0)
    }

    /// The calling thread's identity (never 0).
    @inlinable static func currentThread() -> UInt {
        #if canImport(Darwin)
        return UInt(bitPattern: pthread_self())
        #else
        return UInt(pthread_self())
        #endif
    }

    /// Whether `thread` (the caller's identity) holds the lock: it is
    /// running one of the lock's closures further up its stack.
    @inlinable func isHeld(by thread: UInt) -> Bool {
        return self.thread.load(ordering: .relaxed) == thread
    }

    /// With the lock held, before the closure runs.
    @inlinable func set(_ thread: UInt) {
        self.thread.store(thread, ordering: .relaxed)
    }

    /// With the lock held, after the closure ran.
    @inlinable func clear() {
        self.thread.store(0, ordering: .relaxed)
    }
}
