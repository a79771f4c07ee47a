//! Errors: a status of the C library and its message.
use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_int;

use crate::sys;

/// A failed call: the C library's status (a negative `sk_status`) and the
/// message it gave, which names the function and the argument
/// ("sk_signal_map: the pipeline would be 513 operators deep ...").
///
/// Thread-safety: a plain value, `Send` and `Sync`.
///
/// ```
/// let error = rsignalkit::Queue::concurrent(2000, "too many").err().unwrap();
/// assert_eq!(error.status(), rsignalkit::sys::SK_ERR_INVALID_ARGUMENT);
/// assert!(error.message().contains("max_workers"), "{}", error);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    status: i32,
    message: String,
}

impl Error {
    /// An error of `status` with `message` (for values that cannot convert,
    /// and for callers of [`sys`](crate::sys) that want one).
    pub fn new(status: i32, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }

    /// The error of the call that just returned `status` on this thread: its
    /// message is the thread's last error message.
    #[cold]
    #[inline(never)]
    pub(crate) fn last(status: c_int) -> Error {
        // Safety: the message is a thread-local NUL-terminated string the
        // library owns until the next failing call on this thread: copied
        // at once.
        let message = unsafe { CStr::from_ptr(sys::sk_last_error_message()) }.to_string_lossy().into_owned();
        Error { status, message }
    }

    /// The status: a negative `sk_status` (`sys::SK_ERR_*`).
    pub fn status(&self) -> i32 {
        self.status
    }

    /// The library's message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The status in a few words ("null argument", "wrong kind", ...).
    pub fn status_string(&self) -> &'static str {
        status_string(self.status)
    }
}

/// A status in a few words, as the library says it (`sk_status_string`).
pub fn status_string(status: i32) -> &'static str {
    // Safety: a static string of the library, for any int.
    unsafe { CStr::from_ptr(sys::sk_status_string(status)) }.to_str().unwrap_or("unknown status")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.status_string())
    }
}

impl std::error::Error for Error {}

/// `Ok(())` for SK_OK, else the thread's last error.
#[inline]
pub(crate) fn check(status: c_int) -> Result<(), Error> {
    if status == sys::SK_OK {
        Ok(())
    } else {
        Err(Error::last(status))
    }
}
