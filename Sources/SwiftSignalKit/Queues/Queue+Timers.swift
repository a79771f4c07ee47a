import _SwiftSignalKitShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The error thrown by `Queue.prepareTimers` when libdispatch's event loop
/// (its timers, and the monitor of its concurrent queues' workers) cannot be
/// set up.
///
/// Thread-safety: an immutable value, safe to share between threads.
public struct TimerSetupError: Error, Equatable, CustomStringConvertible {
    /// EMFILE, ENFILE or ENOMEM: the system refused a descriptor the timers
    /// need; ETIMEDOUT: the first timer did not fire in time.
    public let errno: Int32

    /// The error for `errno`, the reason the system gave.
    public init(errno: Int32) {
        self.errno = errno
    }

    /// What failed and why, in one line, for a log or an error message.
    public var description: String {
        if self.errno == ETIMEDOUT {
            return "the process's first dispatch timer did not fire within \(Int(Queue.timerSetupWait)) s (no thread for libdispatch's event loop?)"
        }
        return "no descriptor for libdispatch's event loop, which its timers and its concurrent queues' workers need (an epoll instance, an eventfd, a timerfd): \(String(cString: strerror(self.errno))) (errno \(self.errno))"
    }
}

extension Queue {
    /// How long `prepareTimers` waits for its probing timer, in seconds.
    static let timerSetupWait = 10.0

    /// Makes sure dispatch timers (`after`, `Timer`, and the time operators
    /// over a dispatch queue) and work on the global concurrent queues
    /// (`concurrentDefaultQueue()`, `concurrentBackgroundQueue()`) can run
    /// in this process, or throws.
    ///
    /// On Linux, libdispatch makes the descriptors of its event loop (an
    /// epoll instance and an eventfd, and a timerfd for the uptime clock,
    /// the one `DispatchTime` and so this library use) at the process's
    /// first timer, and stops the process (SIGILL) when the system refuses
    /// one. The first worker of the concurrent queues' pools sets a timer
    /// going (the monitor of those pools), so their first work needs the
    /// event loop too. The first call that succeeds checks that the three
    /// can be made, then lets libdispatch make them with a 1 ms timer and
    /// waits for it (at most `timerSetupWait` seconds): they then last as
    /// long as the process, and every later call returns at once. A call
    /// that throws scheduled nothing that can stop the process, and the
    /// next call tries again. Elsewhere, nothing to do. (The monitor opens
    /// a descriptor of its own while the concurrent queues have work
    /// pending, which this cannot make sure of: see
    /// `concurrentDefaultQueue()`.)
    ///
    /// Thread-safe; concurrent first calls wait for one another.
    public static func prepareTimers() throws(TimerSetupError) {
        let status = _sks_dispatch_timers_prepare(Queue.timerSetupWait)
        if status != 0 {
            throw TimerSetupError(errno: status)
        }
    }
}
