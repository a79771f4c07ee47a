/*
 * values.c: values between the library and Python, both ways:
 * - value_object: an sk_value as a Python object: the library's own kinds
 *   (None, bool, int, float, str, bytes) here, an array as a list of its
 *   items converted the same way; anything else (a pointer value, a signal
 *   value, an object the package carries by reference) through the
 *   package's converter (set_converter);
 * - object_value: a Python object of the library's kinds (exact types) as
 *   an sk_value, or "not one of them" for any other object, which the
 *   package carries by reference through its ctypes path;
 * - check_value: the checks of object_value for a value that never
 *   crosses the library (an int within int64, a str encodable as UTF-8).
 */
#include "speedups.h"

/* The package's converter of the other kinds: converter(address). */
static PyObject *converter;
/* The package's SignalKitError(status, message), for a library call of this
 * module that fails (set_error_type). */
static PyObject *error_type;

/* Raises the package's SignalKitError for a library call that returned
 * `status` (its message the library's last one); -1. */
static int raise_status(int status)
{
    if (error_type == NULL) {
        PyErr_Format(PyExc_RuntimeError, "signalkit: %s (status %d)", sk_last_error_message(), status);
        return -1;
    }
    PyObject *error = PyObject_CallFunction(error_type, "is", status, sk_last_error_message());
    if (error != NULL) {
        PyErr_SetObject(error_type, error);
        Py_DECREF(error);
    }
    return -1;
}

/* The last int and the last float to cross between Python and the library,
 * each with its value's bits: a value that crosses back as it came (a put
 * delivered, one put delivered to many subscribers, a stage's result to the
 * next stage) is that object again, not a new one (an int or float object
 * made and freed per delivery was about a tenth of a fan-out delivery's
 * instructions: bench/put_cost.py, fanout). Exact ints and floats only
 * (object_value's kinds), immutable, so sharing one object is invisible
 * but to `is`, which Python does not promise for numbers. Under the GIL,
 * as every conversion is. */
typedef struct {
    PyObject *object;
    uint64_t bits;
} recent_number;
static recent_number recent_int, recent_float;

static inline void remember(recent_number *recent, PyObject *object, uint64_t bits)
{
    PyObject *old = recent->object;
    Py_INCREF(object);
    recent->object = object;
    recent->bits = bits;
    Py_XDECREF(old);
}

static inline uint64_t double_bits(double real)
{
    uint64_t bits;
    memcpy(&bits, &real, sizeof bits);
    return bits;
}

/* The recent object when its bits are `bits` (a new reference), else NULL. */
static inline PyObject *recent_object(const recent_number *recent, uint64_t bits)
{
    if (recent->object == NULL || recent->bits != bits)
        return NULL;
    Py_INCREF(recent->object);
    return recent->object;
}

/* `made` (a new reference, or NULL with an exception), remembered. */
static inline PyObject *remembered(recent_number *recent, PyObject *made, uint64_t bits)
{
    if (made != NULL)
        remember(recent, made, bits);
    return made;
}

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

PyObject *value_object(const sk_value *value)
{
    switch (value->kind) {
    case SK_KIND_NIL:
        Py_INCREF(Py_None);
        return Py_None;
    case SK_KIND_BOOL:
        return PyBool_FromLong(value->u.boolean);
    case SK_KIND_INT64: {
        uint64_t bits = (uint64_t)value->u.int64;
        PyObject *object = recent_object(&recent_int, bits);
        return object ? object : remembered(&recent_int, PyLong_FromLongLong(value->u.int64), bits);
    }
    case SK_KIND_DOUBLE: {
        uint64_t bits = double_bits(value->u.real);
        PyObject *object = recent_object(&recent_float, bits);
        return object ? object : remembered(&recent_float, PyFloat_FromDouble(value->u.real), bits);
    }
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
    const sk_value *items;
    size_t count;
    if (depth > SK_VALUE_MAX_DEPTH || sk_value_get_array_items(value, &items, &count) != SK_OK ||
        count > (size_t)PY_SSIZE_T_MAX)
        return converted(value);
    PyObject *list = PyList_New((Py_ssize_t)count);
    if (list == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        const sk_value *item = &items[i];
        PyObject *object = item->kind == SK_KIND_ARRAY ? array_object(item, depth + 1) : value_object(item);
        if (object == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, (Py_ssize_t)i, object); /* steals object */
    }
    return list;
}

int object_value(PyObject *object, sk_value *out)
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
        remember(&recent_int, object, (uint64_t)number);
        return 1;
    }
    if (PyFloat_CheckExact(object)) {
        out->kind = SK_KIND_DOUBLE;
        out->u.real = PyFloat_AsDouble(object);
        remember(&recent_float, object, double_bits(out->u.real));
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
                status = raise_status(status);
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
        if (status != 0)
            return raise_status(status);
        return 1;
    }
    return 0;
}

/* "isascii", for check_value. */
static PyObject *name_isascii;

/* check_value(value): OverflowError for an int (exactly) outside int64,
 * UnicodeEncodeError for a str that UTF-8 cannot encode (a lone surrogate);
 * None for anything else. Every int a stream carries fits int64 and every
 * str encodes, also one that never crosses the library (a chain of Python
 * stages): the rules of object_value, which a value crossing meets. An
 * ASCII str (the common case) costs one method call; any other is encoded
 * (the stable ABI of 3.9 has no cheaper way to look for surrogates). */
static PyObject *check_value(PyObject *self, PyObject *object)
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
    } else if (PyUnicode_Check(object)) {
        if (PyUnicode_CheckExact(object)) {
            PyObject *ascii = PyObject_CallMethodObjArgs(object, name_isascii, NULL);
            if (ascii == NULL)
                return NULL;
            int is_ascii = ascii == Py_True;
            Py_DECREF(ascii);
            if (is_ascii)
                Py_RETURN_NONE;
        }
        PyObject *data = PyUnicode_AsUTF8String(object);
        if (data == NULL)
            return NULL;
        Py_DECREF(data);
    }
    Py_RETURN_NONE;
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

static PyObject *set_error_type(PyObject *self, PyObject *type)
{
    (void)self;
    if (!PyType_Check(type) || !PyType_IsSubtype((PyTypeObject *)type, (PyTypeObject *)PyExc_Exception)) {
        PyErr_SetString(PyExc_TypeError, "signalkit: the error type must be an Exception subclass");
        return NULL;
    }
    replace_global(&error_type, type);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"check_value", check_value, METH_O,
     "check_value(value): OverflowError for an int outside int64, UnicodeEncodeError for a str UTF-8 cannot encode."},
    {"set_converter", set_converter, METH_O, "set_converter(fn): fn(address) converts the other kinds."},
    {"set_error_type", set_error_type, METH_O, "set_error_type(t): t(status, message) for a failing library call."},
    {NULL, NULL, 0, NULL},
};

static int init(PyObject *module)
{
    (void)module;
    name_isascii = PyUnicode_InternFromString("isascii");
    return name_isascii == NULL ? -1 : 0;
}

const module_part values_part = {methods, init};
