/*
 * fold.c: the fold function of sk_signal_reduce_left and sk_signal_scan,
 * whose ctx is a Python list [handler, sink], as an observer's (hold(),
 * observer.c): handler(accumulator, value), its result written into the
 * out value (an object not of the library's kinds goes in through
 * sink.put_into(object, address)); an exception goes to
 * sink.reduce_failed(exception), which fails the call with it
 * (sk_callback_fail, as the package's other operator callbacks do). A
 * delivery under the exit rules (exit.c: enter_delivery).
 */
#include "speedups.h"

/* The sink's methods the fold calls (interned at import). */
static PyObject *name_reduce_failed, *name_put_into;

/* sink.name(arg): a new reference, or NULL with the exception reported. */
static PyObject *sink_result(PyObject *ctx, PyObject *name, PyObject *arg)
{
    PyObject *sink = PyList_GetItem(ctx, SINK); /* borrowed */
    if (sink == NULL || sink == Py_None) {
        PyErr_WriteUnraisable(ctx);
        return NULL;
    }
    PyObject *result = PyObject_CallMethodObjArgs(sink, name, arg, NULL);
    if (result == NULL)
        PyErr_WriteUnraisable(sink);
    return result;
}

static void on_reduce(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out)
{
    PyGILState_STATE state = PyGILState_UNLOCKED;
    int saved = 0, held = 0;
    if (!enter_delivery(&held, &state, &saved))
        return;
    PyObject *list = (PyObject *)ctx;
    PyObject *fn = PyList_GetItem(list, HANDLER); /* borrowed */
    if (fn == NULL) {
        PyErr_WriteUnraisable(list);
    } else if (fn != Py_None) {
        Py_INCREF(fn);
        PyObject *result = NULL;
        PyObject *acc = value_object(accumulator);
        if (acc != NULL && !PyErr_Occurred()) {
            PyObject *item = value_object(value);
            if (item != NULL) {
                PyObject *args[2] = {acc, item};
                result = PyObject_CallFunctionObjArgs(fn, args[0], args[1], NULL);
                Py_DECREF(item);
            }
        }
        Py_XDECREF(acc);
        Py_DECREF(fn);
        int made = result ? object_value(result, out) : -1;
        if (made < 0) {
            /* The function (or the conversion of its result) raised:
             * sink.reduce_failed(exception) fails the call with it
             * (sk_callback_fail, through the package's _fail_call, as for
             * every Python operator callback); the library ends the stream
             * with it and drops `out`, left nil here. */
            Py_XDECREF(result);
            PyObject *exc = fetch_exception();
            result = sink_result(list, name_reduce_failed, exc);
            Py_DECREF(exc);
            sk_value_release(out);
            made = 1; /* nothing to write */
        }
        if (made == 0) { /* carried by reference: the package boxes it */
            PyObject *address = PyLong_FromVoidPtr(out);
            if (address != NULL) {
                PyObject *args[2] = {result, address};
                PyObject *sink = PyList_GetItem(list, SINK);
                PyObject *done = NULL;
                if (sink != NULL && sink != Py_None) {
                    PyObject *method = PyObject_GetAttr(sink, name_put_into);
                    if (method != NULL) {
                        done = PyObject_CallFunctionObjArgs(method, args[0], args[1], NULL);
                        Py_DECREF(method);
                    }
                }
                if (done == NULL)
                    PyErr_WriteUnraisable(list);
                Py_XDECREF(done);
                Py_DECREF(address);
            } else {
                PyErr_WriteUnraisable(list);
            }
        }
        Py_XDECREF(result);
    }
    leave_delivery(held, state, saved);
}

static int init(PyObject *module)
{
    name_reduce_failed = PyUnicode_InternFromString("reduce_failed");
    name_put_into = PyUnicode_InternFromString("put_into");
    if (!name_reduce_failed || !name_put_into)
        return -1;
    sk_reduce_fn reduce_fn = on_reduce;
    return add_address(module, "REDUCE", (uintptr_t)reduce_fn);
}

const module_part fold_part = {NULL, init};
