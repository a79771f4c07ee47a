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
//! One failure rule: a panic in an operator's closure (`map`, `scan`,
//! `reduce`, `map_to_signal`, `merge_map`, `catch`, `deferred`; the
//! predicates of `filter`, `skip_while`, `take_while`, `first_where`;
//! `take_until`'s function; `group_by`'s key), or a value it cannot take
//! or give, fails the call as a C callback does (`sk_callback_fail`): the
//! stream ends with the error `"panicked: MESSAGE"` (a string; the
//! conversion's message for a value; a panic in the conversion of a
//! [`Value`] of one's own is the closure's), the upstream is disposed and nothing
//! is delivered after it; a signal function's signal stands for one that
//! fails with it, and `group_by`'s groups delivered before end with it too.
//! No failure travels downstream as a value. The C library gives a side
//! effect (`before_next`, ...) and a bounded operator's `on_drop` no way to
//! fail: their panic (or that of the conversion of the value they take)
//! goes to the failure hook ([`crate::set_failure_hook`]) under the
//! callback's kind.
//!
//! The operators of a standard shape (the C function's parameters after
//! the signal: none, a count, a predicate, a value, a signal, a time and a
//! queue, ...) are generated from the operator table into the module
//! `standard` (`make api-update`); the others are written here.
//!
//! An operator the library refuses (a pipeline deeper than
//! `SK_SIGNAL_MAX_DEPTH`, the timers' descriptors refused, an argument out
//! of its range: a count of 0 for `buffer_count` or `merge_map`) gives a
//! signal that fails at once with the library's message and its status in
//! words (`"sk_signal_buffer_count: count must be at least 1 (invalid
//! argument)"`), so that operators chain without `?`.
use std::os::raw::{c_int, c_void};
use std::ptr;
use std::time::Duration;

use crate::callback::{catching, ctx_ref, into_ctx, quiet_panics, release_ctx, report_failure, FnShared};
use crate::queue::{seconds, Queue};
use crate::signal::{operator, Signal};
use crate::sys;
use crate::value::{conversion_message, error_value, AnyValue, RawValue, Value, ValueRef};

mod standard;

/// What `take_until`'s function decides about a value: deliver it or
/// not, and complete after it or not. Each case is one answer of the C
/// callback (`sk_take_action`'s flags), the mapping written once, in
/// `TakeAction::raw`.
///
/// ```
/// use rsignalkit::{Signal, TakeAction};
/// let s = Signal::concat(&[Signal::single(1i64), Signal::single(20), Signal::single(3)]);
/// let small = s.take_until(|x| if *x < 10 { TakeAction::Pass } else { TakeAction::Complete });
/// let mut got = Vec::new();
/// small.for_each_blocking(|v| got.push(v)).unwrap();
/// assert_eq!(got, vec![1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TakeAction {
    /// Deliver the value and go on.
    Pass,
    /// Drop the value and go on.
    Drop,
    /// Deliver the value, then complete.
    PassAndComplete,
    /// Complete without the value.
    Complete,
}

impl TakeAction {
    /// The action for the two answers: deliver the value (`pass`), then
    /// complete (`complete`).
    pub fn new(pass: bool, complete: bool) -> TakeAction {
        match (pass, complete) {
            (true, false) => TakeAction::Pass,
            (false, false) => TakeAction::Drop,
            (true, true) => TakeAction::PassAndComplete,
            (false, true) => TakeAction::Complete,
        }
    }

    /// Whether the value is delivered.
    pub fn passes(self) -> bool {
        matches!(self, TakeAction::Pass | TakeAction::PassAndComplete)
    }

    /// Whether the stream completes after it.
    pub fn completes(self) -> bool {
        matches!(self, TakeAction::PassAndComplete | TakeAction::Complete)
    }

    /// The answer of the C callback (`sk_take_until_fn`): a bitwise OR of
    /// `sk_take_action`'s flags. The one place the cases meet C.
    #[inline]
    pub(crate) fn raw(self) -> c_int {
        let flags = match self {
            TakeAction::Pass => sys::SK_TAKE_PASS,
            TakeAction::Drop => 0,
            TakeAction::PassAndComplete => sys::SK_TAKE_PASS | sys::SK_TAKE_COMPLETE,
            TakeAction::Complete => sys::SK_TAKE_COMPLETE,
        };
        flags as c_int
    }
}

type Ctx = *mut c_void;
type Release = sys::sk_release_fn;

/// An operator taking a closure's context. A closure that captures
/// nothing (zero-sized, nothing to drop) needs no box and no release: the
/// library then keeps the stage without a context to let go of, as it does
/// for a C function given a NULL release (its cheapest form).
fn with_ctx<U, C: Send + 'static>(ctx: C, call: impl FnOnce(*mut *mut sys::sk_signal, Ctx, Release) -> c_int) -> Signal<U> {
    if std::mem::size_of::<C>() == 0 && !std::mem::needs_drop::<C>() {
        quiet_panics();
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

/// Why one call of an operator's callback failed.
enum Refused<'a> {
    /// A panic's message (`"panicked: MESSAGE"`), or why the closure's
    /// result did not convert.
    Message(String),
    /// A value the closure was given that is no `T`, and the function that
    /// says why (`conversion_message::<T>`, which converts it again and
    /// catches a panic of its own). It runs after the call's catch: a
    /// callback whose closure and conversions cannot panic then makes no
    /// call that may unwind inside it, and its catch costs nothing.
    Value(ValueRef<'a>, fn(ValueRef<'_>) -> String),
}

impl Refused<'_> {
    /// The message the stream's error (or the failure hook) receives.
    #[cold]
    #[inline(never)]
    fn message(self) -> String {
        match self {
            Refused::Message(message) => message,
            Refused::Value(value, why) => why(value),
        }
    }
}

/// A value a callback was given, read before its catch
/// ([`ValueRef::copied`], for the per-value path's cost): a copy to
/// convert inside the catch, and the original, whose refusal's message is
/// made after it.
struct Given<'a> {
    copy: sys::sk_value,
    value: ValueRef<'a>,
}

impl<'a> Given<'a> {
    /// # Safety
    /// `value` is the valid value of a callback's call, which `'a` does not
    /// outlive.
    #[inline(always)]
    unsafe fn new(value: *const sys::sk_value) -> Given<'a> {
        let value = ValueRef::from_ptr(value);
        Given { copy: value.copied(), value }
    }

    /// The value as the `T` a closure takes, or the refusal of one that is
    /// not. The conversion may be a user's own ([`Value`]): call it inside
    /// [`guarded`].
    #[inline(always)]
    fn converted<T: Value>(&self) -> Result<T, Refused<'a>> {
        // Safety: the copy views the library's value as the original does,
        // for as long as `self` is borrowed.
        match T::from_value_fast(unsafe { ValueRef::from_ptr(&self.copy) }) {
            Some(value) => Ok(value),
            None => Err(Refused::Value(self.value, conversion_message::<T>)),
        }
    }
}

/// A closure's result as an owned value, or why it cannot be one (inside
/// [`guarded`], as [`Given::converted`]).
#[inline]
fn to_raw<'a, U: Value>(value: U) -> Result<RawValue, Refused<'a>> {
    value.to_value().map_err(|e| Refused::Message(e.message().to_owned()))
}

/// Runs one call of an operator's callback under one panic catch: the
/// conversion of the value it was given (a user's [`Value`] may panic),
/// the closure, the conversion of its result and the drops of both. A
/// panic in any of them is the closure's (`"panicked: MESSAGE"`), so that
/// a type of one's own fails the call as its closure would.
#[inline(always)]
fn guarded<'a, R>(call: impl FnOnce() -> Result<R, Refused<'a>>) -> Result<R, Refused<'a>> {
    catching(call).unwrap_or_else(|panic| Err(Refused::Message(panic)))
}

/// Fails the operator callback running on this thread (`sk_callback_fail`)
/// with the string `message` (a panic's `"panicked: ..."`, a value the
/// closure could not take or give): the stream ends with that error, the
/// upstream is disposed, and the callback's result is ignored. Called only
/// from the callbacks the header lists as operator callbacks, where the
/// library does not refuse; if it did, the failure hook would receive the
/// message under `place`.
#[cold]
#[inline(never)]
fn fail_call(place: &str, message: String) {
    let error = error_value(&message);
    // Safety: a valid value, borrowed for the call (the library copies it).
    if unsafe { sys::sk_callback_fail(error.as_ptr()) } != sys::SK_OK {
        report_failure(place, &message);
    }
}

unsafe extern "C" fn map_fn<T: Value, U: Value, F: Fn(T) -> U>(ctx: Ctx, value: *const sys::sk_value, out: *mut sys::sk_value) {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let value = Given::new(value);
    match guarded(|| to_raw(f(value.converted::<T>()?))) {
        Ok(result) => ptr::write(out, result.into_raw()),
        Err(refused) => fail_call("map", refused.message()),
    }
}

/// `group_by`'s key function, an operator callback as `map`'s is: a panic,
/// or a value it cannot take or give, fails the call, which ends the
/// result and every group delivered before it.
unsafe extern "C" fn key_fn<T: Value, K: Value, F: Fn(&T) -> K>(ctx: Ctx, value: *const sys::sk_value, out: *mut sys::sk_value) {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let value = Given::new(value);
    match guarded(|| to_raw(f(&value.converted::<T>()?))) {
        Ok(result) => ptr::write(out, result.into_raw()),
        Err(refused) => fail_call("group_by", refused.message()),
    }
}

/// A predicate (`filter`, `skip_while`, `take_while`, `first_where`): on a
/// failure its answer is ignored.
unsafe extern "C" fn predicate_fn<T: Value, F: Fn(&T) -> bool>(ctx: Ctx, value: *const sys::sk_value) -> bool {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let value = Given::new(value);
    match guarded(|| Ok(f(&value.converted::<T>()?))) {
        Ok(answer) => answer,
        Err(refused) => {
            fail_call("predicate", refused.message());
            false
        }
    }
}

unsafe extern "C" fn take_until_fn<T: Value, F: Fn(&T) -> TakeAction>(ctx: Ctx, value: *const sys::sk_value) -> c_int {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let value = Given::new(value);
    match guarded(|| Ok(f(&value.converted::<T>()?))) {
        Ok(action) => action.raw(),
        Err(refused) => {
            fail_call("take_until", refused.message());
            0
        }
    }
}

/// The step of `scan` and `reduce`.
unsafe extern "C" fn reduce_fn<T: Value, U: Value, F: Fn(U, T) -> U>(
    ctx: Ctx,
    accumulator: *const sys::sk_value,
    value: *const sys::sk_value,
    out: *mut sys::sk_value,
) {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let (accumulator, value) = (Given::new(accumulator), Given::new(value));
    match guarded(|| to_raw(f(accumulator.converted::<U>()?, value.converted::<T>()?))) {
        Ok(result) => ptr::write(out, result.into_raw()),
        Err(refused) => fail_call("scan or reduce", refused.message()),
    }
}

/// The signal a signal function made; after a failure, NULL, which the
/// library then takes for a signal that fails with the error.
fn signal_result<U>(result: Result<Signal<U>, Refused<'_>>) -> *mut sys::sk_signal {
    match result {
        Ok(signal) => signal.into_raw(),
        Err(refused) => {
            fail_call("signal function", refused.message());
            ptr::null_mut()
        }
    }
}

unsafe extern "C" fn signal_fn<T: Value, U: Value, F: Fn(T) -> Signal<U>>(ctx: Ctx, value: *const sys::sk_value) -> *mut sys::sk_signal {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let value = Given::new(value);
    signal_result(guarded(|| Ok(f(value.converted::<T>()?))))
}

unsafe extern "C" fn catch_fn<T: Value, F: Fn(AnyValue) -> Signal<T>>(ctx: Ctx, error: *const sys::sk_value) -> *mut sys::sk_signal {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let error = ValueRef::from_ptr(error);
    signal_result(guarded(|| Ok(f(AnyValue::from_value(error)))))
}

unsafe extern "C" fn deferred_fn<T: Value, F: Fn() -> Signal<T>>(ctx: Ctx) -> *mut sys::sk_signal {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    signal_result(guarded(|| Ok(f())))
}

/// Where the panic of a callback that cannot fail in C is reported: the
/// `where` given to the failure hook ([`crate::set_failure_hook`]).
pub(crate) trait Place {
    /// The callback's kind, as the hook receives it.
    const NAME: &'static str;
}

/// The marker types of the callbacks that cannot fail in C, each naming
/// where its panic is reported ([`Place`]); the generated side effects
/// name theirs after the method (`before_next`: `place::BeforeNext`).
pub(crate) mod place {
    use super::Place;

    macro_rules! places {
        ($($(#[$doc:meta])* $place:ident = $name:literal,)*) => {
            $(
                $(#[$doc])*
                pub(crate) struct $place;
                impl Place for $place {
                    const NAME: &'static str = $name;
                }
            )*
        };
    }

    places! {
        /// `before_next`'s side effect.
        BeforeNext = "before_next",
        /// `after_next`'s side effect.
        AfterNext = "after_next",
        /// `before_started`'s side effect.
        BeforeStarted = "before_started",
        /// `before_completed`'s side effect.
        BeforeCompleted = "before_completed",
        /// `after_completed`'s side effect.
        AfterCompleted = "after_completed",
        /// `after_disposed`'s side effect.
        AfterDisposed = "after_disposed",
        /// A bounded operator's drop callback.
        OnDrop = "on_drop",
    }
}

/// A side effect on a value: the C library gives it no way to fail
/// (`sk_value_fn`), so a panic, or a value it cannot take, goes to the
/// failure hook under `P::NAME`.
unsafe extern "C" fn value_fn<T: Value, F: Fn(&T), P: Place>(ctx: Ctx, value: *const sys::sk_value) {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let value = Given::new(value);
    let call = || {
        f(&value.converted::<T>()?);
        Ok(())
    };
    if let Err(refused) = guarded(call) {
        report_failure(P::NAME, &refused.message());
    }
}

/// A side effect without a value (`sk_work_fn`): as [`value_fn`].
unsafe extern "C" fn work_fn<F: Fn(), P: Place>(ctx: Ctx) {
    if let Err(message) = ctx_ref::<FnShared<F>>(ctx).call(|f| f()) {
        report_failure(P::NAME, &message);
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
    /// after it or not. A panic in `f` ends the stream with the error
    /// `"panicked: MESSAGE"` (`sk_callback_fail`), without the value.
    pub fn take_until<F: Fn(&T) -> TakeAction + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_take_until(out, self.as_raw(), Some(take_until_fn::<T, F>), ctx, release)
        })
    }

    /// Values while `f` answers true, then the completion (with the first
    /// value that failed it when `inclusive`). A panic in `f` ends the
    /// stream with the error `"panicked: MESSAGE"` (`sk_callback_fail`),
    /// without the value.
    pub fn take_while<F: Fn(&T) -> bool + Send + Sync + 'static>(&self, inclusive: bool, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_take_while(out, self.as_raw(), Some(predicate_fn::<T, F>), ctx, release, inclusive)
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
    /// Maps each value to a signal and follows the latest one. A panic in
    /// `f` stands for a signal that fails with `"panicked: MESSAGE"`
    /// (`sk_callback_fail`), which ends the stream.
    pub fn map_to_signal<U: Value, F: Fn(T) -> Signal<U> + Send + Sync + 'static>(&self, f: F) -> Signal<U> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_map_to_signal(out, self.as_raw(), Some(signal_fn::<T, U, F>), ctx, release)
        })
    }

    /// Maps each value to a signal, at most `max_concurrent` running at once
    /// (the others wait, in order); 1 runs them one after the other. A panic
    /// in `f` stands for a signal that fails with `"panicked: MESSAGE"`
    /// (`sk_callback_fail`), which ends the stream.
    pub fn merge_map<U: Value, F: Fn(T) -> Signal<U> + Send + Sync + 'static>(&self, max_concurrent: usize, f: F) -> Signal<U> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_merge_map(out, self.as_raw(), max_concurrent, Some(signal_fn::<T, U, F>), ctx, release)
        })
    }

    /// Groups values by the key `f` gives: emits `(key, group)` for each new
    /// key; a group is hot (subscribe from the closure that receives it,
    /// during the delivery: the closure of [`Signal::subscribe`] or
    /// [`Signal::start`]; [`Signal::for_each_blocking`]'s runs after the
    /// delivery, on the waiting thread, when the group's first values have
    /// passed).
    ///
    /// A panic in `f`, or a value it cannot take or give, fails the call as
    /// `map`'s does (`sk_callback_fail`): the result and every group
    /// delivered before it end with the error `"panicked: MESSAGE"`, the
    /// upstream is disposed, and nothing follows.
    pub fn group_by<K: Value, F: Fn(&T) -> K + Send + Sync + 'static>(&self, f: F) -> Signal<(K, Signal<T>)> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_group_by(out, self.as_raw(), Some(key_fn::<T, K, F>), ctx, release)
        })
    }

    /// A signal made by `f` at each start. A panic in `f` stands for a
    /// signal that fails with `"panicked: MESSAGE"` (`sk_callback_fail`).
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
    /// On an error, continues with the signal `f` makes of it. A panic in
    /// `f` stands for a signal that fails with `"panicked: MESSAGE"`
    /// (`sk_callback_fail`).
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
    pub(crate) fn raw(self) -> sys::sk_overflow {
        match self {
            Overflow::DropNewest => sys::SK_OVERFLOW_DROP_NEWEST,
            Overflow::DropOldest => sys::SK_OVERFLOW_DROP_OLDEST,
            Overflow::Latest => sys::SK_OVERFLOW_LATEST,
            Overflow::Error => sys::SK_OVERFLOW_ERROR,
            Overflow::Block => sys::SK_OVERFLOW_BLOCK,
        }
    }
}

/// A bounded operator's drop callback (`sk_drop_fn`): the C library gives
/// it no way to fail, so a panic, or a value it cannot take, goes to the
/// failure hook under `"on_drop"`.
pub(crate) unsafe extern "C" fn drop_fn<T: Value, F: Fn(&T, u64)>(ctx: Ctx, value: *const sys::sk_value, dropped: u64) {
    let f = &ctx_ref::<FnShared<F>>(ctx).0;
    let value = Given::new(value);
    let call = || {
        f(&value.converted::<T>()?, dropped);
        Ok(())
    };
    if let Err(refused) = guarded(call) {
        report_failure(place::OnDrop::NAME, &refused.message());
    }
}

/// A function and a drop callback sharing one context: the bounded
/// merge_map's, whose C function gives both callbacks the same `ctx`.
struct FnPair<F, D>(FnShared<F>, FnShared<D>);

/// [`signal_fn`] for the function of an [`FnPair`].
unsafe extern "C" fn pair_signal_fn<T: Value, U: Value, F: Fn(T) -> Signal<U>, D>(ctx: Ctx, value: *const sys::sk_value)
                                                                                  -> *mut sys::sk_signal {
    signal_fn::<T, U, F>(&ctx_ref::<FnPair<F, D>>(ctx).0 as *const FnShared<F> as Ctx, value)
}

/// [`drop_fn`] for the drop callback of an [`FnPair`].
unsafe extern "C" fn pair_drop_fn<T: Value, F, D: Fn(&T, u64)>(ctx: Ctx, value: *const sys::sk_value, dropped: u64) {
    drop_fn::<T, D>(&ctx_ref::<FnPair<F, D>>(ctx).1 as *const FnShared<D> as Ctx, value, dropped)
}

/// # Bounded buffers
///
/// Where a consumer is slower than its producer, at most `capacity` values
/// wait and `overflow` says what happens to the next (docs/concepts.md,
/// "Where values can queue"). The `_with` forms call `on_drop` with each
/// value dropped and the subscription's count of drops so far, on the thread
/// whose put dropped it; the C library gives `on_drop` no way to fail, so
/// its panic goes to the failure hook (`where` = `"on_drop"`).
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

    /// [`Signal::zip_bounded`] that tells `on_drop` of each value dropped.
    pub fn zip_bounded_with<F: Fn(&T, u64) + Send + Sync + 'static>(signals: &[Signal<T>], capacity: usize,
                                                                   overflow: Overflow, on_drop: F)
                                                                   -> Signal<Vec<T>> {
        let raw = raw_list(signals);
        with_ctx(FnShared(on_drop), |out, ctx, release| unsafe {
            sys::sk_signal_zip_bounded(out, raw.as_ptr(), raw.len(), capacity, overflow.raw(), Some(drop_fn::<T, F>),
                                       ctx, release)
        })
    }

    /// [`Signal::merge_map`] with at most `capacity` values waiting for a
    /// free slot (`sk_signal_merge_map_bounded`; drops are not reported:
    /// [`Signal::merge_map_bounded_with`] reports them). A panic in `f` ends
    /// the stream as in `merge_map`.
    pub fn merge_map_bounded<U: Value, F: Fn(T) -> Signal<U> + Send + Sync + 'static>(&self, max_concurrent: usize,
                                                                                     capacity: usize,
                                                                                     overflow: Overflow, f: F)
                                                                                     -> Signal<U> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_merge_map_bounded(out, self.as_raw(), max_concurrent, capacity, overflow.raw(),
                                             Some(signal_fn::<T, U, F>), None, ctx, release)
        })
    }

    /// [`Signal::merge_map_bounded`] that tells `on_drop` of each value
    /// dropped (never mapped); `f` and `on_drop` share the C function's one
    /// context, dropped after the last call of either.
    pub fn merge_map_bounded_with<U: Value, F: Fn(T) -> Signal<U> + Send + Sync + 'static,
                                  D: Fn(&T, u64) + Send + Sync + 'static>(&self, max_concurrent: usize,
                                                                         capacity: usize, overflow: Overflow, f: F,
                                                                         on_drop: D)
                                                                         -> Signal<U> {
        with_ctx(FnPair(FnShared(f), FnShared(on_drop)), |out, ctx, release| unsafe {
            sys::sk_signal_merge_map_bounded(out, self.as_raw(), max_concurrent, capacity, overflow.raw(),
                                             Some(pair_signal_fn::<T, U, F, D>), Some(pair_drop_fn::<T, F, D>), ctx,
                                             release)
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

    /// [`Signal::buffer_time_bounded`] that tells `on_drop` of each value dropped.
    pub fn buffer_time_bounded_with<F: Fn(&T, u64) + Send + Sync + 'static>(&self, window: Duration, queue: &Queue,
                                                                           capacity: usize, overflow: Overflow,
                                                                           on_drop: F)
                                                                           -> Signal<Vec<T>> {
        with_ctx(FnShared(on_drop), |out, ctx, release| unsafe {
            sys::sk_signal_buffer_time_bounded(out, self.as_raw(), seconds(window), queue.as_raw(), capacity,
                                               overflow.raw(), Some(drop_fn::<T, F>), ctx, release)
        })
    }
}

/// # Bounded signals of signals
impl<T: Value> Signal<Signal<T>> {
    /// [`Signal::queue`] with at most `capacity` signals waiting their turn,
    /// `overflow` deciding about the next (`sk_signal_queue_bounded`): a
    /// dropped signal is never started. A capacity of 0 fails the signal
    /// with `InvalidArgument`.
    pub fn queue_bounded(&self, capacity: usize, overflow: Overflow) -> Signal<T> {
        operator(|out| unsafe {
            sys::sk_signal_queue_bounded(out, self.as_raw(), capacity, overflow.raw(), None, ptr::null_mut(), None)
        })
    }

    /// [`Signal::queue_bounded`] that tells `on_drop` of each signal dropped.
    pub fn queue_bounded_with<F: Fn(&Signal<T>, u64) + Send + Sync + 'static>(&self, capacity: usize,
                                                                            overflow: Overflow, on_drop: F)
                                                                            -> Signal<T> {
        with_ctx(FnShared(on_drop), |out, ctx, release| unsafe {
            sys::sk_signal_queue_bounded(out, self.as_raw(), capacity, overflow.raw(), Some(drop_fn::<Signal<T>, F>),
                                         ctx, release)
        })
    }
}
