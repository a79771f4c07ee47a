/* test_operators_reduce.c - reduce-left, scan and pairwise (the C layer's
 * Operators_Reduce.swift; the core's Signal_Reduce.swift and
 * Signal_Reduce+Scan.swift): values and order, each subscription from its
 * own copy of the initial value, heap and array values, terminal events,
 * releases, a dispose inside a callback, disposal and argument errors. The
 * shared marble table plays their cases too (test_marble_table.c). */
#include <stdio.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Reduce left                                                              */
/* ------------------------------------------------------------------------ */

/* accumulator * 10 + value; counts calls; checks that out is nil on entry. */
static void fold_digits(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    counter_hit(ctx);
    if (sk_value_kind(out) != SK_KIND_NIL) {
        sk_test_abort("reduce_left: out is not nil on entry", SK_ERR_INVALID_ARGUMENT);
    }
    sk_value_set_int64(out, value_int(accumulator) * 10 + value_int(value));
}

/* accumulator (a string) with the value's digit appended: heap values. */
static void append_digit(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    (void)ctx;
    const char *text = NULL;
    SK_OK_OR_ABORT(sk_value_get_string(accumulator, &text, NULL));
    char buffer[64];
    snprintf(buffer, sizeof buffer, "%s%lld", text, (long long)value_int(value));
    SK_OK_OR_ABORT(sk_value_set_string(out, buffer));
}

static void write_nothing(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)accumulator;
    (void)value;
    (void)out;
}

Test(operators_reduce, reduce_left_folds_in_order_per_subscription, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3, 4 };
    sk_signal *ints = ints_signal(input, 4);
    counter calls, released;
    counters_init(2, &calls, &released);
    sk_value initial = int_value(9);
    sk_signal *folded = NULL;
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, ints, &initial, fold_digits, &calls, NULL));
    /* Two subscriptions: each starts again from the initial value. */
    for (int i = 0; i < 2; i++) {
        recorder r;
        sk_disposable *d = recorder_start(&r, folded);
        recorder_expect_one(&r, "ncr", 91234);
        recorder_finish(&r, d);
    }
    cr_assert_eq(counter_get(&calls), 8);
    sk_signal_release(folded);

    /* Heap values: the initial string is borrowed (released right away here). */
    sk_value prefix = string_value(">");
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, ints, &prefix, append_digit, &released, counter_hit));
    sk_value_release(&prefix);
    recorder r;
    sk_disposable *d = recorder_start(&r, folded);
    recorder_expect(&r, "ncr", NULL, 0);
    expect_string_event(&r, 0, ">1234");
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&released), 0);
    sk_signal_release(folded);
    cr_assert_eq(counter_get(&released), 1, "the release ran %d times", counter_get(&released));

    /* Writing nothing makes the accumulator nil. */
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, ints, &initial, write_nothing, NULL, NULL));
    expect_one_nil(folded);

    sk_signal_release(ints);
    counters_destroy(2, &calls, &released);
    expect_no_live_objects(0);
}

Test(operators_reduce, reduce_left_of_nothing_and_errors, .timeout = SK_TEST_TIMEOUT) {
    counter calls;
    counter_init(&calls);
    sk_value initial = int_value(5);
    sk_signal *empty = NULL, *folded = NULL;
    SK_OK_OR_FAIL(sk_signal_complete(&empty));
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, empty, &initial, fold_digits, &calls, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, folded);
    recorder_expect_one(&r, "ncr", 5);
    recorder_finish(&r, d);
    sk_signal_release(folded);

    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_reduce_left(&p.op, p.upstream, &initial, fold_digits, &calls, NULL));
    expect_only_the_error(&p, "broken");
    cr_assert_eq(counter_get(&calls), 1);
    pipeline_finish(&p);
    sk_signal_release(empty);
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

/* The family's operators, for expect_disposal_disposes_upstream. */
static sk_signal *reduce_operator(int which, sk_signal *source, manual_source *s, const char **name) {
    (void)s;
    sk_signal *out = NULL;
    sk_value zero = int_value(0);
    switch (which) {
    case 0: *name = "reduce_left"; SK_OK_OR_FAIL(sk_signal_reduce_left(&out, source, &zero, write_nothing, NULL, NULL)); break;
    default: return NULL;
    }
    return out;
}

Test(operators_reduce, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(expect_disposal_disposes_upstream(reduce_operator), 1, "not every operator ran");
    expect_no_live_objects(0);
}

/* sk_signal_reduce_left (from 0) for the callback operator checks. */
static int reduce_left_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    sk_value zero = int_value(0);
    return sk_signal_reduce_left(out, signal, &zero, with_callback ? fold_digits : NULL, ctx, release);
}

/* The argument errors of reduce_left's other arguments: its initial value. */
static void reduce_left_argument_errors(bad_args *args) {
    sk_signal *never = args->never, *out = NULL;
    counter *released = &args->released;
    sk_value malformed;
    memset(&malformed, 0, sizeof malformed);
    malformed.kind = (sk_kind)99;

    EXPECT_FAILURE(sk_signal_reduce_left(&out, never, NULL, fold_digits, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    EXPECT_FAILURE(sk_signal_reduce_left(&out, never, &malformed, fold_digits, released, counter_hit), SK_ERR_INVALID_ARGUMENT, released);
}

CALLBACK_OPERATOR_TESTS(operators_reduce, "reduce_left", reduce_left_call, reduce_left_argument_errors, 6)

/* ------------------------------------------------------------------------ */
/* scan, pairwise (Signal_Reduce+Scan.swift): what C adds to the marble      */
/* table's cases: heap values, array values, releases, a dispose inside a    */
/* callback, argument errors.                                                */
/* ------------------------------------------------------------------------ */

/* scan delivers every accumulator, each subscription from its own copy of
 * `initial` (a heap value: a string). */
Test(operators_reduce, scan_delivers_every_accumulator_per_subscription, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *ints = ints_signal(input, 3);
    sk_value initial;
    SK_OK_OR_FAIL(sk_value_set_string(&initial, "0"));
    sk_signal *scanned = NULL;
    SK_OK_OR_FAIL(sk_signal_scan(&scanned, ints, &initial, append_digit, NULL, NULL));
    sk_value_release(&initial);
    static const char *const expected[] = { "01", "012", "0123" };
    for (int round = 0; round < 2; round++) {
        recorder r;
        sk_disposable *d = recorder_start(&r, scanned);
        cr_assert_eq(recorder_nexts(&r), 3);
        for (size_t i = 0; i < 3; i++) {
            const char *text = NULL;
            SK_OK_OR_FAIL(sk_value_get_string(&recorder_event(&r, i)->value, &text, NULL));
            cr_assert_str_eq(text, expected[i]);
        }
        cr_assert_eq(recorder_event(&r, 3)->kind, REC_COMPLETED);
        recorder_finish(&r, d);
    }
    sk_signal_release(scanned);
    sk_signal_release(ints);
    expect_no_live_objects(0);
}

/* pairwise: arrays [previous, value] from the second value on. */
Test(operators_reduce, pairwise_delivers_arrays_of_two, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *ints = ints_signal(input, 3);
    sk_signal *pairs = NULL;
    SK_OK_OR_FAIL(sk_signal_pairwise(&pairs, ints));
    recorder r;
    sk_disposable *d = recorder_start(&r, pairs);
    cr_assert_eq(recorder_nexts(&r), 2);
    recorder_expect_int_array(&r, 0, input, 2);
    recorder_expect_int_array(&r, 1, input + 1, 2);
    recorder_finish(&r, d);
    sk_signal_release(pairs);
    sk_signal_release(ints);
    expect_no_live_objects(0);
}

/* fold_digits's counter for build_scan (counts nothing asserted). */
static counter scan_calls;

static sk_signal *build_scan(sk_signal *s) {
    sk_value zero = int_value(0);
    sk_signal *o = NULL;
    counter_init(&scan_calls);
    SK_OK_OR_FAIL(sk_signal_scan(&o, s, &zero, fold_digits, &scan_calls, NULL));
    return o;
}
static sk_signal *build_pairwise(sk_signal *s) { sk_signal *o = NULL; SK_OK_OR_FAIL(sk_signal_pairwise(&o, s)); return o; }

/* Values queued behind another thread's fold before a completion is put on
 * a third thread are folded and delivered before that completion (the
 * terminal event waits for the value calls in flight, and so for the
 * values they had taken in): thread A is inside the fold of 1, thread B's
 * puts of 2, 3 and 4 return (queued behind A's), then the main thread puts
 * the completion and lets A go. With a map after the scan, whose stage the
 * C layer runs in the same fused chain. Before: only the completion. */
typedef struct {
    gate inside, go;
} held_fold;

static void fold_sum_holding_one(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    held_fold *h = ctx;
    if (value_int(value) == 1) {
        gate_open(&h->inside);
        cr_assert(gate_wait(&h->go, SK_WAIT_SECONDS));
    }
    sk_value_set_int64(out, value_int(accumulator) + value_int(value));
}

static void times_ten(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(in) * 10);
}

static void *put_one_into(void *pipe) {
    pipe_put_int(pipe, 1);
    return NULL;
}

static void *put_two_three_four(void *pipe) {
    for (int64_t n = 2; n <= 4; n++) {
        pipe_put_int(pipe, n);
    }
    return NULL;
}

Test(operators_reduce, values_queued_behind_a_fold_before_a_completion_are_delivered_before_it, .timeout = SK_TEST_TIMEOUT) {
    for (int mapped = 0; mapped <= 1; mapped++) {
        held_fold h;
        gate_init(&h.inside);
        gate_init(&h.go);
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *scanned = NULL, *signal = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        sk_value zero = int_value(0);
        SK_OK_OR_FAIL(sk_signal_scan(&scanned, source, &zero, fold_sum_holding_one, &h, NULL));
        if (mapped) {
            SK_OK_OR_FAIL(sk_signal_map(&signal, scanned, times_ten, NULL, NULL));
        } else {
            signal = sk_signal_retain(scanned);
        }
        recorder r;
        sk_disposable *d = recorder_start(&r, signal);
        pthread_t a, b;
        cr_assert_eq(pthread_create(&a, NULL, put_one_into, pipe), 0);
        cr_assert(gate_wait(&h.inside, SK_WAIT_SECONDS));
        cr_assert_eq(pthread_create(&b, NULL, put_two_three_four, pipe), 0);
        cr_assert_eq(pthread_join(b, NULL), 0); /* its puts returned, queued */
        SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
        gate_open(&h.go);
        cr_assert_eq(pthread_join(a, NULL), 0);
        cr_assert(recorder_wait_release(&r));
        const int64_t scale = mapped ? 10 : 1;
        const int64_t expected[] = { 1 * scale, 3 * scale, 6 * scale, 10 * scale };
        recorder_expect(&r, "nnnncr", expected, 4);
        recorder_finish(&r, d);
        sk_signal_release(signal);
        sk_signal_release(scanned);
        sk_signal_release(source);
        sk_pipe_release(pipe);
        gate_destroy(&h.inside);
        gate_destroy(&h.go);
        expect_no_live_objects(0);
    }
}

/* The same when the completion is put from inside the observer's callback
 * on the thread running the step, over a generator's subscriber: thread A
 * is inside the callback of 1 (from scan or pairwise), thread B's put of 2
 * returns (queued behind A's step), then A's callback puts the completion
 * into the generator's subscriber and returns. The stage's gate holds the
 * completion behind 2: 2, then the completion (before: 2 was dropped; an
 * acceptance tester's program, every round). */
typedef struct {
    sk_subscriber *subscriber;
    gate inside, go;
    int calls; /* the first value callback is thread A's */
} nested_end;

static sk_disposable *keep_subscriber(void *ctx, sk_subscriber *subscriber) {
    ((nested_end *)ctx)->subscriber = sk_subscriber_retain(subscriber);
    return NULL;
}

static void put_into(sk_subscriber *subscriber, int64_t n) {
    sk_value value = int_value(n);
    SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &value));
}

static void *put_one_into_subscriber(void *ctx) {
    put_into(((nested_end *)ctx)->subscriber, 1);
    return NULL;
}

static void *put_two_into_subscriber(void *ctx) {
    put_into(((nested_end *)ctx)->subscriber, 2);
    return NULL;
}

static void end_from_inside(recorder *r, const sk_value *value) {
    nested_end *e = r->user;
    (void)value;
    if (__atomic_fetch_add(&e->calls, 1, __ATOMIC_SEQ_CST) == 0) {
        gate_open(&e->inside);
        cr_assert(gate_wait(&e->go, SK_WAIT_SECONDS));
        SK_OK_OR_ABORT(sk_subscriber_put_completion(e->subscriber));
    }
}

static void fold_keep_last(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)accumulator;
    SK_OK_OR_ABORT(sk_value_copy(out, value));
}

Test(operators_reduce, a_value_queued_behind_a_step_comes_before_a_completion_put_from_inside_a_callback, .timeout = SK_TEST_TIMEOUT) {
    for (int pairs = 0; pairs <= 1; pairs++) {
        nested_end e = { 0 };
        gate_init(&e.inside);
        gate_init(&e.go);
        sk_signal *source = NULL, *signal = NULL;
        SK_OK_OR_FAIL(sk_signal_create(&source, keep_subscriber, &e, NULL));
        if (pairs) {
            SK_OK_OR_FAIL(sk_signal_pairwise(&signal, source));
        } else {
            sk_value zero = int_value(0);
            SK_OK_OR_FAIL(sk_signal_scan(&signal, source, &zero, fold_keep_last, NULL, NULL));
        }
        recorder r;
        recorder_init(&r);
        r.on_next = end_from_inside;
        r.user = &e;
        r.keep_values = false;
        sk_observer observer = recorder_observer(&r);
        sk_disposable *d = NULL;
        SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
        if (pairs) {
            put_into(e.subscriber, 0);
        }
        pthread_t a, b;
        cr_assert_eq(pthread_create(&a, NULL, put_one_into_subscriber, &e), 0);
        cr_assert(gate_wait(&e.inside, SK_WAIT_SECONDS));
        cr_assert_eq(pthread_create(&b, NULL, put_two_into_subscriber, &e), 0);
        cr_assert_eq(pthread_join(b, NULL), 0); /* its put returned, queued */
        gate_open(&e.go);
        cr_assert_eq(pthread_join(a, NULL), 0);
        cr_assert(recorder_wait_release(&r));
        char log[16];
        cr_assert_str_eq(recorder_log(&r, log, sizeof log), "nncr", "%s: the queued value, then the completion", pairs ? "pairwise" : "scan");
        recorder_finish(&r, d);
        sk_signal_release(signal);
        sk_signal_release(source);
        sk_subscriber_release(e.subscriber);
        gate_destroy(&e.inside);
        gate_destroy(&e.go);
        expect_no_live_objects(0);
    }
}

Test(operators_reduce, scan_and_pairwise_dispose_inside_a_value_callback, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("scan", build_scan, 2);
    counter_destroy(&scan_calls);
    expect_dispose_inside_next("pairwise", build_pairwise, 3);
    expect_no_live_objects(0);
}

/* sk_signal_scan (from 0) for the callback operator checks. */
static int scan_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    sk_value zero = int_value(0);
    return sk_signal_scan(out, signal, &zero, with_callback ? fold_digits : NULL, ctx, release);
}

Test(operators_reduce, scan_and_pairwise_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *not_signal = args.not_signal, *out = NULL;
    counter *released = &args.released;
    sk_value malformed;
    memset(&malformed, 0, sizeof malformed);
    malformed.kind = (sk_kind)99;

    expect_release_after_the_subscription("scan", scan_call);
    expect_callback_argument_errors("scan", scan_call, &args);
    EXPECT_FAILURE(sk_signal_scan(&out, never, NULL, fold_digits, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    EXPECT_FAILURE(sk_signal_scan(&out, never, &malformed, fold_digits, released, counter_hit), SK_ERR_INVALID_ARGUMENT, released);
    EXPECT_FAILURE_NULL_OUT(sk_signal_scan(NULL, never, &malformed, fold_digits, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    cr_assert_eq(counter_get(released), 7);

    expect_unary_argument_errors("pairwise", sk_signal_pairwise, never, not_signal);

    bad_args_destroy(&args);
    expect_no_live_objects(0);
}

/* An array-valued stage (pairwise) passes on that its downstream ended
 * during the start: a take(1) above ends the subscription at the first
 * pair, and the signal after it in a concat is never started. */
Test(operators_reduce, pairwise_under_take_stops_the_start_of_what_follows, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2 };
    manual_source later;
    sk_signal *later_signal = manual_init_signal(&later);
    sk_signal *both[] = { ints_signal(input, 2), later_signal };
    sk_signal *joined = NULL, *pairs = NULL, *one = NULL;
    SK_OK_OR_FAIL(sk_signal_concat(&joined, both, 2));
    SK_OK_OR_FAIL(sk_signal_pairwise(&pairs, joined));
    SK_OK_OR_FAIL(sk_signal_take(&one, pairs, 1));
    recorder r;
    sk_disposable *d = recorder_start(&r, one);
    recorder_expect(&r, "ncr", NULL, 0);
    recorder_expect_int_array(&r, 0, input, 2);
    cr_assert_eq(counter_get(&later.starts), 0, "the signal after the take's end was started");
    recorder_finish(&r, d);
    sk_signal_release(one);
    sk_signal_release(pairs);
    sk_signal_release(joined);
    sk_signal_release(both[0]);
    sk_signal_release(later_signal);
    manual_destroy(&later);
    expect_no_live_objects(0);
}
