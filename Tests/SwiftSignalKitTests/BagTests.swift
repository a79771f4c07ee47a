import XCTest
import SwiftSignalKit

final class BagTests: XCTestCase {
    func testNewBagIsEmpty() {
        let bag = Bag<Int>()
        XCTAssertTrue(bag.isEmpty)
        XCTAssertNil(bag.first)
        XCTAssertEqual(bag.copyItems(), [])
        XCTAssertTrue(bag.copyItemsWithIndices().isEmpty)
        XCTAssertNil(bag.get(0))
    }

    func testAddReturnsIncreasingKeysStartingAtZero() {
        let bag = Bag<String>()
        XCTAssertEqual(bag.add("a"), 0)
        XCTAssertEqual(bag.add("b"), 1)
        XCTAssertEqual(bag.add("c"), 2)
        XCTAssertFalse(bag.isEmpty)
        XCTAssertEqual(bag.copyItems(), ["a", "b", "c"])
    }

    func testGetFindsItemsByKey() {
        let bag = Bag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        XCTAssertEqual(bag.get(a), "a")
        XCTAssertEqual(bag.get(b), "b")
        XCTAssertNil(bag.get(b + 1))
        XCTAssertNil(bag.get(-1))
    }

    func testRemoveKeepsTheOrderOfTheRest() {
        let bag = Bag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        let c = bag.add("c")
        bag.remove(b)
        XCTAssertEqual(bag.copyItems(), ["a", "c"])
        XCTAssertNil(bag.get(b))
        XCTAssertEqual(bag.get(a), "a")
        XCTAssertEqual(bag.get(c), "c")
        let d = bag.add("d")
        XCTAssertEqual(bag.copyItems(), ["a", "c", "d"])
        XCTAssertEqual(bag.copyItemsWithIndices().map { $0.0 }, [a, c, d])
        XCTAssertEqual(bag.copyItemsWithIndices().map { $0.1 }, ["a", "c", "d"])
    }

    func testRemovingWithAStaleOrUnknownKeyIsANoOp() {
        let bag = Bag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        bag.remove(a)
        bag.remove(a)
        bag.remove(-5)
        bag.remove(1_000)
        XCTAssertEqual(bag.copyItems(), ["b"])
        XCTAssertEqual(bag.get(b), "b")
    }

    func testKeysAreNeverReused() {
        let bag = Bag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        bag.remove(b)
        let c = bag.add("c")
        XCTAssertNotEqual(c, b)
        // The stale key of the removed last item must not reach the new one.
        bag.remove(b)
        XCTAssertEqual(bag.copyItems(), ["a", "c"])
        bag.removeAll()
        let d = bag.add("d")
        XCTAssertFalse([a, b, c].contains(d))
        bag.remove(a)
        bag.remove(c)
        XCTAssertEqual(bag.copyItems(), ["d"])
        XCTAssertGreaterThan(d, c)
    }

    func testFirstFollowsRemovals() {
        let bag = Bag<String>()
        let a = bag.add("a")
        let b = bag.add("b")
        XCTAssertEqual(bag.first?.0, a)
        XCTAssertEqual(bag.first?.1, "a")
        bag.remove(a)
        XCTAssertEqual(bag.first?.0, b)
        XCTAssertEqual(bag.first?.1, "b")
        bag.remove(b)
        XCTAssertNil(bag.first)
        XCTAssertTrue(bag.isEmpty)
    }

    func testRemoveAllEmptiesTheBagAndReleasesItems() {
        let bag = Bag<Item>()
        weak var weakItem: Item?
        do {
            let item = Item(1)
            weakItem = item
            _ = bag.add(item)
            _ = bag.add(Item(2))
        }
        XCTAssertNotNil(weakItem)
        bag.removeAll()
        XCTAssertNil(weakItem)
        XCTAssertTrue(bag.isEmpty)
        XCTAssertNil(bag.first)
    }

    func testRemoveReleasesTheItem() {
        let bag = Bag<Item>()
        weak var weakItem: Item?
        var key = 0
        do {
            let item = Item(1)
            weakItem = item
            key = bag.add(item)
        }
        XCTAssertEqual(bag.get(key)?.value, 1)
        bag.remove(key)
        XCTAssertNil(weakItem)
    }

    func testCopiesAreSnapshots() {
        let bag = Bag<Int>()
        _ = bag.add(1)
        let copy = bag.copyItems()
        let copyWithIndices = bag.copyItemsWithIndices()
        _ = bag.add(2)
        bag.removeAll()
        XCTAssertEqual(copy, [1])
        XCTAssertEqual(copyWithIndices.count, 1)
    }

    func testLargeCounts() {
        let bag = Bag<Int>()
        // Removal shifts the array (O(n)): keep the count moderate.
        let count = 20_000
        var keys: [Int] = []
        keys.reserveCapacity(count)
        for i in 0 ..< count {
            keys.append(bag.add(i))
        }
        XCTAssertEqual(Set(keys).count, count)
        XCTAssertEqual(keys, keys.sorted())
        for i in stride(from: 0, to: count, by: 2) {
            bag.remove(keys[i])
        }
        let odd = Array(stride(from: 1, to: count, by: 2))
        XCTAssertEqual(bag.copyItems(), odd)
        XCTAssertEqual(bag.copyItemsWithIndices().map { $0.0 }, odd.map { keys[$0] })
        XCTAssertEqual(keys.map { bag.get($0) }, (0 ..< count).map { $0 % 2 == 1 ? $0 : nil })
        for i in stride(from: count - 1, through: 0, by: -1) {
            bag.remove(keys[i])
        }
        XCTAssertTrue(bag.isEmpty)
        XCTAssertEqual(bag.add(-1), count)
    }

    func testRandomOperationsMatchAModel() {
        var random = SplitMix64(state: 42)
        let bag = Bag<Int>()
        var model: [(key: Int, value: Int)] = []
        var issued: [Int] = []
        var lastKey = -1
        for step in 0 ..< 5_000 {
            let choice = Int.random(in: 0 ..< 10, using: &random)
            if choice < 5 || issued.isEmpty {
                let key = bag.add(step)
                XCTAssertGreaterThan(key, lastKey)
                lastKey = key
                model.append((key, step))
                issued.append(key)
            } else if choice < 9 {
                // Remove a key that may be live or stale.
                let key = issued[Int.random(in: 0 ..< issued.count, using: &random)]
                bag.remove(key)
                model.removeAll { $0.key == key }
            } else {
                let key = issued[Int.random(in: 0 ..< issued.count, using: &random)]
                XCTAssertEqual(bag.get(key), model.first { $0.key == key }?.value)
            }
            if step % 1_000 == 0 {
                XCTAssertEqual(bag.copyItems(), model.map { $0.value })
            }
        }
        XCTAssertEqual(bag.copyItemsWithIndices().map { $0.0 }, model.map { $0.key })
        XCTAssertEqual(bag.copyItems(), model.map { $0.value })
        XCTAssertEqual(bag.first?.0, model.first?.key)
        XCTAssertEqual(bag.isEmpty, model.isEmpty)
    }
}
