//! NATS subjects and JetStream as [`rsignalkit`] signals: a thin, safe
//! layer over libsignalkit-nats (`signalkit_nats.h`, SignalKit's
//! docs/nats.md) and the NATS C client, libnats.
//!
//! A [`Connection`] is a libnats connection; its methods make signals:
//!
//! - [`Connection::subject`] and [`Connection::subject_bounded`]: a
//!   subject as a signal (each start subscribes, a dispose unsubscribes);
//! - [`Connection::publish`] and [`Connection::publish_encoded`]: a signal
//!   whose values (or what an encoder makes of them) are published;
//! - [`Connection::request`]: a request as a signal of one reply;
//! - [`Connection::serve`] and [`Connection::serve_with`]: a service, as a
//!   signal of the requests it answered, each reply the first value of the
//!   signal a handler makes;
//! - [`Connection::js_consume`] and [`Connection::js_consume_explicit`]: a
//!   JetStream pull consumer that fetches only what the observer has room
//!   for, acknowledging each message after `next` or when the observer
//!   says ([`JsMessage::ack`]);
//! - [`Connection::js_publish`]: a signal published to JetStream, each
//!   acknowledgement awaited; [`Connection::js_publish_bounded`]: the same
//!   with a bounded place and an overflow policy for the values that lag.
//!
//! What a message becomes is the signal's type: a [`Message`] (payload,
//! subject, reply subject, headers) or its payload alone (`Vec<u8>`), the
//! [`Shape`]s.
//!
//! Errors. A call that cannot make its signal returns an [`Error`] whose
//! message is the bridge's (`sk_nats_last_error_message`). What the NATS
//! client refuses once a signal runs (a bad subject, a closed connection,
//! a slow consumer, a timeout) ends that subscription with a string error
//! value in the bridge's shape,
//! `"<function>: <what happened> (nats: <the client's words>)"`.
//!
//! Lifetimes. The C bridge borrows the connection; this crate keeps it
//! alive for it: every signal made here, every subscription of one and
//! every [`JsMessage`] holds a reference to the connection, which is
//! destroyed when the last of them and of the [`Connection`] clones is
//! gone. [`Connection::close`] closes it at once (what runs then fails
//! with the client's "Connection Closed").
//!
//! ```no_run
//! use rsignalkit_nats::{Connection, Message};
//!
//! let connection = Connection::connect("nats://127.0.0.1:4222")?;
//! let readings = connection.subject::<Message>("readings.>", None)?;
//! let _subscription = readings.subscribe(|m| println!("{} bytes on {}", m.payload.len(), m.subject))?;
//! # Ok::<(), rsignalkit::Error>(())
//! ```
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod sys;

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::Arc;
use std::time::Duration;
use std::{fmt, mem};

use rsignalkit::sys as sk;
use rsignalkit::{Error, Overflow, Queue, RawValue, Signal, Value, ValueRef};

// --- Errors ---------------------------------------------------------------

/// The error of a bridge call that returned `status`: its message is the
/// thread's `sk_nats_last_error_message`.
fn bridge_error(status: i32) -> Error {
    // Safety: a thread-local NUL-terminated string of the bridge, copied at once.
    let message = unsafe { CStr::from_ptr(sys::sk_nats_last_error_message()) }.to_string_lossy().into_owned();
    Error::new(status, message)
}

/// A libnats status in the bridge's shape: "(nats: TEXT[: DETAIL])".
fn nats_words(status: sys::natsStatus) -> String {
    // Safety: static text of libnats for any status; the last error is the
    // thread's, copied at once.
    let text = unsafe { CStr::from_ptr(sys::natsStatus_GetText(status)) }.to_string_lossy().into_owned();
    let detail = unsafe {
        let last = sys::nats_GetLastError(ptr::null_mut());
        if last.is_null() {
            String::new()
        } else {
            CStr::from_ptr(last).to_string_lossy().into_owned()
        }
    };
    if detail.is_empty() || detail == text {
        format!("(nats: {})", text)
    } else {
        format!("(nats: {}: {})", text, detail)
    }
}

/// `text` as a C string, or an error naming `what` and the function.
fn c_string(function: &str, what: &str, text: &str) -> Result<CString, Error> {
    CString::new(text).map_err(|_| {
        Error::new(sk::SK_ERR_INVALID_ARGUMENT, format!("{}: {} {:?} holds a NUL byte", function, what, text))
    })
}

fn optional_c_string(function: &str, what: &str, text: Option<&str>) -> Result<Option<CString>, Error> {
    text.map(|text| c_string(function, what, text)).transpose()
}

fn c_ptr(text: &Option<CString>) -> *const c_char {
    text.as_ref().map_or(ptr::null(), |t| t.as_ptr())
}

/// Seconds of `duration` for the bridge, which refuses what is not > 0.
fn seconds(duration: Duration) -> f64 {
    duration.as_secs_f64()
}

// --- Values -----------------------------------------------------------------

/// What a NATS message becomes as a value: a [`Message`] (the bridge's
/// `SK_NATS_MESSAGE`) or its payload alone, `Vec<u8>` (`SK_NATS_PAYLOAD`,
/// one allocation per message instead of three or more). Sealed.
pub trait Shape: Value + private::Sealed {
    /// The bridge's `sk_nats_shape`.
    const SHAPE: sys::sk_nats_shape;
}

mod private {
    /// Keeps [`Shape`](super::Shape) to this crate's types.
    pub trait Sealed {}
    impl Sealed for super::Message {}
    impl Sealed for Vec<u8> {}
}

impl Shape for Message {
    const SHAPE: sys::sk_nats_shape = sys::SK_NATS_MESSAGE;
}

impl Shape for Vec<u8> {
    const SHAPE: sys::sk_nats_shape = sys::SK_NATS_PAYLOAD;
}

/// A NATS message, copied out of the bridge's value (an array of the
/// payload, the subject, the reply subject and the headers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Message {
    /// The payload (possibly empty).
    pub payload: Vec<u8>,
    /// The subject it was published to.
    pub subject: String,
    /// Its reply subject, if it has one (for JetStream, its metadata).
    pub reply: Option<String>,
    /// Its headers, `(key, value)`, one pair per value, in the client's
    /// order of keys; empty when it has none.
    pub headers: Vec<(String, String)>,
}

impl Value for Message {
    /// The bridge's array of 4 (headers nil when there are none).
    fn to_value(&self) -> Result<RawValue, Error> {
        let headers = if self.headers.is_empty() { RawValue::nil() } else { self.headers.to_value()? };
        RawValue::array(&[RawValue::bytes(&self.payload)?, RawValue::string(&self.subject)?, self.reply.to_value()?, headers])
    }

    /// Reads the bridge's array of 4 (or 5, with the acknowledgement
    /// handle of `SK_NATS_ACK_EXPLICIT`, which it leaves out).
    fn from_value(value: ValueRef<'_>) -> Result<Message, Error> {
        let count = value.array_len()?;
        if count != 4 && count != 5 {
            return Err(Error::new(
                sk::SK_ERR_WRONG_KIND,
                format!("rsignalkit-nats: expected a NATS message (an array of 4 or 5), received an array of {}", count),
            ));
        }
        Ok(Message {
            payload: value.item(sys::SK_NATS_ITEM_PAYLOAD)?.as_bytes()?.to_vec(),
            subject: value.item(sys::SK_NATS_ITEM_SUBJECT)?.as_str()?.to_owned(),
            reply: Option::<String>::from_value(value.item(sys::SK_NATS_ITEM_REPLY)?)?,
            headers: Option::<Vec<(String, String)>>::from_value(value.item(sys::SK_NATS_ITEM_HEADERS)?)?
                .unwrap_or_default(),
        })
    }
}

/// What [`JsMessage::ack`] tells the server (JetStream's acknowledgement
/// protocol, `sk_nats_ack_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// Done with it (`+ACK`): the server will not deliver it again.
    Ack,
    /// Not processed (`-NAK`): the server delivers it again soon.
    Nak,
    /// Never deliver it again, not processed (`+TERM`).
    Term,
    /// Still working on it (`+WPI`): the server restarts its AckWait; the
    /// only kind that may follow another.
    InProgress,
}

impl AckKind {
    fn raw(self) -> sys::sk_nats_ack_kind {
        match self {
            AckKind::Ack => sys::SK_NATS_ACK,
            AckKind::Nak => sys::SK_NATS_NAK,
            AckKind::Term => sys::SK_NATS_TERM,
            AckKind::InProgress => sys::SK_NATS_IN_PROGRESS,
        }
    }
}

/// A message of [`Connection::js_consume_explicit`]: the [`Message`] and
/// its acknowledgement handle, which keeps the connection alive. Cloning
/// shares both. Until a kind other than [`AckKind::InProgress`] is sent,
/// or its last clone is dropped, the message counts against the
/// consumer's capacity.
#[derive(Clone)]
pub struct JsMessage(Arc<JsInner>);

struct JsInner {
    message: Message,
    /// The bridge's value (the array of 5), for sk_nats_ack.
    handle: RawValue,
    _connection: Arc<Inner>,
}

impl JsMessage {
    /// The message.
    pub fn message(&self) -> &Message {
        &self.0.message
    }

    /// Acknowledges it (`sk_nats_ack`). Once acknowledged with a kind
    /// other than [`AckKind::InProgress`], later calls do nothing and
    /// succeed. The error, when the client refuses the publish (a closed
    /// connection), says why in the client's words.
    pub fn ack(&self, kind: AckKind) -> Result<(), Error> {
        // Safety: a value of the bridge's, alive as long as self.
        let status = unsafe { sys::sk_nats_ack(self.0.handle.as_ptr(), kind.raw()) };
        if status == sk::SK_OK {
            Ok(())
        } else {
            Err(bridge_error(status))
        }
    }
}

impl fmt::Debug for JsMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("JsMessage").field(&self.0.message).finish()
    }
}

impl Value for JsMessage {
    /// A pointer value carrying the message (rsignalkit's `Arc<T>`).
    fn to_value(&self) -> Result<RawValue, Error> {
        self.0.to_value()
    }
    fn from_value(value: ValueRef<'_>) -> Result<JsMessage, Error> {
        Arc::<JsInner>::from_value(value).map(JsMessage)
    }
}

// --- The connection ---------------------------------------------------------

/// The libnats connection, destroyed with its last reference.
struct Inner {
    raw: NonNull<sys::natsConnection>,
}

// Safety: libnats connections are thread-safe.
unsafe impl Send for Inner {}
unsafe impl Sync for Inner {}

impl Drop for Inner {
    fn drop(&mut self) {
        // Safety: the last reference; nothing made here uses it any more.
        unsafe { sys::natsConnection_Destroy(self.raw.as_ptr()) }
    }
}

/// A connection to a NATS server (a libnats `natsConnection`). Cloning
/// shares it; it is destroyed (`natsConnection_Destroy`) once the last
/// clone, and every signal, subscription and [`JsMessage`] made from it,
/// are gone. Thread-safety: `Send` and `Sync`, as libnats connections are.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Connection({:p})", self.inner.raw)
    }
}

/// `urls` (comma-separated) with each URL's user information hidden, for
/// messages: a password as `user:***`, a token as `***`.
fn redacted(urls: &str) -> String {
    let shown: Vec<String> = urls
        .split(',')
        .map(|url| {
            let (scheme, rest) = match url.find("://") {
                Some(at) => url.split_at(at + 3),
                None => ("", url),
            };
            let end = rest.find('/').unwrap_or(rest.len());
            match rest[..end].rfind('@') {
                Some(at) => {
                    let user = match rest[..at].find(':') {
                        Some(colon) => format!("{}:***", &rest[..colon]),
                        None => "***".to_owned(),
                    };
                    format!("{}{}{}", scheme, user, &rest[at..])
                }
                None => url.to_owned(),
            }
        })
        .collect();
    shown.join(",")
}

impl Connection {
    /// Connects to `url` (or several, comma-separated) with libnats's
    /// default options (`natsConnection_ConnectTo`: reconnection on, 60
    /// attempts 2 s apart). The error (status `SK_ERR_RESOURCE`) says
    /// why in the client's words, quoting the URL with its password or
    /// token hidden (`nats://alice:***@host`); for options of one's own (TLS,
    /// credentials, reconnection), connect with libnats and adopt the
    /// connection with [`Connection::from_raw`].
    pub fn connect(url: &str) -> Result<Connection, Error> {
        let urls = c_string("Connection::connect", "the URL", url)?;
        let mut raw = ptr::null_mut();
        // Safety: valid out and URL.
        let status = unsafe { sys::natsConnection_ConnectTo(&mut raw, urls.as_ptr()) };
        if status != sys::NATS_OK {
            return Err(Error::new(
                sk::SK_ERR_RESOURCE,
                format!("Connection::connect: cannot connect to '{}' {}", redacted(url), nats_words(status)),
            ));
        }
        // Safety: NATS_OK gives a new connection.
        Ok(unsafe { Connection::from_raw(raw) })
    }

    /// Adopts a connection made with libnats (its options are the caller's).
    ///
    /// # Safety
    /// `raw` must be a live `natsConnection` that the caller hands over:
    /// nothing else destroys it.
    pub unsafe fn from_raw(raw: *mut sys::natsConnection) -> Connection {
        Connection { inner: Arc::new(Inner { raw: NonNull::new(raw).expect("rsignalkit-nats: a NULL connection") }) }
    }

    /// The libnats connection, borrowed (valid as long as `self`).
    pub fn as_raw(&self) -> *mut sys::natsConnection {
        self.inner.raw.as_ptr()
    }

    /// Closes the connection (`natsConnection_Close`) now, whoever else
    /// holds it: its subscriptions end with the bridge's error ("... closed
    /// by the client (nats: Connection Closed)"), and each later start
    /// fails with "Connection Closed".
    pub fn close(&self) {
        // Safety: a live connection.
        unsafe { sys::natsConnection_Close(self.as_raw()) }
    }

    /// A round trip to the server (`natsConnection_FlushTimeout`): every
    /// message and subscription sent before it has reached the server.
    pub fn flush(&self, timeout: Duration) -> Result<(), Error> {
        let millis = i64::try_from(timeout.as_millis()).unwrap_or(i64::MAX).max(1);
        // Safety: a live connection.
        let status = unsafe { sys::natsConnection_FlushTimeout(self.as_raw(), millis) };
        if status == sys::NATS_OK {
            Ok(())
        } else {
            Err(Error::new(sk::SK_ERR_RESOURCE, format!("Connection::flush: {}", nats_words(status))))
        }
    }

    /// Takes the bridge's new signal (`status`, `out`) and makes it hold
    /// this connection for as long as it or a subscription of it lives.
    fn adopt<T>(&self, status: i32, out: *mut sk::sk_signal) -> Result<Signal<T>, Error> {
        if status != sk::SK_OK {
            return Err(bridge_error(status));
        }
        keep_alive(out, &self.inner)
    }

    /// A subject as a signal (`sk_nats_subject`): each start subscribes to
    /// `subject` (in `queue_group`, when given: each message then reaches
    /// one subscriber of the group), each message becomes a `T`, in the
    /// order the client delivers them, on the client's delivery thread; a
    /// dispose unsubscribes. It never completes; it fails with the bridge's
    /// error when the client refuses the subscription (`"sk_nats_subject:
    /// cannot subscribe to 'a b' (nats: Invalid Subject)"`), drops messages
    /// of a slow consumer, or closes the subscription.
    pub fn subject<T: Shape>(&self, subject: &str, queue_group: Option<&str>) -> Result<Signal<T>, Error> {
        let name = c_string("sk_nats_subject", "the subject", subject)?;
        let group = optional_c_string("sk_nats_subject", "the queue group", queue_group)?;
        let mut out = ptr::null_mut();
        // Safety: valid arguments, copied by the bridge.
        let status = unsafe { sys::sk_nats_subject(&mut out, self.as_raw(), name.as_ptr(), c_ptr(&group), T::SHAPE) };
        self.adopt(status, out)
    }

    /// [`subject`](Connection::subject) with at most `capacity` messages
    /// waiting for the observer on `queue` (None: a serial queue of the
    /// signal's own), `overflow` deciding about the next
    /// (`sk_nats_subject_bounded`). `on_drop` is called with each message
    /// dropped (borrowed) and the subscription's count of drops so far, on
    /// the client's delivery thread; a panic in it is caught and printed.
    pub fn subject_bounded<T, D>(&self, subject: &str, queue_group: Option<&str>, queue: Option<&Queue>,
                                 capacity: usize, overflow: Overflow, on_drop: D) -> Result<Signal<T>, Error>
    where
        T: Shape,
        D: Fn(ValueRef<'_>, u64) + Send + Sync + 'static,
    {
        let name = c_string("sk_nats_subject_bounded", "the subject", subject)?;
        let group = optional_c_string("sk_nats_subject_bounded", "the queue group", queue_group)?;
        let ctx = Box::into_raw(Box::new(on_drop)) as *mut c_void;
        let mut out = ptr::null_mut();
        // Safety: valid arguments; ctx is released by release_box, also
        // when the call fails.
        let status = unsafe {
            sys::sk_nats_subject_bounded(&mut out, self.as_raw(), name.as_ptr(), c_ptr(&group), T::SHAPE,
                                         queue.map_or(ptr::null_mut(), Queue::as_raw), capacity, overflow_raw(overflow),
                                         Some(drop_trampoline::<D>), ctx, Some(release_box::<D>))
        };
        self.adopt(status, out)
    }

    /// A signal that publishes each value of `signal` (a string or bytes)
    /// to `subject`, passes it on, and completes once the connection is
    /// flushed (within `flush_timeout`) after `signal`'s completion
    /// (`sk_nats_publish`). A value of another kind, a publish the client
    /// refuses, or a flush that fails ends it with the bridge's error.
    pub fn publish<T: Value>(&self, signal: &Signal<T>, subject: &str, flush_timeout: Duration) -> Result<Signal<T>, Error> {
        let name = c_string("sk_nats_publish", "the subject", subject)?;
        let mut out = ptr::null_mut();
        // Safety: a live signal (retained by the bridge), a copied subject.
        let status = unsafe {
            sys::sk_nats_publish(&mut out, signal.as_raw(), self.as_raw(), name.as_ptr(), seconds(flush_timeout))
        };
        self.adopt(status, out)
    }

    /// [`publish`](Connection::publish) with an encoder
    /// (`sk_nats_publish_encoded`): each value of `signal` is passed to
    /// `encode`, whose result, a string or bytes (`String`, `Vec<u8>`), is
    /// published; the value itself is passed on. A panic in `encode`, or a
    /// value it cannot take or give, ends the stream with the error
    /// `"panicked: MESSAGE"` (the conversion's message), as in `map`:
    /// nothing is published for that value and `signal`'s subscription is
    /// disposed (the panic is printed by the panic hook in place). A result
    /// of another kind ends it with the bridge's error (`"... the encoder
    /// gave a value of kind int64 for 'x': give a string or bytes"`).
    /// `encode` runs on the thread that delivers each value.
    pub fn publish_encoded<T, E, F>(&self, signal: &Signal<T>, subject: &str, flush_timeout: Duration, encode: F)
                                    -> Result<Signal<T>, Error>
    where
        T: Value,
        E: Value,
        F: Fn(&T) -> E + Send + Sync + 'static,
    {
        let name = c_string("sk_nats_publish_encoded", "the subject", subject)?;
        let ctx = Box::into_raw(Box::new(encode)) as *mut c_void;
        let mut out = ptr::null_mut();
        // Safety: a live signal (retained by the bridge), a copied subject;
        // ctx is released by release_box, also when the call fails.
        let status = unsafe {
            sys::sk_nats_publish_encoded(&mut out, signal.as_raw(), self.as_raw(), name.as_ptr(), seconds(flush_timeout),
                                         Some(encode_trampoline::<T, E, F>), ctx, Some(release_box::<F>))
        };
        self.adopt(status, out)
    }

    /// A request as a signal (`sk_nats_request`): each start publishes
    /// `payload` to `subject` with a new inbox as its reply subject, then
    /// emits the first reply and completes, or fails after `timeout`
    /// (`"sk_nats_request: no reply from 'x' within 0.25 s (nats:
    /// Timeout)"`), or when no one listens (`"... no responders ..."`).
    pub fn request<T: Shape>(&self, subject: &str, payload: &[u8], timeout: Duration) -> Result<Signal<T>, Error> {
        let name = c_string("sk_nats_request", "the subject", subject)?;
        let payload = RawValue::bytes(payload)?;
        let mut out = ptr::null_mut();
        // Safety: valid arguments, copied by the bridge.
        let status = unsafe {
            sys::sk_nats_request(&mut out, self.as_raw(), name.as_ptr(), payload.as_ptr(), seconds(timeout), T::SHAPE)
        };
        self.adopt(status, out)
    }

    /// A service as a signal of the requests it answered
    /// (`sk_nats_serve`): each start subscribes to `subject` (in
    /// `queue_group`, when given: several services then share the
    /// requests), and `handler` makes a signal for each request; the first
    /// value of that signal, a string or bytes (`String`, `Vec<u8>`), is
    /// published to the request's reply subject. At most `max_concurrent`
    /// of those signals run at once; the requests beyond wait, at most
    /// `capacity` of them, `overflow` deciding about the next
    /// ([`Overflow::Block`]: the client's delivery thread waits; the drop
    /// policies: dropped without a reply, see
    /// [`serve_with`](Connection::serve_with); [`Overflow::Error`]: the
    /// service fails).
    ///
    /// A handler's signal that fails, completes without a value or gives a
    /// value of another kind is answered with the NATS service error
    /// headers, `Nats-Service-Error` (its string error, or the bridge's
    /// words) and `Nats-Service-Error-Code` `500`, and the service goes on.
    /// A panic in `handler` itself (or a request it cannot read) ends the
    /// service with the error `"panicked: MESSAGE"`, as a panic in
    /// `merge_map`'s function does (the panic is printed by the panic hook
    /// in place). The service's values are the requests, each emitted once
    /// its reply was published; a request without a reply subject is
    /// handled and emitted, and nothing is published for it. It never
    /// completes; it fails with the bridge's error when the client refuses
    /// the subscription or a reply. `handler` runs on the client's delivery
    /// thread, or on the thread where an earlier request's signal ended.
    pub fn serve<R, F>(&self, subject: &str, queue_group: Option<&str>, max_concurrent: usize, capacity: usize,
                       overflow: Overflow, handler: F) -> Result<Signal<Message>, Error>
    where
        R: Value,
        F: Fn(Message) -> Signal<R> + Send + Sync + 'static,
    {
        self.serving::<R, F, fn(&Message, u64)>(subject, queue_group, max_concurrent, capacity, overflow, handler, None)
    }

    /// [`serve`](Connection::serve) that calls `on_drop` with each request
    /// that the policy dropped (never handled: its requester gets no reply
    /// unless `on_drop` answers it) and the subscription's count of drops
    /// so far, on the client's delivery thread; a panic in it is caught and
    /// printed.
    #[allow(clippy::too_many_arguments)]
    pub fn serve_with<R, F, D>(&self, subject: &str, queue_group: Option<&str>, max_concurrent: usize,
                               capacity: usize, overflow: Overflow, handler: F, on_drop: D)
                               -> Result<Signal<Message>, Error>
    where
        R: Value,
        F: Fn(Message) -> Signal<R> + Send + Sync + 'static,
        D: Fn(&Message, u64) + Send + Sync + 'static,
    {
        self.serving::<R, F, D>(subject, queue_group, max_concurrent, capacity, overflow, handler, Some(on_drop))
    }

    #[allow(clippy::too_many_arguments)]
    fn serving<R, F, D>(&self, subject: &str, queue_group: Option<&str>, max_concurrent: usize, capacity: usize,
                        overflow: Overflow, handler: F, on_drop: Option<D>) -> Result<Signal<Message>, Error>
    where
        R: Value,
        F: Fn(Message) -> Signal<R> + Send + Sync + 'static,
        D: Fn(&Message, u64) + Send + Sync + 'static,
    {
        let name = c_string("sk_nats_serve", "the subject", subject)?;
        let group = optional_c_string("sk_nats_serve", "the queue group", queue_group)?;
        let drops = on_drop.is_some();
        let ctx = Box::into_raw(Box::new(Service { handler, on_drop })) as *mut c_void;
        let mut out = ptr::null_mut();
        // Safety: valid arguments; ctx is released by release_box, also
        // when the call fails.
        let status = unsafe {
            sys::sk_nats_serve(&mut out, self.as_raw(), name.as_ptr(), c_ptr(&group), max_concurrent, capacity,
                               overflow_raw(overflow), Some(serve_handler::<R, F, D>),
                               if drops { Some(serve_drop::<F, D>) } else { None }, ctx,
                               Some(release_box::<Service<F, D>>))
        };
        self.adopt(status, out)
    }

    /// A JetStream pull consumer as a signal (`sk_nats_js_consume`,
    /// `SK_NATS_ACK_AFTER_NEXT`): each start binds to the durable consumer
    /// `durable` of `stream` (None: the stream of `subject`), which libnats
    /// creates when it does not exist, and fetches only as many messages
    /// as fit in `capacity` (keep it at most the consumer's MaxAckPending),
    /// delivered on `queue` (None: a serial queue of the signal's own).
    /// Each message is acknowledged once its `next` has returned; one not
    /// acknowledged is delivered again after the consumer's AckWait (at
    /// least once). It never completes; it fails with the bridge's error
    /// when the bind or a fetch fails, or the connection is closed.
    pub fn js_consume<T: Shape>(&self, stream: Option<&str>, durable: &str, subject: &str, queue: Option<&Queue>,
                                capacity: usize) -> Result<Signal<T>, Error> {
        self.consume(stream, durable, subject, queue, capacity, T::SHAPE, sys::SK_NATS_ACK_AFTER_NEXT)
    }

    /// [`js_consume`](Connection::js_consume) where the observer
    /// acknowledges ([`JsMessage::ack`], `SK_NATS_ACK_EXPLICIT`): a message
    /// counts against `capacity` until it is acknowledged (with a kind
    /// other than [`AckKind::InProgress`]) or its last clone is dropped.
    pub fn js_consume_explicit(&self, stream: Option<&str>, durable: &str, subject: &str, queue: Option<&Queue>,
                               capacity: usize) -> Result<Signal<JsMessage>, Error> {
        let raw: Signal<RawValue> =
            self.consume(stream, durable, subject, queue, capacity, sys::SK_NATS_MESSAGE, sys::SK_NATS_ACK_EXPLICIT)?;
        let connection = Arc::clone(&self.inner);
        Ok(raw.map(move |handle: RawValue| {
            // The bridge's own value: it always reads (a panic would end
            // the stream with its message).
            let message = Message::from_value(handle.as_ref()).expect("rsignalkit-nats: a message of the bridge");
            JsMessage(Arc::new(JsInner { message, handle, _connection: Arc::clone(&connection) }))
        }))
    }

    #[allow(clippy::too_many_arguments)]
    fn consume<T>(&self, stream: Option<&str>, durable: &str, subject: &str, queue: Option<&Queue>, capacity: usize,
                  shape: sys::sk_nats_shape, ack: sys::sk_nats_ack_mode) -> Result<Signal<T>, Error> {
        let stream = optional_c_string("sk_nats_js_consume", "the stream", stream)?;
        let durable = c_string("sk_nats_js_consume", "the durable consumer", durable)?;
        let name = c_string("sk_nats_js_consume", "the subject", subject)?;
        let mut out = ptr::null_mut();
        // Safety: valid arguments, copied by the bridge; NULL options.
        let status = unsafe {
            sys::sk_nats_js_consume(&mut out, self.as_raw(), ptr::null(), c_ptr(&stream), durable.as_ptr(),
                                    name.as_ptr(), shape, ack, queue.map_or(ptr::null_mut(), Queue::as_raw), capacity)
        };
        self.adopt(status, out)
    }

    /// A signal that publishes each value of `signal` (a string or bytes)
    /// to JetStream on `subject` and waits for the server's
    /// acknowledgement of each (`sk_nats_js_publish`): at most `window`
    /// awaiting at once, each retried with the same message ID
    /// (`<id_prefix>.<n>`; None: a new unique prefix per start) after
    /// `ack_wait`, `attempts` times in all. It emits the stream sequence of
    /// each acknowledgement and completes once `signal` has and every
    /// publish is acknowledged; it fails with the bridge's error otherwise.
    pub fn js_publish<T: Value>(&self, signal: &Signal<T>, subject: &str, id_prefix: Option<&str>, window: usize,
                                ack_wait: Duration, attempts: u32) -> Result<Signal<i64>, Error> {
        let name = c_string("sk_nats_js_publish", "the subject", subject)?;
        let prefix = optional_c_string("sk_nats_js_publish", "the ID prefix", id_prefix)?;
        let mut out = ptr::null_mut();
        // Safety: a live signal (retained by the bridge), copied strings,
        // NULL options.
        let status = unsafe {
            sys::sk_nats_js_publish(&mut out, signal.as_raw(), self.as_raw(), ptr::null(), name.as_ptr(), c_ptr(&prefix),
                                    window, seconds(ack_wait), attempts)
        };
        self.adopt(status, out)
    }

    /// [`js_publish`](Connection::js_publish) for a producer that must not
    /// wait for the server (`sk_nats_js_publish_bounded`): the thread
    /// delivering `signal`'s values puts each into a bounded place of at
    /// most `capacity` and returns; `queue` (None: a serial queue of the
    /// signal's own) publishes them and waits for room in the window.
    /// `overflow` decides about a value that finds the place full: the drop
    /// policies drop a value not yet published and call `on_drop` with it
    /// (borrowed) and the count of drops so far, on the producing thread
    /// (each value is either acknowledged or dropped, never both; a panic
    /// in `on_drop` is caught and printed); [`Overflow::Error`] publishes
    /// the values waiting, then fails with the library's overflow error;
    /// [`Overflow::Block`] makes the producer wait.
    #[allow(clippy::too_many_arguments)]
    pub fn js_publish_bounded<T, D>(&self, signal: &Signal<T>, subject: &str, id_prefix: Option<&str>, window: usize,
                                    ack_wait: Duration, attempts: u32, queue: Option<&Queue>, capacity: usize,
                                    overflow: Overflow, on_drop: D) -> Result<Signal<i64>, Error>
    where
        T: Value,
        D: Fn(ValueRef<'_>, u64) + Send + Sync + 'static,
    {
        let name = c_string("sk_nats_js_publish_bounded", "the subject", subject)?;
        let prefix = optional_c_string("sk_nats_js_publish_bounded", "the ID prefix", id_prefix)?;
        let ctx = Box::into_raw(Box::new(on_drop)) as *mut c_void;
        let mut out = ptr::null_mut();
        // Safety: a live signal (retained by the bridge), copied strings,
        // NULL options; ctx is released by release_box, also when the call
        // fails.
        let status = unsafe {
            sys::sk_nats_js_publish_bounded(&mut out, signal.as_raw(), self.as_raw(), ptr::null(), name.as_ptr(),
                                            c_ptr(&prefix), window, seconds(ack_wait), attempts,
                                            queue.map_or(ptr::null_mut(), Queue::as_raw), capacity,
                                            overflow_raw(overflow), Some(drop_trampoline::<D>), ctx,
                                            Some(release_box::<D>))
        };
        self.adopt(status, out)
    }
}

fn overflow_raw(overflow: Overflow) -> sk::sk_overflow {
    match overflow {
        Overflow::DropNewest => sk::SK_OVERFLOW_DROP_NEWEST,
        Overflow::DropOldest => sk::SK_OVERFLOW_DROP_OLDEST,
        Overflow::Latest => sk::SK_OVERFLOW_LATEST,
        Overflow::Error => sk::SK_OVERFLOW_ERROR,
        Overflow::Block => sk::SK_OVERFLOW_BLOCK,
    }
}

/// `on_drop` of subject_bounded and js_publish_bounded: never unwinds into C.
unsafe extern "C" fn drop_trampoline<D: Fn(ValueRef<'_>, u64)>(ctx: *mut c_void, value: *const sk::sk_value, dropped: u64) {
    let f = &*(ctx as *const D);
    // Safety: the value is valid for the call.
    let value = ValueRef::from_ptr(value);
    if catch_unwind(AssertUnwindSafe(|| f(value, dropped))).is_err() {
        eprintln!("rsignalkit-nats: an on_drop closure panicked (ignored)");
    }
}

/// The context of [`Connection::serve`]: the handler and the drop callback,
/// which `sk_nats_serve` gives one `ctx`.
struct Service<F, D> {
    handler: F,
    on_drop: Option<D>,
}

/// The text of a caught panic, as rsignalkit words it: "panicked: MESSAGE".
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with a payload that is not a string".to_owned()
    };
    format!("panicked: {}", text)
}

/// The handler of serve (`sk_signal_fn`): its signal (+1, handed to the
/// bridge), or, after a panic or a request it cannot read, a failure of the
/// call (`sk_callback_fail`), which ends the service. Never unwinds into C.
unsafe extern "C" fn serve_handler<R: Value, F: Fn(Message) -> Signal<R>, D>(ctx: *mut c_void,
                                                                             request: *const sk::sk_value)
                                                                             -> *mut sk::sk_signal {
    let service = &*(ctx as *const Service<F, D>);
    // Safety: the value is valid for the call.
    let request = ValueRef::from_ptr(request);
    let made = catch_unwind(AssertUnwindSafe(|| Message::from_value(request).map(|m| (service.handler)(m))));
    match made {
        Ok(Ok(signal)) => return signal.into_raw(),
        Ok(Err(error)) => fail_call(error.message()),
        Err(payload) => fail_call(&panic_text(&*payload)),
    }
    ptr::null_mut()
}

/// Fails the operator callback running on this thread (`sk_callback_fail`)
/// with the string `message`.
fn fail_call(message: &str) {
    if let Ok(error) = RawValue::string(message) {
        // Safety: a valid value, borrowed for the call (the library copies it).
        unsafe { sk::sk_callback_fail(error.as_ptr()) };
    }
}

/// The encoder of publish_encoded (`sk_map_fn`): writes the encoding into
/// `out`, or, after a panic or a value it cannot take or give, fails the
/// call (`sk_callback_fail`), which ends the stream. Never unwinds into C.
unsafe extern "C" fn encode_trampoline<T: Value, E: Value, F: Fn(&T) -> E>(ctx: *mut c_void, value: *const sk::sk_value,
                                                                          out: *mut sk::sk_value) {
    let encode = &*(ctx as *const F);
    // Safety: the value is valid for the call.
    let value = ValueRef::from_ptr(value);
    let made = catch_unwind(AssertUnwindSafe(|| T::from_value(value).and_then(|v| encode(&v).to_value())));
    match made {
        Ok(Ok(encoded)) => ptr::write(out, encoded.into_raw()),
        Ok(Err(error)) => fail_call(error.message()),
        Err(payload) => fail_call(&panic_text(&*payload)),
    }
}

/// `on_drop` of serve_with: never unwinds into C.
unsafe extern "C" fn serve_drop<F, D: Fn(&Message, u64)>(ctx: *mut c_void, request: *const sk::sk_value, dropped: u64) {
    let service = &*(ctx as *const Service<F, D>);
    // Safety: the value is valid for the call.
    let request = ValueRef::from_ptr(request);
    if let Some(on_drop) = &service.on_drop {
        let call = || Message::from_value(request).map(|m| on_drop(&m, dropped));
        match catch_unwind(AssertUnwindSafe(call)) {
            Ok(Ok(())) => {}
            Ok(Err(error)) => eprintln!("rsignalkit-nats: a request dropped by serve_with could not be read: {}", error),
            Err(_) => eprintln!("rsignalkit-nats: the on_drop closure of serve_with panicked (ignored)"),
        }
    }
}

unsafe extern "C" fn release_box<D>(ctx: *mut c_void) {
    drop(Box::from_raw(ctx as *mut D));
}

// --- Keeping the connection alive -------------------------------------------

/// The context of a signal made by [`keep_alive`]: the bridge's signal and
/// the connection it borrows.
struct Keep {
    signal: NonNull<sk::sk_signal>,
    connection: Arc<Inner>,
}

/// The observer of one start of the bridge's signal: forwards each event
/// to the outer subscriber and holds the connection until its release,
/// after the subscription's last callback.
struct Forward {
    subscriber: *mut sk::sk_subscriber,
    _connection: Arc<Inner>,
}

/// A signal over the bridge's `raw` (+1, taken) whose context and every
/// subscription hold `connection`: each start starts `raw` with an observer
/// that forwards its events (one call more per value, no conversion).
fn keep_alive<T>(raw: *mut sk::sk_signal, connection: &Arc<Inner>) -> Result<Signal<T>, Error> {
    let signal = NonNull::new(raw).expect("rsignalkit-nats: the bridge gave SK_OK and no signal");
    let ctx = Box::into_raw(Box::new(Keep { signal, connection: Arc::clone(connection) })) as *mut c_void;
    let mut out = ptr::null_mut();
    // Safety: a live upstream; ctx is released by keep_release, also when
    // the call fails.
    let status = unsafe { sk::sk_signal_create_over(&mut out, raw, Some(keep_generate), ctx, Some(keep_release)) };
    if status != sk::SK_OK {
        // Safety: the library's message of the failing call, copied at once.
        let message = unsafe { CStr::from_ptr(sk::sk_last_error_message()) }.to_string_lossy().into_owned();
        return Err(Error::new(status, message));
    }
    // Safety: SK_OK: a new signal reference.
    Ok(unsafe { Signal::from_raw(out) })
}

unsafe extern "C" fn keep_generate(ctx: *mut c_void, subscriber: *mut sk::sk_subscriber) -> *mut sk::sk_disposable {
    let keep = &*(ctx as *const Keep);
    let forward = Box::new(Forward {
        subscriber: sk::sk_subscriber_retain(subscriber),
        _connection: Arc::clone(&keep.connection),
    });
    let observer = sk::sk_observer {
        next: Some(forward_next),
        error: Some(forward_error),
        completed: Some(forward_completed),
        ctx: Box::into_raw(forward) as *mut c_void,
        release: Some(forward_release),
    };
    let mut disposable = ptr::null_mut();
    let status = sk::sk_signal_start(&mut disposable, keep.signal.as_ptr(), &observer);
    if status != sk::SK_OK {
        // The observer's release has run; the subscriber gets the error.
        let message = CStr::from_ptr(sk::sk_last_error_message()).to_string_lossy().into_owned();
        if let Ok(error) = RawValue::string(&format!("rsignalkit-nats: cannot start the bridge's signal: {}", message)) {
            sk::sk_subscriber_put_error(subscriber, error.as_ptr());
        }
        return ptr::null_mut();
    }
    disposable
}

unsafe extern "C" fn keep_release(ctx: *mut c_void) {
    let keep = Box::from_raw(ctx as *mut Keep);
    sk::sk_signal_release(keep.signal.as_ptr());
    drop(keep);
}

unsafe extern "C" fn forward_next(ctx: *mut c_void, value: *const sk::sk_value) {
    let forward = &*(ctx as *const Forward);
    sk::sk_subscriber_put_next(forward.subscriber, value);
}

unsafe extern "C" fn forward_error(ctx: *mut c_void, error: *const sk::sk_value) {
    let forward = &*(ctx as *const Forward);
    sk::sk_subscriber_put_error(forward.subscriber, error);
}

unsafe extern "C" fn forward_completed(ctx: *mut c_void) {
    let forward = &*(ctx as *const Forward);
    sk::sk_subscriber_put_completion(forward.subscriber);
}

unsafe extern "C" fn forward_release(ctx: *mut c_void) {
    let forward = Box::from_raw(ctx as *mut Forward);
    sk::sk_subscriber_release(forward.subscriber);
    mem::drop(forward);
}
