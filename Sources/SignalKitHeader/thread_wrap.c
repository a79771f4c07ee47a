/* sk_set_thread_refused_hook() and the refusals it reports.
 *
 * The release library links libdispatch statically and with
 * `--wrap=pthread_create` (Makefile, RELEASE_FLAGS), so that every thread
 * the library asks the system for (libdispatch's workers, a bounded
 * concurrent queue's, a ThreadPool's) is made here. When the system refuses
 * one (RLIMIT_NPROC, no memory for its stack), libdispatch retries about
 * once a second, inside the call that gave a queue work, until it is given
 * one; before returning each refusal, this calls the hook set with
 * sk_set_thread_refused_hook(), on the refused thread's caller, so that a
 * binding whose runtime holds a global lock over the call (Python's GIL)
 * can let it go while the call waits.
 *
 * The debug and sanitizer builds link libdispatch as a shared library:
 * there nothing is wrapped, __wrap_pthread_create is never called, and the
 * hook is never called (__real_pthread_create is weak so that they link).
 */
#include "../../include/signalkit.h"

#include <pthread.h>
#include <stddef.h>

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *),
                          void *argument);
extern int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *),
                                 void *argument) __attribute__((weak));

/* The hook and its ctx, set together under the mutex. It is read only when
 * the system has refused a thread, so the mutex costs nothing on any
 * thread's way. */
static pthread_mutex_t hook_mutex = PTHREAD_MUTEX_INITIALIZER;
static sk_work_fn hook_fn;
static void *hook_ctx;

int sk_set_thread_refused_hook(sk_work_fn hook, void *ctx) {
    pthread_mutex_lock(&hook_mutex);
    hook_fn = hook;
    hook_ctx = hook == NULL ? NULL : ctx;
    pthread_mutex_unlock(&hook_mutex);
    return SK_OK;
}

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *),
                          void *argument) {
    int result = __real_pthread_create(thread, attributes, start, argument);
    if (result != 0) {
        pthread_mutex_lock(&hook_mutex);
        sk_work_fn hook = hook_fn;
        void *ctx = hook_ctx;
        pthread_mutex_unlock(&hook_mutex);
        /* Outside the mutex: the hook is the binding's code. */
        if (hook != NULL) {
            hook(ctx);
        }
    }
    return result;
}
