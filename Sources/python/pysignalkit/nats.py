"""NATS subjects as signals, and signals published to NATS: a thin layer
over the C bridge libsignalkit-nats (include/signalkit_nats.h, docs/nats.md),
which works over the official NATS C client (Debian's libnats).

Import it on its own: ``from pysignalkit import nats``. It is not part of
the pysignalkit wheel: the wheel carries libsignalkit and libsignalkit-ffi
only, and the bridge needs libnats from the system. The import finds
libsignalkit-nats.so.0 (see `library_path`) as the file named by the
environment variable SIGNALKIT_NATS_LIB (or a folder holding it), else
beside the package's own libsignalkit (a folder given with
SIGNALKIT_LIB_DIR), else through the system's loader (an installed
SignalKit: ``make nats-install``); and raises ImportError, saying what to
install, when none loads.

What it gives, each a `pysignalkit.Signal` (the package's own, with every
operator), each function mirroring its C function:

- `connect` / `Connection`: a connection (natsConnection_ConnectTo), closed
  by `Connection.close` or a ``with`` block;
- `subject`: each start subscribes to a subject, each message a value,
  dispose unsubscribes; with a `capacity`, a bounded place with an overflow
  policy (sk_nats_subject, sk_nats_subject_bounded);
- `publish`: each value of a signal (or what `encode` makes of it)
  published, then a flush on completion (sk_nats_publish,
  sk_nats_publish_encoded);
- `request`: a request as a one-value signal with a timeout
  (sk_nats_request);
- `serve`: a service, as a signal of the requests it answered, each reply
  the first value of the signal a handler makes (sk_nats_serve);
- `js_consume`: a JetStream pull consumer, bounded by the observer's room,
  each message acknowledged after ``on_next`` returned, or by `ack`
  (sk_nats_js_consume, sk_nats_ack);
- `js_publish`: each value published to JetStream, each acknowledgement
  awaited; with a `capacity`, a bounded place with an overflow policy for
  the values that lag behind (sk_nats_js_publish,
  sk_nats_js_publish_bounded).

Values. A message becomes its payload (bytes) with the shape "payload",
or the list ``[payload, subject, reply, headers]`` with the shape
"message" (`reply` a str or None, `headers` None or a list of
``[key, value]`` pairs); with ``ack="explicit"`` each value of
`js_consume` is a `Message`. A value published must be a str or bytes.

Errors. A refused call raises `pysignalkit.SignalKitError` whose message
is the bridge's (sk_nats_last_error_message); an error of a running
signal (a refused subscription, a closed connection, a timeout, a slow
consumer) ends it with a `pysignalkit.SignalError` whose `value` is the
bridge's text, ``"<function>: <what happened> (nats: <the client's
words>)"`` (docs/nats.md, Errors).

Lifetimes. Each signal made here, and each `Message`, counts as a use of
its Connection: `Connection.close` closes the NATS connection at once
(the signals then end with the client's "Connection Closed"), and
destroys it once the last of them is released, never under them.
"""

from __future__ import annotations

import ctypes
import operator
import os
import threading
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint, c_void_p
from typing import Any, Callable, Dict, List, Optional, Union

from . import _core, _speedups
from ._callbacks import (_c_key_callback, _c_shared_drop_callback, _c_signal_callback, _c_work_callback, _Callback,
                         _EncodeCallback, _SharedDropCallback)
from ._core import (_SK_ERR_RESOURCE, C, SignalError, SignalKitError, Value, _callback_failed, _drop_fn, _Failures,
                    _map_fn, _put_object, _release_ctx, _release_fn, _retain_callbacks, _signal_fn, _ValueP, _object_out)
from ._handle import _call_with, _callable_arg, _count_arg, _seconds_arg
from ._native import _NATIVE_CODES
from ._queue import _BLOCK, _NO_DROP, Queue, _bounded_policy, _drop_arguments, _place_release, _queue_arg
from ._signal import Signal
from ._signal_core import _new_signal, _on_open_loop, _signal_arg

__all__ = [
    "Connection", "Message", "connect", "subject", "publish", "request", "serve", "js_consume", "js_publish", "ack",
    "library_path", "NATS_LIB_ENV_VAR", "PAYLOAD", "MESSAGE", "ACK_AFTER_NEXT", "ACK_EXPLICIT", "ACK", "NAK",
    "TERM", "IN_PROGRESS", "ITEM_PAYLOAD", "ITEM_SUBJECT", "ITEM_REPLY", "ITEM_HEADERS",
]


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

NATS_LIB_ENV_VAR = "SIGNALKIT_NATS_LIB"
"""The environment variable naming the libsignalkit-nats to load (a file,
or a folder holding libsignalkit-nats.so.0): see `library_path`."""
_SONAME = "libsignalkit-nats.so.0"
_INSTALL_HELP = (
    "libsignalkit-nats is not part of the pysignalkit wheel: it needs the NATS C client (Debian: "
    "apt-get install libnats3.4, or libnats-dev to build it). Build it from a SignalKit checkout with "
    "`make deps` then `make nats` (it is then .build-c/nats/libsignalkit-nats.so.0) and set "
    f"{NATS_LIB_ENV_VAR} to that file, or install it beside libsignalkit (`make install nats-install`) "
    "and set SIGNALKIT_LIB_DIR=system")


def library_path() -> str:
    """The libsignalkit-nats this module loads (read once, at import).

    The file named by the environment variable SIGNALKIT_NATS_LIB (or
    libsignalkit-nats.so.0 in the folder it names); else
    libsignalkit-nats.so.0 beside the libsignalkit the package loaded (its
    folder of SIGNALKIT_LIB_DIR, or its own ``_lib``: the wheel has none)
    when that file exists; else the bare name, for the system's loader (an
    installed SignalKit, ``make nats-install``). The bridge's own
    dependency on libsignalkit.so.0 is met by the copy the package loaded,
    and its dependency on libnats by the system's loader."""
    override = os.environ.get(NATS_LIB_ENV_VAR, "")
    if override:
        return os.path.join(override, _SONAME) if os.path.isdir(override) else override
    core = _core.library_paths()[0]
    if os.path.isabs(core):
        beside = os.path.join(os.path.dirname(core), _SONAME)
        if os.path.exists(beside):
            return beside
    return _SONAME


def _load() -> ctypes.CDLL:
    path = library_path()
    if os.path.isabs(path) and not os.path.exists(path):
        raise ImportError(f"pysignalkit.nats: {path} not found ({NATS_LIB_ENV_VAR}="
                          f"{os.environ.get(NATS_LIB_ENV_VAR, '')!r}). {_INSTALL_HELP}")
    try:
        return ctypes.CDLL(path)
    except OSError as error:
        raise ImportError(f"pysignalkit.nats: cannot load {path} ({error}). {_INSTALL_HELP}") from error


_bridge = _load()


def _function(name: str, restype: Any, *argtypes: Any) -> Any:
    # Looked up in the bridge and its dependencies (libnats, loaded with it:
    # the very copy the bridge calls).
    function = getattr(_bridge, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


_out = POINTER(c_void_p)
_last_error_message = _function("sk_nats_last_error_message", c_char_p)
_sk_nats_subject = _function("sk_nats_subject", c_int, _out, c_void_p, c_char_p, c_char_p, c_int)
_sk_nats_subject_bounded = _function("sk_nats_subject_bounded", c_int, _out, c_void_p, c_char_p, c_char_p, c_int,
                                     c_void_p, c_size_t, c_int, _drop_fn, c_void_p, _release_fn)
_sk_nats_publish = _function("sk_nats_publish", c_int, _out, c_void_p, c_void_p, c_char_p, c_double)
_sk_nats_publish_encoded = _function("sk_nats_publish_encoded", c_int, _out, c_void_p, c_void_p, c_char_p, c_double,
                                     _map_fn, c_void_p, _release_fn)
_sk_nats_request = _function("sk_nats_request", c_int, _out, c_void_p, c_char_p, _ValueP, c_double, c_int)
_sk_nats_serve = _function("sk_nats_serve", c_int, _out, c_void_p, c_char_p, c_char_p, c_size_t, c_size_t, c_int,
                           _signal_fn, _drop_fn, c_void_p, _release_fn)
_sk_nats_js_consume = _function("sk_nats_js_consume", c_int, _out, c_void_p, c_void_p, c_char_p, c_char_p,
                                c_char_p, c_int, c_int, c_void_p, c_size_t)
_sk_nats_ack = _function("sk_nats_ack", c_int, _ValueP, c_int)
_sk_nats_js_publish = _function("sk_nats_js_publish", c_int, _out, c_void_p, c_void_p, c_void_p, c_char_p,
                                c_char_p, c_size_t, c_double, c_uint)
_sk_nats_js_publish_bounded = _function("sk_nats_js_publish_bounded", c_int, _out, c_void_p, c_void_p, c_void_p,
                                        c_char_p, c_char_p, c_size_t, c_double, c_uint, c_void_p, c_size_t, c_int,
                                        _drop_fn, c_void_p, _release_fn)
_connect_to = _function("natsConnection_ConnectTo", c_int, _out, c_char_p)
_connection_close = _function("natsConnection_Close", None, c_void_p)
_connection_destroy = _function("natsConnection_Destroy", None, c_void_p)
_connection_flush = _function("natsConnection_FlushTimeout", c_int, c_void_p, c_int64)
_connection_is_closed = _function("natsConnection_IsClosed", ctypes.c_bool, c_void_p)
_status_text = _function("natsStatus_GetText", c_char_p, c_int)
_nats_last_error = _function("nats_GetLastError", c_char_p, POINTER(c_int))

# --------------------------------------------------------------------------
# Constants (signalkit_nats.h)
# --------------------------------------------------------------------------

MESSAGE = 0
"""A message becomes the list [payload, subject, reply, headers]
(SK_NATS_MESSAGE; "message")."""
PAYLOAD = 1
"""A message becomes its payload, as bytes (SK_NATS_PAYLOAD; "payload")."""
ITEM_PAYLOAD, ITEM_SUBJECT, ITEM_REPLY, ITEM_HEADERS = 0, 1, 2, 3
"""The indexes of a MESSAGE value's items (SK_NATS_ITEM_*)."""
ACK_AFTER_NEXT = 0
"""js_consume acknowledges each message once on_next returned
(SK_NATS_ACK_AFTER_NEXT; "after_next")."""
ACK_EXPLICIT = 1
"""js_consume's observer acknowledges each `Message` with `ack`
(SK_NATS_ACK_EXPLICIT; "explicit")."""
ACK, NAK, TERM, IN_PROGRESS = 0, 1, 2, 3
"""What `ack` tells the server: "+ACK" (done), "-NAK" (deliver it again),
"+TERM" (never again), "+WPI" (still working: restarts AckWait)
(SK_NATS_ACK, SK_NATS_NAK, SK_NATS_TERM, SK_NATS_IN_PROGRESS; "ack", "nak",
"term", "in_progress")."""

_SHAPES = {"payload": PAYLOAD, "message": MESSAGE}
_ACK_MODES = {"after_next": ACK_AFTER_NEXT, "explicit": ACK_EXPLICIT}
_ACK_KINDS = {"ack": ACK, "nak": NAK, "term": TERM, "in_progress": IN_PROGRESS}


def _enum_arg(value: Union[str, int], names: Dict[str, int], where: str, what: str) -> int:
    """A name of `names` or an int (passed on: the bridge refuses one out of
    its enum, in its words); ValueError for an unknown name, TypeError for
    another type."""
    if isinstance(value, str):
        if value not in names:
            raise ValueError(f"signalkit: {where}: {what} {value!r} is not one of "
                             + ", ".join(repr(name) for name in names))
        return names[value]
    if isinstance(value, bool):
        raise TypeError(f"signalkit: {where}: {what} is bool, not a name or an int")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"signalkit: {where}: {what} is {type(value).__name__}, not a name or an int") from None


def _text_arg(text: object, where: str, name: str, optional: bool = False) -> Optional[bytes]:
    """A str argument as UTF-8 bytes (None passes when `optional`):
    TypeError for another type, ValueError for a NUL character."""
    if text is None and optional:
        return None
    if not isinstance(text, str):
        raise TypeError(f"signalkit: {where}: {name} is {type(text).__name__}, not a str")
    encoded = text.encode("utf-8")
    if b"\0" in encoded:
        raise ValueError(f"signalkit: {where}: {name} contains a NUL character")
    return encoded


def _bridge_failed(status: int) -> SignalKitError:
    """The error of a refused bridge call, in the bridge's words."""
    raw = _last_error_message()
    return SignalKitError(status, (raw or b"").decode("utf-8", "replace"))


# --------------------------------------------------------------------------
# Connection
# --------------------------------------------------------------------------


class Connection:
    """A connection to a NATS server (a natsConnection of libnats): made by
    `connect`, closed by `close` or at the end of a ``with`` block.

    The signals made over it borrow it: `close` closes the connection at
    once (their running subscriptions end with the client's "Connection
    Closed", a new start fails so), and destroys it
    (natsConnection_Destroy) once every signal and `Message` made over it
    is released. Usable from any thread."""

    def __init__(self, address: int) -> None:
        """Takes over the natsConnection at `address` (one made with
        natsConnection_Connect and its natsOptions, through ctypes, for
        options that `connect` does not take: TLS, credentials,
        reconnection): `close` destroys it."""
        if isinstance(address, bool) or not isinstance(address, int) or address == 0:
            raise TypeError("signalkit: Connection: the address of a natsConnection is a non-zero int")
        self._address: Optional[int] = address
        self._lock = threading.Lock()
        self._uses = 0
        self._closed = False

    @property
    def address(self) -> int:
        """The natsConnection's address (for libnats calls through ctypes);
        ValueError once closed."""
        address = self._address
        if address is None or self._closed:
            raise ValueError("signalkit: the NATS connection is closed")
        return address

    @property
    def closed(self) -> bool:
        """Whether `close` was called, or the client closed the connection
        (natsConnection_IsClosed)."""
        with self._lock:
            if self._closed or self._address is None:
                return True
            return bool(_connection_is_closed(self._address))

    def flush(self, timeout: float = 5.0) -> None:
        """One round trip to the server (natsConnection_FlushTimeout): what
        was sent before, a subscription made by a start included, has reached
        it. ConnectionError with the client's words when it fails or takes
        longer than `timeout` seconds."""
        seconds = _seconds_arg(timeout, "Connection.flush", "timeout")
        address = self._use("Connection.flush")
        try:
            status = _connection_flush(address, max(1, int(seconds * 1000)))
        finally:
            self._unuse()
        if status != 0:
            raise ConnectionError(f"signalkit: Connection.flush: {_nats_words(status)}")

    def close(self) -> None:
        """Closes the connection at once (natsConnection_Close) and destroys
        it once nothing made over it is alive any more (idempotent)."""
        with self._lock:
            if self._closed or self._address is None:
                return
            self._closed = True
            address = self._address
            # The close call counts as a use: a signal released meanwhile
            # on another thread (the last use otherwise) must not destroy
            # the connection under natsConnection_Close.
            self._uses += 1
        _connection_close(address)
        with self._lock:
            self._uses -= 1
            destroy = self._uses == 0
            if destroy:
                self._address = None
        if destroy:
            _connection_destroy(address)

    def __enter__(self) -> "Connection":
        """The connection itself; the block's end closes it."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Closes the connection (`close`)."""
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    def __repr__(self) -> str:
        return f"<pysignalkit.nats.Connection {'closed' if self._closed else 'open'}>"

    def _use(self, where: str) -> int:
        """Counts one more thing alive over the connection; its address.
        ValueError once closed."""
        with self._lock:
            if self._closed or self._address is None:
                raise ValueError(f"signalkit: {where}: the NATS connection is closed")
            self._uses += 1
            return self._address

    def _unuse(self) -> None:
        """One thing alive over the connection is gone: the last one after
        `close` destroys it, on a thread of its own (never on a thread of
        the client's, which destroying would wait for)."""
        with self._lock:
            self._uses -= 1
            address = self._address if self._closed and self._uses == 0 else None
            if address is not None:
                self._address = None
        if address is not None:
            threading.Thread(target=_connection_destroy, args=(address,), name="signalkit-nats-destroy",
                             daemon=True).start()


def _nats_words(status: int) -> str:
    """The client's words for `status`, with its last error's detail."""
    text = (_status_text(status) or b"").decode("utf-8", "replace")
    code = c_int(0)
    detail = (_nats_last_error(byref(code)) or b"").decode("utf-8", "replace")
    return f"nats: {text}: {detail}" if detail and detail != text else f"nats: {text}"


def _redacted(urls: str) -> str:
    """`urls` (comma-separated) with each URL's user information hidden, for
    messages: a password as `user:***`, a token as `***`."""
    shown = []
    for url in urls.split(","):
        scheme, separator, rest = url.partition("://")
        if not separator:
            scheme, rest = "", url
        end = rest.find("/")
        at = rest.rfind("@", 0, end if end >= 0 else len(rest))
        if at >= 0:
            user, colon, _ = rest[:at].partition(":")
            rest = (user + ":***" if colon else "***") + rest[at:]
        shown.append(scheme + separator + rest)
    return ",".join(shown)


def connect(url: str) -> Connection:
    """A connection to the NATS server(s) at `url` ("nats://127.0.0.1:4222";
    several, comma-separated), with libnats's default options
    (natsConnection_ConnectTo: reconnection on, 60 attempts 2 s apart).
    ConnectionError, with the client's words, when it cannot connect (the
    URL quoted with its password or token hidden: `nats://alice:***@host`);
    TypeError unless `url` is a str."""
    encoded = _text_arg(url, "connect", "url")
    out = _object_out()
    status = _connect_to(byref(out), encoded)
    if status != 0 or not out.value:
        raise ConnectionError(f"signalkit: connect: cannot connect to {_redacted(url)!r} ({_nats_words(status)})")
    return Connection(out.value)


class _ConnectionUse(_Callback):
    """The callback set that ties a signal to its connection: its dispose
    action does nothing; its release (the signal freed) ends its use."""
    __slots__ = ("connection",)

    def __init__(self, connection: Connection) -> None:
        super().__init__(_nothing, _Failures())
        self.connection = connection

    def on_release(self) -> None:
        """The library released the signal: the connection may go."""
        self.connection._unuse()


def _nothing() -> None:
    """The dispose action of a connection's use: nothing to do."""


def _make(connection: Connection, where: str, function: Any, *args: Any, queue: Optional[Queue] = None,
          blocks: bool = False) -> Signal[Any]:
    """The signal function(&out, connection, *args) makes (handles among
    `args` passed as their pointers), counted as a use of `connection`
    until the library frees it: the bridge's signal inside an
    sk_signal_after_disposed whose release ends the use (the bridge
    borrows the connection). With `blocks` (js_publish, whose delivering
    thread waits for acknowledgements that a Python callback on the
    client's thread receives) it is counted among the block signals, so
    that the package's puts let the GIL go while it exists
    (_queue._place_release). SignalKitError with the bridge's message when
    it refuses."""
    address = connection._use(where)
    try:
        out = _object_out()
        status = _call_with(function, byref(out), address, *args)
        if status != 0:
            raise _bridge_failed(status)
        inner: Signal[Any] = _core._signal_type(out.value)
    except BaseException:
        connection._unuse()
        raise
    with inner:
        ctx = _retain_callbacks(_ConnectionUse(connection))  # its release ends the use, also when the call fails
        wrapped = _object_out()
        release = _place_release(_BLOCK, _release_ctx) if blocks else _release_ctx
        _core._check(_call_with(C.signal_after_disposed, byref(wrapped), inner, _c_work_callback, ctx, release))
    signal: Signal[Any] = _core._signal_type(wrapped.value)
    if queue is not None and queue._loop is not None:
        return _on_open_loop(signal, queue)
    return signal


def _connection_arg(connection: object, where: str) -> Connection:
    if not isinstance(connection, Connection):
        raise TypeError(f"signalkit: {where}: the connection is {type(connection).__name__}, not a "
                        "pysignalkit.nats.Connection")
    return connection


# --------------------------------------------------------------------------
# Core NATS
# --------------------------------------------------------------------------


def subject(connection: Connection, subject: str, queue_group: Optional[str] = None,
            shape: Union[str, int] = "payload", capacity: Optional[int] = None,
            overflow: Union[str, int, None] = None, on_drop: Optional[Callable[[Any, int], object]] = None,
            queue: Optional[Queue] = None) -> Signal[Any]:
    """A NATS subject as a signal: each start subscribes to `subject` (in
    `queue_group` when given: each message of the group goes to one of its
    members), each message becomes a value of `shape` ("payload": its bytes;
    "message": [payload, subject, reply, headers]), and a dispose
    unsubscribes. The signal never completes by itself; it fails (a
    SignalError carrying the bridge's text) when the client refuses the
    subscription (an invalid subject), closes it, or drops messages (a slow
    consumer beyond libnats's pending limits).

    Without `capacity` (sk_nats_subject) values arrive on the client's
    delivery thread, and a slow observer makes messages wait in libnats.
    With it (sk_nats_subject_bounded) at most `capacity` messages wait in a
    bounded place, delivered on `queue` (None: a serial queue of the
    signal's own), and `overflow` decides about the next, as in
    `Signal.on_backpressure_buffer`: "drop_newest", "drop_oldest",
    "latest" (each drop told to on_drop(value, dropped so far), on the
    client's thread), "error", or "block" (the client's thread waits).

    A start subscribes on the starting thread: `Connection.flush` after it
    makes sure the server knows the subscription before others publish.
    SignalKitError (the bridge's message) when the bridge refuses the
    arguments; TypeError / ValueError for arguments of the wrong type,
    overflow or on_drop without a capacity, a capacity of 0."""
    where = "nats.subject"
    conn = _connection_arg(connection, where)
    name = _text_arg(subject, where, "subject")
    group = _text_arg(queue_group, where, "queue_group", optional=True)
    form = _enum_arg(shape, _SHAPES, where, "shape")
    if capacity is None:
        if overflow is not None or on_drop is not None or queue is not None:
            raise TypeError(f"signalkit: {where}: overflow, on_drop and queue need a capacity")
        return _make(conn, where, _sk_nats_subject, name, group, form)
    size, policy = _bounded_policy(where, capacity, overflow, on_drop)
    place = _queue_arg(queue, where) if queue is not None else None
    return _make(conn, where, _sk_nats_subject_bounded, name, group, form, place, size, policy,
                 *_drop_arguments(on_drop, policy), queue=place)


def publish(signal: Signal[Any], connection: Connection, subject: str, flush_timeout: float = 5.0,
            encode: Optional[Callable[[Any], Union[str, bytes]]] = None) -> Signal[Any]:
    """A signal that publishes each value of `signal` (a str, as UTF-8, or
    bytes) to `subject` on the thread that delivers it, passes it on, and
    completes once the connection is flushed after `signal` completed (at
    most `flush_timeout` seconds: sk_nats_publish). It fails, disposing
    `signal`'s subscription, with a SignalError carrying the bridge's text
    when a value is of another kind, the client refuses a publish (a
    payload too large, a closed connection) or the flush fails; an error of
    `signal` passes on unchanged. SignalKitError (the bridge's message) for
    a flush_timeout or a subject it refuses (one no message may be
    published to: "a b", "a..b", "a.*").

    With `encode` (sk_nats_publish_encoded), encode(value) is published
    instead, a str or bytes (another type fails the stream with the
    bridge's text), and the value itself is passed on, unchanged. An
    exception in `encode` ends the stream with it (nothing is published for
    that value, the upstream is disposed), as in map."""
    where = "nats.publish"
    source = _signal_arg(signal, where)
    conn = _connection_arg(connection, where)
    name = _text_arg(subject, where, "subject")
    seconds = _seconds_arg(flush_timeout, where, "flush_timeout")
    if encode is None:
        return _make(conn, where, _publish_call, source, name, seconds)
    _callable_arg(encode, where)
    failures = _Failures()
    made: Signal[Any] = _make(conn, where, _publish_encoded_call, source, name, seconds,
                              _EncodeCallback(encode, failures.recorder()))
    made._failures = failures
    return made


def _publish_call(out: Any, address: int, source: int, name: bytes, seconds: float) -> int:
    # sk_nats_publish takes the signal before the connection.
    status: int = _sk_nats_publish(out, source, address, name, seconds)
    return status


def _publish_encoded_call(out: Any, address: int, source: int, name: bytes, seconds: float, callback: _Callback) -> int:
    # The encoder crosses as group_by's key function does (an sk_map_fn of
    # the package's: the value in, the result written into `out`, an
    # exception failing the call); its context is retained in the call
    # itself, which releases it once, also when the bridge refuses.
    status: int = _sk_nats_publish_encoded(out, source, address, name, seconds, _c_key_callback,
                                           _retain_callbacks(callback), _release_ctx)
    return status


def request(connection: Connection, subject: str, payload: Union[str, bytes, None] = None, timeout: float = 5.0,
            shape: Union[str, int] = "payload") -> Signal[Any]:
    """A request as a signal (sk_nats_request): each start publishes
    `payload` (a str as UTF-8, bytes, or None for an empty request) to
    `subject` with a new inbox as its reply subject, then emits the first
    reply as a value of `shape` and completes. It fails with a SignalError
    carrying the bridge's text after `timeout` seconds without a reply
    ("no reply from 'x' within 0.2 s (nats: Timeout)"), when no one listens
    ("no responders"), or when the client refuses the request. A dispose
    unsubscribes the inbox. SignalKitError (the bridge's message) for a
    timeout, shape or subject it refuses (as `publish`)."""
    where = "nats.request"
    conn = _connection_arg(connection, where)
    name = _text_arg(subject, where, "subject")
    if payload is not None and not isinstance(payload, (str, bytes)):
        raise TypeError(f"signalkit: {where}: payload is {type(payload).__name__}, not str, bytes or None")
    seconds = _seconds_arg(timeout, where, "timeout")
    form = _enum_arg(shape, _SHAPES, where, "shape")
    value = Value()
    _put_object(payload, value)
    try:
        return _make(conn, where, _sk_nats_request, name, None if payload is None else byref(value), seconds, form)
    finally:
        C.value_release(byref(value))


def serve(connection: Connection, subject: str, handler: Callable[[List[Any]], Optional[Signal[Any]]],
          queue_group: Optional[str] = None, max_concurrent: int = 16, capacity: int = 256,
          overflow: Union[str, int] = "block", on_drop: Optional[Callable[[Any, int], object]] = None) -> Signal[List[Any]]:
    """A service as a signal (sk_nats_serve): each start subscribes to
    `subject` (in `queue_group` when given, so that several services share
    the requests), and for each request calls handler(message), `message`
    the list ``[payload, subject, reply, headers]``; the first value of the
    Signal it returns, a str (as UTF-8) or bytes, is published to the
    request's reply subject. At most `max_concurrent` of those signals run
    at once; the requests beyond wait, at most `capacity` of them, and
    `overflow` decides about the next ("block": the client's thread waits;
    "drop_newest", "drop_oldest", "latest": dropped without a reply, each
    told to on_drop(message, dropped so far); "error": the service fails).

    A handler's signal that fails, completes without a value (None is such
    a signal) or gives a value of another kind is answered with the NATS
    service error headers, ``Nats-Service-Error`` (the exception's text:
    str(exception), or a SignalError's string value; the bridge's words
    otherwise) and ``Nats-Service-Error-Code`` 500, and the service goes on.
    An exception in `handler` itself ends the service with it, as in
    merge_map. The service's values are the request messages, each emitted
    once its reply was published; a request without a reply subject is
    handled and emitted, and nothing is published for it. It never
    completes; it fails with a SignalError carrying the bridge's text when
    the client refuses the subscription or a reply (a closed connection).
    A dispose unsubscribes. `handler` runs on the client's thread, or on
    the thread where an earlier request's signal ended. SignalKitError (the
    bridge's message) for arguments it refuses."""
    where = "nats.serve"
    conn = _connection_arg(connection, where)
    name = _text_arg(subject, where, "subject")
    group = _text_arg(queue_group, where, "queue_group", optional=True)
    _callable_arg(handler, where)
    count = _count_arg(max_concurrent, where, "max_concurrent")
    size, policy = _bounded_policy(where, capacity, overflow, on_drop)
    failures = _Failures()
    answer = _ServiceHandler(handler)
    # One context for the handler and on_drop, as the C function has.
    callback = (_Callback(answer, failures.recorder()) if on_drop is None
                else _SharedDropCallback(answer, failures.recorder(), on_drop))
    made: Signal[List[Any]] = _make(conn, where, _serve_call, name, group, count, size, policy, callback,
                                    on_drop is not None)
    made._failures = failures
    return made


def _serve_call(out: Any, address: int, name: bytes, group: Optional[bytes], count: int, size: int, policy: int,
                callback: _Callback, drops: bool) -> int:
    # The context is retained, and the block policy counted, in the call
    # itself: the bridge releases both once, also when it refuses.
    status: int = _sk_nats_serve(out, address, name, group, count, size, policy, _c_signal_callback,
                                 _c_shared_drop_callback if drops else _NO_DROP, _retain_callbacks(callback),
                                 _place_release(policy, _release_ctx))
    return status


class _ServiceHandler:
    """serve's handler: the user's, whose signal's error becomes a string
    error value (what the bridge publishes as Nats-Service-Error) instead
    of a Python object, which the bridge could only name by its kind."""
    __slots__ = ("handler",)

    def __init__(self, handler: Callable[[List[Any]], Optional[Signal[Any]]]) -> None:
        self.handler = handler

    def __call__(self, message: List[Any]) -> object:
        result = self.handler(message)
        if isinstance(result, Signal):
            return result.catch(_failing_with_text)
        return result  # None (an empty signal), or what the bridge refuses


def _failing_with_text(error: BaseException) -> Signal[Any]:
    """A signal failing with `error`'s text as a string error value."""
    if isinstance(error, SignalError) and isinstance(error.value, str):
        text = error.value
    else:
        text = str(error) or type(error).__name__
    value = Value()
    _put_object(text, value)
    try:
        return _new_signal(C.signal_fail, byref(value))
    finally:
        C.value_release(byref(value))


# --------------------------------------------------------------------------
# JetStream
# --------------------------------------------------------------------------


class Message:
    """A message of `js_consume` with ``ack="explicit"``: its payload
    (bytes), subject, reply subject (JetStream's acknowledgement subject,
    whose metadata tells a redelivery), headers (None, or a list of
    [key, value] pairs), and the hold on its acknowledgement.

    Until it is acknowledged with a final kind (`ack` with "ack", "nak" or
    "term"), the message counts against the consumer's capacity. Keep the
    object as long as you may acknowledge it: once it is collected (or
    `release` is called) without a final acknowledgement, its room is given
    back and the server delivers the message again after the consumer's
    AckWait. Indexable as the "message" shape's list ([payload, subject,
    reply, headers]). A message that reached on_next after `close()` of its
    connection (delivered from the consumer's queue after the close) holds
    nothing: acknowledging it raises SignalKitError, as acknowledging any
    message of a closed connection does, and the server delivers it again."""
    __slots__ = ("payload", "subject", "reply", "headers", "_hold", "_connection", "_lock", "__weakref__")

    def __init__(self, items: List[Any], hold: Optional[Value], connection: Connection) -> None:
        self.payload: bytes = items[ITEM_PAYLOAD]
        """The payload."""
        self.subject: str = items[ITEM_SUBJECT]
        """The subject it was published to."""
        self.reply: Optional[str] = items[ITEM_REPLY]
        """Its reply subject (JetStream's acknowledgement subject)."""
        self.headers: Optional[List[List[str]]] = items[ITEM_HEADERS]
        """None, or its headers as [key, value] pairs, one per value."""
        self._hold: Optional[Value] = hold
        self._connection = connection
        self._lock = threading.Lock()

    def __getitem__(self, index: int) -> Any:
        """The item `index` of [payload, subject, reply, headers]."""
        return (self.payload, self.subject, self.reply, self.headers)[index]

    def __len__(self) -> int:
        """4: the items of the "message" shape."""
        return 4

    def __repr__(self) -> str:
        return f"<pysignalkit.nats.Message {self.subject!r} {self.payload!r}>"

    def ack(self, kind: Union[str, int] = "ack") -> None:
        """`ack(self, kind)`."""
        ack(self, kind)

    def release(self) -> None:
        """Lets go of the hold on the acknowledgement now (idempotent): not
        acknowledged before, the message gives its room back and the server
        delivers it again after AckWait. Collection does the same."""
        with self._lock:
            hold, self._hold = self._hold, None
        if hold is not None:
            C.value_release(byref(hold))
            self._connection._unuse()

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # interpreter shutdown: the library may be gone
            pass


def ack(value: object, kind: Union[str, int] = "ack") -> None:
    """Acknowledges a `Message` of `js_consume` with ``ack="explicit"``
    (sk_nats_ack): `kind` "ack" (+ACK: done), "nak" (-NAK: deliver it
    again soon), "term" (+TERM: never again) or "in_progress" (+WPI: still
    working, AckWait restarts; the only kind that may come before another).
    A message is acknowledged once: a later final acknowledgement does
    nothing. From any thread. SignalKitError with the bridge's message for
    anything else ("sk_nats_ack: message is no value of
    sk_nats_js_consume() with SK_NATS_ACK_EXPLICIT, ...") or when the client
    refuses to send it (a closed connection)."""
    number = _enum_arg(kind, _ACK_KINDS, "nats.ack", "kind")
    if isinstance(value, Message):
        with value._lock:
            hold = value._hold
            if hold is None and value._connection._closed:
                raise SignalKitError(_SK_ERR_RESOURCE, "nats.ack: the NATS connection is closed: the message "
                                     "cannot be acknowledged (the server delivers it again after AckWait)")
            if hold is None:
                raise ValueError("signalkit: nats.ack: the message was released")
            status = _sk_nats_ack(byref(hold), number)
    else:
        other = Value()
        _put_object(value, other)
        try:
            status = _sk_nats_ack(byref(other), number)
        finally:
            C.value_release(byref(other))
    if status != 0:
        raise _bridge_failed(status)


class _Explicit:
    """The map of an explicit js_consume: each value (the five items)
    becomes a Message holding a copy of its acknowledgement item."""
    __slots__ = ("connection", "native", "fn", "__weakref__")

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        # The extension's closure (it enters Python under the package's exit
        # rules), of sk_map_fn's C type: void (void *, const sk_value *, sk_value *).
        self.native = _speedups.native(self.convert, _NATIVE_CODES["void"], bytes([_NATIVE_CODES["ctx"]] * 3), True)
        self.fn = _map_fn(self.native.address)

    def convert(self, ctx: Optional[int], value: Optional[int], out: Optional[int]) -> None:
        try:
            if value is None or out is None:
                raise ValueError("signalkit: nats.js_consume: the library passed no value")
            source = ctypes.cast(value, _ValueP)
            items = _core.from_value(source)
            item = _ValueP()
            _core._check(C.value_get_array_item(source, 4, byref(item)))
            copied = Value()
            _core._check(C.value_copy(byref(copied), item))
            hold: Optional[Value] = copied
            try:
                self.connection._use("nats.js_consume")  # the message's own use, ended by its release
            except ValueError:
                # Closed since the message was fetched (it waited on the
                # consumer's queue): its hold goes now, while the signal's
                # own use keeps the connection; the Message says so when
                # acknowledged. (It was None, a traceback, and a leaked hold.)
                C.value_release(byref(copied))
                hold = None
            message = Message(items, hold, self.connection)
            _put_object(message, ctypes.cast(out, _ValueP).contents)
        except BaseException as exc:
            _callback_failed(exc, "js_consume", None)


def js_consume(connection: Connection, stream: Optional[str], durable: str, subject: str,
               shape: Union[str, int] = "payload", ack: Union[str, int] = "after_next",
               queue: Optional[Queue] = None, capacity: int = 256) -> Signal[Any]:
    """A JetStream pull consumer as a signal (sk_nats_js_consume): each start
    binds to the durable consumer `durable` of `stream` (None: the stream of
    `subject`; libnats creates the consumer with its defaults when it does
    not exist) on the starting thread, and a thread of the subscription's
    own fetches no more messages than the room left of `capacity` (at most
    `capacity` held between the server and the observer: a slow observer
    leaves them on the server, nothing is dropped). Values of `shape` come
    on `queue` (None: a serial queue of the signal's own), in the server's
    order.

    At least once: with ``ack="after_next"`` each message is acknowledged
    once on_next returned for it; with ``ack="explicit"`` each value is a
    `Message` to acknowledge with `ack` (shape is then ignored). A message
    not acknowledged comes again after the consumer's AckWait. The signal
    never completes; it fails with a SignalError carrying the bridge's text
    when the bind is refused ("cannot bind to the consumer 'd' of 'S'
    (nats: ...)"), the connection closes, or a fetch fails. Keep `capacity`
    at most the consumer's MaxAckPending (1,000 by default). The jsOptions
    of the C function are libnats's defaults here (no Prefix nor Domain).
    SignalKitError (the bridge's message) for arguments it refuses."""
    where = "nats.js_consume"
    conn = _connection_arg(connection, where)
    stream_name = _text_arg(stream, where, "stream", optional=True)
    durable_name = _text_arg(durable, where, "durable")
    filter_subject = _text_arg(subject, where, "subject")
    mode = _enum_arg(ack, _ACK_MODES, where, "ack")
    form = MESSAGE if mode == ACK_EXPLICIT else _enum_arg(shape, _SHAPES, where, "shape")
    size = _count_arg(capacity, where, "capacity")
    place = _queue_arg(queue, where) if queue is not None else None
    signal = _make(conn, where, _sk_nats_js_consume, None, stream_name, durable_name, filter_subject, form, mode,
                   place, size, queue=place)
    if mode != ACK_EXPLICIT:
        return signal
    explicit = _Explicit(conn)
    with signal:
        ctx = _retain_callbacks(explicit)
        out = _object_out()
        _core._check(_call_with(C.signal_map, byref(out), signal, explicit.fn, ctx, _release_ctx))
    mapped: Signal[Any] = _core._signal_type(out.value)
    return mapped


def js_publish(signal: Signal[Any], connection: Connection, subject: str, id_prefix: Optional[str] = None,
               window: int = 256, ack_wait: float = 5.0, attempts: int = 3, capacity: Optional[int] = None,
               overflow: Union[str, int, None] = None, on_drop: Optional[Callable[[Any, int], object]] = None,
               queue: Optional[Queue] = None) -> Signal[int]:
    """A signal that publishes each value of `signal` (a str as UTF-8, or
    bytes) to JetStream's `subject` and awaits the server's acknowledgement
    of each (sk_nats_js_publish): at most `window` awaited at once (the
    thread delivering the next value waits for room), each with a message
    ID ``<id_prefix>.<n>`` (None: a new unique prefix per start), published
    again with the same ID after `ack_wait` seconds without its
    acknowledgement, at most `attempts` times in all. Each acknowledgement
    emits the stream sequence (an int) the server stored the message at;
    it completes once `signal` completed and every publish is
    acknowledged. It fails with a SignalError carrying the bridge's text
    for a value of another kind, a publish the client refuses, or one not
    acknowledged after `attempts` ("message 7 to 'x' was not acknowledged
    after 3 attempts (nats: No responders available for request)"); an
    error of `signal` passes on. The jsOptions are libnats's defaults.
    SignalKitError (the bridge's message) for arguments it refuses.

    With `capacity` (sk_nats_js_publish_bounded), the thread delivering
    the values never waits for the server: it puts each into a bounded
    place of at most `capacity` values and returns, and `queue` (None: a
    serial queue of the signal's own) publishes them and waits for room in
    the window. `overflow` decides about a value that finds the place full:
    "drop_newest", "drop_oldest", "latest" (a value not yet published is
    dropped and told to on_drop(value, dropped so far), on the producing
    thread: each value is either acknowledged or dropped, never both),
    "error" (the values waiting are published, then the stream fails with
    the library's overflow error), or "block" (the producing thread
    waits)."""
    where = "nats.js_publish"
    source = _signal_arg(signal, where)
    conn = _connection_arg(connection, where)
    name = _text_arg(subject, where, "subject")
    prefix = _text_arg(id_prefix, where, "id_prefix", optional=True)
    size = _count_arg(window, where, "window")
    seconds = _seconds_arg(ack_wait, where, "ack_wait")
    tries = _count_arg(attempts, where, "attempts")
    if tries > 0xFFFFFFFF:
        raise ValueError(f"signalkit: {where}: attempts {tries} is above 2^32 - 1")
    if capacity is None:
        if overflow is not None or on_drop is not None or queue is not None:
            raise TypeError(f"signalkit: {where}: overflow, on_drop and queue need a capacity")
        made: Signal[int] = _make(conn, where, _js_publish_call, source, name, prefix, size, seconds, tries,
                                  blocks=True)
        return made
    room, policy = _bounded_policy(where, capacity, overflow, on_drop)
    place = _queue_arg(queue, where) if queue is not None else None
    bounded: Signal[int] = _make(conn, where, _js_publish_bounded_call, source, name, prefix, size, seconds, tries,
                                 place, room, policy, on_drop, blocks=True, queue=place)
    return bounded


def _js_publish_call(out: Any, address: int, source: int, name: bytes, prefix: Optional[bytes], window: int,
                     seconds: float, tries: int) -> int:
    # sk_nats_js_publish takes the signal before the connection.
    status: int = _sk_nats_js_publish(out, source, address, None, name, prefix, window, seconds, tries)
    return status


def _js_publish_bounded_call(out: Any, address: int, source: int, name: bytes, prefix: Optional[bytes], window: int,
                             seconds: float, tries: int, place: Optional[int], room: int, policy: int,
                             on_drop: Optional[Callable[[Any, int], object]]) -> int:
    # The drop callback's context is retained, and the block policy
    # counted, in the call itself: the bridge releases both once, also when
    # it refuses.
    status: int = _sk_nats_js_publish_bounded(out, source, address, None, name, prefix, window, seconds, tries, place,
                                              room, policy, *_drop_arguments(on_drop, policy))
    return status

