/*
 * puts.c: puts of a Python value into a pipe or a subscriber, for the
 * values of the library's own kinds (values.c, object_value):
 * NotImplemented for any other object, which the package carries by
 * reference through its ctypes path; and the count of the signals with the
 * block policy (block_places), while any of which a put lets the GIL go;
 * and Pipe.put_async's scope (nowait_begin, nowait_end).
 * The put itself, put_value, which every put runs (these, from_iterable's
 * loop in iterable.c, Pipe.put in pipe.c), is inline in speedups.h.
 */
#include "speedups.h"

/* The signals made by the package with the block policy (SK_OVERFLOW_BLOCK)
 * that the library still holds: counted by block_place() before the
 * operator is made, uncounted by their release (block_release). While any
 * exists, a put of this module lets the GIL go around the library's put,
 * which may wait in one of them for room that only a consumer's Python
 * callback (on another thread, needing the GIL) can make; while none does,
 * no put can wait in a signal the package made, and the GIL stays held. */
atomic_long block_places;

static PyObject *put(PyObject *args, put_fn function)
{
    PyObject *target, *object;
    if (!PyArg_UnpackTuple(args, "put", 2, 2, &target, &object))
        return NULL;
    void *pointer = PyLong_AsVoidPtr(target);
    if (pointer == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "signalkit: put into a NULL handle");
        return NULL;
    }
    sk_value value = {0};
    int made = object_value(object, &value);
    if (made < 0)
        return NULL;
    if (made == 0) {
        Py_INCREF(Py_NotImplemented);
        return Py_NotImplemented;
    }
    int status = put_value(function, pointer, &value);
    if (PyErr_Occurred()) /* never left by a callback, but never hidden either */
        return NULL;
    return PyLong_FromLong(status);
}

/* pipe_put(pipe address, value) -> status, or NotImplemented. */
static PyObject *pipe_put(PyObject *self, PyObject *args)
{
    (void)self;
    return put(args, pipe_put_fn);
}

/* subscriber_put_next(subscriber address, value) -> status, or NotImplemented. */
static PyObject *subscriber_put_next(PyObject *self, PyObject *args)
{
    (void)self;
    return put(args, subscriber_put_fn);
}

/* The release of a block signal's context (block_place): one block signal
 * fewer, then the package's release of its callbacks (`key`; NULL when it
 * has none). The count touches no Python: it is dropped at exit too. */
static void block_release(void *key)
{
    atomic_fetch_sub(&block_places, 1);
    if (key != NULL)
        ctx_release(key);
}

/* block_place(): one block signal more, counted before the package makes
 * it; the library runs BLOCK_RELEASE, its release, once it is gone (also
 * at once when making it fails). */
static PyObject *block_place(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    atomic_fetch_add(&block_places, 1);
    Py_RETURN_NONE;
}

/* block_places() -> int: the block signals the library holds (tests). */
static PyObject *block_places_count(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(atomic_load(&block_places));
}

/* nowait_begin(): sk_nowait_begin(), the scope of Pipe.put_async's put
 * (which never waits for room). */
static PyObject *nowait_begin(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    (void)sk_nowait_begin(); /* always SK_OK */
    Py_RETURN_NONE;
}

/* nowait_end() -> the address of the scope's room signal (+1), or None
 * when no put of the scope found a full place (sk_nowait_end). */
static PyObject *nowait_end(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    sk_signal *room = NULL;
    int status = sk_nowait_end(&room);
    if (status != SK_OK) {
        PyErr_Format(PyExc_RuntimeError, "signalkit: %s", sk_last_error_message());
        return NULL;
    }
    if (room == NULL)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(room);
}

static PyMethodDef methods[] = {
    {"nowait_begin", nowait_begin, METH_NOARGS, "nowait_begin(): sk_nowait_begin()."},
    {"nowait_end", nowait_end, METH_NOARGS,
     "nowait_end() -> the room signal's address (+1), or None (sk_nowait_end)."},
    {"pipe_put", pipe_put, METH_VARARGS, "pipe_put(pipe, value) -> status, or NotImplemented."},
    {"subscriber_put_next", subscriber_put_next, METH_VARARGS,
     "subscriber_put_next(subscriber, value) -> status, or NotImplemented."},
    {"block_place", block_place, METH_NOARGS,
     "block_place(): one signal with the block policy more (BLOCK_RELEASE, its release, counts it out)."},
    {"block_places", block_places_count, METH_NOARGS,
     "block_places() -> int: the signals with the block policy alive (puts let the GIL go while any is)."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    sk_release_fn block_release_address = block_release;
    return add_address(module, "BLOCK_RELEASE", (uintptr_t)block_release_address);
}

const module_part puts_part = {methods, init};
