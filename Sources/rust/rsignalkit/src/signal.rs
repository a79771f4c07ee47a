//! Signals, subscribers, subscriptions and disposables.
use std::marker::PhantomData;
use std::sync::{Mutex, PoisonError};
use std::os::raw::c_void;
use std::ptr::{self, NonNull};
use std::{fmt, mem};

use crate::callback::{catching, catching_on, ctx_ref, current_thread, into_ctx, release_ctx, report_failure, FnCell, FnShared, CLOSED, ENDING};
use crate::error::{check, Error};
use crate::sys;
use crate::value::{conversion_message, error_value, failure_message, failure_value, AnyValue, RawValue, Value, ValueRef};

/// A cold stream of `T`: nothing runs until it is started
/// ([`subscribe`](Signal::subscribe), [`start`](Signal::start)); each start
/// runs its generator anew. Operators are its methods
/// (`s.map(..).filter(..)`); each returns a new signal and leaves `self`
/// as it was.
///
/// A `Signal` is a reference to the library's signal: cloning retains it,
/// dropping releases it. Thread-safety: `Send` and `Sync`, as the library's
/// signals are; its closures run on the thread that delivers each event,
/// which may be any thread, so they are `Send + 'static`.
pub struct Signal<T> {
    raw: NonNull<sys::sk_signal>,
    _values: PhantomData<fn() -> T>,
}

// Safety: sk_signal is thread-safe (the header's "Thread-safety").
unsafe impl<T> Send for Signal<T> {}
unsafe impl<T> Sync for Signal<T> {}

impl<T> Signal<T> {
    /// Adopts a signal reference (+1).
    ///
    /// # Safety
    /// `raw` must be a live `sk_signal` whose reference the caller hands
    /// over, and its values must convert to `T` (they are checked when
    /// delivered: a value of another kind is a failure, never undefined
    /// behaviour; but a user pointer value another language made must not
    /// reach it).
    pub unsafe fn from_raw(raw: *mut sys::sk_signal) -> Signal<T> {
        Signal { raw: NonNull::new(raw).expect("signalkit: a NULL signal"), _values: PhantomData }
    }

    /// The C handle, borrowed.
    pub fn as_raw(&self) -> *mut sys::sk_signal {
        self.raw.as_ptr()
    }

    /// The C handle with this reference (the caller releases it).
    pub fn into_raw(self) -> *mut sys::sk_signal {
        let raw = self.raw.as_ptr();
        mem::forget(self);
        raw
    }

    /// A signal that fails at once with `error`'s message: what an operator
    /// that the library refused gives.
    pub(crate) fn refused(error: Error) -> Signal<T> {
        let raw = RawValue::string(&error.to_string()).unwrap_or_else(|_| RawValue::nil());
        let mut out = ptr::null_mut();
        // Safety: out and the value are valid; sk_signal_fail cannot fail
        // with them.
        let status = unsafe { sys::sk_signal_fail(&mut out, raw.as_ptr()) };
        made(status, out).expect("signalkit: sk_signal_fail failed")
    }

    /// The same signal, its values read as another type (checked when they
    /// are delivered).
    pub fn cast<U>(&self) -> Signal<U> {
        // Safety: a live handle, retained.
        unsafe { Signal::from_raw(sys::sk_signal_retain(self.as_raw())) }
    }
}

impl<T> Clone for Signal<T> {
    fn clone(&self) -> Signal<T> {
        self.cast()
    }
}

impl<T> Drop for Signal<T> {
    fn drop(&mut self) {
        // Safety: this reference is ours.
        unsafe { sys::sk_signal_release(self.raw.as_ptr()) }
    }
}

impl<T> PartialEq for Signal<T> {
    /// The same signal object.
    fn eq(&self, other: &Signal<T>) -> bool {
        self.raw == other.raw
    }
}

impl<T> fmt::Debug for Signal<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signal({:p})", self.raw)
    }
}

/// Takes the signal an `out` parameter received, or the error.
pub(crate) fn made<T>(status: i32, out: *mut sys::sk_signal) -> Result<Signal<T>, Error> {
    check(status)?;
    // Safety: SK_OK: `out` holds a new reference.
    Ok(unsafe { Signal::from_raw(out) })
}

/// A signal made by an operator: on failure (a pipeline deeper than
/// SK_SIGNAL_MAX_DEPTH, a refused resource), a signal that fails at once
/// with the library's message, so that operators chain without `?`.
pub(crate) fn operator<T>(call: impl FnOnce(*mut *mut sys::sk_signal) -> i32) -> Signal<T> {
    let mut out = ptr::null_mut();
    let status = call(&mut out);
    made(status, out).unwrap_or_else(|error| Signal::refused(error))
}

impl<T: Value> Signal<T> {
    /// A signal whose start calls `generator` with the new subscriber; the
    /// generator returns what cancels the subscription (or None). It runs
    /// on the starting thread, once per start, and starts on several
    /// threads run it at once (hence `Fn + Sync`); a panic in it ends the
    /// subscription with the error `"panicked: MESSAGE"` (a string: a
    /// generator is no operator callback, so the layer puts the error into
    /// its subscriber).
    ///
    /// ```
    /// use rsignalkit::{Signal, Disposable};
    /// let s = Signal::<i64>::create(|subscriber| {
    ///     subscriber.put_next(&1).unwrap();
    ///     subscriber.put_completion().unwrap();
    ///     None::<Disposable>
    /// });
    /// let mut got = Vec::new();
    /// s.for_each_blocking(|v| got.push(v)).unwrap();
    /// assert_eq!(got, vec![1]);
    /// ```
    pub fn create<F>(generator: F) -> Signal<T>
    where
        F: Fn(Subscriber<T>) -> Option<Disposable> + Send + Sync + 'static,
    {
        let ctx = into_ctx(FnShared(generator));
        let mut out = ptr::null_mut();
        // Safety: ctx is released by release_ctx, also when the call fails.
        let status = unsafe {
            sys::sk_signal_create(&mut out, Some(generate::<T, F>), ctx, Some(release_ctx::<FnShared<F>>))
        };
        made(status, out).unwrap_or_else(Signal::refused)
    }

    /// A custom operator over `upstream` (`sk_signal_create_over`): a
    /// signal made as [`create`](Signal::create) makes one, for a generator
    /// that starts `upstream` (a clone of it that the generator captured).
    /// It counts one level deeper than `upstream` toward
    /// `SK_SIGNAL_MAX_DEPTH` (past it, a signal that fails at once with the
    /// library's message), and the generator's start of `upstream` itself
    /// is linked to the subscriber as the library's own operators link
    /// theirs: a `restart` above it stops when a `take` below completes
    /// (signalkit.h, `sk_signal_create_over`), where one made with `create`
    /// loops for ever.
    ///
    /// ```
    /// use rsignalkit::{Observer, Signal};
    /// let looped = Signal::single(1i64).restart();
    /// let upstream = looped.clone();
    /// let doubled = Signal::<i64>::create_over(&looped, move |subscriber| {
    ///     let (values, end) = (subscriber.clone(), subscriber);
    ///     let observer = Observer::new()
    ///         .next(move |v: i64| drop(values.put_next(&(v * 2))))
    ///         .completed(move || drop(end.put_completion()));
    ///     upstream.start(observer).ok()?.into_disposable()
    /// });
    /// let mut got = Vec::new();
    /// doubled.take(3).for_each_blocking(|v| got.push(v)).unwrap();
    /// assert_eq!(got, vec![2, 2, 2]);
    /// ```
    pub fn create_over<U, F>(upstream: &Signal<U>, generator: F) -> Signal<T>
    where
        F: Fn(Subscriber<T>) -> Option<Disposable> + Send + Sync + 'static,
    {
        let ctx = into_ctx(FnShared(generator));
        let mut out = ptr::null_mut();
        // Safety: a live upstream; ctx is released by release_ctx, also when
        // the call fails.
        let status = unsafe {
            sys::sk_signal_create_over(&mut out, upstream.as_raw(), Some(generate::<T, F>), ctx, Some(release_ctx::<FnShared<F>>))
        };
        made(status, out).unwrap_or_else(Signal::refused)
    }

    /// A signal that emits `value`, then completes (on the starting thread).
    pub fn single(value: T) -> Signal<T> {
        match value.to_value() {
            Ok(raw) => operator(|out| unsafe { sys::sk_signal_single(out, raw.as_ptr()) }),
            Err(error) => Signal::refused(error),
        }
    }

    /// A signal that completes at once.
    pub fn complete() -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_complete(out) })
    }

    /// A signal that fails at once with `error`.
    pub fn fail<E: Value>(error: E) -> Signal<T> {
        let raw = error.to_value().unwrap_or_else(|e| error_value(e.message()));
        operator(|out| unsafe { sys::sk_signal_fail(out, raw.as_ptr()) })
    }

    /// A signal that never emits nor ends.
    pub fn never() -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_never(out) })
    }

    /// Starts the signal with `observer`'s closures; the [`Subscription`]
    /// cancels it when dropped (or [`detach`](Subscription::detach) it).
    ///
    /// The error closure receives the error event's value: a panic in an
    /// operator's closure (a `map`, say) arrives as
    /// `AnyValue::String("panicked: MESSAGE")`. A value that does not
    /// convert to `T`, or a panic in the next closure, ends the
    /// subscription by the rule of every binding
    /// (`sk_signal_start_failable`, `sk_callback_fail`): the next closure
    /// receives nothing more; once the value calls in flight on other
    /// threads have returned, the error closure receives an
    /// [`AnyValue::Failure`] (its message), and the upstream is disposed
    /// (it stops, also when detached); nothing more is delivered. A
    /// dispose, or the upstream's own end, that comes first wins, as in C:
    /// the failure is dropped then. Without an error closure, the error
    /// goes to the failure hook ([`crate::set_failure_hook`], `where` =
    /// `"unhandled error"`).
    pub fn start(&self, observer: Observer<T>) -> Result<Subscription, Error> {
        self.start_sink(observer)
    }

    fn start_sink<S: Sink<T>>(&self, sink: S) -> Result<Subscription, Error> {
        let ctx = into_ctx(ObserverCtx::new(sink));
        let c_observer = sys::sk_observer {
            next: Some(observer_next::<T, S>),
            error: Some(observer_error::<T, S>),
            completed: if S::WANTS_COMPLETION { Some(observer_completed::<T, S>) } else { None },
            ctx,
            release: Some(release_ctx::<ObserverCtx<T, S>>),
        };
        let mut out = ptr::null_mut();
        // Safety: the observer is copied; ctx is released by the library,
        // also when the call fails. Held (the disposable may hold the
        // observer, so the closures are dropped once the subscription has
        // ended and the Subscription's handle is released, which its drop
        // does), as sk_signal_start_held's, the C API's cheapest start for
        // an observer with a release function; failable, so that a failure
        // of the next closure ends the subscription (`fail_entered`).
        check(unsafe { sys::sk_signal_start_failable(&mut out, self.as_raw(), &c_observer, 1) })?;
        Ok(Subscription { raw: NonNull::new(out), detached: false })
    }

    /// Starts the signal with a closure for its values. An error ends the
    /// subscription and, as no closure receives it, goes to the failure
    /// hook ([`crate::set_failure_hook`], `where` = `"unhandled error"`,
    /// with the error's text); the completion just ends it.
    ///
    /// The closure may run on another thread, so one that is not `Send` is
    /// refused:
    ///
    /// ```compile_fail,E0277
    /// let cell = std::rc::Rc::new(std::cell::Cell::new(0));
    /// let _s = rsignalkit::Signal::single(1i64).subscribe(move |x| cell.set(x));
    /// ```
    pub fn subscribe<F: FnMut(T) + Send + 'static>(&self, next: F) -> Result<Subscription, Error> {
        self.start_sink(NextOnly(next))
    }

    /// Starts the signal and waits, on this thread, for its end: each value
    /// goes to `next`; Ok at the completion, Err(error value) at an error.
    /// For signals that end; one delivered on another thread is waited for.
    /// `next` runs on this thread after each value's delivery, not during
    /// it: a hot signal it receives (a [`Signal::group_by`] group) has
    /// delivered what came meanwhile to no one; subscribe those with
    /// [`Signal::subscribe`].
    pub fn for_each_blocking<F: FnMut(T)>(&self, mut next: F) -> Result<(), AnyValue> {
        use std::sync::mpsc::channel;
        enum Event<T> {
            Next(T),
            Error(AnyValue),
            Completed,
        }
        let (tx, rx) = channel::<Event<T>>();
        let (t1, t2, t3) = (tx.clone(), tx.clone(), tx);
        let t1 = std::sync::Mutex::new(t1);
        let t2 = std::sync::Mutex::new(t2);
        let t3 = std::sync::Mutex::new(t3);
        let subscription = self
            .start(
                Observer::new()
                    .next(move |v| {
                        let _ = t1.lock().map(|t| t.send(Event::Next(v)));
                    })
                    .error(move |e| {
                        let _ = t2.lock().map(|t| t.send(Event::Error(e)));
                    })
                    .completed(move || {
                        let _ = t3.lock().map(|t| t.send(Event::Completed));
                    }),
            )
            .map_err(|e| AnyValue::String(e.to_string()))?;
        let result = loop {
            match rx.recv() {
                Ok(Event::Next(v)) => next(v),
                Ok(Event::Error(e)) => break Err(e),
                Ok(Event::Completed) => break Ok(()),
                Err(_) => break Err(AnyValue::String("signalkit: the subscription ended without an event".into())),
            }
        };
        drop(subscription);
        result
    }
}

/// The closures of a subscription: each optional. Thread-safety: they run
/// on the thread that delivers each event (any thread), one at a time.
///
/// ```
/// use rsignalkit::{AnyValue, Observer, Signal};
/// use std::sync::{Arc, Mutex};
///
/// let log = Arc::new(Mutex::new(Vec::new()));
/// let (a, b) = (log.clone(), log.clone());
/// let failing = Signal::single(1i64).then(&Signal::fail(String::from("late")));
/// let _s = failing
///     .start(
///         Observer::new()
///             .next(move |v: i64| a.lock().unwrap().push(format!("next {}", v)))
///             .error(move |e: AnyValue| b.lock().unwrap().push(format!("error {:?}", e))),
///     )
///     .unwrap();
/// assert_eq!(*log.lock().unwrap(), vec!["next 1", "error String(\"late\")"]);
/// ```
pub struct Observer<T> {
    next: Option<Box<dyn FnMut(T) + Send>>,
    error: Option<Box<dyn FnMut(AnyValue) + Send>>,
    completed: Option<Box<dyn FnOnce() + Send>>,
}

impl<T> fmt::Debug for Observer<T> {
    /// Which closures it has.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Observer")
            .field("next", &self.next.is_some())
            .field("error", &self.error.is_some())
            .field("completed", &self.completed.is_some())
            .finish()
    }
}

impl<T: Value> Observer<T> {
    /// An observer with no closure.
    pub fn new() -> Observer<T> {
        Observer { next: None, error: None, completed: None }
    }

    /// Receives each value.
    pub fn next<F: FnMut(T) + Send + 'static>(mut self, f: F) -> Observer<T> {
        self.next = Some(Box::new(f));
        self
    }

    /// Receives the error that ends the subscription.
    pub fn error<F: FnMut(AnyValue) + Send + 'static>(mut self, f: F) -> Observer<T> {
        self.error = Some(Box::new(f));
        self
    }

    /// Receives the completion that ends the subscription.
    pub fn completed<F: FnOnce() + Send + 'static>(mut self, f: F) -> Observer<T> {
        self.completed = Some(Box::new(f));
        self
    }
}

impl<T: Value> Default for Observer<T> {
    fn default() -> Observer<T> {
        Observer::new()
    }
}

/// What receives a subscription's events (one call at a time): an
/// [`Observer`], or the one closure of [`Signal::subscribe`].
trait Sink<T>: Send + 'static {
    /// False for a sink that does nothing at the completion: the library
    /// is then given no completion callback (a cheaper observer).
    const WANTS_COMPLETION: bool = true;
    fn next(&mut self, value: T);
    /// The terminal error: called at most once, and nothing after it.
    fn error(&mut self, error: AnyValue);
    /// The completion: called at most once, and nothing after it.
    fn completed(&mut self);
}

impl<T: Value> Sink<T> for Observer<T> {
    #[inline]
    fn next(&mut self, value: T) {
        if let Some(next) = self.next.as_mut() {
            next(value)
        }
    }

    fn error(&mut self, error: AnyValue) {
        // What the subscription no longer needs goes now, before the error
        // closure runs.
        self.next = None;
        self.completed = None;
        match self.error.take() {
            Some(mut f) => f(error),
            None => unhandled(&error),
        }
    }

    fn completed(&mut self) {
        self.next = None;
        self.error = None;
        if let Some(f) = self.completed.take() {
            f()
        }
    }
}

/// The one closure of [`Signal::subscribe`], stored in place.
struct NextOnly<F>(F);

impl<T: Value, F: FnMut(T) + Send + 'static> Sink<T> for NextOnly<F> {
    const WANTS_COMPLETION: bool = false;

    #[inline]
    fn next(&mut self, value: T) {
        (self.0)(value)
    }

    fn error(&mut self, error: AnyValue) {
        unhandled(&error)
    }

    fn completed(&mut self) {}
}

/// An error that no closure receives: it goes to the failure hook, as its
/// text (a string's or a failure's message, else its debug form).
#[cold]
#[inline(never)]
fn unhandled(error: &AnyValue) {
    match error {
        AnyValue::String(message) | AnyValue::Failure(message) => report_failure("unhandled error", message),
        other => report_failure("unhandled error", &format!("{:?}", other)),
    }
}

/// A subscription's closures, and the events delivered to them from inside
/// one of them on the same thread (a next closure that puts into its own
/// source): those wait, in order, until the running call has returned, as
/// an FnMut cannot be re-entered.
///
/// The subscription is started by `sk_signal_start_failable`: when the
/// next closure fails (a panic, a value not of type `T`), the callback
/// calls `sk_callback_fail` and returns, and the library ends the
/// subscription by the one rule of every binding (the error waits for the
/// value calls in flight, reaches `observer_error`, the upstream is
/// disposed). The cell is left ending meanwhile ([`FnCell::let_go_to_the_end`]):
/// a value call in flight on another thread, parked for the closure, finds
/// it refused, the end takes it. Once the error or the completion has
/// been delivered the cell is closed: nothing reaches the sink after.
struct ObserverCtx<T, S> {
    cell: FnCell<S>,
    _values: PhantomData<fn(T)>,
    /// The events kept (`keep`), each also a [`FnCell::flag`] of `cell`. A
    /// `Vec`, not a `VecDeque`: it is empty but for re-entrant deliveries,
    /// and an empty `Vec` costs nothing to drop.
    pending: Mutex<Vec<Pending>>,
}

enum Pending {
    Next(RawValue),
    Error(RawValue),
    Completed,
}

#[derive(Clone, Copy)]
enum Event<'a> {
    Next(ValueRef<'a>),
    Error(ValueRef<'a>),
    Completed,
}

impl<T: Value, S: Sink<T>> ObserverCtx<T, S> {
    fn new(sink: S) -> ObserverCtx<T, S> {
        ObserverCtx { cell: FnCell::new(sink), _values: PhantomData, pending: Mutex::new(Vec::new()) }
    }

    /// Delivers a value: the per-value path, inlined into the C callback,
    /// is a compare-and-swap that takes the closure (and fails for an
    /// ended subscription, whose cell is closed or ending), the kind check,
    /// the closure, a store that lets it go and one load (of the cell's
    /// attention count). Everything else (another thread inside, a
    /// re-entry, the end, a value of another type, a panic, events kept or
    /// callers parked) is a call out of line that does the rest, so that
    /// the path needs no register saved and no stack of its own.
    ///
    /// The calls out of line go through `extern "C"` functions
    /// ([`out_of_line`]), which cannot unwind: a call to one is no unwinding
    /// edge, so it compiles to a jump, and the path needs no stack frame.
    #[inline(always)]
    fn deliver_next(&self, value: ValueRef<'_>) {
        let me = current_thread();
        if let Err(current) = self.cell.try_enter(me) {
            // Safety: `self` and `value` are valid for the call.
            return unsafe { out_of_line::next_contended::<T, S>(self, me, current, value.as_ptr()) };
        }
        // Safety: taken above, let go below (or by the calls out of line).
        let sink = unsafe { self.cell.entered() };
        // The conversion is inside the catch: a `Value` of one's own may
        // panic, which ends the subscription as a panic of `next` does. It
        // reads a copy (`ValueRef::copied`, for the per-value path's cost).
        let copy = value.copied();
        // Safety: `copy` views the library's value as `value` does, and
        // outlives the call.
        let view = unsafe { ValueRef::from_ptr(&copy) };
        match catching_on(me, || T::from_value_fast(view).map(|v| sink.next(v))) {
            Ok(Some(())) => {}
            // Safety: as above.
            Ok(None) => return unsafe { out_of_line::not_converted::<T, S>(self, value.as_ptr()) },
            Err(message) => return self.fail_entered(message),
        }
        if self.cell.leave() {
            // Safety: as above.
            unsafe { out_of_line::attend::<T, S>(self, me) }
        }
    }

    /// The next closure failed with `message` (a panic, a value not
    /// converted), the closure taken by this thread. The events kept for
    /// after the call go (no value reaches the sink after its failure), and
    /// the failure goes to the library (`sk_callback_fail`), which ends the
    /// subscription: the cell is left to the end alone.
    ///
    /// Where the library would drop the failure, the sink receives it here,
    /// and the cell is closed: when an end was kept (delivered to this
    /// subscription from inside the call, on this thread: the library's
    /// end came first, and the sink has not seen it), and when no value
    /// call of the library runs on this thread (`sk_callback_fail` refuses
    /// then; the crate never calls the closure outside one, so it is a
    /// safety net: the upstream then runs on until the `Subscription` goes,
    /// its values refused).
    #[cold]
    #[inline(never)]
    fn fail_entered(&self, message: String) {
        let kept = mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner));
        for _ in &kept {
            self.cell.unflag();
        }
        if !kept.iter().any(|event| !matches!(event, Pending::Next(_))) {
            if let Ok(error) = failure_value(&message) {
                // Safety: a valid value, copied by the call.
                if unsafe { sys::sk_callback_fail(error.as_ptr()) } == sys::SK_OK {
                    return self.cell.let_go_to_the_end();
                }
            }
        }
        // Safety: the caller took the cell; it is closed below.
        fail(unsafe { self.cell.entered() }, AnyValue::Failure(message));
        self.cell.close();
    }

    /// Closes the cell (the subscription ended, the closure taken) and
    /// lets go of the events kept meanwhile.
    #[cold]
    #[inline(never)]
    fn end(&self) {
        self.cell.close();
        let kept = mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner));
        for _ in &kept {
            self.cell.unflag();
        }
    }

    /// A value that found the closure taken: by this thread (a re-entry:
    /// kept for after the call), by another (wait for it, then deliver),
    /// or closed or ending (nothing to do).
    #[cold]
    #[inline(never)]
    fn next_contended(&self, me: usize, current: usize, value: ValueRef<'_>) {
        self.handle(me, current, Event::Next(value));
    }

    /// What a thread that let the closure go must see to: a parked caller
    /// to wake, events kept to deliver.
    #[cold]
    #[inline(never)]
    fn attend(&self, me: usize) {
        self.cell.wake_one();
        self.deliver_waiting(me);
    }

    /// Tries to take the closure for `event` on the thread of token `me`:
    /// 0 when taken, else what the cell's word held (an end also takes an
    /// ending cell).
    fn try_take(&self, me: usize, event: Event<'_>) -> usize {
        let taken = match event {
            Event::Next(_) => self.cell.try_enter(me),
            Event::Error(_) | Event::Completed => self.cell.try_enter_end(me),
        };
        taken.err().unwrap_or(0)
    }

    /// Delivers an error or a completion (or a value, off the per-value
    /// path).
    fn deliver(&self, event: Event<'_>) {
        let me = current_thread();
        self.handle(me, self.try_take(me, event), event);
    }

    /// Handles an event on the thread of token `me`; `current` is what the
    /// cell's word held when this thread tried to take it: 0 (taken), this
    /// thread's token (a re-entry: the event is kept for after the call),
    /// [`CLOSED`] or, for a value, [`ENDING`] (nothing to do), or another
    /// thread's (wait for it).
    fn handle(&self, me: usize, current: usize, event: Event<'_>) {
        if current == me {
            return self.keep(event);
        }
        let end = !matches!(event, Event::Next(_));
        if current == CLOSED || current == ENDING || (current != 0 && !self.cell.wait_for(me, end)) {
            return;
        }
        // Safety: taken; let go (or closed, or left to the end) below.
        let sink = unsafe { self.cell.entered() };
        let error = match event {
            Event::Next(value) => {
                return match catching(|| T::from_value_fast(value).map(|v| sink.next(v))) {
                    Ok(Some(())) => {
                        if self.cell.leave() {
                            self.attend(me);
                        }
                    }
                    Ok(None) => self.fail_entered(conversion_message::<T>(value)),
                    Err(message) => self.fail_entered(message),
                };
            }
            Event::Error(value) => failure_message(value).map_or_else(|| AnyValue::from_value(value), AnyValue::Failure),
            Event::Completed => {
                if let Err(message) = catching(|| sink.completed()) {
                    report_failure("completed", &message);
                }
                self.end();
                return self.attend(me);
            }
        };
        fail(sink, error);
        self.end();
        self.attend(me);
    }

    /// Keeps an event delivered from inside a call of the closures on the
    /// same thread: it waits until that call has returned.
    #[cold]
    #[inline(never)]
    fn keep(&self, event: Event<'_>) {
        let kept = match event {
            Event::Next(value) => Pending::Next(RawValue::copy_of(value)),
            Event::Error(value) => Pending::Error(RawValue::copy_of(value)),
            Event::Completed => Pending::Completed,
        };
        self.pending.lock().unwrap_or_else(PoisonError::into_inner).push(kept);
        self.cell.flag();
    }

    /// Delivers the events that waited (see `keep`), in order.
    #[cold]
    #[inline(never)]
    fn deliver_waiting(&self, me: usize) {
        loop {
            let kept = {
                let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
                if pending.is_empty() {
                    return;
                }
                pending.remove(0)
            };
            self.cell.unflag();
            let event = match &kept {
                Pending::Next(value) => Event::Next(value.as_ref()),
                Pending::Error(value) => Event::Error(value.as_ref()),
                Pending::Completed => Event::Completed,
            };
            self.handle(me, self.try_take(me, event), event);
        }
    }
}

/// The calls out of line of [`ObserverCtx::deliver_next`], as `extern "C"`
/// functions: the compiler knows that they do not unwind (Rust 1.81 and
/// later abort where one would), so that a call to one needs no landing pad
/// and compiles to a jump. None does unwind: each catches the panics of
/// the closures it calls (`catching`), as the C callbacks do.
mod out_of_line {
    use super::{ObserverCtx, Sink};
    use crate::sys;
    use crate::value::{conversion_message, Value, ValueRef};

    /// A value that found the closure taken (see
    /// `ObserverCtx::next_contended`).
    ///
    /// # Safety
    /// `ctx` and `value` are valid for the call.
    #[cold]
    #[inline(never)]
    pub(super) unsafe extern "C" fn next_contended<T: Value, S: Sink<T>>(
        ctx: *const ObserverCtx<T, S>,
        me: usize,
        current: usize,
        value: *const sys::sk_value,
    ) {
        (*ctx).next_contended(me, current, ValueRef::from_ptr(value))
    }

    /// A value that is not a `T`, the closure taken: the subscription ends
    /// with the failure that says so.
    ///
    /// # Safety
    /// As [`next_contended`]; the caller took the cell.
    #[cold]
    #[inline(never)]
    pub(super) unsafe extern "C" fn not_converted<T: Value, S: Sink<T>>(ctx: *const ObserverCtx<T, S>, value: *const sys::sk_value) {
        (*ctx).fail_entered(conversion_message::<T>(ValueRef::from_ptr(value)))
    }

    /// What a thread that let the closure go must see to (see
    /// `ObserverCtx::attend`).
    ///
    /// # Safety
    /// `ctx` is valid for the call.
    #[cold]
    #[inline(never)]
    pub(super) unsafe extern "C" fn attend<T: Value, S: Sink<T>>(ctx: *const ObserverCtx<T, S>, me: usize) {
        (*ctx).attend(me)
    }
}

/// Ends a subscription's sink with `error` (its error closure, or the
/// failure hook); a panic of the error closure itself can only go to the
/// hook.
fn fail<T, S: Sink<T>>(sink: &mut S, error: AnyValue) {
    if let Err(message) = catching(|| sink.error(error)) {
        report_failure("error", &message);
    }
}

unsafe extern "C" fn observer_next<T: Value, S: Sink<T>>(ctx: *mut c_void, value: *const sys::sk_value) {
    ctx_ref::<ObserverCtx<T, S>>(ctx).deliver_next(ValueRef::from_ptr(value));
}

unsafe extern "C" fn observer_error<T: Value, S: Sink<T>>(ctx: *mut c_void, error: *const sys::sk_value) {
    ctx_ref::<ObserverCtx<T, S>>(ctx).deliver(Event::Error(ValueRef::from_ptr(error)));
}

unsafe extern "C" fn observer_completed<T: Value, S: Sink<T>>(ctx: *mut c_void) {
    ctx_ref::<ObserverCtx<T, S>>(ctx).deliver(Event::Completed);
}

/// The C generator of [`Signal::create`] and [`Signal::create_over`]: calls
/// the Rust generator with the subscriber; a panic in it ends the
/// subscription with its error.
unsafe extern "C" fn generate<T: Value, F>(ctx: *mut c_void, subscriber: *mut sys::sk_subscriber) -> *mut sys::sk_disposable
where
    F: Fn(Subscriber<T>) -> Option<Disposable> + Send + Sync + 'static,
{
    let shared = ctx_ref::<FnShared<F>>(ctx);
    let handle = Subscriber::<T>::retained(subscriber);
    match shared.call(|f| f(handle)) {
        Ok(Some(disposable)) => disposable.into_raw(),
        Ok(None) => ptr::null_mut(),
        Err(message) => {
            let error = error_value(&message);
            sys::sk_subscriber_put_error(subscriber, error.as_ptr());
            ptr::null_mut()
        }
    }
}

/// The receiving end a generator emits into ([`Signal::create`]). A
/// reference: cloning retains it. Thread-safety: `Send` and `Sync`; emit
/// from any thread (puts from several threads at once reach the observer
/// concurrently: put from one thread when order matters).
pub struct Subscriber<T> {
    raw: NonNull<sys::sk_subscriber>,
    _values: PhantomData<fn(T)>,
}

// Safety: sk_subscriber is thread-safe.
unsafe impl<T> Send for Subscriber<T> {}
unsafe impl<T> Sync for Subscriber<T> {}

impl<T> fmt::Debug for Subscriber<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Subscriber({:p})", self.raw)
    }
}

impl<T: Value> Subscriber<T> {
    unsafe fn retained(raw: *mut sys::sk_subscriber) -> Subscriber<T> {
        Subscriber { raw: NonNull::new(sys::sk_subscriber_retain(raw)).expect("signalkit: NULL subscriber"), _values: PhantomData }
    }

    /// Emits a value (nothing happens after the end of the subscription).
    #[inline]
    pub fn put_next(&self, value: &T) -> Result<(), Error> {
        let raw = value.to_value()?;
        // Safety: a live subscriber and value.
        check(unsafe { sys::sk_subscriber_put_next(self.raw.as_ptr(), raw.as_ptr()) })
    }

    /// Ends the subscription with an error value.
    pub fn put_error<E: Value>(&self, error: &E) -> Result<(), Error> {
        let raw = error.to_value()?;
        // Safety: as above.
        check(unsafe { sys::sk_subscriber_put_error(self.raw.as_ptr(), raw.as_ptr()) })
    }

    /// Ends the subscription with a completion.
    pub fn put_completion(&self) -> Result<(), Error> {
        // Safety: a live subscriber.
        check(unsafe { sys::sk_subscriber_put_completion(self.raw.as_ptr()) })
    }
}

impl<T> Clone for Subscriber<T> {
    fn clone(&self) -> Subscriber<T> {
        // Safety: a live subscriber.
        Subscriber { raw: unsafe { NonNull::new_unchecked(sys::sk_subscriber_retain(self.raw.as_ptr())) }, _values: PhantomData }
    }
}

impl<T> Drop for Subscriber<T> {
    fn drop(&mut self) {
        // Safety: our reference.
        unsafe { sys::sk_subscriber_release(self.raw.as_ptr()) }
    }
}

/// A started subscription: dropping it disposes it (its callbacks stop;
/// their closures are dropped once none runs), unless it was
/// [`detach`](Subscription::detach)ed to run until it ends.
///
/// Thread-safety: `Send` and `Sync`; dispose from any thread, a callback of
/// the subscription included.
///
/// ```
/// use rsignalkit::Pipe;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// let pipe = Pipe::<i64>::new().unwrap();
/// let seen = Arc::new(AtomicUsize::new(0));
/// let count = seen.clone();
/// let subscription = pipe.signal().subscribe(move |_| { count.fetch_add(1, Ordering::SeqCst); }).unwrap();
/// pipe.put(1).unwrap();
/// drop(subscription); // disposed: nothing more arrives
/// pipe.put(2).unwrap();
/// assert_eq!(seen.load(Ordering::SeqCst), 1);
/// ```
///
/// It is `#[must_use]` (the guide's "Signals, operators, subscriptions"
/// says what that catches and what it does not): a subscription made and
/// dropped in one statement warns (`unused_must_use`; an error here, where
/// the lint is denied), where the same subscription kept compiles:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// let pipe = rsignalkit::Pipe::<i64>::new().unwrap();
/// pipe.signal().subscribe(|_| ()).unwrap(); // unused `Subscription` that must be used
/// ```
///
/// ```
/// #![deny(unused_must_use)]
/// let pipe = rsignalkit::Pipe::<i64>::new().unwrap();
/// let _subscription = pipe.signal().subscribe(|_| ()).unwrap();
/// ```
#[must_use = "a Subscription disposes its subscription when dropped: keep it, or detach() it"]
pub struct Subscription {
    raw: Option<NonNull<sys::sk_disposable>>,
    detached: bool,
}

// Safety: sk_disposable is thread-safe.
unsafe impl Send for Subscription {}
unsafe impl Sync for Subscription {}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription").field("raw", &self.raw).field("detached", &self.detached).finish()
    }
}

impl Subscription {
    /// Cancels the subscription now (later calls do nothing).
    pub fn dispose(&self) {
        if let Some(raw) = self.raw {
            // Safety: a live disposable.
            unsafe { sys::sk_disposable_dispose(raw.as_ptr()) }
        }
    }

    /// Lets the subscription run until it ends by itself.
    pub fn detach(mut self) {
        self.detached = true;
    }

    /// The subscription's disposable, to put into a container (the
    /// subscription is then detached: the container disposes it). The
    /// disposable holds the subscription's closures: they are dropped once
    /// the subscription has ended and the last clone of the disposable is
    /// gone (with handle checking on, once it has ended: docs/rust.md).
    pub fn into_disposable(mut self) -> Option<Disposable> {
        self.detached = true;
        self.raw.take().map(|raw| Disposable { raw })
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(raw) = self.raw {
            // Safety: our reference.
            unsafe {
                if !self.detached {
                    sys::sk_disposable_dispose(raw.as_ptr());
                }
                sys::sk_disposable_release(raw.as_ptr());
            }
        }
    }
}

/// Something that cancels: an action, a meta disposable, a set, or a
/// subscription's. A reference: dropping it releases it (without
/// disposing). Thread-safety: `Send` and `Sync`.
///
/// ```
/// use rsignalkit::Disposable;
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
///
/// let closed = Arc::new(AtomicBool::new(false));
/// let flag = closed.clone();
/// let action = Disposable::action(move || flag.store(true, Ordering::SeqCst)).unwrap();
/// let set = Disposable::set().unwrap();
/// set.set_add(&action).unwrap();
/// set.dispose(); // disposes what it holds
/// assert!(closed.load(Ordering::SeqCst));
/// ```
pub struct Disposable {
    raw: NonNull<sys::sk_disposable>,
}

// Safety: sk_disposable is thread-safe.
unsafe impl Send for Disposable {}
unsafe impl Sync for Disposable {}

impl fmt::Debug for Disposable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Disposable({:p})", self.raw)
    }
}

impl Disposable {
    /// A disposable whose first dispose runs `action` (on the disposing
    /// thread); the action is dropped unrun if it never is disposed.
    pub fn action<F: FnOnce() + Send + 'static>(action: F) -> Result<Disposable, Error> {
        unsafe extern "C" fn run<F: FnOnce() + Send + 'static>(ctx: *mut c_void) {
            let cell = ctx_ref::<FnCell<Option<F>>>(ctx);
            if let Err(message) = cell.with(|f| f.take().map(|f| f())) {
                report_failure("dispose", &message);
            }
        }
        let ctx = into_ctx(FnCell::new(Some(action)));
        let mut out = ptr::null_mut();
        // Safety: ctx is released by the library, also on failure.
        check(unsafe { sys::sk_disposable_action(&mut out, Some(run::<F>), ctx, Some(release_ctx::<FnCell<Option<F>>>)) })?;
        Ok(Disposable { raw: NonNull::new(out).expect("signalkit: NULL disposable") })
    }

    /// A meta disposable: holds one disposable at a time.
    pub fn meta() -> Result<Disposable, Error> {
        let mut out = ptr::null_mut();
        // Safety: out is valid.
        check(unsafe { sys::sk_disposable_meta(&mut out) })?;
        Ok(Disposable { raw: NonNull::new(out).expect("signalkit: NULL disposable") })
    }

    /// Sets a meta disposable's disposable, disposing the previous one.
    pub fn meta_set(&self, disposable: &Disposable) -> Result<(), Error> {
        // Safety: live handles.
        check(unsafe { sys::sk_disposable_meta_set(self.raw.as_ptr(), disposable.raw.as_ptr()) })
    }

    /// A set of disposables, disposed together.
    pub fn set() -> Result<Disposable, Error> {
        let mut out = ptr::null_mut();
        // Safety: out is valid.
        check(unsafe { sys::sk_disposable_set(&mut out) })?;
        Ok(Disposable { raw: NonNull::new(out).expect("signalkit: NULL disposable") })
    }

    /// Adds to a set (disposed at once when the set already was).
    pub fn set_add(&self, disposable: &Disposable) -> Result<(), Error> {
        // Safety: live handles.
        check(unsafe { sys::sk_disposable_set_add(self.raw.as_ptr(), disposable.raw.as_ptr()) })
    }

    /// Disposes (only the first call has an effect).
    pub fn dispose(&self) {
        // Safety: a live handle.
        unsafe { sys::sk_disposable_dispose(self.raw.as_ptr()) }
    }

    /// The C handle with this reference.
    pub fn into_raw(self) -> *mut sys::sk_disposable {
        let raw = self.raw.as_ptr();
        mem::forget(self);
        raw
    }
}

impl Clone for Disposable {
    fn clone(&self) -> Disposable {
        // Safety: a live handle.
        Disposable { raw: unsafe { NonNull::new_unchecked(sys::sk_disposable_retain(self.raw.as_ptr())) } }
    }
}

impl Drop for Disposable {
    fn drop(&mut self) {
        // Safety: our reference.
        unsafe { sys::sk_disposable_release(self.raw.as_ptr()) }
    }
}

impl Disposable {
    /// Adopts a disposable reference (+1).
    ///
    /// # Safety
    /// `raw` must be a live `sk_disposable` whose reference the caller
    /// hands over.
    pub unsafe fn from_raw(raw: *mut sys::sk_disposable) -> Disposable {
        Disposable { raw: NonNull::new(raw).expect("signalkit: NULL disposable") }
    }
}

#[cfg(test)]
mod tests {
    use super::{Event, Observer, ObserverCtx};
    use crate::sys;
    use crate::value::{AnyValue, RawValue};
    use std::ffi::CStr;
    use std::sync::{Arc, Mutex};

    /// A failure of the next closure while no value call of the library
    /// runs on the thread, where `sk_callback_fail` refuses: the crate
    /// never calls the closure so (the tests of tests/panics.rs fail it
    /// inside the library's calls), but should it, the error closure
    /// receives the failure at once, and nothing reaches the closures
    /// after it.
    #[test]
    fn a_failure_outside_a_value_call_of_the_library_ends_the_closures_in_the_crate() {
        crate::callback::quiet_panics();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (n, e, c) = (Arc::clone(&log), Arc::clone(&log), Arc::clone(&log));
        let observer = Observer::<i64>::new()
            .next(move |v| {
                n.lock().unwrap().push(format!("next {}", v));
                panic!("refused {}", v)
            })
            .error(move |error: AnyValue| e.lock().unwrap().push(format!("error {:?}", error)))
            .completed(move || c.lock().unwrap().push("completed".to_owned()));
        let ctx = ObserverCtx::new(observer);
        let (one, two) = (RawValue::int64(1), RawValue::int64(2));
        ctx.deliver_next(one.as_ref());
        // Safety: the library's message of the calling thread.
        let refusal = unsafe { CStr::from_ptr(sys::sk_last_error_message()) }.to_string_lossy().into_owned();
        assert!(refusal.contains("no operator callback is running"), "sk_callback_fail did not refuse: {:?}", refusal);
        ctx.deliver_next(two.as_ref());
        ctx.deliver(Event::Completed);
        assert_eq!(*log.lock().unwrap(), vec!["next 1", "error Failure(\"panicked: refused 1\")"]);
    }
}
