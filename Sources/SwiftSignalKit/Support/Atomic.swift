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
/// with the lock held, so they must not touch the same `Atomic` again (the lock
/// is not recursive) and should be short. Touching it again from inside one
/// of its closures (`with`, `modify`, `swap`), which would deadlock, stops the
/// process with a message naming the type and the reentrancy (the original
/// deadlocks silently); `tryWith` there throws `isLocked`.
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
        let thread = self.owner.enter { "Atomic<\(T.self)>.with" }
        self.mutex.lock()
        self.owner.set(thread)
        let result = f(self.value)
        self.owner.clear()
        self.mutex.unlock()
        return result
    }

    /// Like `with`, but throws `AtomicLockError.isLocked` instead of waiting
    /// when another thread holds the lock.
    public func tryWith<R>(_ f: (T) -> R) throws -> R {
        if pthread_mutex_trylock(self.mutex.storage) != 0 {
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
        let thread = self.owner.enter { "Atomic<\(T.self)>.modify" }
        self.mutex.lock()
        self.owner.set(thread)
        let result = f(self.value)
        self.value = result
        self.owner.clear()
        self.mutex.unlock()
        return result
    }

    /// The value, read under the lock without the reentrancy check, for the
    /// library's own operators (`distinctUntilChanged`, `last`), which run
    /// no closure while they hold the lock and so never take it again: the
    /// check costs a thread look-up per value on their value paths.
    @inlinable
    func _load() -> T {
        self.mutex.lock()
        let value = self.value
        self.mutex.unlock()
        return value
    }

    /// `swap(_:)` without the reentrancy check, as `_load()`.
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
        // Runs no closure: nothing to record, only the check.
        _ = self.owner.enter { "Atomic<\(T.self)>.swap" }
        self.mutex.lock()
        let previous = self.value
        self.value = value
        self.mutex.unlock()
        return previous
    }
}

/// The thread that holds a lock while the lock runs a caller's closure, so
/// that a second locking from inside that closure on the same thread (which
/// would deadlock: the locks are not recursive) stops with a message
/// instead. A relaxed word: only the holding thread stores its own identity
/// and clears it before unlocking, so a thread reads its own identity there
/// exactly while it holds the lock (a few instructions on the uncontended
/// path; an error-checking mutex cost about half the lock's time again).
/// Stored inline in its lock's owner (no allocation of its own).
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

    /// Before locking: stops the process when the calling thread holds the
    /// lock already; returns its identity.
    @inlinable func enter(_ what: () -> String) -> UInt {
        let current = _LockOwner.currentThread()
        if self.thread.load(ordering: .relaxed) == current {
            _lockReentered(what())
        }
        return current
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

/// The message of a lock taken again by the thread that holds it.
@usableFromInline @inline(never)
func _lockReentered(_ what: String) -> Never {
    // fatalError, not preconditionFailure: the message must survive -O.
    fatalError("SwiftSignalKit: \(what) called again on the thread that holds its lock (from inside a closure it runs): the lock is not recursive, and this would deadlock")
}
