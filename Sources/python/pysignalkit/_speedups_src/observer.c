/*
 * observer.c: the four callbacks of an sk_observer (next, error,
 * completed, release) that a Python subscription hands to the library,
 * whose ctx is the Calls of a Python list [handler, sink, calls] held by
 * the library (hold_observer()):
 * - next converts the value (values.c: an array as a list) and calls
 *   handler(value) (None there: nothing to call), counted in `calls` (a
 *   Calls), and sink.failed(exception) if it raised; the call that leaves
 *   `calls` with none in flight delivers the failure waiting there
 *   (sink.deliver_failure(pending), below);
 * - error calls sink.error_at(address of the value);
 * - completed calls sink.completed();
 * - release calls sink.released(), then drops the list (a fold's list,
 *   fold.c, has a release of its own: FOLD_RELEASE).
 * Also the disposable a fused stage run's generator returns
 * (ending_disposable()), which ends the run's list before it disposes the
 * run's upstream.
 * Each enters Python under the exit rules (exit.c); next is a delivery
 * (enter_delivery), the hot path of a fan-out.
 */
#include "speedups.h"

#include <stdlib.h>

/* The sink's methods the callbacks call (interned at import). */
static PyObject *name_failed, *name_error_at, *name_completed, *name_released, *name_deliver_failure;

/* A subscription's handler calls in flight, on every thread, and the
 * failure waiting for them (the library's order of events, signalkit.h's
 * conventions, kept by the package's own calls: an exception of on_next or
 * of a Python stage fused in front of it ends the subscription on its
 * thread while other threads may still be inside the handler, the GIL let
 * go). The sink's failure (_Sink.fail) waits when another thread has a call
 * in flight (defer_failure): the call that leaves none delivers it. Read
 * and written under the GIL only. */
typedef struct {
    PyObject_HEAD
    /* The callback list whose third item this is (borrowed: the list holds
     * this object), set by hold_observer(); the library's reference to the
     * list keeps both until on_release. */
    PyObject *list;
    Py_ssize_t in_flight;
    /* A thread with calls in flight (one that entered when no thread was
     * the owner) and how many of them it entered as the owner (never more
     * than its calls in flight: a thread's nested calls end innermost
     * first): a failure on that thread, nested in its calls, counts them
     * as its own (calls_elsewhere). */
    uintptr_t owner; /* the thread (this_thread()) */
    Py_ssize_t owner_calls;
    PyObject *pending; /* the (exception, where) waiting, or NULL */
} calls_object;

static int calls_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((calls_object *)self)->pending);
    return 0;
}

static int calls_clear(PyObject *self)
{
    Py_CLEAR(((calls_object *)self)->pending);
    return 0;
}

static void calls_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    calls_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

static PyType_Slot calls_slots[] = {
    {Py_tp_doc, (void *)"A subscription's handler calls in flight and the failure waiting for them (observer.c)."},
    {Py_tp_dealloc, SLOT_FUNCTION(calls_dealloc)},
    {Py_tp_traverse, SLOT_FUNCTION(calls_traverse)},
    {Py_tp_clear, SLOT_FUNCTION(calls_clear)},
    {0, NULL},
};

static PyType_Spec calls_spec = {
    "pysignalkit._speedups.Calls", sizeof(calls_object), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, calls_slots,
};

static PyObject *calls_type;

/* The calling thread, as the address of one of its thread-locals (which a
 * delivery reads anyway: no call, unlike pthread_self()). */
static inline uintptr_t this_thread(void)
{
    return (uintptr_t)&putting;
}

/* A handler call begins (`me`: the calling thread). */
static inline void calls_enter(calls_object *calls, uintptr_t me)
{
    if (calls->owner_calls == 0) {
        calls->owner = me;
        calls->owner_calls = 1;
    } else if (calls->owner == me) {
        calls->owner_calls++;
    }
    calls->in_flight++;
}

/* A handler call of `me` ends. */
static inline void calls_leave(calls_object *calls, uintptr_t me)
{
    calls->in_flight--;
    if (calls->owner_calls != 0 && calls->owner == me)
        calls->owner_calls--;
}

/* The calls of `calls` in flight on other threads: all of them less this
 * thread's own (a failure nested in its calls). A thread that entered while
 * another was the owner has its calls counted as another's: its failure
 * then waits for its outer calls to return too, never runs beside another
 * thread's. */
static Py_ssize_t calls_elsewhere(calls_object *calls)
{
    Py_ssize_t mine = calls->owner_calls != 0 && calls->owner == this_thread() ? calls->owner_calls : 0;
    return calls->in_flight - mine;
}

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
    calls_object *calls = (calls_object *)ctx;
    PyObject *list = calls->list;
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
            uintptr_t me = (uintptr_t)here; /* this_thread() */
            Py_INCREF(handler);
            calls_enter(calls, me);
            PyObject *result = item ? call_one(handler, item) : NULL;
            calls_leave(calls, me);
            Py_DECREF(handler);
            if (result == NULL) {
                PyObject *exc = fetch_exception();
                call_sink(list, name_failed, exc);
                Py_DECREF(exc);
            } else {
                Py_DECREF(result);
            }
            if (calls->in_flight == 0 && calls->pending != NULL) {
                /* The last call in flight: the failure that waited for it. */
                PyObject *failure = calls->pending;
                calls->pending = NULL;
                call_sink(list, name_deliver_failure, failure);
                Py_DECREF(failure);
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
        call_sink(((calls_object *)ctx)->list, name_error_at, address);
        Py_DECREF(address);
    } else {
        PyErr_WriteUnraisable(((calls_object *)ctx)->list);
    }
    leave(state, saved);
}

static void on_completed(void *ctx)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(1, &state, &saved))
        return;
    call_sink(((calls_object *)ctx)->list, name_completed, NULL);
    leave(state, saved);
}

/* Calls sink.released(), then drops the library's reference to `list`.
 * Runs while closing too (the exit hook waits for the releases), not once
 * finalizing (the list is then left to the process's end). */
static void release_list(PyObject *list)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(0, &state, &saved))
        return;
    call_sink(list, name_released, NULL);
    Py_DECREF(list); /* an observer's Calls, which the list holds, may go with it */
    leave(state, saved);
}

/* An observer's release (ctx: its Calls). */
static void on_release(void *ctx)
{
    release_list(((calls_object *)ctx)->list);
}

/* A fold function's release (ctx: its list, hold()). */
static void on_fold_release(void *ctx)
{
    release_list((PyObject *)ctx);
}

/* hold(list): a new reference to a fold's callback list [fn, fold], as
 * the ctx (address) the library hands to its function (fold.c); dropped by
 * on_fold_release (FOLD_RELEASE). */
static PyObject *hold(PyObject *self, PyObject *list)
{
    (void)self;
    if (!PyList_Check(list) || PyList_Size(list) != CALLS) {
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.hold takes a list [fn, fold]");
        return NULL;
    }
    Py_INCREF(list);
    return PyLong_FromVoidPtr(list);
}

/* hold_observer(list): a new reference to an observer's callback list
 * [handler, sink, Calls()], for the library; the ctx (address) the library
 * hands to the callbacks is the list's Calls, which points to the list.
 * Dropped by on_release. */
static PyObject *hold_observer(PyObject *self, PyObject *list)
{
    (void)self;
    if (!PyList_Check(list) || PyList_Size(list) != SLOTS ||
        !PyObject_TypeCheck(PyList_GetItem(list, CALLS), (PyTypeObject *)calls_type)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.hold_observer takes a list [handler, sink, Calls()]");
        return NULL;
    }
    calls_object *calls = (calls_object *)PyList_GetItem(list, CALLS);
    calls->list = list;
    Py_INCREF(list);
    return PyLong_FromVoidPtr(calls);
}

/* defer_failure(calls, pending): keeps `pending` (the sink's (exception,
 * where)) for the last of the calls in flight on other threads to deliver,
 * and returns True; False (nothing kept) when no other thread has a call in
 * flight: the caller delivers it at once. */
static PyObject *defer_failure(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *calls, *pending;
    if (!PyArg_ParseTuple(args, "O!O", (PyTypeObject *)calls_type, &calls, &pending))
        return NULL;
    calls_object *c = (calls_object *)calls;
    if (calls_elsewhere(c) == 0)
        Py_RETURN_FALSE;
    PyObject *old = c->pending;
    Py_INCREF(pending);
    c->pending = pending;
    Py_XDECREF(old);
    Py_RETURN_TRUE;
}

/* drop_failure(calls): drops the failure waiting, if any (a dispose that
 * comes while it waits), and returns it (or None). */
static PyObject *drop_failure(PyObject *self, PyObject *calls)
{
    (void)self;
    if (!PyObject_TypeCheck(calls, (PyTypeObject *)calls_type)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.drop_failure takes a Calls");
        return NULL;
    }
    calls_object *c = (calls_object *)calls;
    if (c->pending == NULL)
        Py_RETURN_NONE;
    PyObject *pending = c->pending;
    c->pending = NULL;
    return pending; /* the reference the Calls held */
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
 * library) that ends `list` (an observer's [handler, sink, Calls()]) and
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
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.ending_disposable takes a list [handler, sink, Calls()]");
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
    {"hold", hold, METH_O, "hold(list) -> ctx: a fold's callback list, held for the library until its release."},
    {"hold_observer", hold_observer, METH_O,
     "hold_observer(list) -> ctx: an observer's callback list, held for the library until on_release."},
    {"defer_failure", defer_failure, METH_VARARGS,
     "defer_failure(calls, pending) -> bool: pending kept for the last call in flight on another thread."},
    {"drop_failure", drop_failure, METH_O, "drop_failure(calls) -> pending or None: the failure waiting, dropped."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    name_failed = PyUnicode_InternFromString("failed");
    name_error_at = PyUnicode_InternFromString("error_at");
    name_completed = PyUnicode_InternFromString("completed");
    name_released = PyUnicode_InternFromString("released");
    name_deliver_failure = PyUnicode_InternFromString("deliver_failure");
    if (!name_failed || !name_error_at || !name_completed || !name_released || !name_deliver_failure)
        return -1;
    calls_type = PyType_FromSpec(&calls_spec);
    if (calls_type == NULL)
        return -1;
    Py_INCREF(calls_type);
    if (PyModule_AddObject(module, "Calls", calls_type) < 0) {
        Py_DECREF(calls_type);
        return -1;
    }
    sk_next_fn next_fn = on_next, error_fn = on_error;
    sk_completed_fn completed_fn = on_completed;
    sk_release_fn release_fn = on_release, fold_release_fn = on_fold_release;
    if (add_address(module, "NEXT", (uintptr_t)next_fn) < 0 || add_address(module, "ERROR", (uintptr_t)error_fn) < 0 ||
        add_address(module, "COMPLETED", (uintptr_t)completed_fn) < 0 ||
        add_address(module, "RELEASE", (uintptr_t)release_fn) < 0 ||
        add_address(module, "FOLD_RELEASE", (uintptr_t)fold_release_fn) < 0)
        return -1;
    return 0;
}

const module_part observer_part = {methods, init};
