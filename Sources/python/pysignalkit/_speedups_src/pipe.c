/*
 * pipe.c: Pipe.put without a Python frame. The package's per-thread
 * trampoline (_handle.py: whether a draining package call runs, and the
 * synchronous emissions waiting for it) is this file's type, so that the
 * put reads and sets it from C. Pipe.put is pipe_method_put (a method
 * descriptor made by pipe_put_method): the outermost put of a value of the
 * library's kinds, with no interrupt pending, is done here (put_value,
 * speedups.h; the trampoline active around the put, as _draining does);
 * when the put leaves something to do (emissions scheduled, a status, an
 * interrupt) the package's finish(trampoline, status) ends it; everything
 * else is the package's Python put.
 */
#include "speedups.h"

typedef struct {
    PyObject_HEAD
    char active;      /* a draining package call runs on this thread */
    PyObject *jobs;   /* collections.deque of the waiting emissions */
    PyObject *direct; /* see _signal.py's _Trampoline */
} trampoline_object;

/* This thread's trampoline (borrowed: the thread state's dict holds it;
 * its dealloc clears this when it is the current one). */
static _Thread_local trampoline_object *current_trampoline;
static PyObject *trampoline_type, *deque_type, *name_pointer, *name_trampoline_key;
/* The package's Python put, finish and cancel (pipe_put_method). */
static PyObject *put_fallback, *put_finish, *put_cancel;

static int trampoline_traverse(PyObject *self, visitproc visit, void *arg)
{
    trampoline_object *t = (trampoline_object *)self;
    Py_VISIT(t->jobs);
    Py_VISIT(t->direct);
    return 0;
}

static int trampoline_clear(PyObject *self)
{
    trampoline_object *t = (trampoline_object *)self;
    Py_CLEAR(t->jobs);
    Py_CLEAR(t->direct);
    return 0;
}

static void trampoline_dealloc(PyObject *self)
{
    if (current_trampoline == (trampoline_object *)self)
        current_trampoline = NULL;
    PyObject_GC_UnTrack(self);
    trampoline_clear(self);
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

static PyMemberDef trampoline_members[] = {
    {"active", T_BOOL, offsetof(trampoline_object, active), 0, "a draining package call runs"},
    {"jobs", T_OBJECT_EX, offsetof(trampoline_object, jobs), 0, "the waiting emissions (a deque)"},
    {"direct", T_OBJECT, offsetof(trampoline_object, direct), 0, "the sink a from_iterable start hands to"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot trampoline_slots[] = {
    {Py_tp_doc, (void *)"Per thread: the package's trampoline state (see thread_trampoline)."},
    {Py_tp_dealloc, SLOT_FUNCTION(trampoline_dealloc)},
    {Py_tp_traverse, SLOT_FUNCTION(trampoline_traverse)},
    {Py_tp_clear, SLOT_FUNCTION(trampoline_clear)},
    {Py_tp_members, trampoline_members},
    {0, NULL},
};

static PyType_Spec trampoline_spec = {
    "pysignalkit._speedups.Trampoline", sizeof(trampoline_object), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, trampoline_slots,
};

/* thread_trampoline() -> this thread's trampoline, made at its first use
 * and kept in the thread state's dict (dropped with the thread). */
static PyObject *thread_trampoline(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (current_trampoline != NULL) {
        Py_INCREF(current_trampoline);
        return (PyObject *)current_trampoline;
    }
    PyObject *dict = PyThreadState_GetDict(); /* borrowed */
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "signalkit: no thread state dict");
        return NULL;
    }
    trampoline_object *t = (trampoline_object *)PyType_GenericAlloc((PyTypeObject *)trampoline_type, 0);
    if (t == NULL)
        return NULL;
    t->active = 0;
    t->direct = NULL;
    t->jobs = PyObject_CallObject(deque_type, NULL);
    if (t->jobs == NULL || PyDict_SetItem(dict, name_trampoline_key, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    current_trampoline = t;
    return (PyObject *)t;
}

/* The extension's puts in flight (each a record on its put's stack), so
 * that a close() of their pipe on another thread (which can run while a
 * put's callbacks run Python) waits for them: Pipe._drop calls
 * claim_puts(pipe, calls), which adds one item to the handle's in-flight
 * list (_Handle._calls) per put into that pipe and marks the put, which
 * then ends the call as the package's own calls do (_Handle._exit, which
 * releases when it is the last). A put registers in the same stretch of C
 * that reads the handle's _pointer (no Python code runs in between, so no
 * other thread), and _drop clears _pointer before it claims: a put that
 * read the pointer is found. Everything here runs with the GIL held. This
 * costs a put two stores and a compare; counting in _calls itself would
 * cost attribute lookups (about 50 ns a put). */
typedef struct put_record {
    PyObject *pipe; /* borrowed: the put's caller holds it */
    int owes_exit;
    struct put_record *next;
} put_record;

static put_record *puts_in_flight;

static PyObject *claim_puts(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pipe, *calls;
    if (!PyArg_UnpackTuple(args, "claim_puts", 2, 2, &pipe, &calls))
        return NULL;
    if (!PyList_Check(calls)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: claim_puts takes a pipe and a list");
        return NULL;
    }
    long claimed = 0;
    for (put_record *record = puts_in_flight; record != NULL; record = record->next) {
        if (record->pipe != pipe || record->owes_exit)
            continue;
        if (PyList_Append(calls, Py_None) < 0)
            return NULL;
        record->owes_exit = 1;
        claimed++;
    }
    return PyLong_FromLong(claimed);
}

/* Unlinks the put's record; when a close() claimed it, ends the call
 * (_Handle._exit: the last one out releases the pipe, through ctypes,
 * without the GIL), keeping the put's outcome (an exception) as it was. */
static void end_put(put_record *record)
{
    put_record **link = &puts_in_flight;
    while (*link != record)
        link = &(*link)->next;
    *link = record->next;
    if (!record->owes_exit)
        return;
    PyObject *exc = PyErr_Occurred() ? fetch_exception() : NULL;
    PyObject *result = PyObject_CallMethod(record->pipe, "_exit", NULL);
    if (result == NULL) /* nothing to raise it to: the put's own outcome stands */
        PyErr_WriteUnraisable(record->pipe);
    Py_XDECREF(result);
    if (exc != NULL)
        restore_exception(exc);
}

static PyObject *pipe_method_put(PyObject *self, PyObject *object)
{
    trampoline_object *t = current_trampoline;
    if (t == NULL || t->active || pending)
        return PyObject_CallFunctionObjArgs(put_fallback, self, object, NULL);
    PyObject *address = PyObject_GetAttr(self, name_pointer);
    if (address == NULL)
        return NULL;
    void *pointer = PyLong_Check(address) ? PyLong_AsVoidPtr(address) : NULL;
    Py_DECREF(address);
    if (pointer == NULL) { /* closed (None), or not an address: the Python put says so */
        PyErr_Clear();
        return PyObject_CallFunctionObjArgs(put_fallback, self, object, NULL);
    }
    /* In flight from here (see claim_puts): registered before any Python
     * code can run, as _pointer was read. */
    put_record record = {self, 0, puts_in_flight};
    puts_in_flight = &record;
    sk_value value = {0};
    int made = object_value(object, &value);
    if (made < 0) {
        end_put(&record);
        return NULL;
    }
    if (made == 0) { /* carried by reference: the Python put */
        end_put(&record);
        return PyObject_CallFunctionObjArgs(put_fallback, self, object, NULL);
    }
    Py_INCREF(t);
    t->active = 1;
    int status = put_value(pipe_put_fn, pointer, &value);
    PyObject *result;
    if (PyErr_Occurred()) { /* never left by a callback, but never hidden either */
        PyObject *exc = fetch_exception();
        t->active = 0;
        result = PyObject_CallFunctionObjArgs(put_cancel, (PyObject *)t, NULL);
        Py_XDECREF(result);
        restore_exception(exc);
        result = NULL;
    } else if (status != 0 || pending || PyObject_Size(t->jobs) != 0) {
        PyObject *status_object = PyLong_FromLong(status);
        result = status_object ? PyObject_CallFunctionObjArgs(put_finish, (PyObject *)t, status_object, NULL)
                               : NULL;
        Py_XDECREF(status_object);
        t->active = 0; /* finish did already; also when it could not be called */
    } else {
        t->active = 0;
        Py_INCREF(Py_None);
        result = Py_None;
    }
    Py_DECREF(t);
    end_put(&record);
    return result;
}

static PyMethodDef pipe_put_def = {
    "put", pipe_method_put, METH_O,
    "put(value): delivers `value` to the current subscribers, on this thread (their callbacks run before put "
    "returns).",
};

/* pipe_put_method(cls, fallback, finish, cancel) -> the descriptor of
 * cls.put: fallback(pipe, value) is the package's put, finish(trampoline,
 * status) ends a put that left work, cancel(trampoline) drops the waiting
 * emissions after an exception. */
static PyObject *pipe_put_method(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cls, *fallback, *finish, *cancel;
    if (!PyArg_UnpackTuple(args, "pipe_put_method", 4, 4, &cls, &fallback, &finish, &cancel))
        return NULL;
    if (!PyType_Check(cls) || !PyCallable_Check(fallback) || !PyCallable_Check(finish) || !PyCallable_Check(cancel)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: pipe_put_method takes a type and three callables");
        return NULL;
    }
    replace_global(&put_fallback, fallback);
    replace_global(&put_finish, finish);
    replace_global(&put_cancel, cancel);
    return PyDescr_NewMethod((PyTypeObject *)cls, &pipe_put_def);
}

static PyMethodDef methods[] = {
    {"thread_trampoline", thread_trampoline, METH_NOARGS, "thread_trampoline() -> this thread's trampoline."},
    {"claim_puts", claim_puts, METH_VARARGS,
     "claim_puts(pipe, calls) -> count: the extension's puts into `pipe` in flight join `calls` (Pipe._drop)."},
    {"pipe_put_method", pipe_put_method, METH_VARARGS,
     "pipe_put_method(cls, fallback, finish, cancel) -> the descriptor of Pipe.put."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    name_pointer = PyUnicode_InternFromString("_pointer");
    name_trampoline_key = PyUnicode_InternFromString("pysignalkit._speedups.trampoline");
    if (!name_pointer || !name_trampoline_key)
        return -1;
    PyObject *collections = PyImport_ImportModule("collections");
    if (collections == NULL)
        return -1;
    deque_type = PyObject_GetAttrString(collections, "deque");
    Py_DECREF(collections);
    if (deque_type == NULL)
        return -1;
    trampoline_type = PyType_FromSpec(&trampoline_spec);
    if (trampoline_type == NULL)
        return -1;
    Py_INCREF(trampoline_type);
    if (PyModule_AddObject(module, "Trampoline", trampoline_type) < 0) {
        Py_DECREF(trampoline_type);
        return -1;
    }
    return 0;
}

const module_part pipe_part = {methods, init};
