// GENERATED FILE, DO NOT EDIT: written by tools/generate-combine.py
// (run `python3 tools/generate-combine.py` to regenerate).
//
// zip for 3 to 26 signals. Each overload goes through the array form of
// zip (Signal_Combine+Zip.swift) over Any and casts the values back to a
// typed tuple.

/// The tuples of the n-th values of the 3 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>) -> Signal<(T1, T2, T3), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3)
    }
}

/// The tuples of the n-th values of the 4 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>) -> Signal<(T1, T2, T3, T4), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4)
    }
}

/// The tuples of the n-th values of the 5 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>) -> Signal<(T1, T2, T3, T4, T5), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5)
    }
}

/// The tuples of the n-th values of the 6 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>) -> Signal<(T1, T2, T3, T4, T5, T6), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6)
    }
}

/// The tuples of the n-th values of the 7 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7)
    }
}

/// The tuples of the n-th values of the 8 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8)
    }
}

/// The tuples of the n-th values of the 9 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9)
    }
}

/// The tuples of the n-th values of the 10 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10)
    }
}

/// The tuples of the n-th values of the 11 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11)
    }
}

/// The tuples of the n-th values of the 12 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12)
    }
}

/// The tuples of the n-th values of the 13 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13)
    }
}

/// The tuples of the n-th values of the 14 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14)
    }
}

/// The tuples of the n-th values of the 15 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15)
    }
}

/// The tuples of the n-th values of the 16 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16)
    }
}

/// The tuples of the n-th values of the 17 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17)
    }
}

/// The tuples of the n-th values of the 18 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18)
    }
}

/// The tuples of the n-th values of the 19 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19)
    }
}

/// The tuples of the n-th values of the 20 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }, s20 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20)
    }
}

/// The tuples of the n-th values of the 21 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }, s20 |> map { $0 as Any }, s21 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21)
    }
}

/// The tuples of the n-th values of the 22 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }, s20 |> map { $0 as Any }, s21 |> map { $0 as Any }, s22 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22)
    }
}

/// The tuples of the n-th values of the 23 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }, s20 |> map { $0 as Any }, s21 |> map { $0 as Any }, s22 |> map { $0 as Any }, s23 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23)
    }
}

/// The tuples of the n-th values of the 24 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>, _ s24: Signal<T24, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }, s20 |> map { $0 as Any }, s21 |> map { $0 as Any }, s22 |> map { $0 as Any }, s23 |> map { $0 as Any }, s24 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23, values[23] as! T24)
    }
}

/// The tuples of the n-th values of the 25 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>, _ s24: Signal<T24, E>, _ s25: Signal<T25, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }, s20 |> map { $0 as Any }, s21 |> map { $0 as Any }, s22 |> map { $0 as Any }, s23 |> map { $0 as Any }, s24 |> map { $0 as Any }, s25 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23, values[23] as! T24, values[24] as! T25)
    }
}

/// The tuples of the n-th values of the 26 signals, in order. Completion,
/// errors and threading: as `zip(_:_:)`.
public func zip<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, T26, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ s3: Signal<T3, E>, _ s4: Signal<T4, E>, _ s5: Signal<T5, E>, _ s6: Signal<T6, E>, _ s7: Signal<T7, E>, _ s8: Signal<T8, E>, _ s9: Signal<T9, E>, _ s10: Signal<T10, E>, _ s11: Signal<T11, E>, _ s12: Signal<T12, E>, _ s13: Signal<T13, E>, _ s14: Signal<T14, E>, _ s15: Signal<T15, E>, _ s16: Signal<T16, E>, _ s17: Signal<T17, E>, _ s18: Signal<T18, E>, _ s19: Signal<T19, E>, _ s20: Signal<T20, E>, _ s21: Signal<T21, E>, _ s22: Signal<T22, E>, _ s23: Signal<T23, E>, _ s24: Signal<T24, E>, _ s25: Signal<T25, E>, _ s26: Signal<T26, E>) -> Signal<(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, T26), E> {
    return zip([s1 |> map { $0 as Any }, s2 |> map { $0 as Any }, s3 |> map { $0 as Any }, s4 |> map { $0 as Any }, s5 |> map { $0 as Any }, s6 |> map { $0 as Any }, s7 |> map { $0 as Any }, s8 |> map { $0 as Any }, s9 |> map { $0 as Any }, s10 |> map { $0 as Any }, s11 |> map { $0 as Any }, s12 |> map { $0 as Any }, s13 |> map { $0 as Any }, s14 |> map { $0 as Any }, s15 |> map { $0 as Any }, s16 |> map { $0 as Any }, s17 |> map { $0 as Any }, s18 |> map { $0 as Any }, s19 |> map { $0 as Any }, s20 |> map { $0 as Any }, s21 |> map { $0 as Any }, s22 |> map { $0 as Any }, s23 |> map { $0 as Any }, s24 |> map { $0 as Any }, s25 |> map { $0 as Any }, s26 |> map { $0 as Any }]) |> map { (values: [Any]) -> (T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, T26) in
        return (values[0] as! T1, values[1] as! T2, values[2] as! T3, values[3] as! T4, values[4] as! T5, values[5] as! T6, values[6] as! T7, values[7] as! T8, values[8] as! T9, values[9] as! T10, values[10] as! T11, values[11] as! T12, values[12] as! T13, values[13] as! T14, values[14] as! T15, values[15] as! T16, values[16] as! T17, values[17] as! T18, values[18] as! T19, values[19] as! T20, values[20] as! T21, values[21] as! T22, values[22] as! T23, values[23] as! T24, values[24] as! T25, values[25] as! T26)
    }
}
