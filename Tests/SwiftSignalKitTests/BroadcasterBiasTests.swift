import XCTest
import Dispatch
import _SwiftSignalKitShims
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A pipe biased to its single producer (Subjects/Broadcaster/BroadcasterBias.swift):
/// its puts take no lock; another thread that uses the pipe ends the bias
/// for good. Each handover is forced here with semaphores; the windows no
/// semaphore can hold open (a revocation during the owner's bookkeeping)
/// are the schedule explorer's (`make test-explore`, Tests/soak/fanout.c).
final class BroadcasterBiasTests: XCTestCase {
    /// Whether the process can bias at all (the kernel's membarrier).
    private var canBias: Bool {
        _sks_heavy_fence_available() != 0
    }

    private func bias<T>(of pipe: ValuePipe<T>) -> UInt {
        pipe.broadcaster.bias.load(ordering: .relaxed)
    }

    /// A subscription to `pipe` whose callback records its values in
    /// `values` and holds an object whose release `released` counts (when
    /// the subscription lets go of the callback).
    private func startRecording(_ pipe: ValuePipe<Int>, _ values: Atomic<[Int]>, _ released: Counter) -> any Disposable {
        let tracker = DeinitTracker(released)
        return pipe.signal().start(next: { value in
            tracker.touch()
            _ = values.modify { $0 + [value] }
        })
    }

    func testTheFirstProducerOwnsThePipeUntilAnotherThreadUsesIt() throws {
        try XCTSkipUnless(self.canBias, "the kernel refuses membarrier: nothing is biased")
        let pipe = ValuePipe<Int>()
        let values = Atomic<[Int]>(value: [])
        let first = pipe.signal().start(next: { value in _ = values.modify { $0 + [value] } })
        XCTAssertEqual(self.bias(of: pipe), 0, "nothing published yet")
        var token: UInt = 0
        let producer = spawnThread {
            token = UInt(_sks_thread_token())
            for value in 0 ..< 3 {
                pipe.putNext(value)
            }
        }
        pthread_join(producer, nil)
        XCTAssertEqual(self.bias(of: pipe), token, "biased to the producer")
        // This thread subscribes: the bias ends, for good.
        let second = pipe.signal().start(next: { value in _ = values.modify { $0 + [value * 10] } })
        XCTAssertEqual(self.bias(of: pipe), 1)
        pipe.putNext(3)
        XCTAssertEqual(self.bias(of: pipe), 1)
        XCTAssertEqual(values.with { $0 }, [0, 1, 2, 3, 30])
        first.dispose()
        second.dispose()
    }

    func testARevocationDuringTheOwnersDeliveryLeavesItsSnapshotAndRetirementsToIt() throws {
        try XCTSkipUnless(self.canBias, "the kernel refuses membarrier: nothing is biased")
        // The owner is inside a biased delivery (held in the first
        // subscriber's callback) when another thread subscribes, disposes
        // the second subscriber (which that delivery has still to reach) and
        // completes the pipe: the delivery ends over its own snapshot, the
        // disposed callback never gets the value and is released once the
        // delivery is over, the new subscriber gets only the completion.
        let pipe = ValuePipe<Int>()
        let held = HeldCall()
        let firstValues = Atomic<[Int]>(value: [])
        let first = pipe.signal().start(next: { value in
            _ = firstValues.modify { $0 + [value] }
            if value == 1 {
                held.hold()
            }
        })
        let released = Counter()
        let secondValues = Atomic<[Int]>(value: [])
        let second: (any Disposable)? = self.startRecording(pipe, secondValues, released)
        var token: UInt = 0
        let producer = spawnThread {
            token = UInt(_sks_thread_token())
            pipe.putNext(0)  // takes the bias
            pipe.putNext(1)  // biased, held in the first callback
        }
        held.waitUntilEntered()
        XCTAssertEqual(self.bias(of: pipe), token)
        let third = Recorder<Int, NoError>()
        let thirdDisposable = third.start(pipe.signal())
        XCTAssertEqual(self.bias(of: pipe), 1, "revoked by this thread's subscription")
        second?.dispose()
        XCTAssertEqual(released.count, 0, "the delivery in flight may still reach the callback")
        pipe.putCompletion()
        held.release()
        pthread_join(producer, nil)
        XCTAssertEqual(released.count, 1, "released when the delivery was over")
        XCTAssertEqual(firstValues.with { $0 }, [0, 1])
        XCTAssertEqual(secondValues.with { $0 }, [0])
        XCTAssertEqual(third.values.with { $0 }, [])
        XCTAssertEqual(third.completions.count, 1)
        pipe.putNext(2)
        XCTAssertEqual(firstValues.with { $0 }, [0, 1], "nothing after the completion")
        first.dispose()
        thirdDisposable.dispose()
    }

    func testADisposeFromInsideTheOwnersDeliveryIsFinishedWhenTheDeliveryEnds() throws {
        try XCTSkipUnless(self.canBias, "the kernel refuses membarrier: nothing is biased")
        // On the owner's own thread, a callback disposes a subscription the
        // biased delivery has still to reach: the retirement marks the owner
        // slot from that thread, and the slot's release (a plain store when
        // biased) must still finish it: the callback released once, after
        // the delivery, the value never delivered to it; the pipe stays
        // biased (no other thread was involved).
        let pipe = ValuePipe<Int>()
        let released = Counter()
        var second: (any Disposable)?
        let secondValues = Atomic<[Int]>(value: [])
        let releasedDuringDelivery = Atomic<Int>(value: -1)
        let first = pipe.signal().start(next: { value in
            if value == 1 {
                second?.dispose()
                _ = releasedDuringDelivery.swap(released.count)
            }
        })
        second = self.startRecording(pipe, secondValues, released)
        var token: UInt = 0
        var biasedBeforeTheDispose: UInt = 0
        var releasedAfterThePut = -1
        let producer = spawnThread {
            token = UInt(_sks_thread_token())
            pipe.putNext(0)  // takes the bias
            biasedBeforeTheDispose = pipe.broadcaster.bias.load(ordering: .relaxed)
            pipe.putNext(1)  // biased: the first callback disposes the second subscription
            releasedAfterThePut = released.count
            pipe.putNext(2)
        }
        pthread_join(producer, nil)
        XCTAssertEqual(biasedBeforeTheDispose, token)
        XCTAssertEqual(releasedDuringDelivery.with { $0 }, 0, "not while the delivery may still reach it")
        XCTAssertEqual(releasedAfterThePut, 1, "released when the delivery was over")
        XCTAssertEqual(secondValues.with { $0 }, [0])
        XCTAssertEqual(self.bias(of: pipe), token, "still biased: only the owner used the pipe")
        first.dispose()
    }

    func testAReplayHandedToALibraryThreadEndsTheBiasBeforeTheSlotIsFreed() throws {
        try XCTSkipUnless(self.canBias, "the kernel refuses membarrier: nothing is biased")
        // The owner subscribes to its replaying pipe, and the replay's
        // callback puts more than a catch-up's budget (1,024 values): the
        // rest is handed to a thread of the library, the subscription still
        // replaying. A value the owner puts next must join that backlog,
        // not overtake it (a biased put does not look at replays).
        let pipe = ValuePipe<Int>(replay: true)
        let count = 3_000
        let received = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        var token: UInt = 0
        var biasAfterTheSubscription: UInt = 0
        var disposable: (any Disposable)?
        let owner = spawnThread {
            token = UInt(_sks_thread_token())
            pipe.putNext(-1)  // the replayed value; takes the bias
            disposable = pipe.signal().start(next: { value in
                let all = received.modify { $0 + [value] }
                if value == -1 {
                    for next in 0 ..< count {
                        pipe.putNext(next)
                    }
                }
                if all.count == count + 3 {
                    done.signal()
                }
            })
            biasAfterTheSubscription = pipe.broadcaster.bias.load(ordering: .relaxed)
            pipe.putNext(count)
            pipe.putNext(count + 1)
        }
        pthread_join(owner, nil)
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertNotEqual(token, 0)
        XCTAssertEqual(biasAfterTheSubscription, 1, "the hand-off ended the bias")
        let all = received.with { $0 }
        XCTAssertEqual(all.count, count + 3)
        XCTAssertTrue(all == [-1] + Array(0 ..< count + 2), "in order: the replay, the values its callback put, then the later ones (first values: \(all.prefix(3)), last: \(all.suffix(3)))")
        disposable?.dispose()
    }
}
