#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The lock of the newest original's `OSUnfairLock.swift` (which wraps
/// Darwin's `os_unfair_lock`), for code written against it: a small,
/// non-recursive lock made by `createOSUnfairLock()`.
///
/// Thread-safety: every method may be called from any thread. The lock is
/// not recursive: a thread that takes it again while it holds it stops the
/// process with a message (as `os_unfair_lock` does), rather than wait for
/// ever; `unlock` must come from the thread that locked.
public protocol OSUnfairLock: Sendable {
    /// Takes the lock, waiting while another thread holds it.
    func lock()
    /// Lets go of the lock this thread holds.
    func unlock()
    /// Takes the lock if it is free: true; false, without waiting, if not.
    func tryLock() -> Bool
    /// Runs `f` holding the lock, and returns what it returns.
    func withLock<R>(_ f: () throws -> R) rethrows -> R where R: Sendable
}

/// A new `OSUnfairLock`.
public func createOSUnfairLock() -> OSUnfairLock {
    return _OSUnfairLock()
}

/// `OSUnfairLock` over the library's own mutex, with the holding thread
/// recorded so that a recursive lock is told, not waited for.
///
/// Thread-safety: as `OSUnfairLock`; `holder` is written by the holding
/// thread only and read by the thread that asks (which, when it is the
/// holder, reads its own write).
private final class _OSUnfairLock: OSUnfairLock, @unchecked Sendable {
    private let mutex = _Mutex()
    private let holder = Synchronization.Atomic<UInt>(0)

    /// The calling thread's id (never 0).
    private static func me() -> UInt {
        #if canImport(Darwin)
        return UInt(bitPattern: pthread_self())
        #else
        return UInt(pthread_self())
        #endif
    }

    func lock() {
        let me = _OSUnfairLock.me()
        if self.holder.load(ordering: .relaxed) == me {
            // Not the library's invariant: the caller's mistake, which the
            // API cannot report (`lock()` returns nothing, as the
            // original's), and which `os_unfair_lock` stops the process
            // for too; the alternative is waiting for ever. In words in
            // every build (a precondition's message is not kept in -O).
            fatalError("OSUnfairLock: locked again by the thread that holds it (the lock is not recursive)")
        }
        self.mutex.lock()
        self.holder.store(me, ordering: .relaxed)
    }

    func unlock() {
        self.holder.store(0, ordering: .relaxed)
        self.mutex.unlock()
    }

    func tryLock() -> Bool {
        let me = _OSUnfairLock.me()
        if self.holder.load(ordering: .relaxed) == me || !self.mutex.tryLock() {
            return false
        }
        self.holder.store(me, ordering: .relaxed)
        return true
    }

    func withLock<R>(_ f: () throws -> R) rethrows -> R where R: Sendable {
        self.lock()
        defer { self.unlock() }
        return try f()
    }
}
