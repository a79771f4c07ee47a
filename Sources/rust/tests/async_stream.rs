//! A signal consumed with `next().await` under executors written here (no
//! runtime): one that parks its thread until a waker fires, and one that
//! drives a host-drained queue from its descriptor with poll(2), the way an
//! async reactor would.
mod common;

use std::future::Future;
use std::os::raw::{c_int, c_short, c_ulong};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use signalkit::{live_objects, AnyValue, Pipe, Queue, Signal};

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
