/* test_callback_fail.c - sk_callback_fail: an operator callback failing
 * the call it is in (map and filter), through every kind of source (a
 * generator's subscriber, a pipe, a constant signal), with an observer that
 * has an error callback and one that has a value callback only; the
 * result of a failed map released; misuse (outside an operator callback,
 * NULL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ctx: the int64 at which the callback fails (with the error "bad N"). */
static void times_ten_failing_at(void *ctx, const sk_value *value, sk_value *out) {
    int64_t n = value_int(value);
    sk_value_set_int64(out, n * 10);
    if (n == *(const int64_t *)ctx) {
        char text[32];
        snprintf(text, sizeof text, "bad %lld", (long long)n);
        sk_value error = string_value(text);
        cr_assert_eq(sk_callback_fail(&error), SK_OK);
        sk_value_release(&error);
    }
}

/* ctx: the int64 at which the predicate fails; it says true otherwise. */
static bool passing_failing_at(void *ctx, const sk_value *value, sk_value *unused) {
    (void)unused;
    int64_t n = value_int(value);
    if (n == *(const int64_t *)ctx) {
        sk_value error = int_value(-n);
        cr_assert_eq(sk_callback_fail(&error), SK_OK);
        /* Only the first failure of a call counts. */
        sk_value second = int_value(12345);
        cr_assert_eq(sk_callback_fail(&second), SK_OK);
    }
    return true;
}

static bool passing_failing_at_predicate(void *ctx, const sk_value *value) {
    return passing_failing_at(ctx, value, NULL);
}

/* Writes a heap value (a string), then fails: the string must be released. */
static void string_then_fail(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)value;
    SK_OK_OR_ABORT(sk_value_set_string(out, "dropped"));
    sk_value error = int_value(7);
    SK_OK_OR_ABORT(sk_callback_fail(&error));
}

Test(callback_fail, a_map_over_a_generator_ends_with_the_error_and_disposes_it, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *source = manual_init_signal(&s);
    int64_t at = 2;
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_map(&mapped, source, times_ten_failing_at, &at, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, mapped);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    subscriber_put_int(manual_subscriber(&s, 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    recorder_expect_one(&r, "ner", 10);
    expect_string_error(&r, 1, "bad 2");
    cr_assert_eq(counter_get(&s.disposed), 1, "the upstream is disposed");
    recorder_finish(&r, d);
    sk_signal_release(mapped);
    sk_signal_release(source);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

Test(callback_fail, a_filter_over_a_pipe_ends_with_the_first_error, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *filtered = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    int64_t at = 3, never = -1;
    SK_OK_OR_FAIL(sk_signal_filter(&filtered, signal, passing_failing_at_predicate, &at, NULL));
    /* A map after it: the run of stages stops at the failed filter. */
    SK_OK_OR_FAIL(sk_signal_map(&mapped, filtered, times_ten_failing_at, &never, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, mapped);
    pipe_put_int(pipe, 1);
    pipe_put_int(pipe, 3);
    pipe_put_int(pipe, 4);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    recorder_expect_one(&r, "ner", 10);
    cr_assert_eq(value_int(&recorder_event(&r, 1)->value), -3, "the first failure stands");
    recorder_finish(&r, d);
    sk_signal_release(mapped);
    sk_signal_release(filtered);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

Test(callback_fail, a_map_over_a_single_fails_without_the_completion, .timeout = SK_TEST_TIMEOUT) {
    sk_value five = int_value(5);
    sk_signal *single = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&single, &five));
    int64_t at = 5;
    SK_OK_OR_FAIL(sk_signal_map(&mapped, single, times_ten_failing_at, &at, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, mapped);
    recorder_expect(&r, "er", NULL, 0);
    expect_string_error(&r, 0, "bad 5");
    recorder_finish(&r, d);
    sk_signal_release(mapped);
    sk_signal_release(single);
    expect_no_live_objects(0);
}

Test(callback_fail, a_failed_map_s_result_is_released, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *source = manual_init_signal(&s);
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_map(&mapped, source, string_then_fail, NULL, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, mapped);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    recorder_expect(&r, "er", NULL, 0);
    cr_assert_eq(value_int(&recorder_event(&r, 0)->value), 7);
    recorder_finish(&r, d);
    sk_signal_release(mapped);
    sk_signal_release(source);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

/* An observer with a value callback only (the subscription's handle runs
 * the stage): the failure ends the subscription; nothing more arrives. */
static void count_next(void *ctx, const sk_value *value) {
    (void)value;
    counter_hit(ctx);
}

Test(callback_fail, a_value_only_observer_stops_receiving, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    int64_t at = 2;
    SK_OK_OR_FAIL(sk_signal_map(&mapped, signal, times_ten_failing_at, &at, NULL));
    counter nexts;
    counters_init(1, &nexts);
    sk_observer observer = { .next = count_next, .ctx = &nexts };
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, mapped, &observer));
    pipe_put_int(pipe, 1);
    pipe_put_int(pipe, 2);
    pipe_put_int(pipe, 3);
    cr_assert_eq(counter_get(&nexts), 1, "only the value before the failure");
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    counters_destroy(1, &nexts);
    expect_no_live_objects(0);
}

/* An observer's callback is no operator callback. */
static void fail_in_next(void *ctx, const sk_value *value) {
    (void)value;
    *(int *)ctx = sk_callback_fail(value);
}

Test(callback_fail, outside_an_operator_callback_is_refused, .timeout = SK_TEST_TIMEOUT) {
    sk_value error = int_value(1);
    cr_assert_eq(sk_callback_fail(&error), SK_ERR_UNSUPPORTED);
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_callback_fail: no operator callback is running on this thread (an observer's callback, a queue's work, a generator or code outside the library cannot fail this way; see sk_callback_fail in signalkit.h)");
    cr_assert_eq(sk_callback_fail(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_last_error_message(), "sk_callback_fail: error is NULL");

    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    int status = 1;
    sk_observer observer = { .next = fail_in_next, .ctx = &status };
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    pipe_put_int(pipe, 1);
    cr_assert_eq(status, SK_ERR_UNSUPPORTED, "an observer's next is no operator callback");
    /* Nothing was left pending: a later map's value passes. */
    int64_t never = -1;
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_map(&mapped, signal, times_ten_failing_at, &never, NULL));
    recorder r;
    sk_disposable *rd = recorder_start(&r, mapped);
    pipe_put_int(pipe, 2);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    recorder_expect_one(&r, "ncr", 20);
    recorder_finish(&r, rd);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_value_release(&error);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* The other operator callbacks                                             */
/* ------------------------------------------------------------------------ */

/* ctx: the value at which the callback fails, with the error value -N. */
static void fail_with_minus(const int64_t *at, int64_t n) {
    if (n == *at) {
        sk_value error = int_value(-n);
        SK_OK_OR_ABORT(sk_callback_fail(&error));
    }
}

static void sum_failing_at(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    sk_value_set_int64(out, value_int(accumulator) + value_int(value));
    fail_with_minus(ctx, value_int(value));
}

static bool below_ten_failing_at(void *ctx, const sk_value *value) {
    fail_with_minus(ctx, value_int(value));
    return value_int(value) < 10;
}

static int pass_failing_at(void *ctx, const sk_value *value) {
    fail_with_minus(ctx, value_int(value));
    return SK_TAKE_PASS;
}

static bool is_large_failing_at(void *ctx, const sk_value *value) {
    fail_with_minus(ctx, value_int(value));
    return value_int(value) > 100;
}

typedef int (*make_fn)(sk_signal **out, sk_signal *source, void *ctx);

static int make_scan(sk_signal **out, sk_signal *source, void *ctx) {
    sk_value zero = int_value(0);
    return sk_signal_scan(out, source, &zero, sum_failing_at, ctx, NULL);
}
static int make_reduce(sk_signal **out, sk_signal *source, void *ctx) {
    sk_value zero = int_value(0);
    return sk_signal_reduce_left(out, source, &zero, sum_failing_at, ctx, NULL);
}
static int make_take_while(sk_signal **out, sk_signal *source, void *ctx) {
    return sk_signal_take_while(out, source, below_ten_failing_at, ctx, NULL, false);
}
static int make_skip_while(sk_signal **out, sk_signal *source, void *ctx) {
    return sk_signal_skip_while(out, source, below_ten_failing_at, ctx, NULL);
}
static int make_first_where(sk_signal **out, sk_signal *source, void *ctx) {
    return sk_signal_first_where(out, source, is_large_failing_at, ctx, NULL);
}
static int make_take_until(sk_signal **out, sk_signal *source, void *ctx) {
    return sk_signal_take_until(out, source, pass_failing_at, ctx, NULL);
}

/* Puts 1, 2, 3 into a pipe and a generator through `make`'s operator
 * failing at 2, then 4 and the completion: the log is `expected` (the
 * values before the failure, then the error -2, then the release), and the
 * generator's subscription is disposed. */
static void expect_failure_at_two(make_fn make, const char *expected, const int64_t *values, size_t count) {
    int64_t at = 2;
    for (int round = 0; round < 2; round++) {
        manual_source s;
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *made = NULL;
        if (round == 0) {
            source = manual_init_signal(&s);
        } else {
            SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
            SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        }
        SK_OK_OR_FAIL(make(&made, source, &at));
        recorder r;
        sk_disposable *d = recorder_start(&r, made);
        for (int64_t n = 1; n <= 4; n++) {
            if (round == 0) {
                subscriber_put_int(manual_subscriber(&s, 0), n);
            } else {
                pipe_put_int(pipe, n);
            }
        }
        if (round == 0) {
            SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
            cr_assert_eq(counter_get(&s.disposed), 1, "the upstream is disposed");
        } else {
            SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
        }
        recorder_expect(&r, expected, values, count);
        size_t last = strlen(expected) - 2;
        cr_assert_eq(value_int(&recorder_event(&r, last)->value), -2, "the callback's error (round %d)", round);
        recorder_finish(&r, d);
        sk_signal_release(made);
        sk_signal_release(source);
        if (round == 0) {
            manual_destroy(&s);
        } else {
            sk_pipe_release(pipe);
        }
    }
    expect_no_live_objects(0);
}

Test(callback_fail, scan_ends_at_the_failing_fold, .timeout = SK_TEST_TIMEOUT) {
    const int64_t sums[] = { 1 };
    expect_failure_at_two(make_scan, "ner", sums, 1);
}

Test(callback_fail, reduce_left_ends_at_the_failing_fold_without_its_accumulator, .timeout = SK_TEST_TIMEOUT) {
    expect_failure_at_two(make_reduce, "er", NULL, 0);
}

Test(callback_fail, take_while_skip_while_first_where_and_take_until_end_at_the_failing_call, .timeout = SK_TEST_TIMEOUT) {
    const int64_t one[] = { 1 };
    expect_failure_at_two(make_take_while, "ner", one, 1);
    expect_failure_at_two(make_skip_while, "er", NULL, 0);
    expect_failure_at_two(make_first_where, "er", NULL, 0);
    expect_failure_at_two(make_take_until, "ner", one, 1);
}

Test(callback_fail, a_scan_over_a_single_fails_without_a_value_or_the_completion, .timeout = SK_TEST_TIMEOUT) {
    sk_value two = int_value(2);
    sk_signal *single = NULL, *scanned = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&single, &two));
    int64_t at = 2;
    SK_OK_OR_FAIL(make_scan(&scanned, single, &at));
    recorder r;
    sk_disposable *d = recorder_start(&r, scanned);
    recorder_expect(&r, "er", NULL, 0);
    cr_assert_eq(value_int(&recorder_event(&r, 0)->value), -2);
    recorder_finish(&r, d);
    sk_signal_release(scanned);
    sk_signal_release(single);
    expect_no_live_objects(0);
}

/* A signal function that fails: its handle is released, and the result is a
 * signal failing with the error. */
static sk_signal *single_then_fail(void *ctx, const sk_value *value) {
    (void)ctx;
    sk_signal *inner = NULL;
    SK_OK_OR_ABORT(sk_signal_single(&inner, value));
    sk_value error = int_value(-value_int(value));
    SK_OK_OR_ABORT(sk_callback_fail(&error));
    return inner;
}

Test(callback_fail, a_failing_signal_function_stands_for_a_failing_signal, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    SK_OK_OR_FAIL(sk_signal_map_to_signal(&mapped, signal, single_then_fail, NULL, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, mapped);
    pipe_put_int(pipe, 3);
    pipe_put_int(pipe, 4);
    recorder_expect(&r, "er", NULL, 0);
    cr_assert_eq(value_int(&recorder_event(&r, 0)->value), -3);
    recorder_finish(&r, d);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Nesting and disposal                                                      */
/* ------------------------------------------------------------------------ */

/* The outer map fails, then puts into a pipe whose subscription runs an
 * inner map that fails too, and one that does not: each run keeps its own
 * failure. */
typedef struct nested {
    sk_pipe *inner_pipe;
    int64_t inner_fails_at;
} nested;

static void outer_fails_then_puts(void *ctx, const sk_value *value, sk_value *out) {
    nested *n = ctx;
    sk_value_set_int64(out, value_int(value));
    sk_value error = string_value("outer");
    SK_OK_OR_ABORT(sk_callback_fail(&error));
    sk_value_release(&error);
    /* Inside the failed call: the inner subscription's map runs deeper. */
    sk_value v = int_value(value_int(value) + 100);
    SK_OK_OR_ABORT(sk_pipe_put(n->inner_pipe, &v));
    v = int_value(n->inner_fails_at);
    SK_OK_OR_ABORT(sk_pipe_put(n->inner_pipe, &v));
}

Test(callback_fail, nested_runs_keep_their_own_failures, .timeout = SK_TEST_TIMEOUT) {
    nested n = { .inner_pipe = NULL, .inner_fails_at = 7 };
    sk_pipe *outer_pipe = NULL;
    sk_signal *outer_signal = NULL, *outer_mapped = NULL, *inner_signal = NULL, *inner_mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&outer_pipe, false));
    SK_OK_OR_FAIL(sk_pipe_create(&n.inner_pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&outer_signal, outer_pipe));
    SK_OK_OR_FAIL(sk_pipe_signal(&inner_signal, n.inner_pipe));
    SK_OK_OR_FAIL(sk_signal_map(&outer_mapped, outer_signal, outer_fails_then_puts, &n, NULL));
    SK_OK_OR_FAIL(sk_signal_map(&inner_mapped, inner_signal, times_ten_failing_at, &n.inner_fails_at, NULL));
    recorder outer, inner;
    sk_disposable *inner_d = recorder_start(&inner, inner_mapped);
    sk_disposable *outer_d = recorder_start(&outer, outer_mapped);
    pipe_put_int(outer_pipe, 1);
    recorder_expect(&outer, "er", NULL, 0);
    expect_string_error(&outer, 0, "outer");
    recorder_expect_one(&inner, "ner", 1010);
    expect_string_error(&inner, 1, "bad 7");
    recorder_finish(&outer, outer_d);
    recorder_finish(&inner, inner_d);
    sk_signal_release(outer_mapped);
    sk_signal_release(inner_mapped);
    sk_signal_release(outer_signal);
    sk_signal_release(inner_signal);
    sk_pipe_release(outer_pipe);
    sk_pipe_release(n.inner_pipe);
    expect_no_live_objects(0);
}

/* A map that fails, then disposes its own subscription: the dispose wins. */
static sk_disposable *own_subscription;

static void fail_then_dispose(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(value));
    SK_OK_OR_ABORT(sk_callback_fail(value));
    sk_disposable_dispose(own_subscription);
}

Test(callback_fail, a_dispose_wins_over_the_failure, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    SK_OK_OR_FAIL(sk_signal_map(&mapped, signal, fail_then_dispose, NULL, NULL));
    recorder r;
    own_subscription = recorder_start(&r, mapped);
    pipe_put_int(pipe, 1);
    pipe_put_int(pipe, 2);
    recorder_expect(&r, "r", NULL, 0);
    recorder_finish(&r, own_subscription);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

/* A failing stage of a run that the subscription's handle absorbs (no
 * release function in the run), observed with an error and a completion
 * callback: through sk_signal_start with no release function and through
 * sk_signal_start_held with one. The handle runs the stages itself, so it
 * must deliver the failure once, then nothing (the pipe's completion
 * included). Lost before (the merge of sk_signal_start_held with
 * sk_callback_fail): the subscription ended without its error callback. */
static void absorbed_run_delivers_the_failure_once(bool held) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    int64_t at = 2;
    SK_OK_OR_FAIL(sk_signal_map(&mapped, signal, times_ten_failing_at, &at, NULL));
    recorder r;
    recorder_init(&r);
    sk_observer o = recorder_observer(&r);
    if (!held) {
        o.release = NULL;
    }
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(held ? sk_signal_start_held(&d, mapped, &o) : sk_signal_start(&d, mapped, &o));
    pipe_put_int(pipe, 1);
    pipe_put_int(pipe, 2);
    pipe_put_int(pipe, 3);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    char log[16];
    cr_assert_str_eq(recorder_log(&r, log, sizeof log), "ne", "one value, then the error once: %s", log);
    expect_string_error(&r, 1, "bad 2");
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    if (held) {
        cr_assert(recorder_wait_release(&r), "the held observer is released");
    }
    recorder_destroy(&r);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

Test(callback_fail, an_absorbed_run_delivers_its_failure_to_an_observer_without_release, .timeout = SK_TEST_TIMEOUT) {
    absorbed_run_delivers_the_failure_once(false);
}

Test(callback_fail, an_absorbed_run_delivers_its_failure_to_a_held_observer, .timeout = SK_TEST_TIMEOUT) {
    absorbed_run_delivers_the_failure_once(true);
}

/* group_by's key function is an operator callback: its failure ends the
 * result and every group delivered before it with the error. */
typedef struct failing_groups {
    recorder groups[2];
    sk_disposable *subscriptions[2];
    int count;
    counter released; /* the groups' observer's release */
} failing_groups;

static void groups_released(void *ctx) {
    counter_hit(&((failing_groups *)ctx)->released);
}

static void start_group(void *ctx, const sk_value *value) {
    failing_groups *g = ctx;
    const sk_value *signal_value = NULL;
    sk_signal *group = NULL;
    SK_OK_OR_ABORT(sk_value_get_array_item(value, 1, &signal_value));
    SK_OK_OR_ABORT(sk_value_get_signal(signal_value, &group));
    cr_assert_lt(g->count, 2);
    g->subscriptions[g->count] = recorder_start(&g->groups[g->count], group);
    g->count++;
}

Test(callback_fail, a_failing_group_by_key_ends_the_result_and_every_group, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *grouped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    int64_t at = 3;
    SK_OK_OR_FAIL(sk_signal_group_by(&grouped, signal, times_ten_failing_at, &at, NULL));
    failing_groups g;
    memset(&g, 0, sizeof g);
    recorder outer;
    recorder_init(&outer);
    counter_init(&g.released);
    sk_observer groups_observer = {start_group, NULL, NULL, &g, groups_released};
    sk_disposable *groups_subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&groups_subscription, grouped, &groups_observer));
    sk_disposable *d = recorder_start(&outer, grouped);
    pipe_put_int(pipe, 1); /* key 10: the first group */
    pipe_put_int(pipe, 2); /* key 20: the second */
    pipe_put_int(pipe, 3); /* the key fails: "bad 3" */
    pipe_put_int(pipe, 4); /* nothing more */
    cr_assert_eq(g.count, 2, "two groups before the failure, none for it");
    for (int i = 0; i < 2; i++) {
        recorder_expect_one(&g.groups[i], "ner", i + 1);
        expect_string_error(&g.groups[i], 1, "bad 3");
        recorder_finish(&g.groups[i], g.subscriptions[i]);
    }
    char log[16];
    cr_assert_str_eq(recorder_log(&outer, log, sizeof log), "nner", "the result: two groups, the error, the release");
    expect_string_error(&outer, 2, "bad 3");
    recorder_finish(&outer, d);
    cr_assert_eq(counter_get(&g.released), 1, "the groups' observer's release ran once");
    sk_disposable_release(groups_subscription);
    sk_signal_release(grouped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    counter_destroy(&g.released);
    expect_no_live_objects(0);
}

/* A failure's error waits for the value calls in flight on other threads
 * (signalkit.h's conventions, "Callbacks"), also below the operators whose
 * values reach the stages below without a call of a subscriber of their own
 * (share, combine_latest and zip of two signals, with_latest_from,
 * start_with, sample): one thread is held inside the observer's value
 * callback while another puts the value whose map fails. The error must
 * wait until the held call has returned (it then runs on that thread, as
 * its delivery ends), come once, and no value call may begin after it.
 * Before, below these operators the error ran at once, beside the held
 * call (a thread past the operator's check then delivered after it: 2 of
 * 2,000 rounds of eight putting threads through share). */
enum { HELD_FAILS_AT = 99 };

typedef struct held_round {
    sk_pipe *pipes[2];
    gate inside;  /* the held thread is inside the value callback */
    gate release; /* it may return */
    int hold;     /* the next value call is held (atomic exchange) */
    int in_next;
    int errors;
    int overlaps; /* errors while a value call ran */
    int late;     /* value calls begun after the error */
} held_round;

/* The value, or for an array the sum of its items: fails on HELD_FAILS_AT. */
static void sum_failing_at_99(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    int64_t sum = 0;
    if (value->kind == SK_KIND_ARRAY) {
        const sk_value *items = NULL;
        size_t count = 0;
        SK_OK_OR_ABORT(sk_value_get_array_items(value, &items, &count));
        for (size_t i = 0; i < count; i++) {
            sum += value_int(&items[i]);
        }
    } else {
        sum = value_int(value);
    }
    sk_value_set_int64(out, sum);
    if (sum >= HELD_FAILS_AT) {
        sk_value error = int_value(sum);
        SK_OK_OR_ABORT(sk_callback_fail(&error));
    }
}

static void held_next(void *ctx, const sk_value *value) {
    (void)value;
    held_round *h = ctx;
    if (__atomic_load_n(&h->errors, __ATOMIC_SEQ_CST) != 0) {
        __atomic_add_fetch(&h->late, 1, __ATOMIC_SEQ_CST);
    }
    __atomic_add_fetch(&h->in_next, 1, __ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&h->hold, 0, __ATOMIC_SEQ_CST) != 0) {
        gate_open(&h->inside);
        if (!gate_wait(&h->release, SK_WAIT_SECONDS)) {
            abort();
        }
    }
    __atomic_sub_fetch(&h->in_next, 1, __ATOMIC_SEQ_CST);
}

static void held_error(void *ctx, const sk_value *error) {
    (void)error;
    held_round *h = ctx;
    if (__atomic_load_n(&h->in_next, __ATOMIC_SEQ_CST) != 0) {
        __atomic_add_fetch(&h->overlaps, 1, __ATOMIC_SEQ_CST);
    }
    __atomic_add_fetch(&h->errors, 1, __ATOMIC_SEQ_CST);
}

/* A shape: the signal over the round's two pipes, the values put before
 * the held one (pipe index and value, -1 ending), the held put and the
 * failing puts (each ending with pipe -1). */
typedef struct held_put {
    int pipe;
    int64_t value;
} held_put;

typedef struct held_shape {
    const char *name;
    int (*make)(sk_signal **out, sk_signal *a, sk_signal *b);
    held_put before[3];
    held_put held;
    held_put failing[3];
} held_shape;

static int make_share(sk_signal **out, sk_signal *a, sk_signal *b) {
    (void)b;
    return sk_signal_share(out, a);
}

static int make_combine_latest(sk_signal **out, sk_signal *a, sk_signal *b) {
    sk_signal *both[2] = {a, b};
    return sk_signal_combine_latest(out, both, 2, NULL);
}

static int make_zip(sk_signal **out, sk_signal *a, sk_signal *b) {
    sk_signal *both[2] = {a, b};
    return sk_signal_zip(out, both, 2);
}

static int make_with_latest_from(sk_signal **out, sk_signal *a, sk_signal *b) {
    return sk_signal_with_latest_from(out, a, b);
}

static int make_start_with(sk_signal **out, sk_signal *a, sk_signal *b) {
    (void)b;
    sk_value first = int_value(0);
    return sk_signal_start_with(out, a, &first);
}

static int make_sample(sk_signal **out, sk_signal *a, sk_signal *b) {
    return sk_signal_sample(out, a, b);
}

static const held_shape held_shapes[] = {
    {"share", make_share, {{-1, 0}}, {0, 1}, {{0, HELD_FAILS_AT}, {-1, 0}}},
    {"combine_latest", make_combine_latest, {{0, 0}, {1, 0}, {-1, 0}}, {0, 1}, {{1, HELD_FAILS_AT}, {-1, 0}}},
    {"zip", make_zip, {{0, 1}, {-1, 0}}, {1, 1}, {{0, HELD_FAILS_AT}, {1, 0}, {-1, 0}}},
    {"with_latest_from", make_with_latest_from, {{1, 0}, {-1, 0}}, {0, 1}, {{0, HELD_FAILS_AT}, {-1, 0}}},
    {"start_with", make_start_with, {{-1, 0}}, {0, 1}, {{0, HELD_FAILS_AT}, {-1, 0}}},
    {"sample", make_sample, {{0, 1}, {-1, 0}}, {1, 0}, {{0, HELD_FAILS_AT}, {1, 0}, {-1, 0}}},
};

typedef struct held_thread {
    held_round *round;
    held_put put;
} held_thread;

static void *put_held(void *arg) {
    held_thread *t = arg;
    sk_value v = int_value(t->put.value);
    SK_OK_OR_ABORT(sk_pipe_put(t->round->pipes[t->put.pipe], &v));
    return NULL;
}

Test(callback_fail, the_error_waits_for_value_calls_on_other_threads_below_every_operator,
     .timeout = SK_TEST_TIMEOUT) {
    for (size_t s = 0; s < sizeof held_shapes / sizeof held_shapes[0]; s++) {
        const held_shape *shape = &held_shapes[s];
        held_round h;
        memset(&h, 0, sizeof h);
        gate_init(&h.inside);
        gate_init(&h.release);
        sk_signal *sources[2] = {NULL, NULL}, *combined = NULL, *mapped = NULL;
        for (int i = 0; i < 2; i++) {
            SK_OK_OR_FAIL(sk_pipe_create(&h.pipes[i], false));
            SK_OK_OR_FAIL(sk_pipe_signal(&sources[i], h.pipes[i]));
        }
        SK_OK_OR_FAIL(shape->make(&combined, sources[0], sources[1]));
        SK_OK_OR_FAIL(sk_signal_map(&mapped, combined, sum_failing_at_99, NULL, NULL));
        sk_observer observer = {held_next, held_error, NULL, &h, NULL};
        sk_disposable *d = NULL;
        SK_OK_OR_FAIL(sk_signal_start(&d, mapped, &observer));
        for (const held_put *p = shape->before; p->pipe >= 0; p++) {
            pipe_put_int(h.pipes[p->pipe], p->value);
        }
        __atomic_store_n(&h.hold, 1, __ATOMIC_SEQ_CST);
        held_thread t = {&h, shape->held};
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, put_held, &t), 0);
        cr_assert(gate_wait(&h.inside, SK_WAIT_SECONDS), "%s: the held value call began", shape->name);
        for (const held_put *p = shape->failing; p->pipe >= 0; p++) {
            pipe_put_int(h.pipes[p->pipe], p->value);
        }
        cr_expect_eq(__atomic_load_n(&h.errors, __ATOMIC_SEQ_CST), 0,
                     "%s: the error ran while a value call on another thread was still running", shape->name);
        gate_open(&h.release);
        pthread_join(thread, NULL);
        cr_expect_eq(h.errors, 1, "%s: %d errors once the held call returned", shape->name, h.errors);
        cr_expect_eq(h.overlaps, 0, "%s: the error ran beside a value call", shape->name);
        cr_expect_eq(h.late, 0, "%s: %d value calls began after the error", shape->name, h.late);
        sk_disposable_dispose(d);
        sk_disposable_release(d);
        sk_signal_release(mapped);
        sk_signal_release(combined);
        for (int i = 0; i < 2; i++) {
            sk_signal_release(sources[i]);
            sk_pipe_release(h.pipes[i]);
        }
        gate_destroy(&h.inside);
        gate_destroy(&h.release);
    }
    expect_no_live_objects(0);
}

/* sk_signal_start_failable: an observer's value callback that fails. The
 * recorder's hook (after it recorded the value) fails at the int64 in
 * r->user, with the error "bad N". */
static void fail_at_hook(recorder *r, const sk_value *value) {
    int64_t n = value_int(value);
    if (n == *(const int64_t *)r->user) {
        char text[32];
        snprintf(text, sizeof text, "bad %lld", (long long)n);
        sk_value error = string_value(text);
        cr_assert_eq(sk_callback_fail(&error), SK_OK);
        sk_value_release(&error);
    }
}

static void release_nothing(void *ctx) {
    (void)ctx;
}

/* ctx: a counter; fails (with nil) at its second call. */
static void count_next_failing_at_two(void *ctx, const sk_value *value) {
    (void)value;
    counter_hit(ctx);
    if (counter_get(ctx) == 2) {
        sk_value error = {0};
        cr_assert_eq(sk_callback_fail(&error), SK_OK);
    }
}

/* A plain observer's callback: sk_callback_fail is refused there. */
static void plain_fail_hook(recorder *r, const sk_value *value) {
    if (value_int(value) == *(const int64_t *)r->user) {
        sk_value error = int_value(1);
        cr_assert_eq(sk_callback_fail(&error), SK_ERR_UNSUPPORTED);
    }
}

static sk_disposable *start_failing_at(recorder *r, sk_signal *signal, int64_t *at, int held) {
    recorder_init(r);
    r->on_next = fail_at_hook;
    r->user = at;
    sk_observer observer = recorder_observer(r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start_failable(&d, signal, &observer, held));
    cr_assert_not_null(d);
    return d;
}

Test(callback_fail, a_failable_observer_over_a_generator_ends_with_the_error_and_disposes_it, .timeout = SK_TEST_TIMEOUT) {
    for (int held = 0; held <= 1; held++) {
        manual_source s;
        sk_signal *source = manual_init_signal(&s);
        int64_t at = 2;
        recorder r;
        sk_disposable *d = start_failing_at(&r, source, &at, held);
        subscriber_put_int(manual_subscriber(&s, 0), 1);
        subscriber_put_int(manual_subscriber(&s, 0), 2);
        subscriber_put_int(manual_subscriber(&s, 0), 3);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
        int64_t values[] = {1, 2};
        /* The release runs as the subscription ends, unless the disposable
         * holds the observer. */
        recorder_expect(&r, held ? "nne" : "nner", values, 2);
        expect_string_error(&r, 2, "bad 2");
        cr_assert_eq(counter_get(&s.disposed), 1, "the upstream is disposed (held %d)", held);
        recorder_finish(&r, d);
        sk_signal_release(source);
        manual_destroy(&s);
        expect_no_live_objects(0);
    }
}

Test(callback_fail, a_failable_observer_after_stages_over_a_pipe_fails_once, .timeout = SK_TEST_TIMEOUT) {
    /* The stages' function with and without a release function: the
     * observer's callback joins a run the handle absorbs, or one it does not. */
    for (int with_release = 0; with_release <= 1; with_release++) {
        for (int held = 0; held <= 1; held++) {
            sk_pipe *pipe = NULL;
            sk_signal *signal = NULL, *mapped = NULL;
            SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
            SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
            int64_t never = -1;
            SK_OK_OR_FAIL(sk_signal_map(&mapped, signal, times_ten_failing_at, &never, with_release ? release_nothing : NULL));
            int64_t at = 20;
            recorder r;
            sk_disposable *d = start_failing_at(&r, mapped, &at, held);
            pipe_put_int(pipe, 1);
            pipe_put_int(pipe, 2);
            pipe_put_int(pipe, 3);
            SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
            int64_t values[] = {10, 20};
            /* The release runs as the subscription ends, unless the disposable
         * holds the observer. */
        recorder_expect(&r, held ? "nne" : "nner", values, 2);
            expect_string_error(&r, 2, "bad 20");
            recorder_finish(&r, d);
            sk_signal_release(mapped);
            sk_signal_release(signal);
            sk_pipe_release(pipe);
            expect_no_live_objects(0);
        }
    }
}

Test(callback_fail, a_failable_observer_with_a_value_callback_only_stops_receiving, .timeout = SK_TEST_TIMEOUT) {
    for (int held = 0; held <= 1; held++) {
        manual_source s;
        sk_signal *source = manual_init_signal(&s);
        counter calls;
        counter_init(&calls);
        sk_observer observer = {0};
        observer.next = count_next_failing_at_two;
        observer.ctx = &calls;
        sk_disposable *d = NULL;
        SK_OK_OR_FAIL(sk_signal_start_failable(&d, source, &observer, held));
        for (int64_t n = 1; n <= 4; n++)
            subscriber_put_int(manual_subscriber(&s, 0), n);
        cr_assert_eq(counter_get(&calls), 2, "no value after the failing call (held %d)", held);
        cr_assert_eq(counter_get(&s.disposed), 1, "the upstream is disposed");
        sk_disposable_release(d);
        sk_signal_release(source);
        manual_destroy(&s);
        counter_destroy(&calls);
        expect_no_live_objects(0);
    }
}

Test(callback_fail, a_plain_observer_still_cannot_fail, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *source = manual_init_signal(&s);
    int64_t at = 1;
    recorder r;
    recorder_init(&r);
    r.on_next = plain_fail_hook;
    r.user = &at;
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, source, &observer));
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    int64_t values[] = {1, 2};
    recorder_expect(&r, "nn", values, 2);
    recorder_finish(&r, d);
    sk_signal_release(source);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

/* The error of a failing observer waits for the value call in flight on
 * another thread: thread A is inside the callback with 1 (held there by a
 * gate) when the main thread's put of 2 fails; the error arrives only once
 * A's call has returned, on A's thread, and nothing after it. */
typedef struct {
    gate inside, go;
    int64_t at;
    pthread_t error_thread;
    int errors_seen_while_inside;
    recorder *r;
} in_flight;

static void in_flight_hook(recorder *r, const sk_value *value) {
    in_flight *f = r->user;
    int64_t n = value_int(value);
    if (n == 1) {
        gate_open(&f->inside);
        cr_assert(gate_wait(&f->go, SK_WAIT_SECONDS));
        f->errors_seen_while_inside = r->errors;
    } else if (n == f->at) {
        sk_value error = int_value(-n);
        cr_assert_eq(sk_callback_fail(&error), SK_OK);
    }
}

static void in_flight_error_hook(recorder *r, const sk_value *value) {
    (void)value;
    ((in_flight *)r->user)->error_thread = pthread_self();
}

static void *put_one(void *pipe) {
    pipe_put_int(pipe, 1);
    return NULL;
}

Test(callback_fail, a_failable_observer_s_error_waits_for_the_calls_in_flight, .timeout = SK_TEST_TIMEOUT) {
    for (int held = 0; held <= 1; held++) {
        sk_pipe *pipe = NULL;
        sk_signal *signal = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
        in_flight f = {.at = 2};
        gate_init(&f.inside);
        gate_init(&f.go);
        recorder r;
        recorder_init(&r);
        r.on_next = in_flight_hook;
        r.on_error = in_flight_error_hook;
        r.user = &f;
        sk_observer observer = recorder_observer(&r);
        sk_disposable *d = NULL;
        SK_OK_OR_FAIL(sk_signal_start_failable(&d, signal, &observer, held));
        pthread_t a;
        cr_assert_eq(pthread_create(&a, NULL, put_one, pipe), 0);
        cr_assert(gate_wait(&f.inside, SK_WAIT_SECONDS));
        pipe_put_int(pipe, 2); /* fails; A is still inside its call */
        pipe_put_int(pipe, 3); /* after the failure: not delivered */
        cr_assert_eq(recorder_nexts(&r), 2);
        gate_open(&f.go);
        cr_assert_eq(pthread_join(a, NULL), 0);
        cr_assert(recorder_wait_terminated(&r));
        if (!held)
            cr_assert(recorder_wait_release(&r));
        cr_assert_eq(f.errors_seen_while_inside, 0, "the error came while a value call was in flight");
        cr_assert(pthread_equal(f.error_thread, a), "the error runs on the thread whose call returned last");
        char log[16];
        cr_assert_str_eq(recorder_log(&r, log, sizeof log), held ? "nne" : "nner");
        recorder_finish(&r, d);
        sk_signal_release(signal);
        sk_pipe_release(pipe);
        gate_destroy(&f.inside);
        gate_destroy(&f.go);
        expect_no_live_objects(0);
    }
}
