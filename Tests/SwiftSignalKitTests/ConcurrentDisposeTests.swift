import XCTest
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Two disposes of one subscription at once (in the C soak: a callback
/// disposing its own subscription on the thread that emits, while the owner
/// disposes it on another). Only the first one to set the disposed flag
/// terminates the subscriber and disposes the upstream; the other returns at
/// once. It must still not return before the subscriber is terminated: once
/// a dispose has returned on a thread, no callback starts on that thread
/// (`Signal.start`, `sk_signal_start`). If the winner is preempted between
/// setting the flag and terminating the subscriber, a value the losing
/// thread emits right after its dispose returned was delivered on it (the
/// soak's "a callback on the disposing thread after dispose returned", on the
/// combine_latest pipeline).
///
/// The interleaving is made deterministic on the test thread: first what the
/// winner has done when it is preempted in that window (it set the disposed
/// flag of the subscription's `_SubscriberDisposable`, nothing else), then
/// the losing dispose and values on both inputs, then the rest of the
/// winner's dispose.
final class ConcurrentDisposeTests: XCTestCase {
    private final class Count: @unchecked Sendable {
        var values = 0
    }

    /// Starts `make(first, second)` over two pipes, primes it with a value on
    /// each, and checks that a dispose that loses the race to another one
    /// (preempted just after winning) ends the delivery on this thread.
    private func checkLosingDispose<T>(_ make: (Signal<Int, NoError>, Signal<Int, NoError>) -> Signal<T, NoError>, file: StaticString = #filePath, line: UInt = #line) {
        let first = ValuePipe<Int>()
        let second = ValuePipe<Int>()
        let count = Count()
        let disposable = make(first.signal(), second.signal()).start(next: { _ in
            count.values += 1
        })
        first.putNext(1)
        second.putNext(2)
        let primed = count.values
        XCTAssertGreaterThan(primed, 0, "the pipeline delivers before the dispose", file: file, line: line)
        guard let subscription = disposable as? _SubscriberDisposable else {
            XCTFail("start returned \(type(of: disposable)), not a _SubscriberDisposable", file: file, line: line)
            return
        }

        // The winning dispose, on another thread, preempted right after it
        // set the flag.
        subscription.state.bitwiseOr(_SubscriberDisposable.disposedFlag, ordering: .acquiringAndReleasing)
        // This thread's dispose loses; once it has returned, nothing more
        // is delivered on this thread.
        disposable.dispose()
        first.putNext(3)
        second.putNext(4)
        XCTAssertEqual(count.values, primed, "a value delivered on the disposing thread after its dispose returned", file: file, line: line)

        // The rest of the winner's dispose.
        let afterLoser = count.values
        subscription.terminate(subscription)
        subscription.disposeUpstream()
        first.putNext(5)
        second.putNext(6)
        XCTAssertEqual(count.values, afterLoser, "a value delivered after both disposes returned", file: file, line: line)
    }

    func testLosingDisposeOfCombineLatestEndsDeliveryOnItsThread() {
        checkLosingDispose { first, second in
            combineLatest(first, second)
        }
    }

    func testLosingDisposeOfCombineLatestOfAnArrayEndsDeliveryOnItsThread() {
        checkLosingDispose { first, second in
            combineLatest([first, second, second |> map { $0 * 2 }])
        }
    }

    func testLosingDisposeOfMergeEndsDeliveryOnItsThread() {
        checkLosingDispose { first, second in
            merge([first, second])
        }
    }

    func testLosingDisposeOfSwitchToLatestEndsDeliveryOnItsThread() {
        checkLosingDispose { first, second in
            first |> map { value in second |> map { $0 + value } } |> switchToLatest
        }
    }

    func testLosingDisposeOfMapToSignalEndsDeliveryOnItsThread() {
        checkLosingDispose { first, second in
            first |> mapToSignal { value in second |> map { $0 + value } }
        }
    }

    func testLosingDisposeOfTakeUntilEndsDeliveryOnItsThread() {
        checkLosingDispose { first, second in
            merge([first, second]) |> take(until: { _ in SignalTakeAction(passthrough: true, complete: false) })
        }
    }

    func testLosingDisposeOfAGeneratorEndsDeliveryOnItsThread() {
        checkLosingDispose { first, second in
            Signal<Int, NoError> { subscriber in
                let disposables = DisposableSet()
                disposables.add(first.start(next: { subscriber.putNext($0) }))
                disposables.add(second.start(next: { subscriber.putNext($0) }))
                return disposables
            }
        }
    }

    /// The losing dispose terminates the subscriber but leaves the upstream
    /// to the winner: it is disposed once, by the winner.
    func testLosingDisposeLeavesTheUpstreamToTheWinner() {
        let upstreamDisposals = Count()
        let disposable = Signal<Int, NoError> { _ in
            return ActionDisposable {
                upstreamDisposals.values += 1
            }
        }.start(next: { _ in })
        guard let subscription = disposable as? _SubscriberDisposable else {
            XCTFail("start returned \(type(of: disposable)), not a _SubscriberDisposable")
            return
        }
        subscription.state.bitwiseOr(_SubscriberDisposable.disposedFlag, ordering: .acquiringAndReleasing)
        disposable.dispose()
        XCTAssertEqual(upstreamDisposals.values, 0, "the loser disposed the upstream")
        subscription.terminate(subscription)
        subscription.disposeUpstream()
        XCTAssertEqual(upstreamDisposals.values, 1)
        disposable.dispose()
        XCTAssertEqual(upstreamDisposals.values, 1)
    }
}
