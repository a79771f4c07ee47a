//! The operators, as methods of [`Signal`]: each takes `self` borrowed and
//! returns a new signal. A function given to an operator is boxed into the
//! operator's `ctx` and dropped by its `release`, when the returned signal
//! and all its subscriptions are gone. It runs on the thread that delivers
//! each value (any thread: hence `Send + 'static`), for every subscription
//! of the signal, and so possibly on several threads at once: it is an
//! `Fn + Sync`, called without a lock. State that belongs to one
//! subscription goes into `scan` (the library keeps its accumulator per
//! subscription); state shared on purpose goes into an atomic or a `Mutex`
//! of its own. (A subscription's own closures, which one subscription alone
//! calls, are `FnMut`: [`Observer`](crate::Observer).)
//!
//! A panic in a closure that makes a value or a signal (`map`, `scan`,
//! `reduce`, `group_by`'s key, `map_to_signal`, `merge_map`, `catch`,
//! `deferred`) travels on as a failure value and ends the subscription that
//! receives it with [`AnyValue::Failure`]. A panic in a predicate
//! (`filter`, `skip_while`, `take_while`, `first_where`) or in
//! `take_until`'s function fails the call (`sk_callback_fail`): the
//! subscription ends with [`AnyValue::Failure`] too. A side effect cannot
//! fail in C: its panic goes to the failure hook
//! ([`crate::set_failure_hook`]).
//!
//! The operators of a standard shape (the C function's parameters after
//! the signal: none, a count, a predicate, a value, a signal, a time and a
//! queue, ...) are generated from the operator table into the module
//! `standard` (`make api-update`); the others are written here.
//!
//! An operator the library refuses (a pipeline deeper than
//! `SK_SIGNAL_MAX_DEPTH`, the timers' descriptors refused) gives a signal
//! that fails at once with the library's message, so that operators chain
//! without `?`.
use std::os::raw::{c_int, c_void};
use std::ptr;
use std::time::Duration;

use crate::callback::{ctx_ref, into_ctx, release_ctx, report_failure, FnShared};
use crate::queue::{seconds, Queue};
use crate::signal::{operator, Signal};
use crate::sys;
use crate::value::{failure_value, AnyValue, RawValue, Value, ValueRef};

mod standard;

/// What `take_until`'s function decides about a value.
///
/// ```
/// use signalkit::{Signal, TakeAction};
/// let s = Signal::concat(&[Signal::single(1i64), Signal::single(20), Signal::single(3)]);
/// let small = s.take_until(|x| if *x < 10 { TakeAction::PASS } else { TakeAction::COMPLETE });
/// let mut got = Vec::new();
/// small.for_each_blocking(|v| got.push(v)).unwrap();
/// assert_eq!(got, vec![1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TakeAction {
    /// Deliver the value.
    pub pass: bool,
    /// Then complete.
    pub complete: bool,
}

impl TakeAction {
    /// Deliver the value and go on.
    pub const PASS: TakeAction = TakeAction { pass: true, complete: false };
    /// Drop the value and go on.
    pub const DROP: TakeAction = TakeAction { pass: false, complete: false };
    /// Deliver the value, then complete.
    pub const PASS_AND_COMPLETE: TakeAction = TakeAction { pass: true, complete: true };
    /// Complete without the value.
    pub const COMPLETE: TakeAction = TakeAction { pass: false, complete: true };
}

type Ctx = *mut c_void;
type Release = sys::sk_release_fn;

/// An operator taking a closure's context. A closure that captures
/// nothing (zero-sized, nothing to drop) needs no box and no release: the
/// library then keeps the stage without a context to let go of, as it does
/// for a C function given a NULL release (its cheapest form).
fn with_ctx<U, C: Send + 'static>(ctx: C, call: impl FnOnce(*mut *mut sys::sk_signal, Ctx, Release) -> c_int) -> Signal<U> {
    if std::mem::size_of::<C>() == 0 && !std::mem::needs_drop::<C>() {
        std::mem::forget(ctx);
        // A zero-sized value lives at any aligned address: ctx_ref reads
        // no byte of it.
        let dangling = std::ptr::NonNull::<C>::dangling().as_ptr() as Ctx;
        return operator(|out| call(out, dangling, None));
    }
    let ctx = into_ctx(ctx);
    // The library runs release_ctx also when the call fails.
    operator(|out| call(out, ctx, Some(release_ctx::<C>)))
}

/// The value of a failure, or of a value that did not convert.
#[inline(always)]
fn converted<T: Value>(value: ValueRef<'_>) -> Result<T, RawValue> {
    if T::FAST_REFUSES_FAILURES {
        // A primitive: any other kind of value is off this path.
        match T::from_value_fast(value) {
            Some(value) => Ok(value),
            None => converted_other(value),
        }
    } else {
        converted_checked(value)
    }
}

/// `converted` for a value that is no `T` at once.
#[cold]
#[inline(never)]
fn converted_other<T: Value>(value: ValueRef<'_>) -> Result<T, RawValue> {
    converted_checked(value)
}

#[inline(always)]
fn converted_checked<T: Value>(value: ValueRef<'_>) -> Result<T, RawValue> {
    if value.failure().is_some() {
        return Err(RawValue::copy_of(value));
    }
    match T::from_value_fast(value) {
        Some(value) => Ok(value),
        None => Err(not_converted::<T>(value)),
    }
}

/// The failure value of a value that did not convert, with the message.
#[cold]
#[inline(never)]
fn not_converted<T: Value>(value: ValueRef<'_>) -> RawValue {
    match T::from_value(value) {
        Ok(_) => failure_value("signalkit: a value converted only on a second try".to_owned()),
        Err(e) => failure_value(e.message().to_owned()),
    }
}

#[inline]
fn to_out<U: Value>(result: Result<U, String>) -> RawValue {
    match result {
        Ok(value) => value.to_value().unwrap_or_else(|e| failure_value(e.message().to_owned())),
        Err(message) => failure_value(message),
    }
}

unsafe extern "C" fn map_fn<T: Value, U: Value, F: Fn(T) -> U>(ctx: Ctx, value: *const sys::sk_value, out: *mut sys::sk_value) {
    let result = match converted::<T>(ValueRef::from_ptr(value)) {
        Ok(value) => to_out(ctx_ref::<FnShared<F>>(ctx).call(|f| f(value))),
        Err(failure) => failure,
    };
    ptr::write(out, result.into_raw());
}

unsafe extern "C" fn key_fn<T: Value, K: Value, F: Fn(&T) -> K>(ctx: Ctx, value: *const sys::sk_value, out: *mut sys::sk_value) {
    let result = match converted::<T>(ValueRef::from_ptr(value)) {
        Ok(value) => to_out(ctx_ref::<FnShared<F>>(ctx).call(|f| f(&value))),
        Err(failure) => failure,
    };
    ptr::write(out, result.into_raw());
}

/// A predicate; `ON_FAILURE` is its answer for a failure value, chosen so
/// that the failure goes on to where it ends the subscription.
unsafe extern "C" fn predicate_fn<T: Value, F: Fn(&T) -> bool, const ON_FAILURE: bool>(
    ctx: Ctx,
    value: *const sys::sk_value,
) -> bool {
    match converted::<T>(ValueRef::from_ptr(value)) {
        Ok(value) => match ctx_ref::<FnShared<F>>(ctx).call(|f| f(&value)) {
            Ok(answer) => answer,
            Err(message) => {
                fail_call("predicate", message);
                false
            }
        },
        Err(_) => ON_FAILURE,
    }
}

/// A panic in an operator callback that has no result to carry a failure
/// value (a predicate, `take_until`'s function): the call fails
/// (`sk_callback_fail`), so that the subscription ends with
/// `AnyValue::Failure(message)`; its answer is ignored. Where the library
/// refuses (it runs no operator callback there), the failure hook.
fn fail_call(place: &str, message: String) {
    let failure = failure_value(message.clone());
    // Safety: a valid value, borrowed for the call (the library copies it).
    if unsafe { sys::sk_callback_fail(failure.as_ptr()) } != sys::SK_OK {
        report_failure(place, &message);
    }
}

unsafe extern "C" fn take_until_fn<T: Value, F: Fn(&T) -> TakeAction>(ctx: Ctx, value: *const sys::sk_value) -> c_int {
    let bits = |action: TakeAction| {
        (if action.pass { sys::SK_TAKE_PASS } else { 0 } | if action.complete { sys::SK_TAKE_COMPLETE } else { 0 }) as c_int
    };
    match converted::<T>(ValueRef::from_ptr(value)) {
        Ok(value) => match ctx_ref::<FnShared<F>>(ctx).call(|f| f(&value)) {
            Ok(action) => bits(action),
            Err(message) => {
                fail_call("take_until", message);
                bits(TakeAction::COMPLETE)
            }
        },
        Err(_) => bits(TakeAction::PASS_AND_COMPLETE),
    }
}

unsafe extern "C" fn reduce_fn<T: Value, U: Value, F: Fn(U, T) -> U>(
    ctx: Ctx,
    accumulator: *const sys::sk_value,
    value: *const sys::sk_value,
    out: *mut sys::sk_value,
) {
    let result = match (converted::<U>(ValueRef::from_ptr(accumulator)), converted::<T>(ValueRef::from_ptr(value))) {
        (Err(failure), _) | (_, Err(failure)) => failure,
        (Ok(accumulator), Ok(value)) => to_out(ctx_ref::<FnShared<F>>(ctx).call(|f| f(accumulator, value))),
    };
    ptr::write(out, result.into_raw());
}

fn failing_signal(error: RawValue) -> *mut sys::sk_signal {
    let mut out = ptr::null_mut();
    // Safety: valid arguments: sk_signal_fail does not fail.
    unsafe { sys::sk_signal_fail(&mut out, error.as_ptr()) };
    out
}

fn signal_result<U>(result: Result<Signal<U>, String>) -> *mut sys::sk_signal {
    match result {
        Ok(signal) => signal.into_raw(),
        Err(message) => failing_signal(failure_value(message)),
    }
}

unsafe extern "C" fn signal_fn<T: Value, U: Value, F: Fn(T) -> Signal<U>>(ctx: Ctx, value: *const sys::sk_value) -> *mut sys::sk_signal {
    match converted::<T>(ValueRef::from_ptr(value)) {
        Ok(value) => signal_result(ctx_ref::<FnShared<F>>(ctx).call(|f| f(value))),
        Err(failure) => failing_signal(failure),
    }
}

unsafe extern "C" fn catch_fn<T: Value, F: Fn(AnyValue) -> Signal<T>>(ctx: Ctx, error: *const sys::sk_value) -> *mut sys::sk_signal {
    let error = AnyValue::from_value(ValueRef::from_ptr(error));
    signal_result(ctx_ref::<FnShared<F>>(ctx).call(|f| f(error)))
}

unsafe extern "C" fn deferred_fn<T: Value, F: Fn() -> Signal<T>>(ctx: Ctx) -> *mut sys::sk_signal {
    signal_result(ctx_ref::<FnShared<F>>(ctx).call(|f| f()))
}

unsafe extern "C" fn value_fn<T: Value, F: Fn(&T)>(ctx: Ctx, value: *const sys::sk_value) {
    if let Ok(value) = converted::<T>(ValueRef::from_ptr(value)) {
        if let Err(message) = ctx_ref::<FnShared<F>>(ctx).call(|f| f(&value)) {
            report_failure("side effect", &message);
        }
    }
}

unsafe extern "C" fn work_fn<F: Fn()>(ctx: Ctx) {
    if let Err(message) = ctx_ref::<FnShared<F>>(ctx).call(|f| f()) {
        report_failure("side effect", &message);
    }
}

fn raw_list<T>(signals: &[Signal<T>]) -> Vec<*mut sys::sk_signal> {
    signals.iter().map(Signal::as_raw).collect()
}

fn value_or_refused<T: Value, U>(value: &T, then: impl FnOnce(&RawValue) -> Signal<U>) -> Signal<U> {
    match value.to_value() {
        Ok(raw) => then(&raw),
        Err(error) => Signal::refused(error),
    }
}

fn queue_ptr(queue: Option<&Queue>) -> *mut sys::sk_queue {
    queue.map_or(ptr::null_mut(), Queue::as_raw)
}

/// # Taking: the operators whose C function takes more than a shape
impl<T: Value> Signal<T> {
    /// Values as `f` decides ([`TakeAction`]): pass or drop each, complete
    /// after it or not.
    pub fn take_until<F: Fn(&T) -> TakeAction + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_take_until(out, self.as_raw(), Some(take_until_fn::<T, F>), ctx, release)
        })
    }

    /// Values while `f` answers true, then the completion (with the first
    /// value that failed it when `inclusive`).
    pub fn take_while<F: Fn(&T) -> bool + Send + Sync + 'static>(&self, inclusive: bool, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_take_while(out, self.as_raw(), Some(predicate_fn::<T, F, true>), ctx, release, inclusive)
        })
    }
}

/// # Pairs and arrays
impl<T: Value> Signal<T> {
    /// Each value with the one before it.
    pub fn pairwise(&self) -> Signal<(T, T)> {
        operator(|out| unsafe { sys::sk_signal_pairwise(out, self.as_raw()) })
    }

    /// Arrays of `count` values (the last one shorter, at the completion).
    pub fn buffer_count(&self, count: usize) -> Signal<Vec<T>> {
        operator(|out| unsafe { sys::sk_signal_buffer_count(out, self.as_raw(), count) })
    }
}

/// # Combining: pairs, arrays, one type
impl<T: Value> Signal<T> {
    /// Arrays of the n-th value of each signal.
    pub fn zip(signals: &[Signal<T>]) -> Signal<Vec<T>> {
        let raw = raw_list(signals);
        operator(|out| unsafe { sys::sk_signal_zip(out, raw.as_ptr(), raw.len()) })
    }

    /// Pairs of the n-th values of `self` and `other`.
    pub fn zip_with<U: Value>(&self, other: &Signal<U>) -> Signal<(T, U)> {
        let raw = [self.as_raw(), other.as_raw()];
        operator(|out| unsafe { sys::sk_signal_zip(out, raw.as_ptr(), 2) })
    }

    /// Arrays of the latest value of each signal, once all have emitted
    /// (delivered on `queue` when given).
    pub fn combine_latest(signals: &[Signal<T>], queue: Option<&Queue>) -> Signal<Vec<T>> {
        let raw = raw_list(signals);
        operator(|out| unsafe { sys::sk_signal_combine_latest(out, raw.as_ptr(), raw.len(), queue_ptr(queue)) })
    }

    /// Pairs of the latest values of `self` and `other`.
    pub fn combine_latest_with<U: Value>(&self, other: &Signal<U>) -> Signal<(T, U)> {
        let raw = [self.as_raw(), other.as_raw()];
        operator(|out| unsafe { sys::sk_signal_combine_latest(out, raw.as_ptr(), 2, ptr::null_mut()) })
    }

    /// Each value with the latest of `other` (values before `other`'s first
    /// are dropped).
    pub fn with_latest_from<U: Value>(&self, other: &Signal<U>) -> Signal<(T, U)> {
        operator(|out| unsafe { sys::sk_signal_with_latest_from(out, self.as_raw(), other.as_raw()) })
    }

    /// This signal, then `next`.
    pub fn then(&self, next: &Signal<T>) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_then(out, self.as_raw(), next.as_raw()) })
    }
}

/// # Meta operators: signals from a closure, groups
impl<T: Value> Signal<T> {
    /// Maps each value to a signal and follows the latest one.
    pub fn map_to_signal<U: Value, F: Fn(T) -> Signal<U> + Send + Sync + 'static>(&self, f: F) -> Signal<U> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_map_to_signal(out, self.as_raw(), Some(signal_fn::<T, U, F>), ctx, release)
        })
    }

    /// Maps each value to a signal, at most `max_concurrent` running at once
    /// (the others wait, in order); 1 runs them one after the other.
    pub fn merge_map<U: Value, F: Fn(T) -> Signal<U> + Send + Sync + 'static>(&self, max_concurrent: usize, f: F) -> Signal<U> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_merge_map(out, self.as_raw(), max_concurrent, Some(signal_fn::<T, U, F>), ctx, release)
        })
    }

    /// Groups values by the key `f` gives: emits `(key, group)` for each new
    /// key; a group is hot (subscribe from the closure that receives it).
    pub fn group_by<K: Value, F: Fn(&T) -> K + Send + Sync + 'static>(&self, f: F) -> Signal<(K, Signal<T>)> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_group_by(out, self.as_raw(), Some(key_fn::<T, K, F>), ctx, release)
        })
    }

    /// A signal made by `f` at each start.
    pub fn deferred<F: Fn() -> Signal<T> + Send + Sync + 'static>(f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_deferred(out, Some(deferred_fn::<T, F>), ctx, release)
        })
    }
}

/// # Signals of signals
impl<T: Value> Signal<Signal<T>> {
    /// Follows the latest signal.
    pub fn switch_to_latest(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_switch_to_latest(out, self.as_raw()) })
    }

    /// Runs the signals one after the other.
    pub fn queue(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_queue(out, self.as_raw()) })
    }

    /// One at a time, keeping only the latest waiting.
    pub fn throttled(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_throttled(out, self.as_raw()) })
    }
}

/// # Errors and loops: a closure of the error, a retry
impl<T: Value> Signal<T> {
    /// On an error, continues with the signal `f` makes of it.
    pub fn catch<F: Fn(AnyValue) -> Signal<T> + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_catch(out, self.as_raw(), Some(catch_fn::<T, F>), ctx, release)
        })
    }

    /// Retries after each error, waiting `increment` more each time, at most
    /// `max_delay`, on `queue`.
    pub fn retry(&self, increment: Duration, max_delay: Duration, queue: &Queue) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_retry(out, self.as_raw(), seconds(increment), seconds(max_delay), queue.as_raw()) })
    }

    /// Retries at most `count` times, after `delay` on `queue` (None: at
    /// once), then lets the error through.
    pub fn retry_count(&self, count: usize, delay: Option<(Duration, &Queue)>) -> Signal<T> {
        let (delay, queue) = delay.map_or((0.0, ptr::null_mut()), |(d, q)| (seconds(d), q.as_raw()));
        operator(|out| unsafe { sys::sk_signal_retry_count(out, self.as_raw(), count, delay, queue) })
    }
}

/// # Time: an alternate, arrays
impl<T: Value> Signal<T> {
    /// Switches to `alternate` when no event came within `limit`.
    pub fn timeout(&self, limit: Duration, queue: &Queue, alternate: &Signal<T>) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_timeout(out, self.as_raw(), seconds(limit), queue.as_raw(), alternate.as_raw()) })
    }

    /// Arrays of the values of each `window`.
    pub fn buffer_time(&self, window: Duration, queue: &Queue) -> Signal<Vec<T>> {
        operator(|out| unsafe { sys::sk_signal_buffer_time(out, self.as_raw(), seconds(window), queue.as_raw()) })
    }
}

/// What a bounded buffer does with a value that finds it full
/// (`sk_overflow`; the policies are RxJava's and Akka Streams').
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Overflow {
    /// The incoming value is dropped.
    DropNewest,
    /// The oldest waiting value is dropped to make room.
    DropOldest,
    /// The newest waiting value is replaced by the incoming one (with a
    /// capacity of 1, only the latest waits).
    Latest,
    /// The stream fails with an error naming the operator and the capacity,
    /// after the waiting values.
    Error,
    /// The producing thread waits for room; where waiting would deadlock (the
    /// delivering thread, a host-drained or virtual-time queue) the stream
    /// fails instead.
    Block,
}

impl Overflow {
    fn raw(self) -> sys::sk_overflow {
        match self {
            Overflow::DropNewest => sys::SK_OVERFLOW_DROP_NEWEST,
            Overflow::DropOldest => sys::SK_OVERFLOW_DROP_OLDEST,
            Overflow::Latest => sys::SK_OVERFLOW_LATEST,
            Overflow::Error => sys::SK_OVERFLOW_ERROR,
            Overflow::Block => sys::SK_OVERFLOW_BLOCK,
        }
    }
}

unsafe extern "C" fn drop_fn<T: Value, F: Fn(&T, u64)>(ctx: Ctx, value: *const sys::sk_value, dropped: u64) {
    if let Ok(value) = converted::<T>(ValueRef::from_ptr(value)) {
        if let Err(message) = ctx_ref::<FnShared<F>>(ctx).call(|f| f(&value, dropped)) {
            report_failure("drop callback", &message);
        }
    }
}

/// # Bounded buffers
///
/// Where a consumer is slower than its producer, at most `capacity` values
/// wait and `overflow` says what happens to the next (docs/concepts.md,
/// "Where values can queue"). The `_with` forms call `on_drop` with each
/// value dropped and the subscription's count of drops so far, on the thread
/// whose put dropped it.
impl<T: Value> Signal<T> {
    /// At most `capacity` values waiting while a delivery is in progress
    /// (values put by other threads, or from inside the delivery), the
    /// delivering thread delivering them in order (`sk_signal_on_backpressure_buffer`).
    /// A capacity of 0 fails the signal with `InvalidArgument`.
    pub fn on_backpressure_buffer(&self, capacity: usize, overflow: Overflow) -> Signal<T> {
        operator(|out| unsafe {
            sys::sk_signal_on_backpressure_buffer(out, self.as_raw(), capacity, overflow.raw(), None,
                                                  ptr::null_mut(), None)
        })
    }

    /// [`Signal::on_backpressure_buffer`] that tells `on_drop` of each value dropped.
    pub fn on_backpressure_buffer_with<F: Fn(&T, u64) + Send + Sync + 'static>(&self, capacity: usize,
                                                                              overflow: Overflow, on_drop: F)
                                                                              -> Signal<T> {
        with_ctx(FnShared(on_drop), |out, ctx, release| unsafe {
            sys::sk_signal_on_backpressure_buffer(out, self.as_raw(), capacity, overflow.raw(),
                                                  Some(drop_fn::<T, F>), ctx, release)
        })
    }

    /// [`Signal::deliver_on`] with at most `capacity` values waiting for the
    /// queue (`sk_signal_deliver_on_bounded`).
    pub fn deliver_on_bounded(&self, queue: &Queue, capacity: usize, overflow: Overflow) -> Signal<T> {
        operator(|out| unsafe {
            sys::sk_signal_deliver_on_bounded(out, self.as_raw(), queue.as_raw(), capacity, overflow.raw(), None,
                                              ptr::null_mut(), None)
        })
    }

    /// [`Signal::deliver_on_bounded`] that tells `on_drop` of each value dropped.
    pub fn deliver_on_bounded_with<F: Fn(&T, u64) + Send + Sync + 'static>(&self, queue: &Queue, capacity: usize,
                                                                          overflow: Overflow, on_drop: F)
                                                                          -> Signal<T> {
        with_ctx(FnShared(on_drop), |out, ctx, release| unsafe {
            sys::sk_signal_deliver_on_bounded(out, self.as_raw(), queue.as_raw(), capacity, overflow.raw(),
                                              Some(drop_fn::<T, F>), ctx, release)
        })
    }

    /// [`Signal::zip`] with at most `capacity` values waiting per signal
    /// (`sk_signal_zip_bounded`; `Overflow::Error` fails at once).
    pub fn zip_bounded(signals: &[Signal<T>], capacity: usize, overflow: Overflow) -> Signal<Vec<T>> {
        let raw = raw_list(signals);
        operator(|out| unsafe {
            sys::sk_signal_zip_bounded(out, raw.as_ptr(), raw.len(), capacity, overflow.raw(), None, ptr::null_mut(),
                                       None)
        })
    }

    /// [`Signal::merge_map`] with at most `capacity` values waiting for a
    /// free slot (`sk_signal_merge_map_bounded`; drops are not reported).
    pub fn merge_map_bounded<U: Value, F: Fn(T) -> Signal<U> + Send + Sync + 'static>(&self, max_concurrent: usize,
                                                                                     capacity: usize,
                                                                                     overflow: Overflow, f: F)
                                                                                     -> Signal<U> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_merge_map_bounded(out, self.as_raw(), max_concurrent, capacity, overflow.raw(),
                                             Some(signal_fn::<T, U, F>), None, ctx, release)
        })
    }

    /// [`Signal::buffer_time`] with at most `capacity` values per window
    /// (`sk_signal_buffer_time_bounded`).
    pub fn buffer_time_bounded(&self, window: Duration, queue: &Queue, capacity: usize, overflow: Overflow)
                               -> Signal<Vec<T>> {
        operator(|out| unsafe {
            sys::sk_signal_buffer_time_bounded(out, self.as_raw(), seconds(window), queue.as_raw(), capacity,
                                               overflow.raw(), None, ptr::null_mut(), None)
        })
    }
}
