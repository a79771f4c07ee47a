/*
 * exceptions.c: how a callback keeps the exception being raised while it
 * runs more Python (a sink's method, the package's cancel or _exit), and
 * raises it again after, the same way on every CPython the module runs on.
 *
 * PyErr_GetRaisedException (one object, traceback attached) replaces the
 * PyErr_Fetch / PyErr_NormalizeException triple, deprecated from CPython
 * 3.12. Its header declares it only when the limited API level asked for is
 * 3.12 or later (pyerrors.h: !defined(Py_LIMITED_API) || Py_LIMITED_API+0 >=
 * 0x030c0000), so this abi3 module for 3.9 keeps the old calls, which stay
 * in the stable ABI; a build for 3.12+ (a higher Py_LIMITED_API, or none)
 * takes the new one.
 */
#include "speedups.h"

#if PY_VERSION_HEX >= 0x030C0000 && (!defined(Py_LIMITED_API) || Py_LIMITED_API + 0 >= 0x030C0000)
#define SK_HAVE_RAISED_EXCEPTION 1
#else
#define SK_HAVE_RAISED_EXCEPTION 0
#endif

PyObject *fetch_exception(void)
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

void restore_exception(PyObject *exc)
{
#if SK_HAVE_RAISED_EXCEPTION
    PyErr_SetRaisedException(exc);
#else
    PyObject *type = (PyObject *)Py_TYPE(exc);
    Py_INCREF(type);
    PyErr_Restore(type, exc, PyException_GetTraceback(exc));
#endif
}
