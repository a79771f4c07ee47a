/*
 * pysignalkit._speedups: the crossing between the C library and Python, and
 * nothing else (no reactive logic: the library does the operators, the
 * package's Python code the rules). This file is the module's overview, its
 * definition and its init; each concern is a file of this folder.
 *
 * Why a CPython extension and not the FFI (ctypes, cffi): a C -> Python
 * callback costs at least 0.9 us per delivery through any FFI (ctypes 1.35,
 * cffi compiled 0.93), against 0.28 us for RxPY's whole delivery, and a put
 * through ctypes 1.50 us (it also lets the GIL go and takes it again); the
 * same crossing written against the C API costs 0.18-0.29 us per delivery
 * and 0.16 us per put (measured on branch pyffi,
 * Sources/python/bench/ffi/README.md). Every callback of a Pythonic form
 * crosses here, and so does a native (signature-string) form's Python
 * callable, through a libffi closure made here (native.c), so that it too
 * follows the exit rules; the calls into the library stay ctypes.
 *
 * The files, one concern each (each one's comment says more):
 * - exit.c: the exit rules, which every callback enters Python under;
 * - exceptions.c: an exception kept across more Python, on every CPython;
 * - values.c: values between the library and Python, both ways;
 * - observer.c: the four callbacks of a Python subscription's sk_observer;
 * - fold.c: the fold function of reduce and scan;
 * - release.c: the release functions of carried objects and callback sets;
 * - puts.c: the puts of a Python value, and when they let the GIL go;
 * - iterable.c: from_iterable's loop of puts (put_each);
 * - pipe.c: Pipe.put as a C method, and the per-thread trampoline it reads;
 * - operators.c: the library operators' other callbacks, by key;
 * - native.c: the native forms' Python callables as libffi closures;
 * - stack.c: the calling thread's stack left, read before create();
 * - speedups.h: what they share; this file joins their parts (module_part).
 *
 * The stable ABI (Py_LIMITED_API, CPython 3.9 and later, set in
 * speedups.h): an abi3 module. Vectorcall (PyObject_CallOneArg) is not in
 * the 3.9 stable ABI; without it a fan-out delivery costs 1241 instructions
 * under callgrind against 1166 (0.24 against 0.23 us; RxPY 0.30): the
 * stable ABI is kept. What a delivery can save inside it, it does: the
 * argument tuple of handler(value) is reused (observer.c, call_one): a put
 * of bench/put_cost.py's fanout shape (10 deliveries) 6,641 -> 6,474.
 *
 * One module, several files: each file is a translation unit of its own,
 * and the package's build backend (_build/pysignalkit_build.py) compiles
 * every .c of this folder into the one _speedups.abi3.so. A function one
 * file uses is static there; what several use is declared in speedups.h,
 * hidden, so a call between files is a direct call. What every put or every
 * delivery runs, and another file calls, is inline in speedups.h
 * (put_value, enter_delivery, leave_delivery), and the thread-locals several
 * files read are of the local-dynamic model (SHARED_TLS), so that the hot
 * paths cost what they cost when the module was one file. Instructions per
 * put under callgrind (Sources/python/bench/put_cost.py), one file -> this
 * split: a pipe with no subscriber 1,089 -> 1,089; with map (a lambda) and
 * a subscriber 3,614 -> 3,614; with 10 subscribers 6,799 -> 6,799;
 * from_iterable into take 1,214 -> 1,214. Done the plain way (put_value
 * in puts.c, the thread-locals extern), the split cost 35 instructions
 * more per put (6,799 -> 6,834 with 10 subscribers), and enter_delivery and
 * leave_delivery out of line 248 more there (25 a delivery). One
 * difference is left: a delivery that takes the GIL itself (on a library
 * thread, or during a put while a signal with the block policy exists)
 * costs one instruction more, since on_next's call of leave() is no longer
 * a tail call (enter(), in another file, may keep the addresses of
 * on_next's locals it was given): 13,211 -> 13,221 per put with 10
 * subscribers and a block signal alive.
 */
#include "speedups.h"

void replace_global(PyObject **slot, PyObject *value)
{
    PyObject *previous = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(previous);
}

int add_address(PyObject *module, const char *name, uintptr_t address)
{
    PyObject *value = PyLong_FromUnsignedLongLong(address);
    if (value == NULL)
        return -1;
    if (PyModule_AddObject(module, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}

/* The files' parts, joined in this order at import. */
static const module_part *const parts[] = {
    &exit_part, &values_part, &observer_part, &fold_part, &release_part, &puts_part,
    &iterable_part, &pipe_part, &operators_part, &native_part, &stack_part,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "pysignalkit._speedups",
    "The crossing between SignalKit's C library and Python (callbacks and puts); see _speedups_src/module.c.",
    -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if ((parts[i]->methods != NULL && PyModule_AddFunctions(m, parts[i]->methods) < 0) ||
            (parts[i]->init != NULL && parts[i]->init(m) < 0)) {
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}
