import Foundation
import Dispatch
import SignalKitHeader
import SwiftSignalKitTestSupport

/// Runs a threaded case through the C API, as `ConcurrentSwiftRunner` does
/// through the Swift API: `sk_pipe`s, the operator's `sk_signal_*`, observers
/// with a `ctx` and a `release`; the threads call `sk_pipe_put` at once. After
/// the run every handle is released, every `release` must have run exactly
/// once, and `sk_live_objects()` must be back to its value before the case.
enum ConcurrentCRunner {
    /// A callback's context: what it records into, and its releases.
    final class Context: @unchecked Sendable {
        let log: ConcurrentLog?
        let observed: ConcurrentObservation
        let keys: Int
        let released = Counter()
        private let releasedOnce = DispatchSemaphore(value: 0)
        /// groupBy's outer observer: the groups' disposables (+1 each).
        let lock = NSLock()
        var groupDisposables: [OpaquePointer] = []
        /// Every context of the run, to check their releases.
        let registry: Registry

        init(log: ConcurrentLog?, observed: ConcurrentObservation, keys: Int = 1, registry: Registry) {
            self.log = log
            self.observed = observed
            self.keys = keys
            self.registry = registry
            registry.add(self)
        }

        var pointer: UnsafeMutableRawPointer {
            // The library holds it until its release: one retain, dropped there.
            return Unmanaged.passRetained(self).toOpaque()
        }

        func markReleased() {
            _ = self.released.increment()
            self.releasedOnce.signal()
        }

        /// Waits for the release, which may run on another thread (a
        /// queue's) right after the last callback; false after `seconds`.
        func waitReleased(seconds: Double) -> Bool {
            guard self.releasedOnce.wait(timeout: .now() + seconds) == .success else {
                return false
            }
            self.releasedOnce.signal()
            return true
        }

        static func from(_ ctx: UnsafeMutableRawPointer?) -> Context {
            return Unmanaged<Context>.fromOpaque(ctx!).takeUnretainedValue()
        }
    }

    /// The contexts of one run.
    final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var contexts: [Context] = []

        func add(_ context: Context) {
            self.lock.lock()
            self.contexts.append(context)
            self.lock.unlock()
        }

        /// Each context's releases, once each has had one (or `seconds`
        /// have passed).
        func releaseCounts(waiting seconds: Double) -> [Int] {
            self.lock.lock()
            let contexts = self.contexts
            self.lock.unlock()
            for context in contexts {
                _ = context.waitReleased(seconds: seconds)
            }
            return contexts.map { $0.released.count }
        }
    }

    static let release: sk_release_fn = { ctx in
        let context = Context.from(ctx)
        context.markReleased()
        Unmanaged<Context>.fromOpaque(ctx!).release()
    }

    static func int(_ value: UnsafePointer<sk_value>?) -> Int? {
        var out: Int64 = 0
        guard sk_value_get_int64(value, &out) == SK_OK.rawValue else {
            return nil
        }
        return Int(out)
    }

    /// An observer that records integer values into the context's log.
    static func intObserver(_ context: Context) -> sk_observer {
        return sk_observer(next: { ctx, value in
            let context = Context.from(ctx)
            if let v = ConcurrentCRunner.int(value) {
                context.log!.next(v)
            } else {
                context.observed.problem("a value that is not an integer")
            }
        }, error: { ctx, _ in
            Context.from(ctx).log!.failed()
        }, completed: { ctx in
            Context.from(ctx).log!.completed()
        }, ctx: context.pointer, release: release)
    }

    /// An observer that records arrays of two integers into the context's log.
    static func pairObserver(_ context: Context) -> sk_observer {
        return sk_observer(next: { ctx, value in
            let context = Context.from(ctx)
            var count = 0
            var items: [Int] = []
            if sk_value_get_array_count(value, &count) == SK_OK.rawValue {
                for i in 0 ..< count {
                    var item: UnsafePointer<sk_value>?
                    if sk_value_get_array_item(value, i, &item) == SK_OK.rawValue, let v = ConcurrentCRunner.int(item) {
                        items.append(v)
                    }
                }
            }
            if items.count != 2 {
                context.observed.problem("a pair that is not two integers")
            }
            context.log!.pair(items)
        }, error: { ctx, _ in
            Context.from(ctx).log!.failed()
        }, completed: { ctx in
            Context.from(ctx).log!.completed()
        }, ctx: context.pointer, release: release)
    }

    static func run(_ testCase: ConcurrentCase) -> ConcurrentObservation {
        let observed = ConcurrentObservation(subscribers: testCase.subscriberCount)
        let registry = Registry()
        let liveBefore = sk_live_objects()
        var pipes: [OpaquePointer?] = []
        var sources: [OpaquePointer?] = []
        for _ in 0 ..< testCase.shape.pipes {
            var pipe: OpaquePointer?
            var signal: OpaquePointer?
            expectOK(sk_pipe_create(&pipe, false), "sk_pipe_create", observed)
            expectOK(sk_pipe_signal(&signal, pipe), "sk_pipe_signal", observed)
            pipes.append(pipe)
            sources.append(signal)
        }
        var disposables: [OpaquePointer?] = []
        var signals: [OpaquePointer?] = []
        var outerContext: Context?
        var queue: OpaquePointer?
        func start(_ signal: OpaquePointer?, _ observer: sk_observer) {
            var d: OpaquePointer?
            var observer = observer
            expectOK(sk_signal_start(&d, signal, &observer), "sk_signal_start", observed)
            disposables.append(d)
        }
        var op: OpaquePointer?
        switch testCase.shape {
        case .merge:
            expectOK(sk_signal_merge(&op, sources, sources.count), "sk_signal_merge", observed)
            start(op, intObserver(Context(log: observed.logs[0], observed: observed, registry: registry)))
        case .share:
            expectOK(sk_signal_share(&op, sources[0]), "sk_signal_share", observed)
            for log in observed.logs {
                start(op, intObserver(Context(log: log, observed: observed, registry: registry)))
            }
        case let .replay(count, _):
            expectOK(sk_signal_replay(&op, sources[0], count), "sk_signal_replay", observed)
            for log in observed.logs {
                start(op, intObserver(Context(log: log, observed: observed, registry: registry)))
            }
        case let .groupBy(keys):
            let keyContext = Context(log: nil, observed: observed, keys: keys, registry: registry)
            expectOK(sk_signal_group_by(&op, sources[0], { ctx, value, out in
                let context = Context.from(ctx)
                sk_value_set_int64(out, Int64(ConcurrentValue.key(ConcurrentCRunner.int(value) ?? 0, keys: context.keys)))
            }, keyContext.pointer, release), "sk_signal_group_by", observed)
            let outer = Context(log: observed.logs[0], observed: observed, registry: registry)
            outerContext = outer
            start(op, sk_observer(next: { ctx, value in
                // [key, group]: subscribe the group here, as the header advises.
                let context = Context.from(ctx)
                var keyItem: UnsafePointer<sk_value>?
                var groupItem: UnsafePointer<sk_value>?
                var group: OpaquePointer?
                guard sk_value_get_array_item(value, 0, &keyItem) == SK_OK.rawValue, let key = ConcurrentCRunner.int(keyItem),
                      sk_value_get_array_item(value, 1, &groupItem) == SK_OK.rawValue,
                      sk_value_get_signal(groupItem, &group) == SK_OK.rawValue else {
                    context.observed.problem("groupBy: an announcement that is not [key, group]")
                    return
                }
                context.log!.next(key)
                var observer = ConcurrentCRunner.intObserver(Context(log: context.observed.group(key), observed: context.observed, registry: context.registry))
                var d: OpaquePointer?
                guard sk_signal_start(&d, group, &observer) == SK_OK.rawValue, let d else {
                    context.observed.problem("groupBy: sk_signal_start of a group failed")
                    return
                }
                context.lock.lock()
                context.groupDisposables.append(d)
                context.lock.unlock()
            }, error: { ctx, _ in
                Context.from(ctx).log!.failed()
            }, completed: { ctx in
                Context.from(ctx).log!.completed()
            }, ctx: outer.pointer, release: release))
        case let .mergeMap(maxConcurrent):
            let context = Context(log: nil, observed: observed, registry: registry)
            expectOK(sk_signal_merge_map(&op, sources[0], maxConcurrent, { _, value in
                // The inner signal: a generator whose ctx is the value.
                var inner: OpaquePointer?
                let status = sk_signal_create(&inner, { ctx, subscriber in
                    let value = Int(bitPattern: ctx)
                    for item in ConcurrentValue.inner(value) {
                        var v = sk_value()
                        sk_value_set_int64(&v, Int64(item))
                        _ = sk_subscriber_put_next(subscriber, &v)
                    }
                    _ = sk_subscriber_put_completion(subscriber)
                    return nil
                }, UnsafeMutableRawPointer(bitPattern: ConcurrentCRunner.int(value) ?? 0), nil)
                return status == SK_OK.rawValue ? inner : nil
            }, context.pointer, release), "sk_signal_merge_map", observed)
            start(op, intObserver(Context(log: observed.logs[0], observed: observed, registry: registry)))
        case .zip:
            expectOK(sk_signal_zip(&op, sources, 2), "sk_signal_zip", observed)
            start(op, pairObserver(Context(log: observed.logs[0], observed: observed, registry: registry)))
        case let .combineLatest(onQueue):
            if onQueue {
                expectOK(sk_queue_create(&queue, "combine_latest"), "sk_queue_create", observed)
            }
            expectOK(sk_signal_combine_latest(&op, sources, 2, queue), "sk_signal_combine_latest", observed)
            start(op, pairObserver(Context(log: observed.logs[0], observed: observed, registry: registry)))
        case .scan:
            let context = Context(log: nil, observed: observed, registry: registry)
            var zero = sk_value()
            sk_value_set_int64(&zero, 0)
            expectOK(sk_signal_scan(&op, sources[0], &zero, { _, sum, value, out in
                sk_value_set_int64(out, Int64((ConcurrentCRunner.int(sum) ?? 0) + (ConcurrentCRunner.int(value) ?? 0)))
            }, context.pointer, release), "sk_signal_scan", observed)
            start(op, intObserver(Context(log: observed.logs[0], observed: observed, registry: registry)))
        }
        signals.append(op)

        let puts = testCase.puts
        let pipeHandles = pipes.map { UInt(bitPattern: $0) }
        runThreads(puts.count + (testCase.endRacing ? 1 : 0)) { thread in
            guard thread < puts.count else {
                // The racing end (`ConcurrentCase.endRacing`).
                for handle in pipeHandles where sk_pipe_put_completion(OpaquePointer(bitPattern: handle)) != SK_OK.rawValue {
                    observed.problem("sk_pipe_put_completion failed")
                }
                return
            }
            for put in puts[thread] {
                var v = sk_value()
                sk_value_set_int64(&v, Int64(put.value))
                if sk_pipe_put(OpaquePointer(bitPattern: pipeHandles[put.pipe]), &v) != SK_OK.rawValue {
                    observed.problem("sk_pipe_put failed")
                }
            }
        }
        for pipe in pipes {
            expectOK(sk_pipe_put_completion(pipe), "sk_pipe_put_completion", observed)
        }
        if queue != nil, !observed.logs[0].waitForTerminal(seconds: 60) {
            observed.problem("no terminal event through the queue within 60 s")
        }

        // Every handle released: the subscriptions, the groups', the signals,
        // the pipes.
        for d in disposables {
            sk_disposable_dispose(d)
            sk_disposable_release(d)
        }
        if let outer = outerContext {
            outer.lock.lock()
            let groups = outer.groupDisposables
            outer.groupDisposables = []
            outer.lock.unlock()
            for d in groups {
                sk_disposable_dispose(d)
                sk_disposable_release(d)
            }
        }
        for signal in signals + sources {
            sk_signal_release(signal)
        }
        for pipe in pipes {
            sk_pipe_release(pipe)
        }
        sk_queue_release(queue)
        let counts = registry.releaseCounts(waiting: 60)
        if counts.contains(where: { $0 != 1 }) {
            observed.problem("release counts of the callbacks' contexts: \(counts) (each must be 1)")
        }
        let liveAfter = sk_live_objects()
        if liveAfter != liveBefore {
            observed.problem("sk_live_objects() is \(liveAfter) after the run, \(liveBefore) before")
        }
        return observed
    }

    private static func expectOK(_ status: Int32, _ call: String, _ observed: ConcurrentObservation) {
        if status != SK_OK.rawValue {
            observed.problem("\(call) returned \(status): \(String(cString: sk_last_error_message()))")
        }
    }
}
