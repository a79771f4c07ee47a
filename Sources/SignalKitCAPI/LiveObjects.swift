#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SignalKitHeader

// The list of live objects: sk_live_objects_report (a callback per object),
// sk_live_objects_print (a FILE *, and SIGNALKIT_LIVE_OBJECTS_AT_EXIT's
// report) and sk_handle_set_name. The list is the handle registry
// (`HandleRegistry`), kept only while handle checking is on; the count,
// sk_live_objects, is in SKObject.swift.

/// What a report says when the list is not kept.
private let notKeptHint = "run with SIGNALKIT_CHECK_HANDLES=1 or SIGNALKIT_LIVE_OBJECTS_AT_EXIT=1, or call sk_set_handle_checking(true) before making any object"

/// Calls `body` with each live object as C sees it, oldest first, with no
/// lock held (the snapshot is taken first); false, calling nothing, when
/// the list is not kept.
private func forEachLiveObject(_ body: (UnsafePointer<sk_live_object>) -> Void) -> Bool {
    HandleRegistry.applyEnvironment()
    guard HandleRegistry.isEnabled else {
        return false
    }
    for object in HandleRegistry.snapshot() {
        let maker = object.entry.maker.map { String(cName($0)) }
        withOptionalCString(maker) { madeBy in
            withOptionalCString(object.entry.name) { name in
                var info = sk_live_object()
                info.address = UnsafeRawPointer(bitPattern: object.address)
                info.kind = UnsafeRawPointer(object.kind.utf8Start).assumingMemoryBound(to: CChar.self)
                info.made_by = madeBy
                info.name = name
                withUnsafePointer(to: &info) { body($0) }
            }
        }
    }
    return true
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else {
        return body(nil)
    }
    return string.withCString { body($0) }
}

@c @implementation
public func sk_live_objects_report(_ fn: sk_live_object_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let fn else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL"))
    }
    let kept = forEachLiveObject { fn(ctx, $0) }
    guard kept else {
        return releasingOnFailure(ctx: ctx, release: release,
                                  fail(SK_ERR_UNSUPPORTED, "the list is kept only while handle checking is on: \(notKeptHint)"))
    }
    release?(ctx)
    return SKOK
}

/// What `sk_live_objects_print` writes (and the exit report).
func liveObjectsText() -> String {
    var lines: [String] = []
    let kept = forEachLiveObject { info in
        let address = UInt(bitPattern: info.pointee.address)
        var line = "  \(String(cString: info.pointee.kind)) 0x\(String(address, radix: 16))"
        if let madeBy = info.pointee.made_by {
            line += " made by \(String(cString: madeBy))"
        } else {
            line += " made inside the library"
        }
        if let name = info.pointee.name {
            line += ", named \"\(String(cString: name))\""
        }
        lines.append(line)
    }
    if !kept {
        let count = sk_live_objects()
        if count == 0 {
            return "signalkit: no live objects\n"
        }
        return "signalkit: \(count) live object\(count == 1 ? "" : "s") (to list them, \(notKeptHint))\n"
    }
    if lines.isEmpty {
        return "signalkit: no live objects\n"
    }
    return "signalkit: \(lines.count) live object\(lines.count == 1 ? "" : "s"), oldest first:\n" + lines.joined(separator: "\n") + "\n"
}

@c @implementation
public func sk_live_objects_print(_ file: UnsafeMutablePointer<FILE>?) -> Int32 {
    guard let file else {
        return fail(SK_ERR_NULL_ARGUMENT, "file is NULL")
    }
    fputs(liveObjectsText(), file)
    return SKOK
}

@c @implementation
public func sk_handle_set_name(_ handle: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guard let handle else {
        return fail(SK_ERR_NULL_ARGUMENT, "handle is NULL")
    }
    let pointer = OpaquePointer(handle)
    guard SKObject.isLive(pointer) else {
        return fail(SK_ERR_RELEASED, "handle was already released (or never was a handle)")
    }
    guard SKObject.isHandle(pointer) else {
        return fail(SK_ERR_WRONG_KIND, "handle is not one of this library's handles")
    }
    if HandleRegistry.isEnabled {
        _ = HandleRegistry.setName(UInt(bitPattern: handle), name.map { String(cString: $0) })
    }
    return SKOK
}
