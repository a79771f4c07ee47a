"""What the generated bindings of the operators (tools/api/bindings.py) say
where it is not made from the C declaration: written by hand, read by
`make api-update`.

CPP: {C function: the C++ member's doc comment}; without an entry the
comment is the function's brief (api.json), in C++'s names, with what its
shape adds.
PYTHON: {C function: {"doc": the method's docstring, "signature": its
parameters and result, when not its shape's}}; without an entry the
docstring is the brief, with what the shape adds, and the signature the
shape's (bindings.python_signature). The signature's parameter names are the
method's keywords: keep them when changing the words.
RUST: {C function: {"doc": the method's rustdoc comment, "example": a
paragraph added after it (a doc test), "result": the result type of a
unary method, when not `Signal<T>`}}; without a "doc" the comment is the
brief in the crate's words, with what the shape adds (bindings_rust.py).
SHARED: the operator pages' words (tools/docs/site.py, `shared_words`): a
brief in words that hold in C, C++, Python, Rust and Swift alike, the
operator's, not one language's.
"""

import re

CPP = {
    "sk_signal_on_backpressure_buffer": ("The values one at a time, at most `capacity` waiting while one is delivered, "
                                         "`policy` deciding about the next (sk_signal_on_backpressure_buffer)."),
}

RUST = {
    "sk_signal_last": {
        "doc": """Only the last value, when `self` completes: `Some(value)`, or `None` when `self` completed
without a value (the library's nil), then the completion (`sk_signal_last`; Swift's `last`
gives a `T?` and Python's an `Optional` likewise).""",
        "result": "Signal<Option<T>>",
    },
    "sk_signal_map": {
        "example": """```
use rsignalkit::Signal;
let mut got = Vec::new();
Signal::single(4).map(|x: i64| x.to_string()).for_each_blocking(|s| got.push(s)).unwrap();
assert_eq!(got, vec!["4".to_string()]);
```""",
    },
    "sk_signal_filter": {
        "example": """A non-`Send` closure is refused, since the library may call it on
another thread:

```compile_fail,E0277
use std::rc::Rc;
let limit = Rc::new(3);
let s = rsignalkit::Signal::single(1i64).filter(move |x| *x < *limit);
```""",
    },
    "sk_signal_scan": {
        "example": """```
use rsignalkit::Signal;
let s = Signal::concat(&[Signal::single(1i64), Signal::single(2), Signal::single(3)]);
let mut got = Vec::new();
s.scan(0, |sum, x| sum + x).for_each_blocking(|v| got.push(v)).unwrap();
assert_eq!(got, vec![1, 3, 6]);
```""",
    },
}

PYTHON = {
    "sk_signal_on_backpressure_buffer": {
        "doc": """The values one at a time, at most `capacity` of them waiting while
one is delivered (RxJava's onBackpressureBuffer,
sk_signal_on_backpressure_buffer). A value arriving while none is
being delivered is delivered at once, on its thread; one arriving
meanwhile (another thread, or from inside the delivery) waits, and
the delivering thread delivers it before it returns.

When `capacity` values wait, `overflow` decides: "drop_newest" (the
incoming value is dropped), "drop_oldest" (the oldest waiting one
is), "latest" (the newest waiting one is replaced: the consumer ends
with the latest), "error" (the stream fails with a SignalError
naming the operator and the capacity, after the values waiting),
"block" (the producing thread waits for room: nothing is dropped).
The OVERFLOW_* constants are accepted too. Each dropped value goes to
on_drop(value, dropped), `dropped` being the subscription's count of
drops so far, on the thread that dropped it; an exception in it is
reported, not raised. ValueError for a capacity of 0 or an unknown
policy.

"block" waits without the GIL (while a signal made with "block"
exists, every put of the package lets the GIL go around the
library's put), so the consumer's Python callbacks run meanwhile.
Where waiting could never end, the stream fails instead with a
SignalError saying "cannot block" (after the values waiting, the
value dropped): a value put from inside the delivery (the consumer's
own thread), or a deliver_on whose queue is host-drained (such as
asyncio_queue()). Not detected: a producer holding a lock that the
consumer's callback needs. An asyncio producer awaits
Pipe.put_async, which never waits: the loop goes on until there
is room.""",
    },
    "sk_signal_before_next": {
        "doc": """Calls fn(value) before each value goes on (an exception is reported, not delivered).""",
    },
    "sk_signal_take": {
        "doc": """The first `count` values, then completes right after the
count-th (0 <= count < 2**64), as sk_signal_take does.

take(0) passes no value and does NOT complete at once: it completes
when this signal completes (or fails with it), the library's rule
(the original's take(0)); so ``Signal.never().take(0)`` never ends.
For an empty signal use Signal.complete(). 2**64 - 1 (SIZE_MAX)
means no limit. TypeError unless `count` is an int (bool is not),
ValueError when negative, OverflowError past SIZE_MAX.""",
    },
    "sk_signal_skip": {
        "doc": """Drops the first `count` values (sk_signal_skip): a count larger
than this signal emits (2**64 - 1, 2**32) drops them all, and
reserves no memory. TypeError unless an int, ValueError when
negative, OverflowError past SIZE_MAX.""",
    },
    "sk_signal_skip_while": {
        "doc": """Drops values while fn(value) is true, then passes every value
(sk_signal_skip_while). An exception in `fn` ends the stream with it
(sk_callback_fail): that value and the later ones are not delivered.""",
    },
    "sk_signal_element_at": {
        "doc": """Only the value at `index` (0 for the first), then completes;
completes without a value when fewer come, also for an index past
any count (2**64 - 1) (RxPY's element_at fails then)
(sk_signal_element_at).""",
    },
    "sk_signal_default_if_empty": {
        "doc": """Every value; `value` before the completion when none came
(sk_signal_default_if_empty).""",
    },
    "sk_signal_last": {
        "signature": '(self) -> "Signal[Optional[T_co]]"',
        "doc": """Only the last value (None if there was none), when this completes.""",
    },
    "sk_signal_with_latest_from": {
        "signature": '(self, other: "Signal[U]") -> "Signal[List[Any]]"',
        "doc": """Each value of this as [value, latest value of `other`]; values
before `other` has emitted are dropped; `other` is started first
(RxPY's with_latest_from, which gives tuples)
(sk_signal_with_latest_from).""",
    },
    "sk_signal_then": {
        "signature": '(self, next_signal: "Signal[U]") -> "Signal[Union[T_co, U]]"',
        "doc": """This, then `next_signal` once this completes.""",
    },
    "sk_signal_switch_to_latest": {
        "signature": '(self: "_SignalCore[Signal[U]]") -> "Signal[U]"',
        "doc": """For a signal of signals (Signal objects as values): the values
of the latest inner signal. Type checkers accept it only on a
Signal[Signal[U]]; at run time a value that is not a Signal fails
the stream.""",
    },
    "sk_signal_queue": {
        "signature": '(self: "_SignalCore[Signal[U]]") -> "Signal[U]"',
        "doc": """For a signal of signals (a Signal[Signal[U]] for type checkers):
runs them one after the other, each to its end (sk_signal_queue): a
concat-map.""",
    },
    "sk_signal_throttled": {
        "signature": '(self: "_SignalCore[Signal[U]]") -> "Signal[U]"',
        "doc": """For a signal of signals (a Signal[Signal[U]] for type checkers):
runs the first, then only the latest arrived meanwhile
(sk_signal_throttled).""",
    },
    "sk_signal_ignore_values": {
        "signature": '(self) -> "Signal[Any]"',
        "doc": """Only the end: no value, then the completion or the error.""",
    },
    "sk_signal_share": {
        "doc": """One subscription to this shared by all subscribers of the
result: the first connects it, later ones receive what comes after
they join, the last one leaving disposes it, and the next connects
anew (RxPY's share) (sk_signal_share). Keep the result and
subscribe to it: each call makes a connection of its own.""",
    },
    "sk_signal_replay": {
        "signature": '(self, count: int = 1) -> "Signal[T_co]"',
        "doc": """As share(), and a subscriber joining a running connection first
receives the latest `count` values (0: share()). A count is a
limit, not memory reserved: one larger than the connection emits
(2**64 - 1, 2**32) replays all of them. Unlike RxPY's replay, no
connect() is needed: reference counted, as share()
(sk_signal_replay).""",
    },
    "sk_signal_pairwise": {
        "signature": '(self) -> "Signal[List[T_co]]"',
        "doc": """From the second value on, [previous, current] at each value
(RxPY's pairwise, which gives tuples: here lists, as every array
of the library arrives) (sk_signal_pairwise).""",
    },
    "sk_signal_after_next": {
        "doc": """Calls fn(value) after each value went on.""",
    },
    "sk_signal_before_started": {
        "doc": """Calls fn() at each start, before this starts.""",
    },
    "sk_signal_before_completed": {
        "doc": """Calls fn() before the completion goes on.""",
    },
    "sk_signal_after_completed": {
        "doc": """Calls fn() after the completion went on.""",
    },
    "sk_signal_after_disposed": {
        "doc": """Calls fn() once a subscription is disposed (or ended).""",
    },
    "sk_signal_run_on": {
        "doc": """Starts this (runs its generator) on `queue`.""",
    },
    "sk_signal_delay": {
        "doc": """Delays the SUBSCRIPTION, not the values: this signal is started
`seconds` after each subscription, from a timer on `queue` (by
default the default queue: package docstring, Threads), and its values then pass
through undelayed, on whatever thread it emits them. A hot source
(a Pipe, values from an asyncio task or another thread) loses what
is put before the timer fires; a cold one just starts later.
Disposing before the timer fires means this is never started. This
is SwiftSignalKit's delay (sk_signal_delay).

To delay each value instead, delay a signal per value and play them
in turn::

    signal.map(lambda v: Signal.single(v).delay(seconds, queue)).queue()

(each value comes `seconds` after it arrived, or after the value
before it was delivered when that is later; in an asyncio program
add ``.deliver_on(asyncio_queue())`` to receive them on the loop's
thread).""",
    },
    "sk_signal_debounce": {
        "doc": """The latest value once `seconds` pass without a new one, on `queue`.
The completion flushes the pending value first (`ab|` with a 3-frame
quiet time gives `--(b|)`); an error drops it (sk_signal_debounce).""",
    },
    "sk_signal_throttle": {
        "doc": """At most one value per `seconds`, on the trailing edge: a value
arriving when no window is open opens one (it is not delivered at
once), and when the window ends the latest value seen during it is
delivered. The completion flushes the pending value first, so the
last value can come less than `seconds` after the one before it
(`abc-d|` with a 3-frame window gives `---c-(d|)`); an error drops
it. Every event is delivered on `queue` (sk_signal_throttle).

Not RxPY's throttle_first, which delivers the first value of a
window at once and drops the rest: this delivers the last one, at
the window's end (RxJS's auditTime; throttleTime only with leading: false,
trailing: true).""",
    },
    "sk_signal_buffer_time": {
        "signature": '(self, seconds: float, queue: Optional[Queue] = None) -> "Signal[List[T_co]]"',
        "doc": """The values of each `seconds`-long window as a list, delivered on
`queue` (RxPY's buffer_with_time; sk_signal_buffer_time).""",
    },
}


# The C brief's words that are C's alone, as the operator's, in order:
# the function's context argument, the kind of a value, the C length of an
# array of signals, the upstream's C parameter. (Another C function is
# named by its operator page, in `shared_words`.)
SHARED = [
    (r"`fn\(ctx, ([^`]*)\)`", r"`f(\1)`"),
    (r"`fn\(ctx\)`", "`f()`"),
    (r"`fn\b", "`f"),
    (r"a signal of signals \(values of SK_KIND_SIGNAL\)", "a signal of signals"),
    (r"\(values of SK_KIND_(\w+)\)", lambda m: f"(whose values are {m.group(1).lower()}s)"),
    (r"\(of kind SK_KIND_(\w+)\)", lambda m: f"(a {m.group(1).lower()})"),
    (r" \(sk_value_\w+\(\)\)", ""),
    (r"\b[Tt]he `count` signals", lambda m: f"{m.group(0)[0]}he signals"),
    (r"`count` signals", "the signals"),
    (r"\ba (\w+ )?`signal`", r"a \1source"),
    (r"`signal`", "the source"),
    (r"the array (\[[^,\]]+, [^,\]]+\])", r"the pair \1"),
]
# What no page's words may keep (C's names and arguments).
C_ONLY = r"\bsk_\w+|\bSK_\w+|\bctx\b|`count` signals|`signal`"


def shared_words(brief, pages):
    """An operator's C brief (api.json) in the words of every language: its
    C-only words replaced (SHARED), and another operator's C function
    (`sk_signal_zip()`) named by its page's name (`pages`: C function ->
    marble name)."""
    text = brief
    for pattern, replacement in SHARED:
        text = re.sub(pattern, replacement, text)
    text = re.sub(r"\b(sk_signal_\w+)\(\)", lambda m: f"`{pages[m.group(1)]}`" if m.group(1) in pages else m.group(0),
                  text)
    return text[:1].upper() + text[1:]


def c_only_words(text):
    """The C words `text` still has (none for a page's words)."""
    return re.findall(C_ONLY, text)
