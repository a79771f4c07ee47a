//! Values: the owned C value [`RawValue`], the borrowed view [`ValueRef`],
//! the conversion trait [`Value`] and the dynamic value [`AnyValue`].
use std::any::TypeId;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_void};
use std::sync::atomic::AtomicU8;
use std::sync::Arc;
use std::{fmt, mem, ptr, slice};

use crate::error::{check, Error};
use crate::signal::Signal;
use crate::sys;

/// An owned `sk_value`: it holds one reference to the library object of a
/// heap kind and drops it with `sk_value_release`. Cloning copies the
/// reference (`sk_value_copy`), never the contents.
///
/// Thread-safety: the library's values are immutable and thread-safe: a
/// `RawValue` is `Send` and `Sync`.
#[repr(transparent)]
pub struct RawValue(sys::sk_value);

// Safety: the objects behind heap kinds are immutable and thread-safe (the
// header's "Values"); a user pointer is one of this crate's carriers, whose
// payload is Send + Sync (see `Value for Arc<T>`).
unsafe impl Send for RawValue {}
unsafe impl Sync for RawValue {}

const NIL: sys::sk_value = sys::sk_value { kind: sys::SK_KIND_NIL, u: sys::sk_value_u { int64: 0 } };

impl RawValue {
    /// Nil.
    #[inline]
    pub fn nil() -> RawValue {
        RawValue(NIL)
    }

    /// An int64 (inline: no allocation, no call).
    #[inline]
    pub fn int64(value: i64) -> RawValue {
        RawValue(sys::sk_value { kind: sys::SK_KIND_INT64, u: sys::sk_value_u { int64: value } })
    }

    /// A double (inline).
    #[inline]
    pub fn double(value: f64) -> RawValue {
        RawValue(sys::sk_value { kind: sys::SK_KIND_DOUBLE, u: sys::sk_value_u { real: value } })
    }

    /// A bool (inline).
    #[inline]
    pub fn boolean(value: bool) -> RawValue {
        RawValue(sys::sk_value { kind: sys::SK_KIND_BOOL, u: sys::sk_value_u { boolean: value } })
    }

    /// A string: a copy of `text` (embedded NULs allowed).
    pub fn string(text: &str) -> Result<RawValue, Error> {
        let mut out = RawValue::nil();
        // Safety: `text` is valid for its length; `out` is a value.
        check(unsafe { sys::sk_value_set_string_n(&mut out.0, text.as_ptr() as *const c_char, text.len()) })?;
        Ok(out)
    }

    /// Bytes: a copy of `data`.
    pub fn bytes(data: &[u8]) -> Result<RawValue, Error> {
        let mut out = RawValue::nil();
        // Safety: as for string.
        check(unsafe { sys::sk_value_set_bytes(&mut out.0, data.as_ptr() as *const c_void, data.len()) })?;
        Ok(out)
    }

    /// An array of `items` (retained by the array).
    pub fn array(items: &[RawValue]) -> Result<RawValue, Error> {
        let mut out = RawValue::nil();
        // Safety: RawValue is repr(transparent) over sk_value.
        check(unsafe { sys::sk_value_set_array(&mut out.0, items.as_ptr() as *const sys::sk_value, items.len()) })?;
        Ok(out)
    }

    /// A signal value (retains the signal).
    pub fn signal<T>(signal: &Signal<T>) -> Result<RawValue, Error> {
        let mut out = RawValue::nil();
        // Safety: a live signal handle.
        check(unsafe { sys::sk_value_set_signal(&mut out.0, signal.as_raw()) })?;
        Ok(out)
    }

    /// A copy of the borrowed value `value` (`sk_value_copy`).
    pub fn copy_of(value: ValueRef<'_>) -> RawValue {
        let mut out = RawValue::nil();
        // Safety: `value` is a valid value for its lifetime. sk_value_copy
        // fails only for NULL arguments.
        unsafe { sys::sk_value_copy(&mut out.0, value.0) };
        out
    }

    /// The value, borrowed.
    #[inline]
    pub fn as_ref(&self) -> ValueRef<'_> {
        ValueRef(&self.0, PhantomData)
    }

    /// Takes the C value out, its reference with it (for an `out`
    /// parameter whose reference the library takes).
    #[inline]
    pub fn into_raw(self) -> sys::sk_value {
        let value = self.0;
        mem::forget(self);
        value
    }

    /// Adopts a C value and its reference.
    ///
    /// # Safety
    /// `value` must be a valid `sk_value` whose reference the caller owns.
    #[inline]
    pub unsafe fn from_raw(value: sys::sk_value) -> RawValue {
        RawValue(value)
    }

    /// A pointer for the C functions that borrow a value.
    #[inline]
    pub fn as_ptr(&self) -> *const sys::sk_value {
        &self.0
    }
}

impl Clone for RawValue {
    fn clone(&self) -> RawValue {
        RawValue::copy_of(self.as_ref())
    }
}

impl Drop for RawValue {
    #[inline]
    fn drop(&mut self) {
        if self.0.kind > sys::SK_KIND_DOUBLE {
            // Safety: the value owns its reference.
            unsafe { sys::sk_value_release(&mut self.0) }
        }
    }
}

impl PartialEq for RawValue {
    fn eq(&self, other: &RawValue) -> bool {
        self.as_ref() == other.as_ref()
    }
}

impl fmt::Debug for RawValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&AnyValue::from_value(self.as_ref()), f)
    }
}

/// A value borrowed from the library for the duration of a callback (the
/// C contract: `const sk_value *`, valid for the call). Its lifetime keeps
/// it, and what its accessors return, inside the call; [`RawValue::copy_of`]
/// or [`Value::from_value`] keep a value.
#[derive(Clone, Copy)]
pub struct ValueRef<'a>(*const sys::sk_value, PhantomData<&'a sys::sk_value>);

impl fmt::Debug for ValueRef<'_> {
    /// The value it borrows, as an [`AnyValue`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ValueRef").field(&AnyValue::from_value(*self)).finish()
    }
}

impl<'a> ValueRef<'a> {
    /// Borrows a C value.
    ///
    /// # Safety
    /// `value` must point to a valid `sk_value` that stays valid for `'a`.
    #[inline]
    pub unsafe fn from_ptr(value: *const sys::sk_value) -> ValueRef<'a> {
        ValueRef(value, PhantomData)
    }

    /// The C pointer.
    #[inline]
    pub fn as_ptr(self) -> *const sys::sk_value {
        self.0
    }

    /// A bitwise copy of the C value: a view of the same library object,
    /// no reference taken, to borrow ([`ValueRef::from_ptr`]) within `'a`
    /// and no longer than the copy lives. The callbacks convert their value through one,
    /// read before their panic catch: the catch's bookkeeping is a store
    /// to a thread-local, which the compiler cannot tell apart from the
    /// C value behind a pointer, so that a value read after it would keep
    /// that bookkeeping on the path of a conversion that cannot panic (an
    /// `i64`'s, inlined); read before, the copy lives in registers and the
    /// bookkeeping of a catch that nothing can reach goes.
    #[inline(always)]
    pub(crate) fn copied(self) -> sys::sk_value {
        *self.raw()
    }

    #[inline]
    fn raw(self) -> &'a sys::sk_value {
        // Safety: valid for 'a (from_ptr's contract).
        unsafe { &*self.0 }
    }

    /// The kind (`sys::SK_KIND_*`).
    #[inline]
    pub fn kind(self) -> sys::sk_kind {
        self.raw().kind
    }

    #[cold]
    #[inline(never)]
    fn wrong(self, expected: &str) -> Error {
        Error::new(
            sys::SK_ERR_WRONG_KIND,
            format!("signalkit: expected {}, received {}", expected, kind_name(self.kind())),
        )
    }

    /// The bool, if it is one.
    #[inline]
    pub fn as_bool(self) -> Result<bool, Error> {
        if self.kind() == sys::SK_KIND_BOOL {
            // Safety: the kind says which member is live.
            Ok(unsafe { self.raw().u.boolean })
        } else {
            Err(self.wrong("a bool"))
        }
    }

    /// The int64, if it is one.
    #[inline]
    pub fn as_i64(self) -> Result<i64, Error> {
        if self.kind() == sys::SK_KIND_INT64 {
            // Safety: as above.
            Ok(unsafe { self.raw().u.int64 })
        } else {
            Err(self.wrong("an int64"))
        }
    }

    /// The double, if it is one.
    #[inline]
    pub fn as_f64(self) -> Result<f64, Error> {
        if self.kind() == sys::SK_KIND_DOUBLE {
            // Safety: as above.
            Ok(unsafe { self.raw().u.real })
        } else {
            Err(self.wrong("a double"))
        }
    }

    /// The string's bytes (UTF-8 as the library keeps it), borrowed.
    pub fn as_str_bytes(self) -> Result<&'a [u8], Error> {
        let mut text: *const c_char = ptr::null();
        let mut length = 0usize;
        // Safety: a valid value; the text lives as long as the value.
        let status = unsafe { sys::sk_value_get_string(self.0, &mut text, &mut length) };
        if status != sys::SK_OK {
            return Err(self.wrong("a string"));
        }
        Ok(unsafe { slice::from_raw_parts(text as *const u8, length) })
    }

    /// The string, borrowed; an error if it is not UTF-8.
    pub fn as_str(self) -> Result<&'a str, Error> {
        std::str::from_utf8(self.as_str_bytes()?)
            .map_err(|e| Error::new(sys::SK_ERR_INVALID_ARGUMENT, format!("signalkit: a string that is not UTF-8: {}", e)))
    }

    /// The bytes, borrowed.
    pub fn as_bytes(self) -> Result<&'a [u8], Error> {
        let mut data: *const c_void = ptr::null();
        let mut length = 0usize;
        // Safety: as for strings.
        let status = unsafe { sys::sk_value_get_bytes(self.0, &mut data, &mut length) };
        if status != sys::SK_OK {
            return Err(self.wrong("bytes"));
        }
        if length == 0 {
            return Ok(&[]);
        }
        Ok(unsafe { slice::from_raw_parts(data as *const u8, length) })
    }

    /// The number of items of an array.
    pub fn array_len(self) -> Result<usize, Error> {
        let mut count = 0usize;
        // Safety: a valid value.
        if unsafe { sys::sk_value_get_array_count(self.0, &mut count) } != sys::SK_OK {
            return Err(self.wrong("an array"));
        }
        Ok(count)
    }

    /// The items of an array, borrowed from it, in order (one call into
    /// the library for all of them).
    pub fn items(self) -> Result<impl ExactSizeIterator<Item = ValueRef<'a>>, Error> {
        let mut first: *const sys::sk_value = ptr::null();
        let mut count = 0usize;
        // Safety: a valid value.
        if unsafe { sys::sk_value_get_array_items(self.0, &mut first, &mut count) } != sys::SK_OK {
            return Err(self.wrong("an array"));
        }
        let items: &'a [sys::sk_value] = if count == 0 {
            &[]
        } else {
            // Safety: `count` contiguous items, borrowed from the array,
            // which lives as long as the value this borrows.
            unsafe { slice::from_raw_parts(first, count) }
        };
        Ok(items.iter().map(|item| ValueRef(item, PhantomData)))
    }

    /// Item `index` of an array, borrowed from it.
    pub fn item(self, index: usize) -> Result<ValueRef<'a>, Error> {
        let mut item: *const sys::sk_value = ptr::null();
        // Safety: a valid value; the item lives as long as the array.
        check(unsafe { sys::sk_value_get_array_item(self.0, index, &mut item) })?;
        Ok(ValueRef(item, PhantomData))
    }

    /// The signal of a signal value, retained (typed by the caller: its
    /// values are converted, and checked, when they are delivered).
    pub fn to_signal<T>(self) -> Result<Signal<T>, Error> {
        let mut signal: *mut sys::sk_signal = ptr::null_mut();
        // Safety: a valid value; the signal is borrowed, then retained.
        if unsafe { sys::sk_value_get_signal(self.0, &mut signal) } != sys::SK_OK {
            return Err(self.wrong("a signal"));
        }
        Ok(unsafe { Signal::from_raw(sys::sk_signal_retain(signal)) })
    }

    /// The payload of a pointer value this crate made for a `T`
    /// ([`Value for Arc<T>`](Value)), borrowed; None for another kind or type.
    #[inline]
    pub fn carried<T: 'static>(self) -> Option<&'a T> {
        if self.kind() != sys::SK_KIND_POINTER {
            return None;
        }
        let mut pointer: *mut c_void = ptr::null_mut();
        // Safety: a valid value.
        if unsafe { sys::sk_value_get_pointer(self.0, &mut pointer) } != sys::SK_OK || pointer.is_null() {
            return None;
        }
        // Safety: every pointer value that reaches the safe layer is a
        // carrier of this crate (module docs, "Pointer values"): its head
        // is a CarrierHead, whatever T.
        let head = unsafe { &*(pointer as *const CarrierHead) };
        if head.magic != MAGIC || head.type_id != TypeId::of::<T>() {
            return None;
        }
        Some(unsafe { &(*(pointer as *const Carrier<T>)).value })
    }
}

impl PartialEq for ValueRef<'_> {
    /// `sk_value_equal`: structural, pointers and signals by identity.
    fn eq(&self, other: &Self) -> bool {
        // Safety: both valid.
        unsafe { sys::sk_value_equal(self.0, other.0) }
    }
}

fn kind_name(kind: sys::sk_kind) -> &'static str {
    match kind {
        sys::SK_KIND_NIL => "nil",
        sys::SK_KIND_BOOL => "a bool",
        sys::SK_KIND_INT64 => "an int64",
        sys::SK_KIND_DOUBLE => "a double",
        sys::SK_KIND_STRING => "a string",
        sys::SK_KIND_BYTES => "bytes",
        sys::SK_KIND_ARRAY => "an array",
        sys::SK_KIND_POINTER => "a pointer",
        sys::SK_KIND_SIGNAL => "a signal",
        _ => "a value of an unknown kind",
    }
}

// --- Pointer values -------------------------------------------------------

const MAGIC: u64 = 0x5349_474e_414c_4b52; // "SIGNALKR"

/// The head of every pointer value this crate makes: a tag and the type of
/// its payload, the same offsets whatever the payload.
#[repr(C)]
struct CarrierHead {
    magic: u64,
    type_id: TypeId,
}

#[repr(C)]
struct Carrier<T> {
    head: CarrierHead,
    value: T,
}

unsafe extern "C" fn release_carrier<T>(pointer: *mut c_void) {
    // A payload whose drop panics must not unwind into C: the panic is
    // reported and the rest of the payload leaked.
    if let Err(message) = crate::callback::catching(|| drop(Box::from_raw(pointer as *mut Carrier<T>))) {
        crate::callback::report_failure("release", &format!("the drop of a value {}", message));
    }
}

/// A pointer value whose release drops `value` (on the thread that drops
/// the value's last copy).
pub(crate) fn carry<T: Send + Sync + 'static>(value: T) -> RawValue {
    crate::callback::quiet_panics();
    let carrier = Box::new(Carrier { head: CarrierHead { magic: MAGIC, type_id: TypeId::of::<T>() }, value });
    let pointer = Box::into_raw(carrier) as *mut c_void;
    let mut out = RawValue::nil();
    // Safety: sk_value_set_pointer fails only for a NULL out, and runs the
    // release when it fails.
    unsafe { sys::sk_value_set_pointer(&mut out.0, pointer, Some(release_carrier::<T>)) };
    out
}

/// The error value of a failure this crate reports through the library (a
/// panic, a value that did not convert): a string value of its message
/// (nil when even that cannot be made: out of memory).
pub(crate) fn error_value(message: &str) -> RawValue {
    RawValue::string(message).unwrap_or_else(|_| RawValue::nil())
}

/// The tag of a subscription's own failure ([`failure_value`]): only its
/// address counts. An atomic, so that no other static shares the address.
static FAILURE_TAG: AtomicU8 = AtomicU8::new(0);

/// The error value a subscription gives the library when its next closure
/// fails (`sk_callback_fail`: a panic, a value not converted): an array of
/// a pointer to `FAILURE_TAG` (no carrier, no release: never read through)
/// and the message. The library hands it to the subscription's error
/// callback alone, which reads it back with [`failure_message`] as the
/// [`AnyValue::Failure`] the crate promises (a string would arrive as an
/// [`AnyValue::String`]).
pub(crate) fn failure_value(message: &str) -> Result<RawValue, Error> {
    let mut tag = RawValue::nil();
    let pointer = &FAILURE_TAG as *const AtomicU8 as *mut c_void;
    // Safety: `tag` is a value; a pointer without a release function.
    check(unsafe { sys::sk_value_set_pointer(&mut tag.0, pointer, None) })?;
    RawValue::array(&[tag, RawValue::string(message)?])
}

/// The message of a [`failure_value`]; None for any other value (a pointer
/// item is compared by address, never read through).
pub(crate) fn failure_message(value: ValueRef<'_>) -> Option<String> {
    if value.kind() != sys::SK_KIND_ARRAY || value.array_len().ok()? != 2 {
        return None;
    }
    let tag = value.item(0).ok()?;
    if tag.kind() != sys::SK_KIND_POINTER {
        return None;
    }
    let mut pointer: *mut c_void = ptr::null_mut();
    // Safety: a valid value of the pointer kind.
    let status = unsafe { sys::sk_value_get_pointer(tag.as_ptr(), &mut pointer) };
    if status != sys::SK_OK || !ptr::eq(pointer as *const AtomicU8, &FAILURE_TAG) {
        return None;
    }
    Some(value.item(1).ok()?.as_str().ok()?.to_owned())
}

/// Why a value did not convert to `T`, once the fast path refused it: the
/// conversion's message, or its panic's (`"panicked: MESSAGE"`: a `Value`
/// of one's own may panic, and this runs in callbacks from C).
#[cold]
#[inline(never)]
pub(crate) fn conversion_message<T: Value>(value: ValueRef<'_>) -> String {
    let message = crate::callback::catching(|| match T::from_value(value) {
        Ok(_) => "signalkit: a value converted only on a second try".to_owned(),
        Err(e) => e.message().to_owned(),
    });
    message.unwrap_or_else(|panic| panic)
}

// --- The conversion trait -------------------------------------------------

/// A Rust type that travels through signals as an `sk_value`.
///
/// Implemented for `i64`, `i32`, `u32`, `f64`, `bool`, `()` (nil),
/// `String`, `Vec<u8>` (bytes), `Vec<T>` (arrays), pairs `(A, B)` (arrays
/// of two, as `pairwise`, `zip` and `with_latest_from` emit), `Option<T>`
/// (nil for None), [`Signal<T>`], [`AnyValue`], [`RawValue`], and `Arc<T>`
/// for any `T: Send + Sync + 'static`, carried as a user pointer whose drop
/// is the release (put a `Send`-only type in `Arc<Mutex<T>>`).
///
/// A value received is converted from the borrowed `sk_value` into an
/// owned `Self` (copied): nothing borrowed outlives the callback.
///
/// The conversions of a value delivered run in the callback that takes it
/// or gives it, under the same rule as its closure: an error, or a panic
/// (`"panicked: MESSAGE"`), of `from_value` or `to_value` (or of the drop of
/// the value converted) in an operator's callback ends the stream with
/// that error; in a subscription's, it ends the subscription with
/// [`AnyValue::Failure`]; in a side effect or an `on_drop`, it goes to the
/// failure hook ([`crate::set_failure_hook`]). It never unwinds into C.
///
/// A type of one's own converts through one of these:
///
/// ```
/// use rsignalkit::{Error, RawValue, Signal, Value, ValueRef};
///
/// #[derive(Debug, PartialEq)]
/// struct Celsius(f64);
///
/// impl Value for Celsius {
///     fn to_value(&self) -> Result<RawValue, Error> {
///         Ok(RawValue::double(self.0))
///     }
///     fn from_value(value: ValueRef<'_>) -> Result<Celsius, Error> {
///         value.as_f64().map(Celsius)
///     }
/// }
///
/// let mut got = Vec::new();
/// Signal::single(Celsius(21.5)).for_each_blocking(|c| got.push(c)).unwrap();
/// assert_eq!(got, vec![Celsius(21.5)]);
/// ```
pub trait Value: Send + Sized + 'static {
    /// The value as an owned `sk_value`.
    fn to_value(&self) -> Result<RawValue, Error>;
    /// A value of this type read from a borrowed `sk_value`; an error when
    /// it has another kind (nothing is converted: an int64 is no double).
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error>;

    /// [`from_value`](Value::from_value) without the error (the callbacks'
    /// fast path: an `Option` comes back in registers, and the message is
    /// made only when it is needed). Override it only for a cheaper path.
    #[doc(hidden)]
    #[inline]
    fn from_value_fast(value: ValueRef<'_>) -> Option<Self> {
        Self::from_value(value).ok()
    }
}

impl Value for i64 {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        Ok(RawValue::int64(*self))
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<i64, Error> {
        value.as_i64()
    }
    #[inline]
    fn from_value_fast(value: ValueRef<'_>) -> Option<i64> {
        let raw = value.raw();
        // Safety: the kind says which member is live.
        if raw.kind == sys::SK_KIND_INT64 {
            Some(unsafe { raw.u.int64 })
        } else {
            None
        }
    }
}

macro_rules! narrow_int {
    ($t:ty) => {
        impl Value for $t {
            #[inline]
            fn to_value(&self) -> Result<RawValue, Error> {
                Ok(RawValue::int64(i64::from(*self)))
            }
            #[inline]
            fn from_value(value: ValueRef<'_>) -> Result<$t, Error> {
                let wide = value.as_i64()?;
                <$t>::try_from(wide).map_err(|_| {
                    Error::new(
                        sys::SK_ERR_INVALID_ARGUMENT,
                        format!("signalkit: the int64 {} is outside the range of {}", wide, stringify!($t)),
                    )
                })
            }
        }
    };
}
narrow_int!(i32);
narrow_int!(u32);

impl Value for f64 {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        Ok(RawValue::double(*self))
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<f64, Error> {
        value.as_f64()
    }
    #[inline]
    fn from_value_fast(value: ValueRef<'_>) -> Option<f64> {
        let raw = value.raw();
        // Safety: the kind says which member is live.
        if raw.kind == sys::SK_KIND_DOUBLE {
            Some(unsafe { raw.u.real })
        } else {
            None
        }
    }
}

impl Value for bool {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        Ok(RawValue::boolean(*self))
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<bool, Error> {
        value.as_bool()
    }
    #[inline]
    fn from_value_fast(value: ValueRef<'_>) -> Option<bool> {
        let raw = value.raw();
        // Safety: the kind says which member is live.
        if raw.kind == sys::SK_KIND_BOOL {
            Some(unsafe { raw.u.boolean })
        } else {
            None
        }
    }
}

impl Value for () {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        Ok(RawValue::nil())
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<(), Error> {
        if value.kind() == sys::SK_KIND_NIL {
            Ok(())
        } else {
            Err(value.wrong("nil"))
        }
    }
}

impl Value for String {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        RawValue::string(self)
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<String, Error> {
        value.as_str().map(str::to_owned)
    }
}

impl Value for Vec<u8> {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        RawValue::bytes(self)
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<Vec<u8>, Error> {
        value.as_bytes().map(<[u8]>::to_vec)
    }
}

impl<T: Value> Value for Vec<T> {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        let items = self.iter().map(Value::to_value).collect::<Result<Vec<_>, _>>()?;
        RawValue::array(&items)
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<Vec<T>, Error> {
        value.items()?.map(T::from_value).collect()
    }
}

impl<A: Value, B: Value> Value for (A, B) {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        RawValue::array(&[self.0.to_value()?, self.1.to_value()?])
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<(A, B), Error> {
        let mut items = value.items()?;
        let count = items.len();
        match (items.next(), items.next(), items.next()) {
            (Some(first), Some(second), None) => Ok((A::from_value(first)?, B::from_value(second)?)),
            _ => Err(Error::new(
                sys::SK_ERR_WRONG_KIND,
                format!("signalkit: expected an array of 2 values (a pair), received one of {}", count),
            )),
        }
    }
}

impl<T: Value> Value for Option<T> {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        match self {
            None => Ok(RawValue::nil()),
            Some(value) => value.to_value(),
        }
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<Option<T>, Error> {
        if value.kind() == sys::SK_KIND_NIL {
            Ok(None)
        } else {
            T::from_value(value).map(Some)
        }
    }
}

impl<T: Send + Sync + 'static> Value for Arc<T> {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        Ok(carry(Arc::clone(self)))
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<Arc<T>, Error> {
        value.carried::<Arc<T>>().cloned().ok_or_else(|| {
            if value.kind() == sys::SK_KIND_POINTER {
                Error::new(
                    sys::SK_ERR_WRONG_KIND,
                    format!("signalkit: a pointer value of another type than Arc<{}>", std::any::type_name::<T>()),
                )
            } else {
                value.wrong("a pointer")
            }
        })
    }
}

impl<T: Value> Value for Signal<T> {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        RawValue::signal(self)
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<Signal<T>, Error> {
        value.to_signal()
    }
}

impl Value for RawValue {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        Ok(self.clone())
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<RawValue, Error> {
        Ok(RawValue::copy_of(value))
    }
}

// --- The dynamic value ----------------------------------------------------

/// Any value, by kind: what an error event carries, and the type of a
/// signal whose values are of several kinds.
///
/// ```
/// use rsignalkit::{AnyValue, Signal};
/// let mixed = Signal::concat(&[
///     Signal::single(AnyValue::Int(1)),
///     Signal::single(AnyValue::from("two")),
///     Signal::single(AnyValue::Array(vec![AnyValue::Bool(true), AnyValue::Nil])),
/// ]);
/// let mut got = Vec::new();
/// mixed.for_each_blocking(|v| got.push(v)).unwrap();
/// assert_eq!(got[1], AnyValue::String("two".into()));
/// // A typed view of the same values fails on the first that does not fit:
/// let ints: Signal<i64> = mixed.cast();
/// assert!(matches!(ints.for_each_blocking(|_| ()), Err(AnyValue::Failure(_))));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum AnyValue {
    /// No value.
    Nil,
    /// A bool.
    Bool(bool),
    /// An int64.
    Int(i64),
    /// A double.
    Double(f64),
    /// UTF-8 text.
    String(String),
    /// Bytes (also a string that is not UTF-8).
    Bytes(Vec<u8>),
    /// An array.
    Array(Vec<AnyValue>),
    /// A user pointer value ([`Opaque::downcast`] reads the `Arc<T>` of one
    /// this crate made).
    Pointer(Opaque),
    /// A signal.
    Signal(Signal<AnyValue>),
    /// A failure the subscription found itself, never a value of the stream:
    /// a value delivered to it did not convert to its type, or its own next
    /// closure panicked (`"panicked: MESSAGE"`); its error closure receives
    /// this message, and nothing after it. (A panic in an operator's
    /// closure, or a value an operator's closure could not take, ends the
    /// stream with the error as a string, which arrives as
    /// [`AnyValue::String`].) Sent as a value ([`Value::to_value`]), it is a
    /// string.
    Failure(String),
}

/// An error event's value read as a message: a string (what the library's
/// and the operators' errors are) as it is, a number or a bool as written,
/// a failure's message, nil as `nil`, bytes, an array, a pointer or a signal
/// named. With [`std::error::Error`], so that `?` turns an error event
/// ([`Signal::for_each_blocking`], a [`SignalStream`](crate::SignalStream))
/// into a `Box<dyn std::error::Error>`.
impl fmt::Display for AnyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyValue::Nil => f.write_str("nil"),
            AnyValue::Bool(value) => write!(f, "{}", value),
            AnyValue::Int(value) => write!(f, "{}", value),
            AnyValue::Double(value) => write!(f, "{}", value),
            AnyValue::String(text) | AnyValue::Failure(text) => f.write_str(text),
            AnyValue::Bytes(bytes) => write!(f, "{} bytes", bytes.len()),
            AnyValue::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", item)?;
                }
                f.write_str("]")
            }
            AnyValue::Pointer(_) => f.write_str("a pointer value"),
            AnyValue::Signal(_) => f.write_str("a signal value"),
        }
    }
}

impl std::error::Error for AnyValue {}

/// A user pointer value, kept (a copy of the value).
#[derive(Clone)]
pub struct Opaque(RawValue);

impl Opaque {
    /// The `Arc<T>` it carries, if it carries one.
    pub fn downcast<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0.as_ref().carried::<Arc<T>>().cloned()
    }
}

impl PartialEq for Opaque {
    fn eq(&self, other: &Opaque) -> bool {
        self.0 == other.0
    }
}

impl fmt::Debug for Opaque {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Opaque(..)")
    }
}

impl AnyValue {
    /// The value read from a borrowed `sk_value`. Never fails: every kind
    /// has a variant, and a value that cannot be read (a kind this crate
    /// does not know, or arrays nested more than `SK_VALUE_MAX_DEPTH` deep,
    /// which the library's operators make of values fed back to them) is an
    /// [`AnyValue::Failure`] saying why.
    pub fn from_value(value: ValueRef<'_>) -> AnyValue {
        <AnyValue as Value>::from_value(value).unwrap_or_else(|e| AnyValue::Failure(e.message().to_owned()))
    }
}

impl From<&str> for AnyValue {
    fn from(text: &str) -> AnyValue {
        AnyValue::String(text.to_owned())
    }
}

impl From<i64> for AnyValue {
    fn from(value: i64) -> AnyValue {
        AnyValue::Int(value)
    }
}

/// The array `items` at `depth` (1 for a value's outermost array) as an
/// `sk_value`: refused (status `SK_ERR_INVALID_ARGUMENT`) once arrays nest past
/// `SK_VALUE_MAX_DEPTH`, before the conversion walks deeper, so that a value
/// nested far deeper than that (which the library would refuse) cannot
/// overflow the converting thread's stack.
fn array_to_value(items: &[AnyValue], depth: i64) -> Result<RawValue, Error> {
    if depth > sys::SK_VALUE_MAX_DEPTH {
        return Err(too_deep());
    }
    // A plain loop, as array_from_value's: an iterator chain's frames, in a
    // debug build of Rust 1.63, overflowed a 256 KiB thread at the limit's
    // 128 levels.
    let mut converted = Vec::with_capacity(items.len());
    for item in items {
        converted.push(match item {
            AnyValue::Array(inner) => array_to_value(inner, depth + 1)?,
            other => other.to_value()?,
        });
    }
    RawValue::array(&converted)
}

/// Arrays nested past `SK_VALUE_MAX_DEPTH`, for either direction.
fn too_deep() -> Error {
    Error::new(
        sys::SK_ERR_INVALID_ARGUMENT,
        format!("signalkit: arrays nested more than {} deep (the limit is SK_VALUE_MAX_DEPTH)", sys::SK_VALUE_MAX_DEPTH),
    )
}

/// The array `value` at `depth` (1 for a value's outermost array) as an
/// `AnyValue`: refused once arrays nest past `SK_VALUE_MAX_DEPTH`, before
/// the conversion walks deeper. The library's operators make arrays one
/// level deeper than their values without a check (signalkit.h, at
/// `SK_VALUE_MAX_DEPTH`), so a program that feeds them back can hand this
/// crate a value nested far deeper than a thread's stack could walk.
fn array_from_value(value: ValueRef<'_>, depth: i64) -> Result<AnyValue, Error> {
    if depth > sys::SK_VALUE_MAX_DEPTH {
        return Err(too_deep());
    }
    // A plain loop: an iterator chain's frames, in a debug build, made
    // each level cost kilobytes of stack.
    let items = value.items()?;
    let mut converted = Vec::with_capacity(items.len());
    for item in items {
        converted.push(match item.kind() {
            sys::SK_KIND_ARRAY => array_from_value(item, depth + 1)?,
            _ => <AnyValue as Value>::from_value(item)?,
        });
    }
    Ok(AnyValue::Array(converted))
}

impl Value for AnyValue {
    #[inline]
    fn to_value(&self) -> Result<RawValue, Error> {
        match self {
            AnyValue::Nil => Ok(RawValue::nil()),
            AnyValue::Bool(b) => Ok(RawValue::boolean(*b)),
            AnyValue::Int(i) => Ok(RawValue::int64(*i)),
            AnyValue::Double(d) => Ok(RawValue::double(*d)),
            AnyValue::String(s) => RawValue::string(s),
            AnyValue::Bytes(b) => RawValue::bytes(b),
            AnyValue::Array(items) => array_to_value(items, 1),
            AnyValue::Pointer(p) => Ok(p.0.clone()),
            AnyValue::Signal(s) => RawValue::signal(s),
            AnyValue::Failure(m) => RawValue::string(m),
        }
    }
    #[inline]
    fn from_value(value: ValueRef<'_>) -> Result<AnyValue, Error> {
        Ok(match value.kind() {
            sys::SK_KIND_NIL => AnyValue::Nil,
            sys::SK_KIND_BOOL => AnyValue::Bool(value.as_bool()?),
            sys::SK_KIND_INT64 => AnyValue::Int(value.as_i64()?),
            sys::SK_KIND_DOUBLE => AnyValue::Double(value.as_f64()?),
            sys::SK_KIND_STRING => match value.as_str() {
                Ok(text) => AnyValue::String(text.to_owned()),
                Err(_) => AnyValue::Bytes(value.as_str_bytes()?.to_vec()),
            },
            sys::SK_KIND_BYTES => AnyValue::Bytes(value.as_bytes()?.to_vec()),
            sys::SK_KIND_ARRAY => array_from_value(value, 1)?,
            sys::SK_KIND_POINTER => AnyValue::Pointer(Opaque(RawValue::copy_of(value))),
            sys::SK_KIND_SIGNAL => AnyValue::Signal(value.to_signal()?),
            other => {
                return Err(Error::new(sys::SK_ERR_INVALID_ARGUMENT, format!("signalkit: unknown value kind {}", other)))
            }
        })
    }
}
