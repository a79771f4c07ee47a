/* test_operators_take.c - take, take-until and last (the C layer's
 * Operators_Take.swift): values and order, terminal events, disposal of the
 * upstream, releases and argument errors. */
#include <stdint.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Take                                                                     */
/* ------------------------------------------------------------------------ */

Test(operators_take, take_first_values_then_complete, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_take(&p.op, p.upstream, 3));
    pipeline_start(&p);
    for (int64_t i = 1; i <= 3; i++) {
        cr_assert_eq(counter_get(&p.source.disposed), 0);
        subscriber_put_int(pipeline_subscriber(&p), i);
    }
    /* Completed right after the third value, and the upstream disposed. */
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&p.r, "nnncr", expected, 3);
    cr_assert_eq(counter_get(&p.source.disposed), 1);
    subscriber_put_int(pipeline_subscriber(&p), 4);
    recorder_expect(&p.r, "nnncr", expected, 3);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

/* Takes `count` of the `n` values of `input` (ints_signal) and asserts that
 * the log reads `expected`, the first `passed` of them as nexts. Releases
 * all it made. */
static void expect_take(const int64_t *input, size_t n, size_t count, const char *expected, size_t passed) {
    sk_signal *source = ints_signal(input, n);
    sk_signal *taken = NULL;
    SK_OK_OR_FAIL(sk_signal_take(&taken, source, count));
    expect_signal_log(taken, expected, input, passed);
    sk_signal_release(source);
}

Test(operators_take, take_more_than_available, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2 };
    expect_take(input, 2, 5, "nncr", 2);
    expect_no_live_objects(0);
}

Test(operators_take, take_zero_passes_no_value, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2 };
    expect_take(input, 2, 0, "cr", 0);
    expect_no_live_objects(0);
}

/* SIZE_MAX is "no limit": every value passes. */
Test(operators_take, take_huge_count_passes_everything, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    const size_t counts[] = { SIZE_MAX, (size_t)INT64_MAX + 1 };
    for (size_t i = 0; i < 2; i++) {
        expect_take(input, 3, counts[i], "nnncr", 3);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Take until                                                               */
/* ------------------------------------------------------------------------ */

/* 1 pass, 2 drop, 3 pass and complete, 5 complete without passing, 6 pass
 * with an unknown bit set; counts calls in ctx. */
static int take_rule(void *ctx, const sk_value *value) {
    counter_hit(ctx);
    switch (value_int(value)) {
    case 1: return SK_TAKE_PASS;
    case 2: return 0;
    case 3: return SK_TAKE_PASS | SK_TAKE_COMPLETE;
    case 5: return SK_TAKE_COMPLETE;
    case 6: return SK_TAKE_PASS | 64;
    default: return SK_TAKE_PASS;
    }
}

/* The release function of take_rule's contexts in these tests. */
static counter *take_released;

static void counter_hit_released(void *ctx) {
    (void)ctx;
    counter_hit(take_released);
}

Test(operators_take, take_until_passes_drops_and_completes, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    counter calls, released;
    counters_init(2, &calls, &released);
    take_released = &released;
    SK_OK_OR_FAIL(sk_signal_take_until(&p.op, p.upstream, take_rule, &calls, NULL));
    pipeline_start(&p);
    sk_subscriber *sub = pipeline_subscriber(&p);
    subscriber_put_int(sub, 1);
    subscriber_put_int(sub, 2);
    subscriber_put_int(sub, 6);
    cr_assert_eq(counter_get(&p.source.disposed), 0);
    subscriber_put_int(sub, 3);
    const int64_t expected[] = { 1, 6, 3 };
    recorder_expect(&p.r, "nnncr", expected, 3);
    cr_assert_eq(counter_get(&p.source.disposed), 1, "completing disposes the upstream");
    subscriber_put_int(sub, 4);
    cr_assert_eq(counter_get(&calls), 4, "fn called %d times; not again after completing", counter_get(&calls));
    recorder_expect(&p.r, "nnncr", expected, 3);
    pipeline_stop(&p);

    /* SK_TAKE_COMPLETE alone: the value is dropped. */
    const int64_t input[] = { 1, 5, 1 };
    sk_signal *ints = ints_signal(input, 3);
    sk_signal *taken = NULL;
    SK_OK_OR_FAIL(sk_signal_take_until(&taken, ints, take_rule, &calls, counter_hit_released));
    recorder r;
    sk_disposable *d = recorder_start(&r, taken);
    recorder_expect(&r, "ncr", input, 1);
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&calls), 6);
    cr_assert_eq(counter_get(&released), 0);
    sk_signal_release(taken);
    cr_assert_eq(counter_get(&released), 1, "the release ran when the signal went away");

    sk_signal_release(ints);
    pipeline_finish(&p);
    counters_destroy(2, &calls, &released);
    expect_no_live_objects(0);
}

Test(operators_take, take_until_passes_error_and_completion, .timeout = SK_TEST_TIMEOUT) {
    counter calls;
    counter_init(&calls);
    for (int ending = 0; ending < 2; ending++) {
        pipeline p;
        pipeline_init(&p);
        SK_OK_OR_FAIL(sk_signal_take_until(&p.op, p.upstream, take_rule, &calls, NULL));
        pipeline_start(&p);
        subscriber_put_int(pipeline_subscriber(&p), 1);
        sk_value error = string_value("boom");
        if (ending == 0) {
            SK_OK_OR_FAIL(sk_subscriber_put_error(pipeline_subscriber(&p), &error));
            recorder_expect(&p.r, "ner", NULL, 0);
            cr_assert(sk_value_equal(&recorder_event(&p.r, 1)->value, &error));
        } else {
            SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&p)));
            recorder_expect(&p.r, "ncr", NULL, 0);
        }
        sk_value_release(&error);
        pipeline_finish(&p);
    }
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Last                                                                     */
/* ------------------------------------------------------------------------ */

Test(operators_take, last_emits_last_value_on_completion, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_last);
    sk_subscriber *sub = pipeline_subscriber(&p);
    subscriber_put_int(sub, 1);
    sk_value text = string_value("latest");
    SK_OK_OR_FAIL(sk_subscriber_put_next(sub, &text));
    recorder_expect(&p.r, "", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(sub));
    recorder_expect(&p.r, "ncr", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&p.r, 0)->value, &text), "the p.op value, a string, survived");
    sk_value_release(&text);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_take, last_of_nothing_is_nil_and_errors_pass, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *empty = made_signal(sk_signal_complete), *last = NULL;
    SK_OK_OR_FAIL(sk_signal_last(&last, empty));
    expect_one_nil(last);

    sk_value error = int_value(-7);
    sk_signal *failing = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &error));
    SK_OK_OR_FAIL(sk_signal_last(&last, failing));
    recorder r;
    sk_disposable *d = recorder_start(&r, last);
    recorder_expect_error(&r, &error);
    recorder_finish(&r, d);
    sk_signal_release(last);
    sk_signal_release(failing);
    sk_signal_release(empty);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Disposal, releases and argument errors                                   */
/* ------------------------------------------------------------------------ */

static int keep_passing(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return SK_TAKE_PASS;
}

/* A predicate: the value is an int below 3. */
static bool is_small(void *ctx, const sk_value *value) {
    (void)ctx;
    int64_t n = 0;
    return sk_value_get_int64(value, &n) == SK_OK && n < 3;
}

/* The family's operators, for expect_disposal_disposes_upstream. */
static sk_signal *take_operator(int which, sk_signal *source, manual_source *s, const char **name) {
    (void)s;
    sk_signal *out = NULL;
    switch (which) {
    case 0: *name = "take_until"; SK_OK_OR_FAIL(sk_signal_take_until(&out, source, keep_passing, NULL, NULL)); break;
    case 1: *name = "last"; SK_OK_OR_FAIL(sk_signal_last(&out, source)); break;
    case 2: *name = "skip"; SK_OK_OR_FAIL(sk_signal_skip(&out, source, 1)); break;
    case 3: *name = "skip_while"; SK_OK_OR_FAIL(sk_signal_skip_while(&out, source, is_small, NULL, NULL)); break;
    case 4: *name = "take_while"; SK_OK_OR_FAIL(sk_signal_take_while(&out, source, is_small, NULL, NULL, true)); break;
    case 5: *name = "first"; SK_OK_OR_FAIL(sk_signal_first(&out, source)); break;
    case 6: *name = "first_where"; SK_OK_OR_FAIL(sk_signal_first_where(&out, source, is_small, NULL, NULL)); break;
    case 7: *name = "element_at"; SK_OK_OR_FAIL(sk_signal_element_at(&out, source, 2)); break;
    case 8: {
        sk_value fallback;
        sk_value_set_int64(&fallback, 7);
        *name = "default_if_empty";
        SK_OK_OR_FAIL(sk_signal_default_if_empty(&out, source, &fallback));
        break;
    }
    case 9: {
        sk_signal *never = made_signal(sk_signal_never);
        *name = "take_until_signal";
        SK_OK_OR_FAIL(sk_signal_take_until_signal(&out, source, never));
        sk_signal_release(never);
        break;
    }
    default: return NULL;
    }
    return out;
}

Test(operators_take, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(expect_disposal_disposes_upstream(take_operator), 10, "not every operator ran");
    expect_no_live_objects(0);
}

/* sk_signal_take_until for the callback operator checks. */
static int take_until_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_take_until(out, signal, with_callback ? take_rule : NULL, ctx, release);
}

static int skip_one(sk_signal **out, sk_signal *signal) {
    return sk_signal_skip(out, signal, 1);
}

static int element_at_one(sk_signal **out, sk_signal *signal) {
    return sk_signal_element_at(out, signal, 1);
}

static int default_if_empty_seven(sk_signal **out, sk_signal *signal) {
    sk_value fallback;
    sk_value_set_int64(&fallback, 7);
    return sk_signal_default_if_empty(out, signal, &fallback);
}

/* The argument errors of the family's other operators. */
static void take_family_argument_errors(bad_args *args) {
    expect_unary_argument_errors("last", sk_signal_last, args->never, args->not_signal);
    expect_unary_argument_errors("first", sk_signal_first, args->never, args->not_signal);
    expect_unary_argument_errors("skip", skip_one, args->never, args->not_signal);
    expect_unary_argument_errors("element_at", element_at_one, args->never, args->not_signal);
    expect_unary_argument_errors("default_if_empty", default_if_empty_seven, args->never, args->not_signal);
    sk_signal *out = NULL;
    EXPECT_FAILURE(sk_signal_default_if_empty(&out, args->never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_take_until_signal(&out, args->never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_take_until_signal(&out, NULL, args->never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_take_until_signal(&out, args->never, args->not_signal), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_take_until_signal(NULL, args->never, args->never), SK_ERR_NULL_ARGUMENT, NULL);
}

CALLBACK_OPERATOR_TESTS(operators_take, "take_until", take_until_call, take_family_argument_errors, 4)

/* ------------------------------------------------------------------------ */
/* skip, skip_while, take_while, first, first_where, element_at,             */
/* default_if_empty, take_until_signal (the core's Signal_Take+Skip.swift    */
/* and Signal_Take+First.swift; the shared marble table plays their cases:   */
/* test_marble_table.c). Here: what C adds, its sizes, callbacks, releases   */
/* and argument errors.                                                      */
/* ------------------------------------------------------------------------ */

/* SIZE_MAX is "more than any signal emits": skip drops every value, and
 * element_at never reaches its index; both complete with the upstream. */
Test(operators_take, skip_and_element_at_past_any_count, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *source = ints_signal(input, 3);
    sk_signal *skipped = NULL, *at = NULL, *skip_two = NULL, *at_two = NULL;
    SK_OK_OR_FAIL(sk_signal_skip(&skipped, source, SIZE_MAX));
    SK_OK_OR_FAIL(sk_signal_element_at(&at, source, SIZE_MAX));
    SK_OK_OR_FAIL(sk_signal_skip(&skip_two, source, 2));
    SK_OK_OR_FAIL(sk_signal_element_at(&at_two, source, 2));
    expect_signal_log(skipped, "cr", NULL, 0);
    expect_signal_log(at, "cr", NULL, 0);
    expect_signal_log(skip_two, "ncr", input + 2, 1);
    expect_signal_log(at_two, "ncr", input + 2, 1);
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* take_while's flag: without it the failing value is dropped, with it the
 * value passes before the completion. */
Test(operators_take, take_while_inclusive_flag, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3, 1 };
    sk_signal *source = ints_signal(input, 4);
    sk_signal *exclusive = NULL, *inclusive = NULL;
    SK_OK_OR_FAIL(sk_signal_take_while(&exclusive, source, is_small, NULL, NULL, false));
    SK_OK_OR_FAIL(sk_signal_take_while(&inclusive, source, is_small, NULL, NULL, true));
    expect_signal_log(exclusive, "nncr", input, 2);
    expect_signal_log(inclusive, "nnncr", input, 3);
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* default_if_empty delivers a copy of its value (a string, an object) to
 * each subscription of an empty signal, and nothing extra otherwise. */
Test(operators_take, default_if_empty_copies_its_value, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *empty = made_signal(sk_signal_complete);
    sk_value fallback;
    SK_OK_OR_FAIL(sk_value_set_string(&fallback, "none"));
    sk_signal *op = NULL;
    SK_OK_OR_FAIL(sk_signal_default_if_empty(&op, empty, &fallback));
    sk_value_release(&fallback);
    for (int round = 0; round < 2; round++) {
        recorder r;
        sk_disposable *d = recorder_start(&r, op);
        cr_assert_eq(recorder_nexts(&r), 1);
        const char *text = NULL;
        size_t length = 0;
        SK_OK_OR_FAIL(sk_value_get_string(&recorder_event(&r, 0)->value, &text, &length));
        cr_assert_str_eq(text, "none");
        recorder_finish(&r, d);
    }
    sk_signal_release(op);
    sk_signal_release(empty);
    expect_no_live_objects(0);
}

/* take_until_signal: a notifier that emits at once completes the
 * subscription before the upstream starts. */
Test(operators_take, take_until_signal_notifier_first, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2 };
    sk_signal *source = ints_signal(input, 2);
    sk_signal *notifier = ints_signal(input, 1);
    sk_signal *never = made_signal(sk_signal_never);
    sk_signal *stopped = NULL, *open = NULL;
    SK_OK_OR_FAIL(sk_signal_take_until_signal(&stopped, source, notifier));
    SK_OK_OR_FAIL(sk_signal_take_until_signal(&open, source, never));
    expect_signal_log(stopped, "cr", NULL, 0);
    expect_signal_log(open, "nncr", input, 2);
    sk_signal_release(source);
    sk_signal_release(notifier);
    sk_signal_release(never);
    expect_no_live_objects(0);
}

static sk_signal *build_skip(sk_signal *s) { sk_signal *o = NULL; SK_OK_OR_FAIL(sk_signal_skip(&o, s, 1)); return o; }
static sk_signal *build_skip_while(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_skip_while(&o, s, is_small, NULL, NULL));
    return o;
}
static sk_signal *build_take_while(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_take_while(&o, s, is_small, NULL, NULL, false));
    return o;
}
static sk_signal *build_first(sk_signal *s) { sk_signal *o = NULL; SK_OK_OR_FAIL(sk_signal_first(&o, s)); return o; }
static sk_signal *build_first_where(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_first_where(&o, s, is_small, NULL, NULL));
    return o;
}
static sk_signal *build_element_at(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_element_at(&o, s, 1));
    return o;
}
static sk_signal *build_default_if_empty(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(default_if_empty_seven(&o, s));
    return o;
}
static sk_signal *build_take_until_signal(sk_signal *s) {
    sk_signal *never = made_signal(sk_signal_never);
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_take_until_signal(&o, s, never));
    sk_signal_release(never);
    return o;
}

Test(operators_take, dispose_inside_a_value_callback, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("skip", build_skip, 3);
    expect_dispose_inside_next("skip_while", build_skip_while, 4);
    expect_dispose_inside_next("take_while", build_take_while, 2);
    expect_dispose_inside_next("first", build_first, 2);
    expect_dispose_inside_next("first_where", build_first_where, 2);
    expect_dispose_inside_next("element_at", build_element_at, 3);
    expect_dispose_inside_next("default_if_empty", build_default_if_empty, 2);
    expect_dispose_inside_next("take_until_signal", build_take_until_signal, 2);
    expect_no_live_objects(0);
}

static int skip_while_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_skip_while(out, signal, with_callback ? is_small : NULL, ctx, release);
}
static int take_while_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_take_while(out, signal, with_callback ? is_small : NULL, ctx, release, false);
}
static int first_where_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_first_where(out, signal, with_callback ? is_small : NULL, ctx, release);
}

/* The predicate operators: their release runs once, after the last
 * subscription, and once for each failed call. */
Test(operators_take, predicate_operators_release_once, .timeout = SK_TEST_TIMEOUT) {
    static const struct {
        const char *name;
        callback_operator_call call;
    } calls[] = {
        { "skip_while", skip_while_call }, { "take_while", take_while_call }, { "first_where", first_where_call },
    };
    bad_args args;
    bad_args_init(&args);
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        expect_release_after_the_subscription(calls[i].name, calls[i].call);
        expect_callback_argument_errors(calls[i].name, calls[i].call, &args);
    }
    cr_assert_eq(counter_get(&args.released), 12);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}
