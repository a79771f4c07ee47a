/// An ordered collection whose `add` returns a stable key for later removal.
///
/// Keys grow monotonically and are never reused, so removing with a stale key
/// is a harmless no-op. Items keep insertion order.
///
/// Thread-safety: none; protect a `Bag` with a lock (for example `Atomic`).
/// - Complexity: `add` O(1) amortized; `get` O(log n); `remove` O(n) worst case
///   (a binary search plus the array shift).
public final class Bag<T> {
    public typealias Index = Int

    @exclusivity(unchecked) @usableFromInline var nextIndex: Index = 0
    @exclusivity(unchecked) @usableFromInline var items: [T] = []
    @exclusivity(unchecked) @usableFromInline var itemKeys: [Index] = []

    @inlinable
    public init() {
    }

    @inlinable
    public func add(_ item: T) -> Index {
        let key = self.nextIndex
        self.nextIndex += 1
        self.items.append(item)
        self.itemKeys.append(key)
        return key
    }

    @inlinable
    func position(of index: Index) -> Int? {
        var low = 0
        var high = self.itemKeys.count
        while low < high {
            let middle = (low + high) / 2
            let key = self.itemKeys[middle]
            if key == index {
                return middle
            } else if key < index {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return nil
    }

    @inlinable
    public func get(_ index: Index) -> T? {
        return self.position(of: index).map { self.items[$0] }
    }

    @inlinable
    public func remove(_ index: Index) {
        if let position = self.position(of: index) {
            self.items.remove(at: position)
            self.itemKeys.remove(at: position)
        }
    }

    /// Removes the item under `index` and returns it (nil for a stale key).
    @inlinable
    func take(_ index: Index) -> T? {
        guard let position = self.position(of: index) else {
            return nil
        }
        self.itemKeys.remove(at: position)
        return self.items.remove(at: position)
    }

    @inlinable
    public func removeAll() {
        self.items.removeAll()
        self.itemKeys.removeAll()
    }

    @inlinable
    public func copyItems() -> [T] {
        return self.items
    }

    @inlinable
    public func copyItemsWithIndices() -> [(Index, T)] {
        return Array(zip(self.itemKeys, self.items))
    }

    @inlinable
    public var isEmpty: Bool {
        return self.items.isEmpty
    }

    @inlinable
    public var first: (Index, T)? {
        guard let item = self.items.first else {
            return nil
        }
        return (self.itemKeys[0], item)
    }
}
