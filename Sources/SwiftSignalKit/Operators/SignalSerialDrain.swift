/// Runs events pushed from any thread one at a time, in the order they were
/// pushed, without holding a lock while handling them: a thread that pushes
/// while another is handling queues its event and returns, and the handling
/// thread handles it next. Handling happens on the pushing threads, never on
/// a thread of its own.
///
/// The handler returns false to stop: the drain then drops the handler (and
/// what it captured) and every queued event, and ignores further pushes, as
/// `close()` does.
///
/// Thread-safety: `push` and `close` may be called from any thread,
/// concurrently; the handler is never run by two threads at once.
final class SignalSerialDrain<Event>: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var queue: [Event?] = []
    private var queueHead = 0
    private var draining = false
    private var handler: ((Event) -> Bool)?
    private var upstream: (any Disposable)?

    init(_ handler: @escaping (Event) -> Bool) {
        self.handler = handler
    }

    /// Handles `event` now, or after the events queued before it.
    func push(_ event: Event) {
        self.mutex.lock()
        guard let handler = self.handler else {
            self.mutex.unlock()
            return
        }
        if self.draining {
            self.queue.append(event)
            self.mutex.unlock()
            return
        }
        self.draining = true
        self.mutex.unlock()

        var event = event
        while true {
            if !handler(event) {
                self.close()
                return
            }
            self.mutex.lock()
            if self.handler == nil || self.queueHead == self.queue.count {
                self.draining = false
                self.mutex.unlock()
                return
            }
            event = self.queue[self.queueHead]!
            self.queue[self.queueHead] = nil
            self.queueHead += 1
            if self.queueHead == self.queue.count {
                self.queue.removeAll(keepingCapacity: true)
                self.queueHead = 0
            }
            self.mutex.unlock()
        }
    }

    /// Subscribes to `signal`, pushing its events as `SignalEvent`s, and
    /// returns this drain as the subscription's disposable: disposing it
    /// disposes the upstream subscription and closes the drain. The
    /// subscription is started for `downstream` (`Signal.start(downstream:)`).
    func subscribe<T, E, U, F>(to signal: Signal<T, E>, for downstream: Subscriber<U, F>) -> SignalSerialDrain<Event> where Event == SignalEvent<T, E> {
        let disposable = signal.start(downstream: downstream, next: { next in
            self.push(.Next(next))
        }, error: { error in
            self.push(.Error(error))
        }, completed: {
            self.push(.Completion)
        })
        self.mutex.lock()
        let disposeNow = self.handler == nil
        if !disposeNow {
            self.upstream = disposable
        }
        self.mutex.unlock()
        if disposeNow {
            disposable.dispose()
        }
        return self
    }

    /// Drops the handler and the queued events; further pushes are ignored.
    func close() {
        self.mutex.lock()
        let released = (self.handler, self.queue)
        let upstream = self.upstream
        self.handler = nil
        self.upstream = nil
        self.queue = []
        self.queueHead = 0
        self.mutex.unlock()
        upstream?.dispose()
        withExtendedLifetime(released) {
        }
    }

    func dispose() {
        self.close()
    }
}
