"""The Python runner of the shared marble table (Tests/marbles/*.marbles,
format in Tests/marbles/README.md): every case of every file, each a test,
played on pysignalkit.testing's virtual time. A file added there is picked up
without a change here; a line this runner cannot read, or an operator or a
function it does not know, fails its case (naming the file and line).

A callback the case makes fail (`!`, the README's "Functions") raises a
MarbleCallbackFailure: the runner checks that the error the subscriber
receives is that very exception object, and that a side effect's went to
callback_error_hook instead (docs/misuse.md's "A callback that fails").

A bounded operator's on_drop records each value with its frame, compared
with the case's `dropped` line."""

import glob
import json
import math
import os
import re

import pytest

import pysignalkit as sk
from conftest import EXAMPLES
from marble_operators import MARBLE_OPERATORS
from pysignalkit.testing import TestScheduler

MARBLES = os.environ.get("SIGNALKIT_MARBLES") or os.path.join(EXAMPLES, "..", "..", "Tests", "marbles")
FILES = sorted(glob.glob(os.path.join(MARBLES, "*.marbles")))
if not FILES:
    raise RuntimeError(f"no marble table at {MARBLES}: set SIGNALKIT_MARBLES")

pytestmark = pytest.mark.usefixtures("clean")


class MarbleError(Exception):
    """The error every `#` of an input stands for."""


class MarbleCallbackFailure(Exception):
    """What a callback of the case raises where it fails (`!`)."""


class Failures:
    """The case's failing callbacks: the exceptions they raised (and
    whether from a side effect), in order."""

    def __init__(self):
        self.raised = []  # (exception, side effect?)

    def fail(self, at="", side_effect=False):
        exc = MarbleCallbackFailure(f"marble callback failed{' at ' + str(at) if at != '' else ''}")
        self.raised.append((exc, side_effect))
        raise exc

    def failing(self, written, where, function_of):
        """The function `written` (`times:3!2`: failing when its value is
        2; a fold's value, its last argument), made by function_of from its
        text without the mark."""
        spec, bang, k = written.partition("!")
        made = function_of(spec, where)
        if not bang:
            return made
        if not re.fullmatch(r"-?\d+", k):
            raise AssertionError(f"{where}: the value after `!` is not an integer: {written!r}")
        at = int(k)

        def call(*args):
            result = made(*args)  # a call that fails still gives its result: ignored
            if args[-1] == at:
                self.fail(at)
            return result
        return call

    def side_effect(self, args, where, of_value):
        """A side effect's function: nothing, or with `!K` (`!` for one of no
        value) one that raises when its value is K (each time it runs)."""
        if not args:
            return (lambda value: None) if of_value else (lambda: None)
        if len(args) == 1 and of_value and re.fullmatch(r"!-?\d+", args[0]):
            at = int(args[0][1:])

            def look(value):
                if value == at:
                    self.fail(at, side_effect=True)
            return look
        if len(args) == 1 and not of_value and args[0] == "!":
            return lambda: self.fail(side_effect=True)
        raise AssertionError(f"{where}: a side effect takes no argument or {'`!K`' if of_value else '`!`'}, "
                             f"not {args!r}")

    def inner(self, names, inputs):
        """A signal function returning the input of a value's place among
        `names`; `!` there, it raises instead."""
        def pick(i):
            if names[i] == "!":
                self.fail(i)
            return inputs[names[i]]
        return pick


# The words each policy's error has (README.md: `error` ends the stream
# with the overflow error, `block` with its refusal).
OVERFLOW_WORDS = {"error": ": overflow: ", "block": ": cannot block: "}


class Bounded:
    """The case's bounded operator: what its on_drop received, with frames,
    the words of the error its policy ends the stream with, and its host
    queues."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.used = False
        self.drops = []  # (frame, "next", value)
        self.expect = None
        self.hosts = []  # the host queues of `host F...`

    def on_drop(self, value, count):
        self.drops.append((self.scheduler.now, "next", value))


class Case:
    def __init__(self, name, where):
        self.name, self.where = name, where
        self.inputs = []  # (name, "in" or "hot", diagram)
        self.values = {}
        self.ops = []  # (words, where)
        self.out = None
        self.subs = {}  # input -> [(from, to)] or None for never
        self.dispose = None
        self.also = []  # (from, to, diagram)
        self.dropped = None  # what the bounded operator dropped
        self.during = None  # (the trigger's character, the characters put)
        self.fails = None  # `fails C`: the character at whose value the subscriber raises
        self.problem = None  # a line that could not be read


def value_of(text):
    """A value of a `value` line or a defaultIfEmpty / startWith: an int or a list of ints."""
    if not re.fullmatch(r"-?\d+|\[(-?\d+(,-?\d+)*)?\]", text):
        raise ValueError(f"not an integer or a list of integers: {text!r}")
    return json.loads(text)


def read_cases():
    cases, names = [], set()
    for path in FILES:
        case = None
        with open(path, encoding="utf-8") as handle:
            for number, raw in enumerate(handle, 1):
                line = raw.strip()
                where = f"{os.path.basename(path)}:{number}"
                if not line or line.startswith("#"):
                    continue
                words = line.split()
                keyword = words[0]
                if keyword == "case":
                    case = Case(words[1] if len(words) == 2 else f"unnamed@{where}", where)
                    if len(words) != 2 or case.name in names:
                        case.problem = f"{where}: a case needs one name, unique across the files"
                    names.add(case.name)
                    cases.append(case)
                    continue
                if case is None:
                    stray = Case(f"outside-a-case@{where}", where)
                    stray.problem = f"{where}: {keyword} outside a case"
                    cases.append(stray)
                    continue
                try:
                    if keyword in ("in", "hot"):
                        case.inputs.append((words[1], keyword, line.split(None, 2)[2]))
                    elif keyword == "value":
                        if len(words) != 3 or len(words[1]) != 1:
                            raise ValueError("value C V")
                        case.values[words[1]] = value_of(words[2])
                    elif keyword == "op":
                        case.ops.append((words[1:], where))
                    elif keyword == "out":
                        case.out = line.split(None, 1)[1] if len(words) > 1 else ""
                    elif keyword == "sub":
                        entry = case.subs.setdefault(words[1], [])
                        if words[2:] == ["never"]:
                            case.subs[words[1]] = None
                        else:
                            entry.append((int(words[2]), None if words[3] == "-" else int(words[3])))
                    elif keyword == "dispose":
                        case.dispose = int(words[1])
                    elif keyword == "dropped":
                        case.dropped = line.split(None, 1)[1] if len(words) > 1 else ""
                    elif keyword == "during":
                        if len(words) != 3 or len(words[1]) != 1:
                            raise ValueError("during C XYZ")
                        case.during = (words[1], words[2])
                    elif keyword == "fails":
                        if len(words) != 2 or len(words[1]) != 1:
                            raise ValueError("fails C")
                        case.fails = words[1]
                    elif keyword == "also":
                        case.also.append((int(words[1]), None if words[2] == "-" else int(words[2]),
                                          line.split(None, 3)[3] if len(words) > 3 else ""))
                    elif keyword == "end":
                        case = None
                    else:
                        raise ValueError(f"unknown line {keyword!r}")
                except (IndexError, ValueError, TypeError) as exc:
                    case.problem = case.problem or f"{where}: cannot read {line!r}: {exc}"
    return cases


CASES = read_cases()


def expected_events(diagram, table):
    """[(frame, kind, value)] of a diagram, kind "next", "error" or "completed"."""
    events, frame, group = [], 0, False
    for ch in diagram:
        if ch == " " or ch == "^":
            continue
        if ch == "(":
            group = True
            continue
        if ch == ")":
            group = False
            frame += 1
            continue
        if ch == "|":
            events.append((frame, "completed", None))
        elif ch == "#":
            events.append((frame, "error", None))
        elif ch != "-":
            events.append((frame, "next", table.get(ch, ch)))
        if not group:
            frame += 1
    return events


def diagram_length(diagram):
    return len(diagram.replace(" ", ""))


def plain_function(spec, where):
    """The vocabulary's functions (README's Functions table)."""
    name, _, argument = spec.partition(":")
    k = int(argument) if argument else None
    unary = {
        "identity": lambda x: x, "negate": lambda x: -x,
        "times": lambda x: x * k, "plus": lambda x: x + k,
        "mod": lambda x: 0 if k == 0 else int(math.fmod(x, k)),
        "is_even": lambda x: x % 2 == 0, "is_odd": lambda x: x % 2 != 0,
        "always": lambda x: True, "never": lambda x: False,
        "lt": lambda x: x < k, "gt": lambda x: x > k, "eq": lambda x: x == k, "ne": lambda x: x != k,
    }
    binary = {"add": lambda a, x: a + x, "sub": lambda a, x: a - x, "mul": lambda a, x: a * x, "max": max}
    if name in unary and (argument != "") == (name in ("times", "plus", "mod", "lt", "gt", "eq", "ne")):
        return unary[name]
    if name in binary and not argument:
        return binary[name]
    raise AssertionError(f"{where}: the Python runner does not know the function {spec!r}")


POLICIES = {"dropNewest": "drop_newest", "dropOldest": "drop_oldest", "latest": "latest", "error": "error",
            "block": "block"}


class Line:
    """An `op` line's words, read as the kinds of argument of its operator's
    shape (marble_operators.py, written by make api-update from the operator
    table and tools/api/shapes.py, says which word, 1 the first after the
    name, is which): a count (negative: one past any, size_t's largest; a
    capacity or a number of retries: 0), a function of the vocabulary, a
    value, an input's name, inputs' names (`!` where a signal function
    fails), frames on the case's queue, a policy."""

    def __init__(self, words, where, signal, inputs, scheduler, failures, bounded):
        self.words, self.where, self.source, self.inputs = words, where, signal, inputs
        self.scheduler, self.failures, self.queue = scheduler, failures, scheduler.queue
        self.bounded = bounded

    def has(self, i):
        return len(self.words) > i

    def word(self, i):
        if not self.has(i):
            raise AssertionError(f"{self.where}: `{self.words[0]}` needs argument {i}")
        return self.words[i]

    def integer(self, i):
        return int(self.word(i))

    def count(self, i):
        n = self.integer(i)
        return n if n >= 0 else 2 ** 64 - 1

    def count_or_zero(self, i):
        return max(self.integer(i), 0)

    def overflow(self, i):
        """A bounded place's policy by the table's name (dropNewest:
        "drop_newest"); the error it ends the stream with is expected."""
        if self.word(i) not in POLICIES:
            raise AssertionError(f"{self.where}: `{self.words[i]}` is no policy ({', '.join(POLICIES)})")
        self.bounded.used = True
        self.bounded.expect = OVERFLOW_WORDS.get(self.words[i])
        return POLICIES[self.words[i]]

    def dropped_signal(self, first):
        """queueBounded's on_drop: a signal, recorded as the place of its
        input among those named from word `first` (the upstream's value that
        named it)."""
        def on_drop(value, count):
            places = [i for i, a in enumerate(self.words[first:]) if self.inputs[a].pointer == value.pointer]
            self.bounded.on_drop(places[0] if places else -1, count)
        return on_drop

    def host_queue(self, first):
        """A bounded operator's queue: the case's, or with `host F...` from
        word `first` a host queue drained at the frames F."""
        if not self.has(first):
            return self.queue
        if self.words[first] != "host" or not self.has(first + 1):
            raise AssertionError(f"{self.where}: {self.words[0]} is followed by nothing or by host and frames")
        queue = sk.Queue.host("marble host")
        self.bounded.hosts.append(queue)
        for frame in self.words[first + 1:]:
            self.scheduler.schedule(queue.drain, at=int(frame))
        return queue

    def function(self, i):
        return self.failures.failing(self.word(i), self.where, plain_function)

    def value(self, i):
        return value_of(self.word(i))

    def input(self, i):
        return self.inputs[self.word(i)]

    def inputs_from(self, i):
        return tuple(self.inputs[name] for name in self.words[i:])

    def seconds(self, i):
        return self.scheduler.seconds(self.integer(i))

    def look(self, i):
        """A side effect's function: it does nothing, and the case checks that
        the events pass unchanged (or it fails, `!K`)."""
        return self.failures.side_effect(self.words[i:], self.where, of_value=True)

    def work(self, i):
        return self.failures.side_effect(self.words[i:], self.where, of_value=False)

    def inner(self, i):
        """A signal function over the inputs named from word `i`: the value
        `k`'s (the first for a value that is no integer: catch's error)."""
        pick = self.failures.inner(self.words[i:], self.inputs)
        return lambda value: pick(value if isinstance(value, int) and not isinstance(value, bool) else 0)

    def make(self, i):
        """deferred's: the input of word `i` at each start."""
        pick = self.failures.inner([self.word(i)], self.inputs)
        return lambda: pick(0)

    def action(self, i):
        """take_until's: pass a value when the predicate of word `i` holds,
        complete after it when the next one does."""
        passes, completes = self.function(i), self.function(i + 1)
        return lambda value: (sk.TAKE_PASS if passes(value) else 0) | (sk.TAKE_COMPLETE if completes(value) else 0)

    def upstream(self, i):
        """The upstream of an operator of a signal of signals: the value `k`
        the `k`-th input named from word `i`."""
        names = self.words[i:]
        return self.source.map(lambda k: self.inputs[names[k]])

    @staticmethod
    def groups(grouped):
        """groupBy's groups merged, each value as [key, value]."""
        return grouped.merge_map(lambda pair: pair[1].map(lambda value, key=pair[0]: [key, value]))


def apply(words, where, signal, inputs, scheduler, failures, bounded):
    """`signal` with the operator of an `op` line applied."""
    name = words[0]
    line = Line(words, where, signal, inputs, scheduler, failures, bounded)
    if name in MARBLE_OPERATORS:
        arguments, call = MARBLE_OPERATORS[name]
        if arguments >= 0 and len(words) - 1 != arguments:
            raise AssertionError(f"{where}: `{name}` takes {arguments} argument(s), got {len(words) - 1}")
        return call(line)
    if name == "concatMap":
        # mapToQueue, which Python has not: queue over the values mapped to signals.
        return signal.map(failures.inner(words[1:], inputs)).queue()
    raise AssertionError(f"{where}: the Python runner does not know the operator {name!r}")


def play(case):
    """Plays `case`; returns the problems found (empty: it passed)."""
    if case.problem:
        return [case.problem]
    if not case.inputs or case.out is None:
        return [f"{case.where}: a case needs an input and an out line"]
    table = {d: int(d) for d in "0123456789"}
    table.update(case.values)
    problems = []
    subscriptions = []
    with TestScheduler() as scheduler:
        error = MarbleError("#")
        inputs = {name: (scheduler.cold if kind == "in" else scheduler.hot)(diagram, table, error=error)
                  for name, kind, diagram in case.inputs}
        bounded = Bounded(scheduler)
        try:
            run(case, table, scheduler, inputs, subscriptions, problems, bounded)
        finally:
            for subscription in subscriptions:
                subscription.dispose()
                subscription.close()
            for item in inputs.values():
                item.close()
            for host in bounded.hosts:
                host.close()
    return problems


def run(case, table, scheduler, inputs, subscriptions, problems, bounded):
    failures = Failures()
    signal = inputs[case.inputs[0][0]]
    if case.during:
        # The first input, whose latest subscriber the subscriber's first
        # call with the trigger's value puts the values into.
        upstream, latest = signal, []

        def start(subscriber):
            latest[:] = [subscriber]
            return upstream.subscribe(subscriber.on_next, subscriber.on_error, subscriber.on_completed)
        signal = sk.Signal.create(start)
    for words, where in case.ops:
        signal = apply(words, where, signal, inputs, scheduler, failures, bounded)
    if case.during:
        trigger, puts, done = table.get(case.during[0]), [table.get(c) for c in case.during[1]], []

        def feed(value):
            if value == trigger and not done:
                done.append(True)
                for put in puts:
                    latest[0].on_next(put)
        signal = signal.after_next(feed)
    if case.fails is not None:
        # The subscriber's handler (a subscription's on_next, which may
        # raise) forwards to the recorder's, then raises at the trigger's
        # value.
        upstream, fail_on = signal, table.get(case.fails)

        def start_failing(subscriber):
            def forward(value):
                subscriber.on_next(value)
                if value == fail_on:
                    failures.fail(case.fails)
            return upstream.subscribe(forward, subscriber.on_error, subscriber.on_completed)
        signal = sk.Signal.create(start_failing)
    if case.dropped is not None and not bounded.used:
        problems.append(f"{case.where} {case.name}: `dropped` in a case without a bounded operator")
    errors = []  # the error objects the subscribers received
    reported = []  # what callback_error_hook heard: (exception, where)
    failing = case.fails is not None or any("!" in word for words, _ in case.ops for word in words)
    saved_hook = sk.callback_error_hook
    if failing:
        sk.callback_error_hook = lambda exc, where: reported.append((exc, where))
    try:
        play_case(case, table, scheduler, inputs, subscriptions, problems, signal, errors)
    finally:
        sk.callback_error_hook = saved_hook
    if failing:
        problems += check_failures(case, failures, errors, reported)
    if bounded.used:
        want = expected_events(case.dropped or "", table)
        if bounded.drops != want:
            problems.append(f"{case.where} {case.name}: dropped {case.dropped!r}: expected {want}, "
                            f"on_drop received {bounded.drops}")
    if bounded.expect and "#" in case.out and (len(errors) != 1 or bounded.expect not in str(errors[0])):
        problems.append(f"{case.where} {case.name}: the errors received are {errors!r}, expected the overflow "
                        f"error with {bounded.expect!r}")


def check_failures(case, failures, errors, reported):
    """What the case's failing callbacks did not do as the table says:
    raise, and end the stream with the very exception raised (an
    operator's callback), or go to callback_error_hook as a "side effect"."""
    at = f"{case.where} {case.name}"
    if not failures.raised:
        return [f"{at}: no callback failed: the `!` was never reached"]
    problems = []
    want = [(exc, "side effect") for exc, side_effect in failures.raised if side_effect]
    if len(reported) != len(want) or any(a is not b or w != x for (a, w), (b, x) in zip(reported, want)):
        problems.append(f"{at}: callback_error_hook heard {reported!r}, expected {want!r}")
    first = failures.raised[0][0]
    if "#" in case.out and (len(errors) != 1 or errors[0] is not first):
        problems.append(f"{at}: the errors received are {errors!r}, expected the very exception raised, {first!r}")
    return problems


def play_case(case, table, scheduler, inputs, subscriptions, problems, signal, errors):
    def error(into, e):
        into.append((scheduler.now, "error", None))
        errors.append(e)

    def record(into):
        return signal.subscribe(lambda v: into.append((scheduler.now, "next", v)),
                                lambda e: error(into, e),
                                lambda: into.append((scheduler.now, "completed", None)))

    main = []
    subscriptions.append(record(main))
    if case.dispose is not None:
        scheduler.schedule(subscriptions[0].dispose, at=case.dispose)
    others = []
    for start, stop, _ in case.also:
        events = []
        others.append(events)

        def subscribe(events=events, stop=stop):
            subscription = record(events)
            subscriptions.append(subscription)
            if stop is not None:
                scheduler.schedule(subscription.dispose, at=stop)

        scheduler.schedule(subscribe, at=start)
    # Far enough for every case: twice its longest diagram or frame (a
    # periodic operator would keep a run() going for ever).
    horizon = 2 * max([diagram_length(d) for _, _, d in case.inputs] + [diagram_length(case.out)] +
                      [f for f, _, _ in case.also] + [t or 0 for _, t, _ in case.also] + [case.dispose or 0]) + 20
    scheduler.advance_to(horizon)
    want = expected_events(case.out, table)
    if main != want:
        problems.append(f"{case.where} {case.name}: out {case.out!r}: expected {want}, received {main}")
    for (start, stop, diagram), events in zip(case.also, others):
        want = expected_events(diagram, table)
        if events != want:
            problems.append(f"{case.where} {case.name}: also {start} {stop}: expected {want}, received {events}")
    for name, subs in case.subs.items():
        text = "" if subs is None else " ".join(f"^{a}" + ("" if b is None else f" !{b}") for a, b in subs)
        if inputs[name].subscriptions != text:
            problems.append(f"{case.where} {case.name}: input {name}: subscriptions "
                            f"{inputs[name].subscriptions!r}, expected {text!r}")
    for subscription in subscriptions:  # (the logs read first: this disposal is not the case's)
        subscription.dispose()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_marble_case(case):
    problems = play(case)
    assert not problems, "\n".join(problems)


def test_the_runner_fails_an_unknown_operator_and_function(tmp_path):
    case = Case("unknown", "t.marbles:1")
    case.inputs = [("a", "in", "-1|")]
    case.ops = [(["frobnicate"], "t.marbles:3")]
    case.out = "-1|"
    with pytest.raises(AssertionError, match="does not know the operator 'frobnicate'"):
        play(case)
    case.ops = [(["map", "cube"], "t.marbles:3")]
    with pytest.raises(AssertionError, match="does not know the function 'cube'"):
        play(case)


def test_the_runner_checks_drops_and_the_overflow_error():
    case = Case("drops", "t.marbles:1")
    case.inputs = [("a", "in", "-1-----6|")]
    case.during = ("1", "2345")
    case.ops = [(["onBackpressureBuffer", "2", "dropNewest"], "t.marbles:3")]
    case.out = "-(123)-----6|"
    case.dropped = "-(45)"
    assert play(case) == []
    case.dropped = "-(44)"
    assert any("on_drop received" in p for p in play(case))
    case.ops = [(["onBackpressureBuffer", "2", "error"], "t.marbles:3")]
    case.dropped = "-(45)"
    case.out = "-(123#)"
    assert play(case) == []
    case.ops = [(["onBackpressureBuffer", "2", "latest"], "t.marbles:3")]
    case.inputs = [("a", "in", "-1-#")]
    case.out = "-1-#"
    case.dropped = ""
    case.during = None
    assert play(case) == []
    case.ops = [(["onBackpressureBuffer", "2", "error"], "t.marbles:3")]
    assert any("expected the overflow error" in p for p in play(case))


def test_the_runner_fails_a_wrong_expectation():
    case = Case("wrong", "t.marbles:1")
    case.inputs = [("a", "in", "-1-2|")]
    case.ops = [(["map", "times:10"], "t.marbles:3")]
    case.values = {"x": 10, "y": 20}
    case.out = "-x-y|"
    assert play(case) == []
    case.out = "-x-x|"
    assert play(case)


def test_the_runner_checks_a_failing_callback():
    case = Case("fails", "t.marbles:1")
    case.inputs = [("a", "in", "-1-2|")]
    case.ops = [(["map", "times:10!2"], "t.marbles:3")]
    case.values = {"x": 10}
    case.out = "-x-#"
    assert play(case) == []
    case.ops = [(["map", "times:10!5"], "t.marbles:3")]
    case.out = "-x-y|"
    case.values = {"x": 10, "y": 20}
    assert any("the `!` was never reached" in p for p in play(case))
