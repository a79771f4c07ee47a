/*
 * exit.c: the exit rules, which every callback of the module enters Python
 * under (what users see of them: docs/python.md, "Errors"):
 * - from set_closing() on, deliveries call no Python;
 * - from finalize() on, no callback touches Python at all, and finalize()
 *   waits (without the GIL) for the callbacks already inside;
 * - a KeyboardInterrupt waiting on this thread for its caller (set_pending)
 *   stops the deliveries until it is raised, and one left pending by a
 *   callback with no caller goes to the package's orphan function.
 *
 * A callback enters with enter() and leaves with leave(); a delivery with
 * enter_delivery() and leave_delivery() (speedups.h): during a put of this
 * module (the common case) it knows the GIL is held (`putting`), so it
 * skips the exit count and PyGILState_Ensure.
 */
#include "speedups.h"

#include <pthread.h>
#include <time.h>

atomic_int closing;
/* 1 from finalize(): no callback touches Python. */
static atomic_int finalizing;
/* Callbacks between their check of `finalizing` and their end. */
static atomic_long inside;
SHARED_TLS int pending;
/* 1 while the innermost callback of this thread was entered with no Python
 * frame below it: a library thread (a queue's, the pool's, a timer's),
 * where no package call waits to raise a KeyboardInterrupt again (the
 * package treats one raised there as an exception like any other). An
 * interrupt still pending when such a callback ends (a package call nested
 * in it deferred one and did not raise it) goes to the package's orphan
 * function (set_orphan), which reports it and clears it: it never outlives
 * that callback, and later deliveries on the thread are not dropped. */
static _Thread_local int no_caller;
/* The package's function for an interrupt left pending by a callback with
 * no caller (set_orphan). */
static PyObject *orphan_fn;
SHARED_TLS int putting;

/*
 * A library thread's Python thread state is kept from its first callback to
 * the thread's end (a pin: one PyGILState_Ensure never released). Without
 * it, PyGILState_Ensure made a thread state for each callback and
 * PyGILState_Release deleted it, its frame stack mapped and unmapped with
 * it: about 9 us per value delivered on a queue's thread (deliver_on on a
 * serial queue), where the callback itself costs well under one, and a
 * threading.local set by one callback was gone in the next.
 *
 * The pin's key holds the thread state, and its destructor deletes it when
 * the thread ends, so threads that come and go (the pool's, libdispatch's)
 * leave none behind. It cannot go through PyGILState_Release: glibc clears
 * every key's value of an ending thread before it calls a destructor, the
 * interpreter's own key (made before this one) included, so the
 * interpreter no longer finds the state there. Once finalize() has begun
 * the destructor touches nothing (the interpreter is going away).
 */
static pthread_key_t pin_key;
static int pin_key_made;
static pthread_once_t pin_once = PTHREAD_ONCE_INIT;
static _Thread_local int pinned;

static void unpin(void *value)
{
    PyThreadState *state = value;
    atomic_fetch_add(&inside, 1);
    if (!atomic_load(&finalizing)) {
        /* The pinned state is cleared under a thread state the interpreter
         * finds in its key: PyGILState_Ensure, seeing none there, makes one
         * and takes the GIL with it, and PyGILState_Release deletes it
         * (the key cleared again). Cleared under the pinned state itself
         * (restored, not in the key), every free failed the check of
         * CPython's debug allocator (python -X dev, PYTHONMALLOC=debug) that
         * the thread holds the GIL: a fatal error as each library thread
         * that had run a callback ended. */
        PyGILState_STATE gil = PyGILState_Ensure();
        PyThreadState_Clear(state);
        PyThreadState_Delete(state);
        PyGILState_Release(gil);
    }
    atomic_fetch_sub(&inside, 1);
}

static void make_pin_key(void)
{
    pin_key_made = pthread_key_create(&pin_key, unpin) == 0;
}

/* Called holding the GIL, on a thread that had no thread state before this
 * callback's PyGILState_Ensure. Without a key (none left) nothing is
 * pinned: callbacks work as before, at the old price. */
static void pin_thread_state(void)
{
    pthread_once(&pin_once, make_pin_key);
    PyThreadState *state = PyGILState_GetThisThreadState();
    if (!pin_key_made || state == NULL || pthread_setspecific(pin_key, state) != 0)
        return;
    (void)PyGILState_Ensure(); /* PyGILState_LOCKED: the GIL is held */
    pinned = 1;
}

int enter(int delivery, PyGILState_STATE *state, int *saved)
{
    atomic_fetch_add(&inside, 1);
    if (atomic_load(&finalizing) || (delivery && atomic_load(&closing))) {
        atomic_fetch_sub(&inside, 1);
        return 0;
    }
    int foreign = !pinned && PyGILState_GetThisThreadState() == NULL;
    *state = PyGILState_Ensure();
    if (foreign)
        pin_thread_state();
    if (atomic_load(&finalizing) || (delivery && atomic_load(&closing))) {
        PyGILState_Release(*state);
        atomic_fetch_sub(&inside, 1);
        return 0;
    }
    *saved = putting | (no_caller << 2);
    putting = 0;
    /* Below the callback: the frame of the Python code that made the
     * package call (this thread's own frames), or none on a library
     * thread. */
    no_caller = PyEval_GetFrame() == NULL;
    return 1;
}

/* A KeyboardInterrupt still pending at the end of a callback with no caller
 * (a nested package call deferred it and nothing raised it): reported and
 * cleared by the package's orphan function, before the thread goes on. */
static void end_orphan_interrupt(void)
{
    if (orphan_fn == NULL) {
        pending = 0;
        return;
    }
    PyObject *result = PyObject_CallFunctionObjArgs(orphan_fn, NULL);
    if (result == NULL)
        PyErr_WriteUnraisable(orphan_fn);
    Py_XDECREF(result);
    pending = 0;
}

void leave(PyGILState_STATE state, int saved)
{
    if (pending && no_caller)
        end_orphan_interrupt();
    putting = saved & 3;
    no_caller = saved >> 2;
    PyGILState_Release(state);
    atomic_fetch_sub(&inside, 1);
}

/*
 * A refused thread. When the system refuses the library a thread, the call
 * that needed it waits inside the library until one is given (retrying
 * about once a second: "Refused resources" in signalkit.h). The library calls
 * thread_refused (sk_set_thread_refused_hook, set at import) at each
 * refusal, on the waiting thread: inside a put of this module that holds
 * the GIL (`putting` 1), it lets the GIL go there, so that the program's
 * other threads, its signal handlers and its timeouts go on while the put
 * waits, and the put takes it back once the library returns
 * (take_back_gil, from put_value). Meanwhile `putting` is 2: the callbacks
 * the put runs on this thread take the GIL themselves, as on a library
 * thread. The library's own locks are not held at that point of the
 * hook's way (it dispatches outside them), and nothing here waits: the
 * GIL is taken back only after the library call returned.
 */
static _Thread_local PyThreadState *let_go;
/* How many times a put let the GIL go so (refused_thread_waits()). */
static atomic_long let_go_count;

static void thread_refused(void *ctx)
{
    (void)ctx;
    int *here = putting_here();
    if (*here != 1 || atomic_load(&finalizing))
        return;
    *here = 2;
    atomic_fetch_add(&let_go_count, 1);
    let_go = PyEval_SaveThread();
}

void take_back_gil(void)
{
    PyThreadState *state = let_go;
    let_go = NULL;
    PyEval_RestoreThread(state);
}

/* refused_thread_waits() -> int: how many times a put let the GIL go while
 * the system refused the library a thread (for the package's tests). */
static PyObject *refused_thread_waits(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(atomic_load(&let_go_count));
}

static int exit_init(PyObject *module)
{
    (void)module;
    return sk_set_thread_refused_hook(thread_refused, NULL) == SK_OK ? 0 : -1;
}

static PyObject *set_pending(PyObject *self, PyObject *flag)
{
    (void)self;
    int truth = PyObject_IsTrue(flag);
    if (truth < 0)
        return NULL;
    pending = truth;
    Py_RETURN_NONE;
}

/* interrupt_pending() -> bool: whether a KeyboardInterrupt waits on this
 * thread (set_pending): what the package's per-value loops read, cheaper
 * than its thread-local attribute. */
static PyObject *interrupt_pending(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(pending);
}

static PyObject *set_orphan(PyObject *self, PyObject *function)
{
    (void)self;
    if (!PyCallable_Check(function)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: set_orphan takes a callable");
        return NULL;
    }
    replace_global(&orphan_fn, function);
    Py_RETURN_NONE;
}

static PyObject *set_closing(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    atomic_store(&closing, 1);
    Py_RETURN_NONE;
}

/* finalize(seconds): no callback touches Python from now on; waits, with
 * the GIL let go, until the callbacks already inside have left (at most
 * `seconds`). Returns whether none is left. */
static PyObject *finalize(PyObject *self, PyObject *seconds_object)
{
    (void)self;
    double seconds = PyFloat_AsDouble(seconds_object);
    if (seconds == -1.0 && PyErr_Occurred())
        return NULL;
    atomic_store(&closing, 1);
    atomic_store(&finalizing, 1);
    long left;
    Py_BEGIN_ALLOW_THREADS
    struct timespec pause = {0, 1000000}; /* 1 ms: at exit only */
    long rounds = seconds > 0 ? (long)(seconds * 1000.0) : 0;
    while ((left = atomic_load(&inside)) > 0 && rounds-- > 0)
        nanosleep(&pause, NULL);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(left == 0);
}

static PyMethodDef methods[] = {
    {"set_pending", set_pending, METH_O, "set_pending(flag): a KeyboardInterrupt waits on this thread."},
    {"interrupt_pending", interrupt_pending, METH_NOARGS,
     "interrupt_pending() -> bool: a KeyboardInterrupt waits on this thread (set_pending)."},
    {"set_orphan", set_orphan, METH_O,
     "set_orphan(fn): fn() reports and clears an interrupt a callback with no caller left pending."},
    {"set_closing", set_closing, METH_NOARGS, "set_closing(): deliveries call no Python from now on."},
    {"finalize", finalize, METH_O, "finalize(seconds) -> bool: no callback touches Python from now on."},
    {"refused_thread_waits", refused_thread_waits, METH_NOARGS,
     "refused_thread_waits() -> int: how many times a put let the GIL go while the system refused a thread."},
    {NULL, NULL, 0, NULL},
};

const module_part exit_part = {methods, exit_init};
