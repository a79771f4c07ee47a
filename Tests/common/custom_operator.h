/*
 * Copyright (c) The SignalKit authors. MIT licence (LICENSE).
 *
 * A custom operator, built as a user builds one with sk_signal_create_over():
 * a map whose generator starts the upstream with an observer of its own (a
 * relay) that maps each value and puts it into the generator's subscriber,
 * passes the terminal events on, and returns the upstream's disposable. The
 * operator table (operator_list.h) cannot list it, as it is no function of
 * signalkit.h, so it is an entry of the same form (operator_shapes.h) for
 * the programs that go over the table's operators: the abandonment soak and
 * the API fuzzer.
 *
 * Its context follows the operators' rule for `ctx` (signalkit.h, group
 * operators): the caller's `release` runs once, when the signal and all its
 * subscriptions are gone, or at once when the call fails. So a program that
 * counts the caller's contexts sees a signal or a subscription of it that is
 * never let go as a context never released, and a second run of the
 * signal's release as a context released twice (this file passes it on).
 */
#ifndef SIGNALKIT_TESTS_CUSTOM_OPERATOR_H
#define SIGNALKIT_TESTS_CUSTOM_OPERATOR_H

#include <stdatomic.h>
#include <stdlib.h>

#include "operator_shapes.h"

/* The operator's context, given to sk_signal_create_over(). */
typedef struct sk_test_custom {
    sk_signal *upstream;   /* borrowed, for the generator: the signal keeps it */
    sk_map_fn map;
    atomic_int references; /* the signal's, and one per relay */
    atomic_int signal_gone;
    void *ctx;
    sk_release_fn release;
} sk_test_custom;

/* One subscription's observer of the upstream. */
typedef struct sk_test_custom_relay {
    sk_test_custom *custom;    /* a reference */
    sk_subscriber *subscriber; /* +1 */
} sk_test_custom_relay;

static inline void sk_test_custom_unref(void *ctx) {
    sk_test_custom *custom = ctx;
    if (atomic_fetch_sub(&custom->references, 1) != 1) {
        return;
    }
    if (custom->release != NULL) {
        custom->release(custom->ctx);
    }
    free(custom);
}

/* The signal's release (sk_signal_create_over's). A second one is the
 * library's mistake: it is passed on to the caller's release, to be counted
 * there. As abandon.c's observers' flag, the flag is then read after the
 * free when nothing else held the context (a sanitizer reports that). */
static inline void sk_test_custom_signal_gone(void *ctx) {
    sk_test_custom *custom = ctx;
    if (atomic_exchange(&custom->signal_gone, 1) != 0) {
        if (custom->release != NULL) {
            custom->release(custom->ctx);
        }
        return;
    }
    sk_test_custom_unref(custom);
}

static inline void sk_test_custom_next(void *ctx, const sk_value *value) {
    sk_test_custom_relay *relay = ctx;
    sk_value mapped;
    sk_value_set_nil(&mapped);
    relay->custom->map(relay->custom->ctx, value, &mapped);
    sk_subscriber_put_next(relay->subscriber, &mapped);
    sk_value_release(&mapped);
}

static inline void sk_test_custom_error(void *ctx, const sk_value *error) {
    sk_test_custom_relay *relay = ctx;
    sk_subscriber_put_error(relay->subscriber, error);
}

static inline void sk_test_custom_completed(void *ctx) {
    sk_test_custom_relay *relay = ctx;
    sk_subscriber_put_completion(relay->subscriber);
}

static inline void sk_test_custom_relay_release(void *ctx) {
    sk_test_custom_relay *relay = ctx;
    sk_subscriber_release(relay->subscriber);
    sk_test_custom_unref(relay->custom);
    free(relay);
}

/* Ends the subscription of `subscriber` with an error: its upstream will
 * never deliver (a relay not made, or a start that failed). */
static inline sk_disposable *sk_test_custom_fail(sk_subscriber *subscriber) {
    sk_value error;
    sk_value_set_int64(&error, -1);
    sk_subscriber_put_error(subscriber, &error);
    return NULL;
}

/* The generator: the upstream itself is started on the starting thread,
 * while the generator runs, so the library links that start to
 * `subscriber` (a take below ends a restart loop above). A start that fails
 * has released the relay; the subscription then ends with an error, as
 * nothing will ever come from the upstream. */
static inline sk_disposable *sk_test_custom_generate(void *ctx, sk_subscriber *subscriber) {
    sk_test_custom *custom = ctx;
    sk_test_custom_relay *relay = malloc(sizeof *relay);
    if (relay == NULL) {
        return sk_test_custom_fail(subscriber);
    }
    atomic_fetch_add(&custom->references, 1);
    relay->custom = custom;
    relay->subscriber = sk_subscriber_retain(subscriber);
    sk_observer observer = {
        sk_test_custom_next, sk_test_custom_error, sk_test_custom_completed, relay, sk_test_custom_relay_release,
    };
    sk_disposable *upstream = NULL;
    if (sk_signal_start(&upstream, custom->upstream, &observer) != SK_OK) {
        return sk_test_custom_fail(subscriber);
    }
    return upstream;
}

/* The entry's call: the map and its context as sk_signal_map() takes them.
 * On failure, `release` has run, as for the library's operators. */
static inline int sk_test_call_custom_map(sk_signal **out, const sk_test_args *a) {
    sk_test_custom *custom = malloc(sizeof *custom);
    if (custom == NULL) {
        *out = NULL;
        if (a->release != NULL) {
            a->release(a->ctx);
        }
        return SK_ERR_NO_MEMORY;
    }
    atomic_init(&custom->references, 1);
    atomic_init(&custom->signal_gone, 0);
    custom->upstream = a->source;
    custom->map = a->map;
    custom->ctx = a->ctx;
    custom->release = a->release;
    return sk_signal_create_over(out, a->source, sk_test_custom_generate, custom, sk_test_custom_signal_gone);
}

/* The custom operators, entries of the form of SK_TEST_OPERATORS. */
static const sk_test_operator SK_TEST_CUSTOM_OPERATORS[] = {
    {"custom map (sk_signal_create_over)", "map", 0, {SK_ARG_SOURCE, SK_ARG_MAP, SK_ARG_CTX}, sk_test_call_custom_map},
};

#define SK_TEST_CUSTOM_OPERATOR_COUNT (sizeof SK_TEST_CUSTOM_OPERATORS / sizeof SK_TEST_CUSTOM_OPERATORS[0])

#endif
