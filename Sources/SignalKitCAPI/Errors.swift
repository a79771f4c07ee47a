import SignalKitHeader

/// Records `message` as the calling thread's last error and returns `status`
/// as the C status code.
@discardableResult
func fail(_ status: sk_status, _ message: String) -> Int32 {
    message.withCString { sk__set_last_error($0) }
    return status.rawValue
}

let SKOK: Int32 = SK_OK.rawValue

@c @implementation
public func sk_status_string(_ status: Int32) -> UnsafePointer<CChar>? {
    let text: StaticString
    switch status {
    case SK_OK.rawValue: text = "ok"
    case SK_ERR_NULL_ARGUMENT.rawValue: text = "null argument"
    case SK_ERR_WRONG_KIND.rawValue: text = "wrong kind"
    case SK_ERR_INVALID_ARGUMENT.rawValue: text = "invalid argument"
    case SK_ERR_NO_MEMORY.rawValue: text = "out of memory"
    case SK_ERR_BUSY.rawValue: text = "busy"
    case SK_ERR_UNSUPPORTED.rawValue: text = "unsupported"
    case SK_ERR_RELEASED.rawValue: text = "released handle"
    case SK_ERR_RESOURCE.rawValue: text = "resource refused by the system"
    default: text = "unknown status"
    }
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
