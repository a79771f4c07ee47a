/// An ordered collection whose `add` returns a stable key for later removal.
///
/// Keys grow monotonically and are never reused, so removing with a stale key
/// is a harmless no-op. Items keep insertion order.
///
/// Removal releases the item at once and leaves a hole in its slot: holes at
/// the end go at once, and the others are squeezed out (the items moved down,
/// keeping their order and keys) when they outnumber the items, so that
/// removing in any order (first added first, last added first, random) costs
/// the same per item at any size. Storage beyond 4,096 slots is given back
/// when the bag shrinks to a quarter of it.
///
/// Thread-safety: none; protect a `Bag` with a lock (for example `Atomic`).
/// - Complexity: `add` O(1) amortized. `remove` and `get` O(log n) (a binary
///   search of the keys, narrowed by their bounds: O(1) until the holes are
///   first squeezed out), plus O(1) amortized for the squeezing. `isEmpty` and
///   `first` O(1). `copyItems` O(n) after a change, then O(1) until the next
///   one (the copy is kept); `copyItemsWithIndices` O(n); `removeAll` O(n).
public final class Bag<T> {
    /// The key `add` returns for an item.
    public typealias Index = Int

    @exclusivity(unchecked) @usableFromInline var nextIndex: Index = 0
    /// The items in insertion order; nil is a removed item's hole.
    @exclusivity(unchecked) @usableFromInline var slots: [T?] = []
    /// The key of each slot, ascending (a hole keeps its key until it goes).
    @exclusivity(unchecked) @usableFromInline var slotKeys: [Index] = []
    /// The first slot that holds an item (every slot before it is a hole);
    /// 0 when the bag is empty.
    @exclusivity(unchecked) @usableFromInline var head = 0
    /// The number of items (slots that are not holes).
    @exclusivity(unchecked) @usableFromInline var liveCount = 0
    /// What `copyItems` returned, until the next change.
    @exclusivity(unchecked) @usableFromInline var copiedItems: [T]?

    /// Makes an empty bag.
    @inlinable
    public init() {
    }

    /// Adds `item` at the end and returns its key.
    @inlinable
    public func add(_ item: T) -> Index {
        let key = self.nextIndex
        self.nextIndex += 1
        self.slots.append(item)
        self.slotKeys.append(key)
        self.liveCount += 1
        self.copiedItems = nil
        return key
    }

    /// The slot of the item under `key`, nil for a stale or unknown key.
    @inlinable
    func position(of key: Index) -> Int? {
        let count = self.slotKeys.count
        if count == 0 {
            return nil
        }
        let firstKey = self.slotKeys[0]
        let lastKey = self.slotKeys[count - 1]
        if key < firstKey || key > lastKey {
            return nil
        }
        // The keys are distinct and ascending, so `key` is at most
        // `key - firstKey` slots from the start and at most `lastKey - key`
        // from the end: while no hole has been squeezed out, the keys are
        // consecutive and this range is one slot.
        var low = max(0, count - 1 - (lastKey - key))
        var high = min(count - 1, key - firstKey) + 1
        while low < high {
            let middle = low + (high - low) / 2
            let candidate = self.slotKeys[middle]
            if candidate == key {
                return self.slots[middle] == nil ? nil : middle
            } else if candidate < key {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return nil
    }

    /// The item of key `index`, or `nil` when it was removed (or never added).
    @inlinable
    public func get(_ index: Index) -> T? {
        guard let position = self.position(of: index) else {
            return nil
        }
        return self.slots[position]
    }

    /// Removes the item of key `index`; a stale key does nothing.
    @inlinable
    public func remove(_ index: Index) {
        // The item is released here, as the bag lets it go.
        _ = self.take(index)
    }

    /// Removes the item under `index` and returns it (nil for a stale key).
    @inlinable
    func take(_ index: Index) -> T? {
        guard let position = self.position(of: index) else {
            return nil
        }
        let item: T?
        if position == self.slots.count - 1 {
            // The holes before it go too (each hole goes once); when it was
            // the last item, the bag is now empty.
            item = self.slots.removeLast()
            self.slotKeys.removeLast()
            while !self.slots.isEmpty && self.slots[self.slots.count - 1] == nil {
                self.slots.removeLast()
                self.slotKeys.removeLast()
            }
        } else {
            item = self.slots[position]
            self.slots[position] = nil
            if position == self.head {
                // An item is left after it, so this stops there.
                repeat {
                    self.head += 1
                } while self.slots[self.head] == nil
            }
        }
        self.liveCount -= 1
        self.copiedItems = nil
        if self.liveCount == 0 {
            self.head = 0
        }
        if self.slots.count - self.liveCount > self.liveCount {
            self.squeeze()
        } else if self.slots.capacity > _bagKeptCapacity && self.slots.capacity > 4 * self.slots.count {
            self.shrink()
        }
        return item
    }

    /// Moves the items down over the holes, in order, and drops the holes.
    @inlinable
    func squeeze() {
        var write = 0
        for read in self.head ..< self.slots.count where self.slots[read] != nil {
            if write != read {
                self.slots.swapAt(write, read)
                self.slotKeys[write] = self.slotKeys[read]
            }
            write += 1
        }
        self.slots.removeSubrange(write...)
        self.slotKeys.removeSubrange(write...)
        self.head = 0
        if self.slots.capacity > _bagKeptCapacity && self.slots.capacity > 4 * self.slots.count {
            self.shrink()
        }
    }

    /// Gives back most of the storage once the bag has shrunk to a quarter
    /// of it (all of it when the bag is empty).
    @inlinable
    func shrink() {
        if self.slots.isEmpty {
            self.slots = []
            self.slotKeys = []
            return
        }
        var slots: [T?] = []
        slots.reserveCapacity(2 * self.slots.count)
        slots.append(contentsOf: self.slots)
        self.slots = slots
        var slotKeys: [Index] = []
        slotKeys.reserveCapacity(2 * self.slotKeys.count)
        slotKeys.append(contentsOf: self.slotKeys)
        self.slotKeys = slotKeys
    }

    /// Removes every item. Keys already handed out are not reused.
    @inlinable
    public func removeAll() {
        self.slots.removeAll()
        self.slotKeys.removeAll()
        self.head = 0
        self.liveCount = 0
        self.copiedItems = nil
    }

    /// The items, in insertion order.
    @inlinable
    public func copyItems() -> [T] {
        if let items = self.copiedItems {
            return items
        }
        var items: [T] = []
        items.reserveCapacity(self.liveCount)
        for position in self.head ..< self.slots.count {
            if let item = self.slots[position] {
                items.append(item)
            }
        }
        self.copiedItems = items
        return items
    }

    /// The items with their keys, in insertion order.
    @inlinable
    public func copyItemsWithIndices() -> [(Index, T)] {
        var items: [(Index, T)] = []
        items.reserveCapacity(self.liveCount)
        for position in self.head ..< self.slots.count {
            if let item = self.slots[position] {
                items.append((self.slotKeys[position], item))
            }
        }
        return items
    }

    /// Whether the bag holds no item.
    @inlinable
    public var isEmpty: Bool {
        return self.liveCount == 0
    }

    /// The oldest item and its key, or `nil` when the bag is empty.
    @inlinable
    public var first: (Index, T)? {
        if self.liveCount == 0 {
            return nil
        }
        guard let item = self.slots[self.head] else {
            return nil
        }
        return (self.slotKeys[self.head], item)
    }
}

/// The storage (in slots) a bag keeps when it empties or shrinks; larger
/// storage is given back.
@inlinable
var _bagKeptCapacity: Int {
    return 4096
}
