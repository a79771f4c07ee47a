/* test_operators_control.c - take-until, last, ignore-values, reduce-left,
 * catch, restart, restart-if-error, retry, queue, throttled, then and
 * deferred: values and order, terminal events, releases, disposal, long
 * synchronous loops on a small stack, and argument errors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* A long synchronous loop must not grow the stack: the body runs on a thread
 * whose stack (SMALL_STACK_BYTES) is far smaller than 10 000 nested
 * iterations would need. */
#define LOOPS 10000

/* A source whose first `limit` starts each emit the start's number, then
 * complete (or fail, with the number as error) synchronously; the starts
 * after that hold their subscriber open (the first one is kept in `held`)
 * and return a disposable counted in `disposed`. */
typedef struct countdown {
    pthread_mutex_t mutex;
    int limit;
    bool fail;
    int starts;
    sk_queue *expected_queue; /* when set: count starts not on it in `off_queue` */
    int off_queue;
    sk_subscriber *held;
    counter start_count;
    counter disposed;
    counter released; /* the signal's context */
} countdown;

static void countdown_init(countdown *c, int limit, bool fail) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mutex, NULL);
    c->limit = limit;
    c->fail = fail;
    counter_init(&c->start_count);
    counter_init(&c->disposed);
    counter_init(&c->released);
}

static void countdown_destroy(countdown *c) {
    sk_subscriber_release(c->held);
    counter_destroy(&c->start_count);
    counter_destroy(&c->disposed);
    counter_destroy(&c->released);
    pthread_mutex_destroy(&c->mutex);
}

static sk_disposable *countdown_generator(void *ctx, sk_subscriber *subscriber) {
    countdown *c = ctx;
    pthread_mutex_lock(&c->mutex);
    int n = ++c->starts;
    if (c->expected_queue != NULL && !sk_queue_is_current(c->expected_queue)) {
        c->off_queue++;
    }
    bool hold = n > c->limit && c->held == NULL;
    if (hold) {
        c->held = sk_subscriber_retain(subscriber);
    }
    pthread_mutex_unlock(&c->mutex);
    counter_hit(&c->start_count);
    if (n <= c->limit) {
        sk_value v = int_value(n);
        SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
        if (c->fail) {
            SK_OK_OR_ABORT(sk_subscriber_put_error(subscriber, &v));
        } else {
            SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
        }
        return NULL;
    }
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_disposable_action(&d, counter_hit, &c->disposed, NULL));
    return d;
}

static void countdown_ctx_release(void *ctx) {
    counter_hit(&((countdown *)ctx)->released);
}

static sk_signal *countdown_signal_counted(countdown *c) {
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_create(&signal, countdown_generator, c, countdown_ctx_release));
    return signal;
}

static int countdown_starts(countdown *c) {
    pthread_mutex_lock(&c->mutex);
    int n = c->starts;
    pthread_mutex_unlock(&c->mutex);
    return n;
}

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

static void expect_string_error(recorder *r, size_t index, const char *needle) {
    const rec_event *e = recorder_event(r, index);
    cr_assert_not_null(e);
    cr_assert_eq(e->kind, REC_ERROR);
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&e->value, &text, NULL));
    cr_assert(strstr(text, needle) != NULL, "error \"%s\" does not mention \"%s\"", text, needle);
}

/* ------------------------------------------------------------------------ */
/* Take until                                                                */
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

Test(operators_control, take_until_passes_drops_and_completes, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    manual_init(&s);
    sk_signal *source = manual_signal(&s);
    counter calls, released;
    counter_init(&calls);
    counter_init(&released);
    take_released = &released;
    sk_signal *taken = NULL;
    SK_OK_OR_FAIL(sk_signal_take_until(&taken, source, take_rule, &calls, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, taken);
    sk_subscriber *sub = manual_subscriber(&s, 0);
    subscriber_put_int(sub, 1);
    subscriber_put_int(sub, 2);
    subscriber_put_int(sub, 6);
    cr_assert_eq(counter_get(&s.disposed), 0);
    subscriber_put_int(sub, 3);
    const int64_t expected[] = { 1, 6, 3 };
    recorder_expect(&r, "nnncr", expected, 3);
    cr_assert_eq(counter_get(&s.disposed), 1, "completing disposes the upstream");
    subscriber_put_int(sub, 4);
    cr_assert_eq(counter_get(&calls), 4, "fn called %d times; not again after completing", counter_get(&calls));
    recorder_expect(&r, "nnncr", expected, 3);
    recorder_finish(&r, d);

    /* SK_TAKE_COMPLETE alone: the value is dropped. */
    const int64_t input[] = { 1, 5, 1 };
    sk_signal *ints = ints_signal(input, 3);
    sk_signal *taken2 = NULL;
    SK_OK_OR_FAIL(sk_signal_take_until(&taken2, ints, take_rule, &calls, counter_hit_released));
    d = recorder_start(&r, taken2);
    recorder_expect(&r, "ncr", input, 1);
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&calls), 6);
    cr_assert_eq(counter_get(&released), 0);
    sk_signal_release(taken2);
    cr_assert_eq(counter_get(&released), 1, "the release ran when the signal went away");

    sk_signal_release(ints);
    sk_signal_release(taken);
    sk_signal_release(source);
    manual_destroy(&s);
    counter_destroy(&calls);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(operators_control, take_until_passes_error_and_completion, .timeout = SK_TEST_TIMEOUT) {
    counter calls;
    counter_init(&calls);
    for (int ending = 0; ending < 2; ending++) {
        manual_source s;
        manual_init(&s);
        sk_signal *source = manual_signal(&s);
        sk_signal *taken = NULL;
        SK_OK_OR_FAIL(sk_signal_take_until(&taken, source, take_rule, &calls, NULL));
        recorder r;
        sk_disposable *d = recorder_start(&r, taken);
        subscriber_put_int(manual_subscriber(&s, 0), 1);
        sk_value error = string_value("boom");
        if (ending == 0) {
            SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 0), &error));
            recorder_expect(&r, "ner", NULL, 0);
            cr_assert(sk_value_equal(&recorder_event(&r, 1)->value, &error));
        } else {
            SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
            recorder_expect(&r, "ncr", NULL, 0);
        }
        sk_value_release(&error);
        recorder_finish(&r, d);
        sk_signal_release(taken);
        sk_signal_release(source);
        manual_destroy(&s);
    }
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Last and ignore values                                                    */
/* ------------------------------------------------------------------------ */

Test(operators_control, last_emits_last_value_on_completion, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    manual_init(&s);
    sk_signal *source = manual_signal(&s);
    sk_signal *last = NULL;
    SK_OK_OR_FAIL(sk_signal_last(&last, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, last);
    sk_subscriber *sub = manual_subscriber(&s, 0);
    subscriber_put_int(sub, 1);
    sk_value text = string_value("latest");
    SK_OK_OR_FAIL(sk_subscriber_put_next(sub, &text));
    recorder_expect(&r, "", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(sub));
    recorder_expect(&r, "ncr", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &text), "the last value, a string, survived");
    sk_value_release(&text);
    recorder_finish(&r, d);
    sk_signal_release(last);
    sk_signal_release(source);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

Test(operators_control, last_of_nothing_is_nil_and_errors_pass, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *empty = NULL, *last = NULL;
    SK_OK_OR_FAIL(sk_signal_complete(&empty));
    SK_OK_OR_FAIL(sk_signal_last(&last, empty));
    recorder r;
    sk_disposable *d = recorder_start(&r, last);
    recorder_expect(&r, "ncr", NULL, 0);
    cr_assert_eq(sk_value_kind(&recorder_event(&r, 0)->value), SK_KIND_NIL);
    recorder_finish(&r, d);
    sk_signal_release(last);

    sk_value error = int_value(-7);
    sk_signal *failing = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &error));
    SK_OK_OR_FAIL(sk_signal_last(&last, failing));
    d = recorder_start(&r, last);
    recorder_expect(&r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &error));
    recorder_finish(&r, d);
    sk_signal_release(last);
    sk_signal_release(failing);
    sk_signal_release(empty);
    expect_no_live_objects(0);
}

Test(operators_control, ignore_values_passes_terminal_events_only, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *ints = ints_signal(input, 3);
    sk_signal *ignored = NULL;
    SK_OK_OR_FAIL(sk_signal_ignore_values(&ignored, ints));
    recorder r;
    sk_disposable *d = recorder_start(&r, ignored);
    recorder_expect(&r, "cr", NULL, 0);
    recorder_finish(&r, d);
    sk_signal_release(ignored);

    manual_source s;
    manual_init(&s);
    sk_signal *source = manual_signal(&s);
    SK_OK_OR_FAIL(sk_signal_ignore_values(&ignored, source));
    d = recorder_start(&r, ignored);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    sk_value error = string_value("bad");
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 0), &error));
    recorder_expect(&r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &error));
    sk_value_release(&error);
    recorder_finish(&r, d);
    sk_signal_release(ignored);
    sk_signal_release(source);
    sk_signal_release(ints);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Reduce left                                                               */
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

Test(operators_control, reduce_left_folds_in_order_per_subscription, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3, 4 };
    sk_signal *ints = ints_signal(input, 4);
    counter calls, released;
    counter_init(&calls);
    counter_init(&released);
    sk_value initial = int_value(9);
    sk_signal *folded = NULL;
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, ints, &initial, fold_digits, &calls, NULL));
    /* Two subscriptions: each starts again from the initial value. */
    for (int i = 0; i < 2; i++) {
        recorder r;
        sk_disposable *d = recorder_start(&r, folded);
        const int64_t expected[] = { 91234 };
        recorder_expect(&r, "ncr", expected, 1);
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
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&recorder_event(&r, 0)->value, &text, NULL));
    cr_assert_str_eq(text, ">1234");
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&released), 0);
    sk_signal_release(folded);
    cr_assert_eq(counter_get(&released), 1, "the release ran %d times", counter_get(&released));

    /* Writing nothing makes the accumulator nil. */
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, ints, &initial, write_nothing, NULL, NULL));
    d = recorder_start(&r, folded);
    recorder_expect(&r, "ncr", NULL, 0);
    cr_assert_eq(sk_value_kind(&recorder_event(&r, 0)->value), SK_KIND_NIL);
    recorder_finish(&r, d);
    sk_signal_release(folded);

    sk_signal_release(ints);
    counter_destroy(&calls);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(operators_control, reduce_left_of_nothing_and_errors, .timeout = SK_TEST_TIMEOUT) {
    counter calls;
    counter_init(&calls);
    sk_value initial = int_value(5);
    sk_signal *empty = NULL, *folded = NULL;
    SK_OK_OR_FAIL(sk_signal_complete(&empty));
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, empty, &initial, fold_digits, &calls, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, folded);
    const int64_t five[] = { 5 };
    recorder_expect(&r, "ncr", five, 1);
    recorder_finish(&r, d);
    sk_signal_release(folded);

    manual_source s;
    manual_init(&s);
    sk_signal *source = manual_signal(&s);
    SK_OK_OR_FAIL(sk_signal_reduce_left(&folded, source, &initial, fold_digits, &calls, NULL));
    d = recorder_start(&r, folded);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    sk_value error = string_value("broken");
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 0), &error));
    recorder_expect(&r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &error));
    sk_value_release(&error);
    cr_assert_eq(counter_get(&calls), 1);
    recorder_finish(&r, d);
    sk_signal_release(folded);
    sk_signal_release(source);
    sk_signal_release(empty);
    manual_destroy(&s);
    counter_destroy(&calls);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Catch                                                                     */
/* ------------------------------------------------------------------------ */

/* The error (an int64 n) selects what to continue with: n >= 0 a manual
 * signal over inners[n], -1 NULL (empty), -2 the signal `replacement`. */
typedef struct catcher {
    manual_source inners[2];
    sk_signal *replacement;
    counter calls;
    counter released;
    sk_value last_error;
} catcher;

static void catcher_init(catcher *c) {
    memset(c, 0, sizeof *c);
    manual_init(&c->inners[0]);
    manual_init(&c->inners[1]);
    counter_init(&c->calls);
    counter_init(&c->released);
}

static void catcher_destroy(catcher *c) {
    manual_destroy(&c->inners[0]);
    manual_destroy(&c->inners[1]);
    counter_destroy(&c->calls);
    counter_destroy(&c->released);
    sk_value_release(&c->last_error);
}

static void catcher_release(void *ctx) {
    counter_hit(&((catcher *)ctx)->released);
}

static sk_signal *catch_error(void *ctx, const sk_value *error) {
    catcher *c = ctx;
    counter_hit(&c->calls);
    sk_value_release(&c->last_error);
    SK_OK_OR_ABORT(sk_value_copy(&c->last_error, error));
    int64_t n = 0;
    SK_OK_OR_ABORT(sk_value_get_int64(error, &n));
    if (n >= 0) {
        return manual_signal(&c->inners[n]);
    }
    if (n == -1) {
        return NULL;
    }
    return sk_signal_retain(c->replacement);
}

Test(operators_control, catch_continues_with_the_returned_signal, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    manual_init(&s);
    catcher c;
    catcher_init(&c);
    sk_signal *source = manual_signal(&s);
    sk_signal *caught = NULL;
    SK_OK_OR_FAIL(sk_signal_catch(&caught, source, catch_error, &c, catcher_release));
    recorder r;
    sk_disposable *d = recorder_start(&r, caught);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    sk_value error = int_value(0);
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 0), &error));
    cr_assert_eq(counter_get(&c.calls), 1);
    cr_assert(sk_value_equal(&c.last_error, &error), "fn received the error");
    cr_assert_eq(counter_get(&s.disposed), 1, "the failed upstream is disposed");
    cr_assert_eq(counter_get(&c.inners[0].starts), 1);
    subscriber_put_int(manual_subscriber(&c.inners[0], 0), 2);
    subscriber_put_int(manual_subscriber(&c.inners[0], 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&c.inners[0], 0)));
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&r, "nnncr", expected, 3);
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&c.released), 0);
    sk_signal_release(caught);
    cr_assert_eq(counter_get(&c.released), 1, "the release ran %d times", counter_get(&c.released));
    sk_signal_release(source);
    manual_destroy(&s);
    catcher_destroy(&c);
    expect_no_live_objects(0);
}

Test(operators_control, catch_null_completes_and_second_error_passes, .timeout = SK_TEST_TIMEOUT) {
    catcher c;
    catcher_init(&c);
    sk_value minus_one = int_value(-1), minus_two = int_value(-2), inner_error = string_value("inner");
    SK_OK_OR_FAIL(sk_signal_fail(&c.replacement, &inner_error));
    sk_signal *failing = NULL, *caught = NULL;
    /* NULL from fn: the result completes at once. */
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &minus_one));
    SK_OK_OR_FAIL(sk_signal_catch(&caught, failing, catch_error, &c, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, caught);
    recorder_expect(&r, "cr", NULL, 0);
    recorder_finish(&r, d);
    sk_signal_release(caught);
    sk_signal_release(failing);

    /* The error of the returned signal passes through. */
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &minus_two));
    SK_OK_OR_FAIL(sk_signal_catch(&caught, failing, catch_error, &c, NULL));
    d = recorder_start(&r, caught);
    recorder_expect(&r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &inner_error));
    recorder_finish(&r, d);
    sk_signal_release(caught);
    sk_signal_release(failing);

    /* No error: values and completion pass, fn is not called. */
    const int64_t input[] = { 4, 5 };
    sk_signal *ints = ints_signal(input, 2);
    SK_OK_OR_FAIL(sk_signal_catch(&caught, ints, catch_error, &c, NULL));
    d = recorder_start(&r, caught);
    recorder_expect(&r, "nncr", input, 2);
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&c.calls), 2);
    sk_signal_release(caught);
    sk_signal_release(ints);

    sk_signal_release(c.replacement);
    sk_value_release(&inner_error);
    catcher_destroy(&c);
    expect_no_live_objects(0);
}

static sk_signal *return_a_pipe(void *ctx, const sk_value *error) {
    (void)error;
    return (sk_signal *)(void *)sk_pipe_retain(ctx);
}

Test(operators_control, catch_non_signal_handle_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_value error = int_value(1);
    sk_signal *failing = NULL, *caught = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &error));
    SK_OK_OR_FAIL(sk_signal_catch(&caught, failing, return_a_pipe, pipe, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, caught);
    recorder_expect(&r, "er", NULL, 0);
    expect_string_error(&r, 0, "sk_signal_catch");
    recorder_finish(&r, d);
    sk_signal_release(caught);
    sk_signal_release(failing);
    sk_pipe_release(pipe); /* the handle fn handed over was released by the library */
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Restart, restart if error, retry                                          */
/* ------------------------------------------------------------------------ */

Test(operators_control, restart_on_each_completion_until_disposed, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    manual_init(&s);
    sk_signal *source = manual_signal(&s);
    sk_signal *restarted = NULL;
    SK_OK_OR_FAIL(sk_signal_restart(&restarted, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, restarted);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(counter_get(&s.starts), (int)i + 1);
        subscriber_put_int(manual_subscriber(&s, i), (int64_t)i);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, i)));
        cr_assert_eq(counter_get(&s.disposed), (int)i + 1, "each completed run is disposed");
    }
    const int64_t expected[] = { 0, 1, 2 };
    recorder_expect(&r, "nnn", expected, 3); /* never completes */
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&s.disposed), 4, "disposing disposes the running start");
    cr_assert_eq(counter_get(&s.starts), 4);
    recorder_expect(&r, "nnnr", expected, 3);
    recorder_finish(&r, d);
    sk_signal_release(restarted);
    sk_signal_release(source);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

Test(operators_control, restart_error_ends_the_loop, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    manual_init(&s);
    sk_signal *source = manual_signal(&s);
    sk_signal *restarted = NULL;
    SK_OK_OR_FAIL(sk_signal_restart(&restarted, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, restarted);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    sk_value error = string_value("stop");
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 1), &error));
    recorder_expect(&r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &error));
    cr_assert_eq(counter_get(&s.starts), 2, "not restarted after the error");
    sk_value_release(&error);
    recorder_finish(&r, d);
    sk_signal_release(restarted);
    sk_signal_release(source);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

typedef struct loop_run {
    sk_signal *signal;
    recorder *r;
    sk_disposable *d;
} loop_run;

static void start_loop(void *arg) {
    loop_run *run = arg;
    sk_observer observer = recorder_observer(run->r);
    SK_OK_OR_ABORT(sk_signal_start(&run->d, run->signal, &observer));
}

Test(operators_control, restart_loops_synchronously_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    countdown c;
    countdown_init(&c, LOOPS, false);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *restarted = NULL;
    SK_OK_OR_FAIL(sk_signal_restart(&restarted, source));
    recorder r;
    recorder_init(&r);
    loop_run run = { restarted, &r, NULL };
    run_on_small_stack(start_loop, &run);
    cr_assert_eq(countdown_starts(&c), LOOPS + 1);
    cr_assert_eq(recorder_nexts(&r), LOOPS);
    int64_t values[REC_MAX_EVENTS];
    size_t n = recorder_ints(&r, values, REC_MAX_EVENTS);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(values[i], (int64_t)i + 1, "value %zu is %lld", i, (long long)values[i]);
    }
    sk_value error = int_value(-1);
    SK_OK_OR_FAIL(sk_subscriber_put_error(c.held, &error));
    cr_assert_eq(r.errors, 1);
    cr_assert_eq(r.completions, 0);
    cr_assert(recorder_wait_release(&r));
    cr_assert_eq(counter_get(&c.disposed), 1);
    recorder_finish(&r, run.d);
    sk_signal_release(restarted);
    sk_signal_release(source);
    cr_assert_eq(counter_get(&c.released), 1);
    countdown_destroy(&c);
    expect_no_live_objects(0);
}

Test(operators_control, restart_if_error_loops_synchronously_and_passes_completion, .timeout = SK_TEST_TIMEOUT) {
    countdown c;
    countdown_init(&c, LOOPS, true);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *restarted = NULL;
    SK_OK_OR_FAIL(sk_signal_restart_if_error(&restarted, source));
    recorder r;
    recorder_init(&r);
    loop_run run = { restarted, &r, NULL };
    run_on_small_stack(start_loop, &run);
    cr_assert_eq(countdown_starts(&c), LOOPS + 1);
    cr_assert_eq(recorder_nexts(&r), LOOPS);
    cr_assert_eq(r.errors, 0, "errors never pass");
    subscriber_put_int(c.held, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(c.held));
    cr_assert_eq(r.completions, 1);
    cr_assert_eq(recorder_nexts(&r), LOOPS + 1);
    cr_assert_eq(counter_get(&c.disposed), 1);
    recorder_finish(&r, run.d);
    sk_signal_release(restarted);
    sk_signal_release(source);
    countdown_destroy(&c);
    expect_no_live_objects(0);
}

/* A source that emits its start count, then ends at once, always: with
 * `fail`, with an error (for restart-if-error), else with a completion. */
typedef struct forever_source {
    int starts;
    bool fail;
} forever_source;

static sk_disposable *forever_generator(void *ctx, sk_subscriber *subscriber) {
    forever_source *s = ctx;
    s->starts += 1;
    subscriber_put_int(subscriber, s->starts);
    if (s->fail) {
        sk_value error = int_value(-1);
        SK_OK_OR_ABORT(sk_subscriber_put_error(subscriber, &error));
    } else {
        SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    }
    return NULL;
}

static void identity_map(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    SK_OK_OR_ABORT(sk_value_copy(out, in));
}

static int take_through_five(void *ctx, const sk_value *value) {
    (void)ctx;
    return value_int(value) < 5 ? SK_TAKE_PASS : SK_TAKE_PASS | SK_TAKE_COMPLETE;
}

/* A loop that never leaves its start (the source always ends synchronously)
 * stops as soon as a downstream take completes, in every resubscribing
 * operator, directly or through map; before, none of these returned. */
Test(operators_control, synchronous_loops_stop_when_a_downstream_take_completes, .timeout = SK_TEST_TIMEOUT) {
    for (int variant = 0; variant < 5; variant++) {
        forever_source s = { 0, variant == 1 };
        sk_signal *source = NULL, *looped = NULL, *mapped = NULL, *taken = NULL;
        SK_OK_OR_FAIL(sk_signal_create(&source, forever_generator, &s, NULL));
        if (variant == 1) {
            SK_OK_OR_FAIL(sk_signal_restart_if_error(&looped, source));
        } else {
            SK_OK_OR_FAIL(sk_signal_restart(&looped, source));
        }
        int count = variant == 2 ? 20000 : 5;
        if (variant == 3) {
            SK_OK_OR_FAIL(sk_signal_map(&mapped, looped, identity_map, NULL, NULL));
        } else {
            mapped = looped;
            sk_signal_retain(mapped);
        }
        if (variant == 4) {
            SK_OK_OR_FAIL(sk_signal_take_until(&taken, mapped, take_through_five, NULL, NULL));
        } else {
            SK_OK_OR_FAIL(sk_signal_take(&taken, mapped, (size_t)count));
        }
        recorder r;
        sk_disposable *d = recorder_start(&r, taken);
        cr_assert_eq(recorder_nexts(&r), count, "variant %d: %d values", variant, recorder_nexts(&r));
        cr_assert_eq(r.completions, 1, "variant %d", variant);
        cr_assert_eq(s.starts, count, "variant %d: started %d times for %d values", variant, s.starts, count);
        recorder_finish(&r, d);
        sk_signal_release(taken);
        sk_signal_release(mapped);
        sk_signal_release(looped);
        sk_signal_release(source);
        expect_no_live_objects(0);
    }
}

Test(operators_control, retry_restarts_on_its_queue_after_errors, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&queue, "test.retry"));
    countdown c;
    countdown_init(&c, 3, true);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *retried = NULL;
    SK_OK_OR_FAIL(sk_signal_retry(&retried, source, 0.001, 0.002, queue));
    recorder r;
    sk_disposable *d = recorder_start(&r, retried);
    cr_assert(counter_wait(&c.start_count, 4, SK_WAIT_SECONDS), "not retried 3 times");
    flush_queue(queue);
    cr_assert_eq(recorder_nexts(&r), 3);
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&r, "nnn", expected, 3); /* errors never pass */
    SK_OK_OR_FAIL(sk_subscriber_put_completion(c.held));
    recorder_expect(&r, "nnncr", expected, 3);
    recorder_finish(&r, d);
    sk_signal_release(retried);
    sk_signal_release(source);
    countdown_destroy(&c);
    expect_no_live_objects(1, queue);
}

Test(operators_control, retry_starts_again_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&host, "test.retry.host"));
    int fd = -1;
    SK_OK_OR_FAIL(sk_queue_host_fd(host, &fd));
    countdown c;
    countdown_init(&c, 1, true);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *retried = NULL;
    SK_OK_OR_FAIL(sk_signal_retry(&retried, source, 0, 0, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, retried);
    cr_assert_eq(countdown_starts(&c), 1);
    /* The retry waits for this thread to drain the host queue. */
    cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "no retry scheduled");
    cr_assert_eq(countdown_starts(&c), 1);
    c.expected_queue = host;
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    cr_assert_eq(countdown_starts(&c), 2);
    cr_assert_eq(c.off_queue, 0, "the retry did not start on the queue");
    const int64_t expected[] = { 1 };
    recorder_expect(&r, "n", expected, 1);
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&c.disposed), 1);
    sk_signal_release(retried);
    sk_signal_release(source);
    countdown_destroy(&c);
    expect_no_live_objects(1, host);
}

Test(operators_control, retry_dispose_cancels_pending_retry, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&host, NULL));
    int fd = -1;
    SK_OK_OR_FAIL(sk_queue_host_fd(host, &fd));
    countdown c;
    countdown_init(&c, 1, true);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *retried = NULL;
    SK_OK_OR_FAIL(sk_signal_retry(&retried, source, 0, 0, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, retried);
    cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "no retry scheduled");
    sk_disposable_dispose(d);
    flush_queue(host);
    cr_assert_eq(countdown_starts(&c), 1, "restarted after the dispose");
    recorder_expect(&r, "nr", NULL, 0);
    recorder_finish(&r, d);
    sk_signal_release(retried);
    sk_signal_release(source);
    countdown_destroy(&c);
    expect_no_live_objects(1, host);
}

Test(operators_control, retry_many_times, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&queue, "test.retry.many"));
    countdown c;
    countdown_init(&c, LOOPS, true);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *retried = NULL;
    SK_OK_OR_FAIL(sk_signal_retry(&retried, source, 0, 0, queue));
    recorder r;
    sk_disposable *d = recorder_start(&r, retried);
    cr_assert(counter_wait(&c.start_count, LOOPS + 1, SK_WAIT_SECONDS), "%d starts", countdown_starts(&c));
    flush_queue(queue);
    cr_assert_eq(recorder_nexts(&r), LOOPS);
    cr_assert_eq(r.errors, 0);
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&c.disposed), 1);
    sk_signal_release(retried);
    sk_signal_release(source);
    countdown_destroy(&c);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Queue and throttled                                                       */
/* ------------------------------------------------------------------------ */

Test(operators_control, queue_runs_inner_signals_one_after_another, .timeout = SK_TEST_TIMEOUT) {
    manual_source outer, a, c;
    manual_init(&outer);
    manual_init(&a);
    manual_init(&c);
    sk_signal *source = manual_signal(&outer);
    sk_signal *queued = NULL;
    SK_OK_OR_FAIL(sk_signal_queue(&queued, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, queued);
    sk_subscriber *o = manual_subscriber(&outer, 0);
    put_signal(o, manual_signal(&a));
    put_signal(o, single_int(2));
    put_signal(o, manual_signal(&c));
    cr_assert_eq(counter_get(&a.starts), 1);
    cr_assert_eq(counter_get(&c.starts), 0, "started before its turn");
    subscriber_put_int(manual_subscriber(&a, 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&a, 0)));
    cr_assert_eq(counter_get(&c.starts), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    subscriber_put_int(manual_subscriber(&c, 0), 3);
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&r, "nnn", expected, 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&c, 0)));
    recorder_expect(&r, "nnncr", expected, 3);
    recorder_finish(&r, d);
    sk_signal_release(queued);
    sk_signal_release(source);
    manual_destroy(&outer);
    manual_destroy(&a);
    manual_destroy(&c);
    expect_no_live_objects(0);
}

Test(operators_control, queue_non_signal_value_fails_in_its_turn, .timeout = SK_TEST_TIMEOUT) {
    manual_source outer, a;
    manual_init(&outer);
    manual_init(&a);
    sk_signal *source = manual_signal(&outer);
    sk_signal *queued = NULL;
    SK_OK_OR_FAIL(sk_signal_queue(&queued, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, queued);
    sk_subscriber *o = manual_subscriber(&outer, 0);
    put_signal(o, manual_signal(&a));
    subscriber_put_int(o, 42);
    recorder_expect(&r, "", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&a, 0)));
    recorder_expect(&r, "er", NULL, 0);
    expect_string_error(&r, 0, "sk_signal_queue");
    cr_assert_eq(counter_get(&outer.disposed), 1, "the error ends the subscription");
    recorder_finish(&r, d);

    /* First in line: fails at once. */
    d = recorder_start(&r, queued);
    subscriber_put_int(manual_subscriber(&outer, 1), 42);
    recorder_expect(&r, "er", NULL, 0);
    expect_string_error(&r, 0, "expected a signal");
    recorder_finish(&r, d);
    sk_signal_release(queued);
    sk_signal_release(source);
    manual_destroy(&outer);
    manual_destroy(&a);
    expect_no_live_objects(0);
}

typedef struct queue_loop {
    sk_subscriber *first;
} queue_loop;

static void complete_first(void *arg) {
    SK_OK_OR_ABORT(sk_subscriber_put_completion(((queue_loop *)arg)->first));
}

Test(operators_control, queue_of_many_synchronous_signals_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    manual_source outer, a;
    manual_init(&outer);
    manual_init(&a);
    sk_signal *source = manual_signal(&outer);
    sk_signal *queued = NULL;
    SK_OK_OR_FAIL(sk_signal_queue(&queued, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, queued);
    sk_subscriber *o = manual_subscriber(&outer, 0);
    put_signal(o, manual_signal(&a));
    for (int64_t i = 1; i <= LOOPS; i++) {
        put_signal(o, single_int(i));
    }
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    cr_assert_eq(recorder_nexts(&r), 0);
    /* Completing the first runs the 10 000 waiting ones, on a small stack. */
    queue_loop loop = { manual_subscriber(&a, 0) };
    run_on_small_stack(complete_first, &loop);
    cr_assert_eq(recorder_nexts(&r), LOOPS);
    cr_assert_eq(r.completions, 1);
    int64_t values[REC_MAX_EVENTS];
    size_t n = recorder_ints(&r, values, REC_MAX_EVENTS);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(values[i], (int64_t)i + 1);
    }
    recorder_finish(&r, d);
    sk_signal_release(queued);
    sk_signal_release(source);
    manual_destroy(&outer);
    manual_destroy(&a);
    expect_no_live_objects(0);
}

Test(operators_control, throttled_keeps_only_the_latest_waiting_signal, .timeout = SK_TEST_TIMEOUT) {
    manual_source outer, a, b, c;
    manual_init(&outer);
    manual_init(&a);
    manual_init(&b);
    manual_init(&c);
    sk_signal *source = manual_signal(&outer);
    sk_signal *throttled = NULL;
    SK_OK_OR_FAIL(sk_signal_throttled(&throttled, source));
    recorder r;
    sk_disposable *d = recorder_start(&r, throttled);
    sk_subscriber *o = manual_subscriber(&outer, 0);
    put_signal(o, manual_signal(&a));
    put_signal(o, manual_signal(&b));
    subscriber_put_int(o, 99); /* waiting, replaced: dropped whatever its kind */
    put_signal(o, manual_signal(&c));
    subscriber_put_int(manual_subscriber(&a, 0), 1);
    cr_assert_eq(counter_get(&a.disposed), 0, "the running one is never interrupted");
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&a, 0)));
    cr_assert_eq(counter_get(&b.starts), 0, "a replaced signal started");
    cr_assert_eq(counter_get(&c.starts), 1);
    subscriber_put_int(manual_subscriber(&c, 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&c, 0)));
    const int64_t expected[] = { 1, 3 };
    recorder_expect(&r, "nncr", expected, 2);
    recorder_finish(&r, d);

    /* A non-signal value that gets its turn fails. */
    d = recorder_start(&r, throttled);
    subscriber_put_int(manual_subscriber(&outer, 1), 7);
    recorder_expect(&r, "er", NULL, 0);
    expect_string_error(&r, 0, "sk_signal_throttled");
    recorder_finish(&r, d);

    sk_signal_release(throttled);
    sk_signal_release(source);
    manual_destroy(&outer);
    manual_destroy(&a);
    manual_destroy(&b);
    manual_destroy(&c);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Then and deferred                                                         */
/* ------------------------------------------------------------------------ */

Test(operators_control, then_runs_next_after_completion, .timeout = SK_TEST_TIMEOUT) {
    manual_source first, next;
    manual_init(&first);
    manual_init(&next);
    sk_signal *a = manual_signal(&first), *b = manual_signal(&next);
    sk_signal *chained = NULL;
    SK_OK_OR_FAIL(sk_signal_then(&chained, a, b));
    sk_signal_release(b); /* borrowed: the result retains it */
    recorder r;
    sk_disposable *d = recorder_start(&r, chained);
    subscriber_put_int(manual_subscriber(&first, 0), 1);
    cr_assert_eq(counter_get(&next.starts), 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&first, 0)));
    cr_assert_eq(counter_get(&next.starts), 1);
    subscriber_put_int(manual_subscriber(&next, 0), 2);
    recorder_expect(&r, "nn", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&next, 0)));
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&r, "nncr", expected, 2);
    recorder_finish(&r, d);

    /* An error of the first: passes, the next never starts. */
    d = recorder_start(&r, chained);
    sk_value error = string_value("first failed");
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&first, 1), &error));
    recorder_expect(&r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &error));
    cr_assert_eq(counter_get(&next.starts), 1);
    sk_value_release(&error);
    recorder_finish(&r, d);

    /* Disposal while the next runs disposes it. */
    d = recorder_start(&r, chained);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&first, 2)));
    cr_assert_eq(counter_get(&next.starts), 2);
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&next.disposed), 2);
    recorder_expect(&r, "r", NULL, 0);
    recorder_finish(&r, d);

    sk_signal_release(chained);
    sk_signal_release(a);
    manual_destroy(&first);
    manual_destroy(&next);
    expect_no_live_objects(0);
}

Test(operators_control, then_in_a_synchronous_restart_loop_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    countdown c;
    countdown_init(&c, LOOPS, false);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *zero = single_int(0);
    sk_signal *chained = NULL, *looped = NULL;
    SK_OK_OR_FAIL(sk_signal_then(&chained, source, zero));
    SK_OK_OR_FAIL(sk_signal_restart(&looped, chained));
    recorder r;
    recorder_init(&r);
    loop_run run = { looped, &r, NULL };
    run_on_small_stack(start_loop, &run);
    cr_assert_eq(countdown_starts(&c), LOOPS + 1);
    cr_assert_eq(recorder_nexts(&r), 2 * LOOPS);
    int64_t values[8];
    size_t n = recorder_ints(&r, values, 8);
    const int64_t expected[] = { 1, 0, 2, 0, 3, 0, 4, 0 };
    cr_assert_eq(n, 8);
    cr_assert_arr_eq(values, expected, sizeof expected);
    recorder_finish(&r, run.d);
    cr_assert_eq(counter_get(&c.disposed), 1);
    sk_signal_release(looped);
    sk_signal_release(chained);
    sk_signal_release(zero);
    sk_signal_release(source);
    countdown_destroy(&c);
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

Test(operators_control, deferred_calls_fn_at_each_start, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    manual_init(&s);
    deferrer f;
    memset(&f, 0, sizeof f);
    f.source = &s;
    counter_init(&f.calls);
    counter_init(&f.released);
    sk_signal *deferred = NULL;
    SK_OK_OR_FAIL(sk_signal_deferred(&deferred, make_deferred, &f, deferrer_release));
    cr_assert_eq(counter_get(&f.calls), 0, "called before any start");
    recorder r1, r2;
    sk_disposable *d1 = recorder_start(&r1, deferred);
    cr_assert(pthread_equal(f.thread, pthread_self()));
    sk_disposable *d2 = recorder_start(&r2, deferred);
    cr_assert_eq(counter_get(&f.calls), 2);
    cr_assert_eq(counter_get(&s.starts), 2);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    subscriber_put_int(manual_subscriber(&s, 1), 2);
    const int64_t one[] = { 1 }, two[] = { 2 };
    recorder_expect(&r1, "ncr", one, 1);
    recorder_expect(&r2, "n", two, 1);
    sk_disposable_dispose(d2);
    cr_assert_eq(counter_get(&s.disposed), 2);
    recorder_finish(&r1, d1);
    recorder_finish(&r2, d2);
    cr_assert_eq(counter_get(&f.released), 0);
    sk_signal_release(deferred);
    cr_assert_eq(counter_get(&f.released), 1, "the release ran %d times", counter_get(&f.released));

    /* NULL from fn: completes at once. */
    f.source = NULL;
    SK_OK_OR_FAIL(sk_signal_deferred(&deferred, make_deferred, &f, NULL));
    d1 = recorder_start(&r1, deferred);
    recorder_expect(&r1, "cr", NULL, 0);
    recorder_finish(&r1, d1);
    sk_signal_release(deferred);

    counter_destroy(&f.calls);
    counter_destroy(&f.released);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Disposal                                                                  */
/* ------------------------------------------------------------------------ */

static int keep_passing(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return SK_TAKE_PASS;
}

static sk_signal *catch_nothing(void *ctx, const sk_value *error) {
    (void)ctx;
    (void)error;
    return NULL;
}

static sk_signal *defer_manual(void *ctx) {
    return manual_signal(ctx);
}

/* Builds operator `which` over `source`; NULL once past the last one. */
static sk_signal *control_operator(int which, sk_signal *source, manual_source *s, const char **name) {
    sk_signal *out = NULL;
    sk_value zero = int_value(0);
    switch (which) {
    case 0: *name = "take_until"; SK_OK_OR_FAIL(sk_signal_take_until(&out, source, keep_passing, NULL, NULL)); break;
    case 1: *name = "last"; SK_OK_OR_FAIL(sk_signal_last(&out, source)); break;
    case 2: *name = "ignore_values"; SK_OK_OR_FAIL(sk_signal_ignore_values(&out, source)); break;
    case 3: *name = "reduce_left"; SK_OK_OR_FAIL(sk_signal_reduce_left(&out, source, &zero, write_nothing, NULL, NULL)); break;
    case 4: *name = "catch"; SK_OK_OR_FAIL(sk_signal_catch(&out, source, catch_nothing, NULL, NULL)); break;
    case 5: *name = "restart"; SK_OK_OR_FAIL(sk_signal_restart(&out, source)); break;
    case 6: *name = "restart_if_error"; SK_OK_OR_FAIL(sk_signal_restart_if_error(&out, source)); break;
    case 7: {
        *name = "retry";
        sk_queue *queue = NULL;
        SK_OK_OR_FAIL(sk_queue_create(&queue, NULL));
        SK_OK_OR_FAIL(sk_signal_retry(&out, source, 0, 0, queue));
        sk_queue_release(queue);
        break;
    }
    case 8: *name = "then"; SK_OK_OR_FAIL(sk_signal_then(&out, source, source)); break;
    case 9: *name = "deferred"; SK_OK_OR_FAIL(sk_signal_deferred(&out, defer_manual, s, NULL)); break;
    default: return NULL;
    }
    return out;
}

Test(operators_control, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    const char *name = "";
    for (int which = 0;; which++) {
        manual_source s;
        manual_init(&s);
        sk_signal *source = manual_signal(&s);
        sk_signal *op = control_operator(which, source, &s, &name);
        if (op == NULL) {
            sk_signal_release(source);
            manual_destroy(&s);
            break;
        }
        recorder r;
        sk_disposable *d = recorder_start(&r, op);
        cr_assert_eq(counter_get(&s.starts), 1, "%s: not started", name);
        sk_disposable_dispose(d);
        cr_assert_eq(counter_get(&s.disposed), 1, "%s: upstream not disposed", name);
        subscriber_put_int(manual_subscriber(&s, 0), 1);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
        recorder_expect(&r, "r", NULL, 0);
        cr_assert_eq(counter_get(&s.starts), 1, "%s: started again after the dispose", name);
        recorder_finish(&r, d);
        sk_signal_release(op);
        sk_signal_release(source);
        manual_destroy(&s);
    }
    cr_assert_str_eq(name, "deferred", "not every operator ran");

    /* Queue and throttled: the outer, the running inner; a waiting inner
     * is never started. */
    for (int throttled = 0; throttled < 2; throttled++) {
        manual_source outer, a, b;
        manual_init(&outer);
        manual_init(&a);
        manual_init(&b);
        sk_signal *source = manual_signal(&outer);
        sk_signal *op = NULL;
        SK_OK_OR_FAIL(throttled ? sk_signal_throttled(&op, source) : sk_signal_queue(&op, source));
        recorder r;
        sk_disposable *d = recorder_start(&r, op);
        put_signal(manual_subscriber(&outer, 0), manual_signal(&a));
        put_signal(manual_subscriber(&outer, 0), manual_signal(&b));
        sk_disposable_dispose(d);
        cr_assert_eq(counter_get(&outer.disposed), 1);
        cr_assert_eq(counter_get(&a.disposed), 1);
        cr_assert_eq(counter_get(&b.starts), 0);
        recorder_expect(&r, "r", NULL, 0);
        recorder_finish(&r, d);
        sk_signal_release(op);
        sk_signal_release(source);
        manual_destroy(&outer);
        manual_destroy(&a);
        manual_destroy(&b);
    }

    /* Catch, after switching: the returned signal is disposed. */
    manual_source s;
    manual_init(&s);
    catcher c;
    catcher_init(&c);
    sk_signal *source = manual_signal(&s);
    sk_signal *caught = NULL;
    SK_OK_OR_FAIL(sk_signal_catch(&caught, source, catch_error, &c, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, caught);
    sk_value one = int_value(1);
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&s, 0), &one));
    cr_assert_eq(counter_get(&c.inners[1].starts), 1);
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&c.inners[1].disposed), 1);
    recorder_expect(&r, "r", NULL, 0);
    recorder_finish(&r, d);
    sk_signal_release(caught);
    sk_signal_release(source);
    manual_destroy(&s);
    catcher_destroy(&c);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Argument errors                                                           */
/* ------------------------------------------------------------------------ */

/* Runs `call` with `out` preset to garbage; asserts the status, a message,
 * and, when `released` is not NULL, that it counted exactly one release.
 * EXPECT_FAILURE also asserts that `out` was set to NULL; use
 * EXPECT_FAILURE_NULL_OUT for calls that pass NULL for it. */
#define EXPECT_FAILURE_NULL_OUT(call, expected, released)                                      \
    do {                                                                                       \
        out = (sk_signal *)&out;                                                               \
        int before_ = (released) != NULL ? counter_get(released) : 0;                          \
        int status_ = (call);                                                                  \
        cr_assert_eq(status_, (expected), "%s returned %d (%s)", #call, status_,               \
                     sk_last_error_message());                                                 \
        cr_assert(strlen(sk_last_error_message()) > 0);                                        \
        if ((released) != NULL) {                                                              \
            cr_assert_eq(counter_get(released) - before_, 1, "%s: release ran %d times", #call, \
                         counter_get(released) - before_);                                     \
        }                                                                                      \
    } while (0)
#define EXPECT_FAILURE(call, expected, released)                                               \
    do {                                                                                       \
        EXPECT_FAILURE_NULL_OUT(call, expected, released);                                     \
        cr_assert_null(out, "%s left out set", #call);                                         \
    } while (0)

Test(operators_control, argument_errors_run_release_once, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&never));
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&queue, NULL));
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *not_signal = (sk_signal *)(void *)pipe;
    sk_queue *not_queue = (sk_queue *)(void *)pipe;
    sk_value zero = int_value(0);
    sk_value malformed;
    memset(&malformed, 0, sizeof malformed);
    malformed.kind = (sk_kind)99;
    counter released;
    counter_init(&released);
    sk_signal *out = NULL;

    EXPECT_FAILURE_NULL_OUT(sk_signal_take_until(NULL, never, take_rule, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_take_until(&out, NULL, take_rule, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_take_until(&out, never, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_take_until(&out, not_signal, take_rule, &released, counter_hit), SK_ERR_WRONG_KIND, &released);

    EXPECT_FAILURE_NULL_OUT(sk_signal_catch(NULL, never, catch_nothing, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_catch(&out, NULL, catch_nothing, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_catch(&out, never, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_catch(&out, not_signal, catch_nothing, &released, counter_hit), SK_ERR_WRONG_KIND, &released);

    EXPECT_FAILURE_NULL_OUT(sk_signal_reduce_left(NULL, never, &zero, fold_digits, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_reduce_left(&out, NULL, &zero, fold_digits, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_reduce_left(&out, never, NULL, fold_digits, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_reduce_left(&out, never, &malformed, fold_digits, &released, counter_hit), SK_ERR_INVALID_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_reduce_left(&out, never, &zero, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_reduce_left(&out, not_signal, &zero, fold_digits, &released, counter_hit), SK_ERR_WRONG_KIND, &released);

    EXPECT_FAILURE_NULL_OUT(sk_signal_deferred(NULL, defer_manual, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    EXPECT_FAILURE(sk_signal_deferred(&out, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);
    /* NULL out and NULL fn together: still one release. */
    EXPECT_FAILURE_NULL_OUT(sk_signal_deferred(NULL, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT, &released);

    EXPECT_FAILURE_NULL_OUT(sk_signal_last(NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_last(&out, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_last(&out, not_signal), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_ignore_values(NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_ignore_values(&out, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_ignore_values(&out, not_signal), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_restart(NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_restart(&out, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_restart(&out, not_signal), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_restart_if_error(NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_restart_if_error(&out, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_restart_if_error(&out, not_signal), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_queue(NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_queue(&out, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_queue(&out, not_signal), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_throttled(NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_throttled(&out, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_throttled(&out, not_signal), SK_ERR_WRONG_KIND, NULL);

    EXPECT_FAILURE_NULL_OUT(sk_signal_then(NULL, never, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, not_signal, never), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, never, not_signal), SK_ERR_WRONG_KIND, NULL);

    EXPECT_FAILURE_NULL_OUT(sk_signal_retry(NULL, never, 0, 0, queue), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, NULL, 0, 0, queue), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, 0, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, not_signal, 0, 0, queue), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, 0, not_queue), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, -1, 0, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, NAN, 0, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, -0.5, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, NAN, queue), SK_ERR_INVALID_ARGUMENT, NULL);

    cr_assert_eq(counter_get(&released), 17);
    counter_destroy(&released);
    sk_pipe_release(pipe);
    sk_signal_release(never);
    expect_no_live_objects(1, queue);
}

Test(operators_control, callback_release_waits_for_subscriptions, .timeout = SK_TEST_TIMEOUT) {
    /* take_until, catch, reduce_left: release after the signal and its
     * subscriptions are gone, also when the source still holds its
     * subscriber. */
    for (int which = 0; which < 3; which++) {
        manual_source s;
        manual_init(&s);
        sk_signal *source = manual_signal(&s);
        counter released;
        counter_init(&released);
        sk_value zero = int_value(0);
        sk_signal *op = NULL;
        switch (which) {
        case 0: SK_OK_OR_FAIL(sk_signal_take_until(&op, source, keep_passing, &released, counter_hit)); break;
        case 1: SK_OK_OR_FAIL(sk_signal_catch(&op, source, catch_nothing, &released, counter_hit)); break;
        default: SK_OK_OR_FAIL(sk_signal_reduce_left(&op, source, &zero, write_nothing, &released, counter_hit)); break;
        }
        recorder r;
        sk_disposable *d = recorder_start(&r, op);
        sk_signal_release(op);
        sk_signal_release(source);
        cr_assert_eq(counter_get(&released), 0, "operator %d: released while subscribed", which);
        sk_disposable_dispose(d);
        cr_assert_eq(counter_get(&released), 1, "operator %d: release ran %d times", which, counter_get(&released));
        recorder_finish(&r, d);
        counter_destroy(&released);
        manual_destroy(&s);
    }
    expect_no_live_objects(0);
}
