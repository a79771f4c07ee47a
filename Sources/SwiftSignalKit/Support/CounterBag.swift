/// Counts live registrations: `add` returns a key, `remove` forgets it.
///
/// Thread-safety: none; protect a `CounterBag` with a lock.
public final class CounterBag {
    private var nextIndex = 1
    private var items = Set<Int>()

    /// Makes an empty counter bag.
    public init() {
    }

    /// Registers one more and returns its key (never reused).
    public func add() -> Int {
        let index = self.nextIndex
        self.nextIndex += 1
        self.items.insert(index)
        return index
    }

    /// Forgets the registration of key `index`; a stale key does nothing.
    public func remove(_ index: Int) {
        self.items.remove(index)
    }

    /// Whether no registration is live.
    public var isEmpty: Bool {
        return self.items.isEmpty
    }
}
