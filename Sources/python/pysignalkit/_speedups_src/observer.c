/*
 * observer.c: the four callbacks of an sk_observer (next, error,
 * completed, release) that a Python subscription hands to the library,
 * started by sk_signal_start_failable, whose ctx is a Python list
 * [handler, sink] held by the library (hold()):
 * - next converts the value (values.c: an array as a list) and calls
 *   handler(value) (None there: nothing to call), and sink.failed(exception)
 *   if it raised, which fails the call through sk_callback_fail (as a
 *   fold's sink does, fold.c): the library then ends the subscription by its
 *   one rule (signalkit.h, sk_signal_start_failable: the error after the
 *   value calls in flight on other threads, to error below, then the
 *   upstream disposed);
 * - error calls sink.error_at(address of the value);
 * - completed calls sink.completed();
 * - release calls sink.released(), then drops the list (also a fold
 *   function's release: fold.c's list is of the same shape).
 * Also the disposable a fused stage run's generator returns
 * (ending_disposable()), which ends the run's list before it disposes the
 * run's upstream.
 * Each enters Python under the exit rules (exit.c); next is a delivery
 * (enter_delivery), the hot path of a fan-out.
 */
#include "speedups.h"

#include <stdlib.h>

/* The sink's methods the callbacks call (interned at import). */
static PyObject *name_failed, *name_error_at, *name_completed, *name_released;

/* Calls sink.name(arg) (arg NULL: sink.name()); an exception escaping it
 * is reported as unraisable (the package's methods catch their own). */
static void call_sink(PyObject *ctx, PyObject *name, PyObject *arg)
{
    PyObject *sink = PyList_GetItem(ctx, SINK); /* borrowed */
    if (sink == NULL) {
        PyErr_WriteUnraisable(ctx);
        return;
    }
    if (sink == Py_None)
        return;
    Py_INCREF(sink);
    PyObject *result = PyObject_CallMethodObjArgs(sink, name, arg, NULL);
    if (result == NULL)
        PyErr_WriteUnraisable(sink);
    Py_XDECREF(result);
    Py_DECREF(sink);
}

/* The one-item argument tuple of handler(value), reused from one delivery
 * to the next (a tuple made and freed for each call was about a tenth of a
 * fan-out delivery's instructions: bench/put_cost.py, fanout). Guarded by
 * the GIL, which every delivery holds. Taken for the call (a delivery
 * nested in the handler makes a tuple of its own), and kept for the next
 * one only while nothing else holds it (its reference count 1: a handler
 * that kept its arguments keeps that tuple), its item put back to None so
 * that no value outlives its delivery. */
static PyObject *call_arguments;

/* handler(item), item taken over (released here). */
static PyObject *call_one(PyObject *handler, PyObject *item)
{
    PyObject *arguments = call_arguments;
    call_arguments = NULL;
    if (arguments == NULL) {
        arguments = PyTuple_New(1);
        if (arguments == NULL) {
            Py_DECREF(item);
            return NULL;
        }
    }
    if (PyTuple_SetItem(arguments, 0, item) != 0) { /* takes item, also on failure */
        Py_DECREF(arguments);
        return NULL;
    }
    PyObject *result = PyObject_Call(handler, arguments, NULL);
    if (call_arguments == NULL && Py_REFCNT(arguments) == 1) {
        Py_INCREF(Py_None);
        PyTuple_SetItem(arguments, 0, Py_None); /* releases item; cannot fail at count 1 */
        call_arguments = arguments;
    } else {
        Py_DECREF(arguments);
    }
    return result;
}

static void on_next(void *ctx, const sk_value *value)
{
    PyGILState_STATE state = PyGILState_UNLOCKED;
    int saved = 0, held = 0;
    /* Both thread-locals first, one lookup of their block (putting_here). */
    int interrupted = pending;
    int *here = putting_here();
    if (!enter_delivery_at(here, &held, &state, &saved))
        return;
    PyObject *list = ctx;
    PyObject *handler = PyList_GetItem(list, HANDLER); /* borrowed */
    if (handler != NULL && handler != Py_None) {
        if (interrupted) {
            /* A KeyboardInterrupt waits for the caller of this emission: the
             * emission stops here (this subscriber does not get the value,
             * and stays subscribed), as a loop over listeners stops at an
             * exception. */
        } else {
            PyObject *item = value_object(value);
            /* Read again after the conversion, which may let the GIL go (an
             * object carried by reference is looked up through ctypes): a
             * dispose() that returned meanwhile has set it to None, and no
             * callback starts after that (Disposable.dispose). */
            handler = PyList_GetItem(list, HANDLER);
            if (handler == NULL || handler == Py_None) {
                if (handler == NULL)
                    PyErr_WriteUnraisable(list);
                else if (item == NULL)
                    PyErr_Clear(); /* the value of a subscription that ended: dropped */
                Py_XDECREF(item);
                leave_delivery_at(here, held, state, saved);
                return;
            }
            Py_INCREF(handler);
            PyObject *result = item ? call_one(handler, item) : NULL;
            Py_DECREF(handler);
            if (result == NULL) {
                /* sink.failed(exception) fails this call (sk_callback_fail):
                 * the library delivers the error to error below once the
                 * value calls in flight have returned, then disposes the
                 * upstream. */
                PyObject *exc = fetch_exception();
                call_sink(list, name_failed, exc);
                Py_DECREF(exc);
            } else {
                Py_DECREF(result);
            }
        }
    } else if (handler == NULL) {
        PyErr_WriteUnraisable(list);
    }
    leave_delivery_at(here, held, state, saved);
}

static void on_error(void *ctx, const sk_value *value)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(1, &state, &saved))
        return;
    PyObject *address = PyLong_FromVoidPtr((void *)value);
    if (address != NULL) {
        call_sink(ctx, name_error_at, address);
        Py_DECREF(address);
    } else {
        PyErr_WriteUnraisable(ctx);
    }
    leave(state, saved);
}

static void on_completed(void *ctx)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(1, &state, &saved))
        return;
    call_sink(ctx, name_completed, NULL);
    leave(state, saved);
}

/* release: calls sink.released(), then drops the library's reference to
 * the list (ctx: an observer's list, or a fold function's). Runs while
 * closing too (the exit hook waits for the releases), not once finalizing
 * (the list is then left to the process's end). */
static void on_release(void *ctx)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(0, &state, &saved))
        return;
    call_sink(ctx, name_released, NULL);
    Py_DECREF((PyObject *)ctx);
    leave(state, saved);
}

/* hold(list): a new reference to a callback list [handler, sink] (an
 * observer's, or a fold's [fn, fold]), as the ctx (address) the library
 * hands to its callbacks; dropped by on_release (RELEASE). */
static PyObject *hold(PyObject *self, PyObject *list)
{
    (void)self;
    if (!PyList_Check(list) || PyList_Size(list) != SLOTS) {
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.hold takes a list [handler, sink]");
        return NULL;
    }
    Py_INCREF(list);
    return PyLong_FromVoidPtr(list);
}

/* The disposable of a fused run of Python stages started as a custom
 * operator (_subscription._stage_generator): the run's callback list and
 * its upstream's disposable. The library disposes it, on the disposing
 * thread, when the run's subscription is disposed (a dispose() downstream,
 * through skip, take, share, deliver_on or the next run): it first sets the
 * list's handler to None under the GIL, as Disposable.dispose does for a
 * subscription's own list, so that no stage of the run starts once that
 * dispose has returned (the composed chain reads live[0] before each stage
 * after the first: a stage before may have let the GIL go, and the run's
 * own list was otherwise ended only when the library released it), then
 * disposes the upstream's, without the GIL taken here (the dispose may wait
 * for another thread's). No user code runs in it. */
typedef struct {
    PyObject *list;          /* a reference of its own */
    sk_disposable *upstream; /* owned; may be NULL */
} ending_ctx;

static void ending_action(void *ctx)
{
    ending_ctx *ending = ctx;
    PyGILState_STATE state;
    int saved;
    if (enter(0, &state, &saved)) {
        Py_INCREF(Py_None);
        /* Steals the reference to None; drops the handler's. */
        if (PyList_SetItem(ending->list, HANDLER, Py_None) != 0)
            PyErr_WriteUnraisable(ending->list);
        leave(state, saved);
    }
    sk_disposable_dispose(ending->upstream);
}

/* After the action, or when the library lets go of a disposable never
 * disposed. The list is left to the process's end once finalizing, as an
 * observer's is (release_list). */
static void ending_release(void *ctx)
{
    ending_ctx *ending = ctx;
    sk_disposable_release(ending->upstream);
    PyGILState_STATE state;
    int saved;
    if (enter(0, &state, &saved)) {
        Py_DECREF(ending->list);
        leave(state, saved);
    }
    free(ending);
}

/* ending_disposable(list, upstream) -> address: the disposable (+1, for the
 * library) that ends `list` (an observer's [handler, sink]) and
 * then disposes the sk_disposable at address `upstream` (0: none), taking
 * over the caller's reference to it; when it raises, the caller keeps
 * that reference. */
static PyObject *ending_disposable(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *list, *address;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &list, &address))
        return NULL;
    sk_disposable *upstream = PyLong_AsVoidPtr(address);
    if (upstream == NULL && PyErr_Occurred())
        return NULL;
    if (PyList_Size(list) != SLOTS) {
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.ending_disposable takes a list [handler, sink]");
        return NULL;
    }
    ending_ctx *ending = malloc(sizeof *ending);
    if (ending == NULL)
        return PyErr_NoMemory();
    Py_INCREF(list);
    ending->list = list;
    ending->upstream = upstream;
    sk_disposable *out = NULL;
    if (sk_disposable_action(&out, ending_action, ending, ending_release) != SK_OK || out == NULL) {
        Py_DECREF(list);
        free(ending);
        PyErr_SetString(PyExc_RuntimeError, "signalkit: sk_disposable_action failed");
        return NULL;
    }
    PyObject *result = PyLong_FromVoidPtr(out);
    if (result == NULL) {
        ending->upstream = NULL; /* still the caller's */
        sk_disposable_release(out); /* its release drops the list */
    }
    return result;
}

static PyMethodDef methods[] = {
    {"ending_disposable", ending_disposable, METH_VARARGS,
     "ending_disposable(list, upstream) -> address: a disposable that ends list, then disposes upstream."},
    {"hold", hold, METH_O, "hold(list) -> ctx: a callback list [handler, sink], held for the library until RELEASE."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    name_failed = PyUnicode_InternFromString("failed");
    name_error_at = PyUnicode_InternFromString("error_at");
    name_completed = PyUnicode_InternFromString("completed");
    name_released = PyUnicode_InternFromString("released");
    if (!name_failed || !name_error_at || !name_completed || !name_released)
        return -1;
    sk_next_fn next_fn = on_next, error_fn = on_error;
    sk_completed_fn completed_fn = on_completed;
    sk_release_fn release_fn = on_release;
    if (add_address(module, "NEXT", (uintptr_t)next_fn) < 0 || add_address(module, "ERROR", (uintptr_t)error_fn) < 0 ||
        add_address(module, "COMPLETED", (uintptr_t)completed_fn) < 0 ||
        add_address(module, "RELEASE", (uintptr_t)release_fn) < 0)
        return -1;
    return 0;
}

const module_part observer_part = {methods, init};
