/// Delivers every event of the signal on `queue`: inline when the event is
/// emitted on `queue` already, enqueued otherwise.
///
/// Events emitted from one thread keep their order on a serial queue. An event
/// emitted on `queue` itself runs inline, so it can overtake events emitted
/// earlier from another thread that are still waiting (as in the original).
/// Nothing is delivered after the subscription is disposed: an event still
/// waiting is dropped when its turn comes. (An event whose delivery on the
/// queue had begun when another thread disposed may still reach its
/// callback just after that `dispose()` returned: disposing does not wait
/// for the queue, as semantics.md says of every callback on another thread.)
///
/// Events waiting for the queue are batched: a burst costs one piece of queue
/// work, not one per event (see `_DeliverOnQueueState`). Relative to other
/// work on a serial queue they keep the original's order, where each event
/// is a `queue.async` of its own: an event joins a batch only while nothing
/// else was given to the queue since, so `put(1)`, `queue.async(w)`,
/// `put(2)` run 1, w, 2, and two subscriptions delivering on one queue
/// interleave as their events were put. Work that reaches the queue
/// otherwise than through its `Queue` (`after`'s when its timer fires, or
/// work given to the dispatch queue itself) is not seen: an event put after
/// it may run before it. On a global concurrent queue the events of one
/// subscription are delivered one at a time, in order.
@inlinable
public func deliverOn<T, E>(_ queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let state = _DeliverOnQueueState(queue: queue, subscriber: subscriber)
            state.upstream = signal.start(downstream: subscriber, next: { next in
                state.put(.next(next))
            }, error: { error in
                state.put(.error(error))
            }, completed: {
                state.put(.completed)
            })
            let disposer = _UnretainedDisposable(state)
            state.disposer = disposer
            return disposer
        }
    }
}

/// `deliverOn(Queue.mainQueue())`: delivers every event on the main queue
/// (inline when emitted on the main thread).
public func deliverOnMainQueue<T, E>(_ signal: Signal<T, E>) -> Signal<T, E> {
    return signal |> deliverOn(Queue.mainQueue())
}

/// Delivers every event of the signal on `threadPool`, in order: each
/// subscription gets its own `ThreadPoolQueue`, whose tasks run one at a time.
///
/// Disposing the subscription disposes the upstream and cancels the events
/// still waiting in the pool: they are dropped without being delivered.
public func deliverOn<T, E>(_ threadPool: ThreadPool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let queue = threadPool.nextQueue()
            let cancelled = Atomic<Bool>(value: false)
            let upstream = signal.start(downstream: subscriber, next: { next in
                queue.addTask(ThreadPoolTask { state in
                    if !cancelled.with({ $0 }) && !state.cancelled.with({ $0 }) {
                        subscriber.putNext(next)
                    }
                })
            }, error: { error in
                queue.addTask(ThreadPoolTask { state in
                    if !cancelled.with({ $0 }) && !state.cancelled.with({ $0 }) {
                        subscriber.putError(error)
                    }
                })
            }, completed: {
                queue.addTask(ThreadPoolTask { state in
                    if !cancelled.with({ $0 }) && !state.cancelled.with({ $0 }) {
                        subscriber.putCompletion()
                    }
                })
            })
            return ActionDisposable {
                _ = cancelled.swap(true)
                upstream.dispose()
            }
        }
    }
}

/// Starts the upstream (runs its generator) on `queue`; events are delivered
/// wherever the upstream emits them (combine with `deliverOn` to move them).
///
/// When subscribed on `queue` already, the upstream starts inline. Otherwise
/// its start is enqueued, and if the subscription is disposed before that work
/// runs, the upstream is never started. A dispose racing with the start
/// disposes the upstream as soon as it has started.
public func runOn<T, E>(_ queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            if queue.isCurrent() {
                return signal.start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    subscriber.putError(error)
                }, completed: {
                    subscriber.putCompletion()
                })
            }
            let cancelled = Atomic<Bool>(value: false)
            let disposable = MetaDisposable()
            disposable.set(ActionDisposable {
                _ = cancelled.swap(true)
            })
            queue.justDispatch {
                if cancelled.with({ $0 }) {
                    return
                }
                disposable.set(signal.start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    subscriber.putError(error)
                }, completed: {
                    subscriber.putCompletion()
                }))
            }
            return disposable
        }
    }
}

/// Starts the upstream (runs its generator) on a thread of `threadPool`, as a
/// task on a queue of its own; events are delivered wherever the upstream emits
/// them.
///
/// The start is always enqueued, even when subscribed from a pool thread (as in
/// the original). If the subscription is disposed before the task runs, the
/// task is cancelled and the upstream is never started.
public func runOn<T, E>(_ threadPool: ThreadPool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let disposable = MetaDisposable()
            let task = ThreadPoolTask { state in
                if state.cancelled.with({ $0 }) {
                    return
                }
                disposable.set(signal.start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    subscriber.putError(error)
                }, completed: {
                    subscriber.putCompletion()
                }))
            }
            disposable.set(ActionDisposable {
                task.cancel()
            })
            threadPool.addTask(task)
            return disposable
        }
    }
}
