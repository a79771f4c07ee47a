/**
 * @file signalkit_ffi.h
 * @brief Native callback types for SignalKit, through libffi.
 *
 * libsignalkit-ffi (pkg-config signalkit-ffi) lets C and any language with a
 * foreign-function interface (Python's ctypes, Ruby's Fiddle, LuaJIT, ...)
 * use its own callback types instead of sk_value: a callback is a plain C
 * function together with a *signature* that describes its return and
 * argument types ("void(ctx,i64)", "bool(f64)", ...). The library converts
 * values to and from those types, checking every conversion, and calls the
 * function through libffi (or, for the common shapes of an optional ctx, one
 * i64 or f64 argument and a void, bool, i64 or f64 result, directly through
 * a function pointer of that type: the same call, without libffi's cost).
 * It also makes real C function pointers
 * (trampolines) that feed a subscriber or a pipe, for producers that accept a
 * bare function pointer without a user-data argument.
 *
 * The library is a layer over the public API of signalkit.h and follows its
 * conventions (ownership, `out` parameters, status codes, callbacks with
 * `ctx` and `release`, threads, detectable misuse), with one difference:
 * errors of the functions declared here are described by
 * sk_ffi_last_error_message(), not sk_last_error_message() (when a
 * signalkit.h call made by this library fails, its message is copied there
 * as the failing sk_ffi_ call's: "sk_ffi_signal_map: the pipeline would be
 * 513 operators deep ..."; sk_last_error_message() may then be changed).
 * A call of this library that succeeds leaves sk_last_error_message() as it
 * was, as a successful signalkit.h call does.
 *
 * Handle arguments are checked when the call is made, as signalkit.h checks
 * them, never later inside a stream, and the same way whether handle
 * checking (signalkit.h) is on or off, except for released handles:
 *
 * - NULL is SK_ERR_NULL_ARGUMENT (`"sk_ffi_signal_map: signal is NULL"`);
 * - a live handle of another kind (a pipe passed as a signal, a signal as a
 *   pipe or a subscriber, a signature or a trampoline as a core handle or
 *   as each other, a core handle as a signature or a trampoline) is
 *   SK_ERR_WRONG_KIND (`"sk_ffi_signal_map: signal is not a signal"`).
 *   This library keeps a registry of its own live handles, in both modes,
 *   so it tells them apart without reading them;
 * - with handle checking on, a handle of either library used after its last
 *   release (or a pointer that never was a handle) is SK_ERR_RELEASED
 *   (`"sk_ffi_signal_map: signal was already released (or never was a handle)"`);
 * - with handle checking off, a core handle used after its last release is
 *   undefined behaviour (as in signalkit.h), and a handle of this library
 *   used after its last release is not found in the registry, never read,
 *   and refused as a handle of another kind
 *   (`"sk_ffi_signature_release: signature is not a signature"`).
 *   In both modes a freed address the allocator has reused for a new handle
 *   of this library cannot be told apart from that handle.
 *
 * A call that fails so runs the `release` it was handed, once, before
 * returning. sk_ffi_last_error_message() then still describes that call's
 * failure, whatever `release` called (a binding's release that drops handles
 * may make a failing sk_ffi_ or signalkit.h call of its own). The functions
 * that return no status treat a handle of another
 * kind (or a released one) like NULL and set the message; NULL itself sets
 * none.
 *
 * The reverse, a signature or a trampoline passed to a signalkit.h
 * function, is that library's to check, and its registry does not know this
 * library's handles: it refuses a live one without releasing, retaining or
 * writing to it, as a handle of another kind (SK_ERR_WRONG_KIND,
 * `"sk_pipe_release: the handle is not a pipe (nothing was released or retained)"`)
 * with handle checking off (it compares the handle's first word), and as a
 * released handle (SK_ERR_RELEASED,
 * `"sk_pipe_release: the handle was already released (or never was one)"`,
 * the kind not named) with it on. A released one given to signalkit.h with
 * checking off is undefined behaviour, as any released handle there. See
 * the conventions of signalkit.h.
 *
 * Nothing of libffi appears in this header: a program needs only
 * `pkg-config --cflags --libs signalkit-ffi`, which works without libffi's
 * development files (`--static` adds -lffi).
 *
 * Every function is documented in one shape: a one-line brief, the details,
 * each parameter with its ownership, `@return` with the errors, and a
 * "Thread safety" paragraph that names the thread callbacks run on.
 */
#ifndef SIGNALKIT_FFI_H
#define SIGNALKIT_FFI_H

#include "signalkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Errors and diagnostics                                                    */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup ffi_errors FFI errors and diagnostics
 * @brief The last error message of the sk_ffi_ functions, and a leak count.
 * @{
 */

/**
 * @brief The message of the last error of an sk_ffi_ function on the calling
 *        thread.
 *
 * The message names the function and the offending argument, and for
 * signatures the offending position
 * (`"sk_ffi_signature_parse: text: unknown type 'int' for the argument 0 (offset 5)"`).
 * A successful call does not clear it.
 *
 * The message is always valid UTF-8, so that a binding can decode it as
 * such: a single byte of a text that it quotes is written as itself when it
 * is printable ASCII and otherwise escaped as a backslash, x and two
 * hexadecimal digits, since alone it may be part of a multi-byte character
 * (for the text "void(é)":
 * `"sk_ffi_signature_parse: text: expected a type for the argument 0, found '\xC3' (offset 5)"`,
 * as a C literal); a message too long for the library's buffer is cut on a
 * character boundary.
 *
 * @return A thread-local string owned by the library, never NULL, valid
 *         until the next failing sk_ffi_ call on this thread; "" when none
 *         failed yet. Never fails.
 * @par Thread safety
 *   Any thread (the message is per thread).
 */
const char *sk_ffi_last_error_message(void);

/**
 * @brief The number of objects of this library currently alive.
 *
 * Counts signatures, typed callback sets and their subscriptions,
 * trampolines: 0 once everything created has been released and every
 * subscription ended.
 *
 * @return The count (>= 0). Never fails.
 * @par Thread safety
 *   Any thread.
 */
long sk_ffi_live_objects(void);

/** @} */

/* ------------------------------------------------------------------------ */
/* Signatures                                                                */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup ffi_signatures Signatures
 * @brief The native types of a callback: a return type and argument types.
 * @{
 */

/**
 * @brief The native types a signature can name.
 *
 * The short name used by the string form (sk_ffi_signature_parse()) is given
 * for each, then the C type, then the sk_value kinds that convert to it.
 */
typedef enum sk_ffi_type {
    SK_FFI_VOID = 0,   /**< "void": return type only; no value */
    SK_FFI_BOOL = 1,   /**< "bool": C99 bool; SK_KIND_BOOL */
    SK_FFI_INT32 = 2,  /**< "i32": int32_t; SK_KIND_INT64 in [INT32_MIN, INT32_MAX] */
    SK_FFI_INT64 = 3,  /**< "i64": int64_t; SK_KIND_INT64 */
    SK_FFI_UINT64 = 4, /**< "u64": uint64_t; SK_KIND_INT64 >= 0 (a return above INT64_MAX fails) */
    SK_FFI_DOUBLE = 5, /**< "f64": double; SK_KIND_DOUBLE, or an SK_KIND_INT64 in
                          [-2^53, 2^53], the range in which a double holds every
                          integer. Outside it some integers would be rounded
                          (2^53 + 1), so every one is refused, even those a
                          double holds (2^62): whether a stream converts does
                          not depend on which values it carries. The message
                          says `"int64 N is outside +-2^53 (the range in which a
                          double holds every integer)"`. */
    SK_FFI_STRING = 6, /**< "str": const char *, NUL-terminated UTF-8; SK_KIND_STRING without
                          embedded NUL (never truncated) */
    SK_FFI_POINTER = 7,/**< "ptr": void *; SK_KIND_POINTER (its user pointer), or SK_KIND_NIL
                          as NULL */
    SK_FFI_VALUE = 8,  /**< "value": const sk_value *; any kind, unconverted */
    SK_FFI_CTX = 9,    /**< "ctx": void *; first argument only: receives the `ctx` given
                          with the function, no value */
    SK_FFI_INT8 = 10,  /**< "i8": int8_t; SK_KIND_INT64 in [INT8_MIN, INT8_MAX] (since 0.3) */
    SK_FFI_INT16 = 11, /**< "i16": int16_t; SK_KIND_INT64 in [INT16_MIN, INT16_MAX] (since 0.3) */
    SK_FFI_UINT8 = 12, /**< "u8": uint8_t; SK_KIND_INT64 in [0, UINT8_MAX] (since 0.3) */
    SK_FFI_UINT16 = 13,/**< "u16": uint16_t; SK_KIND_INT64 in [0, UINT16_MAX] (since 0.3) */
    SK_FFI_UINT32 = 14,/**< "u32": uint32_t; SK_KIND_INT64 in [0, UINT32_MAX] (since 0.3) */
    SK_FFI_FLOAT = 15  /**< "f32": float; SK_KIND_DOUBLE rounded to the nearest float
                          (a finite double beyond the largest float's magnitude is
                          refused: `"double 1.0000000000000001e+300 is outside
                          the range of f32"`, the double printed as C's
                          `%.17g` prints it (at most 17 significant digits,
                          trailing zeros dropped), as in every such message;
                          infinities and NaN convert), or an SK_KIND_INT64 in
                          [-2^24, 2^24], the range in which a float holds every
                          integer (as for f64: `"int64 N is outside +-2^24 (the
                          range in which a float holds every integer)"`). A
                          float result or argument becomes an SK_KIND_DOUBLE
                          (exact). (since 0.3) */
} sk_ffi_type;

/** @brief The most arguments a signature may have. */
#define SK_FFI_MAX_ARGS 16

/**
 * @brief A prepared signature: a return type and up to SK_FFI_MAX_ARGS
 *        argument types, with libffi's call interface prepared once.
 *
 * Immutable, reference counted (sk_ffi_signature_retain(),
 * sk_ffi_signature_release()), shareable between any number of callbacks and
 * threads.
 */
typedef struct sk_ffi_signature sk_ffi_signature;

/**
 * @brief Creates a signature from a result type and argument types.
 *
 * Rules: `result` is any type but SK_FFI_CTX; arguments are any type but
 * SK_FFI_VOID; SK_FFI_CTX only as argument 0.
 *
 * @param[out] out  Receives the new signature (+1): release it with
 *                  sk_ffi_signature_release(); NULL on error.
 * @param result    The return type.
 * @param args      The `count` argument types. Borrowed (copied); may be NULL
 *                  only when `count` is 0.
 * @param count     The number of argument types of `args`, at most
 *                  SK_FFI_MAX_ARGS.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (`out`, or `args` with `count` > 0);
 *         SK_ERR_INVALID_ARGUMENT naming the offending argument index
 *         ("args[2]") or "result" for a type out of range or misplaced, or
 *         `count` above SK_FFI_MAX_ARGS; SK_ERR_UNSUPPORTED if libffi refuses
 *         the interface; SK_ERR_NO_MEMORY.
 * @par Thread safety
 *   Any thread.
 */
int sk_ffi_signature_create(sk_ffi_signature **out, sk_ffi_type result, const sk_ffi_type *args, size_t count);

/**
 * @brief Parses the string form of a signature.
 *
 * The grammar:
 * @verbatim
    signature := ws type ws "(" ws [ type ws { "," ws type ws } ] ")" ws
    type      := "void" | "bool" | "i8" | "i16" | "i32" | "i64"
               | "u8" | "u16" | "u32" | "u64" | "f32" | "f64"
               | "str" | "ptr" | "value" | "ctx"
    ws        := { " " | "\t" }
   @endverbatim
 * with the rules of sk_ffi_signature_create() ("void" as the result only,
 * "ctx" as the first argument only). An empty list "()" takes no argument;
 * "(void)" is rejected. Examples: "void(ctx,i64)", "i64(i64)", "bool(f64)",
 * "void(str)", "str(ctx, str)", "void()".
 *
 * @param[out] out  Receives the new signature (+1): release it with
 *                  sk_ffi_signature_release(); NULL on error.
 * @param text      The string form. Borrowed, NUL-terminated.
 * @return As sk_ffi_signature_create(); SK_ERR_INVALID_ARGUMENT's message
 *         names the character offset (from 0) and, for a type in the list,
 *         the argument index:
 *         `"sk_ffi_signature_parse: text: 'ctx' must be the first argument (argument 1, offset 9)"`;
 *         an unknown type name is quoted up to its first 32 bytes,
 *         followed by `...` after the quote when cut.
 * @par Thread safety
 *   Any thread.
 */
int sk_ffi_signature_parse(sk_ffi_signature **out, const char *text);

/**
 * @brief The return type of a signature.
 * @param signature  Borrowed. NULL (or a handle of another kind) is accepted.
 * @return The return type; SK_FFI_VOID for NULL or a handle of another
 *         kind, which also sets sk_ffi_last_error_message()
 *         (`"sk_ffi_signature_result: signature is not a signature"`; NULL
 *         sets nothing). Never fails.
 * @par Thread safety
 *   Any thread (a signature never changes).
 */
sk_ffi_type sk_ffi_signature_result(const sk_ffi_signature *signature);

/**
 * @brief The number of arguments of a signature.
 * @param signature  Borrowed. NULL (or a handle of another kind) is accepted.
 * @return The number of arguments; 0 for NULL or a handle of another
 *         kind, which also sets sk_ffi_last_error_message()
 *         (`"sk_ffi_signature_arg_count: signature is not a signature"`;
 *         NULL sets nothing). Never fails.
 * @par Thread safety
 *   Any thread (a signature never changes).
 */
size_t sk_ffi_signature_arg_count(const sk_ffi_signature *signature);

/**
 * @brief The type of argument `index` of a signature.
 * @param signature  Borrowed. NULL (or a handle of another kind) is accepted.
 * @param index      The argument's index, from 0.
 * @return The argument's type; SK_FFI_VOID for an index out of range, and
 *         for NULL or a handle of another kind, which also sets
 *         sk_ffi_last_error_message()
 *         (`"sk_ffi_signature_arg: signature is not a signature"`; NULL and
 *         an index out of range set nothing). Never fails.
 * @par Thread safety
 *   Any thread (a signature never changes).
 */
sk_ffi_type sk_ffi_signature_arg(const sk_ffi_signature *signature, size_t index);

/**
 * @brief Adds a reference to a signature.
 *
 * A signature is freed when its last reference goes: callbacks, operators
 * and trampolines using it hold their own, so the creator may release it
 * right after handing it over.
 *
 * @param signature  Borrowed; gains one reference. NULL is a no-op.
 * @return `signature` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle
 *         that is not a signature.
 * @par Thread safety
 *   Any thread.
 */
sk_ffi_signature *sk_ffi_signature_retain(sk_ffi_signature *signature);

/**
 * @brief Drops a reference to a signature.
 *
 * The signature is freed with its last reference (see
 * sk_ffi_signature_retain()).
 *
 * @param signature  The reference to drop (owned by the caller, consumed).
 *                   NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_ffi_signature_release(sk_ffi_signature *signature);

/** @} */

/* ------------------------------------------------------------------------ */
/* Typed callbacks                                                           */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup ffi_callbacks Typed callbacks
 * @brief Subscriptions and operators calling plain C functions through a
 *        signature.
 *
 * @par Values that do not convert
 * How a value that does not convert to the type a callback takes (a string
 * for "i64", 2^40 for "i32", -1 for "u64", a string with an embedded NUL for
 * "str", ...) or a result that does not convert back (a NULL "str", a NULL
 * "value", a "u64" above INT64_MAX) is handled, everywhere in this library:
 *
 * - the function is not called with that value (for a result: the result
 *   is dropped); values before it were delivered as usual;
 * - the subscription ends with an error whose value is an SK_KIND_STRING
 *   `"sk_ffi: ROLE: POSITION (TYPE): REASON"`, where ROLE is next, map,
 *   filter or trampoline, POSITION is "argument N" (N counts from 0, a
 *   leading ctx included) or "result", e.g.
 *   `"sk_ffi: next: argument 1 (i32): int64 5000000000 out of range of i32"`;
 *   the upstream subscription is disposed, so later values and its own
 *   terminal event are dropped;
 * - for a typed subscription, that error reaches the error callback like
 *   any other error (sk_ffi_observer), then nothing more is called and
 *   `release` runs; for map and filter it reaches whatever subscribed
 *   downstream.
 *
 * Nothing is ever truncated or converted silently. A callback that fails
 * on its own (sk_ffi_callback_fail()) ends the subscription the same way.
 * @{
 */

/**
 * @brief Any C function, cast to this type; its real type is described by
 *        the signature passed with it.
 *
 * Calling a function through a signature that does not describe it is
 * undefined behaviour, as with a wrong cast in C.
 *
 * A function handed to this library with a `release` (sk_ffi_signal_map(),
 * sk_ffi_signal_filter(), the functions of an sk_ffi_observer) must stay
 * callable until that `release` has been called: the library may call it,
 * on any thread, until then, and uses neither it nor `release` once
 * `release` has been called. A C function always stays callable; a binding
 * whose callbacks are objects of its own whose code goes with them (a
 * ctypes CFUNCTYPE object, a libffi closure) keeps each object alive until
 * `release` runs, for instance referenced from what `ctx` points to, and
 * may drop them in `release`, the one running `release` included (this
 * library reads nothing of it once it has been called). A callback object
 * dropped earlier, say when the call that handed it over returns, leaves a
 * dangling function pointer that the next value calls (undefined behaviour:
 * with ctypes, typically another callback made since, at the same address).
 * With no `release`, nothing tells when the last call has returned: keep
 * such an object for as long as the process runs.
 */
typedef void (*sk_ffi_fn)(void);

/**
 * @brief Fails the delivery that the calling typed callback is handling.
 *
 * For languages whose callbacks raise exceptions (a callback must not unwind
 * through the library; its wrapper catches and calls this instead), or for
 * C code that meets an error it cannot express in its result. A thin form
 * of sk_callback_fail() (signalkit.h), the one way every callback of every
 * binding fails: it makes the error below and calls that (a typed map or
 * filter is an sk_signal_map() or sk_signal_filter() stage, a typed
 * subscription an observer started by sk_signal_start_failable()).
 *
 * "Typed callback" means a function called by this library through its
 * signature: the next, error or completed function of sk_ffi_signal_start(),
 * the function of sk_ffi_signal_map() or sk_ffi_signal_filter(). The call
 * applies to the innermost such call running on the calling thread: a
 * callback that emits into a pipe whose subscriber is another typed
 * callback runs that one above its own, and each has its own failure state;
 * when the inner one returns, the outer one's state is what it was. A call
 * from another thread, or from code that is not (inside) a typed callback,
 * affects nothing. Being sk_callback_fail(), it fails the innermost callback
 * of either library running on the thread: from a function of the C
 * library (an sk_signal_map() stage over a pipe a typed callback puts
 * into) it fails that stage, with the error of the typed callback below
 * it ("sk_ffi: next: callback failed: ..."), and the typed callback goes
 * on; such a function fails its own stage with sk_callback_fail().
 *
 * When the callback returns after this call, the library ignores what it
 * returned, and:
 *
 * - map, filter: the subscription ends with an error whose value is an
 *   SK_KIND_STRING `"sk_ffi: ROLE: callback failed: MESSAGE"` (ROLE is map
 *   or filter; `"sk_ffi: map: callback failed"` when `message` is NULL),
 *   delivered to whatever subscribed downstream; the upstream subscription
 *   is disposed, so later values and its terminal event are dropped; no
 *   value is put for the failed call;
 * - next: the same error, ROLE next, ends the typed subscription: the
 *   upstream subscription is disposed, no later value reaches next, and the
 *   subscription's error callback (if any) receives that error, then
 *   `release` runs; while next is running on other threads, the error
 *   callback runs after those calls have returned, on the thread whose
 *   call returns last (signalkit.h's conventions, "Order of events"). The error callback is called because this is how the
 *   library already ends a typed subscription that cannot go on (a value
 *   that does not convert, see @ref ffi_callbacks), so a program that
 *   handles abnormal ends in its error callback sees this one too; the
 *   callback that failed knows already and is not called again;
 * - error, completed: nothing more (the subscription is ending anyway;
 *   `release` runs as usual).
 *
 * A dispose wins: a next callback that calls this and then disposes its
 * own subscription (or disposes it first, then calls this, which still
 * returns SK_OK) ends the subscription as a dispose does, without the
 * error: the error callback is not called, and `release` runs as after
 * any dispose. A disposed subscription delivers no event, and the failure
 * is an event of the subscription (its error); the callback that failed
 * knows of it already.
 *
 * Only the first call during one callback counts; later calls during the
 * same callback return SK_OK and change nothing. If copying the message, or
 * making the error of it, runs out of memory, the delivery still fails, with
 * MESSAGE `"(message lost: out of memory)"`.
 *
 * @param message  Borrowed (copied, never truncated), NUL-terminated UTF-8;
 *                 may be NULL, for none. A byte of it that belongs to no valid
 *                 UTF-8 character is written in MESSAGE as a backslash, x
 *                 and two hexadecimal digits, so that the error is valid
 *                 UTF-8 (as sk_ffi_last_error_message() escapes bytes).
 * @return SK_OK; SK_ERR_UNSUPPORTED when no typed callback is running on the
 *         calling thread (sk_ffi_last_error_message() says so; nothing else
 *         happens).
 * @par Thread safety
 *   Any thread (the state is per thread); it affects only a typed callback
 *   running on the calling thread.
 */
int sk_ffi_callback_fail(const char *message);

/**
 * @brief The callbacks of a typed subscription (sk_ffi_signal_start()).
 *
 * Each of next, error, completed may be NULL; when a function is given, its
 * signature is required. A signature given without its function is checked
 * as a handle (another kind, or a released one, is refused as for any
 * handle argument) and otherwise ignored. Signatures are borrowed (retained
 * by the library as needed).
 *
 * - next: returns void; takes an optional leading ctx and at most one value
 *   argument of any type (none: it is only notified), e.g. "void(i64)",
 *   "void(ctx,str)", "void(ctx)".
 * - error: returns void; an optional leading ctx and at most one argument of
 *   type str or value. A str argument receives the error converted as in
 *   @ref ffi_callbacks or, when the error is not a string (or holds an
 *   embedded NUL), a description of it: `"sk_ffi: error of kind KIND"`,
 *   followed for a bool, int64, double or string by its value
 *   (`"sk_ffi: error of kind int64: 7"`; a string quoted, a double quote or
 *   a backslash in it preceded by a backslash, NUL written as a backslash
 *   and 0, a byte that belongs to no valid UTF-8 character written as a
 *   backslash, x and two hexadecimal digits, its first 40 bytes at most, cut back to a character boundary and
 *   followed by `...` when cut, so that the text stays valid UTF-8; as a C
 *   literal, for the 3 bytes a, NUL, b: `"sk_ffi: error of kind string: \"a\\0b\""`), for
 *   bytes and arrays by their size (`"sk_ffi: error of kind array: 2 items"`,
 *   `"...: 1 item"`, `"...: 3 bytes"`); a value argument receives the error
 *   unconverted.
 * - completed: "void()" or "void(ctx)".
 *
 * `release(ctx)`, if not NULL, runs exactly once after the last callback of
 * the set has returned (or before a failing call returns).
 */
typedef struct sk_ffi_observer {
    sk_ffi_signature *next_signature;      /**< The signature of `next`; required when `next` is given. Borrowed. */
    sk_ffi_fn next;                        /**< Called with each value; may be NULL. Callable until `release` has run (sk_ffi_fn). */
    sk_ffi_signature *error_signature;     /**< The signature of `error`; required when `error` is given. Borrowed. */
    sk_ffi_fn error;                       /**< Called with the error; may be NULL. Callable until `release` has run (sk_ffi_fn). */
    sk_ffi_signature *completed_signature; /**< The signature of `completed`; required when `completed` is given. Borrowed. */
    sk_ffi_fn completed;                   /**< Called on completion; may be NULL. Callable until `release` has run (sk_ffi_fn). */
    void *ctx;                             /**< Passed to `next`, `error` and `completed` as their leading ctx argument (where their signature has one), and to `release`. */
    sk_release_fn release;                 /**< Runs exactly once with `ctx` after the last callback; may be NULL. */
} sk_ffi_observer;

/**
 * @brief Starts a signal, calling typed callbacks.
 *
 * Like sk_signal_start(), but calls the typed callbacks of `observer`.
 *
 * @param[out] out  Receives the subscription's disposable (+1): dispose it to
 *                  cancel, release it with sk_disposable_release(). May be
 *                  NULL.
 * @param signal    The signal to start. Borrowed.
 * @param observer  The callbacks. Copied (the struct may be on the stack); the
 *                  signatures it names stay the caller's (see sk_ffi_observer).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (`signal`, `observer`, a function
 *         without its signature), SK_ERR_WRONG_KIND (`signal` is not a
 *         signal, a signature is not a signature), SK_ERR_RELEASED
 *         (`signal` or a signature, with handle checking), SK_ERR_INVALID_ARGUMENT for a
 *         signature that does not fit its callback (naming "next_signature",
 *         ... and why), SK_ERR_NO_MEMORY; on error `observer->release` has
 *         run (unless `observer` itself is NULL).
 * @par Thread safety
 *   Any thread. The callbacks run on the thread that delivers each event.
 */
int sk_ffi_signal_start(sk_disposable **out, sk_signal *signal, const sk_ffi_observer *observer);

/**
 * @brief Values transformed by a typed function.
 *
 * `signature` has a non-void result, an optional leading ctx and exactly one
 * value argument, e.g. "i64(i64)", "str(ctx,str)", "f64(value)". The result
 * is converted back to a value (i8, i16, i32, i64, u8, u16, u32, u64 ->
 * int64, f32 and f64 -> double (exact), bool, str -> a copy of the string,
 * which stays owned by the function, ptr -> a pointer value without release
 * function, value -> a copy of the borrowed `const sk_value *` returned).
 *
 * @param[out] out   Receives the new signal (+1): release it with
 *                   sk_signal_release(); NULL on error.
 * @param signal     The input signal. Borrowed.
 * @param signature  The signature of `fn`. Borrowed.
 * @param fn         The function, cast to sk_ffi_fn. Must stay callable
 *                   until `release` has run (see sk_ffi_fn).
 * @param ctx        Passed to a leading ctx argument of `fn`, and to `release`.
 * @param release    May be NULL; runs once with `ctx` as for sk_signal_map():
 *                   when the returned signal and all its subscriptions are
 *                   gone, or before a failing call returns.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (`out`, `signal`, `signature`, `fn`),
 *         SK_ERR_WRONG_KIND (`signal` is not a signal, `signature` not a
 *         signature), SK_ERR_RELEASED (`signal`, `signature`, with handle checking),
 *         SK_ERR_INVALID_ARGUMENT (a signature of another shape),
 *         SK_ERR_NO_MEMORY (the operator's state could not be allocated);
 *         on error `release` has run.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers each value.
 */
int sk_ffi_signal_map(sk_signal **out, sk_signal *signal, sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, sk_release_fn release);

/**
 * @brief Only the values for which a typed function returns true.
 *
 * `signature` returns bool and takes an optional leading ctx and exactly one
 * value argument, e.g. "bool(f64)", "bool(ctx,str)". Otherwise as
 * sk_ffi_signal_map().
 *
 * @param[out] out   Receives the new signal (+1): release it with
 *                   sk_signal_release(); NULL on error.
 * @param signal     The input signal. Borrowed.
 * @param signature  The signature of `fn`. Borrowed.
 * @param fn         The predicate, cast to sk_ffi_fn. Must stay callable
 *                   until `release` has run (see sk_ffi_fn).
 * @param ctx        Passed to a leading ctx argument of `fn`, and to `release`.
 * @param release    May be NULL; runs once with `ctx`, as for
 *                   sk_ffi_signal_map().
 * @return As sk_ffi_signal_map().
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers each value.
 */
int sk_ffi_signal_filter(sk_signal **out, sk_signal *signal, sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, sk_release_fn release);

/** @} */

/* ------------------------------------------------------------------------ */
/* Trampolines                                                               */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup ffi_trampolines Trampolines
 * @brief Real C functions, made at run time, that put their arguments into a
 *        subscriber or a pipe.
 * @{
 */

/**
 * @brief A trampoline: a real C function, made at run time, of the type
 *        described by its signature, that puts the arguments it is called
 *        with into a subscriber or a pipe.
 *
 * For producers that accept only a bare function pointer, without a
 * user-data argument.
 *
 * Its signature returns void and takes no ctx; its arguments become the
 * value put: none -> nil, one -> that argument as a value (i8, i16, i32,
 * i64, u8, u16, u32, u64 -> int64, f32 and f64 -> double (exact), bool, str
 * -> a copy of the string (NULL -> nil), ptr -> a pointer value without
 * release function, value -> a copy (NULL -> nil)), several -> an array of
 * them. An argument that does not convert (a u64 above INT64_MAX; a value
 * that is not one, such as an unknown kind; a str, ptr or value, or the
 * array of several, that cannot be made for lack of memory) makes the call
 * put no value: a
 * subscriber receives an error describing it
 * (`"sk_ffi: trampoline: argument 0 (u64): u64 N out of range of int64"`;
 * its subscription ends), a pipe, which has no error to put, puts nothing
 * and the call is dropped silently.
 *
 * @par Threads
 * The function may be called from any number of threads at once; each call
 * puts on the calling thread, outside any lock, and returns when the put has
 * returned (subscribers' callbacks ran).
 *
 * @par Lifetime
 * The handle is reference counted; every call in progress holds a reference
 * of its own, so releasing the last reference while calls are in flight is
 * safe: the executable memory is freed exactly once, when the last of them
 * returns (possibly by that call itself, from inside libffi's closure entry,
 * which reads neither the closure nor the signature once the handler has
 * returned; this includes a callback of the call releasing the last
 * reference). A call counts as in progress once it has taken that
 * reference, a few instructions after the jump: a call that *starts* (jumps
 * to the function) after the last reference has been released, or races
 * that release, jumps into freed memory (undefined behaviour, as with
 * free()). Unregister the function from its producer first, or use
 * sk_ffi_trampoline_close() to make it a no-op while the producer may still
 * call it; a caller that cannot know (a binding calling the function while
 * another thread may release) holds a reference of its own
 * (sk_ffi_trampoline_retain()) from before the jump until the call has
 * returned, taken while the reference it retains is certainly held. A call after the
 * subscriber terminated (or its subscription was disposed) is a harmless
 * no-op, as sk_subscriber_put_next() is.
 *
 * @par Executable memory
 * Trampolines use libffi closures. Where writable+executable mappings are
 * forbidden (W^X policies, SELinux without execmem, PaX MPROTECT) libffi
 * falls back to a double mapping of a temporary file or to static
 * trampolines; if neither is allowed, creating a trampoline fails with
 * SK_ERR_UNSUPPORTED. A forked child follows the fork() rule of
 * signalkit.h's conventions, trampolines included: a call through one goes
 * into the library.
 */
typedef struct sk_ffi_trampoline sk_ffi_trampoline;

/**
 * @brief Makes a trampoline putting into a subscriber with
 *        sk_subscriber_put_next().
 *
 * @param[out] out    Receives the new trampoline (+1): release it with
 *                    sk_ffi_trampoline_release(); NULL on error.
 * @param subscriber  Borrowed; retained until the trampoline is closed or
 *                    freed.
 * @param signature   The function's type: returns void, takes no ctx.
 *                    Borrowed.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (`out`, `subscriber`, `signature`),
 *         SK_ERR_WRONG_KIND (`subscriber` is not a subscriber, `signature`
 *         not a signature), SK_ERR_RELEASED (`subscriber`, `signature`, with handle
 *         checking), SK_ERR_INVALID_ARGUMENT (a non-void result, a ctx
 *         argument), SK_ERR_UNSUPPORTED (no executable memory),
 *         SK_ERR_NO_MEMORY.
 * @par Thread safety
 *   Any thread. The subscriber's callbacks run on the thread that calls the
 *   trampoline's function.
 */
int sk_ffi_trampoline_subscriber(sk_ffi_trampoline **out, sk_subscriber *subscriber, sk_ffi_signature *signature);

/**
 * @brief Makes a trampoline putting into a pipe with sk_pipe_put().
 *
 * @param[out] out   Receives the new trampoline (+1): release it with
 *                   sk_ffi_trampoline_release(); NULL on error.
 * @param pipe       Borrowed; retained until the trampoline is closed or
 *                   freed.
 * @param signature  The function's type: returns void, takes no ctx.
 *                   Borrowed.
 * @return Errors as sk_ffi_trampoline_subscriber(), for `pipe`
 *         (`"sk_ffi_trampoline_pipe: pipe is not a pipe"`).
 * @par Thread safety
 *   Any thread. The pipe's subscribers' callbacks run on the thread that
 *   calls the trampoline's function.
 */
int sk_ffi_trampoline_pipe(sk_ffi_trampoline **out, sk_pipe *pipe, sk_ffi_signature *signature);

/**
 * @brief The trampoline's function itself.
 *
 * Valid while the trampoline is alive: cast it to the function type its
 * signature describes.
 *
 * @param trampoline  Borrowed; may be NULL (the result is then NULL).
 * @return The function, owned by the library (valid while the trampoline
 *         is alive); NULL for NULL.
 * @par Thread safety
 *   Any thread.
 */
sk_ffi_fn sk_ffi_trampoline_function(sk_ffi_trampoline *trampoline);

/**
 * @brief Detaches a trampoline from its subscriber or pipe.
 *
 * Drops the reference it held: later calls do nothing. Calls in progress
 * finish their put. The function stays valid until the last release.
 * Idempotent.
 *
 * @param trampoline  Borrowed. NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_ffi_trampoline_close(sk_ffi_trampoline *trampoline);

/**
 * @brief The number of calls that put a value into the subscriber or pipe.
 *
 * Not the calls after close, nor those whose arguments did not convert; a
 * put into a terminated subscriber counts, as it cannot be told apart.
 *
 * @param trampoline  Borrowed; may be NULL (the count is then 0).
 * @return The count; 0 for NULL.
 * @par Thread safety
 *   Any thread.
 */
uint64_t sk_ffi_trampoline_calls(sk_ffi_trampoline *trampoline);

/**
 * @brief Adds a reference to a trampoline.
 * @param trampoline  Borrowed; gains one reference. NULL is a no-op.
 * @return `trampoline` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle
 *         that is not a trampoline.
 * @par Thread safety
 *   Any thread.
 */
sk_ffi_trampoline *sk_ffi_trampoline_retain(sk_ffi_trampoline *trampoline);

/**
 * @brief Drops a reference to a trampoline.
 *
 * The last one frees it once no call is in progress (see
 * sk_ffi_trampoline).
 *
 * @param trampoline  The reference to drop (owned by the caller, consumed).
 *                    NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_ffi_trampoline_release(sk_ffi_trampoline *trampoline);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SIGNALKIT_FFI_H */
