/// Virtual-time queues: deterministic tests of time.
///
/// A virtual-time queue is a serial queue whose clock moves only when a test
/// moves it. Its work (`async`, `justDispatch`, `after`), the `Timer`s on it,
/// and so every time-based operator given it as their queue (`delay`,
/// `suspendAwareDelay`, `timeout`, `debounce`, `throttle`, `retry` with a
/// delay, `deliverOn`, `runOn`), run only inside `advance(by:)`,
/// `advance(to:)` and `run()`: in deadline order, ties in the order they were
/// scheduled, on the advancing thread, with the clock (`virtualNow`) at the
/// task's deadline. Work scheduled by running work runs in the same advance
/// when its deadline is not past the advance's end. `isCurrent()` is true
/// inside that work, so `async` from it runs inline, as on a serial queue.
/// `sync` from outside runs the work due now, then its block, on the
/// calling thread (or waits for the thread advancing the queue to run them).
/// `closeHostDrained()` drops the pending work and all later work. Work
/// still pending is kept (with all it holds) until it runs or the queue
/// closes, and it often holds the queue itself (an operator's timer does):
/// a test that ends with work pending calls `closeHostDrained()`, or the
/// queue and what the work holds stay alive. (`TestScheduler` closes the
/// queue it made when it goes.)
///
///     let queue = Queue.virtualTime()
///     let values = ValuePipe<Int>()
///     var seen: [(Int, Double)] = []
///     let d = (values.signal() |> debounce(0.3, queue: queue))
///         .start(next: { seen.append(($0, queue.virtualNow!)) })
///     values.putNext(1)
///     try queue.advance(by: 0.1)
///     values.putNext(2)
///     try queue.advance(by: 1)      // seen == [(2, 0.4)]
///
/// The clock counts integer nanoseconds from 0 (a duration is rounded to
/// the nearest one), so frame arithmetic is exact.
///
/// What stays on real time: the main queue (`deliverOnMainQueue`), the
/// global concurrent queues, `ThreadPool`s (`deliverOn` / `runOn` a pool),
/// and the Swift concurrency bridges; operators given one of those keep
/// their real clocks. The core has no operator that picks a global queue by
/// itself where the original lets the caller pass one.
///
/// `queue` (the dispatch queue) of a virtual-time queue is never given
/// work: code that enqueues on it directly bypasses virtual time.
extension Queue {
    /// Makes a virtual-time queue, its clock at 0.
    public static func virtualTime(name: String? = nil) -> Queue {
        return Queue(virtualTime: VirtualTimeExecutor(), name: name)
    }

    /// Whether this is a virtual-time queue.
    public var isVirtualTime: Bool {
        return self.virtualTimeExecutor != nil
    }

    /// The virtual clock in seconds since the queue was made (nil for other
    /// queues). Inside work, the deadline that work was scheduled for.
    public var virtualNow: Double? {
        guard let executor = self.virtualTimeExecutor else {
            return nil
        }
        return Double(executor.nanoseconds) / 1e9
    }

    /// The virtual clock in nanoseconds (nil for other queues).
    public var virtualNowNanoseconds: Int64? {
        return self.virtualTimeExecutor?.nanoseconds
    }

    /// How many tasks of a virtual-time queue are scheduled and have neither
    /// run nor been cancelled (an invalidated `Timer`'s task is released at
    /// once); nil for other queues.
    public var pendingVirtualWork: Int? {
        return self.virtualTimeExecutor?.pendingCount
    }

    /// Moves the clock of a virtual-time queue `seconds` forward, running on
    /// the calling thread every task due by then (see the extension's
    /// documentation). Returns how many ran.
    ///
    /// - Throws: `VirtualTimeError`: `invalidTime` for a negative or
    ///   non-finite duration, or one that would move the clock past its end
    ///   (2^63 nanoseconds, about 292 years, from its start),
    ///   `advanceFromInsideWork` when called from work of
    ///   this queue, `alreadyAdvancing` when another thread is advancing it,
    ///   `taskLimitReached` after `limit` tasks with more due, and
    ///   `notVirtualTime` for other queues. Nothing has run unless the error
    ///   is `taskLimitReached`.
    @discardableResult
    public func advance(by seconds: Double, limit: Int = Queue.defaultVirtualTaskLimit) throws(VirtualTimeError) -> Int {
        let executor = try self.requireVirtualTime()
        guard seconds >= 0, let delta = VirtualTimeExecutor.nanoseconds(seconds) else {
            throw .invalidTime(seconds)
        }
        // The end is computed from the clock under the executor's lock: read
        // here, another thread's advance in between made it a time in the
        // past (`timeInPast` for a valid duration).
        return try executor.advance(to: .after(delta, seconds: seconds), limit: limit)
    }

    /// `advance(by:)` with an exact duration in nanoseconds (`seconds`: the
    /// same duration, for the error of one past the clock's end), for
    /// SwiftSignalKitTesting's frames: the end is computed under the
    /// executor's lock, as `advance(by:)` computes it.
    package func advance(byNanoseconds delta: Int64, seconds: Double, limit: Int) throws(VirtualTimeError) -> Int {
        let executor = try self.requireVirtualTime()
        guard delta >= 0 else {
            throw .invalidTime(seconds)
        }
        return try executor.advance(to: .after(delta, seconds: seconds), limit: limit)
    }

    /// `advance(to:)` with an exact time in nanoseconds (`seconds`: the same
    /// time, for the errors), for SwiftSignalKitTesting's frames: a Double
    /// of seconds, multiplied back into nanoseconds, can be a nanosecond or
    /// more off past 2^52 ns (about 52 days).
    package func advance(toNanoseconds target: Int64, seconds: Double, limit: Int) throws(VirtualTimeError) -> Int {
        let executor = try self.requireVirtualTime()
        guard target >= 0 else {
            throw .invalidTime(seconds)
        }
        return try executor.advance(to: .time(target), limit: limit)
    }

    /// Runs `work` on a virtual-time queue at the clock's time `nanoseconds`
    /// (in the next advance when that time has passed), as `after` would,
    /// with an exact deadline; for SwiftSignalKitTesting's frames. Returns a
    /// token for `cancelVirtualWork`, or nil when `work` was dropped (the
    /// queue is closed, or is not a virtual-time queue).
    @discardableResult
    package func virtualAfter(atNanoseconds nanoseconds: Int64, _ work: @escaping () -> Void) -> UInt64? {
        return self.virtualTimeExecutor?.schedule(atNanoseconds: nanoseconds, work)
    }

    /// Drops the work of `token` (from `virtualAfter`) if it has not run:
    /// it is released here, and no longer pending.
    package func cancelVirtualWork(_ token: UInt64) {
        self.virtualTimeExecutor?.cancel(token)
    }

    /// Moves the clock of a virtual-time queue to `time` seconds since it was
    /// made, running every task due by then. Returns how many ran.
    ///
    /// - Throws: as `advance(by:)` (`invalidTime` for a negative or
    ///   non-finite time, or one at or past the clock's end, 2^63
    ///   nanoseconds), and `timeInPast` for a time before the clock.
    @discardableResult
    public func advance(to time: Double, limit: Int = Queue.defaultVirtualTaskLimit) throws(VirtualTimeError) -> Int {
        let executor = try self.requireVirtualTime()
        guard time >= 0, let target = VirtualTimeExecutor.nanoseconds(time) else {
            throw .invalidTime(time)
        }
        return try executor.advance(to: .time(target), limit: limit)
    }

    /// Runs a virtual-time queue until no work is left, moving its clock to
    /// each task's deadline in turn. Returns how many ran. Work that always
    /// schedules more (a repeating `Timer`) stops at `limit` tasks.
    ///
    /// - Throws: as `advance(by:)`.
    @discardableResult
    public func run(limit: Int = Queue.defaultVirtualTaskLimit) throws(VirtualTimeError) -> Int {
        let executor = try self.requireVirtualTime()
        return try executor.advance(to: .idle, limit: limit)
    }

    /// The task limit of one `advance` or `run` unless one is given.
    public static let defaultVirtualTaskLimit = 1_000_000

    private func requireVirtualTime() throws(VirtualTimeError) -> VirtualTimeExecutor {
        guard let executor = self.virtualTimeExecutor else {
            throw .notVirtualTime
        }
        return executor
    }
}
