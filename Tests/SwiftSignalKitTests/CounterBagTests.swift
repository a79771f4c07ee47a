import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class CounterBagTests: XCTestCase {
    func testNewBagIsEmpty() {
        XCTAssertTrue(CounterBag().isEmpty)
    }

    func testAddReturnsDistinctIncreasingKeys() {
        let bag = CounterBag()
        let a = bag.add()
        let b = bag.add()
        let c = bag.add()
        XCTAssertLessThan(a, b)
        XCTAssertLessThan(b, c)
        XCTAssertFalse(bag.isEmpty)
    }

    func testIsEmptyOnlyWhenEveryKeyIsRemoved() {
        let bag = CounterBag()
        let a = bag.add()
        let b = bag.add()
        bag.remove(a)
        XCTAssertFalse(bag.isEmpty)
        bag.remove(b)
        XCTAssertTrue(bag.isEmpty)
    }

    func testRemovingAStaleOrUnknownKeyIsANoOp() {
        let bag = CounterBag()
        let a = bag.add()
        let b = bag.add()
        bag.remove(a)
        bag.remove(a)
        bag.remove(-1)
        bag.remove(b + 100)
        XCTAssertFalse(bag.isEmpty)
        bag.remove(b)
        XCTAssertTrue(bag.isEmpty)
    }

    func testKeysAreNeverReused() {
        let bag = CounterBag()
        let a = bag.add()
        bag.remove(a)
        let b = bag.add()
        XCTAssertNotEqual(a, b)
        // The stale key does not cancel the new registration.
        bag.remove(a)
        XCTAssertFalse(bag.isEmpty)
        bag.remove(b)
        XCTAssertTrue(bag.isEmpty)
    }

    func testLargeCounts() throws {
        let bag = CounterBag()
        let count = 100_000
        let keys = (0 ..< count).map { _ in bag.add() }
        XCTAssertEqual(Set(keys).count, count)
        for key in keys.dropLast() {
            bag.remove(key)
        }
        XCTAssertFalse(bag.isEmpty)
        bag.remove(keys[count - 1])
        XCTAssertTrue(bag.isEmpty)
    }
}
