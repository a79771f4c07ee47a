"""One failure rule for the Python functions of a stream (issue 51): an
exception raised by an operator's function ends the stream with that
exception object (the library's sk_callback_fail for the library's
operators, as a C callback fails), nothing is delivered for that value nor
after it, the upstream is disposed; on_error sees the exception's
traceback; the `where` values callback_error_hook receives are the ones the
guide lists."""
import gc
import os
import re
import threading
import traceback
import weakref

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


class Boom(Exception):
    pass


class Item:
    """A value carried by reference: its put takes the package's Python
    path (ctypes), where an int takes the extension's put."""

    def __init__(self, n):
        self.n = n


def _number(value):
    return value.n if isinstance(value, Item) else value


@pytest.fixture
def hook(monkeypatch):
    """What reaches callback_error_hook during the test: (exception, where)."""
    reported = []
    monkeypatch.setattr(sk, "callback_error_hook", lambda exc, where: reported.append((exc, where)))
    return reported


def _raising_on_2(otherwise):
    """A predicate that raises on 2 (the exception kept in `raised`) and
    answers otherwise(n) for the other values."""
    raised = []

    def predicate(value):
        n = _number(value)
        if n == 2:
            exc = Boom(n)
            raised.append(exc)
            raise exc
        return otherwise(n)

    return predicate, raised


# The operators whose function is a predicate (or take_until's), each
# given a function that raises on 2, over a pipe fed 1, 2, 3, 4: the values
# delivered before the error (before: filter [1] and the error; skip_while
# [2, 3, 4], no error; take_while [1] and the completion; take_until [1]
# and the completion; first, whose predicate is false for 1, the
# completion; the exception only reported, where "predicate" or
# "take_until").
PREDICATES = [
    ("filter", lambda s, fn: s.filter(fn), lambda n: True, [1]),
    ("skip_while", lambda s, fn: s.skip_while(fn), lambda n: True, []),
    ("take_while", lambda s, fn: s.take_while(fn), lambda n: True, [1]),
    ("take_while inclusive", lambda s, fn: s.take_while(fn, inclusive=True), lambda n: True, [1]),
    ("first", lambda s, fn: s.first(fn), lambda n: False, []),
    ("take_until", lambda s, fn: s.take_until(fn), lambda n: sk.TAKE_PASS, [1]),
    ("distinct_until_changed key", lambda s, fn: s.distinct_until_changed(key=fn), lambda n: n, [1]),
    # After a library operator: the predicate runs inside a library
    # operator's delivery, and its error goes on through another one.
    ("skip_while after map", lambda s, fn: s.map(lambda v: v).skip_while(fn).take(10), lambda n: True, []),
    ("take_while after take", lambda s, fn: s.take(10).take_while(fn).take(10), lambda n: True, [1]),
]


@pytest.mark.parametrize("name, build, otherwise, delivered", PREDICATES, ids=[p[0] for p in PREDICATES])
@pytest.mark.parametrize("wrap", [int, Item], ids=["ints (the extension's put)", "objects (the ctypes put)"])
def test_a_raising_predicate_ends_the_stream_with_its_exception(hook, name, build, otherwise, delivered, wrap):
    predicate, raised = _raising_on_2(otherwise)
    events, disposed = [], []
    with sk.Pipe() as pipe, pipe.signal() as source:
        upstream = source.after_disposed(lambda: disposed.append(True))
        with build(upstream, predicate).subscribe(lambda v: events.append(_number(v)),
                                                  lambda e: events.append(("error", e)),
                                                  lambda: events.append("completed")):
            pipe.put(wrap(1))
            pipe.put(wrap(2))
            assert disposed == [True], "the upstream was not disposed by the failure"
            pipe.put(wrap(3))
            pipe.put(wrap(4))
    assert len(raised) == 1
    assert events == delivered + [("error", raised[0])]
    assert events[-1][1] is raised[0]  # the very object raised, not a copy or a SignalError
    assert hook == []  # on_error received it: nothing reported


@pytest.mark.parametrize("name, build, otherwise, delivered", PREDICATES[:6], ids=[p[0] for p in PREDICATES[:6]])
def test_a_raising_predicate_without_on_error_is_reported_under_its_name(hook, name, build, otherwise, delivered):
    # Before: skip_while delivered 2, 3, 4; take_while, first and
    # take_until completed (the exception reported all the same).
    predicate, raised = _raising_on_2(otherwise)
    seen = []
    with sk.Pipe() as pipe, pipe.signal() as source, \
            build(source, predicate).subscribe(seen.append, None, lambda: seen.append("completed")):
        for n in (1, 2, 3, 4):
            pipe.put(n)
    where = {"filter": "filter", "take_until": "take_until"}.get(name, "predicate")
    assert seen == delivered and hook == [(raised[0], where)]


def test_a_raising_predicate_is_the_signal_s_exception_and_to_list_raises_it():
    predicate, raised = _raising_on_2(lambda n: True)
    # The signal closed at the end: the exception to_list raises holds this
    # frame, and the predicate (held by the library) holds the exception.
    with sk.Signal.from_iterable([1, 2, 3, 4]).skip_while(predicate) as signal:
        with pytest.raises(Boom) as info:
            signal.to_list(timeout=10)
        assert info.value is raised[0] and signal.exception is raised[0]


@pytest.mark.parametrize("result, kind", [(2 ** 64 + 1, ValueError), (4, ValueError), ("x", TypeError),
                                          (True, TypeError), (False, TypeError)])
def test_take_until_s_invalid_result_ends_the_stream_with_the_error(hook, result, kind):
    # Before: the stream completed and the error went to the hook.
    events = []
    with sk.Signal.from_iterable(range(3)).take_until(lambda v: result).subscribe(
            events.append, events.append, lambda: events.append("C")):
        pass
    assert len(events) == 1 and isinstance(events[0], kind) and hook == []


def _raising_key_on_3():
    """group_by's key: the value times 10, raising on 3 (the exception kept
    in `raised`)."""
    raised = []

    def key(value):
        n = _number(value)
        if n == 3:
            exc = Boom(n)
            raised.append(exc)
            raise exc
        return n * 10

    return key, raised


@pytest.mark.parametrize("wrap", [int, Item], ids=["ints (the extension's put)", "objects (the ctypes put)"])
def test_a_raising_group_by_key_ends_the_result_and_every_group_with_its_exception(hook, wrap):
    # Before: the exception went to callback_error_hook (where "key") and
    # the value had the key None: a third group, and the stream went on.
    key, raised = _raising_key_on_3()
    keys, groups, subscriptions, disposed = [], [], [], []

    def on_group(pair):
        group_key, group = pair
        keys.append(group_key)
        events = []
        groups.append(events)
        subscriptions.append(group.subscribe(lambda v: events.append(_number(v)),
                                             lambda e: events.append(("error", e)),
                                             lambda: events.append("completed")))

    with sk.Pipe() as pipe, pipe.signal() as source:
        upstream = source.after_disposed(lambda: disposed.append(True))
        with upstream.group_by(key).subscribe(on_group, lambda e: keys.append(("error", e)),
                                              lambda: keys.append("completed")):
            for n in (1, 2, 3):
                pipe.put(wrap(n))
            assert disposed == [True], "the upstream was not disposed by the failure"
            pipe.put(wrap(4))
            pipe.complete()
    for subscription in subscriptions:
        # Released: an ended group keeps its error for a late subscriber,
        # and the exception's traceback holds this frame, which holds the
        # subscriptions; an open one would keep that cycle through the
        # library alive.
        subscription.close()
    assert len(raised) == 1
    assert keys == [10, 20, ("error", raised[0])]
    assert groups == [[1, ("error", raised[0])], [2, ("error", raised[0])]]
    assert all(events[-1][1] is raised[0] for events in groups + [keys])  # the very object raised
    assert hook == []  # on_error received it: nothing reported


def test_a_raising_group_by_key_without_on_error_is_reported_as_group_by(hook):
    key, raised = _raising_key_on_3()
    seen = []
    with sk.Pipe() as pipe, pipe.signal() as source, \
            source.group_by(key).subscribe(lambda pair: seen.append(pair[0]), None, lambda: seen.append("completed")):
        for n in (1, 2, 3, 4):
            pipe.put(n)
    assert seen == [10, 20] and hook == [(raised[0], "group_by")]


def test_a_group_by_key_the_library_cannot_hold_ends_the_stream(hook):
    # An int outside int64: OverflowError from the key's conversion.
    errors = []
    with sk.Signal.from_iterable([1, 2]).group_by(lambda v: v << 70 if v == 2 else v).subscribe(
            None, errors.append):
        pass
    assert len(errors) == 1 and isinstance(errors[0], OverflowError) and hook == []


@pytest.mark.parametrize("stages", [
    lambda s: s,
    lambda s: s.map(lambda v: v),
    lambda s: s.filter(lambda v: True),
    lambda s: s.tap(lambda v: None),
], ids=["alone", "after map", "after filter", "after tap"])
@pytest.mark.parametrize("fold", ["reduce", "scan"])
def test_a_fold_without_on_error_is_reported_as_the_fold_behind_python_stages(hook, stages, fold):
    # reduce() after a Python stage joins their chain: its exception was
    # reported (and its traceback note named) as "filter".
    def failing(total, value):
        raise Boom(value)

    # The same stages before a fold, then before a filter, made first: a
    # composed reduce's code reads as a filter's, and the names of the
    # shape made last were taken for both (the failure named "filter"
    # after a filter chain of the same shape had been made).
    for made in (getattr(stages(sk.Signal.from_iterable([1])), fold)(lambda total, value: total, 0),
                 stages(sk.Signal.from_iterable([1])).filter(lambda value: True)):
        assert len(made.to_list(timeout=10)) == 1

    with sk.Pipe() as pipe, getattr(stages(pipe.signal()), fold)(failing, 0).subscribe(lambda v: None):
        pipe.put(1)
    assert [where for _, where in hook] == [fold]
    assert any(f"signalkit {fold} callback" in note for note in hook[0][0].__notes__), hook[0][0].__notes__


# --- the subscriber's own on_next (sk_signal_start_failable) ------------------


@pytest.fixture
def releases(monkeypatch):
    """How many times the library let go of a Python subscription's
    callbacks during the test (_Sink.released)."""
    from pysignalkit import _subscription
    count = []
    released = _subscription._Sink.released

    def counting(sink):
        count.append(sink)
        released(sink)

    monkeypatch.setattr(_subscription._Sink, "released", counting)
    return count


def _logging_raiser(log):
    """A function for on_next or a fused stage: logs each value and
    raises on 2 (the exception kept in `raised`)."""
    raised = []

    def fn(value):
        if value == 2:
            exc = Boom(value)
            raised.append(exc)
            raise exc
        log.append(("next", value))
        return value

    return fn, raised


# Where the raising function runs: on_next itself, or a Python stage fused
# in front of it (the composed chain of _subscription.py), then the name
# callback_error_hook hears without an on_error.
RAISERS = [
    ("on_next", lambda signal, fn: (signal, fn), "next"),
    ("map", lambda signal, fn: (signal.map(fn), None), "map"),
    ("filter", lambda signal, fn: (signal.filter(lambda v: fn(v) is not None), None), "filter"),
    ("tap", lambda signal, fn: (signal.tap(fn), None), "tap"),
]


@pytest.mark.parametrize("name, build, where", RAISERS, ids=[r[0] for r in RAISERS])
def test_a_raising_on_next_ends_the_subscription_with_its_exception(hook, releases, name, build, where):
    # The package's subscriptions start through sk_signal_start_failable:
    # the raise fails the call (sk_callback_fail), and the library delivers
    # the error, then disposes the upstream (its one rule: the error first).
    log, tracebacks = [], []
    fn, raised = _logging_raiser(log)

    def on_error(error):
        tracebacks.append("".join(traceback.format_tb(error.__traceback__)))
        log.append(("error", error))

    with sk.Pipe() as pipe, pipe.signal() as source:
        upstream = source.after_disposed(lambda: log.append("disposed"))
        signal, on_next = build(upstream, fn)
        with signal.subscribe(on_next or (lambda v: log.append(("on_next", v))), on_error,
                              lambda: log.append("completed")) as subscription:
            pipe.put(1)
            pipe.put(2)
            assert log.count("disposed") == 1, "the upstream was not disposed by the failure"
            pipe.put(3)  # after the terminal event: reaches nothing
            pipe.complete()
            assert subscription.exception is raised[0]
        if signal is not upstream:
            signal.close()
    delivered = [("next", 1)] if name == "on_next" else [("next", 1), ("on_next", 1)]
    assert log == delivered + [("error", raised[0]), "disposed"]
    assert log[-2][1] is raised[0]  # the very object raised
    assert "in fn" in tracebacks[0] and "raise exc" in tracebacks[0]  # its traceback, while delivered
    assert raised[0].__traceback__ is None  # and no frame kept afterwards
    assert hook == []  # on_error received it
    assert len(releases) == 1, "the callbacks were not released exactly once"


@pytest.mark.parametrize("name, build, where", RAISERS, ids=[r[0] for r in RAISERS])
def test_a_raising_on_next_without_on_error_is_reported_under_its_name(hook, releases, name, build, where):
    log = []
    fn, raised = _logging_raiser(log)
    with sk.Pipe() as pipe, pipe.signal() as source:
        signal, on_next = build(source, fn)
        with signal.subscribe(on_next or (lambda v: None)):
            for n in (1, 2, 3):
                pipe.put(n)
        if signal is not source:
            signal.close()
    assert log == [("next", 1)]
    assert hook == [(raised[0], where)]
    assert len(releases) == 1


@pytest.mark.parametrize("name, build, where", RAISERS[:2], ids=[r[0] for r in RAISERS[:2]])
def test_a_raising_on_next_s_error_waits_for_the_call_in_flight_on_another_thread(releases, name, build, where):
    # signalkit.h, sk_signal_start_failable: the value calls in flight on
    # other threads return first, then the error reaches on_error (on the
    # thread whose call returned last), then the upstream is disposed; no
    # value call begins after the failure. One thread is held inside
    # on_next (the GIL let go) while the main thread's value raises.
    log = []
    inside, release = threading.Event(), threading.Event()
    fn, raised = _logging_raiser(log)

    def held(value):
        if value == "held":
            log.append(("next", value))
            inside.set()
            assert release.wait(10)
            log.append(("returns", value))
            return value
        return fn(value)

    def on_error(error):
        log.append(("error", error, threading.current_thread().name))

    with sk.Pipe() as pipe, pipe.signal() as source:
        upstream = source.after_disposed(lambda: log.append("disposed"))
        signal, on_next = build(upstream, held)
        subscription = signal.subscribe(on_next or (lambda v: None), on_error)
        holder = threading.Thread(target=pipe.put, args=("held",), name="holder")
        holder.start()
        try:
            assert inside.wait(10)
            pipe.put(2)
            pipe.put(3)  # the subscription is ending: nothing starts
            assert log == [("next", "held")], "the error (or the dispose) ran beside the call in flight"
        finally:
            release.set()
            holder.join(10)
        assert not holder.is_alive()
        assert log == [("next", "held"), ("returns", "held"), ("error", raised[0], "holder"), "disposed"]
        subscription.close()
        if signal is not upstream:
            signal.close()
    assert len(releases) == 1


def test_a_value_in_a_fused_stage_on_another_thread_stops_there_once_on_next_failed():
    # A value that entered the chain on another thread before the failure
    # (held in a tap, the GIL let go) reaches no later stage nor on_next:
    # the subscription has ended when it goes on.
    log = []
    inside, release = threading.Event(), threading.Event()

    def tap(value):
        if value == "held":
            inside.set()
            assert release.wait(10)

    def on_next(value):
        if value == "boom":
            raise Boom(value)
        log.append(value)

    with sk.Pipe() as pipe, pipe.signal() as source, source.tap(tap) as tapped:
        subscription = tapped.subscribe(on_next, lambda error: log.append(("error", str(error))))
        holder = threading.Thread(target=pipe.put, args=("held",))
        holder.start()
        try:
            assert inside.wait(10)
            pipe.put("boom")
        finally:
            release.set()
            holder.join(10)
        subscription.close()
    assert log == [("error", "boom")]


# --- tracebacks ----------------------------------------------------------------


def raising_function(*args):
    raise Boom("raised")


# Each operator whose Python function the library calls, given that
# function (before: on_error received the exception with __traceback__
# None, its text only in __notes__).
CALLERS = [
    ("reduce", lambda s, fn: s.reduce(fn, 0)),
    ("scan", lambda s, fn: s.scan(fn, 0)),
    ("map_to_signal", lambda s, fn: s.map_to_signal(fn)),
    ("merge_map", lambda s, fn: s.merge_map(fn)),
    ("catch", lambda s, fn: s.map(lambda v: 1 // 0).catch(fn)),
    ("deferred", lambda s, fn: sk.Signal.deferred(fn)),
    ("skip_while", lambda s, fn: s.skip_while(fn)),
    ("take_until", lambda s, fn: s.take_until(fn)),
    ("reduce, then a library operator", lambda s, fn: s.reduce(fn, 0).take(3)),
    ("map_to_signal, then a Python stage", lambda s, fn: s.map_to_signal(fn).map(lambda v: v)),
]


@pytest.mark.parametrize("name, build", CALLERS, ids=[c[0] for c in CALLERS])
def test_on_error_sees_the_traceback_of_an_operator_s_function(name, build):
    received = []

    def on_error(error):
        received.append((error, error.__traceback__, "".join(traceback.format_tb(error.__traceback__))))

    with sk.Pipe() as pipe, pipe.signal() as source, build(source, raising_function).subscribe(None, on_error):
        pipe.put(1)
    assert len(received) == 1
    error, tb, text = received[0]
    assert isinstance(error, Boom)
    assert tb is not None
    assert "in raising_function" in text and 'raise Boom("raised")' in text
    assert f"pysignalkit{os.sep}" not in text  # the package's own frames are trimmed
    # Once delivered it keeps no frame: the text stays as a note.
    assert error.__traceback__ is None
    assert any("in raising_function" in note for note in error.__notes__)


@pytest.mark.parametrize("name, build", CALLERS, ids=[c[0] for c in CALLERS])
def test_an_operator_s_exception_keeps_nothing_alive_once_delivered(name, build):
    class Marker:
        pass

    marker = Marker()
    alive = weakref.ref(marker)

    def raising(*args):
        held = marker  # a local of the frame the traceback holds
        raise Boom(type(held).__name__)

    errors = []
    with sk.Pipe() as pipe, pipe.signal() as source, build(source, raising).subscribe(None, errors.append):
        pipe.put(1)
    del raising, marker
    gc.collect()
    assert alive() is None, "the exception's frames still hold the function's locals"
    assert isinstance(errors[0], Boom)


# --- where ---------------------------------------------------------------------


@pytest.mark.parametrize("source", ["cold", "pipe"])
def test_an_exception_in_on_completed_goes_to_the_hook_not_to_on_error(hook, source):
    """The completion is the subscription's terminal event: a raise in
    on_completed comes after it and goes to the hook as "completed"; an
    on_error there would be a second terminal event (it was called)."""
    events = []

    def on_completed():
        events.append("completed")
        raise Boom("in on_completed")

    if source == "cold":
        sk.Signal.from_iterable([1]).subscribe(events.append, lambda exc: events.append(("error", exc)), on_completed)
    else:
        with sk.Pipe() as pipe, pipe.signal() as signal:
            with signal.subscribe(events.append, lambda exc: events.append(("error", exc)), on_completed):
                pipe.put(1)
                pipe.complete()
    assert events == [1, "completed"]
    assert [(type(exc), str(exc), where) for exc, where in hook] == [(Boom, "in on_completed", "completed")]


def test_an_exception_in_on_drop_is_reported_as_on_drop(hook):
    def on_drop(value, dropped):
        raise Boom(value)

    seen = []
    with sk.Queue.host() as queue, sk.Pipe() as pipe, pipe.signal() as source:
        bounded = source.deliver_on(queue, capacity=1, overflow="drop_newest", on_drop=on_drop)
        with bounded.subscribe(seen.append):
            pipe.put(1)
            pipe.put(2)  # no room: dropped, on the putting thread
            queue.drain()
    assert seen == [1]
    assert [(type(exc), str(exc), where) for exc, where in hook] == [(Boom, "2", "on_drop")]


def test_an_exception_in_merge_maps_on_drop_is_reported_as_on_drop(hook):
    """The bounded merge_map's on_drop shares its context with the function:
    its exception follows on_drop's rule, and the stream goes on."""
    def on_drop(value, dropped):
        raise Boom(value)

    seen = []
    with sk.Pipe() as pipe, pipe.signal() as source:
        bounded = source.merge_map(lambda value: sk.Signal.never().start_with(value), max_concurrent=1, capacity=1,
                                   overflow="drop_newest", on_drop=on_drop)
        with bounded.subscribe(seen.append):
            pipe.put(1)
            pipe.put(2)  # waits
            pipe.put(3)  # no room: dropped
    assert seen == [1]
    assert [(type(exc), str(exc), where) for exc, where in hook] == [(Boom, "3", "on_drop")]


def _guide_where_list():
    from conftest import EXAMPLES
    with open(os.path.join(EXAMPLES, "..", "..", "docs", "python.md"), encoding="utf-8") as f:
        guide = f.read()
    start = guide.index("`where` names the callback that raised")
    return guide[start:guide.index("\n- ", start)]


def test_every_where_the_package_reports_is_in_the_guide_and_only_those():
    # Every `where` written literally at a call that reports an exception,
    # fails a call with it or marks it (and the stage and fold names), in
    # the guide's list (before: "predicate", "key" and "on_drop" were not).
    package = os.path.dirname(sk.__file__)
    calls = re.compile(r'(?:_report|_fail_call|_callback_raised|_kept|_callback_failed|_mark_stage)'
                       r'\([^()]*?,\s*"([a-z_ ]+)"')
    found = set()
    for folder, _, files in os.walk(package):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    found.update(calls.findall(f.read()))
    found |= {"map", "filter", "tap", "scan", "reduce", "next", "error", "completed"}  # passed as variables
    assert {"predicate", "take_until", "signal", "deferred", "group_by", "on_drop", "side effect", "work"} <= found
    listed = _guide_where_list()
    missing = sorted(where for where in found if f'`"{where}"`' not in listed)
    assert missing == [], f"not in docs/python.md's list of where values: {missing}"
    # And the other way: the guide lists no `where` the package no longer
    # reports (before: "key", which group_by's key reported until it failed
    # the stream as "group_by").
    stale = sorted(set(re.findall(r'`"([a-z_ ]+)"`', listed)) - found)
    assert stale == [], f"docs/python.md lists where values the package does not report: {stale}"
