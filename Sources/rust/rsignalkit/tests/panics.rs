//! One failure rule (issue 51): a panic in an operator's closure never
//! unwinds into C and never travels downstream as a value; it fails the
//! call through `sk_callback_fail`, so the stream ends with the error
//! "panicked: MESSAGE", its upstream disposed, and nothing after it
//! (group_by's groups delivered before it end with it too). A callback that
//! cannot fail in C (a side effect, `on_drop`) gives its panic to the
//! failure hook, under its kind. A caught panic is quiet.
//!
//! Every test holds `common::serial()`: the failure hook is the process's.
mod common;

use std::fmt::Debug;
use std::io::Write;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rsignalkit::{
    live_objects, set_failure_hook, AnyValue, Disposable, Error, Observer, Overflow, Pipe, RawValue, Signal, Subscriber, Subscription, TakeAction,
    Value, ValueRef,
};

type Log = Arc<Mutex<Vec<String>>>;

/// Starts `signal`, logging each event as text: `next V`, `error E`,
/// `completed`.
fn observe<T: Value + Debug>(signal: &Signal<T>) -> (Subscription, Log) {
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let (n, e, c) = (Arc::clone(&log), Arc::clone(&log), Arc::clone(&log));
    let subscription = signal
        .start(
            Observer::new()
                .next(move |v: T| n.lock().unwrap().push(format!("next {:?}", v)))
                .error(move |error: AnyValue| e.lock().unwrap().push(format!("error {:?}", error)))
                .completed(move || c.lock().unwrap().push("completed".to_owned())),
        )
        .unwrap();
    (subscription, log)
}

/// The hook's reports, as `where: message`, while `body` runs.
fn reports_during(body: impl FnOnce()) -> Vec<String> {
    let reports: Log = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&reports);
    set_failure_hook(Some(Box::new(move |place, message| into.lock().unwrap().push(format!("{}: {}", place, message)))));
    body();
    set_failure_hook(None);
    let reports = reports.lock().unwrap().clone();
    reports
}

/// A pipe, and its values through a map that panics at 2 ("map refused
/// 2"); `disposed` is set when the subscription to the pipe is disposed.
fn failing_map(disposed: &Arc<AtomicBool>) -> (Pipe<i64>, Signal<i64>) {
    let pipe = Pipe::<i64>::new().unwrap();
    let flag = Arc::clone(disposed);
    let mapped = pipe
        .signal()
        .after_disposed(move || flag.store(true, Ordering::SeqCst))
        .map(|x: i64| if x == 2 { panic!("map refused {}", x) } else { x });
    (pipe, mapped)
}

/// Feeds 1, 2, 3 then the completion through `failing_map` and `then`;
/// the events of the result, and whether the pipe's subscription was
/// disposed before the subscription of the result was dropped.
fn through_failing_map<U: Value + Debug>(then: impl FnOnce(&Signal<i64>) -> Signal<U>) -> (Vec<String>, bool) {
    let disposed = Arc::new(AtomicBool::new(false));
    let (pipe, mapped) = failing_map(&disposed);
    let (subscription, log) = observe(&then(&mapped));
    for x in 1..=3 {
        pipe.put(x).unwrap();
    }
    pipe.complete().unwrap();
    let upstream_disposed = disposed.load(Ordering::SeqCst);
    drop(subscription);
    let events = log.lock().unwrap().clone();
    (events, upstream_disposed)
}

const MAP_ERROR: &str = "error String(\"panicked: map refused 2\")";

#[test]
fn a_panicking_map_ends_last_skip_element_at_and_ignore_values_with_its_error() {
    let _serial = common::serial();
    // Before: 3 and the completion (the failure value was a value like any
    // other); ignore_values completed.
    assert_eq!(through_failing_map(|s| s.last()), (vec![MAP_ERROR.to_owned()], true));
    assert_eq!(through_failing_map(|s| s.skip(2)), (vec![MAP_ERROR.to_owned()], true));
    assert_eq!(through_failing_map(|s| s.element_at(2)), (vec![MAP_ERROR.to_owned()], true));
    assert_eq!(through_failing_map(|s| s.ignore_values()), (vec![MAP_ERROR.to_owned()], true));
    assert_eq!(through_failing_map(|s| s.map(|x| x * 10)), (vec!["next 10".to_owned(), MAP_ERROR.to_owned()], true));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_panicking_map_ends_buffer_count_and_zip_with_its_own_message() {
    let _serial = common::serial();
    // Before: Failure("signalkit: expected an int64, received a pointer").
    assert_eq!(through_failing_map(|s| s.buffer_count(2)), (vec![MAP_ERROR.to_owned()], true));
    let other = Pipe::<i64>::new().unwrap();
    let (events, disposed) = through_failing_map(|s| {
        let zipped = s.zip_with(&other.signal());
        for x in [10, 20, 30] {
            other.put(x).unwrap(); // nobody listens yet: dropped
        }
        zipped
    });
    assert_eq!((events, disposed), (vec![MAP_ERROR.to_owned()], true));
    // With the other side's values waiting in the zip: the pair of 1, then
    // the error.
    let disposed = Arc::new(AtomicBool::new(false));
    let (pipe, mapped) = failing_map(&disposed);
    let (subscription, log) = observe(&mapped.zip_with(&other.signal()));
    for x in [10, 20, 30] {
        other.put(x).unwrap();
    }
    for x in 1..=3 {
        pipe.put(x).unwrap();
    }
    pipe.complete().unwrap();
    other.complete().unwrap();
    assert!(disposed.load(Ordering::SeqCst));
    drop(subscription);
    assert_eq!(*log.lock().unwrap(), vec!["next (1, 10)".to_owned(), MAP_ERROR.to_owned()]);
    drop((pipe, mapped, other));
    assert_eq!(live_objects(), 0);
}

/// A signal of `(key, group)` pairs started with each group observed from
/// the closure that receives it: the result's events (`next KEY`, `error
/// E`, `completed`) and, in arrival order, each group's subscription and
/// events.
type Groups = Arc<Mutex<Vec<(Subscription, Log)>>>;
fn observe_groups(grouped: &Signal<(i64, Signal<i64>)>) -> (Subscription, Log, Groups) {
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let groups: Groups = Arc::new(Mutex::new(Vec::new()));
    let (n, e, c, into) = (Arc::clone(&log), Arc::clone(&log), Arc::clone(&log), Arc::clone(&groups));
    let subscription = grouped
        .start(
            Observer::new()
                .next(move |(key, group): (i64, Signal<i64>)| {
                    n.lock().unwrap().push(format!("next {}", key));
                    into.lock().unwrap().push(observe(&group));
                })
                .error(move |error: AnyValue| e.lock().unwrap().push(format!("error {:?}", error)))
                .completed(move || c.lock().unwrap().push("completed".to_owned())),
        )
        .unwrap();
    (subscription, log, groups)
}

/// Each group's events, its subscription dropped.
fn group_events(groups: &Groups) -> Vec<Vec<String>> {
    let groups = std::mem::take(&mut *groups.lock().unwrap());
    groups
        .into_iter()
        .map(|(subscription, events)| {
            drop(subscription);
            let events = events.lock().unwrap().clone();
            events
        })
        .collect()
}

/// group_by's key function is an operator callback (`sk_map_fn` of
/// `sk_signal_group_by`, since the C core let it fail): a panic in it ends
/// the result and every group delivered before it with the error, the
/// upstream disposed, nothing after it, nothing for the failure hook
/// (before: the hook received "group_by key: panicked: key refused 3" and
/// the value's key was nil).
#[test]
fn a_panicking_group_by_key_ends_the_stream_with_its_error() {
    let _serial = common::serial();
    let disposed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&disposed);
    let pipe = Pipe::<i64>::new().unwrap();
    let grouped = pipe
        .signal()
        .after_disposed(move || flag.store(true, Ordering::SeqCst))
        .group_by(|x| if *x == 3 { panic!("key refused {}", x) } else { *x * 10 });
    let mut upstream_disposed = false;
    let mut log = Vec::new();
    let mut groups = Vec::new();
    let reports = reports_during(|| {
        let (subscription, events, observed) = observe_groups(&grouped);
        for x in 1..=3 {
            pipe.put(x).unwrap();
        }
        upstream_disposed = disposed.load(Ordering::SeqCst);
        pipe.put(4).unwrap();
        pipe.complete().unwrap();
        drop(subscription);
        log = events.lock().unwrap().clone();
        groups = group_events(&observed);
    });
    const KEY_ERROR: &str = "error String(\"panicked: key refused 3\")";
    assert_eq!(reports, Vec::<String>::new());
    assert!(upstream_disposed, "the upstream was not disposed by the failure");
    assert_eq!(log, vec!["next 10", "next 20", KEY_ERROR]);
    assert_eq!(groups, vec![vec!["next 1", KEY_ERROR], vec!["next 2", KEY_ERROR]]);
    drop((pipe, grouped));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_value_the_group_by_key_cannot_take_ends_the_stream_with_the_conversion_s_message() {
    let _serial = common::serial();
    // Before: the hook received the message, and the key was nil.
    let pipe = Pipe::<AnyValue>::new().unwrap();
    let grouped = pipe.signal().cast::<i64>().group_by(|x| *x);
    let mut log = Vec::new();
    let mut groups = Vec::new();
    let reports = reports_during(|| {
        let (subscription, events, observed) = observe_groups(&grouped);
        pipe.put(AnyValue::Int(1)).unwrap();
        pipe.put(AnyValue::String("x".into())).unwrap();
        pipe.put(AnyValue::Int(2)).unwrap();
        drop(subscription);
        log = events.lock().unwrap().clone();
        groups = group_events(&observed);
    });
    const CONVERSION_ERROR: &str = "error String(\"signalkit: expected an int64, received a string\")";
    assert_eq!(reports, Vec::<String>::new());
    assert_eq!(log, vec!["next 1", CONVERSION_ERROR]);
    assert_eq!(groups, vec![vec!["next 1", CONVERSION_ERROR]]);
    drop((pipe, grouped));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_panicking_map_before_group_by_ends_it() {
    let _serial = common::serial();
    // A failure upstream of group_by ends it (before: a group keyed by the
    // failure value).
    let (events, disposed) = through_failing_map(|s| s.group_by(|x| *x % 2).map(|(key, _group): (i64, Signal<i64>)| key));
    assert_eq!((events, disposed), (vec!["next 1".to_owned(), MAP_ERROR.to_owned()], true));
    assert_eq!(live_objects(), 0);
}

/// A pipe fed 1, 2, 3 then the completion through `then`: its events.
fn fed<U: Value + Debug>(then: impl FnOnce(&Signal<i64>) -> Signal<U>) -> Vec<String> {
    let pipe = Pipe::<i64>::new().unwrap();
    let (subscription, log) = observe(&then(&pipe.signal()));
    for x in 1..=3 {
        pipe.put(x).unwrap();
    }
    pipe.complete().unwrap();
    drop(subscription);
    let events = log.lock().unwrap().clone();
    events
}

fn refuses_two(x: &i64) -> bool {
    if *x == 2 {
        panic!("predicate refused 2")
    }
    true
}

const PREDICATE_ERROR: &str = "error String(\"panicked: predicate refused 2\")";

#[test]
fn a_panicking_predicate_ends_the_stream_after_what_came_before() {
    let _serial = common::serial();
    assert_eq!(fed(|s| s.filter(refuses_two)), vec!["next 1", PREDICATE_ERROR]);
    // skip_while drops 1 (true), then fails at 2: nothing delivered.
    assert_eq!(fed(|s| s.skip_while(refuses_two)), vec![PREDICATE_ERROR]);
    assert_eq!(fed(|s| s.take_while(false, refuses_two)), vec!["next 1", PREDICATE_ERROR]);
    assert_eq!(fed(|s| s.first_where(|x| !refuses_two(x))), vec![PREDICATE_ERROR]);
    assert_eq!(
        fed(|s| s.take_until(|x| if refuses_two(x) { TakeAction::Pass } else { TakeAction::Complete })),
        vec!["next 1", PREDICATE_ERROR]
    );
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_panic_in_a_fold_or_a_signal_function_ends_the_stream_with_its_error() {
    let _serial = common::serial();
    let fold = |sum: i64, x: i64| if x == 2 { panic!("fold refused 2") } else { sum + x };
    let fold_error = "error String(\"panicked: fold refused 2\")";
    assert_eq!(fed(|s| s.scan(0, fold)), vec!["next 1", fold_error]);
    assert_eq!(fed(|s| s.reduce(0, fold)), vec![fold_error]);
    let inner = |x: i64| if x == 2 { panic!("inner refused 2") } else { Signal::single(x) };
    let inner_error = "error String(\"panicked: inner refused 2\")";
    assert_eq!(fed(|s| s.map_to_signal(inner)), vec!["next 1", inner_error]);
    assert_eq!(fed(|s| s.merge_map(2, inner)), vec!["next 1", inner_error]);
    assert_eq!(fed(|s| s.merge_map_bounded(1, 4, Overflow::DropNewest, inner)), vec!["next 1", inner_error]);
    let caught = fed(|s| s.then(&Signal::fail(String::from("gone"))).catch(|_| -> Signal<i64> { panic!("catch refused") }));
    assert_eq!(caught, vec!["next 1", "next 2", "next 3", "error String(\"panicked: catch refused\")"]);
    let deferred = Signal::<i64>::deferred(|| panic!("deferred refused"));
    assert_eq!(deferred.for_each_blocking(|_| ()), Err(AnyValue::String("panicked: deferred refused".into())));
    let generator = Signal::<i64>::create(|_: Subscriber<i64>| panic!("generator refused"));
    assert_eq!(generator.for_each_blocking(|_| ()), Err(AnyValue::String("panicked: generator refused".into())));
    // No closure after the failing one runs.
    let after = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&after);
    let chain = Signal::single(1i64).map(|_: i64| -> i64 { panic!("first") }).map(move |x| {
        count.fetch_add(1, Ordering::SeqCst);
        x
    });
    assert_eq!(chain.for_each_blocking(|_| ()), Err(AnyValue::String("panicked: first".into())));
    assert_eq!(after.load(Ordering::SeqCst), 0);
    drop((deferred, generator, chain));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_panic_in_next_ends_the_subscription_with_a_failure() {
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

/// A pipe through `after_disposed` and a map that counts its calls:
/// (the pipe, the signal, whether the pipe's subscription was disposed, the
/// map's calls).
fn counted(pipe: &Pipe<i64>) -> (Signal<i64>, Arc<AtomicBool>, Arc<AtomicUsize>) {
    let (disposed, calls) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
    let (flag, count) = (Arc::clone(&disposed), Arc::clone(&calls));
    let signal = pipe.signal().after_disposed(move || flag.store(true, Ordering::SeqCst)).map(move |x: i64| {
        count.fetch_add(1, Ordering::SeqCst);
        x
    });
    (signal, disposed, calls)
}

// A failure of the observer's next closure ends the subscription as any end
// does: its upstream is disposed at once (docs/semantics.md). Before, only
// the observer's closures stopped: the upstream ran on (a map called for
// every later put) until the Subscription was dropped, and for ever when it
// was detached.
#[test]
fn a_failing_next_disposes_the_upstream_at_once() {
    let _serial = common::serial();
    for detach in [false, true] {
        // A panic.
        let pipe = Pipe::<i64>::new().unwrap();
        let (signal, disposed, calls) = counted(&pipe);
        let errors = Arc::new(Mutex::new(Vec::new()));
        let e = Arc::clone(&errors);
        let subscription = signal
            .start(Observer::new().next(|v: i64| if v == 2 { panic!("next got two") }).error(move |error| e.lock().unwrap().push(error)))
            .unwrap();
        drop(signal);
        let kept = if detach {
            subscription.detach();
            None
        } else {
            Some(subscription)
        };
        for v in 1..=5 {
            pipe.put(v).unwrap();
        }
        assert!(disposed.load(Ordering::SeqCst), "the upstream is disposed (detached: {})", detach);
        assert_eq!(calls.load(Ordering::SeqCst), 2, "the map stops at the failure (detached: {})", detach);
        assert_eq!(*errors.lock().unwrap(), vec![AnyValue::Failure("panicked: next got two".into())]);
        drop(kept);
        // A value of another type (through `cast`), with `subscribe`.
        let (signal, disposed, calls) = counted(&pipe);
        let strings = signal.map(|x: i64| if x == 3 { AnyValue::String("three".into()) } else { AnyValue::Int(x) }).cast::<i64>();
        let reports = reports_during(|| {
            let subscription = strings.subscribe(|_| ()).unwrap();
            if detach {
                subscription.detach();
            }
            for v in 1..=5 {
                pipe.put(v).unwrap();
            }
        });
        assert!(disposed.load(Ordering::SeqCst), "the upstream is disposed (detached: {})", detach);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        assert_eq!(reports, vec!["unhandled error: signalkit: expected an int64, received a string".to_owned()]);
        drop((pipe, signal, strings));
        assert_eq!(live_objects(), 0, "nothing kept (detached: {})", detach);
    }
}

// A failure during the start (a source that delivers at once and never
// ends): the start disposes the subscription once it has its disposable.
#[test]
fn a_next_failing_during_the_start_disposes_the_upstream() {
    let _serial = common::serial();
    let disposed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&disposed);
    let source = Signal::concat(&[Signal::single(1i64), Signal::never()]).after_disposed(move || flag.store(true, Ordering::SeqCst));
    let reports = reports_during(|| {
        let subscription = source.subscribe(|_| panic!("at once")).unwrap();
        assert!(disposed.load(Ordering::SeqCst), "disposed before the Subscription is dropped");
        drop(subscription);
    });
    assert_eq!(reports, vec!["unhandled error: panicked: at once".to_owned()]);
    drop(source);
    assert_eq!(live_objects(), 0);
}

// The observer's next closure fails through the C layer's one subscription
// rule (sk_signal_start_failable, issue 78): the crate calls
// sk_callback_fail, and the library ends the subscription (the error after
// the value calls in flight, then the upstream disposed).

/// What a failing observer saw ([`failing_observer`]): its events as text
/// (`next V`, `error E`, `completed`), the thread its error closure ran on,
/// and the drops of its three closures.
struct Watched {
    log: Log,
    error_thread: Arc<Mutex<Option<std::thread::ThreadId>>>,
    drops: Arc<AtomicUsize>,
}

impl Watched {
    fn events(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

/// An observer whose next closure logs the value, calls `hook` with it,
/// then panics at `at` ("next refused N"); each of its closures holds a
/// `common::Counted`.
fn failing_observer(at: i64, hook: impl Fn(i64) + Send + 'static) -> (Observer<i64>, Watched) {
    let watched =
        Watched { log: Arc::new(Mutex::new(Vec::new())), error_thread: Arc::new(Mutex::new(None)), drops: Arc::new(AtomicUsize::new(0)) };
    let (n, e, c, thread) = (Arc::clone(&watched.log), Arc::clone(&watched.log), Arc::clone(&watched.log), Arc::clone(&watched.error_thread));
    let (next_drop, error_drop, completed_drop) =
        (common::Counted(Arc::clone(&watched.drops)), common::Counted(Arc::clone(&watched.drops)), common::Counted(Arc::clone(&watched.drops)));
    let observer = Observer::new()
        .next(move |v: i64| {
            let _held = &next_drop;
            n.lock().unwrap().push(format!("next {}", v));
            hook(v);
            if v == at {
                panic!("next refused {}", v)
            }
        })
        .error(move |error: AnyValue| {
            let _held = &error_drop;
            *thread.lock().unwrap() = Some(std::thread::current().id());
            e.lock().unwrap().push(format!("error {:?}", error));
        })
        .completed(move || {
            let _held = &completed_drop;
            c.lock().unwrap().push("completed".to_owned());
        });
    (observer, watched)
}

/// The error event of `failing_observer(at, ..)`'s panic.
fn next_failure(at: i64) -> String {
    format!("error Failure(\"panicked: next refused {}\")", at)
}

/// A pipe's signal through `after_disposed`, which sets the flag returned.
fn watched_pipe(pipe: &Pipe<i64>) -> (Signal<i64>, Arc<AtomicBool>) {
    let disposed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&disposed);
    (pipe.signal().after_disposed(move || flag.store(true, Ordering::SeqCst)), disposed)
}

#[test]
fn a_panicking_next_ends_with_the_failure_disposes_the_upstream_and_drops_its_closures_once() {
    let _serial = common::serial();
    for detach in [false, true] {
        let pipe = Pipe::<i64>::new().unwrap();
        let (signal, disposed, calls) = counted(&pipe);
        let (observer, watched) = failing_observer(2, |_| ());
        let subscription = signal.start(observer).unwrap();
        let kept = if detach {
            subscription.detach();
            None
        } else {
            Some(subscription)
        };
        for v in 1..=4 {
            pipe.put(v).unwrap();
        }
        pipe.complete().unwrap();
        assert!(disposed.load(Ordering::SeqCst), "the upstream is disposed (detached: {})", detach);
        assert_eq!(calls.load(Ordering::SeqCst), 2, "no value passes the map after the failure (detached: {})", detach);
        assert_eq!(watched.events(), vec!["next 1".to_owned(), "next 2".to_owned(), next_failure(2)], "nothing after the error");
        assert_eq!(*watched.error_thread.lock().unwrap(), Some(std::thread::current().id()), "the error runs on the failing thread");
        drop(kept);
        drop((signal, pipe));
        assert_eq!(watched.drops.load(Ordering::SeqCst), 3, "each closure dropped once (detached: {})", detach);
        assert_eq!(live_objects(), 0);
    }
    // A generator that emits during the start: its disposable, returned
    // after the failure, is disposed once; its last value is not delivered.
    let disposes = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&disposes);
    let source = Signal::<i64>::create(move |subscriber| {
        for v in 1..=3 {
            subscriber.put_next(&v).unwrap();
        }
        let count = Arc::clone(&count);
        Some(Disposable::action(move || {
            count.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap())
    });
    let (observer, watched) = failing_observer(2, |_| ());
    let subscription = source.start(observer).unwrap();
    assert_eq!(disposes.load(Ordering::SeqCst), 1, "the generator's disposable is disposed by the failure");
    assert_eq!(watched.events(), vec!["next 1".to_owned(), "next 2".to_owned(), next_failure(2)]);
    drop(subscription);
    assert_eq!(disposes.load(Ordering::SeqCst), 1, "and only once");
    assert_eq!(watched.drops.load(Ordering::SeqCst), 3);
    drop(source);
    assert_eq!(live_objects(), 0);
}

/// A thread's value call is held inside a map (before the observer) when
/// the next closure panics on another thread's value: the error waits until
/// the held call has returned, then runs on its thread, and its value never
/// reaches the closure (as the C test
/// a_failable_observer_s_error_waits_for_the_calls_in_flight).
#[test]
fn a_panicking_next_s_error_waits_for_a_value_call_in_flight_on_another_thread() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let (source, disposed) = watched_pipe(&pipe);
    let (inside_sender, inside) = channel();
    let (go, go_receiver) = channel::<()>();
    let (inside_sender, go_receiver) = (Mutex::new(inside_sender), Mutex::new(go_receiver));
    let signal = source.map(move |v: i64| {
        if v == 1 {
            inside_sender.lock().unwrap().send(()).unwrap();
            go_receiver.lock().unwrap().recv_timeout(DEADLINE).expect("the test let the held call go");
        }
        v
    });
    let (observer, watched) = failing_observer(2, |_| ());
    let subscription = signal.start(observer).unwrap();
    let held = {
        let pipe = pipe.clone();
        std::thread::spawn(move || {
            pipe.put(1).unwrap();
            std::thread::current().id()
        })
    };
    inside.recv_timeout(DEADLINE).unwrap();
    pipe.put(2).unwrap(); // the next closure panics; the call of 1 is in flight
    pipe.put(3).unwrap(); // after the failure: no value call begins
    assert_eq!(watched.events(), vec!["next 2"], "the error came while a value call was in flight");
    assert!(!disposed.load(Ordering::SeqCst), "the upstream is disposed after the error, not before");
    go.send(()).unwrap();
    let held_thread = held.join().unwrap();
    assert_eq!(watched.events(), vec!["next 2".to_owned(), next_failure(2)], "the held value reached the closure after its failure");
    assert_eq!(*watched.error_thread.lock().unwrap(), Some(held_thread), "the error runs on the thread whose call returned last");
    assert!(disposed.load(Ordering::SeqCst), "the upstream is disposed");
    drop((subscription, signal, source, pipe));
    assert_eq!(watched.drops.load(Ordering::SeqCst), 3);
    assert_eq!(live_objects(), 0);
}

/// Rounds of `a_value_call_waiting_for_the_next_closure_when_it_panics_reaches_nothing`.
const ROUNDS: usize = 20;

/// A value call on another thread waits for the next closure (an FnMut
/// runs one call at a time) when that closure panics: it is a call in
/// flight, so the library delivers the error after it, and it must not
/// reach the closure after its failure (the crate's cell refuses values
/// then, and lets the end through). Whether it was parked for the closure
/// or came after the panic, what the observer sees is the same.
#[test]
fn a_value_call_waiting_for_the_next_closure_when_it_panics_reaches_nothing() {
    let _serial = common::serial();
    // Rounds: whether the second call is parked for the closure when it
    // panics depends on timing (both ways are checked).
    for _ in 0..ROUNDS {
        let pipe = Pipe::<i64>::new().unwrap();
        let (source, disposed) = watched_pipe(&pipe);
        let (reached_sender, reached) = channel();
        let reached_sender = Mutex::new(reached_sender);
        let signal = source.map(move |v: i64| {
            if v == 2 {
                reached_sender.lock().unwrap().send(()).unwrap();
            }
            v
        });
        let (inside_sender, inside) = channel();
        let (go, go_receiver) = channel::<()>();
        let (observer, watched) = failing_observer(1, move |v| {
            if v == 1 {
                inside_sender.send(()).unwrap();
                go_receiver.recv_timeout(DEADLINE).expect("the test let the closure go");
            }
        });
        let subscription = signal.start(observer).unwrap();
        let put = |v: i64| {
            let pipe = pipe.clone();
            std::thread::spawn(move || pipe.put(v).unwrap())
        };
        let first = put(1);
        inside.recv_timeout(DEADLINE).unwrap(); // 1 is inside the next closure
        let second = put(2);
        reached.recv_timeout(DEADLINE).unwrap(); // 2 is on its way to the closure
        go.send(()).unwrap(); // the closure panics with 1
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(watched.events(), vec!["next 1".to_owned(), next_failure(1)]);
        assert!(disposed.load(Ordering::SeqCst), "the upstream is disposed");
        drop((subscription, signal, source, pipe));
        assert_eq!(watched.drops.load(Ordering::SeqCst), 3);
        assert_eq!(live_objects(), 0);
    }
}

/// A dispose that comes before the failure wins, as in C (signalkit.h,
/// sk_callback_fail): a next closure that disposes its own subscription,
/// then panics, ends it as a dispose does, without the error (before the
/// C layer ended it, the crate delivered the failure all the same).
#[test]
fn a_next_closure_that_disposes_its_subscription_then_panics_ends_it_as_a_dispose() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let (signal, disposed) = watched_pipe(&pipe);
    let slot: Arc<Mutex<Option<Disposable>>> = Arc::new(Mutex::new(None));
    let own = Arc::clone(&slot);
    let (observer, watched) = failing_observer(2, move |v| {
        if v == 2 {
            own.lock().unwrap().as_ref().expect("the subscription's disposable").dispose();
        }
    });
    *slot.lock().unwrap() = signal.start(observer).unwrap().into_disposable();
    for v in 1..=3 {
        pipe.put(v).unwrap();
    }
    assert_eq!(watched.events(), vec!["next 1", "next 2"]);
    assert!(disposed.load(Ordering::SeqCst), "the upstream is disposed");
    drop((slot.lock().unwrap().take(), signal, pipe));
    assert_eq!(watched.drops.load(Ordering::SeqCst), 3);
    assert_eq!(live_objects(), 0);
}

/// A signal whose subscriber (that of its one start) is handed out, and
/// the count of disposes of the disposable its generator returns: puts
/// into that subscriber reach the observer at once, also from inside the
/// observer's own next closure, where the crate keeps them for after the
/// call (a pipe would queue those itself).
type Slot = Arc<Mutex<Option<Subscriber<i64>>>>;
fn handed_out() -> (Signal<i64>, Slot, Arc<AtomicUsize>) {
    let (slot, disposes): (Slot, _) = (Arc::new(Mutex::new(None)), Arc::new(AtomicUsize::new(0)));
    let (into, count) = (Arc::clone(&slot), Arc::clone(&disposes));
    let signal = Signal::<i64>::create(move |subscriber| {
        *into.lock().unwrap() = Some(subscriber);
        let count = Arc::clone(&count);
        Some(
            Disposable::action(move || {
                count.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap(),
        )
    });
    (signal, slot, disposes)
}

/// The subscriber in `slot`, cloned.
fn subscriber_in(slot: &Slot) -> Subscriber<i64> {
    slot.lock().unwrap().clone().expect("the signal was started")
}

/// The next closure puts into its own source: those values wait until it
/// returns (an FnMut is not re-entered). One of them panicking ends the
/// stream as any failure of the closure does (the library ends it: the
/// delivery runs inside the library's value call): the values kept after it
/// are dropped, the upstream is disposed, the error is the failure.
#[test]
fn a_panic_while_delivering_a_value_kept_for_after_the_call_ends_the_stream() {
    let _serial = common::serial();
    let (signal, slot, disposes) = handed_out();
    let into = Arc::clone(&slot);
    let (observer, watched) = failing_observer(2, move |v| {
        if v == 1 {
            let subscriber = subscriber_in(&into);
            subscriber.put_next(&2).unwrap(); // kept, delivered after this call: panics
            subscriber.put_next(&3).unwrap(); // kept, then dropped
        }
    });
    let subscription = signal.start(observer).unwrap();
    let subscriber = subscriber_in(&slot);
    subscriber.put_next(&1).unwrap();
    subscriber.put_next(&4).unwrap();
    subscriber.put_completion().unwrap();
    assert_eq!(watched.events(), vec!["next 1".to_owned(), "next 2".to_owned(), next_failure(2)]);
    assert_eq!(disposes.load(Ordering::SeqCst), 1, "the upstream is disposed");
    drop((subscription, signal, subscriber, slot.lock().unwrap().take()));
    assert_eq!(disposes.load(Ordering::SeqCst), 1);
    assert_eq!(watched.drops.load(Ordering::SeqCst), 3);
    assert_eq!(live_objects(), 0);
}

/// The next closure ends its own source (a completion, an error), which
/// waits until it returns (kept), then it, or a value kept before that end,
/// panics. The library's end came first, so the library would drop the
/// failure; the closures have not seen that end: they receive the failure
/// (from the crate), and nothing after it.
#[test]
fn a_panic_with_an_end_kept_for_after_the_call_ends_with_the_failure_not_that_end() {
    let _serial = common::serial();
    type Ending = fn(&Subscriber<i64>);
    let endings: [(&str, Ending); 2] =
        [("completion", |s| s.put_completion().unwrap()), ("error", |s| s.put_error(&String::from("gone")).unwrap())];
    for (name, end) in endings {
        for at in [1, 2] {
            let (signal, slot, disposes) = handed_out();
            let into = Arc::clone(&slot);
            let (observer, watched) = failing_observer(at, move |v| {
                if v == 1 {
                    let subscriber = subscriber_in(&into);
                    if at == 2 {
                        subscriber.put_next(&2).unwrap(); // kept, then panics
                    }
                    end(&subscriber); // kept
                }
            });
            let subscription = signal.start(observer).unwrap();
            let subscriber = subscriber_in(&slot);
            subscriber.put_next(&1).unwrap();
            subscriber.put_next(&3).unwrap();
            let mut expected: Vec<String> = (1..=at).map(|v| format!("next {}", v)).collect();
            expected.push(next_failure(at));
            assert_eq!(watched.events(), expected, "a kept {} before a panic at {}", name, at);
            assert_eq!(disposes.load(Ordering::SeqCst), 1, "the upstream is disposed by its end");
            drop((subscription, signal, subscriber, slot.lock().unwrap().take()));
            assert_eq!(watched.drops.load(Ordering::SeqCst), 3);
            assert_eq!(live_objects(), 0);
        }
    }
}

#[test]
fn a_panicking_side_effect_or_on_drop_reaches_the_hook_with_its_kind() {
    let _serial = common::serial();
    let source = Signal::concat(&[Signal::single(1i64), Signal::single(2)]);
    let mut results = Vec::new();
    let reports = reports_during(|| {
        results.push(source.before_next(|x| if *x == 2 { panic!("before {}", x) }).for_each_blocking(|_| ()));
        results.push(source.after_next(|x| if *x == 1 { panic!("after {}", x) }).for_each_blocking(|_| ()));
        results.push(source.before_started(|| panic!("starting")).for_each_blocking(|_| ()));
        results.push(source.before_completed(|| panic!("completing")).for_each_blocking(|_| ()));
        results.push(source.after_completed(|| panic!("completed")).for_each_blocking(|_| ()));
        results.push(source.after_disposed(|| panic!("disposed")).for_each_blocking(|_| ()));
    });
    assert_eq!(results, vec![Ok(()); 6], "a side effect's panic does not end the stream");
    assert_eq!(
        reports,
        vec![
            "before_next: panicked: before 2",
            "after_next: panicked: after 1",
            "before_started: panicked: starting",
            "before_completed: panicked: completing",
            "after_completed: panicked: completed",
            "after_disposed: panicked: disposed",
        ]
    );
    // A drop: values put from inside a delivery (into another pipe of the
    // merge) wait, and find the buffer full.
    let (pipe, other) = (Pipe::<i64>::new().unwrap(), Pipe::<i64>::new().unwrap());
    let into = other.clone();
    let reports = reports_during(|| {
        let merged = Signal::merge(&[pipe.signal(), other.signal()]);
        let bounded = merged.on_backpressure_buffer_with(1, Overflow::DropNewest, |x, _| panic!("dropped {}", x));
        let (subscription, log) = observe(&bounded.before_next(move |x| {
            if *x == 1 {
                into.put(2).unwrap(); // waits
                into.put(3).unwrap(); // dropped
            }
        }));
        pipe.put(1).unwrap();
        drop(subscription);
        assert_eq!(*log.lock().unwrap(), vec!["next 1", "next 2"]);
    });
    assert_eq!(reports, vec!["on_drop: panicked: dropped 3"]);
    // The bounded merge_map's on_drop, which shares its context with the
    // function: the same rule.
    let values = Pipe::<i64>::new().unwrap();
    let reports = reports_during(|| {
        let bounded = values.signal().merge_map_bounded_with(1, 1, Overflow::DropNewest, |_: i64| Signal::<i64>::never(),
                                                             |x, _| panic!("dropped {}", x));
        let (subscription, log) = observe(&bounded);
        for x in 1..=3 {
            values.put(x).unwrap(); // 1 runs, 2 waits, 3 is dropped
        }
        drop(subscription);
        assert!(log.lock().unwrap().is_empty());
    });
    assert_eq!(reports, vec!["on_drop: panicked: dropped 3"]);
    drop((source, pipe, other, values));
    assert_eq!(live_objects(), 0);
}

#[test]
fn an_error_no_closure_receives_goes_to_the_hook() {
    let _serial = common::serial();
    let mut seen = Vec::new();
    let reports = reports_during(|| {
        let into = Arc::new(Mutex::new(Vec::new()));
        let values = Arc::clone(&into);
        let _a = Signal::single(1i64).then(&Signal::fail(String::from("gone"))).subscribe(move |v| values.lock().unwrap().push(v)).unwrap();
        let _b = Signal::<i64>::fail(7i64).start(Observer::new().completed(|| ())).unwrap();
        let _c = Signal::single(2i64).map(|_: i64| -> i64 { panic!("mapped") }).subscribe(|_| ()).unwrap();
        let _d = Signal::<i64>::complete().subscribe(|_| ()).unwrap(); // a completion is no failure
        seen = into.lock().unwrap().clone();
    });
    assert_eq!(seen, vec![1]);
    assert_eq!(reports, vec!["unhandled error: gone", "unhandled error: Int(7)", "unhandled error: panicked: mapped"]);
}

/// A type of one's own whose conversions panic: `from_value` at 2,
/// `to_value` at 99.
#[derive(Debug)]
struct Touchy(i64);

impl Value for Touchy {
    fn to_value(&self) -> Result<RawValue, Error> {
        if self.0 == 99 {
            panic!("to_value {}", self.0)
        }
        Ok(RawValue::int64(self.0))
    }
    fn from_value(value: ValueRef<'_>) -> Result<Touchy, Error> {
        match value.as_i64()? {
            2 => panic!("from_value 2"),
            n => Ok(Touchy(n)),
        }
    }
}

const FROM_VALUE_ERROR: &str = "error String(\"panicked: from_value 2\")";

// A panic in the conversion of a value of one's own is the panic of the
// closure that takes or gives the value: it ends the stream with
// "panicked: MESSAGE" (an operator's), ends the subscription with a
// Failure (the observer's), or goes to the failure hook (a side effect,
// on_drop). Before, it unwound into C: the process aborted ("panic in a
// function that cannot unwind").

#[test]
fn a_panicking_conversion_in_an_operator_s_callback_ends_the_stream_with_it() {
    let _serial = common::serial();
    let reports = reports_during(|| {
        // A map's input, its output, a predicate, take_until, a fold's
        // accumulator, group_by's key.
        assert_eq!(fed(|s| s.cast::<Touchy>().map(|t: Touchy| t.0)), vec!["next 1", FROM_VALUE_ERROR]);
        let to_99 = |x: i64| Touchy(if x == 2 { 99 } else { x });
        assert_eq!(fed(|s| s.map(to_99)), vec!["next Touchy(1)", "error String(\"panicked: to_value 99\")"]);
        assert_eq!(fed(|s| s.cast::<Touchy>().filter(|_| true).cast::<i64>()), vec!["next 1", FROM_VALUE_ERROR]);
        assert_eq!(fed(|s| s.cast::<Touchy>().take_until(|_| TakeAction::Pass).cast::<i64>()), vec!["next 1", FROM_VALUE_ERROR]);
        // The accumulator is 2 when 3 arrives.
        assert_eq!(fed(|s| s.scan(Touchy(0), |_, x: i64| Touchy(x)).cast::<i64>()), vec!["next 1", "next 2", FROM_VALUE_ERROR]);
        assert_eq!(
            fed(|s| s.group_by(move |x| to_99(*x)).cast::<(i64, Signal<i64>)>().map(|(key, _)| key)),
            vec!["next 1", "error String(\"panicked: to_value 99\")"]
        );
    });
    assert_eq!(reports, Vec::<String>::new());
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_panicking_conversion_for_the_observer_ends_the_subscription_with_a_failure() {
    let _serial = common::serial();
    let reports = reports_during(|| {
        assert_eq!(fed(|s| s.cast::<Touchy>()), vec!["next Touchy(1)", "error Failure(\"panicked: from_value 2\")"]);
    });
    assert_eq!(reports, Vec::<String>::new());
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_panicking_conversion_for_a_side_effect_or_on_drop_reaches_the_hook() {
    let _serial = common::serial();
    // A side effect: the hook, and the stream goes on.
    let reports = reports_during(|| {
        assert_eq!(fed(|s| s.cast::<Touchy>().before_next(|_| ()).cast::<i64>()), vec!["next 1", "next 2", "next 3", "completed"]);
    });
    assert_eq!(reports, vec!["before_next: panicked: from_value 2"]);
    // on_drop: values put from inside a delivery wait, then find the
    // buffer full (as in the test of a panicking on_drop).
    let (pipe, other) = (Pipe::<i64>::new().unwrap(), Pipe::<i64>::new().unwrap());
    let into = other.clone();
    let reports = reports_during(|| {
        let merged = Signal::merge(&[pipe.signal(), other.signal()]).cast::<Touchy>();
        let bounded = merged.on_backpressure_buffer_with(1, Overflow::DropNewest, |_: &Touchy, _| ()).cast::<i64>();
        let (subscription, log) = observe(&bounded.before_next(move |x| {
            if *x == 1 {
                into.put(3).unwrap(); // waits
                into.put(2).unwrap(); // dropped: its conversion for on_drop panics
            }
        }));
        pipe.put(1).unwrap();
        drop(subscription);
        assert_eq!(*log.lock().unwrap(), vec!["next 1", "next 3"]);
    });
    assert_eq!(reports, vec!["on_drop: panicked: from_value 2"]);
    drop((pipe, other));
    assert_eq!(live_objects(), 0);
}

/// How long a test waits for a call that returns at once unless it is
/// deadlocked (a deadline for the failure, never a sleep).
const DEADLINE: Duration = Duration::from_secs(20);

/// Runs `body` on a thread of its own and returns what it returns. A body
/// deadlocked on the failure hook's lock (beyond `DEADLINE`) would hang
/// every later test that sets the hook: the process exits, failing.
fn without_deadlock<R: Send + 'static>(what: &str, body: impl FnOnce() -> R + Send + 'static) -> R {
    let (done, finished) = channel();
    let runner = std::thread::spawn(move || {
        let result = body();
        let _ = done.send(());
        result
    });
    if let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(DEADLINE) {
        // Straight to standard error: the harness's capture of eprintln!
        // would die with the process.
        let _ = writeln!(std::io::stderr(), "{}: no return within {:?}: deadlocked", what, DEADLINE);
        std::process::exit(101);
    }
    runner.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The hook replaces itself: the next failure goes to the new hook (before:
/// set_failure_hook waited forever for the lock that the report calling the
/// hook held).
#[test]
fn the_failure_hook_can_replace_itself() {
    let _serial = common::serial();
    let reports: Log = Arc::new(Mutex::new(Vec::new()));
    let result = without_deadlock("set_failure_hook inside the hook", {
        let reports = Arc::clone(&reports);
        move || {
            let first = Arc::clone(&reports);
            set_failure_hook(Some(Box::new(move |place, message| {
                first.lock().unwrap().push(format!("first {}: {}", place, message));
                let second = Arc::clone(&first);
                set_failure_hook(Some(Box::new(move |place, message| {
                    second.lock().unwrap().push(format!("second {}: {}", place, message))
                })));
            })));
            let tapped = Signal::single(1i64).before_next(|_| panic!("a")).before_next(|_| panic!("b"));
            let result = tapped.for_each_blocking(|_| ());
            set_failure_hook(None);
            result
        }
    });
    assert_eq!(result, Ok(()));
    assert_eq!(*reports.lock().unwrap(), vec!["first before_next: panicked: a", "second before_next: panicked: b"]);
    assert_eq!(live_objects(), 0);
}

/// While the hook runs, another thread replaces it, then the hook causes a
/// failure of its own, which goes to the hook in place by then. Before,
/// the replacing thread waited for the hook to return (the report held
/// the lock), and the nested report queued behind it: a deadlock. The
/// hook waits for the other thread to have replaced it, so the order is
/// fixed, without timing.
#[test]
fn the_failure_hook_is_called_without_a_lock_held() {
    let _serial = common::serial();
    let reports: Log = Arc::new(Mutex::new(Vec::new()));
    let replaced_in_time = Arc::new(AtomicBool::new(false));
    without_deadlock("a report from inside the hook while another thread sets it", {
        let (reports, replaced_in_time) = (Arc::clone(&reports), Arc::clone(&replaced_in_time));
        move || {
            let outer = Arc::clone(&reports);
            set_failure_hook(Some(Box::new(move |place, message| {
                outer.lock().unwrap().push(format!("first {}: {}", place, message));
                if message != "panicked: outer" {
                    return;
                }
                let (done, replaced) = channel();
                let inner = Arc::clone(&outer);
                std::thread::spawn(move || {
                    set_failure_hook(Some(Box::new(move |place, message| {
                        inner.lock().unwrap().push(format!("second {}: {}", place, message))
                    })));
                    let _ = done.send(());
                });
                // Returns at once unless set_failure_hook waits for this
                // hook to return.
                replaced_in_time.store(replaced.recv_timeout(DEADLINE / 4).is_ok(), Ordering::SeqCst);
                let nested = Signal::single(1i64).before_next(|_| panic!("inner")).for_each_blocking(|_| ());
                assert_eq!(nested, Ok(()));
            })));
            let outer = Signal::single(1i64).before_next(|_| panic!("outer")).for_each_blocking(|_| ());
            set_failure_hook(None);
            assert_eq!(outer, Ok(()));
        }
    });
    assert!(replaced_in_time.load(Ordering::SeqCst), "set_failure_hook on another thread waited for the hook to return");
    assert_eq!(*reports.lock().unwrap(), vec!["first before_next: panicked: outer", "second before_next: panicked: inner"]);
    assert_eq!(live_objects(), 0);
}

/// The child process of `a_caught_panic_is_quiet_unless_asked`: does
/// nothing unless that test runs it.
#[test]
fn child_panics_in_callbacks() {
    if std::env::var_os("SIGNALKIT_TEST_PANIC_CHILD").is_none() {
        return;
    }
    let failing = Signal::single(2i64).map(|x: i64| -> i64 { panic!("quiet map {}", x) });
    assert_eq!(failing.for_each_blocking(|_| ()), Err(AnyValue::String("panicked: quiet map 2".into())));
    let filtered = Signal::single(2i64).filter(|_| panic!("quiet filter"));
    assert!(filtered.for_each_blocking(|_| ()).is_err());
    set_failure_hook(Some(Box::new(|_, _| ())));
    Signal::single(2i64).before_next(|_| panic!("quiet tap")).for_each_blocking(|_| ()).unwrap();
    set_failure_hook(None);
    // A panic outside any callback reaches the hook installed before.
    assert!(std::panic::catch_unwind(|| panic!("loud outside")).is_err());
}

/// The child process of `a_panicking_failure_hook_prints_the_failure`:
/// does nothing unless that test runs it.
#[test]
fn child_hook_panics() {
    if std::env::var_os("SIGNALKIT_TEST_PANIC_CHILD").is_none() {
        return;
    }
    set_failure_hook(Some(Box::new(|_, _| panic!("the hook broke"))));
    let tapped = Signal::single(1i64).before_next(|_| panic!("tap went wrong"));
    assert_eq!(tapped.for_each_blocking(|_| ()), Ok(()));
    set_failure_hook(None);
}

/// The standard error of the child process that runs the test `name` (its
/// body guarded by SIGNALKIT_TEST_PANIC_CHILD), which must succeed.
fn child_stderr(name: &str, log: bool) -> String {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", name, "--nocapture", "--test-threads=1"]);
    child.env("SIGNALKIT_TEST_PANIC_CHILD", "1").env_remove("SIGNALKIT_RUST_PANIC_LOG").env_remove("RUST_BACKTRACE");
    if log {
        child.env("SIGNALKIT_RUST_PANIC_LOG", "1");
    }
    let output = child.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "the child failed: {}\n{}", String::from_utf8_lossy(&output.stdout), stderr);
    stderr
}

#[test]
fn a_caught_panic_is_quiet_unless_asked() {
    let _serial = common::serial();
    let quiet = child_stderr("child_panics_in_callbacks", false);
    for text in ["quiet map", "quiet filter", "quiet tap"] {
        assert!(!quiet.contains(text), "{:?} printed:\n{}", text, quiet);
    }
    assert!(quiet.contains("loud outside"), "a panic outside the callbacks was silenced:\n{}", quiet);
    let logged = child_stderr("child_panics_in_callbacks", true);
    for text in ["quiet map 2", "quiet filter", "quiet tap", "loud outside"] {
        assert!(logged.contains(text), "{:?} not printed with SIGNALKIT_RUST_PANIC_LOG=1:\n{}", text, logged);
    }
}

/// A panic of the failure hook itself is caught, and the failure it was
/// given printed to standard error with it (before: both vanished).
#[test]
fn a_panicking_failure_hook_prints_the_failure() {
    let _serial = common::serial();
    let stderr = child_stderr("child_hook_panics", false);
    let expected = "signalkit: before_next: panicked: tap went wrong (the failure hook panicked: the hook broke)";
    assert!(stderr.contains(expected), "{:?} not printed:\n{}", expected, stderr);
}

/// A value whose drop panics.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("bomb in drop")
    }
}

// A closure whose drop panics reaches the hook with the panic's message
// (it came without it).
#[test]
fn a_panicking_drop_reaches_the_hook_with_its_message() {
    let _serial = common::serial();
    let reports = reports_during(|| {
        let bomb = Bomb;
        let signal = Signal::single(1i64).map(move |x: i64| {
            let _keep = &bomb;
            x
        });
        drop(signal);
    });
    assert_eq!(reports, vec!["release: the drop of a closure panicked: bomb in drop".to_owned()]);
    assert_eq!(live_objects(), 0);
}
