import Dispatch
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftSignalKit

// Helpers shared by the test files: counters and trackers, hand-driven
// sources, recorders, threads, and waits. Every wait has a deadline; nothing
// here sleeps.

// MARK: - Counting and tracking

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    /// The count; read it through `count`.
    let value = Atomic<Int>(value: 0)

    /// Adds one and returns the new count.
    @discardableResult
    func increment() -> Int {
        return self.value.modify { $0 + 1 }
    }

    /// The count so far.
    var count: Int {
        return self.value.with { $0 }
    }
}

/// Runs an action from its deinit. Captured by a closure, or kept by an object
/// under test, it tells when that closure or object is released.
final class DeinitTracker: @unchecked Sendable {
    /// What the deinit runs.
    let action: () -> Void

    /// Runs `action` when released.
    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    /// Increments `counter` when released.
    convenience init(_ counter: Counter) {
        self.init {
            counter.increment()
        }
    }

    /// Adds one to `counter` when released.
    convenience init(_ counter: Atomic<Int>) {
        self.init {
            _ = counter.modify { $0 + 1 }
        }
    }

    /// Does nothing: calling it from a closure makes the closure capture the
    /// tracker.
    func touch() {
    }

    deinit {
        self.action()
    }
}

/// Counts how many times it is disposed: every call, not only the first, so
/// that a test sees a second dispose.
final class CountingDisposable: Disposable, @unchecked Sendable {
    /// The disposals; read them through `count`.
    let counter = Counter()

    /// Counts one more disposal.
    func dispose() {
        self.counter.increment()
    }

    /// How many times `dispose()` was called.
    var count: Int {
        return self.counter.count
    }
}

/// Holds the disposable of a subscription, so that the subscription's own
/// callbacks can dispose it. It is a `MetaDisposable`: thread-safe, and a
/// dispose that comes before the set disposes what is set.
final class DisposableBox: @unchecked Sendable {
    /// The subscription's disposable, once set.
    let disposable = MetaDisposable()
}

/// A deliberately unsynchronized log, touched only from one serial context at a
/// time (a queue, the tasks of one pool queue, one pool thread):
/// ThreadSanitizer reports a race if two accesses ever overlap or lack a
/// happens-before edge.
final class UnsyncedLog<T>: @unchecked Sendable {
    /// The entries, in the order they were appended.
    var values: [T] = []
}

/// Deliberately unsynchronized state, touched only under the lock under test:
/// an overlap shows in `inside` and `overlaps` (and ThreadSanitizer reports
/// it), a lost update in `value`.
final class Unprotected: @unchecked Sendable {
    /// The updates that were made.
    var value = 0
    /// The updates running now.
    var inside = 0
    /// The updates that found another one running.
    var overlaps = 0

    /// One update: adds one to `value`, and to `overlaps` when another update
    /// is running at the same time. Call it only under the lock under test.
    func update() {
        self.inside += 1
        if self.inside != 1 {
            self.overlaps += 1
        }
        self.value += 1
        self.inside -= 1
    }
}

/// A reference type with a value, for checking when a container releases what
/// it holds.
final class Item {
    /// What the item carries.
    let value: Int

    init(_ value: Int) {
        self.value = value
    }
}

/// A value whose deinit runs a closure (which may call back into whatever held
/// the value).
final class Reentrant: Equatable {
    /// What equality compares.
    let id: Int
    /// What the deinit runs, if anything.
    var onDeinit: (() -> Void)?

    init(_ id: Int) {
        self.id = id
    }

    deinit {
        self.onDeinit?()
    }

    /// Equal when the ids are.
    static func == (lhs: Reentrant, rhs: Reentrant) -> Bool {
        return lhs.id == rhs.id
    }
}

/// The error type of the operator tests.
enum TestError: Error, Equatable {
    case first
    case second
}

/// A deterministic pseudo-random generator, so that failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    /// The seed, then the running state.
    var state: UInt64

    /// The next pseudo-random number.
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Sources

/// A hot source: what is put into it goes to every subscriber attached at the
/// time, in the order they subscribed. A subscriber leaves when its
/// subscription is disposed. Counts subscriptions and disposals.
final class TestPipe<T, E>: @unchecked Sendable {
    /// The subscribers attached now.
    let subscribers = Atomic<Bag<Subscriber<T, E>>>(value: Bag())
    /// The subscriptions made so far; read them through `subscribed`.
    let subscriptions = Counter()
    /// The subscriptions disposed so far; read them through `disposed`.
    let disposals = Counter()

    /// A signal whose subscribers are attached to the pipe until disposed.
    func signal() -> Signal<T, E> {
        return Signal { subscriber in
            let index = self.subscribers.with { bag in
                self.subscriptions.increment()
                return bag.add(subscriber)
            }
            return ActionDisposable {
                self.subscribers.with { bag in
                    bag.remove(index)
                    self.disposals.increment()
                }
            }
        }
    }

    /// How many subscribers are attached now.
    var subscriberCount: Int {
        return self.subscribers.with { $0.copyItems().count }
    }

    /// How many subscriptions were made so far.
    var subscribed: Int {
        return self.subscriptions.count
    }

    /// How many subscriptions were disposed so far.
    var disposed: Int {
        return self.disposals.count
    }

    /// Puts `value` to every subscriber attached now.
    func putNext(_ value: T) {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putNext(value)
        }
    }

    /// Puts `error` to every subscriber attached now.
    func putError(_ error: E) {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putError(error)
        }
    }

    /// Completes every subscriber attached now.
    func putCompletion() {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putCompletion()
        }
    }

    /// Puts `values`, then the completion, from a global queue; returns at
    /// once.
    func putFromAnotherThread<S: Sequence & Sendable>(_ values: S) where S.Element == T {
        DispatchQueue.global().async {
            for value in values {
                self.putNext(value)
            }
            self.putCompletion()
        }
    }
}

/// A source whose subscriber the test drives by hand: `put`, `fail` and
/// `complete` go to the subscriber of the latest start, even once that
/// subscription is disposed (so that a test sees whether the library drops
/// them). Counts starts and disposals, and on each start signals `started`
/// (for threads) and `startedEvent` (for tasks).
final class ManualSource<T, E>: @unchecked Sendable {
    /// The subscriber of the latest start.
    let current = Atomic<Subscriber<T, E>?>(value: nil)
    /// The starts so far.
    let starts = Atomic(value: 0)
    /// The disposals so far.
    let disposals = Atomic(value: 0)
    /// Signalled on each start, for a thread to wait on.
    let started = DispatchSemaphore(value: 0)
    /// Signalled on each start, for a task to await.
    let startedEvent = AsyncEvent()

    /// A signal whose every start replaces `current`.
    func signal() -> Signal<T, E> {
        return Signal { subscriber in
            self.starts.modify { $0 + 1 }
            self.current.swap(subscriber)
            self.started.signal()
            self.startedEvent.signal()
            return ActionDisposable {
                self.disposals.modify { $0 + 1 }
            }
        }
    }

    /// Puts `value` to the subscriber of the latest start.
    func put(_ value: T) {
        self.current.with { $0 }?.putNext(value)
    }

    /// Puts `error` to the subscriber of the latest start.
    func fail(_ error: E) {
        self.current.with { $0 }?.putError(error)
    }

    /// Completes the subscriber of the latest start.
    func complete() {
        self.current.with { $0 }?.putCompletion()
    }

    /// Starts not yet disposed.
    var active: Int {
        return self.starts.with { $0 } - self.disposals.with { $0 }
    }
}

/// A one-shot event that an async test can await without blocking a thread.
final class AsyncEvent: @unchecked Sendable {
    /// Guards `signaled` and `waiters`.
    let lock = Lock()
    /// Whether `signal()` was called.
    var signaled = false
    /// The tasks awaiting the event.
    var waiters: [CheckedContinuation<Void, Never>] = []

    /// Marks the event as happened and resumes every waiting task.
    func signal() {
        var waiters: [CheckedContinuation<Void, Never>] = []
        self.lock.locked {
            self.signaled = true
            waiters = self.waiters
            self.waiters = []
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once `signal()` was called (at once if it already was).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var ready = false
            self.lock.locked {
                ready = self.signaled
                if !ready {
                    self.waiters.append(continuation)
                }
            }
            if ready {
                continuation.resume()
            }
        }
    }
}

/// A signal that emits `values` synchronously, then completes; `disposed`,
/// when given, counts the disposals of its subscriptions.
func syncSignal<T>(_ values: [T], disposed: Counter? = nil) -> Signal<T, Int> {
    return Signal<T, Int> { subscriber in
        for value in values {
            subscriber.putNext(value)
        }
        subscriber.putCompletion()
        return ActionDisposable {
            disposed?.increment()
        }
    }
}

// MARK: - Recording

/// Records the events of subscriptions, thread-safely: the values, the errors,
/// the completions, and all three as a text log ("1", "error 2", "completed")
/// with the time of each. Given a queue, it counts the events that arrive off
/// that queue. Every event signals `waitForEvent()`. The callbacks of `start`
/// and `makeSubscriber` capture a tracker of `released`, so that a test sees
/// when the library lets go of them.
final class Recorder<T, E>: @unchecked Sendable {
    /// Where events are expected, if anywhere in particular.
    let queue: Queue?
    /// The values, in order.
    let values = Atomic<[T]>(value: [])
    /// The errors, in order.
    let errors = Atomic<[E]>(value: [])
    /// The completions.
    let completions = Counter()
    /// The text log of every event.
    let events = Atomic<[String]>(value: [])
    /// When each event of the text log arrived.
    let times = Atomic<[DispatchTime]>(value: [])
    /// The events that arrived off `queue`.
    let offQueue = Counter()
    /// Releases of the callbacks handed out (each set counts once).
    let released = Counter()
    /// Signalled once per event.
    let eventArrived = DispatchSemaphore(value: 0)

    /// Events are expected on `queue`, when given.
    init(queue: Queue? = nil) {
        self.queue = queue
    }

    /// Records a value.
    func next(_ value: T) {
        self.values.modify { $0 + [value] }
        self.log("\(value)")
    }

    /// Records an error.
    func error(_ error: E) {
        self.errors.modify { $0 + [error] }
        self.log("error \(error)")
    }

    /// Records a completion.
    func completed() {
        self.completions.increment()
        self.log("completed")
    }

    /// Notes `event` in the text log, checks the queue, and signals.
    func log(_ event: String) {
        if let queue = self.queue, !queue.isCurrent() {
            self.offQueue.increment()
        }
        let now = DispatchTime.now()
        self.times.modify { $0 + [now] }
        self.events.modify { $0 + [event] }
        self.eventArrived.signal()
    }

    /// Recording callbacks, which capture a tracker of `released`.
    func callbacks() -> (next: (T) -> Void, error: (E) -> Void, completed: () -> Void) {
        let tracker = DeinitTracker(self.released)
        return ({ value in
            withExtendedLifetime(tracker) {
                self.next(value)
            }
        }, { error in
            withExtendedLifetime(tracker) {
                self.error(error)
            }
        }, {
            withExtendedLifetime(tracker) {
                self.completed()
            }
        })
    }

    /// Starts `signal` with recording callbacks.
    func start(_ signal: Signal<T, E>) -> Disposable {
        let callbacks = self.callbacks()
        return signal.start(next: callbacks.next, error: callbacks.error, completed: callbacks.completed)
    }

    /// A subscriber with recording callbacks.
    func makeSubscriber() -> Subscriber<T, E> {
        let callbacks = self.callbacks()
        return Subscriber(next: callbacks.next, error: callbacks.error, completed: callbacks.completed)
    }

    /// Waits, with a deadline, for the next event not waited for yet.
    func waitForEvent() -> DispatchTimeoutResult {
        return self.eventArrived.wait(timeout: .now() + 10)
    }

    /// Asserts that `count` more events arrive, each within the deadline.
    func expectEvents(_ count: Int = 1, file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0 ..< count {
            XCTAssertEqual(self.waitForEvent(), .success, file: file, line: line)
        }
    }

    /// The values so far.
    var recordedValues: [T] {
        return self.values.with { $0 }
    }

    /// The errors so far.
    var recordedErrors: [E] {
        return self.errors.with { $0 }
    }

    /// The text log.
    var recorded: [String] {
        return self.events.with { $0 }
    }
}

/// Asserts that two long sequences are equal, reporting the first difference
/// rather than both arrays.
func assertSameSequence(_ actual: [Int], _ expected: [Int], file: StaticString = #filePath, line: UInt = #line) {
    if actual == expected {
        return
    }
    let mismatch = zip(actual, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })
    if let mismatch {
        XCTFail("first difference at index \(mismatch.offset): \(mismatch.element.0) instead of \(mismatch.element.1) (counts \(actual.count) / \(expected.count))", file: file, line: line)
    } else {
        XCTFail("counts differ: \(actual.count) instead of \(expected.count)", file: file, line: line)
    }
}

// MARK: - Threads

/// Starts a thread that runs `body`, with a stack of `stackSize` bytes when
/// given; the caller joins or detaches it.
func spawnThread(stackSize: Int? = nil, _ body: @escaping () -> Void) -> pthread_t {
    final class Body {
        let run: () -> Void

        init(_ run: @escaping () -> Void) {
            self.run = run
        }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer {
        pthread_attr_destroy(&attributes)
    }
    if let stackSize {
        pthread_attr_setstacksize(&attributes, stackSize)
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, &attributes, { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    precondition(result == 0)
    return thread
}

/// Runs `body(0)` to `body(count - 1)`, each on a new thread; the threads are
/// released together once all exist, and joined.
func runThreads(_ count: Int, _ body: @escaping (Int) -> Void) {
    let go = DispatchSemaphore(value: 0)
    let threads = (0 ..< count).map { index in
        spawnThread {
            go.wait()
            body(index)
        }
    }
    for _ in 0 ..< count {
        go.signal()
    }
    for thread in threads {
        pthread_join(thread, nil)
    }
}

/// Runs `body` on a new, detached thread with a stack of `stackSize` bytes: the
/// caller waits for it with a deadline, so that a hang fails instead of
/// blocking the run.
func startDetachedThread(stackSize: Int, _ body: @escaping () -> Void) {
    pthread_detach(spawnThread(stackSize: stackSize, body))
}

// MARK: - Time and waiting

/// Seconds from `start` to `end` (by default, now).
func seconds(from start: DispatchTime, to end: DispatchTime = .now()) -> Double {
    return Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000_000.0
}

/// Waits, with a deadline, until `delay` seconds have passed on `queue`, by
/// scheduling a marker there: whatever the queue was due to run before the
/// marker has had its chance to run.
func drain(_ queue: Queue, after delay: Double, file: StaticString = #filePath, line: UInt = #line) {
    let marker = DispatchSemaphore(value: 0)
    queue.after(delay) {
        marker.signal()
    }
    XCTAssertEqual(marker.wait(timeout: .now() + 10), .success, file: file, line: line)
}

/// Blocks `queue` until the returned gate is signalled (or 10 s pass), and
/// returns once the queue is blocked.
func block(_ queue: Queue, file: StaticString = #filePath, line: UInt = #line) -> DispatchSemaphore {
    let blocked = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    queue.justDispatch {
        blocked.signal()
        _ = gate.wait(timeout: .now() + 10)
    }
    XCTAssertEqual(blocked.wait(timeout: .now() + 10), .success, file: file, line: line)
    return gate
}

/// Runs `body` while `queue` is blocked, so that nothing on it (a timer's
/// completion, say) can run in the middle of `body`.
func whileBlocking(_ queue: Queue, file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) {
    let gate = block(queue, file: file, line: line)
    body()
    gate.signal()
}

// MARK: - Thread pools

/// A task that holds its pool thread until `gate` is signalled (or 10 s pass).
func blockingTask(until gate: DispatchSemaphore) -> ThreadPoolTask {
    return ThreadPoolTask { _ in
        _ = gate.wait(timeout: .now() + 10)
    }
}

/// Adds to `queue` a task that counts its runs in `runs` and holds a tracker,
/// lets go of the task, and returns how many times the tracker was released
/// by then: 1 when the queue did not keep the task (a closed pool drops it).
func releasesAfterAddingTask(to queue: ThreadPoolQueue, runs: Counter) -> Int {
    let released = Counter()
    do {
        let tracker = DeinitTracker(released)
        queue.addTask(ThreadPoolTask { _ in
            tracker.touch()
            runs.increment()
        })
    }
    return released.count
}

/// Adds, through `addFirst` and `addSecond`, two tasks that each wait (with a
/// deadline) for the other to start, and returns how many of them met the
/// other: 2 only when they ran at the same time, on two threads.
func rendezvous(_ addFirst: (ThreadPoolTask) -> Void, _ addSecond: (ThreadPoolTask) -> Void, file: StaticString = #filePath, line: UInt = #line) -> Int {
    let firstStarted = DispatchSemaphore(value: 0)
    let secondStarted = DispatchSemaphore(value: 0)
    let met = Counter()
    let done = DispatchGroup()
    done.enter()
    done.enter()
    addFirst(ThreadPoolTask { _ in
        firstStarted.signal()
        if secondStarted.wait(timeout: .now() + 10) == .success {
            met.increment()
        }
        done.leave()
    })
    addSecond(ThreadPoolTask { _ in
        secondStarted.signal()
        if firstStarted.wait(timeout: .now() + 10) == .success {
            met.increment()
        }
        done.leave()
    })
    XCTAssertEqual(done.wait(timeout: .now() + 15), .success, file: file, line: line)
    return met.count
}

// MARK: - Stress

/// Checks that every subscriber sees the values of each producer in the order
/// they were put: per producer, indices must strictly increase (a stale value,
/// such as an old replay after a newer value, breaks it). Counts violations.
final class PerProducerOrder: @unchecked Sendable {
    /// How many producers there are; they are numbered from 0.
    let producers: Int
    /// The values that came out of order, for every subscriber.
    let violations = Counter()

    /// For producers numbered 0 ..< `producers`.
    init(producers: Int) {
        self.producers = producers
    }

    /// A check for one subscriber, to call with the producer and the index of
    /// each value it receives. Values of different producers may arrive
    /// concurrently: each slot is only written for its own producer.
    func makeCheck() -> @Sendable (_ producer: Int, _ index: Int) -> Void {
        let last = Atomic<[Int]>(value: Array(repeating: -1, count: self.producers))
        let violations = self.violations
        return { producer, index in
            let ok = last.with { $0[producer] < index }
            last.modify { array in
                var array = array
                array[producer] = index
                return array
            }
            if !ok {
                violations.increment()
            }
        }
    }
}

/// Races `producers` workers, each putting its indices 0, 1, 2… through
/// `put`, against `transientWorkers` workers that each run
/// `subscribeAndDispose` 500 times. The producers keep going (up to 50 times
/// `perProducer`) until every transient worker is done, so that subscriptions
/// race with puts all along. Each worker has a serial queue, hence a thread,
/// of its own. Waits for all of them (with a deadline) and returns how many
/// values were put.
func raceProducers(_ producers: Int, perProducer: Int, transientWorkers: Int = 4, label: String, put: @escaping @Sendable (_ producer: Int, _ index: Int) -> Void, againstSubscribers subscribeAndDispose: @escaping @Sendable () -> Void, file: StaticString = #filePath, line: UInt = #line) -> Int {
    let transientsDone = Atomic(value: 0)
    let produced = Atomic(value: 0)
    let group = DispatchGroup()
    for producer in 0 ..< producers {
        DispatchQueue(label: label).async(group: group) {
            var index = 0
            while index < perProducer || (transientsDone.with({ $0 }) < transientWorkers && index < 50 * perProducer) {
                put(producer, index)
                index += 1
            }
            produced.modify { $0 + index }
        }
    }
    for _ in 0 ..< transientWorkers {
        DispatchQueue(label: label).async(group: group) {
            for _ in 0 ..< 500 {
                subscribeAndDispose()
            }
            transientsDone.modify { $0 + 1 }
        }
    }
    XCTAssertEqual(group.wait(timeout: .now() + 30), .success, file: file, line: line)
    return produced.with { $0 }
}

/// Puts 0, 1, 2… into every pipe of `pipes`, without pause, from a thread of
/// its own, while `workers` workers each run `body` `iterations` times; then
/// stops the emitter. Both waits have deadlines.
func whileEmitting(into pipes: [TestPipe<Int, NoError>], workers: Int, iterations: Int, file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () -> Void) {
    let stop = Atomic<Bool>(value: false)
    let emitter = DispatchGroup()
    DispatchQueue.global().async(group: emitter) {
        var i = 0
        while !stop.with({ $0 }) {
            for pipe in pipes {
                pipe.putNext(i)
            }
            i += 1
        }
    }
    let finished = DispatchGroup()
    for _ in 0 ..< workers {
        DispatchQueue.global().async(group: finished) {
            for _ in 0 ..< iterations {
                body()
            }
        }
    }
    XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, file: file, line: line)
    stop.swap(true)
    XCTAssertEqual(emitter.wait(timeout: .now() + 10), .success, file: file, line: line)
}
