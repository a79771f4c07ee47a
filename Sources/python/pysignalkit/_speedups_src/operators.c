/*
 * operators.c: the library operators' other callbacks: take_until, the side
 * effects, map_to_signal and catch, deferred, the generators of create(fn),
 * from_iterable and the Python stages, timer fires, queue jobs, and the
 * actions of the package's disposables. Their ctx is a registry key of the
 * package; each calls the package's function of its kind (set by
 * operator(name, fn)) with (key) or (key, argument) under the exit rules
 * (exit.c), and translates the result back for the library: a translation,
 * no logic.
 */
#include "speedups.h"

#include <string.h>

enum {
    OP_WORK, OP_RUN, OP_STOP, OP_CANCEL, OP_VALUE, OP_TAKE_UNTIL, OP_SIGNAL, OP_DEFERRED, OP_ITER, OP_CREATE,
    OP_STAGE, OP_PREDICATE, OP_KEY, OP_DROP, OP_SHARED_DROP, OP_KINDS
};
/* The package's function of each kind (operator()). */
static PyObject *operator_fns[OP_KINDS];

/* How a crossing entered Python (enter_delivery or enter). */
typedef struct crossing {
    int delivery, held, saved;
    PyGILState_STATE state;
} crossing;

/* Enters Python for an operator callback: a delivery (skipped from
 * set_closing on) or an action that must still run while closing (stops and
 * cancels: they end library work), never once finalizing. 0: must not. */
static int cross_in(crossing *c, int delivery)
{
    c->delivery = delivery;
    c->held = 0;
    c->saved = 0;
    c->state = PyGILState_UNLOCKED;
    if (delivery)
        return enter_delivery(&c->held, &c->state, &c->saved);
    return enter(0, &c->state, &c->saved);
}

static void cross_out(crossing *c)
{
    if (c->delivery)
        leave_delivery(c->held, c->state, c->saved);
    else
        leave(c->state, c->saved);
}

/* operator_fns[kind](key[, argument]) (argument NULL: none; an error in
 * making it is reported, nothing called): a new reference, or NULL with
 * the exception reported (the package's functions catch their own). */
static PyObject *call_operator(int kind, void *ctx, PyObject *argument, int argument_failed)
{
    PyObject *function = operator_fns[kind];
    if (argument_failed || function == NULL) {
        if (!argument_failed)
            PyErr_SetString(PyExc_RuntimeError, "signalkit: _speedups.operator was not called for this kind");
        PyErr_WriteUnraisable(function);
        return NULL;
    }
    PyObject *key = PyLong_FromVoidPtr(ctx);
    PyObject *result = key ? PyObject_CallFunctionObjArgs(function, key, argument, NULL) : NULL;
    Py_XDECREF(key);
    if (result == NULL)
        PyErr_WriteUnraisable(function);
    return result;
}

/* The address a function returned (None: NULL); 0 on an error (reported). */
static void *result_address(PyObject *function, PyObject *result)
{
    if (result == NULL || result == Py_None)
        return NULL;
    void *address = PyLong_AsVoidPtr(result);
    if (address == NULL && PyErr_Occurred()) {
        PyErr_WriteUnraisable(function);
        address = NULL;
    }
    return address;
}

static void work(int kind, int delivery, void *ctx)
{
    crossing c;
    if (!cross_in(&c, delivery))
        return;
    Py_XDECREF(call_operator(kind, ctx, NULL, 0));
    cross_out(&c);
}

/* sk_work_fn: a side effect, a timer fire (a delivery). */
static void op_work(void *ctx)
{
    work(OP_WORK, 1, ctx);
}

/* sk_work_fn: a queue job (Queue.run, a virtual queue's job). */
static void op_run(void *ctx)
{
    work(OP_RUN, 1, ctx);
}

/* sk_work_fn: the disposable of a from_iterable run (also while closing). */
static void op_stop(void *ctx)
{
    work(OP_STOP, 0, ctx);
}

/* sk_work_fn: the cancel action create(fn) returned (also while closing). */
static void op_cancel(void *ctx)
{
    work(OP_CANCEL, 0, ctx);
}

/* Calls operator_fns[kind](key, value as an object), in Python already. */
static PyObject *call_with_value(int kind, void *ctx, const sk_value *value)
{
    PyObject *item = value_object(value);
    PyObject *result = call_operator(kind, ctx, item, item == NULL);
    Py_XDECREF(item);
    return result;
}

/* sk_value_fn (sk_next_fn): before_next / after_next. */
static void op_value(void *ctx, const sk_value *value)
{
    crossing c;
    if (!cross_in(&c, 1))
        return;
    Py_XDECREF(call_with_value(OP_VALUE, ctx, value));
    cross_out(&c);
}

/* sk_take_until_fn: the function's answer (SK_TAKE_COMPLETE when it
 * cannot be had). */
static int op_take_until(void *ctx, const sk_value *value)
{
    crossing c;
    if (!cross_in(&c, 1))
        return SK_TAKE_COMPLETE;
    int action = SK_TAKE_COMPLETE;
    PyObject *result = call_with_value(OP_TAKE_UNTIL, ctx, value);
    if (result != NULL) {
        long number = PyLong_AsLong(result);
        if (number == -1 && PyErr_Occurred())
            PyErr_WriteUnraisable(operator_fns[OP_TAKE_UNTIL]);
        else
            action = (int)(number & (SK_TAKE_PASS | SK_TAKE_COMPLETE));
        Py_DECREF(result);
    }
    cross_out(&c);
    return action;
}

/* sk_signal_fn: map_to_signal's / catch's signal (+1), NULL for none. */
static sk_signal *op_signal(void *ctx, const sk_value *value)
{
    crossing c;
    if (!cross_in(&c, 1))
        return NULL;
    PyObject *result = call_with_value(OP_SIGNAL, ctx, value);
    sk_signal *signal = result_address(operator_fns[OP_SIGNAL], result);
    Py_XDECREF(result);
    cross_out(&c);
    return signal;
}

/* sk_predicate_fn: skip_while's, take_while's, first_where's answer (the
 * package's function returns a bool; false when it cannot be had). */
static bool op_predicate(void *ctx, const sk_value *value)
{
    crossing c;
    if (!cross_in(&c, 1))
        return false;
    bool answer = false;
    PyObject *result = call_with_value(OP_PREDICATE, ctx, value);
    if (result != NULL) {
        answer = result == Py_True;
        Py_DECREF(result);
    }
    cross_out(&c);
    return answer;
}

/* Calls operator_fns[kind](key, (value as an object, second)) in a
 * delivery crossing; `second` (a new reference, NULL on its error) is
 * released here. */
static void call_with_pair(int kind, void *ctx, const sk_value *value, PyObject *(*make_second)(const void *),
                           const void *argument)
{
    crossing c;
    if (!cross_in(&c, 1))
        return;
    PyObject *item = value_object(value);
    PyObject *second = item ? make_second(argument) : NULL;
    PyObject *pair = second ? PyTuple_Pack(2, item, second) : NULL;
    Py_XDECREF(call_operator(kind, ctx, pair, pair == NULL));
    Py_XDECREF(pair);
    Py_XDECREF(second);
    Py_XDECREF(item);
    cross_out(&c);
}

static PyObject *count_object(const void *count)
{
    return PyLong_FromUnsignedLongLong(*(const uint64_t *)count);
}

static PyObject *address_object(const void *address)
{
    return PyLong_FromVoidPtr((void *)address);
}

/* sk_drop_fn: a bounded operator's on_drop (its own context): the
 * package's function receives (the value, the count of drops so far). */
static void op_drop(void *ctx, const sk_value *value, uint64_t dropped)
{
    call_with_pair(OP_DROP, ctx, value, count_object, &dropped);
}

/* sk_drop_fn: on_drop of a context shared with the operator's function. */
static void op_shared_drop(void *ctx, const sk_value *value, uint64_t dropped)
{
    call_with_pair(OP_SHARED_DROP, ctx, value, count_object, &dropped);
}

/* sk_map_fn: group_by's key (and pysignalkit.nats's encoder). The
 * package's function receives (value, the address of `out`) and writes the
 * key into `out` itself. */
static void op_key(void *ctx, const sk_value *value, sk_value *out)
{
    call_with_pair(OP_KEY, ctx, value, address_object, out);
}

/* sk_deferred_fn: deferred's signal (+1), NULL for none. */
static sk_signal *op_deferred(void *ctx)
{
    crossing c;
    if (!cross_in(&c, 1))
        return NULL;
    PyObject *result = call_operator(OP_DEFERRED, ctx, NULL, 0);
    sk_signal *signal = result_address(operator_fns[OP_DEFERRED], result);
    Py_XDECREF(result);
    cross_out(&c);
    return signal;
}

static sk_disposable *generator(int kind, void *ctx, sk_subscriber *subscriber)
{
    crossing c;
    if (!cross_in(&c, 1))
        return NULL;
    PyObject *address = PyLong_FromVoidPtr(subscriber);
    PyObject *result = call_operator(kind, ctx, address, address == NULL);
    Py_XDECREF(address);
    sk_disposable *disposable = result_address(operator_fns[kind], result);
    Py_XDECREF(result);
    cross_out(&c);
    return disposable;
}

/* sk_generator_fn: from_iterable's start. */
static sk_disposable *op_iter(void *ctx, sk_subscriber *subscriber)
{
    return generator(OP_ITER, ctx, subscriber);
}

/* sk_generator_fn: create(fn)'s start. */
static sk_disposable *op_create(void *ctx, sk_subscriber *subscriber)
{
    return generator(OP_CREATE, ctx, subscriber);
}

/* sk_generator_fn: a fused Python stage signal's start. */
static sk_disposable *op_stage(void *ctx, sk_subscriber *subscriber)
{
    return generator(OP_STAGE, ctx, subscriber);
}

/* operator(name, fn) -> address: fn becomes the package's function of the
 * callback kind `name`; the result is the address of the C callback that
 * calls it. */
static PyObject *set_operator(PyObject *self, PyObject *args)
{
    (void)self;
    /* Each kind's name and C callback (of the library's type for that kind,
     * held here as a generic function pointer). */
    typedef void (*any_fn)(void);
    static const struct {
        const char *name;
        any_fn callback;
    } kinds[OP_KINDS] = {
        [OP_WORK] = {"work", (any_fn)op_work},
        [OP_RUN] = {"run", (any_fn)op_run},
        [OP_STOP] = {"stop", (any_fn)op_stop},
        [OP_CANCEL] = {"cancel", (any_fn)op_cancel},
        [OP_VALUE] = {"value", (any_fn)op_value},
        [OP_TAKE_UNTIL] = {"take_until", (any_fn)op_take_until},
        [OP_SIGNAL] = {"signal", (any_fn)op_signal},
        [OP_DEFERRED] = {"deferred", (any_fn)op_deferred},
        [OP_ITER] = {"iter", (any_fn)op_iter},
        [OP_CREATE] = {"create", (any_fn)op_create},
        [OP_STAGE] = {"stage", (any_fn)op_stage},
        [OP_PREDICATE] = {"predicate", (any_fn)op_predicate},
        [OP_KEY] = {"key", (any_fn)op_key},
        [OP_DROP] = {"drop", (any_fn)op_drop},
        [OP_SHARED_DROP] = {"shared_drop", (any_fn)op_shared_drop},
    };
    const char *name;
    PyObject *function;
    if (!PyArg_ParseTuple(args, "sO:operator", &name, &function))
        return NULL;
    if (!PyCallable_Check(function)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.operator takes a callable");
        return NULL;
    }
    for (int kind = 0; kind < OP_KINDS; kind++) {
        if (strcmp(kinds[kind].name, name) == 0) {
            replace_global(&operator_fns[kind], function);
            return PyLong_FromUnsignedLongLong((uintptr_t)kinds[kind].callback);
        }
    }
    PyErr_Format(PyExc_ValueError, "signalkit: _speedups.operator: no callback kind %s", name);
    return NULL;
}

static PyMethodDef methods[] = {
    {"operator", set_operator, METH_VARARGS,
     "operator(name, fn) -> address: the C callback of kind `name` (work, run, stop, cancel, value, take_until, "
     "signal, deferred, iter, create, stage, predicate, key, drop, shared_drop), which calls fn(key[, argument]) "
     "under the exit rules."},
    {NULL, NULL, 0, NULL},
};

const module_part operators_part = {methods, NULL};
