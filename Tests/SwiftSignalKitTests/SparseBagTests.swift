import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class SparseBagTests: XCTestCase {
    func testNewBagIsEmpty() {
        let bag = SparseBag<Int>()
        XCTAssertTrue(bag.isEmpty)
        XCTAssertEqual(Array(bag), [])
        XCTAssertNil(bag.get(0))
    }

    func testAddReturnsIncreasingKeysAndIteratesInOrder() {
        let bag = SparseBag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        let c = bag.add("c")
        XCTAssertLessThan(a, b)
        XCTAssertLessThan(b, c)
        XCTAssertEqual(Array(bag), ["a", "b", "c"])
        XCTAssertEqual(bag.get(a), "a")
        XCTAssertEqual(bag.get(b), "b")
        XCTAssertEqual(bag.get(c), "c")
        XCTAssertFalse(bag.isEmpty)
    }

    func testRemoveLeavesTheOthersInOrderAndReachable() {
        let bag = SparseBag<String>()
        let keys = ["a", "b", "c", "d", "e"].map { bag.add($0) }
        bag.remove(keys[1])
        bag.remove(keys[3])
        XCTAssertEqual(Array(bag), ["a", "c", "e"])
        XCTAssertNil(bag.get(keys[1]))
        XCTAssertNil(bag.get(keys[3]))
        bag.remove(keys[0])
        XCTAssertEqual(Array(bag), ["c", "e"])
        XCTAssertEqual(bag.get(keys[2]), "c")
        XCTAssertEqual(bag.get(keys[4]), "e")
    }

    func testRemovingTwiceDoesNotMiscount() {
        let bag = SparseBag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        bag.remove(a)
        bag.remove(a)
        XCTAssertFalse(bag.isEmpty)
        XCTAssertEqual(Array(bag), ["b"])
        bag.remove(b)
        XCTAssertTrue(bag.isEmpty)
    }

    func testRemovingAnUnknownKeyIsANoOp() {
        let bag = SparseBag<String>()
        let a = bag.add("a")
        bag.remove(-1)
        bag.remove(a + 1)
        bag.remove(1_000_000)
        XCTAssertEqual(Array(bag), ["a"])
    }

    func testKeyOfARemovedLastItemIsNotReused() {
        let bag = SparseBag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        bag.remove(b)
        let c = bag.add("c")
        XCTAssertNotEqual(c, b)
        // The stale key must not remove or reach the newer item.
        XCTAssertNil(bag.get(b))
        bag.remove(b)
        XCTAssertEqual(Array(bag), ["a", "c"])
        XCTAssertEqual(bag.get(c), "c")
        XCTAssertEqual(bag.get(a), "a")
    }

    func testKeysAreNeverReusedAfterTheBagEmpties() {
        let bag = SparseBag<String>()
        let a = bag.add("a")
        bag.remove(a)
        XCTAssertTrue(bag.isEmpty)
        let b = bag.add("b")
        XCTAssertGreaterThan(b, a)
        bag.remove(a)
        XCTAssertEqual(Array(bag), ["b"])
        bag.removeAll()
        XCTAssertTrue(bag.isEmpty)
        let c = bag.add("c")
        XCTAssertGreaterThan(c, b)
        bag.remove(b)
        XCTAssertEqual(Array(bag), ["c"])
        XCTAssertNil(bag.get(b))
    }

    func testItemsStayReachableWhenLeadingHolesAreTrimmed() {
        let bag = SparseBag<Int>()
        let keys = (0 ..< 10).map { bag.add($0) }
        for key in keys.prefix(8) {
            bag.remove(key)
        }
        XCTAssertEqual(Array(bag), [8, 9])
        XCTAssertEqual(bag.get(keys[8]), 8)
        XCTAssertEqual(bag.get(keys[9]), 9)
        for key in keys.prefix(8) {
            XCTAssertNil(bag.get(key))
            bag.remove(key)
        }
        let next = bag.add(10)
        XCTAssertGreaterThan(next, keys[9])
        XCTAssertEqual(Array(bag), [8, 9, 10])
    }

    func testIterationIsASnapshot() {
        let bag = SparseBag<Int>()
        let keys = (0 ..< 5).map { bag.add($0) }
        var seen: [Int] = []
        for item in bag {
            seen.append(item)
            if item == 0 {
                bag.remove(keys[1])
                _ = bag.add(5)
            }
        }
        XCTAssertEqual(seen, [0, 1, 2, 3, 4])
        XCTAssertEqual(Array(bag), [0, 2, 3, 4, 5])
    }

    func testRemoveAndRemoveAllReleaseItems() {
        let bag = SparseBag<Item>()
        weak var first: Item?
        weak var second: Item?
        var key = 0
        do {
            let item = Item(1)
            first = item
            key = bag.add(item)
            let other = Item(2)
            second = other
            _ = bag.add(other)
        }
        bag.remove(key)
        XCTAssertNil(first)
        XCTAssertNotNil(second)
        bag.removeAll()
        XCTAssertNil(second)
    }

    func testLargeCounts() throws {
        let bag = SparseBag<Int>()
        let count = 100_000
        let keys = (0 ..< count).map { bag.add($0) }
        XCTAssertEqual(Set(keys).count, count)
        XCTAssertEqual(keys, keys.sorted())
        for i in stride(from: 0, to: count, by: 2) {
            bag.remove(keys[i])
        }
        XCTAssertEqual(Array(bag), Array(stride(from: 1, to: count, by: 2)))
        XCTAssertEqual(keys.map { bag.get($0) }, (0 ..< count).map { $0 % 2 == 1 ? $0 : nil })
        for i in stride(from: count - 1, through: 0, by: -1) {
            bag.remove(keys[i])
        }
        XCTAssertTrue(bag.isEmpty)
        XCTAssertGreaterThan(bag.add(-1), keys[count - 1])
    }

    func testRandomOperationsMatchAModel() throws {
        var random = SplitMix64(state: 7)
        let bag = SparseBag<Int>()
        var model: [(key: Int, value: Int)] = []
        var issued: [Int] = []
        var lastKey = Int.min
        for step in 0 ..< 5_000 {
            let choice = Int.random(in: 0 ..< 10, using: &random)
            if choice < 5 || issued.isEmpty {
                let key = bag.add(step)
                XCTAssertGreaterThan(key, lastKey)
                lastKey = key
                model.append((key, step))
                issued.append(key)
            } else if choice < 9 {
                // Remove a key that may be live or stale; favour recent ones,
                // so that removals at the end happen often.
                let window = min(issued.count, 8)
                let key = choice == 8
                    ? issued[Int.random(in: 0 ..< issued.count, using: &random)]
                    : issued[issued.count - 1 - Int.random(in: 0 ..< window, using: &random)]
                bag.remove(key)
                model.removeAll { $0.key == key }
            } else {
                let key = issued[Int.random(in: 0 ..< issued.count, using: &random)]
                XCTAssertEqual(bag.get(key), model.first { $0.key == key }?.value)
            }
            if step % 500 == 0 {
                XCTAssertEqual(Array(bag), model.map { $0.value })
                XCTAssertEqual(bag.isEmpty, model.isEmpty)
            }
        }
        XCTAssertEqual(Array(bag), model.map { $0.value })
        for key in issued {
            XCTAssertEqual(bag.get(key), model.first { $0.key == key }?.value)
        }
    }
}
