/// Hands one value from the thread that creates the box to the one thread
/// that takes it, after which the box no longer holds it (so the value is
/// released wherever the taker lets go of it, not where the box dies).
///
/// Thread-safety: `take` may be called from any thread; exactly one caller
/// gets the value.
final class TransferBox<T>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var value: T?

    init(_ value: T) {
        self.value = value
    }

    func take() -> T? {
        self.mutex.lock()
        let value = self.value
        self.value = nil
        self.mutex.unlock()
        return value
    }
}
