//! Every Value type through the library and back, and what does not convert.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rsignalkit::{live_objects, AnyValue, Observer, Pipe, RawValue, Signal, Value};

fn round_trip<T: Value + Clone + PartialEq + std::fmt::Debug>(value: T) {
    let mut got = Vec::new();
    Signal::single(value.clone()).for_each_blocking(|v| got.push(v)).unwrap();
    assert_eq!(got, vec![value]);
}

#[test]
fn every_value_type_survives_a_trip_through_a_signal() {
    let _serial = common::serial();
    round_trip(-7i64);
    round_trip(i64::MIN);
    round_trip(2.5f64);
    round_trip(true);
    round_trip(());
    round_trip(String::from("grüße\0with a NUL"));
    round_trip(vec![0u8, 255, 7]);
    round_trip(Vec::<u8>::new());
    round_trip(vec![vec![1i64, 2], vec![], vec![3]]);
    round_trip((1i64, String::from("one")));
    round_trip(Some(3i64));
    round_trip(None::<i64>);
    round_trip(-5i32);
    round_trip(AnyValue::Array(vec![AnyValue::Nil, AnyValue::Bool(false), AnyValue::Double(1.5), AnyValue::Bytes(vec![1])]));
    assert_eq!(live_objects(), 0);
}

#[test]
fn an_arc_travels_by_pointer_and_its_drop_is_the_release() {
    let _serial = common::serial();
    let drops = Arc::new(AtomicUsize::new(0));
    {
        let pipe = Pipe::<Arc<common::Counted>>::with_replay().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = seen.clone();
        let _s = pipe.signal().subscribe(move |v: Arc<common::Counted>| into.lock().unwrap().push(v)).unwrap();
        let value = Arc::new(common::Counted(drops.clone()));
        pipe.put(value.clone()).unwrap();
        assert!(Arc::ptr_eq(&seen.lock().unwrap()[0], &value), "the subscriber receives the same object");
        drop(value);
        seen.lock().unwrap().clear();
        assert_eq!(drops.load(Ordering::SeqCst), 0, "the pipe's replay keeps it");
    }
    assert_eq!(drops.load(Ordering::SeqCst), 1, "dropped once, when the pipe let go of it");
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_value_of_another_kind_ends_the_subscription_with_a_failure() {
    let _serial = common::serial();
    let errors = Arc::new(Mutex::new(Vec::new()));
    let (into, nexts) = (errors.clone(), Arc::new(AtomicUsize::new(0)));
    let counted = nexts.clone();
    let strings: Signal<String> = Signal::single(String::from("x"));
    let as_ints: Signal<i64> = strings.cast();
    let _s = as_ints
        .start(
            Observer::new()
                .next(move |_| {
                    counted.fetch_add(1, Ordering::SeqCst);
                })
                .error(move |e| into.lock().unwrap().push(e)),
        )
        .unwrap();
    assert_eq!(nexts.load(Ordering::SeqCst), 0);
    assert_eq!(*errors.lock().unwrap(), vec![AnyValue::Failure("signalkit: expected an int64, received a string".into())]);
    let narrow: Signal<i32> = Signal::single(1i64 << 40).cast();
    let err = narrow.for_each_blocking(|_| ()).unwrap_err();
    assert_eq!(err, AnyValue::Failure("signalkit: the int64 1099511627776 is outside the range of i32".into()));
}

#[test]
fn an_error_value_reaches_the_error_closure_as_any_value() {
    let _serial = common::serial();
    let err = Signal::<i64>::fail(String::from("boom")).for_each_blocking(|_| ()).unwrap_err();
    assert_eq!(err, AnyValue::String("boom".into()));
    let caught = Signal::<i64>::fail(42i64).catch(|e| Signal::single(if e == AnyValue::Int(42) { 1 } else { 0 }));
    let mut got = Vec::new();
    caught.for_each_blocking(|v| got.push(v)).unwrap();
    assert_eq!(got, vec![1]);
    assert!(live_objects() > 0);
    drop(caught);
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_library_error_carries_its_status_and_message() {
    let error = rsignalkit::Queue::concurrent(0, "q").expect_err("0 workers is refused");
    assert_eq!(error.status(), rsignalkit::sys::SK_ERR_INVALID_ARGUMENT);
    assert!(error.message().contains("max_workers is 0"), "{}", error.message());
    assert_eq!(error.status_string(), "invalid argument");
    let error = rsignalkit::Queue::serial("a\0b").expect_err("a NUL in a name");
    assert!(error.to_string().contains("NUL"), "{}", error);
}

#[test]
fn an_operator_the_library_refuses_gives_a_failing_signal_with_its_message() {
    let _serial = common::serial();
    let mut signal = Signal::single(1i64);
    for _ in 0..600 {
        signal = signal.take(1);
    }
    let err = signal.for_each_blocking(|_| ()).unwrap_err();
    match err {
        AnyValue::String(message) => assert!(message.contains("SK_SIGNAL_MAX_DEPTH"), "{}", message),
        other => panic!("{:?}", other),
    }
    drop(signal);
    assert_eq!(live_objects(), 0);
}

/// An error event read as a message, and `?` from an error event into a
/// `Box<dyn Error>` (AnyValue had neither Display nor Error: every program
/// had to unwrap or format it with `{:?}`).
#[test]
fn an_error_event_is_an_error_that_question_mark_takes() {
    let _serial = common::serial();
    fn run(signal: &Signal<i64>) -> Result<(), Box<dyn std::error::Error>> {
        signal.for_each_blocking(|_| ())?;
        Ok(())
    }
    let error = run(&Signal::fail(String::from("the disk is full"))).unwrap_err();
    assert_eq!(error.to_string(), "the disk is full");
    let cases = [
        (AnyValue::Nil, "nil"),
        (AnyValue::Bool(true), "true"),
        (AnyValue::Int(-3), "-3"),
        (AnyValue::Double(2.5), "2.5"),
        (AnyValue::Bytes(vec![1, 2, 3]), "3 bytes"),
        (AnyValue::Array(vec![AnyValue::Int(1), AnyValue::from("a")]), "[1, a]"),
        (AnyValue::Failure("panicked: boom".into()), "panicked: boom"),
    ];
    for (value, text) in cases {
        assert_eq!(value.to_string(), text);
    }
    assert!(run(&Signal::single(1)).is_ok());
}

/// Every public type formats with `{:?}`, so that a program's own types
/// holding them derive Debug (twelve of them had no Debug).
#[test]
fn every_public_type_is_debug() {
    let _serial = common::serial();
    fn shown<T: std::fmt::Debug>(value: &T) -> String {
        format!("{:?}", value)
    }
    let pipe = Pipe::<i64>::new().unwrap();
    let subscription = pipe.signal().subscribe(|_| ()).unwrap();
    let queue = rsignalkit::Queue::host("debug").unwrap();
    let disposable = rsignalkit::Disposable::action(|| ()).unwrap();
    let mut stream = pipe.signal().into_stream_bounded(1, rsignalkit::Overflow::DropNewest).unwrap();
    let room = stream.room();
    let scheduler = rsignalkit::testing::TestScheduler::new().unwrap();
    let (_cold, log) = scheduler.cold("a|", &[('a', 1i64)], &String::from("e")).unwrap();
    #[derive(Debug)]
    #[allow(dead_code)] // read through Debug only
    struct Holder {
        pipe: Pipe<i64>,
        promise: rsignalkit::Promise<i64>,
        value_promise: rsignalkit::ValuePromise<i64>,
        observer: Observer<i64>,
    }
    let holder = Holder {
        pipe: pipe.clone(),
        promise: rsignalkit::Promise::new().unwrap(),
        value_promise: rsignalkit::ValuePromise::new(Some(1), false).unwrap(),
        observer: Observer::new().next(|_: i64| ()),
    };
    let texts = [
        shown(&holder),
        shown(&subscription),
        shown(&queue),
        shown(&disposable),
        shown(&room),
        shown(&room.ready()),
        shown(&stream.next()),
        shown(&scheduler),
        shown(&log),
    ];
    assert!(texts[0].starts_with("Holder { pipe: Pipe(0x") && texts[0].contains("observer: Observer { next: true, error: false"), "{}", texts[0]);
    for (text, start) in texts[1..].iter().zip(["Subscription", "Queue(", "Disposable(", "Room", "Ready", "Next", "TestScheduler", "SubscriptionLog("]) {
        assert!(text.starts_with(start), "{} does not start with {}", text, start);
    }
    drop(stream);
    drop(subscription);
}

/// `levels` arrays, one inside the other, around a number.
fn nested(levels: usize) -> AnyValue {
    let mut value = AnyValue::Int(1);
    for _ in 0..levels {
        value = AnyValue::Array(vec![value]);
    }
    value
}

/// Takes `value` apart one level at a time (a derived drop of a value
/// nested thousands deep recurses as deep).
fn dismantle(mut value: AnyValue) {
    while let AnyValue::Array(mut items) = value {
        value = items.pop().unwrap_or(AnyValue::Nil);
    }
}

/// Runs `f` on a thread of 256 KiB and waits for it (a conversion that
/// walks a value as deep as it is overflows such a stack, where one
/// bounded by `SK_VALUE_MAX_DEPTH` does not).
fn on_a_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(256 << 10).spawn(f).unwrap().join().unwrap();
}

#[test]
fn an_any_value_nested_past_the_limit_is_refused_without_walking_it() {
    let _serial = common::serial();
    // On a thread of 256 KiB: a conversion that walked 20,000 levels before
    // the library's check overflowed even 8 MiB (a debug build: 10,000).
    on_a_small_stack(|| {
        let at_limit = nested(rsignalkit::sys::SK_VALUE_MAX_DEPTH as usize);
        assert!(at_limit.to_value().is_ok());
        dismantle(at_limit);
        for levels in [rsignalkit::sys::SK_VALUE_MAX_DEPTH as usize + 1, 20_000] {
            let deep = nested(levels);
            let error = deep.to_value().expect_err("a value nested past the limit converted");
            assert_eq!(error.status(), rsignalkit::sys::SK_ERR_INVALID_ARGUMENT, "{}", error);
            assert!(error.message().contains("SK_VALUE_MAX_DEPTH"), "{}", error);
            dismantle(deep);
        }
        let pipe = Pipe::<AnyValue>::new().unwrap();
        let refused = pipe.put(nested(rsignalkit::sys::SK_VALUE_MAX_DEPTH as usize + 1)).err();
        assert_eq!(refused.map(|e| e.status()), Some(rsignalkit::sys::SK_ERR_INVALID_ARGUMENT));
    });
    assert_eq!(live_objects(), 0);
}

/// A C value nested `levels` arrays deep, made as the library lets a
/// program make one: each array `buffer_count(1)` emits is put back into
/// its pipe, one level deeper than the last (operators' arrays are
/// unchecked).
fn deep_library_value(levels: usize) -> RawValue {
    let pipe = Pipe::<RawValue>::new().unwrap();
    let last = Arc::new(Mutex::new(None::<RawValue>));
    let keep = last.clone();
    let subscription = pipe.signal().buffer_count(1).cast::<RawValue>().subscribe(move |array| *keep.lock().unwrap() = Some(array)).unwrap();
    pipe.put(RawValue::int64(1)).unwrap();
    for _ in 1..levels {
        let value = last.lock().unwrap().take().unwrap();
        pipe.put(value).unwrap();
    }
    drop(subscription);
    let value = last.lock().unwrap().take().unwrap();
    value
}

#[test]
fn a_library_value_nested_past_the_limit_reads_as_a_failure_without_walking_it() {
    let _serial = common::serial();
    // On a thread of 256 KiB: reading 20,000 levels as AnyValue overflowed
    // the stack before it was bounded.
    on_a_small_stack(|| {
        let limit = rsignalkit::sys::SK_VALUE_MAX_DEPTH as usize;
        for levels in [limit, limit + 1, 20_000] {
            let value = deep_library_value(levels);
            let read = AnyValue::from_value(value.as_ref());
            if levels <= limit {
                let mut depth = 0;
                let mut item = &read;
                while let AnyValue::Array(items) = item {
                    depth += 1;
                    item = &items[0];
                }
                assert_eq!(item, &AnyValue::Int(1));
                assert_eq!(depth, levels, "{} levels read as {} arrays", levels, depth);
            } else {
                match &read {
                    AnyValue::Failure(message) => assert!(message.contains("SK_VALUE_MAX_DEPTH"), "{}", message),
                    other => panic!("{} levels read as {:?}", levels, std::mem::discriminant(other)),
                }
                // The same through a subscription: its failure.
                let pipe = Pipe::<RawValue>::new().unwrap();
                let ended = Arc::new(Mutex::new(None::<String>));
                let end = ended.clone();
                let _subscription = pipe
                    .signal()
                    .cast::<AnyValue>()
                    .start(
                        Observer::new()
                            .next(|_: AnyValue| panic!("a value nested past the limit was delivered"))
                            .error(move |e: AnyValue| *end.lock().unwrap() = Some(format!("{:?}", e))),
                    )
                    .unwrap();
                pipe.put(value.clone()).unwrap();
                let ended = ended.lock().unwrap().take().expect("no failure");
                assert!(ended.contains("SK_VALUE_MAX_DEPTH"), "{}", ended);
            }
            dismantle(read);
        }
    });
    assert_eq!(live_objects(), 0);
}
