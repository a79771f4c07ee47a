//! A signal consumed with `next().await` under executors written here (no
//! runtime): one that parks its thread until a waker fires, one that runs
//! two tasks on one thread, and one that drives a host-drained queue from
//! its descriptor with poll(2), the way an async reactor would. Then the
//! bounded stream: each overflow policy, the capacity under a fast
//! producer thread, the end after the last value, the stream dropped
//! mid-way, the waker's path, the failure rule, and a producer that waits
//! for room without a thread.
mod common;

use std::future::Future;
use std::os::raw::{c_int, c_short, c_ulong};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use common::Counted;
use rsignalkit::{live_objects, set_failure_hook, without_waiting_for_room, AnyValue, Overflow, Pipe, Queue, Signal, SignalStream};

struct Unpark(std::thread::Thread, AtomicBool);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.1.store(true, Ordering::SeqCst);
        self.0.unpark();
    }
}

/// Polls `future` on this thread, parking between polls until woken.
fn block_on<F: Future>(future: F) -> F::Output {
    let unpark = Arc::new(Unpark(std::thread::current(), AtomicBool::new(false)));
    let waker = Waker::from(unpark.clone());
    let mut cx = Context::from_waker(&waker);
    let mut future = Box::pin(future);
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
        while !unpark.1.swap(false, Ordering::SeqCst) {
            std::thread::park();
        }
    }
}

#[test]
fn next_await_receives_values_put_on_another_thread() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let mut stream = pipe.signal().map(|x| x * 2).into_stream().unwrap();
    let producer = {
        let pipe = pipe.clone();
        std::thread::spawn(move || {
            for x in 1..=100 {
                pipe.put(x).unwrap();
            }
            pipe.complete().unwrap();
        })
    };
    let got = block_on(async {
        let mut got = Vec::new();
        while let Some(item) = stream.next().await {
            got.push(item.unwrap());
        }
        got
    });
    producer.join().unwrap();
    assert_eq!(got, (1..=100).map(|x| x * 2).collect::<Vec<_>>());
    drop((stream, pipe));
    assert_eq!(live_objects(), 0);
}

#[test]
fn an_error_is_the_last_item_and_dropping_the_stream_disposes() {
    let _serial = common::serial();
    let failing = Signal::<i64>::single(1).then(&Signal::fail(String::from("bad")));
    let items = block_on(async {
        let mut stream = failing.into_stream().unwrap();
        let mut items = Vec::new();
        while let Some(item) = stream.next().await {
            items.push(item);
        }
        items
    });
    assert_eq!(items, vec![Ok(1), Err(AnyValue::String("bad".into()))]);
    let disposed = Arc::new(AtomicBool::new(false));
    let flag = disposed.clone();
    let stream = Signal::<i64>::never().after_disposed(move || flag.store(true, Ordering::SeqCst)).into_stream().unwrap();
    drop(stream);
    assert!(disposed.load(Ordering::SeqCst));
    drop(failing);
    assert_eq!(live_objects(), 0);
}

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: c_short,
    revents: c_short,
}

extern "C" {
    fn poll(fds: *mut PollFd, count: c_ulong, timeout: c_int) -> c_int;
}

const POLLIN: c_short = 1;

#[test]
fn a_reactor_drives_a_host_queue_from_its_descriptor() {
    let _serial = common::serial();
    let queue = Queue::host("reactor").unwrap();
    let fd = queue.fd().unwrap();
    let timers = Queue::serial("timers").unwrap();
    // Values come from a library thread after a delay, delivered on the
    // host queue: only a drain on this thread delivers them.
    let source = Signal::concat(&[Signal::single(1i64), Signal::single(2), Signal::single(3)])
        .delay(Duration::from_millis(5), &timers)
        .deliver_on(&queue);
    let mut stream = source.into_stream().unwrap();
    let here = std::thread::current().id();
    let checked = stream_thread_check(&queue, here);
    let unpark = Arc::new(Unpark(std::thread::current(), AtomicBool::new(false)));
    let waker = Waker::from(unpark);
    let mut cx = Context::from_waker(&waker);
    let mut got = Vec::new();
    let mut polls = 0;
    loop {
        match stream.poll_next(&mut cx) {
            Poll::Ready(Some(item)) => got.push(item.unwrap()),
            Poll::Ready(None) => break,
            Poll::Pending => {
                // The reactor: wait until the queue's descriptor is readable
                // (a generous deadline, never a sleep), then drain it here.
                let mut pfd = PollFd { fd, events: POLLIN, revents: 0 };
                let ready = unsafe { poll(&mut pfd, 1, 10_000) };
                assert_eq!(ready, 1, "the descriptor became readable");
                queue.drain(0).unwrap();
                polls += 1;
            }
        }
    }
    assert_eq!(got, vec![1, 2, 3]);
    assert!(polls >= 1);
    assert!(checked.load(Ordering::SeqCst), "the host queue's work ran on the reactor's thread");
    drop((stream, source, queue));
    // The delay's last work lets go of its context on the timers' queue,
    // after delivering: wait for what is queued there to be done.
    timers.sync(|| ()).unwrap();
    drop(timers);
    assert_eq!(live_objects(), 0);
}

/// Work on the host queue that records whether it ran on `here`.
fn stream_thread_check(queue: &Queue, here: std::thread::ThreadId) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    queue.run(move || set.store(std::thread::current().id() == here, Ordering::SeqCst)).unwrap();
    flag
}

// --- the bounded stream --------------------------------------------------

/// A waker that counts its wakes and unparks the thread that made it.
struct Counting {
    thread: std::thread::Thread,
    woken: AtomicBool,
    wakes: AtomicUsize,
}

impl Wake for Counting {
    fn wake(self: Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        self.woken.store(true, Ordering::SeqCst);
        self.thread.unpark();
    }
}

fn counting() -> Arc<Counting> {
    Arc::new(Counting { thread: std::thread::current(), woken: AtomicBool::new(false), wakes: AtomicUsize::new(0) })
}

/// Runs two tasks on this thread to their ends, polling each once woken,
/// parking while neither can go on: the one-thread executor.
fn join_here(a: impl Future<Output = ()>, b: impl Future<Output = ()>) {
    let flag = counting();
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    let mut tasks: Vec<Option<Pin<Box<dyn Future<Output = ()> + '_>>>> = vec![Some(Box::pin(a)), Some(Box::pin(b))];
    while tasks.iter().any(Option::is_some) {
        flag.woken.store(false, Ordering::SeqCst);
        for task in tasks.iter_mut() {
            if let Some(future) = task {
                if future.as_mut().poll(&mut cx).is_ready() {
                    *task = None;
                }
            }
        }
        if tasks.iter().any(Option::is_some) {
            while !flag.woken.swap(false, Ordering::SeqCst) {
                std::thread::park();
            }
        }
    }
}

/// Every event of `stream`, to its end.
fn read_all<T>(mut stream: SignalStream<T>) -> Vec<Result<T, AnyValue>> {
    block_on(async move {
        let mut items = Vec::new();
        while let Some(item) = stream.next().await {
            items.push(item);
        }
        assert!(stream.next().await.is_none(), "None again after the end");
        items
    })
}

/// An event as a stream reads it.
type Read = Result<i64, AnyValue>;

/// What a recorder's on_drop saw: each dropped value and its count.
type Dropped = Arc<Mutex<Vec<(i64, u64)>>>;

/// A bounded stream's on_drop that records each dropped value and its count.
fn recorder() -> (Dropped, impl Fn(&i64, u64) + Send + Sync + 'static) {
    let dropped = Arc::new(Mutex::new(Vec::new()));
    let into = dropped.clone();
    (dropped, move |value: &i64, count: u64| into.lock().unwrap().push((*value, count)))
}

/// Puts 1..=5 into a stream of capacity 2 before anything is read, then
/// completes: what the reader gets, and what on_drop was told.
fn five_into_two(overflow: Overflow) -> (Vec<Read>, Vec<(i64, u64)>) {
    let pipe = Pipe::<i64>::new().unwrap();
    let (dropped, on_drop) = recorder();
    let stream = pipe.signal().into_stream_bounded_with(2, overflow, on_drop).unwrap();
    for value in 1..=5 {
        pipe.put(value).unwrap();
    }
    pipe.complete().unwrap();
    let items = read_all(stream);
    drop(pipe);
    let dropped = dropped.lock().unwrap().clone();
    (items, dropped)
}

#[test]
fn each_drop_policy_keeps_what_it_names_and_reports_the_rest() {
    let _serial = common::serial();
    assert_eq!(five_into_two(Overflow::DropNewest), (vec![Ok(1), Ok(2)], vec![(3, 1), (4, 2), (5, 3)]));
    assert_eq!(five_into_two(Overflow::DropOldest), (vec![Ok(4), Ok(5)], vec![(1, 1), (2, 2), (3, 3)]));
    assert_eq!(five_into_two(Overflow::Latest), (vec![Ok(1), Ok(5)], vec![(2, 1), (3, 2), (4, 3)]));
    assert_eq!(live_objects(), 0);
}

#[test]
fn the_error_policy_ends_the_stream_after_the_values_waiting() {
    let _serial = common::serial();
    let (items, dropped) = five_into_two(Overflow::Error);
    let message = "into_stream_bounded: overflow: a value arrived with 2 values pending (capacity 2, policy error)";
    assert_eq!(items, vec![Ok(1), Ok(2), Err(AnyValue::String(message.into()))]);
    // 3 overflowed; 4 and 5 came before the error was read: dropped too.
    assert_eq!(dropped, vec![(3, 1), (4, 2), (5, 3)]);
    assert_eq!(live_objects(), 0);
}

#[test]
fn the_end_comes_after_the_last_value() {
    let _serial = common::serial();
    let completed = Signal::concat(&[Signal::single(1i64), Signal::single(2)]);
    assert_eq!(read_all(completed.into_stream_bounded(4, Overflow::DropNewest).unwrap()), vec![Ok(1), Ok(2)]);
    let failed = Signal::<i64>::single(1).then(&Signal::fail(String::from("late")));
    assert_eq!(
        read_all(failed.into_stream_bounded(4, Overflow::DropNewest).unwrap()),
        vec![Ok(1), Err(AnyValue::String("late".into()))]
    );
    drop((completed, failed));
    assert_eq!(live_objects(), 0);
}

#[test]
fn block_keeps_at_most_the_capacity_waiting_for_a_fast_producer_thread() {
    let _serial = common::serial();
    const CAPACITY: usize = 4;
    const COUNT: i64 = 10_000;
    let pipe = Pipe::<i64>::new().unwrap();
    let mut stream = pipe.signal().into_stream_bounded(CAPACITY, Overflow::Block).unwrap();
    let sent = Arc::new(AtomicUsize::new(0));
    let producer = {
        let (pipe, sent) = (pipe.clone(), sent.clone());
        std::thread::spawn(move || {
            for value in 0..COUNT {
                pipe.put(value).unwrap();
                sent.fetch_add(1, Ordering::SeqCst);
            }
            pipe.complete().unwrap();
        })
    };
    let (got, most_ahead) = block_on(async {
        let (mut got, mut most_ahead) = (Vec::new(), 0);
        while let Some(item) = stream.next().await {
            got.push(item.unwrap());
            // Every put that returned left its value taken or waiting (a
            // value may be taken before its put has returned).
            let ahead = sent.load(Ordering::SeqCst).saturating_sub(got.len());
            assert!(ahead <= CAPACITY, "{} values waited, capacity {}", ahead, CAPACITY);
            most_ahead = most_ahead.max(ahead);
        }
        (got, most_ahead)
    });
    producer.join().unwrap();
    assert_eq!(got, (0..COUNT).collect::<Vec<_>>(), "nothing lost, in order");
    assert!(most_ahead <= CAPACITY);
    drop((stream, pipe));
    assert_eq!(live_objects(), 0);
}

#[test]
fn drop_oldest_under_a_fast_producer_thread_loses_only_what_it_reports() {
    let _serial = common::serial();
    const COUNT: i64 = 10_000;
    let pipe = Pipe::<i64>::new().unwrap();
    let (dropped, on_drop) = recorder();
    let stream = pipe.signal().into_stream_bounded_with(8, Overflow::DropOldest, on_drop).unwrap();
    let producer = {
        let pipe = pipe.clone();
        std::thread::spawn(move || {
            for value in 0..COUNT {
                pipe.put(value).unwrap();
            }
            pipe.complete().unwrap();
        })
    };
    let got: Vec<i64> = read_all(stream).into_iter().map(Result::unwrap).collect();
    producer.join().unwrap();
    let dropped = dropped.lock().unwrap().clone();
    assert!(got.windows(2).all(|pair| pair[0] < pair[1]), "in order");
    assert_eq!(got.last(), Some(&(COUNT - 1)), "the newest is never the one dropped");
    let mut all: Vec<i64> = got.iter().copied().chain(dropped.iter().map(|d| d.0)).collect();
    all.sort_unstable();
    assert_eq!(all, (0..COUNT).collect::<Vec<_>>(), "each value read or reported, once");
    assert!(dropped.iter().enumerate().all(|(i, d)| d.1 == i as u64 + 1), "the counts run 1, 2, 3...");
    drop(pipe);
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_pending_read_is_woken_by_the_next_value_from_another_thread() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let mut stream = pipe.signal().into_stream_bounded(2, Overflow::DropNewest).unwrap();
    let flag = counting();
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    assert_eq!(stream.poll_next(&mut cx), Poll::Pending);
    assert_eq!(flag.wakes.load(Ordering::SeqCst), 0);
    let putter = pipe.clone();
    std::thread::spawn(move || putter.put(7).unwrap()).join().unwrap();
    assert_eq!(flag.wakes.load(Ordering::SeqCst), 1, "the value woke the reader");
    assert_eq!(stream.poll_next(&mut cx), Poll::Ready(Some(Ok(7))));
    assert_eq!(stream.poll_next(&mut cx), Poll::Pending);
    pipe.complete().unwrap();
    assert_eq!(flag.wakes.load(Ordering::SeqCst), 2, "the end woke it");
    assert_eq!(stream.poll_next(&mut cx), Poll::Ready(None));
    drop((stream, pipe));
    assert_eq!(live_objects(), 0);
}

#[test]
fn dropping_the_stream_mid_way_disposes_and_releases_every_value_once() {
    let _serial = common::serial();
    let released = Arc::new(AtomicUsize::new(0));
    let disposed = Arc::new(AtomicBool::new(false));
    let reports = Arc::new(AtomicUsize::new(0));
    let (flag, reported) = (disposed.clone(), reports.clone());
    let pipe = Pipe::<Arc<Counted>>::new().unwrap();
    let mut stream = pipe
        .signal()
        .after_disposed(move || flag.store(true, Ordering::SeqCst))
        .into_stream_bounded_with(3, Overflow::DropNewest, move |_, _| {
            reported.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    for _ in 0..3 {
        pipe.put(Arc::new(Counted(released.clone()))).unwrap();
    }
    let first = block_on(stream.next()).unwrap().unwrap();
    drop(first);
    assert_eq!(released.load(Ordering::SeqCst), 1);
    drop(stream); // two values still waiting
    assert!(disposed.load(Ordering::SeqCst), "the subscription was disposed");
    assert_eq!(released.load(Ordering::SeqCst), 3, "the values waiting were released");
    pipe.put(Arc::new(Counted(released.clone()))).unwrap();
    assert_eq!(released.load(Ordering::SeqCst), 4, "a later value reached nobody");
    assert_eq!(reports.load(Ordering::SeqCst), 0, "nothing was reported as dropped");
    drop(pipe);
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_producer_waiting_for_room_is_let_go_when_the_stream_is_dropped() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let stream = pipe.signal().into_stream_bounded(1, Overflow::Block).unwrap();
    let (done, finished) = channel();
    let putter = pipe.clone();
    let producer = std::thread::spawn(move || {
        putter.put(1).unwrap(); // fills the buffer
        putter.put(2).unwrap(); // waits for room, until the stream goes
        done.send(()).unwrap();
    });
    drop(stream);
    assert!(finished.recv_timeout(Duration::from_secs(10)).is_ok(), "the producer was let go");
    producer.join().unwrap();
    drop(pipe);
    assert_eq!(live_objects(), 0);
}

#[test]
fn block_cannot_wait_on_the_starting_or_the_reading_thread() {
    let _serial = common::serial();
    // A synchronous source fills the buffer inside the start, on the thread
    // that would read it.
    let source = Signal::concat(&[Signal::single(1i64), Signal::single(2), Signal::single(3)]);
    let items = read_all(source.into_stream_bounded(1, Overflow::Block).unwrap());
    assert_eq!(items.len(), 2, "{:?}", items);
    assert_eq!(items[0], Ok(1));
    match &items[1] {
        Err(AnyValue::String(message)) => assert!(
            message.starts_with("into_stream_bounded: cannot block: the buffer is full (capacity 1) and the value was put by the thread that starts the stream"),
            "{}",
            message
        ),
        other => panic!("{:?}", other),
    }
    // A put on the thread that polled the stream (its reader's).
    let pipe = Pipe::<i64>::new().unwrap();
    let mut stream = pipe.signal().into_stream_bounded(1, Overflow::Block).unwrap();
    let flag = counting();
    let waker = Waker::from(flag);
    assert_eq!(stream.poll_next(&mut Context::from_waker(&waker)), Poll::Pending);
    pipe.put(1).unwrap();
    pipe.put(2).unwrap(); // would wait for this thread's own read
    let items = read_all(stream);
    assert_eq!(items[0], Ok(1));
    assert!(matches!(&items[1], Err(AnyValue::String(m)) if m.contains("the thread that polls the stream")), "{:?}", items);
    drop((source, pipe));
    assert_eq!(live_objects(), 0);
}

#[test]
fn an_async_producer_awaits_room_on_the_readers_thread_without_blocking_it() {
    let _serial = common::serial();
    let pipe = Pipe::<i64>::new().unwrap();
    let mut stream = pipe.signal().into_stream_bounded(1, Overflow::Block).unwrap();
    let (room, after) = (stream.room(), stream.room());
    let got = Arc::new(Mutex::new(Vec::new()));
    let into = got.clone();
    // One thread runs both tasks: a put into the full buffer here would
    // fail the stream ("cannot block"), so every put found room.
    join_here(
        async {
            for value in 0..100 {
                assert!(room.ready().await, "the stream still takes values");
                pipe.put(value).unwrap();
            }
            pipe.complete().unwrap();
        },
        async move {
            while let Some(item) = stream.next().await {
                into.lock().unwrap().push(item);
            }
            assert!(!after.ready().await, "after the end nothing is taken");
        },
    );
    assert_eq!(*got.lock().unwrap(), (0..100).map(Ok).collect::<Vec<_>>());
    drop(pipe);
    assert_eq!(live_objects(), 0);
}

#[test]
fn the_stream_follows_the_failure_rule() {
    let _serial = common::serial();
    // A panic in an operator's closure upstream: its error, after the values before.
    let pipe = Pipe::<i64>::new().unwrap();
    let stream = pipe.signal().map(|x| if x == 2 { panic!("two") } else { x }).into_stream_bounded(4, Overflow::DropNewest).unwrap();
    for value in 1..=3 {
        pipe.put(value).unwrap();
    }
    assert_eq!(read_all(stream), vec![Ok(1), Err(AnyValue::String("panicked: two".into()))]);
    // A value that is not a T.
    let words = Signal::single(String::from("one")).cast::<i64>();
    let items = read_all(words.into_stream_bounded(4, Overflow::DropNewest).unwrap());
    assert!(matches!(items.as_slice(), [Err(AnyValue::Failure(_))]), "{:?}", items);
    // A panic in on_drop goes to the failure hook; the stream goes on.
    let reports = Arc::new(Mutex::new(Vec::new()));
    let into = reports.clone();
    set_failure_hook(Some(Box::new(move |place, message| into.lock().unwrap().push(format!("{}: {}", place, message)))));
    let stream = pipe.signal().into_stream_bounded_with(1, Overflow::DropNewest, |value, _| panic!("dropped {}", value)).unwrap();
    for value in 4..=6 {
        pipe.put(value).unwrap();
    }
    pipe.complete().unwrap();
    let items = read_all(stream);
    set_failure_hook(None);
    assert_eq!(items, vec![Ok(4)]);
    assert_eq!(*reports.lock().unwrap(), vec!["on_drop: panicked: dropped 5", "on_drop: panicked: dropped 6"]);
    drop((pipe, words));
    assert_eq!(live_objects(), 0);
}

#[test]
fn a_capacity_of_zero_is_refused() {
    let _serial = common::serial();
    let error = Signal::single(1i64).into_stream_bounded(0, Overflow::Latest).err().unwrap();
    assert_eq!(error.status(), rsignalkit::sys::SK_ERR_INVALID_ARGUMENT);
    assert_eq!(error.message(), "into_stream_bounded: capacity must be at least 1");
    assert_eq!(live_objects(), 0);
}

/// A pipe into a `deliver_on_bounded` of capacity 2 (`Block`) whose
/// queue is stalled until `open`: values 0, 1 fill the buffer, 2 finds it
/// full. `finish` lets the queue go, checks that 0, 1, 2 arrived in order
/// and that nothing is left alive.
struct Stalled {
    queue: Queue,
    pipe: Pipe<i64>,
    open: std::sync::mpsc::Sender<()>,
    got: Arc<Mutex<Vec<i64>>>,
    done: std::sync::mpsc::Receiver<()>,
    subscription: rsignalkit::Subscription,
}

impl Stalled {
    fn new(name: &str) -> Stalled {
        let queue = Queue::serial(name).unwrap();
        let (entered_tx, entered_rx) = channel();
        let (open, open_rx) = channel::<()>();
        queue
            .run(move || {
                entered_tx.send(()).unwrap();
                open_rx.recv_timeout(Duration::from_secs(60)).unwrap();
            })
            .unwrap();
        entered_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        let pipe = Pipe::<i64>::new().unwrap();
        let got = Arc::new(Mutex::new(Vec::new()));
        let seen = got.clone();
        let (done_tx, done) = channel();
        let subscription = pipe
            .signal()
            .deliver_on_bounded(&queue, 2, Overflow::Block)
            .subscribe(move |value| {
                seen.lock().unwrap().push(value);
                if value == 2 {
                    done_tx.send(()).unwrap();
                }
            })
            .unwrap();
        Stalled { queue, pipe, open, got, done, subscription }
    }

    fn open(&self) {
        self.open.send(()).unwrap();
    }

    fn finish(self) {
        self.done.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(*self.got.lock().unwrap(), vec![0, 1, 2]);
        drop(self.subscription);
        drop(self.pipe);
        self.queue.sync(|| ()).unwrap();
        drop(self.queue);
        // A room subscription's release runs on the room queue after its
        // completion: no event to wait on, so a deadline (as the C suite's
        // wait for the count).
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while live_objects() != 0 && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        assert_eq!(live_objects(), 0);
    }
}

/// A waker for one poll by hand.
fn this_thread_waker() -> Waker {
    Waker::from(Arc::new(Unpark(std::thread::current(), AtomicBool::new(false))))
}

/// A put that never waits for room (`without_waiting_for_room`): with the
/// consumer stalled, the put that finds the buffer full returns at once
/// with a room signal, whose end an async producer awaits; it ends once
/// the consumer goes on, and every value arrives, in order.
#[test]
fn a_put_without_waiting_for_room_returns_a_room_signal_that_ends_with_room() {
    let _serial = common::serial();
    let stalled = Stalled::new("room");
    let mut room = None;
    for value in 0..3 {
        let (put, made) = without_waiting_for_room(|| stalled.pipe.put(value));
        put.unwrap();
        assert_eq!(made.is_some(), value == 2, "value {value}: a room signal only once the buffer is full");
        room = made.or(room);
    }
    let mut ended = room.expect("a room signal").into_stream().unwrap();
    let waker = this_thread_waker();
    let mut cx = Context::from_waker(&waker);
    assert!(Pin::new(&mut ended.next()).poll(&mut cx).is_pending(), "the consumer is stalled: no room yet");
    stalled.open();
    assert!(block_on(ended.next()).is_none(), "the room signal ends (completes) once there is room");
    drop(ended);
    stalled.finish();
}

/// `Pipe::put_async`: resolves at once where there is room; with the
/// consumer stalled, the third put is made on the first poll (nothing
/// blocks) and stays pending until the consumer goes on; every value
/// arrives in order.
#[test]
fn put_async_is_pending_while_a_block_place_is_full_and_never_blocks() {
    let _serial = common::serial();
    let stalled = Stalled::new("put_async");
    block_on(stalled.pipe.put_async(0)).unwrap();
    block_on(stalled.pipe.put_async(1)).unwrap();
    let waker = this_thread_waker();
    let mut cx = Context::from_waker(&waker);
    let mut third = Box::pin(stalled.pipe.put_async(2));
    assert!(third.as_mut().poll(&mut cx).is_pending(), "the buffer is full: no room yet");
    stalled.open();
    block_on(third).unwrap();
    stalled.finish();
}
