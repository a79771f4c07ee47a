import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

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

    func testLargeCounts() throws {
        let bag = Bag<Int>()
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

    func testRandomOperationsMatchAModel() throws {
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

    /// 0..<count first-added first, last-added first, and shuffled (`seed`).
    private func removalOrders(_ count: Int, seed: UInt64) -> [(name: String, order: [Int])] {
        var random = SplitMix64(state: seed)
        return [("first-added first", Array(0 ..< count)),
                ("last-added first", Array((0 ..< count).reversed())),
                ("random (seed \(seed))", Array(0 ..< count).shuffled(using: &random))]
    }

    func testRemovingInEachOrderLeavesTheRestInOrderUnderTheirKeys() throws {
        // More items than the storage a bag keeps (4,096 slots): the holes are
        // dropped at the end, skipped at the start, squeezed out and the
        // storage shrunk along the way. Half as many under ThreadSanitizer,
        // which this one thread's test gives nothing to look at.
        let count = threadSanitizerIsActive ? 5_000 : 10_000
        for (name, order) in self.removalOrders(count, seed: 7) {
            let bag = Bag<Int>()
            let keys = (0 ..< count).map { bag.add($0) }
            var present = Array(repeating: true, count: count)
            for (step, index) in order.enumerated() {
                bag.remove(keys[index])
                present[index] = false
                bag.remove(keys[index]) // stale now: a no-op
                if step % 613 != 0 && step < count - 3 {
                    continue
                }
                let expected = (0 ..< count).filter { present[$0] }
                XCTAssertEqual(bag.copyItems(), expected, "\(name), after \(step + 1) removals")
                XCTAssertEqual(bag.copyItemsWithIndices().map { $0.0 }, expected.map { keys[$0] }, "\(name), after \(step + 1) removals")
                XCTAssertEqual(bag.first?.0, expected.first.map { keys[$0] }, name)
                XCTAssertEqual(bag.first?.1, expected.first, name)
                XCTAssertEqual(bag.isEmpty, expected.isEmpty, name)
                let wrong = (0 ..< count).filter { bag.get(keys[$0]) != (present[$0] ? $0 : nil) }
                XCTAssertEqual(wrong, [], "\(name), after \(step + 1) removals: get gives wrong items for these")
            }
            XCTAssertTrue(bag.isEmpty, name)
            XCTAssertEqual(bag.copyItems(), [], name)
            XCTAssertEqual(bag.add(-1), count, "\(name): keys go on from where they were")
            XCTAssertEqual(bag.copyItems(), [-1], name)
        }
    }

    func testRemovalReleasesOnlyTheRemovedItemsWhateverTheOrder() {
        for (name, order) in self.removalOrders(300, seed: 11) {
            let bag = Bag<Item>()
            var weakItems: [Weak<Item>] = []
            var keys: [Int] = []
            for i in 0 ..< 300 {
                let item = Item(i)
                weakItems.append(Weak(item))
                keys.append(bag.add(item))
            }
            var removed = Set<Int>()
            for index in order {
                bag.remove(keys[index])
                removed.insert(index)
                XCTAssertNil(weakItems[index].value, "\(name): item \(index) outlived its removal")
                if removed.count % 50 == 0 {
                    let alive = (0 ..< 300).filter { weakItems[$0].value != nil }
                    XCTAssertEqual(alive, (0 ..< 300).filter { !removed.contains($0) }, name)
                    XCTAssertEqual(bag.copyItems().map { $0.value }, alive, name)
                }
            }
        }
    }

    func testCopyItemsIsASnapshotThatFollowsEveryChange() {
        let bag = Bag<Int>()
        let a = bag.add(1)
        _ = bag.add(2)
        let first = bag.copyItems()
        XCTAssertEqual(bag.copyItems(), first)
        let c = bag.add(3)
        XCTAssertEqual(bag.copyItems(), [1, 2, 3])
        bag.remove(a)
        XCTAssertEqual(bag.copyItems(), [2, 3])
        bag.remove(c)
        XCTAssertEqual(bag.copyItems(), [2])
        bag.removeAll()
        XCTAssertEqual(bag.copyItems(), [])
        XCTAssertEqual(first, [1, 2])
    }

    /// Random operations against a trivially correct model (an array of
    /// (key, value) pairs searched linearly), in phases that grow the bag past
    /// its kept storage and then empty it, so that every way of dropping
    /// holes runs. The seed is in every failure message.
    func testRandomOperationsMatchAModelWhileGrowingAndShrinking() throws {
        for seed: UInt64 in [1, 2, 3, 2024] {
            self.checkAgainstModel(seed: seed, rounds: seed == 2024 ? 1 : 3, largest: seed == 2024 ? 4_200 : 200)
        }
    }

    private func checkAgainstModel(seed: UInt64, rounds: Int, largest: Int) {
        var random = SplitMix64(state: seed)
        let bag = Bag<Int>()
        // The live items: their keys and values, in the order they were added.
        var modelKeys: [Int] = []
        var modelValues: [Int] = []
        var issued: [Int] = []
        var nextValue = 0
        var step = 0
        func fail(_ what: String) -> Bool {
            XCTFail("seed \(seed), step \(step): \(what)")
            return false
        }
        func same() -> Bool {
            if bag.copyItems() != modelValues {
                return fail("copyItems \(bag.copyItems()) != \(modelValues)")
            }
            if bag.copyItemsWithIndices().map({ $0.0 }) != modelKeys {
                return fail("the keys of copyItemsWithIndices differ")
            }
            if bag.first?.0 != modelKeys.first || bag.first?.1 != modelValues.first || bag.isEmpty != modelKeys.isEmpty {
                return fail("first or isEmpty differ")
            }
            return true
        }
        for _ in 0 ..< rounds {
            // Grow to `largest`, then shrink to nothing; removals pick any
            // issued key (live or stale), mostly near the start, the end or
            // anywhere, so that runs of holes form at both ends and inside.
            for growing in [true, false] {
                while growing ? modelKeys.count < largest : !modelKeys.isEmpty {
                    step += 1
                    let choice = Int.random(in: 0 ..< 100, using: &random)
                    let addChance = growing ? 75 : 25
                    if choice < addChance || issued.isEmpty {
                        let key = bag.add(nextValue)
                        if let last = issued.last, key <= last {
                            _ = fail("key \(key) after \(last)")
                            return
                        }
                        modelKeys.append(key)
                        modelValues.append(nextValue)
                        issued.append(key)
                        nextValue += 1
                    } else if choice < 95 {
                        let key: Int
                        switch Int.random(in: 0 ..< 4, using: &random) {
                        case 0: key = modelKeys.first ?? issued[0]
                        case 1: key = modelKeys.last ?? issued[0]
                        case 2: key = issued[Int.random(in: 0 ..< issued.count, using: &random)]
                        default: key = modelKeys.isEmpty ? -1 : modelKeys[Int.random(in: 0 ..< modelKeys.count, using: &random)]
                        }
                        let position = modelKeys.firstIndex(of: key)
                        let expected = position.map { modelValues[$0] }
                        if bag.get(key) != expected {
                            _ = fail("get(\(key)) = \(String(describing: bag.get(key))), expected \(String(describing: expected))")
                            return
                        }
                        bag.remove(key)
                        if let position {
                            modelKeys.remove(at: position)
                            modelValues.remove(at: position)
                        }
                    } else if choice < 99 {
                        let key = Int.random(in: -2 ... (issued.last ?? 0) + 2, using: &random)
                        let expected = modelKeys.firstIndex(of: key).map { modelValues[$0] }
                        if bag.get(key) != expected {
                            _ = fail("get(\(key)) = \(String(describing: bag.get(key))), expected \(String(describing: expected))")
                            return
                        }
                    } else if Int.random(in: 0 ..< 20, using: &random) == 0 {
                        bag.removeAll()
                        modelKeys.removeAll()
                        modelValues.removeAll()
                    }
                    if (modelKeys.count < 64 || step % (modelKeys.count < 1_000 ? 101 : 2_003) == 0) && !same() {
                        return
                    }
                }
            }
        }
        _ = same()
    }
}
