/// Empties `array` keeping its storage, when the caller reuses a delivered
/// array (`buffer(count:)`, the bounded `zip`): a short one element by
/// element (`removeAll(keepingCapacity:)` replaces a subrange through a
/// generic path, ~60 instructions even for one element), a longer one
/// whole. An array shared with a holder is copied by either, the holder's
/// left unchanged.
///
/// Thread-safety: the caller's array, as any `inout` value.
@inlinable
func _emptyKeepingCapacity<T>(_ array: inout [T]) {
    if array.count <= 4 {
        while array.popLast() != nil {
        }
    } else {
        array.removeAll(keepingCapacity: true)
    }
}
