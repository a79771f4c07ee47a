/* internal.h - shared declarations of libsignalkit-ffi (not installed). */
#ifndef SK_FFI_INTERNAL_H
#define SK_FFI_INTERNAL_H

#include <ffi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "signalkit_ffi.h"

#define SK_FFI_EXPORT __attribute__((visibility("default")))

/* errors.c ---------------------------------------------------------------- */

/* Formats the calling thread's last error message and returns `status`. */
int sk_ffi__fail(int status, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Copies the core's last error message after a failing signalkit.h call
 * made by `function`, and returns `status`. */
int sk_ffi__fail_core(int status, const char *function);
/* Runs `release(ctx)` (NULL: nothing) on the path of a failing call, once
 * its message is set, and puts the message back afterwards: `release` is
 * user code that may call this library (a binding's release drops the
 * handles it kept, and a drop can fail), and the caller reads the message of
 * its own call after it returns. */
void sk_ffi__release_keeping_message(sk_release_fn release, void *ctx);

/* live.c ------------------------------------------------------------------ */

void sk_ffi__live_add(void);
void sk_ffi__live_remove(void);

/* A reference count word. */
static inline void sk_ffi__ref_init(long *count) { __atomic_store_n(count, 1, __ATOMIC_RELAXED); }
static inline void sk_ffi__ref_retain(long *count) { __atomic_add_fetch(count, 1, __ATOMIC_RELAXED); }
/* True when the last reference was dropped. */
static inline int sk_ffi__ref_release(long *count) { return __atomic_sub_fetch(count, 1, __ATOMIC_ACQ_REL) == 0; }

/* handles.c --------------------------------------------------------------- */

/* The tag words of this library's handles: not a user-space address, so
 * never the first word of a core handle (a Swift object's type pointer),
 * which the core compares to tell a handle of this library from its own
 * without dereferencing it. Cleared when the object is freed. */
#define SK_FFI_SIGNATURE_TAG UINT64_C(0x5349474e5f464653)  /* "SFF_NGIS" */
#define SK_FFI_TRAMPOLINE_TAG UINT64_C(0x504d41525f464653) /* "SFF_RAMP" */

/* The first member of every handle of this library: its tag, and its link
 * in the registry of live handles (handles.c). */
typedef struct sk_ffi_handle {
    uint64_t tag;
    struct sk_ffi_handle *next;
} sk_ffi_handle;

/* Sets `handle`'s tag and adds it to the registry: once the object is ready
 * to be handed out. */
void sk_ffi__register(sk_ffi_handle *handle, uint64_t tag);
/* Removes `handle` from the registry and clears its tag: before the object
 * is freed. */
void sk_ffi__unregister(sk_ffi_handle *handle);
/* The tag of the live handle of this library at `pointer`, or 0 when there
 * is none (NULL, a core handle, a released handle, anything else). Looks the
 * address up; never dereferences `pointer`. */
uint64_t sk_ffi__live_tag(const void *pointer);

/* Check a handle argument `name` of `function` as signalkit.h does, before
 * anything else is done with it: SK_OK, or SK_ERR_NULL_ARGUMENT ("FUNCTION:
 * NAME is NULL"), SK_ERR_WRONG_KIND ("FUNCTION: NAME is not a signal"; also
 * for a live handle of this library, in both modes), SK_ERR_RELEASED (with
 * handle checking on: "FUNCTION: NAME was already released (or never was a
 * handle)") with the message set. */
int sk_ffi__check_signal(const char *function, const char *name, sk_signal *signal);
int sk_ffi__check_pipe(const char *function, const char *name, sk_pipe *pipe);
int sk_ffi__check_subscriber(const char *function, const char *name, sk_subscriber *subscriber);
/* The same for a handle of this library with tag `tag` (`what`, with its
 * article: "a signature"): SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND for a
 * live handle of the other kind, a live core handle, and (checking off)
 * anything else; SK_ERR_RELEASED with handle checking on for a pointer that
 * neither library knows as live. */
int sk_ffi__check_own(const char *function, const char *name, const void *handle, uint64_t tag, const char *what);
static inline int sk_ffi__check_signature(const char *function, const char *name, const sk_ffi_signature *signature) {
    return sk_ffi__check_own(function, name, signature, SK_FFI_SIGNATURE_TAG, "a signature");
}

/* signature.c ------------------------------------------------------------- */

struct sk_ffi_signature {
    sk_ffi_handle handle; /* first, as in every handle of this library */
    long refs;
    sk_ffi_type result;
    size_t count;
    sk_ffi_type args[SK_FFI_MAX_ARGS];
    ffi_type *ffi_args[SK_FFI_MAX_ARGS];
    ffi_cif cif;
    int direct; /* a shape of sk_ffi__direct_shape(), or 0: called through libffi */
};


/* The short name of a type ("i64"), "?" when out of range. */
const char *sk_ffi__type_name(sk_ffi_type type);

/* convert.c --------------------------------------------------------------- */

/* Storage for one native argument or result. */
typedef union sk_ffi_slot {
    ffi_arg word; /* what libffi writes for integral results narrower than a register */
    uint8_t boolean;
    int8_t i8;
    int16_t i16;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    float f32;
    int32_t i32;
    int64_t i64;
    uint64_t u64;
    double real;
    const char *string;
    void *pointer;
    const sk_value *value;
} sk_ffi_slot;

/* direct.c --------------------------------------------------------------- */

/* The shapes a callback is called in directly, through a C function pointer
 * of its exact type, instead of through ffi_call: an optional leading ctx,
 * one value argument of type i64 or f64, a result of type void, bool, i64 or
 * f64 (the signatures a map, a filter or a typed next of numbers has). The
 * shape is computed once, when the signature is made: 0 for any other
 * signature, else SK_FFI__DIRECT(ctx, argument, result). */
enum { SK_FFI__ARG_I64 = 1, SK_FFI__ARG_F64 = 2 };
enum { SK_FFI__RESULT_VOID = 1, SK_FFI__RESULT_BOOL = 2, SK_FFI__RESULT_I64 = 3, SK_FFI__RESULT_F64 = 4 };
#define SK_FFI__DIRECT(ctx, argument, result) (1 | ((ctx) << 1) | ((argument) << 2) | ((result) << 4))

int sk_ffi__direct_shape(sk_ffi_type result, const sk_ffi_type *args, size_t count);

/* Calls `fn` in its direct `shape` with `ctx` and the converted value
 * argument `arg`, writing the result into `result` as ffi_call writes it
 * (a bool widened to ffi_arg). */
void sk_ffi__call_direct(int shape, void (*fn)(void), void *ctx, const sk_ffi_slot *arg, sk_ffi_slot *result);

/* Converts `value` (borrowed) to the native `type` into `*slot`. Returns 0,
 * or -1 when it does not convert (sk_ffi__to_native_why says why). The slot
 * borrows from `value` (strings, values). */
int sk_ffi__to_native(const sk_value *value, sk_ffi_type type, sk_ffi_slot *slot);

/* Why `value` does not convert to `type` ("int64 5000000000 out of range of
 * i32"), in `why`: the explanation of a -1 of sk_ffi__to_native. */
void sk_ffi__to_native_why(const sk_value *value, sk_ffi_type type, char *why, size_t size);

/* The bound of the int64 values that convert to f64: 2^53; to f32: 2^24. */
#define SK_FFI__EXACT_DOUBLE ((int64_t)1 << 53)
#define SK_FFI__EXACT_FLOAT ((int64_t)1 << 24)

/* Makes `*out` a primitive of `kind` with its payload zeroed, returning
 * `out` for the caller to write the payload's field: the bytes
 * sk_value_set_nil/bool/int64/double write (the layout of sk_value is the
 * ABI), without a call into the core per converted value. */
static inline sk_value *sk_ffi__set_primitive(sk_value *out, sk_kind kind) {
    memset(out, 0, sizeof *out);
    out->kind = kind;
    return out;
}

/* sk_ffi__from_native for the types whose every native value converts
 * (bool, the integers but u64, f32, f64), inline for the per-value paths: returns 0 with
 * `*out` written, or -1 for another type (`*out` untouched). */
static inline int sk_ffi__from_native_primitive(const void *native, sk_ffi_type type, int from_result, sk_value *out) {
    switch (type) {
    case SK_FFI_BOOL: {
        uint8_t b = from_result ? (uint8_t)*(const ffi_arg *)native : *(const uint8_t *)native;
        sk_ffi__set_primitive(out, SK_KIND_BOOL)->u.boolean = b != 0;
        return 0;
    }
    case SK_FFI_INT32: {
        int32_t n = from_result ? (int32_t)*(const ffi_sarg *)native : *(const int32_t *)native;
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = n;
        return 0;
    }
    case SK_FFI_INT8: {
        int8_t n = from_result ? (int8_t)*(const ffi_sarg *)native : *(const int8_t *)native;
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = n;
        return 0;
    }
    case SK_FFI_INT16: {
        int16_t n = from_result ? (int16_t)*(const ffi_sarg *)native : *(const int16_t *)native;
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = n;
        return 0;
    }
    case SK_FFI_UINT8: {
        uint8_t n = from_result ? (uint8_t)*(const ffi_arg *)native : *(const uint8_t *)native;
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = n;
        return 0;
    }
    case SK_FFI_UINT16: {
        uint16_t n = from_result ? (uint16_t)*(const ffi_arg *)native : *(const uint16_t *)native;
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = n;
        return 0;
    }
    case SK_FFI_UINT32: {
        uint32_t n = from_result ? (uint32_t)*(const ffi_arg *)native : *(const uint32_t *)native;
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = n;
        return 0;
    }
    case SK_FFI_FLOAT:
        /* libffi stores a float result as a float, not widened. */
        sk_ffi__set_primitive(out, SK_KIND_DOUBLE)->u.real = *(const float *)native;
        return 0;
    case SK_FFI_INT64:
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = *(const int64_t *)native;
        return 0;
    case SK_FFI_DOUBLE:
        sk_ffi__set_primitive(out, SK_KIND_DOUBLE)->u.real = *(const double *)native;
        return 0;
    default:
        return -1;
    }
}

/* Converts a native result (as written by ffi_call into `slot`) or a native
 * argument (`*slot` read from the closure's argument) of `type` to a new
 * value in `*out` (+1). `from_result`: the slot holds an ffi_call result
 * (narrow integers widened to ffi_arg). Returns 0, or -1 with a description
 * in `why` (`*out` nil). */
int sk_ffi__from_native(const void *native, sk_ffi_type type, int from_result, sk_value *out, char *why, size_t size);

/* A short description of `value` for messages ("int64 7", "string \"ab\""). */
/* The number of bytes (1 to 4) of the valid UTF-8 character at bytes[i]
 * (`length` bytes in all), or 0 when bytes[i] does not start one (a stray
 * continuation byte, a lead byte without all its continuation bytes, an
 * overlong form, a surrogate, above U+10FFFF, 0xF8 to 0xFF). */
size_t sk_ffi__utf8_character(const unsigned char *bytes, size_t i, size_t length);

/* Copies the NUL-terminated `text` into `out` with every byte that does not
 * belong to a valid UTF-8 character written as a backslash, x and two
 * hexadecimal digits, as every message of the library writes such bytes;
 * `out` needs 4 * strlen(text) + 1 bytes. Returns the length written. */
size_t sk_ffi__escape_utf8(char *out, const char *text);

void sk_ffi__describe(const sk_value *value, char *buffer, size_t size);

/* The description of an error value that is not a string an error callback
 * can take as str: "sk_ffi: error of kind KIND", then ": VALUE" for a bool,
 * int64, double or string (quoted, NUL written \0, 40 bytes at most),
 * ": N bytes", ": N items" for bytes and arrays. */
void sk_ffi__describe_error(const sk_value *error, char *buffer, size_t size);

/* A new string value holding `text` (+1); nil if that fails. */
sk_value sk_ffi__string_value(const char *text);

/* failure.c --------------------------------------------------------------- */

/* One call of a typed callback, on the caller's stack: its role ("next",
 * "map", "filter", or sk_ffi__role_terminal for an error or completed
 * callback) and whether it called sk_ffi_callback_fail. The calling
 * thread's innermost call is sk_ffi__running_call (NULL outside any), set
 * around each call by sk_ffi__call_enter and sk_ffi__call_leave, so nested
 * callbacks each see their own. */
typedef struct sk_ffi_call_state {
    const char *role;
    int failed;
    struct sk_ffi_call_state *previous;
} sk_ffi_call_state;

/* Initial-exec: every typed callback's call reads it (through
 * __tls_get_addr, 11 instructions a call, libffi NP); its 8 bytes fit in the
 * static TLS a dlopen'ed library may take, beside the core's (see
 * signalkit_internal.h, sk__callback_state_slot). */
extern __thread sk_ffi_call_state *sk_ffi__running_call __attribute__((tls_model("initial-exec")));
/* The role of a typed error or completed callback, whose failure has
 * nothing more to end. */
extern const char sk_ffi__role_terminal[];

/* Makes `call` (role `role`, not failed) the calling thread's innermost call. */
static inline void sk_ffi__call_enter(sk_ffi_call_state *call, const char *role) {
    call->role = role;
    call->failed = 0;
    call->previous = sk_ffi__running_call;
    sk_ffi__running_call = call;
}

/* Restores the call that was innermost before `call` entered. */
static inline void sk_ffi__call_leave(sk_ffi_call_state *call) {
    sk_ffi__running_call = call->previous;
}

/* The error value (+1) of a typed callback's failure:
 * "sk_ffi: ROLE: callback failed[: MESSAGE]" (the message escaped as
 * sk_ffi_callback_fail says; "(message lost: out of memory)" when it could
 * not be made). */
sk_value sk_ffi__failure_error(const char *role, const char *message);

#endif
