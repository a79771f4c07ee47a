// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py (tools/api/bindings_rust.py)
// from tools/api/operators.md and the C headers (`make api-update`). The methods of
// the operators of a standard shape, one impl block per family of the operator table;
// operators.rs holds the others and the helpers these call (tools/api/exceptions.txt's
// rust-hand lines say why each of a standard shape is written there by hand).
use std::time::Duration;
use super::{map_fn, place, predicate_fn, raw_list, reduce_fn, value_fn, value_or_refused, with_ctx, work_fn};
use crate::callback::FnShared;
use crate::queue::{seconds as to_seconds, Queue};
use crate::signal::{operator, Signal};
use crate::sys;
use crate::value::Value;

/// # Mapping: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// Values transformed by `f` (`sk_signal_map`). A panic in `f` ends the stream with the error
    /// "panicked: MESSAGE" (`sk_callback_fail`): no value for that call, the upstream is disposed,
    /// nothing comes after.
    ///
    /// ```
    /// use rsignalkit::Signal;
    /// let mut got = Vec::new();
    /// Signal::single(4).map(|x: i64| x.to_string()).for_each_blocking(|s| got.push(s)).unwrap();
    /// assert_eq!(got, vec!["4".to_string()]);
    /// ```
    pub fn map<U: Value, F: Fn(T) -> U + Send + Sync + 'static>(&self, f: F) -> Signal<U> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_map(out, self.as_raw(), Some(map_fn::<T, U, F>), ctx, release)
        })
    }

    /// Only the values for which `f` returns true (`sk_signal_filter`). A panic in `f` ends the
    /// stream with the error "panicked: MESSAGE" (`sk_callback_fail`): the value neither passes nor
    /// completes anything, the upstream is disposed, nothing comes after.
    ///
    /// A non-`Send` closure is refused, since the library may call it on
    /// another thread:
    ///
    /// ```compile_fail,E0277
    /// use std::rc::Rc;
    /// let limit = Rc::new(3);
    /// let s = rsignalkit::Signal::single(1i64).filter(move |x| *x < *limit);
    /// ```
    pub fn filter<F: Fn(&T) -> bool + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_filter(out, self.as_raw(), Some(predicate_fn::<T, F>), ctx, release)
        })
    }

    /// Drops a value equal (sk_value_equal()) to the one delivered before it
    /// (`sk_signal_distinct_until_changed`).
    pub fn distinct_until_changed(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_distinct_until_changed(out, self.as_raw()) })
    }

    /// Calls `f(value)` just before each value is delivered; otherwise passes every event through
    /// untouched (`sk_signal_before_next`). A panic in `f` goes to the failure hook
    /// (`set_failure_hook`, `where` = `"before_next"`): a side effect cannot fail the stream in C.
    pub fn before_next<F: Fn(&T) + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_before_next(out, self.as_raw(), Some(value_fn::<T, F, place::BeforeNext>), ctx, release)
        })
    }
}

/// # Take: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// The first `count` values, then completion right after the count-th (`sk_signal_take`).
    pub fn take(&self, count: usize) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_take(out, self.as_raw(), count) })
    }

    /// The values of `self` until `notifier` emits a value: then the completion, and both are
    /// disposed (`sk_signal_take_until_signal`).
    pub fn take_until_signal<U>(&self, notifier: &Signal<U>) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_take_until_signal(out, self.as_raw(), notifier.as_raw()) })
    }

    /// Drops the first `count` values, then passes every value (`sk_signal_skip`).
    pub fn skip(&self, count: usize) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_skip(out, self.as_raw(), count) })
    }

    /// Drops values while `f` returns true; from the first value for which it returns false, passes
    /// every value (`f` is not called again) (`sk_signal_skip_while`). A panic in `f` ends the
    /// stream with the error "panicked: MESSAGE" (`sk_callback_fail`): the value neither passes nor
    /// completes anything, the upstream is disposed, nothing comes after.
    pub fn skip_while<F: Fn(&T) -> bool + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_skip_while(out, self.as_raw(), Some(predicate_fn::<T, F>), ctx, release)
        })
    }

    /// The first value, then the completion (as sk_signal_take() of 1) (`sk_signal_first`).
    pub fn first(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_first(out, self.as_raw()) })
    }

    /// The first value for which `f` returns true, then the completion (`sk_signal_first_where`). A
    /// panic in `f` ends the stream with the error "panicked: MESSAGE" (`sk_callback_fail`): the
    /// value neither passes nor completes anything, the upstream is disposed, nothing comes after.
    pub fn first_where<F: Fn(&T) -> bool + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_first_where(out, self.as_raw(), Some(predicate_fn::<T, F>), ctx, release)
        })
    }

    /// Only the value at `index` (0 for the first), then the completion (`sk_signal_element_at`).
    pub fn element_at(&self, index: usize) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_element_at(out, self.as_raw(), index) })
    }

    /// Every value; when `self` completes without having emitted one, a copy of `value` first, then
    /// the completion (`sk_signal_default_if_empty`).
    pub fn default_if_empty(&self, value: T) -> Signal<T> {
        value_or_refused(&value, |raw| {
            operator(|out| unsafe { sys::sk_signal_default_if_empty(out, self.as_raw(), raw.as_ptr()) })
        })
    }

    /// Only the last value, when `self` completes: `Some(value)`, or `None` when `self` completed
    /// without a value (the library's nil), then the completion (`sk_signal_last`; Swift's `last`
    /// gives a `T?` and Python's an `Optional` likewise).
    pub fn last(&self) -> Signal<Option<T>> {
        operator(|out| unsafe { sys::sk_signal_last(out, self.as_raw()) })
    }
}

/// # Combining: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// All values of `signals`; completes when all complete (`sk_signal_merge`).
    pub fn merge(signals: &[Signal<T>]) -> Signal<T> {
        let raw = raw_list(signals);
        operator(|out| unsafe { sys::sk_signal_merge(out, raw.as_ptr(), raw.len()) })
    }

    /// The `signals` one after the other: each starts when the one before it completes; completes
    /// after the last (`sk_signal_concat`).
    pub fn concat(signals: &[Signal<T>]) -> Signal<T> {
        let raw = raw_list(signals);
        operator(|out| unsafe { sys::sk_signal_concat(out, raw.as_ptr(), raw.len()) })
    }

    /// A copy of `value` first, during the start, then the events of `self` (started afterwards)
    /// (`sk_signal_start_with`).
    pub fn start_with(&self, value: T) -> Signal<T> {
        value_or_refused(&value, |raw| {
            operator(|out| unsafe { sys::sk_signal_start_with(out, self.as_raw(), raw.as_ptr()) })
        })
    }
}

/// # Meta: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// Drops every value; passes only the error or the completion (`sk_signal_ignore_values`).
    pub fn ignore_values(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_ignore_values(out, self.as_raw()) })
    }

    /// One subscription to `self` shared by all subscribers of the result (`sk_signal_share`).
    pub fn share(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_share(out, self.as_raw()) })
    }

    /// As sk_signal_share(), and a subscriber that joins a running connection first receives its
    /// last `count` values (fewer if fewer came), oldest first (`sk_signal_replay`).
    pub fn replay(&self, count: usize) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_replay(out, self.as_raw(), count) })
    }
}

/// # Errors and loops: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// Starts `self` again each time it completes, forever: the result never completes
    /// (`sk_signal_restart`).
    pub fn restart(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_restart(out, self.as_raw()) })
    }

    /// Starts `self` again at once each time it fails; errors never pass
    /// (`sk_signal_restart_if_error`).
    pub fn restart_if_error(&self) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_restart_if_error(out, self.as_raw()) })
    }
}

/// # Reduce, materialize: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// Folds the values; emits the accumulator when `self` completes (`sk_signal_reduce_left`). A
    /// panic in `f` ends the stream with the error "panicked: MESSAGE" (`sk_callback_fail`): no
    /// accumulator is delivered for that value (`reduce` delivers none at all), the upstream is
    /// disposed.
    pub fn reduce<U: Value, F: Fn(U, T) -> U + Send + Sync + 'static>(&self, initial: U, f: F) -> Signal<U> {
        value_or_refused(&initial, |raw| {
            with_ctx(FnShared(f), |out, ctx, release| unsafe {
                sys::sk_signal_reduce_left(out, self.as_raw(), raw.as_ptr(), Some(reduce_fn::<T, U, F>), ctx, release)
            })
        })
    }

    /// Folds each value into an accumulator and delivers every accumulator: `f(initial, v1)`, then
    /// `f(that, v2)`, ... (`sk_signal_scan`). A panic in `f` ends the stream with the error
    /// "panicked: MESSAGE" (`sk_callback_fail`): no accumulator is delivered for that value
    /// (`reduce` delivers none at all), the upstream is disposed.
    ///
    /// ```
    /// use rsignalkit::Signal;
    /// let s = Signal::concat(&[Signal::single(1i64), Signal::single(2), Signal::single(3)]);
    /// let mut got = Vec::new();
    /// s.scan(0, |sum, x| sum + x).for_each_blocking(|v| got.push(v)).unwrap();
    /// assert_eq!(got, vec![1, 3, 6]);
    /// ```
    pub fn scan<U: Value, F: Fn(U, T) -> U + Send + Sync + 'static>(&self, initial: U, f: F) -> Signal<U> {
        value_or_refused(&initial, |raw| {
            with_ctx(FnShared(f), |out, ctx, release| unsafe {
                sys::sk_signal_scan(out, self.as_raw(), raw.as_ptr(), Some(reduce_fn::<T, U, F>), ctx, release)
            })
        })
    }
}

/// # Side effects: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// Calls `f(value)` right after each value was delivered (after the downstream callback
    /// returned); otherwise passes every event through untouched (`sk_signal_after_next`). A panic
    /// in `f` goes to the failure hook (`set_failure_hook`, `where` = `"after_next"`): a side
    /// effect cannot fail the stream in C.
    pub fn after_next<F: Fn(&T) + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_after_next(out, self.as_raw(), Some(value_fn::<T, F, place::AfterNext>), ctx, release)
        })
    }

    /// Calls `f()` at each start, before `self` is started; otherwise passes every event through
    /// untouched (`sk_signal_before_started`). A panic in `f` goes to the failure hook
    /// (`set_failure_hook`, `where` = `"before_started"`): a side effect cannot fail the stream in
    /// C.
    pub fn before_started<F: Fn() + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_before_started(out, self.as_raw(), Some(work_fn::<F, place::BeforeStarted>), ctx, release)
        })
    }

    /// Calls `f()` when `self` completes, just before the completion is delivered; otherwise passes
    /// every event through untouched (`sk_signal_before_completed`). A panic in `f` goes to the
    /// failure hook (`set_failure_hook`, `where` = `"before_completed"`): a side effect cannot fail
    /// the stream in C.
    pub fn before_completed<F: Fn() + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_before_completed(out, self.as_raw(), Some(work_fn::<F, place::BeforeCompleted>), ctx, release)
        })
    }

    /// Calls `f()` when `self` completes, right after the completion was delivered (after the
    /// downstream callback returned); otherwise passes every event through untouched
    /// (`sk_signal_after_completed`). A panic in `f` goes to the failure hook (`set_failure_hook`,
    /// `where` = `"after_completed"`): a side effect cannot fail the stream in C.
    pub fn after_completed<F: Fn() + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_after_completed(out, self.as_raw(), Some(work_fn::<F, place::AfterCompleted>), ctx, release)
        })
    }

    /// Calls `f()` exactly once per subscription, when it ends, right after the subscription to
    /// `self` was disposed; otherwise passes every event through untouched
    /// (`sk_signal_after_disposed`). A panic in `f` goes to the failure hook (`set_failure_hook`,
    /// `where` = `"after_disposed"`): a side effect cannot fail the stream in C.
    pub fn after_disposed<F: Fn() + Send + Sync + 'static>(&self, f: F) -> Signal<T> {
        with_ctx(FnShared(f), |out, ctx, release| unsafe {
            sys::sk_signal_after_disposed(out, self.as_raw(), Some(work_fn::<F, place::AfterDisposed>), ctx, release)
        })
    }
}

/// # Threads: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// Every event delivered on `queue` (`sk_signal_deliver_on`).
    pub fn deliver_on(&self, queue: &Queue) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_deliver_on(out, self.as_raw(), queue.as_raw()) })
    }

    /// Starts `self` (runs its generator) on `queue` (`sk_signal_run_on`).
    pub fn run_on(&self, queue: &Queue) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_run_on(out, self.as_raw(), queue.as_raw()) })
    }
}

/// # Time: the operators of a standard shape
impl<T: Value> Signal<T> {
    /// Starts `self` `seconds` after the start (`sk_signal_delay`). Timed on `queue`.
    pub fn delay(&self, seconds: Duration, queue: &Queue) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_delay(out, self.as_raw(), to_seconds(seconds), queue.as_raw()) })
    }

    /// The latest value once `seconds` pass without a new one (`sk_signal_debounce`). Timed on
    /// `queue`.
    pub fn debounce(&self, seconds: Duration, queue: &Queue) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_debounce(out, self.as_raw(), to_seconds(seconds), queue.as_raw()) })
    }

    /// At most one value per `seconds`, on the trailing edge (`sk_signal_throttle`). Timed on
    /// `queue`.
    pub fn throttle(&self, seconds: Duration, queue: &Queue) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_throttle(out, self.as_raw(), to_seconds(seconds), queue.as_raw()) })
    }

    /// At each value of `sampler`, the latest value of `self` if it emitted one since the previous
    /// sample (`sk_signal_sample`).
    pub fn sample<U>(&self, sampler: &Signal<U>) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_sample(out, self.as_raw(), sampler.as_raw()) })
    }

    /// At the end of each period of `seconds`, the latest value of `self` if it emitted one since
    /// the previous sample (`sk_signal_sample_period`). Timed on `queue`.
    pub fn sample_period(&self, seconds: Duration, queue: &Queue) -> Signal<T> {
        operator(|out| unsafe { sys::sk_signal_sample_period(out, self.as_raw(), to_seconds(seconds), queue.as_raw()) })
    }
}
