/*
 * native.c: the native (signature-string) forms' callables: a libffi
 * closure of the signature's C type per Python callable (the package's
 * thunk, _native.py's _thunk), made here rather than by ctypes so that it
 * enters Python under the exit rules (exit.c), as every other callback of
 * the module: a ctypes closure takes the GIL first, and a library thread
 * calling one once the interpreter finalizes (a subscription started by C
 * code, which the exit hook cannot dispose) was ended by CPython under
 * libdispatch's feet (SIGILL). From set_closing() on, a delivery (next,
 * map, filter) fails through sk_ffi_callback_fail (set_callback_fail) with
 * the package's message and the others do nothing; the result is zero then.
 *
 * Type codes (the package's _NATIVE_CODES): the arguments arrive as ctypes
 * would give them (bool, int, float, bytes or None for str, int or None for
 * a pointer), the thunk's result is written as the C type.
 */
#include "speedups.h"

#include <ffi.h>

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
    {"native", native_new, METH_VARARGS,
     "native(callable, result, codes, delivery) -> Native: a C function calling callable under the exit rules."},
    {"set_callback_fail", set_callback_fail, METH_O,
     "set_callback_fail(address): sk_ffi_callback_fail, for a delivery refused at exit."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    native_type = PyType_FromSpec(&native_spec);
    if (native_type == NULL)
        return -1;
    Py_INCREF(native_type);
    if (PyModule_AddObject(module, "Native", native_type) < 0) {
        Py_DECREF(native_type);
        return -1;
    }
    return 0;
}

const module_part native_part = {methods, init};
