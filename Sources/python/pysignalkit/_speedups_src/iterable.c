/*
 * iterable.c: from_iterable's emission into a library operator
 * (put_each): the loop that pulls each item and puts it (put_value,
 * speedups.h), with the checks the package's loop made (its stop flag, the
 * exit, a pending interrupt, signals), letting another thread take the GIL
 * as the interpreter's own loop would.
 */
#include "speedups.h"

#include <time.h>

/* The run's attribute read before each pull (interned at import). */
static PyObject *name_stopped;

/* put_each(subscriber, iterator, run, fallback) -> bool: from_iterable's
 * emission (the package's _IterRun): puts each item the iterator yields
 * into the subscriber as subscriber_put_next does (fallback(subscriber,
 * item), the package's put, for an object of another kind), until the
 * iterator ends (True) or, checked before each pull, run.stopped is true or
 * the exit began, or, after each put, a KeyboardInterrupt waits on this
 * thread (False). An exception of the iterator, of a put or of a signal
 * handler (checked after each put, as the interpreter does between
 * bytecodes) is raised. Every PUT_EACH_YIELD items it looks at the clock,
 * and once PUT_EACH_SLICE_NS have passed since it last did so, it lets the
 * GIL go and sleeps a moment before taking it back, so that a thread
 * waiting for the GIL takes it, as the interpreter's loop lets one take it
 * every switch interval (5 ms). Letting it go and taking it straight back
 * (or after sched_yield) starves that thread: each taking counts as a
 * switch, so the waiter never asks for the GIL (CPython sets its drop
 * request only after an interval with no switch), and a callback's
 * bytecode never gives it up either (seen: a thread woken at the 2,000th of
 * 1,000,000 items ran only after the last). */
enum { PUT_EACH_YIELD = 256 };
#define PUT_EACH_SLICE_NS 5000000L

static long long monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static PyObject *put_each(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *target, *iterator, *run, *fallback;
    if (!PyArg_UnpackTuple(args, "put_each", 4, 4, &target, &iterator, &run, &fallback))
        return NULL;
    void *pointer = PyLong_AsVoidPtr(target);
    if (pointer == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "signalkit: put into a NULL handle");
        return NULL;
    }
    if (!PyIter_Check(iterator) || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: put_each takes a subscriber, an iterator, a run and a callable");
        return NULL;
    }
    long long slice_start = monotonic_ns();
    for (unsigned long count = 1;; count++) {
        PyObject *stopped = PyObject_GetAttr(run, name_stopped);
        if (stopped == NULL)
            return NULL;
        int stop = PyObject_IsTrue(stopped);
        Py_DECREF(stopped);
        if (stop < 0)
            return NULL;
        if (stop || atomic_load(&closing))
            Py_RETURN_FALSE;
        PyObject *item = PyIter_Next(iterator);
        if (item == NULL) {
            if (PyErr_Occurred())
                return NULL;
            Py_RETURN_TRUE;
        }
        sk_value value = {0};
        int made = object_value(item, &value);
        if (made > 0) {
            put_value(subscriber_put_fn, pointer, &value);
        } else if (made == 0) { /* carried by reference: the package's put */
            PyObject *status = PyObject_CallFunctionObjArgs(fallback, target, item, NULL);
            Py_XDECREF(status);
            if (status == NULL)
                made = -1;
        }
        Py_DECREF(item);
        if (made < 0 || PyErr_Occurred()) /* (a put's callbacks never leave one, but never hidden either) */
            return NULL;
        if (pending)
            Py_RETURN_FALSE;
        if (PyErr_CheckSignals() < 0)
            return NULL;
        if (count % PUT_EACH_YIELD == 0 && monotonic_ns() - slice_start >= PUT_EACH_SLICE_NS) {
            PyThreadState *state = PyEval_SaveThread();
            struct timespec moment = {0, 1000}; /* the waiter, woken when the GIL went, takes it meanwhile */
            nanosleep(&moment, NULL);
            PyEval_RestoreThread(state);
            slice_start = monotonic_ns();
        }
    }
}

static PyMethodDef methods[] = {
    {"put_each", put_each, METH_VARARGS,
     "put_each(subscriber, iterator, run, fallback) -> bool: from_iterable's emission; True once the iterator "
     "ended."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    (void)module;
    name_stopped = PyUnicode_InternFromString("stopped");
    return name_stopped == NULL ? -1 : 0;
}

const module_part iterable_part = {methods, init};
