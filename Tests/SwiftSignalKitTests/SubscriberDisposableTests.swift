import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The disposable `start` returns refers to its subscriber without keeping it
/// alive; the subscriber's deinit and a dispose may race.
final class SubscriberDisposableTests: XCTestCase {
    private final class Counted {
        let deinits: Atomic<Int>

        init(_ deinits: Atomic<Int>) {
            self.deinits = deinits
        }

        deinit {
            self.deinits.modify { $0 + 1 }
        }
    }

    private final class Holder: @unchecked Sendable {
        var subscriber: Subscriber<Int, NoError>?
    }

    func testDisposeRacingWithTheSubscribersDeinitReleasesEverythingOnce() {
        let rounds = 2_000
        let callbackReleases = Atomic<Int>(value: 0)
        let upstreamDisposals = Atomic<Int>(value: 0)
        for _ in 0 ..< rounds {
            let holder = Holder()
            let signal = Signal<Int, NoError> { subscriber in
                holder.subscriber = subscriber
                return ActionDisposable {
                    upstreamDisposals.modify { $0 + 1 }
                }
            }
            let counted = Counted(callbackReleases)
            let disposable = signal.start(next: { _ in
                withExtendedLifetime(counted) {}
            })
            // One thread lets go of the subscriber (its source dropping it),
            // the other disposes, at the same time.
            runThreads(2) { index in
                if index == 0 {
                    holder.subscriber = nil
                } else {
                    disposable.dispose()
                }
            }
        }
        XCTAssertEqual(callbackReleases.with { $0 }, rounds)
        XCTAssertEqual(upstreamDisposals.with { $0 }, rounds)
    }

    func testDisposingAfterTheSubscriberIsGoneStillDisposesTheUpstream() {
        let disposed = Atomic<Int>(value: 0)
        let signal = Signal<Int, NoError> { _ in
            return ActionDisposable {
                disposed.modify { $0 + 1 }
            }
        }
        let disposable = signal.start(next: { _ in })
        XCTAssertEqual(disposed.with { $0 }, 0)
        disposable.dispose()
        disposable.dispose()
        XCTAssertEqual(disposed.with { $0 }, 1)
    }

    func testDisposeFromInsideTheSubscribersOwnCallback() {
        let pipe = ValuePipe<Int>()
        let disposable = MetaDisposable()
        var received: [Int] = []
        disposable.set(pipe.signal().start(next: { value in
            received.append(value)
            disposable.dispose()
        }))
        pipe.putNext(1)
        pipe.putNext(2)
        XCTAssertEqual(received, [1])
    }

    /// A documented difference from the original (docs/semantics.md):
    /// the subscriber is terminated before the generator's disposable is
    /// disposed, so events that disposal emits are not delivered.
    func testEventsEmittedByTheGeneratorsDisposalAreNotDelivered() {
        var log: [String] = []
        var disposed = false
        let disposable = Signal<Int, NoError> { subscriber in
            return ActionDisposable {
                disposed = true
                subscriber.putNext(1)
                subscriber.putCompletion()
            }
        }.start(next: { log.append("next \($0)") }, completed: { log.append("completed") })
        disposable.dispose()
        XCTAssertTrue(disposed)
        XCTAssertEqual(log, [])
    }
}
