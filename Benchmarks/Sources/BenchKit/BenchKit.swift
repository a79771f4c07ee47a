import Glibc
import Synchronization

/// What a workload reports to. A workload calls `begin()` right before its
/// timed section and `end()` right after it (once each, on the calling
/// thread), and returns its checksum. The runner's probe reads the clock and
/// the allocation counters there; the ordo-one harness's probe starts and
/// stops its own measurement.
public struct Probe: @unchecked Sendable {
    public let begin: () -> Void
    public let end: () -> Void
    /// Called by W6 between subscribing and its put, with every subscription
    /// still alive: the runner reads heap and RSS growth there.
    public let live: () -> Void
    /// Called by W8 inside its timed section when a phase starts (`Phase`):
    /// the runner splits the time among the phases there.
    public let phase: (Phase) -> Void

    /// The phases of a W8 round.
    public enum Phase: Int, Sendable {
        case subscribe = 0, deliver = 1, dispose = 2
    }

    public init(begin: @escaping () -> Void, end: @escaping () -> Void, live: @escaping () -> Void = {}, phase: @escaping (Phase) -> Void = { _ in }) {
        self.begin = begin
        self.end = end
        self.live = live
        self.phase = phase
    }

    /// A probe that measures nothing.
    public static let none = Probe(begin: {}, end: {})
}

/// The sizes of the workloads (README.md); `scaled` gives smaller ones for
/// quick checks that count allocations per event.
public struct Sizes: Sendable {
    public var w1Events: Int
    public var w2Cycles: Int
    public var w2PutEvery: Int
    public var w3Sinks: Int
    public var w3Puts: Int
    public var w4Events: Int
    public var w5Puts: Int
    public var w6Subscriptions: Int
    public var w7Events: Int
    /// W8: the small pipe's subscriptions and its rounds, the large pipe's
    /// subscriptions (one round); the same total either way.
    public var w8Small: Int
    public var w8SmallRounds: Int
    public var w8Large: Int
    /// W9: the sinks on the pipe and the puts (split evenly among the threads).
    public var w9Sinks: Int
    public var w9Puts: Int
    /// ND: the containers of the shallow nesting and its rounds, the
    /// containers of the deep one (one round); the same total either way.
    public var ndSmall: Int
    public var ndSmallRounds: Int
    public var ndLarge: Int

    public static let standard = Sizes(
        w1Events: 5_000_000, w2Cycles: 1_000_000, w2PutEvery: 100_000, w3Sinks: 1_000, w3Puts: 10_000,
        w4Events: 1_000_000, w5Puts: 1_000_000, w6Subscriptions: 100_000, w7Events: 1_000_000,
        w8Small: 1_000, w8SmallRounds: 1_000, w8Large: 1_000_000, w9Sinks: 10, w9Puts: 1_000_000,
        ndSmall: 1_000, ndSmallRounds: 1_000, ndLarge: 1_000_000)

    /// Every size divided by `d` (at least 1; W2 keeps its put interval at
    /// most the cycle count; W8's small pipe, ND's shallow nesting and W9's
    /// sinks keep their size;
    /// W9's puts stay even), for profiling under valgrind.
    public func divided(by d: Int) -> Sizes {
        let cycles = max(1, self.w2Cycles / d)
        return Sizes(w1Events: max(1, self.w1Events / d), w2Cycles: cycles, w2PutEvery: max(1, min(self.w2PutEvery / d, cycles)),
                     w3Sinks: self.w3Sinks, w3Puts: max(1, self.w3Puts / d), w4Events: max(1, self.w4Events / d),
                     w5Puts: max(2, self.w5Puts / d), w6Subscriptions: max(1, self.w6Subscriptions / d), w7Events: max(1, self.w7Events / d),
                     w8Small: self.w8Small, w8SmallRounds: max(1, self.w8SmallRounds / d), w8Large: max(1, self.w8Large / d),
                     w9Sinks: self.w9Sinks, w9Puts: max(2, self.w9Puts / d / 2 * 2),
                     ndSmall: self.ndSmall, ndSmallRounds: max(1, self.ndSmallRounds / d), ndLarge: max(1, self.ndLarge / d))
    }

    public init(w1Events: Int, w2Cycles: Int, w2PutEvery: Int, w3Sinks: Int, w3Puts: Int, w4Events: Int, w5Puts: Int, w6Subscriptions: Int, w7Events: Int,
                w8Small: Int, w8SmallRounds: Int, w8Large: Int, w9Sinks: Int, w9Puts: Int,
                ndSmall: Int, ndSmallRounds: Int, ndLarge: Int) {
        self.w1Events = w1Events
        self.w2Cycles = w2Cycles
        self.w2PutEvery = w2PutEvery
        self.w3Sinks = w3Sinks
        self.w3Puts = w3Puts
        self.w4Events = w4Events
        self.w5Puts = w5Puts
        self.w6Subscriptions = w6Subscriptions
        self.w7Events = w7Events
        self.w8Small = w8Small
        self.w8SmallRounds = w8SmallRounds
        self.w8Large = w8Large
        self.w9Sinks = w9Sinks
        self.w9Puts = w9Puts
        self.ndSmall = ndSmall
        self.ndSmallRounds = ndSmallRounds
        self.ndLarge = ndLarge
    }
}

/// The expected checksums, computed plainly (no reactive code).
public enum Expected {
    /// W1: the sum of 2 * (i + 1) over i in 0..<n where i + 1 is even.
    public static func w1(_ n: Int) -> Int {
        var sum = 0
        for i in 0 ..< n {
            let a = i + 1
            if a % 2 == 0 {
                sum &+= a * 2
            }
        }
        return sum
    }

    /// W2: the values i + 1 of the cycles i where i % every == 0.
    public static func w2(cycles: Int, every: Int) -> Int {
        var sum = 0
        for i in 0 ..< cycles where i % every == 0 {
            sum &+= i + 1
        }
        return sum
    }

    /// W3: every sink receives every value.
    public static func w3(sinks: Int, puts: Int) -> Int {
        var sum = 0
        for i in 0 ..< puts {
            sum &+= i
        }
        return sum &* sinks
    }

    /// W4 and W7: the sum of 0..<n.
    public static func sumBelow(_ n: Int) -> Int {
        var sum = 0
        for i in 0 ..< n {
            sum &+= i
        }
        return sum
    }

    /// W5: value i is put into pipe i % 2; once both have a value, every put
    /// delivers the sum of the latest two.
    public static func w5(_ n: Int) -> Int {
        var latest: [Int?] = [nil, nil]
        var sum = 0
        for i in 0 ..< n {
            latest[i % 2] = i
            if let a = latest[0], let b = latest[1] {
                sum &+= a &+ b
            }
        }
        return sum
    }

    /// W5z: value i is put into pipe i % 2; each value of the second pipe
    /// completes a pair with the value put just before it.
    public static func w5zip(_ n: Int) -> Int {
        return sumBelow(n - n % 2)
    }

    /// W5s: the running sums of 0..<n, added up.
    public static func w5scan(_ n: Int) -> Int {
        var running = 0
        var sum = 0
        for i in 0 ..< n {
            running &+= i
            sum &+= running
        }
        return sum
    }

    /// W6: one put of 1, mapped to 2, reaches every subscription.
    public static func w6(_ subscriptions: Int) -> Int {
        return 2 * subscriptions
    }

    /// W8: round r (from 0) puts r, mapped to r + 1, to each of its
    /// `subscriptions`.
    public static func w8(subscriptions: Int, rounds: Int) -> Int {
        var sum = 0
        for round in 0 ..< rounds {
            sum &+= (round + 1) &* subscriptions
        }
        return sum
    }

    /// W9: every sink receives every value of `0..<puts`, whichever thread
    /// put it.
    public static func w9(sinks: Int, puts: Int) -> Int {
        return w3(sinks: sinks, puts: puts)
    }

    /// ND: the innermost action of each round adds 1.
    public static func nested(rounds: Int) -> Int {
        return rounds
    }
}

/// The containers ND nests: `MetaDisposable`, `DisposableSet`,
/// `DisposableDict` (`sk_disposable_meta`, `_set`, `_dict` in C).
public enum NestedKind: String, CaseIterable, Sendable {
    case meta
    case set
    case dict
}

/// The order in which W8 disposes its subscriptions.
public enum DisposeOrder: String, CaseIterable, Sendable {
    /// First made, first disposed.
    case first
    /// Last made, first disposed.
    case last
    /// A fixed random permutation (`permutation(_:)`).
    case random

    /// "first-made first", "last-made first", "random".
    public var label: String {
        switch self {
        case .first: return "first-made first"
        case .last: return "last-made first"
        case .random: return "random"
        }
    }

    /// The indices 0..<n in this order; the random one is a Fisher-Yates
    /// shuffle driven by SplitMix64 with the seed 0x5EED (the same every run),
    /// written out rather than `shuffle(using:)` so that `bench_capi.c`
    /// (`dispose_order`) makes the same permutation: for i from n - 1 down
    /// to 1, swap i with `next() % (i + 1)` (the modulo's bias, under 2^-43
    /// for n = 1M, does not matter here).
    public func permutation(_ n: Int) -> [Int] {
        switch self {
        case .first:
            return Array(0 ..< n)
        case .last:
            return Array((0 ..< n).reversed())
        case .random:
            var indices = Array(0 ..< n)
            var generator = SplitMix64(seed: 0x5EED)
            var i = n - 1
            while i > 0 {
                let j = Int(generator.next() % UInt64(i + 1))
                indices.swapAt(i, j)
                i -= 1
            }
            return indices
        }
    }
}

/// A small, fast, seeded generator (Steele, Lea and Flood's SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body(t)` for t in 0..<count on `count` threads at once (the calling
/// thread is thread 0, the others are started with `pthread_create`) and
/// returns when all have finished. The threads wait for each other before
/// calling `body` (a spinning start line), so that their work overlaps from
/// the start; thread creation and joining are the caller's to time or not.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = StartLine(count)
    var threads: [pthread_t] = []
    for index in 1 ..< max(count, 1) {
        let context = Unmanaged.passRetained(ThreadStart(index: index, start: start, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let job = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
            job.start.arrive()
            job.body(job.index)
            return nil
        }, context)
        precondition(status == 0, "pthread_create failed: \(status)")
        threads.append(thread)
    }
    start.arrive()
    body(0)
    for thread in threads {
        pthread_join(thread, nil)
    }
}

/// What a thread started by `onThreads` runs.
private final class ThreadStart: @unchecked Sendable {
    let index: Int
    let start: StartLine
    let body: @Sendable (Int) -> Void

    init(index: Int, start: StartLine, body: @escaping @Sendable (Int) -> Void) {
        self.index = index
        self.start = start
        self.body = body
    }
}

/// A one-use barrier: `arrive` returns once `count` threads have arrived.
private final class StartLine: Sendable {
    private let waiting: Atomic<Int>

    init(_ count: Int) {
        self.waiting = Atomic(count)
    }

    func arrive() {
        self.waiting.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        while self.waiting.load(ordering: .acquiring) > 0 {
            sched_yield()
        }
    }
}

/// `value` rounded to 4 decimals, as a JSON number (no Foundation here).
public func json(_ value: Double) -> String {
    guard value.isFinite else {
        return "null"
    }
    return "\((value * 10_000).rounded() / 10_000)"
}
