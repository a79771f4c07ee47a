import Synchronization

/// The terminal event of a pipe (`ValuePipe.putCompletion`,
/// `SignalPipe.putError` / `putCompletion`): the error travels as `Any` (the
/// broadcaster does not know the signal's error type); each subscription
/// casts it back to its `E`.
///
/// Thread-safety: immutable; as safe to share as the error it holds.
@usableFromInline
package enum _BroadcasterTerminal: @unchecked Sendable {
    case completed
    case failed(Any)
}

extension _Broadcaster {
    /// Ends every subscription with `terminal`, and makes later
    /// subscriptions receive it at once (after the cached value, if there is
    /// one). `update` runs under the lock first (the owner records that no
    /// value will be published any more). Returns false, doing nothing, when
    /// the broadcaster has already ended or been closed.
    ///
    /// From inside a callback of this broadcaster, the terminal event is
    /// delivered after the values that thread has already published from its
    /// callbacks (every subscriber sees the values first, then the end), when
    /// the current delivery is over; from elsewhere, on the calling thread,
    /// before returning. A subscription still receiving its replay gets it
    /// after the replay, on its subscribing thread.
    @inlinable
    func terminate(_ terminal: _BroadcasterTerminal, _ update: (inout State) -> Void) -> Bool {
        self.lock()
        if self.closed || self.ended {
            self.mutex.unlock()
            return false
        }
        let previousState = self.state
        update(&self.state)
        self.terminal = terminal
        self.ended = true
        let me = Self.currentThread()
        if self.ownerThread == me {
            self.ownerTerminalPending = true
            self.ownerQueued = true
            self.mutex.unlock()
            withExtendedLifetime(previousState) {}
            return true
        }
        if let i = self.deliveringThreads.firstIndex(where: { $0.thread == me }) {
            self.deliveringThreads[i].terminalPending = true
            self.mutex.unlock()
            withExtendedLifetime(previousState) {}
            return true
        }
        self.mutex.unlock()
        withExtendedLifetime(previousState) {}
        self.deliverTerminal()
        return true
    }

    /// A subscription made after the end: the replay (if any), then the
    /// terminal event, at once, on this thread, whatever other threads are
    /// delivering (it was never in the bag: `terminateUnlisted`); nothing
    /// is registered. Out
    /// of line: the ordinary subscription pays one test of `ended` for it.
    @usableFromInline
    @inline(never)
    func subscribeAfterEnd(_ entry: Entry) {
        self.lock()
        let current = self.value
        let history = self.history?.values
        let terminal = self.terminal
        // Registered as delivering, as a replay is: the callback may end
        // its own subscription (a failing fused stage).
        let role = current != nil || history != nil ? self.registerDelivery(Self.currentThread()) : 0
        self.mutex.unlock()
        if let current {
            entry.deliver(current)
        }
        if let history {
            for value in history {
                entry.deliver(value)
            }
        }
        self.unregisterDelivery(role)
        if let terminal {
            entry.terminateUnlisted(terminal)
        }
    }

    /// Takes every subscription out of the bag and delivers the terminal
    /// event to each (a subscription whose replay is still being delivered
    /// gets it through its backlog). Outside the lock, on the calling thread.
    @inlinable
    func deliverTerminal() {
        self.lock()
        guard let terminal = self.terminal else {
            self.mutex.unlock()
            return
        }
        self.detachLentSlots()
        let entries = self.subscribers.takeAll()
        var ending: [Entry] = []
        ending.reserveCapacity(entries.count)
        for case let base? in entries {
            let entry = unsafeDowncast(base, to: Entry.self)
            if let backlog = entry.backlog {
                backlog.terminal = terminal
            } else {
                ending.append(entry)
            }
        }
        self.mutex.unlock()
        for entry in ending {
            entry.terminate(terminal)
        }
    }
}
