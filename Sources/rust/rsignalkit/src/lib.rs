//! SignalKit for Rust: typed reactive signals over libsignalkit's C ABI.
//!
//! A [`Signal<T>`] is a cold stream of `T`s ending with at most one error
//! or completion; [`Pipe`], [`Promise`] and [`ValuePromise`] are hot
//! sources; operators are methods that chain (`s.map(..).filter(..)`);
//! [`Signal::subscribe`] hands back a [`Subscription`] that cancels when
//! dropped. Values cross the C boundary through the [`Value`] trait; every
//! closure the library keeps is `Send + 'static`, because it may call it
//! from any thread; a panic in one never unwinds into C: in an operator's closure
//! it fails the call as C does (`sk_callback_fail`), so that the stream
//! ends with the error `"panicked: MESSAGE"` and nothing after it; where C
//! gives the callback no way to fail (a side effect), it goes to the
//! failure hook ([`set_failure_hook`]). Caught panics are quiet (the guide's
//! "Errors and panics": `SIGNALKIT_RUST_PANIC_LOG=1` prints them).
//!
//! ```
//! use rsignalkit::Pipe;
//! use std::sync::{Arc, Mutex};
//!
//! let pipe = Pipe::<i64>::new().unwrap();
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let into = Arc::clone(&seen);
//! let subscription = pipe
//!     .signal()
//!     .map(|x| x * 10)
//!     .filter(|x| *x > 10)
//!     .subscribe(move |x| into.lock().unwrap().push(x))
//!     .unwrap();
//! for x in 1..=3 {
//!     pipe.put(x).unwrap();
//! }
//! drop(subscription);
//! assert_eq!(*seen.lock().unwrap(), vec![20, 30]);
//! ```
//!
//! The raw C interface, generated from api.json, is [`sys`]: the crate
//! rsignalkit-sys, which also finds and links the library.
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

mod callback;
mod error;
mod operators;
mod queue;
mod signal;
mod stream;
mod subject;
pub mod testing;
mod value;

pub use callback::{set_failure_hook, FailureHook};
pub use rsignalkit_sys as sys;

/// The Rust guide (SignalKit's docs/rust.md, of which this crate carries a
/// copy), whose examples are this module's doc tests.
#[doc = include_str!("guide.md")]
pub mod guide {}
pub use error::{status_string, Error};
pub use operators::{Overflow, TakeAction};
pub use queue::Queue;
pub use signal::{Disposable, Observer, Signal, Subscriber, Subscription};
pub use stream::{Next, Ready, Room, SignalStream};
pub use subject::{without_waiting_for_room, Pipe, Promise, ValuePromise};
pub use value::{AnyValue, Opaque, RawValue, Value, ValueRef};

use std::ffi::CStr;

/// The version of the library loaded at run time ("0.4.0").
///
/// ```
/// let v = rsignalkit::version();
/// assert_eq!(v.split('.').count(), 3);
/// ```
pub fn version() -> &'static str {
    // Safety: a static string of the library.
    unsafe { CStr::from_ptr(sys::sk_version_string()) }.to_str().unwrap_or("?")
}

/// The number of library objects alive (handles, heap values, the
/// callbacks it holds): 0 once everything was released and every
/// subscription ended.
///
/// ```
/// let before = rsignalkit::live_objects();
/// let pipe = rsignalkit::Pipe::<i64>::new().unwrap();
/// assert!(rsignalkit::live_objects() > before);
/// drop(pipe);
/// assert_eq!(rsignalkit::live_objects(), before);
/// ```
#[allow(clippy::useless_conversion)] // c_long is i32 on some targets
pub fn live_objects() -> i64 {
    // Safety: no argument.
    i64::from(unsafe { sys::sk_live_objects() })
}

/// Waits until at most `at_most` library objects are alive and no release
/// of the library's runs, or `timeout` has passed (`sk_live_objects_wait`):
/// for leak checks and the end of a test or a program, since a
/// subscription whose last event came from a library thread is released
/// there a moment after its callback returned. Woken by the releases
/// themselves, no polling; `Ok` at once when the count is low enough. An
/// `Err` with `SK_ERR_BUSY` when the time passed first (its message says
/// how many objects are alive). Blocks the calling thread; called from a
/// callback of the library it cannot see that callback's own subscription
/// released (concepts.md, "Where a call can wait").
///
/// ```
/// use std::time::Duration;
/// let before = rsignalkit::live_objects();
/// let pipe = rsignalkit::Pipe::<i64>::new().unwrap();
/// let queue = rsignalkit::Queue::serial("waits").unwrap();
/// let subscription = pipe.signal().deliver_on(&queue).start(rsignalkit::Observer::new()).unwrap();
/// pipe.put(1).unwrap();
/// drop(subscription);
/// drop(pipe);
/// drop(queue);
/// rsignalkit::live_objects_wait(before, Duration::from_secs(30)).unwrap();
/// assert_eq!(rsignalkit::live_objects(), before);
/// let busy = rsignalkit::live_objects_wait(-1, Duration::ZERO).unwrap_err();
/// assert_eq!(busy.status(), rsignalkit::sys::SK_ERR_BUSY);
/// ```
pub fn live_objects_wait(at_most: i64, timeout: std::time::Duration) -> Result<(), Error> {
    let at_most = std::os::raw::c_long::try_from(at_most).unwrap_or(std::os::raw::c_long::MAX);
    // Safety: plain values; the call blocks this thread only.
    error::check(unsafe { sys::sk_live_objects_wait(at_most, timeout.as_secs_f64()) })
}
