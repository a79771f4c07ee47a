//! The raw C interface: the functions of `signalkit_nats.h`, and the few of
//! libnats's `nats.h` that the safe layer calls, as they are declared
//! there. Every function is `unsafe`: the header's contracts (ownership,
//! threads, what stays valid how long) are the caller's to keep.
#![allow(non_camel_case_types, missing_debug_implementations)]

use std::os::raw::{c_char, c_int, c_uint};

use rsignalkit::sys::{sk_drop_fn, sk_map_fn, sk_overflow, sk_queue, sk_release_fn, sk_signal, sk_signal_fn, sk_value};

/// libnats's connection (`natsConnection`), opaque.
#[repr(C)]
pub struct natsConnection {
    _private: [u8; 0],
}

/// libnats's JetStream options (`jsOptions`), opaque here: the safe layer
/// always passes NULL (libnats's defaults).
#[repr(C)]
pub struct jsOptions {
    _private: [u8; 0],
}

/// libnats's status (`natsStatus`, a C enum).
pub type natsStatus = c_int;
/// `NATS_OK`.
pub const NATS_OK: natsStatus = 0;

/// `sk_nats_shape`: what a NATS message becomes as a value.
pub type sk_nats_shape = c_uint;
/// An array of 4 values: payload (bytes), subject (string), reply subject
/// (string or nil), headers (nil or an array of [key, value] pairs).
pub const SK_NATS_MESSAGE: sk_nats_shape = 0;
/// The payload alone (bytes).
pub const SK_NATS_PAYLOAD: sk_nats_shape = 1;

/// Index of the payload in an `SK_NATS_MESSAGE` value.
pub const SK_NATS_ITEM_PAYLOAD: usize = 0;
/// Index of the subject.
pub const SK_NATS_ITEM_SUBJECT: usize = 1;
/// Index of the reply subject.
pub const SK_NATS_ITEM_REPLY: usize = 2;
/// Index of the headers.
pub const SK_NATS_ITEM_HEADERS: usize = 3;
/// Index of the acknowledgement handle (`SK_NATS_ACK_EXPLICIT`).
pub const SK_NATS_ITEM_ACK: usize = 4;

/// `sk_nats_ack_mode`: when a message of `sk_nats_js_consume` is acknowledged.
pub type sk_nats_ack_mode = c_uint;
/// Once the observer's `next` has returned.
pub const SK_NATS_ACK_AFTER_NEXT: sk_nats_ack_mode = 0;
/// When the observer says (`sk_nats_ack`).
pub const SK_NATS_ACK_EXPLICIT: sk_nats_ack_mode = 1;

/// `sk_nats_ack_kind`: what `sk_nats_ack` tells the server.
pub type sk_nats_ack_kind = c_uint;
/// `+ACK`.
pub const SK_NATS_ACK: sk_nats_ack_kind = 0;
/// `-NAK`.
pub const SK_NATS_NAK: sk_nats_ack_kind = 1;
/// `+TERM`.
pub const SK_NATS_TERM: sk_nats_ack_kind = 2;
/// `+WPI`.
pub const SK_NATS_IN_PROGRESS: sk_nats_ack_kind = 3;

extern "C" {
    /// `natsConnection_ConnectTo`: connects to `urls` (comma-separated)
    /// with libnats's default options.
    pub fn natsConnection_ConnectTo(nc: *mut *mut natsConnection, urls: *const c_char) -> natsStatus;
    /// `natsConnection_FlushTimeout`: a round trip to the server, at most
    /// `timeout` milliseconds.
    pub fn natsConnection_FlushTimeout(nc: *mut natsConnection, timeout: i64) -> natsStatus;
    /// `natsConnection_Close`: closes the connection (its subscriptions end).
    pub fn natsConnection_Close(nc: *mut natsConnection);
    /// `natsConnection_Destroy`: closes and lets go of the connection.
    pub fn natsConnection_Destroy(nc: *mut natsConnection);
    /// `natsStatus_GetText`: a status in words (static).
    pub fn natsStatus_GetText(s: natsStatus) -> *const c_char;
    /// `nats_GetLastError`: the calling thread's last error text of
    /// libnats, and its status.
    pub fn nats_GetLastError(status: *mut natsStatus) -> *const c_char;

    /// `sk_nats_last_error_message`.
    pub fn sk_nats_last_error_message() -> *const c_char;
    /// `sk_nats_subject`.
    pub fn sk_nats_subject(out: *mut *mut sk_signal, connection: *mut natsConnection, subject: *const c_char,
                           queue_group: *const c_char, shape: sk_nats_shape) -> c_int;
    /// `sk_nats_subject_bounded`.
    pub fn sk_nats_subject_bounded(out: *mut *mut sk_signal, connection: *mut natsConnection, subject: *const c_char,
                                   queue_group: *const c_char, shape: sk_nats_shape, queue: *mut sk_queue,
                                   capacity: usize, overflow: sk_overflow, on_drop: sk_drop_fn,
                                   ctx: *mut std::os::raw::c_void, release: sk_release_fn) -> c_int;
    /// `sk_nats_publish`.
    pub fn sk_nats_publish(out: *mut *mut sk_signal, signal: *mut sk_signal, connection: *mut natsConnection,
                           subject: *const c_char, flush_timeout: f64) -> c_int;
    /// `sk_nats_publish_encoded`.
    pub fn sk_nats_publish_encoded(out: *mut *mut sk_signal, signal: *mut sk_signal, connection: *mut natsConnection,
                                   subject: *const c_char, flush_timeout: f64, encode: sk_map_fn,
                                   ctx: *mut std::os::raw::c_void, release: sk_release_fn) -> c_int;
    /// `sk_nats_request`.
    pub fn sk_nats_request(out: *mut *mut sk_signal, connection: *mut natsConnection, subject: *const c_char,
                           payload: *const sk_value, timeout: f64, shape: sk_nats_shape) -> c_int;
    /// `sk_nats_serve`.
    pub fn sk_nats_serve(out: *mut *mut sk_signal, connection: *mut natsConnection, subject: *const c_char,
                         queue_group: *const c_char, max_concurrent: usize, capacity: usize, overflow: sk_overflow,
                         handler: sk_signal_fn, on_drop: sk_drop_fn, ctx: *mut std::os::raw::c_void,
                         release: sk_release_fn) -> c_int;
    /// `sk_nats_js_consume`.
    pub fn sk_nats_js_consume(out: *mut *mut sk_signal, connection: *mut natsConnection, options: *const jsOptions,
                              stream: *const c_char, durable: *const c_char, subject: *const c_char,
                              shape: sk_nats_shape, ack: sk_nats_ack_mode, queue: *mut sk_queue,
                              capacity: usize) -> c_int;
    /// `sk_nats_ack`.
    pub fn sk_nats_ack(message: *const sk_value, kind: sk_nats_ack_kind) -> c_int;
    /// `sk_nats_js_publish`.
    pub fn sk_nats_js_publish(out: *mut *mut sk_signal, signal: *mut sk_signal, connection: *mut natsConnection,
                              options: *const jsOptions, subject: *const c_char, id_prefix: *const c_char,
                              window: usize, ack_wait: f64, attempts: c_uint) -> c_int;
    /// `sk_nats_js_publish_bounded`.
    pub fn sk_nats_js_publish_bounded(out: *mut *mut sk_signal, signal: *mut sk_signal,
                                      connection: *mut natsConnection, options: *const jsOptions,
                                      subject: *const c_char, id_prefix: *const c_char, window: usize, ack_wait: f64,
                                      attempts: c_uint, queue: *mut sk_queue, capacity: usize, overflow: sk_overflow,
                                      on_drop: sk_drop_fn, ctx: *mut std::os::raw::c_void, release: sk_release_fn)
                                      -> c_int;
}
