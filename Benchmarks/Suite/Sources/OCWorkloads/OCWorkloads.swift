import BenchKit
import Dispatch
import OpenCombine
import OpenCombineDispatch
import Synchronization

final class Sum: @unchecked Sendable {
    var value = 0
}

/// W9's subject, shared by the putting threads: OpenCombine's
/// `PassthroughSubject.send` takes the subject's lock (it may be called from
/// any thread), but the class is not declared `Sendable`.
final class SharedSubject: @unchecked Sendable {
    let subject = PassthroughSubject<Int, Never>()
}

/// W9's sink accumulator (a sink may run on two threads at once).
final class AtomicSum: Sendable {
    let value = Atomic<Int>(0)
}

/// The workloads of Benchmarks/README.md on OpenCombine 0.14.0, written as a Swift
/// user would with its operators (Benchmarks/README.md, "How each peer's
/// workloads are written"). See SKWorkloads for what each times.
public enum OCWorkloads {
    /// W1: a `PassthroughSubject` → map → filter → map → sink, fed `0..<n`
    /// by a loop, then finished: every event goes through OpenCombine's
    /// `Map`, `Filter`, `Map` and `Sink` (as every event of our W1 goes
    /// through the generator's subscriber and the three stages). See
    /// `w1Sequence` for the form with `(0..<n).publisher`.
    public static func w1(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        probe.begin()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject
            .map { $0 + 1 }
            .filter { $0 % 2 == 0 }
            .map { $0 * 2 }
            .sink { sum.value &+= $0 }
        for i in 0 ..< n {
            subject.send(i)
        }
        subject.send(completion: .finished)
        cancellable.cancel()
        probe.end()
        return sum.value
    }

    /// W1 as `(0..<n).publisher` → map → filter → map → sink. On a
    /// `Publishers.Sequence`, OpenCombine's (and Combine's) `map` and
    /// `filter` are overloads that map and filter the sequence eagerly into
    /// arrays, before anything subscribes; they run the standard library's
    /// `Sequence.map` and `filter` unspecialized (OpenCombine's code is not
    /// inlinable), which is most of this form's time. Kept for comparison
    /// (`make bench` prints it below the table), not the W1 column.
    public static func w1Sequence(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        probe.begin()
        let cancellable = (0 ..< n).publisher
            .map { $0 + 1 }
            .filter { $0 % 2 == 0 }
            .map { $0 * 2 }
            .sink { sum.value &+= $0 }
        cancellable.cancel()
        probe.end()
        return sum.value
    }

    /// W2: a PassthroughSubject; the mapped publisher is built once; each cycle
    /// sinks, maybe sends, cancels.
    public static func w2(cycles: Int, every: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let subject = PassthroughSubject<Int, Never>()
        let mapped = subject.map { $0 + 1 }
        probe.begin()
        for i in 0 ..< cycles {
            let cancellable = mapped.sink { sum.value &+= $0 }
            if i % every == 0 {
                subject.send(i)
            }
            cancellable.cancel()
        }
        subject.send(1_000_000_000)
        probe.end()
        return sum.value
    }

    /// W3: `sinks` sinks on one PassthroughSubject.
    public static func w3(sinks: Int, puts: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let subject = PassthroughSubject<Int, Never>()
        var cancellables: [AnyCancellable] = []
        cancellables.reserveCapacity(sinks)
        for _ in 0 ..< sinks {
            cancellables.append(subject.sink { sum.value &+= $0 })
        }
        probe.begin()
        for i in 0 ..< puts {
            subject.send(i)
        }
        probe.end()
        for cancellable in cancellables {
            cancellable.cancel()
        }
        return sum.value
    }

    /// W4: a `PassthroughSubject` fed `0..<n` by a loop, then finished,
    /// `.map { Just($0) }.switchToLatest()` → sink (the source as in `w1`;
    /// `w4Sequence` is the `(0..<n).publisher` form, whose `map` is eager).
    public static func w4(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        probe.begin()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject
            .map { Just($0) }
            .switchToLatest()
            .sink { sum.value &+= $0 }
        for i in 0 ..< n {
            subject.send(i)
        }
        subject.send(completion: .finished)
        cancellable.cancel()
        probe.end()
        return sum.value
    }

    /// W4 as `(0..<n).publisher.map { Just($0) }.switchToLatest()`: the
    /// `map` builds an array of `n` `Just`s before subscribing (see
    /// `w1Sequence`). Kept for comparison.
    public static func w4Sequence(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        probe.begin()
        let cancellable = (0 ..< n).publisher
            .map { Just($0) }
            .switchToLatest()
            .sink { sum.value &+= $0 }
        cancellable.cancel()
        probe.end()
        return sum.value
    }

    /// W5: OpenCombine 0.14.0 has neither CombineLatest nor Merge; the
    /// equivalent built from its operators: the two subjects' values, tagged,
    /// merged with `flatMap`, the latest pair kept by `scan`, emitted by
    /// `compactMap` once both sides have a value. The erasures cost nothing
    /// per event (`AnyPublisher` hands the subscriber to its base); without
    /// the three after the merge, OpenCombine's unspecialized stages run 7%
    /// more instructions per put (callgrind, 2026-11-23), so they stay.
    public static func w5(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let inputs: [AnyPublisher<(Int, Int), Never>] = [
            a.map { (0, $0) }.eraseToAnyPublisher(),
            b.map { (1, $0) }.eraseToAnyPublisher(),
        ]
        typealias Tagged = AnyPublisher<(Int, Int), Never>
        let merged: AnyPublisher<(Int, Int), Never> = inputs.publisher
            .flatMap(maxPublishers: .unlimited) { (input: Tagged) -> Tagged in input }
            .eraseToAnyPublisher()
        let latest: AnyPublisher<(Int?, Int?), Never> = merged
            .scan((Int?.none, Int?.none)) { (latest: (Int?, Int?), tagged: (Int, Int)) -> (Int?, Int?) in
                tagged.0 == 0 ? (tagged.1, latest.1) : (latest.0, tagged.1)
            }
            .eraseToAnyPublisher()
        let pairs: AnyPublisher<(Int, Int), Never> = latest
            .compactMap { (latest: (Int?, Int?)) -> (Int, Int)? in
                guard let x = latest.0, let y = latest.1 else {
                    return nil
                }
                return (x, y)
            }
            .eraseToAnyPublisher()
        let cancellable = pairs.sink { (pair: (Int, Int)) in sum.value &+= pair.0 &+ pair.1 }
        probe.begin()
        for i in 0 ..< n {
            if i % 2 == 0 {
                a.send(i)
            } else {
                b.send(i)
            }
        }
        probe.end()
        cancellable.cancel()
        return sum.value
    }

    /// W6: `count` live `subject.map {$0 + 1}.sink`, then one send of 1.
    public static func w6(_ count: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let subject = PassthroughSubject<Int, Never>()
        let mapped = subject.map { $0 + 1 }
        var cancellables: [AnyCancellable] = []
        cancellables.reserveCapacity(count)
        probe.begin()
        for _ in 0 ..< count {
            cancellables.append(mapped.sink { sum.value &+= $0 })
        }
        probe.live()
        subject.send(1)
        probe.end()
        for cancellable in cancellables {
            cancellable.cancel()
        }
        return sum.value
    }

    /// W7: subject → `receive(on:)` a serial DispatchQueue → sink that signals
    /// on the last value.
    public static func w7(_ n: Int, _ probe: Probe) -> Int {
        let sum = Sum()
        let done = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "bench.w7.opencombine")
        let subject = PassthroughSubject<Int, Never>()
        let last = n - 1
        let cancellable = subject
            .receive(on: queue.ocombine)
            .sink { value in
                sum.value &+= value
                if value == last {
                    done.signal()
                }
            }
        probe.begin()
        for i in 0 ..< n {
            subject.send(i)
        }
        done.wait()
        probe.end()
        cancellable.cancel()
        return sum.value
    }

    /// W8: `rounds` times: `subscriptions` sinks on `subject.map {$0 + 1}`
    /// (built once), one send (round r sends r), every `AnyCancellable`
    /// cancelled and dropped in `order`; then one send that must reach
    /// nobody. As SKWorkloads.w8.
    public static func w8(subscriptions: Int, rounds: Int, order: DisposeOrder, _ probe: Probe) -> Int {
        let sum = Sum()
        let subject = PassthroughSubject<Int, Never>()
        let mapped = subject.map { $0 + 1 }
        let permutation = order.permutation(subscriptions)
        var cancellables: [AnyCancellable?] = []
        cancellables.reserveCapacity(subscriptions)
        probe.begin()
        for round in 0 ..< rounds {
            probe.phase(.subscribe)
            for _ in 0 ..< subscriptions {
                cancellables.append(mapped.sink { sum.value &+= $0 })
            }
            probe.phase(.deliver)
            subject.send(round)
            probe.phase(.dispose)
            for index in permutation {
                cancellables[index]?.cancel()
                cancellables[index] = nil
            }
            cancellables.removeAll(keepingCapacity: true)
        }
        subject.send(1_000_000_000)
        probe.end()
        return sum.value
    }

    /// W9: `sinks` sinks on one `PassthroughSubject` (whose `send` may be
    /// called from several threads), `puts` values sent by `threads` threads
    /// at once. As SKWorkloads.w9.
    public static func w9(threads: Int, sinks: Int, puts: Int, _ probe: Probe) -> Int {
        let shared = SharedSubject()
        let sums = (0 ..< sinks).map { _ in AtomicSum() }
        let cancellables = sums.map { sum in
            shared.subject.sink { sum.value.wrappingAdd($0, ordering: .relaxed) }
        }
        let share = puts / threads
        probe.begin()
        onThreads(threads) { thread in
            let end = thread == threads - 1 ? puts : (thread + 1) * share
            for value in thread * share ..< end {
                shared.subject.send(value)
            }
        }
        probe.end()
        for cancellable in cancellables {
            cancellable.cancel()
        }
        return sums.reduce(0) { $0 &+ $1.value.load(ordering: .relaxed) }
    }
}
