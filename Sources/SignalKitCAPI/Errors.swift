import SignalKitHeader

/// Records "`function`'s C name: `message`" as the calling thread's last
/// error and returns `status` as the C status code. `function` is the
/// exported function's `#function`, which a helper receives from its caller
/// (a `function: StaticString = #function` parameter) and hands on.
@discardableResult
func fail(_ status: sk_status, _ message: String, function: StaticString = #function) -> Int32 {
    "\(cName(function)): \(message)".withCString { sk__set_last_error($0) }
    return status.rawValue
}

/// The C name of the function whose `#function` is `function`: inside
/// `sk_pipe_put(_:_:)`, `#function` is "sk_pipe_put(_:_:)" and the C name
/// "sk_pipe_put". Only error paths call it: passing `#function` on the
/// success path costs a constant.
func cName(_ function: StaticString) -> Substring {
    return function.description.prefix { $0 != "(" }
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
    case SK_ERR_RESOURCE.rawValue: text = "resource refused by the system, or a limit reached"
    default: text = "unknown status"
    }
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
