import XCTest
@testable import SwiftSignalKit

/// A generator that emits and keeps no reference to its subscriber, and
/// returns a disposable that releases something (a descriptor): disposing
/// the subscription disposes it, through every operator, as in the
/// original (whose disposable returned downstream held the upstream's).
/// Behind the operators whose state goes with the upstream's subscriber
/// (deliverOn, the meta operators, then, mergeMap, the bounded buffers,
/// share and replay) it was released undisposed: the state went when the
/// source let go of its subscriber, and the later dispose found nothing (a
/// program written from docs/semantics.md: 0 of 1 disposals, 3 of 3 runs).
final class GeneratorDisposalTests: XCTestCase {
    private func disposals(_ operation: (Signal<Int, NoError>) -> Signal<Int, NoError>, queue: Queue) -> Int {
        let count = Atomic<Int>(value: 0)
        let source = Signal<Int, NoError> { subscriber in
            subscriber.putNext(1)
            return ActionDisposable {
                _ = count.modify { $0 + 1 }
            }
        }
        let disposable = operation(source).start()
        queue.sync {}
        disposable.dispose()
        queue.sync {}
        return count.with { $0 }
    }

    func testDisposingTheSubscriptionDisposesTheGeneratorsDisposable() {
        let queue = Queue(name: "GeneratorDisposalTests")
        let cases: [(String, (Signal<Int, NoError>) -> Signal<Int, NoError>)] = [
            ("start", { $0 }),
            ("map", { $0 |> map { $0 } }),
            ("deliverOn", { $0 |> deliverOn(queue) }),
            ("deliverOn bounded", { $0 |> deliverOn(queue, capacity: 4, overflow: .dropNewest) }),
            ("onBackpressureBuffer", { $0 |> onBackpressureBuffer(capacity: 4, overflow: .dropNewest) }),
            ("then", { Signal<Int, NoError>.complete() |> then($0) }),
            ("mapToSignal", { source in Signal<Int, NoError>.single(0) |> mapToSignal { _ in source } }),
            ("mapToSignal outer", { $0 |> mapToSignal { Signal<Int, NoError>.single($0) } }),
            ("switchToLatest", { source in Signal<Signal<Int, NoError>, NoError>.single(source) |> switchToLatest }),
            ("mergeMap", { $0 |> mergeMap(maxConcurrent: 2) { Signal<Int, NoError>.single($0) } }),
            // The connection ends when its upstream lets go (its subscribers
            // end without an event): the upstream's disposable is disposed
            // then, once.
            ("share", { $0 |> share }),
            ("replay", { $0 |> replay(1) }),
        ]
        for (name, operation) in cases {
            XCTAssertEqual(disposals(operation, queue: queue), 1, name)
        }
    }

    /// A target whose deinit has begun when a dispose comes (another
    /// thread's, at that moment): the dispose cannot reach it, and what the
    /// deinit then leaves is disposed at once, not kept for a dispose that
    /// already came. The deinit is made to call `dispose` itself before it
    /// ends the disposer's target, the order another thread can give.
    func testADisposeDuringTheTargetsDeinitDisposesWhatItLeaves() {
        final class Target: Disposable {
            var disposer: _UnretainedDisposable<Target>?
            let leaving: any Disposable
            init(leaving: any Disposable) {
                self.leaving = leaving
            }
            func dispose() {}
            deinit {
                self.disposer?.dispose()
                self.disposer?.targetEnded(leaving: [self.leaving])
            }
        }
        let count = Atomic<Int>(value: 0)
        var target: Target? = Target(leaving: ActionDisposable {
            _ = count.modify { $0 + 1 }
        })
        let disposer = _UnretainedDisposable(target!)
        target!.disposer = disposer
        target = nil
        XCTAssertEqual(count.with { $0 }, 1, "disposed when the deinit left it")
        disposer.dispose()
        XCTAssertEqual(count.with { $0 }, 1, "once")
    }

    /// Each connection of `share` whose upstream let go disposes what that
    /// upstream's generator returned: as many disposals as starts (before:
    /// 3 starts, 0 disposals, after two subscribers came and went).
    func testEveryConnectionOfAShareDisposesItsUpstream() {
        let starts = Atomic<Int>(value: 0)
        let disposals = Atomic<Int>(value: 0)
        let shared = Signal<Int, NoError> { subscriber in
            _ = starts.modify { $0 + 1 }
            subscriber.putNext(1)
            return ActionDisposable {
                _ = disposals.modify { $0 + 1 }
            }
        } |> share
        for _ in 0 ..< 3 {
            var values: [Int] = []
            let disposable = shared.start(next: { values.append($0) })
            XCTAssertEqual(values, [1])
            disposable.dispose()
        }
        XCTAssertEqual(starts.with { $0 }, 3)
        XCTAssertEqual(disposals.with { $0 }, 3)
    }
}
