//! Queues: where work and deliveries run.
use std::ffi::CString;
use std::fmt;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::time::Duration;

use crate::callback::{ctx_ref, into_ctx, release_ctx, report_failure, FnCell};
use crate::error::{check, Error};
use crate::signal::Disposable;
use crate::sys;

/// A queue: serial, concurrent, host-drained (its work runs in
/// [`drain`](Queue::drain) on the calling thread, its descriptor readable
/// while work is pending) or virtual-time ([`crate::testing`]). A
/// reference: cloning retains; the last drop of a host-drained or
/// virtual-time queue closes it, dropping its pending work.
///
/// Thread-safety: `Send` and `Sync`. Work runs on the queue's thread, so
/// its closures are `Send + 'static`.
///
/// ```
/// use rsignalkit::Queue;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// let host = Queue::host("loop").unwrap();
/// let ran = Arc::new(AtomicUsize::new(0));
/// let count = ran.clone();
/// host.run(move || { count.fetch_add(1, Ordering::SeqCst); }).unwrap();
/// assert_eq!(ran.load(Ordering::SeqCst), 0, "pending until drained");
/// assert!(host.fd().unwrap() >= 0); // readable now: an event loop would drain
/// assert_eq!(host.drain(0).unwrap(), 1);
/// assert_eq!(ran.load(Ordering::SeqCst), 1);
///
/// let serial = Queue::serial("worker").unwrap();
/// let q = serial.clone();
/// assert!(serial.sync(move || q.is_current()).unwrap());
/// ```
pub struct Queue {
    raw: NonNull<sys::sk_queue>,
}

// Safety: sk_queue is thread-safe.
unsafe impl Send for Queue {}
unsafe impl Sync for Queue {}

impl fmt::Debug for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Queue({:p})", self.raw)
    }
}

fn name_of(name: &str) -> Result<CString, Error> {
    CString::new(name).map_err(|_| Error::new(sys::SK_ERR_INVALID_ARGUMENT, "signalkit: a queue name with a NUL byte"))
}

pub(crate) fn seconds(duration: Duration) -> f64 {
    duration.as_secs_f64()
}

impl Queue {
    fn made(status: i32, out: *mut sys::sk_queue) -> Result<Queue, Error> {
        check(status)?;
        Ok(Queue { raw: NonNull::new(out).expect("signalkit: NULL queue") })
    }

    fn named(name: &str, create: impl FnOnce(*mut *mut sys::sk_queue, *const c_char) -> i32) -> Result<Queue, Error> {
        let name = name_of(name)?;
        let mut out = ptr::null_mut();
        let status = create(&mut out, name.as_ptr());
        Queue::made(status, out)
    }

    /// A new serial queue (its work on the library's worker threads).
    pub fn serial(name: &str) -> Result<Queue, Error> {
        Queue::named(name, |out, name| unsafe { sys::sk_queue_create(out, name) })
    }

    /// A new host-drained queue: its work runs in [`drain`](Queue::drain).
    pub fn host(name: &str) -> Result<Queue, Error> {
        Queue::named(name, |out, name| unsafe { sys::sk_queue_create_host(out, name) })
    }

    /// A new concurrent queue with `max_workers` threads of its own.
    pub fn concurrent(max_workers: usize, name: &str) -> Result<Queue, Error> {
        Queue::named(name, |out, name| unsafe { sys::sk_queue_create_concurrent(out, max_workers, name) })
    }

    /// The shared concurrent queue of default priority.
    pub fn concurrent_default() -> Result<Queue, Error> {
        let mut out = ptr::null_mut();
        let status = unsafe { sys::sk_queue_concurrent_default(&mut out) };
        Queue::made(status, out)
    }

    /// A new virtual-time queue, its clock at 0 (see [`crate::testing`]).
    pub fn virtual_time(name: &str) -> Result<Queue, Error> {
        Queue::named(name, |out, name| unsafe { sys::sk_queue_create_virtual(out, name) })
    }

    /// The C handle, borrowed.
    pub fn as_raw(&self) -> *mut sys::sk_queue {
        self.raw.as_ptr()
    }

    /// Runs `work` on the queue (inline when already on it). A panic in it
    /// goes to the failure hook. The work runs on the queue's thread, so it
    /// must be `Send`:
    ///
    /// ```compile_fail,E0277
    /// let queue = rsignalkit::Queue::serial("q").unwrap();
    /// let local = std::rc::Rc::new(1);
    /// queue.run(move || drop(local)).unwrap();
    /// ```
    pub fn run<F: FnOnce() + Send + 'static>(&self, work: F) -> Result<(), Error> {
        let ctx = into_ctx(FnCell::new(Some(work)));
        // Safety: ctx is released by the library, also on failure.
        check(unsafe { sys::sk_queue_async(self.as_raw(), Some(run_once::<F>), ctx, Some(release_ctx::<FnCell<Option<F>>>)) })
    }

    /// Runs `work` on the queue after `delay`.
    pub fn after<F: FnOnce() + Send + 'static>(&self, delay: Duration, work: F) -> Result<(), Error> {
        let ctx = into_ctx(FnCell::new(Some(work)));
        // Safety: as for run.
        check(unsafe {
            sys::sk_queue_after(self.as_raw(), seconds(delay), Some(run_once::<F>), ctx, Some(release_ctx::<FnCell<Option<F>>>))
        })
    }

    /// Runs `work` on the queue and waits for its result. `work` may borrow
    /// from the caller: this returns only once it has run or been dropped.
    /// A panic in it is resumed on this thread. Err(SK_ERR_RELEASED) when
    /// the queue was closed before it ran.
    ///
    /// On a host-drained queue (and the main queue) the work runs when the
    /// thread that drains it drains it: called from that thread while it is
    /// not draining, this waits for ever (`sk_queue_sync`). From a job of
    /// the queue, or on a virtual-time queue, it runs `work` at once.
    pub fn sync<R: Send, F: FnOnce() -> R + Send>(&self, work: F) -> Result<R, Error> {
        struct Slot<F, R> {
            work: Option<F>,
            result: Option<std::thread::Result<R>>,
        }
        unsafe extern "C" fn call<F: FnOnce() -> R, R>(ctx: *mut c_void) {
            let slot = &mut *(ctx as *mut Slot<F, R>);
            if let Some(work) = slot.work.take() {
                slot.result = Some(catch_unwind(AssertUnwindSafe(work)));
            }
        }
        let mut slot = Slot { work: Some(work), result: None };
        // Safety: the slot outlives the call, which returns only once `fn`
        // ran or was dropped (no release is given: the slot is ours).
        let status = unsafe { sys::sk_queue_sync(self.as_raw(), Some(call::<F, R>), &mut slot as *mut Slot<F, R> as *mut c_void, None) };
        check(status)?;
        match slot.result.take() {
            Some(Ok(result)) => Ok(result),
            Some(Err(payload)) => resume_unwind(payload),
            None => Err(Error::new(sys::SK_ERR_RELEASED, "signalkit: the work did not run")),
        }
    }

    /// Whether the calling thread runs on this queue.
    pub fn is_current(&self) -> bool {
        // Safety: a live queue.
        unsafe { sys::sk_queue_is_current(self.as_raw()) }
    }

    /// The descriptor of a host-drained queue (owned by the queue): readable
    /// while work is pending.
    pub fn fd(&self) -> Result<i32, Error> {
        let mut fd = -1;
        // Safety: a live queue.
        check(unsafe { sys::sk_queue_host_fd(self.as_raw(), &mut fd) })?;
        Ok(fd)
    }

    /// Runs the pending work of a host-drained queue on this thread (at most
    /// `max_tasks`, 0 for all); returns how many ran.
    pub fn drain(&self, max_tasks: usize) -> Result<usize, Error> {
        let mut ran = 0usize;
        // Safety: a live queue.
        check(unsafe { sys::sk_queue_host_drain(self.as_raw(), max_tasks, &mut ran) })?;
        Ok(ran)
    }

    /// Starts a timer: `work` after `delay` (every `delay` with `repeat`),
    /// on this queue, until the disposable is disposed.
    pub fn timer<F: FnMut() + Send + 'static>(&self, delay: Duration, repeat: bool, work: F) -> Result<Disposable, Error> {
        unsafe extern "C" fn tick<F: FnMut()>(ctx: *mut c_void) {
            if let Err(message) = ctx_ref::<FnCell<F>>(ctx).with(|f| f()) {
                report_failure("timer", &message);
            }
        }
        let ctx = into_ctx(FnCell::new(work));
        let mut out = ptr::null_mut();
        // Safety: ctx is released by the library, also on failure.
        check(unsafe {
            sys::sk_timer_start(&mut out, self.as_raw(), seconds(delay), repeat, Some(tick::<F>), ctx, Some(release_ctx::<FnCell<F>>))
        })?;
        // Safety: SK_OK: a new reference.
        Ok(unsafe { Disposable::from_raw(out) })
    }

    // --- virtual time ---------------------------------------------------

    /// Moves a virtual-time queue's clock forward, running what falls due;
    /// returns how many tasks ran.
    pub fn advance_by(&self, by: Duration) -> Result<usize, Error> {
        let mut ran = 0usize;
        // Safety: a live queue.
        check(unsafe { sys::sk_queue_virtual_advance_by(self.as_raw(), seconds(by), &mut ran) })?;
        Ok(ran)
    }

    /// Moves a virtual-time queue's clock to `to` since it was made.
    pub fn advance_to(&self, to: Duration) -> Result<usize, Error> {
        let mut ran = 0usize;
        // Safety: a live queue.
        check(unsafe { sys::sk_queue_virtual_advance_to(self.as_raw(), seconds(to), &mut ran) })?;
        Ok(ran)
    }

    /// Runs a virtual-time queue until no work is left, moving its clock to
    /// each task's deadline in turn; returns how many tasks ran. It stops
    /// after `max_tasks` tasks (0 means 1,000,000) when more are due (work
    /// that always schedules more, such as a repeating timer), and then
    /// returns an error of status `sys::SK_ERR_RESOURCE` (`max_tasks` tasks
    /// ran); otherwise the errors of
    /// [`Queue::advance_by`].
    pub fn run_virtual(&self, max_tasks: usize) -> Result<usize, Error> {
        let mut ran = 0usize;
        // Safety: a live queue.
        check(unsafe { sys::sk_queue_virtual_run(self.as_raw(), max_tasks, &mut ran) })?;
        Ok(ran)
    }

    /// A virtual-time queue's clock.
    pub fn now(&self) -> Result<Duration, Error> {
        let mut nanoseconds = 0i64;
        // Safety: a live queue.
        check(unsafe { sys::sk_queue_virtual_now(self.as_raw(), &mut nanoseconds) })?;
        Ok(Duration::from_nanos(nanoseconds.max(0) as u64))
    }
}

unsafe extern "C" fn run_once<F: FnOnce()>(ctx: *mut c_void) {
    if let Err(message) = ctx_ref::<FnCell<Option<F>>>(ctx).with(|f| f.take().map(|f| f())) {
        report_failure("work", &message);
    }
}

impl Clone for Queue {
    fn clone(&self) -> Queue {
        // Safety: a live queue.
        Queue { raw: unsafe { NonNull::new_unchecked(sys::sk_queue_retain(self.as_raw())) } }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // Safety: our reference.
        unsafe { sys::sk_queue_release(self.as_raw()) }
    }
}
