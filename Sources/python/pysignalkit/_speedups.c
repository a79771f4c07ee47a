/*
 * pysignalkit._speedups: the crossing between the C library and Python, and
 * nothing else (no reactive logic: the library does the operators, the
 * package's Python code the rules).
 *
 * Why a CPython extension and not the FFI (ctypes, cffi): a C -> Python
 * callback costs at least 0.9 us per delivery through any FFI (ctypes 1.35,
 * cffi compiled 0.93), against 0.28 us for RxPY's whole delivery, and a put
 * through ctypes 1.50 us (it also lets the GIL go and takes it again); the
 * same crossing written against the C API costs 0.18-0.29 us per delivery
 * and 0.16 us per put (measured on branch pyffi,
 * Sources/python/bench/ffi/README.md). Every callback of a Pythonic form
 * crosses here, and so does a native (signature-string) form's Python
 * callable, through a libffi closure made here (native()), so that it too
 * follows the exit rules; the calls into the library stay ctypes.
 *
 * What it holds:
 * - four callbacks of an sk_observer (next, error, completed, release) whose
 *   ctx is a Python list [handler, sink] held by the library (hold()): next
 *   converts the value (an array as a list, here) and calls handler(value)
 *   (None there: nothing to call), and sink.failed(exception) if it raised;
 *   error calls sink.error_at(address of the value); completed
 *   sink.completed();
 *   release sink.released(), then drops the list;
 * - the fold function of sk_signal_reduce_left and sk_signal_scan with the
 *   same kind of ctx: handler(accumulator, value) written into the out
 *   value (an object not of the library's kinds goes in through
 *   sink.put_into(object, address)); an exception goes to
 *   sink.reduce_failed(exception), which fails the call with it
 *   (sk_callback_fail, as the package's other operator callbacks do);
 * - puts of a Python value into a pipe or a subscriber, for the values of
 *   the library's own kinds (None, bool, int, float, str, bytes; exact
 *   types): NotImplemented for any other object, which the package carries
 *   by reference through its ctypes path. The GIL stays held during the
 *   put (callbacks it runs on this thread take it again at no cost) while
 *   no signal with the block policy exists (block_places); while one does,
 *   the put lets it go, since the library may make it wait there for a
 *   consumer whose Python callback needs it;
 * - from_iterable's emission into a library operator (put_each): the loop
 *   that pulls each item and puts it, with the checks the package's loop
 *   made (its stop flag, the exit, a pending interrupt, signals);
 * - Pipe.put itself (a method descriptor, pipe_put_method) and the
 *   package's per-thread trampoline it reads (Trampoline,
 *   thread_trampoline): the outermost put of a value of the library's kinds
 *   costs no Python frame; every other case goes back to the package;
 * - the release functions of the values carrying Python objects and of
 *   the package's other callback sets (ctx: a key), which library threads
 *   run, also at exit (a queued delivery dropped): key_release(key) calls
 *   the package's function, under the exit rules below;
 * - the library operators' other callbacks (take_until, side effects,
 *   map_to_signal / catch, deferred, the generators of create(fn),
 *   from_iterable and the Python stages, timer fires, queue jobs, the
 *   actions of the package's disposables), whose ctx is a key: each calls
 *   the package's function of its kind (operator()) with (key[, value or
 *   address]) and hands its result back to the library;
 * - the exit rules (package docstring): from set_closing() on, deliveries
 *   call no Python; from finalize() on, no callback touches Python at all,
 *   and finalize() waits (without the GIL) for the callbacks already inside.
 *
 * A delivery during a put of this module (the common case) knows the GIL
 * is held (`putting`), so it skips the exit count and PyGILState_Ensure.
 *
 * The stable ABI (Py_LIMITED_API, CPython 3.9 and later): an abi3 module.
 * Vectorcall (PyObject_CallOneArg) is not in the 3.9 stable ABI; without it
 * a fan-out delivery costs 1241 instructions under callgrind against 1166
 * (0.24 against 0.23 us; RxPY 0.30): the stable ABI is kept.
 */
#define Py_LIMITED_API 0x03090000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <signalkit.h>

#include <ffi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* 1 from set_closing(): deliveries do nothing. */
static atomic_int closing;
/* 1 from finalize(): no callback touches Python. */
static atomic_int finalizing;
/* Callbacks between their check of `finalizing` and their end. */
static atomic_long inside;
/* A KeyboardInterrupt met on this thread is waiting for its caller (set by
 * the package with set_pending): a delivery calls nothing until then. */
static _Thread_local int pending;
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
/* 1 while this thread is inside a put of this module, which holds the GIL,
 * and not inside Python code called from there (every callback sets it to
 * 0 while it runs Python: a ctypes call from there lets the GIL go). */
static _Thread_local int putting;
/* The package's converter of the other kinds: converter(address). */
static PyObject *converter;
/* The signals made by the package with the block policy (SK_OVERFLOW_BLOCK)
 * that the library still holds: counted by block_place() before the
 * operator is made, uncounted by their release (block_release). While any
 * exists, a put of this module lets the GIL go around the library's put,
 * which may wait in one of them for room that only a consumer's Python
 * callback (on another thread, needing the GIL) can make; while none does,
 * no put can wait in a signal the package made, and the GIL stays held. */
static atomic_long block_places;

enum { HANDLER, SINK, SLOTS };
/* The sink's methods the callbacks call (interned at import). */
static PyObject *name_failed, *name_error_at, *name_completed, *name_released, *name_reduce_failed,
    *name_put_into, *name_stopped;
/* The package's release functions of a carried object and of a callback
 * set, by key (set_releases). */
static PyObject *box_release_fn, *ctx_release_fn;

static PyObject *array_object(const sk_value *value, int depth);

/* The package's converter for what this module does not convert itself (a
 * pointer value, a signal value): converter(address). */
static PyObject *converted(const sk_value *value)
{
    if (converter == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "signalkit: _speedups.set_converter was not called");
        return NULL;
    }
    return PyObject_CallFunction(converter, "K", (unsigned long long)(uintptr_t)value);
}

static PyObject *value_object(const sk_value *value)
{
    switch (value->kind) {
    case SK_KIND_NIL:
        Py_INCREF(Py_None);
        return Py_None;
    case SK_KIND_BOOL:
        return PyBool_FromLong(value->u.boolean);
    case SK_KIND_INT64:
        return PyLong_FromLongLong(value->u.int64);
    case SK_KIND_DOUBLE:
        return PyFloat_FromDouble(value->u.real);
    case SK_KIND_STRING: {
        const char *text;
        size_t length;
        if (sk_value_get_string(value, &text, &length) == 0)
            return PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "replace");
        break;
    }
    case SK_KIND_BYTES: {
        const void *data;
        size_t length;
        if (sk_value_get_bytes(value, &data, &length) == 0)
            return PyBytes_FromStringAndSize(length ? data : "", (Py_ssize_t)length);
        break;
    }
    case SK_KIND_ARRAY:
        return array_object(value, 1);
    default:
        break;
    }
    return converted(value);
}

/* An array value as a list, its items converted as value_object does
 * (nested arrays too: the library nests them at most SK_VALUE_MAX_DEPTH
 * deep, which bounds the recursion; anything unexpected goes to the
 * package's converter, which reads arrays without recursion and says what
 * went wrong). A zip's or combine_latest's pair costs no Python call. */
static PyObject *array_object(const sk_value *value, int depth)
{
    size_t count;
    if (depth > SK_VALUE_MAX_DEPTH || sk_value_get_array_count(value, &count) != SK_OK ||
        count > (size_t)PY_SSIZE_T_MAX)
        return converted(value);
    PyObject *list = PyList_New((Py_ssize_t)count);
    if (list == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        const sk_value *item;
        if (sk_value_get_array_item(value, i, &item) != SK_OK) {
            Py_DECREF(list);
            return converted(value);
        }
        PyObject *object = item->kind == SK_KIND_ARRAY ? array_object(item, depth + 1) : value_object(item);
        if (object == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, (Py_ssize_t)i, object); /* steals object */
    }
    return list;
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

/* PyErr_GetRaisedException (one object, traceback attached) replaces the
 * PyErr_Fetch / PyErr_NormalizeException triple, deprecated from CPython
 * 3.12. Its header declares it only when the limited API level asked for is
 * 3.12 or later (pyerrors.h: !defined(Py_LIMITED_API) || Py_LIMITED_API+0 >=
 * 0x030c0000), so this abi3 module for 3.9 keeps the old calls, which stay
 * in the stable ABI; a build for 3.12+ (a higher Py_LIMITED_API, or none)
 * takes the new one. */
#if PY_VERSION_HEX >= 0x030C0000 && (!defined(Py_LIMITED_API) || Py_LIMITED_API + 0 >= 0x030C0000)
#define SK_HAVE_RAISED_EXCEPTION 1
#else
#define SK_HAVE_RAISED_EXCEPTION 0
#endif

/* The exception being raised, normalized, with its traceback attached. */
static PyObject *fetch_exception(void)
{
#if SK_HAVE_RAISED_EXCEPTION
    PyObject *exc = PyErr_GetRaisedException();
    if (exc == NULL) {
        Py_INCREF(Py_None);
        exc = Py_None;
    }
    return exc;
#else
    PyObject *type, *exc, *traceback;
    PyErr_Fetch(&type, &exc, &traceback);
    PyErr_NormalizeException(&type, &exc, &traceback);
    if (exc != NULL && traceback != NULL)
        PyException_SetTraceback(exc, traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
    if (exc == NULL) {
        Py_INCREF(Py_None);
        exc = Py_None;
    }
    return exc;
#endif
}

/* Raises `exc` again (from fetch_exception; the reference is taken). */
static void restore_exception(PyObject *exc)
{
#if SK_HAVE_RAISED_EXCEPTION
    PyErr_SetRaisedException(exc);
#else
    PyObject *type = (PyObject *)Py_TYPE(exc);
    Py_INCREF(type);
    PyErr_Restore(type, exc, PyException_GetTraceback(exc));
#endif
}

/* Enters Python for a callback: 0 (and nothing to undo) when it must not. */
static int enter(int delivery, PyGILState_STATE *state, int *saved)
{
    atomic_fetch_add(&inside, 1);
    if (atomic_load(&finalizing) || (delivery && atomic_load(&closing))) {
        atomic_fetch_sub(&inside, 1);
        return 0;
    }
    *state = PyGILState_Ensure();
    if (atomic_load(&finalizing) || (delivery && atomic_load(&closing))) {
        PyGILState_Release(*state);
        atomic_fetch_sub(&inside, 1);
        return 0;
    }
    *saved = putting | (no_caller << 1);
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

static void leave(PyGILState_STATE state, int saved)
{
    if (pending && no_caller)
        end_orphan_interrupt();
    putting = saved & 1;
    no_caller = saved >> 1;
    PyGILState_Release(state);
    atomic_fetch_sub(&inside, 1);
}

/* Enters Python for a delivery (next, reduce): 0 when it must not. During a
 * put of this module on this thread (`putting`) the GIL is held and the exit
 * hook cannot be past its wait, so neither the count nor PyGILState is
 * needed; `*held` says which way it entered, for leave_delivery. */
static int enter_delivery(int *held, PyGILState_STATE *state, int *saved)
{
    *held = putting;
    if (*held) {
        if (atomic_load(&closing))
            return 0;
        putting = 0; /* no_caller is read only by leave(), for its own enter() */
        return 1;
    }
    return enter(1, state, saved);
}

static void leave_delivery(int held, PyGILState_STATE state, int saved)
{
    if (held)
        putting = 1;
    else
        leave(state, saved);
}

static void on_next(void *ctx, const sk_value *value)
{
    PyGILState_STATE state = PyGILState_UNLOCKED;
    int saved = 0, held = 0;
    if (!enter_delivery(&held, &state, &saved))
        return;
    PyObject *list = (PyObject *)ctx;
    PyObject *handler = PyList_GetItem(list, HANDLER); /* borrowed */
    if (handler != NULL && handler != Py_None) {
        if (pending) {
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
                leave_delivery(held, state, saved);
                return;
            }
            Py_INCREF(handler);
            PyObject *result = item ? PyObject_CallFunctionObjArgs(handler, item, NULL) : NULL;
            Py_XDECREF(item);
            Py_DECREF(handler);
            if (result == NULL) {
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
    leave_delivery(held, state, saved);
}

static void on_error(void *ctx, const sk_value *value)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(1, &state, &saved))
        return;
    PyObject *address = PyLong_FromVoidPtr((void *)value);
    if (address != NULL) {
        call_sink((PyObject *)ctx, name_error_at, address);
        Py_DECREF(address);
    } else {
        PyErr_WriteUnraisable((PyObject *)ctx);
    }
    leave(state, saved);
}

static void on_completed(void *ctx)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(1, &state, &saved))
        return;
    call_sink((PyObject *)ctx, name_completed, NULL);
    leave(state, saved);
}

static int object_value(PyObject *object, sk_value *out);

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

/* Runs while closing too (the exit hook waits for the releases), not once
 * finalizing (the list is then left to the process's end). */
static void on_release(void *ctx)
{
    PyGILState_STATE state;
    int saved;
    if (!enter(0, &state, &saved))
        return;
    call_sink((PyObject *)ctx, name_released, NULL);
    Py_DECREF((PyObject *)ctx);
    leave(state, saved);
}

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

static void ctx_release(void *key)
{
    key_release(&ctx_release_fn, key);
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

/* hold(list): a new reference to the callback list, as the ctx (address)
 * the library hands to the callbacks; dropped by on_release. */
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

/* Writes the sk_value for `object` into `out`: 1 done (release `out`
 * when its kind holds something), 0 not a kind of the library (nothing
 * written), -1 an exception (OverflowError for an int outside int64). */
static int object_value(PyObject *object, sk_value *out)
{
    if (PyLong_CheckExact(object)) {
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(object, &overflow);
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "signalkit: int %S out of range of int64", object);
            return -1;
        }
        if (number == -1 && PyErr_Occurred())
            return -1;
        out->kind = SK_KIND_INT64;
        out->u.int64 = number;
        return 1;
    }
    if (PyFloat_CheckExact(object)) {
        out->kind = SK_KIND_DOUBLE;
        out->u.real = PyFloat_AsDouble(object);
        return 1;
    }
    if (object == Py_None) {
        out->kind = SK_KIND_NIL;
        return 1;
    }
    if (object == Py_True || object == Py_False) {
        out->kind = SK_KIND_BOOL;
        out->u.boolean = object == Py_True;
        return 1;
    }
    if (PyUnicode_CheckExact(object)) {
        PyObject *data = PyUnicode_AsUTF8String(object);
        if (data == NULL)
            return -1;
        char *text;
        Py_ssize_t length;
        int status = -1;
        if (PyBytes_AsStringAndSize(data, &text, &length) == 0) {
            status = sk_value_set_string_n(out, text, (size_t)length);
            if (status != 0) {
                PyErr_Format(PyExc_ValueError, "signalkit: a str value: status %d", status);
                status = -1;
            } else {
                status = 1;
            }
        }
        Py_DECREF(data);
        return status;
    }
    if (PyBytes_CheckExact(object)) {
        char *data;
        Py_ssize_t length;
        if (PyBytes_AsStringAndSize(object, &data, &length) != 0)
            return -1;
        int status = sk_value_set_bytes(out, data, (size_t)length);
        if (status != 0) {
            PyErr_Format(PyExc_ValueError, "signalkit: a bytes value: status %d", status);
            return -1;
        }
        return 1;
    }
    return 0;
}

typedef int (*put_fn)(void *target, const sk_value *value);

/* Puts `value` (made by object_value, released here) with `function`; the
 * library's status. The GIL is held through the put (`putting`: the
 * callbacks it runs on this thread know they have it), unless a signal
 * with the block policy exists (block_places): then it is let go around
 * the put, as ctypes does around its calls, and the callbacks the put runs
 * on this thread take it again (`putting` 0). A relaxed load: a block
 * signal is made by Python code (holding the GIL), before anything can
 * put into it. */
static int put_value(put_fn function, void *target, sk_value *value)
{
    int saved = putting;
    int status;
    if (atomic_load_explicit(&block_places, memory_order_relaxed) == 0) {
        putting = 1;
        status = function(target, value);
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

static int pipe_put_fn(void *target, const sk_value *value)
{
    return sk_pipe_put((sk_pipe *)target, value);
}

static int subscriber_put_fn(void *target, const sk_value *value)
{
    return sk_subscriber_put_next((sk_subscriber *)target, value);
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

/* check_int64(value): OverflowError for an int (exactly) outside int64;
 * None for anything else. Every int a stream carries fits int64, also one
 * that never crosses the library (a chain of Python stages). */
static PyObject *check_int64(PyObject *self, PyObject *object)
{
    (void)self;
    if (PyLong_CheckExact(object)) {
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(object, &overflow);
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "signalkit: int %S out of range of int64", object);
            return NULL;
        }
        if (number == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_RETURN_NONE;
}

/* Points a module global at `value` (a new reference), dropping the
 * reference it held (the previous value is released last: its release may
 * run Python that reads the global). */
static void replace_global(PyObject **slot, PyObject *value)
{
    PyObject *previous = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(previous);
}

static PyObject *set_converter(PyObject *self, PyObject *function)
{
    (void)self;
    if (!PyCallable_Check(function)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: the converter must be callable");
        return NULL;
    }
    replace_global(&converter, function);
    Py_RETURN_NONE;
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

/* --------------------------------------------------------------------------
 * The library operators' other callbacks: take_until, the side effects,
 * map_to_signal and catch, deferred, the generators of create(fn),
 * from_iterable and the Python stages, timer fires, queue jobs, and the
 * actions of the package's disposables. Their ctx is a registry key of the
 * package; each calls the package's function of its kind (set by
 * operator(name, fn)) with (key) or (key, argument) under the exit rules,
 * and translates the result back for the library: a translation, no logic.
 * ------------------------------------------------------------------------ */

enum {
    OP_WORK, OP_RUN, OP_STOP, OP_CANCEL, OP_VALUE, OP_TAKE_UNTIL, OP_SIGNAL, OP_DEFERRED, OP_ITER, OP_CREATE,
    OP_STAGE, OP_PREDICATE, OP_KEY, OP_KINDS
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

/* sk_map_fn: group_by's key. The package's function receives (value, the
 * address of `out`) and writes the key into `out` itself. */
static void op_key(void *ctx, const sk_value *value, sk_value *out)
{
    crossing c;
    if (!cross_in(&c, 1))
        return;
    PyObject *item = value_object(value);
    PyObject *address = item ? PyLong_FromVoidPtr(out) : NULL;
    PyObject *pair = address ? PyTuple_Pack(2, item, address) : NULL;
    Py_XDECREF(call_operator(OP_KEY, ctx, pair, pair == NULL));
    Py_XDECREF(pair);
    Py_XDECREF(address);
    Py_XDECREF(item);
    cross_out(&c);
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

/* ------------------------------------------------------------------------
 * Pipe.put without a Python frame. The package's per-thread trampoline
 * (_signal.py: whether a draining package call runs, and the synchronous
 * emissions waiting for it) is this type, so that the put reads and sets
 * it from C. Pipe.put is pipe_method_put (a method descriptor made by
 * pipe_put_method): the outermost put of a value of the library's kinds,
 * with no interrupt pending, is done here (trampoline active around the
 * put, as _draining does); when the put leaves something to do (emissions
 * scheduled, a status, an interrupt) the package's finish(trampoline,
 * status) ends it; everything else is the package's Python put.
 * ------------------------------------------------------------------------ */

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

/* A type slot holds a function as a void pointer (the API's choice; ISO C
 * leaves the conversion to the compiler, which supports it). */
#define SLOT_FUNCTION(f) (__extension__(void *)(f))

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

/* stack_left() -> (left, size): how many bytes of the calling thread's
 * stack are left below this call, and the stack's size; (-1, 0) when the
 * bounds cannot be read (or the call runs on another stack). The package
 * checks it before running a create() function, whose own subscribe calls
 * nest the starts inside one another with no bound the library can see
 * (the C layer checks the run-time operators alone, stack.c): a Python
 * recursion limit raised by sys.setrecursionlimit otherwise lets them
 * overflow the thread's stack. The bounds are read once per thread, as
 * stack.c reads them. */
static __thread int stack_known;
static __thread uintptr_t stack_low;
static __thread size_t stack_size;

static PyObject *stack_left(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (!stack_known) {
        pthread_attr_t attributes;
        void *address = NULL;
        size_t size = 0;
        stack_known = 1;
        if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
            if (pthread_attr_getstack(&attributes, &address, &size) != 0) {
                address = NULL;
                size = 0;
            }
            pthread_attr_destroy(&attributes);
        }
        if (address != NULL) {
            stack_low = (uintptr_t)address;
            stack_size = size;
        }
    }
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (stack_size == 0 || here < stack_low || here - stack_low > stack_size) {
        return Py_BuildValue("(nn)", (Py_ssize_t)-1, (Py_ssize_t)0);
    }
    return Py_BuildValue("(nn)", (Py_ssize_t)(here - stack_low), (Py_ssize_t)stack_size);
}


/* ------------------------------------------------------------------------
 * The native (signature-string) forms' callables: a libffi closure of the
 * signature's C type per Python callable (the package's thunk, _signal.py
 * _thunk), made here rather than by ctypes so that it enters Python under
 * the exit rules, as every other callback here: a ctypes closure takes the
 * GIL first, and a library thread calling one once the interpreter
 * finalizes (a subscription started by C code, which the exit hook cannot
 * dispose) was ended by CPython under libdispatch's feet (SIGILL). From
 * set_closing() on, a delivery (next, map, filter) fails through
 * sk_ffi_callback_fail (set_callback_fail) with the package's message and
 * the others do nothing; the result is zero then.
 *
 * Type codes (the package's _NATIVE_CODES): the arguments arrive as ctypes
 * would give them (bool, int, float, bytes or None for str, int or None for
 * a pointer), the thunk's result is written as the C type.
 * ------------------------------------------------------------------------ */

enum {
    NC_VOID, NC_BOOL, NC_I8, NC_I16, NC_I32, NC_I64, NC_U8, NC_U16, NC_U32, NC_U64, NC_F32, NC_F64, NC_STR,
    NC_POINTER, NC_CODES
};

#define NC_MAX_ARGS 16

typedef struct {
    PyObject_HEAD
    unsigned long long address; /* the closure's code: the C function */
    PyObject *callable;
    ffi_closure *closure;
    ffi_cif cif;
    ffi_type *types[NC_MAX_ARGS];
    unsigned char codes[NC_MAX_ARGS];
    unsigned char result;
    int nargs;
    int delivery;
} native_object;

typedef int (*callback_fail_fn)(const char *message);
static callback_fail_fn callback_fail;
static const char closing_message[] = "signalkit: the interpreter is exiting";

static ffi_type *nc_type(int code)
{
    switch (code) {
    case NC_VOID: return &ffi_type_void;
    case NC_BOOL: return &ffi_type_uint8;
    case NC_I8: return &ffi_type_sint8;
    case NC_I16: return &ffi_type_sint16;
    case NC_I32: return &ffi_type_sint32;
    case NC_I64: return &ffi_type_sint64;
    case NC_U8: return &ffi_type_uint8;
    case NC_U16: return &ffi_type_uint16;
    case NC_U32: return &ffi_type_uint32;
    case NC_U64: return &ffi_type_uint64;
    case NC_F32: return &ffi_type_float;
    case NC_F64: return &ffi_type_double;
    default: return &ffi_type_pointer;
    }
}

static PyObject *nc_argument(int code, void *arg)
{
    switch (code) {
    case NC_BOOL: return PyBool_FromLong(*(uint8_t *)arg != 0);
    case NC_I8: return PyLong_FromLong(*(int8_t *)arg);
    case NC_I16: return PyLong_FromLong(*(int16_t *)arg);
    case NC_I32: return PyLong_FromLong(*(int32_t *)arg);
    case NC_I64: return PyLong_FromLongLong(*(int64_t *)arg);
    case NC_U8: return PyLong_FromUnsignedLong(*(uint8_t *)arg);
    case NC_U16: return PyLong_FromUnsignedLong(*(uint16_t *)arg);
    case NC_U32: return PyLong_FromUnsignedLong(*(uint32_t *)arg);
    case NC_U64: return PyLong_FromUnsignedLongLong(*(uint64_t *)arg);
    case NC_F32: return PyFloat_FromDouble(*(float *)arg);
    case NC_F64: return PyFloat_FromDouble(*(double *)arg);
    case NC_STR: {
        const char *text = *(const char **)arg;
        if (text == NULL)
            Py_RETURN_NONE;
        return PyBytes_FromString(text);
    }
    default: {
        void *pointer = *(void **)arg;
        if (pointer == NULL)
            Py_RETURN_NONE;
        return PyLong_FromVoidPtr(pointer);
    }
    }
}

/* Zero for the result type (what a call that does not run returns). */
static void nc_zero(int code, void *ret)
{
    switch (code) {
    case NC_VOID: break;
    case NC_F32: *(float *)ret = 0.0f; break;
    case NC_F64: *(double *)ret = 0.0; break;
    case NC_STR:
    case NC_POINTER: *(void **)ret = NULL; break;
    default: *(ffi_arg *)ret = 0; break;
    }
}

/* The thunk's result as the C type (the thunk checked its range): 0 on
 * success, -1 with an exception set. */
static int nc_result(int code, PyObject *result, void *ret)
{
    switch (code) {
    case NC_VOID:
        return 0;
    case NC_BOOL: {
        int truth = PyObject_IsTrue(result);
        if (truth < 0)
            return -1;
        *(ffi_arg *)ret = (ffi_arg)truth;
        return 0;
    }
    case NC_I8: case NC_I16: case NC_I32: case NC_I64: {
        long long number = PyLong_AsLongLong(result);
        if (number == -1 && PyErr_Occurred())
            return -1;
        if (code == NC_I64)
            *(int64_t *)ret = (int64_t)number;
        else
            *(ffi_sarg *)ret = (ffi_sarg)number;
        return 0;
    }
    case NC_U8: case NC_U16: case NC_U32: case NC_U64: {
        unsigned long long number = PyLong_AsUnsignedLongLong(result);
        if (number == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        if (code == NC_U64)
            *(uint64_t *)ret = (uint64_t)number;
        else
            *(ffi_arg *)ret = (ffi_arg)number;
        return 0;
    }
    case NC_F32: case NC_F64: {
        double real = PyFloat_AsDouble(result);
        if (real == -1.0 && PyErr_Occurred())
            return -1;
        if (code == NC_F32)
            *(float *)ret = (float)real;
        else
            *(double *)ret = real;
        return 0;
    }
    default: {
        void *pointer = NULL;
        if (result != Py_None) {
            pointer = PyLong_AsVoidPtr(result);
            if (pointer == NULL && PyErr_Occurred())
                return -1;
        }
        *(void **)ret = pointer;
        return 0;
    }
    }
}

static void nc_call(ffi_cif *cif, void *ret, void **args, void *data)
{
    (void)cif;
    native_object *self = (native_object *)data;
    nc_zero(self->result, ret);
    PyGILState_STATE state;
    int saved;
    if (!enter(self->delivery, &state, &saved)) {
        if (self->delivery && callback_fail != NULL)
            callback_fail(closing_message);
        return;
    }
    PyObject *arguments = PyTuple_New(self->nargs);
    if (arguments != NULL) {
        for (int i = 0; i < self->nargs; i++) {
            PyObject *item = nc_argument(self->codes[i], args[i]);
            if (item == NULL) {
                Py_CLEAR(arguments);
                break;
            }
            PyTuple_SetItem(arguments, i, item); /* steals item */
        }
    }
    PyObject *result = arguments != NULL ? PyObject_CallObject(self->callable, arguments) : NULL;
    Py_XDECREF(arguments);
    if (result == NULL || nc_result(self->result, result, ret) < 0) {
        /* The thunk catches everything it can: what is left is reported. */
        PyErr_WriteUnraisable(self->callable);
        nc_zero(self->result, ret);
    }
    Py_XDECREF(result);
    leave(state, saved);
}

static int native_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((native_object *)self)->callable);
    return 0;
}

static int native_clear(PyObject *self)
{
    Py_CLEAR(((native_object *)self)->callable);
    return 0;
}

static void native_dealloc(PyObject *self)
{
    native_object *n = (native_object *)self;
    PyObject_GC_UnTrack(self);
    if (n->closure != NULL)
        ffi_closure_free(n->closure);
    native_clear(self);
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

static PyMemberDef native_members[] = {
    {"address", T_ULONGLONG, offsetof(native_object, address), READONLY, "the C function's address"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot native_slots[] = {
    {Py_tp_doc, (void *)"A native form's C function calling a Python callable (see native())."},
    {Py_tp_dealloc, SLOT_FUNCTION(native_dealloc)},
    {Py_tp_traverse, SLOT_FUNCTION(native_traverse)},
    {Py_tp_clear, SLOT_FUNCTION(native_clear)},
    {Py_tp_members, native_members},
    {0, NULL},
};

static PyType_Spec native_spec = {
    "pysignalkit._speedups.Native", sizeof(native_object), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    native_slots,
};

static PyObject *native_type;

/* native(callable, result, codes, delivery) -> Native: a C function of the
 * type the codes describe that calls callable(*arguments) (_signal._thunk)
 * under the exit rules; `address` is the function; it lives as long as the
 * object. */
static PyObject *native_new(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *callable;
    int result, delivery;
    const char *codes;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "Oiy#p:native", &callable, &result, &codes, &count, &delivery))
        return NULL;
    if (!PyCallable_Check(callable)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: _speedups.native takes a callable");
        return NULL;
    }
    if (count > NC_MAX_ARGS || result < 0 || result >= NC_CODES) {
        PyErr_SetString(PyExc_ValueError, "signalkit: _speedups.native: bad type codes");
        return NULL;
    }
    native_object *n = (native_object *)PyType_GenericAlloc((PyTypeObject *)native_type, 0);
    if (n == NULL)
        return NULL;
    Py_INCREF(callable);
    n->callable = callable;
    n->result = (unsigned char)result;
    n->nargs = (int)count;
    n->delivery = delivery;
    for (Py_ssize_t i = 0; i < count; i++) {
        if ((unsigned char)codes[i] >= NC_CODES || codes[i] == NC_VOID) {
            Py_DECREF(n);
            PyErr_SetString(PyExc_ValueError, "signalkit: _speedups.native: bad type codes");
            return NULL;
        }
        n->codes[i] = (unsigned char)codes[i];
        n->types[i] = nc_type(codes[i]);
    }
    void *code = NULL;
    n->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (n->closure == NULL) {
        Py_DECREF(n);
        return PyErr_NoMemory();
    }
    if (ffi_prep_cif(&n->cif, FFI_DEFAULT_ABI, (unsigned)count, nc_type(result), n->types) != FFI_OK ||
        ffi_prep_closure_loc(n->closure, &n->cif, nc_call, n, code) != FFI_OK) {
        Py_DECREF(n);
        PyErr_SetString(PyExc_RuntimeError, "signalkit: _speedups.native: libffi refused the signature");
        return NULL;
    }
    n->address = (unsigned long long)(uintptr_t)code;
    return (PyObject *)n;
}

/* set_callback_fail(address): sk_ffi_callback_fail, for a delivery that
 * does not run at exit. */
static PyObject *set_callback_fail(PyObject *self, PyObject *address)
{
    (void)self;
    void *pointer = PyLong_AsVoidPtr(address);
    if (pointer == NULL && PyErr_Occurred())
        return NULL;
    callback_fail = (callback_fail_fn)(uintptr_t)pointer;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"hold", hold, METH_O, "hold(list) -> ctx: the callback list, held for the library until on_release."},
    {"pipe_put", pipe_put, METH_VARARGS, "pipe_put(pipe, value) -> status, or NotImplemented."},
    {"subscriber_put_next", subscriber_put_next, METH_VARARGS,
     "subscriber_put_next(subscriber, value) -> status, or NotImplemented."},
    {"put_each", put_each, METH_VARARGS,
     "put_each(subscriber, iterator, run, fallback) -> bool: from_iterable's emission; True once the iterator "
     "ended."},
    {"check_int64", check_int64, METH_O, "check_int64(value): OverflowError for an int outside int64."},
    {"set_converter", set_converter, METH_O, "set_converter(fn): fn(address) converts the other kinds."},
    {"set_releases", set_releases, METH_VARARGS,
     "set_releases(box, ctx): the release functions BOX_RELEASE and CTX_RELEASE call with the key."},
    {"set_pending", set_pending, METH_O, "set_pending(flag): a KeyboardInterrupt waits on this thread."},
    {"interrupt_pending", interrupt_pending, METH_NOARGS,
     "interrupt_pending() -> bool: a KeyboardInterrupt waits on this thread (set_pending)."},
    {"set_orphan", set_orphan, METH_O,
     "set_orphan(fn): fn() reports and clears an interrupt a callback with no caller left pending."},
    {"set_closing", set_closing, METH_NOARGS, "set_closing(): deliveries call no Python from now on."},
    {"block_place", block_place, METH_NOARGS,
     "block_place(): one signal with the block policy more (BLOCK_RELEASE, its release, counts it out)."},
    {"block_places", block_places_count, METH_NOARGS,
     "block_places() -> int: the signals with the block policy alive (puts let the GIL go while any is)."},
    {"operator", set_operator, METH_VARARGS,
     "operator(name, fn) -> address: the C callback of kind `name` (work, run, stop, cancel, value, take_until, "
     "signal, deferred, iter, create, stage), which calls fn(key[, argument]) under the exit rules."},
    {"thread_trampoline", thread_trampoline, METH_NOARGS, "thread_trampoline() -> this thread's trampoline."},
    {"claim_puts", claim_puts, METH_VARARGS,
     "claim_puts(pipe, calls) -> count: the extension's puts into `pipe` in flight join `calls` (Pipe._drop)."},
    {"pipe_put_method", pipe_put_method, METH_VARARGS,
     "pipe_put_method(cls, fallback, finish, cancel) -> the descriptor of Pipe.put."},
    {"finalize", finalize, METH_O, "finalize(seconds) -> bool: no callback touches Python from now on."},
    {"native", native_new, METH_VARARGS,
     "native(callable, result, codes, delivery) -> Native: a C function calling callable under the exit rules."},
    {"set_callback_fail", set_callback_fail, METH_O,
     "set_callback_fail(address): sk_ffi_callback_fail, for a delivery refused at exit."},
    {"stack_left", stack_left, METH_NOARGS,
     "stack_left() -> (left, size): bytes of this thread's stack left, and its size; (-1, 0) when unknown."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "pysignalkit._speedups",
    "The crossing between SignalKit's C library and Python (callbacks and puts); see _speedups.c.",
    -1, methods, NULL, NULL, NULL, NULL,
};

static int add_address(PyObject *m, const char *name, uintptr_t address)
{
    PyObject *value = PyLong_FromUnsignedLongLong(address);
    if (value == NULL)
        return -1;
    if (PyModule_AddObject(m, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__speedups(void)
{
    name_failed = PyUnicode_InternFromString("failed");
    name_error_at = PyUnicode_InternFromString("error_at");
    name_completed = PyUnicode_InternFromString("completed");
    name_released = PyUnicode_InternFromString("released");
    name_reduce_failed = PyUnicode_InternFromString("reduce_failed");
    name_put_into = PyUnicode_InternFromString("put_into");
    name_stopped = PyUnicode_InternFromString("stopped");
    if (!name_failed || !name_error_at || !name_completed || !name_released || !name_reduce_failed ||
        !name_put_into || !name_stopped)
        return NULL;
    name_pointer = PyUnicode_InternFromString("_pointer");
    name_trampoline_key = PyUnicode_InternFromString("pysignalkit._speedups.trampoline");
    if (!name_pointer || !name_trampoline_key)
        return NULL;
    PyObject *collections = PyImport_ImportModule("collections");
    if (collections == NULL)
        return NULL;
    deque_type = PyObject_GetAttrString(collections, "deque");
    Py_DECREF(collections);
    if (deque_type == NULL)
        return NULL;
    trampoline_type = PyType_FromSpec(&trampoline_spec);
    if (trampoline_type == NULL)
        return NULL;
    native_type = PyType_FromSpec(&native_spec);
    if (native_type == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(trampoline_type);
    if (PyModule_AddObject(m, "Trampoline", trampoline_type) < 0) {
        Py_DECREF(trampoline_type);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(native_type);
    if (PyModule_AddObject(m, "Native", native_type) < 0) {
        Py_DECREF(native_type);
        Py_DECREF(m);
        return NULL;
    }
    sk_next_fn next_fn = on_next, error_fn = on_error;
    sk_completed_fn completed_fn = on_completed;
    sk_release_fn release_fn = on_release;
    sk_reduce_fn reduce_fn = on_reduce;
    sk_release_fn box_release_address = box_release, ctx_release_address = ctx_release;
    sk_release_fn block_release_address = block_release;
    if (add_address(m, "NEXT", (uintptr_t)next_fn) < 0 || add_address(m, "ERROR", (uintptr_t)error_fn) < 0 ||
        add_address(m, "COMPLETED", (uintptr_t)completed_fn) < 0 ||
        add_address(m, "RELEASE", (uintptr_t)release_fn) < 0 || add_address(m, "REDUCE", (uintptr_t)reduce_fn) < 0 ||
        add_address(m, "BOX_RELEASE", (uintptr_t)box_release_address) < 0 ||
        add_address(m, "CTX_RELEASE", (uintptr_t)ctx_release_address) < 0 ||
        add_address(m, "BLOCK_RELEASE", (uintptr_t)block_release_address) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
