/* test_operators_timing.c - debounce, delay, timeout and throttle (the C
 * layer's Operators_Timing.swift and Operators_Throttle.swift): when the upstream starts, which events
 * pass, disposal, and argument errors (with run-on's). Timers run on a
 * virtual-time queue (signalkit_test.h) that the test thread advances: the
 * tests assert orderings and exact deadlines, and no test waits on a real
 * timer. (Tests/C/test_virtual_time.c has the same operators as marble
 * tests.) */
#include <math.h>

#include <signalkit_test.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static sk_queue *virtual_queue(const char *name) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, name));
    return queue;
}

/* Moves the virtual clock of `queue` to `seconds`, running what is due. */
static void advance_to(sk_queue *queue, double seconds) {
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, seconds, NULL));
}

static void expect_on_this_thread(recorder *r) {
    for (size_t i = 0;; i++) {
        const rec_event *e = recorder_event(r, i);
        if (e == NULL) {
            break;
        }
        cr_assert(pthread_equal(e->thread, pthread_self()), "event %zu not on the test thread", i);
    }
}

/* `fn` (sk_signal_delay, sk_signal_throttle) for `seconds` on `host` over the
 * probe source of `t`, started (probe_run_init with `starts_on`, the queue
 * the upstream's starts are expected on, then probe_run_start). */
static void timed_start(probe_run *t, timed_operator_fn fn, double seconds, sk_queue *host, sk_queue *starts_on) {
    probe_run_init(t, starts_on);
    SK_OK_OR_FAIL(fn(&t->op, t->source, seconds, host));
    probe_run_start(t);
}

/* ------------------------------------------------------------------------ */
/* Debounce                                                                 */
/* ------------------------------------------------------------------------ */

Test(operators_timing, debounce_keeps_the_latest_of_a_burst_after_a_quiet_spell, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue("test.debounce");
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_debounce(&p.op, p.upstream, 0.05, queue));
    pipeline_start(&p);
    sk_subscriber *sub = pipeline_subscriber(&p);

    /* A burst at 0: only the latest, 50 ms later, not a nanosecond before. */
    subscriber_put_int(sub, 1);
    subscriber_put_int(sub, 2);
    subscriber_put_int(sub, 3);
    advance_to(queue, 0.049999999);
    cr_assert_eq(recorder_nexts(&p.r), 0);
    advance_to(queue, 0.05);
    recorder_expect_one(&p.r, "n", 3);
    cr_assert(pthread_equal(recorder_event(&p.r, 0)->thread, pthread_self()));

    /* 4 at 0.06, 5 at 0.09 restarts the countdown (to 0.14): nothing at
     * 0.11; the completion at 0.12 flushes 5 at once. */
    advance_to(queue, 0.06);
    subscriber_put_int(sub, 4);
    advance_to(queue, 0.09);
    subscriber_put_int(sub, 5);
    advance_to(queue, 0.12);
    cr_assert_eq(recorder_nexts(&p.r), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(sub));
    advance_to(queue, 0.12);
    const int64_t all[] = { 3, 5 };
    recorder_expect(&p.r, "nncr", all, 2);
    pipeline_finish(&p);
    expect_no_live_objects(1, queue);
}

/* The header documents no range for debounce's seconds; a negative or NaN
 * delay is detectable misuse, so it must fail without crashing. */
Test(operators_timing, debounce_rejects_negative_and_nan, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
    sk_queue *host = host_queue(NULL);
    sk_signal *out = (sk_signal *)&out;
    cr_assert_neq(sk_signal_debounce(&out, never, -1, host), SK_OK);
    cr_assert_null(out);
    out = (sk_signal *)&out;
    cr_assert_neq(sk_signal_debounce(&out, never, NAN, host), SK_OK);
    cr_assert_null(out);
    sk_signal_release(never);
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Delay                                                                    */
/* ------------------------------------------------------------------------ */

Test(operators_timing, delay_starts_the_upstream_from_a_timer_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue("test.delay");
    probe_run t;
    timed_start(&t, sk_signal_delay, 0.02, queue, queue);
    cr_assert_eq(probe_starts(&t.p), 0, "started at once");
    advance_to(queue, 0.019999999);
    cr_assert_eq(probe_starts(&t.p), 0, "started early");
    advance_to(queue, 0.02);
    cr_assert_eq(probe_starts(&t.p), 1);
    cr_assert_eq(t.p.starts_on_queue, 1, "not started on the queue");
    /* Values are not delayed. */
    subscriber_put_int(t.p.subscriber, 1);
    subscriber_put_int(t.p.subscriber, 2);
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&t.r, "nn", expected, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(t.p.subscriber));
    recorder_expect(&t.r, "nncr", expected, 2);
    expect_on_this_thread(&t.r);
    probe_run_finish(&t);
    expect_no_live_objects(1, queue);
}

Test(operators_timing, delay_disposed_before_the_timer_never_starts, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    /* A long delay, and an infinite one (a timer that never fires). */
    const double delays[] = { 1000.0, INFINITY };
    for (size_t i = 0; i < 2; i++) {
        probe_run t;
        probe_run_init(&t, host);
        SK_OK_OR_FAIL(sk_signal_delay(&t.op, t.source, delays[i], host));
        probe_run_dispose_before_the_start(&t, host);
        probe_run_finish(&t);
    }
    /* The timers are gone with the subscriptions. */
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Timeout                                                                  */
/* ------------------------------------------------------------------------ */

/* Timeout (`seconds`, on `host`) over the probe source of `t`, falling back
 * to its alternate, started (probe_run_init, probe_run_start). */
static void timeout_start(probe_run *t, double seconds, sk_queue *host) {
    probe_run_init(t, host);
    SK_OK_OR_FAIL(sk_signal_timeout(&t->op, t->source, seconds, host, t->fallback));
    probe_run_start(t);
}

Test(operators_timing, timeout_lets_an_upstream_that_answers_in_time_pass, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.timeout");
    probe_run t;
    timeout_start(&t, 1000.0, host);
    sk_signal_release(t.fallback); /* borrowed: the result retains it */
    t.fallback = NULL;
    cr_assert_eq(probe_starts(&t.p), 1, "the upstream starts at once");
    subscriber_put_int(t.p.subscriber, 1);
    subscriber_put_int(t.p.subscriber, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(t.p.subscriber));
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&t.r, "nncr", expected, 2);
    flush_queue(host);
    cr_assert_eq(probe_starts(&t.alternate), 0, "the alternate started");
    probe_run_stop(&t);

    /* An upstream answering synchronously wins even against a zero timeout
     * (its timer's work cannot run before this thread drains). */
    const int64_t input[] = { 3 };
    sk_signal *ints = ints_signal(input, 1);
    sk_signal *fallback = probe_signal(&t.alternate), *timed = NULL;
    SK_OK_OR_FAIL(sk_signal_timeout(&timed, ints, 0, host, fallback));
    recorder r;
    sk_disposable *d = recorder_start(&r, timed);
    recorder_expect(&r, "ncr", input, 1);
    flush_queue(host);
    cr_assert_eq(probe_starts(&t.alternate), 0, "the alternate started");
    recorder_finish(&r, d);
    sk_signal_release(timed);
    sk_signal_release(fallback);
    sk_signal_release(ints);
    probe_run_finish(&t);
    cr_assert_eq(t.alternate_released, 2);
    expect_no_live_objects(1, host);
}

Test(operators_timing, timeout_switches_to_the_alternate_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue("test.timeout.fire");
    probe_run t;
    timeout_start(&t, 0.02, queue);
    advance_to(queue, 0.019999999);
    cr_assert_eq(probe_starts(&t.alternate), 0, "the alternate started early");
    cr_assert_eq(counter_get(&t.p.disposed), 0);
    advance_to(queue, 0.02);
    cr_assert_eq(probe_starts(&t.alternate), 1);
    cr_assert_eq(t.alternate.starts_on_queue, 1, "the alternate did not start on the queue");
    cr_assert_eq(counter_get(&t.p.disposed), 1, "the silent upstream is disposed");
    subscriber_put_int(t.p.subscriber, 1); /* too late: dropped */
    subscriber_put_int(t.alternate.subscriber, 5);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(t.alternate.subscriber));
    recorder_expect_one(&t.r, "ncr", 5);
    cr_assert_eq(counter_get(&t.alternate.disposed), 1);
    probe_run_finish(&t);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Throttle                                                                 */
/* ------------------------------------------------------------------------ */

Test(operators_timing, throttle_delivers_the_latest_value_of_each_window, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue("test.throttle");
    probe_run t;
    timed_start(&t, sk_signal_throttle, 0.02, queue, NULL);
    sk_subscriber *sub = t.p.subscriber;

    /* A burst at 0 opens a window: its latest value at the window's end. */
    subscriber_put_int(sub, 1);
    subscriber_put_int(sub, 2);
    advance_to(queue, 0.019999999);
    cr_assert_eq(recorder_nexts(&t.r), 0);
    advance_to(queue, 0.02);
    recorder_expect_one(&t.r, "n", 2);

    /* 3 at 0.025 opens the next window (to 0.045); 4 at 0.035 does not
     * restart it (which is what tells throttle from debounce). */
    advance_to(queue, 0.025);
    subscriber_put_int(sub, 3);
    advance_to(queue, 0.035);
    subscriber_put_int(sub, 4);
    advance_to(queue, 0.044999999);
    cr_assert_eq(recorder_nexts(&t.r), 1);
    advance_to(queue, 0.045);
    const int64_t second[] = { 2, 4 };
    recorder_expect(&t.r, "nn", second, 2);

    /* The completion flushes the pending value first. */
    subscriber_put_int(sub, 5);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(sub));
    advance_to(queue, 0.045);
    const int64_t all[] = { 2, 4, 5 };
    recorder_expect(&t.r, "nnncr", all, 3);
    expect_on_this_thread(&t.r);
    probe_run_finish(&t);
    expect_no_live_objects(1, queue);
}

Test(operators_timing, throttle_error_drops_the_pending_value, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    probe_run t;
    timed_start(&t, sk_signal_throttle, 1000.0, host, NULL);
    subscriber_put_int(t.p.subscriber, 1);
    sk_value error = string_value("failed");
    SK_OK_OR_FAIL(sk_subscriber_put_error(t.p.subscriber, &error));
    drain_until_events(host, &t.r, 2);
    recorder_expect_error(&t.r, &error);
    sk_value_release(&error);
    probe_run_finish(&t);
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Disposal                                                                 */
/* ------------------------------------------------------------------------ */

Test(operators_timing, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = virtual_queue(NULL);
    for (int which = 0; which < 4; which++) {
        probe_run t;
        probe_run_init(&t, host);
        switch (which) {
        case 0: SK_OK_OR_FAIL(sk_signal_run_on(&t.op, t.source, host)); break;
        case 1: SK_OK_OR_FAIL(sk_signal_delay(&t.op, t.source, 0, host)); break;
        case 2: SK_OK_OR_FAIL(sk_signal_timeout(&t.op, t.source, 1000.0, host, t.fallback)); break;
        default: SK_OK_OR_FAIL(sk_signal_throttle(&t.op, t.source, 0, host)); break;
        }
        probe_run_start(&t);
        /* The work due now (run-on's start, delay 0's timer), not the
         * timeout's timer, due in 1000 s. */
        SK_OK_OR_FAIL(sk_queue_virtual_advance_by(host, 0, NULL));
        cr_assert_eq(probe_starts(&t.p), 1, "operator %d: upstream not started", which);
        /* A value pending in throttle's window is dropped by the dispose. */
        subscriber_put_int(t.p.subscriber, 1);
        sk_disposable_dispose(t.d);
        cr_assert_eq(counter_get(&t.p.disposed), 1, "operator %d: upstream not disposed", which);
        subscriber_put_int(t.p.subscriber, 2);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(t.p.subscriber));
        flush_queue(host);
        char log[16];
        recorder_log(&t.r, log, sizeof log);
        const char *expected = which == 3 ? "r" : "nr";
        cr_assert_str_eq(log, expected, "operator %d: log %s", which, log);
        cr_assert_eq(probe_starts(&t.alternate), 0);
        probe_run_finish(&t);
    }
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Argument errors                                                          */
/* ------------------------------------------------------------------------ */

Test(operators_timing, argument_errors, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *not_signal = args.not_signal, *out = NULL;
    sk_queue *host = host_queue(NULL), *not_queue = args.not_queue;

    expect_queue_operator_argument_errors("run_on", sk_signal_run_on, &args, host);
    expect_timed_operator_argument_errors("delay", sk_signal_delay, &args, host);
    expect_timed_operator_argument_errors("throttle", sk_signal_throttle, &args, host);
    expect_timed_operator_argument_errors("debounce", sk_signal_debounce, &args, host);

    EXPECT_FAILURE_NULL_OUT(sk_signal_timeout(NULL, never, 0.1, host, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, NULL, 0.1, host, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, never, 0.1, NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, never, 0.1, host, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, not_signal, 0.1, host, never), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, never, 0.1, not_queue, never), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, never, 0.1, host, not_signal), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, never, -1, host, never), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_timeout(&out, never, NAN, host, never), SK_ERR_INVALID_ARGUMENT, NULL);

    bad_args_destroy(&args);
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* buffer_count, buffer_time, sample, sample_period (the core's              */
/* Signal_Timing+Buffer.swift; the shared marble table plays their cases:    */
/* test_marble_table.c)                                                      */
/* ------------------------------------------------------------------------ */

/* buffer_count: arrays of `count`, the rest flushed by the completion. */
Test(operators_timing, buffer_count_arrays_and_the_flush, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3, 4, 5 };
    sk_signal *ints = ints_signal(input, 5);
    sk_signal *buffered = NULL;
    SK_OK_OR_FAIL(sk_signal_buffer_count(&buffered, ints, 2));
    recorder r;
    sk_disposable *d = recorder_start(&r, buffered);
    cr_assert_eq(recorder_nexts(&r), 3);
    recorder_expect_int_array(&r, 0, input, 2);
    recorder_expect_int_array(&r, 1, input + 2, 2);
    recorder_expect_int_array(&r, 2, input + 4, 1);
    recorder_finish(&r, d);
    sk_signal_release(buffered);
    sk_signal_release(ints);
    expect_no_live_objects(0);
}

/* The array value of a buffer is reused for the next one only when nothing
 * kept it (the library's and the C view's): a value the observer kept never
 * changes, and the values of an array nobody kept are released with their
 * delivery, not when the next array comes. */
typedef struct {
    sk_value kept[3];
    int nexts;
    counter *released;
} buffer_keeper;

static void buffer_keeper_next(void *ctx, const sk_value *value) {
    buffer_keeper *k = ctx;
    if (k->nexts % 2 == 0) {
        sk_value_copy(&k->kept[k->nexts / 2], value);
    }
    k->nexts += 1;
}

Test(operators_timing, buffer_count_reuses_an_array_only_when_nothing_kept_it, .timeout = SK_TEST_TIMEOUT) {
    counter released;
    counter_init(&released);
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *buffered = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_buffer_count(&buffered, source, 2));
    buffer_keeper k = { .released = &released };
    sk_observer observer = { .next = buffer_keeper_next, .ctx = &k };
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, buffered, &observer));
    for (int i = 0; i < 12; i++) {
        sk_value v;
        SK_OK_OR_FAIL(sk_value_set_pointer(&v, (i % 2 == 0) ? (void *)&released : (void *)&k, (i % 2 == 0) ? counter_hit : NULL));
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        sk_value_release(&v);
        if (i % 2 == 1) {
            /* Arrays 0, 2, 4 kept (their counted item alive), 1, 3, 5 not:
             * each one's counted item released when its delivery returned. */
            int emitted = i / 2 + 1;
            cr_expect_eq(counter_get(&released), emitted / 2, "after array %d: %d released, expected %d", emitted - 1, counter_get(&released), emitted / 2);
        }
    }
    cr_assert_eq(k.nexts, 6);
    for (int a = 0; a < 3; a++) {
        cr_assert_eq(sk_value_kind(&k.kept[a]), SK_KIND_ARRAY);
        const sk_value *items = NULL;
        size_t count = 0;
        SK_OK_OR_FAIL(sk_value_get_array_items(&k.kept[a], &items, &count));
        cr_assert_eq(count, 2);
        for (size_t j = 0; j < 2; j++) {
            void *pointer = NULL;
            SK_OK_OR_FAIL(sk_value_get_pointer(&items[j], &pointer));
            cr_expect_eq(pointer, j == 0 ? (void *)&released : (void *)&k, "kept array %d changed at item %zu", a, j);
        }
        sk_value_release(&k.kept[a]);
    }
    cr_expect_eq(counter_get(&released), 6, "every counted item released once its last holder let go");
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(buffered);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

/* buffer_time and sample_period on a virtual queue: the window's values at
 * its end; the latest value at each period's end. */
Test(operators_timing, buffer_time_and_sample_period_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue("buffer");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *source = NULL, *buffered = NULL, *sampled = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_buffer_time(&buffered, source, 1.0, queue));
    SK_OK_OR_FAIL(sk_signal_sample_period(&sampled, source, 1.0, queue));
    recorder rb, rs;
    sk_disposable *db = recorder_start(&rb, buffered);
    sk_disposable *ds = recorder_start(&rs, sampled);
    const int64_t input[] = { 1, 2, 3 };
    for (size_t i = 0; i < 2; i++) {
        sk_value v = int_value(input[i]);
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    }
    advance_to(queue, 0.5);
    cr_assert_eq(recorder_nexts(&rb), 0);
    cr_assert_eq(recorder_nexts(&rs), 0);
    advance_to(queue, 1.0);
    cr_assert_eq(recorder_nexts(&rb), 1);
    recorder_expect_int_array(&rb, 0, input, 2);
    recorder_expect(&rs, "n", input + 1, 1);
    advance_to(queue, 2.0); /* nothing new: neither emits */
    cr_assert_eq(recorder_nexts(&rb), 1);
    cr_assert_eq(recorder_nexts(&rs), 1);
    sk_value v = int_value(3);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    advance_to(queue, 3.0);
    recorder_expect_int_array(&rb, 1, input + 2, 1);
    cr_assert_eq(recorder_event(&rb, 2)->kind, REC_COMPLETED);
    cr_assert_eq(rs.completions, 1);
    expect_on_this_thread(&rb);
    recorder_finish(&rb, db);
    recorder_finish(&rs, ds);
    sk_signal_release(buffered);
    sk_signal_release(sampled);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    expect_no_live_objects(1, queue);
}

/* A window of 0 never ends (every value in one array at the completion),
 * as a period of 0 never samples: signalkit.h, sk_signal_buffer_time(). */
Test(operators_timing, a_window_or_period_of_zero_never_ends, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue("zero");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *source = NULL, *buffered = NULL, *sampled = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_buffer_time(&buffered, source, 0, queue));
    SK_OK_OR_FAIL(sk_signal_sample_period(&sampled, source, 0, queue));
    recorder rb, rs;
    sk_disposable *db = recorder_start(&rb, buffered);
    sk_disposable *ds = recorder_start(&rs, sampled);
    const int64_t input[] = { 1, 2, 3 };
    for (size_t i = 0; i < 3; i++) {
        sk_value v = int_value(input[i]);
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        advance_to(queue, (double)i + 1);
    }
    cr_assert_eq(recorder_nexts(&rb), 0);
    cr_assert_eq(recorder_nexts(&rs), 0);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    advance_to(queue, 10.0);
    cr_assert_eq(recorder_nexts(&rb), 1);
    recorder_expect_int_array(&rb, 0, input, 3);
    cr_assert_eq(recorder_event(&rb, 1)->kind, REC_COMPLETED);
    cr_assert_eq(recorder_nexts(&rs), 0);
    cr_assert_eq(rs.completions, 1);
    recorder_finish(&rb, db);
    recorder_finish(&rs, ds);
    sk_signal_release(buffered);
    sk_signal_release(sampled);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    expect_no_live_objects(1, queue);
}

/* A subscription through a repeating timer whose disposable was released
 * without a dispose ends once its source lets go of it (the pipe released:
 * no value can reach it, so no period could emit again): its observer is
 * released then, and the timers stop (the clock moves on with nothing
 * delivered). Before, the timer kept the subscription and its observer for
 * ever (found by the abandonment soak, Tests/soak/abandon.c). */
Test(operators_timing, a_periodic_operator_ends_when_its_source_lets_go, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue("periodic");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    enum { KINDS = 3 };
    sk_signal *periodic[KINDS] = { NULL };
    SK_OK_OR_FAIL(sk_signal_buffer_time(&periodic[0], source, 1.0, queue));
    SK_OK_OR_FAIL(sk_signal_sample_period(&periodic[1], source, 1.0, queue));
    SK_OK_OR_FAIL(sk_signal_buffer_time_bounded(&periodic[2], source, 1.0, queue, 4, SK_OVERFLOW_DROP_OLDEST, NULL,
                                                NULL, NULL));
    recorder r[KINDS];
    for (int i = 0; i < KINDS; i++) {
        sk_disposable *d = recorder_start(&r[i], periodic[i]);
        sk_disposable_release(d); /* not disposed */
        sk_signal_release(periodic[i]);
    }
    sk_signal_release(source);
    pipe_put_int(pipe, 1);
    advance_to(queue, 1.0);
    for (int i = 0; i < KINDS; i++) {
        cr_assert_eq(recorder_nexts(&r[i]), 1, "kind %d", i);
        cr_assert_eq(r[i].releases, 0, "kind %d: released while its source holds it", i);
    }
    sk_pipe_release(pipe);
    for (int i = 0; i < KINDS; i++) {
        cr_assert_eq(r[i].releases, 1, "kind %d: the observer outlived its source", i);
    }
    pipe = NULL;
    advance_to(queue, 5.0);
    for (int i = 0; i < KINDS; i++) {
        cr_assert_eq(recorder_nexts(&r[i]), 1, "kind %d", i);
        cr_assert_eq(r[i].completions + r[i].errors, 0, "kind %d", i);
        cr_assert_eq(r[i].late_events, 0, "kind %d", i);
        recorder_destroy(&r[i]);
    }
    expect_no_live_objects(1, queue);
}

/* sample by a signal: the latest value at each of the sampler's values,
 * once. */
Test(operators_timing, sample_takes_the_latest_at_each_sampler_value, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL, *ticks = NULL;
    sk_signal *source = NULL, *sampler = NULL, *sampled = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_create(&ticks, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_pipe_signal(&sampler, ticks));
    SK_OK_OR_FAIL(sk_signal_sample(&sampled, source, sampler));
    recorder r;
    sk_disposable *d = recorder_start(&r, sampled);
    sk_value nil;
    sk_value_set_nil(&nil);
    for (int64_t i = 1; i <= 2; i++) {
        sk_value v = int_value(i);
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    }
    SK_OK_OR_FAIL(sk_pipe_put(ticks, &nil));
    SK_OK_OR_FAIL(sk_pipe_put(ticks, &nil)); /* nothing new */
    const int64_t expected[] = { 2 };
    recorder_expect(&r, "n", expected, 1);
    recorder_finish(&r, d);
    sk_signal_release(sampled);
    sk_signal_release(source);
    sk_signal_release(sampler);
    sk_pipe_release(pipe);
    sk_pipe_release(ticks);
    expect_no_live_objects(0);
}

static sk_signal *build_buffer_count(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_buffer_count(&o, s, 1));
    return o;
}

static int buffer_count_two(sk_signal **out, sk_signal *signal) {
    return sk_signal_buffer_count(out, signal, 2);
}

Test(operators_timing, buffer_and_sample_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("buffer_count", build_buffer_count, 2);
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *not_signal = args.not_signal, *out = NULL;
    sk_queue *host = host_queue(NULL);
    expect_timed_operator_argument_errors("buffer_time", sk_signal_buffer_time, &args, host);
    expect_timed_operator_argument_errors("sample_period", sk_signal_sample_period, &args, host);
    expect_unary_argument_errors("buffer_count", buffer_count_two, never, not_signal);
    EXPECT_FAILURE(sk_signal_buffer_count(&out, never, 0), SK_ERR_INVALID_ARGUMENT, NULL);
    cr_assert(strstr(sk_last_error_message(), "count must be at least 1") != NULL, "%s", sk_last_error_message());
    EXPECT_FAILURE_NULL_OUT(sk_signal_sample(NULL, never, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_sample(&out, NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_sample(&out, never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_sample(&out, not_signal, never), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_sample(&out, never, not_signal), SK_ERR_WRONG_KIND, NULL);
    bad_args_destroy(&args);
    expect_no_live_objects(1, host);
}
