//! A panic in a closure never unwinds into C: it becomes the subscription's
//! error where the C callback can carry one, and goes to the failure hook
//! where it cannot.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use signalkit::{live_objects, set_failure_hook, AnyValue, Observer, Pipe, Signal, Subscriber};

fn failure_of<T: signalkit::Value>(signal: &Signal<T>) -> String {
    match signal.for_each_blocking(|_| ()) {
        Err(AnyValue::Failure(message)) => message,
        other => panic!("expected a failure, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_panic_in_map_scan_or_a_generator_is_the_subscriptions_error() {
    let _serial = common::serial();
    let source = Signal::concat(&[Signal::single(1i64), Signal::single(2)]);
    assert_eq!(failure_of(&source.map(|x| if x == 2 { panic!("map saw {}", x) } else { x })), "panicked: map saw 2");
    assert_eq!(failure_of(&source.scan(0i64, |_, _| panic!("scan"))), "panicked: scan");
    // A failure goes on through later stages untouched: no closure after it runs.
    let after = Arc::new(AtomicUsize::new(0));
    let count = after.clone();
    let chain = source.map(|_: i64| -> i64 { panic!("first") }).map(move |x| {
        count.fetch_add(1, Ordering::SeqCst);
        x
    });
    assert_eq!(failure_of(&chain), "panicked: first");
    assert_eq!(after.load(Ordering::SeqCst), 0);
    let generator = Signal::<i64>::create(|_: Subscriber<i64>| panic!("generator"));
    assert_eq!(failure_of(&generator), "panicked: generator");
    let inner = source.map_to_signal(|_| -> Signal<i64> { panic!("inner") });
    assert_eq!(failure_of(&inner), "panicked: inner");
    drop((source, chain, generator, inner));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_panic_in_next_ends_the_subscription_with_an_error() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let (seen, errors) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())));
    let (s, e) = (seen.clone(), errors.clone());
    let _sub = pipe
        .signal()
        .start(
            Observer::new()
                .next(move |v| {
                    s.lock().unwrap().push(v);
                    if v == 2 {
                        panic!("next got two")
                    }
                })
                .error(move |error| e.lock().unwrap().push(error)),
        )
        .unwrap();
    for v in 1..=3 {
        pipe.put(v).unwrap();
    }
    assert_eq!(*seen.lock().unwrap(), vec![1, 2], "nothing after the panic");
    assert_eq!(*errors.lock().unwrap(), vec![AnyValue::Failure("panicked: next got two".into())]);
}

#[test]
fn a_panic_in_a_predicate_is_the_subscriptions_error_and_in_a_side_effect_goes_to_the_hook() {
    let _serial = common::serial();
    let reports = Arc::new(Mutex::new(Vec::new()));
    let into = reports.clone();
    set_failure_hook(Some(Box::new(move |place, message| into.lock().unwrap().push(format!("{}: {}", place, message)))));
    let source = Signal::concat(&[Signal::single(1i64), Signal::single(2), Signal::single(3)]);
    let mut got = Vec::new();
    let ended = source.filter(|x| if *x == 2 { panic!("filter") } else { true }).for_each_blocking(|v| got.push(v));
    assert_eq!(ended, Err(AnyValue::Failure("panicked: filter".into())));
    assert_eq!(got, vec![1], "nothing after the panic");
    assert_eq!(failure_of(&source.take_while(false, |x| if *x == 2 { panic!("while") } else { true })), "panicked: while");
    assert_eq!(
        failure_of(&source.take_until(|x| if *x == 3 { panic!("until") } else { signalkit::TakeAction::PASS })),
        "panicked: until"
    );
    source.before_next(|x| if *x == 3 { panic!("tap") }).for_each_blocking(|_| ()).unwrap();
    set_failure_hook(None);
    assert_eq!(*reports.lock().unwrap(), vec!["side effect: panicked: tap".to_string()]);
}
