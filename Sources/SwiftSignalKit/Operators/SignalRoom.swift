import _SwiftSignalKitShims

/// A bounded place of the block policy (the bounded buffer of `deliverOn`
/// and `onBackpressureBuffer`, `zip`'s, `mergeMap`'s and `queue`'s rings,
/// `buffer(timeSpan:)`'s window, `values(capacity:)`'s ring) as a put made
/// without waiting sees it: when such a put finds the place full, it leaves
/// its value there beyond the capacity and records the place in its scope
/// (`_SignalNoWaitScope`), and the room signal of that scope later asks the
/// place whether it has room again.
@usableFromInline
protocol _SignalRoomPlace: AnyObject {
    /// Whether the place's ring `index` (0 for a place of one ring) has
    /// room again, or the place ended (disposed, failed, closed): then
    /// nothing is left to wait for. Otherwise `wait` is registered, under
    /// the place's lock, to be woken (`_SignalRoomWait.woken()`) the next
    /// time the place wakes its waiting producers, and false is returned.
    func hasRoom(_ index: Int, orRegisters wait: _SignalRoomWait) -> Bool
}

/// The places one scope of puts made without waiting filled beyond their
/// capacity, in the order they were filled.
///
/// Thread-safety: only the thread whose scope it is touches it (through
/// the thread-local pointer), until `end` hands its places to a room.
@usableFromInline
package final class _SignalNoWaitScope {
    @usableFromInline var places: [(any _SignalRoomPlace, Int)] = []
    let outer: UnsafeMutableRawPointer?

    init(outer: UnsafeMutableRawPointer?) {
        self.outer = outer
    }

    /// The calling thread's innermost scope, or nil (outside every scope:
    /// its puts wait for room). Read only where a put of the block policy
    /// finds its place full.
    @usableFromInline
    static var current: _SignalNoWaitScope? {
        guard let pointer = _sks_nowait_scope() else {
            return nil
        }
        return Unmanaged<_SignalNoWaitScope>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Records `place` (its ring `index`) as filled beyond its capacity by
    /// a put of this scope. Off the path of values: only a full place of
    /// the block policy calls it.
    @usableFromInline @inline(never)
    func filled(_ place: any _SignalRoomPlace, _ index: Int) {
        self.places.append((place, index))
    }

    /// Begins a scope on the calling thread (nested in the current one,
    /// if any): until `end`, no put made on this thread waits for room.
    package static func begin() {
        let scope = _SignalNoWaitScope(outer: _sks_nowait_scope())
        _sks_set_nowait_scope(Unmanaged.passRetained(scope).toOpaque())
    }

    /// Whether the calling thread is inside a scope.
    package static var isActive: Bool {
        return _sks_nowait_scope() != nil
    }

    /// Ends the calling thread's innermost scope (one must be active): the
    /// room signal of the places its puts filled beyond their capacity, or
    /// nil when none was.
    package static func end() -> Signal<Never, NoError>? {
        // Invariant (the caller's: the C layer and `withoutWaitingForRoom` check it).
        let pointer = _sks_nowait_scope().unsafelyUnwrapped
        let scope = Unmanaged<_SignalNoWaitScope>.fromOpaque(pointer).takeRetainedValue()
        _sks_set_nowait_scope(scope.outer)
        if scope.places.isEmpty {
            return nil
        }
        let places = scope.places.map { _SignalRoomWait.Place(place: $0.0, index: $0.1) }
        return Signal<Never, NoError> { subscriber in
            let wait = _SignalRoomWait(places: places, subscriber: subscriber)
            wait.next()
            return ActionDisposable {
                wait.cancel()
            }
        }
    }
}

/// One subscription of a room signal: the places it has still to see with
/// room, asked one at a time; the completion once every one has room (or
/// ended, or is gone).
///
/// Thread-safety: `next` runs on the subscribing thread, then on the
/// room queue (`_SignalRoomWait.queue`) after each wake, one at a time (a wait
/// is registered with at most one place at once, and `next` returns as
/// soon as it registered); `cancel` on any thread. `lock` guards `places`
/// and `subscriber`, and is never held while a place's lock is taken or
/// the subscriber is called.
@usableFromInline
final class _SignalRoomWait: @unchecked Sendable {
    struct Place {
        /// Weak: a room signal (or its subscription) does not keep a place
        /// alive; a place that is gone has nothing to wait for. A place
        /// wakes the waits it holds in its deinit.
        weak var place: (any _SignalRoomPlace)?
        let index: Int

        init(place: any _SignalRoomPlace, index: Int) {
            self.place = place
            self.index = index
        }
    }

    private let lock = _Mutex()
    private var places: [Place]
    private var subscriber: Subscriber<Never, NoError>?

    init(places: [Place], subscriber: Subscriber<Never, NoError>) {
        self.places = places
        self.subscriber = subscriber
    }

    /// Asks the places left, in order, until one has no room (this wait is
    /// then registered with it) or none is left (the completion).
    func next() {
        while true {
            self.lock.lock()
            guard self.subscriber != nil else {
                self.lock.unlock()
                return
            }
            guard let first = self.places.first else {
                let subscriber = self.subscriber
                self.subscriber = nil
                self.lock.unlock()
                subscriber?.putCompletion()
                return
            }
            self.lock.unlock()
            if let place = first.place, !place.hasRoom(first.index, orRegisters: self) {
                // Registered: the place's wake calls `woken`.
                return
            }
            self.lock.lock()
            if !self.places.isEmpty {
                self.places.removeFirst()
            }
            self.lock.unlock()
        }
    }

    /// A place this wait was registered with woke its waiters (called
    /// under that place's lock, or from its deinit): `next` runs again on
    /// a worker, outside every lock.
    @usableFromInline
    func woken() {
        _SignalRoomWait.queue.async {
            self.next()
        }
    }

    /// Where woken waits ask their places again, and where their room
    /// signals complete: a serial queue, so that a wake never waits for a
    /// worker of the width-limited concurrent queues (whose pool adds a
    /// thread only after its monitor saw the others blocked: ~1 s).
    static let queue = Queue(name: "signalkit.room")

    /// The room signal's subscription was disposed: nothing more is asked
    /// or delivered, and the places are let go.
    func cancel() {
        self.lock.lock()
        let subscriber = self.subscriber
        self.subscriber = nil
        let places = self.places
        self.places = []
        self.lock.unlock()
        withExtendedLifetime((subscriber, places)) {}
    }
}

/// The registered room waits of one bounded place, and the wake that
/// hands them to a worker. Kept by the place beside its block policy's
/// condition; guarded by the place's lock. The waits count in the place's
/// `waiters`, so that its wake (which tests that count first) stays one
/// compare on the path of values.
@usableFromInline
struct _SignalRoomWaits {
    @usableFromInline var waits: [_SignalRoomWait] = []

    @inlinable
    init() {}

    /// A place's `hasRoom`, under its lock: when `full` (what a waiting
    /// producer would see: the ring full and the place not ended), `wait`
    /// is registered and counted in the place's `waiters`. Whether there
    /// was room.
    @usableFromInline
    mutating func hasRoom(unless full: Bool, registering wait: _SignalRoomWait, waiters: inout Int) -> Bool {
        if full {
            self.waits.append(wait)
            waiters += 1
        }
        return !full
    }

    /// A place's wake, under its lock: the producers waiting on `room` (its
    /// condition, `block` only) and every registered wait, the latter taken
    /// from the place's `waiters`.
    @usableFromInline
    mutating func wakeEvery(room: UnsafeMutablePointer<UInt32>?, waiters: inout Int) {
        if let room {
            _sks_cond_broadcast(room)
        }
        waiters -= self.wakeAll()
    }

    /// Wakes every registered wait (under the place's lock, or in its
    /// deinit); the count woken, for the place to take from its waiters.
    @usableFromInline @inline(never)
    mutating func wakeAll() -> Int {
        let waits = self.waits
        self.waits = []
        for wait in waits {
            wait.woken()
        }
        return waits.count
    }
}

/// Runs `body` with every put made on this thread never waiting for room,
/// and returns its result with the room signal of the places those puts
/// filled: nil when none was, else a signal that completes (emitting no
/// value) once each of them has room again, or has ended.
///
/// A bounded place with the `block` policy (`deliverOn(_:capacity:
/// overflow:onDrop:)`, `onBackpressureBuffer`, `zip`, `mergeMap`, `queue`,
/// `buffer(timeSpan:)`, `values(capacity:)` with `.block`) makes a producer
/// that finds it full wait for room. A put made inside `body` (by `body`
/// itself, or by a callback it runs on this thread) never waits: it leaves
/// its value in the place beyond the capacity, and the place is named in
/// the room signal. An event loop puts this way, and waits for the room
/// signal's completion before its next put, so that the loop never blocks
/// and each place holds at most its capacity plus one value per such
/// producer. Everything else is as for a put outside: the other policies,
/// and the refusals of `block` ("cannot block: ..."), are unchanged.
///
/// The room signal does not keep the places alive; its completion runs
/// on the subscribing thread when every place had room already, else on a
/// serial queue of the library's own, which all room signals share: a
/// completion that blocks delays the others. Each subscription waits on
/// its own.
///
/// Thread-safety: the scope is the calling thread's; scopes nest (an inner
/// scope's room signal names the places of its own puts only).
public func withoutWaitingForRoom<R>(_ body: () throws -> R) rethrows -> (result: R, room: Signal<Never, NoError>?) {
    _SignalNoWaitScope.begin()
    let result: R
    do {
        result = try body()
    } catch {
        _ = _SignalNoWaitScope.end()
        throw error
    }
    return (result, _SignalNoWaitScope.end())
}
