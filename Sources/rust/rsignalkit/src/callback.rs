//! How Rust closures become C callbacks: each is boxed into the `ctx` of
//! its callback set and dropped by the set's `release`; each call goes
//! through a [`FnCell`], which serialises the calls of an `FnMut` (the
//! library may call one callback set from several threads at once: puts on
//! several threads reach a subscriber concurrently), refuses a call that
//! re-enters it from inside itself, and catches a panic, so that no unwind
//! ever crosses into C.
//!
//! A caught panic is quiet: the panic hook this module installs (once, when
//! the first callback is made) passes a panic on to the hook that was
//! installed before it, unless it happens inside a callback of this crate
//! on the panicking thread (a thread-local count, raised around each
//! `catch_unwind`): its message travels on as the stream's error or goes to
//! the failure hook. `SIGNALKIT_RUST_PANIC_LOG=1` passes those on too, and
//! so does a build with `panic = "abort"`, where nothing can catch them.
use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Once, PoisonError, RwLock};
use std::time::Duration;

thread_local! {
    /// How many calls of this crate's callbacks run on this thread (nested
    /// ones each count): a panic while it is not 0 is caught. Its address
    /// is the thread's token ([`current_thread`]), so that the per-value
    /// path computes one thread-local address for both.
    static INSIDE: Cell<u32> = const { Cell::new(0) };
}

/// A number that tells the calling thread from the others (the address
/// of a thread-local): never 0 nor [`CLOSED`].
#[inline(always)]
fn thread_token() -> usize {
    INSIDE.with(|inside| inside as *const Cell<u32> as usize)
}

/// The lock word of a [`FnCell`] that will never be taken again (its
/// subscription ended): no thread's token, as those are addresses.
pub(crate) const CLOSED: usize = 1;

/// The lock word of a [`FnCell`] whose subscription is ending (its next
/// closure failed, and the library delivers the end after the value calls
/// in flight): a value never takes it again, the end does
/// ([`try_enter_end`](FnCell::try_enter_end)). No thread's token either.
pub(crate) const ENDING: usize = 2;

/// A closure called through C, at most one call at a time.
///
/// Its lock is one word, the token of the thread inside a call (0: none;
/// [`CLOSED`]: no call any more; [`ENDING`]: only the end's call):
/// taking it is one compare-and-swap, whose failure also tells a call that
/// re-enters the closure from inside itself (the word holds the caller's
/// own token) and a closed or ending cell from a call on another thread,
/// which waits, parked on `park` (a mutex and a condition variable used
/// only then). Letting it go is one store and one load: of
/// `attention`, the count of what the thread that lets go must see to
/// (callers parked, and the events a subscription kept for after the call:
/// [`flag`](FnCell::flag)), 0 on the per-value path.
pub(crate) struct FnCell<F> {
    owner: AtomicUsize,
    attention: AtomicUsize,
    park: Mutex<()>,
    wake: Condvar,
    f: UnsafeCell<F>,
}

// Safety: the closure is reached only by the thread whose token `owner`
// holds (see `try_enter`), one at a time; it moves between threads, hence
// `F: Send`.
unsafe impl<F: Send> Sync for FnCell<F> {}

impl<F> FnCell<F> {
    pub(crate) fn new(f: F) -> FnCell<F> {
        FnCell { owner: AtomicUsize::new(0), attention: AtomicUsize::new(0), park: Mutex::new(()), wake: Condvar::new(), f: UnsafeCell::new(f) }
    }

    /// Calls `call` with the closure; Err(message) when it panicked or was
    /// re-entered (called again from inside its own call). For a cell that
    /// is never closed.
    #[inline]
    pub(crate) fn with<R>(&self, call: impl FnOnce(&mut F) -> R) -> Result<R, String> {
        let me = thread_token();
        if let Err(current) = self.try_enter(me) {
            if current == me {
                return Err(reentered());
            }
            self.wait_for(me, false);
        }
        // Safety: `owner` holds this thread's token: no other call reaches
        // the closure until `leave`.
        let result = catching(|| call(unsafe { self.entered() }));
        if self.leave() {
            self.wake_one();
        }
        result
    }

    /// Takes the closure for the thread of token `me` if it is free;
    /// Err(what the word holds: the token of the thread inside a call, `me`
    /// for a re-entry, [`CLOSED`] or [`ENDING`]).
    #[inline(always)]
    pub(crate) fn try_enter(&self, me: usize) -> Result<(), usize> {
        self.owner.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed).map(|_| ())
    }

    /// [`try_enter`](FnCell::try_enter) for the end of a subscription,
    /// which also takes an [`ENDING`] cell; Err never holds [`ENDING`].
    pub(crate) fn try_enter_end(&self, me: usize) -> Result<(), usize> {
        match self.try_enter(me) {
            Err(ENDING) => self.owner.compare_exchange(ENDING, me, Ordering::Acquire, Ordering::Relaxed).map(|_| ()),
            taken => taken,
        }
    }

    /// The closure, for the thread that took it.
    ///
    /// # Safety
    /// The caller took the cell ([`try_enter`](FnCell::try_enter) or
    /// [`wait_for`](FnCell::wait_for)) and has not let it go; the
    /// reference does not outlive its [`leave`](FnCell::leave).
    #[inline(always)]
    #[allow(clippy::mut_from_ref)] // the cell's lock makes it unique
    pub(crate) unsafe fn entered(&self) -> &mut F {
        &mut *self.f.get()
    }

    /// Lets the closure go; true when something needs attention (a caller
    /// parked: [`wake_one`](FnCell::wake_one); a [`flag`](FnCell::flag)
    /// set). A plain store (the release of the compare-and-swap's acquire)
    /// and a load, no read-modify-write. The load may miss a caller that is
    /// just parking (nothing orders a store before a later load): that
    /// caller then finds the word free when its wait times out
    /// (`PARK_TIMEOUT`), a delay only where two threads race for one
    /// closure, for a value's path that takes one atomic instruction where
    /// two took about 10 ns more per call (W3, `make bench-rust`).
    #[inline(always)]
    #[must_use]
    pub(crate) fn leave(&self) -> bool {
        self.owner.store(0, Ordering::Release);
        self.attention.load(Ordering::Relaxed) > 0
    }

    /// Lets the closure go for good: no call takes it again (`try_enter`
    /// answers [`CLOSED`]); the callers parked are woken to see it.
    #[cold]
    pub(crate) fn close(&self) {
        self.let_go_as(CLOSED);
    }

    /// Lets the closure go to the end of its subscription alone: a value's
    /// call never takes it again (`try_enter` answers [`ENDING`]), the
    /// end's does ([`try_enter_end`](FnCell::try_enter_end)); the callers
    /// parked are woken to see it.
    #[cold]
    pub(crate) fn let_go_to_the_end(&self) {
        self.let_go_as(ENDING);
    }

    /// Stores `word` ([`CLOSED`], [`ENDING`]) and wakes every caller parked.
    fn let_go_as(&self, word: usize) {
        self.owner.store(word, Ordering::Release);
        if self.attention.load(Ordering::SeqCst) > 0 {
            drop(self.park.lock().unwrap_or_else(PoisonError::into_inner));
            self.wake.notify_all();
        }
    }

    /// Marks work for the thread that lets the closure go ([`leave`]
    /// answers true until [`unflag`](FnCell::unflag)).
    pub(crate) fn flag(&self) {
        self.attention.fetch_add(1, Ordering::SeqCst);
    }

    /// Clears one [`flag`](FnCell::flag).
    pub(crate) fn unflag(&self) {
        self.attention.fetch_sub(1, Ordering::SeqCst);
    }

    /// Waits, parked, until the closure is free, and takes it: true; false
    /// when the cell was closed, or is ending and `end` is false (nothing
    /// taken). `end`: the call is a subscription's end, which takes an
    /// ending cell ([`try_enter_end`](FnCell::try_enter_end)).
    #[cold]
    #[inline(never)]
    pub(crate) fn wait_for(&self, me: usize, end: bool) -> bool {
        self.attention.fetch_add(1, Ordering::SeqCst);
        let mut parked = self.park.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = loop {
            let attempt = if end { self.try_enter_end(me) } else { self.try_enter(me) };
            match attempt {
                Ok(()) => break true,
                Err(CLOSED) | Err(ENDING) => break false,
                Err(_) => parked = self.wake.wait_timeout(parked, PARK_TIMEOUT).unwrap_or_else(PoisonError::into_inner).0,
            }
        };
        drop(parked);
        self.attention.fetch_sub(1, Ordering::SeqCst);
        taken
    }

    /// Wakes one parked caller, if there is one. Taking `park` first orders
    /// this after a parked caller's failed compare-and-swap and its wait
    /// (which holds `park` in between), so that the wake-up is not lost.
    #[cold]
    #[inline(never)]
    pub(crate) fn wake_one(&self) {
        drop(self.park.lock().unwrap_or_else(PoisonError::into_inner));
        self.wake.notify_one();
    }
}

/// How long a caller waiting for a closure sleeps before it looks again
/// whether the closure is free, in case its wake-up was missed (see
/// `FnCell::leave`).
const PARK_TIMEOUT: Duration = Duration::from_millis(1);

/// The token of the calling thread, for [`FnCell::try_enter`].
#[inline(always)]
pub(crate) fn current_thread() -> usize {
    thread_token()
}

/// The message of a re-entered closure (off the per-value path).
#[cold]
#[inline(never)]
pub(crate) fn reentered() -> String {
    "a closure was called again from inside itself (an FnMut cannot be re-entered): \
     emit from another closure, or through a queue"
        .to_owned()
}

/// A function called through C that may run on several threads at once
/// (an operator's function, a generator): `Fn + Sync`, so no lock; a panic
/// is caught.
pub(crate) struct FnShared<F>(pub(crate) F);

impl<F> FnShared<F> {
    /// Calls `call` with the function; Err(message) when it panicked.
    #[inline]
    pub(crate) fn call<R>(&self, call: impl FnOnce(&F) -> R) -> Result<R, String> {
        catching(|| call(&self.0))
    }
}

/// Calls `call` as a callback of this crate: a panic is caught, and quiet
/// (see the module's documentation); Err(its message).
#[inline(always)]
pub(crate) fn catching<R>(call: impl FnOnce() -> R) -> Result<R, String> {
    catching_on(thread_token(), call)
}

/// [`catching`] on the thread of token `me` ([`current_thread`]), which the
/// caller read already: the token is the address of the thread's count of
/// calls inside, reached through it without a second thread-local lookup.
#[inline(always)]
pub(crate) fn catching_on<R>(me: usize, call: impl FnOnce() -> R) -> Result<R, String> {
    // Safety: `me` is this thread's token, the address of its INSIDE, which
    // lives as long as the thread; a Cell is not shared between threads.
    let inside = unsafe { &*(me as *const Cell<u32>) };
    inside.set(inside.get() + 1);
    let result = catch_unwind(AssertUnwindSafe(call));
    inside.set(inside.get() - 1);
    result.map_err(|payload| panic_message(&*payload))
}

/// The environment variable that, set to `1`, lets the panics caught in
/// callbacks reach the panic hook installed before this crate's.
pub(crate) const PANIC_LOG_VARIABLE: &str = "SIGNALKIT_RUST_PANIC_LOG";

static QUIET_PANICS: Once = Once::new();

/// Installs, once, the panic hook that keeps the panics of callbacks
/// quiet (see the module's documentation). Called where a callback is made
/// (its context boxed, a pointer value carried): one atomic load after the
/// first time.
#[inline]
pub(crate) fn quiet_panics() {
    // take_hook and set_hook panic on a panicking thread: the next
    // callback made installs it then.
    if !QUIET_PANICS.is_completed() && !std::thread::panicking() {
        QUIET_PANICS.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                let inside = INSIDE.try_with(Cell::get).unwrap_or(0) > 0;
                let log = std::env::var_os(PANIC_LOG_VARIABLE).map_or(false, |v| v == "1");
                if passes_on(inside, log, cfg!(panic = "abort")) {
                    previous(info)
                }
            }));
        });
    }
}

/// Whether the crate's panic hook passes a panic on to the hook installed
/// before it: one outside this crate's callbacks (`inside` false), one the
/// user asked to see (`log`, `SIGNALKIT_RUST_PANIC_LOG=1`), and every one
/// when panics abort (`aborts`, a build with `panic = "abort"`): nothing
/// catches it then, and its message is the only word of why the process
/// stopped.
pub(crate) fn passes_on(inside: bool, log: bool, aborts: bool) -> bool {
    !inside || log || aborts
}

/// The message of a panic's payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with a payload that is not a string".to_owned()
    };
    format!("panicked: {}", text)
}

/// Boxes `ctx` for a C callback set.
pub(crate) fn into_ctx<C: Send + 'static>(ctx: C) -> *mut c_void {
    quiet_panics();
    Box::into_raw(Box::new(ctx)) as *mut c_void
}

/// The release of a context made by [`into_ctx`]: drops it, on whatever
/// thread the library runs the release (hence `Send`).
pub(crate) unsafe extern "C" fn release_ctx<C>(ctx: *mut c_void) {
    if let Err(message) = catching(|| drop(Box::from_raw(ctx as *mut C))) {
        report_failure("release", &format!("the drop of a closure {}", message));
    }
}

/// Borrows a context made by [`into_ctx`].
///
/// # Safety
/// `ctx` must come from `into_ctx::<C>` and its release not have run.
#[inline]
pub(crate) unsafe fn ctx_ref<'a, C>(ctx: *mut c_void) -> &'a C {
    &*(ctx as *const C)
}

/// A failure hook: called with where the failure happened and its message.
pub type FailureHook = Box<dyn Fn(&str, &str) + Send + Sync>;

/// The hook as it is kept: shared, so that a report takes a copy of it
/// under the lock and calls it after letting the lock go (user code is
/// never called while a library lock is held: the hook may replace
/// itself, or report a failure of its own, while another thread replaces
/// it).
type SharedHook = Arc<dyn Fn(&str, &str) + Send + Sync>;
static HOOK: RwLock<Option<SharedHook>> = RwLock::new(None);

/// Sets the function that receives the failures no error event can carry,
/// with where the failure happened and its message, on the thread of the
/// failure. None restores the default, which prints
/// `signalkit: WHERE: MESSAGE` to standard error.
///
/// The hook runs with no lock of the library held: it may call
/// `set_failure_hook` itself (the new hook receives the next failure), and
/// a failure it causes reaches the hook in place then. A call that has
/// begun finishes with the hook it began with, even when another thread
/// replaces it meanwhile; the hook replaced is dropped after its last call.
/// A panic of the hook itself is caught, and the failure it was given is
/// printed to standard error with it:
/// `signalkit: WHERE: MESSAGE (the failure hook panicked: PANIC)`.
///
/// A panic in an operator's closure (`map`, `filter`, `scan`, ...) never
/// comes here: it ends the stream with the error `"panicked: MESSAGE"`.
/// What comes here, by `where`:
///
/// - `"before_next"`, `"after_next"`, `"before_started"`,
///   `"before_completed"`, `"after_completed"`, `"after_disposed"`: a panic
///   in that side effect, which the C library gives no way to fail;
/// - `"on_drop"`: a panic in a bounded operator's drop callback (same);
/// - `"unhandled error"`: an error event that no closure receives (a
///   [`subscribe`](crate::Signal::subscribe), an
///   [`Observer`](crate::Observer) without an error closure), with the
///   error's text;
/// - `"error"`, `"completed"`: a panic in an observer's error or completion
///   closure;
/// - `"dispose"`, `"work"`, `"timer"`: a panic in a
///   [`Disposable::action`](crate::Disposable::action)'s action, a queue's
///   work, a timer's closure;
/// - `"release"`: a closure or a carried value whose drop panicked
///   (`"the drop of a closure panicked: MESSAGE"`, `"the drop of a value
///   panicked: MESSAGE"`).
///
/// ```
/// use rsignalkit::{set_failure_hook, Signal};
/// use std::sync::{Arc, Mutex};
///
/// let reports = Arc::new(Mutex::new(Vec::new()));
/// let into = Arc::clone(&reports);
/// set_failure_hook(Some(Box::new(move |place, message| into.lock().unwrap().push(format!("{}: {}", place, message)))));
/// let tapped = Signal::single(1i64).before_next(|_| panic!("tap"));
/// assert_eq!(tapped.for_each_blocking(|_| ()), Ok(())); // the value still passes
/// set_failure_hook(None);
/// assert_eq!(*reports.lock().unwrap(), vec!["before_next: panicked: tap"]);
/// ```
pub fn set_failure_hook(hook: Option<FailureHook>) {
    let hook: Option<SharedHook> = hook.map(Arc::from);
    let replaced = std::mem::replace(&mut *HOOK.write().unwrap_or_else(PoisonError::into_inner), hook);
    // The hook replaced (its captures' drops are user code) goes once the
    // lock is let go: here, or after the last report still calling it.
    drop(replaced);
}

/// Gives a failure to the hook (never unwinds). The hook is called with
/// no lock held: the report takes a copy of it under the lock.
pub(crate) fn report_failure(place: &str, message: &str) {
    let hook = HOOK.read().unwrap_or_else(PoisonError::into_inner).clone();
    match hook {
        // The copy is dropped inside the catch: it may be the last one of
        // a hook replaced meanwhile.
        Some(hook) => {
            if let Err(panic) = catching(move || hook(place, message)) {
                print_failure(place, message, Some(&panic));
            }
        }
        None => print_failure(place, message, None),
    }
}

/// Prints a failure to standard error (the default hook), with the panic
/// of the hook that failed to take it. Through `eprintln!`, which a test
/// harness captures; it panics when standard error cannot be written: that
/// panic is caught, and the line lost.
fn print_failure(place: &str, message: &str, hook_panic: Option<&str>) {
    let _ = catching(|| match hook_panic {
        None => eprintln!("signalkit: {}: {}", place, message),
        Some(panic) => eprintln!("signalkit: {}: {} (the failure hook {})", place, message, panic),
    });
}

#[cfg(test)]
mod tests {
    use super::passes_on;

    /// The panic hook's choice: a caught panic stays quiet unless asked
    /// for, but under `panic = "abort"` every panic is printed, since it
    /// stops the process and nothing else says why.
    #[test]
    fn the_hook_passes_on_what_nothing_else_reports() {
        assert!(passes_on(false, false, false), "a panic outside callbacks");
        assert!(!passes_on(true, false, false), "a caught panic is quiet");
        assert!(passes_on(true, true, false), "SIGNALKIT_RUST_PANIC_LOG=1");
        assert!(passes_on(true, false, true), "panic = \"abort\": nothing catches it");
    }
}
