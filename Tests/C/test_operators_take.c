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

/* The family's operators, for expect_disposal_disposes_upstream. */
static sk_signal *take_operator(int which, sk_signal *source, manual_source *s, const char **name) {
    (void)s;
    sk_signal *out = NULL;
    switch (which) {
    case 0: *name = "take_until"; SK_OK_OR_FAIL(sk_signal_take_until(&out, source, keep_passing, NULL, NULL)); break;
    case 1: *name = "last"; SK_OK_OR_FAIL(sk_signal_last(&out, source)); break;
    default: return NULL;
    }
    return out;
}

Test(operators_take, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(expect_disposal_disposes_upstream(take_operator), 2, "not every operator ran");
    expect_no_live_objects(0);
}

/* sk_signal_take_until for the callback operator checks. */
static int take_until_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_take_until(out, signal, with_callback ? take_rule : NULL, ctx, release);
}

/* The argument errors of the family's other operator. */
static void take_family_argument_errors(bad_args *args) {
    expect_unary_argument_errors("last", sk_signal_last, args->never, args->not_signal);
}

CALLBACK_OPERATOR_TESTS(operators_take, "take_until", take_until_call, take_family_argument_errors, 4)
