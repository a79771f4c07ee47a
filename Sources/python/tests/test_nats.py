"""pysignalkit.nats against a real nats-server that each test starts (on
127.0.0.1, free ports, JetStream in a temporary folder) and stops.

Skipped, saying why, when nats-server or libsignalkit-nats is not there
(the wheel carries no libsignalkit-nats: `make test-python` skips these;
`make test-nats` runs them with SIGNALKIT_NATS_LIB pointing at the built
bridge, and SIGNALKIT_NATS_REQUIRED=1, which turns the skip into a
failure)."""
import gc
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import pytest

import pysignalkit as sk
from pysignalkit import SignalError, SignalKitError

WAIT_SECONDS = 10.0


def _server_program():
    program = os.environ.get("NATS_SERVER") or ("/usr/sbin/nats-server" if os.access("/usr/sbin/nats-server", os.X_OK)
                                                else shutil.which("nats-server"))
    return program


def _bridge():
    """The module, or the reason it cannot be had."""
    try:
        from pysignalkit import nats
    except ImportError as error:
        return None, str(error)
    return nats, ""


nats, _REASON = _bridge()
_PROGRAM = _server_program()
_MISSING = (f"pysignalkit.nats cannot load libsignalkit-nats: {_REASON}" if nats is None else
            "no nats-server (Debian: apt-get install nats-server; `make deps`)" if _PROGRAM is None else "")
if _MISSING and os.environ.get("SIGNALKIT_NATS_REQUIRED") == "1":
    raise RuntimeError(f"SIGNALKIT_NATS_REQUIRED=1: {_MISSING}")
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=_MISSING)


def _free_ports(count):
    """Free ports on 127.0.0.1: bound at once (so they differ), then let go."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Server:
    """A nats-server with JetStream in a folder of its own; `url`."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="nats-python-")
        port, monitor = _free_ports(2)
        self.url = f"nats://127.0.0.1:{port}"
        self.log = os.path.join(self.folder, "server.log")
        self.process = subprocess.Popen(
            [_PROGRAM, "-a", "127.0.0.1", "-p", str(port), "-m", str(monitor), "-js", "-sd",
             os.path.join(self.folder, "js"), "-l", self.log],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        # Poll: connect until the server accepts, with a deadline; between
        # attempts wait for the server's death (a failed start) for 5 ms.
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            try:
                nats.connect(self.url).close()
                return
            except ConnectionError:
                pass
            try:
                status = self.process.wait(timeout=0.005)
            except subprocess.TimeoutExpired:
                status = None
            if status is not None:
                raise RuntimeError(f"nats-server exited ({status}) before accepting connections: {self._log()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"nats-server did not accept a connection within {WAIT_SECONDS} s")

    def _log(self):
        try:
            with open(self.log, encoding="utf-8") as handle:
                return handle.read()
        except OSError:
            return "(no log)"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=WAIT_SECONDS)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def server():
    started = Server()
    yield started
    started.stop()


@pytest.fixture
def connection(server, clean):
    """A connection to the test's server; afterwards (clean) nothing of the
    library is left alive."""
    with nats.connect(server.url) as made:
        yield made
    gc.collect()


def _add_stream(connection, name, subjects):
    """Creates a JetStream stream through the server's API (a request)."""
    config = json.dumps({"name": name, "subjects": subjects, "storage": "file"})
    with nats.request(connection, f"$JS.API.STREAM.CREATE.{name}", config, timeout=5.0) as asked:
        reply = json.loads(asked.to_list(timeout=10)[0])
    assert "error" not in reply, reply


def _add_consumer(connection, stream, durable, subject):
    config = json.dumps({"stream_name": stream, "config": {
        "durable_name": durable, "ack_policy": "explicit", "filter_subject": subject, "ack_wait": 30_000_000_000,
        "max_ack_pending": 1000}})
    with nats.request(connection, f"$JS.API.CONSUMER.DURABLE.CREATE.{stream}.{durable}", config,
                      timeout=5.0) as asked:
        reply = json.loads(asked.to_list(timeout=10)[0])
    assert "error" not in reply, reply


class Collector:
    """Values, the error and the completion of a subscription, with a wait
    for a count (a condition, never a sleep)."""

    def __init__(self):
        self.values = []
        self.error = None
        self.completed = False
        self.changed = threading.Condition()

    def on_next(self, value):
        with self.changed:
            self.values.append(value)
            self.changed.notify_all()

    def on_error(self, error):
        with self.changed:
            self.error = error
            self.changed.notify_all()

    def on_completed(self):
        with self.changed:
            self.completed = True
            self.changed.notify_all()

    def wait(self, count, seconds=WAIT_SECONDS):
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.values) >= count or self.error is not None, seconds), \
                f"{len(self.values)} of {count} values within {seconds} s"
        return self.values


def test_messages_of_a_subject_arrive_in_order(connection):
    count = 10_000
    received = Collector()
    with nats.subject(connection, "py.order") as signal:
        with signal.subscribe(received.on_next, received.on_error):
            connection.flush()  # the subscription is known to the server
            with nats.publish(sk.Signal.from_iterable(str(i) for i in range(count)), connection, "py.order") as out:
                assert len(out.to_list(timeout=WAIT_SECONDS)) == count  # flushed after the last
            values = received.wait(count)
    assert received.error is None
    assert values == [str(i).encode() for i in range(count)]


def test_message_shape_and_a_bounded_subject(connection):
    received = Collector()
    dropped = []
    with nats.subject(connection, "py.shape", shape="message", capacity=4, overflow="drop_newest",
                      on_drop=lambda value, n: dropped.append(n)) as signal:
        with signal.subscribe(received.on_next, received.on_error):
            connection.flush()
            with nats.publish(sk.Signal.from_iterable([b"a", "b"]), connection, "py.shape") as out:
                out.to_list(timeout=WAIT_SECONDS)
            values = received.wait(2)
    assert values == [[b"a", "py.shape", None, None], [b"b", "py.shape", None, None]]
    assert dropped == []


def test_a_published_signal_reaches_a_subscriber(connection):
    received = Collector()
    with nats.subject(connection, "py.sums") as signal, \
            signal.subscribe(received.on_next, received.on_error):
        connection.flush()
        readings = sk.Signal.from_iterable([1, 2, 3, 4]).scan(lambda total, x: total + x, 0).map(str)
        with nats.publish(readings, connection, "py.sums") as published:
            assert published.to_list(timeout=WAIT_SECONDS) == ["1", "3", "6", "10"]
        assert received.wait(4) == [b"1", b"3", b"6", b"10"]


def test_publish_with_an_encoder(connection):
    received = Collector()
    calls = []

    def encode(number):
        calls.append(number)
        if number == 3:
            raise ValueError("the encoder refused 3")
        return f"#{number}"

    with nats.subject(connection, "py.encoded") as signal, signal.subscribe(received.on_next, received.on_error):
        connection.flush()
        # Each value published as its encoding, passed on as it is.
        with nats.publish(sk.Signal.from_iterable([1, 2]), connection, "py.encoded", encode=encode) as published:
            assert published.to_list(timeout=WAIT_SECONDS) == [1, 2]
        assert received.wait(2) == [b"#1", b"#2"]
        # An exception in the encoder ends the stream with it at the third
        # value: nothing published for it, the upstream disposed (4 and 5
        # never encoded).
        calls.clear()
        with nats.publish(sk.Signal.from_iterable([1, 2, 3, 4, 5]), connection, "py.encoded",
                          encode=encode) as published:
            with pytest.raises(ValueError) as raised:
                published.to_list(timeout=WAIT_SECONDS)
            assert published.exception is raised.value
        assert str(raised.value) == "the encoder refused 3"
        assert calls == [1, 2, 3]
        with nats.publish(sk.Signal.single("marker"), connection, "py.encoded") as sent:
            sent.to_list(timeout=WAIT_SECONDS)
        assert received.wait(5) == [b"#1", b"#2", b"#1", b"#2", b"marker"]
        # A result that is neither str nor bytes: the bridge's words.
        with nats.publish(sk.Signal.single(7), connection, "py.encoded", encode=lambda n: n * 2) as published:
            with pytest.raises(SignalError) as wrong:
                published.to_list(timeout=WAIT_SECONDS)
    assert wrong.value.value == ("sk_nats_publish_encoded: the encoder gave a value of kind int64 for 'py.encoded': "
                                 "give a string or bytes")
    # With no on_error, the hook hears the encoder's exception as "encode".
    heard = []
    saved, sk.callback_error_hook = sk.callback_error_hook, lambda exc, where: heard.append((str(exc), where))
    try:
        with nats.publish(sk.Signal.from_iterable([3]), connection, "py.encoded", encode=encode) as published:
            with published.subscribe(lambda value: None):
                pass
    finally:
        sk.callback_error_hook = saved
    assert heard == [("the encoder refused 3", "encode")]
    with pytest.raises(TypeError):
        nats.publish(sk.Signal.single(1), connection, "x", encode="not callable")


def test_request_and_reply(connection):
    # The service: each request on svc.upper answered with its payload in
    # capitals, published to its reply subject from the client's thread.
    def answer(message):
        payload, _, reply, _ = message
        with nats.publish(sk.Signal.single(payload.upper()), connection, reply) as sent:
            sent.subscribe()

    with nats.subject(connection, "svc.upper", queue_group="workers", shape="message") as service, \
            service.subscribe(answer):
        connection.flush()
        with nats.request(connection, "svc.upper", "hello", timeout=5.0) as asked:
            assert asked.to_list(timeout=WAIT_SECONDS) == [b"HELLO"]
        with nats.request(connection, "svc.nobody", b"x", timeout=5.0) as nobody:
            with pytest.raises(SignalError) as raised:
                nobody.to_list(timeout=WAIT_SECONDS)
    assert raised.value.value == ("sk_nats_request: no responders for 'svc.nobody' "
                                  "(nats: No responders available for request)")


def _headers(message):
    """The headers of a reply in the "message" shape, as a dict."""
    return dict(message[3] or [])


def test_a_service_answers_concurrent_requests(connection):
    # Each request answered with its payload in capitals, from another
    # thread (a concurrent queue), at most 4 at once.
    running = []
    most = []
    lock = threading.Lock()

    def upper(message):
        with lock:
            running.append(message)
            most.append(len(running))

        def done(payload):
            with lock:
                running.remove(message)
            return payload.upper()

        return sk.Signal.single(message[0]).deliver_on(workers).map(done)

    count = 200
    workers = sk.Queue.concurrent()
    answered = Collector()
    with nats.serve(connection, "py.svc.upper", upper, max_concurrent=4) as service, \
            service.subscribe(answered.on_next, answered.on_error):
        connection.flush()
        replies = {}

        def ask(first):
            for i in range(first, count, 4):
                with nats.request(connection, "py.svc.upper", f"request {i}", timeout=10.0) as asked:
                    replies[i] = asked.to_list(timeout=WAIT_SECONDS)

        askers = [threading.Thread(target=ask, args=(first,)) for first in range(4)]
        for asker in askers:
            asker.start()
        for asker in askers:
            asker.join()
        assert replies == {i: [f"REQUEST {i}".encode()] for i in range(count)}
        values = answered.wait(count)
    assert answered.error is None
    assert sorted(value[0] for value in values) == sorted(f"request {i}".encode() for i in range(count))
    assert all(value[1] == "py.svc.upper" and value[2] is not None for value in values)
    assert 1 <= max(most) <= 4


def test_a_service_answers_failures_with_error_headers(connection):
    def handler(message):
        payload = message[0]
        if payload == b"bad":
            return sk.Signal.fail(ValueError("not a number: 'bad'"))
        if payload == b"empty":
            return None
        if payload == b"boom":
            raise KeyError("boom")
        return sk.Signal.single(b"ok " + payload)

    answered = Collector()
    with nats.serve(connection, "py.svc.errors", handler, queue_group="workers", max_concurrent=1, capacity=8) as service:
        with service.subscribe(answered.on_next, answered.on_error):
            connection.flush()

            def ask(payload):
                with nats.request(connection, "py.svc.errors", payload, timeout=10.0, shape="message") as asked:
                    return asked.to_list(timeout=WAIT_SECONDS)[0]

            assert ask("1")[0] == b"ok 1"
            bad = ask("bad")
            assert bad[0] == b""
            assert _headers(bad) == {"Nats-Service-Error": "not a number: 'bad'", "Nats-Service-Error-Code": "500"}
            empty = ask("empty")
            assert _headers(empty) == {
                "Nats-Service-Error": "sk_nats_serve: the handler's signal completed without a value",
                "Nats-Service-Error-Code": "500"}
            assert ask("2")[0] == b"ok 2"  # the service goes on
            assert [value[0] for value in answered.wait(4)] == [b"1", b"bad", b"empty", b"2"]
            # An exception in the handler itself ends the service with it.
            with nats.publish(sk.Signal.single("boom"), connection, "py.svc.errors") as sent:
                sent.to_list(timeout=WAIT_SECONDS)
            with answered.changed:
                assert answered.changed.wait_for(lambda: answered.error is not None, WAIT_SECONDS)
    assert isinstance(answered.error, KeyError) and answered.error.args == ("boom",)
    assert service.exception is answered.error


def test_a_disposed_service_leaves_nothing(server, clean):
    with nats.connect(server.url) as conn:
        service = nats.serve(conn, "py.svc.dispose", lambda message: sk.Signal.never(), max_concurrent=2,
                             capacity=2, overflow="drop_newest", on_drop=lambda message, n: None)
        subscription = service.subscribe()
        conn.flush()
        with nats.publish(sk.Signal.from_iterable(["a", "b"]), conn, "py.svc.dispose") as sent:
            sent.to_list(timeout=WAIT_SECONDS)  # two handlers' signals running, never answering
        subscription.dispose()
        subscription.close()
        service.close()
        assert sk.wait_released(10), (sk.live_objects(), sk.pending_callbacks(), sk.boxed_objects())
        # The server knows no subscriber any more.
        with nats.request(conn, "py.svc.dispose", "c", timeout=5.0) as asked:
            with pytest.raises(SignalError) as raised:
                asked.to_list(timeout=WAIT_SECONDS)
    assert raised.value.value.startswith("sk_nats_request: no responders for 'py.svc.dispose'")


def test_serve_refuses_bad_arguments(connection):
    with pytest.raises(SignalKitError) as refused:
        nats.serve(connection, "x", lambda message: None, max_concurrent=0)
    assert refused.value.message == "sk_nats_serve: max_concurrent must be at least 1"
    with pytest.raises(ValueError):
        nats.serve(connection, "x", lambda message: None, capacity=0)
    with pytest.raises(TypeError):
        nats.serve(connection, "x", lambda message: None, on_drop=3)
    with pytest.raises(TypeError):
        nats.serve(connection, "x", "not callable")


def test_jetstream_publish_with_acknowledgements_then_consume_after_next(connection):
    count = 2_000
    _add_stream(connection, "PY", ["py.js.>"])
    _add_consumer(connection, "PY", "readers", "py.js.readings")
    readings = sk.Signal.from_iterable(f"{i}" for i in range(count))
    with nats.js_publish(readings, connection, "py.js.readings", window=64, ack_wait=2.0, attempts=5) as publishing:
        sequences = publishing.to_list(timeout=30)
    assert sorted(sequences) == list(range(1, count + 1))  # each acknowledged once, at its stream sequence

    received = Collector()
    with nats.js_consume(connection, "PY", "readers", "py.js.readings", capacity=100) as consuming:
        with consuming.subscribe(received.on_next, received.on_error):
            values = received.wait(count, 30)
            assert received.error is None
            assert values[:count] == [str(i).encode() for i in range(count)]
            # Every one acknowledged after its on_next: none left pending.
            # Looked at before the dispose: the last value's +ACK follows
            # its on_next, which the wait above may have seen before it
            # returned, and a dispose in between leaves it unacknowledged
            # (docs/nats.md, "The acknowledgement").
            with nats.request(connection, "$JS.API.CONSUMER.INFO.PY.readers", None, timeout=5.0) as info:
                state = json.loads(info.to_list(timeout=10)[0])
            assert state["num_pending"] == 0
            deadline = time.monotonic() + WAIT_SECONDS
            while state["num_ack_pending"] and time.monotonic() < deadline:  # the last +ACKs on their way
                with nats.request(connection, "$JS.API.CONSUMER.INFO.PY.readers", None, timeout=5.0) as info:
                    state = json.loads(info.to_list(timeout=10)[0])
            assert state["num_ack_pending"] == 0


def test_jetstream_explicit_acknowledgements(connection):
    _add_stream(connection, "PYX", ["pyx.>"])
    _add_consumer(connection, "PYX", "explicit", "pyx.jobs")
    with nats.js_publish(sk.Signal.from_iterable([b"a", b"b", b"c"]), connection, "pyx.jobs") as publishing:
        assert len(publishing.to_list(timeout=WAIT_SECONDS)) == 3
    kept = Collector()
    with nats.js_consume(connection, "PYX", "explicit", "pyx.jobs", ack="explicit", capacity=2) as consuming:
        with consuming.subscribe(kept.on_next, kept.on_error):
            first, second = kept.wait(2)
            assert isinstance(first, nats.Message) and first.payload == b"a" and first.subject == "pyx.jobs"
            assert first[0] == b"a" and len(first) == 4
            nats.ack(first)  # gives one room back: the third comes
            third = kept.wait(3)[2]
            assert third.payload == b"c"
            second.ack("ack")
            third.ack("term")
            nats.ack(third, "ack")  # final already: nothing
    with pytest.raises(SignalKitError) as raised:
        nats.ack(b"not a message")
    assert raised.value.message == ("sk_nats_ack: message is no value of sk_nats_js_consume() with "
                                    "SK_NATS_ACK_EXPLICIT, nor its item SK_NATS_ITEM_ACK")
    del first, second, third
    kept.values.clear()


def test_explicit_messages_still_queued_at_a_close_are_messages_and_leave_nothing(server, clean):
    """Messages fetched before close() and delivered after it (they waited
    on the consumer's queue behind a blocked on_next) are Messages: each
    was None, with a traceback, and its hold leaked (a tester: 35 to 61 a
    round, the live count growing)."""
    capacity = 10
    conn = nats.connect(server.url)
    _add_stream(conn, "PYC", ["pyc.>"])
    _add_consumer(conn, "PYC", "closing", "pyc.jobs")
    with nats.js_publish(sk.Signal.from_iterable([f"{i}" for i in range(3 * capacity)]), conn, "pyc.jobs") as out:
        assert len(out.to_list(timeout=WAIT_SECONDS)) == 3 * capacity
    received = Collector()
    gate = threading.Event()

    def on_next(value):
        received.on_next(value)
        if len(received.values) == 1:
            assert gate.wait(WAIT_SECONDS)

    consuming = nats.js_consume(conn, "PYC", "closing", "pyc.jobs", ack="explicit", capacity=capacity)
    subscription = consuming.subscribe(on_next, received.on_error)
    received.wait(1)
    # The rest of the room fetched (the server counts it delivered, not
    # acknowledged): those wait on the consumer's queue, unconverted.
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        with nats.request(conn, "$JS.API.CONSUMER.INFO.PYC.closing", None, timeout=5.0) as info:
            state = json.loads(info.to_list(timeout=10)[0])
        if state["num_ack_pending"] >= capacity or time.monotonic() > deadline:
            break
    assert state["num_ack_pending"] == capacity, state
    conn.close()
    gate.set()
    with received.changed:
        assert received.changed.wait_for(lambda: received.error is not None, WAIT_SECONDS)
    assert "was closed" in str(received.error), received.error
    values = list(received.values)
    assert values and all(isinstance(v, nats.Message) for v in values), [type(v).__name__ for v in values]
    with pytest.raises(SignalKitError) as raised:
        values[-1].ack()
    assert "closed" in raised.value.message, raised.value.message
    subscription.close()
    consuming.close()
    del values, raised
    received.values.clear()
    gc.collect()
    assert sk.wait_released(WAIT_SECONDS), (sk.live_objects(), sk.pending_callbacks(), sk.boxed_objects())


def _held_values(count, hold):
    """The texts of 0 .. count - 1; `hold` set once 100 were taken (the
    queue it holds then starts publishing)."""
    for i in range(count):
        if i == 100:
            hold.set()
        yield f"{i}"


def test_jetstream_publish_bounded_drops_what_lags(connection):
    count = 20_000
    _add_stream(connection, "PYB", ["pyb.>"])
    hold = threading.Event()
    queue = sk.Queue.serial()
    queue.run(hold.wait)  # nothing leaves the place until 100 values were put
    dropped = []
    counts = []

    def on_drop(value, n):
        dropped.append(int(value))
        counts.append(n)

    with nats.js_publish(sk.Signal.from_iterable(_held_values(count, hold)), connection, "pyb.lag", window=1,
                         capacity=4, overflow="drop_newest", on_drop=on_drop, queue=queue) as publishing:
        sequences = publishing.to_list(timeout=30)
    assert len(dropped) >= 100 - 4
    assert counts == list(range(1, len(dropped) + 1))
    assert sequences == list(range(1, len(sequences) + 1))  # one at a time: in order
    # What the stream stored: each value kept, in order, none dropped.
    _add_consumer(connection, "PYB", "check", "pyb.lag")
    received = Collector()
    with nats.js_consume(connection, "PYB", "check", "pyb.lag", capacity=100) as consuming, \
            consuming.subscribe(received.on_next, received.on_error):
        kept = [int(value) for value in received.wait(len(sequences))]
    assert len(kept) == len(sequences)
    assert kept == sorted(kept)
    assert not set(kept) & set(dropped)
    assert sorted(kept + dropped) == list(range(count))

    # "error": the library's overflow error.
    hold = threading.Event()
    queue.run(hold.wait)
    with nats.js_publish(sk.Signal.from_iterable(_held_values(1000, hold)), connection, "pyb.error", window=1,
                         capacity=4, overflow="error", queue=queue) as publishing:
        with pytest.raises(SignalError) as raised:
            publishing.to_list(timeout=30)
    assert raised.value.value == ("sk_signal_deliver_on_bounded: overflow: a value arrived with 4 values pending "
                                  "(capacity 4, policy error)")
    # The values waiting were published, and the error came without their
    # acknowledgements: the subscription's state goes once they come, which
    # a connection closed first would never tell (docs/nats.md, Fragile).
    queue.close()
    assert sk.wait_released(10), (sk.live_objects(), sk.pending_callbacks(), sk.boxed_objects())
    with pytest.raises(TypeError):
        nats.js_publish(sk.Signal.single("x"), connection, "pyb.x", on_drop=print)
    with pytest.raises(SignalKitError) as refused:
        nats.js_publish(sk.Signal.single("x"), connection, "pyb.x", window=0, capacity=4, overflow="block")
    assert refused.value.message == "sk_nats_js_publish_bounded: window 0 is not >= 1"


def test_a_dispose_leaves_nothing_alive(server, clean):
    before = sk.live_objects()
    with nats.connect(server.url) as conn:
        received = Collector()
        signal = nats.subject(conn, "py.dispose", capacity=16, overflow="drop_oldest")
        subscription = signal.subscribe(received.on_next)
        conn.flush()
        stop = threading.Event()

        def publish_forever():
            while not stop.is_set():
                with nats.publish(sk.Signal.from_iterable([b"x"] * 100), conn, "py.dispose") as out:
                    out.to_list(timeout=WAIT_SECONDS)

        publisher = threading.Thread(target=publish_forever)
        publisher.start()
        received.wait(10)
        subscription.dispose()
        count = len(received.values)
        stop.set()
        publisher.join()
        subscription.close()
        signal.close()
        assert sk.wait_released(10), (sk.live_objects(), sk.pending_callbacks(), sk.boxed_objects())
        assert len(received.values) == count  # nothing after the dispose returned
        assert sk.live_objects() == before == 0


def test_close_destroys_once_the_signals_are_gone(server, clean):
    conn = nats.connect(server.url)
    signal = nats.subject(conn, "py.closed")
    conn.close()
    assert conn.closed
    with pytest.raises(SignalError) as raised:
        signal.to_list(timeout=WAIT_SECONDS)
    assert raised.value.value == "sk_nats_subject: cannot subscribe to 'py.closed' (nats: Connection Closed)"
    signal.close()
    with pytest.raises(ValueError):
        nats.subject(conn, "py.closed")


def test_a_bad_subject_gives_the_bridges_error_in_words(connection):
    with nats.subject(connection, "a b") as bad:
        with pytest.raises(SignalError) as raised:
            bad.to_list(timeout=WAIT_SECONDS)
    assert raised.value.value == "sk_nats_subject: cannot subscribe to 'a b' (nats: Invalid Subject)"
    # A subject no message may be published to is refused at the call (the
    # client checks none at a publish: the server took "a b" for the subject
    # "a" with the reply "b").
    with pytest.raises(SignalKitError) as refused:
        nats.request(connection, "", "x", timeout=1.0)
    assert refused.value.message == "sk_nats_request: cannot publish to '': the subject is empty"
    with pytest.raises(SignalKitError) as refused:
        nats.publish(sk.Signal.never(), connection, "a b")
    assert refused.value.message == ("sk_nats_publish: cannot publish to 'a b': "
                                     "a subject has no whitespace or control characters")
    # Arguments the bridge refuses: its message, as the package's SignalKitError.
    with pytest.raises(SignalKitError) as refused:
        nats.request(connection, "x", "y", timeout=0.0)
    assert refused.value.message.startswith("sk_nats_request: ")
    with pytest.raises(SignalKitError) as refused:
        nats.subject(connection, "x", shape=7)
    assert refused.value.message.startswith("sk_nats_subject: ")
    with pytest.raises(ValueError):
        nats.subject(connection, "x", shape="json")
    with pytest.raises(ConnectionError) as failed:
        nats.connect("nats://127.0.0.1:1")
    assert "cannot connect to 'nats://127.0.0.1:1' (nats: " in str(failed.value)
    # The message never carries a password or a token of the URL.
    with pytest.raises(ConnectionError) as failed:
        nats.connect("nats://alice:s3cret@127.0.0.1:1,t0ken@127.0.0.1:2/x@y")
    assert "cannot connect to 'nats://alice:***@127.0.0.1:1,***@127.0.0.1:2/x@y' (nats: " in str(failed.value)
    assert "s3cret" not in str(failed.value) and "t0ken" not in str(failed.value)
