import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Delays the subscription to the upstream by `timeout` seconds: a one-shot
/// `Timer` on `queue` starts the upstream when it fires, so the upstream's
/// generator runs on `queue`. Values are not delayed individually; they are
/// delivered wherever the upstream emits them.
///
/// Disposing before the timer fires invalidates it, and the upstream is never
/// started.
public func delay<T, E>(_ timeout: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let disposable = MetaDisposable()
            // Set once: by the timer (start) or by the dispose (never start).
            let consumed = Atomic<Bool>(value: false)
            let timer = Timer(timeout: timeout, repeat: false, completion: {
                if consumed.swap(true) {
                    return
                }
                disposable.set(startPassingThrough(signal, to: subscriber))
            }, queue: queue)
            // The dispose action holds the timer: it stays alive until it has
            // fired or the subscription is disposed.
            disposable.set(ActionDisposable {
                _ = consumed.swap(true)
                timer.invalidate()
            })
            timer.start()
            return disposable
        }
    }
}

/// `delay` whose countdown also runs while the system is suspended.
///
/// A timer on `queue` stops while the machine sleeps, so a plain `delay` of one
/// hour started before a night's sleep fires an hour after waking. This one
/// instead ticks every `min(granularity, timeout)` seconds (a repeating
/// `Timer`) and starts the upstream on the first tick at which the elapsed time
/// reaches `timeout`; the elapsed time is the larger of a monotonic clock that
/// counts suspension (`CLOCK_BOOTTIME` on Linux, `CLOCK_MONOTONIC` on Darwin,
/// which includes sleep there) and the wall clock. So the upstream starts at
/// most about one tick late, also after a suspension. A wall clock set
/// backwards never lengthens the delay; one set forwards can shorten it (the
/// original measures with the wall clock only).
///
/// Otherwise it behaves as `delay`: the subscription is delayed, values are
/// not, the upstream starts on `queue`, and disposing before it has started
/// means it never starts. A tick period is at least one millisecond. A
/// timeout or a granularity that is not a number means never, as for
/// `Timer` and `delay`: no tick, and the upstream never starts. On a
/// virtual-time queue both clocks are the queue's virtual clock.
///
/// Not reproduced from the original: its final wait is never shorter than
/// 0.5 s (so `suspendAwareDelay(0.1, ...)` starts the upstream after 0.5 s
/// there, after 0.1 s here), and for a timeout of an hour or more it is a
/// random 0.5 to 5 s: a policy of the app's (many timers due at once after a
/// suspension are spread out), not part of what the delay means.
public func suspendAwareDelay<T, E>(_ timeout: Double, granularity: Double = 4.0, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let disposable = MetaDisposable()
            let consumed = Atomic<Bool>(value: false)
            // NaN (a timeout or a granularity) means never, as for `Timer`
            // and `delay`: a NaN period is a timer that never ticks.
            // (`max` and `min` drop a NaN: it was a 1 ms tick for a NaN
            // granularity, and a start on the first tick for a NaN timeout,
            // which no elapsed time is below.)
            let period = timeout.isNaN || granularity.isNaN ? Double.nan : max(0.001, min(granularity, timeout))
            // Timers are not early in practice, but a tick landing a hair
            // before the deadline must not cost a whole extra period.
            let tolerance = period * 0.1
            let begin = suspendAwareNow(queue)
            let timer = Timer(timeout: period, repeat: true, completion: { timer in
                let now = suspendAwareNow(queue)
                let elapsed = max(now.monotonic - begin.monotonic, now.wall - begin.wall)
                if elapsed + tolerance < timeout {
                    return
                }
                if consumed.swap(true) {
                    return
                }
                timer.invalidate()
                disposable.set(startPassingThrough(signal, to: subscriber))
            }, queue: queue)
            disposable.set(ActionDisposable {
                _ = consumed.swap(true)
                timer.invalidate()
            })
            timer.start()
            return disposable
        }
    }
}

/// Falls back to `alternate` when the upstream is too slow to start talking.
///
/// The upstream is started at once, then, when its start returns, a one-shot
/// `Timer` of `timeout` seconds on `queue` (as in the original: on a
/// virtual-time queue, where work due at the same time runs in the order it
/// was scheduled, an upstream event due when the timer is wins). If the
/// upstream produces its first event (a value, an error or the completion)
/// before the timer fires, the timer is invalidated (or, when that event came
/// during the upstream's start, never armed) and the upstream passes through
/// untouched. (The original arms its timer when the upstream's start returns
/// even if the first event came during it, so an upstream whose first value
/// comes at once and that does not complete, such as a `Promise`'s `get()`
/// with a value, is replaced by `alternate` after `timeout` seconds: here it
/// is not, as the operator intends.) Otherwise, when the timer fires, the upstream is disposed
/// (anything it emits afterwards is dropped) and `alternate` is started, on
/// `queue`, and passes through instead. Exactly one of the two wins, even
/// when the first event and the timer race on different threads.
public func timeout<T, E>(_ timeout: Double, queue: Queue, alternate: Signal<T, E>) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let race = TimeoutRace()
            let upstreamDisposable = MetaDisposable()
            let alternateDisposable = MetaDisposable()
            // The switch to the alternate is held by the timer's completion
            // (which a closed queue drops), in a box that the race empties
            // once the upstream wins: a timer that never starts (the upstream
            // won during its own start) or never fires does not keep the
            // subscription alive through its completion. The race holds the
            // box weakly, so the upstream's callbacks, which hold the race, do
            // not keep it either.
            let action = _TimeoutAction {
                upstreamDisposable.dispose()
                alternateDisposable.set(startPassingThrough(alternate, to: subscriber))
            }
            race.action = action
            let timer = Timer(timeout: timeout, repeat: false, completion: {
                if race.decide(TimeoutRace.timedOut) {
                    action.take()?()
                }
            }, queue: queue)
            upstreamDisposable.set(signal.start(downstream: subscriber, next: { next in
                if race.upstreamWins(invalidating: timer) {
                    subscriber.putNext(next)
                }
            }, error: { error in
                if race.upstreamWins(invalidating: timer) {
                    subscriber.putError(error)
                }
            }, completed: {
                if race.upstreamWins(invalidating: timer) {
                    subscriber.putCompletion()
                }
            }))
            // Armed after the upstream's start, unless the upstream won
            // during it. An upstream winning on another thread meanwhile
            // invalidates the timer, maybe before it is started here: a
            // start after an invalidate arms it again (`Timer`), so the
            // race is read again after the start, and the timer invalidated
            // if it was decided. Either way the timer's completion, should
            // it still run, loses `decide`: nothing starts the alternate.
            if race.state.load(ordering: .acquiring) == TimeoutRace.pending {
                timer.start()
                if race.state.load(ordering: .acquiring) != TimeoutRace.pending {
                    timer.invalidate()
                }
            }
            return ActionDisposable {
                timer.invalidate()
                upstreamDisposable.dispose()
                alternateDisposable.dispose()
            }
        }
    }
}

/// What `timeout`'s timer does if it wins: switch to the alternate.
///
/// Thread-safety: `take` may be called from any thread; the action is taken
/// under the lock and run or released outside it.
private final class _TimeoutAction: @unchecked Sendable {
    private let mutex = _Mutex()
    private var action: (() -> Void)?

    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    /// Takes the action (nil once taken).
    func take() -> (() -> Void)? {
        self.mutex.lock()
        let action = self.action
        self.action = nil
        self.mutex.unlock()
        return action
    }
}

/// Which of the upstream and the timer of `timeout` came first, and (weakly)
/// what the timer does if it wins.
///
/// Thread-safety: every method may be called from any thread; `action` is
/// set before the race starts.
private final class TimeoutRace: @unchecked Sendable {
    static let pending = 0
    static let upstream = 1
    static let timedOut = 2

    let state = Synchronization.Atomic<Int>(TimeoutRace.pending)
    /// What the timer does if it wins; set once, before the race starts.
    weak var action: _TimeoutAction?

    /// Moves from pending to `outcome`; true if this call decided the race.
    func decide(_ outcome: Int) -> Bool {
        return self.state.compareExchange(expected: TimeoutRace.pending, desired: outcome, ordering: .acquiringAndReleasing).exchanged
    }

    /// True when an upstream event may pass: the upstream has won already, or
    /// wins now (and then the timer is invalidated).
    func upstreamWins(invalidating timer: Timer) -> Bool {
        let current = self.state.load(ordering: .acquiring)
        if current == TimeoutRace.upstream {
            return true
        }
        if current == TimeoutRace.timedOut {
            return false
        }
        if self.decide(TimeoutRace.upstream) {
            timer.invalidate()
            // The alternate can never start now: what it holds goes.
            withExtendedLifetime(self.action?.take()) {}
            return true
        }
        return self.state.load(ordering: .acquiring) == TimeoutRace.upstream
    }
}

/// Starts `signal`, forwarding every event to `subscriber`.
private func startPassingThrough<T, E>(_ signal: Signal<T, E>, to subscriber: Subscriber<T, E>) -> any Disposable {
    return signal.start(downstream: subscriber, next: { next in
        subscriber.putNext(next)
    }, error: { error in
        subscriber.putError(error)
    }, completed: {
        subscriber.putCompletion()
    })
}

/// Seconds on a monotonic clock that keeps counting while the system is
/// suspended, and on the wall clock; on a virtual-time queue, its clock for
/// both.
private func suspendAwareNow(_ queue: Queue) -> (monotonic: Double, wall: Double) {
    if let now = queue.virtualNow {
        return (now, now)
    }
    #if os(Linux)
    let monotonicClock = clockid_t(CLOCK_BOOTTIME)
    #else
    let monotonicClock = CLOCK_MONOTONIC
    #endif
    var monotonic = timespec()
    var wall = timespec()
    clock_gettime(monotonicClock, &monotonic)
    clock_gettime(CLOCK_REALTIME, &wall)
    return (Double(monotonic.tv_sec) + Double(monotonic.tv_nsec) / 1_000_000_000.0, Double(wall.tv_sec) + Double(wall.tv_nsec) / 1_000_000_000.0)
}
