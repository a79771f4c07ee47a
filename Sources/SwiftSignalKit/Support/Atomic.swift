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
/// is not recursive) and should be short.
public final class Atomic<T>: @unchecked Sendable {
    @usableFromInline let mutex = _Mutex()
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
        self.mutex.lock()
        let result = f(self.value)
        self.mutex.unlock()
        return result
    }

    /// Like `with`, but throws `AtomicLockError.isLocked` instead of waiting
    /// when another thread holds the lock.
    public func tryWith<R>(_ f: (T) -> R) throws -> R {
        if pthread_mutex_trylock(self.mutex.storage) != 0 {
            throw AtomicLockError.isLocked
        }
        let result = f(self.value)
        self.mutex.unlock()
        return result
    }

    /// Replaces the value with `f(value)` and returns the new value.
    @inlinable
    @discardableResult
    public func modify(_ f: (T) -> T) -> T {
        self.mutex.lock()
        let result = f(self.value)
        self.value = result
        self.mutex.unlock()
        return result
    }

    /// Stores `value` and returns the previous one.
    @inlinable
    @discardableResult
    public func swap(_ value: T) -> T {
        self.mutex.lock()
        let previous = self.value
        self.value = value
        self.mutex.unlock()
        return previous
    }
}
