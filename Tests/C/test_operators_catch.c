/* test_operators_catch.c - catch, restart, restart-if-error and retry (the C
 * layer's Operators_Catch.swift): what each continues with, long synchronous
 * loops on a small stack, retries on a queue, disposal, releases and
 * argument errors. */
#include <math.h>

#include <signalkit_test.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Catch                                                                    */
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
    counters_init(2, &c->calls, &c->released);
}

static void catcher_destroy(catcher *c) {
    manual_destroy(&c->inners[0]);
    manual_destroy(&c->inners[1]);
    counters_destroy(2, &c->calls, &c->released);
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

/* Catch with `c` (initialised here; `release` its release) over the
 * pipeline's upstream, started (pipeline_init, pipeline_start). The caller
 * ends with pipeline_finish and catcher_destroy. */
static void catch_start(pipeline *p, catcher *c, sk_release_fn release) {
    pipeline_init(p);
    catcher_init(c);
    SK_OK_OR_FAIL(sk_signal_catch(&p->op, p->upstream, catch_error, c, release));
    pipeline_start(p);
}

Test(operators_catch, catch_continues_with_the_returned_signal, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    catcher c;
    catch_start(&p, &c, catcher_release);
    sk_subscriber *upstream = pipeline_subscriber(&p);
    subscriber_put_int(upstream, 1);
    sk_value error = int_value(0);
    SK_OK_OR_FAIL(sk_subscriber_put_error(upstream, &error));
    cr_assert_eq(counter_get(&c.calls), 1);
    cr_assert(sk_value_equal(&c.last_error, &error), "fn received the error");
    cr_assert_eq(counter_get(&p.source.disposed), 1, "the failed upstream is disposed");
    cr_assert_eq(counter_get(&c.inners[0].starts), 1);
    subscriber_put_int(manual_subscriber(&c.inners[0], 0), 2);
    subscriber_put_int(manual_subscriber(&c.inners[0], 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&c.inners[0], 0)));
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&p.r, "nnncr", expected, 3);
    pipeline_stop(&p);
    cr_assert_eq(counter_get(&c.released), 0);
    pipeline_finish(&p);
    cr_assert_eq(counter_get(&c.released), 1, "the release ran %d times", counter_get(&c.released));
    catcher_destroy(&c);
    expect_no_live_objects(0);
}

Test(operators_catch, catch_null_completes_and_second_error_passes, .timeout = SK_TEST_TIMEOUT) {
    catcher c;
    catcher_init(&c);
    sk_value minus_one = int_value(-1), minus_two = int_value(-2), inner_error = string_value("inner");
    SK_OK_OR_FAIL(sk_signal_fail(&c.replacement, &inner_error));
    sk_signal *failing = NULL, *caught = NULL;
    /* NULL from fn: the result completes at once. */
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &minus_one));
    SK_OK_OR_FAIL(sk_signal_catch(&caught, failing, catch_error, &c, NULL));
    expect_signal_log(caught, "cr", NULL, 0);
    sk_signal_release(failing);

    /* The error of the returned signal passes through. */
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &minus_two));
    SK_OK_OR_FAIL(sk_signal_catch(&caught, failing, catch_error, &c, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, caught);
    recorder_expect_error(&r, &inner_error);
    recorder_finish(&r, d);
    sk_signal_release(caught);
    sk_signal_release(failing);

    /* No error: values and completion pass, fn is not called. */
    const int64_t input[] = { 4, 5 };
    sk_signal *ints = ints_signal(input, 2);
    SK_OK_OR_FAIL(sk_signal_catch(&caught, ints, catch_error, &c, NULL));
    expect_signal_log(caught, "nncr", input, 2);
    cr_assert_eq(counter_get(&c.calls), 2);
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

Test(operators_catch, catch_non_signal_handle_is_an_error, .timeout = SK_TEST_TIMEOUT) {
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
/* Restart and restart if error                                             */
/* ------------------------------------------------------------------------ */

Test(operators_catch, restart_on_each_completion_until_disposed, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_restart);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(counter_get(&p.source.starts), (int)i + 1);
        subscriber_put_int(manual_subscriber(&p.source, i), (int64_t)i);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&p.source, i)));
        cr_assert_eq(counter_get(&p.source.disposed), (int)i + 1, "each completed run is disposed");
    }
    const int64_t expected[] = { 0, 1, 2 };
    recorder_expect(&p.r, "nnn", expected, 3); /* never completes */
    sk_disposable_dispose(p.d);
    cr_assert_eq(counter_get(&p.source.disposed), 4, "disposing disposes the running start");
    cr_assert_eq(counter_get(&p.source.starts), 4);
    recorder_expect(&p.r, "nnnr", expected, 3);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_catch, restart_error_ends_the_loop, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_restart);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&p)));
    sk_value error = string_value("stop");
    SK_OK_OR_FAIL(sk_subscriber_put_error(manual_subscriber(&p.source, 1), &error));
    recorder_expect_error(&p.r, &error);
    cr_assert_eq(counter_get(&p.source.starts), 2, "not p.op after the error");
    sk_value_release(&error);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_catch, restart_loops_synchronously_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    countdown_run t;
    countdown_run_loop(&t, false, sk_signal_restart);
    cr_assert_eq(recorder_nexts(&t.r), LOOPS);
    int64_t values[REC_MAX_EVENTS];
    size_t n = recorder_ints(&t.r, values, REC_MAX_EVENTS);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(values[i], (int64_t)i + 1, "value %zu is %lld", i, (long long)values[i]);
    }
    sk_value error = int_value(-1);
    SK_OK_OR_FAIL(sk_subscriber_put_error(t.c.held, &error));
    cr_assert_eq(t.r.errors, 1);
    cr_assert_eq(t.r.completions, 0);
    cr_assert(recorder_wait_release(&t.r));
    cr_assert_eq(counter_get(&t.c.disposed), 1);
    countdown_run_finish(&t);
    cr_assert_eq(t.released_at_finish, 1);
    expect_no_live_objects(0);
}

Test(operators_catch, restart_if_error_loops_synchronously_and_passes_completion, .timeout = SK_TEST_TIMEOUT) {
    countdown_run t;
    countdown_run_loop(&t, true, sk_signal_restart_if_error);
    cr_assert_eq(recorder_nexts(&t.r), LOOPS);
    cr_assert_eq(t.r.errors, 0, "errors never pass");
    subscriber_put_int(t.c.held, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(t.c.held));
    cr_assert_eq(t.r.completions, 1);
    cr_assert_eq(recorder_nexts(&t.r), LOOPS + 1);
    cr_assert_eq(counter_get(&t.c.disposed), 1);
    countdown_run_finish(&t);
    expect_no_live_objects(0);
}

/* A source that emits its start count, then ends at once, always: with
 * `fail`, with an error (for restart-if-error), else with a completion. */
typedef struct forever_source {
    int starts;
    bool fail;
} forever_source;

/* Past this many starts the source stops ending (the loop waits): a loop
 * that does not stop makes the test fail, not hang. */
#define FOREVER_LIMIT 100000

static sk_disposable *forever_generator(void *ctx, sk_subscriber *subscriber) {
    forever_source *s = ctx;
    s->starts += 1;
    if (s->starts > FOREVER_LIMIT) {
        return NULL;
    }
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

/* A custom operator (sk_signal_create_over) that passes its upstream on:
 * its generator starts the upstream, `ctx`, forwarding to its subscriber. */
static void relay_next(void *ctx, const sk_value *value) {
    SK_OK_OR_ABORT(sk_subscriber_put_next(ctx, value));
}

static void relay_error(void *ctx, const sk_value *error) {
    SK_OK_OR_ABORT(sk_subscriber_put_error(ctx, error));
}

static void relay_completed(void *ctx) {
    SK_OK_OR_ABORT(sk_subscriber_put_completion(ctx));
}

static void relay_release(void *ctx) {
    sk_subscriber_release(ctx);
}

static sk_disposable *relay_generator(void *ctx, sk_subscriber *subscriber) {
    sk_observer observer = { relay_next, relay_error, relay_completed, sk_subscriber_retain(subscriber), relay_release };
    sk_disposable *disposable = NULL;
    SK_OK_OR_ABORT(sk_signal_start(&disposable, ctx, &observer));
    return disposable;
}

/* A loop that never leaves its start (the source always ends synchronously)
 * stops as soon as a downstream take completes, in every resubscribing
 * operator, directly or through map, or through a custom operator
 * (variant 5: it looped until the source's FOREVER_LIMIT; so did Python's
 * `restart().map(f).take(3)`, whose map is one); before, none of these
 * returned. */
Test(operators_catch, synchronous_loops_stop_when_a_downstream_take_completes, .timeout = SK_TEST_TIMEOUT) {
    for (int variant = 0; variant < 6; variant++) {
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
        } else if (variant == 5) {
            SK_OK_OR_FAIL(sk_signal_create_over(&mapped, looped, relay_generator, looped, NULL));
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

/* ------------------------------------------------------------------------ */
/* Retry                                                                    */
/* ------------------------------------------------------------------------ */

/* Retry (its delays `delay` and `max_delay`, on `queue`) over a countdown
 * whose first `limit` starts fail, started on this thread; the caller ends
 * with countdown_run_finish and releases `queue`. */
static void retry_start(countdown_run *t, int limit, double delay, double max_delay, sk_queue *queue) {
    countdown_run_init(t, limit, true);
    SK_OK_OR_FAIL(sk_signal_retry(&t->op, t->source, delay, max_delay, queue));
    countdown_run_start(t);
}

/* On a virtual-time queue (signalkit_test.h): the n-th retry waits
 * min(max_delay, n * delay), so with 1 ms and at most 2 ms the starts come
 * at 0, 1, 3 and 5 ms, none a nanosecond early. */
Test(operators_catch, retry_restarts_on_its_queue_after_errors, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "test.retry"));
    countdown_run t;
    retry_start(&t, 3, 0.001, 0.002, queue);
    const double due[] = { 0.001, 0.003, 0.005 };
    for (int i = 0; i < 3; i++) {
        SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, due[i] - 1e-9, NULL));
        cr_assert_eq(countdown_starts(&t.c), i + 1, "retry %d came early", i + 1);
        SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, due[i], NULL));
        cr_assert_eq(countdown_starts(&t.c), i + 2, "retry %d did not come at %g s", i + 1, due[i]);
    }
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&t.r, "nnn", expected, 3); /* errors never pass */
    SK_OK_OR_FAIL(sk_subscriber_put_completion(t.c.held));
    recorder_expect(&t.r, "nnncr", expected, 3);
    countdown_run_finish(&t);
    expect_no_live_objects(1, queue);
}

Test(operators_catch, retry_starts_again_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.retry.host");
    int fd = host_queue_fd(host);
    countdown_run t;
    retry_start(&t, 1, 0, 0, host);
    cr_assert_eq(countdown_starts(&t.c), 1);
    /* The retry waits for this thread to drain the host queue. */
    cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "no retry scheduled");
    cr_assert_eq(countdown_starts(&t.c), 1);
    t.c.expected_queue = host;
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    cr_assert_eq(countdown_starts(&t.c), 2);
    cr_assert_eq(t.c.off_queue, 0, "the retry did not start on the queue");
    recorder_expect_one(&t.r, "n", 1);
    countdown_run_stop(&t);
    cr_assert_eq(counter_get(&t.c.disposed), 1);
    countdown_run_finish(&t);
    expect_no_live_objects(1, host);
}

Test(operators_catch, retry_dispose_cancels_pending_retry, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    int fd = host_queue_fd(host);
    countdown_run t;
    retry_start(&t, 1, 0, 0, host);
    cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "no retry scheduled");
    sk_disposable_dispose(t.d);
    flush_queue(host);
    cr_assert_eq(countdown_starts(&t.c), 1, "restarted after the dispose");
    recorder_expect(&t.r, "nr", NULL, 0);
    countdown_run_finish(&t);
    expect_no_live_objects(1, host);
}

/* Disposing while a retry waits drops the retry's work from the queue, as
 * disposing delay, timeout, debounce and throttle drops their timers': on a
 * virtual-time queue nothing is left pending and running the queue neither
 * runs a task nor moves the clock (the retry's work stayed scheduled, so a
 * test's next diagram started 5 s late; on a real queue it kept the
 * subscription's loop until max_delay had passed). */
Test(operators_catch, retry_dispose_drops_the_pending_retry_from_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "test.retry.dispose"));
    countdown_run t;
    retry_start(&t, 1, 5, 5, queue);
    size_t pending = 0;
    SK_OK_OR_FAIL(sk_queue_virtual_pending(queue, &pending));
    cr_assert_eq(pending, 1, "no retry scheduled");
    sk_disposable_dispose(t.d);
    SK_OK_OR_FAIL(sk_queue_virtual_pending(queue, &pending));
    cr_assert_eq(pending, 0, "the disposed retry is still scheduled");
    size_t ran = 1;
    SK_OK_OR_FAIL(sk_queue_virtual_run(queue, 0, &ran));
    cr_assert_eq(ran, 0, "the disposed retry's work ran");
    int64_t now = -1;
    SK_OK_OR_FAIL(sk_queue_virtual_now(queue, &now));
    cr_assert_eq(now, 0, "running the queue moved its clock to %lld ns", (long long)now);
    cr_assert_eq(countdown_starts(&t.c), 1, "restarted after the dispose");
    recorder_expect(&t.r, "nr", NULL, 0);
    countdown_run_finish(&t);
    expect_no_live_objects(1, queue);
}

Test(operators_catch, retry_many_times, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "test.retry.many"));
    countdown_run t;
    retry_start(&t, LOOPS, 0, 0, queue);
    size_t ran = 0;
    SK_OK_OR_FAIL(sk_queue_virtual_run(queue, 0, &ran));
    cr_assert_eq(ran, LOOPS, "one task per retry");
    cr_assert_eq(countdown_starts(&t.c), LOOPS + 1);
    cr_assert_eq(recorder_nexts(&t.r), LOOPS);
    cr_assert_eq(t.r.errors, 0);
    countdown_run_stop(&t);
    cr_assert_eq(counter_get(&t.c.disposed), 1);
    countdown_run_finish(&t);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Disposal, releases and argument errors                                   */
/* ------------------------------------------------------------------------ */

static sk_signal *catch_nothing(void *ctx, const sk_value *error) {
    (void)ctx;
    (void)error;
    return NULL;
}

/* The family's operators, for expect_disposal_disposes_upstream. */
static sk_signal *catch_operator(int which, sk_signal *source, manual_source *s, const char **name) {
    (void)s;
    sk_signal *out = NULL;
    switch (which) {
    case 0: *name = "catch"; SK_OK_OR_FAIL(sk_signal_catch(&out, source, catch_nothing, NULL, NULL)); break;
    case 1: *name = "restart"; SK_OK_OR_FAIL(sk_signal_restart(&out, source)); break;
    case 2: *name = "restart_if_error"; SK_OK_OR_FAIL(sk_signal_restart_if_error(&out, source)); break;
    case 3: {
        *name = "retry";
        sk_queue *queue = serial_queue(NULL);
        SK_OK_OR_FAIL(sk_signal_retry(&out, source, 0, 0, queue));
        sk_queue_release(queue);
        break;
    }
    default: return NULL;
    }
    return out;
}

Test(operators_catch, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(expect_disposal_disposes_upstream(catch_operator), 4, "not every operator ran");

    /* Catch, after switching: the returned signal is disposed. */
    pipeline p;
    catcher c;
    catch_start(&p, &c, NULL);
    sk_value one = int_value(1);
    SK_OK_OR_FAIL(sk_subscriber_put_error(pipeline_subscriber(&p), &one));
    cr_assert_eq(counter_get(&c.inners[1].starts), 1);
    sk_disposable_dispose(p.d);
    cr_assert_eq(counter_get(&c.inners[1].disposed), 1);
    recorder_expect(&p.r, "r", NULL, 0);
    pipeline_finish(&p);
    catcher_destroy(&c);
    expect_no_live_objects(0);
}

/* sk_signal_catch for the callback operator checks. */
static int catch_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_catch(out, signal, with_callback ? catch_nothing : NULL, ctx, release);
}

/* The argument errors of the family's other operators (with a host queue of
 * their own, released here: every call fails, so nothing runs on it). */
static void catch_family_argument_errors(bad_args *args) {
    sk_signal *never = args->never, *not_signal = args->not_signal, *out = NULL;
    sk_queue *queue = host_queue(NULL), *not_queue = args->not_queue;

    expect_unary_argument_errors("restart", sk_signal_restart, never, not_signal);
    expect_unary_argument_errors("restart_if_error", sk_signal_restart_if_error, never, not_signal);

    EXPECT_FAILURE_NULL_OUT(sk_signal_retry(NULL, never, 0, 0, queue), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, NULL, 0, 0, queue), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, 0, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, not_signal, 0, 0, queue), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, 0, not_queue), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, -1, 0, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, NAN, 0, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, -0.5, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry(&out, never, 0, NAN, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    sk_queue_release(queue);
}

CALLBACK_OPERATOR_TESTS(operators_catch, "catch", catch_call, catch_family_argument_errors, 4)

/* ------------------------------------------------------------------------ */
/* retry_count (the core's Signal_Catch+Count.swift; the shared marble table */
/* plays its cases: test_marble_table.c)                                     */
/* ------------------------------------------------------------------------ */

/* At once: `count` retries, then the error passes; synchronous failures
 * loop without growing the stack. */
Test(operators_catch, retry_count_retries_count_times_then_fails, .timeout = SK_TEST_TIMEOUT) {
    countdown c;
    countdown_init(&c, 1000000, true);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *retried = NULL;
    SK_OK_OR_FAIL(sk_signal_retry_count(&retried, source, 2, 0, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, retried);
    cr_assert_eq(countdown_starts(&c), 3);
    cr_assert_eq(r.nexts, 3);
    cr_assert_eq(r.errors, 1);
    recorder_finish(&r, d);
    sk_signal *many = NULL;
    SK_OK_OR_FAIL(sk_signal_retry_count(&many, source, LOOPS, 0, NULL));
    d = recorder_start(&r, many);
    cr_assert_eq(countdown_starts(&c), 3 + LOOPS + 1);
    cr_assert_eq(r.errors, 1);
    recorder_finish(&r, d);
    sk_signal_release(many);
    sk_signal_release(retried);
    sk_signal_release(source);
    countdown_destroy(&c);
    expect_no_live_objects(0);
}

/* With a queue: each retry `delay` after the error, on the queue; disposing
 * drops the pending retry. */
Test(operators_catch, retry_count_with_a_delay_waits_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "retry_count"));
    countdown c;
    countdown_init(&c, 1000000, true);
    sk_signal *source = countdown_signal_counted(&c);
    sk_signal *retried = NULL;
    SK_OK_OR_FAIL(sk_signal_retry_count(&retried, source, 5, 2.0, queue));
    recorder r;
    sk_disposable *d = recorder_start(&r, retried);
    cr_assert_eq(countdown_starts(&c), 1);
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, 1.9, NULL));
    cr_assert_eq(countdown_starts(&c), 1);
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, 2.0, NULL));
    cr_assert_eq(countdown_starts(&c), 2);
    sk_disposable_dispose(d);
    size_t pending = 1;
    SK_OK_OR_FAIL(sk_queue_virtual_pending(queue, &pending));
    cr_assert_eq(pending, 0, "the pending retry stayed on the queue");
    cr_assert_eq(r.errors, 0);
    recorder_finish(&r, d);
    sk_signal_release(retried);
    sk_signal_release(source);
    countdown_destroy(&c);
    expect_no_live_objects(1, queue);
}

static sk_signal *build_retry_count(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_retry_count(&o, s, 3, 0, NULL));
    return o;
}

Test(operators_catch, retry_count_dispose_inside_a_value_callback_and_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("retry_count", build_retry_count, 2);
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *out = NULL;
    sk_queue *queue = host_queue(NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_retry_count(NULL, never, 1, 0, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry_count(&out, NULL, 1, 0, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry_count(&out, args.not_signal, 1, 0, NULL), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_retry_count(&out, never, 1, 1.0, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry_count(&out, never, 1, -1, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry_count(&out, never, 1, NAN, queue), SK_ERR_INVALID_ARGUMENT, NULL);
    /* signalkit.h: a negative delay is refused as such, whatever the queue. */
    EXPECT_FAILURE(sk_signal_retry_count(&out, never, 1, -1, NULL), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_retry_count(&out, never, 1, 0, args.not_queue), SK_ERR_WRONG_KIND, NULL);
    sk_queue_release(queue);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}
