//! Signals consumed by async code: [`Signal::into_stream`] starts a signal
//! and hands back a [`SignalStream`], whose [`next`](SignalStream::next)
//! future resolves to each event in turn. It wakes its task through the
//! task's `Waker`, from whatever thread delivers, so it works with any
//! executor and needs no runtime.
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::error::Error;
use crate::signal::{Observer, Signal, Subscription};
use crate::value::{AnyValue, Value};

struct Shared<T> {
    items: VecDeque<Result<T, AnyValue>>,
    ended: bool,
    waker: Option<Waker>,
}

/// The events of a started signal, for async code: `Some(Ok(value))` for
/// each value, `Some(Err(error))` for the error that ends it, then `None`
/// (also after the completion). Values that arrive before they are asked
/// for wait in an unbounded buffer. Dropping the stream disposes the
/// subscription.
///
/// Thread-safety: `Send` (and `Sync` for `T: Sync`); the events may be
/// delivered on any thread, each waking the task that waits.
///
/// ```
/// use signalkit::Signal;
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
pub struct SignalStream<T> {
    shared: Arc<Mutex<Shared<T>>>,
    _subscription: Subscription,
}

/// The future of [`SignalStream::next`].
pub struct Next<'a, T> {
    stream: &'a mut SignalStream<T>,
}

impl<T: Value> Signal<T> {
    /// Starts the signal and hands back its events as a stream.
    pub fn into_stream(&self) -> Result<SignalStream<T>, Error> {
        let shared = Arc::new(Mutex::new(Shared { items: VecDeque::new(), ended: false, waker: None }));
        let push = |shared: &Arc<Mutex<Shared<T>>>, item: Option<Result<T, AnyValue>>| {
            let waker = {
                let mut state = shared.lock().unwrap_or_else(PoisonError::into_inner);
                match item {
                    Some(item) => state.items.push_back(item),
                    None => state.ended = true,
                }
                state.waker.take()
            };
            // Woken outside our lock: the executor may poll at once.
            if let Some(waker) = waker {
                waker.wake()
            }
        };
        let (a, b, c) = (shared.clone(), shared.clone(), shared.clone());
        let subscription = self.start(
            Observer::new()
                .next(move |v| push(&a, Some(Ok(v))))
                .error(move |e| {
                    push(&b, Some(Err(e)));
                    push(&b, None)
                })
                .completed(move || push(&c, None)),
        )?;
        Ok(SignalStream { shared, _subscription: subscription })
    }
}

impl<T> SignalStream<T> {
    /// The next event: Some(Ok(value)), Some(Err(error)), or None at the end.
    #[allow(clippy::should_implement_trait)] // Iterator::next's async counterpart: it returns a future
    pub fn next(&mut self) -> Next<'_, T> {
        Next { stream: self }
    }

    /// Polls for the next event (what a `Stream` implementation calls).
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, AnyValue>>> {
        let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(item) = state.items.pop_front() {
            return Poll::Ready(Some(item));
        }
        if state.ended {
            return Poll::Ready(None);
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl<T> Future for Next<'_, T> {
    type Output = Option<Result<T, AnyValue>>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get_mut().stream.poll_next(cx)
    }
}
