// Generated from the C headers (api.json) by tools/api/generate_rust.py: `make api-update`
// writes it, `make test-api` fails when it differs from what the headers give.
// Do not edit.
//! The raw C interface: every function, callback, handle, struct, enum and
//! constant of `signalkit.h`, `signalkit_test.h` and (feature `ffi`)
//! `signalkit_ffi.h`, as the headers declare them (api.json). Each item's
//! documentation is the header's brief; the header says the rest
//! (ownership, threads, errors). Everything here is `unsafe` to call:
//! the crate `rsignalkit`, the safe layer over this one, is what keeps
//! the contract (it re-exports this crate as `rsignalkit::sys`). The
//! build script finds and links libsignalkit as rsignalkit's guide says
//! ("Building against the library").
//! Headers of version 0.4.0.
#![allow(non_camel_case_types, non_upper_case_globals, missing_docs, clippy::upper_case_acronyms)]

pub use std::os::raw::{c_char, c_int, c_long, c_uint, c_void};

/// The C library's `FILE` (stdio), opaque.
#[repr(C)]
pub struct FILE {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

// Constants

/// The least stack, in bytes, a thread calling into the library needs.
pub const SK_MIN_THREAD_STACK: i64 = 65536;
/// The major version of this header.
pub const SK_VERSION_MAJOR: i64 = 0;
/// The minor version of this header.
pub const SK_VERSION_MINOR: i64 = 4;
/// The patch version of this header.
pub const SK_VERSION_PATCH: i64 = 0;
/// The version as one number: major * 10000 + minor * 100 + patch.
pub const SK_VERSION_NUMBER: i64 = 400;
/// The deepest nesting of arrays a value may have.
pub const SK_VALUE_MAX_DEPTH: i64 = 128;
/// The most worker threads sk_queue_create_concurrent() accepts.
pub const SK_QUEUE_MAX_WORKERS: i64 = 1024;
/// The deepest an operator's result may be (see operators, "Depth").
pub const SK_SIGNAL_MAX_DEPTH: i64 = 512;
/// The most arguments a signature may have.
pub const SK_FFI_MAX_ARGS: i64 = 16;

// Enums

/// Status codes. Every function that can fail returns SK_OK or one of these.
pub type sk_status = c_int;
/// success
pub const SK_OK: sk_status = 0;
/// a required handle, pointer or function was NULL
pub const SK_ERR_NULL_ARGUMENT: sk_status = -1;
/// a value or handle of another kind was expected
pub const SK_ERR_WRONG_KIND: sk_status = -2;
/// an argument is out of range or malformed
pub const SK_ERR_INVALID_ARGUMENT: sk_status = -3;
/// an allocation failed (a copy of a large string, bytes or array the process has no memory for). Only those copies are checked: the library's objects (handles, subscriptions, queue work, a few dozen bytes each), and the values an operator holds as they come (the array sk_signal_buffer_count() fills, a pipe's replay, the values waiting in a queue), are allocated by the Swift runtime, which stops the process (SIGABRT, "signalkit: fatal error: out of memory: ..." on stderr) when malloc refuses one
pub const SK_ERR_NO_MEMORY: sk_status = -4;
/// another thread is already doing this (host queue drain)
pub const SK_ERR_BUSY: sk_status = -5;
/// not possible on this queue or platform
pub const SK_ERR_UNSUPPORTED: sk_status = -6;
/// a handle or value used after its last release (reported only while handle checking is on); from sk_queue_sync(): the queue was closed (its last handle released) before the work ran
pub const SK_ERR_RELEASED: sk_status = -7;
/// the operating system refused a resource the call needs (see "Refused resources" in the conventions); or a limit of the call was reached (signalkit_test.h: an advance's task limit, a diagram too long)
pub const SK_ERR_RESOURCE: sk_status = -8;

/// The kinds of sk_value.
pub type sk_kind = c_uint;
/// no value (a zero-initialised sk_value)
pub const SK_KIND_NIL: sk_kind = 0;
/// a bool, stored inline
pub const SK_KIND_BOOL: sk_kind = 1;
/// an int64_t, stored inline
pub const SK_KIND_INT64: sk_kind = 2;
/// a double, stored inline
pub const SK_KIND_DOUBLE: sk_kind = 3;
/// UTF-8 text, immutable, NUL-terminated
pub const SK_KIND_STRING: sk_kind = 4;
/// immutable bytes
pub const SK_KIND_BYTES: sk_kind = 5;
/// immutable array of values
pub const SK_KIND_ARRAY: sk_kind = 6;
/// a user pointer with an optional release function
pub const SK_KIND_POINTER: sk_kind = 7;
/// an sk_signal
pub const SK_KIND_SIGNAL: sk_kind = 8;

/// What a bounded buffer (sk_signal_on_backpressure_buffer(), sk_signal_deliver_on_bounded()) or a bounded place (sk_signal_zip_bounded(), sk_signal_merge_map_bounded(), sk_signal_queue_bounded(), sk_signal_buffer_time_bounded()) does with a value that arrives when `capacity` values are pending. Named after RxJava's BackpressureOverflowStrategy and Akka Streams' OverflowStrategy.
pub type sk_overflow = c_uint;
/// The incoming value is dropped (Akka dropNew, RxJava onBackpressureDrop).
pub const SK_OVERFLOW_DROP_NEWEST: sk_overflow = 0;
/// The oldest pending value is dropped to make room (Akka dropHead, RxJava DROP_OLDEST).
pub const SK_OVERFLOW_DROP_OLDEST: sk_overflow = 1;
/// The newest pending value is replaced by the incoming one: the consumer always ends with the latest (Akka dropTail, RxJava DROP_LATEST; capacity 1 is onBackpressureLatest).
pub const SK_OVERFLOW_LATEST: sk_overflow = 2;
/// The stream fails with an error value of kind SK_KIND_STRING naming the operator and the capacity ("sk_signal_deliver_on_bounded: overflow: a value arrived with 1000 values pending (capacity 1000, policy error)"). The values pending are delivered first, then the error; the value that overflowed, and those the upstream puts until the error reaches the consumer, are dropped (`on_drop`).
pub const SK_OVERFLOW_ERROR: sk_overflow = 3;
/// The producing thread waits for room. When waiting could never end it fails as SK_OVERFLOW_ERROR does, with an error value saying why ("... cannot block: ..."): the producer is the thread delivering the values (a put from inside a delivery), or the queue is host-drained or virtual-time (its draining thread may be the producer), or the producer is running a host-drained or virtual-time queue's work (that queue stops while it waits; a zip's hot marbles, for one). Not detected: a queue whose every worker is a blocked producer, or a producer holding a lock the consumer's callback needs (Python's GIL: the Python binding lets it go around its puts while a signal with this policy exists). A put inside an sk_nowait_begin() scope never waits: it leaves its value beyond the capacity (see there).
pub const SK_OVERFLOW_BLOCK: sk_overflow = 4;

/// What an sk_take_until_fn decides about a value: a bitwise OR of these flags (0 drops the value and goes on).
pub type sk_take_action = c_uint;
/// deliver the value
pub const SK_TAKE_PASS: sk_take_action = 1;
/// then complete
pub const SK_TAKE_COMPLETE: sk_take_action = 2;

/// The native types a signature can name.
pub type sk_ffi_type = c_uint;
/// "void": return type only; no value
pub const SK_FFI_VOID: sk_ffi_type = 0;
/// "bool": C99 bool; SK_KIND_BOOL
pub const SK_FFI_BOOL: sk_ffi_type = 1;
/// "i32": int32_t; SK_KIND_INT64 in \[INT32_MIN, INT32_MAX\]
pub const SK_FFI_INT32: sk_ffi_type = 2;
/// "i64": int64_t; SK_KIND_INT64
pub const SK_FFI_INT64: sk_ffi_type = 3;
/// "u64": uint64_t; SK_KIND_INT64 \>= 0 (a return above INT64_MAX fails)
pub const SK_FFI_UINT64: sk_ffi_type = 4;
/// "f64": double; SK_KIND_DOUBLE, or an SK_KIND_INT64 in \[-2^53, 2^53\], the range in which a double holds every integer. Outside it some integers would be rounded (2^53 + 1), so every one is refused, even those a double holds (2^62): whether a stream converts does not depend on which values it carries. The message says `"int64 N is outside +-2^53 (the range in which a double holds every integer)"`.
pub const SK_FFI_DOUBLE: sk_ffi_type = 5;
/// "str": const char *, NUL-terminated UTF-8; SK_KIND_STRING without embedded NUL (never truncated)
pub const SK_FFI_STRING: sk_ffi_type = 6;
/// "ptr": void *; SK_KIND_POINTER (its user pointer), or SK_KIND_NIL as NULL
pub const SK_FFI_POINTER: sk_ffi_type = 7;
/// "value": const sk_value *; any kind, unconverted
pub const SK_FFI_VALUE: sk_ffi_type = 8;
/// "ctx": void *; first argument only: receives the `ctx` given with the function, no value
pub const SK_FFI_CTX: sk_ffi_type = 9;
/// "i8": int8_t; SK_KIND_INT64 in \[INT8_MIN, INT8_MAX\] (since 0.3)
pub const SK_FFI_INT8: sk_ffi_type = 10;
/// "i16": int16_t; SK_KIND_INT64 in \[INT16_MIN, INT16_MAX\] (since 0.3)
pub const SK_FFI_INT16: sk_ffi_type = 11;
/// "u8": uint8_t; SK_KIND_INT64 in \[0, UINT8_MAX\] (since 0.3)
pub const SK_FFI_UINT8: sk_ffi_type = 12;
/// "u16": uint16_t; SK_KIND_INT64 in \[0, UINT16_MAX\] (since 0.3)
pub const SK_FFI_UINT16: sk_ffi_type = 13;
/// "u32": uint32_t; SK_KIND_INT64 in \[0, UINT32_MAX\] (since 0.3)
pub const SK_FFI_UINT32: sk_ffi_type = 14;
/// "f32": float; SK_KIND_DOUBLE rounded to the nearest float (a finite double beyond the largest float's magnitude is refused: `"double 1.0000000000000001e+300 is outside the range of f32"`, the double printed as C's `%.17g` prints it (at most 17 significant digits, trailing zeros dropped), as in every such message; infinities and NaN convert), or an SK_KIND_INT64 in \[-2^24, 2^24\], the range in which a float holds every integer (as for f64: `"int64 N is outside +-2^24 (the range in which a float holds every integer)"`). A float result or argument becomes an SK_KIND_DOUBLE (exact). (since 0.3)
pub const SK_FFI_FLOAT: sk_ffi_type = 15;

// Handles

/// A cold stream of values.
#[repr(C)]
pub struct sk_signal {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// The receiving end a generator emits into.
#[repr(C)]
pub struct sk_subscriber {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// Cancels something; action, meta, set or dict.
#[repr(C)]
pub struct sk_disposable {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// Where work and deliveries run.
#[repr(C)]
pub struct sk_queue {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// A hot source: values put in reach current subscribers.
#[repr(C)]
pub struct sk_pipe {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// Holds the latest value of a signal set into it.
#[repr(C)]
pub struct sk_promise {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// Holds a value set directly.
#[repr(C)]
pub struct sk_value_promise {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// Records what a signal delivered, with virtual times.
#[repr(C)]
pub struct sk_test_recorder {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// The subscription log of a test signal.
#[repr(C)]
pub struct sk_test_subscriptions {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// A prepared signature: a return type and up to SK_FFI_MAX_ARGS argument types, with libffi's call interface prepared once.
#[repr(C)]
pub struct sk_ffi_signature {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// A trampoline: a real C function, made at run time, of the type described by its signature, that puts the arguments it is called with into a subscriber or a pipe.
#[repr(C)]
pub struct sk_ffi_trampoline {
    _opaque: [u8; 0],
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

// Callbacks

/// The release function of a user pointer or of a callback context.
pub type sk_release_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;
/// Receives a value of a subscription.
pub type sk_next_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const sk_value)>;
/// Receives the error that ends a subscription.
pub type sk_error_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, error: *const sk_value)>;
/// Receives the completion that ends a subscription.
pub type sk_completed_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;
/// A generator: called once per start with the new subscriber.
pub type sk_generator_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, subscriber: *mut sk_subscriber) -> *mut sk_disposable>;
/// A unit of work: `fn(ctx)`.
pub type sk_work_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;
/// Transforms a value.
pub type sk_map_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const sk_value, out: *mut sk_value)>;
/// Decides about a value.
pub type sk_predicate_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const sk_value) -> bool>;
/// Makes a signal for a value.
pub type sk_signal_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const sk_value) -> *mut sk_signal>;
/// Told of a value a bounded buffer dropped.
pub type sk_drop_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const sk_value, dropped: u64)>;
/// Decides about a value for sk_signal_take_until().
pub type sk_take_until_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const sk_value) -> c_int>;
/// Folds an accumulator with a value, for sk_signal_reduce_left().
pub type sk_reduce_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, accumulator: *const sk_value, value: *const sk_value, out: *mut sk_value)>;
/// Makes the signal a deferred signal runs.
pub type sk_deferred_fn = Option<unsafe extern "C" fn(ctx: *mut c_void) -> *mut sk_signal>;
/// A side effect on a value.
pub type sk_value_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const sk_value)>;
/// Receives one live object of sk_live_objects_report().
pub type sk_live_object_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, object: *const sk_live_object)>;
/// Any C function, cast to this type; its real type is described by the signature passed with it.
pub type sk_ffi_fn = Option<unsafe extern "C" fn()>;

// Structs

/// A tagged value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sk_value {
    /// The kind; read it with sk_value_kind().
    pub kind: sk_kind,
    /// The contents; read them through the accessors.
    pub u: sk_value_u,
}
const _: () = assert!(core::mem::size_of::<sk_value>() == 16);
const _: () = assert!(core::mem::align_of::<sk_value>() == 8);

/// The union `u` of sk_value.
#[repr(C)]
#[derive(Clone, Copy)]
pub union sk_value_u {
    /// The value of an SK_KIND_BOOL.
    pub boolean: bool,
    /// The value of an SK_KIND_INT64.
    pub int64: i64,
    /// The value of an SK_KIND_DOUBLE.
    pub real: f64,
    /// The library object of the other kinds: opaque.
    pub object: *mut c_void,
}
const _: () = assert!(core::mem::size_of::<sk_value_u>() == 8);

/// The callbacks of a subscription.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sk_observer {
    /// Called with each value; may be NULL.
    pub next: sk_next_fn,
    /// Called with the error; may be NULL.
    pub error: sk_error_fn,
    /// Called on completion; may be NULL.
    pub completed: sk_completed_fn,
    /// Passed to every callback and to `release`.
    pub ctx: *mut c_void,
    /// Runs exactly once with `ctx` after the last callback; may be NULL.
    pub release: sk_release_fn,
}
const _: () = assert!(core::mem::size_of::<sk_observer>() == 40);
const _: () = assert!(core::mem::align_of::<sk_observer>() == 8);

/// One live object, as sk_live_objects_report() describes it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sk_live_object {
    /// The object's address: for a handle, the handle; for a value, its object (`u.object`); for a callback, no pointer the caller holds.
    pub address: *const c_void,
    /// What it is: "signal", "subscriber", "disposable", "queue", "pipe", "promise", "value promise", "test subscriptions", "test recorder", "string value", "bytes value", "array value", "pointer value", "observer" (the callbacks of sk_signal_start(), held until the subscription ends), or "callback" (a function with its `ctx` and `release` that the library holds, made by the function it was given to).
    pub kind: *const c_char,
    /// The public function that made it ("sk_signal_map"), or NULL for an object the library made itself (the string of an error it delivered, the array of sk_signal_combine_latest()).
    pub made_by: *const c_char,
    /// The name given with sk_handle_set_name(), or NULL.
    pub name: *const c_char,
}
const _: () = assert!(core::mem::size_of::<sk_live_object>() == 32);
const _: () = assert!(core::mem::align_of::<sk_live_object>() == 8);

/// One entry of a value table: the value a diagram's character stands for.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sk_marble_value {
    /// A letter or digit of the diagrams.
    pub symbol: c_char,
    /// The value it stands for (borrowed by the calls).
    pub value: sk_value,
}
const _: () = assert!(core::mem::size_of::<sk_marble_value>() == 24);
const _: () = assert!(core::mem::align_of::<sk_marble_value>() == 8);

/// The callbacks of a typed subscription (sk_ffi_signal_start()).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sk_ffi_observer {
    /// The signature of `next`; required when `next` is given. Borrowed.
    pub next_signature: *mut sk_ffi_signature,
    /// Called with each value; may be NULL. Callable until `release` has run (sk_ffi_fn).
    pub next: sk_ffi_fn,
    /// The signature of `error`; required when `error` is given. Borrowed.
    pub error_signature: *mut sk_ffi_signature,
    /// Called with the error; may be NULL. Callable until `release` has run (sk_ffi_fn).
    pub error: sk_ffi_fn,
    /// The signature of `completed`; required when `completed` is given. Borrowed.
    pub completed_signature: *mut sk_ffi_signature,
    /// Called on completion; may be NULL. Callable until `release` has run (sk_ffi_fn).
    pub completed: sk_ffi_fn,
    /// Passed to `next`, `error` and `completed` as their leading ctx argument (where their signature has one), and to `release`.
    pub ctx: *mut c_void,
    /// Runs exactly once with `ctx` after the last callback; may be NULL.
    pub release: sk_release_fn,
}
const _: () = assert!(core::mem::size_of::<sk_ffi_observer>() == 64);
const _: () = assert!(core::mem::align_of::<sk_ffi_observer>() == 8);

// include/signalkit.h

extern "C" {
    /// The version of the library loaded at run time, as SK_VERSION_NUMBER.
    pub fn sk_version_number() -> c_uint;
    /// The version of the library loaded at run time as "major.minor.patch".
    pub fn sk_version_string() -> *const c_char;
    /// A short English description of a status ("ok", "null argument", ...).
    pub fn sk_status_string(status: c_int) -> *const c_char;
    /// The message of the last error on the calling thread.
    pub fn sk_last_error_message() -> *const c_char;
    /// Fails the operator callback call running on the calling thread: the subscription it serves ends with a copy of `error` as its error event.
    pub fn sk_callback_fail(error: *const sk_value) -> c_int;
    /// Makes `*out` nil.
    pub fn sk_value_set_nil(out: *mut sk_value);
    /// Makes `*out` a bool.
    pub fn sk_value_set_bool(out: *mut sk_value, value: bool);
    /// Makes `*out` an int64.
    pub fn sk_value_set_int64(out: *mut sk_value, value: i64);
    /// Makes `*out` a double.
    pub fn sk_value_set_double(out: *mut sk_value, value: f64);
    /// Makes `*out` a string: a copy of a NUL-terminated UTF-8 string.
    pub fn sk_value_set_string(out: *mut sk_value, text: *const c_char) -> c_int;
    /// Makes `*out` a string: a copy of `length` bytes of UTF-8 text (embedded NULs allowed).
    pub fn sk_value_set_string_n(out: *mut sk_value, text: *const c_char, length: usize) -> c_int;
    /// Makes `*out` bytes: a copy of `length` bytes.
    pub fn sk_value_set_bytes(out: *mut sk_value, data: *const c_void, length: usize) -> c_int;
    /// Makes `*out` an array of `count` values copied from `items`.
    pub fn sk_value_set_array(out: *mut sk_value, items: *const sk_value, count: usize) -> c_int;
    /// Makes `*out` a value wrapping a user pointer.
    pub fn sk_value_set_pointer(out: *mut sk_value, pointer: *mut c_void, release: sk_release_fn) -> c_int;
    /// Makes `*out` a value wrapping a signal.
    pub fn sk_value_set_signal(out: *mut sk_value, signal: *mut sk_signal) -> c_int;
    /// Makes `*dst` a new reference to the value `src`.
    pub fn sk_value_copy(dst: *mut sk_value, src: *const sk_value) -> c_int;
    /// Drops the reference `*value` holds, if any, and sets it to nil.
    pub fn sk_value_release(value: *mut sk_value);
    /// The kind of a value.
    pub fn sk_value_kind(value: *const sk_value) -> sk_kind;
    /// Structural equality: same kind and equal contents.
    pub fn sk_value_equal(a: *const sk_value, b: *const sk_value) -> bool;
    /// Reads a bool.
    pub fn sk_value_get_bool(value: *const sk_value, out: *mut bool) -> c_int;
    /// Reads an int64.
    pub fn sk_value_get_int64(value: *const sk_value, out: *mut i64) -> c_int;
    /// Reads a double.
    pub fn sk_value_get_double(value: *const sk_value, out: *mut f64) -> c_int;
    /// Reads a string.
    pub fn sk_value_get_string(value: *const sk_value, out: *mut *const c_char, length: *mut usize) -> c_int;
    /// Reads bytes.
    pub fn sk_value_get_bytes(value: *const sk_value, out: *mut *const c_void, length: *mut usize) -> c_int;
    /// Reads the number of items of an array.
    pub fn sk_value_get_array_count(value: *const sk_value, out: *mut usize) -> c_int;
    /// Reads item `index` of an array.
    pub fn sk_value_get_array_item(value: *const sk_value, index: usize, out: *mut *const sk_value) -> c_int;
    /// Reads all the items of an array at once: where the first is, and how many there are.
    pub fn sk_value_get_array_items(value: *const sk_value, out: *mut *const sk_value, count: *mut usize) -> c_int;
    /// Reads a user pointer.
    pub fn sk_value_get_pointer(value: *const sk_value, out: *mut *mut c_void) -> c_int;
    /// Reads a signal.
    pub fn sk_value_get_signal(value: *const sk_value, out: *mut *mut sk_signal) -> c_int;
    /// Creates a signal whose start calls `generator(ctx, subscriber)`.
    pub fn sk_signal_create(out: *mut *mut sk_signal, generator: sk_generator_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// A custom operator: as sk_signal_create(), for a generator that starts `upstream`.
    pub fn sk_signal_create_over(out: *mut *mut sk_signal, upstream: *mut sk_signal, generator: sk_generator_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// A signal that emits a copy of `value`, then completes.
    pub fn sk_signal_single(out: *mut *mut sk_signal, value: *const sk_value) -> c_int;
    /// A signal that completes at once.
    pub fn sk_signal_complete(out: *mut *mut sk_signal) -> c_int;
    /// A signal that fails at once with a copy of `error`.
    pub fn sk_signal_fail(out: *mut *mut sk_signal, error: *const sk_value) -> c_int;
    /// A signal that never emits nor terminates.
    pub fn sk_signal_never(out: *mut *mut sk_signal) -> c_int;
    /// Starts a signal: runs its generator on the calling thread and delivers its events to an observer.
    pub fn sk_signal_start(out: *mut *mut sk_disposable, signal: *mut sk_signal, observer: *const sk_observer) -> c_int;
    /// Starts a signal as sk_signal_start() does, with an observer that the subscription's disposable may hold: the cheapest start for an observer that has a release function (a binding's closure).
    pub fn sk_signal_start_held(out: *mut *mut sk_disposable, signal: *mut sk_signal, observer: *const sk_observer) -> c_int;
    /// Starts a signal with an observer whose value callback may fail: a call of sk_callback_fail() during the observer's value callback ends the subscription with that error. The one subscription rule of every binding (a Python, Rust or libffi subscriber whose callback raises ends its stream this way).
    pub fn sk_signal_start_failable(out: *mut *mut sk_disposable, signal: *mut sk_signal, observer: *const sk_observer, held: c_int) -> c_int;
    /// Adds a reference to a signal.
    pub fn sk_signal_retain(signal: *mut sk_signal) -> *mut sk_signal;
    /// Drops a reference to a signal.
    pub fn sk_signal_release(signal: *mut sk_signal);
    /// Emits a value into a subscriber.
    pub fn sk_subscriber_put_next(subscriber: *mut sk_subscriber, value: *const sk_value) -> c_int;
    /// Ends a subscription with an error.
    pub fn sk_subscriber_put_error(subscriber: *mut sk_subscriber, error: *const sk_value) -> c_int;
    /// Ends a subscription with a completion.
    pub fn sk_subscriber_put_completion(subscriber: *mut sk_subscriber) -> c_int;
    /// Adds a reference to a subscriber (to emit after the generator has returned).
    pub fn sk_subscriber_retain(subscriber: *mut sk_subscriber) -> *mut sk_subscriber;
    /// Drops a reference to a subscriber.
    pub fn sk_subscriber_release(subscriber: *mut sk_subscriber);
    /// Disposes a disposable.
    pub fn sk_disposable_dispose(disposable: *mut sk_disposable);
    /// Adds a reference to a disposable.
    pub fn sk_disposable_retain(disposable: *mut sk_disposable) -> *mut sk_disposable;
    /// Drops a reference to a disposable. Releasing does not dispose.
    pub fn sk_disposable_release(disposable: *mut sk_disposable);
    /// A disposable that calls `action(ctx)` on its first dispose.
    pub fn sk_disposable_action(out: *mut *mut sk_disposable, action: sk_release_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// A slot holding one disposable at a time (SwiftSignalKit's MetaDisposable).
    pub fn sk_disposable_meta(out: *mut *mut sk_disposable) -> c_int;
    /// Puts a disposable into a meta disposable, disposing the one it replaces.
    pub fn sk_disposable_meta_set(meta: *mut sk_disposable, disposable: *mut sk_disposable) -> c_int;
    /// A set of disposables disposed together.
    pub fn sk_disposable_set(out: *mut *mut sk_disposable) -> c_int;
    /// Adds a disposable to a set.
    pub fn sk_disposable_set_add(set: *mut sk_disposable, disposable: *mut sk_disposable) -> c_int;
    /// Removes a disposable (by identity) from a set without disposing it.
    pub fn sk_disposable_set_remove(set: *mut sk_disposable, disposable: *mut sk_disposable) -> c_int;
    /// Disposables indexed by a string key.
    pub fn sk_disposable_dict(out: *mut *mut sk_disposable) -> c_int;
    /// Puts a disposable under a key, disposing what the key held.
    pub fn sk_disposable_dict_set(dict: *mut sk_disposable, key: *const c_char, disposable: *mut sk_disposable) -> c_int;
    /// Creates a pipe: sk_pipe_put() delivers to the current subscribers of its signal.
    pub fn sk_pipe_create(out: *mut *mut sk_pipe, replay: bool) -> c_int;
    /// Delivers a copy of a value to every current subscriber.
    pub fn sk_pipe_put(pipe: *mut sk_pipe, value: *const sk_value) -> c_int;
    /// Ends the pipe with an error: every current subscriber receives a copy of `error`, and so does every later one, at once.
    pub fn sk_pipe_put_error(pipe: *mut sk_pipe, error: *const sk_value) -> c_int;
    /// Ends the pipe with the completion: every current subscriber completes, and every later one does at once.
    pub fn sk_pipe_put_completion(pipe: *mut sk_pipe) -> c_int;
    /// The pipe's signal.
    pub fn sk_pipe_signal(out: *mut *mut sk_signal, pipe: *mut sk_pipe) -> c_int;
    /// Adds a reference to a pipe.
    pub fn sk_pipe_retain(pipe: *mut sk_pipe) -> *mut sk_pipe;
    /// Drops a reference to a pipe (see sk_pipe_signal() for what the last release does to its subscriptions).
    pub fn sk_pipe_release(pipe: *mut sk_pipe);
    /// Creates a promise: sk_promise_set() subscribes to a signal and keeps its latest value; its signal replays that value, then every new one.
    pub fn sk_promise_create(out: *mut *mut sk_promise) -> c_int;
    /// Replaces the promise's source with a signal.
    pub fn sk_promise_set(promise: *mut sk_promise, signal: *mut sk_signal) -> c_int;
    /// The promise's signal: the latest value, if any, then every new one.
    pub fn sk_promise_get(out: *mut *mut sk_signal, promise: *mut sk_promise) -> c_int;
    /// Adds a reference to a promise.
    pub fn sk_promise_retain(promise: *mut sk_promise) -> *mut sk_promise;
    /// Drops a reference to a promise.
    pub fn sk_promise_release(promise: *mut sk_promise);
    /// Creates a value promise: it holds a value set directly.
    pub fn sk_value_promise_create(out: *mut *mut sk_value_promise, initial: *const sk_value, ignore_repeated: bool) -> c_int;
    /// Stores a copy of a value and delivers it to every subscriber (unless ignored as a repeat).
    pub fn sk_value_promise_set(promise: *mut sk_value_promise, value: *const sk_value) -> c_int;
    /// The value promise's signal: the current value, if any, then every new one.
    pub fn sk_value_promise_get(out: *mut *mut sk_signal, promise: *mut sk_value_promise) -> c_int;
    /// Adds a reference to a value promise.
    pub fn sk_value_promise_retain(promise: *mut sk_value_promise) -> *mut sk_value_promise;
    /// Drops a reference to a value promise.
    pub fn sk_value_promise_release(promise: *mut sk_value_promise);
    /// The shared main queue.
    pub fn sk_queue_main(out: *mut *mut sk_queue) -> c_int;
    /// The shared global concurrent queue of default priority.
    pub fn sk_queue_concurrent_default(out: *mut *mut sk_queue) -> c_int;
    /// The shared global concurrent queue of background priority.
    pub fn sk_queue_concurrent_background(out: *mut *mut sk_queue) -> c_int;
    /// A new serial queue: its work runs one task at a time, in order, on library-managed threads.
    pub fn sk_queue_create(out: *mut *mut sk_queue, name: *const c_char) -> c_int;
    /// A host-drained serial queue: its work runs only inside sk_queue_host_drain(), on the thread that calls it.
    pub fn sk_queue_create_host(out: *mut *mut sk_queue, name: *const c_char) -> c_int;
    /// A new concurrent queue whose work runs on at most `max_workers` threads of its own: a bounded thread pool.
    pub fn sk_queue_create_concurrent(out: *mut *mut sk_queue, max_workers: usize, name: *const c_char) -> c_int;
    /// The descriptor of a host-drained queue.
    pub fn sk_queue_host_fd(queue: *mut sk_queue, out_fd: *mut c_int) -> c_int;
    /// Runs pending tasks of a host-drained queue on the calling thread.
    pub fn sk_queue_host_drain(queue: *mut sk_queue, max_tasks: usize, out_ran: *mut usize) -> c_int;
    /// Runs `fn(ctx)` on a queue: inline when the caller is already on it, otherwise later on the queue's thread.
    pub fn sk_queue_async(queue: *mut sk_queue, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Runs `fn(ctx)` on a queue and waits for it (inline when already on it).
    pub fn sk_queue_sync(queue: *mut sk_queue, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Runs `fn(ctx)` on a queue after a delay.
    pub fn sk_queue_after(queue: *mut sk_queue, seconds: f64, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Whether the caller runs on a queue.
    pub fn sk_queue_is_current(queue: *mut sk_queue) -> bool;
    /// Adds a reference to a queue.
    pub fn sk_queue_retain(queue: *mut sk_queue) -> *mut sk_queue;
    /// Drops a reference to a queue (for a host-drained queue, see sk_queue_create_host() for what the last release does).
    pub fn sk_queue_release(queue: *mut sk_queue);
    /// Starts a timer that calls `fn(ctx)` on a queue after `seconds`, and again every `seconds` when `repeat`.
    pub fn sk_timer_start(out: *mut *mut sk_disposable, queue: *mut sk_queue, seconds: f64, repeat: bool, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Sets the function the library calls when the system refuses it a thread: for a binding whose runtime holds a global lock over its calls (Python's GIL), which it lets go there.
    pub fn sk_set_thread_refused_hook(hook: sk_work_fn, ctx: *mut c_void) -> c_int;
    /// Values transformed by `fn`.
    pub fn sk_signal_map(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_map_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Only the values for which `fn` returns true.
    pub fn sk_signal_filter(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_predicate_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Drops a value equal (sk_value_equal()) to the one delivered before it.
    pub fn sk_signal_distinct_until_changed(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// The first `count` values, then completion right after the count-th.
    pub fn sk_signal_take(out: *mut *mut sk_signal, signal: *mut sk_signal, count: usize) -> c_int;
    /// Each value mapped to a signal by `fn`; only the latest inner signal runs (the previous one is disposed once the new one has started).
    pub fn sk_signal_map_to_signal(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_signal_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// For a signal of signals (values of SK_KIND_SIGNAL): runs the latest.
    pub fn sk_signal_switch_to_latest(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// Arrays of the latest value of each of `count` signals, once all have emitted; completes when all complete.
    pub fn sk_signal_combine_latest(out: *mut *mut sk_signal, signals: *const *mut sk_signal, count: usize, queue: *mut sk_queue) -> c_int;
    /// Arrays of the n-th value of each of `count` signals, in order: a value waits until every other signal has emitted its n-th.
    pub fn sk_signal_zip(out: *mut *mut sk_signal, signals: *const *mut sk_signal, count: usize) -> c_int;
    /// Each value of `signal` as the array \[value, latest value of `other`\]; values that come before `other` has emitted are dropped.
    pub fn sk_signal_with_latest_from(out: *mut *mut sk_signal, signal: *mut sk_signal, other: *mut sk_signal) -> c_int;
    /// All values of `count` signals; completes when all complete.
    pub fn sk_signal_merge(out: *mut *mut sk_signal, signals: *const *mut sk_signal, count: usize) -> c_int;
    /// Every event delivered on `queue`.
    pub fn sk_signal_deliver_on(out: *mut *mut sk_signal, signal: *mut sk_signal, queue: *mut sk_queue) -> c_int;
    /// Creates a pipe whose values put from inside its own callbacks wait in a queue of at most `capacity` values per delivering thread.
    pub fn sk_pipe_create_bounded(out: *mut *mut sk_pipe, replay: bool, capacity: usize, overflow: sk_overflow, on_drop: sk_drop_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Begins a scope in which the calling thread's puts never wait for room: for an event loop, whose thread must not block.
    pub fn sk_nowait_begin() -> c_int;
    /// Ends the calling thread's innermost sk_nowait_begin() scope.
    pub fn sk_nowait_end(room: *mut *mut sk_signal) -> c_int;
    /// The values one at a time, at most `capacity` of them waiting while a delivery is in progress, `overflow` deciding about the next (RxJava's onBackpressureBuffer).
    pub fn sk_signal_on_backpressure_buffer(out: *mut *mut sk_signal, signal: *mut sk_signal, capacity: usize, overflow: sk_overflow, on_drop: sk_drop_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// sk_signal_deliver_on() with at most `capacity` values waiting for the queue, `overflow` deciding about the next: the memory a slow consumer makes its producer hold is bounded.
    pub fn sk_signal_deliver_on_bounded(out: *mut *mut sk_signal, signal: *mut sk_signal, queue: *mut sk_queue, capacity: usize, overflow: sk_overflow, on_drop: sk_drop_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// sk_signal_zip() with at most `capacity` values waiting per signal, `overflow` deciding about the next: a signal that runs ahead of the others holds at most `capacity` values.
    pub fn sk_signal_zip_bounded(out: *mut *mut sk_signal, signals: *const *mut sk_signal, count: usize, capacity: usize, overflow: sk_overflow, on_drop: sk_drop_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// sk_signal_merge_map() with at most `capacity` values waiting for a free slot, `overflow` deciding about the next: a fast `signal` feeding slow inner signals holds at most `capacity` values.
    pub fn sk_signal_merge_map_bounded(out: *mut *mut sk_signal, signal: *mut sk_signal, max_concurrent: usize, capacity: usize, overflow: sk_overflow, fn_: sk_signal_fn, on_drop: sk_drop_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// sk_signal_queue() with at most `capacity` signals waiting their turn, `overflow` deciding about the next.
    pub fn sk_signal_queue_bounded(out: *mut *mut sk_signal, signal: *mut sk_signal, capacity: usize, overflow: sk_overflow, on_drop: sk_drop_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// sk_signal_buffer_time() collecting at most `capacity` values per period, `overflow` deciding about the next.
    pub fn sk_signal_buffer_time_bounded(out: *mut *mut sk_signal, signal: *mut sk_signal, seconds: f64, queue: *mut sk_queue, capacity: usize, overflow: sk_overflow, on_drop: sk_drop_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// The latest value once `seconds` pass without a new one.
    pub fn sk_signal_debounce(out: *mut *mut sk_signal, signal: *mut sk_signal, seconds: f64, queue: *mut sk_queue) -> c_int;
    /// Asks `fn` about each value: passes it, completes, or both.
    pub fn sk_signal_take_until(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_take_until_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Only the last value, when `signal` completes.
    pub fn sk_signal_last(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// Drops the first `count` values, then passes every value.
    pub fn sk_signal_skip(out: *mut *mut sk_signal, signal: *mut sk_signal, count: usize) -> c_int;
    /// Drops values while `fn` returns true; from the first value for which it returns false, passes every value (`fn` is not called again).
    pub fn sk_signal_skip_while(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_predicate_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Passes values while `fn` returns true; at the first value for which it returns false, completes and disposes `signal`.
    pub fn sk_signal_take_while(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_predicate_fn, ctx: *mut c_void, release: sk_release_fn, inclusive: bool) -> c_int;
    /// The first value, then the completion (as sk_signal_take() of 1).
    pub fn sk_signal_first(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// The first value for which `fn` returns true, then the completion.
    pub fn sk_signal_first_where(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_predicate_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Only the value at `index` (0 for the first), then the completion.
    pub fn sk_signal_element_at(out: *mut *mut sk_signal, signal: *mut sk_signal, index: usize) -> c_int;
    /// Every value; when `signal` completes without having emitted one, a copy of `value` first, then the completion.
    pub fn sk_signal_default_if_empty(out: *mut *mut sk_signal, signal: *mut sk_signal, value: *const sk_value) -> c_int;
    /// The values of `signal` until `notifier` emits a value: then the completion, and both are disposed.
    pub fn sk_signal_take_until_signal(out: *mut *mut sk_signal, signal: *mut sk_signal, notifier: *mut sk_signal) -> c_int;
    /// Drops every value; passes only the error or the completion.
    pub fn sk_signal_ignore_values(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// Folds the values; emits the accumulator when `signal` completes.
    pub fn sk_signal_reduce_left(out: *mut *mut sk_signal, signal: *mut sk_signal, initial: *const sk_value, fn_: sk_reduce_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Folds each value into an accumulator and delivers every accumulator: `fn(initial, v1)`, then `fn(that, v2)`, ...
    pub fn sk_signal_scan(out: *mut *mut sk_signal, signal: *mut sk_signal, initial: *const sk_value, fn_: sk_reduce_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// From the second value on, the array \[previous value, value\].
    pub fn sk_signal_pairwise(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// On error, continues with the signal `fn` returns for it.
    pub fn sk_signal_catch(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_signal_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Starts `signal` again each time it completes, forever: the result never completes.
    pub fn sk_signal_restart(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// Starts `signal` again at once each time it fails; errors never pass.
    pub fn sk_signal_restart_if_error(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// On error, starts `signal` again after a delay; errors never pass.
    pub fn sk_signal_retry(out: *mut *mut sk_signal, signal: *mut sk_signal, delay_increment: f64, max_delay: f64, queue: *mut sk_queue) -> c_int;
    /// On error, starts `signal` again, at most `count` times; the error after the last retry passes through.
    pub fn sk_signal_retry_count(out: *mut *mut sk_signal, signal: *mut sk_signal, count: usize, delay: f64, queue: *mut sk_queue) -> c_int;
    /// For a signal of signals (values of SK_KIND_SIGNAL): runs them one after another, in arrival order.
    pub fn sk_signal_queue(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// As sk_signal_queue(), but only the latest waiting signal is kept.
    pub fn sk_signal_throttled(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// The values of `signal`, then, once it has completed, those of `next`, then the completion of `next`.
    pub fn sk_signal_then(out: *mut *mut sk_signal, signal: *mut sk_signal, next: *mut sk_signal) -> c_int;
    /// A copy of `value` first, during the start, then the events of `signal` (started afterwards).
    pub fn sk_signal_start_with(out: *mut *mut sk_signal, signal: *mut sk_signal, value: *const sk_value) -> c_int;
    /// The `count` signals one after the other: each starts when the one before it completes; completes after the last.
    pub fn sk_signal_concat(out: *mut *mut sk_signal, signals: *const *mut sk_signal, count: usize) -> c_int;
    /// Each value mapped to a signal by `fn`; up to `max_concurrent` of them run at once, all their values passing through.
    pub fn sk_signal_merge_map(out: *mut *mut sk_signal, signal: *mut sk_signal, max_concurrent: usize, fn_: sk_signal_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Splits the values by the key `fn` gives each: the first value of a new key delivers the array \[key, group\], where group (of kind SK_KIND_SIGNAL) delivers every value of that key, that first one included.
    pub fn sk_signal_group_by(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_map_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// One subscription to `signal` shared by all subscribers of the result.
    pub fn sk_signal_share(out: *mut *mut sk_signal, signal: *mut sk_signal) -> c_int;
    /// As sk_signal_share(), and a subscriber that joins a running connection first receives its last `count` values (fewer if fewer came), oldest first.
    pub fn sk_signal_replay(out: *mut *mut sk_signal, signal: *mut sk_signal, count: usize) -> c_int;
    /// A signal that calls `fn` at each start and passes through the events of the signal it returns.
    pub fn sk_signal_deferred(out: *mut *mut sk_signal, fn_: sk_deferred_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Starts `signal` (runs its generator) on `queue`.
    pub fn sk_signal_run_on(out: *mut *mut sk_signal, signal: *mut sk_signal, queue: *mut sk_queue) -> c_int;
    /// Starts `signal` `seconds` after the start.
    pub fn sk_signal_delay(out: *mut *mut sk_signal, signal: *mut sk_signal, seconds: f64, queue: *mut sk_queue) -> c_int;
    /// `signal`, or `alternate` if `signal` delivers nothing within `seconds`.
    pub fn sk_signal_timeout(out: *mut *mut sk_signal, signal: *mut sk_signal, seconds: f64, queue: *mut sk_queue, alternate: *mut sk_signal) -> c_int;
    /// At most one value per `seconds`, on the trailing edge.
    pub fn sk_signal_throttle(out: *mut *mut sk_signal, signal: *mut sk_signal, seconds: f64, queue: *mut sk_queue) -> c_int;
    /// The values collected into arrays of `count`, each delivered once full.
    pub fn sk_signal_buffer_count(out: *mut *mut sk_signal, signal: *mut sk_signal, count: usize) -> c_int;
    /// The values collected during each window of `seconds`, delivered as an array when the window ends (an empty window delivers nothing).
    pub fn sk_signal_buffer_time(out: *mut *mut sk_signal, signal: *mut sk_signal, seconds: f64, queue: *mut sk_queue) -> c_int;
    /// At each value of `sampler`, the latest value of `signal` if it emitted one since the previous sample.
    pub fn sk_signal_sample(out: *mut *mut sk_signal, signal: *mut sk_signal, sampler: *mut sk_signal) -> c_int;
    /// At the end of each period of `seconds`, the latest value of `signal` if it emitted one since the previous sample.
    pub fn sk_signal_sample_period(out: *mut *mut sk_signal, signal: *mut sk_signal, seconds: f64, queue: *mut sk_queue) -> c_int;
    /// Calls `fn(ctx, value)` just before each value is delivered; otherwise passes every event through untouched.
    pub fn sk_signal_before_next(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_value_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Calls `fn(ctx, value)` right after each value was delivered (after the downstream callback returned); otherwise passes every event through untouched.
    pub fn sk_signal_after_next(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_value_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Calls `fn(ctx)` at each start, before `signal` is started; otherwise passes every event through untouched.
    pub fn sk_signal_before_started(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Calls `fn(ctx)` when `signal` completes, just before the completion is delivered; otherwise passes every event through untouched.
    pub fn sk_signal_before_completed(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Calls `fn(ctx)` when `signal` completes, right after the completion was delivered (after the downstream callback returned); otherwise passes every event through untouched.
    pub fn sk_signal_after_completed(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Calls `fn(ctx)` exactly once per subscription, when it ends, right after the subscription to `signal` was disposed; otherwise passes every event through untouched.
    pub fn sk_signal_after_disposed(out: *mut *mut sk_signal, signal: *mut sk_signal, fn_: sk_work_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Turns handle checking (see the conventions "conventions") on or off.
    pub fn sk_set_handle_checking(enabled: bool) -> c_int;
    /// Whether handle checking is on.
    pub fn sk_handle_checking() -> bool;
    /// The number of library objects currently alive (handles, heap values, and the C callbacks the library holds).
    pub fn sk_live_objects() -> c_long;
    /// Waits until at most `at_most` library objects are alive (sk_live_objects() \<= `at_most`), or `timeout` seconds have passed.
    pub fn sk_live_objects_wait(at_most: c_long, timeout: f64) -> c_int;
    /// Calls `fn` once per live object (oldest first): what sk_live_objects() counts, with the kind, the function that made it and its name.
    pub fn sk_live_objects_report(fn_: sk_live_object_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
    /// Writes sk_live_objects_report()'s list to `file`, one line per object: its kind, address, the function that made it and its name.
    pub fn sk_live_objects_print(file: *mut FILE) -> c_int;
    /// Names a handle for sk_live_objects_report() (a name for a person hunting a leak; nothing else reads it).
    pub fn sk_handle_set_name(handle: *mut c_void, name: *const c_char) -> c_int;
}

// include/signalkit_test.h

extern "C" {
    /// A new virtual-time queue, its clock at 0.
    pub fn sk_queue_create_virtual(out: *mut *mut sk_queue, name: *const c_char) -> c_int;
    /// Moves a virtual-time queue's clock `seconds` forward, running every task due by then, tasks they schedule included.
    pub fn sk_queue_virtual_advance_by(queue: *mut sk_queue, seconds: f64, out_ran: *mut usize) -> c_int;
    /// Moves a virtual-time queue's clock to `seconds` since it was made, running every task due by then.
    pub fn sk_queue_virtual_advance_to(queue: *mut sk_queue, seconds: f64, out_ran: *mut usize) -> c_int;
    /// Runs a virtual-time queue until no work is left, moving its clock to each task's deadline in turn.
    pub fn sk_queue_virtual_run(queue: *mut sk_queue, max_tasks: usize, out_ran: *mut usize) -> c_int;
    /// The clock of a virtual-time queue.
    pub fn sk_queue_virtual_now(queue: *mut sk_queue, out_nanoseconds: *mut i64) -> c_int;
    /// How many tasks of a virtual-time queue are scheduled and have neither run nor been cancelled (a stopped timer's task is dropped at once).
    pub fn sk_queue_virtual_pending(queue: *mut sk_queue, out_count: *mut usize) -> c_int;
    /// A cold test signal: each subscription plays the diagram from its own start on a virtual-time queue.
    pub fn sk_test_signal_cold(out: *mut *mut sk_signal, out_subscriptions: *mut *mut sk_test_subscriptions, queue: *mut sk_queue, frame: f64, diagram: *const c_char, values: *const sk_marble_value, count: usize, error: *const sk_value) -> c_int;
    /// A hot test signal: the diagram plays once on a virtual-time queue, from the clock's current time (its `^`), to whoever is subscribed.
    pub fn sk_test_signal_hot(out: *mut *mut sk_signal, out_subscriptions: *mut *mut sk_test_subscriptions, queue: *mut sk_queue, frame: f64, diagram: *const c_char, values: *const sk_marble_value, count: usize, error: *const sk_value) -> c_int;
    /// Prints a test signal's subscription log: when each subscription started and was disposed, in frames.
    pub fn sk_test_subscriptions_text(subscriptions: *mut sk_test_subscriptions, buffer: *mut c_char, size: usize, out_length: *mut usize) -> c_int;
    /// Drops a reference to a subscription log.
    pub fn sk_test_subscriptions_release(subscriptions: *mut sk_test_subscriptions);
    /// Subscribes to a signal now and records what it delivers, with the virtual time of each event.
    pub fn sk_test_record(out: *mut *mut sk_test_recorder, signal: *mut sk_signal, queue: *mut sk_queue, frame: f64) -> c_int;
    /// Prints what a recorder recorded so far as a canonical diagram.
    pub fn sk_test_recorder_diagram(recorder: *mut sk_test_recorder, values: *const sk_marble_value, count: usize, buffer: *mut c_char, size: usize, out_length: *mut usize) -> c_int;
    /// Disposes the recorded subscription: nothing more is recorded.
    pub fn sk_test_recorder_dispose(recorder: *mut sk_test_recorder);
    /// Drops a reference to a recorder; the last one disposes its subscription.
    pub fn sk_test_recorder_release(recorder: *mut sk_test_recorder);
}

// include/signalkit_ffi.h

/// The functions of `signalkit_ffi.h` (libsignalkit-ffi; the crate's feature `ffi` links it).
#[cfg(feature = "ffi")]
pub mod ffi {
    use super::*;

    extern "C" {
        /// The message of the last error of an sk_ffi_ function on the calling thread.
        pub fn sk_ffi_last_error_message() -> *const c_char;
        /// The number of objects of this library currently alive.
        pub fn sk_ffi_live_objects() -> c_long;
        /// Creates a signature from a result type and argument types.
        pub fn sk_ffi_signature_create(out: *mut *mut sk_ffi_signature, result: sk_ffi_type, args: *const sk_ffi_type, count: usize) -> c_int;
        /// Parses the string form of a signature.
        pub fn sk_ffi_signature_parse(out: *mut *mut sk_ffi_signature, text: *const c_char) -> c_int;
        /// The return type of a signature.
        pub fn sk_ffi_signature_result(signature: *const sk_ffi_signature) -> sk_ffi_type;
        /// The number of arguments of a signature.
        pub fn sk_ffi_signature_arg_count(signature: *const sk_ffi_signature) -> usize;
        /// The type of argument `index` of a signature.
        pub fn sk_ffi_signature_arg(signature: *const sk_ffi_signature, index: usize) -> sk_ffi_type;
        /// Adds a reference to a signature.
        pub fn sk_ffi_signature_retain(signature: *mut sk_ffi_signature) -> *mut sk_ffi_signature;
        /// Drops a reference to a signature.
        pub fn sk_ffi_signature_release(signature: *mut sk_ffi_signature);
        /// Fails the delivery that the calling typed callback is handling.
        pub fn sk_ffi_callback_fail(message: *const c_char) -> c_int;
        /// Starts a signal, calling typed callbacks.
        pub fn sk_ffi_signal_start(out: *mut *mut sk_disposable, signal: *mut sk_signal, observer: *const sk_ffi_observer) -> c_int;
        /// Values transformed by a typed function.
        pub fn sk_ffi_signal_map(out: *mut *mut sk_signal, signal: *mut sk_signal, signature: *mut sk_ffi_signature, fn_: sk_ffi_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
        /// Only the values for which a typed function returns true.
        pub fn sk_ffi_signal_filter(out: *mut *mut sk_signal, signal: *mut sk_signal, signature: *mut sk_ffi_signature, fn_: sk_ffi_fn, ctx: *mut c_void, release: sk_release_fn) -> c_int;
        /// Makes a trampoline putting into a subscriber with sk_subscriber_put_next().
        pub fn sk_ffi_trampoline_subscriber(out: *mut *mut sk_ffi_trampoline, subscriber: *mut sk_subscriber, signature: *mut sk_ffi_signature) -> c_int;
        /// Makes a trampoline putting into a pipe with sk_pipe_put().
        pub fn sk_ffi_trampoline_pipe(out: *mut *mut sk_ffi_trampoline, pipe: *mut sk_pipe, signature: *mut sk_ffi_signature) -> c_int;
        /// The trampoline's function itself.
        pub fn sk_ffi_trampoline_function(trampoline: *mut sk_ffi_trampoline) -> sk_ffi_fn;
        /// Detaches a trampoline from its subscriber or pipe.
        pub fn sk_ffi_trampoline_close(trampoline: *mut sk_ffi_trampoline);
        /// The number of calls that put a value into the subscriber or pipe.
        pub fn sk_ffi_trampoline_calls(trampoline: *mut sk_ffi_trampoline) -> u64;
        /// Adds a reference to a trampoline.
        pub fn sk_ffi_trampoline_retain(trampoline: *mut sk_ffi_trampoline) -> *mut sk_ffi_trampoline;
        /// Drops a reference to a trampoline.
        pub fn sk_ffi_trampoline_release(trampoline: *mut sk_ffi_trampoline);
    }
}
