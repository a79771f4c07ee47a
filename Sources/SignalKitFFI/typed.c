/* typed.c - typed subscriptions and the typed map and filter operators.
 *
 * All three are built the same way on the public API: a signal made with
 * sk_signal_create() whose generator starts the upstream signal with a relay
 * observer. The relay calls the native function through ffi_call and puts
 * the outcome into the generator's subscriber: the converted result (map),
 * the value itself (filter), or an error describing a conversion that
 * failed. The subscriber's terminal event then disposes the upstream
 * subscription. A subscription's relay puts each value into its subscriber
 * as it is, and the native next function is called by the outer observer's
 * value callback (sk_ffi__typed_next), inside that subscriber's call: its
 * error (a failure, a value it cannot take), put into the subscriber from
 * there, then waits for the value calls in flight on other threads
 * (signalkit.h's conventions, "Order of events"; called in the relay, the
 * native function ran outside the calls the subscriber counts, and its
 * error ran beside them).
 *
 * Every native call runs inside a failure frame (failure.c): when the
 * function called sk_ffi_callback_fail(), its result is ignored and the
 * relay (or the subscription) ends with the failure's error, as for a
 * conversion failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef enum sk_ffi_op_kind { SK_FFI_OP_SUBSCRIBE, SK_FFI_OP_MAP, SK_FFI_OP_FILTER } sk_ffi_op_kind;

/* The native functions of a typed subscription or operator, with the user's
 * ctx; its release runs when the last reference goes. */
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
    sk_signal *upstream;
    /* A subscription's: its relay's subscriber (borrowed: the relay holds
     * it), set by the relay's generator before any value can come. */
    sk_subscriber *subscriber;
} sk_ffi_op;

/* One start of the relay signal. */
typedef struct sk_ffi_relay {
    sk_ffi_op *op;
    sk_subscriber *subscriber;
    int failed; /* a conversion failed: call nothing more */
} sk_ffi_relay;

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
    sk_signal_release(op->upstream);
    if (op->release != NULL) {
        op->release(op->ctx);
    }
    free(op);
}

/* Calls `fn` described by `signature` through ffi_call with the ctx (if it
 * takes one) and `value` converted to each value argument, inside `frame`
 * (popped again when this returns). `result` must hold an sk_ffi_slot.
 * Returns 0 (`frame` tells whether the function failed), or -1 with
 * `*refused` the index of the argument `value` does not convert to (the
 * function was not called). Out of line: its argument arrays stay out of
 * the frame of sk_ffi__relay_next (below). */
static __attribute__((noinline)) int sk_ffi__call_general(sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, const sk_value *value, sk_ffi_slot *result, sk_ffi_frame *frame, size_t *refused) {
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
    sk_ffi__frame_push(frame);
    ffi_call(&signature->cif, fn, result, avalues);
    sk_ffi__frame_pop(frame);
    return 0;
}

/* sk_ffi__call_general for every signature, the common shapes (one value
 * argument, after the ctx if there is one: direct.c) called directly with
 * their one argument converted here. */
static inline int sk_ffi__call(sk_ffi_signature *signature, sk_ffi_fn fn, void *ctx, const sk_value *value, sk_ffi_slot *result, sk_ffi_frame *frame, size_t *refused) {
    if (signature->direct == 0) {
        return sk_ffi__call_general(signature, fn, ctx, value, result, frame, refused);
    }
    size_t last = signature->count - 1;
    sk_ffi_slot argument;
    if (sk_ffi__to_native(value, signature->args[last], &argument) != 0) {
        *refused = last;
        return -1;
    }
    memset(result, 0, sizeof *result);
    sk_ffi__frame_push(frame);
    sk_ffi__call_direct(signature->direct, fn, ctx, &argument, result);
    sk_ffi__frame_pop(frame);
    return 0;
}

/* Ends the relay with `error` (consumed). */
static void sk_ffi__relay_fail_value(sk_ffi_relay *relay, sk_value *error) {
    __atomic_store_n(&relay->failed, 1, __ATOMIC_RELEASE);
    sk_subscriber_put_error(relay->subscriber, error);
    sk_value_release(error);
}

static void sk_ffi__relay_fail(sk_ffi_relay *relay, const char *why) {
    sk_value error = sk_ffi__string_value(why);
    sk_ffi__relay_fail_value(relay, &error);
}

/* The delivery of a value through a chain of typed operators nests one
 * sk_ffi__relay_next per operator on the stack (each puts downstream
 * before it returns), so its frame is kept small: the text buffers of a
 * failure live in the functions below, not inlined, whose frames are gone
 * before the value goes on downstream, and so do the argument arrays of
 * a call through ffi_call (sk_ffi__call_general). Measured with a chain of
 * 511 maps fed on a thread of its own: 465 KB ("i64(i64)") to 495 KB
 * ("str(str)") of stack with the buffers in this frame, 270 KB without
 * (ffi_deep_values::typed_chains_at_the_depth_limit_deliver_on_a_small_stack
 * runs such chains on 384 KB). */

/* The error of a value that does not convert to the argument `index` of
 * the function of `op` (a new value). */
static __attribute__((noinline, cold)) sk_value sk_ffi__refused_error(const sk_ffi_op *op, const sk_value *value, size_t index) {
    sk_ffi_type type = op->signature->args[index];
    char reason[160];
    char why[256];
    sk_ffi__to_native_why(value, type, reason, sizeof reason);
    snprintf(why, sizeof why, "sk_ffi: %s: argument %zu (%s): %s", sk_ffi__role(op), index, sk_ffi__type_name(type), reason);
    return sk_ffi__string_value(why);
}

/* Fails the relay: `value` does not convert to the argument `index` of the
 * operator's function. */
static __attribute__((noinline, cold)) void sk_ffi__relay_refused(sk_ffi_relay *relay, const sk_value *value, size_t index) {
    sk_value error = sk_ffi__refused_error(relay->op, value, index);
    sk_ffi__relay_fail_value(relay, &error);
}

/* The value a map's function returned, in `mapped`; when it does not
 * convert back, fails the relay and returns -1. */
static __attribute__((noinline)) int sk_ffi__relay_mapped(sk_ffi_relay *relay, const sk_ffi_slot *result, sk_value *mapped) {
    sk_ffi_op *op = relay->op;
    char reason[160];
    if (sk_ffi__from_native(result, op->signature->result, 1, mapped, reason, sizeof reason) != 0) {
        char why[256];
        snprintf(why, sizeof why, "sk_ffi: map: result (%s): %s", sk_ffi__type_name(op->signature->result), reason);
        sk_ffi__relay_fail(relay, why);
        return -1;
    }
    return 0;
}

static void sk_ffi__relay_next(void *ctx, const sk_value *value) {
    sk_ffi_relay *relay = ctx;
    sk_ffi_op *op = relay->op;
    if (__atomic_load_n(&relay->failed, __ATOMIC_ACQUIRE)) {
        return;
    }
    if (op->kind == SK_FFI_OP_SUBSCRIBE) {
        /* The outer observer calls the next function (sk_ffi__typed_next). */
        if (op->fn != NULL) {
            sk_subscriber_put_next(relay->subscriber, value);
        }
        return;
    }
    sk_ffi_slot result;
    sk_ffi_frame frame;
    size_t refused;
    if (sk_ffi__call(op->signature, op->fn, op->ctx, value, &result, &frame, &refused) != 0) {
        sk_ffi__relay_refused(relay, value, refused);
        return;
    }
    if (frame.failed) {
        sk_value error = sk_ffi__frame_error(&frame, sk_ffi__role(op));
        sk_ffi__relay_fail_value(relay, &error);
        return;
    }
    switch (op->kind) {
    case SK_FFI_OP_SUBSCRIBE:
        return; /* never: above */
    case SK_FFI_OP_FILTER:
        if ((uint8_t)result.word != 0) {
            sk_subscriber_put_next(relay->subscriber, value);
        }
        return;
    case SK_FFI_OP_MAP: {
        sk_value mapped;
        if (sk_ffi__from_native_primitive(&result, op->signature->result, 1, &mapped) != 0 &&
            sk_ffi__relay_mapped(relay, &result, &mapped) != 0) {
            return;
        }
        sk_subscriber_put_next(relay->subscriber, &mapped);
        sk_value_release(&mapped);
        return;
    }
    }
}

static void sk_ffi__relay_error(void *ctx, const sk_value *error) {
    sk_ffi_relay *relay = ctx;
    sk_subscriber_put_error(relay->subscriber, error);
}

static void sk_ffi__relay_completed(void *ctx) {
    sk_ffi_relay *relay = ctx;
    sk_subscriber_put_completion(relay->subscriber);
}

static void sk_ffi__relay_release(void *ctx) {
    sk_ffi_relay *relay = ctx;
    sk_ffi__live_remove();
    sk_subscriber_release(relay->subscriber);
    sk_ffi__op_release(relay->op);
    free(relay);
}

static sk_disposable *sk_ffi__relay_generator(void *ctx, sk_subscriber *subscriber) {
    sk_ffi_op *op = ctx;
    sk_ffi_relay *relay = calloc(1, sizeof *relay);
    if (relay == NULL) {
        sk_value error = sk_ffi__string_value("sk_ffi: out of memory");
        sk_subscriber_put_error(subscriber, &error);
        sk_value_release(&error);
        return NULL;
    }
    sk_ffi__live_add();
    sk_ffi__ref_retain(&op->refs);
    relay->op = op;
    relay->subscriber = sk_subscriber_retain(subscriber);
    if (op->kind == SK_FFI_OP_SUBSCRIBE) {
        op->subscriber = relay->subscriber; /* its one start */
    }
    sk_observer observer = {
        sk_ffi__relay_next, sk_ffi__relay_error, sk_ffi__relay_completed, relay, sk_ffi__relay_release,
    };
    sk_disposable *disposable = NULL;
    if (sk_signal_start(&disposable, op->upstream, &observer) != SK_OK) {
        /* The relay was released by the failing call. */
        sk_value error = sk_ffi__string_value(sk_last_error_message());
        sk_subscriber_put_error(subscriber, &error);
        sk_value_release(&error);
        return NULL;
    }
    return disposable;
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

static sk_ffi_op *sk_ffi__op_new(sk_ffi_op_kind kind, sk_signal *upstream, void *ctx, sk_release_fn release) {
    sk_ffi_op *op = calloc(1, sizeof *op);
    if (op == NULL) {
        return NULL;
    }
    sk_ffi__live_add();
    sk_ffi__ref_init(&op->refs);
    op->kind = kind;
    op->ctx = ctx;
    op->release = release;
    op->upstream = sk_signal_retain(upstream);
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
    sk_ffi_op *op = sk_ffi__op_new(kind, signal, ctx, release);
    if (op == NULL) {
        status = sk_ffi__fail(SK_ERR_NO_MEMORY, "%s: out of memory", function);
        sk_ffi__release_keeping_message(release, ctx);
        return status;
    }
    op->signature = sk_ffi_signature_retain(signature);
    op->fn = fn;
    /* Over the upstream: one operator deeper (SK_SIGNAL_MAX_DEPTH). This
     * call holds a reference of its own across it, so that a failing call,
     * which drops the reference it was handed, does not run the user's
     * release before the core's message is copied: a failing core call in
     * that release would replace it. */
    sk_ffi__ref_retain(&op->refs);
    status = sk_signal_create_over(out, signal, sk_ffi__relay_generator, op, sk_ffi__op_release);
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

/* Ends a typed subscription with `error` (consumed), put from inside its
 * value callback: the library delivers it after the value calls in flight
 * on other threads (at once when there are none). */
static void sk_ffi__typed_fail_value(sk_ffi_op *op, sk_value *error) {
    sk_subscriber_put_error(op->subscriber, error);
    sk_value_release(error);
}

/* The outer observer of a typed subscription: its value callback calls the
 * next function (the relay put the value into the subscription's
 * subscriber, whose calls the library counts). */
static void sk_ffi__typed_next(void *ctx, const sk_value *value) {
    sk_ffi_op *op = ctx;
    sk_ffi_slot result;
    sk_ffi_frame frame;
    size_t refused;
    if (sk_ffi__call(op->signature, op->fn, op->ctx, value, &result, &frame, &refused) != 0) {
        sk_value error = sk_ffi__refused_error(op, value, refused);
        sk_ffi__typed_fail_value(op, &error);
        return;
    }
    if (frame.failed) {
        sk_value error = sk_ffi__frame_error(&frame, "next");
        sk_ffi__typed_fail_value(op, &error);
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
    sk_ffi_frame frame; /* a failure has nothing more to end */
    sk_ffi__frame_push(&frame);
    ffi_call(&signature->cif, op->error, &result, avalues);
    sk_ffi__frame_pop(&frame);
    sk_ffi__frame_clear(&frame);
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
    sk_ffi_frame frame; /* a failure has nothing more to end */
    sk_ffi__frame_push(&frame);
    ffi_call(&op->completed_signature->cif, op->completed, &result, avalues);
    sk_ffi__frame_pop(&frame);
    sk_ffi__frame_clear(&frame);
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
    sk_ffi_op *op = sk_ffi__op_new(SK_FFI_OP_SUBSCRIBE, signal, observer->ctx, observer->release);
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
    sk_ffi__ref_retain(&op->refs); /* for the subscription's observer */
    /* And one for this call, dropped last: a failing core call below drops
     * the references it was handed, and the user's release, run by the last
     * drop, must not run before the core's message is copied (a failing core
     * call in it would replace that message). */
    sk_ffi__ref_retain(&op->refs);
    sk_signal *relay = NULL;
    status = sk_signal_create(&relay, sk_ffi__relay_generator, op, sk_ffi__op_release);
    if (status != SK_OK) {
        status = sk_ffi__fail_core(status, function);
        sk_ffi__op_release(op); /* the observer's reference, never handed over */
        sk_ffi__release_keeping_message(sk_ffi__op_release, op);
        return status;
    }
    sk_observer outer = {op->fn != NULL ? sk_ffi__typed_next : NULL, sk_ffi__typed_error, sk_ffi__typed_completed, op,
                         sk_ffi__op_release};
    status = sk_signal_start(out, relay, &outer);
    if (status != SK_OK) {
        status = sk_ffi__fail_core(status, function);
    }
    sk_signal_release(relay); /* not the last reference to op: this call's is */
    sk_ffi__release_keeping_message(sk_ffi__op_release, op);
    return status;
}
