/* handles.c - checking handle arguments at the call, as signalkit.h does.
 *
 * The core refuses a handle of another kind (SK_ERR_WRONG_KIND) and, with
 * handle checking on, a released one (SK_ERR_RELEASED), without touching
 * it. This library hands core handles on to core calls that run later
 * (inside a stream, or when a trampoline is called), so it checks them
 * first, through a core call that checks the same argument and has no
 * other effect, and reports the outcome under its own function's name.
 *
 * Its own handles (signatures, trampolines) are kept in a registry of live
 * handles, in both modes: the core's registry (with checking on) does not
 * know them, so without one of its own this library could tell a live
 * signature passed as a signal from a released core handle only by reading
 * the pointer, which may be freed memory. Looking the address up first, it
 * refuses its own handles of another kind as SK_ERR_WRONG_KIND whatever the
 * mode, and never dereferences a pointer to one of its handles that is not
 * live. The cost is a lock and a short chain per check, on the calls that
 * take a handle, not per event; handles are registered when made and
 * unregistered when freed. */
#include <pthread.h>
#include <stdint.h>

#include "internal.h"

/* The registry: chains of live handles, linked through their own `next`
 * (no allocation, so registering cannot fail), guarded by one lock. A
 * pointer is looked up by address; only the registered nodes of its chain,
 * all live, are read. */
#define SK_FFI_REGISTRY_BUCKETS 1024
static pthread_mutex_t sk_ffi__registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sk_ffi_handle *sk_ffi__registry[SK_FFI_REGISTRY_BUCKETS];

static size_t sk_ffi__bucket(const void *pointer) {
    uintptr_t address = (uintptr_t)pointer;
    return (size_t)((address >> 4) ^ (address >> 14)) % SK_FFI_REGISTRY_BUCKETS;
}

void sk_ffi__register(sk_ffi_handle *handle, uint64_t tag) {
    handle->tag = tag;
    size_t bucket = sk_ffi__bucket(handle);
    pthread_mutex_lock(&sk_ffi__registry_lock);
    handle->next = sk_ffi__registry[bucket];
    sk_ffi__registry[bucket] = handle;
    pthread_mutex_unlock(&sk_ffi__registry_lock);
}

void sk_ffi__unregister(sk_ffi_handle *handle) {
    size_t bucket = sk_ffi__bucket(handle);
    pthread_mutex_lock(&sk_ffi__registry_lock);
    for (sk_ffi_handle **link = &sk_ffi__registry[bucket]; *link != NULL; link = &(*link)->next) {
        if (*link == handle) {
            *link = handle->next;
            break;
        }
    }
    pthread_mutex_unlock(&sk_ffi__registry_lock);
    handle->tag = 0;
    handle->next = NULL;
}

uint64_t sk_ffi__live_tag(const void *pointer) {
    if (pointer == NULL) {
        return 0;
    }
    uint64_t tag = 0;
    size_t bucket = sk_ffi__bucket(pointer);
    pthread_mutex_lock(&sk_ffi__registry_lock);
    for (const sk_ffi_handle *node = sk_ffi__registry[bucket]; node != NULL; node = node->next) {
        if ((const void *)node == pointer) {
            tag = node->tag;
            break;
        }
    }
    pthread_mutex_unlock(&sk_ffi__registry_lock);
    return tag;
}

/* The message for a live handle of this library passed as a core handle
 * `what`: the core would see no handle of its own (SK_ERR_RELEASED with
 * checking on), this library knows better. */
static int sk_ffi__own_handle_refused(const char *function, const char *name, const char *what) {
    return sk_ffi__fail(SK_ERR_WRONG_KIND, "%s: %s is not %s", function, name, what);
}

/* The message for a failed check of `name` (a core handle that should be
 * `what`, with its article) by `function`, from the core's status. */
static int sk_ffi__handle_failed(int status, const char *function, const char *name, const char *what) {
    switch (status) {
    case SK_ERR_WRONG_KIND:
        return sk_ffi__fail(status, "%s: %s is not %s", function, name, what);
    case SK_ERR_RELEASED:
        return sk_ffi__fail(status, "%s: %s was already released (or never was a handle)", function, name);
    default:
        return sk_ffi__fail(status, "%s: %s: %s", function, name, sk_last_error_message());
    }
}

int sk_ffi__check_signal(const char *function, const char *name, sk_signal *signal) {
    if (signal == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    if (sk_ffi__live_tag(signal) != 0) {
        return sk_ffi__own_handle_refused(function, name, "a signal");
    }
    /* The cheap check: a value holding the signal (a retain, no
     * allocation). It does not tell a released handle from one of another
     * kind: sk_signal_take, which checks as every operator does, tells. */
    sk_value probe;
    if (sk_value_set_signal(&probe, signal) == SK_OK) {
        sk_value_release(&probe);
        return SK_OK;
    }
    sk_signal *taken = NULL;
    int status = sk_signal_take(&taken, signal, SIZE_MAX);
    if (status == SK_OK) { /* not reached: both calls check the same way */
        sk_signal_release(taken);
        status = SK_ERR_WRONG_KIND;
    }
    return sk_ffi__handle_failed(status, function, name, "a signal");
}

int sk_ffi__check_pipe(const char *function, const char *name, sk_pipe *pipe) {
    if (pipe == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    if (sk_ffi__live_tag(pipe) != 0) {
        return sk_ffi__own_handle_refused(function, name, "a pipe");
    }
    sk_signal *probe = NULL;
    int status = sk_pipe_signal(&probe, pipe);
    if (status == SK_OK) {
        sk_signal_release(probe);
        return SK_OK;
    }
    return sk_ffi__handle_failed(status, function, name, "a pipe");
}

int sk_ffi__check_subscriber(const char *function, const char *name, sk_subscriber *subscriber) {
    if (subscriber == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    if (sk_ffi__live_tag(subscriber) != 0) {
        return sk_ffi__own_handle_refused(function, name, "a subscriber");
    }
    /* Every core function taking a subscriber emits into it, except when
     * its value is missing: sk_subscriber_put_next checks the subscriber,
     * then refuses the NULL value (SK_ERR_NULL_ARGUMENT) without emitting.
     * (It sets the core's last error message of this thread.) */
    int status = sk_subscriber_put_next(subscriber, NULL);
    if (status == SK_ERR_NULL_ARGUMENT) {
        return SK_OK;
    }
    return sk_ffi__handle_failed(status, function, name, "a subscriber");
}

/* True when handle checking is on and the core does not know `pointer` as
 * a live handle either: then it was released (or never was a handle). With
 * checking off nothing is asked: the core would read the pointer's first
 * word, which may be freed memory. */
static int sk_ffi__core_says_released(const void *pointer) {
    if (!sk_handle_checking()) {
        return 0;
    }
    sk_value probe;
    int status = sk_value_set_signal(&probe, (sk_signal *)(uintptr_t)pointer);
    if (status == SK_OK) {
        sk_value_release(&probe);
    }
    return status == SK_ERR_RELEASED;
}

int sk_ffi__check_own(const char *function, const char *name, const void *handle, uint64_t tag, const char *what) {
    if (handle == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    uint64_t live = sk_ffi__live_tag(handle);
    if (live == tag) {
        return SK_OK;
    }
    if (live == 0 && sk_ffi__core_says_released(handle)) {
        return sk_ffi__fail(SK_ERR_RELEASED, "%s: %s was already released (or never was a handle)", function, name);
    }
    return sk_ffi__fail(SK_ERR_WRONG_KIND, "%s: %s is not %s", function, name, what);
}
