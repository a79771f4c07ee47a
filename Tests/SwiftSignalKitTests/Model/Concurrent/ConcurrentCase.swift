import Foundation
@testable import SignalKitModel
import Dispatch

// The model's threaded cases (Tests/README.md, "Threaded cases"): several
// threads put into pipes at once, under one of the operators whose inputs
// may come from several threads (merge, share, replay, groupBy, mergeMap,
// zip, combineLatest, scan). The order in which the threads' values meet is
// not determined, so the model does not predict one outcome: it checks what
// the contract promises whatever the interleaving (`ConcurrentCase.check`):
// - the multiset of values (every value put arrives, once, and nothing else);
// - each thread's order, where the operator keeps it;
// - exactly one terminal event, and nothing after it, and no value callback
//   still running when it runs (signalkit.h's "Order of events");
// - in the cases whose end races the puts (`endRacing`: one more thread
//   completes the pipes while the others put), the values delivered are
//   some of those put, each once, in each thread's order, with the same
//   terminal-event checks;
// - (the runners) every callback released and, through the C API,
//   `sk_live_objects()` back to its value before the case.
// The same case runs through the Swift API (`ConcurrentSwiftRunner`) and the
// C API (`ConcurrentCRunner`).

/// The values a threaded case puts: thread `t`'s `i`-th value is
/// `t * stride + i + 1`, so a value says its thread and its place.
enum ConcurrentValue {
    static let stride = 100_000

    static func make(thread: Int, index: Int) -> Int {
        return thread * stride + index + 1
    }

    static func thread(_ value: Int) -> Int {
        return value / stride
    }

    static func index(_ value: Int) -> Int {
        return value % stride - 1
    }

    /// mergeMap's inner signal for `value`: these values, then completion.
    static func inner(_ value: Int) -> [Int] {
        return [value * 10, value * 10 + 1]
    }

    /// groupBy's key: the value's place modulo `keys`, so that every thread
    /// puts every key at about the same time.
    static func key(_ value: Int, keys: Int) -> Int {
        return index(value) % keys
    }
}

/// One threaded case: an operator over pipes, and the puts of each thread.
struct ConcurrentCase: CustomStringConvertible {
    enum Shape: CustomStringConvertible {
        /// merge of `pipes` pipes.
        case merge(pipes: Int)
        /// share of one pipe, with `subscribers` subscribers, all subscribed
        /// before the puts.
        case share(subscribers: Int)
        /// replay(count) of one pipe, likewise.
        case replay(count: Int, subscribers: Int)
        /// groupBy of one pipe by `ConcurrentValue.key`, each group
        /// subscribed from the callback that receives it.
        case groupBy(keys: Int)
        /// mergeMap(maxConcurrent:) of one pipe to `ConcurrentValue.inner`.
        case mergeMap(maxConcurrent: Int)
        /// zip of two pipes.
        case zip
        /// combineLatest of two pipes; with `onQueue`, through a serial queue
        /// (`combineLatest(queue:)`), which serializes the combinations.
        case combineLatest(onQueue: Bool)
        /// scan(0, +) of one pipe.
        case scan

        var pipes: Int {
            switch self {
            case let .merge(pipes):
                return pipes
            case .zip, .combineLatest:
                return 2
            default:
                return 1
            }
        }

        var description: String {
            switch self {
            case let .merge(pipes):
                return "merge(\(pipes) pipes)"
            case let .share(subscribers):
                return "share(\(subscribers) subscribers)"
            case let .replay(count, subscribers):
                return "replay(\(count), \(subscribers) subscribers)"
            case let .groupBy(keys):
                return "groupBy(\(keys) keys)"
            case let .mergeMap(maxConcurrent):
                return "mergeMap(maxConcurrent: \(maxConcurrent))"
            case .zip:
                return "zip"
            case let .combineLatest(onQueue):
                return onQueue ? "combineLatest(queue: serial)" : "combineLatest"
            case .scan:
                return "scan(0, +)"
            }
        }
    }

    struct Put {
        let pipe: Int
        let value: Int
    }

    let shape: Shape
    /// `puts[t]`: what thread t puts, in order.
    let puts: [[Put]]
    /// One more thread completes the pipes while the others put (merge,
    /// share, replay and scan only): the values put after the end are
    /// dropped, so the checks ask for a subset of the values put.
    var endRacing = false

    init(shape: Shape, puts: [[Put]], endRacing: Bool = false) {
        self.shape = shape
        self.puts = puts
        self.endRacing = endRacing
    }

    var description: String {
        let counts = self.puts.map { "\($0.count)" }.joined(separator: ", ")
        return "\(self.shape), \(self.puts.count) threads putting [\(counts)] values\(self.endRacing ? ", one more ending the pipes meanwhile" : "")"
    }

    /// A random case: 2 to 8 threads, up to `maxPuts` values each.
    static func make(seed: UInt64, maxPuts: Int = 300) -> ConcurrentCase {
        var random = ModelRandom(seed: seed)
        let shape: Shape
        switch random.below(8) {
        case 0:
            shape = .merge(pipes: 1 + random.below(3))
        case 1:
            shape = .share(subscribers: 1 + random.below(4))
        case 2:
            shape = .replay(count: 1 + random.below(3), subscribers: 1 + random.below(4))
        case 3:
            shape = .groupBy(keys: 1 + random.below(16))
        case 4:
            shape = .mergeMap(maxConcurrent: random.pick([1, 2, 3, 8, Int.max]))
        case 5:
            shape = .zip
        case 6:
            shape = .combineLatest(onQueue: random.chance(50))
        default:
            shape = .scan
        }
        let threads = 2 + random.below(7)
        let puts = (0 ..< threads).map { thread -> [Put] in
            let count = random.below(maxPuts + 1)
            // A thread keeps to one pipe, or spreads its values over all.
            let spread = random.chance(50)
            let own = random.below(shape.pipes)
            return (0 ..< count).map { index in
                Put(pipe: spread ? random.below(shape.pipes) : own, value: ConcurrentValue.make(thread: thread, index: index))
            }
        }
        var racing = false
        switch shape {
        case .merge, .share, .replay, .scan:
            racing = random.chance(30)
        default:
            break
        }
        return ConcurrentCase(shape: shape, puts: puts, endRacing: racing)
    }

    /// How many subscribers a run subscribes (the outer one alone, for
    /// groupBy).
    var subscriberCount: Int {
        switch self.shape {
        case let .share(count), let .replay(_, count):
            return count
        default:
            return 1
        }
    }

    /// The values put into `pipe`, all threads together.
    func values(of pipe: Int) -> [Int] {
        return self.puts.flatMap { $0.filter { $0.pipe == pipe }.map(\.value) }
    }

    /// What the promise says about what one run observed: the problems, none
    /// when it holds.
    func check(_ observed: ConcurrentObservation) -> [String] {
        var problems: [String] = []
        func terminal(_ log: ConcurrentLog, _ name: String) {
            if log.completions != 1 || log.errors != 0 {
                problems.append("\(name): \(log.completions) completions and \(log.errors) errors, not one completion")
            }
            if log.afterTerminal != 0 {
                problems.append("\(name): \(log.afterTerminal) events after the terminal one")
            }
            if log.overlapped != 0 {
                problems.append("\(name): the terminal event ran while \(log.overlapped) value callbacks ran")
            }
        }
        func sameMultiset(_ actual: [Int], _ expected: [Int], _ name: String) {
            if self.endRacing {
                // Some of the values put, each once.
                let counted = Dictionary(expected.map { ($0, 1) }, uniquingKeysWith: +)
                let seen = Dictionary(actual.map { ($0, 1) }, uniquingKeysWith: +)
                if let stray = seen.first(where: { $0.value > (counted[$0.key] ?? 0) }) {
                    problems.append("\(name): \(stray.key) delivered \(stray.value) times, put \(counted[stray.key] ?? 0) times")
                }
                return
            }
            if actual.sorted() != expected.sorted() {
                let missing = Set(expected).subtracting(actual).sorted().prefix(5)
                let extra = Set(actual).subtracting(expected).sorted().prefix(5)
                problems.append("\(name): \(actual.count) values for \(expected.count) put (missing \(Array(missing)), unexpected \(Array(extra)), duplicates: \(actual.count != Set(actual).count))")
            }
        }
        func threadOrder(_ values: [Int], strict: Bool, _ name: String) {
            var last: [Int: Int] = [:]
            for value in values {
                let thread = ConcurrentValue.thread(value)
                let index = ConcurrentValue.index(value)
                if let previous = last[thread], strict ? index <= previous : index < previous {
                    problems.append("\(name): thread \(thread)'s value \(index) came after its value \(previous)")
                    return
                }
                last[thread] = index
            }
        }
        let all = self.values(of: 0)
        switch self.shape {
        case let .merge(pipes):
            let log = observed.logs[0]
            sameMultiset(log.values, (0 ..< pipes).flatMap { self.values(of: $0) }, "merge")
            threadOrder(log.values, strict: true, "merge")
            terminal(log, "merge")

        case .share, .replay:
            for (i, log) in observed.logs.enumerated() {
                sameMultiset(log.values, all, "subscriber \(i)")
                threadOrder(log.values, strict: true, "subscriber \(i)")
                terminal(log, "subscriber \(i)")
            }

        case let .groupBy(keys):
            terminal(observed.logs[0], "the outer signal")
            let expectedKeys = Set(all.map { ConcurrentValue.key($0, keys: keys) })
            if Set(observed.groups.keys) != expectedKeys || observed.logs[0].values.count != expectedKeys.count {
                problems.append("groups \(observed.groups.keys.sorted()) (\(observed.logs[0].values.count) announced) for the keys \(expectedKeys.sorted())")
            }
            sameMultiset(observed.groups.values.flatMap { $0.values }, all, "the groups together")
            for (key, log) in observed.groups {
                if let stray = log.values.first(where: { ConcurrentValue.key($0, keys: keys) != key }) {
                    problems.append("group \(key) received \(stray), of key \(ConcurrentValue.key(stray, keys: keys))")
                }
                threadOrder(log.values, strict: true, "group \(key)")
                terminal(log, "group \(key)")
            }

        case let .mergeMap(maxConcurrent):
            let log = observed.logs[0]
            sameMultiset(log.values, all.flatMap { ConcurrentValue.inner($0) }, "mergeMap")
            // Each inner signal is synchronous: with one at a time (or room
            // for every thread's) a thread's values keep their order, and
            // each inner's values stay together.
            if maxConcurrent == 1 || maxConcurrent >= self.puts.count {
                threadOrder(log.values.map { $0 / 10 }, strict: false, "mergeMap")
            }
            terminal(log, "mergeMap")

        case .zip:
            let log = observed.logs[0]
            let left = self.values(of: 0), right = self.values(of: 1)
            let firsts = log.pairs.map { $0[0] }, seconds = log.pairs.map { $0[1] }
            if log.pairs.count != min(left.count, right.count) {
                problems.append("zip: \(log.pairs.count) pairs of \(left.count) and \(right.count) values")
            }
            if !Set(firsts).isSubset(of: left) || Set(firsts).count != firsts.count
                || !Set(seconds).isSubset(of: right) || Set(seconds).count != seconds.count {
                problems.append("zip: a pair holds a value not put into its pipe, or one twice")
            }
            if left.count <= right.count {
                sameMultiset(firsts, left, "zip's first values")
            }
            if right.count <= left.count {
                sameMultiset(seconds, right, "zip's second values")
            }
            // Pairs that two threads complete at once are delivered at once,
            // in either order (the header: "An array is delivered on the
            // thread of the value that completes it"); what is promised is
            // the pairing: the n-th value of each input in the n-th pair. So
            // two values of one thread in one input are paired, in their
            // order, with values that keep the order of the other input.
            for (a, b) in [(0, 1), (1, 0)] {
                var latest: [[Int]: (own: Int, other: Int)] = [:]
                for pair in log.pairs.sorted(by: { ($0[a], $0[b]) < ($1[a], $1[b]) }) {
                    let key = [ConcurrentValue.thread(pair[a]), ConcurrentValue.thread(pair[b])]
                    if let seen = latest[key], ConcurrentValue.index(pair[b]) < seen.other {
                        problems.append("zip: \(pair) pairs a later value of one input with an earlier of the other than \([seen.own, seen.other])")
                        break
                    }
                    latest[key] = (ConcurrentValue.index(pair[a]), ConcurrentValue.index(pair[b]))
                }
            }
            terminal(log, "zip")

        case .combineLatest:
            let log = observed.logs[0]
            let left = self.values(of: 0), right = self.values(of: 1)
            let firsts = log.pairs.map { $0[0] }, seconds = log.pairs.map { $0[1] }
            if !Set(firsts).isSubset(of: left) || !Set(seconds).isSubset(of: right) {
                problems.append("combineLatest: a pair holds a value not put into its pipe")
            }
            if log.pairs.count > left.count + right.count {
                problems.append("combineLatest: \(log.pairs.count) pairs for \(left.count + right.count) values")
            }
            if !left.isEmpty && !right.isEmpty && log.pairs.isEmpty {
                problems.append("combineLatest: no pair, with values in both pipes")
            }
            // Without a queue, combinations made at once on two threads are
            // delivered in either order (its documentation says so); through
            // a serial queue they come in the order of the updates: each
            // thread's values keep their order, and the last pair holds the
            // last value delivered of each input, the last its thread put.
            if case .combineLatest(onQueue: true) = self.shape, let last = log.pairs.last {
                let lastOfThread = { (values: [Int], value: Int) in
                    values.last(where: { ConcurrentValue.thread($0) == ConcurrentValue.thread(value) }) == value
                }
                if !lastOfThread(left, last[0]) || !lastOfThread(right, last[1]) {
                    problems.append("combineLatest: the last pair \(last) is not of the last values of their threads")
                }
                threadOrder(firsts, strict: false, "combineLatest's first values")
                threadOrder(seconds, strict: false, "combineLatest's second values")
            }
            terminal(log, "combineLatest")

        case .scan:
            let log = observed.logs[0]
            // One fold at a time: each sum is the previous one plus a value
            // put, each value once.
            var previous = 0
            let steps = log.values.map { sum -> Int in
                defer { previous = sum }
                return sum - previous
            }
            sameMultiset(steps, all, "scan's steps")
            threadOrder(steps, strict: true, "scan's steps")
            terminal(log, "scan")
        }
        problems.append(contentsOf: observed.problems)
        return problems
    }
}

/// The events one subscriber received: values (or pairs), terminal events,
/// and events after the terminal one.
///
/// Thread-safety: every method may be called from any thread.
final class ConcurrentLog: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Int] = []
    private(set) var pairs: [[Int]] = []
    private(set) var completions = 0
    private(set) var errors = 0
    private(set) var afterTerminal = 0
    /// Terminal events that began while a value callback was running.
    private(set) var overlapped = 0
    private var running = 0
    private let ended = DispatchSemaphore(value: 0)

    /// Waits for the first terminal event (for a delivery through a
    /// queue); false after `seconds` without one.
    func waitForTerminal(seconds: Double) -> Bool {
        guard self.ended.wait(timeout: .now() + seconds) == .success else {
            return false
        }
        self.ended.signal()
        return true
    }

    func next(_ value: Int) {
        self.lock.lock()
        if self.completions + self.errors > 0 {
            self.afterTerminal += 1
        }
        self.values.append(value)
        self.running += 1
        self.lock.unlock()
        self.leave()
    }

    func pair(_ pair: [Int]) {
        self.lock.lock()
        if self.completions + self.errors > 0 {
            self.afterTerminal += 1
        }
        self.pairs.append(pair)
        self.running += 1
        self.lock.unlock()
        self.leave()
    }

    /// The end of a value callback, a little later than its start (so that a
    /// terminal event that does not wait for it can be seen overlapping).
    private func leave() {
        for _ in 0 ..< 2 {
            sched_yield()
        }
        self.lock.lock()
        self.running -= 1
        self.lock.unlock()
    }

    func completed() {
        self.lock.lock()
        if self.completions + self.errors > 0 {
            self.afterTerminal += 1
        }
        if self.running != 0 {
            self.overlapped += 1
        }
        self.completions += 1
        self.lock.unlock()
        self.ended.signal()
    }

    func failed() {
        self.lock.lock()
        if self.completions + self.errors > 0 {
            self.afterTerminal += 1
        }
        if self.running != 0 {
            self.overlapped += 1
        }
        self.errors += 1
        self.lock.unlock()
        self.ended.signal()
    }
}

/// What one run of a threaded case observed.
///
/// Thread-safety: `group(_:)` and `problem(_:)` may be called from any
/// thread; the rest is read once the run is over.
final class ConcurrentObservation: @unchecked Sendable {
    /// One log per subscriber (the outer signal's, for groupBy).
    let logs: [ConcurrentLog]
    private let lock = NSLock()
    private(set) var groups: [Int: ConcurrentLog] = [:]
    private(set) var problems: [String] = []

    init(subscribers: Int) {
        self.logs = (0 ..< subscribers).map { _ in ConcurrentLog() }
    }

    /// The log of group `key`, made at its first announcement.
    func group(_ key: Int) -> ConcurrentLog {
        self.lock.lock()
        defer { self.lock.unlock() }
        if self.groups[key] != nil {
            self.problems.append("group \(key) announced twice")
        }
        let log = ConcurrentLog()
        self.groups[key] = log
        return log
    }

    func problem(_ text: String) {
        self.lock.lock()
        self.problems.append(text)
        self.lock.unlock()
    }
}
