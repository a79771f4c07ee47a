//! Signals consumed by async code: [`Signal::into_stream`] and
//! [`Signal::into_stream_bounded`] start a signal and hand back a
//! [`SignalStream`], whose [`next`](SignalStream::next) future resolves to
//! each event in turn. It wakes its task through the task's `Waker`, from
//! whatever thread delivers, so it works with any executor and needs no
//! runtime. How the reader and the producers wait is written once, in
//! [`SignalStream`]'s documentation.
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::callback::{catching, current_thread, report_failure};
use crate::error::Error;
use crate::operators::Overflow;
use crate::signal::{Observer, Signal, Subscription};
use crate::sys;
use crate::value::{AnyValue, Value};

/// The name the stream's errors give ("OPERATOR: overflow: ...", as the
/// library's bounded operators name theirs).
const OPERATOR: &str = "into_stream_bounded";

/// What ends the stream, as the reader will read it.
enum End {
    /// Not ended yet.
    Open,
    Completed,
    Failed(AnyValue),
    /// Read by `poll_next`: `None` from now on.
    Read,
}

struct State<T> {
    values: VecDeque<T>,
    end: End,
    /// False once no value is taken any more: the end arrived, an overflow
    /// failed the stream, or the reader went.
    taking: bool,
    /// The reader dropped the stream: what arrives is released unreported.
    reader_gone: bool,
    /// The reader's task, waiting in `poll_next`.
    reader: Option<Waker>,
    /// Producers' tasks waiting in `Room::ready`.
    producers: Vec<Waker>,
    /// Producing threads waiting for room (`Overflow::Block`).
    blocked: usize,
    /// The stream's count of values dropped so far.
    drops: u64,
    /// The token of the thread that polled last, and of the thread inside
    /// the start (0: none): a producer on either cannot block.
    poller: usize,
    starter: usize,
}

/// A bounded stream's drop callback.
type OnDrop<T> = Box<dyn Fn(&T, u64) + Send + Sync>;

/// The buffer between the subscription's callbacks and the reader.
struct Shared<T> {
    state: Mutex<State<T>>,
    /// Where blocked producers wait for room.
    room: Condvar,
    /// None: unbounded.
    bound: Option<(usize, Overflow)>,
    on_drop: Option<OnDrop<T>>,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A value from the subscription: into the buffer, or handled by the
    /// overflow policy.
    fn offer(&self, value: T) {
        let mut state = self.lock();
        loop {
            if state.reader_gone {
                return;
            }
            if !state.taking {
                // After an overflow's error: dropped until the reader reads
                // it (and the subscription is disposed).
                let count = count_drop(&mut state);
                drop(state);
                return self.report(&value, count);
            }
            let (capacity, overflow) = match self.bound {
                Some(bound) if state.values.len() >= bound.0 => bound,
                _ => break,
            };
            match overflow {
                Overflow::DropNewest => {
                    let count = count_drop(&mut state);
                    drop(state);
                    return self.report(&value, count);
                }
                Overflow::DropOldest => {
                    let oldest = state.values.pop_front();
                    state.values.push_back(value);
                    let count = count_drop(&mut state);
                    drop(state);
                    if let Some(oldest) = oldest {
                        self.report(&oldest, count);
                    }
                    return;
                }
                Overflow::Latest => {
                    let replaced = state.values.pop_back();
                    state.values.push_back(value);
                    let count = count_drop(&mut state);
                    drop(state);
                    if let Some(replaced) = replaced {
                        self.report(&replaced, count);
                    }
                    return;
                }
                Overflow::Error => {
                    let message = format!(
                        "{}: overflow: a value arrived with {} values pending (capacity {}, policy error)",
                        OPERATOR, capacity, capacity
                    );
                    return self.overflowed(state, value, message);
                }
                Overflow::Block => {
                    let me = current_thread();
                    if me == state.poller || me == state.starter {
                        let message = format!(
                            "{}: cannot block: the buffer is full (capacity {}) and the value was put by the thread \
                             that {} the stream, which would wait for itself forever; put from another thread, or \
                             await SignalStream::room's ready() before each put",
                            OPERATOR,
                            capacity,
                            if me == state.starter { "starts" } else { "polls" }
                        );
                        return self.overflowed(state, value, message);
                    }
                    state.blocked += 1;
                    state = self.room.wait(state).unwrap_or_else(PoisonError::into_inner);
                    state.blocked -= 1;
                }
            }
        }
        state.values.push_back(value);
        let reader = state.reader.take();
        drop(state);
        // Woken outside the lock: the executor may poll at once.
        if let Some(reader) = reader {
            reader.wake()
        }
    }

    /// Fails the stream with `message` after the values waiting (an
    /// overflow under `Error`, or a `Block` that cannot wait); `value` is
    /// dropped, and so is every value until the reader reads the error.
    fn overflowed(&self, mut state: MutexGuard<'_, State<T>>, value: T, message: String) {
        let count = count_drop(&mut state);
        self.end_locked(state, End::Failed(AnyValue::String(message)));
        self.report(&value, count);
    }

    /// The subscription's error or completion: after the values waiting.
    /// Ignored after an overflow failed the stream.
    fn finish(&self, end: End) {
        let state = self.lock();
        if state.taking {
            self.end_locked(state, end);
        }
    }

    fn end_locked(&self, mut state: MutexGuard<'_, State<T>>, end: End) {
        state.taking = false;
        state.end = end;
        let reader = state.reader.take();
        let producers = mem::take(&mut state.producers);
        drop(state);
        self.room.notify_all();
        wake_all(reader, producers);
    }

    /// Tells `on_drop` of a value dropped (outside the lock, on the
    /// dropping thread); a panic there goes to the failure hook, as a
    /// bounded operator's `on_drop` does.
    fn report(&self, value: &T, count: u64) {
        if let Some(on_drop) = &self.on_drop {
            if let Err(message) = catching(|| on_drop(value, count)) {
                report_failure("on_drop", &message);
            }
        }
    }

    /// Whether a value put now would find room (or go nowhere: false).
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<bool> {
        let mut state = self.lock();
        if !state.taking {
            return Poll::Ready(false);
        }
        match self.bound {
            Some((capacity, _)) if state.values.len() >= capacity => {
                if !state.producers.iter().any(|waiting| waiting.will_wake(cx.waker())) {
                    state.producers.push(cx.waker().clone());
                }
                Poll::Pending
            }
            _ => Poll::Ready(true),
        }
    }
}

fn count_drop<T>(state: &mut State<T>) -> u64 {
    state.drops += 1;
    state.drops
}

fn wake_all(reader: Option<Waker>, producers: Vec<Waker>) {
    if let Some(reader) = reader {
        reader.wake()
    }
    for producer in producers {
        producer.wake()
    }
}

/// The events of a started signal, for async code: `Some(Ok(value))` for
/// each value, `Some(Err(error))` for the error that ends it, then `None`
/// (also after the completion). Made by [`Signal::into_stream`] (values
/// that arrive before they are asked for wait in an unbounded buffer) or
/// [`Signal::into_stream_bounded`] (at most a capacity of them wait, an
/// overflow policy deciding about the next).
///
/// # How the two sides wait
///
/// - The reader never blocks a thread. [`poll_next`](SignalStream::poll_next)
///   takes a value that waits, or registers the task's `Waker` and answers
///   `Pending`; the next event wakes it, on the thread that delivers it.
/// - A producer (the thread that delivers into the stream: a pipe's
///   putting thread, a queue's worker, a C thread) never waits either,
///   except under [`Overflow::Block`] with the buffer full. A thread's put
///   is a synchronous call, so waiting for room there is the thread
///   waiting: it sleeps on the stream's condition variable until the reader
///   takes a value or drops the stream, as the C library's
///   `SK_OVERFLOW_BLOCK` makes a producing thread wait. Where that wait
///   could never end, the stream fails instead, with an error that says
///   "cannot block": the producer is the thread starting the stream (a
///   synchronous source, inside `into_stream_bounded`), or the thread that
///   polled the stream last (its reader's: with a single-threaded executor
///   the only thread that could make room). Not detected: a reader whose
///   executor thread is blocked elsewhere.
/// - An async producer waits without a thread: [`SignalStream::room`] hands
///   out a [`Room`], whose [`ready`](Room::ready) future resolves once the
///   buffer has room for a value, through the producer task's `Waker`. A
///   single producer that awaits it before each put is never made to
///   wait in the put (the reader only ever makes more room).
///
/// # Failures and the end
///
/// Failures follow the one rule of every language (docs/misuse.md, "A
/// callback that fails"; the [guide's "Errors and
/// panics"](crate::guide#errors-and-panics)): a panic in an operator's
/// closure upstream arrives as `Err(AnyValue::String("panicked: MESSAGE"))`,
/// a value that is not a `T` as `Err(AnyValue::Failure(message))`, a panic
/// in `on_drop` goes to the failure hook and the stream goes on.
///
/// Dropping the stream disposes the subscription: nothing is delivered
/// after, the values still waiting are released (not reported to
/// `on_drop`), and a producer waiting for room is let go. Reading the end
/// disposes it too.
///
/// Thread-safety: `Send` and `Sync`; read it from one task at a time (its
/// reading methods take `&mut self`). The events may be delivered on any
/// thread, each waking the task that waits.
///
/// ```
/// use rsignalkit::Signal;
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     struct Unpark(std::thread::Thread);
/// #     impl std::task::Wake for Unpark { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
/// #     let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut f = Box::pin(f);
/// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } std::thread::park(); }
/// # }
/// let signal = Signal::concat(&[Signal::single(1i64), Signal::single(2)]);
/// let total = block_on(async move {
///     let mut stream = signal.into_stream().unwrap();
///     let mut total = 0;
///     while let Some(Ok(x)) = stream.next().await {
///         total += x;
///     }
///     total
/// });
/// assert_eq!(total, 3);
/// ```
///
/// It is `#[must_use]`, as [`Subscription`] is: a stream made and dropped
/// in one statement warns (an error here, where the lint is denied), where
/// the same stream kept compiles:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// let pipe = rsignalkit::Pipe::<i64>::new().unwrap();
/// pipe.signal().into_stream().unwrap(); // unused `SignalStream` that must be used
/// ```
///
/// ```
/// #![deny(unused_must_use)]
/// let pipe = rsignalkit::Pipe::<i64>::new().unwrap();
/// let _stream = pipe.signal().into_stream().unwrap();
/// ```
#[must_use = "a SignalStream disposes its subscription when dropped: keep it while its events are wanted"]
pub struct SignalStream<T> {
    shared: Arc<Shared<T>>,
    subscription: Subscription,
}

impl<T> fmt::Debug for SignalStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignalStream").field("subscription", &self.subscription).finish_non_exhaustive()
    }
}

/// The future of [`SignalStream::next`].
#[must_use = "futures do nothing unless polled or awaited"]
pub struct Next<'a, T> {
    stream: &'a mut SignalStream<T>,
}

impl<T> fmt::Debug for Next<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next").field("stream", &self.stream).finish()
    }
}

impl<T: Value> Signal<T> {
    /// Starts the signal and hands back its events as a stream, the values
    /// that arrive before they are read waiting in an unbounded buffer
    /// (a fast signal and a slow reader make it grow: see
    /// [`into_stream_bounded`](Signal::into_stream_bounded)).
    pub fn into_stream(&self) -> Result<SignalStream<T>, Error> {
        self.stream_with(None, None)
    }

    /// Starts the signal and hands back its events as a stream in which at
    /// most `capacity` values wait for the reader; `overflow` decides about
    /// a value that finds `capacity` waiting, as in every bounded place of
    /// the library (`sk_overflow` in signalkit.h is the policies' contract;
    /// docs/concepts.md, "Where values can queue"): [`Overflow::DropNewest`] drops it,
    /// [`DropOldest`](Overflow::DropOldest) drops the oldest waiting,
    /// [`Latest`](Overflow::Latest) replaces the newest waiting,
    /// [`Error`](Overflow::Error) ends the stream, after the values
    /// waiting, with `Err(AnyValue::String("into_stream_bounded: overflow:
    /// ..."))`, and [`Block`](Overflow::Block) makes the producer wait for
    /// room (how, and where it cannot: [how the two sides
    /// wait](SignalStream#how-the-two-sides-wait)). A value leaves the
    /// buffer when the reader takes it.
    /// Err(`SK_ERR_INVALID_ARGUMENT`) for a capacity of 0.
    ///
    /// ```
    /// use rsignalkit::{Overflow, Pipe};
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     struct Unpark(std::thread::Thread);
    /// #     impl std::task::Wake for Unpark { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
    /// #     let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    /// #     let mut cx = std::task::Context::from_waker(&waker);
    /// #     let mut f = Box::pin(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } std::thread::park(); }
    /// # }
    /// let readings = Pipe::<i64>::new().unwrap();
    /// let mut stream = readings.signal().into_stream_bounded(2, Overflow::DropOldest).unwrap();
    /// for reading in 1..=5 {
    ///     readings.put(reading).unwrap(); // nobody reads yet: 1, 2 and 3 are dropped
    /// }
    /// readings.complete().unwrap();
    /// let read = block_on(async move {
    ///     let mut read = Vec::new();
    ///     while let Some(Ok(reading)) = stream.next().await {
    ///         read.push(reading);
    ///     }
    ///     read
    /// });
    /// assert_eq!(read, vec![4, 5]);
    /// ```
    pub fn into_stream_bounded(&self, capacity: usize, overflow: Overflow) -> Result<SignalStream<T>, Error> {
        self.stream_with(Some((checked(capacity)?, overflow)), None)
    }

    /// [`into_stream_bounded`](Signal::into_stream_bounded) that tells
    /// `on_drop` of each value dropped, with the stream's count of drops so
    /// far, on the thread that dropped it: nothing is dropped unseen. A
    /// panic in it goes to the failure hook (`where` = `"on_drop"`).
    pub fn into_stream_bounded_with<F: Fn(&T, u64) + Send + Sync + 'static>(
        &self,
        capacity: usize,
        overflow: Overflow,
        on_drop: F,
    ) -> Result<SignalStream<T>, Error> {
        self.stream_with(Some((checked(capacity)?, overflow)), Some(Box::new(on_drop)))
    }

    fn stream_with(
        &self,
        bound: Option<(usize, Overflow)>,
        on_drop: Option<OnDrop<T>>,
    ) -> Result<SignalStream<T>, Error> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                values: VecDeque::new(),
                end: End::Open,
                taking: true,
                reader_gone: false,
                reader: None,
                producers: Vec::new(),
                blocked: 0,
                drops: 0,
                poller: 0,
                starter: current_thread(),
            }),
            room: Condvar::new(),
            bound,
            on_drop,
        });
        let (values, error, completion) = (shared.clone(), shared.clone(), shared.clone());
        let subscription = self.start(
            Observer::new()
                .next(move |value| values.offer(value))
                .error(move |e| error.finish(End::Failed(e)))
                .completed(move || completion.finish(End::Completed)),
        );
        shared.lock().starter = 0;
        Ok(SignalStream { shared, subscription: subscription? })
    }
}

/// A capacity of at least 1, or the error that says so.
fn checked(capacity: usize) -> Result<usize, Error> {
    if capacity == 0 {
        return Err(Error::new(sys::SK_ERR_INVALID_ARGUMENT, format!("{}: capacity must be at least 1", OPERATOR)));
    }
    Ok(capacity)
}

impl<T> SignalStream<T> {
    /// The next event: Some(Ok(value)), Some(Err(error)), or None at the end.
    #[allow(clippy::should_implement_trait)] // Iterator::next's async counterpart: it returns a future
    pub fn next(&mut self) -> Next<'_, T> {
        Next { stream: self }
    }

    /// Polls for the next event (what a `Stream` implementation calls): a
    /// value that waits, else the end once read, else `Pending` with the
    /// task's `Waker` kept to be woken by the next event. Never blocks.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, AnyValue>>> {
        let mut state = self.shared.lock();
        state.poller = current_thread();
        if let Some(value) = state.values.pop_front() {
            if state.blocked > 0 {
                self.shared.room.notify_one();
            }
            let producers = mem::take(&mut state.producers);
            drop(state);
            wake_all(None, producers);
            return Poll::Ready(Some(Ok(value)));
        }
        let item = match mem::replace(&mut state.end, End::Read) {
            End::Open => {
                state.end = End::Open;
                if !state.reader.as_ref().map_or(false, |reader| reader.will_wake(cx.waker())) {
                    state.reader = Some(cx.waker().clone());
                }
                return Poll::Pending;
            }
            End::Completed | End::Read => None,
            End::Failed(error) => Some(Err(error)),
        };
        drop(state);
        // The end was read: nothing more will be taken.
        self.subscription.dispose();
        Poll::Ready(item)
    }
}

impl<T: Value> SignalStream<T> {
    /// A handle for async producers that waits for room in the stream's
    /// buffer without blocking a thread ([how the two sides
    /// wait](SignalStream#how-the-two-sides-wait)).
    pub fn room(&self) -> Room {
        Room { gate: self.shared.clone() }
    }
}

impl<T> Drop for SignalStream<T> {
    fn drop(&mut self) {
        let (values, producers) = {
            let mut state = self.shared.lock();
            state.reader_gone = true;
            state.taking = false;
            state.reader = None;
            (mem::take(&mut state.values), mem::take(&mut state.producers))
        };
        // A producer waiting for room goes on (its value is released).
        self.shared.room.notify_all();
        wake_all(None, producers);
        drop(values);
        // Then `subscription` is dropped: disposed.
    }
}

impl<T> Future for Next<'_, T> {
    type Output = Option<Result<T, AnyValue>>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get_mut().stream.poll_next(cx)
    }
}

/// Where an async producer waits for room in a [`SignalStream`]'s buffer
/// ([`SignalStream::room`]): [`ready`](Room::ready) resolves to `true` once
/// a value put now would be taken without waiting or dropping (at once for
/// an unbounded stream), to `false` once the stream takes no more (it ended,
/// failed, or its reader dropped it). A clone waits on the same stream.
/// It keeps the buffer, not the subscription, alive.
///
/// Room is room for one value: a producer whose put the signal turns into
/// several values, or two producers that race for the last place, can
/// still find the buffer full (and then the policy decides).
///
/// Thread-safety: `Send` and `Sync`.
///
/// ```
/// use rsignalkit::{Overflow, Pipe};
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     struct Unpark(std::thread::Thread);
/// #     impl std::task::Wake for Unpark { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
/// #     let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut f = Box::pin(f);
/// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } std::thread::park(); }
/// # }
/// let pipe = Pipe::<i64>::new().unwrap();
/// let mut stream = pipe.signal().into_stream_bounded(1, Overflow::Block).unwrap();
/// let room = stream.room();
/// block_on(async {
///     assert!(room.ready().await); // empty: room
///     pipe.put(1).unwrap();
///     assert_eq!(stream.next().await, Some(Ok(1))); // taken: room again
///     assert!(room.ready().await);
///     drop(stream);
///     assert!(!room.ready().await); // the reader went
/// });
/// ```
#[derive(Clone)]
pub struct Room {
    gate: Arc<dyn Gate>,
}

impl fmt::Debug for Room {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Room").finish_non_exhaustive()
    }
}

/// A stream's buffer as a producer sees it (whatever its values' type).
trait Gate: Send + Sync {
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<bool>;
}

impl<T: Send> Gate for Shared<T> {
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<bool> {
        Shared::poll_room(self, cx)
    }
}

impl Room {
    /// Resolves once the stream has room for a value (`true`) or takes no
    /// more (`false`), waking the awaiting task through its `Waker`.
    pub fn ready(&self) -> Ready<'_> {
        Ready { room: self }
    }
}

/// The future of [`Room::ready`].
#[must_use = "futures do nothing unless polled or awaited"]
pub struct Ready<'a> {
    room: &'a Room,
}

impl fmt::Debug for Ready<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ready").field("room", &self.room).finish()
    }
}

impl Future for Ready<'_> {
    type Output = bool;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        self.room.gate.poll_room(cx)
    }
}
