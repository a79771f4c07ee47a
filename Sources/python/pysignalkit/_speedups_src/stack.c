/*
 * stack.c: how much of the calling thread's stack is left (stack_left),
 * which the package reads before it runs a create() function (the
 * library's own check is Sources/SignalKitHeader/stack.c of the tree).
 */
#include "speedups.h"

#include <pthread.h>

/* stack_left() -> (left, size): how many bytes of the calling thread's
 * stack are left below this call, and the stack's size; (-1, 0) when the
 * bounds cannot be read (or the call runs on another stack). The package
 * checks it before running a create() function, whose own subscribe calls
 * nest the starts inside one another with no bound the library can see
 * (the C layer checks the run-time operators alone): a Python recursion
 * limit raised by sys.setrecursionlimit otherwise lets them overflow the
 * thread's stack. The bounds are read once per thread, as the library's
 * check reads them. */
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

static PyMethodDef methods[] = {
    {"stack_left", stack_left, METH_NOARGS,
     "stack_left() -> (left, size): bytes of this thread's stack left, and its size; (-1, 0) when unknown."},
    {NULL, NULL, 0, NULL},
};

const module_part stack_part = {methods, NULL};
