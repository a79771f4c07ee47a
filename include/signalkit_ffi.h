/*
 * signalkit_ffi.h - native callback types for SignalKit, through libffi.
 *
 * libsignalkit-ffi (pkg-config signalkit-ffi) lets C and any language with a
 * foreign-function interface (Python's ctypes, Ruby's Fiddle, LuaJIT, ...)
 * use its own callback types instead of sk_value: a callback is a plain C
 * function together with a *signature* that describes its return and
 * argument types ("void(ctx,i64)", "bool(f64)", ...). The library converts
 * values to and from those types, checking every conversion, and calls the
 * function through libffi. It also makes real C function pointers
 * (trampolines) that feed a subscriber or a pipe, for producers that accept a
 * bare function pointer without a user-data argument.
 *
 * The library is a layer over the public API of signalkit.h and follows its
 * conventions (ownership, `out` parameters, status codes, callbacks with
 * `ctx` and `release`, threads, detectable misuse), with one difference:
 * errors of the functions declared here are described by
 * sk_ffi_last_error_message(), not sk_last_error_message() (when a
 * signalkit.h call made by this library fails, its message is copied there).
 *
 * Handle arguments are checked when the call is made, as signalkit.h checks
 * them, never later inside a stream: NULL is SK_ERR_NULL_ARGUMENT
 * ("sk_ffi_signal_map: signal is NULL"); a handle of another kind (a pipe
 * passed as a signal, a signal as a pipe or a subscriber, a core handle as
 * a signature or a trampoline) is SK_ERR_WRONG_KIND ("sk_ffi_signal_map:
 * signal is not a signal"); with handle checking on (signalkit.h), a core
 * handle used after its last release is SK_ERR_RELEASED
 * ("sk_ffi_signal_map: signal was already released (or never was a
 * handle)"). A call that fails so runs the `release` it was handed, once,
 * before returning. The functions that return no status treat a handle of
 * another kind like NULL (and set the message). Handles of
 * this library used after their last release are undefined behaviour,
 * handle checking or not.
 *
 * Nothing of libffi appears in this header: a program needs only
 * `pkg-config --cflags --libs signalkit-ffi`.
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

/* The message of the last error of an sk_ffi_ function on the calling
 * thread, naming the function and the offending argument, and for
 * signatures the offending position ("sk_ffi_signature_parse: text: unknown
 * type 'int' for the argument 0 (offset 5)").
 * @return a thread-local string owned by the library, valid until the next
 *         failing sk_ffi_ call on this thread; "" when none failed yet. A
 *         successful call does not clear it. Thread-safe (per thread). */
const char *sk_ffi_last_error_message(void);

/* The number of objects of this library currently alive: signatures,
 * typed callback sets and their subscriptions, trampolines. 0 once
 * everything created has been released and every subscription ended.
 * Thread-safe. */
long sk_ffi_live_objects(void);

/* ------------------------------------------------------------------------ */
/* Signatures                                                                */
/* ------------------------------------------------------------------------ */

/* The native types a signature can name. The short name used by the string
 * form is given for each. */
typedef enum sk_ffi_type {
    SK_FFI_VOID = 0,   /* "void": return type only; no value */
    SK_FFI_BOOL = 1,   /* "bool": C99 bool; SK_KIND_BOOL */
    SK_FFI_INT32 = 2,  /* "i32": int32_t; SK_KIND_INT64 in [INT32_MIN, INT32_MAX] */
    SK_FFI_INT64 = 3,  /* "i64": int64_t; SK_KIND_INT64 */
    SK_FFI_UINT64 = 4, /* "u64": uint64_t; SK_KIND_INT64 >= 0 (a return above INT64_MAX fails) */
    SK_FFI_DOUBLE = 5, /* "f64": double; SK_KIND_DOUBLE, or an SK_KIND_INT64 that a double
                          holds exactly (|n| <= 2^53) */
    SK_FFI_STRING = 6, /* "str": const char *, NUL-terminated UTF-8; SK_KIND_STRING without
                          embedded NUL (never truncated) */
    SK_FFI_POINTER = 7,/* "ptr": void *; SK_KIND_POINTER (its user pointer), or SK_KIND_NIL
                          as NULL */
    SK_FFI_VALUE = 8,  /* "value": const sk_value *; any kind, unconverted */
    SK_FFI_CTX = 9     /* "ctx": void *; first argument only: receives the `ctx` given
                          with the function, no value */
} sk_ffi_type;

/* The most arguments a signature may have. */
#define SK_FFI_MAX_ARGS 16

/* A prepared signature: a return type and up to SK_FFI_MAX_ARGS argument
 * types, with libffi's call interface prepared once. Immutable, reference
 * counted, shareable between any number of callbacks and threads. */
typedef struct sk_ffi_signature sk_ffi_signature;

/* Creates a signature returning `result` and taking the `count` argument
 * types of `args` (borrowed; may be NULL only when `count` is 0).
 * Rules: `result` is any type but SK_FFI_CTX; arguments are any type but
 * SK_FFI_VOID; SK_FFI_CTX only as argument 0.
 * @return SK_ERR_NULL_ARGUMENT (`out`, or `args` with `count` > 0),
 *         SK_ERR_INVALID_ARGUMENT naming the offending argument index
 *         ("args[2]") or "result" for a type out of range or misplaced, or
 *         `count` above SK_FFI_MAX_ARGS; SK_ERR_UNSUPPORTED if libffi refuses
 *         the interface; SK_ERR_NO_MEMORY. Thread-safe. */
int sk_ffi_signature_create(sk_ffi_signature **out, sk_ffi_type result, const sk_ffi_type *args, size_t count);

/* Parses the string form of a signature (`text`, borrowed, NUL-terminated):
 *
 *     signature := ws type ws "(" ws [ type ws { "," ws type ws } ] ")" ws
 *     type      := "void" | "bool" | "i32" | "i64" | "u64" | "f64"
 *                | "str" | "ptr" | "value" | "ctx"
 *     ws        := { " " | "\t" }
 *
 * with the rules of sk_ffi_signature_create ("void" as the result only,
 * "ctx" as the first argument only). An empty list "()" takes no argument;
 * "(void)" is rejected. Examples: "void(ctx,i64)", "i64(i64)", "bool(f64)",
 * "void(str)", "str(ctx, str)", "void()".
 * @return as sk_ffi_signature_create; SK_ERR_INVALID_ARGUMENT's message names
 *         the character offset (from 0) and, for a type in the list, the
 *         argument index: "sk_ffi_signature_parse: text: 'ctx' must be the
 *         first argument (argument 1, offset 9)". Thread-safe. */
int sk_ffi_signature_parse(sk_ffi_signature **out, const char *text);

/* Reading a signature (borrowed). For NULL (or a handle of another kind):
 * SK_FFI_VOID, 0, SK_FFI_VOID.
 * sk_ffi_signature_arg returns SK_FFI_VOID for an index out of range.
 * Thread-safe (a signature never changes); never fail. */
sk_ffi_type sk_ffi_signature_result(const sk_ffi_signature *signature);
size_t sk_ffi_signature_arg_count(const sk_ffi_signature *signature);
sk_ffi_type sk_ffi_signature_arg(const sk_ffi_signature *signature, size_t index);

/* Reference counting, thread-safe. A signature is freed when its last
 * reference goes: callbacks, operators and trampolines using it hold their
 * own, so the creator may release it right after handing it over. */
sk_ffi_signature *sk_ffi_signature_retain(sk_ffi_signature *signature); /* @return `signature`; NULL is a no-op */
void sk_ffi_signature_release(sk_ffi_signature *signature);            /* NULL is a no-op */

/* ------------------------------------------------------------------------ */
/* Typed callbacks                                                           */
/* ------------------------------------------------------------------------ */

/* Any C function, cast to this type; its real type is described by the
 * signature passed with it. Calling a function through a signature that does
 * not describe it is undefined behaviour, as with a wrong cast in C. */
typedef void (*sk_ffi_fn)(void);

/* How a value that does not convert to the type a callback takes (a string
 * for "i64", 2^40 for "i32", -1 for "u64", a string with an embedded NUL for
 * "str", ...) or a result that does not convert back (a NULL "str", a "u64"
 * above INT64_MAX) is handled, everywhere in this library:
 *
 * - the function is not called with that value (for a result: the result
 *   is dropped); values before it were delivered as usual;
 * - the subscription ends with an error whose value is an SK_KIND_STRING
 *   "sk_ffi: ROLE: POSITION (TYPE): REASON", where ROLE is next, map,
 *   filter or trampoline, POSITION is "argument N" (N counts from 0, a
 *   leading ctx included) or "result", e.g. "sk_ffi: next: argument 1
 *   (i32): int64 5000000000 out of range of i32"; the upstream subscription
 *   is disposed, so later values and its own terminal event are dropped;
 * - for a typed subscription, that error reaches the error callback like
 *   any other error (below), then nothing more is called and `release`
 *   runs; for map and filter it reaches whatever subscribed downstream.
 *
 * Nothing is ever truncated or converted silently. A callback that fails
 * on its own (sk_ffi_callback_fail(), below) ends the subscription the same
 * way. */

/* Fails the delivery that the calling typed callback is handling: for
 * languages whose callbacks raise exceptions (a callback must not unwind
 * through the library; its wrapper catches and calls this instead), or for
 * C code that meets an error it cannot express in its result.
 *
 * "Typed callback" means a function called by this library through its
 * signature: the next, error or completed function of sk_ffi_signal_start(),
 * the function of sk_ffi_signal_map() or sk_ffi_signal_filter(). The call
 * applies to the innermost such call running on the calling thread: a
 * callback that emits into a pipe whose subscriber is another typed
 * callback runs that one above its own, and each has its own failure state;
 * when the inner one returns, the outer one's state is what it was. A call
 * from another thread, or from code that is not (inside) a typed callback,
 * affects nothing.
 *
 * When the callback returns after this call, the library ignores what it
 * returned, and:
 *
 * - map, filter: the subscription ends with an error whose value is an
 *   SK_KIND_STRING "sk_ffi: ROLE: callback failed: MESSAGE" (ROLE is map
 *   or filter; "sk_ffi: map: callback failed" when `message` is NULL),
 *   delivered to whatever subscribed downstream; the upstream subscription
 *   is disposed, so later values and its terminal event are dropped; no
 *   value is put for the failed call;
 * - next: the same error, ROLE next, ends the typed subscription: the
 *   upstream subscription is disposed, no later value reaches next, and the
 *   subscription's error callback (if any) receives that error, then
 *   `release` runs. The error callback is called because this is how the
 *   library already ends a typed subscription that cannot go on (a value
 *   that does not convert, above), so a program that handles abnormal ends
 *   in its error callback sees this one too; the callback that failed knows
 *   already and is not called again;
 * - error, completed: nothing more (the subscription is ending anyway;
 *   `release` runs as usual).
 *
 * `message` (borrowed, NUL-terminated UTF-8; NULL for none) is copied, never
 * truncated. Only the first call during one callback counts; later calls
 * during the same callback return SK_OK and change nothing. If copying the
 * message runs out of memory, the delivery still fails, with MESSAGE
 * "(message lost: out of memory)".
 * @return SK_OK; SK_ERR_UNSUPPORTED when no typed callback is running on the
 *         calling thread (sk_ffi_last_error_message() says so; nothing
 *         else happens). Thread-safe (the state is per thread). */
int sk_ffi_callback_fail(const char *message);

/* The callbacks of a typed subscription. Each of next, error, completed may
 * be NULL; when a function is given, its signature is required. Signatures
 * are borrowed (retained by the library as needed).
 *
 * - next: returns void; takes an optional leading ctx and at most one value
 *   argument of any type (none: it is only notified), e.g. "void(i64)",
 *   "void(ctx,str)", "void(ctx)".
 * - error: returns void; an optional leading ctx and at most one argument of
 *   type str or value. A str argument receives the error converted as above
 *   or, when the error is not a string (or holds an embedded NUL), a
 *   description of it: "sk_ffi: error of kind KIND", followed for a bool,
 *   int64, double or string by its value ("sk_ffi: error of kind int64: 7";
 *   a string quoted, NUL written \0, 40 bytes at most:
 *   "sk_ffi: error of kind string: \"a\\0b\""), for bytes and arrays by
 *   their size ("sk_ffi: error of kind array: 2 items", "...: 3 bytes");
 *   a value argument receives the error unconverted.
 * - completed: "void()" or "void(ctx)".
 *
 * `release(ctx)`, if not NULL, runs exactly once after the last callback of
 * the set has returned (or before a failing call returns). */
typedef struct sk_ffi_observer {
    sk_ffi_signature *next_signature;
    sk_ffi_fn next;
    sk_ffi_signature *error_signature;
    sk_ffi_fn error;
    sk_ffi_signature *completed_signature;
    sk_ffi_fn completed;
    void *ctx;
    sk_release_fn release;
} sk_ffi_observer;

/* Starts `signal` (borrowed) like sk_signal_start(), calling the typed
 * callbacks of `observer` (copied) on the thread that delivers each event.
 * `*out` (may be NULL) receives the subscription's disposable (+1).
 * @return SK_ERR_NULL_ARGUMENT (`signal`, `observer`, a function without its
 *         signature), SK_ERR_WRONG_KIND (`signal` is not a signal, a
 *         signature is not a signature), SK_ERR_RELEASED (`signal`, with
 *         handle checking), SK_ERR_INVALID_ARGUMENT for a signature that
 *         does not fit its callback (naming "next_signature", ... and why),
 *         SK_ERR_NO_MEMORY; `observer->release` has run (unless `observer`
 *         itself is NULL). */
int sk_ffi_signal_start(sk_disposable **out, sk_signal *signal, const sk_ffi_observer *observer);

/* Values transformed by `fn`, described by `signature`: a non-void result,
 * an optional leading ctx and exactly one value argument, e.g. "i64(i64)",
 * "str(ctx,str)", "f64(value)". The result is converted back to a value
 * (i32/i64/u64 -> int64, f64 -> double, bool, str -> a copy of the string,
 * which stays owned by the function, ptr -> a pointer value without release
 * function, value -> a copy of the borrowed `const sk_value *` returned).
 * `signature` is borrowed. `fn` runs on the thread that delivers each value;
 * `release(ctx)` as for sk_signal_map().
 * @return SK_ERR_NULL_ARGUMENT (`out`, `signal`, `signature`, `fn`),
 *         SK_ERR_WRONG_KIND (`signal` is not a signal, `signature` not a
 *         signature), SK_ERR_RELEASED (`signal`, with handle checking),
 *         SK_ERR_INVALID_ARGUMENT (a signature of another shape);
 *         `release` has run. */
int sk_ffi_signal_map(sk_signal **out, sk_signal *signal, sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, sk_release_fn release);

/* Only the values for which `fn` returns true; `signature` returns bool and
 * takes an optional leading ctx and exactly one value argument, e.g.
 * "bool(f64)", "bool(ctx,str)". Otherwise as sk_ffi_signal_map(). */
int sk_ffi_signal_filter(sk_signal **out, sk_signal *signal, sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, sk_release_fn release);

/* ------------------------------------------------------------------------ */
/* Trampolines                                                               */
/* ------------------------------------------------------------------------ */

/* A trampoline is a real C function, made at run time, of the type described
 * by its signature, that puts the arguments it is called with into a
 * subscriber or a pipe: for producers that accept only a bare function
 * pointer, without a user-data argument.
 *
 * Its signature returns void and takes no ctx; its arguments become the
 * value put: none -> nil, one -> that argument as a value (i32/i64/u64 ->
 * int64, f64 -> double, bool, str -> a copy
 * of the string (NULL -> nil), ptr -> a pointer value without release
 * function, value -> a copy (NULL -> nil)), several -> an array of them.
 * A u64 argument above INT64_MAX does not convert: a subscriber receives an
 * error describing it (its subscription ends), a pipe puts nothing.
 *
 * Threads: the function may be called from any number of threads at once;
 * each call puts on the calling thread, outside any lock, and returns when
 * the put has returned (subscribers' callbacks ran).
 *
 * Lifetime: the handle is reference counted; every call in progress holds a
 * reference of its own, so releasing the last reference while calls are in
 * flight is safe: the executable memory is freed exactly once, when the last
 * of them returns. A call that *starts* after the last reference has been
 * released jumps into freed memory (undefined behaviour, as with free()):
 * unregister the function from its producer first, or use
 * sk_ffi_trampoline_close() to make it a no-op while the producer may still
 * call it. A call after the subscriber terminated (or its subscription was
 * disposed) is a harmless no-op, as sk_subscriber_put_next() is.
 *
 * Executable memory: trampolines use libffi closures.
 * Where writable+executable mappings are forbidden (W^X policies, SELinux
 * without execmem, PaX MPROTECT) libffi falls back to a double mapping of a
 * temporary file or to static trampolines; if neither is allowed, creating
 * a trampoline fails with SK_ERR_UNSUPPORTED. After fork() the child shares
 * the parent's closure pages only through copy-on-write (a double-mapped
 * file is shared): call trampolines in the child only if the child does not
 * create or free trampolines, or create new ones after exec. */
typedef struct sk_ffi_trampoline sk_ffi_trampoline;

/* A trampoline putting into `subscriber` (borrowed; retained until the
 * trampoline is closed or freed) with sk_subscriber_put_next().
 * @return SK_ERR_NULL_ARGUMENT (`out`, `subscriber`, `signature`),
 *         SK_ERR_WRONG_KIND (`subscriber` is not a subscriber, `signature`
 *         not a signature), SK_ERR_RELEASED (`subscriber`, with handle
 *         checking), SK_ERR_INVALID_ARGUMENT (a non-void result, a ctx
 *         argument),
 *         SK_ERR_UNSUPPORTED (no executable memory), SK_ERR_NO_MEMORY. */
int sk_ffi_trampoline_subscriber(sk_ffi_trampoline **out, sk_subscriber *subscriber, sk_ffi_signature *signature);

/* A trampoline putting into `pipe` (borrowed; retained until the trampoline
 * is closed or freed) with sk_pipe_put(). Errors as above
 * ("sk_ffi_trampoline_pipe: pipe is not a pipe"). */
int sk_ffi_trampoline_pipe(sk_ffi_trampoline **out, sk_pipe *pipe, sk_ffi_signature *signature);

/* The function itself, valid while the trampoline is alive: cast it to the
 * function type its signature describes. NULL for NULL. Thread-safe. */
sk_ffi_fn sk_ffi_trampoline_function(sk_ffi_trampoline *trampoline);

/* Detaches the trampoline from its subscriber or pipe (dropping the
 * reference it held): later calls do nothing. Calls in progress finish their
 * put. The function stays valid until the last release. Idempotent; NULL is
 * a no-op. Thread-safe. */
void sk_ffi_trampoline_close(sk_ffi_trampoline *trampoline);

/* The number of calls that put a value into the subscriber or pipe (not the
 * calls after close, nor those whose arguments did not convert; a put into
 * a terminated subscriber counts, as it cannot be told apart).
 * Thread-safe; 0 for NULL. */
uint64_t sk_ffi_trampoline_calls(sk_ffi_trampoline *trampoline);

sk_ffi_trampoline *sk_ffi_trampoline_retain(sk_ffi_trampoline *trampoline); /* @return `trampoline`; NULL is a no-op */
void sk_ffi_trampoline_release(sk_ffi_trampoline *trampoline);             /* NULL is a no-op */

#ifdef __cplusplus
}
#endif

#endif /* SIGNALKIT_FFI_H */
