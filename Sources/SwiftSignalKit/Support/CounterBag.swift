/// Counts live registrations: `add` returns a key, `remove` forgets it.
///
/// Thread-safety: none; protect a `CounterBag` with a lock.
public final class CounterBag {
    private var nextIndex = 1
    private var items = Set<Int>()

    public init() {
    }

    public func add() -> Int {
        let index = self.nextIndex
        self.nextIndex += 1
        self.items.insert(index)
        return index
    }

    public func remove(_ index: Int) {
        self.items.remove(index)
    }

    public var isEmpty: Bool {
        return self.items.isEmpty
    }
}
