// GENERATED FILE, DO NOT EDIT: written by tools/generate-combine.py
// (run `python3 tools/generate-combine.py` to regenerate).
//
// combineLatest for 3 to 26 signals. Each overload goes through the shared
// combineLatestCore (Signal_Combine.swift) over [Any] and casts the latest
// values back to a typed tuple.

/// Emits the tuple of the latest values of the 3 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>) -> Signal<(T1, T2, T3), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3)], combine: { (values: [Any]) -> (T1, T2, T3) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3)
    })
}

/// Emits the tuple of the latest values of the 4 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>) -> Signal<(T1, T2, T3, T4), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4)], combine: { (values: [Any]) -> (T1, T2, T3, T4) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4)
    })
}

/// Emits the tuple of the latest values of the 5 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>) -> Signal<(T1, T2, T3, T4, T5), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5)
    })
}

/// Emits the tuple of the latest values of the 6 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>) -> Signal<(T1, T2, T3, T4, T5, T6), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6)
    })
}

/// Emits the tuple of the latest values of the 7 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7)
    })
}

/// Emits the tuple of the latest values of the 8 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8)
    })
}

/// Emits the tuple of the latest values of the 9 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9)
    })
}

/// Emits the tuple of the latest values of the 10 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10)
    })
}

/// Emits the tuple of the latest values of the 11 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11)
    })
}

/// Emits the tuple of the latest values of the 12 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12)
    })
}

/// Emits the tuple of the latest values of the 13 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13)
    })
}

/// Emits the tuple of the latest values of the 14 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14)
    })
}

/// Emits the tuple of the latest values of the 15 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15)
    })
}

/// Emits the tuple of the latest values of the 16 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16)
    })
}

/// Emits the tuple of the latest values of the 17 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17)
    })
}

/// Emits the tuple of the latest values of the 18 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18)
    })
}

/// Emits the tuple of the latest values of the 19 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19)
    })
}

/// Emits the tuple of the latest values of the 20 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19), combineLatestStarter(s20)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20)
    })
}

/// Emits the tuple of the latest values of the 21 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19), combineLatestStarter(s20), combineLatestStarter(s21)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21)
    })
}

/// Emits the tuple of the latest values of the 22 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19), combineLatestStarter(s20), combineLatestStarter(s21), combineLatestStarter(s22)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22)
    })
}

/// Emits the tuple of the latest values of the 23 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19), combineLatestStarter(s20), combineLatestStarter(s21), combineLatestStarter(s22), combineLatestStarter(s23)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23)
    })
}

/// Emits the tuple of the latest values of the 24 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>, _ s24: Signal<T24, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19), combineLatestStarter(s20), combineLatestStarter(s21), combineLatestStarter(s22), combineLatestStarter(s23), combineLatestStarter(s24)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23, values[23] as! T24)
    })
}

/// Emits the tuple of the latest values of the 25 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>, _ s24: Signal<T24, E>, _ s25: Signal<T25, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19), combineLatestStarter(s20), combineLatestStarter(s21), combineLatestStarter(s22), combineLatestStarter(s23), combineLatestStarter(s24), combineLatestStarter(s25)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23, values[23] as! T24, values[24] as! T25)
    })
}

/// Emits the tuple of the latest values of the 26 signals each time any of
/// them emits, once every one has emitted at least once. Errors, completion,
/// `queue` and threading: as `combineLatest(queue:_:_:)`.
public func combineLatest<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, T26, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>, _ s24: Signal<T24, E>, _ s25: Signal<T25, E>, _ s26: Signal<T26, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, T26), E> {
    return combineLatestCore(queue: queue, [combineLatestStarter(s1), combineLatestStarter(s2), combineLatestStarter(s3), combineLatestStarter(s4), combineLatestStarter(s5), combineLatestStarter(s6), combineLatestStarter(s7), combineLatestStarter(s8), combineLatestStarter(s9), combineLatestStarter(s10), combineLatestStarter(s11), combineLatestStarter(s12), combineLatestStarter(s13), combineLatestStarter(s14), combineLatestStarter(s15), combineLatestStarter(s16), combineLatestStarter(s17), combineLatestStarter(s18), combineLatestStarter(s19), combineLatestStarter(s20), combineLatestStarter(s21), combineLatestStarter(s22), combineLatestStarter(s23), combineLatestStarter(s24), combineLatestStarter(s25), combineLatestStarter(s26)], combine: { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, T26) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23, values[23] as! T24, values[24] as! T25, values[25] as! T26)
    })
}
