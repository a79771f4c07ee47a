/// A weak reference in a box, for storing weak references in collections.
///
/// Thread-safety: reading `value` is safe from any thread (Swift weak
/// references are atomic).
public final class Weak<T: AnyObject> {
    private weak var _value: T?

    public var value: T? {
        return self._value
    }

    public init(_ value: T) {
        self._value = value
    }
}
