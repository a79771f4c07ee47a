/**
 * @mainpage SignalKit: the C interface
 *
 * SignalKit is a reactive-streams library: a signal is a cold stream of values
 * ending with at most one terminal event (an error or a completion); starting
 * it runs its generator, which pushes events into a subscriber; the start call
 * returns a disposable that cancels the subscription.
 *
 * The C interface is include/signalkit.h (libsignalkit, pkg-config
 * signalkit); include/signalkit_ffi.h (libsignalkit-ffi, pkg-config
 * signalkit-ffi) adds native callback types through libffi. Their functions
 * are listed by section under "Modules".
 *
 * @section conventions Conventions
 *
 * Valid for every function unless its comment says otherwise:
 *
 * - Handles (sk_signal, sk_subscriber, sk_disposable, sk_queue, sk_pipe,
 *   sk_promise, sk_value_promise) are opaque and reference counted.
 *   Constructors and operators hand back a new reference (+1) through their
 *   first, `out` parameter; the caller owns it and drops it with the matching
 *   _release function. Handle arguments are borrowed: the library retains what
 *   it needs to keep. Every _release function accepts NULL. A _release or
 *   _retain function given a handle of another kind (sk_signal_release() of a
 *   pipe), or a handle that is not this library's (one of libsignalkit-ffi),
 *   releases and retains nothing: it sets the last error message, naming the
 *   kind expected, and _retain returns NULL. With handle checking on (below)
 *   a handle of libsignalkit-ffi is not in this library's registry, so it is
 *   reported as a released handle instead, for every function: the kind is
 *   not named, and a function returning a status returns SK_ERR_RELEASED,
 *   not SK_ERR_WRONG_KIND (libsignalkit-ffi's own functions, which know
 *   their handles, say SK_ERR_WRONG_KIND in both modes).
 * - Functions return an `int` status: SK_OK (0) or a negative sk_status.
 *   On error, the out parameter is set to NULL (or left nil for values), a
 *   message is available from sk_last_error_message() on the same thread, and
 *   nothing was retained.
 * - Callbacks: every callback set carries a `void *ctx`, which the library
 *   never dereferences (any value, NULL included), and an optional
 *   `release(ctx)` function. `release` runs exactly once, after the last
 *   callback of the set has returned; it also runs when the call that received
 *   it fails, on the calling thread, before that call returns. The failing
 *   call's message stays what sk_last_error_message() reads after it returns,
 *   whatever `release` called: a failing call made inside it (a binding's
 *   release dropping the handles it kept, one of them released twice) does
 *   not replace it. A `release` that runs because the last holder of its
 *   context let go of it runs on the thread that let go, within that call;
 *   it may release handles and values in turn: when it drops the last
 *   holder of another context (or user pointer, see sk_value_set_pointer())
 *   nested a few levels deep in such releases, that one's `release` runs
 *   once this one has returned (before the outermost release returns), so
 *   that a list owned through contexts needs no stack per node (see
 *   SK_VALUE_MAX_DEPTH). A callback may emit into any
 *   subscriber, and may dispose its own subscription once it can reach the
 *   subscription's disposable, which sk_signal_start() hands out only when
 *   it returns. So a callback run during the start, while a synchronous
 *   source emits (sk_signal_single(), a generator that emits before
 *   returning, a pipe with replay), cannot: a meta disposable, set or
 *   dictionary the disposable is put into afterwards, disposed by the
 *   callback, disposes the subscription only then, after every value of the
 *   start was delivered. To stop such a source from a callback, end the
 *   subscription inside the chain: sk_signal_take(), or
 *   sk_signal_take_until() whose function answers SK_TAKE_COMPLETE (say,
 *   once a flag the callback sets is up). Nothing more is delivered; the
 *   generator still runs to its end, its put calls doing nothing. The
 *   library never holds a lock while it calls user code.
 * - Order of events: a subscription delivers values, then at most one
 *   terminal event (an error or a completion), and its terminal callback
 *   never overlaps a value callback, whatever the threads: a value callback
 *   that has begun returns before the terminal callback runs, and none
 *   begins after it. A value whose put races with the terminal event's put
 *   is either delivered before the terminal callback (its callback may begin
 *   after the terminal put has returned: the terminal event waits for it)
 *   or dropped; a value put once the terminal put has returned is dropped;
 *   a value whose put returned before the terminal event was put is
 *   delivered before it (also when a sk_signal_scan(), sk_signal_pairwise(),
 *   sk_signal_reduce_left() or sk_signal_buffer_count() queued it behind
 *   another thread's step, its put returning at once).
 *   These are the rules of each subscription, each operator's among them:
 *   an operator with several inputs (merge, combine_latest, zip,
 *   map_to_signal, ...) ends its subscriber when an input's terminal event
 *   reaches it, so an error put into one input while that input's value is
 *   still being delivered on another thread waits for that value, and a
 *   value put into another input meanwhile is delivered before the error,
 *   though put after the error's put returned.
 *   So a terminal event put
 *   while values are being delivered on other threads runs on the thread
 *   whose value callback returns last, right after it returns (the put
 *   returns without waiting); on a subscription to a pipe, once that
 *   thread has delivered the value to each of the pipe's subscribers (a
 *   pipe counts its delivering threads, not the calls into each
 *   subscription). One exception, as in SwiftSignalKit: a
 *   terminal event put from inside a value callback of the same
 *   subscription, on its thread (the callback ends its own stream,
 *   directly or through operators), runs at once, nested in that callback,
 *   when no other thread's value callback of it is running (else it waits
 *   for those, as above); a sk_signal_scan(), sk_signal_pairwise(), sk_signal_reduce_left() or
 *   sk_signal_buffer_count() whose step that callback runs in holds it
 *   behind the values other threads queued there meanwhile, and passes
 *   it on after them, once the callback has returned.
 *   A dispose that comes while the terminal event waits drops it. Values
 *   put from several threads at once reach the value callback
 *   concurrently: put from one thread when order matters.
 * - Values reach callbacks as `const sk_value *`, borrowed for the duration of
 *   the call: copy with sk_value_copy() to keep one.
 * - Thread-safety: every function may be called from any thread, concurrently,
 *   unless its comment says otherwise. Callbacks run on the thread that emits
 *   the event (the generator's thread, or the queue named by deliver-on).
 *   No function is async-signal-safe: never call one from a signal handler
 *   (a handler that interrupted a call of the library on its thread may wait
 *   for ever for what that call holds); a handler that must reach the
 *   library writes to a descriptor or sets a `volatile sig_atomic_t` flag
 *   that a thread of the program reads, as POSIX asks of every library.
 * - Stacks: a thread that calls into the library needs SK_MIN_THREAD_STACK
 *   bytes of stack (64 KB), callbacks' own use aside; pipelines near
 *   SK_SIGNAL_MAX_DEPTH need more (see @ref operators, "Depth").
 * - Durations are seconds, as a double, from 0: a negative or NaN one is
 *   refused (SK_ERR_INVALID_ARGUMENT, and `release` runs); INFINITY, or a
 *   duration whose deadline lies beyond what the clock can represent (now
 *   plus the duration reaching 2^62 ns of CLOCK_MONOTONIC, about 146 years
 *   from the system's start, on a real-time queue; 2^63 ns, about 292
 *   years, of a virtual-time queue's clock, which starts at 0), never
 *   elapses: a timer never fires, an operator's wait never ends, and
 *   sk_queue_after() drops its work at once, running its `release`. Timers
 *   count CLOCK_MONOTONIC time.
 * - Refused resources. The serial and concurrent queues share one pool of
 *   worker threads per process, of at most 255 threads: while about 255
 *   tasks of different queues block (on I/O, a lock, another queue's work),
 *   the work of every other serial or concurrent queue waits, so work that
 *   blocks for long belongs on the program's own threads (or a host-drained
 *   queue each, drained there). A thread the system refuses (RLIMIT_NPROC,
 *   memory) is no error (RLIMIT_NPROC does not bind a process with
 *   CAP_SYS_RESOURCE or CAP_SYS_ADMIN, such as root's): a call that gives a
 *   serial or concurrent queue work, or starts a timer on any queue but a
 *   virtual-time one, may block until the system gives one (a binding whose
 *   runtime holds a lock over its calls learns of each refusal from
 *   sk_set_thread_refused_hook()). A descriptor the
 *   system refuses (RLIMIT_NOFILE) is SK_ERR_RESOURCE (SK_ERR_NO_MEMORY when
 *   the system says it is out of memory), the call having made nothing and
 *   run `release`, and a later call tries again: from
 *   sk_queue_create_host() (its eventfd), and from the first call of a
 *   process that needs the timers' event loop: its first timer (sk_queue_after(),
 *   sk_timer_start(), an operator that sets timers, on a queue that is not a
 *   virtual-time one) and its first work for a concurrent queue
 *   (sk_queue_async(), and sk_signal_deliver_on(), sk_signal_run_on() or
 *   sk_signal_combine_latest() given one, checked when the operator is made).
 *   That first call checks that the loop's descriptors can be made and waits
 *   for a probing timer (about 1 ms); when the timer has not fired within
 *   10 s, it returns SK_ERR_RESOURCE too. (When the system refuses every
 *   new thread, libdispatch retries making one before the probe starts:
 *   that call then blocks until a thread is given, as any call above may.)
 *   Later calls
 *   cost nothing, and descriptors running out later, with work pending, are
 *   survived. Creating and releasing a serial queue needs no thread and no
 *   descriptor. The operators that keep a state between values
 *   (sk_signal_scan(), sk_signal_pairwise(), sk_signal_reduce_left(),
 *   sk_signal_buffer_count()), the pipes and promises (a put from the one
 *   thread that puts into one takes no lock until a call of another thread
 *   reaches its state: a put, a subscription started or disposed, its end,
 *   its last release)
 *   and sk_signal_combine_latest() and sk_signal_zip() over two signals
 *   (likewise for the thread that feeds both) ask the kernel once for its
 *   process-wide memory barrier (membarrier): refused (an old kernel, a
 *   seccomp filter), they work, a compare-and-swap or two more per value;
 *   refused after it was given (a filter installed later), the first value
 *   or call of another thread on such an operator, pipe or promise stops
 *   the process (SIGABRT, "signalkit: fatal error: the kernel refused the
 *   memory barrier ..."). (Why, and what libdispatch does underneath:
 *   Sources/SwiftSignalKit/INTERNALS.md, "Threads, timers and descriptors".)
 * - fork(): the parent is unaffected. It may fork at any time, from any
 *   thread, inside a callback too, with work queued, timers armed,
 *   subscriptions live and other threads inside the library: everything
 *   goes on in the parent. The child of a process that used the library
 *   must not call it (a _release function and sk_live_objects() included),
 *   only exec (fork and exec, posix_spawn), _exit() or exit() (the library
 *   registers no exit handler but SIGNALKIT_LIVE_OBJECTS_AT_EXIT's, see
 *   sk_live_objects_print(), which does nothing in a child). The child has the forking thread alone: the
 *   library's threads (libdispatch's workers and its timer thread) are not
 *   in it, nor is the progress of the parent's other threads. The library
 *   does not detect such a call: it may wait forever for a lock that another
 *   thread held at the instant of fork() (about 1 child in 10, measured with
 *   three threads subscribing and putting), and work given to a serial or
 *   concurrent queue, timers, and the operators that use them, accepted with
 *   SK_OK, never run there. One exception, for a server that sets up and
 *   then forks its workers: when the parent had a single thread at the fork
 *   and the library had started none of its own (they start, and stay, the
 *   first time work, a delivery or a timer goes to a serial or concurrent
 *   queue, or a timer or sk_queue_after() to any queue but a virtual-time
 *   one), the child may use the library fully, from the forking thread and
 *   from threads it starts (each host queue's descriptor is its own there,
 *   at the same number, readable while its copy of the queue has work
 *   pending; an epoll set made before the fork is the parent's too and
 *   watches the parent's descriptor: the child makes its own and adds the
 *   descriptor again). (The Swift runtime linked into the library keeps each
 *   thread's id for its locks; the library makes the forking thread's its
 *   own again in the child. A program linked to a build of the core over
 *   the shared Swift runtime, such as the project's sanitizer builds, has
 *   no such correction: there, use the library from threads the child
 *   starts.)
 * - Detectable misuse (NULL handle, NULL function, wrong value kind) returns an
 *   error and never crashes, hangs or leaks. Using a handle or a heap value
 *   after its last release is undefined behaviour, as with free(), unless
 *   handle checking is on (sk_set_handle_checking(), or the environment
 *   variable SIGNALKIT_CHECK_HANDLES=1): then the library keeps a registry of
 *   its live objects, and every call given a released handle or value (or a
 *   pointer that never was one, a handle of libsignalkit-ffi included)
 *   returns SK_ERR_RELEASED without touching it;
 *   a _release or dispose function given one does nothing but set the last
 *   error message. A freed address the allocator has reused for a new object
 *   of the library cannot be told apart from that object.
 *
 * @section shape The shape of a function's comment
 *
 * Every function is documented in one shape: a one-line `@brief` (what it
 * does); the details (semantics, what happens on dispose, ...); one `@param`
 * per parameter saying who owns it (borrowed, copied, +1 handed back through
 * `out`, consumed) and, for a callback, when it runs; `@return` with SK_OK and
 * each error; and a "Thread safety" paragraph that also names the thread
 * callbacks run on. What a comment does not restate, the conventions above
 * say.
 */

/**
 * @file signalkit.h
 * @brief The C interface of SignalKit (libsignalkit).
 *
 * See the @ref conventions "conventions" on the main page: they hold for
 * every function declared here.
 */
#ifndef SIGNALKIT_H
#define SIGNALKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The least stack, in bytes, a thread calling into the library needs.
 *
 * The first call into the library in a process does the most: the Swift
 * runtime sets up the library's type metadata on first use, recursively, on
 * the calling thread. Measured on x86-64 (release library): the first calls
 * of a typical program (values, a pipe, a map, a subscription, a queue and
 * its timer) need 24 KB of stack, and 20 KB fail (SIGSEGV, which the library
 * cannot detect); PTHREAD_STACK_MIN (16 KB) is not enough. 64 KB leaves more
 * than twice that. A process's main thread (8 MB, usually) and threads made
 * with default attributes (8 MB) have far more; set at least this much with
 * pthread_attr_setstacksize() on a thread that calls the library. Operators
 * nested deeply need more: see SK_SIGNAL_MAX_DEPTH.
 */
#define SK_MIN_THREAD_STACK 65536

/* ------------------------------------------------------------------------ */
/* Version                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup version Version
 * @brief The version of the header and of the library loaded at run time.
 * @{
 */

/** @brief The major version of this header. */
#define SK_VERSION_MAJOR 0
/** @brief The minor version of this header. */
#define SK_VERSION_MINOR 4
/** @brief The patch version of this header. */
#define SK_VERSION_PATCH 0
/** @brief The version as one number: major * 10000 + minor * 100 + patch. */
#define SK_VERSION_NUMBER (SK_VERSION_MAJOR * 10000 + SK_VERSION_MINOR * 100 + SK_VERSION_PATCH)
/**
 * @brief True when the header is at least version major.minor.patch.
 * @param major  The major version to compare with.
 * @param minor  The minor version to compare with.
 * @param patch  The patch version to compare with.
 */
#define SK_VERSION_AT_LEAST(major, minor, patch) \
    (SK_VERSION_NUMBER >= ((major) * 10000 + (minor) * 100 + (patch)))

/**
 * @brief The version of the library loaded at run time, as SK_VERSION_NUMBER.
 *
 * Compare with SK_VERSION_NUMBER to detect a header/library mismatch.
 *
 * @return major * 10000 + minor * 100 + patch. Never fails.
 * @par Thread safety
 *   Any thread.
 */
unsigned sk_version_number(void);

/**
 * @brief The version of the library loaded at run time as "major.minor.patch".
 * @return A static string owned by the library, never NULL. Never fails.
 * @par Thread safety
 *   Any thread.
 */
const char *sk_version_string(void);

/** @} */


/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup errors Errors
 * @brief Status codes and the last error message.
 * @{
 */

/** @brief Status codes. Every function that can fail returns SK_OK or one of these. */
typedef enum sk_status {
    SK_OK = 0,                    /**< success */
    SK_ERR_NULL_ARGUMENT = -1,    /**< a required handle, pointer or function was NULL */
    SK_ERR_WRONG_KIND = -2,       /**< a value or handle of another kind was expected */
    SK_ERR_INVALID_ARGUMENT = -3, /**< an argument is out of range or malformed */
    SK_ERR_NO_MEMORY = -4,        /**< an allocation failed (a copy of a large string,
                                     bytes or array the process has no memory for).
                                     Only those copies are checked: the library's
                                     objects (handles, subscriptions, queue work, a
                                     few dozen bytes each), and the values an
                                     operator holds as they come (the array
                                     sk_signal_buffer_count() fills, a pipe's
                                     replay, the values waiting in a queue), are
                                     allocated by the Swift runtime, which stops
                                     the process (SIGABRT, "signalkit: fatal
                                     error: out of memory: ..." on stderr)
                                     when malloc refuses one */
    SK_ERR_BUSY = -5,             /**< another thread is already doing this (host queue drain) */
    SK_ERR_UNSUPPORTED = -6,      /**< not possible on this queue or platform */
    SK_ERR_RELEASED = -7,         /**< a handle or value used after its last release
                                     (reported only while handle checking is on);
                                     from sk_queue_sync(): the queue was closed (its
                                     last handle released) before the work ran */
    SK_ERR_RESOURCE = -8          /**< the operating system refused a resource the call
                                     needs (see "Refused resources" in the
                                     conventions); or a limit of the call was
                                     reached (signalkit_test.h: an advance's task
                                     limit, a diagram too long) */
} sk_status;

/**
 * @brief A short English description of a status ("ok", "null argument", ...).
 * @param status  Any int; need not be an sk_status.
 * @return A static string owned by the library, never NULL; "unknown
 *         status" for values that are not an sk_status. Never fails.
 * @par Thread safety
 *   Any thread.
 */
const char *sk_status_string(int status);

/**
 * @brief The message of the last error on the calling thread.
 *
 * It names the function and the offending argument
 * ("sk_signal_map: fn is NULL"). A successful call does not clear it. It
 * describes the thread's last failing call, counting the calls the caller
 * made, not those made by the `release` that a failing call runs before it
 * returns (see the @ref conventions "conventions", "Callbacks"). At most
 * 511 bytes: a longer message is cut there.
 *
 * @return A thread-local string owned by the library, never NULL, valid
 *         until the next failing call on this thread; "" when no error
 *         happened yet. Never fails.
 * @par Thread safety
 *   Any thread (the message is per thread).
 */
const char *sk_last_error_message(void);

/** @} */

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup handles Handles
 * @brief The opaque, reference-counted handle types.
 *
 * Each is released with its own _release function (which accepts NULL), and
 * retained with its _retain function. See the @ref conventions "conventions".
 * @{
 */

typedef struct sk_signal sk_signal;         /**< @brief A cold stream of values. */
typedef struct sk_subscriber sk_subscriber; /**< @brief The receiving end a generator emits into. */
typedef struct sk_disposable sk_disposable; /**< @brief Cancels something; action, meta, set or dict. */
typedef struct sk_queue sk_queue;           /**< @brief Where work and deliveries run. */
typedef struct sk_pipe sk_pipe;             /**< @brief A hot source: values put in reach current subscribers. */
typedef struct sk_promise sk_promise;       /**< @brief Holds the latest value of a signal set into it. */
typedef struct sk_value_promise sk_value_promise; /**< @brief Holds a value set directly. */

/** @} */

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup values Values
 * @brief The tagged value sk_value, its constructors and accessors.
 *
 * Constructors (sk_value_set_...) each write a new value into `*out`,
 * overwriting it without releasing what it held. The primitive ones cannot
 * fail (a NULL `out` is ignored); the others return SK_OK, or an error with
 * `*out` set to nil.
 *
 * Accessors (sk_value_get_...) each read `value` (borrowed) into `*out` and
 * return SK_OK, or SK_ERR_NULL_ARGUMENT, or SK_ERR_WRONG_KIND when `value`
 * has another kind (nothing is converted), or SK_ERR_INVALID_ARGUMENT when
 * `value` is malformed (a heap kind with a NULL object or an object of
 * another kind), or, with handle checking on, SK_ERR_RELEASED when its
 * object was released. On error a pointer `*out` is NULL and the length or
 * count given beside it 0; a number or a bool (`*out` of
 * sk_value_get_bool(), _int64(), _double(), _array_count()) is left as it
 * was. Returned pointers are
 * borrowed: valid while `value` (or a copy of it) is alive.
 *
 * Constructors and accessors are thread-safe.
 * @{
 */

/** @brief The kinds of sk_value. */
typedef enum sk_kind {
    SK_KIND_NIL = 0,     /**< no value (a zero-initialised sk_value) */
    SK_KIND_BOOL = 1,    /**< a bool, stored inline */
    SK_KIND_INT64 = 2,   /**< an int64_t, stored inline */
    SK_KIND_DOUBLE = 3,  /**< a double, stored inline */
    SK_KIND_STRING = 4,  /**< UTF-8 text, immutable, NUL-terminated */
    SK_KIND_BYTES = 5,   /**< immutable bytes */
    SK_KIND_ARRAY = 6,   /**< immutable array of values */
    SK_KIND_POINTER = 7, /**< a user pointer with an optional release function */
    SK_KIND_SIGNAL = 8   /**< an sk_signal */
} sk_kind;

/**
 * @brief A tagged value.
 *
 * Nil, bool, int64 and double are stored inline and never allocate. The other
 * kinds hold one reference to an immutable, thread-safe library object: an
 * sk_value that a function hands to you (through an `out` parameter) owns
 * that reference and must be dropped with sk_value_release(). A value a
 * callback receives (`const sk_value *`) is borrowed for the call. Read
 * values through the accessors; treat `u.object` as opaque. An sk_value is
 * plain data: zero-initialised it is nil.
 */
typedef struct sk_value {
    sk_kind kind;            /**< The kind; read it with sk_value_kind(). */
    union {
        bool boolean;        /**< The value of an SK_KIND_BOOL. */
        int64_t int64;       /**< The value of an SK_KIND_INT64. */
        double real;         /**< The value of an SK_KIND_DOUBLE. */
        void *object;        /**< The library object of the other kinds: opaque. */
    } u;                     /**< The contents; read them through the accessors. */
} sk_value;

/**
 * @brief The release function of a user pointer or of a callback context.
 * @param ctx  The pointer or context to release.
 */
typedef void (*sk_release_fn)(void *ctx);

/**
 * @brief Fails the operator callback call running on the calling thread:
 *        the subscription it serves ends with a copy of `error` as its
 *        error event.
 *
 * The C way to end a stream with an error from inside a map, a predicate
 * or a fold, as CPython's PyErr_SetString() sets an error indicator: the
 * callback calls this, then returns; the library looks at the indicator
 * once the callback has returned. Operator callbacks, and what failing
 * does to each, are listed at the callback types: sk_map_fn
 * (sk_signal_map(), sk_signal_group_by()'s key), sk_predicate_fn
 * (sk_signal_filter(), sk_signal_skip_while(), sk_signal_take_while(),
 * sk_signal_first_where()), sk_take_until_fn, sk_reduce_fn
 * (sk_signal_scan(), sk_signal_reduce_left()), and sk_signal_fn and
 * sk_deferred_fn, whose signal then stands for one that fails with the
 * error; and the value callback of an observer started by
 * sk_signal_start_failable() (how a binding's subscriber fails). For the others, the callback's result is ignored (a value
 * written into `*out` is released), no value is delivered for the call,
 * the error reaches whatever subscribed downstream (an observer's error
 * callback; an observer without one just stops receiving), and the
 * subscription's upstream is disposed, so later values and its own
 * terminal event are dropped.
 *
 * The call applies to the innermost operator callback running on the
 * calling thread: a callback that emits into a pipe whose subscription
 * runs another operator callback runs that one inside its own, and each
 * has its own indicator. Any other observer callback (those of
 * sk_signal_start() and sk_signal_start_held(), and every error or
 * completion callback) or a side effect's
 * (sk_signal_before_next() and the others) is not an operator callback:
 * called inside one (an observer of a pipe the callback puts into), this
 * fails that one. Only the first call during one callback counts; later
 * calls return SK_OK and change nothing. A dispose wins: a callback that
 * fails and disposes its own subscription (in either order) ends it as a
 * dispose does, without the error. The error is delivered after the
 * callback has returned, on its thread.
 *
 * @param error  Borrowed (copied: a retain for the heap kinds, so it
 *               cannot run out of memory). Any kind.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT when `error` is NULL;
 *         SK_ERR_INVALID_ARGUMENT for a malformed `error`, SK_ERR_RELEASED
 *         for a released one (see @ref values); and
 *         SK_ERR_UNSUPPORTED when no operator callback is running on the
 *         calling thread (called from an observer's callback, a queue's
 *         work, a generator, or outside the library): nothing else
 *         happens then, and sk_last_error_message() says which
 *         ("sk_callback_fail: no operator callback is running on this
 *         thread").
 * @par Thread safety
 *   Any thread; it affects only an operator callback running on the
 *   calling thread. Cost: checking the indicator reaches one thread-local
 *   per run of callbacks (a value through a chain of map and filter stages
 *   is one run) and compares a word after each callback
 *   (docs/performance.md).
 */
int sk_callback_fail(const sk_value *error);

/**
 * @brief Makes `*out` nil.
 * @param[out] out  Receives the value (nothing to release); overwritten without
 *                  releasing what it held; NULL is ignored.
 * @par Thread safety
 *   Any thread. Never fails.
 */
void sk_value_set_nil(sk_value *out);
/**
 * @brief Makes `*out` a bool.
 * @param[out] out  Receives the value (nothing to release); overwritten without
 *                  releasing what it held; NULL is ignored.
 * @param value     The bool.
 * @par Thread safety
 *   Any thread. Never fails.
 */
void sk_value_set_bool(sk_value *out, bool value);
/**
 * @brief Makes `*out` an int64.
 * @param[out] out  Receives the value (nothing to release); overwritten without
 *                  releasing what it held; NULL is ignored.
 * @param value     The integer.
 * @par Thread safety
 *   Any thread. Never fails.
 */
void sk_value_set_int64(sk_value *out, int64_t value);
/**
 * @brief Makes `*out` a double.
 * @param[out] out  Receives the value (nothing to release); overwritten without
 *                  releasing what it held; NULL is ignored.
 * @param value     The double.
 * @par Thread safety
 *   Any thread. Never fails.
 */
void sk_value_set_double(sk_value *out, double value);
/**
 * @brief Makes `*out` a string: a copy of a NUL-terminated UTF-8 string.
 * @param[out] out  Receives the new value (release it with
 *                  sk_value_release()); overwritten without releasing what it
 *                  held; nil on error.
 * @param text      NUL-terminated UTF-8. Borrowed (copied).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` or `text` is NULL;
 *         SK_ERR_NO_MEMORY when the copy cannot be allocated
 *         ("sk_value_set_string: out of memory for a copy of 314572800 bytes").
 * @par Thread safety
 *   Any thread.
 */
int sk_value_set_string(sk_value *out, const char *text);
/**
 * @brief Makes `*out` a string: a copy of `length` bytes of UTF-8 text
 *        (embedded NULs allowed).
 *
 * The bytes are not checked (nor are sk_value_set_string()'s): bytes that
 * are not UTF-8 travel as they were given, and each binding reads them its
 * own way (Python with U+FFFD in place of the invalid bytes, Rust as
 * `AnyValue::Bytes`, or an error where it expects a `String`). Use
 * SK_KIND_BYTES for bytes that are not text.
 *
 * @param[out] out  Receives the new value (release it with
 *                  sk_value_release()); overwritten without releasing what it
 *                  held; nil on error.
 * @param text      Borrowed (copied); may be NULL only when `length` is 0.
 * @param length    The number of bytes of `text`.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL, or `text` is NULL
 *         with `length` not 0; SK_ERR_INVALID_ARGUMENT for a length larger
 *         than any buffer (PTRDIFF_MAX or more: the copy adds a NUL);
 *         SK_ERR_NO_MEMORY when the copy cannot be allocated (checked before
 *         `text` is read).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_set_string_n(sk_value *out, const char *text, size_t length);
/**
 * @brief Makes `*out` bytes: a copy of `length` bytes.
 * @param[out] out  Receives the new value (release it with
 *                  sk_value_release()); overwritten without releasing what it
 *                  held; nil on error.
 * @param data      Borrowed (copied); may be NULL only when `length` is 0.
 * @param length    The number of bytes of `data`.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL, or `data` is NULL
 *         with `length` not 0; SK_ERR_INVALID_ARGUMENT for a length larger
 *         than any buffer (above PTRDIFF_MAX); SK_ERR_NO_MEMORY when the
 *         copy cannot be allocated (checked before `data` is read).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_set_bytes(sk_value *out, const void *data, size_t length);
/**
 * @brief The deepest nesting of arrays a value may have.
 *
 * An array of no arrays is 1 level deep, an array holding one is 2, and so
 * on. sk_value_set_array() refuses a deeper one; the arrays an operator
 * makes of the values it is given (sk_signal_pairwise(),
 * sk_signal_buffer_count(), sk_signal_zip(), sk_signal_combine_latest(),
 * ...) are one level deeper than those values, unchecked, so a program that
 * feeds them back makes arrays as deep as it likes. Release, copy and
 * equality (sk_value_equal(), sk_signal_distinct_until_changed()) are safe
 * at any depth; the conversions (sk_value_get_array_items() and the
 * bindings') at any depth up to this one; each on any thread with the stack
 * every caller needs (SK_MIN_THREAD_STACK). Values also nest through signals,
 * without a limit: a signal value whose signal holds a value (a single's, a
 * failure's, a promise's or value promise's, one an operator keeps) holding
 * a signal, and so on; and through user pointers, whose release functions
 * may release values holding more of them (a list owned through values),
 * and through callback contexts, whose release functions may release
 * values and handles holding more of them (a map whose context releases
 * another map, an action disposable's that releases another action).
 * Releasing such a nesting is safe at any depth on that stack too (past a
 * few levels, the nested releases run one after another rather than inside
 * one another); copy and equality do not look into signals and pointers
 * (they compare by identity).
 */
#define SK_VALUE_MAX_DEPTH 128

/**
 * @brief Makes `*out` an array of `count` values copied from `items`.
 * @param[out] out  Receives the new value (release it with
 *                  sk_value_release()); overwritten without releasing what it
 *                  held; nil on error.
 * @param items     Borrowed (copied: heap kinds are retained). May be NULL only
 *                  when `count` is 0.
 * @param count     The number of items of `items`.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL, or `items` is NULL
 *         with `count` not 0; SK_ERR_INVALID_ARGUMENT for a count larger
 *         than any buffer (`count * sizeof(sk_value)` above PTRDIFF_MAX);
 *         SK_ERR_NO_MEMORY, with `*out` nil, when the array cannot be
 *         allocated (checked before any item is read); SK_ERR_INVALID_ARGUMENT,
 *         with `*out` nil, when the array would nest more than SK_VALUE_MAX_DEPTH levels deep
 *         ("sk_value_set_array: arrays nested 129 deep (the limit is SK_VALUE_MAX_DEPTH, 128)"),
 *         or when an item is not a valid value (an unknown kind, such as
 *         uninitialised memory: "sk_value_set_array: item 0: unknown value kind 2880154539";
 *         a heap kind with a NULL object or another kind's object);
 *         SK_ERR_RELEASED, with `*out` nil, when an item was already
 *         released (reported while handle checking is on, see
 *         sk_set_handle_checking()). On error no item is retained.
 * @par Thread safety
 *   Any thread.
 */
int sk_value_set_array(sk_value *out, const sk_value *items, size_t count);
/**
 * @brief Makes `*out` a value wrapping a user pointer.
 * @param[out] out  Receives the new value (release it with
 *                  sk_value_release()); overwritten without releasing what it
 *                  held; nil on error.
 * @param pointer   The user pointer, passed to `release`; the library never
 *                  dereferences it.
 * @param release   May be NULL. Otherwise runs exactly once with `pointer`
 *                  when the last copy of the value is released, on the thread
 *                  that drops it; it also runs (before returning) if this call
 *                  fails. It may release other values: when it drops the
 *                  last copy of a pointer value nested a few levels deep in
 *                  such releases, that value's release runs once this one
 *                  has returned (before the outermost release returns), so
 *                  that a list owned through values needs no stack per node
 *                  (see SK_VALUE_MAX_DEPTH).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread. `release` runs on the thread that drops the last copy.
 */
int sk_value_set_pointer(sk_value *out, void *pointer, sk_release_fn release);
/**
 * @brief Makes `*out` a value wrapping a signal.
 * @param[out] out  Receives the new value (release it with
 *                  sk_value_release()); overwritten without releasing what it
 *                  held; nil on error.
 * @param signal    Borrowed; the value retains it.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` or `signal` is NULL;
 *         SK_ERR_WRONG_KIND if `signal` is not a signal.
 * @par Thread safety
 *   Any thread.
 */
int sk_value_set_signal(sk_value *out, sk_signal *signal);

/**
 * @brief Makes `*dst` a new reference to the value `src`.
 * @param[out] dst  Receives the copy (release it with sk_value_release());
 *                  overwritten without being released.
 * @param src       Borrowed.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if either is NULL;
 *         SK_ERR_INVALID_ARGUMENT for a malformed `src`, SK_ERR_RELEASED for
 *         a released one (see @ref values). On error `*dst`, if given, is
 *         nil.
 * @par Thread safety
 *   Any thread.
 */
int sk_value_copy(sk_value *dst, const sk_value *src);

/**
 * @brief Drops the reference `*value` holds, if any, and sets it to nil.
 * @param[in,out] value  The variable to release: its reference is consumed and
 *                       it is left nil; NULL and nil are no-ops.
 * @par Thread safety
 *   Any thread, but not thread-safe for the same sk_value variable.
 */
void sk_value_release(sk_value *value);

/**
 * @brief The kind of a value.
 * @param value  Borrowed; may be NULL.
 * @return The kind; SK_KIND_NIL for NULL.
 * @par Thread safety
 *   Any thread.
 */
sk_kind sk_value_kind(const sk_value *value);

/**
 * @brief Structural equality: same kind and equal contents.
 *
 * Strings, bytes and arrays compare element by element; doubles with ==;
 * pointers and signals by identity. NULL equals only NULL. So a double NaN
 * equals nothing, not even itself; but an array equals itself (the same
 * array object, which the copies of a value share, also inside other
 * arrays) without its elements being compared: an array holding a NaN
 * equals its copies and not another array built alike. (Kept so that
 * comparing a value with its copies, as sk_signal_distinct_until_changed()
 * and a value promise's ignore_repeated do, costs the same for any array.)
 *
 * @param a  Borrowed; may be NULL.
 * @param b  Borrowed; may be NULL.
 * @return Whether `a` and `b` are equal.
 * @par Thread safety
 *   Any thread.
 */
bool sk_value_equal(const sk_value *a, const sk_value *b);

/**
 * @brief Reads a bool.
 * @param value     Borrowed.
 * @param[out] out  Receives the bool.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_bool(const sk_value *value, bool *out);
/**
 * @brief Reads an int64.
 * @param value     Borrowed.
 * @param[out] out  Receives the integer.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_int64(const sk_value *value, int64_t *out);
/**
 * @brief Reads a double.
 * @param value     Borrowed.
 * @param[out] out  Receives the double.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_double(const sk_value *value, double *out);
/**
 * @brief Reads a string.
 * @param value      Borrowed.
 * @param[out] out   Receives the text, NUL-terminated, borrowed: valid while
 *                   `value` (or a copy of it) is alive.
 * @param[out] length  May be NULL; receives the number of bytes of `*out`,
 *                     the text's byte length (the NUL aside).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_string(const sk_value *value, const char **out, size_t *length);
/**
 * @brief Reads bytes.
 * @param value        Borrowed.
 * @param[out] out     Receives the bytes, borrowed: valid while `value` (or a
 *                     copy of it) is alive.
 * @param[out] length  Receives the number of bytes of `*out`.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_bytes(const sk_value *value, const void **out, size_t *length);
/**
 * @brief Reads the number of items of an array.
 * @param value     Borrowed.
 * @param[out] out  Receives the count.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_array_count(const sk_value *value, size_t *out);
/**
 * @brief Reads item `index` of an array.
 * @param value     Borrowed.
 * @param index     From 0.
 * @param[out] out  Points at element `index`, borrowed from the array: valid
 *                  while `value` (or a copy of it) is alive.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind; SK_ERR_INVALID_ARGUMENT when `index` is out of range
 *         or `value` is malformed; SK_ERR_RELEASED for a released value (see
 *         @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_array_item(const sk_value *value, size_t index, const sk_value **out);
/**
 * @brief Reads all the items of an array at once: where the first is, and
 *        how many there are.
 *
 * The items are contiguous, in order: `(*out)[0]` to `(*out)[count - 1]`
 * are what sk_value_get_array_item() gives for 0 to `count - 1`, read with
 * one call (a C observer of a combination reads a pair with one call
 * instead of two).
 * @param value       Borrowed.
 * @param[out] out    Points at the first item, borrowed from the array:
 *                    valid while `value` (or a copy of it) is alive. Of an
 *                    empty array, an address not to be read.
 * @param[out] count  May be NULL; receives the number of items of `*out`.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_array_items(const sk_value *value, const sk_value **out, size_t *count);
/**
 * @brief Reads a user pointer.
 * @param value     Borrowed.
 * @param[out] out  Receives the pointer given to sk_value_set_pointer() (nothing
 *                  to release).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_pointer(const sk_value *value, void **out);
/**
 * @brief Reads a signal.
 * @param value     Borrowed.
 * @param[out] out  Receives the signal, borrowed: sk_signal_retain() it to
 *                  keep it.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT; SK_ERR_WRONG_KIND when `value` has
 *         another kind (nothing is converted); SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_RELEASED for a malformed or released value (see @ref values).
 * @par Thread safety
 *   Any thread.
 */
int sk_value_get_signal(const sk_value *value, sk_signal **out);

/**
 * @name Inline fast paths
 *
 * Inline fast paths of the primitive constructors and accessors. The calls
 * above are function-like macros over these: the common case (a value of the
 * expected kind, non-NULL pointers) is handled in the caller, without a call
 * into the library; anything else goes to the exported function, which
 * reports the error. Same behaviour, same thread-safety as the exported
 * functions, which stay available under their names: a parenthesised name
 * such as `(sk_value_get_int64)(v, &n)` or `&sk_value_get_int64` calls or
 * takes the exported one (as an FFI does). Define SK_NO_INLINE_ACCESSORS
 * before including this header to call the exported functions always.
 * @{
 */
#ifndef SK_NO_INLINE_ACCESSORS
/**
 * @brief The inline fast path of sk_value_set_nil() (see @ref values).
 * @param[out] out  As for sk_value_set_nil().
 * @par Thread safety
 *   As sk_value_set_nil().
 */
static inline void sk_inline_value_set_nil(sk_value *out) {
    if (out != NULL) {
        out->kind = SK_KIND_NIL;
        out->u.int64 = 0;
    }
}
/**
 * @brief The inline fast path of sk_value_set_bool().
 * @param[out] out  As for sk_value_set_bool().
 * @param value     As for sk_value_set_bool().
 * @par Thread safety
 *   As sk_value_set_bool().
 */
static inline void sk_inline_value_set_bool(sk_value *out, bool value) {
    if (out != NULL) {
        out->kind = SK_KIND_BOOL;
        out->u.int64 = 0;
        out->u.boolean = value;
    }
}
/**
 * @brief The inline fast path of sk_value_set_int64().
 * @param[out] out  As for sk_value_set_int64().
 * @param value     As for sk_value_set_int64().
 * @par Thread safety
 *   As sk_value_set_int64().
 */
static inline void sk_inline_value_set_int64(sk_value *out, int64_t value) {
    if (out != NULL) {
        out->kind = SK_KIND_INT64;
        out->u.int64 = value;
    }
}
/**
 * @brief The inline fast path of sk_value_set_double().
 * @param[out] out  As for sk_value_set_double().
 * @param value     As for sk_value_set_double().
 * @par Thread safety
 *   As sk_value_set_double().
 */
static inline void sk_inline_value_set_double(sk_value *out, double value) {
    if (out != NULL) {
        out->kind = SK_KIND_DOUBLE;
        out->u.real = value;
    }
}
/**
 * @brief The inline fast path of sk_value_get_bool(); anything but a bool
 *        read into a non-NULL `out` calls the exported function.
 * @param value     As for sk_value_get_bool().
 * @param[out] out  As for sk_value_get_bool().
 * @return As sk_value_get_bool().
 * @par Thread safety
 *   As sk_value_get_bool().
 */
static inline int sk_inline_value_get_bool(const sk_value *value, bool *out) {
    if (value != NULL && out != NULL && value->kind == SK_KIND_BOOL) {
        *out = value->u.boolean;
        return SK_OK;
    }
    return (sk_value_get_bool)(value, out);
}
/**
 * @brief The inline fast path of sk_value_get_int64(); anything but an int64
 *        read into a non-NULL `out` calls the exported function.
 * @param value     As for sk_value_get_int64().
 * @param[out] out  As for sk_value_get_int64().
 * @return As sk_value_get_int64().
 * @par Thread safety
 *   As sk_value_get_int64().
 */
static inline int sk_inline_value_get_int64(const sk_value *value, int64_t *out) {
    if (value != NULL && out != NULL && value->kind == SK_KIND_INT64) {
        *out = value->u.int64;
        return SK_OK;
    }
    return (sk_value_get_int64)(value, out);
}
/**
 * @brief The inline fast path of sk_value_get_double(); anything but a double
 *        read into a non-NULL `out` calls the exported function.
 * @param value     As for sk_value_get_double().
 * @param[out] out  As for sk_value_get_double().
 * @return As sk_value_get_double().
 * @par Thread safety
 *   As sk_value_get_double().
 */
static inline int sk_inline_value_get_double(const sk_value *value, double *out) {
    if (value != NULL && out != NULL && value->kind == SK_KIND_DOUBLE) {
        *out = value->u.real;
        return SK_OK;
    }
    return (sk_value_get_double)(value, out);
}
/** @brief sk_value_set_nil() through sk_inline_value_set_nil(). @param out As for sk_value_set_nil(). */
#define sk_value_set_nil(out) sk_inline_value_set_nil(out)
/** @brief sk_value_set_bool() through sk_inline_value_set_bool(). @param out As for sk_value_set_bool(). @param value As for sk_value_set_bool(). */
#define sk_value_set_bool(out, value) sk_inline_value_set_bool((out), (value))
/** @brief sk_value_set_int64() through sk_inline_value_set_int64(). @param out As for sk_value_set_int64(). @param value As for sk_value_set_int64(). */
#define sk_value_set_int64(out, value) sk_inline_value_set_int64((out), (value))
/** @brief sk_value_set_double() through sk_inline_value_set_double(). @param out As for sk_value_set_double(). @param value As for sk_value_set_double(). */
#define sk_value_set_double(out, value) sk_inline_value_set_double((out), (value))
/** @brief sk_value_get_bool() through sk_inline_value_get_bool(). @param value As for sk_value_get_bool(). @param out As for sk_value_get_bool(). */
#define sk_value_get_bool(value, out) sk_inline_value_get_bool((value), (out))
/** @brief sk_value_get_int64() through sk_inline_value_get_int64(). @param value As for sk_value_get_int64(). @param out As for sk_value_get_int64(). */
#define sk_value_get_int64(value, out) sk_inline_value_get_int64((value), (out))
/** @brief sk_value_get_double() through sk_inline_value_get_double(). @param value As for sk_value_get_double(). @param out As for sk_value_get_double(). */
#define sk_value_get_double(value, out) sk_inline_value_get_double((value), (out))
#endif
/** @} */

/** @} */

/* ------------------------------------------------------------------------ */
/* Observers and signals                                                     */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup signals Observers and signals
 * @brief Creating, starting and reference counting signals.
 * @{
 */

/**
 * @brief Receives a value of a subscription.
 * @param ctx    The observer's `ctx`.
 * @param value  Borrowed for the call: copy with sk_value_copy() to keep it.
 */
typedef void (*sk_next_fn)(void *ctx, const sk_value *value);
/**
 * @brief Receives the error that ends a subscription.
 * @param ctx    The observer's `ctx`.
 * @param error  Borrowed for the call: copy with sk_value_copy() to keep it.
 */
typedef void (*sk_error_fn)(void *ctx, const sk_value *error);
/**
 * @brief Receives the completion that ends a subscription.
 * @param ctx  The observer's `ctx`.
 */
typedef void (*sk_completed_fn)(void *ctx);

/**
 * @brief The callbacks of a subscription.
 *
 * Any of next, error, completed may be NULL. `release`, if not NULL, runs
 * exactly once with `ctx` after the last of them has returned: after the
 * terminal event, after the subscription is disposed and no callback is
 * running, or as soon as nothing can deliver to it any more, because its
 * source let go of it (a generator that kept no reference to its subscriber,
 * sk_signal_never(), a pipe that was released). The subscription's
 * disposable does not keep it alive: holding it only lets you cancel.
 */
typedef struct sk_observer {
    sk_next_fn next;           /**< Called with each value; may be NULL. */
    sk_error_fn error;         /**< Called with the error; may be NULL. */
    sk_completed_fn completed; /**< Called on completion; may be NULL. */
    void *ctx;                 /**< Passed to every callback and to `release`. */
    sk_release_fn release;     /**< Runs exactly once with `ctx` after the last callback; may be NULL. */
} sk_observer;

/**
 * @brief A generator: called once per start with the new subscriber.
 * @param ctx         The `ctx` given to sk_signal_create().
 * @param subscriber  Borrowed for the call: sk_subscriber_retain() it to emit
 *                    later, from any thread.
 * @return A disposable (+1, handed to the library) that is disposed when the
 *         subscription ends, or NULL when there is nothing to cancel.
 */
typedef sk_disposable *(*sk_generator_fn)(void *ctx, sk_subscriber *subscriber);

/**
 * @brief Creates a signal whose start calls `generator(ctx, subscriber)`.
 *
 * What a subscription needs after its generator has returned, the generator
 * keeps itself (through the subscriber it retained and the disposable it
 * returned).
 *
 * @param[out] out   Receives the new signal (+1): release it with
 *                   sk_signal_release(); NULL on error.
 * @param generator  Called once per start, on the starting thread.
 * @param ctx        Passed to `generator` and `release`.
 * @param release    May be NULL. Runs once, when the signal is gone: its last
 *                   reference released (signals built on it by operators
 *                   hold one) and no start of it running.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` or `generator` is NULL.
 * @par Thread safety
 *   Any thread. `generator` runs on the starting thread.
 */
int sk_signal_create(sk_signal **out, sk_generator_fn generator, void *ctx, sk_release_fn release);

/**
 * @brief A custom operator: as sk_signal_create(), for a generator that
 *        starts `upstream`.
 *
 * The new signal counts as one operator deeper than `upstream` (see
 * SK_SIGNAL_MAX_DEPTH), so chains of custom operators are bounded like the
 * library's own. A start of `upstream` itself that the generator makes
 * while it runs (sk_signal_start(), sk_signal_start_held(), on the starting
 * thread) is linked to the generator's subscriber, as the library's
 * operators link theirs: once the subscription below has ended, the loops
 * above stop before starting again (sk_signal_restart()). A start of
 * another signal (one built over `upstream` in the generator) makes no
 * link: build the custom operator over that signal instead.
 *
 * @param[out] out   Receives the new signal (+1): release it with
 *                   sk_signal_release(); NULL on error.
 * @param upstream   Borrowed; the new signal retains it until it is gone.
 * @param generator  As for sk_signal_create().
 * @param ctx        Passed to `generator` and `release`.
 * @param release    As for sk_signal_create().
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `upstream` or `generator` is
 *         NULL; SK_ERR_WRONG_KIND if `upstream` is not a signal;
 *         SK_ERR_INVALID_ARGUMENT if the result would be deeper than
 *         SK_SIGNAL_MAX_DEPTH. Then `*out` is NULL and `release` has run.
 * @par Thread safety
 *   Any thread. `generator` runs on the starting thread; `release` runs on
 *   the thread that lets the signal go (its last reference released, no
 *   start running).
 */
int sk_signal_create_over(sk_signal **out, sk_signal *upstream, sk_generator_fn generator, void *ctx, sk_release_fn release);

/**
 * @brief A signal that emits a copy of `value`, then completes.
 * @param[out] out  Receives the new signal (+1); NULL on error.
 * @param value     Borrowed (copied).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` or `value` is NULL;
 *         SK_ERR_INVALID_ARGUMENT for a malformed value, SK_ERR_RELEASED for
 *         a released one (see @ref values).
 * @par Thread safety
 *   Any thread. Events are delivered on the starting thread.
 */
int sk_signal_single(sk_signal **out, const sk_value *value);
/**
 * @brief A signal that completes at once.
 * @param[out] out  Receives the new signal (+1); NULL on error.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread. The completion is delivered on the starting thread.
 */
int sk_signal_complete(sk_signal **out);
/**
 * @brief A signal that fails at once with a copy of `error`.
 * @param[out] out  Receives the new signal (+1); NULL on error.
 * @param error     Borrowed (copied).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` or `error` is NULL;
 *         SK_ERR_INVALID_ARGUMENT for a malformed value, SK_ERR_RELEASED for
 *         a released one (see @ref values).
 * @par Thread safety
 *   Any thread. The error is delivered on the starting thread.
 */
int sk_signal_fail(sk_signal **out, const sk_value *error);
/**
 * @brief A signal that never emits nor terminates.
 * @param[out] out  Receives the new signal (+1); NULL on error.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread. No callback ever runs; an observer's `release` runs once
 *   nothing can deliver to it (see sk_observer).
 */
int sk_signal_never(sk_signal **out);

/**
 * @brief Starts a signal: runs its generator on the calling thread and
 *        delivers its events to an observer.
 *
 * Disposing the disposable cancels the subscription: once
 * sk_disposable_dispose() has returned, no callback starts on the disposing
 * thread, and `observer->release` runs once the callbacks in progress
 * elsewhere have returned (for a subscription to a pipe, once the
 * deliveries in progress elsewhere are over: see the @ref conventions
 * "conventions", "Order of events"). The disposable exists only once this
 * call returns, so nothing disposes the subscription during the call: what the
 * generator emits before returning reaches the observer, unless an operator
 * of the chain ends the subscription first (the @ref conventions
 * "conventions" say how a callback stops such a source).
 *
 * @param[out] out  Receives the subscription's disposable (+1): release it
 *                  with sk_disposable_release(). Pass NULL to let the
 *                  subscription run until it terminates.
 * @param signal    Borrowed.
 * @param observer  Copied (the struct may be on the stack).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `signal` or `observer` is NULL,
 *         SK_ERR_WRONG_KIND if `signal` is not a signal, SK_ERR_RELEASED for
 *         a released one (handle checking): then observer->release, if any,
 *         has run.
 * @par Thread safety
 *   Any thread. The generator runs on the calling thread; the callbacks run
 *   on the thread that emits each event.
 */
int sk_signal_start(sk_disposable **out, sk_signal *signal, const sk_observer *observer);

/**
 * @brief Starts a signal as sk_signal_start() does, with an observer that the
 *        subscription's disposable may hold: the cheapest start for an
 *        observer that has a release function (a binding's closure).
 *
 * Everything sk_signal_start() says holds but one: when `observer->release`
 * runs. It still runs exactly once, after the last callback has returned,
 * and never before the subscription has ended (terminal event, disposal, or
 * its source letting go); but the disposable handed out through `out` may
 * hold the observer, and then it runs only once the disposable's last
 * reference has been released too, whichever of the two comes last. (With
 * handle checking on, see sk_set_handle_checking(), the disposable never
 * holds it: it runs when the subscription ends.) So release the disposable
 * to let the observer go: holding it keeps `observer->ctx` alive, not the
 * subscription. The disposable that holds the observer is the observer too:
 * one object per subscription instead of two, and a run of sk_signal_map()
 * and sk_signal_filter() stages without release functions runs inside it.
 *
 * @param[out] out  Receives the subscription's disposable (+1): release it
 *                  with sk_disposable_release(). Pass NULL to let the
 *                  subscription run until it terminates (then `release` runs
 *                  when it ends, as with sk_signal_start()).
 * @param signal    Borrowed.
 * @param observer  Copied (the struct may be on the stack).
 * @return As sk_signal_start().
 * @par Thread safety
 *   Any thread. The generator runs on the calling thread; the callbacks run
 *   on the thread that emits each event; `release` runs on the thread that
 *   lets go last: the one that ends the subscription or the one that
 *   releases the disposable.
 */
int sk_signal_start_held(sk_disposable **out, sk_signal *signal, const sk_observer *observer);

/**
 * @brief Starts a signal with an observer whose value callback may fail:
 *        a call of sk_callback_fail() during the observer's value callback ends the
 *        subscription with that error. The one subscription rule of every
 *        binding (a Python, Rust or libffi subscriber whose callback raises
 *        ends its stream this way).
 *
 * Otherwise as sk_signal_start() (`held` 0) or sk_signal_start_held()
 * (`held` nonzero). When `next` fails: it receives no value after that
 * call; the value calls in flight on other threads return first; then the
 * error callback, if any, runs once with a copy of the error (on the
 * thread of the last of those calls), and the subscription's upstream is
 * disposed, so its later values and its own terminal event are dropped;
 * `release` runs once after the last callback, as for sk_signal_start().
 * A dispose or the upstream's own terminal event that comes first wins:
 * the failure is then dropped. Cost: the value callback runs as the last
 * stage of the signal's run of sk_signal_map() and sk_signal_filter()
 * stages (one run of callbacks per value for the whole run: see
 * sk_callback_fail()).
 *
 * @param[out] out  As for sk_signal_start() or sk_signal_start_held().
 * @param signal    Borrowed.
 * @param observer  Copied (the struct may be on the stack). A NULL `next`
 *                  makes this a plain sk_signal_start() or
 *                  sk_signal_start_held().
 * @param held      Nonzero: the disposable may hold the observer, as
 *                  sk_signal_start_held()'s.
 * @return As sk_signal_start().
 * @par Thread safety
 *   Any thread. The generator runs on the calling thread; the callbacks run
 *   on the thread that emits each event, the error after a failure on the
 *   thread whose value call returned last.
 */
int sk_signal_start_failable(sk_disposable **out, sk_signal *signal, const sk_observer *observer, int held);

/**
 * @brief Adds a reference to a signal.
 * @param signal  Borrowed; gains one reference. NULL is a no-op.
 * @return `signal` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle of
 *         another type or, with handle checking on, a released one.
 * @par Thread safety
 *   Any thread.
 */
sk_signal *sk_signal_retain(sk_signal *signal);
/**
 * @brief Drops a reference to a signal.
 * @param signal  The reference to drop (owned by the caller, consumed). NULL
 *                is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_signal_release(sk_signal *signal);

/** @} */

/* ------------------------------------------------------------------------ */
/* Subscribers                                                               */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup subscribers Subscribers
 * @brief Emitting into a subscriber, from any thread.
 *
 * Values are borrowed and copied as needed. After a terminal event, or after
 * the subscription was disposed, the put functions do nothing and return
 * SK_OK; their arguments are checked all the same (a malformed value is
 * SK_ERR_INVALID_ARGUMENT then too).
 * @{
 */

/**
 * @brief Emits a value into a subscriber.
 * @param subscriber  Borrowed.
 * @param value       Borrowed (copied as needed).
 * @return SK_OK (also after a terminal event or disposal: then nothing
 *         happens); SK_ERR_NULL_ARGUMENT if `subscriber` or `value` is NULL;
 *         SK_ERR_WRONG_KIND if `subscriber` is a handle of another type;
 *         SK_ERR_INVALID_ARGUMENT for a malformed `value` (an unknown kind,
 *         a heap kind with a NULL object or an object of another kind);
 *         with handle checking on, SK_ERR_RELEASED if `subscriber` or
 *         `value`'s object was released. Nothing is emitted on error.
 * @par Thread safety
 *   Any thread. The observer's next callback runs on the calling thread.
 */
int sk_subscriber_put_next(sk_subscriber *subscriber, const sk_value *value);
/**
 * @brief Ends a subscription with an error.
 * @param subscriber  Borrowed.
 * @param error       Borrowed (copied as needed).
 * @return SK_OK (also after a terminal event or disposal: then nothing
 *         happens); SK_ERR_NULL_ARGUMENT if `subscriber` or `error` is NULL;
 *         SK_ERR_WRONG_KIND if `subscriber` is a handle of another type;
 *         SK_ERR_INVALID_ARGUMENT for a malformed `error` (an unknown kind,
 *         a heap kind with a NULL object or an object of another kind);
 *         with handle checking on, SK_ERR_RELEASED if `subscriber` or
 *         `error`'s object was released. Nothing is emitted on error: the
 *         subscription does not end.
 * @par Thread safety
 *   Any thread. The observer's error callback runs on the calling thread,
 *   or after the value callbacks running on other threads (see the
 *   @ref conventions "conventions", "Order of events").
 */
int sk_subscriber_put_error(sk_subscriber *subscriber, const sk_value *error);
/**
 * @brief Ends a subscription with a completion.
 * @param subscriber  Borrowed.
 * @return SK_OK (also after a terminal event or disposal: then nothing
 *         happens); SK_ERR_NULL_ARGUMENT if `subscriber` is NULL;
 *         SK_ERR_WRONG_KIND if it is a handle of another type; with handle
 *         checking on, SK_ERR_RELEASED if it was released. The subscription
 *         does not end on error.
 * @par Thread safety
 *   Any thread. The observer's completed callback runs on the calling
 *   thread, or after the value callbacks running on other threads (see the
 *   @ref conventions "conventions", "Order of events").
 */
int sk_subscriber_put_completion(sk_subscriber *subscriber);

/**
 * @brief Adds a reference to a subscriber (to emit after the generator has
 *        returned).
 * @param subscriber  Borrowed; gains one reference. NULL is a no-op.
 * @return `subscriber` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle of
 *         another type or, with handle checking on, a released one.
 * @par Thread safety
 *   Any thread.
 */
sk_subscriber *sk_subscriber_retain(sk_subscriber *subscriber);
/**
 * @brief Drops a reference to a subscriber.
 * @param subscriber  The reference to drop (owned by the caller, consumed).
 *                    NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_subscriber_release(sk_subscriber *subscriber);

/** @} */

/* ------------------------------------------------------------------------ */
/* Disposables                                                               */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup disposables Disposables
 * @brief Cancelling: actions, meta disposables, sets and dictionaries.
 * @{
 */

/**
 * @brief Disposes a disposable.
 *
 * Only the first call has an effect; later ones are no-ops, except that a
 * call made while the first one still runs (on another thread, or from a
 * callback the first one caused) does not return before that dispose's work
 * is done: on an action disposable, before its action (and its `release`)
 * has returned, except on the thread running the action, where it returns at
 * once (see sk_disposable_action()); on a subscription's disposable, before the subscription's
 * callbacks are stopped (once any call has returned on a thread, no callback
 * of the subscription starts on that thread; see sk_signal_start()), but not
 * before the disposable its generator returned is done: the first call
 * disposes that one, and it may still run there (an action and its
 * `release`) when a later call returns; on a meta disposable, a set or a
 * dictionary, before every disposable it holds has been disposed (each still
 * exactly once, and each as far as a later call on it waits: a
 * subscription's disposable among them, as far as its callbacks). May be called from inside any
 * callback. A container may hold itself, directly or through other
 * containers: disposing it returns, each member disposed once (a dispose
 * that reaches a container whose dispose is already under way further up
 * the same thread's stack leaves that member to it), and lets go of its
 * members, which ends the cycle of references. Containers nest without a
 * limit (a meta disposable holding a set holding a dictionary holding...):
 * disposing or releasing such a nesting is safe at any depth on a thread
 * with SK_MIN_THREAD_STACK. Past 32 container disposes nested on a thread's
 * stack (containers in containers, and disposes called from what they
 * dispose), a deeper member's dispose runs once the container dispose it
 * is nested in has returned, before the outermost one returns: so a
 * container's dispose made that deep may return before its members are
 * disposed; the outermost one never does. Releases nest the same way.
 *
 * @param disposable  Borrowed. NULL is a no-op.
 * @par Thread safety
 *   Any thread. What disposing runs (an action, the disposables held) runs on
 *   the calling thread.
 */
void sk_disposable_dispose(sk_disposable *disposable);

/**
 * @brief Adds a reference to a disposable.
 * @param disposable  Borrowed; gains one reference. NULL is a no-op.
 * @return `disposable` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle of
 *         another type or, with handle checking on, a released one.
 * @par Thread safety
 *   Any thread.
 */
sk_disposable *sk_disposable_retain(sk_disposable *disposable);
/**
 * @brief Drops a reference to a disposable. Releasing does not dispose.
 * @param disposable  The reference to drop (owned by the caller, consumed).
 *                    NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_disposable_release(sk_disposable *disposable);

/**
 * @brief A disposable that calls `action(ctx)` on its first dispose.
 * @param[out] out  Receives the new disposable (+1); NULL on error.
 * @param action    Called once, on the first dispose, on the disposing
 *                  thread.
 * @param ctx       Passed to `action` and `release`.
 * @param release   May be NULL. Runs once with `ctx`: after `action`, or when
 *                  the disposable is freed without having been disposed.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` or `action` is NULL.
 * @par Thread safety
 *   Any thread. `action` runs on the disposing thread. A later dispose made
 *   on another thread while `action` runs waits until it (and `release`)
 *   has returned, so that a set, meta disposable or dictionary holding this
 *   disposable returns from a concurrent dispose only once it is done; one
 *   made on the thread running `action` (from `action`, or from something
 *   it calls) returns at once. So `action` must not wait for another thread
 *   that disposes this same disposable: that deadlocks. The wait holds no
 *   lock of the library that user code runs under.
 */
int sk_disposable_action(sk_disposable **out, void (*action)(void *ctx), void *ctx, sk_release_fn release);

/**
 * @brief A slot holding one disposable at a time (SwiftSignalKit's
 *        MetaDisposable).
 * @param[out] out  Receives the new meta disposable (+1); NULL on error.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread.
 */
int sk_disposable_meta(sk_disposable **out);
/**
 * @brief Puts a disposable into a meta disposable, disposing the one it
 *        replaces.
 *
 * If `meta` is already disposed, disposes `disposable` at once.
 *
 * @param meta        Borrowed.
 * @param disposable  Borrowed (retained by `meta`); may be NULL to empty the
 *                    slot.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `meta` is NULL; SK_ERR_WRONG_KIND if
 *         `meta` is not a meta disposable.
 * @par Thread safety
 *   Any thread. The replaced disposable is disposed on the calling thread.
 */
int sk_disposable_meta_set(sk_disposable *meta, sk_disposable *disposable);

/**
 * @brief A set of disposables disposed together.
 * @param[out] out  Receives the new set (+1); NULL on error.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread.
 */
int sk_disposable_set(sk_disposable **out);
/**
 * @brief Adds a disposable to a set.
 *
 * If the set is already disposed, disposes `disposable` at once.
 *
 * @param set         Borrowed.
 * @param disposable  Borrowed (retained by the set).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT for a NULL argument; SK_ERR_WRONG_KIND
 *         if `set` is not a set.
 * @par Thread safety
 *   Any thread.
 */
int sk_disposable_set_add(sk_disposable *set, sk_disposable *disposable);
/**
 * @brief Removes a disposable (by identity) from a set without disposing it.
 * @param set         Borrowed.
 * @param disposable  Borrowed; absent is a no-op.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT for a NULL argument; SK_ERR_WRONG_KIND
 *         if `set` is not a set.
 * @par Thread safety
 *   Any thread.
 */
int sk_disposable_set_remove(sk_disposable *set, sk_disposable *disposable);

/**
 * @brief Disposables indexed by a string key.
 * @param[out] out  Receives the new dictionary (+1); NULL on error.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread.
 */
int sk_disposable_dict(sk_disposable **out);
/**
 * @brief Puts a disposable under a key, disposing what the key held.
 *
 * Keys are compared byte for byte, up to their NUL: they need not be UTF-8,
 * and no normalization is applied ("e\xcc\x81" and "\xc3\xa9", the same
 * text in Unicode, are two keys; so are "\xff" and "\xfe").
 *
 * If `dict` is disposed, disposes `disposable` at once.
 *
 * @param dict        Borrowed.
 * @param key         Borrowed (copied), NUL-terminated; any bytes.
 * @param disposable  Borrowed (retained by `dict`); may be NULL.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `dict` or `key` is NULL;
 *         SK_ERR_WRONG_KIND if `dict` is not a dictionary.
 * @par Thread safety
 *   Any thread. The replaced disposable is disposed on the calling thread.
 */
int sk_disposable_dict_set(sk_disposable *dict, const char *key, sk_disposable *disposable);

/** @} */

/* ------------------------------------------------------------------------ */
/* Subjects                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup subjects Subjects: pipes and promises
 * @brief Hot sources: a pipe, a promise, a value promise.
 *
 * Subjects follow the file's conventions: `out` receives +1, arguments are
 * borrowed, every function is thread-safe, and each returns
 * SK_ERR_NULL_ARGUMENT for a NULL handle, `out` or value, SK_ERR_WRONG_KIND
 * for a handle of another type, SK_ERR_INVALID_ARGUMENT for a malformed
 * value. Subscribers' callbacks run on the thread that puts or sets (or on the
 * subscribing thread for a replayed value and the values put while it is
 * delivered; past 1,024 of these, on a thread of the library's until the
 * subscriber has caught up: docs/concepts.md, "Where a call can wait"),
 * never under a lock.
 * @{
 */

/**
 * @brief Creates a pipe: sk_pipe_put() delivers to the current subscribers
 *        of its signal.
 * @param[out] out  Receives the new pipe (+1): release it with
 *                  sk_pipe_release(); NULL on error.
 * @param replay    When true, a new subscriber first receives the latest
 *                  value put.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @see sk_pipe_create_bounded() for a pipe whose values put from inside its
 *      own callbacks are bounded.
 * @par Thread safety
 *   Any thread. A replayed value is delivered on the subscribing thread.
 */
int sk_pipe_create(sk_pipe **out, bool replay);
/**
 * @brief Delivers a copy of a value to every current subscriber.
 *
 * Puts from several threads at once reach a subscriber concurrently: put
 * from one thread when order matters.
 *
 * @param pipe   Borrowed.
 * @param value  Borrowed (copied).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND,
 *         SK_ERR_INVALID_ARGUMENT as for every subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. Subscribers' callbacks run on the calling thread, outside any
 *   lock.
 */
int sk_pipe_put(sk_pipe *pipe, const sk_value *value);
/**
 * @brief Ends the pipe with an error: every current subscriber receives a
 *        copy of `error`, and so does every later one, at once.
 *
 * Values put afterwards are dropped. Only the first terminal event counts:
 * a later sk_pipe_put_error() or sk_pipe_put_completion() does nothing.
 * From inside a callback of this pipe, the error reaches each subscriber
 * after the values already put from inside its callbacks.
 *
 * @param pipe   Borrowed.
 * @param error  Borrowed (copied).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND,
 *         SK_ERR_INVALID_ARGUMENT as for every subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. Subscribers' error callbacks run on the calling thread
 *   (a later subscriber's on the subscribing thread; one receiving values
 *   on other threads at the time, after them: see the @ref conventions
 *   "conventions", "Order of events"), outside any lock.
 */
int sk_pipe_put_error(sk_pipe *pipe, const sk_value *error);
/**
 * @brief Ends the pipe with the completion: every current subscriber
 *        completes, and every later one does at once.
 *
 * Values put afterwards are dropped. Only the first terminal event counts,
 * as for sk_pipe_put_error().
 *
 * @param pipe  Borrowed.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND as for every
 *         subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. Subscribers' completion callbacks run on the calling thread
 *   (a later subscriber's on the subscribing thread; one receiving values
 *   on other threads at the time, after them: see the @ref conventions
 *   "conventions", "Order of events"), outside any lock.
 */
int sk_pipe_put_completion(sk_pipe *pipe);
/**
 * @brief The pipe's signal.
 *
 * Neither it nor its subscriptions keep the pipe alive: once the pipe is
 * released they receive nothing more and never terminate (a later
 * subscription receives nothing either); their observers' release runs then,
 * on the releasing thread (nothing can deliver to them any more), and
 * disposing them stays harmless.
 *
 * @param[out] out  Receives the signal (+1): release it with
 *                  sk_signal_release(); NULL on error.
 * @param pipe      Borrowed; not kept alive by the signal.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND as for every
 *         subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. Callbacks run on the putting thread (the subscribing thread
 *   for a replayed value).
 */
int sk_pipe_signal(sk_signal **out, sk_pipe *pipe);
/**
 * @brief Adds a reference to a pipe.
 * @param pipe  Borrowed; gains one reference. NULL is a no-op.
 * @return `pipe` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle of
 *         another type or, with handle checking on, a released one.
 * @par Thread safety
 *   Any thread.
 */
sk_pipe *sk_pipe_retain(sk_pipe *pipe);
/**
 * @brief Drops a reference to a pipe (see sk_pipe_signal() for what the last
 *        release does to its subscriptions).
 * @param pipe  The reference to drop (owned by the caller, consumed). NULL is
 *              a no-op.
 * @par Thread safety
 *   Any thread. With the last reference, the subscriptions' observers'
 *   release runs on the releasing thread.
 */
void sk_pipe_release(sk_pipe *pipe);

/**
 * @brief Creates a promise: sk_promise_set() subscribes to a signal and keeps
 *        its latest value; its signal replays that value, then every new one.
 * @param[out] out  Receives the new promise (+1): release it with
 *                  sk_promise_release(); NULL on error.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread.
 */
int sk_promise_create(sk_promise **out);
/**
 * @brief Replaces the promise's source with a signal.
 *
 * Disposes the previous source and forgets its latest value. The source is
 * started on the calling thread; an error from it ends it like a completion.
 *
 * The promise holds its subscription to `signal` until the next
 * sk_promise_set() or until the promise is freed. A `signal` that holds the
 * promise (its own signal from sk_promise_get(), or a signal built over that
 * one, such as its sk_signal_map()) makes a cycle: the subscription keeps the
 * promise alive (see sk_promise_get()), and the promise keeps the
 * subscription, so neither is ever freed, even after every handle is
 * released. Break it before releasing the promise by setting another source
 * (sk_signal_complete(), say). sk_live_objects() does not show such a cycle:
 * it counts handles, not the promise behind them (a released promise handle
 * is uncounted at once), and it reads 0 here if the cycle holds no heap value
 * or C callback.
 *
 * @param promise  Borrowed.
 * @param signal   Borrowed (the promise keeps what it needs: a subscription
 *                 to it).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND as for every
 *         subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. Subscribers' callbacks run on the thread where the source
 *   emits.
 */
int sk_promise_set(sk_promise *promise, sk_signal *signal);
/**
 * @brief The promise's signal: the latest value, if any, then every new one.
 *
 * The signal keeps the promise alive as long as it lives, and its
 * subscriptions until they are disposed, even when every promise handle has
 * been released (unlike a pipe's signal, see sk_pipe_signal()): the promise,
 * which can then no longer be set, goes on following its source. A promise
 * whose source holds this signal is never freed (see sk_promise_set()).
 *
 * @param[out] out  Receives the signal (+1): release it with
 *                  sk_signal_release(); NULL on error.
 * @param promise   Borrowed; kept alive by the signal.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND as for every
 *         subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. The replayed value is delivered on the subscribing thread.
 */
int sk_promise_get(sk_signal **out, sk_promise *promise);
/**
 * @brief Adds a reference to a promise.
 * @param promise  Borrowed; gains one reference. NULL is a no-op.
 * @return `promise` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle of
 *         another type or, with handle checking on, a released one.
 * @par Thread safety
 *   Any thread.
 */
sk_promise *sk_promise_retain(sk_promise *promise);
/**
 * @brief Drops a reference to a promise.
 * @param promise  The reference to drop (owned by the caller, consumed). NULL
 *                 is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_promise_release(sk_promise *promise);

/**
 * @brief Creates a value promise: it holds a value set directly.
 *
 * The value promise lives as long as a handle to it, its signal
 * (sk_value_promise_get()) or a subscription to that signal does.
 *
 * @param[out] out        Receives the new value promise (+1): release it with
 *                        sk_value_promise_release(); NULL on error.
 * @param initial         Borrowed (copied); may be NULL for "no value yet".
 * @param ignore_repeated When true, setting a value equal (sk_value_equal())
 *                        to the current one notifies nobody.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL;
 *         SK_ERR_INVALID_ARGUMENT for a malformed value.
 * @par Thread safety
 *   Any thread.
 */
int sk_value_promise_create(sk_value_promise **out, const sk_value *initial, bool ignore_repeated);
/**
 * @brief Stores a copy of a value and delivers it to every subscriber
 *        (unless ignored as a repeat).
 * @param promise  Borrowed.
 * @param value    Borrowed (copied).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND,
 *         SK_ERR_INVALID_ARGUMENT as for every subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. Subscribers' callbacks run on the calling thread.
 */
int sk_value_promise_set(sk_value_promise *promise, const sk_value *value);
/**
 * @brief The value promise's signal: the current value, if any, then every
 *        new one.
 *
 * The signal keeps the value promise alive as long as it lives, and its
 * subscriptions until they are disposed, even when every value promise handle
 * has been released (unlike a pipe's signal, see sk_pipe_signal()): it then
 * replays the last value set, and no new one can come. So a value promise
 * holding, as its value, this signal (sk_value_set_signal()) or a signal built
 * over it is a cycle that is never freed, even after every handle is
 * released (sk_live_objects() counts the signal value it holds). Set another
 * value before releasing the value promise to break the cycle.
 *
 * @param[out] out  Receives the signal (+1): release it with
 *                  sk_signal_release(); NULL on error.
 * @param promise   Borrowed; kept alive by the signal.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND as for every
 *         subject (see @ref subjects).
 * @par Thread safety
 *   Any thread. The current value is delivered on the subscribing thread.
 */
int sk_value_promise_get(sk_signal **out, sk_value_promise *promise);
/**
 * @brief Adds a reference to a value promise.
 * @param promise  Borrowed; gains one reference. NULL is a no-op.
 * @return `promise` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle of
 *         another type or, with handle checking on, a released one.
 * @par Thread safety
 *   Any thread.
 */
sk_value_promise *sk_value_promise_retain(sk_value_promise *promise);
/**
 * @brief Drops a reference to a value promise.
 * @param promise  The reference to drop (owned by the caller, consumed). NULL
 *                 is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_value_promise_release(sk_value_promise *promise);

/** @} */


/* ------------------------------------------------------------------------ */
/* Queues and timers                                                         */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup queues Queues and timers
 * @brief Where work and deliveries run: global, serial and host-drained
 *        queues, delayed work, timers.
 * @{
 */

/**
 * @brief A unit of work: `fn(ctx)`.
 *
 * The `release(ctx)` given with it runs once right after it, on the same
 * thread (the queue's, or the draining thread of a host-drained queue), or
 * instead of it when the work never runs (the call failed: then on the
 * calling thread, before the call returns; a host-drained or virtual-time
 * queue closed before the work ran: then on the thread that closed it).
 *
 * @param ctx  The context given with the work.
 */
typedef void (*sk_work_fn)(void *ctx);

/**
 * @brief The shared main queue.
 *
 * Main-queue work runs only while the process's main thread drains the main
 * dispatch queue (dispatch_main(), or a run loop that drains it). A C
 * program cannot do that: libsignalkit.so does not export dispatch_main(),
 * and this header has no function that drains the main queue. In a C
 * program, work given to the main queue from another thread (sk_queue_async(),
 * sk_queue_after(), a delivery) never runs, and sk_queue_sync() onto it from
 * another thread never returns; only work submitted from the main thread
 * itself runs (inline, as the main thread counts as on the main queue). To
 * get work onto the main thread, create a host-drained queue
 * (sk_queue_create_host()) and drain it from the main thread's loop when
 * its descriptor is readable. (Swift programs, and hosts that run a
 * CoreFoundation or Foundation run loop on the main thread, do drain it.)
 *
 * @param[out] out  Receives a +1 reference (releasing it is harmless).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread. Its work runs on the main thread.
 */
int sk_queue_main(sk_queue **out);
/**
 * @brief The shared global concurrent queue of default priority.
 *
 * Its work runs on the worker threads the serial queues share; the first
 * work given it in a process needs the timers' event loop (see "Refused
 * resources" in the conventions).
 *
 * @param[out] out  Receives a +1 reference (releasing it is harmless).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread. Its work runs on library-managed threads.
 */
int sk_queue_concurrent_default(sk_queue **out);
/**
 * @brief The shared global concurrent queue of background priority.
 *
 * As sk_queue_concurrent_default().
 *
 * @param[out] out  Receives a +1 reference (releasing it is harmless).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread. Its work runs on library-managed threads.
 */
int sk_queue_concurrent_background(sk_queue **out);

/**
 * @brief A new serial queue: its work runs one task at a time, in order, on
 *        library-managed threads.
 *
 * A serial queue has no thread of its own: its work runs on the worker
 * threads that every serial and concurrent queue shares (see "Refused
 * resources" in the conventions for their limit and for a thread the
 * system refuses).
 *
 * @param[out] out  Receives the new queue (+1): release it with
 *                  sk_queue_release(); NULL on error.
 * @param name      Borrowed (copied), may be NULL: labels it for debuggers.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread.
 */
int sk_queue_create(sk_queue **out, const char *name);

/**
 * @brief A host-drained serial queue: its work runs only inside
 *        sk_queue_host_drain(), on the thread that calls it.
 *
 * Its file descriptor (sk_queue_host_fd()) is readable while work is
 * pending, so an epoll/poll/GLib/libuv/asyncio loop can watch it and drain
 * when it fires. It is signalled anew when work arrives on an empty queue
 * and when a drain returns leaving work pending (beyond `max_tasks`, or
 * enqueued meanwhile), so that an edge-triggered watcher (epoll's EPOLLET,
 * tokio's AsyncFd) may drain once per event. A repeating timer on it
 * (sk_timer_start()) waits there as one task at most: periods that pass
 * before the queue is drained are merged into it, as a busy serial queue
 * merges them. Only its handles can drain it: releasing the last one
 * closes the queue, whatever is pending (the pending work is dropped without
 * running, each `release(ctx)` runs on the releasing thread, the descriptor
 * is closed; deliveries still headed for it are dropped). That holds also
 * when the last handle is released during a drain, by one of the queue's
 * tasks or by another thread: the drain stops after the task it is running
 * (the tasks it had not reached are dropped with the rest) and returns; and
 * when an sk_queue_sync() on another thread is waiting for its work: the
 * work is dropped and the sync returns SK_ERR_RELEASED.
 *
 * @param[out] out  Receives the new queue (+1): release it with
 *                  sk_queue_release(); NULL on error.
 * @param name      Borrowed (copied), may be NULL: labels it for debuggers.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL; SK_ERR_RESOURCE
 *         (SK_ERR_NO_MEMORY) with `*out` NULL when the system refuses its
 *         descriptor ("sk_queue_create_host: eventfd failed: Too many open files (errno 24)"
 *         at RLIMIT_NOFILE).
 * @par Thread safety
 *   Any thread. Its work runs on the thread that calls sk_queue_host_drain().
 */
int sk_queue_create_host(sk_queue **out, const char *name);

/** The most worker threads sk_queue_create_concurrent() accepts. */
#define SK_QUEUE_MAX_WORKERS 1024

/**
 * @brief A new concurrent queue whose work runs on at most `max_workers`
 *        threads of its own: a bounded thread pool.
 *
 * Its `max_workers` threads are started by this call, all or none: when the
 * system refuses one, the call fails, and the threads already started have
 * exited when it returns.
 * They are the queue's own, not libdispatch's (see sk_queue_create(),
 * "Threads"), so work that blocks on them delays only this queue's other
 * work. Work given with sk_queue_async(), sk_queue_after(),
 * sk_timer_start() and the operators that take a queue runs on one of them,
 * in parallel with the queue's other work and in no promised order, never
 * more than `max_workers` at once; the rest waits, in the order it came,
 * for a free worker.
 *
 * Like the global concurrent queues, it is never current
 * (sk_queue_is_current() is false, inside its own work too), so
 * sk_queue_async() from its work enqueues. sk_queue_sync() onto it from one
 * of its workers runs `fn` at once, on that worker; from another thread, on
 * a worker, waiting for it.
 *
 * Releasing the last handle does not wait and drops nothing already given:
 * work given with sk_queue_async() still runs (each `release(ctx)` after
 * its `fn`, on the worker), then the threads exit; work given with
 * sk_queue_after() whose time has not come is dropped (its `release(ctx)`
 * runs then, on the thread that let go of the queue, `fn` never). What still holds the queue (a
 * sk_signal_deliver_on() subscription, a started timer) keeps it, and its
 * threads, working until it ends.
 *
 * @param[out] out     Receives the new queue (+1): release it with
 *                     sk_queue_release(); NULL on error.
 * @param max_workers  1 to SK_QUEUE_MAX_WORKERS (the threads are started
 *                     here: a larger count, SIZE_MAX or 2^32 included, is
 *                     refused, never taken as "as many as the system
 *                     gives").
 * @param name         Borrowed (copied), may be NULL: labels it for
 *                     debuggers.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL;
 *         SK_ERR_INVALID_ARGUMENT for a `max_workers` of 0 or above
 *         SK_QUEUE_MAX_WORKERS ("max_workers is 0: a bounded concurrent
 *         queue has 1 to 1024 workers"); SK_ERR_RESOURCE when the system
 *         refuses a thread (RLIMIT_NPROC, or no memory for its stack: "the
 *         system refused worker thread 3: Resource temporarily unavailable
 *         (errno 11)"). `*out` is NULL on error, and no thread is left.
 * @par Thread safety
 *   Any thread. Its work runs on its own threads.
 */
int sk_queue_create_concurrent(sk_queue **out, size_t max_workers, const char *name);
/**
 * @brief The descriptor of a host-drained queue.
 * @param queue       Borrowed.
 * @param[out] out_fd Receives the descriptor, owned by the queue (do not
 *                    close it); -1 on error.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT for a NULL argument; SK_ERR_WRONG_KIND
 *         for other queues and handles of another kind.
 * @par Thread safety
 *   Any thread.
 */
int sk_queue_host_fd(sk_queue *queue, int *out_fd);
/**
 * @brief Runs pending tasks of a host-drained queue on the calling thread.
 *
 * Work those tasks enqueue with sk_queue_after(), or that other threads
 * enqueue meanwhile, waits for the next drain; sk_queue_async() onto this
 * same queue from one of its tasks runs inline, as on any queue. When the
 * queue's last handle is released during the drain (`queue` included: the
 * drain does not keep it), the drain stops after the task running, the
 * tasks not reached are dropped (see sk_queue_create_host()), and it returns
 * SK_OK with the count of the tasks that ran.
 *
 * @param queue         Borrowed.
 * @param max_tasks     Runs up to this many tasks; 0, or any count larger
 *                      than the tasks pending (SIZE_MAX), means all that
 *                      are pending when the call starts.
 * @param[out] out_ran  May be NULL; receives how many ran.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `queue` is NULL; SK_ERR_WRONG_KIND
 *         for other queues; SK_ERR_BUSY if another thread is draining the
 *         same queue, or this one is (a task of the queue called: drains do
 *         not nest); nothing ran then.
 * @par Thread safety
 *   Any thread, one at a time per queue. The tasks run on the calling thread.
 */
int sk_queue_host_drain(sk_queue *queue, size_t max_tasks, size_t *out_ran);

/**
 * @brief Runs `fn(ctx)` on a queue: inline when the caller is already on it,
 *        otherwise later on the queue's thread.
 * @param queue    Borrowed.
 * @param fn       The work.
 * @param ctx      Passed to `fn` and `release`.
 * @param release  May be NULL; runs once, as for sk_work_fn.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `queue` or `fn` is NULL;
 *         SK_ERR_WRONG_KIND if `queue` is not a queue (SK_ERR_RELEASED for
 *         a released one, with handle checking);
 *         SK_ERR_RESOURCE (SK_ERR_NO_MEMORY) when `queue` is a concurrent
 *         one and the system refuses the timers' event loop its descriptors
 *         (see "Refused resources" in the conventions). On error `release`
 *         has run.
 * @par Thread safety
 *   Any thread. `fn` runs on the queue. The first call of a process on a
 *   concurrent queue may wait for the probing timer (about 1 ms).
 */
int sk_queue_async(sk_queue *queue, sk_work_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Runs `fn(ctx)` on a queue and waits for it (inline when already on
 *        it).
 *
 * Nested syncs run inline too: when `fn` of sk_queue_sync(first) calls
 * sk_queue_sync(second), whose `fn` calls sk_queue_sync(first), the
 * innermost `fn` runs at once, on the calling thread, which holds `first`
 * until the outer call returns (also when it runs `first`'s asynchronous
 * work, or drains or advances `first`). Only the calling thread holds it:
 * work that another thread runs for this one (the main thread, for a sync
 * onto the main queue from another thread; the draining thread of a
 * host-drained queue) waits for ever when it syncs back onto `first`. A
 * concurrent queue holds nothing: its sync runs `fn` on the calling
 * thread at once. Inside, sk_queue_is_current() keeps its meaning: only
 * the queue the thread entered last is current (in the innermost `fn`
 * above, `second`, not `first`; through a concurrent queue, neither),
 * except that a host-drained or virtual-time `first` stays current on the
 * thread draining or advancing it (see sk_queue_is_current()).
 *
 * For the main queue and host-drained queues this blocks until the thread
 * that drains them runs the work: calling it from that thread while it is
 * not draining would wait forever.
 *
 * The wait does not keep `queue`: when a host-drained or virtual-time
 * queue's last handle is released (on another thread) before the work ran,
 * the close drops the work like any pending work (`release(ctx)` runs on
 * the releasing thread, `fn` never runs) and this returns SK_ERR_RELEASED.
 *
 * @param queue    Borrowed.
 * @param fn       The work.
 * @param ctx      Passed to `fn` and `release`.
 * @param release  May be NULL; runs once, as for sk_work_fn.
 * @return SK_OK once `fn` has run; SK_ERR_NULL_ARGUMENT if `queue` or `fn`
 *         is NULL, SK_ERR_WRONG_KIND if `queue` is not a queue (then
 *         `release` has run); SK_ERR_RELEASED when the queue
 *         was closed before `fn` ran (see above: `fn` did not run, `release`
 *         has run).
 * @par Thread safety
 *   Any thread (see above for the main and host-drained queues). `fn` runs
 *   on the queue.
 */
int sk_queue_sync(sk_queue *queue, sk_work_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Runs `fn(ctx)` on a queue after a delay.
 *
 * Until it runs, the work holds its context (counted by sk_live_objects()).
 * A delay that never elapses (see "Durations" in the conventions) drops the
 * work at once: `release` runs before this returns.
 *
 * @param queue    Borrowed.
 * @param seconds  The delay, >= 0.
 * @param fn       The work.
 * @param ctx      Passed to `fn` and `release`.
 * @param release  May be NULL; runs once, as for sk_work_fn.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `queue` or `fn` is NULL;
 *         SK_ERR_WRONG_KIND if `queue` is not a queue (SK_ERR_RELEASED for
 *         a released one, with handle checking);
 *         SK_ERR_INVALID_ARGUMENT for a negative or NaN `seconds`;
 *         SK_ERR_RESOURCE (SK_ERR_NO_MEMORY) when the system refuses the
 *         timers' event loop its descriptors (see "Refused resources" in the
 *         conventions). On error `release` has run.
 * @par Thread safety
 *   Any thread. `fn` runs on the queue. The first timer of a process may
 *   wait for the probing timer (about 1 ms).
 */
int sk_queue_after(sk_queue *queue, double seconds, sk_work_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Whether the caller runs on a queue.
 *
 * Only the innermost queue counts: inside the work of sk_queue_sync(second)
 * called from a serial `first`'s work, `second` is current and `first` is not,
 * also inside the work of a sync back onto `first` (which runs inline: see
 * sk_queue_sync()). A
 * host-drained or virtual-time queue is current on the thread draining or
 * advancing it, inside a serial queue's sync reached from its work too.
 * Always false for the concurrent queues.
 *
 * @param queue  Borrowed; may be NULL.
 * @return True when the caller runs on `queue`; false for NULL.
 * @par Thread safety
 *   Any thread.
 */
bool sk_queue_is_current(sk_queue *queue);

/**
 * @brief Adds a reference to a queue.
 * @param queue  Borrowed; gains one reference. NULL is a no-op.
 * @return `queue` (+1: the reference gained); NULL for NULL and, with
 *         nothing retained and the last error message set, for a handle of
 *         another type or, with handle checking on, a released one.
 * @par Thread safety
 *   Any thread.
 */
sk_queue *sk_queue_retain(sk_queue *queue);
/**
 * @brief Drops a reference to a queue (for a host-drained queue, see
 *        sk_queue_create_host() for what the last release does).
 * @param queue  The reference to drop (owned by the caller, consumed). NULL
 *               is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_queue_release(sk_queue *queue);

/**
 * @brief Starts a timer that calls `fn(ctx)` on a queue after `seconds`, and
 *        again every `seconds` when `repeat`.
 *
 * Releasing the disposable without disposing it stops the timer too. On a
 * host-drained or virtual-time queue, so does closing the queue (releasing
 * its last handle): `release` then runs on the releasing thread, and the
 * disposable, still to be released, does nothing more.
 *
 * @param[out] out  Required. Receives the disposable (+1) that stops the
 *                  timer, written before the timer is armed: `fn` may read
 *                  it from the variable `out` points to from its first call
 *                  (a timer of 0 s may fire before this call returns).
 * @param queue     Borrowed.
 * @param seconds   The delay and period, >= 0. A repeating timer's period
 *                  rounds up to 1 ns: one of 0 s fires 1 ns after the start
 *                  and then every nanosecond (on a virtual-time queue, every
 *                  nanosecond of virtual time: sk_queue_virtual_run() stops
 *                  at its task limit).
 * @param repeat    Whether the timer fires again every `seconds`.
 * @param fn        Called on `queue` each time the timer fires. Periods
 *                  that pass while `queue` cannot run it (a serial queue
 *                  busy with other work, a host-drained queue not drained)
 *                  are merged into one call.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL. Runs once the timer is stopped and no call is
 *                  running (for a one-shot timer that has fired: when its
 *                  disposable is disposed or released).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (out, queue, fn), SK_ERR_WRONG_KIND
 *         (`queue` is not a queue; SK_ERR_RELEASED for a released one, with
 *         handle checking),
 *         SK_ERR_INVALID_ARGUMENT (negative or NaN seconds), SK_ERR_RESOURCE
 *         (SK_ERR_NO_MEMORY) when the system refuses the timers' event loop
 *         its descriptors (see "Refused resources" in the conventions); on
 *         error `release` has run and `*out` is NULL.
 * @par Thread safety
 *   Any thread. `fn` runs on `queue`.
 */
int sk_timer_start(sk_disposable **out, sk_queue *queue, double seconds, bool repeat, sk_work_fn fn, void *ctx, sk_release_fn release);

/**
 * @brief Sets the function the library calls when the system refuses it a
 *        thread: for a binding whose runtime holds a global lock over its
 *        calls (Python's GIL), which it lets go there.
 *
 * A call that gives a serial or concurrent queue work, or starts a timer on
 * a queue that is not virtual-time, waits while the system refuses the new
 * thread it needs (RLIMIT_NPROC, no memory for its stack), libdispatch
 * retrying about once a second until one is given (see "Refused
 * resources" in the conventions). At each refusal the library calls
 * `hook(ctx)` on the thread that asked (the caller of that library call,
 * or a library thread), before that thread retries or, where the refusal
 * is an error
 * (sk_queue_create_concurrent()), before the call returns it. A hook that
 * lets a lock go takes it back once the library call it was in returns (as
 * the Python package does: docs/python.md, "Threads and asyncio"), not
 * inside the hook.
 *
 * The release library calls it (libsignalkit.so as installed, and the
 * packages); a debug or sanitizer build of the library from the Swift
 * package, where libdispatch is a shared library of its own, never does.
 *
 * @param hook  May be NULL (no hook: the default). Called with `ctx`, as
 *              often as threads are refused, possibly on several threads at
 *              once. It must return at once: not wait, and not call the
 *              library (it runs inside the library's request for a thread).
 * @param ctx   Passed to `hook`; kept until the next call replaces it (no
 *              `release`: a hook is meant to be set once, when a binding
 *              starts).
 * @return SK_OK.
 * @par Thread safety
 *   Any thread. A call of the previous hook may still be running on another
 *   thread when this returns.
 * @ingroup queues
 */
int sk_set_thread_refused_hook(sk_work_fn hook, void *ctx);

/** @} */

/* ------------------------------------------------------------------------ */
/* Operators                                                                 */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup operators Operators
 * @brief Signals built on signals: mapping, combining, taking, errors,
 *        sequencing, threads and time, side effects.
 *
 * Each operator takes its input signal borrowed and hands back a new signal
 * (+1) through `out`. Callbacks given to an operator run on the thread that
 * delivers the event, once per event per subscription; their `release(ctx)`
 * runs when the returned signal and all its subscriptions are gone (or at
 * once if the call fails). One `ctx` serves every subscription of the
 * returned signal, so a callback may run on several threads at once (two
 * subscriptions delivering, or values that threads put at the same time,
 * see sk_pipe_put()), and again from inside its own call (a callback that
 * puts into its own source): state it keeps in `ctx` needs its own
 * synchronisation, except the folds of sk_signal_reduce_left() and
 * sk_signal_scan(), which never run concurrently within a subscription
 * (their accumulator is per subscription). `ctx` is never dereferenced by
 * the library: any value, NULL included, may be given with a NULL
 * `release`. Other signal and queue arguments are borrowed too:
 * the returned signal retains what it needs. Durations follow the
 * conventions ("Durations"); timers and delayed work run on the queue given.
 *
 * @par Errors, for every operator
 * SK_ERR_NULL_ARGUMENT when `out` or a required signal, function, queue or
 * value is NULL; SK_ERR_WRONG_KIND for a handle of another type;
 * SK_ERR_INVALID_ARGUMENT for a negative or NaN duration, a malformed value,
 * a `count` of signals larger than any array of them can be (above
 * PTRDIFF_MAX / sizeof(sk_signal *), SIZE_MAX included: "count
 * 18446744073709551615 is larger than any array of signals can be"), or a
 * result deeper than SK_SIGNAL_MAX_DEPTH; SK_ERR_RESOURCE
 * (SK_ERR_NO_MEMORY) for an
 * operator that sets timers (on a queue that is not a virtual-time one) or
 * gives a concurrent queue work, when the system refuses the timers' event
 * loop its descriptors (see "Refused resources" in the conventions: checked
 * when the operator is made, so that no event delivered later can meet the
 * failure). Then `*out` (if given) is NULL and `release` has run.
 *
 * @par Depth
 * A source (pipe, promise, sk_signal_create, constants) is 1 deep; an
 * operator's result is one deeper than its deepest input signal
 * (sk_signal_then over sk_signal_then results runs them as one flat sequence
 * and adds one level in all), and two for sk_signal_share(),
 * sk_signal_replay() and sk_signal_group_by(), whose events take about
 * twice the stack through each (the messages count levels: "would be 513
 * operators deep" after 255 shares over a pipe). Starting a signal and delivering through it
 * nest calls in proportion to its depth (a run of sk_signal_map and
 * sk_signal_filter stages over one another counts one level per stage but
 * delivers in one call), so operators refuse to build past
 * SK_SIGNAL_MAX_DEPTH
 * ("sk_signal_map: the pipeline would be 513 operators deep (the limit is SK_SIGNAL_MAX_DEPTH, 512)"):
 * deep enough for any real pipeline, shallow enough for a 512 KB thread
 * stack. The bound covers a signal as built. A signal that an operator
 * starts at run time (carried as a value to sk_signal_switch_to_latest and
 * the other meta operators, or returned by the function of
 * sk_signal_map_to_signal, sk_signal_catch, sk_signal_deferred) runs nested
 * inside the subscription that starts it: their depths add up, which
 * neither signal's depth shows. Keep such a nesting within
 * SK_SIGNAL_MAX_DEPTH in all for a 512 KB stack, or run it on a thread with
 * a larger stack (a process's main thread usually has 8 MB). Past that the
 * library refuses the nested start while there is stack left to report it:
 * once less than a quarter of the calling thread's stack is left, a signal
 * an operator starts at run time is replaced by one that fails with the
 * error value
 * "sk_signal_deferred: not started: 2094960 bytes left of the thread's 8380416-byte stack, less than a quarter (signals started at run time nest too deep; see Depth in signalkit.h)"
 * (named after the operator: sk_signal_deferred(),
 * sk_signal_map_to_signal(), sk_signal_catch(), sk_signal_switch_to_latest()
 * and the other meta operators), which travels back through the levels as
 * any error does (an sk_signal_deferred() whose function returns another
 * one is refused after about 21,800 levels on 8 MB with the release
 * library; 30,000 died of a stack overflow before the check). Not checked:
 * a thread whose stack bounds cannot be read (glibc reads the main
 * thread's from /proc/self/maps; when that fails for want of a descriptor
 * or of memory, the next check reads them again), a main thread whose
 * RLIMIT_STACK is lowered after its first check (its bounds are read once:
 * lower it before, or start the program under the lower limit), in effect
 * a main thread without a stack
 * limit (`ulimit -s unlimited`: glibc gives its stack all the address space
 * below it: 2,000,000 nested sk_signal_deferred() ran there unrefused), a
 * call made on another stack than its thread's own (a coroutine's), and a
 * program's own recursion through generators that start signals with
 * sk_signal_start() (sk_signal_create_over() counts such custom operators
 * toward the depth; sk_signal_create() does not); a callback of the
 * program's that needs more stack than is left can still overflow it.
 *
 * Every operator below: `out` receives the new signal (+1), NULL on error;
 * it returns SK_OK or one of the errors above; it may be called from any
 * thread.
 * @{
 */

/** @brief The deepest an operator's result may be (see @ref operators, "Depth"). */
#define SK_SIGNAL_MAX_DEPTH 512

/**
 * @brief Transforms a value.
 *
 * Failing: for sk_signal_map(), a call of sk_callback_fail() during the
 * function ends the subscription with that error: `*out` is released, no
 * value is delivered for the call (nor by the stages after it), the
 * upstream is disposed; for sk_signal_group_by()'s key function, the same,
 * and the error ends every group delivered before it too, as an error of
 * the source does.
 *
 * @param ctx       The operator's `ctx`.
 * @param value     Borrowed for the call.
 * @param[out] out  Nil on entry; receives the transformed value (+1, handed to
 *                  the library).
 */
typedef void (*sk_map_fn)(void *ctx, const sk_value *value, sk_value *out);
/**
 * @brief Decides about a value.
 *
 * Failing (sk_signal_filter(), sk_signal_skip_while(),
 * sk_signal_take_while(), sk_signal_first_where()): a call of
 * sk_callback_fail() during the function ends the subscription with that
 * error; the answer is ignored (the value neither passes nor completes
 * anything), the upstream is disposed.
 *
 * @param ctx    The operator's `ctx`.
 * @param value  Borrowed for the call.
 * @return Whether the value passes.
 */
typedef bool (*sk_predicate_fn)(void *ctx, const sk_value *value);
/**
 * @brief Makes a signal for a value.
 * @param ctx    The operator's `ctx`.
 * @param value  Borrowed for the call.
 * @return A signal (+1, handed to the library) for `value`; NULL means an
 *         empty signal that completes at once. Any other handle is taken
 *         (released) and stands for a signal that fails with an error value
 *         of kind SK_KIND_STRING naming the operator
 *         ("sk_signal_catch: fn returned a handle that is not a signal"; with
 *         handle checking on, for a released handle, "... fn returned a
 *         released handle (or one that never was a handle)"). After a call
 *         of sk_callback_fail() during the function, the handle returned
 *         (if any) is taken (released) and stands for a signal that fails
 *         with that error, as one made by sk_signal_fail() would.
 */
typedef sk_signal *(*sk_signal_fn)(void *ctx, const sk_value *value);

/**
 * @brief Values transformed by `fn`.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called once per value per subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators ("sk_signal_map: fn is NULL").
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value.
 */
int sk_signal_map(sk_signal **out, sk_signal *signal, sk_map_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Only the values for which `fn` returns true.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called once per value per subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value.
 */
int sk_signal_filter(sk_signal **out, sk_signal *signal, sk_predicate_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Drops a value equal (sk_value_equal()) to the one delivered before it.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events pass on the thread that delivers them.
 */
int sk_signal_distinct_until_changed(sk_signal **out, sk_signal *signal);
/**
 * @brief The first `count` values, then completion right after the
 *        count-th.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param count     With 0 no value passes and the result completes when
 *                  `signal` does (as the original's take(0)). Any count is
 *                  a limit, never memory reserved: one larger than `signal`
 *                  emits (SIZE_MAX, 2^32) means no limit.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events pass on the thread that delivers them.
 */
int sk_signal_take(sk_signal **out, sk_signal *signal, size_t count);
/**
 * @brief Each value mapped to a signal by `fn`; only the latest inner signal
 *        runs (the previous one is disposed once the new one has started).
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called once per value per subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value.
 */
int sk_signal_map_to_signal(sk_signal **out, sk_signal *signal, sk_signal_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief For a signal of signals (values of SK_KIND_SIGNAL): runs the latest.
 *
 * A value of another kind ends the subscription with an error value of kind
 * SK_KIND_STRING describing it.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events pass on the thread that delivers them.
 */
int sk_signal_switch_to_latest(sk_signal **out, sk_signal *signal);
/**
 * @brief Arrays of the latest value of each of `count` signals, once all have
 *        emitted; completes when all complete.
 *
 * Each array value is lent to the callbacks for their call; one that nothing
 * kept is reused for a later emission, one that is kept (sk_value_copy())
 * makes the next emission allocate a new one. When the system refuses that
 * memory, the subscription ends with an error value of kind SK_KIND_STRING
 * naming it ("sk_signal_combine_latest: out of memory for an array of N
 * values", or "SignalKit: out of memory for this message" when the message's
 * bytes cannot be allocated either), and the inputs are disposed, as for any
 * error.
 *
 * @param[out] out  The new signal (+1).
 * @param signals   `count` signals, borrowed. May be NULL only when `count`
 *                  is 0 (the result emits an empty array, then completes,
 *                  both during the start, on the starting thread, whatever
 *                  `queue` is: as in the original).
 * @param count     The number of signals of `signals`: the array's length,
 *                  read in order (the first NULL or wrong handle is the
 *                  error), never memory reserved ahead.
 * @param queue     Borrowed, may be NULL: where the inputs are delivered
 *                  first (unused when `count` is 0).
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events are delivered on `queue` when given (but with
 *   `count` 0: on the starting thread), otherwise on the thread that
 *   delivers each input's event.
 */
int sk_signal_combine_latest(sk_signal **out, sk_signal *const *signals, size_t count, sk_queue *queue);
/**
 * @brief Arrays of the n-th value of each of `count` signals, in order: a
 *        value waits until every other signal has emitted its n-th.
 *
 * Completes as soon as one signal has completed and none of its values
 * waits (no array can come any more), disposing the others. The first error
 * passes through and disposes all. Values that wait are kept until paired.
 * With two signals, each array value is lent to the callbacks for their
 * call, and one that nothing kept is reused for a later array, as
 * sk_signal_combine_latest()'s (one that is kept, sk_value_copy(), makes the
 * next allocate a new one); with any other count each array value is new.
 * When the system refuses an array's memory, the subscription ends with an
 * error value of kind SK_KIND_STRING ("sk_signal_zip: out of memory for an
 * array of N values").
 *
 * @param[out] out  The new signal (+1).
 * @param signals   `count` signals, borrowed. May be NULL only when `count`
 *                  is 0 (the result completes at once without a value).
 * @param count     The number of signals of `signals`: the array's length,
 *                  read in order (the first NULL or wrong handle is the
 *                  error), never memory reserved ahead.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. An array is delivered on the thread of the value that
 *   completes it: arrays that two threads complete at once are delivered
 *   at once, in either order (each still holds the n-th value of each
 *   signal). Deliver the signals on one serial queue to have them in order.
 */
int sk_signal_zip(sk_signal **out, sk_signal *const *signals, size_t count);
/**
 * @brief Each value of `signal` as the array [value, latest value of
 *        `other`]; values that come before `other` has emitted are dropped.
 *
 * `other` is started first. The completion of `signal` completes and
 * disposes `other`; `other` completing changes nothing (its last value stays
 * in use). An error of either passes through and disposes both. Array values
 * are lent and reused as sk_signal_zip()'s of two signals.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param other     Borrowed, required.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Arrays are delivered on the thread of `signal`'s value.
 */
int sk_signal_with_latest_from(sk_signal **out, sk_signal *signal, sk_signal *other);
/**
 * @brief All values of `count` signals; completes when all complete.
 * @param[out] out  The new signal (+1).
 * @param signals   `count` signals, borrowed. May be NULL only when `count`
 *                  is 0 (the result completes at once).
 * @param count     The number of signals of `signals`: the array's length,
 *                  read in order (the first NULL or wrong handle is the
 *                  error), never memory reserved ahead.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events pass on the thread that delivers them.
 */
int sk_signal_merge(sk_signal **out, sk_signal *const *signals, size_t count);
/**
 * @brief Every event delivered on `queue`.
 *
 * In the order emitted by each thread; inline when emitted on `queue` itself.
 * Events waiting for the queue are delivered in batches, one piece of
 * queue work each, in the order of a dispatch per event: an event joins the
 * batch waiting only while nothing else has been enqueued on `queue` since
 * (sk_queue_async(), sk_queue_sync() from any thread but the queue's own,
 * another deliver-on's batch), so work enqueued between two events runs
 * between them. Work a timer of `queue` enqueues when it fires is not
 * counted: an event put after it may run before it. Nothing is delivered
 * after the subscription is disposed.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param queue     Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Callbacks run on `queue`.
 */
int sk_signal_deliver_on(sk_signal **out, sk_signal *signal, sk_queue *queue);

/**
 * @brief What a bounded buffer (sk_signal_on_backpressure_buffer(),
 *        sk_signal_deliver_on_bounded()) or a bounded place
 *        (sk_signal_zip_bounded(), sk_signal_merge_map_bounded(),
 *        sk_signal_queue_bounded(), sk_signal_buffer_time_bounded()) does
 *        with a value that arrives when `capacity` values are pending. Named after RxJava's
 *        BackpressureOverflowStrategy and Akka Streams' OverflowStrategy.
 */
typedef enum sk_overflow {
    /** The incoming value is dropped (Akka dropNew, RxJava onBackpressureDrop). */
    SK_OVERFLOW_DROP_NEWEST = 0,
    /** The oldest pending value is dropped to make room (Akka dropHead,
     *  RxJava DROP_OLDEST). */
    SK_OVERFLOW_DROP_OLDEST = 1,
    /** The newest pending value is replaced by the incoming one: the
     *  consumer always ends with the latest (Akka dropTail, RxJava
     *  DROP_LATEST; capacity 1 is onBackpressureLatest). */
    SK_OVERFLOW_LATEST = 2,
    /** The stream fails with an error value of kind SK_KIND_STRING naming
     *  the operator and the capacity ("sk_signal_deliver_on_bounded:
     *  overflow: a value arrived with 1000 values pending (capacity 1000,
     *  policy error)"). The values pending are delivered first, then the
     *  error; the value that overflowed, and those the upstream puts until
     *  the error reaches the consumer, are dropped (`on_drop`). */
    SK_OVERFLOW_ERROR = 3,
    /** The producing thread waits for room. When waiting could never end
     *  it fails as SK_OVERFLOW_ERROR does, with an error value saying why
     *  ("... cannot block: ..."): the producer is the thread delivering the
     *  values (a put from inside a delivery), or the queue is host-drained
     *  or virtual-time (its draining thread may be the producer), or the
     *  producer is running a host-drained or virtual-time queue's work
     *  (that queue stops while it waits; a zip's hot marbles, for one). Not
     *  detected: a queue whose every worker is a blocked producer, or a
     *  producer holding a lock the consumer's callback needs (Python's
     *  GIL: the Python binding lets it go around its puts while a signal
     *  with this policy exists). A put inside an sk_nowait_begin() scope
     *  never waits: it leaves its value beyond the capacity (see there). */
    SK_OVERFLOW_BLOCK = 4
} sk_overflow;

/**
 * @brief Told of a value a bounded buffer dropped.
 * @param ctx      The operator's `ctx`.
 * @param value    Borrowed for the call (the library releases it after):
 *                 copy it with sk_value_copy() to keep it.
 * @param dropped  This subscription's count of dropped values so far, this
 *                 one included (1 for the first): the count to log or keep.
 */
typedef void (*sk_drop_fn)(void *ctx, const sk_value *value, uint64_t dropped);

/**
 * @brief Creates a pipe whose values put from inside its own callbacks wait
 *        in a queue of at most `capacity` values per delivering thread.
 *
 * A value put into a pipe from inside one of its callbacks, on the thread
 * that is delivering, waits until that delivery is over (so that every
 * subscriber receives the values in order, and the stack does not grow).
 * With sk_pipe_create() that queue has no bound: a callback that puts many
 * values at once grows it before any operator downstream sees them (an
 * sk_signal_on_backpressure_buffer() downstream sees them one at a time,
 * afterwards). Here a value that arrives with `capacity` values waiting on
 * its thread is handled by `overflow` (see sk_overflow): dropped
 * (SK_OVERFLOW_DROP_NEWEST, SK_OVERFLOW_DROP_OLDEST, SK_OVERFLOW_LATEST: each
 * dropped value goes to `on_drop`), or the pipe fails, after the values
 * waiting, with an error value naming this function and the capacity
 * (SK_OVERFLOW_ERROR; SK_OVERFLOW_BLOCK too, with the "cannot block" error:
 * the producer is the delivering thread, which would wait for itself). Values
 * put after that failure are dropped as after any end of the pipe, without
 * a report. Values put from other threads, or outside a delivery, never wait
 * here and are not counted. Otherwise as sk_pipe_create().
 *
 * @param[out] out   Receives the new pipe (+1): release it with
 *                   sk_pipe_release(); NULL on error.
 * @param replay     As for sk_pipe_create().
 * @param capacity   At least 1: the values that may wait per delivering
 *                   thread.
 * @param overflow   What a value that finds the queue full does.
 * @param on_drop    May be NULL. Called with each dropped value (borrowed)
 *                   and the pipe's count of drops so far, on the putting
 *                   thread, outside any lock.
 * @param ctx        Passed to `on_drop` and `release`.
 * @param release    May be NULL. Runs once, when the pipe is gone.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL;
 *         SK_ERR_INVALID_ARGUMENT for a `capacity` of 0 or an `overflow`
 *         that is no sk_overflow. On error `release` has run.
 * @par Thread safety
 *   Any thread; the pipe as sk_pipe_create()'s.
 * @ingroup subjects
 * (Declared here, after sk_overflow and sk_drop_fn, which it takes.)
 */
int sk_pipe_create_bounded(sk_pipe **out, bool replay, size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);

/**
 * @brief Begins a scope in which the calling thread's puts never wait for
 *        room: for an event loop, whose thread must not block.
 *
 * A put that reaches a full bounded place of SK_OVERFLOW_BLOCK
 * (sk_signal_deliver_on_bounded(), sk_signal_on_backpressure_buffer(),
 * sk_signal_zip_bounded(), sk_signal_merge_map_bounded(),
 * sk_signal_queue_bounded(), sk_signal_buffer_time_bounded()) makes its
 * thread wait for room. Between sk_nowait_begin() and sk_nowait_end() on
 * one thread, such a put (made by the thread itself, or by a callback it
 * runs on that thread) does not wait: it leaves its value in the place,
 * beyond the capacity, and the place is recorded. sk_nowait_end() returns
 * a signal that completes once every recorded place has room again: wait
 * for its completion before the next put, and each place holds at most its
 * capacity plus one value per producer that puts this way. Everything else
 * is as outside a scope: the other policies, and SK_OVERFLOW_BLOCK's
 * "cannot block" refusals. Scopes nest: each sk_nowait_end() ends the
 * innermost one, whose signal names the places of its own puts only.
 *
 * @return SK_OK.
 * @par Thread safety
 *   Any thread; the scope is the calling thread's. End each scope on the
 *   thread that began it, before that thread exits: a scope left open is
 *   never freed, and every later put of its thread never waits.
 * @ingroup subjects
 */
int sk_nowait_begin(void);
/**
 * @brief Ends the calling thread's innermost sk_nowait_begin() scope.
 *
 * @param[out] room  Receives NULL when no put of the scope found a full
 *                   place; else a signal (+1: release it with
 *                   sk_signal_release()) that emits no value and completes
 *                   once every such place has room again, or has ended
 *                   (its subscription disposed or failed, or freed). It does
 *                   not keep the places alive. Each start waits on its own;
 *                   the completion runs on the starting thread when every
 *                   place has room already, else on a serial queue of the
 *                   library's own that all these signals share: keep the
 *                   callback short (hand the news to the event loop).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `room` is NULL (the scope is ended
 *         all the same, its places forgotten); SK_ERR_UNSUPPORTED when no
 *         scope is open on the calling thread ("sk_nowait_end: no
 *         sk_nowait_begin() scope is open on this thread").
 * @par Thread safety
 *   The thread that began the scope.
 * @ingroup subjects
 */
int sk_nowait_end(sk_signal **room);

/**
 * @brief The values one at a time, at most `capacity` of them waiting while
 *        a delivery is in progress, `overflow` deciding about the next
 *        (RxJava's onBackpressureBuffer).
 *
 * A value arriving while no delivery is in progress is delivered at once,
 * on its thread. One arriving meanwhile (from another thread, or from
 * inside the delivery) waits; the delivering thread delivers the waiting
 * values, oldest first, before it returns. The error or completion follows
 * the values pending. Each value dropped (see sk_overflow) is passed to
 * `on_drop`. Values pending when the subscription is disposed are released
 * without being delivered or passed to `on_drop`.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param capacity  The most values waiting, >= 1; 0 is
 *                  SK_ERR_INVALID_ARGUMENT ("capacity is 0").
 * @param overflow  An sk_overflow; another number is
 *                  SK_ERR_INVALID_ARGUMENT.
 * @param on_drop   May be NULL (drops are then not reported). Called once
 *                  per dropped value, on the thread that dropped it, never
 *                  under a lock of the library, possibly on several
 *                  producing threads at once.
 * @param ctx       Passed to `on_drop` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Values, the error and the completion are delivered one at a
 *   time, on the thread that put them or on the thread delivering when they
 *   arrived. With SK_OVERFLOW_BLOCK a producing thread may wait.
 */
int sk_signal_on_backpressure_buffer(sk_signal **out, sk_signal *signal, size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);
/**
 * @brief sk_signal_deliver_on() with at most `capacity` values waiting for
 *        the queue, `overflow` deciding about the next: the memory a slow
 *        consumer makes its producer hold is bounded.
 *
 * As sk_signal_deliver_on(): an event emitted on `queue` itself is
 * delivered inline (it never waits, so it never counts against the
 * capacity); the others wait in order, delivered on `queue` by one piece
 * of work at a time, which the values arriving meanwhile join (unlike
 * sk_signal_deliver_on()'s batches, even when other work was enqueued on
 * `queue` since: they may run ahead of it). The error or completion
 * follows the values pending.
 * Each value dropped (see sk_overflow) is passed to `on_drop`, as are the
 * values pending when a host-drained or virtual-time queue closes. Values
 * pending when the subscription is disposed are released without being
 * delivered or passed to `on_drop`.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param queue     Borrowed.
 * @param capacity  The most values waiting, >= 1; 0 is
 *                  SK_ERR_INVALID_ARGUMENT ("capacity is 0").
 * @param overflow  An sk_overflow; another number is
 *                  SK_ERR_INVALID_ARGUMENT.
 * @param on_drop   May be NULL (drops are then not reported). Called once
 *                  per dropped value, on the thread that dropped it (the
 *                  producing thread; the closing thread for a closed
 *                  queue), never under a lock of the library, possibly on
 *                  several threads at once.
 * @param ctx       Passed to `on_drop` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Callbacks run on `queue`. With SK_OVERFLOW_BLOCK a
 *   producing thread may wait.
 */
int sk_signal_deliver_on_bounded(sk_signal **out, sk_signal *signal, sk_queue *queue, size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);
/**
 * @brief sk_signal_zip() with at most `capacity` values waiting per signal,
 *        `overflow` deciding about the next: a signal that runs ahead of
 *        the others holds at most `capacity` values.
 *
 * The policies apply to each signal's own waiting values
 * (SK_OVERFLOW_DROP_OLDEST drops that signal's oldest). SK_OVERFLOW_ERROR
 * fails the stream at once: the value that overflowed and every value
 * waiting (none has its partners yet) are dropped. SK_OVERFLOW_BLOCK makes
 * the producer of the signal that is ahead wait until the others catch up;
 * when that thread has also put into another of the signals, or is the
 * thread starting the signals and has some still to start (it would wait
 * for itself), or the thread is running a virtual-time or host-drained
 * queue's work (hot marbles on one queue, say, which feed every signal in
 * turn), the stream fails instead ("... cannot block: ..."); not
 * detected: a thread of another kind that will feed another signal later
 * (it waits for ever: give such a zip another policy). Each value
 * dropped is passed to `on_drop`, also one that a signal puts after the
 * failure while the error is still on its way to the consumer (it ends the
 * subscription and disposes the signals when it gets there; a value put
 * after that reaches nothing, and nothing reports it). Values waiting when
 * the subscription ends are released without being passed to `on_drop`. Completion and errors as sk_signal_zip(); each array value is
 * new.
 *
 * @param[out] out  The new signal (+1).
 * @param signals   `count` signals, borrowed. May be NULL only when `count`
 *                  is 0 (the result completes at once without a value).
 * @param count     The number of signals of `signals`, as sk_signal_zip()'s.
 * @param capacity  The most values waiting per signal, >= 1; 0 is
 *                  SK_ERR_INVALID_ARGUMENT ("capacity is 0").
 * @param overflow  An sk_overflow; another number is
 *                  SK_ERR_INVALID_ARGUMENT.
 * @param on_drop   May be NULL (drops are then not reported). Called once
 *                  per dropped value, on the thread that dropped it, never
 *                  under a lock of the library, possibly on several
 *                  producing threads at once.
 * @param ctx       Passed to `on_drop` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Arrays are delivered as sk_signal_zip()'s. With
 *   SK_OVERFLOW_BLOCK a producing thread may wait.
 */
int sk_signal_zip_bounded(sk_signal **out, sk_signal *const *signals, size_t count, size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);
/**
 * @brief sk_signal_merge_map() with at most `capacity` values waiting for a
 *        free slot, `overflow` deciding about the next: a fast `signal`
 *        feeding slow inner signals holds at most `capacity` values.
 *
 * `max_concurrent` 1 is a bounded concat-map. SK_OVERFLOW_ERROR fails the
 * stream at once: the value that overflowed and the values waiting are
 * dropped, and the running inner signals are disposed (as for any error).
 * SK_OVERFLOW_BLOCK makes the producer of `signal` wait until an inner
 * signal completes; a value put from inside an inner signal's start (whose
 * thread would wait for itself) fails the stream instead ("... cannot
 * block: ..."); not detected: inner signals that only the waiting thread
 * would complete. Each value dropped is passed to `on_drop`, also one
 * that `signal` puts after the failure while the error is still on its way
 * to the consumer (it ends the subscription and disposes `signal` when it
 * gets there; a value put after that reaches nothing, and nothing reports
 * it). Values waiting when the subscription ends are released without being
 * passed to `on_drop`.
 *
 * @param[out] out         The new signal (+1).
 * @param signal           Borrowed.
 * @param max_concurrent   As sk_signal_merge_map()'s: at least 1.
 * @param capacity         The most values waiting, >= 1; 0 is
 *                         SK_ERR_INVALID_ARGUMENT ("capacity is 0").
 * @param overflow         An sk_overflow; another number is
 *                         SK_ERR_INVALID_ARGUMENT.
 * @param fn               Required; as sk_signal_merge_map()'s.
 * @param on_drop          May be NULL (drops are then not reported). Called
 *                         once per dropped value, on the thread that
 *                         dropped it, never under a lock of the library,
 *                         possibly on several producing threads at once.
 * @param ctx              Passed to `fn`, `on_drop` and `release`.
 * @param release          May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. As sk_signal_merge_map(). With SK_OVERFLOW_BLOCK a
 *   producing thread may wait.
 */
int sk_signal_merge_map_bounded(sk_signal **out, sk_signal *signal, size_t max_concurrent, size_t capacity, sk_overflow overflow, sk_signal_fn fn, sk_drop_fn on_drop, void *ctx, sk_release_fn release);
/**
 * @brief sk_signal_queue() with at most `capacity` signals waiting their
 *        turn, `overflow` deciding about the next.
 *
 * As sk_signal_merge_map_bounded() with `max_concurrent` 1 and each value
 * its own signal: a dropped value is a waiting signal (of kind
 * SK_KIND_SIGNAL), never started.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed; its values are signals, as sk_signal_queue()'s.
 * @param capacity  The most signals waiting, >= 1; 0 is
 *                  SK_ERR_INVALID_ARGUMENT ("capacity is 0").
 * @param overflow  An sk_overflow; another number is
 *                  SK_ERR_INVALID_ARGUMENT.
 * @param on_drop   May be NULL (drops are then not reported). Called once
 *                  per dropped signal, on the thread that dropped it, never
 *                  under a lock of the library.
 * @param ctx       Passed to `on_drop` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. As sk_signal_queue(). With SK_OVERFLOW_BLOCK a producing
 *   thread may wait.
 */
int sk_signal_queue_bounded(sk_signal **out, sk_signal *signal, size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);
/**
 * @brief sk_signal_buffer_time() collecting at most `capacity` values per
 *        period, `overflow` deciding about the next.
 *
 * SK_OVERFLOW_ERROR emits the values collected, then the error (on
 * `queue`); the value that overflowed and later ones are dropped.
 * SK_OVERFLOW_BLOCK makes the producer wait for the period's end; where it
 * never could (the producer is on `queue`, `queue` is host-drained or
 * virtual-time, or `seconds` is 0 or infinite) the stream fails instead
 * ("... cannot block: ..."). Each value dropped is passed to `on_drop`.
 * Values collected when the subscription is disposed are released without
 * being passed to `on_drop`.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param seconds   As sk_signal_buffer_time()'s.
 * @param queue     Borrowed.
 * @param capacity  The most values collected per period, >= 1; 0 is
 *                  SK_ERR_INVALID_ARGUMENT ("capacity is 0").
 * @param overflow  An sk_overflow; another number is
 *                  SK_ERR_INVALID_ARGUMENT.
 * @param on_drop   May be NULL (drops are then not reported). Called once
 *                  per dropped value, on the thread that dropped it, never
 *                  under a lock of the library, possibly on several
 *                  producing threads at once.
 * @param ctx       Passed to `on_drop` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Arrays and the terminal event are delivered on `queue`, as
 *   sk_signal_buffer_time()'s. With SK_OVERFLOW_BLOCK a producing thread
 *   may wait.
 */
int sk_signal_buffer_time_bounded(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue, size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);
/**
 * @brief The latest value once `seconds` pass without a new one.
 *
 * Completion flushes the pending value first.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param seconds   The quiet time, >= 0.
 * @param queue     Borrowed: where the value is delivered.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. The debounced value is delivered on `queue`.
 */
int sk_signal_debounce(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue);

/* --- Taking and terminating ---------------------------------------------- */

/**
 * @brief What an sk_take_until_fn decides about a value: a bitwise OR of
 *        these flags (0 drops the value and goes on).
 */
typedef enum sk_take_action {
    SK_TAKE_PASS = 1,    /**< deliver the value */
    SK_TAKE_COMPLETE = 2 /**< then complete */
} sk_take_action;

/**
 * @brief Decides about a value for sk_signal_take_until().
 * @param ctx    The operator's `ctx`.
 * @param value  Borrowed for the call.
 * @return A bitwise OR of sk_take_action flags for `value`; other bits are
 *         ignored. After a call of sk_callback_fail() during the function,
 *         ignored: the subscription ends with that error, the upstream is
 *         disposed.
 */
typedef int (*sk_take_until_fn)(void *ctx, const sk_value *value);

/**
 * @brief Asks `fn` about each value: passes it, completes, or both.
 *
 * Delivers the value when the answer has SK_TAKE_PASS, then, when it has
 * SK_TAKE_COMPLETE, completes and disposes `signal`. Once `fn` asked to
 * complete, it is not called again in that subscription. Errors and the
 * completion of `signal` pass through.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called once per value per subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value.
 */
int sk_signal_take_until(sk_signal **out, sk_signal *signal, sk_take_until_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Only the last value, when `signal` completes.
 *
 * Nothing while `signal` runs; when it completes, its last value (a nil value
 * when it emitted none, which a last value that was nil looks like too), then
 * the completion. An error passes through without a value.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events are delivered on the thread of the terminal event.
 */
int sk_signal_last(sk_signal **out, sk_signal *signal);
/**
 * @brief Drops the first `count` values, then passes every value.
 *
 * Errors and the completion pass through.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param count     0 drops nothing; any count is a limit, never memory
 *                  reserved: one larger than `signal` emits (SIZE_MAX,
 *                  2^32) drops every value.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Exactly `count` values are dropped however many threads
 *   deliver at once. Events pass on the thread that delivers them.
 */
int sk_signal_skip(sk_signal **out, sk_signal *signal, size_t count);
/**
 * @brief Drops values while `fn` returns true; from the first value for
 *        which it returns false, passes every value (`fn` is not called
 *        again).
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called for each value until it returns false, per
 *                  subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value.
 */
int sk_signal_skip_while(sk_signal **out, sk_signal *signal, sk_predicate_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Passes values while `fn` returns true; at the first value for
 *        which it returns false, completes and disposes `signal`.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called once per value per subscription, until it
 *                  returns false.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @param inclusive When true, the value for which `fn` returned false is
 *                  delivered before the completion.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value.
 */
int sk_signal_take_while(sk_signal **out, sk_signal *signal, sk_predicate_fn fn, void *ctx, sk_release_fn release, bool inclusive);
/**
 * @brief The first value, then the completion (as sk_signal_take() of 1).
 *
 * A signal that completes without a value completes without one (add
 * sk_signal_default_if_empty() for a fallback); an error passes through.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events pass on the thread that delivers them.
 */
int sk_signal_first(sk_signal **out, sk_signal *signal);
/**
 * @brief The first value for which `fn` returns true, then the completion.
 *
 * Completes without a value when `signal` completes first.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called once per value per subscription, until it
 *                  returns true.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value.
 */
int sk_signal_first_where(sk_signal **out, sk_signal *signal, sk_predicate_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Only the value at `index` (0 for the first), then the completion.
 *
 * Completes without a value when `signal` completes first. An error passes
 * through.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param index     Any index: one `signal` never reaches (SIZE_MAX, 2^32)
 *                  passes nothing, the completion does.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events pass on the thread that delivers them.
 */
int sk_signal_element_at(sk_signal **out, sk_signal *signal, size_t index);
/**
 * @brief Every value; when `signal` completes without having emitted one, a
 *        copy of `value` first, then the completion.
 *
 * An error passes through without `value`.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param value     Borrowed (copied), required.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `value` is delivered on the thread of the completion.
 */
int sk_signal_default_if_empty(sk_signal **out, sk_signal *signal, const sk_value *value);
/**
 * @brief The values of `signal` until `notifier` emits a value: then the
 *        completion, and both are disposed.
 *
 * Unlike sk_signal_take_until(), whose callback decides, a signal decides.
 * `notifier` is started first: one that emits at once completes the
 * subscription before `signal` starts (`signal` then never starts). An error
 * of either passes through and disposes both; `notifier` completing without
 * a value changes nothing; the completion of `signal` completes and disposes
 * `notifier`.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param notifier  Borrowed, required.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events are delivered on the thread of the event that causes
 *   them.
 */
int sk_signal_take_until_signal(sk_signal **out, sk_signal *signal, sk_signal *notifier);
/**
 * @brief Drops every value; passes only the error or the completion.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. The terminal event passes on the thread that delivers it.
 */
int sk_signal_ignore_values(sk_signal **out, sk_signal *signal);
/**
 * @brief Folds an accumulator with a value, for sk_signal_reduce_left().
 * @param ctx          The operator's `ctx`.
 * @param accumulator  Borrowed for the call.
 * @param value        Borrowed for the call.
 * @param[out] out     Nil on entry; receives the new accumulator (+1, handed to
 *                     the library; writing nothing makes it nil). After a call of sk_callback_fail() during the
 *                     function, released: the subscription ends with that
 *                     error, without the accumulator (sk_signal_scan()
 *                     delivers no value for the call, sk_signal_reduce_left()
 *                     none at all), and the upstream is disposed.
 */
typedef void (*sk_reduce_fn)(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out);
/**
 * @brief Folds the values; emits the accumulator when `signal` completes.
 *
 * The accumulator starts as a copy of `initial`; `fn` receives it and each
 * value, one at a time in arrival order, and writes the new accumulator into
 * `*out`. Nothing is emitted while `signal` runs; when it completes, the
 * accumulator, then the completion. An error passes through without a value.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param initial   Borrowed (copied).
 * @param fn        Called once per value per subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value (or, when
 *   values arrive concurrently, on the thread already folding), never
 *   concurrently with itself within a subscription.
 */
int sk_signal_reduce_left(sk_signal **out, sk_signal *signal, const sk_value *initial, sk_reduce_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Folds each value into an accumulator and delivers every
 *        accumulator: `fn(initial, v1)`, then `fn(that, v2)`, ...
 *
 * Each subscription starts from a copy of `initial`. Errors and the
 * completion pass through (no value for the completion).
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param initial   Borrowed (copied), required.
 * @param fn        Called once per value per subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value (or, when
 *   values arrive concurrently, on the thread already folding, which
 *   delivers the accumulators it makes), never concurrently with itself
 *   within a subscription.
 */
int sk_signal_scan(sk_signal **out, sk_signal *signal, const sk_value *initial, sk_reduce_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief From the second value on, the array [previous value, value].
 *
 * The first value delivers nothing. Array values are lent and reused as
 * sk_signal_zip()'s of two signals. Errors and the completion pass through.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Arrays are delivered on the thread of the value that
 *   completes them (or, when values arrive concurrently, on the thread
 *   already pairing, which takes the others' values in turn).
 */
int sk_signal_pairwise(sk_signal **out, sk_signal *signal);

/* --- Errors and repetition ----------------------------------------------- */

/**
 * @brief On error, continues with the signal `fn` returns for it.
 *
 * `fn` receives the error and returns a signal (+1, handed to the library;
 * NULL means an empty signal: the result completes at once) whose values,
 * error and completion pass through. Values and the completion of `signal`
 * pass through. `fn` is not called for an error arriving after the
 * subscription was disposed; disposing disposes `signal` and the signal `fn`
 * returned.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Called with the error.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the error.
 */
int sk_signal_catch(sk_signal **out, sk_signal *signal, sk_signal_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Starts `signal` again each time it completes, forever: the result
 *        never completes.
 *
 * Values pass through; an error passes through and ends the loop. A signal
 * completing synchronously is restarted by a loop, not by recursion (the
 * stack does not grow). Dispose to stop it; the loop also stops, before
 * starting `signal` again, once the downstream is done: a downstream
 * sk_signal_take / sk_signal_take_until that completes (directly or through
 * the operators between, custom ones among them as sk_signal_create_over()
 * says)
 * ends even a loop that never leaves its start (a signal that always
 * completes synchronously), where SwiftSignalKit loops forever.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. A restart runs on the thread where `signal` completed.
 */
int sk_signal_restart(sk_signal **out, sk_signal *signal);
/**
 * @brief Starts `signal` again at once each time it fails; errors never
 *        pass.
 *
 * Values and the completion pass through. Synchronous failures loop, and the
 * loop stops, as in sk_signal_restart().
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. A restart runs on the thread where `signal` failed.
 */
int sk_signal_restart_if_error(sk_signal **out, sk_signal *signal);
/**
 * @brief On error, starts `signal` again after a delay; errors never pass.
 *
 * The n-th retry waits min(max_delay, n * delay_increment) seconds (the delay
 * never resets). Values and the completion pass through. Disposing cancels a
 * pending retry: its timer is stopped, so its work leaves `queue` at once (on
 * a virtual-time queue it is no longer pending, and running the queue does
 * not move the clock to its deadline).
 *
 * @param[out] out        The new signal (+1).
 * @param signal          Borrowed.
 * @param delay_increment Seconds added per retry, >= 0.
 * @param max_delay       The longest wait in seconds, >= 0.
 * @param queue           Borrowed: where the new start runs.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Each retry starts `signal` on `queue`.
 */
int sk_signal_retry(sk_signal **out, sk_signal *signal, double delay_increment, double max_delay, sk_queue *queue);
/**
 * @brief On error, starts `signal` again, at most `count` times; the error
 *        after the last retry passes through.
 *
 * Values of every attempt and the completion pass through. 0 never retries;
 * SIZE_MAX retries for ever. Without a queue each retry starts at once (a
 * signal failing synchronously is restarted by a loop: the stack does not
 * grow); with one, `delay` seconds after the error, and disposing cancels a
 * pending retry (its timer leaves `queue` at once).
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param count     The most retries: any count, never memory reserved
 *                  (SIZE_MAX, or any count larger than the failures to
 *                  come, retries for ever).
 * @param delay     Seconds between an error and its retry, >= 0; must be 0
 *                  when `queue` is NULL.
 * @param queue     Borrowed, may be NULL (retry at once): the retries'
 *                  timer queue.
 * @return SK_OK, or an error of @ref operators; SK_ERR_NULL_ARGUMENT when
 *         `queue` is NULL and `delay` is above 0 (a negative or NaN delay
 *         is SK_ERR_INVALID_ARGUMENT, whatever the queue).
 * @par Thread safety
 *   Any thread. A retry starts `signal` on the thread of the error, or on
 *   `queue` when given.
 */
int sk_signal_retry_count(sk_signal **out, sk_signal *signal, size_t count, double delay, sk_queue *queue);

/* --- Sequencing ---------------------------------------------------------- */

/**
 * @brief For a signal of signals (values of SK_KIND_SIGNAL): runs them one
 *        after another, in arrival order.
 *
 * Each is started once all earlier ones completed. Completes when `signal`
 * and every inner signal have completed; an error of any of them passes
 * through and disposes everything (waiting ones are dropped unstarted). Inner
 * signals completing synchronously do not grow the stack. A value of another
 * kind is run, in its turn, as a signal that fails at once with an error
 * value of kind SK_KIND_STRING describing it.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Each inner signal is started on the thread where its
 *   predecessor completed, or the one that emitted it.
 */
int sk_signal_queue(sk_signal **out, sk_signal *signal);
/**
 * @brief As sk_signal_queue(), but only the latest waiting signal is kept.
 *
 * One arriving while another runs replaces the one waiting (dropped
 * unstarted, whatever its kind). The running one is never interrupted.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Each inner signal is started on the thread where its
 *   predecessor completed, or the one that emitted it.
 */
int sk_signal_throttled(sk_signal **out, sk_signal *signal);
/**
 * @brief The values of `signal`, then, once it has completed, those of
 *        `next`, then the completion of `next`.
 *
 * An error of either passes through (`next` is not started after an error of
 * `signal`). `next` is started after the start of `signal` returned, never
 * from inside its synchronous completion.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param next      Borrowed, required.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events pass on the thread that delivers them.
 */
int sk_signal_then(sk_signal **out, sk_signal *signal, sk_signal *next);
/**
 * @brief A copy of `value` first, during the start, then the events of
 *        `signal` (started afterwards).
 *
 * `signal` is not started when the subscription ended on `value` (a
 * downstream sk_signal_take() of 1).
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param value     Borrowed (copied), required.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `value` is delivered on the starting thread; the rest as
 *   `signal` delivers it.
 */
int sk_signal_start_with(sk_signal **out, sk_signal *signal, const sk_value *value);
/**
 * @brief The `count` signals one after the other: each starts when the one
 *        before it completes; completes after the last.
 *
 * An error passes through and stops the sequence (the later signals never
 * start). Signals completing synchronously do not grow the stack.
 *
 * @param[out] out  The new signal (+1).
 * @param signals   `count` signals, borrowed. May be NULL only when `count`
 *                  is 0 (the result completes at once).
 * @param count     The number of signals of `signals`: the array's length,
 *                  read in order (the first NULL or wrong handle is the
 *                  error), never memory reserved ahead.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Each signal is started on the thread where its predecessor
 *   completed (the first on the starting thread).
 */
int sk_signal_concat(sk_signal **out, sk_signal *const *signals, size_t count);
/**
 * @brief Each value mapped to a signal by `fn`; up to `max_concurrent` of
 *        them run at once, all their values passing through.
 *
 * A value that comes while `max_concurrent` signals run waits, in order,
 * until one completes: 1 runs them one after the other (a concat-map),
 * SIZE_MAX all at once (a merge-map). An error of `signal` or of an inner
 * signal passes through and disposes everything (waiting values are
 * dropped). Completes once `signal` and every inner signal have completed.
 *
 * @param[out] out         The new signal (+1).
 * @param signal           Borrowed.
 * @param max_concurrent   At least 1; any larger count is a limit, never
 *                         memory reserved (SIZE_MAX, 2^32: all at once).
 * @param fn               Called once per value per subscription, when the
 *                         value's signal is about to start.
 * @param ctx              Passed to `fn` and `release`.
 * @param release          May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators; SK_ERR_INVALID_ARGUMENT for
 *         a `max_concurrent` of 0 ("sk_signal_merge_map: max_concurrent must
 *         be at least 1").
 * @par Thread safety
 *   Any thread. `fn` runs, and inner signals start, on the thread of the
 *   value or of the inner completion that makes room.
 */
int sk_signal_merge_map(sk_signal **out, sk_signal *signal, size_t max_concurrent, sk_signal_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Splits the values by the key `fn` gives each: the first value of a
 *        new key delivers the array [key, group], where group (of kind
 *        SK_KIND_SIGNAL) delivers every value of that key, that first one
 *        included.
 *
 * Keys are compared with sk_value_equal(). A group is hot, as a pipe's
 * signal: subscribe to it from the callback that receives the array to miss
 * none of its values, whatever the threads that deliver them (a later
 * subscriber receives the values from then on). The completion of `signal`
 * completes every group, in the order the groups were delivered, then the
 * result; its error fails every group, in that order, then the result; a
 * group subscribed after its end receives that event at once,
 * as a pipe's later subscriber does. Disposing the subscription disposes
 * `signal` and ends the groups without an event (a group subscribed later
 * receives nothing, and its observer's release runs at once). Each array value
 * is new; when the system refuses its memory, the subscription ends with an
 * error value as sk_signal_zip()'s does.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        Gives a value's key; called once per value per
 *                  subscription.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the thread that delivers the value, never under
 *   a lock; a group's values are delivered on that thread too, except the
 *   values of its key that other threads deliver while its array is being
 *   delivered: they wait, in order, and follow the first value on the thread
 *   that delivered the array. Each thread's values of one key reach the
 *   group in the order that thread delivered them.
 */
int sk_signal_group_by(sk_signal **out, sk_signal *signal, sk_map_fn fn, void *ctx, sk_release_fn release);

/* --- Sharing ------------------------------------------------------------- */

/**
 * @brief One subscription to `signal` shared by all subscribers of the
 *        result.
 *
 * The first subscriber connects it, later ones join it (they receive only
 * what comes after they join); when the last one leaves it is disposed, and
 * the next subscriber connects anew. An error or completion of `signal`
 * reaches every subscriber attached and ends the connection. So does a
 * `signal` that lets go of its subscriber without an event (a generator that
 * releases its sk_subscriber, a released pipe): the attached subscriptions end
 * without an event, as they would on `signal` itself, and the next subscriber
 * connects anew, which runs the generator again. Each call makes one shared
 * connection: keep the result and subscribe to it.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Events are delivered on the thread `signal` emits on;
 *   `signal` is started on the thread of the subscriber that connects.
 */
int sk_signal_share(sk_signal **out, sk_signal *signal);
/**
 * @brief As sk_signal_share(), and a subscriber that joins a running
 *        connection first receives its last `count` values (fewer if fewer
 *        came), oldest first.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param count     0 is sk_signal_share(). Any count is a limit, never
 *                  memory reserved: the values are kept as they come, so
 *                  one larger than the connection emits (SIZE_MAX, 2^32)
 *                  replays every value of the connection.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Replayed values are delivered on the subscribing thread;
 *   the rest as for sk_signal_share().
 */
int sk_signal_replay(sk_signal **out, sk_signal *signal, size_t count);

/**
 * @brief Makes the signal a deferred signal runs.
 * @param ctx  The `ctx` given to sk_signal_deferred().
 * @return The signal to run (+1, handed to the library); NULL means an empty
 *         signal that completes at once; any other handle, and a call of
 *         sk_callback_fail() during the function, as for sk_signal_fn.
 */
typedef sk_signal *(*sk_deferred_fn)(void *ctx);
/**
 * @brief A signal that calls `fn` at each start and passes through the
 *        events of the signal it returns.
 * @param[out] out  The new signal (+1).
 * @param fn        Called at each start.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL. Runs once the returned signal is gone (its
 *                  last reference released, signals built on it included)
 *                  and no start of it is running.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the starting thread.
 */
int sk_signal_deferred(sk_signal **out, sk_deferred_fn fn, void *ctx, sk_release_fn release);

/* --- Threads and time ---------------------------------------------------- */

/**
 * @brief Starts `signal` (runs its generator) on `queue`.
 *
 * Inline when started on `queue` already, otherwise enqueued, and never
 * started if disposed before that work runs. Events are delivered wherever
 * `signal` emits them (add sk_signal_deliver_on() to move them).
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param queue     Borrowed.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. The generator runs on `queue`.
 */
int sk_signal_run_on(sk_signal **out, sk_signal *signal, sk_queue *queue);
/**
 * @brief Starts `signal` `seconds` after the start.
 *
 * Values are not delayed individually. Disposing before the timer fires
 * means `signal` is never started.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param seconds   The delay, >= 0.
 * @param queue     Borrowed: the timer's queue.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. The start, from a timer on `queue`, runs the generator there.
 */
int sk_signal_delay(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue);
/**
 * @brief `signal`, or `alternate` if `signal` delivers nothing within
 *        `seconds`.
 *
 * Starts `signal` at once, then, when its start returns, a timer of
 * `seconds` on `queue` (no timer if `signal` delivered an event during its
 * start). If `signal` delivers its first event (value, error or completion)
 * first, it passes through untouched; otherwise, when the timer fires,
 * `signal` is disposed and `alternate` is started on `queue` and passes
 * through instead. Exactly one of them wins. On a virtual-time queue, where
 * work due at the same time runs in the order it was scheduled, an event of
 * `signal` due when the timer is wins.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param seconds   The time allowed, >= 0.
 * @param queue     Borrowed: the timer's queue.
 * @param alternate Borrowed, required.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `alternate` starts on `queue`.
 */
int sk_signal_timeout(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue, sk_signal *alternate);
/**
 * @brief At most one value per `seconds`, on the trailing edge.
 *
 * A value arriving when no window is open opens one; when it ends, the
 * latest value seen during it is delivered. The completion flushes the
 * pending value first; an error drops it.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param seconds   The window, >= 0.
 * @param queue     Borrowed: where every event is delivered.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Every event is delivered on `queue`.
 */
int sk_signal_throttle(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue);
/**
 * @brief The values collected into arrays of `count`, each delivered once
 *        full.
 *
 * The completion first delivers the values collected so far (if any); an
 * error drops them and passes through. Array values are allocated as for
 * sk_signal_zip(); the values collected until then are held as they come,
 * in memory the system cannot refuse without stopping the process
 * (SK_ERR_NO_MEMORY), so a `count` far beyond what memory holds collects
 * until the process stops.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param count     At least 1. A limit, never memory reserved: an array
 *                  grows with the values that come, so a count larger
 *                  than `signal` emits (SIZE_MAX, 2^32) delivers every
 *                  value as one array at the completion.
 * @return SK_OK, or an error of @ref operators; SK_ERR_INVALID_ARGUMENT for
 *         a `count` of 0 ("sk_signal_buffer_count: count must be at least
 *         1").
 * @par Thread safety
 *   Any thread. An array is delivered on the thread of the value that fills
 *   it (or, when values arrive concurrently, on the thread already
 *   collecting, which takes the others' values in turn).
 */
int sk_signal_buffer_count(sk_signal **out, sk_signal *signal, size_t count);
/**
 * @brief The values collected during each window of `seconds`, delivered as
 *        an array when the window ends (an empty window delivers nothing).
 *
 * The completion first delivers the values collected so far (if any); an
 * error drops them and passes through. Disposing stops the timer; so does
 * `signal`'s source letting go of the subscription (a pipe released): with
 * no value to come, the subscription ends without an event, its observer
 * released. A window of 0 never ends (as a period of 0 never samples in
 * sk_signal_sample_period()): every value comes in one array at the
 * completion.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param seconds   The window, >= 0.
 * @param queue     Borrowed: the windows' timer queue.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Arrays and the terminal event are delivered on `queue`.
 */
int sk_signal_buffer_time(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue);
/**
 * @brief At each value of `sampler`, the latest value of `signal` if it
 *        emitted one since the previous sample.
 *
 * The completion of `signal` completes (a value not sampled yet is dropped)
 * and disposes `sampler`; `sampler` completing changes nothing. An error of
 * either passes through and disposes both. `sampler` is started after
 * `signal`.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param sampler   Borrowed, required.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Samples are delivered on the sampler's thread.
 */
int sk_signal_sample(sk_signal **out, sk_signal *signal, sk_signal *sampler);
/**
 * @brief At the end of each period of `seconds`, the latest value of
 *        `signal` if it emitted one since the previous sample.
 *
 * The completion and an error pass through (a value not sampled yet is
 * dropped). Disposing stops the timer; so does `signal`'s source letting go
 * of the subscription, as for sk_signal_buffer_time(). A period of 0 never
 * samples.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param seconds   The period, >= 0.
 * @param queue     Borrowed: the timer's queue.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. Every event is delivered on `queue`.
 */
int sk_signal_sample_period(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue);

/* --- Side effects -------------------------------------------------------- */
/* Each calls `fn` at one point of every subscription and otherwise passes
 * every event through untouched. */

/**
 * @brief A side effect on a value.
 * @param ctx    The operator's `ctx`.
 * @param value  Borrowed for the call.
 */
typedef void (*sk_value_fn)(void *ctx, const sk_value *value);

/**
 * @brief Calls `fn(ctx, value)` just before each value is delivered;
 *        otherwise passes every event through untouched.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        The side effect.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the value's thread.
 */
int sk_signal_before_next(sk_signal **out, sk_signal *signal, sk_value_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Calls `fn(ctx, value)` right after each value was delivered (after
 *        the downstream callback returned); otherwise passes every event
 *        through untouched.
 *
 * Also when that delivery ended the subscription.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        The side effect.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the value's thread.
 */
int sk_signal_after_next(sk_signal **out, sk_signal *signal, sk_value_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Calls `fn(ctx)` at each start, before `signal` is started;
 *        otherwise passes every event through untouched.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        The side effect.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL. As a subscription never calls `fn` once its
 *                  start has returned, `release(ctx)` runs as soon as the
 *                  returned signal is gone and no start of it is running.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the starting thread.
 */
int sk_signal_before_started(sk_signal **out, sk_signal *signal, sk_work_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Calls `fn(ctx)` when `signal` completes, just before the completion
 *        is delivered; otherwise passes every event through untouched.
 *
 * Not called on error nor on disposal.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        The side effect.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the completion's thread.
 */
int sk_signal_before_completed(sk_signal **out, sk_signal *signal, sk_work_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Calls `fn(ctx)` when `signal` completes, right after the completion
 *        was delivered (after the downstream callback returned); otherwise
 *        passes every event through untouched.
 *
 * Not called on error nor on disposal.
 *
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        The side effect.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. `fn` runs on the completion's thread.
 */
int sk_signal_after_completed(sk_signal **out, sk_signal *signal, sk_work_fn fn, void *ctx, sk_release_fn release);
/**
 * @brief Calls `fn(ctx)` exactly once per subscription, when it ends, right
 *        after the subscription to `signal` was disposed; otherwise passes
 *        every event through untouched.
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param fn        The side effect.
 * @param ctx       Passed to `fn` and `release`.
 * @param release   May be NULL; see @ref operators.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread. When the subscription is disposed, `fn` runs on the
 *   disposing thread; when it terminates, on the thread of the terminal
 *   event, after the downstream error or completion callback returned, or,
 *   for a signal terminating synchronously inside its start, before
 *   sk_signal_start returns.
 */
int sk_signal_after_disposed(sk_signal **out, sk_signal *signal, sk_work_fn fn, void *ctx, sk_release_fn release);

/** @} */

/* ------------------------------------------------------------------------ */
/* Diagnostics                                                               */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup diagnostics Diagnostics
 * @brief Handle checking, the count of live objects and their list.
 * @{
 */

/**
 * @brief Turns handle checking (see the @ref conventions "conventions") on or
 *        off.
 *
 * It costs a hash lookup under a striped lock per handle argument and per
 * object created or freed: meant for tests and debugging. Initially on when
 * the environment variable SIGNALKIT_CHECK_HANDLES (or
 * SIGNALKIT_LIVE_OBJECTS_AT_EXIT, see sk_live_objects_print()) is set to a
 * value other than "" or "0" when the library is first used. The registry
 * it keeps is also the list sk_live_objects_report() reads.
 *
 * @param enabled  Whether to check handles.
 * @return SK_OK (also when already in that state); SK_ERR_BUSY, with nothing
 *         changed, while library objects are alive (sk_live_objects() > 0).
 * @par Thread safety
 *   Call it before any other thread uses the library.
 */
int sk_set_handle_checking(bool enabled);
/**
 * @brief Whether handle checking is on.
 * @return True when handle checking is on.
 * @par Thread safety
 *   Any thread.
 */
bool sk_handle_checking(void);

/**
 * @brief The number of library objects currently alive (handles, heap
 *        values, and the C callbacks the library holds).
 *
 * 0 once everything created has been released and every subscription ended.
 * It counts what the C layer hands out or holds for C, not the objects
 * behind the handles: a handle is uncounted when its last reference is
 * released, even if the object it stood for lives on (a promise kept alive by
 * its signal, see sk_promise_get()). So a cycle of such objects that holds no
 * heap value or C callback (a promise whose source is its own signal, see
 * sk_promise_set()) is not seen: 0 does not prove that nothing leaked.
 * sk_live_objects_report() lists what it counts. A stage's function given
 * without a release function (sk_signal_map(), sk_signal_filter()) is
 * counted while handle checking is on, so that the report names it, and
 * not otherwise (the stage then keeps no object for it): compare a count
 * with 0, or with one taken in the same mode.
 *
 * @return The count (>= 0).
 * @par Thread safety
 *   Any thread.
 */
long sk_live_objects(void);

/**
 * @brief Waits until at most `at_most` library objects are alive
 *        (sk_live_objects() <= `at_most`), or `timeout` seconds have passed.
 *
 * For leak checks and the end of a test or a program: a subscription whose
 * last event came from a library thread (a queue's, a timer's) is released
 * by that thread once its callback has returned, so the count may stay
 * above its final value for a moment after the last handle was released.
 * An object is uncounted as its `release` function begins (whoever the
 * release wakes sees it gone): the wait also waits for the `release`
 * functions running to return, so that once it returns the program may
 * free what they use, or end. The wait is woken by the releases themselves
 * (no polling); it returns at once when the count is already low enough
 * and no `release` runs.
 *
 * @param at_most  The count to wait for (0: everything released; the count
 *                 before a piece of work began: that work's objects gone).
 * @param timeout  Seconds to wait at most, >= 0; INFINITY (or more than
 *                 10^9) waits with no deadline.
 * @return SK_OK once sk_live_objects() <= `at_most` and no `release`
 *         function runs; SK_ERR_BUSY when `timeout`
 *         passed first (sk_last_error_message() says how many objects are
 *         alive, or how many `release` functions still run);
 *         SK_ERR_INVALID_ARGUMENT for a `timeout` that is negative or NaN.
 * @par Thread safety
 *   Any thread; it blocks the calling thread, calls nothing of the caller's
 *   and holds no library lock while it waits (docs/concepts.md, "Where a
 *   call can wait"). Called from a callback of the library, it cannot see
 *   that callback's own subscription released, and called from a `release`
 *   function, it waits for that one too (it ends at `timeout`).
 */
int sk_live_objects_wait(long at_most, double timeout);

/**
 * @brief One live object, as sk_live_objects_report() describes it.
 *
 * Fields may be added at the end in a later minor version: read it through
 * the pointer the callback receives; do not copy it into storage of your
 * own. Its strings are valid during the callback only.
 */
typedef struct sk_live_object {
    /** The object's address: for a handle, the handle; for a value, its
     *  object (`u.object`); for a callback, no pointer the caller holds. */
    const void *address;
    /** What it is: "signal", "subscriber", "disposable", "queue", "pipe",
     *  "promise", "value promise", "test subscriptions", "test recorder",
     *  "string value", "bytes value", "array value", "pointer value",
     *  "observer" (the callbacks of sk_signal_start(), held until the
     *  subscription ends), or "callback" (a function with its `ctx` and
     *  `release` that the library holds, made by the function it was given
     *  to). */
    const char *kind;
    /** The public function that made it ("sk_signal_map"), or NULL for an
     *  object the library made itself (the string of an error it delivered,
     *  the array of sk_signal_combine_latest()). */
    const char *made_by;
    /** The name given with sk_handle_set_name(), or NULL. */
    const char *name;
} sk_live_object;

/**
 * @brief Receives one live object of sk_live_objects_report().
 * @param ctx     The report's `ctx`.
 * @param object  Borrowed for the call, its strings too.
 */
typedef void (*sk_live_object_fn)(void *ctx, const sk_live_object *object);

/**
 * @brief Calls `fn` once per live object (oldest first): what
 *        sk_live_objects() counts, with the kind, the function that made it
 *        and its name.
 *
 * The list is kept only while handle checking is on (see
 * sk_set_handle_checking(); SIGNALKIT_CHECK_HANDLES=1 or
 * SIGNALKIT_LIVE_OBJECTS_AT_EXIT=1 in the environment turn it on from the
 * start): with it off, nothing is kept and nothing costs, and this function
 * reports SK_ERR_UNSUPPORTED. The list is read first, then `fn` runs, with
 * no lock of the library held: `fn` may call the library (release what it
 * is given, say), and an object made or freed meanwhile, on another thread
 * or by `fn`, may or may not be listed. As for sk_live_objects(), an object
 * of the Swift core that no handle stands for (a promise kept by its signal)
 * is not listed.
 *
 * @param fn       Called for each object, on the calling thread, before the
 *                 function returns.
 * @param ctx      Passed to `fn` and `release`.
 * @param release  May be NULL; runs once, after the last `fn`, also when the
 *                 call fails, before it returns.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT for a NULL `fn`; SK_ERR_UNSUPPORTED,
 *         `fn` not called, while handle checking is off ("sk_live_objects_report:
 *         the list is kept only while handle checking is on: ...").
 * @par Thread safety
 *   Any thread; `fn` runs on the calling thread.
 */
int sk_live_objects_report(sk_live_object_fn fn, void *ctx, sk_release_fn release);

/**
 * @brief Writes sk_live_objects_report()'s list to `file`, one line per
 *        object: its kind, address, the function that made it and its name.
 *
 * For example, a pipeline whose subscription was never disposed:
 *
 *     signalkit: 5 live objects, oldest first:
 *       pipe 0x55d1c3a0e2a0 made by sk_pipe_create, named "keys"
 *       signal 0x55d1c3a0e6f0 made by sk_pipe_signal
 *       callback 0x55d1c3a0e960 made by sk_signal_map
 *       signal 0x55d1c3a0ebc0 made by sk_signal_map, named "upper"
 *       disposable 0x55d1c3a0ee30 made by sk_signal_start
 *
 * With nothing alive it writes "signalkit: no live objects"; with handle
 * checking off, only the count, and how to get the list. When the
 * environment variable SIGNALKIT_LIVE_OBJECTS_AT_EXIT is set to a value
 * other than "" or "0" when the library is first used, handle checking is
 * on from the start and the library registers an exit handler (atexit())
 * that writes this list to stderr when the process calls exit() (or returns
 * from main), in the process that was started with it (not in a child it
 * forked). Objects alive at that point include whatever the program had not
 * released yet, so release everything before exit to read only the leaks.
 *
 * @param file  Borrowed; written with stdio, not flushed.
 * @return SK_OK (also with checking off); SK_ERR_NULL_ARGUMENT for a NULL
 *         `file`.
 * @par Thread safety
 *   Any thread; the list is read as sk_live_objects_report() reads it, and
 *   written with no lock of the library held.
 */
int sk_live_objects_print(FILE *file);

/**
 * @brief Names a handle for sk_live_objects_report() (a name for a person
 *        hunting a leak; nothing else reads it).
 *
 * The name is copied; NULL removes it; a later call replaces it. It is kept
 * only while handle checking is on (nothing is listed otherwise): with it
 * off, the call checks `handle` and keeps nothing.
 *
 * @param handle  Any handle of this library (sk_signal, sk_subscriber,
 *                sk_disposable, sk_queue, sk_pipe, sk_promise,
 *                sk_value_promise, or a test handle); borrowed.
 * @param name    Copied; may be NULL.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT for a NULL `handle`; SK_ERR_WRONG_KIND
 *         for a pointer that is no handle of this library (a value's object,
 *         a handle of libsignalkit-ffi); SK_ERR_RELEASED for a released
 *         handle while handle checking is on.
 * @par Thread safety
 *   Any thread.
 */
int sk_handle_set_name(void *handle, const char *name);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SIGNALKIT_H */
