// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
// tools/api/operators.md (`make api-update`). The marble table's operators
// whose C function has a standard shape, each a call of the crate's method
// (the table's Rust column) read from its shape; marbles.rs includes it and
// expands it in `apply`, which builds the others by hand.
macro_rules! standard_operator {
    ($name:expr, $signal:ident, $arg:ident, $count:ident, $named:ident, $all_named:ident, $frames:ident, $q:ident, $at:ident) => {
        match $name {
            "map" => Some({ let f = unary(&$arg(0)?, $at)?; $signal.map(move |v| AnyValue::Int(f(int(&v)))) }.cast::<AnyValue>()),
            "filter" => Some({ let f = predicate(&$arg(0)?, $at)?; $signal.filter(move |v| f(int(v))) }.cast::<AnyValue>()),
            "distinctUntilChanged" => Some($signal.distinct_until_changed().cast::<AnyValue>()),
            "beforeNext" => Some({ let f = look(&$arg, $at)?; $signal.before_next(move |v| f(v)) }.cast::<AnyValue>()),
            "take" => Some($signal.take(usize::try_from($count(0)?).unwrap_or(usize::MAX)).cast::<AnyValue>()),
            "takeUntil" => Some($signal.take_until_signal(&$named(&$arg(0)?)?).cast::<AnyValue>()),
            "skip" => Some($signal.skip(usize::try_from($count(0)?).unwrap_or(usize::MAX)).cast::<AnyValue>()),
            "skipWhile" => Some({ let f = predicate(&$arg(0)?, $at)?; $signal.skip_while(move |v| f(int(v))) }.cast::<AnyValue>()),
            "first" => Some($signal.first().cast::<AnyValue>()),
            "firstWhere" => Some({ let f = predicate(&$arg(0)?, $at)?; $signal.first_where(move |v| f(int(v))) }.cast::<AnyValue>()),
            "elementAt" => Some($signal.element_at(usize::try_from($count(0)?).unwrap_or(usize::MAX)).cast::<AnyValue>()),
            "defaultIfEmpty" => Some($signal.default_if_empty(value_of(&$arg(0)?)?).cast::<AnyValue>()),
            "last" => Some($signal.last().cast::<AnyValue>()),
            "withLatestFrom" => Some($signal.with_latest_from(&$named(&$arg(0)?)?).cast::<AnyValue>()),
            "merge" => Some(Signal::merge(&$all_named()?).cast::<AnyValue>()),
            "concat" => Some(Signal::concat(&$all_named()?).cast::<AnyValue>()),
            "then" => Some($signal.then(&$named(&$arg(0)?)?).cast::<AnyValue>()),
            "startWith" => Some($signal.start_with(value_of(&$arg(0)?)?).cast::<AnyValue>()),
            "ignoreValues" => Some($signal.ignore_values().cast::<AnyValue>()),
            "share" => Some($signal.share().cast::<AnyValue>()),
            "replay" => Some($signal.replay(usize::try_from($count(0)?).unwrap_or(usize::MAX)).cast::<AnyValue>()),
            "restart" => Some($signal.restart().cast::<AnyValue>()),
            "restartIfError" => Some($signal.restart_if_error().cast::<AnyValue>()),
            "reduce" => Some({ let f = binary(&$arg(0)?, $at)?; $signal.reduce(AnyValue::Int($count(1)?), move |a: AnyValue, x: AnyValue| AnyValue::Int(f(int(&a), int(&x)))) }.cast::<AnyValue>()),
            "scan" => Some({ let f = binary(&$arg(0)?, $at)?; $signal.scan(AnyValue::Int($count(1)?), move |a: AnyValue, x: AnyValue| AnyValue::Int(f(int(&a), int(&x)))) }.cast::<AnyValue>()),
            "pairwise" => Some($signal.pairwise().cast::<AnyValue>()),
            "afterNext" => Some({ let f = look(&$arg, $at)?; $signal.after_next(move |v| f(v)) }.cast::<AnyValue>()),
            "beforeStarted" => Some({ let f = work(&$arg, $at)?; $signal.before_started(move || f()) }.cast::<AnyValue>()),
            "beforeCompleted" => Some({ let f = work(&$arg, $at)?; $signal.before_completed(move || f()) }.cast::<AnyValue>()),
            "afterCompleted" => Some({ let f = work(&$arg, $at)?; $signal.after_completed(move || f()) }.cast::<AnyValue>()),
            "afterDisposed" => Some({ let f = work(&$arg, $at)?; $signal.after_disposed(move || f()) }.cast::<AnyValue>()),
            "deliverOn" => Some($signal.deliver_on($q).cast::<AnyValue>()),
            "runOn" => Some($signal.run_on($q).cast::<AnyValue>()),
            "delay" => Some($signal.delay($frames(0)?, $q).cast::<AnyValue>()),
            "debounce" => Some($signal.debounce($frames(0)?, $q).cast::<AnyValue>()),
            "throttle" => Some($signal.throttle($frames(0)?, $q).cast::<AnyValue>()),
            "bufferCount" => Some($signal.buffer_count(usize::try_from($count(0)?).unwrap_or(usize::MAX)).cast::<AnyValue>()),
            "bufferTime" => Some($signal.buffer_time($frames(0)?, $q).cast::<AnyValue>()),
            "sample" => Some($signal.sample(&$named(&$arg(0)?)?).cast::<AnyValue>()),
            "sampleTime" => Some($signal.sample_period($frames(0)?, $q).cast::<AnyValue>()),
            _ => None,
        }
    };
}
