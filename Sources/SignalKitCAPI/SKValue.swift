import SignalKitHeader
import SwiftSignalKit
import Synchronization
import _SwiftSignalKitShims
import Glibc

/// The Swift side of an `sk_value`: the C struct plus, for heap kinds, the
/// object it points at, kept alive by ARC. Copying an `SKValue` retains the
/// object; primitive values carry no object and never allocate.
struct SKValue: Equatable, @unchecked Sendable {
    /// Written alone only by `replace` (when neither value holds an object).
    private(set) var raw: sk_value
    let object: SKObject?

    static let `nil` = SKValue(raw: sk_value(), object: nil)

    /// Whether `raw` is at the start of the struct: a value's address is
    /// then its sk_value's (the pipe observers' calls, `rawValueCallback`).
    static let rawIsFirst = MemoryLayout<SKValue>.offset(of: \SKValue.raw) == 0

    init(raw: sk_value, object: SKObject?) {
        self.raw = raw
        self.object = object
    }

    init(int64 value: Int64) {
        var raw = sk_value()
        raw.kind = SK_KIND_INT64
        raw.u.int64 = value
        self.init(raw: raw, object: nil)
    }

    init(object: SKObject, kind: sk_kind) {
        var raw = sk_value()
        raw.kind = kind
        raw.u.object = Unmanaged.passUnretained(object).toOpaque()
        self.init(raw: raw, object: object)
    }

    init(string: String) {
        self.init(object: SKString.made(string), kind: SK_KIND_STRING)
    }

    var kind: sk_kind {
        return self.raw.kind
    }

    /// A kind as a C reader of signalkit.h knows it, for messages: its word
    /// with an article and its enumerator ("an int64 (SK_KIND_INT64)"); a
    /// number outside the enumeration is given as such ("kind 42, which is
    /// no sk_kind").
    static func describe(_ kind: sk_kind) -> String {
        switch kind {
        case SK_KIND_NIL: return "nil (SK_KIND_NIL)"
        case SK_KIND_BOOL: return "a bool (SK_KIND_BOOL)"
        case SK_KIND_INT64: return "an int64 (SK_KIND_INT64)"
        case SK_KIND_DOUBLE: return "a double (SK_KIND_DOUBLE)"
        case SK_KIND_STRING: return "a string (SK_KIND_STRING)"
        case SK_KIND_BYTES: return "bytes (SK_KIND_BYTES)"
        case SK_KIND_ARRAY: return "an array (SK_KIND_ARRAY)"
        case SK_KIND_POINTER: return "a pointer (SK_KIND_POINTER)"
        case SK_KIND_SIGNAL: return "a signal (SK_KIND_SIGNAL)"
        default: return "kind \(kind.rawValue), which is no sk_kind"
        }
    }

    static func isHeapKind(_ kind: sk_kind) -> Bool {
        switch kind {
        case SK_KIND_STRING, SK_KIND_BYTES, SK_KIND_ARRAY, SK_KIND_POINTER, SK_KIND_SIGNAL:
            return true
        default:
            return false
        }
    }

    /// What is wrong with a C value: the status to report and a description.
    struct Problem: Error {
        let status: sk_status
        let message: String

        init(_ message: String, _ status: sk_status = SK_ERR_INVALID_ARGUMENT) {
            self.status = status
            self.message = message
        }
    }

    /// Checks a C value and returns what is wrong with it, or nil.
    static func validate(_ value: UnsafePointer<sk_value>) -> Problem? {
        let kind = value.pointee.kind
        switch kind {
        case SK_KIND_NIL, SK_KIND_BOOL, SK_KIND_INT64, SK_KIND_DOUBLE:
            return nil
        case SK_KIND_STRING, SK_KIND_BYTES, SK_KIND_ARRAY, SK_KIND_POINTER, SK_KIND_SIGNAL:
            guard let pointer = value.pointee.u.object else {
                return Problem("a value of a heap kind has a NULL object")
            }
            guard HandleRegistry.isLive(pointer) else {
                return Problem("the value was already released", SK_ERR_RELEASED)
            }
            let object = Unmanaged<SKObject>.fromOpaque(pointer).takeUnretainedValue()
            let matches: Bool
            switch kind {
            case SK_KIND_STRING: matches = object is SKString
            case SK_KIND_BYTES: matches = object is SKBytes
            case SK_KIND_ARRAY: matches = object is SKArray
            case SK_KIND_POINTER: matches = object is SKPointer
            default: matches = object is SKSignal
            }
            return matches ? nil : Problem("the value's object does not match its kind")
        default:
            return Problem("unknown value kind \(kind.rawValue)")
        }
    }

    /// Borrows a valid C value (see `validate`), retaining its object.
    init(borrowing value: UnsafePointer<sk_value>) {
        var raw = value.pointee
        if SKValue.isHeapKind(raw.kind), let pointer = raw.u.object {
            self.init(raw: raw, object: Unmanaged<SKObject>.fromOpaque(pointer).takeUnretainedValue())
        } else {
            if raw.kind == SK_KIND_BOOL {
                let boolean = raw.u.boolean
                raw.u.int64 = 0
                raw.u.boolean = boolean
            }
            self.init(raw: raw, object: nil)
        }
    }

    /// A valid C value of a primitive kind (nil, bool, int64, double): no
    /// object to look at, the bool's unused bytes cleared (as
    /// `init(borrowing:)` does). Inlined: the per-event paths take it.
    @inline(__always)
    init(primitive value: sk_value) {
        if value.kind == SK_KIND_BOOL {
            self.init(raw: SKValue.clearingUnusedBytes(ofBool: value), object: nil)
            return
        }
        self.init(raw: value, object: nil)
    }

    /// `value` (a bool) with the bytes of its payload beside the boolean
    /// cleared. Out of line, so that `init(primitive:)` costs the per-event
    /// paths a compare and a branch on the kind (inlined, the clearing was
    /// computed for every kind and selected: eight instructions each time).
    @inline(never)
    static func clearingUnusedBytes(ofBool value: sk_value) -> sk_value {
        var raw = value
        let boolean = raw.u.boolean
        raw.u.int64 = 0
        raw.u.boolean = boolean
        return raw
    }

    /// Adopts the reference a C value owns (written by a user callback).
    @inline(__always)
    init(taking value: sk_value) {
        if value.kind.rawValue <= SK_KIND_DOUBLE.rawValue {
            // Primitive: nothing to adopt (the common case, inlined).
            self.init(raw: value, object: nil)
            return
        }
        self.init(takingObjectOf: value)
    }

    /// `init(taking:)` for a value that is not primitive.
    private init(takingObjectOf value: sk_value) {
        if SKValue.isHeapKind(value.kind), let pointer = value.u.object {
            self.init(raw: value, object: Unmanaged<SKObject>.fromOpaque(pointer).takeRetainedValue())
        } else {
            self.init(raw: value, object: nil)
        }
    }

    /// Calls `body` with a borrowed C view of the value.
    @inline(__always)
    func withC<R>(_ body: (UnsafePointer<sk_value>) -> R) -> R {
        var raw = self.raw
        // Without the stack protector's canary (see `SKValue.withCOut`).
        return _withUnprotectedUnsafePointer(to: &raw) { body($0) }
    }

    /// Calls `body` with a C view of `value` (a C stage's input), without
    /// the canary (see `SKValue.withCOut`).
    @inline(__always)
    static func withCIn<R>(_ value: inout sk_value, _ body: (UnsafePointer<sk_value>) -> R) -> R {
        return _withUnprotectedUnsafePointer(to: &value) { body($0) }
    }

    /// Runs `body` with a pointer to `value` for a C callback to write one
    /// `sk_value` into (a map or reduce stage's result).
    ///
    /// These two buffers hand a C callback one `sk_value` each, of the
    /// header's own type: with the canary (the stack protector puts one in
    /// every frame whose local's address is passed to unknown code) each
    /// C stage paid five instructions per value for a check that fires only
    /// when a callback writes past the `sk_value` it was given, which the
    /// header's contract rules out and which the caller's own frames, being
    /// C, would not detect either. So these buffers are left unprotected.
    @inline(__always)
    static func withCOut<R>(_ value: inout sk_value, _ body: (UnsafeMutablePointer<sk_value>) -> R) -> R {
        return _withUnprotectedUnsafeMutablePointer(to: &value) { body($0) }
    }

    /// A value of `object` (of the heap `kind`) that takes over the caller's
    /// reference (`consuming`: no retain), for `lent`.
    @inline(__always)
    init(lending object: consuming SKObject, kind: sk_kind) {
        var raw = sk_value()
        raw.kind = kind
        raw.u.object = Unmanaged.passUnretained(object).toOpaque()
        self.init(raw: raw, object: consume object)
    }

    /// The value's object, with the value's reference (`consuming`: no
    /// retain and release): the end of a `init(lending:kind:)` value.
    @inline(__always)
    consuming func returningObject() -> SKObject? {
        return self.object
    }

    /// Writes a new reference (+1) to the value into `out`.
    func copy(into out: UnsafeMutablePointer<sk_value>) {
        if let object = self.object {
            _ = Unmanaged.passUnretained(object).retain()
        }
        out.pointee = self.raw
    }

    static func == (lhs: SKValue, rhs: SKValue) -> Bool {
        if lhs.kind != rhs.kind {
            return false
        }
        switch lhs.kind {
        case SK_KIND_NIL:
            return true
        case SK_KIND_BOOL:
            return lhs.raw.u.boolean == rhs.raw.u.boolean
        case SK_KIND_INT64:
            return lhs.raw.u.int64 == rhs.raw.u.int64
        case SK_KIND_DOUBLE:
            return lhs.raw.u.real == rhs.raw.u.real
        case SK_KIND_STRING:
            guard let lhs = lhs.object as? SKString, let rhs = rhs.object as? SKString else {
                return lhs.object === rhs.object
            }
            return lhs == rhs
        case SK_KIND_BYTES:
            guard let lhs = lhs.object as? SKBytes, let rhs = rhs.object as? SKBytes else {
                return lhs.object === rhs.object
            }
            return lhs == rhs
        case SK_KIND_ARRAY:
            guard let lhs = lhs.object as? SKArray, let rhs = rhs.object as? SKArray else {
                return lhs.object === rhs.object
            }
            return lhs == rhs
        case SK_KIND_POINTER:
            return (lhs.object as? SKPointer)?.pointer == (rhs.object as? SKPointer)?.pointer
        default:
            return lhs.object === rhs.object
        }
    }
}

/// An immutable UTF-8 string with a trailing NUL for C readers.
///
/// The bytes live in memory from `malloc`, which the object owns, and only
/// there: a copy from C of any size the caller can ask for either succeeds or
/// is `nil` (`init?(copying:)`), where a Swift allocation (an `[UInt8]`)
/// would stop the process when the system refuses it.
final class SKString: SKObject {
    /// The number of bytes, without the trailing NUL.
    let count: Int
    let storage: UnsafeMutablePointer<CChar>
    /// False only for `made`'s fallback, whose bytes are a constant of the
    /// library (never freed).
    private let ownsStorage: Bool

    /// The bytes, without the trailing NUL; valid while the object lives.
    var bytes: UnsafeRawBufferPointer {
        return UnsafeRawBufferPointer(start: self.storage, count: self.count)
    }

    /// A copy of `bytes` with a NUL after them, or nil when the memory for
    /// it cannot be allocated (or `bytes.count + 1` overflows). Nothing of
    /// `bytes` is read before the allocation has succeeded.
    init?(copying bytes: UnsafeRawBufferPointer) {
        guard bytes.count < Int.max, let raw = malloc(bytes.count + 1) else {
            return nil
        }
        let storage = raw.bindMemory(to: CChar.self, capacity: bytes.count + 1)
        if let base = bytes.baseAddress {
            raw.copyMemory(from: base, byteCount: bytes.count)
        }
        storage[bytes.count] = 0
        self.count = bytes.count
        self.storage = storage
        self.ownsStorage = true
        super.init()
    }

    /// A string over the constant `text` (not copied, never freed).
    private init(constant text: StaticString) {
        self.count = text.utf8CodeUnitCount
        self.storage = UnsafeMutableRawPointer(mutating: text.utf8Start).assumingMemoryBound(to: CChar.self)
        self.ownsStorage = false
        super.init()
    }

    /// What `made` holds when the memory for a message cannot be allocated.
    private static let outOfMemoryText: StaticString = "SignalKit: out of memory for this message"

    /// A string the library makes (an error's message, delivered where no
    /// status can be returned). When the memory for its bytes cannot be
    /// allocated, the string says so instead ("SignalKit: out of memory for
    /// this message", a constant: nothing to allocate), so that the error
    /// still reaches its observer.
    static func made(_ string: String) -> SKString {
        var string = string
        let made = string.withUTF8 { utf8 in
            SKString(copying: UnsafeRawBufferPointer(utf8))
        }
        return made ?? SKString(constant: SKString.outOfMemoryText)
    }

    deinit {
        if self.ownsStorage {
            free(self.storage)
        }
    }

    static func == (lhs: SKString, rhs: SKString) -> Bool {
        return lhs.count == rhs.count && memcmp(lhs.storage, rhs.storage, lhs.count) == 0
    }
}

/// Immutable bytes, in memory from `malloc` that the object owns (see
/// `SKString`).
final class SKBytes: SKObject {
    let count: Int
    let storage: UnsafeMutableRawPointer

    /// The bytes; valid while the object lives.
    var bytes: UnsafeRawBufferPointer {
        return UnsafeRawBufferPointer(start: self.storage, count: self.count)
    }

    /// A copy of `bytes`, or nil when the memory for it cannot be allocated.
    /// Nothing of `bytes` is read before the allocation has succeeded.
    init?(copying bytes: UnsafeRawBufferPointer) {
        // malloc's alignment (16 on the 64-bit targets) is what the C side
        // may assume of any buffer.
        guard let storage = malloc(max(1, bytes.count)) else {
            return nil
        }
        if let base = bytes.baseAddress {
            storage.copyMemory(from: base, byteCount: bytes.count)
        }
        self.count = bytes.count
        self.storage = storage
        super.init()
    }

    deinit {
        free(self.storage)
    }

    static func == (lhs: SKBytes, rhs: SKBytes) -> Bool {
        return lhs.count == rhs.count && memcmp(lhs.storage, rhs.storage, lhs.count) == 0
    }
}

/// An immutable array of values, kept as its C view alone: `storage` holds
/// the `count` items as `sk_value`s, and the array owns one reference to
/// the object of each item of a heap kind (taken as the item is stored,
/// dropped as it is replaced or the array goes away), as an `sk_value` that
/// a C caller owns does. An item of a primitive kind (a combination's usual
/// item) is its C value and nothing else: storing, replacing and releasing
/// it calls nothing. (The items were also kept as a Swift `[SKValue]`: each
/// store retained and released the nil objects of primitive items through
/// the runtime, and a refill checked that array's uniqueness: about 25
/// instructions an emission of sk_signal_combine_latest's pairs.)
///
/// Immutable as far as anyone holding it can tell: `refill` rewrites an array
/// only while nothing but its `SKArrayReuse` holds it.
///
/// Thread-safety: immutable once made (`refill` aside, above): any thread.
final class SKArray: SKObject {
    /// The number of items.
    let count: Int
    /// The items (`count` of them, at least one element allocated): the C
    /// view that sk_value_get_array_item() lends.
    let storage: UnsafeMutablePointer<sk_value>
    /// Levels of arrays, this one included (1 for an array of no arrays):
    /// what `sk_value_set_array` bounds by SK_VALUE_MAX_DEPTH, so that the
    /// recursive operations over values (release, equality, the conversions
    /// of the ffi layer and of bindings) stay far from any stack's limit.
    @exclusivity(unchecked) private(set) var depth: Int

    /// The depth of an item: an array's, else 0.
    @inline(__always)
    static func depth(ofItem item: sk_value) -> Int {
        guard item.kind == SK_KIND_ARRAY, let pointer = item.u.object else {
            return 0
        }
        return Unmanaged<SKArray>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.depth }
    }

    /// An array of `items` that the library makes (a combination's), or nil
    /// when the system refuses the memory for its C view: the caller (a
    /// delivery, where no status can be returned) ends its subscription with
    /// an error instead (see `fusedCombination`). The Swift runtime's own
    /// allocation (of this object) still stops the process when refused, as
    /// every Swift allocation does: the C view's is the one the library can
    /// report.
    convenience init?(_ items: [SKValue]) {
        self.init(count: items.count) { items[$0].raw }
    }

    /// An array of the `count` items `item(index)` gives (the C values of
    /// values the caller holds, their objects retained here), or nil when
    /// the memory for its C view is refused (as `init(_:)`). The items are
    /// read as C values so that reading them copies no `SKValue` (a retain
    /// and a release of a primitive's nil object each).
    @inline(__always)
    init?(count: Int, _ item: (Int) -> sk_value) {
        guard let storage = SKArray.allocateStorage(count: count) else {
            return nil
        }
        var deepest = 0
        for index in 0 ..< count {
            let value = item(index)
            SKArray.retainObject(of: value)
            (storage + index).initialize(to: value)
            if value.kind == SK_KIND_ARRAY {
                deepest = max(deepest, SKArray.depth(ofItem: value))
            }
        }
        self.count = count
        self.storage = storage
        self.depth = deepest + 1
        super.init(fastKind: .array)
    }

    /// An array of the `count` valid C values at `items` (checked by the
    /// caller: see `SKValue.validate`), each object retained, whose C view
    /// is `storage` (from `allocateStorage`, for as many items; the array
    /// takes it over) and whose depth is `depth` (`depth(ofItem:)` of the
    /// deepest item, plus 1).
    init(copying items: UnsafePointer<sk_value>?, count: Int, depth: Int, storage: UnsafeMutablePointer<sk_value>) {
        for index in 0 ..< count {
            // Invariant: `items` is not NULL when `count` > 0 (the caller's check).
            var item = items.unsafelyUnwrapped[index]
            if item.kind == SK_KIND_BOOL {
                // As `init(borrowing:)` reads a C value: a bool's unused bytes cleared.
                item = SKValue.clearingUnusedBytes(ofBool: item)
            }
            SKArray.retainObject(of: item)
            (storage + index).initialize(to: item)
        }
        self.count = count
        self.storage = storage
        self.depth = depth
        super.init(fastKind: .array)
    }

    /// Memory from `malloc` for the C view of `count` items, or nil when it
    /// cannot be allocated (`count` must be at most
    /// `Int.max / MemoryLayout<sk_value>.stride`). Freed by the array that
    /// takes it, or with `free`.
    static func allocateStorage(count: Int) -> UnsafeMutablePointer<sk_value>? {
        let byteCount = max(1, count) * MemoryLayout<sk_value>.stride
        return malloc(byteCount)?.bindMemory(to: sk_value.self, capacity: max(1, count))
    }

    /// Item `index` (in `0 ..< count`) as a value of its own (its object
    /// retained).
    func item(_ index: Int) -> SKValue {
        return SKValue(borrowing: UnsafePointer(self.storage + index))
    }

    /// Takes the reference an item of a heap kind keeps (none for a
    /// primitive: a compare and a branch).
    @inline(__always)
    private static func retainObject(of item: sk_value) {
        if item.kind.rawValue > SK_KIND_DOUBLE.rawValue, let pointer = item.u.object {
            _ = Unmanaged<SKObject>.fromOpaque(pointer).retain()
        }
    }

    /// Drops the reference an item of a heap kind kept.
    @inline(__always)
    private static func releaseObject(of item: sk_value) {
        if item.kind.rawValue > SK_KIND_DOUBLE.rawValue, let pointer = item.u.object {
            Unmanaged<SKObject>.fromOpaque(pointer).release()
        }
    }

    /// Releasing an array of arrays must not recurse once per level (the
    /// release of an item would run the deinit of a child array it held the
    /// last reference to, which releases its own items, and so on: 128
    /// levels overflow a small thread stack). So an array with arrays in it
    /// (depth above 1) hands its items to this thread's release list
    /// instead: the outermost such deinit on the thread releases them one
    /// batch at a time, and a child array whose deinit that runs appends its
    /// own items to the list and returns. The stack holds at most two array
    /// deinits, whatever the depth. An array of no arrays releases its items
    /// in place (no recursion through arrays can follow).
    deinit {
        if self.depth > 1 {
            SKArray.releaseNested(self.storage, count: self.count)
        } else {
            for index in 0 ..< self.count {
                SKArray.releaseObject(of: self.storage[index])
            }
        }
        free(self.storage)
    }

    /// The items' references, taken over as values (`SKValue(taking:)`)
    /// and handed to the thread's release list.
    @inline(never)
    private static func releaseNested(_ storage: UnsafeMutablePointer<sk_value>, count: Int) {
        var batch: [SKValue] = []
        batch.reserveCapacity(count)
        for index in 0 ..< count {
            batch.append(SKValue(taking: storage[index]))
        }
        if let current = SKReleaseList.current {
            current.pending.append(batch)
            return
        }
        let list = SKReleaseList()
        list.pending.append(batch)
        batch = []
        list.drain()
    }

    /// Replaces the item at `slot` with `value`: the new object retained
    /// before the old one is released (the same object may be both).
    @inline(__always)
    private static func replace(_ slot: UnsafeMutablePointer<sk_value>, with value: sk_value) {
        SKArray.retainObject(of: value)
        let replaced = slot.pointee
        slot.pointee = value
        SKArray.releaseObject(of: replaced)
    }

    /// Releases the items (each made a nil value): an array kept for reuse
    /// holds none of the values it was delivered with (see
    /// `SKArrayReuse.giveBack`). Called by the only holder.
    func releaseItems() {
        for index in 0 ..< self.count {
            let item = self.storage[index]
            self.storage[index] = sk_value()
            SKArray.releaseObject(of: item)
        }
    }

    /// `refill` for an array of two items, the two-signal combination's:
    /// no closure per item.
    @inline(__always)
    func refill(_ first: SKValue, _ second: SKValue) {
        // Invariant (the library's own, as `refill(count:_:)`): SKArrayReuse
        // hands this out only for arrays made with two items.
        precondition(self.count == 2, "an array refilled with another number of items")
        // Four primitives (the new items and the replaced ones: a
        // combination of numbers), found with one test: the kinds of the
        // primitives are 0 to 3 (SK_KIND_NIL to SK_KIND_DOUBLE), every other
        // kind is 4 or more, so the kinds OR-ed together stay at most 3 only
        // when all four are primitives. Nothing to retain or release, no
        // item an array: about 20 instructions fewer an emission than the
        // four tests of `replace` and the two of the depth.
        let kinds = first.kind.rawValue | second.kind.rawValue | self.storage[0].kind.rawValue | self.storage[1].kind.rawValue
        if kinds <= SK_KIND_DOUBLE.rawValue {
            self.storage[0] = first.raw
            self.storage[1] = second.raw
            self.depth = 1
            return
        }
        SKArray.replace(self.storage, with: first.raw)
        SKArray.replace(self.storage + 1, with: second.raw)
        if first.kind == SK_KIND_ARRAY || second.kind == SK_KIND_ARRAY {
            self.depth = max(SKArray.depth(ofItem: first.raw), SKArray.depth(ofItem: second.raw)) + 1
        } else {
            self.depth = 1
        }
    }

    /// Replaces the items with the `count` items `item(index)` gives (as
    /// many as the array has; C values, as for `init(count:_:)`), in place.
    /// Only for an array that nothing else holds (see `SKArrayReuse`), so
    /// that no reader can see it change.
    @inline(__always)
    func refill(count: Int, _ item: (Int) -> sk_value) {
        // Invariant: `SKArrayReuse` refills an array with as many items as it
        // was made with (one combination's inputs).
        precondition(count == self.count, "an array refilled with another number of items")
        var deepest = 0
        for index in 0 ..< count {
            let value = item(index)
            SKArray.replace(self.storage + index, with: value)
            if value.kind == SK_KIND_ARRAY {
                deepest = max(deepest, SKArray.depth(ofItem: value))
            }
        }
        self.depth = deepest + 1
    }

    /// Equal items, or the same array (whose items are not compared: see
    /// sk_value_equal()).
    static func == (lhs: SKArray, rhs: SKArray) -> Bool {
        if lhs === rhs {
            return true
        }
        guard lhs.count == rhs.count else {
            return false
        }
        // The pairs of item arrays still to compare, on the heap, not the
        // stack: an operator makes arrays one level deeper than its values
        // (pairwise, buffer_count, zip, ...), so the arrays compared may be
        // nested deeper than SK_VALUE_MAX_DEPTH, as deep as a program feeds
        // them back (a recursion needed 1 KB of stack a level).
        var pending: [(SKArray, SKArray)] = []
        var pair = (lhs, rhs)
        while true {
            for index in 0 ..< pair.0.count {
                let (left, right) = (pair.0.item(index), pair.1.item(index))
                if left.kind == SK_KIND_ARRAY, right.kind == SK_KIND_ARRAY,
                   let leftArray = left.object as? SKArray, let rightArray = right.object as? SKArray {
                    if leftArray !== rightArray {
                        guard leftArray.count == rightArray.count else {
                            return false
                        }
                        pending.append((leftArray, rightArray))
                    }
                } else if left != right {
                    return false
                }
            }
            guard let next = pending.popLast() else {
                return true
            }
            pair = next
        }
    }
}

/// What waits to be released on one thread: the item arrays of nested arrays
/// (see `SKArray`'s deinit) and what signals held (see `SKSignal`'s
/// deinit); reached through a thread-local, touched only by its thread.
final class SKReleaseList {
    var pending: [[SKValue]] = []
    var signals: [SKUpstream] = []
    /// The runs of stages of maps and filters (see `SKSignal`'s deinit).
    var stageRuns: [SKStages] = []
    /// The release functions of user pointers whose last value is gone, and
    /// of contexts whose last holder is gone, with their pointers: each
    /// still counted in `sk_live_objects()` (see `release(_:_:)`).
    var pointers: [(sk_release_fn, UnsafeMutableRawPointer?)] = []

    /// What a signal handle held (see `SKSignal`'s deinit), to be released
    /// from this list.
    func append(_ signal: SKUpstream?, _ value: SKValue, _ stages: SKStages?) {
        if let signal {
            self.signals.append(signal)
        }
        if let stages {
            self.stageRuns.append(stages)
        }
        if value.object != nil {
            self.pending.append([value])
        }
    }

    /// The list the thread is draining, or nil.
    static var current: SKReleaseList? {
        return current(sk__release_state_here())
    }

    /// The list the thread whose release state is `state` is draining, or nil.
    @inline(__always)
    static func current(_ state: UnsafeMutablePointer<sk__release_state>) -> SKReleaseList? {
        guard let list = state.pointee.list else {
            return nil
        }
        return Unmanaged<SKReleaseList>.fromOpaque(list).takeUnretainedValue()
    }

    /// How deep the releases of signals (each counted as deep as its
    /// pipeline) and of user pointers (1 each) may nest in place on a thread
    /// before the deeper ones go through a release list: a few hundred bytes
    /// of stack per level, and no list is made for the common, shallow case.
    static let inlineReleaseBudget: Int32 = 8

    /// Runs `release` in place, counted as `weight` nested levels, when they
    /// fit in what is left of the thread's `inlineReleaseBudget`; returns
    /// whether it ran (if not, the caller hands what it would release to a
    /// list).
    @inline(__always)
    static func releaseInPlace(weight: Int32, _ release: () -> Void) -> Bool {
        return releaseInPlace(sk__release_state_here(), weight: weight, release)
    }

    /// `releaseInPlace` on the thread whose release state is `state` (the
    /// caller's, reached once for both this and `current`).
    @inline(__always)
    static func releaseInPlace(_ state: UnsafeMutablePointer<sk__release_state>, weight: Int32, _ release: () -> Void) -> Bool {
        let depth = state.pointee.depth
        guard weight <= inlineReleaseBudget - depth else {
            return false
        }
        state.pointee.depth = depth + weight
        release()
        state.pointee.depth = depth
        return true
    }

    /// Runs the release function of a user pointer or context whose last
    /// holder is gone (it is still counted in `sk_live_objects()`, and
    /// uncounted just before `release` runs): in place within the thread's
    /// budget, else from the thread's release list, one after another.
    /// Release functions may release values and handles in turn, whose
    /// release functions run inside them, and so on: a list owned through
    /// values or contexts (each node's release releasing the next node)
    /// recursed once per node through the library and the user's function,
    /// and overflowed a 64 KB thread stack (SK_MIN_THREAD_STACK) at a few
    /// hundred to 1,000 nodes, an 8 MB one at 100,000. So the deeper ones
    /// run after the one they are nested in has returned, on the same
    /// thread, before the release that made the list returns.
    static func release(_ release: sk_release_fn, _ pointer: UnsafeMutableRawPointer?) {
        if let current = SKReleaseList.current {
            current.pointers.append((release, pointer))
            return
        }
        if SKReleaseList.releaseInPlace(weight: 1, { SKReleaseList.runRelease(release, pointer) }) {
            return
        }
        let list = SKReleaseList()
        list.pointers.append((release, pointer))
        list.drain()
    }

    /// Uncounts a user pointer or context and runs its release function
    /// (`runUserRelease`: uncounted before it runs, so that whoever the
    /// release wakes sees the object gone; waited for by
    /// sk_live_objects_wait until it returns).
    static func runRelease(_ release: sk_release_fn, _ pointer: UnsafeMutableRawPointer?) {
        runUserRelease { release(pointer) }
    }

    /// Installs this list as the thread's and releases what it holds, and
    /// what those releases append to it, one item at a time, so that the
    /// stack never holds more than one of the nested releases; then removes
    /// it. Only when the thread has no list yet.
    func drain() {
        let state: UnsafeMutablePointer<sk__release_state> = sk__release_state_here()
        state.pointee.list = Unmanaged.passUnretained(self).toOpaque()
        while true {
            // Each item is released at the end of its block, once the list's
            // array is no longer being accessed: a nested array or signal
            // whose deinit that runs appends what it held to this list and
            // returns.
            if !self.signals.isEmpty {
                let signal = self.signals.removeLast()
                withExtendedLifetime(signal) {
                }
                continue
            }
            if !self.stageRuns.isEmpty {
                let stages = self.stageRuns.removeLast()
                withExtendedLifetime(stages) {
                }
                continue
            }
            if !self.pointers.isEmpty {
                let (release, pointer) = self.pointers.removeLast()
                SKReleaseList.runRelease(release, pointer)
                continue
            }
            if self.pending.isEmpty {
                break
            }
            let batch = self.pending.removeLast()
            withExtendedLifetime(batch) {
            }
        }
        state.pointee.list = nil
        withExtendedLifetime(self) {
        }
    }
}

/// The array values that one subscription emits (sk_signal_combine_latest):
/// an array that nothing held any more once its emission returned (the
/// callbacks only borrowed it, as they borrow every value) is refilled for a
/// later emission, so that an emission allocates nothing; one that is still
/// held then (copied with sk_value_copy, waiting on a queue, kept by an
/// operator) is left to its holders, and a new one made next time.
///
/// The check is made by the emitting thread once the emission has returned,
/// and the array passes to the next emission through an atomic slot: every
/// read of the array by the emission that let it go happens before the
/// refill, in ways ThreadSanitizer can see too (the emitting thread's order,
/// the slot's release and acquire), except for a reader on another thread
/// that let go of it through the reference count alone before the emission
/// returned (ThreadSanitizer does not see the Swift runtime's atomics).
///
/// The first thread that takes an array owns a slot of its own
/// (`ownerSpare`, loads and stores only), so that a combination fed by one
/// thread passes its array on without an atomic read-modify-write (the
/// shared slot's exchange in and out were two a C W5 put); the other
/// threads use the shared slot. No other thread ever touches the owner's
/// slot, so nothing is revoked: what the owner keeps, it reuses.
///
/// Thread-safety: `take` and `giveBack` may be called from several threads at
/// once (inputs emitting concurrently): the spare array goes to one of them,
/// the others make new ones.
final class SKArrayReuse: @unchecked Sendable {
    /// An array nothing else holds (+1), or nil.
    private let spare = Synchronization.Atomic<UnsafeMutableRawPointer?>(nil)
    /// The owning thread (`_sks_thread_token()`), 0 before the first take.
    private let owner = Synchronization.Atomic<UInt>(0)
    /// The owner's spare array (+1), or nil: loaded and stored by the
    /// owning thread only (an atomic so that the deinit's load, on any
    /// thread, after the last use, is no race for ThreadSanitizer).
    private let ownerSpare = Synchronization.Atomic<UnsafeMutableRawPointer?>(nil)

    deinit {
        if let spare = self.spare.load(ordering: .acquiring) {
            Unmanaged<SKArray>.fromOpaque(spare).release()
        }
        if let spare = self.ownerSpare.load(ordering: .acquiring) {
            Unmanaged<SKArray>.fromOpaque(spare).release()
        }
    }

    /// Whether the calling thread owns `ownerSpare` (the first to ask does).
    @inline(__always)
    private func isOwner() -> Bool {
        let me = UInt(_sks_thread_token())
        let owner = self.owner.load(ordering: .relaxed)
        if owner == me {
            return true
        }
        return owner == 0 && self.owner.compareExchange(expected: 0, desired: me, ordering: .relaxed).exchanged
    }

    /// The spare array, taken (+1): the owner's own, or the shared one.
    @inline(__always)
    private func takeSpare() -> UnsafeMutableRawPointer? {
        if self.isOwner() {
            let taken = self.ownerSpare.load(ordering: .relaxed)
            if taken != nil {
                self.ownerSpare.store(nil, ordering: .relaxed)
            }
            return taken
        }
        return self.spare.exchange(nil, ordering: .acquiringAndReleasing)
    }

    /// An array of the `count` items `item(index)` gives: the spare one
    /// refilled, or a new one; nil when a new one was needed and the memory
    /// for it was refused.
    @inline(__always)
    func take(count: Int, _ item: (Int) -> sk_value) -> SKArray? {
        if let taken = self.takeSpare() {
            // Nothing but the slot held it (see `giveBack`).
            let array = Unmanaged<SKArray>.fromOpaque(taken).takeRetainedValue()
            array.refill(count: count, item)
            return array
        }
        return SKArray(count: count, item)
    }

    /// `take(count:_:)` when the arrays taken may differ in size: the spare
    /// one refilled when it has `count` items, else a new one (the spare,
    /// of another size, released).
    @inline(__always)
    func take(sized count: Int, _ item: (Int) -> sk_value) -> SKArray? {
        if let taken = self.takeSpare() {
            // Nothing but the slot held it (see `giveBack`).
            let array = Unmanaged<SKArray>.fromOpaque(taken).takeRetainedValue()
            if array.count == count {
                array.refill(count: count, item)
                return array
            }
        }
        return SKArray(count: count, item)
    }

    /// `take(count: 2)` with the items given.
    @inline(__always)
    func take(_ first: SKValue, _ second: SKValue) -> SKArray? {
        if let taken = self.takeSpare() {
            // Nothing but the slot held it (see `giveBack`).
            let array = Unmanaged<SKArray>.fromOpaque(taken).takeRetainedValue()
            array.refill(first, second)
            return array
        }
        return SKArray(count: 2) { $0 == 0 ? first.raw : second.raw }
    }

    /// Keeps `array` for a later `take` if its emission (which has returned)
    /// left no other holder; else lets it go to its holders.
    /// `releasingItems`: the items are released first, so that the values
    /// delivered are not kept until the next array (a buffer's many).
    @inline(__always)
    func giveBack(_ array: consuming SKArray, releasingItems: Bool = false) {
        guard isKnownUniquelyReferenced(&array) else {
            return
        }
        if releasingItems {
            array.releaseItems()
        }
        // The slot takes over the caller's reference: consumed here, where
        // the retain is made, so that the compiler pairs it with the release
        // (kept to the end of the function, the two were made).
        let kept = Unmanaged.passRetained(consume array).toOpaque()
        _explore(.arrayHandoff)
        // The owner was decided when the array was taken (`takeSpare`).
        if self.owner.load(ordering: .relaxed) == UInt(_sks_thread_token()) {
            let replaced = self.ownerSpare.load(ordering: .relaxed)
            self.ownerSpare.store(kept, ordering: .relaxed)
            if let replaced {
                Unmanaged<SKArray>.fromOpaque(replaced).release()
            }
            return
        }
        if let replaced = self.spare.exchange(kept, ordering: .acquiringAndReleasing) {
            Unmanaged<SKArray>.fromOpaque(replaced).release()
        }
    }
}

/// A user pointer whose release function runs when the last value holding it
/// goes away.
final class SKPointer: SKObject {
    let pointer: UnsafeMutableRawPointer?
    let releaseFunction: sk_release_fn?

    init(_ pointer: UnsafeMutableRawPointer?, release: sk_release_fn?) {
        self.pointer = pointer
        self.releaseFunction = release
        liveObjectCount.wrappingAdd(1, ordering: .relaxed)
        super.init(counted: false)
    }

    /// A release function may release values in turn, whose pointers'
    /// release functions run inside it, and so on (a list owned through
    /// values): as for signals (see `SKSignal`'s deinit), nested releases
    /// run in place within the thread's budget, and deeper release functions
    /// go to the thread's release list (`SKReleaseList.release`).
    deinit {
        guard let release = self.releaseFunction else {
            liveObjectGone()
            return
        }
        SKReleaseList.release(release, self.pointer)
    }
}
