// Values the tests put through the library: an error type, objects whose
// release a test can see, and a seeded random generator.

/// The error type of the operator tests.
///
/// Thread-safety: a value without state.
package enum TestError: Error, Equatable {
    case first
    case second
}

/// A reference type with a value, for checking when a container releases what
/// it holds.
///
/// Thread-safety: immutable; not `Sendable`, as the containers it is put in
/// are exercised on one thread.
package final class Item {
    /// What the item carries.
    package let value: Int

    package init(_ value: Int) {
        self.value = value
    }
}

/// A value whose deinit runs a closure (which may call back into whatever held
/// the value), for the tests of reentrancy on release.
///
/// Thread-safety: none; set `onDeinit` before handing the value over, and
/// release it on the thread the test runs on.
package final class Reentrant: Equatable {
    /// What equality compares.
    package let id: Int
    /// What the deinit runs, if anything.
    package var onDeinit: (() -> Void)?

    package init(_ id: Int) {
        self.id = id
    }

    deinit {
        self.onDeinit?()
    }

    /// Equal when the ids are.
    package static func == (lhs: Reentrant, rhs: Reentrant) -> Bool {
        return lhs.id == rhs.id
    }
}

/// A deterministic pseudo-random generator (SplitMix64), so that a failure
/// reproduces from its seed.
///
/// Thread-safety: a value; each copy has its own state.
package struct SplitMix64: RandomNumberGenerator {
    /// The seed, then the running state.
    package var state: UInt64

    /// Starts from the seed `state`.
    package init(state: UInt64) {
        self.state = state
    }

    /// The next pseudo-random number.
    package mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0 ..< bound (the modulo bias is irrelevant to tests).
    package mutating func below(_ bound: Int) -> Int {
        return Int(self.next() % UInt64(bound))
    }
}
