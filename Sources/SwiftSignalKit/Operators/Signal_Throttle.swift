/// Emits a value only once the upstream has been quiet for `delay` seconds:
/// each value replaces the pending one and restarts the countdown, and when
/// the countdown ends the pending (latest) value is emitted.
///
/// When the upstream completes, the pending value, if any, is emitted at once,
/// then the completion. An error drops the pending value and passes through.
/// Every event is delivered on `queue` (values from a `Timer` on `queue`,
/// terminal events through `queue.async`, so inline when the upstream
/// terminates on `queue`); use a serial queue to keep the order. Disposing
/// cancels the countdown and drops the pending value.
///
/// From the Objective-C twin's time-based throttling; not in the Swift original.
@inlinable
public func debounce<T, E>(_ delay: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return _timedGate(delay, queue: queue, restartOnEveryValue: true)
}

/// Emits at most one value per `delay` seconds, on the trailing edge: a value
/// arriving while no window is open opens one, and when the window ends, the
/// latest value seen during it is emitted. The next value opens the next
/// window.
///
/// When the upstream completes, the pending value, if any, is emitted at once,
/// then the completion. An error drops the pending value and passes through.
/// Every event is delivered on `queue` (values from a `Timer` on `queue`,
/// terminal events through `queue.async`, so inline when the upstream
/// terminates on `queue`); use a serial queue to keep the order. Disposing
/// cancels the window and drops the pending value.
///
/// From the Objective-C twin's time-based throttling; not in the Swift original.
@inlinable
public func throttle<T, E>(_ delay: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return _timedGate(delay, queue: queue, restartOnEveryValue: false)
}

/// The body shared by `debounce` (every value moves the deadline) and
/// `throttle` (only a value that finds no countdown running starts one):
/// one timer per countdown, whose deadline the values during it move
/// (`_TimedGateState`), so each value is still emitted `delay` after the
/// last one, as when the original restarts a timer per value.
@inlinable
func _timedGate<T, E>(_ delay: Double, queue: Queue, restartOnEveryValue: Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let state = _TimedGateState<T>(delay: delay, queue: queue, restartOnEveryValue: restartOnEveryValue)
            let upstream = signal.start(downstream: subscriber, next: { next in
                if !state.put(next) {
                    return
                }
                // No countdown ran: this value starts one.
                let timer = Timer(timeout: delay, repeat: false, completion: { timer in
                    switch state.fire(timer) {
                    case let .emit(value):
                        subscriber.putNext(value)
                    case let .wait(countdown):
                        timer.start(countdown: countdown)
                    case .nothing:
                        break
                    }
                }, queue: queue)
                if state.arm(timer) {
                    timer.start()
                }
            }, error: { error in
                let (_, timer) = state.terminate(keepingPending: false)
                timer?.invalidate()
                queue.async {
                    subscriber.putError(error)
                }
            }, completed: {
                let (pending, timer) = state.terminate(keepingPending: true)
                timer?.invalidate()
                queue.async {
                    if let pending {
                        subscriber.putNext(pending)
                    }
                    subscriber.putCompletion()
                }
            })
            return ActionDisposable {
                let (_, timer) = state.terminate(keepingPending: false)
                timer?.invalidate()
                upstream.dispose()
            }
        }
    }
}
