import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import SwiftSignalKit

final class StripedLockTests: XCTestCase {
    private final class ThreadBody {
        let body: () -> Void

        init(_ body: @escaping () -> Void) {
            self.body = body
        }
    }

    /// Runs `body(0 ..< count)` on `count` new threads, released together once
    /// all exist, and joins them.
    private static func runThreads(_ count: Int, _ body: @escaping (Int) -> Void) {
        let go = DispatchSemaphore(value: 0)
        var threads: [pthread_t] = []
        for index in 0 ..< count {
            let context = Unmanaged.passRetained(ThreadBody {
                go.wait()
                body(index)
            }).toOpaque()
            var thread = pthread_t()
            let result = pthread_create(&thread, nil, { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
            precondition(result == 0)
            threads.append(thread)
        }
        for _ in 0 ..< count {
            go.signal()
        }
        for thread in threads {
            pthread_join(thread, nil)
        }
    }

    /// State touched only under the stripe lock under test.
    private final class Unprotected: @unchecked Sendable {
        var value = 0
        var inside = 0
        var overlaps = 0
    }

    func testStripedLockRunsTheBody() {
        let object = Unprotected()
        _stripedLock(for: object) {
            object.value += 1
        }
        XCTAssertEqual(object.value, 1)
    }

    func testStripedLockIsMutuallyExclusiveForOneObject() {
        let threadCount = 8
        let perThread = 10_000
        let state = Unprotected()
        StripedLockTests.runThreads(threadCount) { _ in
            for _ in 0 ..< perThread {
                _stripedLock(for: state) {
                    state.inside += 1
                    if state.inside != 1 {
                        state.overlaps += 1
                    }
                    state.value += 1
                    state.inside -= 1
                }
            }
        }
        XCTAssertEqual(state.value, threadCount * perThread)
        XCTAssertEqual(state.overlaps, 0)
    }

    func testStripedLockSerialisesManyObjects() {
        let threadCount = 4
        let perThread = 5_000
        let objects = (0 ..< 100).map { _ in Unprotected() }
        StripedLockTests.runThreads(threadCount) { thread in
            for i in 0 ..< perThread {
                let object = objects[(i * 7 + thread) % objects.count]
                _stripedLock(for: object) {
                    object.value += 1
                }
            }
        }
        XCTAssertEqual(objects.reduce(0) { $0 + $1.value }, threadCount * perThread)
    }
}
