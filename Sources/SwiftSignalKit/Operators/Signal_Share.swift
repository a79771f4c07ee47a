/// Shares one subscription to the upstream among all subscribers: the first
/// subscriber connects it, later ones join it (they receive only what comes
/// after they join), and when the last one leaves it is disposed; the next
/// subscriber then connects anew. A subscriber leaves when its subscription
/// ends: one that comes while the last one's end is still on its way (its
/// terminal event being delivered below, or its disposal made while its
/// start still runs) connects anew too. The upstream's error or completion reaches
/// every subscriber attached and ends the connection: a later subscriber
/// connects anew. So does an upstream that lets go of its subscriber without
/// an event (a generator that keeps no reference to it, a released pipe):
/// the attached subscriptions end without an event, as they would on the
/// upstream itself, the upstream's disposable is disposed (what its
/// generator returned runs, as after any end), and the next subscriber
/// connects anew, which runs the upstream's generator again.
///
/// Each call of `share` makes one shared connection: keep the returned
/// signal and subscribe to it, rather than calling `share` again.
///
/// Thread-safety: subscribe and dispose from any thread. Events are delivered
/// as a `SignalPipe` delivers them, on the thread the upstream emits on. A
/// disconnection disposes the upstream after the connection is gone (never
/// under a lock): a subscriber that connects anew on another thread at that
/// moment may start the next upstream subscription before the old one's
/// disposal has returned.
/// The upstream is started on the thread of the subscriber that connects,
/// after that subscriber has joined; if that subscriber ends while the start
/// is still running (a downstream `take`), the start is told to stop as any
/// operator's upstream is.
///
/// Inlinable: the per-value path (the upstream into the session's pipe, the
/// pipe to each subscriber) is made here, specialized for `T` and `E` where
/// `share` is used.
@inlinable
public func share<T, E>(_ signal: Signal<T, E>) -> Signal<T, E> {
    return _SharedConnection(signal, replayCount: 0, paths: _SharedPaths()).signal()
}

/// As `share`, and a subscriber that joins a running connection first
/// receives the last `count` values of that connection (fewer if fewer have
/// come), oldest first, on the subscribing thread. A new connection starts
/// with nothing to replay. `count` of 0 or less is `share`. A count is a
/// limit, never memory reserved: the values are kept as they come, so one
/// larger than the connection emits (`Int.max`) replays all of them.
///
/// Thread-safety: as `share`; the replay never arrives after a newer value.
@inlinable
public func replay<T, E>(_ count: Int) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return _SharedConnection(signal, replayCount: count, paths: _SharedPaths()).signal()
    }
}

/// The per-value path of a `share` / `replay` connection, made by the
/// inlinable `share` and `replay` so that it is specialized for `T` and `E`
/// (made inside the connection's own code, generic over them, every value
/// would look up their metadata: 40 times a map's cost): the upstream's
/// value callback into a session's pipe, and a subscriber's subscription to
/// that pipe, whose value callback is the downstream's composed one (the
/// share signal is fused): a value goes from the session's pipe to the
/// downstream's stages with nothing between. Those stages read and end the
/// pipe subscription's liveness (`_SubscriberLiveness`), so that a stage
/// that fails (`end(delivering:)`) has its terminal event wait for the
/// session pipe's deliveries in flight on every thread, as over any pipe;
/// the subscription's `_SharedSubscription` carries the rest to the
/// share's subscriber.
@usableFromInline
struct _SharedPaths<T, E> {
    @usableFromInline let forward: (_SharedUpstreamLink<T, E>) -> (T) -> Void
    @usableFromInline let attach: (SignalPipe<T, E>, (_SubscriberLiveness) -> ((T) -> Void)?, _SharedSubscription<T, E>) -> any Disposable

    @inlinable
    init() {
        self.forward = { link in
            return { next in
                link.pipe.putNext(next)
            }
        }
        self.attach = { pipe, makeNext, subscription in
            return pipe.broadcaster.subscribe({ liveness in
                // Before the entry is published (see `sharedMemberFlag`).
                liveness.flags._withUnsafeGuaranteedRef { flags in
                    // Invariant: a broadcaster's liveness is its entry's.
                    unsafeDowncast(flags, to: _BroadcasterEntryBase.self).markSharedMember()
                }
                return makeNext(liveness)
            }, held: subscription, { _, _ in }).0
        }
    }
}

/// What a share subscriber's subscription to its session's pipe holds until
/// it ends (`_BroadcasterEntry.held`, released when the entry ends, however
/// it ends): the share's subscriber, which carries the terminal events, the
/// disposal and the links of the walks (`Subscriber.isEnded`) as a
/// subscriber of `Signal.init(delivering:)` does. The pipe's terminal event
/// goes to it; the links made to the entry while the downstream's value
/// callback is made go to its disposable; and when the entry ends without
/// it (a stage below failed, after its terminal event; the session's pipe
/// closed), the release disposes the subscriber, which leaves the session.
///
/// Thread-safety: immutable; `receiveTerminal` is called once, by the
/// thread that ends the subscription with the pipe's terminal event;
/// `linkDownstream` only while the subscription is made; the release runs
/// on the thread that ends the subscription, outside the pipe's lock.
@usableFromInline
final class _SharedSubscription<T, E>: _BroadcasterTerminalReceiver, _BroadcasterDownstreamLinking, @unchecked Sendable {
    private let subscriber: Subscriber<T, E>
    private let disposable: _SubscriberDisposable

    init(_ subscriber: Subscriber<T, E>, _ disposable: _SubscriberDisposable) {
        self.subscriber = subscriber
        self.disposable = disposable
    }

    @usableFromInline
    func receiveTerminal(_ terminal: _BroadcasterTerminal) {
        switch terminal {
        case .completed:
            self.subscriber.putCompletion()
        case let .failed(failure):
            // The session's pipe carries the upstream's errors, of type `E`.
            if let failure = failure as? E {
                self.subscriber.putError(failure)
            }
        }
    }

    @usableFromInline
    func linkDownstream(_ downstream: _SubscriberDisposable?) {
        self.disposable.linkDownstream(downstream)
    }

    deinit {
        // Nothing when the subscriber has already ended (its terminal
        // event, or a dispose, which ended this entry).
        self.disposable.dispose()
    }
}

/// The connection of one `share` / `replay` signal: the current session (a
/// pipe and the upstream's subscription) and how many subscribers it has.
///
/// Thread-safety: every method may be called from any thread; the lock is
/// never held while a signal starts, an event is delivered or something is
/// disposed.
@usableFromInline
final class _SharedConnection<T, E>: @unchecked Sendable {
    final class Session: _SharedSessionLiveness, @unchecked Sendable {
        let pipe: SignalPipe<T, E>
        /// Whether each attached subscriber is still live (it has not
        /// ended), by the key its `join` gave it.
        var members: [Int: () -> Bool] = [:]
        var nextMember = 0
        var upstream: (any Disposable)?
        var ended = false
        /// The key of the subscriber that connected the session.
        var connector = 0
        /// What the upstream subscription links to (`Signal.start(downstream:)`),
        /// so that an operator up there that is about to start something
        /// learns that every subscriber of the session has ended
        /// (`Subscriber.isEnded`): a walk that reaches it asks
        /// `hasEnded`.
        private(set) var liveness: _SubscriberDisposable?
        private weak var connection: _SharedConnection<T, E>?

        init(replayCount: Int, connection: _SharedConnection<T, E>) {
            self.pipe = SignalPipe<T, E>(replayCount: replayCount)
            self.connection = connection
            self.liveness = _SubscriberDisposable(session: self)
        }

        /// While the upstream's start runs: the subscriber that connected
        /// the session has ended (the start stops as any operator's upstream
        /// does); after it: the session has ended, or every subscriber
        /// attached has (each one's `Subscriber.isEnded`, read outside the
        /// lock), or none is left. Only walks call it, from code that holds
        /// the session's upstream (which holds the connection).
        func hasEnded(upstreamStarting: Bool) -> Bool {
            return self.connection?.subscribersEnded(self, only: upstreamStarting ? self.connector : nil) ?? true
        }

        deinit {
            if let liveness = self.liveness {
                _stripedLock(for: liveness, .subscription) {
                    liveness.subscriber = nil
                }
            }
        }
    }

    private let mutex = _Mutex()
    private let source: Signal<T, E>
    private let replayCount: Int
    private let paths: _SharedPaths<T, E>
    private var session: Session?

    @usableFromInline
    init(_ source: Signal<T, E>, replayCount: Int, paths: _SharedPaths<T, E>) {
        self.source = source
        self.replayCount = replayCount
        self.paths = paths
    }

    /// The share signal: fused, as `Signal.init(delivering:)` builds one
    /// (a subscriber that carries the terminal events and the disposal),
    /// but the downstream's value callback is made by the session pipe's
    /// subscription, around its liveness (see `_SharedPaths`).
    @usableFromInline
    func signal() -> Signal<T, E> {
        return Signal<T, E>(fused: { makeNext, error, completed in
            let subscriber = Subscriber<T, E>(next: nil, error: error, completed: completed)
            let disposable = _SubscriberDisposable(subscriber: subscriber)
            subscriber.handle = disposable
            let (session, connect, member) = self.join(subscriber)
            let joined = self.paths.attach(session.pipe, makeNext, _SharedSubscription(subscriber, disposable))
            if let entry = joined as? _SubscriptionFlags {
                self.watch(entry, of: subscriber, in: session, as: member)
            }
            if connect {
                self.connect(session)
            }
            disposable.setUpstream(ActionDisposable {
                joined.dispose()
                self.leave(session, member)
            })
            subscriber.assignDisposable()
            guard joined is _SubscriptionFlags else {
                // The session's pipe had ended or closed: the subscriber has
                // its terminal event, or has been disposed, already.
                return disposable
            }
            // The caller disposes the entry itself: its flag, which the
            // downstream's stages read, is set before that dispose returns,
            // even when another thread's dispose has won and is still
            // ending the subscriber (a dispose of the subscriber's handle
            // returned then, and this thread delivered again: the C soak,
            // disposing from inside the callbacks). The entry's end releases
            // its `_SharedSubscription`, which disposes the subscriber.
            return joined
        })
    }

    /// The liveness of an attached subscriber, read by `subscribersEnded`.
    private static func liveness(_ subscriber: Subscriber<T, E>, _ entry: _SubscriptionFlags?) -> () -> Bool {
        return { [weak subscriber] in
            guard let subscriber else {
                return false
            }
            return !subscriber.isEnded && !(entry?.isTerminated ?? false)
        }
    }

    /// Makes the liveness of `member` read its pipe subscription's flags
    /// too: a stage below that fails ends that subscription first, and
    /// the subscriber only once its terminal event has been delivered.
    private func watch(_ entry: _SubscriptionFlags, of subscriber: Subscriber<T, E>, in session: Session, as member: Int) {
        let live = Self.liveness(subscriber, entry)
        self.mutex.lock()
        if session.members[member] != nil {
            session.members[member] = live
        }
        self.mutex.unlock()
    }

    /// Attaches `subscriber` to the running session, or to a new one, which
    /// the caller then connects. A running session whose attached
    /// subscribers have all ended counts as gone, although their disposals
    /// have not reached it yet: they ended below while a terminal event is
    /// being delivered on this thread (a `take`, a `then` part), or were
    /// disposed while their start still ran (an inner signal of
    /// `mapToSignal` replaced while it starts). Its upstream is disposed, and
    /// `subscriber` connects anew, as it would a moment later. Their
    /// liveness (`Subscriber.isEnded`) is read outside the lock.
    private func join(_ subscriber: Subscriber<T, E>) -> (Session, Bool, Int) {
        let live = Self.liveness(subscriber, nil)
        var retired: (any Disposable)?
        self.mutex.lock()
        if let current = self.session {
            let joinedSoFar = current.nextMember
            self.mutex.unlock()
            let ended = self.subscribersEnded(current)
            self.mutex.lock()
            if ended && self.session === current && current.nextMember == joinedSoFar {
                current.ended = true
                self.session = nil
                retired = current.upstream
                current.upstream = nil
            }
        }
        let connect = self.session == nil
        let session = self.session ?? Session(replayCount: self.replayCount, connection: self)
        self.session = session
        let member = session.nextMember
        session.nextMember += 1
        session.members[member] = live
        if connect {
            session.connector = member
        }
        self.mutex.unlock()
        retired?.dispose()
        return (session, connect, member)
    }

    private func connect(_ session: Session) {
        // Only the upstream's callbacks hold the link: when the upstream lets
        // go of them without a terminal event (its source went away, as a
        // released pipe does), the link ends the session the same way.
        let link = _SharedUpstreamLink(session.pipe) { [self] in
            self.abandon(session)
        }
        // The value callback holds the link (as the terminal ones do).
        let forward = self.paths.forward(link)
        // Linked to the session, not to the connecting subscriber: the
        // connection outlives that subscriber when others are attached.
        let upstream = self.source.start(downstream: session.liveness, next: forward, error: { error in
            // The session ends first, so that a subscriber reacting to the
            // error connects anew.
            self.end(session)
            link.pipe.putError(error)
        }, completed: {
            self.end(session)
            link.pipe.putCompletion()
        })
        self.mutex.lock()
        if session.ended || session.members.isEmpty {
            self.mutex.unlock()
            upstream.dispose()
            return
        }
        session.upstream = upstream
        self.mutex.unlock()
    }

    /// Whether `session` has ended, or every subscriber attached to it (or
    /// the one whose key is `only`) has ended or left; called without the
    /// lock. The checks share the dictionary's storage (no copy of n
    /// members), stop at the first live one (usually the first), and are
    /// released before the dictionary is written again, so that the write
    /// does not copy it either.
    fileprivate func subscribersEnded(_ session: Session, only member: Int? = nil) -> Bool {
        self.mutex.lock()
        let ended = session.ended
        let checks = session.members
        self.mutex.unlock()
        if ended {
            return true
        }
        if let member {
            return !(checks[member]?() ?? false)
        }
        return !checks.values.contains { $0() }
    }

    /// The upstream terminated: later subscribers connect anew.
    private func end(_ session: Session) {
        self.mutex.lock()
        session.ended = true
        if self.session === session {
            self.session = nil
        }
        let upstream = session.upstream
        session.upstream = nil
        self.mutex.unlock()
        withExtendedLifetime(upstream) {}
    }

    /// The upstream let go of its callbacks without a terminal event (or
    /// after the session ended): if the session still runs, it ends without
    /// an event, as a pipe's subscriptions do when the pipe goes. Its
    /// subscribers are then ended (their callbacks released): otherwise the
    /// session's pipe, which holds them, and their disposables, which hold
    /// the session, would keep each other alive. The upstream's disposable
    /// is disposed, as after any end: what its generator returned (an
    /// `ActionDisposable` closing a descriptor) was released undisposed, and
    /// every later connection started the generator again.
    private func abandon(_ session: Session) {
        self.mutex.lock()
        if session.ended {
            self.mutex.unlock()
            return
        }
        session.ended = true
        if self.session === session {
            self.session = nil
        }
        let upstream = session.upstream
        session.upstream = nil
        self.mutex.unlock()
        upstream?.dispose()
        session.pipe.broadcaster.close()
    }

    /// A subscriber left: the last one disconnects.
    private func leave(_ session: Session, _ member: Int) {
        self.mutex.lock()
        let check = session.members.removeValue(forKey: member)
        var upstream: (any Disposable)?
        if session.members.isEmpty {
            session.ended = true
            if self.session === session {
                self.session = nil
            }
            upstream = session.upstream
            session.upstream = nil
        }
        self.mutex.unlock()
        withExtendedLifetime(check) {}
        upstream?.dispose()
    }
}

/// What the upstream subscription of a `share` session holds: the session's
/// pipe, and an action run once the upstream has let go of it (see
/// `_SharedConnection.abandon`).
///
/// Thread-safety: immutable; `abandoned` runs on the thread that drops the
/// last reference.
@usableFromInline
final class _SharedUpstreamLink<T, E>: @unchecked Sendable {
    @usableFromInline let pipe: SignalPipe<T, E>
    private let abandoned: () -> Void

    init(_ pipe: SignalPipe<T, E>, abandoned: @escaping () -> Void) {
        self.pipe = pipe
        self.abandoned = abandoned
    }

    deinit {
        self.abandoned()
    }
}
