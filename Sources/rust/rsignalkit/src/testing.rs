//! Virtual time and marble tests (`signalkit_test.h`): a [`TestScheduler`]
//! is a virtual-time [`Queue`] with a frame size; [`cold`](TestScheduler::cold)
//! and [`hot`](TestScheduler::hot) make test signals from diagrams (`-` a
//! frame, a letter or digit a value, `|` the completion, `#` the error,
//! `(ab)` events of one frame, `^` a hot signal's subscription point).
//!
//! ```
//! use rsignalkit::testing::TestScheduler;
//! use std::sync::{Arc, Mutex};
//!
//! let scheduler = TestScheduler::new().unwrap();
//! let (source, _log) = scheduler.cold("-1-2|", &[('1', 1i64), ('2', 2)], &()).unwrap();
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let (into, clock) = (seen.clone(), scheduler.clone());
//! let _s = source
//!     .map(|x| x * 10)
//!     .subscribe(move |x| into.lock().unwrap().push((clock.frame_now(), x)))
//!     .unwrap();
//! scheduler.advance_to_frame(10).unwrap();
//! assert_eq!(*seen.lock().unwrap(), vec![(1, 10), (3, 20)]);
//! ```
use std::ffi::CString;
use std::fmt;
use std::os::raw::c_char;
use std::ptr::{self, NonNull};
use std::time::Duration;

use crate::error::{check, Error};
use crate::queue::Queue;
use crate::signal::{made, Signal};
use crate::sys;
use crate::value::{RawValue, Value};

/// The longest frame: the limit of the test signals and recorders
/// (`sk_test_signal_cold`, `sk_test_record`), checked when the scheduler is
/// made so that one they would refuse is not made.
const MAX_FRAME: Duration = Duration::from_secs(1_000_000_000);

/// A virtual-time queue and a frame size. Cloning shares the queue.
/// Thread-safety: `Send` and `Sync`; its work runs on the thread that
/// advances it.
#[derive(Clone, Debug)]
pub struct TestScheduler {
    queue: Queue,
    frame: Duration,
}

/// A test signal's subscription log ([`text`](SubscriptionLog::text)).
pub struct SubscriptionLog {
    raw: NonNull<sys::sk_test_subscriptions>,
}

// Safety: the log is thread-safe.
unsafe impl Send for SubscriptionLog {}
unsafe impl Sync for SubscriptionLog {}

impl fmt::Debug for SubscriptionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SubscriptionLog({:p})", self.raw)
    }
}

impl SubscriptionLog {
    /// When each subscription started and was disposed, in frames:
    /// "^0 !2 ^4" (one from frame 0 to 2, one from 4, still subscribed).
    pub fn text(&self) -> Result<String, Error> {
        let mut length = 0usize;
        // Safety: a live log; a NULL buffer of size 0 asks for the length.
        check(unsafe { sys::sk_test_subscriptions_text(self.raw.as_ptr(), ptr::null_mut(), 0, &mut length) })?;
        let mut buffer = vec![0u8; length + 1];
        check(unsafe {
            sys::sk_test_subscriptions_text(self.raw.as_ptr(), buffer.as_mut_ptr() as *mut c_char, buffer.len(), &mut length)
        })?;
        buffer.truncate(length);
        Ok(String::from_utf8_lossy(&buffer).into_owned())
    }
}

impl Drop for SubscriptionLog {
    fn drop(&mut self) {
        // Safety: our reference.
        unsafe { sys::sk_test_subscriptions_release(self.raw.as_ptr()) }
    }
}

type TestSignalFn = unsafe extern "C" fn(
    *mut *mut sys::sk_signal,
    *mut *mut sys::sk_test_subscriptions,
    *mut sys::sk_queue,
    f64,
    *const c_char,
    *const sys::sk_marble_value,
    usize,
    *const sys::sk_value,
) -> i32;

impl TestScheduler {
    /// A scheduler whose frame is 1 ms of virtual time.
    pub fn new() -> Result<TestScheduler, Error> {
        TestScheduler::with_frame(Duration::from_millis(1))
    }

    /// A scheduler with frames of `frame`: `Err(InvalidArgument)` for a
    /// frame of zero or longer than 1e9 seconds (the range of the test
    /// signals and recorders, `signalkit_test.h`), as C and Python refuse it.
    pub fn with_frame(frame: Duration) -> Result<TestScheduler, Error> {
        if frame.is_zero() || frame > MAX_FRAME {
            return Err(Error::new(
                sys::SK_ERR_INVALID_ARGUMENT,
                format!("signalkit: a frame of {:?} is out of range (from 1 ns to 1e9 seconds)", frame),
            ));
        }
        Ok(TestScheduler { queue: Queue::virtual_time("signalkit.testing")?, frame })
    }

    /// The virtual-time queue (give it to the timed operators).
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    /// `frames` frames as a duration (it always fits: a frame is at most
    /// 1e9 seconds).
    pub fn frames(&self, frames: u32) -> Duration {
        self.frame * frames
    }

    /// The clock, in whole frames.
    pub fn frame_now(&self) -> u64 {
        let now = self.queue.now().map(|d| d.as_nanos()).unwrap_or(0);
        (now / self.frame.as_nanos().max(1)) as u64
    }

    /// Moves the clock to frame `frame`, running what falls due: the
    /// errors of [`Queue::advance_to`] (a frame past the clock's end,
    /// 2^63 ns, is `InvalidArgument`).
    pub fn advance_to_frame(&self, frame: u32) -> Result<usize, Error> {
        self.queue.advance_to(self.frames(frame))
    }

    /// Runs `work` at frame `frame` (counted from the clock's 0): the
    /// errors of [`Queue::after`].
    pub fn schedule<F: FnOnce() + Send + 'static>(&self, frame: u32, work: F) -> Result<(), Error> {
        let at = self.frames(frame).saturating_sub(self.queue.now()?);
        self.queue.after(at, work)
    }

    fn test_signal<T: Value, E: Value>(
        &self,
        make: TestSignalFn,
        diagram: &str,
        values: &[(char, T)],
        error: &E,
    ) -> Result<(Signal<T>, SubscriptionLog), Error> {
        let diagram = CString::new(diagram)
            .map_err(|_| Error::new(sys::SK_ERR_INVALID_ARGUMENT, "signalkit: a diagram with a NUL byte"))?;
        let raw_values = values.iter().map(|(_, v)| v.to_value()).collect::<Result<Vec<RawValue>, _>>()?;
        let mut table = Vec::with_capacity(values.len());
        for ((symbol, _), value) in values.iter().zip(&raw_values) {
            if !symbol.is_ascii_alphanumeric() {
                return Err(Error::new(sys::SK_ERR_INVALID_ARGUMENT, format!("signalkit: the symbol {:?} is not an ASCII letter or digit", symbol)));
            }
            // Safety: the table borrows the values, alive until the call returns.
            table.push(sys::sk_marble_value { symbol: *symbol as u8 as c_char, value: unsafe { *value.as_ptr() } });
        }
        let error = error.to_value()?;
        let mut out = ptr::null_mut();
        let mut log = ptr::null_mut();
        // Safety: every pointer is valid for the call; values are copied.
        let status = unsafe {
            make(&mut out, &mut log, self.queue.as_raw(), self.frame.as_secs_f64(), diagram.as_ptr(), table.as_ptr(), table.len(), error.as_ptr())
        };
        let signal = made(status, out)?;
        Ok((signal, SubscriptionLog { raw: NonNull::new(log).expect("signalkit: NULL log") }))
    }

    /// A cold test signal: each subscription plays `diagram` from its own
    /// start. `values` says what each character stands for; `#` fails with
    /// `error`.
    pub fn cold<T: Value, E: Value>(&self, diagram: &str, values: &[(char, T)], error: &E) -> Result<(Signal<T>, SubscriptionLog), Error> {
        self.test_signal(sys::sk_test_signal_cold, diagram, values, error)
    }

    /// A hot test signal: `diagram` plays once, from now (its `^`), to
    /// whoever is subscribed.
    pub fn hot<T: Value, E: Value>(&self, diagram: &str, values: &[(char, T)], error: &E) -> Result<(Signal<T>, SubscriptionLog), Error> {
        self.test_signal(sys::sk_test_signal_hot, diagram, values, error)
    }
}
