/* trampoline.c - C function pointers made at run time (libffi closures)
 * that put their arguments into a subscriber or a pipe. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct sk_ffi_trampoline {
    sk_ffi_handle handle; /* first, as in every handle of this library */
    long refs; /* the handle's references plus one per call in progress */
    ffi_closure *closure;
    void *code;
    sk_ffi_signature *signature;
    pthread_mutex_t mutex; /* guards the target */
    sk_subscriber *subscriber;
    sk_pipe *pipe;
    uint64_t calls;
};

static void sk_ffi__trampoline_free(sk_ffi_trampoline *trampoline) {
    sk_ffi__live_remove();
    sk_ffi__unregister(&trampoline->handle);
    sk_subscriber_release(trampoline->subscriber);
    sk_pipe_release(trampoline->pipe);
    /* When the last reference is dropped by the handler itself, the closure
     * (and the signature, whose cif it uses) is freed from inside a call of
     * it. libffi 3.4 allows this in practice though it does not document
     * it: the closure's code (a static trampoline on x86-64, or the
     * closure's own bytes) jumps to the entry stub, it does not call it; the
     * stub loads cif, handler and user data from the closure before calling
     * its C part, which reads cif->flags before the handler too; after the
     * handler returns only the stub's stack frame is read, and the stub
     * returns straight to the caller. A call that jumps in after the free
     * is another matter: see the header (Lifetime). */
    ffi_closure_free(trampoline->closure);
    sk_ffi_signature_release(trampoline->signature);
    pthread_mutex_destroy(&trampoline->mutex);
    free(trampoline);
}

/* Builds the value the arguments of a call make. */
static int sk_ffi__trampoline_value(sk_ffi_signature *signature, void **args, sk_value *out, char *why, size_t size) {
    char reason[160];
    if (signature->count == 0) {
        sk_value_set_nil(out);
        return 0;
    }
    if (signature->count == 1) {
        if (sk_ffi__from_native(args[0], signature->args[0], 0, out, reason, sizeof reason) != 0) {
            snprintf(why, size, "sk_ffi: trampoline: argument 0 (%s): %s", sk_ffi__type_name(signature->args[0]), reason);
            return -1;
        }
        return 0;
    }
    sk_value items[SK_FFI_MAX_ARGS];
    size_t made = 0;
    int result = 0;
    for (; made < signature->count; made++) {
        if (sk_ffi__from_native(args[made], signature->args[made], 0, &items[made], reason, sizeof reason) != 0) {
            snprintf(why, size, "sk_ffi: trampoline: argument %zu (%s): %s", made, sk_ffi__type_name(signature->args[made]), reason);
            result = -1;
            break;
        }
    }
    if (result == 0 && sk_value_set_array(out, items, made) != SK_OK) {
        snprintf(why, size, "sk_ffi: trampoline: %s", sk_last_error_message());
        result = -1;
    }
    for (size_t i = 0; i < made; i++) {
        sk_value_release(&items[i]);
    }
    return result;
}

static void sk_ffi__trampoline_handler(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif;
    (void)ret;
    sk_ffi_trampoline *trampoline = user;
    sk_ffi__ref_retain(&trampoline->refs);
    pthread_mutex_lock(&trampoline->mutex);
    sk_subscriber *subscriber = sk_subscriber_retain(trampoline->subscriber);
    sk_pipe *pipe = sk_pipe_retain(trampoline->pipe);
    pthread_mutex_unlock(&trampoline->mutex);
    if (subscriber != NULL || pipe != NULL) {
        sk_value value;
        char why[256];
        if (sk_ffi__trampoline_value(trampoline->signature, args, &value, why, sizeof why) == 0) {
            if (subscriber != NULL) {
                sk_subscriber_put_next(subscriber, &value);
            } else {
                sk_pipe_put(pipe, &value);
            }
            __atomic_add_fetch(&trampoline->calls, 1, __ATOMIC_RELAXED);
            sk_value_release(&value);
        } else if (subscriber != NULL) {
            sk_value error = sk_ffi__string_value(why);
            sk_subscriber_put_error(subscriber, &error);
            sk_value_release(&error);
        }
    }
    sk_subscriber_release(subscriber);
    sk_pipe_release(pipe);
    /* The call's own reference: the trampoline is known live (the
     * reference kept it so), so no registry lookup on the per-call path. */
    if (sk_ffi__ref_release(&trampoline->refs)) {
        sk_ffi__trampoline_free(trampoline);
    }
}

static int sk_ffi__trampoline_new(const char *function, sk_ffi_trampoline **out, sk_subscriber *subscriber, sk_pipe *pipe, sk_ffi_signature *signature) {
    if (out == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: out is NULL", function);
    }
    *out = NULL;
    int status = pipe != NULL ? sk_ffi__check_pipe(function, "pipe", pipe)
                              : sk_ffi__check_subscriber(function, "subscriber", subscriber);
    if (status != SK_OK) {
        return status;
    }
    if ((status = sk_ffi__check_signature(function, "signature", signature)) != SK_OK) {
        return status;
    }
    if (signature->result != SK_FFI_VOID) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: signature: must return void, returns %s", function, sk_ffi__type_name(signature->result));
    }
    if (signature->count > 0 && signature->args[0] == SK_FFI_CTX) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: signature: argument 0 is ctx; a trampoline has no ctx", function);
    }
    sk_ffi_trampoline *trampoline = calloc(1, sizeof *trampoline);
    if (trampoline == NULL) {
        return sk_ffi__fail(SK_ERR_NO_MEMORY, "%s: out of memory", function);
    }
    trampoline->closure = ffi_closure_alloc(sizeof(ffi_closure), &trampoline->code);
    if (trampoline->closure == NULL) {
        free(trampoline);
        return sk_ffi__fail(SK_ERR_UNSUPPORTED, "%s: no executable memory for a closure (W^X or SELinux execmem policy?)", function);
    }
    if (ffi_prep_closure_loc(trampoline->closure, &signature->cif, sk_ffi__trampoline_handler, trampoline, trampoline->code) != FFI_OK) {
        ffi_closure_free(trampoline->closure);
        free(trampoline);
        return sk_ffi__fail(SK_ERR_UNSUPPORTED, "%s: libffi cannot prepare a closure", function);
    }
    pthread_mutex_init(&trampoline->mutex, NULL);
    sk_ffi__ref_init(&trampoline->refs);
    trampoline->signature = sk_ffi_signature_retain(signature);
    trampoline->subscriber = sk_subscriber_retain(subscriber);
    trampoline->pipe = sk_pipe_retain(pipe);
    sk_ffi__register(&trampoline->handle, SK_FFI_TRAMPOLINE_TAG);
    sk_ffi__live_add();
    *out = trampoline;
    return SK_OK;
}

SK_FFI_EXPORT int sk_ffi_trampoline_subscriber(sk_ffi_trampoline **out, sk_subscriber *subscriber, sk_ffi_signature *signature) {
    return sk_ffi__trampoline_new("sk_ffi_trampoline_subscriber", out, subscriber, NULL, signature);
}

SK_FFI_EXPORT int sk_ffi_trampoline_pipe(sk_ffi_trampoline **out, sk_pipe *pipe, sk_ffi_signature *signature) {
    if (pipe == NULL) { /* checked as a pipe, not as a subscriber */
        if (out != NULL) {
            *out = NULL;
        }
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, out == NULL ? "sk_ffi_trampoline_pipe: out is NULL" : "sk_ffi_trampoline_pipe: pipe is NULL");
    }
    return sk_ffi__trampoline_new("sk_ffi_trampoline_pipe", out, NULL, pipe, signature);
}

/* A live trampoline of this library, or NULL: for NULL (no message), and
 * for anything else (`function` sets the message, as sk_ffi__check_own
 * words it). */
static sk_ffi_trampoline *sk_ffi__trampoline(sk_ffi_trampoline *trampoline, const char *function) {
    if (trampoline == NULL || sk_ffi__check_own(function, "trampoline", trampoline, SK_FFI_TRAMPOLINE_TAG, "a trampoline") != SK_OK) {
        return NULL;
    }
    return trampoline;
}

SK_FFI_EXPORT sk_ffi_fn sk_ffi_trampoline_function(sk_ffi_trampoline *trampoline) {
    trampoline = sk_ffi__trampoline(trampoline, "sk_ffi_trampoline_function");
    if (trampoline == NULL) {
        return NULL;
    }
    /* ISO C has no conversion from void * to a function pointer; POSIX
     * guarantees the representation (dlsym relies on it). */
    sk_ffi_fn fn;
    memcpy(&fn, &trampoline->code, sizeof fn);
    return fn;
}

SK_FFI_EXPORT void sk_ffi_trampoline_close(sk_ffi_trampoline *trampoline) {
    trampoline = sk_ffi__trampoline(trampoline, "sk_ffi_trampoline_close");
    if (trampoline == NULL) {
        return;
    }
    pthread_mutex_lock(&trampoline->mutex);
    sk_subscriber *subscriber = trampoline->subscriber;
    sk_pipe *pipe = trampoline->pipe;
    trampoline->subscriber = NULL;
    trampoline->pipe = NULL;
    pthread_mutex_unlock(&trampoline->mutex);
    sk_subscriber_release(subscriber);
    sk_pipe_release(pipe);
}

SK_FFI_EXPORT uint64_t sk_ffi_trampoline_calls(sk_ffi_trampoline *trampoline) {
    trampoline = sk_ffi__trampoline(trampoline, "sk_ffi_trampoline_calls");
    return trampoline == NULL ? 0 : __atomic_load_n(&trampoline->calls, __ATOMIC_RELAXED);
}

SK_FFI_EXPORT sk_ffi_trampoline *sk_ffi_trampoline_retain(sk_ffi_trampoline *trampoline) {
    trampoline = sk_ffi__trampoline(trampoline, "sk_ffi_trampoline_retain");
    if (trampoline != NULL) {
        sk_ffi__ref_retain(&trampoline->refs);
    }
    return trampoline;
}

SK_FFI_EXPORT void sk_ffi_trampoline_release(sk_ffi_trampoline *trampoline) {
    trampoline = sk_ffi__trampoline(trampoline, "sk_ffi_trampoline_release");
    if (trampoline != NULL && sk_ffi__ref_release(&trampoline->refs)) {
        sk_ffi__trampoline_free(trampoline);
    }
}
