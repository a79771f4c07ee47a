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
