import SignalKitHeader

@c @implementation
public func sk_version_number() -> UInt32 {
    return UInt32(SK_VERSION_MAJOR * 10000 + SK_VERSION_MINOR * 100 + SK_VERSION_PATCH)
}

@c @implementation
public func sk_version_string() -> UnsafePointer<CChar>? {
    let text: StaticString = "0.3.0"
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
