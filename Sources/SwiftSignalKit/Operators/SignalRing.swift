/// A first-in first-out ring of at most `capacity` elements: append, remove
/// the first and replace the last are O(1). The storage starts small and
/// doubles as needed up to `capacity` (amortized O(1) while growing), so a
/// large capacity costs memory only when values actually wait.
///
/// A plain struct over its storage, not a noncopyable one with a deinit (the
/// 6.3 optimizer crashed inlining such a deinit into its owner's setter):
/// its owner calls `destroy()` once, from its own deinit, and never copies
/// it.
///
/// Thread-safety: none; its owner guards it.
@usableFromInline
struct _SignalRing<Element> {
    @usableFromInline var storage: UnsafeMutablePointer<Element>?
    @usableFromInline var slots = 0
    @usableFromInline var head = 0
    @usableFromInline var count = 0
    @usableFromInline let capacity: Int

    @inlinable
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Releases the elements left and frees the storage.
    @usableFromInline
    mutating func destroy() {
        if let storage = self.storage {
            self.forEachIndex { storage.advanced(by: $0).deinitialize(count: 1) }
            storage.deallocate()
        }
        self.storage = nil
        self.count = 0
        self.slots = 0
    }

    @inlinable
    func forEachIndex(_ body: (Int) -> Void) {
        var index = self.head
        for _ in 0..<self.count {
            body(index)
            index += 1
            if index == self.slots {
                index = 0
            }
        }
    }

    @inlinable
    var isFull: Bool { self.count >= self.capacity }

    /// Appends `element`; the ring must not be full (but see `overfill`).
    @inlinable
    mutating func append(_ element: consuming Element) {
        if self.count == self.slots {
            self.grow()
        }
        var index = self.head + self.count
        if index >= self.slots {
            index -= self.slots
        }
        self.storage.unsafelyUnwrapped.advanced(by: index).initialize(to: element)
        self.count += 1
    }

    /// Doubles the storage (up to `capacity`), the elements moved in order
    /// to its start in at most two runs. Specialized in its callers (a move
    /// of trivial elements is then a copy of bytes) but out of line: off the
    /// path of a ring that has room. Unspecialized, moving each element
    /// through its type's witnesses cost about 150 instructions per value
    /// of a growing ring (Swift W7b).
    @inlinable @inline(never)
    mutating func grow() {
        // Beyond the capacity only by `overfill`, one slot at a time.
        let slots = Swift.max(self.count + 1, Swift.min(self.capacity, Swift.max(16, self.slots &* 2)))
        let storage = UnsafeMutablePointer<Element>.allocate(capacity: slots)
        if let old = self.storage {
            let first = Swift.min(self.count, self.slots - self.head)
            storage.moveInitialize(from: old.advanced(by: self.head), count: first)
            storage.advanced(by: first).moveInitialize(from: old, count: self.count - first)
            old.deallocate()
        }
        self.storage = storage
        self.slots = slots
        self.head = 0
    }

    /// Appends `element` to a full ring, beyond its capacity: a put made
    /// without waiting for room (`withoutWaitingForRoom`), of the block
    /// policy only. The ring stays full (`isFull`) until its count is
    /// below the capacity again.
    @inlinable @inline(never)
    mutating func overfill(_ element: consuming Element) {
        // `append`, out of line: `grow` goes past the capacity by one.
        self.append(element)
    }

    /// Removes and returns the first element; the ring must not be empty.
    @inlinable
    mutating func removeFirst() -> Element {
        let element = self.storage.unsafelyUnwrapped.advanced(by: self.head).move()
        self.head += 1
        if self.head == self.slots {
            self.head = 0
        }
        self.count -= 1
        return element
    }

    /// Replaces the last element with `element` and returns it; the ring must
    /// not be empty.
    @inlinable
    mutating func replaceLast(_ element: consuming Element) -> Element {
        var index = self.head + self.count - 1
        if index >= self.slots {
            index -= self.slots
        }
        let slot = self.storage.unsafelyUnwrapped.advanced(by: index)
        let old = slot.move()
        slot.initialize(to: element)
        return old
    }

    /// Removes every element, returned in order (to be released outside the
    /// lock), and frees the storage.
    @usableFromInline
    mutating func removeAll() -> [Element] {
        var all: [Element] = []
        all.reserveCapacity(self.count)
        while self.count > 0 {
            all.append(self.removeFirst())
        }
        self.storage?.deallocate()
        self.storage = nil
        self.slots = 0
        self.head = 0
        return all
    }
}

/// What `_SignalRing.offer` did with a value under an overflow policy.
@usableFromInline
enum _SignalOffer<T> {
    /// Appended: there was room.
    case queued
    /// The ring was full and the policy dropped a value (the incoming one,
    /// or the pending one it made room for): report it.
    case dropped(T)
    /// The ring was full and the policy is `fail`: the stream ends; the
    /// incoming value (returned) is dropped.
    case failed(T)
    /// The ring was full and the policy is `block`: wait for room and offer
    /// the value (returned) again.
    case full(T)
}

extension _SignalRing {
    /// Appends `value` when there is room; otherwise `overflow` decides, as
    /// for the bounded buffer (`_SignalBoundedBuffer.putContended`): the one
    /// rule every bounded place of the library applies.
    @inlinable
    mutating func offer<E>(_ value: Element, _ overflow: SignalOverflow<E>) -> _SignalOffer<Element> {
        if !self.isFull {
            self.append(value)
            return .queued
        }
        switch overflow {
        case .dropNewest:
            return .dropped(value)
        case .dropOldest:
            let old = self.removeFirst()
            self.append(value)
            return .dropped(old)
        case .latest:
            return .dropped(self.replaceLast(value))
        case .fail:
            return .failed(value)
        case .block:
            return .full(value)
        }
    }
}
