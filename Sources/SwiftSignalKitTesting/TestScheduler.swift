import SwiftSignalKit

/// A virtual-time queue with a frame size: the stage of a marble test.
///
/// Give `queue` to the operators under test (`debounce(scheduler.seconds(3),
/// queue: scheduler.queue)`), build sources with `cold` and `hot`, record
/// what a signal delivers with `record`, then move the clock with
/// `advance(frames:)` or `run()` and compare the recording with a diagram:
///
///     let scheduler = TestScheduler()
///     let input = try scheduler.cold("-a-b-------c|", error: TestError())
///     let recorder = scheduler.record(input.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue))
///     try scheduler.run()
///     XCTAssertNil(recorder.mismatch("------b-----(c|)", error: TestError()))
///
/// A frame lasts `frame` seconds (1 ms unless given) of the queue's virtual
/// clock; frame 0 is the clock's 0. Frames are whole nanoseconds, so frame
/// arithmetic is exact.
///
/// A scheduler made with `init(frame:)` makes its queue and closes it when it
/// goes (its last reference released): the work still pending is dropped,
/// so that a test that ends with work pending frees what that work holds
/// (the subscriptions, recorders and test signals, which hold the queue).
///
/// Thread-safety: `advance` and `run` follow `Queue.advance` (one thread at a
/// time, never from work of the queue); the other members may be called from
/// any thread.
public final class TestScheduler: @unchecked Sendable {
    /// The virtual-time queue: give it to the operators under test.
    public let queue: Queue
    /// How long a frame lasts, in seconds (a whole number of nanoseconds).
    public let frame: Double
    /// How long a frame lasts, in nanoseconds.
    public let frameNanoseconds: Int64
    /// The queue and the frame, for the test signals and recorders: they
    /// hold this, not the scheduler, so that the scheduler can go (and
    /// close its queue) while pending work holds them.
    let clock: FrameClock
    /// Whether the scheduler made its queue (and so closes it).
    private let ownsQueue: Bool

    /// A scheduler on a new virtual-time queue whose frames last `frame`
    /// seconds, rounded to whole nanoseconds, from 1 ns to 10^9 seconds.
    /// There is no error: a frame under half a nanosecond (zero, negative
    /// or NaN too) lasts 1 ns, one over 10^9 seconds (infinity too) 10^9
    /// seconds; `frameNanoseconds` says which. (The C and Python test
    /// schedulers refuse such frames.)
    public convenience init(frame: Double = 0.001) {
        self.init(virtualTimeQueue: Queue.virtualTime(name: "SwiftSignalKitTesting.TestScheduler"), frame: frame, ownsQueue: true)
    }

    /// A scheduler on `queue`, an existing virtual-time queue (its frame 0
    /// is the clock's 0), whose frames last `frame` seconds, rounded to
    /// whole nanoseconds (at least one; at most 10^9 seconds). The queue
    /// stays open when the scheduler goes.
    ///
    /// - Throws: `VirtualTimeError.notVirtualTime` for another queue.
    public convenience init(queue: Queue, frame: Double = 0.001) throws(VirtualTimeError) {
        guard queue.isVirtualTime else {
            throw .notVirtualTime
        }
        self.init(virtualTimeQueue: queue, frame: frame, ownsQueue: false)
    }

    private init(virtualTimeQueue queue: Queue, frame: Double, ownsQueue: Bool) {
        let clamped = frame.isNaN ? 0 : max(0, min(frame, 1e9))
        let nanoseconds = max(1, Int64((clamped * 1e9).rounded()))
        self.frameNanoseconds = nanoseconds
        self.frame = Double(nanoseconds) / 1e9
        self.queue = queue
        self.clock = FrameClock(queue: queue, frameNanoseconds: nanoseconds)
        self.ownsQueue = ownsQueue
    }

    deinit {
        if self.ownsQueue {
            // Drops the pending work (released here), which breaks the
            // cycles through the queue: its tasks hold subscribers, which
            // hold what holds the queue.
            self.queue.closeHostDrained()
        }
    }

    /// `frames` frames in seconds, for the durations given to operators
    /// (exact while `frames` frames fit the clock's 2^63 nanoseconds).
    public func seconds(_ frames: Int) -> Double {
        guard let nanoseconds = self.nanoseconds(frames) else {
            return Double(frames) * Double(self.frameNanoseconds) / 1e9
        }
        return Double(nanoseconds) / 1e9
    }

    /// `frames` frames in nanoseconds; nil when that overflows the clock.
    private func nanoseconds(_ frames: Int) -> Int64? {
        return self.clock.nanoseconds(frames)
    }

    /// The frame the clock is in (the clock's time divided by the frame,
    /// rounded down).
    public var now: Int {
        return self.clock.now
    }

    /// The frame of a clock time in nanoseconds (rounded down).
    public func frame(ofNanoseconds nanoseconds: Int64) -> Int {
        return self.clock.frame(ofNanoseconds: nanoseconds)
    }

    /// Moves the clock `frames` frames forward, running what is due (see
    /// `Queue.advance(by:)`). Returns how many tasks ran.
    ///
    /// - Throws: `VirtualTimeError` as `Queue.advance(by:)`: `invalidTime`
    ///   for a negative count, and for one that would move the clock past its
    ///   end (2^63 nanoseconds from its start).
    @discardableResult
    public func advance(frames: Int, limit: Int = Queue.defaultVirtualTaskLimit) throws(VirtualTimeError) -> Int {
        guard frames >= 0, let duration = self.nanoseconds(frames) else {
            throw .invalidTime(self.seconds(frames))
        }
        // The end is computed from the clock under the queue's lock: read
        // here, another thread's advance in between made it a time in the past.
        return try self.queue.advance(byNanoseconds: duration, seconds: self.seconds(frames), limit: limit)
    }

    /// Moves the clock to the start of frame `frame`, running what is due.
    ///
    /// - Throws: `VirtualTimeError` as `Queue.advance(to:)`: `invalidTime`
    ///   for a negative frame, and for one that starts at or past the clock's
    ///   end (2^63 nanoseconds); `timeInPast` for a frame before the clock's.
    @discardableResult
    public func advance(toFrame frame: Int, limit: Int = Queue.defaultVirtualTaskLimit) throws(VirtualTimeError) -> Int {
        // In nanoseconds: through a Double of seconds, a frame past 2^52 ns
        // (about 52 days) could end a few nanoseconds short of its start.
        guard let target = self.nanoseconds(frame), target != Int64.max else {
            throw .invalidTime(self.seconds(frame))
        }
        return try self.queue.advance(toNanoseconds: target, seconds: self.seconds(frame), limit: limit)
    }

    /// Runs the queue until no work is left (see `Queue.run()`).
    ///
    /// - Throws: `VirtualTimeError` as `Queue.run()`.
    @discardableResult
    public func run(limit: Int = Queue.defaultVirtualTaskLimit) throws(VirtualTimeError) -> Int {
        return try self.queue.run(limit: limit)
    }

    /// Runs `work` on the queue at the start of frame `frame` (at once, in
    /// the next advance, when that frame has begun). A frame past the clock's
    /// end (2^63 nanoseconds) never comes: `work` is dropped.
    public func schedule(at frame: Int, _ work: @escaping () -> Void) {
        self.clock.scheduleCancellable(at: frame, work)
    }
}

/// A scheduler's queue and frame: what its test signals and recorders need
/// of it (see `TestScheduler.clock`).
///
/// Thread-safety: immutable; its queue's members may be called from any
/// thread.
final class FrameClock: @unchecked Sendable {
    let queue: Queue
    let frameNanoseconds: Int64

    init(queue: Queue, frameNanoseconds: Int64) {
        self.queue = queue
        self.frameNanoseconds = frameNanoseconds
    }

    /// `frames` frames in nanoseconds; nil when that overflows the clock.
    func nanoseconds(_ frames: Int) -> Int64? {
        let (product, overflow) = Int64(frames).multipliedReportingOverflow(by: self.frameNanoseconds)
        return overflow ? nil : product
    }

    /// The frame the clock is in.
    var now: Int {
        return self.frame(ofNanoseconds: self.queue.virtualNowNanoseconds ?? 0)
    }

    /// The frame of a clock time in nanoseconds (rounded down).
    func frame(ofNanoseconds nanoseconds: Int64) -> Int {
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: self.frameNanoseconds)
        return Int(remainder < 0 ? quotient - 1 : quotient)
    }

    /// `TestScheduler.schedule(at:_:)`, returning a token for `cancel`, or
    /// nil when the work was dropped (past the clock's end, or the queue is
    /// closed).
    @discardableResult
    func scheduleCancellable(at frame: Int, _ work: @escaping () -> Void) -> UInt64? {
        // At the exact nanosecond: a delay in seconds (a Double) has no whole
        // nanosecond for every delay past 2^52 ns (about 52 days), and put
        // the work a few nanoseconds before its frame. A negative frame has
        // begun: its work runs at the clock's time.
        guard let deadline = self.nanoseconds(frame) else {
            return frame < 0 ? self.queue.virtualAfter(atNanoseconds: 0, work) : nil
        }
        return self.queue.virtualAfter(atNanoseconds: deadline, work)
    }

    /// Drops the work of `token` (from `scheduleCancellable`) if it has not
    /// run.
    func cancel(_ token: UInt64) {
        self.queue.cancelVirtualWork(token)
    }
}
