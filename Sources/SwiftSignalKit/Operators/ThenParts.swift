/// What a `then` signal runs: `first`, then `next`, either of which may be a
/// `then` signal itself.
///
/// A chain of `then` nested N levels deep is a binary tree of these. Started
/// as nested signals, it would nest N subscribers (N starts deep, and every
/// value forwarded through N levels); instead `sequence()` walks the tree with
/// an explicit stack and the `then` signal runs its leaves, in order, in one
/// queue (`_SignalQueueState`): the same events, the same start order, constant
/// stack. The deinit takes the tree apart the same way, so that releasing a
/// deep chain does not recurse either.
///
/// Thread-safety: immutable once made (only the deinit, which runs when no
/// one else holds it, takes the parts out); may be shared between threads.
@usableFromInline
final class _ThenParts<T, E>: @unchecked Sendable {
    // `var` only for the deinit.
    private var first: Signal<T, E>?
    private var next: Signal<T, E>?

    init(first: Signal<T, E>, next: Signal<T, E>) {
        self.first = first
        self.next = next
    }

    /// Runs the leaves one after another into `subscriber`.
    func run(_ subscriber: Subscriber<T, E>) -> any Disposable {
        let state = _SignalQueueState<T, E>(subscriber: subscriber, queueMode: true, throttleMode: false)
        for part in self.sequence() {
            state.enqueueSignal(part)
        }
        state.beginCompletion()
        let disposer = _UnretainedDisposable(state)
        state.disposer = disposer
        return disposer
    }

    /// The signals that are not `then` signals, left to right.
    func sequence() -> [Signal<T, E>] {
        var result: [Signal<T, E>] = []
        var stack: [Signal<T, E>] = []
        if let next = self.next {
            stack.append(next)
        }
        if let first = self.first {
            stack.append(first)
        }
        while let signal = stack.popLast() {
            if let parts = signal.thenParts {
                if let next = parts.next {
                    stack.append(next)
                }
                if let first = parts.first {
                    stack.append(first)
                }
            } else {
                result.append(signal)
            }
        }
        return result
    }

    deinit {
        // Parts held by nobody else are emptied before they are released, so
        // each release below frees at most one level.
        var stack: [Signal<T, E>] = []
        if let first = self.first.take() {
            stack.append(first)
        }
        if let next = self.next.take() {
            stack.append(next)
        }
        while var signal = stack.popLast() {
            // Only the signal refers to its parts (its on-demand generator
            // holds the signal): a signal nobody else holds has parts nobody
            // else can read.
            guard isKnownUniquelyReferenced(&signal), let parts = signal.thenParts else {
                continue
            }
            if let first = parts.first.take() {
                stack.append(first)
            }
            if let next = parts.next.take() {
                stack.append(next)
            }
        }
    }
}
