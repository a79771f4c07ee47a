//! Callbacks on other threads: delivery on a serial queue, puts from
//! several threads, sync with a borrowed closure, a panic resumed by sync.
mod common;

use std::sync::{Arc, Mutex};

use rsignalkit::{live_objects, Pipe, Queue};

#[test]
fn values_delivered_on_a_serial_queue_arrive_in_order_on_its_thread() {
    let _serial = common::serial();
    let queue = Queue::serial("deliver").unwrap();
    let pipe = Pipe::<i64>::new().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (into, q) = (seen.clone(), queue.clone());
    let subscription = pipe
        .signal()
        .deliver_on(&queue)
        .subscribe(move |v| into.lock().unwrap().push((v, q.is_current())))
        .unwrap();
    for v in 0..100 {
        pipe.put(v).unwrap();
    }
    queue.sync(|| ()).unwrap(); // what was queued before has run
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.iter().map(|p| p.0).collect::<Vec<_>>(), (0..100).collect::<Vec<_>>());
    assert!(seen.iter().all(|p| p.1), "every value on the queue");
    drop((subscription, pipe, queue));
    assert_eq!(live_objects(), 0);
}

#[test]
fn puts_from_several_threads_reach_one_fnmut_one_call_at_a_time() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let mut total = 0i64; // moved into the closure: FnMut state, no lock of ours
    let result = Arc::new(Mutex::new(0i64));
    let out = result.clone();
    // Calls that found another call inside the closure (the crate's lock
    // must make it 0), and contended entries (some, so that the lock's
    // waiting path ran).
    let inside = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let overlaps = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (flag, overlapped) = (inside.clone(), overlaps.clone());
    let subscription = pipe
        .signal()
        .subscribe(move |v| {
            if flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
                overlapped.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            total += v;
            for _ in 0..50 {
                std::hint::spin_loop();
            }
            *out.lock().unwrap() = total;
            flag.store(false, std::sync::atomic::Ordering::SeqCst);
        })
        .unwrap();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let pipe = pipe.clone();
            std::thread::spawn(move || {
                for v in 1..=1000 {
                    pipe.put(v).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(*result.lock().unwrap(), 4 * 500_500);
    assert_eq!(overlaps.load(std::sync::atomic::Ordering::SeqCst), 0, "two calls were inside the FnMut at once");
    drop((subscription, pipe));
    assert_eq!(live_objects(), 0);
}

#[test]
fn sync_runs_a_borrowing_closure_on_the_queue_and_resumes_its_panic() {
    let _serial = common::serial();
    let queue = Queue::serial("sync").unwrap();
    let mut local = vec![1, 2];
    let q = queue.clone();
    let on_queue = queue
        .sync(|| {
            local.push(3);
            q.is_current()
        })
        .unwrap();
    assert!(on_queue);
    assert_eq!(local, vec![1, 2, 3]);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| queue.sync(|| panic!("in sync"))));
    assert!(caught.is_err(), "the panic came back to the caller");
    drop((q, queue));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_next_closure_that_puts_into_its_own_source_receives_that_value_after_it_returns() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (into, again) = (seen.clone(), pipe.clone());
    let subscription = pipe
        .signal()
        .subscribe(move |v| {
            into.lock().unwrap().push(format!("start {}", v));
            if v < 3 {
                again.put(v + 1).unwrap();
            }
            into.lock().unwrap().push(format!("end {}", v));
        })
        .unwrap();
    pipe.put(1).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec!["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    drop((subscription, pipe));
    assert_eq!(live_objects(), 0);
}

#[test]
fn nothing_reaches_a_subscription_after_its_end_while_other_threads_put() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    // The closure panics at its 2001st call, which ends the subscription
    // (its failure goes to the failure hook: `subscribe` has no error
    // closure) while four threads put into the pipe, some of them parked
    // waiting for the closure: none may reach it after that.
    let reports = Arc::new(Mutex::new(Vec::new()));
    let into = reports.clone();
    rsignalkit::set_failure_hook(Some(Box::new(move |place, message| into.lock().unwrap().push(format!("{}: {}", place, message)))));
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let subscription = pipe
        .signal()
        .subscribe(move |v| {
            if counted.fetch_add(1, Ordering::SeqCst) == 2000 {
                panic!("stop at {}", v);
            }
            for _ in 0..50 {
                std::hint::spin_loop();
            }
        })
        .unwrap();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let pipe = pipe.clone();
            std::thread::spawn(move || {
                for v in 1..=1000 {
                    pipe.put(v).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    rsignalkit::set_failure_hook(None);
    assert_eq!(calls.load(Ordering::SeqCst), 2001, "values after the panic reached the closure");
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{:?}", *reports);
    assert!(reports[0].starts_with("unhandled error: panicked: stop at "), "{:?}", *reports);
    drop((subscription, pipe));
    assert_eq!(live_objects(), 0);
}
