/* typed.c - typed subscriptions and the typed map and filter operators.
 *
 * Each is the C library's own machinery with a native function behind it:
 * a typed map or filter is an sk_signal_map() or sk_signal_filter() stage
 * whose C function converts the value, calls the native function through
 * ffi_call (or directly for the common shapes, direct.c) and converts the
 * result back; a typed subscription is an observer started by
 * sk_signal_start_failable() whose value callback does the same for next.
 * A value that does not convert, a result that does not convert back, or
 * a call of sk_ffi_callback_fail() (failure.c) fails the call through
 * sk_callback_fail(): the core ends the subscription, delivers the error
 * after the value calls in flight on other threads and disposes the
 * upstream, as for any failing operator callback (signalkit.h). A run of
 * typed maps and filters is one run of stages in the core, one frame per
 * value rather than one per operator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef enum sk_ffi_op_kind { SK_FFI_OP_SUBSCRIBE, SK_FFI_OP_MAP, SK_FFI_OP_FILTER } sk_ffi_op_kind;

/* The native functions of a typed subscription or operator, with the user's
 * ctx; its release runs when the last reference goes (a subscription's
 * observer and the call that made it hold one each, an operator's stage
 * and the call that made it). */
typedef struct sk_ffi_op {
    long refs;
    sk_ffi_op_kind kind;
    sk_ffi_signature *signature; /* next, map or filter */
    sk_ffi_fn fn;
    sk_ffi_signature *error_signature;
    sk_ffi_fn error;
    sk_ffi_signature *completed_signature;
    sk_ffi_fn completed;
    void *ctx;
    sk_release_fn release;
} sk_ffi_op;

static const char *sk_ffi__role(const sk_ffi_op *op) {
    switch (op->kind) {
    case SK_FFI_OP_MAP: return "map";
    case SK_FFI_OP_FILTER: return "filter";
    default: return "next";
    }
}

static void sk_ffi__op_release(void *ctx) {
    sk_ffi_op *op = ctx;
    if (op == NULL || !sk_ffi__ref_release(&op->refs)) {
        return;
    }
    sk_ffi__live_remove();
    sk_ffi_signature_release(op->signature);
    sk_ffi_signature_release(op->error_signature);
    sk_ffi_signature_release(op->completed_signature);
    if (op->release != NULL) {
        op->release(op->ctx);
    }
    free(op);
}

/* Calls `fn` described by `signature` through ffi_call with the ctx (if it
 * takes one) and `value` converted to each value argument, as the typed
 * callback `call` (left again when this returns). `result` must hold an
 * sk_ffi_slot. Returns 0 (`call->failed` tells whether the function
 * failed), or -1 with `*refused` the index of the argument `value` does not
 * convert to (the function was not called). Out of line: its argument
 * arrays stay out of the frame of the stage that calls it. */
static __attribute__((noinline)) int sk_ffi__call_general(sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, const sk_value *value, sk_ffi_slot *result, sk_ffi_call_state *call, const char *role, size_t *refused) {
    sk_ffi_slot slots[SK_FFI_MAX_ARGS];
    void *avalues[SK_FFI_MAX_ARGS];
    for (size_t i = 0; i < signature->count; i++) {
        if (signature->args[i] == SK_FFI_CTX) {
            slots[i].pointer = ctx;
        } else if (sk_ffi__to_native(value, signature->args[i], &slots[i]) != 0) {
            *refused = i;
            return -1;
        }
        avalues[i] = &slots[i];
    }
    memset(result, 0, sizeof *result);
    sk_ffi__call_enter(call, role);
    ffi_call(&signature->cif, fn, result, avalues);
    sk_ffi__call_leave(call);
    return 0;
}

/* sk_ffi__call_general for every signature, the common shapes (one value
 * argument, after the ctx if there is one: direct.c) called directly with
 * their one argument converted here. */
static inline int sk_ffi__call(sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, const sk_value *value, sk_ffi_slot *result, sk_ffi_call_state *call, const char *role, size_t *refused) {
    if (signature->direct == 0) {
        return sk_ffi__call_general(signature, fn, ctx, value, result, call, role, refused);
    }
    size_t last = signature->count - 1;
    sk_ffi_slot argument;
    if (sk_ffi__to_native(value, signature->args[last], &argument) != 0) {
        *refused = last;
        return -1;
    }
    memset(result, 0, sizeof *result);
    sk_ffi__call_enter(call, role);
    sk_ffi__call_direct(signature->direct, fn, ctx, &argument, result);
    sk_ffi__call_leave(call);
    return 0;
}

/* The delivery of a value through a run of typed stages calls them one
 * after another in one frame of the core, and a typed callback that emits
 * into a pipe nests a delivery, so the stages' frames are kept small: the
 * text buffers of a failure live in the functions below, not inlined, whose
 * frames are gone before the value goes on, and so do the argument arrays
 * of a call through ffi_call (sk_ffi__call_general). */

/* Fails the typed callback's call (sk_callback_fail) with `error`
 * (consumed). */
static __attribute__((noinline, cold)) void sk_ffi__fail_call(sk_value *error) {
    /* Never refused: every caller runs as an operator callback of the core. */
    (void)sk_callback_fail(error);
    sk_value_release(error);
}

/* Fails the call: `value` does not convert to the argument `index` of the
 * function of `op`. */
static __attribute__((noinline, cold)) void sk_ffi__fail_refused(const sk_ffi_op *op, const sk_value *value, size_t index) {
    sk_ffi_type type = op->signature->args[index];
    char reason[160];
    char why[256];
    sk_ffi__to_native_why(value, type, reason, sizeof reason);
    snprintf(why, sizeof why, "sk_ffi: %s: argument %zu (%s): %s", sk_ffi__role(op), index, sk_ffi__type_name(type), reason);
    sk_value error = sk_ffi__string_value(why);
    sk_ffi__fail_call(&error);
}

/* The value a map's function returned, into `*out`; when it does not
 * convert back, fails the call. */
static __attribute__((noinline)) void sk_ffi__mapped(const sk_ffi_op *op, const sk_ffi_slot *result, sk_value *out) {
    char reason[160];
    if (sk_ffi__from_native(result, op->signature->result, 1, out, reason, sizeof reason) != 0) {
        char why[256];
        snprintf(why, sizeof why, "sk_ffi: map: result (%s): %s", sk_ffi__type_name(op->signature->result), reason);
        sk_value error = sk_ffi__string_value(why);
        sk_ffi__fail_call(&error);
    }
}

/* A typed map's stage (sk_map_fn). */
static void sk_ffi__map(void *ctx, const sk_value *value, sk_value *out) {
    sk_ffi_op *op = ctx;
    sk_ffi_slot result;
    sk_ffi_call_state call;
    size_t refused;
    if (sk_ffi__call(op->signature, op->fn, op->ctx, value, &result, &call, "map", &refused) != 0) {
        sk_ffi__fail_refused(op, value, refused);
        return;
    }
    if (call.failed) {
        return; /* what it returned is ignored */
    }
    if (sk_ffi__from_native_primitive(&result, op->signature->result, 1, out) != 0) {
        sk_ffi__mapped(op, &result, out);
    }
}

/* A typed filter's stage (sk_predicate_fn). */
static bool sk_ffi__filter(void *ctx, const sk_value *value) {
    sk_ffi_op *op = ctx;
    sk_ffi_slot result;
    sk_ffi_call_state call;
    size_t refused;
    if (sk_ffi__call(op->signature, op->fn, op->ctx, value, &result, &call, "filter", &refused) != 0) {
        sk_ffi__fail_refused(op, value, refused);
        return false;
    }
    return !call.failed && (uint8_t)result.word != 0;
}

/* Checks the shape of a callback's signature: the result, an optional
 * leading ctx, then between `min_values` and `max_values` value arguments
 * whose types are in `allowed` (a bit mask of sk_ffi_type; 0: all). */
static int sk_ffi__check(const char *function, const char *name, const sk_ffi_signature *signature, int want_void, int want_bool, size_t min_values, size_t max_values, unsigned allowed) {
    if (want_void && signature->result != SK_FFI_VOID) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: %s: must return void, returns %s", function, name, sk_ffi__type_name(signature->result));
    }
    if (want_bool && signature->result != SK_FFI_BOOL) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: %s: must return bool, returns %s", function, name, sk_ffi__type_name(signature->result));
    }
    if (!want_void && !want_bool && signature->result == SK_FFI_VOID) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: %s: must return a value, returns void", function, name);
    }
    size_t first = (signature->count > 0 && signature->args[0] == SK_FFI_CTX) ? 1 : 0;
    size_t values = signature->count - first;
    if (values < min_values || values > max_values) {
        /* "takes 1 value arguments, 0 to 0 allowed" read badly: the count
         * agrees with its noun, and the range is said as a user says it. */
        char range[48];
        if (max_values == 0) {
            snprintf(range, sizeof range, "none");
        } else if (min_values == max_values) {
            snprintf(range, sizeof range, "exactly %zu", max_values);
        } else if (min_values == 0) {
            snprintf(range, sizeof range, "at most %zu", max_values);
        } else {
            snprintf(range, sizeof range, "%zu to %zu", min_values, max_values);
        }
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: %s: takes %zu value argument%s, %s allowed (besides a leading ctx)", function, name, values, values == 1 ? "" : "s", range);
    }
    for (size_t i = first; i < signature->count; i++) {
        if (allowed != 0 && (allowed & (1u << signature->args[i])) == 0) {
            return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: %s: argument %zu has type %s, only str or value allowed", function, name, i, sk_ffi__type_name(signature->args[i]));
        }
    }
    return SK_OK;
}

static sk_ffi_op *sk_ffi__op_new(sk_ffi_op_kind kind, void *ctx, sk_release_fn release) {
    sk_ffi_op *op = calloc(1, sizeof *op);
    if (op == NULL) {
        return NULL;
    }
    sk_ffi__live_add();
    sk_ffi__ref_init(&op->refs);
    op->kind = kind;
    op->ctx = ctx;
    op->release = release;
    return op;
}

static int sk_ffi__operator(const char *function, sk_ffi_op_kind kind, sk_signal **out, sk_signal *signal, sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, sk_release_fn release) {
    int status = SK_OK;
    if (out != NULL) {
        *out = NULL;
    }
    if (out == NULL) {
        status = sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: out is NULL", function);
    } else if ((status = sk_ffi__check_signal(function, "signal", signal)) != SK_OK) {
    } else if ((status = sk_ffi__check_signature(function, "signature", signature)) != SK_OK) {
    } else if (fn == NULL) {
        status = sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: fn is NULL", function);
    } else {
        status = sk_ffi__check(function, "signature", signature, 0, kind == SK_FFI_OP_FILTER, 1, 1, 0);
    }
    if (status != SK_OK) {
        sk_ffi__release_keeping_message(release, ctx);
        return status;
    }
    sk_ffi_op *op = sk_ffi__op_new(kind, ctx, release);
    if (op == NULL) {
        status = sk_ffi__fail(SK_ERR_NO_MEMORY, "%s: out of memory", function);
        sk_ffi__release_keeping_message(release, ctx);
        return status;
    }
    op->signature = sk_ffi_signature_retain(signature);
    op->fn = fn;
    /* The stage's reference is handed to the core, which drops it on a
     * failure. This call holds one of its own across it, so that the
     * user's release does not run before the core's message is copied: a
     * failing core call in that release would replace it. */
    sk_ffi__ref_retain(&op->refs);
    status = kind == SK_FFI_OP_MAP ? sk_signal_map(out, signal, sk_ffi__map, op, sk_ffi__op_release)
                                   : sk_signal_filter(out, signal, sk_ffi__filter, op, sk_ffi__op_release);
    if (status != SK_OK) {
        status = sk_ffi__fail_core(status, function);
    }
    sk_ffi__release_keeping_message(sk_ffi__op_release, op);
    return status;
}

SK_FFI_EXPORT int sk_ffi_signal_map(sk_signal **out, sk_signal *signal, sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, sk_release_fn release) {
    return sk_ffi__operator("sk_ffi_signal_map", SK_FFI_OP_MAP, out, signal, signature, fn, ctx, release);
}

SK_FFI_EXPORT int sk_ffi_signal_filter(sk_signal **out, sk_signal *signal, sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, sk_release_fn release) {
    return sk_ffi__operator("sk_ffi_signal_filter", SK_FFI_OP_FILTER, out, signal, signature, fn, ctx, release);
}

/* A typed subscription's value callback: the observer is started by
 * sk_signal_start_failable, so a failure here ends the subscription through
 * the core. */
static void sk_ffi__typed_next(void *ctx, const sk_value *value) {
    sk_ffi_op *op = ctx;
    sk_ffi_slot result;
    sk_ffi_call_state call;
    size_t refused;
    if (sk_ffi__call(op->signature, op->fn, op->ctx, value, &result, &call, "next", &refused) != 0) {
        sk_ffi__fail_refused(op, value, refused);
    }
}

/* The outer observer of a typed subscription: terminal events. */
static void sk_ffi__typed_error(void *ctx, const sk_value *error) {
    sk_ffi_op *op = ctx;
    if (op->error == NULL) {
        return;
    }
    sk_ffi_signature *signature = op->error_signature;
    sk_ffi_slot slots[2];
    void *avalues[2];
    sk_value description;
    sk_value_set_nil(&description);
    for (size_t i = 0; i < signature->count; i++) {
        sk_ffi_type type = signature->args[i];
        if (type == SK_FFI_CTX) {
            slots[i].pointer = op->ctx;
        } else if (type == SK_FFI_VALUE) {
            slots[i].value = error;
        } else {
            if (sk_ffi__to_native(error, SK_FFI_STRING, &slots[i]) != 0) {
                char text[160];
                sk_ffi__describe_error(error, text, sizeof text);
                description = sk_ffi__string_value(text);
                slots[i].string = "sk_ffi: error (description unavailable)";
                sk_value_get_string(&description, &slots[i].string, NULL);
            }
        }
        avalues[i] = &slots[i];
    }
    sk_ffi_slot result;
    sk_ffi_call_state call; /* a failure has nothing more to end */
    sk_ffi__call_enter(&call, sk_ffi__role_terminal);
    ffi_call(&signature->cif, op->error, &result, avalues);
    sk_ffi__call_leave(&call);
    sk_value_release(&description);
}

static void sk_ffi__typed_completed(void *ctx) {
    sk_ffi_op *op = ctx;
    if (op->completed == NULL) {
        return;
    }
    sk_ffi_slot slot;
    void *avalues[1] = {&slot};
    slot.pointer = op->ctx;
    sk_ffi_slot result;
    sk_ffi_call_state call; /* a failure has nothing more to end */
    sk_ffi__call_enter(&call, sk_ffi__role_terminal);
    ffi_call(&op->completed_signature->cif, op->completed, &result, avalues);
    sk_ffi__call_leave(&call);
}

SK_FFI_EXPORT int sk_ffi_signal_start(sk_disposable **out, sk_signal *signal, const sk_ffi_observer *observer) {
    static const char function[] = "sk_ffi_signal_start";
    int status = SK_OK;
    if (out != NULL) {
        *out = NULL;
    }
    if (observer == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: observer is NULL", function);
    }
    const unsigned error_types = (1u << SK_FFI_STRING) | (1u << SK_FFI_VALUE);
    if ((status = sk_ffi__check_signal(function, "signal", signal)) != SK_OK) {
    } else if ((observer->next != NULL || observer->next_signature != NULL) &&
               (status = sk_ffi__check_signature(function, "observer->next_signature", observer->next_signature)) != SK_OK) {
    } else if ((observer->error != NULL || observer->error_signature != NULL) &&
               (status = sk_ffi__check_signature(function, "observer->error_signature", observer->error_signature)) != SK_OK) {
    } else if ((observer->completed != NULL || observer->completed_signature != NULL) &&
               (status = sk_ffi__check_signature(function, "observer->completed_signature", observer->completed_signature)) != SK_OK) {
    } else if (observer->next != NULL && (status = sk_ffi__check(function, "observer->next_signature", observer->next_signature, 1, 0, 0, 1, 0)) != SK_OK) {
    } else if (observer->error != NULL && (status = sk_ffi__check(function, "observer->error_signature", observer->error_signature, 1, 0, 0, 1, error_types)) != SK_OK) {
    } else if (observer->completed != NULL && (status = sk_ffi__check(function, "observer->completed_signature", observer->completed_signature, 1, 0, 0, 0, 0)) != SK_OK) {
    }
    if (status != SK_OK) {
        sk_ffi__release_keeping_message(observer->release, observer->ctx);
        return status;
    }
    sk_ffi_op *op = sk_ffi__op_new(SK_FFI_OP_SUBSCRIBE, observer->ctx, observer->release);
    if (op == NULL) {
        status = sk_ffi__fail(SK_ERR_NO_MEMORY, "%s: out of memory", function);
        sk_ffi__release_keeping_message(observer->release, observer->ctx);
        return status;
    }
    if (observer->next != NULL) {
        op->signature = sk_ffi_signature_retain(observer->next_signature);
        op->fn = observer->next;
    }
    if (observer->error != NULL) {
        op->error_signature = sk_ffi_signature_retain(observer->error_signature);
        op->error = observer->error;
    }
    if (observer->completed != NULL) {
        op->completed_signature = sk_ffi_signature_retain(observer->completed_signature);
        op->completed = observer->completed;
    }
    /* The observer's reference is handed to the core, which drops it on a
     * failure; this call holds one of its own, dropped last, so that the
     * user's release, run by the last drop, does not run before the core's
     * message is copied (a failing core call in it would replace that
     * message). */
    sk_ffi__ref_retain(&op->refs);
    sk_observer observer_of_core = {op->fn != NULL ? sk_ffi__typed_next : NULL, sk_ffi__typed_error,
                                    sk_ffi__typed_completed, op, sk_ffi__op_release};
    status = sk_signal_start_failable(out, signal, &observer_of_core, 0);
    if (status != SK_OK) {
        status = sk_ffi__fail_core(status, function);
    }
    sk_ffi__release_keeping_message(sk_ffi__op_release, op);
    return status;
}
