/* test_operators_sequence.c - ignore-values, reduce-left, queue, throttled,
 * then and deferred (the C layer's Operators_Meta.swift and
 * Operators_Reduce.swift): values and
 * order, terminal events, releases, long synchronous sequences on a small
 * stack, disposal and argument errors. */
#include <stdio.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* A signal value wrapping `signal` (borrowed); +1, release it. */
static sk_value signal_value(sk_signal *signal) {
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_signal(&v, signal));
    return v;
}

/* Puts a value wrapping `signal` (which this consumes) into `subscriber`. */
static void put_signal(sk_subscriber *subscriber, sk_signal *signal) {
    sk_value v = signal_value(signal);
    sk_signal_release(signal);
    SK_OK_OR_FAIL(sk_subscriber_put_next(subscriber, &v));
    sk_value_release(&v);
}

static sk_signal *single_int(int64_t n) {
    sk_value v = int_value(n);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&signal, &v));
    return signal;
}

/* Starts `p` (its operator built), emits 1 then the error `text` into its
 * upstream, and asserts that only that error reached the recorder. */
static void expect_only_the_error(pipeline *p, const char *text) {
    pipeline_start(p);
    subscriber_put_int(pipeline_subscriber(p), 1);
    sk_value error = string_value(text);
    SK_OK_OR_FAIL(sk_subscriber_put_error(pipeline_subscriber(p), &error));
    recorder_expect(&p->r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&p->r, 0)->value, &error));
    sk_value_release(&error);
}

/* ------------------------------------------------------------------------ */
/* Ignore values                                                            */
/* ------------------------------------------------------------------------ */

Test(operators_sequence, ignore_values_passes_terminal_events_only, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *ints = ints_signal(input, 3);
    sk_signal *ignored = NULL;
    SK_OK_OR_FAIL(sk_signal_ignore_values(&ignored, ints));
    expect_signal_log(ignored, "cr", NULL, 0);

    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_ignore_values(&p.op, p.upstream));
    expect_only_the_error(&p, "bad");
    pipeline_finish(&p);
    sk_signal_release(ints);
    expect_no_live_objects(0);
}

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

Test(operators_sequence, reduce_left_folds_in_order_per_subscription, .timeout = SK_TEST_TIMEOUT) {
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

Test(operators_sequence, reduce_left_of_nothing_and_errors, .timeout = SK_TEST_TIMEOUT) {
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

/* ------------------------------------------------------------------------ */
/* Queue and throttled                                                      */
/* ------------------------------------------------------------------------ */

/* Starts `p`'s operator (a queue or throttled over the pipeline's upstream)
 * again and checks that `value`, a non-signal first in line, fails the new
 * subscription at once with an error mentioning `needle`. */
static void expect_non_signal_fails(pipeline *p, int64_t value, const char *needle) {
    pipeline_restart(p);
    subscriber_put_int(pipeline_subscriber_at(p, 1), value);
    recorder_expect(&p->r, "er", NULL, 0);
    expect_string_error(&p->r, 0, needle);
}

Test(operators_sequence, queue_runs_inner_signals_one_after_another, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    manual_source *a = &p.inner[0], *c = &p.inner[1];
    SK_OK_OR_FAIL(sk_signal_queue(&p.op, p.upstream));
    pipeline_start(&p);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(a));
    put_signal(o, single_int(2));
    put_signal(o, manual_signal(c));
    cr_assert_eq(counter_get(&a->starts), 1);
    cr_assert_eq(counter_get(&c->starts), 0, "started before its turn");
    subscriber_put_int(manual_subscriber(a, 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(a, 0)));
    cr_assert_eq(counter_get(&c->starts), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    subscriber_put_int(manual_subscriber(c, 0), 3);
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&p.r, "nnn", expected, 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(c, 0)));
    recorder_expect(&p.r, "nnncr", expected, 3);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_sequence, queue_non_signal_value_fails_in_its_turn, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_queue);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(&p.inner[0]));
    subscriber_put_int(o, 42);
    recorder_expect(&p.r, "", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_inner_subscriber(&p, 0)));
    recorder_expect(&p.r, "er", NULL, 0);
    expect_string_error(&p.r, 0, "sk_signal_queue");
    cr_assert_eq(counter_get(&p.source.disposed), 1, "the error ends the subscription");

    /* First in line: fails at once. */
    expect_non_signal_fails(&p, 42, "sk_signal_queue: expected a signal (SK_KIND_SIGNAL), got an int64 (SK_KIND_INT64)");
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

typedef struct queue_loop {
    sk_subscriber *first;
} queue_loop;

static void complete_first(void *arg) {
    SK_OK_OR_ABORT(sk_subscriber_put_completion(((queue_loop *)arg)->first));
}

Test(operators_sequence, queue_of_many_synchronous_signals_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_queue);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(&p.inner[0]));
    for (int64_t i = 1; i <= LOOPS; i++) {
        put_signal(o, single_int(i));
    }
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    cr_assert_eq(recorder_nexts(&p.r), 0);
    /* Completing the first runs the 10 000 waiting ones, on a small stack. */
    queue_loop loop = { pipeline_inner_subscriber(&p, 0) };
    run_on_small_stack(complete_first, &loop);
    cr_assert_eq(recorder_nexts(&p.r), LOOPS);
    cr_assert_eq(p.r.completions, 1);
    int64_t values[REC_MAX_EVENTS];
    size_t n = recorder_ints(&p.r, values, REC_MAX_EVENTS);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(values[i], (int64_t)i + 1);
    }
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_sequence, throttled_keeps_only_the_latest_waiting_signal, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    manual_source *a = &p.inner[0], *b = &p.inner[1], *c = &p.inner[2];
    SK_OK_OR_FAIL(sk_signal_throttled(&p.op, p.upstream));
    pipeline_start(&p);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(a));
    put_signal(o, manual_signal(b));
    subscriber_put_int(o, 99); /* waiting, replaced: dropped whatever its kind */
    put_signal(o, manual_signal(c));
    subscriber_put_int(manual_subscriber(a, 0), 1);
    cr_assert_eq(counter_get(&a->disposed), 0, "the running one is never interrupted");
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(a, 0)));
    cr_assert_eq(counter_get(&b->starts), 0, "a replaced signal started");
    cr_assert_eq(counter_get(&c->starts), 1);
    subscriber_put_int(manual_subscriber(c, 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(c, 0)));
    const int64_t expected[] = { 1, 3 };
    recorder_expect(&p.r, "nncr", expected, 2);

    /* A non-signal value that gets its turn fails. */
    expect_non_signal_fails(&p, 7, "sk_signal_throttled");
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Then and deferred                                                        */
/* ------------------------------------------------------------------------ */

Test(operators_sequence, then_runs_next_after_completion, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    manual_source *next = &p.inner[0];
    SK_OK_OR_FAIL(sk_signal_then(&p.op, p.upstream, p.inner_signal[0]));
    sk_signal_release(p.inner_signal[0]); /* borrowed: the result retains it */
    p.inner_signal[0] = NULL;
    pipeline_start(&p);
    subscriber_put_int(pipeline_subscriber(&p), 1);
    cr_assert_eq(counter_get(&next->starts), 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&p)));
    cr_assert_eq(counter_get(&next->starts), 1);
    subscriber_put_int(manual_subscriber(next, 0), 2);
    recorder_expect(&p.r, "nn", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(next, 0)));
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&p.r, "nncr", expected, 2);

    /* An error of the first: passes, the next never starts. */
    pipeline_restart(&p);
    sk_value error = string_value("first failed");
    SK_OK_OR_FAIL(sk_subscriber_put_error(pipeline_subscriber_at(&p, 1), &error));
    recorder_expect_error(&p.r, &error);
    cr_assert_eq(counter_get(&next->starts), 1);
    sk_value_release(&error);

    /* Disposal while the next runs disposes it. */
    pipeline_restart(&p);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber_at(&p, 2)));
    cr_assert_eq(counter_get(&next->starts), 2);
    sk_disposable_dispose(p.d);
    cr_assert_eq(counter_get(&next->disposed), 2);
    recorder_expect(&p.r, "r", NULL, 0);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_sequence, then_in_a_synchronous_restart_loop_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    countdown_run t;
    countdown_run_init(&t, LOOPS, false);
    sk_signal *zero = single_int(0);
    sk_signal *chained = NULL;
    SK_OK_OR_FAIL(sk_signal_then(&chained, t.source, zero));
    SK_OK_OR_FAIL(sk_signal_restart(&t.op, chained));
    countdown_run_start_looping(&t);
    cr_assert_eq(recorder_nexts(&t.r), 2 * LOOPS);
    int64_t values[8];
    size_t n = recorder_ints(&t.r, values, 8);
    const int64_t expected[] = { 1, 0, 2, 0, 3, 0, 4, 0 };
    cr_assert_eq(n, 8);
    cr_assert_arr_eq(values, expected, sizeof expected);
    countdown_run_stop(&t);
    cr_assert_eq(counter_get(&t.c.disposed), 1);
    sk_signal_release(chained);
    sk_signal_release(zero);
    countdown_run_finish(&t);
    expect_no_live_objects(0);
}

/* ctx: a manual source, or NULL to return NULL; counts nothing itself. */
typedef struct deferrer {
    manual_source *source;
    counter calls;
    counter released;
    pthread_t thread;
} deferrer;

static sk_signal *make_deferred(void *ctx) {
    deferrer *f = ctx;
    f->thread = pthread_self();
    counter_hit(&f->calls);
    return f->source != NULL ? manual_signal(f->source) : NULL;
}

static void deferrer_release(void *ctx) {
    counter_hit(&((deferrer *)ctx)->released);
}

Test(operators_sequence, deferred_calls_fn_at_each_start, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    deferrer f;
    memset(&f, 0, sizeof f);
    f.source = &p.source;
    counters_init(2, &f.calls, &f.released);
    SK_OK_OR_FAIL(sk_signal_deferred(&p.op, make_deferred, &f, deferrer_release));
    cr_assert_eq(counter_get(&f.calls), 0, "called before any start");
    pipeline_start(&p);
    cr_assert(pthread_equal(f.thread, pthread_self()));
    recorder r2;
    sk_disposable *d2 = recorder_start(&r2, p.op);
    cr_assert_eq(counter_get(&f.calls), 2);
    cr_assert_eq(counter_get(&p.source.starts), 2);
    subscriber_put_int(pipeline_subscriber_at(&p, 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber_at(&p, 0)));
    subscriber_put_int(pipeline_subscriber_at(&p, 1), 2);
    const int64_t one[] = { 1 }, two[] = { 2 };
    recorder_expect(&p.r, "ncr", one, 1);
    recorder_expect(&r2, "n", two, 1);
    sk_disposable_dispose(d2);
    cr_assert_eq(counter_get(&p.source.disposed), 2);
    pipeline_stop(&p);
    recorder_finish(&r2, d2);
    cr_assert_eq(counter_get(&f.released), 0);

    /* NULL from fn: completes at once. */
    f.source = NULL;
    sk_signal *null_deferred = NULL;
    SK_OK_OR_FAIL(sk_signal_deferred(&null_deferred, make_deferred, &f, NULL));
    sk_disposable *d = recorder_start(&r2, null_deferred);
    recorder_expect(&r2, "cr", NULL, 0);
    recorder_finish(&r2, d);
    sk_signal_release(null_deferred);

    pipeline_finish(&p);
    cr_assert_eq(counter_get(&f.released), 1, "the release ran %d times", counter_get(&f.released));
    counters_destroy(2, &f.calls, &f.released);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Disposal, releases and argument errors                                   */
/* ------------------------------------------------------------------------ */

static sk_signal *defer_manual(void *ctx) {
    return manual_signal(ctx);
}

/* The family's operators, for expect_disposal_disposes_upstream. */
static sk_signal *sequence_operator(int which, sk_signal *source, manual_source *s, const char **name) {
    sk_signal *out = NULL;
    sk_value zero = int_value(0);
    switch (which) {
    case 0: *name = "ignore_values"; SK_OK_OR_FAIL(sk_signal_ignore_values(&out, source)); break;
    case 1: *name = "reduce_left"; SK_OK_OR_FAIL(sk_signal_reduce_left(&out, source, &zero, write_nothing, NULL, NULL)); break;
    case 2: *name = "then"; SK_OK_OR_FAIL(sk_signal_then(&out, source, source)); break;
    case 3: *name = "deferred"; SK_OK_OR_FAIL(sk_signal_deferred(&out, defer_manual, s, NULL)); break;
    default: return NULL;
    }
    return out;
}

Test(operators_sequence, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(expect_disposal_disposes_upstream(sequence_operator), 4, "not every operator ran");

    /* Queue and throttled: the outer, the running inner; a waiting inner
     * is never started. */
    for (int throttled = 0; throttled < 2; throttled++) {
        pipeline p;
        pipeline_init(&p);
        SK_OK_OR_FAIL(throttled ? sk_signal_throttled(&p.op, p.upstream) : sk_signal_queue(&p.op, p.upstream));
        pipeline_start(&p);
        put_signal(pipeline_subscriber(&p), manual_signal(&p.inner[0]));
        put_signal(pipeline_subscriber(&p), manual_signal(&p.inner[1]));
        sk_disposable_dispose(p.d);
        cr_assert_eq(counter_get(&p.source.disposed), 1);
        cr_assert_eq(counter_get(&p.inner[0].disposed), 1);
        cr_assert_eq(counter_get(&p.inner[1].starts), 0);
        recorder_expect(&p.r, "r", NULL, 0);
        pipeline_finish(&p);
    }
    expect_no_live_objects(0);
}

/* sk_signal_reduce_left (from 0) for the callback operator checks. */
static int reduce_left_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    sk_value zero = int_value(0);
    return sk_signal_reduce_left(out, signal, &zero, with_callback ? fold_digits : NULL, ctx, release);
}

/* The argument errors of reduce_left's other arguments and of the family's
 * other operators. */
static void sequence_family_argument_errors(bad_args *args) {
    sk_signal *never = args->never, *not_signal = args->not_signal, *out = NULL;
    counter *released = &args->released;
    sk_value malformed;
    memset(&malformed, 0, sizeof malformed);
    malformed.kind = (sk_kind)99;

    EXPECT_FAILURE(sk_signal_reduce_left(&out, never, NULL, fold_digits, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    EXPECT_FAILURE(sk_signal_reduce_left(&out, never, &malformed, fold_digits, released, counter_hit), SK_ERR_INVALID_ARGUMENT, released);

    EXPECT_FAILURE_NULL_OUT(sk_signal_deferred(NULL, defer_manual, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    EXPECT_FAILURE(sk_signal_deferred(&out, NULL, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    /* NULL out and NULL fn together: still one release. */
    EXPECT_FAILURE_NULL_OUT(sk_signal_deferred(NULL, NULL, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);

    expect_unary_argument_errors("ignore_values", sk_signal_ignore_values, never, not_signal);
    expect_unary_argument_errors("queue", sk_signal_queue, never, not_signal);
    expect_unary_argument_errors("throttled", sk_signal_throttled, never, not_signal);

    EXPECT_FAILURE_NULL_OUT(sk_signal_then(NULL, never, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, not_signal, never), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, never, not_signal), SK_ERR_WRONG_KIND, NULL);
}

CALLBACK_OPERATOR_TESTS(operators_sequence, "reduce_left", reduce_left_call, sequence_family_argument_errors, 9)

/* ------------------------------------------------------------------------ */
/* scan, pairwise (the core's Signal_Reduce+Scan.swift), start_with, concat  */
/* (Signal_Meta+Concat.swift). The shared marble table plays their cases     */
/* (test_marble_table.c); here what C adds: heap values, array values,       */
/* releases, a dispose inside a callback, argument errors.                   */
/* ------------------------------------------------------------------------ */

/* scan delivers every accumulator, each subscription from its own copy of
 * `initial` (a heap value: a string). */
Test(operators_sequence, scan_delivers_every_accumulator_per_subscription, .timeout = SK_TEST_TIMEOUT) {
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
Test(operators_sequence, pairwise_delivers_arrays_of_two, .timeout = SK_TEST_TIMEOUT) {
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

/* start_with: its value first, then the signal's; concat: the signals one
 * after the other, an empty array completing at once. */
Test(operators_sequence, start_with_and_concat, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *first = ints_signal(input, 1), *rest = ints_signal(input + 1, 2);
    sk_value zero = int_value(0);
    const int64_t with_zero[] = { 0, 1 };
    sk_signal *started = NULL, *joined = NULL, *empty = NULL;
    SK_OK_OR_FAIL(sk_signal_start_with(&started, first, &zero));
    sk_signal *both[] = { first, rest };
    SK_OK_OR_FAIL(sk_signal_concat(&joined, both, 2));
    SK_OK_OR_FAIL(sk_signal_concat(&empty, NULL, 0));
    expect_signal_log(started, "nncr", with_zero, 2);
    expect_signal_log(joined, "nnncr", input, 3);
    expect_signal_log(empty, "cr", NULL, 0); /* each releases its signal */
    sk_signal_release(first);
    sk_signal_release(rest);
    expect_no_live_objects(0);
}

/* concat: an error stops the sequence; the later signals never start. */
Test(operators_sequence, concat_error_stops_the_sequence, .timeout = SK_TEST_TIMEOUT) {
    manual_source later;
    sk_signal *later_signal = manual_init_signal(&later);
    sk_value nil;
    sk_value_set_nil(&nil);
    sk_signal *failing = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &nil));
    sk_signal *both[] = { failing, later_signal };
    sk_signal *joined = NULL;
    SK_OK_OR_FAIL(sk_signal_concat(&joined, both, 2));
    expect_signal_log(joined, "er", NULL, 0); /* releases joined */
    cr_assert_eq(counter_get(&later.starts), 0);
    sk_signal_release(failing);
    sk_signal_release(later_signal);
    manual_destroy(&later);
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
static sk_signal *build_start_with(sk_signal *s) {
    sk_value zero = int_value(0);
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_start_with(&o, s, &zero));
    return o;
}
static sk_signal *build_concat(sk_signal *s) {
    sk_signal *both[] = { s, s };
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_concat(&o, both, 2));
    return o;
}

Test(operators_sequence, new_operators_dispose_inside_a_value_callback, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("scan", build_scan, 2);
    counter_destroy(&scan_calls);
    expect_dispose_inside_next("pairwise", build_pairwise, 3);
    expect_dispose_inside_next("concat", build_concat, 2);
    expect_no_live_objects(0);
}

/* start_with's value comes during the start, before the disposable is
 * handed back: disposing from inside it is the sk_signal_take(1) case. */
Test(operators_sequence, start_with_then_take_one_never_starts_the_signal, .timeout = SK_TEST_TIMEOUT) {
    manual_source source;
    sk_signal *upstream = manual_init_signal(&source);
    sk_signal *started = build_start_with(upstream), *one = NULL;
    SK_OK_OR_FAIL(sk_signal_take(&one, started, 1));
    const int64_t zero[] = { 0 };
    expect_signal_log(one, "ncr", zero, 1); /* releases one */
    cr_assert_eq(counter_get(&source.starts), 0);
    sk_signal_release(started);
    sk_signal_release(upstream);
    manual_destroy(&source);
    expect_no_live_objects(0);
}

/* sk_signal_scan (from 0) for the callback operator checks. */
static int scan_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    sk_value zero = int_value(0);
    return sk_signal_scan(out, signal, &zero, with_callback ? fold_digits : NULL, ctx, release);
}

Test(operators_sequence, scan_pairwise_start_with_concat_argument_errors, .timeout = SK_TEST_TIMEOUT) {
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
    sk_value zero = int_value(0);
    EXPECT_FAILURE_NULL_OUT(sk_signal_start_with(NULL, never, &zero), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, NULL, &zero), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, not_signal, &zero), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, never, &malformed), SK_ERR_INVALID_ARGUMENT, NULL);
    sk_signal *some[] = { never, not_signal };
    EXPECT_FAILURE_NULL_OUT(sk_signal_concat(NULL, some, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_concat(&out, NULL, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_concat(&out, some, 2), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_concat(&out, some, SIZE_MAX), SK_ERR_INVALID_ARGUMENT, NULL);

    bad_args_destroy(&args);
    expect_no_live_objects(0);
}

/* An array-valued stage (pairwise) passes on that its downstream ended
 * during the start: a take(1) above ends the subscription at the first
 * pair, and the signal after it in a concat is never started. */
Test(operators_sequence, pairwise_under_take_stops_the_start_of_what_follows, .timeout = SK_TEST_TIMEOUT) {
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
