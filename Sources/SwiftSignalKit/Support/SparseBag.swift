/// A bag that can be iterated directly; removal leaves a hole instead of
/// shifting the remaining items. Leading holes are trimmed, and every hole goes
/// when the bag empties; trailing holes stay, since trimming them would hand
/// their keys out again.
///
/// Keys grow monotonically and are never reused. Iteration yields the items in
/// insertion order; it iterates a snapshot, so the bag may change meanwhile.
///
/// Thread-safety: none; protect a `SparseBag` with a lock.
/// - Complexity: `add`, `get` and `remove` O(1) amortized, in any order (the
///   leading holes are counted, not rescanned, and trimmed once they are half
///   the storage). Iteration is O(storage): holes inside stay until the bag
///   empties.
public final class SparseBag<T>: Sequence {
    /// The key `add` returns for an item.
    public typealias Index = Int

    private var firstKey: Index = 0
    private var items: [T?] = []
    private var count = 0
    /// The leading holes: `items[..<leading]` are all nil.
    private var leading = 0

    /// Makes an empty bag.
    public init() {
    }

    /// Adds `item` at the end and returns its key.
    public func add(_ item: T) -> Index {
        let key = self.firstKey + self.items.count
        self.items.append(item)
        self.count += 1
        return key
    }

    /// The item of key `index`, or `nil` when it was removed (or never added).
    public func get(_ index: Index) -> T? {
        let position = index - self.firstKey
        if position < 0 || position >= self.items.count {
            return nil
        }
        return self.items[position]
    }

    /// Removes the item of key `index`; a stale key does nothing.
    public func remove(_ index: Index) {
        let position = index - self.firstKey
        if position < 0 || position >= self.items.count || self.items[position] == nil {
            return
        }
        self.items[position] = nil
        self.count -= 1
        if self.count == 0 {
            self.firstKey += self.items.count
            self.items.removeAll(keepingCapacity: true)
            self.leading = 0
            return
        }
        // Each slot is passed over once before it is trimmed.
        while self.items[self.leading] == nil {
            self.leading += 1
        }
        if self.leading * 2 >= self.items.count {
            self.items.removeFirst(self.leading)
            self.firstKey += self.leading
            self.leading = 0
        }
    }

    /// Removes every item. Keys already handed out are not reused.
    public func removeAll() {
        self.firstKey += self.items.count
        self.items.removeAll()
        self.count = 0
        self.leading = 0
    }

    /// Whether the bag holds no item.
    public var isEmpty: Bool {
        return self.count == 0
    }

    /// An iterator over a snapshot of the items, in insertion order.
    public func makeIterator() -> AnyIterator<T> {
        var iterator = self.items.makeIterator()
        return AnyIterator {
            while let item = iterator.next() {
                if let item {
                    return item
                }
            }
            return nil
        }
    }
}
