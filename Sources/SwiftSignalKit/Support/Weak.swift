/// A weak reference in a box, for storing weak references in collections.
///
/// Thread-safety: reading `value` is safe from any thread (Swift weak
/// references are atomic).
public final class Weak<T: AnyObject> {
    private weak var _value: T?

    /// The referenced object, or `nil` once it has been deallocated.
    public var value: T? {
        return self._value
    }

    /// Makes a box holding a weak reference to `value`.
    public init(_ value: T) {
        self._value = value
    }
}
