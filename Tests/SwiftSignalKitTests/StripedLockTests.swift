import XCTest
import Dispatch
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

final class StripedLockTests: XCTestCase {
    func testStripedLockRunsTheBody() {
        let object = Unprotected()
        _stripedLock(for: object, .keepAlive) {
            object.value += 1
        }
        XCTAssertEqual(object.value, 1)
    }

    func testStripedLockIsMutuallyExclusiveForOneObject() {
        let threadCount = 8
        let perThread = 10_000
        let state = Unprotected()
        runThreads(threadCount) { _ in
            for _ in 0 ..< perThread {
                _stripedLock(for: state, .subscription) {
                    state.update()
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
        runThreads(threadCount) { thread in
            for i in 0 ..< perThread {
                let object = objects[(i * 7 + thread) % objects.count]
                _stripedLock(for: object, .keepAlive) {
                    object.value += 1
                }
            }
        }
        XCTAssertEqual(objects.reduce(0) { $0 + $1.value }, threadCount * perThread)
    }

    func testStripedLockForAddressHandsItsStripe() {
        let object = Unprotected()
        let address = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object)))
        let first = _stripedLock(forAddress: address, .handleRegistry) { $0 }
        let second = _stripedLock(forAddress: address, .handleRegistry) { $0 }
        XCTAssertEqual(first, second)
        XCTAssertTrue((0 ..< _stripesPerFamily).contains(first))
    }

    func testStripedLockForAddressIsMutuallyExclusiveForOneAddress() {
        let threadCount = 8
        let perThread = 10_000
        let state = Unprotected()
        let address = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(state)))
        runThreads(threadCount) { _ in
            for _ in 0 ..< perThread {
                _stripedLock(forAddress: address, .handleRegistry) { _ in
                    state.update()
                }
            }
        }
        XCTAssertEqual(state.value, threadCount * perThread)
        XCTAssertEqual(state.overlaps, 0)
    }
}
