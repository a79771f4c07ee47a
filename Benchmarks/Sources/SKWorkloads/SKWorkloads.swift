import BenchKit
import Dispatch
import SwiftSignalKit
import Synchronization

/// A summing sink's accumulator (shared by the closures of one run).
final class Sum: @unchecked Sendable {
    var value = 0
}

/// A summing sink's accumulator when the sink may run on several threads at once.
final class AtomicSum: Sendable {
    let value = Atomic<Int>(0)
}

/// The workloads of Benchmarks/README.md on SwiftSignalKit's Swift API. Each runs one
/// repetition, calls `probe.begin()`/`probe.end()` around the timed section
/// and returns the checksum.
public enum SKWorkloads {
    /// W1: a cold synchronous source of `0..<n` through map → filter → map into
    /// a summing sink. Timed: build, subscribe, run, dispose.
    public static func w1(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        probe.begin()
        let source = Signal<Int, NoError> { subscriber in
            for i in 0 ..< n {
                subscriber.putNext(i)
            }
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let chain = source
            |> map { $0 + 1 }
            |> filter { $0 % 2 == 0 }
            |> map { $0 * 2 }
        let disposable = chain.start(next: { sum.value &+= $0 })
        disposable.dispose()
        probe.end()
        return sum.value
    }

    /// W2: `cycles` times subscribe `pipe |> map {$0 + 1}` to a summing sink,
    /// put one value every `every` cycles, dispose; then one more put that must
    /// reach nobody. The mapped signal is built once, before the loop.
    public static func w2(cycles: Int, every: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        let mapped = pipe.signal() |> map { $0 + 1 }
        probe.begin()
        for i in 0 ..< cycles {
            let disposable = mapped.start(next: { sum.value &+= $0 })
            if i % every == 0 {
                pipe.putNext(i)
            }
            disposable.dispose()
        }
        pipe.putNext(1_000_000_000)
        probe.end()
        return sum.value
    }

    /// W2b: W2 with the pipeline built where the subscription is made, each
    /// cycle: `(pipe.signal() |> map {$0 + 1}).start(next:)`, maybe a put,
    /// dispose; then one more put that must reach nobody.
    public static func w2b(cycles: Int, every: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        probe.begin()
        for i in 0 ..< cycles {
            let disposable = (pipe.signal() |> map { $0 + 1 }).start(next: { sum.value &+= $0 })
            if i % every == 0 {
                pipe.putNext(i)
            }
            disposable.dispose()
        }
        pipe.putNext(1_000_000_000)
        probe.end()
        return sum.value
    }

    /// W3: `sinks` summing sinks directly on one pipe; put `0..<puts`.
    /// Timed: the puts only.
    public static func w3(sinks: Int, puts: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        let signal = pipe.signal()
        var disposables: [any Disposable] = []
        disposables.reserveCapacity(sinks)
        for _ in 0 ..< sinks {
            disposables.append(signal.start(next: { sum.value &+= $0 }))
        }
        probe.begin()
        for i in 0 ..< puts {
            pipe.putNext(i)
        }
        probe.end()
        for disposable in disposables {
            disposable.dispose()
        }
        return sum.value
    }

    /// W3s: one pipe shared (`share`) by `sinks` summing subscribers; put
    /// `0..<puts`. Timed: the puts (issue 41: the operators a user chains,
    /// against the C++ peers).
    public static func w3share(sinks: Int, puts: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        let shared = pipe.signal() |> share
        var disposables: [any Disposable] = []
        disposables.reserveCapacity(sinks)
        for _ in 0 ..< sinks {
            disposables.append(shared.start(next: { sum.value &+= $0 }))
        }
        probe.begin()
        for i in 0 ..< puts {
            pipe.putNext(i)
        }
        probe.end()
        for disposable in disposables {
            disposable.dispose()
        }
        return sum.value
    }

    /// W4: the W1 source of `0..<n`, each value mapped to a one-value inner
    /// signal, switch-to-latest (`mapToSignal`), summing sink. Timed: all.
    public static func w4(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        probe.begin()
        let source = Signal<Int, NoError> { subscriber in
            for i in 0 ..< n {
                subscriber.putNext(i)
            }
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let chain = source |> mapToSignal { value -> Signal<Int, NoError> in
            return .single(value)
        }
        let disposable = chain.start(next: { sum.value &+= $0 })
        disposable.dispose()
        probe.end()
        return sum.value
    }

    /// W5: combine-latest of two pipes into a sink summing both; `n` puts
    /// alternating between the pipes (value i into pipe i % 2). Timed: the puts.
    public static func w5(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let a = ValuePipe<Int>()
        let b = ValuePipe<Int>()
        let disposable = combineLatest(a.signal(), b.signal()).start(next: { pair in
            sum.value &+= pair.0 &+ pair.1
        })
        probe.begin()
        for i in 0 ..< n {
            if i % 2 == 0 {
                a.putNext(i)
            } else {
                b.putNext(i)
            }
        }
        probe.end()
        disposable.dispose()
        return sum.value
    }

    /// W5z: W5 with zip in place of combine-latest: `n` puts alternating
    /// between two pipes (value i into pipe i % 2), each pair zipped into a
    /// sink summing both. Timed: the puts.
    public static func w5zip(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let a = ValuePipe<Int>()
        let b = ValuePipe<Int>()
        let disposable = zip(a.signal(), b.signal()).start(next: { pair in
            sum.value &+= pair.0 &+ pair.1
        })
        probe.begin()
        for i in 0 ..< n {
            if i % 2 == 0 {
                a.putNext(i)
            } else {
                b.putNext(i)
            }
        }
        probe.end()
        disposable.dispose()
        return sum.value
    }

    /// W5s: one pipe through scan (a running sum) into a summing sink; put
    /// `0..<n`. Timed: the puts.
    public static func w5scan(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        let disposable = (pipe.signal() |> scan(0, &+)).start(next: { sum.value &+= $0 })
        probe.begin()
        for i in 0 ..< n {
            pipe.putNext(i)
        }
        probe.end()
        disposable.dispose()
        return sum.value
    }

    /// W6: `count` live subscriptions `pipe |> map {$0 + 1}` → summing sink,
    /// then one put of 1. The probe's `begin` and `live` bracket the
    /// subscribing (the array holding the disposables is allocated before).
    public static func w6(_ count: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        let mapped = pipe.signal() |> map { $0 + 1 }
        var disposables: [any Disposable] = []
        disposables.reserveCapacity(count)
        probe.begin()
        for _ in 0 ..< count {
            disposables.append(mapped.start(next: { sum.value &+= $0 }))
        }
        probe.live()
        pipe.putNext(1)
        probe.end()
        for disposable in disposables {
            disposable.dispose()
        }
        return sum.value
    }

    /// W6b: W6 with the pipeline built for each subscription
    /// (`(pipe.signal() |> map {$0 + 1}).start(next:)`), kept alive; then one
    /// put of 1.
    public static func w6b(_ count: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        var disposables: [any Disposable] = []
        disposables.reserveCapacity(count)
        probe.begin()
        for _ in 0 ..< count {
            disposables.append((pipe.signal() |> map { $0 + 1 }).start(next: { sum.value &+= $0 }))
        }
        probe.live()
        pipe.putNext(1)
        probe.end()
        for disposable in disposables {
            disposable.dispose()
        }
        return sum.value
    }

    /// W8: `rounds` times: subscribe `subscriptions` summing sinks to
    /// `pipe |> map {$0 + 1}` (the mapped signal built once, as in W2 and
    /// W6), put one value (round r puts r), dispose them all in `order`;
    /// then one more put that must reach nobody. The dispose order (a
    /// permutation) and the array of disposables are made before the timed
    /// section; the probe's `phase` marks the three phases of a round.
    public static func w8(subscriptions: Int, rounds: Int, order: DisposeOrder, _ probe: Probe) -> Int {
        let sum = Sum()
        let pipe = ValuePipe<Int>()
        let mapped = pipe.signal() |> map { $0 + 1 }
        let permutation = order.permutation(subscriptions)
        var disposables: [(any Disposable)?] = []
        disposables.reserveCapacity(subscriptions)
        probe.begin()
        for round in 0 ..< rounds {
            probe.phase(.subscribe)
            for _ in 0 ..< subscriptions {
                disposables.append(mapped.start(next: { sum.value &+= $0 }))
            }
            probe.phase(.deliver)
            pipe.putNext(round)
            probe.phase(.dispose)
            // Each disposable is dropped as it is disposed (as the C version
            // releases its handle), so the subscriptions are freed in the
            // dispose order too.
            for index in permutation {
                disposables[index]?.dispose()
                disposables[index] = nil
            }
            disposables.removeAll(keepingCapacity: true)
        }
        pipe.putNext(1_000_000_000)
        probe.end()
        return sum.value
    }

    /// ND: `rounds` times: nest `depth` containers of `kind`, each holding
    /// the next, the innermost an action that adds 1 to the sum; dispose
    /// the outermost (which disposes them all), then let go of it (which
    /// releases them all). Timed: the rounds; the probe's `phase` marks
    /// the nesting (`.subscribe`) and the dispose and release (`.dispose`).
    public static func nested(depth: Int, rounds: Int, kind: NestedKind, _ probe: Probe) -> Int {
        let sum = Sum()
        probe.begin()
        for _ in 0 ..< rounds {
            probe.phase(.subscribe)
            var inner: any Disposable = ActionDisposable { sum.value &+= 1 }
            for _ in 0 ..< depth {
                switch kind {
                case .meta:
                    let meta = MetaDisposable()
                    meta.set(inner)
                    inner = meta
                case .set:
                    let set = DisposableSet()
                    set.add(inner)
                    inner = set
                case .dict:
                    let dict = DisposableDict<Int>()
                    dict.set(inner, forKey: 0)
                    inner = dict
                }
            }
            probe.phase(.dispose)
            inner.dispose()
            inner = EmptyDisposable
        }
        probe.end()
        return sum.value
    }

    /// W9: `sinks` summing sinks directly on one pipe; `puts` values put
    /// by `threads` threads at once (thread t puts its share, the t-th
    /// slice of `0..<puts`), so that deliveries to the same sinks race.
    /// A sink may run on either thread, so each adds to its own atomic
    /// (relaxed). Timed: starting the threads, the puts, joining.
    public static func w9(threads: Int, sinks: Int, puts: Int, _ probe: Probe) -> Int {
        let pipe = ValuePipe<Int>()
        let signal = pipe.signal()
        let sums = (0 ..< sinks).map { _ in AtomicSum() }
        let disposables = sums.map { sum in
            signal.start(next: { sum.value.wrappingAdd($0, ordering: .relaxed) })
        }
        let share = puts / threads
        probe.begin()
        onThreads(threads) { thread in
            let end = thread == threads - 1 ? puts : (thread + 1) * share
            for value in thread * share ..< end {
                pipe.putNext(value)
            }
        }
        probe.end()
        for disposable in disposables {
            disposable.dispose()
        }
        return sums.reduce(0) { $0 &+ $1.value.load(ordering: .relaxed) }
    }

    /// W7: pipe → deliverOn(serial queue) → summing sink that signals on the
    /// last value; put `0..<n` on the calling thread and wait for the last.
    /// Timed: first put to last delivery.
    public static func w7(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let done = DispatchSemaphore(value: 0)
        let queue = Queue(name: "bench.w7")
        let pipe = ValuePipe<Int>()
        let last = n - 1
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            sum.value &+= value
            if value == last {
                done.signal()
            }
        })
        probe.begin()
        for i in 0 ..< n {
            pipe.putNext(i)
        }
        done.wait()
        probe.end()
        disposable.dispose()
        return sum.value
    }
}
