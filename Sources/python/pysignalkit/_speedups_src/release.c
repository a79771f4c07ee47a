/*
 * release.c: the release functions of the values carrying Python objects
 * and of the package's callback sets other than an observer's (ctx: a
 * key), which library threads run, also at exit (a queued delivery
 * dropped): each calls the package's function (set_releases) with the key,
 * under the exit rules (exit.c: while closing too, not once finalizing).
 */
#include "speedups.h"

/* The package's release functions of a carried object and of a callback
 * set, by key (set_releases). */
static PyObject *box_release_fn, *ctx_release_fn;

/* function(key), under the exit rules: runs while closing (the exit hook
 * waits for the releases), not once finalizing. */
static void key_release(PyObject **function, void *key)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(0, &state, &saved))
        return;
    if (*function != NULL) {
        PyObject *number = PyLong_FromVoidPtr(key);
        PyObject *result = number ? PyObject_CallFunctionObjArgs(*function, number, NULL) : NULL;
        if (result == NULL)
            PyErr_WriteUnraisable(*function);
        Py_XDECREF(result);
        Py_XDECREF(number);
    }
    leave(state, saved);
}

static void box_release(void *key)
{
    key_release(&box_release_fn, key);
}

void ctx_release(void *key)
{
    key_release(&ctx_release_fn, key);
}

static PyObject *set_releases(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *box, *ctx;
    if (!PyArg_UnpackTuple(args, "set_releases", 2, 2, &box, &ctx))
        return NULL;
    if (!PyCallable_Check(box) || !PyCallable_Check(ctx)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: set_releases takes two callables");
        return NULL;
    }
    replace_global(&box_release_fn, box);
    replace_global(&ctx_release_fn, ctx);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"set_releases", set_releases, METH_VARARGS,
     "set_releases(box, ctx): the release functions BOX_RELEASE and CTX_RELEASE call with the key."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    sk_release_fn box_release_address = box_release, ctx_release_address = ctx_release;
    if (add_address(module, "BOX_RELEASE", (uintptr_t)box_release_address) < 0 ||
        add_address(module, "CTX_RELEASE", (uintptr_t)ctx_release_address) < 0)
        return -1;
    return 0;
}

const module_part release_part = {methods, init};
