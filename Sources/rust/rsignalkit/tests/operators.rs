//! The operators, subjects, disposables and queue calls that the marble
//! table does not reach, each checked on what it delivers.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rsignalkit::testing::TestScheduler;
use rsignalkit::{
    live_objects, AnyValue, Disposable, Observer, Overflow, Pipe, Promise, Queue, Signal, TakeAction, ValuePromise,
};

fn values<T: rsignalkit::Value>(signal: &Signal<T>) -> Result<Vec<T>, AnyValue> {
    let mut got = Vec::new();
    signal.for_each_blocking(|v| got.push(v)).map(|_| got)
}

fn ints(items: &[i64]) -> Signal<i64> {
    Signal::concat(&items.iter().map(|i| Signal::single(*i)).collect::<Vec<_>>())
}

#[test]
fn take_until_last_ignore_then_start_with() {
    let _serial = common::serial();
    let s = ints(&[1, 2, 3, 4]);
    let until = s.take_until(|x| match *x {
        2 => TakeAction::Drop,
        3 => TakeAction::PassAndComplete,
        _ => TakeAction::Pass,
    });
    assert_eq!(values(&until), Ok(vec![1, 3]));
    let before_three = s.take_until(|x| if *x == 3 { TakeAction::Complete } else { TakeAction::Pass });
    assert_eq!(values(&before_three), Ok(vec![1, 2]));
    for action in [TakeAction::Pass, TakeAction::Drop, TakeAction::PassAndComplete, TakeAction::Complete] {
        assert_eq!(TakeAction::new(action.passes(), action.completes()), action);
    }
    assert_eq!(values(&s.last()), Ok(vec![Some(4)]));
    // An empty source: None, then the completion (it failed converting the nil to an i64).
    assert_eq!(values(&Signal::<i64>::complete().last()), Ok(vec![None]));
    assert_eq!(values(&s.ignore_values()), Ok(vec![]));
    assert_eq!(values(&s.take(1).then(&ints(&[9]))), Ok(vec![1, 9]));
    assert_eq!(values(&s.skip(3).start_with(0)), Ok(vec![0, 4]));
    assert_eq!(values(&Signal::<i64>::complete().default_if_empty(7)), Ok(vec![7]));
    drop((s, until, before_three));
    assert_eq!(live_objects(), 0);
}

#[test]
fn pairs_from_zip_combine_and_latest() {
    let _serial = common::serial();
    let a = ints(&[1, 2]);
    let b = Signal::concat(&[Signal::single(String::from("x")), Signal::single(String::from("y"))]);
    assert_eq!(values(&a.zip_with(&b)), Ok(vec![(1, "x".to_string()), (2, "y".to_string())]));
    assert_eq!(values(&a.combine_latest_with(&b)), Ok(vec![(2, "x".to_string()), (2, "y".to_string())]));
    assert_eq!(values(&a.pairwise()), Ok(vec![(1, 2)]));
    assert_eq!(values(&Signal::zip(&[a.clone(), a.map(|x| x * 10)])), Ok(vec![vec![1, 10], vec![2, 20]]));
    assert_eq!(values(&a.buffer_count(5)), Ok(vec![vec![1, 2]]));
    drop((a, b));
    assert_eq!(live_objects(), 0);
}

#[test]
fn signals_of_signals_and_deferred() {
    let _serial = common::serial();
    let inner = Signal::concat(&[Signal::single(ints(&[1, 2])), Signal::single(ints(&[3]))]);
    assert_eq!(values(&inner.queue()), Ok(vec![1, 2, 3]));
    assert_eq!(values(&inner.switch_to_latest()), Ok(vec![1, 2, 3]));
    assert_eq!(values(&inner.throttled()), Ok(vec![1, 2, 3]));
    let made = Arc::new(AtomicUsize::new(0));
    let count = made.clone();
    let deferred = Signal::deferred(move || Signal::single(count.fetch_add(1, Ordering::SeqCst) as i64));
    assert_eq!(values(&deferred), Ok(vec![0]));
    assert_eq!(values(&deferred), Ok(vec![1]));
    let groups = ints(&[1, 2, 3, 4]).group_by(|x| x % 2).merge_map(usize::MAX, |(key, group): (i64, Signal<i64>)| group.map(move |v| key * 100 + v));
    assert_eq!(values(&groups), Ok(vec![101, 2, 103, 4]));
    drop((inner, deferred, groups));
    assert_eq!(live_objects(), 0);
}

#[test]
fn restarts_retries_and_catch() {
    let _serial = common::serial();
    let starts = Arc::new(AtomicUsize::new(0));
    let count = starts.clone();
    let flaky = Signal::deferred(move || {
        if count.fetch_add(1, Ordering::SeqCst) < 2 {
            Signal::fail(String::from("flaky"))
        } else {
            Signal::single(5i64)
        }
    });
    assert_eq!(values(&flaky.restart_if_error()), Ok(vec![5]));
    starts.store(0, Ordering::SeqCst);
    assert_eq!(values(&flaky.retry_count(1, None)), Err(AnyValue::String("flaky".into())));
    assert_eq!(values(&ints(&[1]).restart().take(3)), Ok(vec![1, 1, 1]));
    let caught = Signal::<i64>::fail(String::from("e")).catch(|e| Signal::single(if e == AnyValue::from("e") { 1 } else { 0 }));
    assert_eq!(values(&caught), Ok(vec![1]));
    drop((flaky, caught));
    assert_eq!(live_objects(), 0);
}

#[test]
fn side_effects_run_in_their_places() {
    let _serial = common::serial();
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = |tag: &'static str| {
        let log = log.clone();
        move || log.lock().unwrap().push(tag.to_string())
    };
    let (a, b) = (log.clone(), log.clone());
    let s = ints(&[1])
        .before_started(l("before started"))
        .before_next(move |x| a.lock().unwrap().push(format!("before {}", x)))
        .after_next(move |x| b.lock().unwrap().push(format!("after {}", x)))
        .before_completed(l("before completed"))
        .after_completed(l("after completed"))
        .after_disposed(l("disposed"));
    let seen = log.clone();
    let subscription = s
        .start(Observer::new().next(move |x: i64| seen.lock().unwrap().push(format!("next {}", x))).completed({
            let log = log.clone();
            move || log.lock().unwrap().push("completed".into())
        }))
        .unwrap();
    drop(subscription);
    assert_eq!(
        *log.lock().unwrap(),
        vec!["before started", "before 1", "next 1", "after 1", "before completed", "completed", "after completed", "disposed"]
    );
    drop(s);
    assert_eq!(live_objects(), 0);
}

#[test]
fn timeout_retry_and_timers_on_virtual_time() {
    let _serial = common::serial();
    let scheduler = TestScheduler::new().unwrap();
    let q = scheduler.queue().clone();
    let (slow, _log) = scheduler.cold("-----1|", &[('1', 1i64)], &()).unwrap();
    let timed = slow.timeout(scheduler.frames(2), &q, &Signal::single(9));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (into, clock) = (seen.clone(), scheduler.clone());
    let sub = timed.subscribe(move |v| into.lock().unwrap().push((clock.frame_now(), v))).unwrap();
    let ticks = Arc::new(AtomicUsize::new(0));
    let count = ticks.clone();
    let timer = q.timer(scheduler.frames(3), true, move || {
        count.fetch_add(1, Ordering::SeqCst);
    });
    let timer = timer.unwrap();
    let after = Arc::new(AtomicUsize::new(0));
    let ran = after.clone();
    q.after(scheduler.frames(4), move || ran.store(4, Ordering::SeqCst)).unwrap();
    scheduler.advance_to_frame(10).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![(2, 9)]);
    assert_eq!(ticks.load(Ordering::SeqCst), 3, "at frames 3, 6, 9");
    assert_eq!(after.load(Ordering::SeqCst), 4);
    timer.dispose();
    scheduler.advance_to_frame(20).unwrap();
    assert_eq!(ticks.load(Ordering::SeqCst), 3, "none after the dispose");
    drop((sub, timed, slow, timer, q, scheduler, _log));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_frame_out_of_range_is_refused_when_the_scheduler_is_made() {
    let _serial = common::serial();
    // Before: a frame of zero was accepted (C and Python refuse it), and
    // one of Duration::MAX made advance_to_frame's multiplication overflow.
    for frame in [Duration::ZERO, Duration::from_secs(1_000_000_001), Duration::MAX] {
        let error = TestScheduler::with_frame(frame).unwrap_err();
        assert_eq!(error.status(), rsignalkit::sys::SK_ERR_INVALID_ARGUMENT);
        assert!(error.message().contains("is out of range (from 1 ns to 1e9 seconds)"), "{}", error.message());
    }
    assert_eq!(live_objects(), 0, "nothing made for a refused frame");
    // The limits themselves are frames, and the longest frame's times fit.
    let shortest = TestScheduler::with_frame(Duration::from_nanos(1)).unwrap();
    let (source, log) = shortest.cold("-1|", &[('1', 7i64)], &()).unwrap();
    assert_eq!(shortest.frames(3), Duration::from_nanos(3));
    drop((source, log, shortest));
    let longest = TestScheduler::with_frame(Duration::from_secs(1_000_000_000)).unwrap();
    assert_eq!(longest.frames(u32::MAX), Duration::from_secs(1_000_000_000) * u32::MAX);
    assert_eq!(longest.advance_to_frame(9).unwrap(), 0, "9e9 s is on the clock (its end is 2^63 ns)");
    let past = longest.advance_to_frame(10).unwrap_err();
    assert_eq!(past.status(), rsignalkit::sys::SK_ERR_INVALID_ARGUMENT, "{}", past.message());
    assert_eq!(longest.frame_now(), 9, "the clock did not move");
    drop(longest);
    assert_eq!(live_objects(), 0);
}

#[test]
fn promises_replay_and_value_promises_ignore_repeats() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let promise = Promise::<i64>::new().unwrap();
    promise.set(&pipe.signal()).unwrap();
    pipe.put(1).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = seen.clone();
    let sub = promise.get().subscribe(move |v| into.lock().unwrap().push(v)).unwrap();
    pipe.put(2).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![1, 2], "the latest value replayed, then the next");
    let value = ValuePromise::new(Some(String::from("a")), true).unwrap();
    let got = Arc::new(Mutex::new(Vec::new()));
    let into = got.clone();
    let sub2 = value.get().subscribe(move |v| into.lock().unwrap().push(v)).unwrap();
    for v in ["a", "b", "b", "c"] {
        value.set(v.to_string()).unwrap();
    }
    assert_eq!(*got.lock().unwrap(), vec!["a", "b", "c"]);
    drop((sub, sub2, promise, pipe, value));
    assert_eq!(live_objects(), 0);
}

#[test]
fn disposables_subscriptions_detach_and_containers() {
    let _serial = common::serial();
    let runs = Arc::new(AtomicUsize::new(0));
    let count = runs.clone();
    let action = Disposable::action(move || {
        count.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    let set = Disposable::set().unwrap();
    set.set_add(&action).unwrap();
    set.dispose();
    action.dispose();
    assert_eq!(runs.load(Ordering::SeqCst), 1, "an action runs once");
    let meta = Disposable::meta().unwrap();
    let (first, second) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (f, s) = (first.clone(), second.clone());
    meta.meta_set(&Disposable::action(move || { f.fetch_add(1, Ordering::SeqCst); }).unwrap()).unwrap();
    meta.meta_set(&Disposable::action(move || { s.fetch_add(1, Ordering::SeqCst); }).unwrap()).unwrap();
    assert_eq!((first.load(Ordering::SeqCst), second.load(Ordering::SeqCst)), (1, 0), "set disposes the previous one");
    meta.dispose();
    assert_eq!(second.load(Ordering::SeqCst), 1);
    // A detached subscription runs on; one put into a container is disposed with it.
    let pipe = Pipe::<i64>::new().unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    pipe.signal().subscribe(move |_| { count.fetch_add(1, Ordering::SeqCst); }).unwrap().detach();
    let count = seen.clone();
    let held = pipe.signal().subscribe(move |_| { count.fetch_add(10, Ordering::SeqCst); }).unwrap().into_disposable().unwrap();
    pipe.put(1).unwrap();
    held.dispose();
    pipe.put(1).unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 1 + 10 + 1);
    drop((action, set, meta, held, pipe));
    assert_eq!(live_objects(), 0, "the pipe's release let the detached subscription go");
}

#[test]
fn run_on_and_a_bounded_concurrent_queue() {
    let _serial = common::serial();
    let pool = Queue::concurrent(2, "pool").unwrap();
    let serial = Queue::serial("start").unwrap();
    let q = serial.clone();
    let started_on_queue = Arc::new(AtomicUsize::new(0));
    let flag = started_on_queue.clone();
    let s = Signal::<i64>::deferred(move || {
        flag.store(q.is_current() as usize, Ordering::SeqCst);
        Signal::single(1)
    })
    .run_on(&serial);
    assert_eq!(values(&s), Ok(vec![1]));
    assert_eq!(started_on_queue.load(Ordering::SeqCst), 1);
    let done = Arc::new(AtomicUsize::new(0));
    let d = done.clone();
    assert_eq!(pool.sync(move || d.fetch_add(1, Ordering::SeqCst)).unwrap(), 0);
    let inside = pool.clone();
    assert!(!pool.sync(move || inside.is_current()).unwrap(), "a concurrent queue is never current, in its own work too");
    serial.sync(|| ()).unwrap();
    drop((s, serial, pool));
    assert_eq!(live_objects(), 0);
}

/// A host queue drained by hand: five values put while none is delivered,
/// at most two wait; each policy keeps and drops what it says, on_drop is
/// told of every drop with the running count, and nothing stays alive.
#[test]
fn deliver_on_bounded_keeps_and_drops_by_its_policy() {
    let _serial = common::serial();
    let cases: [(Overflow, &[i64], &[i64]); 3] = [
        (Overflow::DropNewest, &[1, 2], &[3, 4, 5]),
        (Overflow::DropOldest, &[4, 5], &[1, 2, 3]),
        (Overflow::Latest, &[1, 5], &[2, 3, 4]),
    ];
    for (overflow, kept, dropped) in cases.iter() {
        let queue = Queue::host("bounded").unwrap();
        let pipe = Pipe::<i64>::new().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let drops = Arc::new(Mutex::new(Vec::new()));
        let (into, drops_into) = (Arc::clone(&seen), Arc::clone(&drops));
        let subscription = pipe
            .signal()
            .deliver_on_bounded_with(&queue, 2, *overflow, move |v, count| drops_into.lock().unwrap().push((*v, count)))
            .subscribe(move |v| into.lock().unwrap().push(v))
            .unwrap();
        for x in 1..=5 {
            pipe.put(x).unwrap();
        }
        while queue.drain(0).unwrap() > 0 {}
        assert_eq!(&*seen.lock().unwrap(), kept, "{:?}", overflow);
        let told: Vec<(i64, u64)> = dropped.iter().enumerate().map(|(i, v)| (*v, i as u64 + 1)).collect();
        assert_eq!(*drops.lock().unwrap(), told, "{:?}", overflow);
        drop(subscription);
        drop(pipe);
        drop(queue);
    }
    assert_eq!(live_objects(), 0);
}

/// One input of a zip runs ahead: at most 2 of its values wait, the policy
/// keeps what it says; merge_map and buffer_time likewise.
#[test]
fn zip_merge_map_and_buffer_time_keep_at_most_their_capacity() {
    let _serial = common::serial();
    let cases: [(Overflow, i64); 3] = [(Overflow::DropNewest, 1), (Overflow::DropOldest, 4), (Overflow::Latest, 1)];
    for (overflow, first) in cases.iter() {
        let fast = Pipe::<i64>::new().unwrap();
        let slow = Pipe::<i64>::new().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let subscription = Signal::zip_bounded(&[fast.signal(), slow.signal()], 2, *overflow)
            .subscribe(move |v: Vec<i64>| into.lock().unwrap().push(v[0]))
            .unwrap();
        for x in 1..=5 {
            fast.put(x).unwrap();
        }
        slow.put(0).unwrap();
        assert_eq!(*seen.lock().unwrap(), vec![*first], "{:?}", overflow);
        drop(subscription);
    }
    let source = Pipe::<i64>::new().unwrap();
    let started = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&started);
    let subscription = source
        .signal()
        .merge_map_bounded(1, 2, Overflow::Error, move |x: i64| {
            into.lock().unwrap().push(x);
            Signal::<i64>::never()
        })
        .subscribe(|_| {})
        .unwrap();
    for x in 1..=5 {
        source.put(x).unwrap();
    }
    assert_eq!(*started.lock().unwrap(), vec![1]);
    drop(subscription);
    drop(source);
    let queue = Queue::host("bounded.buffer").unwrap();
    let arrays = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&arrays);
    let subscription = ints(&[1, 2, 3, 4, 5])
        .buffer_time_bounded(Duration::from_secs(3600), &queue, 2, Overflow::DropNewest)
        .subscribe(move |v: Vec<i64>| into.lock().unwrap().push(v))
        .unwrap();
    while queue.drain(0).unwrap() > 0 {}
    assert_eq!(*arrays.lock().unwrap(), vec![vec![1, 2]]);
    drop(subscription);
    while queue.drain(0).unwrap() > 0 {}
    drop(queue);
    assert_eq!(live_objects(), 0);
}

/// The `_with` forms of zip_bounded, merge_map_bounded, queue_bounded and
/// buffer_time_bounded: on_drop is told of each value (or signal) dropped,
/// with the running count.
#[test]
fn the_bounded_places_with_on_drop_tell_of_each_drop() {
    let _serial = common::serial();
    type Told = Arc<Mutex<Vec<(i64, u64)>>>;
    let recorder = || -> (Told, Told) {
        let told = Arc::new(Mutex::new(Vec::new()));
        (Arc::clone(&told), told)
    };
    // zip: the fast input's 3, 4 and 5 find its 2 places taken.
    let (fast, slow) = (Pipe::<i64>::new().unwrap(), Pipe::<i64>::new().unwrap());
    let (told, into) = recorder();
    let subscription = Signal::zip_bounded_with(&[fast.signal(), slow.signal()], 2, Overflow::DropNewest,
                                                move |v, count| into.lock().unwrap().push((*v, count)))
        .subscribe(|_| {})
        .unwrap();
    for x in 1..=5 {
        fast.put(x).unwrap();
    }
    assert_eq!(*told.lock().unwrap(), vec![(3, 1), (4, 2), (5, 3)]);
    drop((subscription, fast, slow));
    // merge_map: 1 runs for ever, 2 and 3 wait, the oldest waiting dropped.
    let source = Pipe::<i64>::new().unwrap();
    let (told, into) = recorder();
    let subscription = source
        .signal()
        .merge_map_bounded_with(1, 2, Overflow::DropOldest, |_: i64| Signal::<i64>::never(),
                                move |v, count| into.lock().unwrap().push((*v, count)))
        .subscribe(|_| {})
        .unwrap();
    for x in 1..=5 {
        source.put(x).unwrap();
    }
    assert_eq!(*told.lock().unwrap(), vec![(2, 1), (3, 2)]);
    drop((subscription, source));
    // queue: a signal that never ends runs, one waits, the next dropped.
    let signals = Pipe::<Signal<i64>>::new().unwrap();
    let (running, waiting, dropped) = (Signal::<i64>::never(), Signal::single(1i64), Signal::single(2i64));
    let told = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&told);
    let subscription = signals
        .signal()
        .queue_bounded_with(1, Overflow::DropNewest, move |s: &Signal<i64>, count| into.lock().unwrap().push((s.clone(), count)))
        .subscribe(|_| {})
        .unwrap();
    for s in [&running, &waiting, &dropped] {
        signals.put(s.clone()).unwrap();
    }
    assert!(*told.lock().unwrap() == vec![(dropped.clone(), 1)], "the third signal is the one dropped");
    drop((subscription, signals, told));
    // buffer_time: a window of 2, the rest of the 5 dropped.
    let queue = Queue::host("bounded.buffer.with").unwrap();
    let (told, into) = recorder();
    let subscription = ints(&[1, 2, 3, 4, 5])
        .buffer_time_bounded_with(Duration::from_secs(3600), &queue, 2, Overflow::DropNewest,
                                  move |v, count| into.lock().unwrap().push((*v, count)))
        .subscribe(|_: Vec<i64>| {})
        .unwrap();
    while queue.drain(0).unwrap() > 0 {}
    assert_eq!(*told.lock().unwrap(), vec![(3, 1), (4, 2), (5, 3)]);
    drop(subscription);
    while queue.drain(0).unwrap() > 0 {}
    drop((queue, running, waiting, dropped));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_bounded_buffer_of_no_capacity_is_refused() {
    let _serial = common::serial();
    let error = values(&ints(&[1]).on_backpressure_buffer(0, Overflow::DropNewest)).unwrap_err();
    assert!(format!("{:?}", error).to_lowercase().contains("capacity"), "{:?}", error);
}

#[test]
fn on_backpressure_buffer_passes_every_value_when_nothing_overflows() {
    let _serial = common::serial();
    assert_eq!(values(&ints(&[1, 2, 3]).on_backpressure_buffer(1, Overflow::Error)).unwrap(), vec![1, 2, 3]);
}

/// A subscription's closures are dropped once it has ended and its handle
/// is gone (the crate starts with sk_signal_start_held, whose handle may
/// hold them): at once when the `Subscription` is dropped; when the source
/// completes for a detached one; and for one turned into a `Disposable`,
/// only once that disposable is dropped too.
#[test]
fn a_subscriptions_closures_go_with_its_end_and_its_handle() {
    let _serial = common::serial();
    let token = Arc::new(());
    let pipe = Pipe::<i64>::new().unwrap();
    let held = token.clone();
    let subscription = pipe.signal().map(|x| x + 1).subscribe(move |_| { let _keep = &held; }).unwrap();
    assert_eq!(Arc::strong_count(&token), 2);
    drop(subscription);
    assert_eq!(Arc::strong_count(&token), 1, "dropped with the Subscription");

    let held = token.clone();
    pipe.signal().subscribe(move |_| { let _keep = &held; }).unwrap().detach();
    assert_eq!(Arc::strong_count(&token), 2, "a detached subscription runs on");
    pipe.complete().unwrap();
    assert_eq!(Arc::strong_count(&token), 1, "dropped when the detached subscription ends");
    drop(pipe);

    let pipe = Pipe::<i64>::new().unwrap();
    let held = token.clone();
    let disposable = pipe.signal().subscribe(move |_| { let _keep = &held; }).unwrap().into_disposable().unwrap();
    disposable.dispose();
    assert_eq!(Arc::strong_count(&token), 2, "the disposable still holds the closures");
    drop(disposable);
    assert_eq!(Arc::strong_count(&token), 1, "dropped with the disposable");
    drop(pipe);
    assert_eq!(live_objects(), 0);
}

/// A bounded pipe (`sk_pipe_create_bounded`): the values a callback puts into
/// its own pipe wait there at most `capacity` at a time, the drops reported.
#[test]
fn a_bounded_pipe_keeps_at_most_its_capacity_of_values_put_from_its_callback() {
    let _serial = common::serial();
    for (overflow, delivered, dropped) in [
        (Overflow::DropNewest, vec![0, 1, 2], vec![3, 4, 5, 6, 7, 8]),
        (Overflow::DropOldest, vec![0, 7, 8], vec![1, 2, 3, 4, 5, 6]),
        (Overflow::Latest, vec![0, 1, 8], vec![2, 3, 4, 5, 6, 7]),
    ] {
        let drops = Arc::new(Mutex::new(Vec::new()));
        let seen = drops.clone();
        let pipe = Arc::new(Pipe::<i64>::bounded_with(2, overflow, move |v, count| {
            let mut seen = seen.lock().unwrap();
            seen.push(*v);
            assert_eq!(count as usize, seen.len());
        }).unwrap());
        let got = Arc::new(Mutex::new(Vec::new()));
        let (inner, into) = (pipe.clone(), got.clone());
        let subscription = pipe.signal().subscribe(move |v| {
            into.lock().unwrap().push(v);
            if v == 0 {
                for i in 1..=8 {
                    inner.put(i).unwrap();
                }
            }
        }).unwrap();
        pipe.put(0).unwrap();
        assert_eq!(*got.lock().unwrap(), delivered, "{:?}", overflow);
        assert_eq!(*drops.lock().unwrap(), dropped, "{:?}", overflow);
        drop(subscription);
    }
    assert!(Pipe::<i64>::bounded(0, Overflow::Latest).is_err(), "a capacity of 0 is refused");
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_custom_operator_stops_a_restart_loop_above_it_when_take_completes() {
    let _serial = common::serial();
    // A source that always ends at once; past 100,000 starts it stops
    // ending, so that a loop that does not stop fails the test, not hangs.
    let starts = Arc::new(AtomicUsize::new(0));
    let counted = starts.clone();
    let source = Signal::<i64>::create(move |subscriber| {
        let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
        if n <= 100_000 {
            subscriber.put_next(&(n as i64)).unwrap();
            subscriber.put_completion().unwrap();
        }
        None::<Disposable>
    });
    let looped = source.restart();
    let upstream = looped.clone();
    let relayed = Signal::<i64>::create_over(&looped, move |subscriber| {
        let (values, end) = (subscriber.clone(), subscriber);
        let observer = Observer::new()
            .next(move |v: i64| drop(values.put_next(&v)))
            .completed(move || drop(end.put_completion()));
        upstream.start(observer).ok()?.into_disposable()
    });
    assert_eq!(values(&relayed.take(3)).unwrap(), vec![1, 2, 3]);
    assert_eq!(starts.load(Ordering::SeqCst), 3, "the loop stopped when take completed");
    drop((relayed, looped, source));
    assert_eq!(live_objects(), 0);
}
