import Foundation
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Runs a threaded case through the Swift API: `SignalPipe`s, the operator,
/// recording subscribers; the threads put at once (released together), then
/// the calling thread completes every pipe and disposes everything.
enum ConcurrentSwiftRunner {
    /// Captured by every closure given to the library; gone once the run is
    /// over, or something leaked. Its end is signalled: a queue may let go of
    /// the last closure right after the last delivery, on its own thread.
    final class Token: @unchecked Sendable {
        let gone: DispatchSemaphore

        init(gone: DispatchSemaphore) {
            self.gone = gone
        }

        deinit {
            self.gone.signal()
        }
    }

    static func run(_ testCase: ConcurrentCase) -> ConcurrentObservation {
        let observed = ConcurrentObservation(subscribers: testCase.subscriberCount)
        let gone = DispatchSemaphore(value: 0)
        do {
            let token = Token(gone: gone)
            let pipes = (0 ..< testCase.shape.pipes).map { _ in SignalPipe<Int, Int>() }
            let disposables = DisposableSet()
            self.subscribe(testCase.shape, pipes.map { $0.signal() }, observed, disposables, token)
            runThreads(testCase.puts.count + (testCase.endRacing ? 1 : 0)) { thread in
                guard thread < testCase.puts.count else {
                    // The racing end (`ConcurrentCase.endRacing`).
                    for pipe in pipes {
                        pipe.putCompletion()
                    }
                    return
                }
                for put in testCase.puts[thread] {
                    pipes[put.pipe].putNext(put.value)
                }
            }
            for pipe in pipes {
                pipe.putCompletion()
            }
            if case .combineLatest(onQueue: true) = testCase.shape, !observed.logs[0].waitForTerminal(seconds: 60) {
                observed.problem("no terminal event through the queue within 60 s")
            }
            disposables.dispose()
        }
        if gone.wait(timeout: .now() + 60) != .success {
            observed.problem("callbacks or operator closures still alive after the final dispose")
        }
        return observed
    }

    private static func subscribe(_ shape: ConcurrentCase.Shape, _ sources: [Signal<Int, Int>], _ observed: ConcurrentObservation, _ disposables: DisposableSet, _ token: Token) {
        func start(_ signal: Signal<Int, Int>, _ log: ConcurrentLog) {
            disposables.add(signal.start(next: { value in
                withExtendedLifetime(token) { log.next(value) }
            }, error: { _ in
                log.failed()
            }, completed: {
                log.completed()
            }))
        }
        func startPairs(_ signal: Signal<(Int, Int), Int>, _ log: ConcurrentLog) {
            disposables.add(signal.start(next: { pair in
                withExtendedLifetime(token) { log.pair([pair.0, pair.1]) }
            }, error: { _ in
                log.failed()
            }, completed: {
                log.completed()
            }))
        }
        switch shape {
        case .merge:
            start(merge(sources), observed.logs[0])
        case .share:
            let shared = share(sources[0])
            for log in observed.logs {
                start(shared, log)
            }
        case let .replay(count, _):
            let replayed = sources[0] |> replay(count)
            for log in observed.logs {
                start(replayed, log)
            }
        case let .groupBy(keys):
            let outer = observed.logs[0]
            disposables.add((sources[0] |> groupBy { value in
                withExtendedLifetime(token) { ConcurrentValue.key(value, keys: keys) }
            }).start(next: { key, group in
                outer.next(key)
                start(group, observed.group(key))
            }, error: { _ in
                outer.failed()
            }, completed: {
                outer.completed()
            }))
        case let .mergeMap(maxConcurrent):
            start(sources[0] |> mergeMap(maxConcurrent: maxConcurrent) { value in
                withExtendedLifetime(token) {
                    Signal<Int, Int> { subscriber in
                        for inner in ConcurrentValue.inner(value) {
                            subscriber.putNext(inner)
                        }
                        subscriber.putCompletion()
                        return EmptyDisposable
                    }
                }
            }, observed.logs[0])
        case .zip:
            startPairs(zip(sources[0], sources[1]), observed.logs[0])
        case let .combineLatest(onQueue):
            startPairs(combineLatest(queue: onQueue ? Queue() : nil, sources[0], sources[1]), observed.logs[0])
        case .scan:
            start(sources[0] |> scan(0) { sum, value in
                withExtendedLifetime(token) { sum + value }
            }, observed.logs[0])
        }
    }
}
