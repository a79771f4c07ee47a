import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport
import XCTest

/// Code written the way code for Telegram's SwiftSignalKit is written: every
/// public declaration of the original (Telegram's SwiftSignalKit) used with its exact labels, defaults and
/// generic shape. It proves source compatibility by compiling; the test runs a
/// few of the calls to check they behave.
final class APICompatibilityTests: XCTestCase {
    private enum TestError: Error, Equatable {
        case failed
    }

    func testEveryDeclarationCompilesAsTheOriginalUsesIt() {
        // Signal.swift
        let _: (Int) -> Int = { identity(a: $0) }
        let source: Signal<Int, NoError> = Signal { subscriber in
            subscriber.putNext(1)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let _: Disposable = source.start()
        let _: Disposable = source.start(next: { _ in }, error: { _ in }, completed: {})
        let _: Disposable = source.startStandalone(next: { _ in })
        let strict: Disposable = source.startStrict(next: { _ in })
        strict.dispose()
        let _: Signal<Int, NoError> = .single(1)
        let _: Signal<Int, NoError> = .complete()
        let _: Signal<Int, TestError> = .fail(.failed)
        let _: Signal<Int, NoError> = .never()
        let _: Signal<NoValue, NoError> = .complete()

        // Subscriber.swift
        let subscriber = Subscriber<Int, NoError>(next: { _ in }, error: nil, completed: nil)
        subscriber.keepAlive(NSNullLike())
        _ = subscriber.description

        // Disposable.swift
        let meta = MetaDisposable()
        meta.set(ActionDisposable {})
        meta.set(nil)
        let set = DisposableSet()
        let action = ActionDisposable(action: {})
        set.add(action)
        set.remove(action)
        set.add(action)
        set.removeLast()
        let dict = DisposableDict<String>()
        dict.set(EmptyDisposable, forKey: "a")
        dict.set(nil, forKey: "a")
        let strictWrapper: Disposable = StrictDisposable(EmptyDisposable, file: #file, line: #line)
        strictWrapper.dispose()
        let strictOther: Disposable = ActionDisposable {}.strict()
        strictOther.dispose()
        meta.dispose()
        set.dispose()
        dict.dispose()

        // Atomic.swift, Lock.swift
        let atomic = Atomic<Int>(value: 0)
        let _ = atomic.with { $0 + 1 }
        let _ = try? atomic.tryWith { $0 }
        let _ = atomic.modify { $0 + 1 }
        let _ = atomic.swap(3)
        let _: AtomicLockError = .isLocked
        let lock = Lock()
        lock.locked {}
        try? lock.throwingLocked {}

        // OSUnfairLock.swift (the newest original's)
        let unfair: OSUnfairLock = createOSUnfairLock()
        unfair.lock()
        unfair.unlock()
        if unfair.tryLock() {
            unfair.unlock()
        }
        let _: Int = unfair.withLock { 1 }

        // Bag.swift
        let object = NSNullLike()
        let _: Int? = Weak(object).value.map { _ in 1 }
        let bag = Bag<Int>()
        let index: Bag<Int>.Index = bag.add(1)
        let _: Int? = bag.get(index)
        let _: [Int] = bag.copyItems()
        let _: [(Bag<Int>.Index, Int)] = bag.copyItemsWithIndices()
        let _: Bool = bag.isEmpty
        let _: (Bag<Int>.Index, Int)? = bag.first
        bag.remove(index)
        bag.removeAll()
        let sparse = SparseBag<Int>()
        let sparseIndex: SparseBag<Int>.Index = sparse.add(2)
        let _: Int? = sparse.get(sparseIndex)
        for _ in sparse {}
        let _: AnyIterator<Int> = sparse.makeIterator()
        sparse.remove(sparseIndex)
        sparse.removeAll()
        let _: Bool = sparse.isEmpty
        let counter = CounterBag()
        counter.remove(counter.add())
        let _: Bool = counter.isEmpty

        // Queue.swift, QueueLocalObject.swift, Timer.swift
        let serial = Queue(name: "compat")
        let _: DispatchQueue = serial.queue
        let _: Queue = Queue.mainQueue()
        let _: Queue = Queue.concurrentDefaultQueue()
        let _: Queue = Queue.concurrentBackgroundQueue()
        let _: Queue = Queue(queue: DispatchQueue(label: "compat.wrapped"))
        let _: Queue = Queue()
        let _: Queue = Queue(name: nil, qos: .userInitiated)
        let _: Bool = serial.isCurrent()
        serial.async {}
        serial.sync {}
        serial.justDispatch {}
        serial.justDispatchWithQoS(qos: .background) {}
        serial.after(0.0) {}
        let local = QueueLocalObject<NSNullLike>(queue: serial, generate: { NSNullLike() })
        let _: Queue = local.queue
        local.with { _ in }
        let _: Int? = local.syncWith { _ in 1 }
        let _: Signal<Int, NoError> = local.signalWith { _, subscriber in
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let timer = SwiftSignalKit.Timer(timeout: 10.0, repeat: false, completion: {}, queue: serial)
        timer.start()
        timer.invalidate()
        let _ = SwiftSignalKit.Timer(timeout: 10.0, repeat: true, completion: { (_: SwiftSignalKit.Timer) in }, queue: serial)

        // ThreadPool.swift
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.1)
        let task = ThreadPoolTask { state in
            let _: Bool = state.cancelled.with { $0 }
        }
        pool.addTask(task)
        task.cancel()
        let poolQueue: ThreadPoolQueue = pool.nextQueue()
        poolQueue.addTask(ThreadPoolTask { _ in })
        let _: Bool = poolQueue == ThreadPoolQueue(threadPool: pool)
        let _: Bool = pool.isCurrentThreadInPool()

        // Promise.swift, ValuePipe.swift, Multicast.swift
        let promise = Promise<Int>()
        promise.onDeinit = {}
        promise.set(.single(1))
        let _: Signal<Int, NoError> = promise.get()
        let _ = Promise<Int>(2)
        let _ = Promise<Int>(initializeOnFirstAccess: .single(3))
        let valuePromise = ValuePromise<Int>(1, ignoreRepeated: true)
        valuePromise.set(2)
        let _: Bool = valuePromise.ignoreRepeated
        let _: Signal<Int, NoError> = valuePromise.get()
        let _ = ValuePromise<Int>()
        let _ = ValuePromise<Int>(ignoreRepeated: false)
        let pipe = ValuePipe<Int>()
        let _: Signal<Int, NoError> = pipe.signal()
        pipe.putNext(1)
        let multicast = Multicast<Int>()
        let _: Signal<Int, NoError> = multicast.get(key: "k", signal: .single(1))
        let multicastPromise = MulticastPromise<Int>()
        let _: Bag<(Int) -> Void> = multicastPromise.subscribers
        let _: Lock = multicastPromise.lock
        multicastPromise.value = 1

        // Operators, each in the shape the original declares.
        let failing: Signal<Int, TestError> = .fail(.failed)
        let _: Signal<Int, NoError> = failing |> `catch` { _ in Signal<Int, NoError>.single(0) }
        let _: Signal<Int, NoError> = restart(source)
        let _: Signal<Int, NoError> = source |> recurse(nil)
        let _: Signal<Int, NoError> = failing |> retry(1.0, maxDelay: 5.0, onQueue: serial)
        let _: Signal<Int, TestError> = failing |> retry(retryOnError: { _ in false }, delayIncrement: 1.0, maxDelay: 5.0, maxRetries: 3, onQueue: serial)
        let _: Signal<Int, NoError> = restartIfError(failing)
        let _: Signal<(Int, String), NoError> = combineLatest(source, source |> map { "\($0)" })
        let _: Signal<(Int, Int), NoError> = combineLatest(queue: serial, source, 0, source, 0)
        let _: Signal<(Int, Int, Int), NoError> = combineLatest(source, source, source)
        let _: Signal<[Int], NoError> = combineLatest([source, source])
        let _: Signal<[Int], NoError> = combineLatest(queue: serial, [source])
        let _: Signal<Int, NoError> = source |> deliverOn(serial)
        let _: Signal<Int, NoError> = source |> deliverOnMainQueue
        let _: Signal<Int, NoError> = source |> deliverOn(pool)
        let _: Signal<Int, NoError> = source |> runOn(serial)
        let _: Signal<Int, NoError> = source |> runOn(pool)
        let _: Signal<Int, NoError> = feedbackLoop(once: { (state: SignalFeedbackLoopState<Int>) -> Signal<Int, NoError>? in
            switch state {
            case .initial:
                return .single(1)
            case .loop:
                return nil
            }
        }, reduce: { $0 + $1 })
        let _: Signal<String, NoError> = source |> map { "\($0)" }
        let _: Signal<Int, NoError> = source |> filter { $0 > 0 }
        let _: Signal<String?, NoError> = (source |> map { Optional($0) }) |> flatMap { "\($0)" }
        let _: Signal<Int, TestError> = failing |> mapError { $0 }
        let _: Signal<Int, TestError> = source |> castError(TestError.self)
        let _: Signal<Int, NoError> = source |> distinctUntilChanged
        let _: Signal<Int, NoError> = source |> distinctUntilChanged(isEqual: { $0 == $1 })
        let events: Signal<SignalEvent<Int, NoError>, NoError> = dematerialize(signal: source)
        let _: Signal<Int, NoError> = materialize(signal: events)
        let _: SignalEvent<Int, NoError> = .Completion
        let _: SignalEvent<Int, NoError> = .Next(1)
        let signals: Signal<Signal<Int, NoError>, NoError> = .single(source)
        let _: Signal<Int, NoError> = switchToLatest(signals)
        let _: Signal<Int, NoError> = queue(signals)
        let _: Signal<Int, NoError> = throttled(signals)
        let _: Signal<Int, NoError> = source |> mapToSignal { Signal<Int, NoError>.single($0) }
        let _: Signal<Never, NoError> = ignoreValues(source)
        let _: Signal<Int, TestError> = source |> mapToSignalPromotingError { Signal<Int, TestError>.single($0) }
        let _: Signal<Int, NoError> = source |> mapToQueue { Signal<Int, NoError>.single($0) }
        let _: Signal<Int, NoError> = source |> mapToThrottled { Signal<Int, NoError>.single($0) }
        let _: Signal<Int, NoError> = source |> then(.single(2))
        let _: Signal<Int, NoError> = deferred { source }
        let _: Signal<Int, NoError> = source |> reduceLeft(value: 0, f: { $0 + $1 })
        let _: Signal<Int, NoError> = source |> reduceLeft(value: 0, f: { (current: Int, next: Int, emit: (Int) -> Void) -> Int in
            emit(current)
            return current + next
        })
        let _: Signal<Int, NoError> = source |> reduceLeft(0, generator: { current, next in
            Signal<(Int, Passthrough<Int>), NoError>.single((current + next, .None))
        })
        let _: Passthrough<Int> = .Some(1)
        let _: Signal<Int, NoError> = source |> beforeNext { _ in }
        let _: Signal<Int, NoError> = source |> afterNext { _ in }
        let _: Signal<Int, NoError> = source |> beforeStarted {}
        let _: Signal<Int, NoError> = source |> beforeCompleted {}
        let _: Signal<Int, NoError> = source |> afterCompleted {}
        let _: Signal<Int, NoError> = source |> afterDisposed {}
        let _: Signal<Int, NoError> = withState(source, { 0 })
        let _: Signal<Int, NoError> = withState(source, { 0 }, next: { _, _ in }, error: { _, _ in }, completed: { _ in }, disposed: { _ in })
        let _: Signal<Int, NoError> = single(1, NoError.self)
        let _: Signal<Int, TestError> = fail(Int.self, .failed)
        let _: Signal<Int, NoError> = complete(Int.self, NoError.self)
        let _: Signal<Int, NoError> = never(Int.self, NoError.self)
        let _: Signal<Int, NoError> = source |> take(1)
        let action2 = SignalTakeAction(passthrough: true, complete: false)
        let _: Bool = action2.passthrough && action2.complete
        let _: Signal<Int, NoError> = source |> take(until: { _ in SignalTakeAction(passthrough: true, complete: true) })
        let _: Signal<Int?, NoError> = last(signal: source)
        let _: Signal<Int, NoError> = source |> delay(0.1, queue: serial)
        let _: Signal<Int, NoError> = source |> suspendAwareDelay(0.1, queue: serial)
        let _: Signal<Int, NoError> = source |> suspendAwareDelay(0.1, granularity: 1.0, queue: serial)
        let _: Signal<Int, NoError> = source |> timeout(1.0, queue: serial, alternate: .never())

        // A few of them run: the pipe operator threads values through.
        var values: [Int] = []
        let disposable = (source |> map { $0 * 10 } |> then(.single(7))).start(next: { values.append($0) })
        disposable.dispose()
        XCTAssertEqual(values, [10, 7])
    }
}

/// A plain class standing in for the NSObjects original code passes around.
private final class NSNullLike {
}
