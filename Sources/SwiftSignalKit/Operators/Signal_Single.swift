/// Emits `value`, then completes; `errorType` only names the error type.
public func single<T, E>(_ value: T, _ errorType: E.Type) -> Signal<T, E> {
    return Signal<T, E>.single(value)
}

/// Fails at once with `error`; `valueType` only names the value type.
public func fail<T, E>(_ valueType: T.Type, _ error: E) -> Signal<T, E> {
    return Signal<T, E>.fail(error)
}

/// Completes at once without values; the arguments only name the types.
public func complete<T, E>(_ valueType: T.Type, _ error: E.Type) -> Signal<T, E> {
    return Signal<T, E>.complete()
}

/// Never emits anything and never terminates; the arguments only name the types.
public func never<T, E>(_ valueType: T.Type, _ error: E.Type) -> Signal<T, E> {
    return Signal<T, E>.never()
}
