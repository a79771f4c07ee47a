import Dispatch
import XCTest
import SwiftSignalKit

// Stress: producers racing subscribers, an emitter running while workers
// subscribe and dispose, and the order check for what every subscriber saw.

/// Checks that every subscriber sees the values of each producer in the order
/// they were put: per producer, indices must strictly increase (a stale value,
/// such as an old replay after a newer value, breaks it). Counts violations.
///
/// Thread-safety: `makeCheck()` and `violations` may be used from any thread.
/// A check may be called for different producers at the same time, but not
/// for one producer from two threads at once.
package final class PerProducerOrder: @unchecked Sendable {
    /// How many producers there are; they are numbered from 0.
    package let producers: Int
    /// The values that came out of order, for every subscriber.
    package let violations = Counter()

    /// For producers numbered 0 ..< `producers`.
    package init(producers: Int) {
        self.producers = producers
    }

    /// A check for one subscriber, to call with the producer and the index of
    /// each value it receives. Values of different producers may arrive
    /// concurrently: each slot is only written for its own producer.
    package func makeCheck() -> @Sendable (_ producer: Int, _ index: Int) -> Void {
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
package func raceProducers(_ producers: Int, perProducer: Int, transientWorkers: Int = 4, label: String, put: @escaping @Sendable (_ producer: Int, _ index: Int) -> Void, againstSubscribers subscribeAndDispose: @escaping @Sendable () -> Void, file: StaticString = #filePath, line: UInt = #line) -> Int {
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
package func whileEmitting(into pipes: [TestPipe<Int, NoError>], workers: Int, iterations: Int, file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () -> Void) {
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
    XCTAssertEqual(emitter.wait(timeout: .now() + waitDeadline), .success, file: file, line: line)
}
