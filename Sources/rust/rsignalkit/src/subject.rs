//! Hot sources: [`Pipe`], [`Promise`], [`ValuePromise`].
use std::fmt;
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use crate::callback::{into_ctx, quiet_panics, release_ctx, FnShared};
use crate::error::{check, Error};
use crate::operators::{drop_fn, Overflow};
use crate::signal::{made, Signal};
use crate::sys;
use crate::value::Value;

macro_rules! handle {
    ($name:ident, $raw:ty, $retain:path, $release:path) => {
        impl<T> Clone for $name<T> {
            fn clone(&self) -> $name<T> {
                // Safety: a live handle.
                $name { raw: unsafe { NonNull::new_unchecked($retain(self.raw.as_ptr())) }, _values: PhantomData }
            }
        }
        impl<T> Drop for $name<T> {
            fn drop(&mut self) {
                // Safety: our reference.
                unsafe { $release(self.raw.as_ptr()) }
            }
        }
        // Safety: the library's subjects are thread-safe.
        unsafe impl<T> Send for $name<T> {}
        unsafe impl<T> Sync for $name<T> {}
        impl<T> fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:p})"), self.raw)
            }
        }
        impl<T> $name<T> {
            /// The C handle, borrowed.
            pub fn as_raw(&self) -> *mut $raw {
                self.raw.as_ptr()
            }
        }
    };
}

/// A hot source: values put reach the current subscribers of its
/// [`signal`](Pipe::signal), on the putting thread. A reference: cloning
/// retains, dropping releases (the last release ends nothing: subscribers
/// stay until disposed, and are let go). Thread-safety: `Send` and `Sync`.
///
/// ```
/// let pipe = rsignalkit::Pipe::<i64>::new().unwrap();
/// let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
/// let into = seen.clone();
/// let _s = pipe.signal().subscribe(move |v| into.lock().unwrap().push(v)).unwrap();
/// pipe.put(1).unwrap();
/// pipe.put(2).unwrap();
/// assert_eq!(*seen.lock().unwrap(), vec![1, 2]);
/// ```
pub struct Pipe<T> {
    raw: NonNull<sys::sk_pipe>,
    _values: PhantomData<fn(T) -> T>,
}
handle!(Pipe, sys::sk_pipe, sys::sk_pipe_retain, sys::sk_pipe_release);

impl<T: Value> Pipe<T> {
    /// A pipe without memory.
    pub fn new() -> Result<Pipe<T>, Error> {
        Pipe::create(false)
    }

    /// A pipe whose new subscribers first receive the latest value put.
    pub fn with_replay() -> Result<Pipe<T>, Error> {
        Pipe::create(true)
    }

    fn create(replay: bool) -> Result<Pipe<T>, Error> {
        let mut out = ptr::null_mut();
        // Safety: out is valid.
        check(unsafe { sys::sk_pipe_create(&mut out, replay) })?;
        Ok(Pipe { raw: NonNull::new(out).expect("signalkit: NULL pipe"), _values: PhantomData })
    }

    /// A pipe whose values put from inside its own callbacks, on the
    /// delivering thread, wait at most `capacity` at a time
    /// (`sk_pipe_create_bounded`): such a value waits until the current
    /// delivery is over, so that every subscriber gets the values in order;
    /// a callback that puts many at once would otherwise grow that queue
    /// without bound. `overflow` decides about a value that finds it full:
    /// dropped, or the pipe fails after the values waiting
    /// ([`Overflow::Error`]; [`Overflow::Block`] too, since the producer is
    /// the delivering thread, which cannot wait for itself).
    pub fn bounded(capacity: usize, overflow: Overflow) -> Result<Pipe<T>, Error> {
        let mut out = ptr::null_mut();
        // Safety: out is valid; no drop callback.
        check(unsafe { sys::sk_pipe_create_bounded(&mut out, false, capacity, overflow.raw(), None, ptr::null_mut(), None) })?;
        Ok(Pipe { raw: NonNull::new(out).expect("signalkit: NULL pipe"), _values: PhantomData })
    }

    /// [`Pipe::bounded`] that tells `on_drop` of each value dropped, with the
    /// pipe's count of drops so far (a panic in it goes to the failure hook,
    /// as an operator's `on_drop`).
    pub fn bounded_with<F: Fn(&T, u64) + Send + Sync + 'static>(capacity: usize, overflow: Overflow, on_drop: F)
                                                                -> Result<Pipe<T>, Error> {
        quiet_panics();
        let ctx = into_ctx(FnShared(on_drop));
        let mut out = ptr::null_mut();
        // Safety: out is valid; the library runs release_ctx once, also when
        // the call fails.
        check(unsafe {
            sys::sk_pipe_create_bounded(&mut out, false, capacity, overflow.raw(), Some(drop_fn::<T, F>), ctx,
                                        Some(release_ctx::<FnShared<F>>))
        })?;
        Ok(Pipe { raw: NonNull::new(out).expect("signalkit: NULL pipe"), _values: PhantomData })
    }

    /// Delivers `value` to every current subscriber, on this thread.
    #[inline]
    pub fn put(&self, value: T) -> Result<(), Error> {
        let raw = value.to_value()?;
        // Safety: live pipe and value.
        check(unsafe { sys::sk_pipe_put(self.raw.as_ptr(), raw.as_ptr()) })
    }

    /// Puts `value` without ever blocking this thread, then resolves once
    /// there is room: for an async producer
    /// ([`without_waiting_for_room`] around [`put`](Pipe::put)). Where a
    /// bounded place with [`Overflow::Block`] is full, the value is left
    /// there beyond its capacity and the future resolves once the place has
    /// room again (or has ended); where nothing is full it resolves at once.
    /// The put is made when the future is first polled, on the polling
    /// thread (the callbacks it runs run there, as `put`'s). Each place
    /// holds at most its capacity plus one value per future pending: await
    /// one put before the next to keep that bound and the order.
    ///
    /// ```
    /// use rsignalkit::Pipe;
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     struct Unpark(std::thread::Thread);
    /// #     impl std::task::Wake for Unpark { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
    /// #     let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    /// #     let mut cx = std::task::Context::from_waker(&waker);
    /// #     let mut f = Box::pin(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } std::thread::park(); }
    /// # }
    /// let pipe = Pipe::<i64>::new().unwrap();
    /// let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    /// let sink = seen.clone();
    /// let _subscription = pipe.signal().subscribe(move |v| sink.lock().unwrap().push(v)).unwrap();
    /// block_on(async {
    ///     for v in 0..3 {
    ///         pipe.put_async(v).await.unwrap();
    ///     }
    /// });
    /// assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2]);
    /// ```
    pub async fn put_async(&self, value: T) -> Result<(), Error> {
        let (put, room) = without_waiting_for_room(|| self.put(value));
        put?;
        if let Some(room) = room {
            // Its end (the completion) is the room.
            let mut stream = room.into_stream()?;
            let _ = stream.next().await;
        }
        Ok(())
    }

    /// Ends the pipe with an error (later subscribers receive it at once).
    pub fn put_error<E: Value>(&self, error: E) -> Result<(), Error> {
        let raw = error.to_value()?;
        // Safety: as above.
        check(unsafe { sys::sk_pipe_put_error(self.raw.as_ptr(), raw.as_ptr()) })
    }

    /// Ends the pipe with a completion.
    pub fn complete(&self) -> Result<(), Error> {
        // Safety: a live pipe.
        check(unsafe { sys::sk_pipe_put_completion(self.raw.as_ptr()) })
    }

    /// The pipe's signal.
    pub fn signal(&self) -> Signal<T> {
        let mut out = ptr::null_mut();
        // Safety: a live pipe.
        let status = unsafe { sys::sk_pipe_signal(&mut out, self.raw.as_ptr()) };
        made(status, out).unwrap_or_else(Signal::refused)
    }
}

/// Holds the latest value of the signal set into it, replayed to each new
/// subscriber of [`get`](Promise::get). Thread-safety: `Send` and `Sync`.
///
/// ```
/// use rsignalkit::{Promise, Signal};
/// let promise = Promise::<i64>::new().unwrap();
/// promise.set(&Signal::single(7)).unwrap();
/// let mut got = Vec::new();
/// promise.get().take(1).for_each_blocking(|v| got.push(v)).unwrap();
/// assert_eq!(got, vec![7]);
/// ```
pub struct Promise<T> {
    raw: NonNull<sys::sk_promise>,
    _values: PhantomData<fn(T) -> T>,
}
handle!(Promise, sys::sk_promise, sys::sk_promise_retain, sys::sk_promise_release);

impl<T: Value> Promise<T> {
    /// An empty promise.
    pub fn new() -> Result<Promise<T>, Error> {
        let mut out = ptr::null_mut();
        // Safety: out is valid.
        check(unsafe { sys::sk_promise_create(&mut out) })?;
        Ok(Promise { raw: NonNull::new(out).expect("signalkit: NULL promise"), _values: PhantomData })
    }

    /// Subscribes the promise to `signal` (ending its previous source).
    pub fn set(&self, signal: &Signal<T>) -> Result<(), Error> {
        // Safety: live handles.
        check(unsafe { sys::sk_promise_set(self.raw.as_ptr(), signal.as_raw()) })
    }

    /// The promise's signal: its latest value, then the later ones.
    pub fn get(&self) -> Signal<T> {
        let mut out = ptr::null_mut();
        // Safety: a live promise.
        let status = unsafe { sys::sk_promise_get(&mut out, self.raw.as_ptr()) };
        made(status, out).unwrap_or_else(Signal::refused)
    }
}

/// Holds a value set directly, replayed to each new subscriber of
/// [`get`](ValuePromise::get). Thread-safety: `Send` and `Sync`.
///
/// ```
/// use rsignalkit::ValuePromise;
/// let state = ValuePromise::new(Some(String::from("idle")), true).unwrap();
/// state.set(String::from("busy")).unwrap();
/// let mut got = Vec::new();
/// state.get().take(1).for_each_blocking(|v| got.push(v)).unwrap();
/// assert_eq!(got, vec!["busy".to_string()]);
/// ```
pub struct ValuePromise<T> {
    raw: NonNull<sys::sk_value_promise>,
    _values: PhantomData<fn(T) -> T>,
}
handle!(ValuePromise, sys::sk_value_promise, sys::sk_value_promise_retain, sys::sk_value_promise_release);

impl<T: Value> ValuePromise<T> {
    /// A value promise holding `initial` (None: empty until set); with
    /// `ignore_repeated`, setting a value equal to the current one does
    /// nothing.
    pub fn new(initial: Option<T>, ignore_repeated: bool) -> Result<ValuePromise<T>, Error> {
        let raw = initial.as_ref().map(Value::to_value).transpose()?;
        let mut out = ptr::null_mut();
        // Safety: out is valid; the initial value is borrowed.
        check(unsafe {
            sys::sk_value_promise_create(&mut out, raw.as_ref().map_or(ptr::null(), |r| r.as_ptr()), ignore_repeated)
        })?;
        Ok(ValuePromise { raw: NonNull::new(out).expect("signalkit: NULL promise"), _values: PhantomData })
    }

    /// Sets the value, delivering it to the current subscribers.
    pub fn set(&self, value: T) -> Result<(), Error> {
        let raw = value.to_value()?;
        // Safety: live handles.
        check(unsafe { sys::sk_value_promise_set(self.raw.as_ptr(), raw.as_ptr()) })
    }

    /// The promise's signal.
    pub fn get(&self) -> Signal<T> {
        let mut out = ptr::null_mut();
        // Safety: a live promise.
        let status = unsafe { sys::sk_value_promise_get(&mut out, self.raw.as_ptr()) };
        made(status, out).unwrap_or_else(Signal::refused)
    }
}

/// Runs `f` with every put made on this thread never waiting for room
/// (`sk_nowait_begin` in signalkit.h), and returns its result with the
/// room signal: `None` when no put found a full place; else a signal that
/// completes, emitting nothing, once each such place has room again (or has
/// ended, or is gone).
///
/// A bounded place with [`Overflow::Block`] (`deliver_on_bounded`,
/// `on_backpressure_buffer`, `Signal::zip_bounded`, `merge_map_bounded`,
/// `queue_bounded`, `buffer_time_bounded`) makes a producer that finds it
/// full wait. Inside `f`, such a put (made by `f`, or by a callback it runs
/// on this thread) leaves its value in the place beyond the capacity
/// instead. An async producer puts this way and awaits the room signal's
/// end (`into_stream`, then `next().await`) before its next put: its
/// thread never blocks, and each place holds at most its capacity plus
/// one value per such producer. Everything else is as for a put outside:
/// the other policies, and `Block`'s refusals ("cannot block").
///
/// The room signal does not keep the places alive; its completion comes on
/// the subscribing thread when every place has room already, else on a
/// serial queue of the library's own that all room signals share (keep
/// the closure short). Scopes nest; a panic in `f` ends the scope (its
/// places forgotten) and goes on.
///
/// Thread-safety: the scope is the calling thread's.
///
/// ```
/// use rsignalkit::{without_waiting_for_room, Pipe};
/// let pipe = Pipe::<i64>::new().unwrap();
/// let (put, room) = without_waiting_for_room(|| pipe.put(1));
/// put.unwrap();
/// assert!(room.is_none()); // nothing bounded was full
/// ```
pub fn without_waiting_for_room<R>(f: impl FnOnce() -> R) -> (R, Option<Signal<()>>) {
    /// Ends the scope if `f` unwinds.
    struct Scope;
    impl Drop for Scope {
        fn drop(&mut self) {
            let mut room = ptr::null_mut();
            // Safety: this thread's scope, begun below; a room is ours.
            unsafe {
                sys::sk_nowait_end(&mut room);
                sys::sk_signal_release(room);
            }
        }
    }
    // Safety: no argument; the scope is ended by `Scope` or below.
    unsafe { sys::sk_nowait_begin() };
    let scope = Scope;
    let result = f();
    std::mem::forget(scope);
    let mut room = ptr::null_mut();
    // Safety: this thread's scope is open (begun above); the room (+1) is
    // adopted by the signal.
    let status = unsafe { sys::sk_nowait_end(&mut room) };
    debug_assert_eq!(status, sys::SK_OK);
    let room = NonNull::new(room).map(|raw| unsafe { Signal::from_raw(raw.as_ptr()) });
    (result, room)
}
