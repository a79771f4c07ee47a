import SignalKitHeader
import Glibc

private func setPrimitive(_ out: UnsafeMutablePointer<sk_value>?, _ fill: (inout sk_value) -> Void) {
    guard let out else {
        return
    }
    var raw = sk_value()
    fill(&raw)
    out.pointee = raw
}

@c @implementation
public func sk_value_set_nil(_ out: UnsafeMutablePointer<sk_value>?) {
    setPrimitive(out) { _ in }
}

@c @implementation
public func sk_value_set_bool(_ out: UnsafeMutablePointer<sk_value>?, _ value: Bool) {
    setPrimitive(out) { $0.kind = SK_KIND_BOOL; $0.u.boolean = value }
}

@c @implementation
public func sk_value_set_int64(_ out: UnsafeMutablePointer<sk_value>?, _ value: Int64) {
    setPrimitive(out) { $0.kind = SK_KIND_INT64; $0.u.int64 = value }
}

@c @implementation
public func sk_value_set_double(_ out: UnsafeMutablePointer<sk_value>?, _ value: Double) {
    setPrimitive(out) { $0.kind = SK_KIND_DOUBLE; $0.u.real = value }
}

private func setObject(_ out: UnsafeMutablePointer<sk_value>, _ object: SKObject, _ kind: sk_kind, function: StaticString = #function) -> Int32 {
    object.noteMaker(function)
    SKValue(object: object, kind: kind).copy(into: out)
    return SKOK
}

/// `setObject` for a copy of the caller's data, nil when its memory could
/// not be allocated (then SK_ERR_NO_MEMORY, `*out` left nil).
private func setCopy(_ out: UnsafeMutablePointer<sk_value>, _ object: SKObject?, _ kind: sk_kind, length: Int, function: StaticString = #function) -> Int32 {
    guard let object else {
        return fail(SK_ERR_NO_MEMORY, "out of memory for a copy of \(length) bytes", function: function)
    }
    return setObject(out, object, kind, function: function)
}

@c @implementation
public func sk_value_set_string(_ out: UnsafeMutablePointer<sk_value>?, _ text: UnsafePointer<CChar>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = sk_value()
    guard let text else {
        return fail(SK_ERR_NULL_ARGUMENT, "text is NULL")
    }
    return setCopy(out, SKString(copying: UnsafeRawBufferPointer(start: text, count: strlen(text))), SK_KIND_STRING, length: strlen(text))
}

@c @implementation
public func sk_value_set_string_n(_ out: UnsafeMutablePointer<sk_value>?, _ text: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = sk_value()
    if length < 0 || length == Int.max {
        // size_t above PTRDIFF_MAX: no buffer can be that large; PTRDIFF_MAX
        // itself leaves no room for the NUL the copy ends with.
        return fail(SK_ERR_INVALID_ARGUMENT, "length is larger than any buffer")
    }
    if text == nil && length != 0 {
        return fail(SK_ERR_NULL_ARGUMENT, "text is NULL and length is not 0")
    }
    return setCopy(out, SKString(copying: UnsafeRawBufferPointer(start: text, count: length)), SK_KIND_STRING, length: length)
}

@c @implementation
public func sk_value_set_bytes(_ out: UnsafeMutablePointer<sk_value>?, _ data: UnsafeRawPointer?, _ length: Int) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = sk_value()
    if length < 0 {
        // size_t above PTRDIFF_MAX: no buffer can be that large.
        return fail(SK_ERR_INVALID_ARGUMENT, "length is larger than any buffer")
    }
    if data == nil && length != 0 {
        return fail(SK_ERR_NULL_ARGUMENT, "data is NULL and length is not 0")
    }
    return setCopy(out, SKBytes(copying: UnsafeRawBufferPointer(start: data, count: length)), SK_KIND_BYTES, length: length)
}

@c @implementation
public func sk_value_set_array(_ out: UnsafeMutablePointer<sk_value>?, _ items: UnsafePointer<sk_value>?, _ count: Int) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = sk_value()
    if count < 0 || count > Int.max / MemoryLayout<sk_value>.stride {
        // count * sizeof(sk_value) above PTRDIFF_MAX: no buffer can be that large.
        return fail(SK_ERR_INVALID_ARGUMENT, "count is larger than any buffer")
    }
    if items == nil && count != 0 {
        return fail(SK_ERR_NULL_ARGUMENT, "items is NULL and count is not 0")
    }
    // The memory first, before any item is read (the C view from malloc,
    // the array's only store of its items); then every item checked before
    // any is retained.
    guard let storage = SKArray.allocateStorage(count: count) else {
        return fail(SK_ERR_NO_MEMORY, "out of memory for an array of \(count) values")
    }
    var deepest = 0
    for index in 0 ..< count {
        let item = items! + index  // Invariant: checked above (count > 0 here).
        if let problem = SKValue.validate(item) {
            free(storage)
            return fail(problem.status, "item \(index): \(problem.message)")
        }
        deepest = max(deepest, SKArray.depth(ofItem: item.pointee))
    }
    if deepest + 1 > Int(SK_VALUE_MAX_DEPTH) {
        free(storage)
        return fail(SK_ERR_INVALID_ARGUMENT, "arrays nested \(deepest + 1) deep (the limit is SK_VALUE_MAX_DEPTH, \(SK_VALUE_MAX_DEPTH))")
    }
    let array = SKArray(copying: items, count: count, depth: deepest + 1, storage: storage)
    return setObject(out, array, SK_KIND_ARRAY)
}

@c @implementation
public func sk_value_set_pointer(_ out: UnsafeMutablePointer<sk_value>?, _ pointer: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let out else {
        return releasingOnFailure(ctx: pointer, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    return setObject(out, SKPointer(pointer, release: release), SK_KIND_POINTER)
}

@c @implementation
public func sk_value_set_signal(_ out: UnsafeMutablePointer<sk_value>?, _ signal: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = sk_value()
    let (handle, status) = borrowHandle("signal", signal, as: SKSignal.self, "a signal")
    guard let handle else {
        return status
    }
    return setObject(out, handle, SK_KIND_SIGNAL)
}

@c @implementation
public func sk_value_copy(_ dst: UnsafeMutablePointer<sk_value>?, _ src: UnsafePointer<sk_value>?) -> Int32 {
    guard let dst else {
        return fail(SK_ERR_NULL_ARGUMENT, "dst is NULL")
    }
    dst.pointee = sk_value()
    guard let src else {
        return fail(SK_ERR_NULL_ARGUMENT, "src is NULL")
    }
    if let problem = SKValue.validate(src) {
        return fail(problem.status, "src: \(problem.message)")
    }
    SKValue(borrowing: src).copy(into: dst)
    return SKOK
}

@c @implementation
public func sk_value_release(_ value: UnsafeMutablePointer<sk_value>?) {
    guard let value else {
        return
    }
    if SKValue.isHeapKind(value.pointee.kind), let pointer = value.pointee.u.object {
        if HandleRegistry.isLive(pointer) {
            Unmanaged<SKObject>.fromOpaque(pointer).release()
        } else {
            fail(SK_ERR_RELEASED, "the value was already released")
        }
    }
    value.pointee = sk_value()
}

@c @implementation
public func sk_value_kind(_ value: UnsafePointer<sk_value>?) -> sk_kind {
    return value?.pointee.kind ?? SK_KIND_NIL
}

@c @implementation
public func sk_value_equal(_ a: UnsafePointer<sk_value>?, _ b: UnsafePointer<sk_value>?) -> Bool {
    guard let a, let b else {
        return a == nil && b == nil
    }
    if SKValue.validate(a) != nil || SKValue.validate(b) != nil {
        return false
    }
    return SKValue(borrowing: a) == SKValue(borrowing: b)
}

/// The shape of every accessor: validates `value` and `out`, checks the kind,
/// then stores `read(value)` into `*out`. On error a pointer `*out` is
/// `empty` (NULL: the conventions' "the out parameter is set to NULL") and
/// `*extra` (the length or count given beside it) 0; a number or a bool
/// (`empty` nil) is left as it was (signalkit.h, Values). A
/// value whose object was released (handle checking on) is SK_ERR_RELEASED
/// whatever the kind asked, as every call given a released value is.
private func access<Out>(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<Out>?, _ kind: sk_kind, empty: Out?, extra: UnsafeMutablePointer<Int>? = nil, function: StaticString = #function, _ read: (UnsafePointer<sk_value>) -> Out) -> Int32 {
    guard let out else {
        extra?.pointee = 0
        return fail(SK_ERR_NULL_ARGUMENT, value == nil ? "value is NULL" : "out is NULL", function: function)
    }
    guard let value else {
        if let empty {
            out.pointee = empty
        }
        extra?.pointee = 0
        return fail(SK_ERR_NULL_ARGUMENT, "value is NULL", function: function)
    }
    let valueKind = value.pointee.kind
    if valueKind != kind {
        if let empty {
            out.pointee = empty
        }
        extra?.pointee = 0
        if HandleRegistry.isEnabled, SKValue.isHeapKind(valueKind), let pointer = value.pointee.u.object, !HandleRegistry.isLive(pointer) {
            return fail(SK_ERR_RELEASED, "the value was already released", function: function)
        }
        return fail(SK_ERR_WRONG_KIND, "value is \(SKValue.describe(valueKind)), expected \(SKValue.describe(kind))", function: function)
    }
    if let problem = SKValue.validate(value) {
        if let empty {
            out.pointee = empty
        }
        extra?.pointee = 0
        return fail(problem.status, problem.message, function: function)
    }
    out.pointee = read(value)
    return SKOK
}

/// The object of a value that `access` validated (non-NULL, of the class
/// its kind names): the unwrap and the cast guard that invariant.
private func object<T: SKObject>(_ value: UnsafePointer<sk_value>, as type: T.Type) -> T {
    return Unmanaged<SKObject>.fromOpaque(value.pointee.u.object!).takeUnretainedValue() as! T
}

@c @implementation
public func sk_value_get_bool(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<Bool>?) -> Int32 {
    // The fast path: a primitive needs no validation beyond its kind.
    if let value, let out, value.pointee.kind == SK_KIND_BOOL {
        out.pointee = value.pointee.u.boolean
        return SKOK
    }
    return access(value, out, SK_KIND_BOOL, empty: nil) { $0.pointee.u.boolean }
}

@c @implementation
public func sk_value_get_int64(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    // The fast path: a primitive needs no validation beyond its kind.
    if let value, let out, value.pointee.kind == SK_KIND_INT64 {
        out.pointee = value.pointee.u.int64
        return SKOK
    }
    return access(value, out, SK_KIND_INT64, empty: nil) { $0.pointee.u.int64 }
}

@c @implementation
public func sk_value_get_double(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    // The fast path: a primitive needs no validation beyond its kind.
    if let value, let out, value.pointee.kind == SK_KIND_DOUBLE {
        out.pointee = value.pointee.u.real
        return SKOK
    }
    return access(value, out, SK_KIND_DOUBLE, empty: nil) { $0.pointee.u.real }
}

@c @implementation
public func sk_value_get_string(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?) -> Int32 {
    return access(value, out, SK_KIND_STRING, empty: .some(nil), extra: length) { value in
        let string = object(value, as: SKString.self)
        length?.pointee = string.bytes.count
        return UnsafePointer(string.storage)
    }
}

@c @implementation
public func sk_value_get_bytes(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<UnsafeRawPointer?>?, _ length: UnsafeMutablePointer<Int>?) -> Int32 {
    return access(value, out, SK_KIND_BYTES, empty: .some(nil), extra: length) { value in
        let bytes = object(value, as: SKBytes.self)
        length?.pointee = bytes.bytes.count
        return UnsafeRawPointer(bytes.storage)
    }
}

/// The fast path of the array accessors: with handle checking off, runs
/// `body` with the array of a value of kind array whose object is one (its
/// `fastKind`: one load and a test, where `validate` casts
/// dynamically), borrowed without a retain (the caller's value keeps it
/// alive), and returns what `body` returns; false, having run nothing, in
/// every other case: the caller then takes its checked path, which reports.
@inline(__always)
private func withFastArray(_ value: UnsafePointer<sk_value>?, _ body: (SKArray) -> Bool) -> Bool {
    guard let value, value.pointee.kind == SK_KIND_ARRAY, !HandleRegistry.isEnabled, let pointer = value.pointee.u.object else {
        return false
    }
    return Unmanaged<SKObject>.fromOpaque(pointer)._withUnsafeGuaranteedRef { object -> Bool in
        // A stored flag, not the class: comparing the class calls its
        // metadata accessor, and the call made this path save every register.
        guard object.fastKind == .array else {
            return false
        }
        return body(unsafeDowncast(object, to: SKArray.self))
    }
}

@c @implementation
public func sk_value_get_array_count(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<Int>?) -> Int32 {
    if let out, withFastArray(value, { array in
        out.pointee = array.count
        return true
    }) {
        return SKOK
    }
    return access(value, out, SK_KIND_ARRAY, empty: nil) { object($0, as: SKArray.self).count }
}

@c @implementation
public func sk_value_get_array_item(_ value: UnsafePointer<sk_value>?, _ index: Int, _ out: UnsafeMutablePointer<UnsafePointer<sk_value>?>?) -> Int32 {
    if let out, withFastArray(value, { array in
        // One unsigned comparison for both bounds (a negative index is a
        // huge unsigned one): `index >= 0 && index < count` took five
        // instructions more on this path, which a C observer of a
        // combination's pairs calls twice a value.
        guard UInt(bitPattern: index) < UInt(bitPattern: array.count) else {
            return false
        }
        out.pointee = UnsafePointer(array.storage + index)
        return true
    }) {
        return SKOK
    }
    return arrayItemChecked(value, index, out)
}

@c @implementation
public func sk_value_get_array_items(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<UnsafePointer<sk_value>?>?, _ count: UnsafeMutablePointer<Int>?) -> Int32 {
    if let out, withFastArray(value, { array in
        out.pointee = UnsafePointer(array.storage)
        count?.pointee = array.count
        return true
    }) {
        return SKOK
    }
    return arrayItemsChecked(value, out, count)
}

/// sk_value_get_array_items's checked path (see `arrayItemChecked`).
@inline(never)
private func arrayItemsChecked(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<UnsafePointer<sk_value>?>?, _ count: UnsafeMutablePointer<Int>?, function: StaticString = #function) -> Int32 {
    return access(value, out, SK_KIND_ARRAY, empty: .some(nil), extra: count, function: function) { value -> UnsafePointer<sk_value>? in
        let array = object(value, as: SKArray.self)
        count?.pointee = array.count
        return UnsafePointer(array.storage)
    }
}

/// sk_value_get_array_item's checked path, out of line so that the fast path
/// saves no registers for it.
@inline(never)
private func arrayItemChecked(_ value: UnsafePointer<sk_value>?, _ index: Int, _ out: UnsafeMutablePointer<UnsafePointer<sk_value>?>?, function: StaticString = #function) -> Int32 {
    var inRange = true
    let status = access(value, out, SK_KIND_ARRAY, empty: .some(nil), function: function) { value -> UnsafePointer<sk_value>? in
        let array = object(value, as: SKArray.self)
        inRange = index >= 0 && index < array.count
        return inRange ? UnsafePointer(array.storage + index) : nil
    }
    if status == SKOK && !inRange {
        return fail(SK_ERR_INVALID_ARGUMENT, "index \(index) out of range 0..<\(object(value!, as: SKArray.self).count)", function: function)
    }
    return status
}

@c @implementation
public func sk_value_get_pointer(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    return access(value, out, SK_KIND_POINTER, empty: .some(nil)) { object($0, as: SKPointer.self).pointer }
}

@c @implementation
public func sk_value_get_signal(_ value: UnsafePointer<sk_value>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    // Invariant: `access` validated the value (its object is not NULL).
    return access(value, out, SK_KIND_SIGNAL, empty: .some(nil)) { OpaquePointer($0.pointee.u.object!) }
}
