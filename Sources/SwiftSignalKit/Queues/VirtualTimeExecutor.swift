import Dispatch
import _SwiftSignalKitShims

/// The error thrown by `Queue.advance(by:)`, `advance(to:)` and `run()`.
///
/// Thread-safety: an immutable value, safe to share between threads.
public enum VirtualTimeError: Error, Equatable, CustomStringConvertible {
    /// Called from work running on the same virtual-time queue: work cannot
    /// move the clock it runs on. Nothing ran.
    case advanceFromInsideWork
    /// Another thread is advancing this queue; nothing ran.
    case alreadyAdvancing
    /// `advance(to:)` to a time before the queue's clock; nothing ran.
    case timeInPast(now: Double, requested: Double)
    /// A negative, infinite or not-a-number duration or time, or a finite one
    /// that would move the clock past its end (2^63 nanoseconds, about 292
    /// years, from its start; for a duration, counted from where the clock
    /// is); nothing ran. The message tells the two apart.
    case invalidTime(Double)
    /// `limit` tasks ran and more were due (work that keeps scheduling work,
    /// such as a repeating timer under `run()`): the clock stopped at the
    /// deadline of the last task that ran.
    case taskLimitReached(ran: Int)
    /// The queue is not a virtual-time queue.
    case notVirtualTime

    /// A message naming what went wrong.
    public var description: String {
        switch self {
        case .advanceFromInsideWork:
            return "a virtual-time queue cannot be advanced from work running on it"
        case .alreadyAdvancing:
            return "another thread is advancing this virtual-time queue"
        case let .timeInPast(now, requested):
            return "the time \(requested) s is before the queue's clock (\(now) s): a virtual clock only moves forward"
        case let .invalidTime(value):
            // One case for both, not a new one: a new case would break the
            // exhaustive switches of users. What is finite and not negative
            // can only have been refused for the clock's end.
            if value.isFinite && value >= 0 {
                return "\(value) s moves the clock past its end (2^63 ns, about 292 years, from its start)"
            }
            return "\(value) is not a valid duration or time (finite, >= 0)"
        case let .taskLimitReached(ran):
            return "\(ran) tasks ran and more were due: the task limit was reached"
        case .notVirtualTime:
            return "the queue is not a virtual-time queue"
        }
    }
}

/// The scheduled work of a virtual-time queue: tasks keyed by a deadline on a
/// clock of integer nanoseconds that moves only when a caller advances it.
///
/// Work runs in deadline order, ties in the order it was scheduled, on the
/// advancing thread, outside the lock; while it runs, the queue is current on
/// that thread. A task cancelled before it ran (`cancel`) is released at once,
/// on the cancelling thread. `close()` drops every pending task and every
/// later one.
///
/// Thread-safety: every method may be called from any thread; one thread at a
/// time advances (a second one gets `alreadyAdvancing`).
final class VirtualTimeExecutor: QueueExecutor, @unchecked Sendable {
    /// The key of one scheduled task.
    private struct Key: Comparable {
        let deadline: Int64
        let sequence: UInt64

        static func < (lhs: Key, rhs: Key) -> Bool {
            return (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
        }
    }

    private let mutex = _Mutex()
    // Guarded by `mutex` (which is why the exclusivity checks are off).
    @exclusivity(unchecked) private var now: Int64 = 0
    @exclusivity(unchecked) private var heap: [Key] = []
    // The tasks not yet run nor cancelled, by sequence number; a key in
    // `heap` without a task here was cancelled.
    @exclusivity(unchecked) private var tasks: [UInt64: QueueTask] = [:]
    @exclusivity(unchecked) private var nextSequence: UInt64 = 0
    @exclusivity(unchecked) private var advancing = false
    @exclusivity(unchecked) private var closed = false

    /// The clock, in nanoseconds since the queue was made.
    var nanoseconds: Int64 {
        self.mutex.lock()
        defer { self.mutex.unlock() }
        return self.now
    }

    /// The number of tasks scheduled and neither run nor cancelled.
    var pendingCount: Int {
        self.mutex.lock()
        defer { self.mutex.unlock() }
        return self.tasks.count
    }

    /// `seconds` as nanoseconds, rounded to the nearest one; nil for a
    /// duration the clock cannot represent (2^63 ns or more, infinity, NaN).
    static func nanoseconds(_ seconds: Double) -> Int64? {
        // NaN first: `max(0.0, .nan)` is 0.
        if seconds.isNaN {
            return nil
        }
        let value = max(0.0, seconds) * 1e9
        if !(value < Double(Int64.max)) {
            return nil
        }
        return Int64(value.rounded())
    }

    override func enqueue(_ task: @escaping () -> Void) {
        _ = self.schedule(afterNanoseconds: 0, task)
    }

    override func enqueue(_ task: @escaping () -> Void, ifDropped dropped: any QueueDropObserver) {
        self.mutex.lock()
        let token = self.scheduleLocked(at: self.now, QueueTask(task, ifDropped: dropped))
        if token == nil {
            // Closed: `task` is released by this scope, outside the lock.
            dropped.queueDroppedWork()
        }
    }

    override func close() {
        self.mutex.lock()
        self.closed = true
        let dropped = self.tasks
        self.tasks = [:]
        self.heap = []
        self.mutex.unlock()
        // Released here, outside the lock, their observers told; then the
        // timers' completions.
        QueueTask.tellDropped(dropped.values)
        withExtendedLifetime(dropped) {
        }
        self.dropRegisteredForClose()
    }

    /// Schedules `task` `delay` nanoseconds after the clock's current time;
    /// returns its token for `cancel`, or nil when it was dropped (the queue
    /// is closed, or the deadline is past the clock's end).
    @discardableResult
    func schedule(afterNanoseconds delay: Int64, _ task: @escaping () -> Void) -> UInt64? {
        self.mutex.lock()
        let (deadline, overflow) = self.now.addingReportingOverflow(max(0, delay))
        if overflow {
            self.mutex.unlock()
            return nil
        }
        return self.scheduleLocked(at: deadline, QueueTask(task))
    }

    /// Schedules `task` at the clock's time `deadline` in nanoseconds (at the
    /// current time when that has passed); returns its token for `cancel`,
    /// or nil when the queue is closed. The deadline is compared with the
    /// clock under the lock, so that an advance on another thread meanwhile
    /// cannot put it in the past.
    @discardableResult
    func schedule(atNanoseconds deadline: Int64, _ task: @escaping () -> Void) -> UInt64? {
        self.mutex.lock()
        return self.scheduleLocked(at: max(self.now, deadline), QueueTask(task))
    }

    /// The body of the two `schedule`s, with the lock held (released here).
    private func scheduleLocked(at deadline: Int64, _ task: QueueTask) -> UInt64? {
        if self.closed {
            self.mutex.unlock()
            return nil
        }
        let sequence = self.nextSequence
        self.nextSequence += 1
        self.tasks[sequence] = task
        self.push(Key(deadline: deadline, sequence: sequence))
        self.mutex.unlock()
        return sequence
    }

    /// Schedules `task` `seconds` after the clock's current time (see
    /// `schedule(afterNanoseconds:_:)`).
    @discardableResult
    func schedule(after seconds: Double, _ task: @escaping () -> Void) -> UInt64? {
        guard let delay = VirtualTimeExecutor.nanoseconds(seconds) else {
            return nil
        }
        return self.schedule(afterNanoseconds: delay, task)
    }

    /// Drops the task of `token` if it has not run: it is released here
    /// (and its drop observer, if any, told).
    func cancel(_ token: UInt64) {
        self.mutex.lock()
        let task = self.tasks.removeValue(forKey: token)
        self.mutex.unlock()
        task?.dropObserver?.queueDroppedWork()
    }

    /// Where an advance ends.
    enum Target {
        /// At this time (nanoseconds).
        case time(Int64)
        /// This many nanoseconds after the clock's time when the advance
        /// starts (`seconds`: the duration as given, for the error of one
        /// past the clock's end).
        case after(Int64, seconds: Double)
        /// At the clock's current time: only the work due now runs.
        case current
        /// When no work is left, at the last task's deadline.
        case idle
    }

    /// Runs, in order, every task whose deadline is at most the target's,
    /// tasks they schedule included, then sets the clock to the target.
    /// Returns how many ran.
    func advance(to end: Target, limit: Int) throws(VirtualTimeError) -> Int {
        self.mutex.lock()
        if self.advancing {
            self.mutex.unlock()
            throw self.isCurrent ? .advanceFromInsideWork : .alreadyAdvancing
        }
        let target: Int64?
        switch end {
        case let .time(time):
            target = time
        case let .after(delta, seconds):
            let (time, overflow) = self.now.addingReportingOverflow(delta)
            if overflow {
                self.mutex.unlock()
                throw .invalidTime(seconds)
            }
            target = time
        case .current:
            target = self.now
        case .idle:
            target = nil
        }
        if let target, target < self.now {
            let now = self.now
            self.mutex.unlock()
            throw .timeInPast(now: Double(now) / 1e9, requested: Double(target) / 1e9)
        }
        self.advancing = true
        self.mutex.unlock()

        // The queue this thread ran before stays its own during the advance
        // (`withQueueHold`): a sync back onto it from a task runs inline.
        return try withQueueHold { () throws(VirtualTimeError) -> Int in
            try self.runAdvance(to: target, limit: limit)
        }
    }

    /// The tasks of an advance decided by `advance(to:limit:)`, which has
    /// set `advancing`.
    private func runAdvance(to target: Int64?, limit: Int) throws(VirtualTimeError) -> Int {
        let previous = _sks_current_host_queue()
        _sks_set_current_host_queue(Unmanaged.passUnretained(self).toOpaque())
        defer {
            _sks_set_current_host_queue(previous)
        }
        var ran = 0
        while true {
            self.mutex.lock()
            // Cancelled keys are skipped here; their tasks are gone already.
            var task: QueueTask?
            while let first = self.heap.first, target.map({ first.deadline <= $0 }) ?? true {
                self.popFirst()
                if let found = self.tasks.removeValue(forKey: first.sequence) {
                    if ran >= limit {
                        // Not run: back where it was (same key, same place).
                        self.tasks[first.sequence] = found
                        self.push(first)
                        self.advancing = false
                        self.mutex.unlock()
                        throw .taskLimitReached(ran: ran)
                    }
                    self.now = max(self.now, first.deadline)
                    task = found
                    break
                }
            }
            guard let task else {
                // Decided with the lock held, together with the end of the
                // advance: work scheduled from now on finds it ended.
                if let target {
                    self.now = target
                }
                self.advancing = false
                self.mutex.unlock()
                return ran
            }
            self.mutex.unlock()
            task.run()
            ran += 1
        }
    }

    /// Runs `f` as work of this queue at the clock's current time, after the
    /// work already due now (as a serial queue's `sync` waits for the work
    /// before it), on the calling thread. When another thread is advancing
    /// the queue, that thread runs `f` (its deadline is not after that
    /// advance's end) and this one waits for it. Returns false, `f` not run,
    /// when the queue closes before `f` runs or is closed already (see
    /// `QueueExecutor.sync(_:ifDropped:)`).
    override func sync(_ f: () -> Void, ifDropped dropped: () -> Void) -> Bool {
        return self.enqueueSync(f, ifDropped: dropped, beforeWaiting: {
            do {
                _ = try self.advance(to: .current, limit: Int.max)
            } catch {
                // `alreadyAdvancing`: the other thread saw `f` before it
                // could end its advance (the end is decided under the lock).
            }
        })
    }

    // The heap: a binary min-heap of keys, with the lock held.

    private func push(_ key: Key) {
        self.heap.append(key)
        var child = self.heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if self.heap[child] < self.heap[parent] {
                self.heap.swapAt(child, parent)
                child = parent
            } else {
                break
            }
        }
    }

    private func popFirst() {
        let last = self.heap.removeLast()
        if self.heap.isEmpty {
            return
        }
        self.heap[0] = last
        var parent = 0
        let count = self.heap.count
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < count && self.heap[left] < self.heap[smallest] {
                smallest = left
            }
            if right < count && self.heap[right] < self.heap[smallest] {
                smallest = right
            }
            if smallest == parent {
                return
            }
            self.heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
