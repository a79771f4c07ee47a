/* test_operators_mapping.c - map, filter and distinct-until-changed (the C
 * layer's Operators_Mapping.swift): values, heap values written by
 * callbacks, errors passing through, the callbacks' releases and argument
 * errors, with those of the other plain operators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Callbacks                                                                */
/* ------------------------------------------------------------------------ */

/* ctx (optional): a counter of calls. */
static void times_ten(void *ctx, const sk_value *value, sk_value *out) {
    if (ctx != NULL) {
        counter_hit(ctx);
    }
    cr_assert_eq(sk_value_kind(out), SK_KIND_NIL, "map's out is not nil on entry");
    sk_value_set_int64(out, value_int(value) * 10);
}

static bool is_even(void *ctx, const sk_value *value) {
    if (ctx != NULL) {
        counter_hit(ctx);
    }
    return value_int(value) % 2 == 0;
}

static void to_string(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    char text[32];
    snprintf(text, sizeof text, "v%lld", (long long)value_int(value));
    SK_OK_OR_ABORT(sk_value_set_string(out, text));
}

/* [n, "n"] */
static void to_pair(void *ctx, const sk_value *value, sk_value *out) {
    sk_value items[2];
    items[0] = *value;
    to_string(ctx, value, &items[1]);
    SK_OK_OR_ABORT(sk_value_set_array(out, items, 2));
    sk_value_release(&items[1]);
}

static void write_nothing(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)value;
    (void)out;
}

/* ------------------------------------------------------------------------ */
/* Map and filter                                                           */
/* ------------------------------------------------------------------------ */

Test(operators_mapping, map_filter_chain, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    sk_signal *source = ints_signal(input, 10);
    counter filtered, mapped;
    counters_init(2, &filtered, &mapped);
    sk_signal *evens = NULL, *scaled = NULL;
    SK_OK_OR_FAIL(sk_signal_filter(&evens, source, is_even, &filtered, NULL));
    SK_OK_OR_FAIL(sk_signal_map(&scaled, evens, times_ten, &mapped, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, scaled);
    const int64_t expected[] = { 20, 40, 60, 80, 100 };
    recorder_expect(&r, "nnnnncr", expected, 5);
    cr_assert_eq(counter_get(&filtered), 10, "the predicate runs once per value");
    cr_assert_eq(counter_get(&mapped), 5, "map runs once per value that passed");
    recorder_finish(&r, d);
    sk_signal_release(scaled);
    sk_signal_release(evens);
    sk_signal_release(source);
    counters_destroy(2, &filtered, &mapped);
    expect_no_live_objects(0);
}

Test(operators_mapping, map_runs_once_per_event_per_subscription, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *source = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    counter calls;
    counter_init(&calls);
    SK_OK_OR_FAIL(sk_signal_map(&mapped, source, times_ten, &calls, NULL));
    recorder r1, r2;
    sk_disposable *d1 = recorder_start(&r1, mapped), *d2 = recorder_start(&r2, mapped);
    pipe_put_int(pipe, 1);
    pipe_put_int(pipe, 2);
    const int64_t expected[] = { 10, 20 };
    recorder_expect(&r1, "nn", expected, 2);
    recorder_expect(&r2, "nn", expected, 2);
    cr_assert_eq(counter_get(&calls), 4);
    recorder_finish(&r1, d1);
    recorder_finish(&r2, d2);
    sk_signal_release(mapped);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

Test(operators_mapping, map_writing_heap_values, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 7, -3 };
    sk_signal *source = ints_signal(input, 2);
    sk_signal *strings = NULL, *pairs = NULL;
    SK_OK_OR_FAIL(sk_signal_map(&strings, source, to_string, NULL, NULL));
    SK_OK_OR_FAIL(sk_signal_map(&pairs, source, to_pair, NULL, NULL));

    recorder r;
    sk_disposable *d = recorder_start(&r, strings);
    recorder_expect(&r, "nncr", NULL, 0);
    expect_string_event(&r, 0, "v7");
    expect_string_event(&r, 1, "v-3");
    recorder_finish(&r, d);

    d = recorder_start(&r, pairs);
    recorder_expect(&r, "nncr", NULL, 0);
    const sk_value *item = NULL;
    size_t count = 0;
    SK_OK_OR_FAIL(sk_value_get_array_count(&recorder_event(&r, 1)->value, &count));
    cr_assert_eq(count, 2);
    SK_OK_OR_FAIL(sk_value_get_array_item(&recorder_event(&r, 1)->value, 0, &item));
    cr_assert_eq(value_int(item), -3);
    SK_OK_OR_FAIL(sk_value_get_array_item(&recorder_event(&r, 1)->value, 1, &item));
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(item, &text, NULL));
    cr_assert_str_eq(text, "v-3");
    recorder_finish(&r, d);

    sk_signal_release(strings);
    sk_signal_release(pairs);
    sk_signal_release(source);
    /* The library took, and dropped, every value the callbacks wrote. */
    expect_no_live_objects(0);
}

Test(operators_mapping, map_writing_nothing_delivers_nil, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1 };
    sk_signal *source = ints_signal(input, 1);
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_map(&mapped, source, write_nothing, NULL, NULL));
    expect_one_nil(mapped);
    sk_signal_release(source);
    expect_no_live_objects(0);
}

Test(operators_mapping, map_and_filter_pass_errors, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *source = manual_init_signal(&s);
    sk_signal *evens = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_filter(&evens, source, is_even, NULL, NULL));
    SK_OK_OR_FAIL(sk_signal_map(&mapped, evens, times_ten, NULL, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, mapped);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    subscriber_put_int(manual_subscriber(&s, 0), 3);
    sk_value error = string_value("boom");
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 0), &error));
    recorder_expect_one(&r, "ner", 20);
    cr_assert(sk_value_equal(&recorder_event(&r, 1)->value, &error), "the error is passed unchanged");
    cr_assert_eq(counter_get(&s.disposed), 1);
    sk_value_release(&error);
    recorder_finish(&r, d);
    sk_signal_release(mapped);
    sk_signal_release(evens);
    sk_signal_release(source);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* The outermost stage with an observer that has a value callback only      */
/* ------------------------------------------------------------------------ */

/* An observer with a value callback only (no release function) started on
 * a map or filter signal: the library may
 * run that stage in the subscription's own object (its disposable) instead
 * of composing a callback object for it (see SKDisposable). Nothing C can
 * see may differ from the recorder's observer above (which has every
 * callback and takes the general path): the values, the stage's calls, the
 * end of the subscription on an error or a completion, disposal from inside
 * a callback (the observer's or the stage's own), the stage's release, the
 * live objects, and many such subscriptions from two threads at once. */

typedef struct lone_sink {
    pthread_mutex_t mutex;
    int64_t sum;
    int nexts;
    int strings; /* values that were strings "v<n>" with the right n */
    sk_disposable *self; /* disposed (and released) by the callbacks below */
} lone_sink;

static void lone_init(lone_sink *sink) {
    memset(sink, 0, sizeof *sink);
    pthread_mutex_init(&sink->mutex, NULL);
}

static void lone_destroy(lone_sink *sink) {
    pthread_mutex_destroy(&sink->mutex);
}

static void lone_next(void *ctx, const sk_value *value) {
    lone_sink *sink = ctx;
    pthread_mutex_lock(&sink->mutex);
    if (sk_value_kind(value) == SK_KIND_STRING) {
        const char *text = NULL;
        SK_OK_OR_ABORT(sk_value_get_string(value, &text, NULL));
        sink->strings += text[0] == 'v';
        sink->sum += atoll(text + 1);
    } else {
        sink->sum += value_int(value);
    }
    sink->nexts++;
    pthread_mutex_unlock(&sink->mutex);
}

static sk_observer lone_observer(lone_sink *sink) {
    sk_observer observer = { lone_next, NULL, NULL, sink, NULL };
    return observer;
}

static sk_disposable *lone_start(lone_sink *sink, sk_signal *signal) {
    sk_observer observer = lone_observer(sink);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    cr_assert_not_null(d);
    return d;
}

/* A pipe and its signal, with the stage `make` builds over it. */
typedef struct staged_pipe {
    sk_pipe *pipe;
    sk_signal *source;
    sk_signal *staged;
} staged_pipe;

static void staged_release(staged_pipe *p) {
    sk_signal_release(p->staged);
    sk_signal_release(p->source);
    sk_pipe_release(p->pipe);
}

static staged_pipe staged_map(sk_map_fn fn, void *ctx, sk_release_fn release) {
    staged_pipe p = { NULL, NULL, NULL };
    SK_OK_OR_FAIL(sk_pipe_create(&p.pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&p.source, p.pipe));
    SK_OK_OR_FAIL(sk_signal_map(&p.staged, p.source, fn, ctx, release));
    return p;
}

static staged_pipe staged_filter(sk_predicate_fn fn, void *ctx, sk_release_fn release) {
    staged_pipe p = { NULL, NULL, NULL };
    SK_OK_OR_FAIL(sk_pipe_create(&p.pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&p.source, p.pipe));
    SK_OK_OR_FAIL(sk_signal_filter(&p.staged, p.source, fn, ctx, release));
    return p;
}

Test(operators_mapping, outer_map_with_a_value_callback_only, .timeout = SK_TEST_TIMEOUT) {
    long start = sk_live_objects();
    counter calls;
    counter_init(&calls);
    staged_pipe p = staged_map(times_ten, &calls, NULL);
    lone_sink sink;
    lone_init(&sink);
    sk_disposable *d = lone_start(&sink, p.staged);
    pipe_put_int(p.pipe, 1);
    pipe_put_int(p.pipe, 2);
    pipe_put_int(p.pipe, 3);
    cr_assert(sink.sum == 60 && sink.nexts == 3, "sum %lld, %d nexts", (long long)sink.sum, sink.nexts);
    cr_assert_eq(counter_get(&calls), 3, "the map runs once per value");
    sk_disposable_dispose(d);
    pipe_put_int(p.pipe, 4);
    cr_assert(sink.sum == 60 && sink.nexts == 3, "a value after dispose was delivered");
    cr_assert_eq(counter_get(&calls), 3, "the map ran after dispose");
    sk_disposable_release(d);
    staged_release(&p);
    cr_assert_eq(sk_live_objects(), start, "%ld objects alive, %ld before", sk_live_objects(), start);
    lone_destroy(&sink);
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

Test(operators_mapping, outer_filter_with_a_value_callback_only, .timeout = SK_TEST_TIMEOUT) {
    long start = sk_live_objects();
    counter calls;
    counter_init(&calls);
    staged_pipe p = staged_filter(is_even, &calls, NULL);
    lone_sink sink;
    lone_init(&sink);
    sk_disposable *d = lone_start(&sink, p.staged);
    for (int64_t i = 1; i <= 6; i++) {
        pipe_put_int(p.pipe, i);
    }
    cr_assert(sink.sum == 12 && sink.nexts == 3, "sum %lld, %d nexts", (long long)sink.sum, sink.nexts);
    cr_assert_eq(counter_get(&calls), 6, "the predicate runs once per value");
    sk_disposable_dispose(d);
    pipe_put_int(p.pipe, 8);
    cr_assert(sink.sum == 12 && sink.nexts == 3, "a value after dispose was delivered");
    cr_assert_eq(counter_get(&calls), 6, "the predicate ran after dispose");
    sk_disposable_release(d);
    staged_release(&p);
    cr_assert_eq(sk_live_objects(), start, "%ld objects alive, %ld before", sk_live_objects(), start);
    lone_destroy(&sink);
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

/* Heap values the map writes reach the observer borrowed, and are let go. */
Test(operators_mapping, outer_map_writing_heap_values_with_a_value_callback_only, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 7, -3, 5 };
    sk_signal *source = ints_signal(input, 3);
    sk_signal *strings = NULL;
    SK_OK_OR_FAIL(sk_signal_map(&strings, source, to_string, NULL, NULL));
    lone_sink sink;
    lone_init(&sink);
    sk_disposable *d = lone_start(&sink, strings);
    cr_assert(sink.strings == 3 && sink.nexts == 3 && sink.sum == 9, "%d strings, %d nexts, sum %lld", sink.strings,
              sink.nexts, (long long)sink.sum);
    sk_disposable_release(d);
    sk_signal_release(strings);
    sk_signal_release(source);
    lone_destroy(&sink);
    expect_no_live_objects(0);
}

/* An error or a completion passes through the stage and ends the
 * subscription: the source's disposable is disposed, later values reach
 * neither the stage nor the observer. */
static void outer_stage_ends_on(bool error, bool filter) {
    manual_source s;
    sk_signal *source = manual_init_signal(&s);
    counter calls;
    counter_init(&calls);
    sk_signal *staged = NULL;
    if (filter) {
        SK_OK_OR_FAIL(sk_signal_filter(&staged, source, is_even, &calls, NULL));
    } else {
        SK_OK_OR_FAIL(sk_signal_map(&staged, source, times_ten, &calls, NULL));
    }
    lone_sink sink;
    lone_init(&sink);
    sk_disposable *d = lone_start(&sink, staged);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    if (error) {
        sk_value boom = string_value("boom");
        SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 0), &boom));
        sk_value_release(&boom);
    } else {
        SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    }
    cr_assert_eq(counter_get(&s.disposed), 1, "the terminal event did not end the subscription");
    subscriber_put_int(manual_subscriber(&s, 0), 4);
    cr_assert_eq(counter_get(&calls), 1, "the stage ran after the terminal event");
    cr_assert(sink.nexts == 1 && sink.sum == (filter ? 2 : 20), "%d nexts, sum %lld", sink.nexts, (long long)sink.sum);
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&s.disposed), 1);
    sk_disposable_release(d);
    sk_signal_release(staged);
    sk_signal_release(source);
    manual_destroy(&s);
    lone_destroy(&sink);
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

Test(operators_mapping, outer_stage_with_a_value_callback_only_ends_on_error, .timeout = SK_TEST_TIMEOUT) {
    outer_stage_ends_on(true, false);
    outer_stage_ends_on(true, true);
}

Test(operators_mapping, outer_stage_with_a_value_callback_only_ends_on_completion, .timeout = SK_TEST_TIMEOUT) {
    outer_stage_ends_on(false, false);
    outer_stage_ends_on(false, true);
}

/* The stage's release runs when the signal and every subscription are gone,
 * whatever the order, and not before: a subscription that ended is gone even
 * while C still holds its disposable. */
static void times_ten_ignoring_ctx(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    times_ten(NULL, value, out);
}

static bool is_even_ignoring_ctx(void *ctx, const sk_value *value) {
    (void)ctx;
    return is_even(NULL, value);
}

static void outer_stage_release_order(bool filter, bool signal_first) {
    counter released;
    counter_init(&released);
    staged_pipe p = filter ? staged_filter(is_even_ignoring_ctx, &released, counter_hit)
                           : staged_map(times_ten_ignoring_ctx, &released, counter_hit);
    lone_sink sink;
    lone_init(&sink);
    sk_disposable *d1 = lone_start(&sink, p.staged);
    sk_disposable *d2 = lone_start(&sink, p.staged);
    pipe_put_int(p.pipe, 2);
    cr_assert_eq(sink.nexts, 2);
    if (signal_first) {
        sk_signal_release(p.staged);
        cr_assert_eq(counter_get(&released), 0, "released while two subscriptions run");
    }
    sk_disposable_dispose(d1);
    pipe_put_int(p.pipe, 4);
    cr_assert_eq(sink.nexts, 3, "the other subscription stopped");
    cr_assert_eq(counter_get(&released), 0, "released while a subscription runs");
    sk_disposable_dispose(d2);
    if (signal_first) {
        /* Both ended, their disposables still held. */
        cr_assert_eq(counter_get(&released), 1, "not released when the signal and every subscription are gone");
    } else {
        cr_assert_eq(counter_get(&released), 0, "released while the signal is alive");
        sk_signal_release(p.staged);
        cr_assert_eq(counter_get(&released), 1, "not released when the signal and every subscription are gone");
    }
    sk_disposable_release(d1);
    sk_disposable_release(d2);
    cr_assert_eq(counter_get(&released), 1, "released twice");
    sk_signal_release(p.source);
    sk_pipe_release(p.pipe);
    lone_destroy(&sink);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(operators_mapping, outer_stage_with_a_value_callback_only_releases_its_function, .timeout = SK_TEST_TIMEOUT) {
    outer_stage_release_order(false, true);
    outer_stage_release_order(false, false);
    outer_stage_release_order(true, true);
    outer_stage_release_order(true, false);
}

/* Without a release function: the live objects drop as they do for the
 * general path, and to the start value in the end, whichever goes first. */
Test(operators_mapping, outer_stage_with_a_value_callback_only_live_objects, .timeout = SK_TEST_TIMEOUT) {
    long start = sk_live_objects();
    for (int order = 0; order < 2; order++) {
        staged_pipe p = staged_map(times_ten, NULL, NULL);
        lone_sink sink;
        lone_init(&sink);
        sk_disposable *d = lone_start(&sink, p.staged);
        pipe_put_int(p.pipe, 1);
        if (order == 0) {
            sk_disposable_release(d); /* the subscription runs on */
            pipe_put_int(p.pipe, 2);
            cr_assert_eq(sink.sum, 30);
            staged_release(&p);
        } else {
            staged_release(&p); /* the pipe let go of the subscription */
            sk_disposable_dispose(d);
            sk_disposable_release(d);
        }
        cr_assert_eq(sk_live_objects(), start, "order %d: %ld objects alive, %ld before", order, sk_live_objects(), start);
        lone_destroy(&sink);
    }
    expect_no_live_objects(0);
}

/* The pipeline built where it is started and its intermediate handles
 * released at once, as a C user usually writes it (Benchmarks/README.md,
 * W2b and W6b): the subscription keeps nothing of them. Once they are
 * released, sk_live_objects() counts the pipe and the subscription's handle
 * alone (the released map or filter stage, its function included, is gone),
 * and the subscription runs on. */
Test(operators_mapping, outer_stage_keeps_nothing_of_its_released_handles, .timeout = SK_TEST_TIMEOUT) {
    for (int filter = 0; filter < 2; filter++) {
        long start = sk_live_objects();
        staged_pipe p = filter ? staged_filter(is_even, NULL, NULL) : staged_map(times_ten, NULL, NULL);
        lone_sink sink;
        lone_init(&sink);
        sk_disposable *d = lone_start(&sink, p.staged);
        sk_signal_release(p.staged);
        sk_signal_release(p.source);
        /* The pipe and the subscription's handle. (The stage's function, a
         * callback registration, stayed with the subscription: one more.) */
        cr_assert_eq(sk_live_objects(), start + 2, "%s: %ld objects alive, %ld with the pipe and the subscription",
                     filter ? "filter" : "map", sk_live_objects(), start + 2);
        pipe_put_int(p.pipe, 1);
        pipe_put_int(p.pipe, 2);
        cr_assert_eq(sink.sum, filter ? 2 : 30);
        cr_assert_eq(sink.nexts, filter ? 1 : 2);
        sk_disposable_dispose(d);
        sk_disposable_release(d);
        pipe_put_int(p.pipe, 4);
        cr_assert_eq(sink.nexts, filter ? 1 : 2);
        sk_pipe_release(p.pipe);
        lone_destroy(&sink);
    }
    expect_no_live_objects(0);
}

static void lone_dispose_self(void *ctx, const sk_value *value) {
    lone_sink *sink = ctx;
    lone_next(ctx, value);
    sk_disposable *self = sink->self;
    sink->self = NULL;
    if (self != NULL) {
        sk_disposable_dispose(self);
        sk_disposable_release(self); /* the last reference C holds */
    }
}

/* Disposed and released from inside its own value callback: nothing more. */
Test(operators_mapping, outer_stage_disposed_inside_the_value_callback, .timeout = SK_TEST_TIMEOUT) {
    for (int filter = 0; filter < 2; filter++) {
        staged_pipe p = filter ? staged_filter(is_even, NULL, NULL) : staged_map(times_ten, NULL, NULL);
        lone_sink sink;
        lone_init(&sink);
        sk_observer observer = { lone_dispose_self, NULL, NULL, &sink, NULL };
        SK_OK_OR_FAIL(sk_signal_start(&sink.self, p.staged, &observer));
        pipe_put_int(p.pipe, 2);
        pipe_put_int(p.pipe, 4);
        cr_assert(sink.nexts == 1 && sink.self == NULL, "%d nexts", sink.nexts);
        cr_assert_eq(sink.sum, filter ? 2 : 20);
        staged_release(&p);
        lone_destroy(&sink);
        expect_no_live_objects(0);
    }
}

/* The stage's own function disposes the subscription: the value it was
 * called with is not delivered (the stage checks the subscription after its
 * function returns, as a chain of subscribers would not pass it on). */
static void times_ten_disposing(void *ctx, const sk_value *value, sk_value *out) {
    lone_sink *sink = ctx;
    sk_value_set_int64(out, value_int(value) * 10);
    if (value_int(value) == 3) {
        sk_disposable_dispose(sink->self);
    }
}

static bool is_even_disposing(void *ctx, const sk_value *value) {
    lone_sink *sink = ctx;
    if (value_int(value) == 4) {
        sk_disposable_dispose(sink->self);
    }
    return value_int(value) % 2 == 0;
}

Test(operators_mapping, outer_stage_disposed_by_its_own_function, .timeout = SK_TEST_TIMEOUT) {
    for (int filter = 0; filter < 2; filter++) {
        lone_sink sink;
        lone_init(&sink);
        staged_pipe p = filter ? staged_filter(is_even_disposing, &sink, NULL) : staged_map(times_ten_disposing, &sink, NULL);
        sink.self = lone_start(&sink, p.staged);
        for (int64_t i = 1; i <= 5; i++) {
            pipe_put_int(p.pipe, i);
        }
        /* map: 10, 20 (30 disposed in the map); filter: 2 (4 disposed in the predicate). */
        cr_assert(sink.nexts == (filter ? 1 : 2) && sink.sum == (filter ? 2 : 30), "filter %d: %d nexts, sum %lld",
                  filter, sink.nexts, (long long)sink.sum);
        sk_disposable_release(sink.self);
        staged_release(&p);
        lone_destroy(&sink);
        expect_no_live_objects(0);
    }
}

/* A filter over a map (the library may run both in the subscription's
 * handle): values mapped then filtered; a map that disposes the
 * subscription keeps that value from the filter (the stages check the
 * subscription between them); a predicate that disposes it keeps the value
 * from the observer; the releases run when the signals and the
 * subscriptions are gone. */
typedef struct map_then_filter {
    lone_sink sink;
    int64_t dispose_in_map;    /* the input value at which the map disposes */
    int64_t dispose_in_filter; /* the mapped value at which the filter disposes */
    int filter_calls;
} map_then_filter;

static void times_ten_for_chain(void *ctx, const sk_value *value, sk_value *out) {
    map_then_filter *chain = ctx;
    sk_value_set_int64(out, value_int(value) * 10);
    if (value_int(value) == chain->dispose_in_map) {
        sk_disposable_dispose(chain->sink.self);
    }
}

static bool over_twenty_for_chain(void *ctx, const sk_value *value) {
    map_then_filter *chain = ctx;
    chain->filter_calls++;
    if (value_int(value) == chain->dispose_in_filter) {
        sk_disposable_dispose(chain->sink.self);
    }
    return value_int(value) > 20;
}

static void filter_over_map_case(int64_t dispose_in_map, int64_t dispose_in_filter, int expected_nexts,
                                 int64_t expected_sum, int expected_filter_calls) {
    map_then_filter chain;
    memset(&chain, 0, sizeof chain);
    lone_init(&chain.sink);
    chain.dispose_in_map = dispose_in_map;
    chain.dispose_in_filter = dispose_in_filter;
    counter released;
    counter_init(&released);
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *mapped = NULL, *filtered = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_map(&mapped, source, times_ten_for_chain, &chain, NULL));
    SK_OK_OR_FAIL(sk_signal_filter(&filtered, mapped, over_twenty_for_chain, &chain, NULL));
    chain.sink.self = lone_start(&chain.sink, filtered);
    for (int64_t i = 1; i <= 6; i++) {
        pipe_put_int(pipe, i);
    }
    cr_assert(chain.sink.nexts == expected_nexts && chain.sink.sum == expected_sum &&
                  chain.filter_calls == expected_filter_calls,
              "dispose in map at %lld, in filter at %lld: %d nexts, sum %lld, %d filter calls", (long long)dispose_in_map,
              (long long)dispose_in_filter, chain.sink.nexts, (long long)chain.sink.sum, chain.filter_calls);
    sk_disposable_dispose(chain.sink.self);
    sk_disposable_release(chain.sink.self);
    sk_signal_release(filtered);
    sk_signal_release(mapped);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    lone_destroy(&chain.sink);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(operators_mapping, filter_over_map_with_a_value_callback_only, .timeout = SK_TEST_TIMEOUT) {
    /* 30 + 40 + 50 + 60 */
    filter_over_map_case(0, 0, 4, 180, 6);
    /* Disposed in the map at 4: 30 delivered; the filter never sees 40. */
    filter_over_map_case(4, 0, 1, 30, 3);
    /* Disposed in the filter at 40: 30 delivered, 40 not. */
    filter_over_map_case(0, 40, 1, 30, 4);
}

/* The releases of a filter over a map, each with or without a release
 * function: each runs once its signal and every subscription are gone,
 * even while an ended subscription's disposable is held. */
Test(operators_mapping, filter_over_map_with_a_value_callback_only_releases, .timeout = SK_TEST_TIMEOUT) {
    for (int which = 0; which < 3; which++) {
        counter map_released, filter_released;
        counters_init(2, &map_released, &filter_released);
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *mapped = NULL, *filtered = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        SK_OK_OR_FAIL(sk_signal_map(&mapped, source, times_ten_ignoring_ctx, &map_released,
                                    which != 1 ? counter_hit : NULL));
        SK_OK_OR_FAIL(sk_signal_filter(&filtered, mapped, is_even_ignoring_ctx, &filter_released,
                                       which != 2 ? counter_hit : NULL));
        lone_sink sink;
        lone_init(&sink);
        sk_disposable *d = lone_start(&sink, filtered);
        pipe_put_int(pipe, 3);
        cr_assert(sink.nexts == 1 && sink.sum == 30);
        sk_signal_release(filtered);
        sk_signal_release(mapped);
        cr_assert(counter_get(&map_released) == 0 && counter_get(&filter_released) == 0, "released while subscribed");
        sk_disposable_dispose(d);
        cr_assert_eq(counter_get(&map_released), which != 1 ? 1 : 0, "case %d: the map's release", which);
        cr_assert_eq(counter_get(&filter_released), which != 2 ? 1 : 0, "case %d: the filter's release", which);
        sk_disposable_release(d);
        sk_signal_release(source);
        sk_pipe_release(pipe);
        lone_destroy(&sink);
        counters_destroy(2, &map_released, &filter_released);
        expect_no_live_objects(0);
    }
}

/* Two threads subscribe to the same stage over one pipe, put, and dispose,
 * many times at once. Each thread's put reaches its own live subscription
 * exactly once (a pipe delivers on the putting thread), mapped; values of
 * the other thread may arrive too. Everything is let go in the end. */
#define OUTER_THREAD_CYCLES 2000

typedef struct outer_job {
    sk_pipe *pipe;
    sk_signal *staged;
    int64_t tag; /* 0 or 1: the low bit of every value this thread puts */
    lone_sink own; /* values tagged with `tag` */
    lone_sink foreign; /* the others */
} outer_job;

static void outer_job_next(void *ctx, const sk_value *value) {
    outer_job *job = ctx;
    int64_t put = value_int(value) / 10;
    lone_next((put & 1) == job->tag ? &job->own : &job->foreign, value);
}

static void *outer_job_run(void *arg) {
    outer_job *job = arg;
    sk_observer observer = { outer_job_next, NULL, NULL, job, NULL };
    for (int64_t i = 0; i < OUTER_THREAD_CYCLES; i++) {
        sk_disposable *d = NULL;
        SK_OK_OR_ABORT(sk_signal_start(&d, job->staged, &observer));
        sk_value v = int_value(i * 2 + job->tag);
        SK_OK_OR_ABORT(sk_pipe_put(job->pipe, &v));
        sk_disposable_dispose(d);
        sk_disposable_release(d);
    }
    return NULL;
}

static bool is_any(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return true;
}

Test(operators_mapping, outer_stage_started_from_two_threads, .timeout = SK_TEST_TIMEOUT) {
    staged_pipe p = staged_map(times_ten, NULL, NULL);
    for (int round = 0; round < 2; round++) {
        sk_signal *staged = p.staged;
        sk_signal *filtered = NULL;
        if (round == 1) {
            /* The same over a filter that lets every value pass. */
            SK_OK_OR_FAIL(sk_signal_filter(&filtered, p.staged, is_any, NULL, NULL));
            staged = filtered;
        }
        outer_job jobs[2];
        pthread_t threads[2];
        for (int t = 0; t < 2; t++) {
            jobs[t].pipe = p.pipe;
            jobs[t].staged = staged;
            jobs[t].tag = t;
            lone_init(&jobs[t].own);
            lone_init(&jobs[t].foreign);
        }
        for (int t = 0; t < 2; t++) {
            cr_assert_eq(pthread_create(&threads[t], NULL, outer_job_run, &jobs[t]), 0);
        }
        for (int t = 0; t < 2; t++) {
            cr_assert_eq(pthread_join(threads[t], NULL), 0);
        }
        for (int t = 0; t < 2; t++) {
            /* Own puts: sum over i of (2i + t) * 10. */
            int64_t expected = 10 * ((int64_t)OUTER_THREAD_CYCLES * (OUTER_THREAD_CYCLES - 1) + t * OUTER_THREAD_CYCLES);
            cr_assert(jobs[t].own.nexts == OUTER_THREAD_CYCLES && jobs[t].own.sum == expected,
                      "round %d, thread %d: %d own values, sum %lld (expected %lld)", round, t, jobs[t].own.nexts,
                      (long long)jobs[t].own.sum, (long long)expected);
            lone_destroy(&jobs[t].own);
            lone_destroy(&jobs[t].foreign);
        }
        sk_signal_release(filtered);
    }
    staged_release(&p);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Distinct until changed                                                   */
/* ------------------------------------------------------------------------ */

Test(operators_mapping, distinct_until_changed, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 1, 2, 2, 2, 1, 3, 3, 1 };
    sk_signal *source = ints_signal(input, 9);
    sk_signal *distinct = NULL;
    SK_OK_OR_FAIL(sk_signal_distinct_until_changed(&distinct, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, distinct);
    const int64_t expected[] = { 1, 2, 1, 3, 1 };
    recorder_expect(&r, "nnnnncr", expected, 5);
    recorder_finish(&r, d);

    /* With strings: compared by content, a new object each time. */
    sk_signal *strings = NULL, *distinct_strings = NULL;
    const int64_t same[] = { 5, 5, 6 };
    sk_signal *fives = ints_signal(same, 3);
    SK_OK_OR_FAIL(sk_signal_map(&strings, fives, to_string, NULL, NULL));
    SK_OK_OR_FAIL(sk_signal_distinct_until_changed(&distinct_strings, strings));
    d = recorder_start(&r, distinct_strings);
    recorder_expect(&r, "nncr", NULL, 0);
    recorder_finish(&r, d);

    sk_signal_release(distinct_strings);
    sk_signal_release(strings);
    sk_signal_release(fives);
    sk_signal_release(distinct);
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Argument errors and callback releases                                    */
/* ------------------------------------------------------------------------ */

/* A callback context that counts calls and its release separately. */
typedef struct counted {
    counter calls;
    counter released;
} counted;

static void counted_init(counted *c) {
    counters_init(2, &c->calls, &c->released);
}

static void counted_destroy(counted *c) {
    counters_destroy(2, &c->calls, &c->released);
}

static void counted_release(void *ctx) {
    counter_hit(&((counted *)ctx)->released);
}

static void counted_times_ten(void *ctx, const sk_value *value, sk_value *out) {
    counter_hit(&((counted *)ctx)->calls);
    sk_value_set_int64(out, value_int(value) * 10);
}

static bool counted_is_even(void *ctx, const sk_value *value) {
    counter_hit(&((counted *)ctx)->calls);
    return value_int(value) % 2 == 0;
}

static sk_signal *counted_single(void *ctx, const sk_value *value) {
    counter_hit(&((counted *)ctx)->calls);
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_signal_single(&signal, value));
    return signal;
}

/* Builds operator `which` (0 map, 1 filter, 2 map_to_signal) over `source`. */
static sk_signal *counted_operator(int which, sk_signal *source, counted *c) {
    sk_signal *out = NULL;
    switch (which) {
    case 0: SK_OK_OR_FAIL(sk_signal_map(&out, source, counted_times_ten, c, counted_release)); break;
    case 1: SK_OK_OR_FAIL(sk_signal_filter(&out, source, counted_is_even, c, counted_release)); break;
    default: SK_OK_OR_FAIL(sk_signal_map_to_signal(&out, source, counted_single, c, counted_release)); break;
    }
    return out;
}

/* The callback operators, for expect_callback_argument_errors. */
static int call_map(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_map(out, signal, with_callback ? times_ten : NULL, ctx, release);
}

static int call_filter(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_filter(out, signal, with_callback ? is_even : NULL, ctx, release);
}

static int call_map_to_signal(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx,
                              sk_release_fn release) {
    return sk_signal_map_to_signal(out, signal, with_callback ? counted_single : NULL, ctx, release);
}

Test(operators_mapping, callback_operators_errors_run_release_once, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    expect_callback_argument_errors("map", call_map, &args);
    expect_callback_argument_errors("filter", call_filter, &args);
    expect_callback_argument_errors("map_to_signal", call_map_to_signal, &args);
    cr_assert_eq(counter_get(&args.released), 12);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}

Test(operators_mapping, plain_operators_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *not_signal = args.not_signal, *out = NULL;
    sk_queue *host = host_queue(NULL);

    expect_unary_argument_errors("distinct_until_changed", sk_signal_distinct_until_changed, never, not_signal);

    EXPECT_FAILURE_NULL_OUT(sk_signal_take(NULL, never, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_take(&out, NULL, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_take(&out, not_signal, 1), SK_ERR_WRONG_KIND, NULL);

    expect_unary_argument_errors("switch_to_latest", sk_signal_switch_to_latest, never, not_signal);

    expect_queue_operator_argument_errors("deliver_on", sk_signal_deliver_on, &args, host);
    expect_timed_operator_argument_errors("debounce", sk_signal_debounce, &args, host);

    bad_args_destroy(&args);
    expect_no_live_objects(1, host);
}

Test(operators_mapping, callback_release_when_signal_unused, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
    for (int which = 0; which < 3; which++) {
        counted c;
        counted_init(&c);
        sk_signal *op = counted_operator(which, never, &c);
        cr_assert_eq(counter_get(&c.released), 0, "operator %d: released while its signal lives", which);
        sk_signal *again = sk_signal_retain(op);
        sk_signal_release(op);
        cr_assert_eq(counter_get(&c.released), 0);
        sk_signal_release(again);
        cr_assert_eq(counter_get(&c.released), 1, "operator %d: release ran %d times", which, counter_get(&c.released));
        cr_assert_eq(counter_get(&c.calls), 0);
        counted_destroy(&c);
    }
    sk_signal_release(never);
    expect_no_live_objects(0);
}

Test(operators_mapping, callback_release_waits_for_subscriptions, .timeout = SK_TEST_TIMEOUT) {
    for (int which = 0; which < 3; which++) {
        for (int ending = 0; ending < 2; ending++) { /* 0: dispose, 1: completion */
            manual_source s;
            sk_signal *source = manual_init_signal(&s);
            counted c;
            counted_init(&c);
            sk_signal *op = counted_operator(which, source, &c);
            recorder r;
            sk_disposable *d = recorder_start(&r, op);
            sk_signal_release(op);
            sk_signal_release(source);
            cr_assert_eq(counter_get(&c.released), 0, "operator %d: released while subscribed", which);
            subscriber_put_int(manual_subscriber(&s, 0), 2);
            cr_assert_eq(counter_get(&c.calls), 1, "operator %d: callback calls", which);
            cr_assert_eq(recorder_nexts(&r), 1);
            cr_assert_eq(counter_get(&c.released), 0);
            if (ending == 0) {
                sk_disposable_dispose(d);
            } else {
                SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
            }
            /* The manual source still retains the upstream subscriber: the
             * ended subscription must have let go of the callback anyway. */
            cr_assert_eq(counter_get(&c.released), 1, "operator %d, ending %d: release ran %d times", which, ending,
                         counter_get(&c.released));
            recorder_finish(&r, d);
            counted_destroy(&c);
            manual_destroy(&s);
        }
    }
    expect_no_live_objects(0);
}

Test(operators_mapping, callback_release_waits_for_derived_signals, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
    counted c;
    counted_init(&c);
    sk_signal *mapped = counted_operator(0, never, &c);
    sk_signal *taken = NULL, *distinct = NULL;
    SK_OK_OR_FAIL(sk_signal_take(&taken, mapped, 2));
    SK_OK_OR_FAIL(sk_signal_distinct_until_changed(&distinct, taken));
    sk_signal_release(mapped);
    sk_signal_release(taken);
    cr_assert_eq(counter_get(&c.released), 0, "released while a derived signal holds it");
    sk_signal_release(distinct);
    cr_assert_eq(counter_get(&c.released), 1);
    counted_destroy(&c);
    sk_signal_release(never);
    expect_no_live_objects(0);
}

/* A chain of maps and filters whose functions dispose the subscription at a
 * given input (a primitive result, a string result, a filter): the value of
 * that input reaches no later stage, nothing is delivered afterwards, and
 * the string the map wrote is released all the same. */
typedef struct disposing_stage {
    sk_disposable *subscription; /* set once sk_signal_start returned */
    int64_t dispose_at;
    int calls;
} disposing_stage;

static void add_one_disposing(void *ctx, const sk_value *value, sk_value *out) {
    disposing_stage *s = ctx;
    s->calls++;
    if (value_int(value) == s->dispose_at) {
        sk_disposable_dispose(s->subscription);
    }
    sk_value_set_int64(out, value_int(value) + 1);
}

static void text_disposing(void *ctx, const sk_value *value, sk_value *out) {
    disposing_stage *s = ctx;
    s->calls++;
    if (value_int(value) == s->dispose_at) {
        sk_disposable_dispose(s->subscription);
    }
    char text[32];
    snprintf(text, sizeof text, "v%lld", (long long)value_int(value));
    SK_OK_OR_FAIL(sk_value_set_string(out, text));
}

static bool pass_disposing(void *ctx, const sk_value *value) {
    disposing_stage *s = ctx;
    s->calls++;
    if (value_int(value) == s->dispose_at) {
        sk_disposable_dispose(s->subscription);
    }
    return true;
}

static void back_to_int(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    int64_t n = 0;
    if (sk_value_kind(value) == SK_KIND_STRING) {
        const char *text = NULL;
        SK_OK_OR_FAIL(sk_value_get_string(value, &text, NULL));
        n = strtoll(text + 1, NULL, 10);
    } else {
        n = value_int(value);
    }
    sk_value_set_int64(out, n);
}

Test(operators_mapping, a_stage_that_disposes_ends_the_chain, .timeout = SK_TEST_TIMEOUT) {
    for (int kind = 0; kind < 3; kind++) { /* 0: map to int, 1: map to string, 2: filter */
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *stage = NULL, *last = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        disposing_stage s = { NULL, 2, 0 };
        if (kind == 0) {
            SK_OK_OR_FAIL(sk_signal_map(&stage, source, add_one_disposing, &s, NULL));
        } else if (kind == 1) {
            SK_OK_OR_FAIL(sk_signal_map(&stage, source, text_disposing, &s, NULL));
        } else {
            SK_OK_OR_FAIL(sk_signal_filter(&stage, source, pass_disposing, &s, NULL));
        }
        SK_OK_OR_FAIL(sk_signal_map(&last, stage, back_to_int, NULL, NULL));
        recorder r;
        s.subscription = recorder_start(&r, last);
        pipe_put_int(pipe, 1);
        pipe_put_int(pipe, 2); /* disposes in the first stage */
        pipe_put_int(pipe, 3);
        cr_assert_eq(s.calls, 2, "stage %d ran %d times, expected 2", kind, s.calls);
        int64_t expected = kind == 0 ? 2 : 1;
        recorder_expect(&r, "nr", &expected, 1);
        recorder_finish(&r, s.subscription);
        sk_signal_release(last);
        sk_signal_release(stage);
        sk_signal_release(source);
        sk_pipe_release(pipe);
        expect_no_live_objects(0);
    }
}

/* ------------------------------------------------------------------------ */
/* Runs of stages against a plain computation                               */
/* ------------------------------------------------------------------------ */

/* A map or filter over a map or filter extends its input's run of stages:
 * one subscription of the run's upstream calls every function of the run in
 * a loop, in the subscription's handle (an observer with a value callback
 * only, no stage with a release function) or in the run's own callback
 * (any other case). Random runs of int and string stages over a pipe, some
 * with release functions, the signals of several of their prefixes started
 * with either kind of observer, random values put: every subscription sees
 * exactly what the stages computed by hand give, every release runs once,
 * after the last signal and subscription holding it, and nothing is left. */

enum run_op { RUN_ADD, RUN_MUL, RUN_MOD_FILTER, RUN_TO_STRING, RUN_FROM_STRING, RUN_ODD_LENGTH_FILTER };

typedef struct run_stage {
    enum run_op op;
    int64_t k, m, r;
    int releases;
} run_stage;

/* "s<n>" for the string stages. */
static int64_t run_parse(const sk_value *value) {
    const char *text;
    size_t length;
    SK_OK_OR_ABORT(sk_value_get_string(value, &text, &length));
    cr_assert(length >= 2 && text[0] == 's', "not a run string: %.*s", (int)length, text);
    return strtoll(text + 1, NULL, 10);
}

static void run_map(void *ctx, const sk_value *value, sk_value *out) {
    const run_stage *stage = ctx;
    char text[32];
    switch (stage->op) {
    case RUN_ADD:
        sk_value_set_int64(out, value_int(value) + stage->k);
        break;
    case RUN_MUL:
        sk_value_set_int64(out, value_int(value) * stage->k);
        break;
    case RUN_TO_STRING:
        snprintf(text, sizeof text, "s%lld", (long long)value_int(value));
        SK_OK_OR_ABORT(sk_value_set_string(out, text));
        break;
    case RUN_FROM_STRING:
        sk_value_set_int64(out, run_parse(value));
        break;
    default:
        cr_assert_fail("not a map: %d", (int)stage->op);
    }
}

static bool run_filter(void *ctx, const sk_value *value) {
    const run_stage *stage = ctx;
    if (stage->op == RUN_MOD_FILTER) {
        return ((value_int(value) % stage->m) + stage->m) % stage->m == stage->r;
    }
    char text[32];
    int length = snprintf(text, sizeof text, "s%lld", (long long)run_parse(value));
    return length % 2 == 1;
}

static void run_stage_release(void *ctx) {
    ((run_stage *)ctx)->releases += 1;
}

/* What a sink saw: ints as they are, strings as 1e9 + their number. */
#define RUN_MAX_VALUES 64
typedef struct run_sink {
    int64_t seen[RUN_MAX_VALUES];
    size_t count;
} run_sink;

static void run_sink_next(void *ctx, const sk_value *value) {
    run_sink *sink = ctx;
    cr_assert_lt(sink->count, RUN_MAX_VALUES);
    sink->seen[sink->count++] = sk_value_kind(value) == SK_KIND_STRING ? 1000000000 + run_parse(value) : value_int(value);
}

static void run_sink_completed(void *ctx) {
    (void)ctx;
    cr_assert_fail("a pipe does not complete");
}

/* The model: `value` through the first `count` stages; false when dropped. */
static bool run_model(const run_stage *stages, size_t count, int64_t value, int64_t *out) {
    bool string = false;
    for (size_t i = 0; i < count; i++) {
        switch (stages[i].op) {
        case RUN_ADD: value += stages[i].k; break;
        case RUN_MUL: value *= stages[i].k; break;
        case RUN_TO_STRING: string = true; break;
        case RUN_FROM_STRING: string = false; break;
        case RUN_MOD_FILTER:
            if (((value % stages[i].m) + stages[i].m) % stages[i].m != stages[i].r) {
                return false;
            }
            break;
        case RUN_ODD_LENGTH_FILTER: {
            char text[32];
            if (snprintf(text, sizeof text, "s%lld", (long long)value) % 2 == 0) {
                return false;
            }
            break;
        }
        }
    }
    *out = string ? 1000000000 + value : value;
    return true;
}

static uint64_t run_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define RUN_MAX_STAGES 8

Test(operators_mapping, runs_of_stages_match_a_plain_computation, .timeout = SK_TEST_TIMEOUT) {
    uint64_t state = 0x5EED5EED;
    for (int round = 0; round < 400; round++) {
        run_stage stages[RUN_MAX_STAGES];
        size_t count = 1 + run_random(&state) % RUN_MAX_STAGES;
        bool string = false;
        bool with_release[RUN_MAX_STAGES];
        for (size_t i = 0; i < count; i++) {
            run_stage stage = { RUN_ADD, 0, 1, 0, 0 };
            int choice = (int)(run_random(&state) % 4);
            if (string) {
                stage.op = choice < 2 ? RUN_FROM_STRING : RUN_ODD_LENGTH_FILTER;
            } else if (choice == 0) {
                stage.op = RUN_ADD;
                stage.k = (int64_t)(run_random(&state) % 7) - 3;
            } else if (choice == 1) {
                stage.op = RUN_MUL;
                stage.k = 1 + (int64_t)(run_random(&state) % 3);
            } else if (choice == 2) {
                stage.op = RUN_MOD_FILTER;
                stage.m = 2 + (int64_t)(run_random(&state) % 3);
                stage.r = (int64_t)(run_random(&state) % (uint64_t)stage.m);
            } else {
                stage.op = RUN_TO_STRING;
            }
            if (stage.op == RUN_TO_STRING) {
                string = true;
            } else if (stage.op == RUN_FROM_STRING) {
                string = false;
            }
            stages[i] = stage;
            with_release[i] = run_random(&state) % 4 == 0;
        }

        sk_pipe *pipe;
        SK_OK_OR_ABORT(sk_pipe_create(&pipe, false));
        sk_signal *signals[RUN_MAX_STAGES + 1];
        SK_OK_OR_ABORT(sk_pipe_signal(&signals[0], pipe));
        for (size_t i = 0; i < count; i++) {
            bool is_filter = stages[i].op == RUN_MOD_FILTER || stages[i].op == RUN_ODD_LENGTH_FILTER;
            sk_release_fn release = with_release[i] ? run_stage_release : NULL;
            if (is_filter) {
                SK_OK_OR_ABORT(sk_signal_filter(&signals[i + 1], signals[i], run_filter, &stages[i], release));
            } else {
                SK_OK_OR_ABORT(sk_signal_map(&signals[i + 1], signals[i], run_map, &stages[i], release));
            }
        }

        /* The last signal always, each other prefix maybe; either observer. */
        run_sink sinks[RUN_MAX_STAGES + 1];
        sk_disposable *subscriptions[RUN_MAX_STAGES + 1] = { NULL };
        memset(sinks, 0, sizeof sinks);
        for (size_t j = 1; j <= count; j++) {
            if (j != count && run_random(&state) % 2 == 0) {
                continue;
            }
            sk_observer observer = { run_sink_next, NULL, NULL, &sinks[j], NULL };
            if (run_random(&state) % 2 == 0) {
                observer.completed = run_sink_completed;
            }
            SK_OK_OR_ABORT(sk_signal_start(&subscriptions[j], signals[j], &observer));
        }

        int64_t values[16];
        size_t value_count = 1 + run_random(&state) % 16;
        for (size_t v = 0; v < value_count; v++) {
            values[v] = (int64_t)(run_random(&state) % 101) - 50;
            sk_value value;
            sk_value_set_int64(&value, values[v]);
            SK_OK_OR_ABORT(sk_pipe_put(pipe, &value));
        }

        for (size_t j = 1; j <= count; j++) {
            if (subscriptions[j] == NULL) {
                continue;
            }
            size_t expected_count = 0;
            for (size_t v = 0; v < value_count; v++) {
                int64_t expected;
                if (run_model(stages, j, values[v], &expected)) {
                    cr_assert_lt(expected_count, sinks[j].count, "round %d, prefix %zu: value %zu missing", round, j, v);
                    cr_assert_eq(sinks[j].seen[expected_count], expected, "round %d, prefix %zu, value %zu: got %lld, expected %lld",
                                 round, j, v, (long long)sinks[j].seen[expected_count], (long long)expected);
                    expected_count++;
                }
            }
            cr_assert_eq(sinks[j].count, expected_count, "round %d, prefix %zu: %zu values, expected %zu", round, j, sinks[j].count, expected_count);
        }

        /* Released in a random order, subscriptions and signals mixed: each
         * release function runs once, after the last holder is gone. */
        void *handles[2 * (RUN_MAX_STAGES + 1)];
        bool is_subscription[2 * (RUN_MAX_STAGES + 1)];
        size_t prefix[2 * (RUN_MAX_STAGES + 1)];
        size_t handle_count = 0;
        for (size_t j = 0; j <= count; j++) {
            handles[handle_count] = signals[j];
            prefix[handle_count] = j;
            is_subscription[handle_count++] = false;
            if (subscriptions[j] != NULL) {
                handles[handle_count] = subscriptions[j];
                prefix[handle_count] = j;
                is_subscription[handle_count++] = true;
            }
        }
        for (size_t i = handle_count; i > 1; i--) {
            size_t swap = run_random(&state) % i;
            void *handle = handles[i - 1];
            bool kind = is_subscription[i - 1];
            size_t length = prefix[i - 1];
            handles[i - 1] = handles[swap];
            is_subscription[i - 1] = is_subscription[swap];
            prefix[i - 1] = prefix[swap];
            handles[swap] = handle;
            is_subscription[swap] = kind;
            prefix[swap] = length;
        }
        for (size_t h = 0; h < handle_count; h++) {
            if (is_subscription[h]) {
                sk_disposable_dispose(handles[h]);
                sk_disposable_release(handles[h]);
            } else {
                sk_signal_release(handles[h]);
            }
            /* Stage i is held by every signal and subscription of a prefix
             * longer than i: its release has not run while one is left. */
            for (size_t i = 0; i < count; i++) {
                bool held = false;
                for (size_t later = h + 1; later < handle_count; later++) {
                    held = held || prefix[later] > i;
                }
                if (held) {
                    cr_assert_eq(stages[i].releases, 0, "round %d, stage %zu: released while held", round, i);
                }
            }
        }
        sk_pipe_release(pipe);
        for (size_t i = 0; i < count; i++) {
            cr_assert_eq(stages[i].releases, with_release[i] ? 1 : 0, "round %d, stage %zu: %d releases", round, i, stages[i].releases);
        }
        cr_assert_eq(sk_live_objects(), 0, "round %d: %ld live objects", round, sk_live_objects());
    }
}
