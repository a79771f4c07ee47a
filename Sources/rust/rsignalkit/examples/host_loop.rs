//! A worker thread puts into a pipe; every callback runs on the main
//! thread, which drains a host-drained queue when its descriptor is
//! readable (poll(2)), as an event loop does.
use std::os::raw::{c_int, c_short, c_ulong};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rsignalkit::{Observer, Pipe, Queue};

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: c_short,
    revents: c_short,
}

extern "C" {
    fn poll(fds: *mut PollFd, count: c_ulong, timeout: c_int) -> c_int;
}

fn main() -> Result<(), rsignalkit::Error> {
    let queue = Queue::host("main loop")?;
    let pipe = Pipe::<String>::new()?;
    let main_thread = std::thread::current().id();
    let done = Arc::new(AtomicBool::new(false));
    let finished = done.clone();
    let _subscription = pipe.signal().deliver_on(&queue).start(
        Observer::new()
            .next(move |word: String| {
                assert_eq!(std::thread::current().id(), main_thread);
                println!("{}", word.to_uppercase());
            })
            .completed(move || finished.store(true, Ordering::SeqCst)),
    )?;
    let worker = {
        let pipe = pipe.clone();
        std::thread::spawn(move || {
            for word in ["one", "two", "three"] {
                pipe.put(word.to_string()).unwrap();
            }
            pipe.complete().unwrap();
        })
    };
    let fd = queue.fd()?;
    while !done.load(Ordering::SeqCst) {
        let mut ready = PollFd { fd, events: 1, revents: 0 }; // POLLIN
        // Safety: one valid pollfd.
        if unsafe { poll(&mut ready, 1, 10_000) } != 1 {
            panic!("nothing to drain within 10 s");
        }
        queue.drain(0)?;
    }
    worker.join().unwrap();
    Ok(())
}
