/* handles.c - checking handle arguments at the call, as signalkit.h does.
 *
 * The core refuses a handle of another kind (SK_ERR_WRONG_KIND) and, with
 * handle checking on, a released one (SK_ERR_RELEASED), without touching
 * it. This library hands core handles on to core calls that run later
 * (inside a stream, or when a trampoline is called), so it checks them
 * first, through a core call that checks the same argument and has no
 * other effect, and reports the outcome under its own function's name.
 * Its own handles (signatures, trampolines) carry a tag word checked the
 * same way. */
#include <stdint.h>

#include "internal.h"

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

int sk_ffi__check_signature(const char *function, const char *name, const sk_ffi_signature *signature) {
    if (signature == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    if (!sk_ffi__is_signature(signature)) {
        return sk_ffi__fail(SK_ERR_WRONG_KIND, "%s: %s is not a signature", function, name);
    }
    return SK_OK;
}
