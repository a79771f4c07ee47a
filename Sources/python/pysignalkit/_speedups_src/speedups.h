/*
 * speedups.h: what the files of the extension module pysignalkit._speedups
 * share (internal: not installed, no API). module.c says what the module is
 * and lists its files; each section below names the file that defines what
 * it declares, whose comment says what it is for.
 *
 * Every file includes this one first: it fixes the stable ABI the module
 * is written against (module.c says why) before Python.h is read. What it
 * declares is hidden (the pragma below), so the module's .so exports
 * PyInit__speedups alone, and a call between its files is a direct call.
 */
#ifndef PYSIGNALKIT_SPEEDUPS_H
#define PYSIGNALKIT_SPEEDUPS_H

#define Py_LIMITED_API 0x03090000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <signalkit.h>

#include <stdatomic.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* module.c ---------------------------------------------------------------- */

/* One file's share of the module, which module.c joins at import: its
 * functions (NULL: none) and what it adds to the module (NULL: nothing;
 * else 0, or -1 with an exception set): its interned names, its types, the
 * addresses of its C callbacks. */
typedef struct {
    PyMethodDef *methods;
    int (*init)(PyObject *module);
} module_part;

extern const module_part exit_part, values_part, observer_part, fold_part, release_part, puts_part,
    iterable_part, pipe_part, operators_part, native_part, stack_part;

/* Points a module global at `value` (a new reference), dropping the
 * reference it held (the previous value is released last: its release may
 * run Python that reads the global). */
void replace_global(PyObject **slot, PyObject *value);

/* module.NAME = address (a C callback the package hands to the library):
 * 0, or -1 with an exception set. */
int add_address(PyObject *module, const char *name, uintptr_t address);

/* A type slot holds a function as a void pointer (the API's choice; ISO C
 * leaves the conversion to the compiler, which supports it). */
#define SLOT_FUNCTION(f) (__extension__(void *)(f))

/* A thread-local that several files read: of the local-dynamic model, as a
 * static one is, whose lookup of the module's block an access shares with
 * the others of the function; an extern one is given the general-dynamic
 * model, a lookup of its own (module.c, "One module, several files"). */
#define SHARED_TLS __attribute__((tls_model("local-dynamic"))) _Thread_local

/* exit.c: the exit rules -------------------------------------------------- */

/* 1 from set_closing(): deliveries do nothing. */
extern atomic_int closing;
/* A KeyboardInterrupt met on this thread is waiting for its caller (set by
 * the package with set_pending): a delivery calls nothing until then. */
extern SHARED_TLS int pending;
/* 1 while this thread is inside a put of this module, which holds the GIL,
 * and not inside Python code called from there (every callback sets it to
 * 0 while it runs Python: a ctypes call from there lets the GIL go); 2 once
 * that put let the GIL go because the system refused the library a thread
 * (thread_refused in exit.c), until the put takes it back (take_back_gil). */
extern SHARED_TLS int putting;

/* Takes back the GIL a put let go at a refused thread (putting 2). */
void take_back_gil(void);

/* Enters Python for a callback (a delivery, skipped from set_closing() on,
 * or an action that still runs while closing): 0 (and nothing to undo)
 * when it must not; else leave() undoes it. */
int enter(int delivery, PyGILState_STATE *state, int *saved);
void leave(PyGILState_STATE state, int saved);

/* This thread's `putting`, its address looked up once: the compiler takes
 * the address of a thread-local again after each call rather than keep it
 * (a lookup of the module's block, about 11 instructions), so a function
 * that reads it, calls out and writes it takes it here, where the empty
 * asm hides where the address came from. */
static inline int *putting_here(void)
{
    int *here = &putting;
    __asm__("" : "+r"(here));
    return here;
}

/* Enters Python for a delivery (next, reduce, an operator's value): 0 when
 * it must not. During a put of this module on this thread (`putting`, at
 * `here`: putting_here()) the GIL is held and the exit hook cannot be past
 * its wait, so neither the count nor PyGILState is needed; `*held` says
 * which way it entered, for leave_delivery. Inline here, not in exit.c:
 * every delivery runs it (see module.c, "One module, several files"). */
static inline int enter_delivery_at(int *here, int *held, PyGILState_STATE *state, int *saved)
{
    *held = *here == 1;
    if (*held) {
        if (atomic_load(&closing))
            return 0;
        *here = 0; /* no_caller is read only by leave(), for its own enter() */
        return 1;
    }
    return enter(1, state, saved);
}

static inline void leave_delivery_at(int *here, int held, PyGILState_STATE state, int saved)
{
    if (held)
        *here = 1;
    else
        leave(state, saved);
}

static inline int enter_delivery(int *held, PyGILState_STATE *state, int *saved)
{
    return enter_delivery_at(&putting, held, state, saved);
}

static inline void leave_delivery(int held, PyGILState_STATE state, int saved)
{
    leave_delivery_at(&putting, held, state, saved);
}

/* exceptions.c ------------------------------------------------------------ */

/* The exception being raised, normalized, with its traceback attached (a
 * new reference; None when none is). */
PyObject *fetch_exception(void);
/* Raises `exc` again (from fetch_exception; the reference is taken). */
void restore_exception(PyObject *exc);

/* values.c: sk_value <-> Python object ------------------------------------ */

/* `value` as a Python object (a new reference), or NULL with an exception. */
PyObject *value_object(const sk_value *value);
/* Writes the sk_value for `object` into `out`: 1 done (release `out`
 * when its kind holds something), 0 not a kind of the library (nothing
 * written), -1 an exception (OverflowError for an int outside int64). */
int object_value(PyObject *object, sk_value *out);

/* observer.c, fold.c: the callback list ----------------------------------- */

/* The slots of the list [handler, sink] that is the ctx of an observer's
 * callbacks and of a fold function (hold()). */
enum { HANDLER, SINK, SLOTS };

/* release.c --------------------------------------------------------------- */

/* The package's release of a callback set, by key (set_releases). */
void ctx_release(void *key);

/* puts.c ------------------------------------------------------------------ */

/* The signals with the block policy the library holds (puts.c says how
 * they are counted): while any exists, put_value lets the GIL go. */
extern atomic_long block_places;

typedef int (*put_fn)(void *target, const sk_value *value);

static inline int pipe_put_fn(void *target, const sk_value *value)
{
    return sk_pipe_put((sk_pipe *)target, value);
}

static inline int subscriber_put_fn(void *target, const sk_value *value)
{
    return sk_subscriber_put_next((sk_subscriber *)target, value);
}

/* Puts `value` (made by object_value, released here) with `function`; the
 * library's status. The GIL is held through the put (`putting`: the
 * callbacks it runs on this thread know they have it), unless a signal
 * with the block policy exists (block_places): then it is let go around
 * the put, as ctypes does around its calls, and the callbacks the put runs
 * on this thread take it again (`putting` 0). A put that holds it lets it
 * go if the system refuses the library a thread meanwhile (the put then
 * waits for one: `putting` 2, exit.c's thread_refused), and takes it back
 * when the library returns. A relaxed load: a block
 * signal is made by Python code (holding the GIL), before anything can
 * put into it. The put of every caller (puts.c, iterable.c, pipe.c); inline
 * here, not in puts.c, since every put runs it (module.c, "One module,
 * several files"). */
static inline int put_value(put_fn function, void *target, sk_value *value)
{
    int saved = putting;
    int status;
    if (atomic_load_explicit(&block_places, memory_order_relaxed) == 0) {
        putting = 1;
        status = function(target, value);
        if (__builtin_expect(putting == 2, 0))
            take_back_gil();
    } else {
        putting = 0;
        PyThreadState *thread = PyEval_SaveThread();
        status = function(target, value);
        PyEval_RestoreThread(thread);
    }
    putting = saved;
    if (value->kind > SK_KIND_DOUBLE)
        sk_value_release(value);
    return status;
}

#pragma GCC visibility pop

#endif
