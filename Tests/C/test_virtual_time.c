/* test_virtual_time.c - signalkit_test.h: the virtual-time queue's laws, the
 * time-based operators as marble tests (the diagrams of the Swift suite,
 * Tests/SwiftSignalKitTestingTests/OperatorMarbleTests.swift), and the
 * argument errors of the test functions. Nothing here waits on a real
 * clock: a frame is 1 ms of virtual time, and the test thread moves it. */
#include <ctype.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <signalkit_test.h>

#include "support.h"

#define FRAME 0.001

/* `frames` frames in seconds. */
static double frames(int n) {
    return n * FRAME;
}

static sk_queue *virtual_queue(void) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "test.virtual"));
    return queue;
}

/* A cold test signal of `diagram` whose `#` is the string "boom"; its
 * subscription log into `*log` when `log` is not NULL. */
static sk_signal *cold_logged(sk_queue *queue, const char *diagram, sk_test_subscriptions **log) {
    sk_signal *signal = NULL;
    sk_value error = string_value("boom");
    SK_OK_OR_FAIL(sk_test_signal_cold(&signal, log, queue, FRAME, diagram, NULL, 0, &error));
    sk_value_release(&error);
    return signal;
}

static sk_signal *cold(sk_queue *queue, const char *diagram) {
    return cold_logged(queue, diagram, NULL);
}

/* Asserts that a subscription log reads `expected`, and releases it. */
static void expect_subscriptions(sk_test_subscriptions *log, const char *expected) {
    char actual[128];
    SK_OK_OR_FAIL(sk_test_subscriptions_text(log, actual, sizeof actual, NULL));
    cr_assert_str_eq(actual, expected, "\nexpected subscriptions: %s\nactual:                 %s", expected, actual);
    sk_test_subscriptions_release(log);
}

static sk_test_recorder *record(sk_signal *signal, sk_queue *queue) {
    sk_test_recorder *recorder = NULL;
    SK_OK_OR_FAIL(sk_test_record(&recorder, signal, queue, FRAME));
    return recorder;
}

/* Asserts that `recorder` recorded `expected` (printed with `values`), showing
 * both diagrams one above the other when not. */
static void expect_marbles_with(sk_test_recorder *recorder, const sk_marble_value *values, size_t count, const char *expected) {
    char actual[256];
    size_t length = 0;
    SK_OK_OR_FAIL(sk_test_recorder_diagram(recorder, values, count, actual, sizeof actual, &length));
    cr_assert_lt(length, sizeof actual);
    cr_assert_str_eq(actual, expected, "\nexpected: %s\nactual:   %s", expected, actual);
}

static void expect_marbles(sk_test_recorder *recorder, const char *expected) {
    expect_marbles_with(recorder, NULL, 0, expected);
}

static void run(sk_queue *queue) {
    SK_OK_OR_FAIL(sk_queue_virtual_run(queue, 0, NULL));
}

static int64_t now_ns(sk_queue *queue) {
    int64_t now = -1;
    SK_OK_OR_FAIL(sk_queue_virtual_now(queue, &now));
    return now;
}

/* ------------------------------------------------------------------------ */
/* The queue's laws                                                          */
/* ------------------------------------------------------------------------ */

static void log_a(void *ctx) { char_log_append(ctx, 'a'); }
static void log_b(void *ctx) { char_log_append(ctx, 'b'); }
static void log_c(void *ctx) { char_log_append(ctx, 'c'); }
static void log_d(void *ctx) { char_log_append(ctx, 'd'); }

Test(virtual_time, work_runs_only_when_advanced_in_deadline_order_ties_in_submission_order, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    char_log log;
    char_log_init(&log);
    SK_OK_OR_FAIL(sk_queue_after(queue, 0.3, log_c, &log, NULL));
    SK_OK_OR_FAIL(sk_queue_after(queue, 0.1, log_a, &log, NULL));
    SK_OK_OR_FAIL(sk_queue_after(queue, 0.3, log_d, &log, NULL));
    SK_OK_OR_FAIL(sk_queue_after(queue, 0.2, log_b, &log, NULL));
    char_log_expect(&log, "", "before any advance");
    size_t ran = 99;
    SK_OK_OR_FAIL(sk_queue_virtual_advance_by(queue, 0.15, &ran));
    cr_assert_eq(ran, 1);
    char_log_expect(&log, "a", "at 0.15");
    cr_assert_eq(now_ns(queue), 150000000);
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, 1.0, &ran));
    cr_assert_eq(ran, 3);
    char_log_expect(&log, "abcd", "at 1");
    cr_assert_eq(now_ns(queue), 1000000000);
    char_log_destroy(&log);
    expect_no_live_objects(1, queue);
}

typedef struct advance_probe {
    sk_queue *queue;
    int status;
    bool current;
} advance_probe;

static void advance_from_inside(void *ctx) {
    advance_probe *probe = ctx;
    probe->current = sk_queue_is_current(probe->queue);
    probe->status = sk_queue_virtual_advance_by(probe->queue, 1.0, NULL);
}

Test(virtual_time, advance_from_inside_work_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    advance_probe probe = { queue, SK_OK, false };
    SK_OK_OR_FAIL(sk_queue_async(queue, advance_from_inside, &probe, NULL));
    cr_assert(!sk_queue_is_current(queue));
    run(queue);
    cr_assert(probe.current);
    cr_assert_eq(probe.status, SK_ERR_UNSUPPORTED);
    cr_assert_eq(now_ns(queue), 0);
    expect_no_live_objects(1, queue);
}

/* A finite, non-negative duration or time past the clock's end (2^63 ns
 * from its start) is refused too, with a message that names the end (it
 * said the value was not finite or negative); what is invalid whatever the
 * clock keeps its message. */
Test(virtual_time, past_the_clocks_end_is_an_error_naming_the_end, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    cr_assert_eq(sk_queue_virtual_advance_by(queue, 9.3e9, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "past its end (2^63 ns") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_queue_virtual_advance_to(queue, 1e12, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "past its end (2^63 ns") != NULL, "%s", sk_last_error_message());
    SK_OK_OR_FAIL(sk_queue_virtual_advance_by(queue, 9e9, NULL));
    cr_assert_eq(sk_queue_virtual_advance_by(queue, 3e8, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "past its end (2^63 ns") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(now_ns(queue), 9000000000000000000LL);
    cr_assert_eq(sk_queue_virtual_advance_by(queue, -1.0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "is not a valid duration or time") != NULL, "%s", sk_last_error_message());
    expect_no_live_objects(1, queue);
}

Test(virtual_time, bad_arguments_are_errors, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_queue *real = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&real, "test.real"));
    int64_t now = 0;
    size_t count = 0;
    cr_assert_eq(sk_queue_virtual_advance_by(queue, -1.0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_queue_virtual_advance_by(queue, NAN, NULL), SK_ERR_INVALID_ARGUMENT);
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, 2.0, NULL));
    cr_assert_eq(sk_queue_virtual_advance_to(queue, 1.0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "sk_queue_virtual_advance_to") != NULL, "%s", sk_last_error_message());
    /* In the C API's words, not the Swift method's ("advance(to: 1.0)"). */
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_queue_virtual_advance_to: the time 1.0 s is before the queue's clock (2.0 s): a virtual clock only moves forward");
    cr_assert_eq(sk_queue_virtual_advance_by(real, 1.0, NULL), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_queue_virtual_run(real, 0, NULL), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_queue_virtual_now(real, &now), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_queue_virtual_pending(real, &count), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_queue_virtual_advance_by(NULL, 1.0, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_queue_virtual_now(queue, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_queue_create_virtual(NULL, "x"), SK_ERR_NULL_ARGUMENT);
    expect_no_live_objects(2, queue, real);
}

Test(virtual_time, a_repeating_timer_fires_every_period_and_stops_at_the_task_limit, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    counter fired;
    counter_init(&fired);
    sk_disposable *timer = NULL;
    SK_OK_OR_FAIL(sk_timer_start(&timer, queue, frames(2), true, counter_hit, &fired, NULL));
    SK_OK_OR_FAIL(sk_queue_virtual_advance_by(queue, frames(7), NULL));
    cr_assert_eq(counter_get(&fired), 3);
    size_t ran = 0;
    cr_assert_eq(sk_queue_virtual_run(queue, 10, &ran), SK_ERR_RESOURCE);
    cr_assert_eq(ran, 10);
    cr_assert_eq(counter_get(&fired), 13);
    cr_assert_eq(now_ns(queue), 26000000);
    sk_disposable_dispose(timer);
    size_t pending = 99;
    SK_OK_OR_FAIL(sk_queue_virtual_pending(queue, &pending));
    cr_assert_eq(pending, 0);
    sk_disposable_release(timer);
    counter_destroy(&fired);
    expect_no_live_objects(1, queue);
}

/* The work and its release both count: 1 after the release means the work
 * never ran and its context was released once. */
Test(virtual_time, releasing_the_queue_drops_pending_work_and_releases_it, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    counter hits;
    counter_init(&hits);
    SK_OK_OR_FAIL(sk_queue_after(queue, 1.0, counter_hit, &hits, counter_hit));
    cr_assert_eq(counter_get(&hits), 0);
    sk_queue_release(queue);
    cr_assert_eq(counter_get(&hits), 1);
    counter_destroy(&hits);
    expect_no_live_objects(0);
}

/* A sync waiting for another thread's advance (which is inside a task)
 * when the queue's last handle is released: the close drops the sync's work
 * (its release runs on the releasing thread) and the sync returns
 * SK_ERR_RELEASED. Before: it waited for ever. */
typedef struct virtual_closing {
    sk_queue *queue;
    gate inside;         /* the advancing thread runs its task */
    gate proceed;        /* the task may return */
    int advance_status;
    counter ran;         /* the sync's work */
    counter released;    /* its release */
    int sync_status;
    char message[256];
    gate returned;       /* the sync returned */
} virtual_closing;

static void block_inside(void *ctx) {
    virtual_closing *v = ctx;
    gate_open(&v->inside);
    gate_wait(&v->proceed, SK_WAIT_SECONDS);
}

static void *advance_past_the_block(void *arg) {
    virtual_closing *v = arg;
    v->advance_status = sk_queue_virtual_advance_by(v->queue, 0, NULL);
    return NULL;
}

static void closing_work(void *ctx) {
    counter_hit(&((virtual_closing *)ctx)->ran);
}

static void closing_release(void *ctx) {
    counter_hit(&((virtual_closing *)ctx)->released);
}

static void *sync_while_advancing(void *arg) {
    virtual_closing *v = arg;
    v->sync_status = sk_queue_sync(v->queue, closing_work, v, closing_release);
    snprintf(v->message, sizeof v->message, "%s", sk_last_error_message());
    gate_open(&v->returned);
    return NULL;
}

Test(virtual_time, releasing_the_queue_while_a_sync_waits_drops_its_work_and_the_sync_returns, .timeout = SK_TEST_TIMEOUT) {
    virtual_closing v;
    memset(&v, 0, sizeof v);
    v.queue = virtual_queue();
    gate_init(&v.inside);
    gate_init(&v.proceed);
    gate_init(&v.returned);
    counters_init(2, &v.ran, &v.released);
    SK_OK_OR_FAIL(sk_queue_after(v.queue, 0, block_inside, &v, NULL));
    pthread_t advancer, syncer;
    cr_assert_eq(pthread_create(&advancer, NULL, advance_past_the_block, &v), 0);
    cr_assert(gate_wait(&v.inside, SK_WAIT_SECONDS), "the advance never ran its task");
    cr_assert_eq(pthread_create(&syncer, NULL, sync_while_advancing, &v), 0);
    /* Until the sync's work is scheduled (a deadline, not a delay). */
    double deadline = now_seconds() + SK_WAIT_SECONDS;
    size_t pending = 0;
    while (pending == 0 && now_seconds() < deadline) {
        SK_OK_OR_FAIL(sk_queue_virtual_pending(v.queue, &pending));
        if (pending == 0) {
            sched_yield();
        }
    }
    cr_assert_eq(pending, 1, "the sync's work was never scheduled");
    sk_queue_release(v.queue);
    cr_assert_eq(counter_get(&v.released), 1, "the sync's work was not released by sk_queue_release");
    cr_assert(pthread_equal(v.released.last_thread, pthread_self()), "released on another thread");
    cr_assert(gate_wait(&v.returned, SK_WAIT_SECONDS), "sk_queue_sync never returned after the close");
    pthread_join(syncer, NULL);
    cr_assert_eq(v.sync_status, SK_ERR_RELEASED, "sk_queue_sync returned %d (%s)", v.sync_status, v.message);
    cr_assert_not_null(strstr(v.message, "closed"), "%s", v.message);
    gate_open(&v.proceed);
    pthread_join(advancer, NULL);
    cr_assert_eq(v.advance_status, SK_OK);
    cr_assert_eq(counter_get(&v.ran), 0, "the dropped work ran");
    counters_destroy(2, &v.ran, &v.released);
    gate_destroy(&v.inside);
    gate_destroy(&v.proceed);
    gate_destroy(&v.returned);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* The time-based operators as marble tests                                  */
/* ------------------------------------------------------------------------ */

/* The issue's example: b at 3 comes out 3 quiet frames later, at 6; the
 * completion at 12 flushes c, pending since 11. */
Test(virtual_time, debounce, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_test_subscriptions *log = NULL;
    sk_signal *source = cold_logged(queue, "-a-b-------c|", &log);
    sk_signal *debounced = NULL;
    SK_OK_OR_FAIL(sk_signal_debounce(&debounced, source, frames(3), queue));
    sk_test_recorder *recorder = record(debounced, queue);
    run(queue);
    expect_marbles(recorder, "------b-----(c|)");
    expect_subscriptions(log, "^0 !12");
    sk_test_recorder_release(recorder);
    sk_signal_release(debounced);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, debounce_emits_each_value_after_a_quiet_spell, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *source = cold(queue, "a----b-c-d-----e---|");
    sk_signal *debounced = NULL;
    SK_OK_OR_FAIL(sk_signal_debounce(&debounced, source, frames(3), queue));
    sk_test_recorder *recorder = record(debounced, queue);
    run(queue);
    expect_marbles(recorder, "---a--------d-----e|");
    sk_test_recorder_release(recorder);
    sk_signal_release(debounced);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, debounce_drops_the_pending_value_on_error, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *source = cold(queue, "a-b#");
    sk_signal *debounced = NULL;
    SK_OK_OR_FAIL(sk_signal_debounce(&debounced, source, frames(3), queue));
    sk_test_recorder *recorder = record(debounced, queue);
    run(queue);
    expect_marbles(recorder, "---#");
    sk_test_recorder_release(recorder);
    sk_signal_release(debounced);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, disposing_a_debounce_drops_its_timer, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *source = cold(queue, "-a--------|");
    sk_signal *debounced = NULL;
    SK_OK_OR_FAIL(sk_signal_debounce(&debounced, source, frames(3), queue));
    sk_test_recorder *recorder = record(debounced, queue);
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, frames(2), NULL));
    sk_test_recorder_dispose(recorder);
    run(queue);
    expect_marbles(recorder, "");
    sk_test_recorder_release(recorder);
    sk_signal_release(debounced);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, throttle, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *source = cold(queue, "-a-b-c---d|");
    sk_signal *throttled = NULL;
    SK_OK_OR_FAIL(sk_signal_throttle(&throttled, source, frames(3), queue));
    sk_test_recorder *recorder = record(throttled, queue);
    run(queue);
    expect_marbles(recorder, "----b---c-(d|)");
    sk_test_recorder_release(recorder);
    sk_signal_release(throttled);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, delay_delays_the_subscription, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_test_subscriptions *log = NULL;
    sk_signal *source = cold_logged(queue, "a-b|", &log);
    sk_signal *delayed = NULL;
    SK_OK_OR_FAIL(sk_signal_delay(&delayed, source, frames(2), queue));
    sk_test_recorder *recorder = record(delayed, queue);
    run(queue);
    expect_marbles(recorder, "--a-b|");
    expect_subscriptions(log, "^2 !5");
    sk_test_recorder_release(recorder);
    sk_signal_release(delayed);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, timeout_passes_an_upstream_that_answers_in_time, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_test_subscriptions *alternate_log = NULL;
    sk_signal *source = cold(queue, "--a-b|");
    sk_signal *alternate = cold_logged(queue, "x|", &alternate_log);
    sk_signal *guarded = NULL;
    SK_OK_OR_FAIL(sk_signal_timeout(&guarded, source, frames(3), queue, alternate));
    sk_test_recorder *recorder = record(guarded, queue);
    run(queue);
    expect_marbles(recorder, "--a-b|");
    expect_subscriptions(alternate_log, "");
    sk_test_recorder_release(recorder);
    sk_signal_release(guarded);
    sk_signal_release(alternate);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, timeout_switches_to_the_alternate_when_the_upstream_is_silent, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_test_subscriptions *source_log = NULL, *alternate_log = NULL;
    sk_signal *source = cold_logged(queue, "-----a|", &source_log);
    sk_signal *alternate = cold_logged(queue, "x-y|", &alternate_log);
    sk_signal *guarded = NULL;
    SK_OK_OR_FAIL(sk_signal_timeout(&guarded, source, frames(3), queue, alternate));
    sk_test_recorder *recorder = record(guarded, queue);
    run(queue);
    expect_marbles(recorder, "---x-y|");
    expect_subscriptions(source_log, "^0 !3");
    expect_subscriptions(alternate_log, "^3 !6");
    sk_test_recorder_release(recorder);
    sk_signal_release(guarded);
    sk_signal_release(alternate);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

/* The upstream starts before the timer is armed, so an upstream event at the
 * timeout's frame was scheduled first and, ties running in the order they
 * were scheduled, wins: at frame 4 with a timeout of 4 frames, and at frame 0
 * with a timeout of 0. */
static void expect_upstream_wins_the_tie(const char *diagram, int timeout_frames, const char *expected) {
    sk_queue *queue = virtual_queue();
    sk_test_subscriptions *alternate_log = NULL;
    sk_signal *source = cold(queue, diagram);
    sk_signal *alternate = cold_logged(queue, "x|", &alternate_log);
    sk_signal *guarded = NULL;
    SK_OK_OR_FAIL(sk_signal_timeout(&guarded, source, frames(timeout_frames), queue, alternate));
    sk_test_recorder *recorder = record(guarded, queue);
    run(queue);
    expect_marbles(recorder, expected);
    expect_subscriptions(alternate_log, "");
    sk_test_recorder_release(recorder);
    sk_signal_release(guarded);
    sk_signal_release(alternate);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, timeout_an_upstream_event_at_the_timeouts_frame_wins, .timeout = SK_TEST_TIMEOUT) {
    expect_upstream_wins_the_tie("----a|", 4, "----a|");
}

Test(virtual_time, timeout_an_upstream_event_at_frame_zero_beats_a_timeout_of_zero, .timeout = SK_TEST_TIMEOUT) {
    expect_upstream_wins_the_tie("(a|)", 0, "(a|)");
}

/* The n-th retry waits n * 2 frames: subscriptions at 0, 4 and 10, each
 * failing 2 frames in; disposed at 14, before the retry due at 18. */
Test(virtual_time, retry_with_a_growing_delay, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_test_subscriptions *log = NULL;
    sk_signal *source = cold_logged(queue, "-a#", &log);
    sk_signal *retried = NULL;
    SK_OK_OR_FAIL(sk_signal_retry(&retried, source, frames(2), frames(10), queue));
    sk_test_recorder *recorder = record(retried, queue);
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, frames(14), NULL));
    sk_test_recorder_dispose(recorder);
    run(queue);
    expect_marbles(recorder, "-a---a-----a");
    expect_subscriptions(log, "^0 !2 ^4 !6 ^10 !12");
    sk_test_recorder_release(recorder);
    sk_signal_release(retried);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

static void put_text(sk_pipe *pipe, const char *text) {
    sk_value value = string_value(text);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &value));
    sk_value_release(&value);
}

/* Values put from outside the queue are delivered at the next advance, in
 * the frame they were put in. */
Test(virtual_time, deliver_on_the_virtual_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, source, queue));
    sk_test_recorder *recorder = record(delivered, queue);
    put_text(pipe, "a");
    expect_marbles(recorder, "");
    SK_OK_OR_FAIL(sk_queue_virtual_advance_by(queue, frames(2), NULL));
    put_text(pipe, "b");
    put_text(pipe, "c");
    SK_OK_OR_FAIL(sk_queue_virtual_advance_by(queue, frames(1), NULL));
    expect_marbles(recorder, "a-(bc)");
    sk_test_recorder_release(recorder);
    sk_signal_release(delivered);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    expect_no_live_objects(1, queue);
}

/* A subscription from outside the queue starts the upstream at the next
 * advance. */
Test(virtual_time, run_on_the_virtual_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *source = cold(queue, "a|");
    sk_signal *moved = NULL;
    SK_OK_OR_FAIL(sk_signal_run_on(&moved, source, queue));
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, frames(2), NULL));
    sk_test_recorder *recorder = record(moved, queue);
    size_t pending = 0;
    SK_OK_OR_FAIL(sk_queue_virtual_pending(queue, &pending));
    cr_assert_eq(pending, 1, "the start waits for the queue");
    run(queue);
    expect_marbles(recorder, "--a|");
    sk_test_recorder_release(recorder);
    sk_signal_release(moved);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* The README's search-as-you-type pipeline                                  */
/* ------------------------------------------------------------------------ */

static void lowercase(void *ctx, const sk_value *in, sk_value *out) {
    const char *text = NULL;
    char lower[32] = { 0 };
    (void)ctx;
    SK_OK_OR_ABORT(sk_value_get_string(in, &text, NULL));
    for (size_t i = 0; text[i] != '\0' && i + 1 < sizeof lower; i++) {
        lower[i] = (char)tolower((unsigned char)text[i]);
    }
    SK_OK_OR_ABORT(sk_value_set_string(out, lower));
}

/* The searches, one cold test signal per query: 5 frames, then one result. */
typedef struct searches {
    const char *queries[3];
    sk_signal *signals[3];
} searches;

static sk_signal *search(void *ctx, const sk_value *query) {
    searches *s = ctx;
    const char *text = NULL;
    SK_OK_OR_ABORT(sk_value_get_string(query, &text, NULL));
    for (size_t i = 0; i < 3; i++) {
        if (strcmp(s->queries[i], text) == 0) {
            return sk_signal_retain(s->signals[i]);
        }
    }
    return NULL;
}

/* Keystrokes -> lowercase -> distinct -> debounce(3) -> a 5-frame search per
 * query (map-to-signal cancels the one in flight) -> deliver-on. The burst
 * "s", "si", "Si", "sig" searches only "sig" (at 7, results at 12); "s" is
 * searched at 14 and cancelled at 18 by "sw", whose results come at 23. */
Test(virtual_time, search_as_you_type, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_marble_value keys[5] = { { 's', { 0 } }, { 'i', { 0 } }, { 'I', { 0 } }, { 'g', { 0 } }, { 'w', { 0 } } };
    const char *texts[5] = { "s", "si", "Si", "sig", "sw" };
    for (size_t i = 0; i < 5; i++) {
        keys[i].value = string_value(texts[i]);
    }
    sk_marble_value results[2] = { { 'G', { 0 } }, { 'W', { 0 } } };
    results[0].value = string_value("SIG");
    results[1].value = string_value("SW");
    sk_marble_value answer[3] = { { 'r', { 0 } }, { 'r', { 0 } }, { 'r', { 0 } } };
    searches s = { { "s", "sig", "sw" }, { NULL, NULL, NULL } };
    sk_test_subscriptions *logs[3] = { NULL, NULL, NULL };
    const char *answers[3] = { "S", "SIG", "SW" };
    for (size_t i = 0; i < 3; i++) {
        answer[i].value = string_value(answers[i]);
        SK_OK_OR_FAIL(sk_test_signal_cold(&s.signals[i], &logs[i], queue, FRAME, "-----(r|)", &answer[i], 1, NULL));
    }

    sk_signal *keystrokes = NULL, *lowered = NULL, *distinct = NULL, *debounced = NULL, *searched = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_test_signal_hot(&keystrokes, NULL, queue, FRAME, "-siIg------s---w---------|", keys, 5, NULL));
    SK_OK_OR_FAIL(sk_signal_map(&lowered, keystrokes, lowercase, NULL, NULL));
    SK_OK_OR_FAIL(sk_signal_distinct_until_changed(&distinct, lowered));
    SK_OK_OR_FAIL(sk_signal_debounce(&debounced, distinct, frames(3), queue));
    SK_OK_OR_FAIL(sk_signal_map_to_signal(&searched, debounced, search, &s, NULL));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, searched, queue));
    sk_test_recorder *recorder = record(delivered, queue);
    run(queue);
    expect_marbles_with(recorder, results, 2, "------------G----------W-|");
    expect_subscriptions(logs[0], "^14 !18"); /* "s": cancelled by "sw" */
    expect_subscriptions(logs[1], "^7 !12");
    expect_subscriptions(logs[2], "^18 !23");

    sk_test_recorder_release(recorder);
    sk_signal_release(delivered);
    sk_signal_release(searched);
    sk_signal_release(debounced);
    sk_signal_release(distinct);
    sk_signal_release(lowered);
    sk_signal_release(keystrokes);
    for (size_t i = 0; i < 3; i++) {
        sk_signal_release(s.signals[i]);
        sk_value_release(&answer[i].value);
    }
    for (size_t i = 0; i < 5; i++) {
        sk_value_release(&keys[i].value);
    }
    values_release(2, &results[0].value, &results[1].value);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Test signals and recorders: values, hot signals, errors                   */
/* ------------------------------------------------------------------------ */

Test(virtual_time, value_tables_map_characters_to_values_both_ways, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_marble_value in[2] = { { '1', { 0 } }, { '2', { 0 } } };
    in[0].value = int_value(10);
    in[1].value = int_value(20);
    sk_value error = int_value(-1);
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_test_signal_cold(&source, NULL, queue, FRAME, "-1-(21)#", in, 2, &error));
    sk_test_recorder *recorder = record(source, queue);
    run(queue);
    expect_marbles_with(recorder, in, 2, "-1-(21)#");
    /* A value the table does not have prints as '?'. */
    expect_marbles_with(recorder, in, 1, "-1-(?1)#");
    /* Without a table, integers have no character. */
    expect_marbles(recorder, "-?-(?\?)#"); /* "?\?": no trigraph */
    /* A small buffer gets a truncated diagram and the full length. */
    char small[4];
    size_t length = 0;
    SK_OK_OR_FAIL(sk_test_recorder_diagram(recorder, in, 2, small, sizeof small, &length));
    cr_assert_str_eq(small, "-1-");
    cr_assert_eq(length, 8);
    SK_OK_OR_FAIL(sk_test_recorder_diagram(recorder, in, 2, NULL, 0, &length));
    cr_assert_eq(length, 8);
    sk_test_recorder_release(recorder);
    sk_signal_release(source);
    sk_value_release(&error);
    expect_no_live_objects(1, queue);
}

Test(virtual_time, a_hot_signal_plays_once_from_its_subscription_point, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *source = NULL;
    sk_test_subscriptions *log = NULL;
    SK_OK_OR_FAIL(sk_test_signal_hot(&source, &log, queue, FRAME, "-x^-a-b-c|", NULL, 0, NULL));
    sk_test_recorder *early = record(source, queue);
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, frames(2), NULL));
    sk_test_recorder *late = record(source, queue);
    run(queue);
    expect_marbles(early, "-a-b-c|");
    expect_marbles(late, "---b-c|");
    expect_subscriptions(log, "^0 !6 ^2 !6");
    sk_test_recorder_release(early);
    sk_test_recorder_release(late);
    sk_signal_release(source);
    expect_no_live_objects(1, queue);
}

/* A subscription made by work on the queue, for the test below. */
struct subscribe_later {
    sk_signal **signal;
    sk_queue *queue;
    sk_test_recorder *recorder;
};

static void subscribe_now(void *ctx) {
    struct subscribe_later *later = ctx;
    later->recorder = record(*later->signal, later->queue);
}

/* signalkit_test.h, sk_test_signal_hot(): events and a subscription in one
 * frame come in the order they were scheduled on the queue. */
Test(virtual_time, a_hot_signals_events_and_a_subscription_in_one_frame_come_in_scheduling_order, .timeout = SK_TEST_TIMEOUT) {
    for (int hot_first = 0; hot_first < 2; hot_first++) {
        sk_queue *queue = virtual_queue();
        sk_signal *source = NULL;
        struct subscribe_later later = {&source, queue, NULL};
        if (!hot_first)
            SK_OK_OR_FAIL(sk_queue_after(queue, frames(1), subscribe_now, &later, NULL));
        SK_OK_OR_FAIL(sk_test_signal_hot(&source, NULL, queue, FRAME, "^-a-b|", NULL, 0, NULL));
        if (hot_first)
            SK_OK_OR_FAIL(sk_queue_after(queue, frames(1), subscribe_now, &later, NULL));
        run(queue);
        cr_assert_not_null(later.recorder);
        expect_marbles(later.recorder, hot_first ? "---b|" : "-a-b|");
        sk_test_recorder_release(later.recorder);
        sk_signal_release(source);
        expect_no_live_objects(1, queue);
    }
}

Test(virtual_time, test_functions_reject_bad_arguments, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_queue *real = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&real, "test.real"));
    sk_signal *signal = (sk_signal *)0x1;
    sk_test_subscriptions *log = (sk_test_subscriptions *)0x1;
    cr_assert_eq(sk_test_signal_cold(&signal, &log, queue, FRAME, "-a-(b", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(signal);
    cr_assert_null(log);
    cr_assert(strstr(sk_last_error_message(), "sk_test_signal_cold") != NULL, "%s", sk_last_error_message());
    cr_assert(strstr(sk_last_error_message(), "never closed") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_test_signal_hot(&signal, NULL, queue, FRAME, "a|b", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, real, FRAME, "a|", NULL, 0, NULL), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, 0.0, "a|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, NULL, NULL, 0, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "a|", NULL, 2, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_test_signal_cold(NULL, NULL, queue, FRAME, "a|", NULL, 0, NULL), SK_ERR_NULL_ARGUMENT);
    /* A character the table does not have. */
    sk_marble_value one[1] = { { 'a', { 0 } } };
    one[0].value = int_value(1);
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "a-b|", one, 1, NULL), SK_ERR_INVALID_ARGUMENT);

    sk_signal *good = cold(queue, "a|");
    sk_test_recorder *recorder = (sk_test_recorder *)0x1;
    cr_assert_eq(sk_test_record(&recorder, good, real, FRAME), SK_ERR_WRONG_KIND);
    cr_assert_null(recorder);
    cr_assert_eq(sk_test_record(&recorder, NULL, queue, FRAME), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_test_record(&recorder, good, queue, -1.0), SK_ERR_INVALID_ARGUMENT);
    recorder = record(good, queue);
    char buffer[8];
    cr_assert_eq(sk_test_recorder_diagram(recorder, NULL, 0, NULL, 8, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_test_recorder_diagram(recorder, NULL, 3, buffer, sizeof buffer, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_test_recorder_diagram((sk_test_recorder *)good, NULL, 0, buffer, sizeof buffer, NULL), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_test_recorder_diagram(NULL, NULL, 0, buffer, sizeof buffer, NULL), SK_ERR_NULL_ARGUMENT);
    sk_test_recorder_dispose(NULL);
    sk_test_recorder_release(NULL);
    cr_assert_eq(sk_test_subscriptions_text(NULL, buffer, sizeof buffer, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_test_subscriptions_text((sk_test_subscriptions *)good, buffer, sizeof buffer, NULL), SK_ERR_WRONG_KIND);
    sk_test_subscriptions_release(NULL);
    sk_signal *logged = cold_logged(queue, "a|", &log);
    cr_assert_eq(sk_test_subscriptions_text(log, NULL, 4, NULL), SK_ERR_NULL_ARGUMENT);
    size_t length = 99;
    SK_OK_OR_FAIL(sk_test_subscriptions_text(log, NULL, 0, &length));
    cr_assert_eq(length, 0);
    sk_signal_release(logged);
    sk_test_subscriptions_release(log);
    sk_test_recorder_release(recorder);
    sk_signal_release(good);
    expect_no_live_objects(2, queue, real);
}

/* ------------------------------------------------------------------------ */
/* Limits                                                                    */
/* ------------------------------------------------------------------------ */

/* A frame that rounds to no nanosecond, or longer than 1e9 s, was clamped
 * silently (to 1 ns, to 1e9 s). */
Test(virtual_time, a_frame_below_a_nanosecond_or_above_1e9_seconds_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *signal = (sk_signal *)0x1;
    const double bad[] = { 1e-12, 4e-10, 1e10, 1e300 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, bad[i], "a|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT, "frame %g", bad[i]);
        cr_assert_null(signal);
        cr_assert(strstr(sk_last_error_message(), "frame") != NULL, "%s", sk_last_error_message());
        cr_assert_eq(sk_test_signal_hot(&signal, NULL, queue, bad[i], "a|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT, "frame %g", bad[i]);
    }
    sk_signal *good = cold(queue, "a|");
    sk_test_recorder *recorder = (sk_test_recorder *)0x1;
    cr_assert_eq(sk_test_record(&recorder, good, queue, 1e-12), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(recorder);
    cr_assert_eq(sk_test_record(&recorder, good, queue, 1e10), SK_ERR_INVALID_ARGUMENT);
    sk_signal *nanosecond = NULL;
    SK_OK_OR_FAIL(sk_test_signal_cold(&nanosecond, NULL, queue, 6e-10, "a|", NULL, 0, NULL));
    sk_signal_release(nanosecond);
    sk_signal_release(good);
    expect_no_live_objects(1, queue);
}

/* Frames of 1e9 s reach the clock's end (2^63 ns) at frame 10: a cold
 * signal trapped on the overflow when subscribed, a hot one when made. */
Test(virtual_time, a_diagram_past_the_clocks_end_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *signal = (sk_signal *)0x1;
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, 1e9, "----------a|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(signal);
    cr_assert(strstr(sk_last_error_message(), "clock's end") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_test_signal_hot(&signal, NULL, queue, 1e9, "^----------a|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    SK_OK_OR_FAIL(sk_test_signal_cold(&signal, NULL, queue, 1e9, "--------a|", NULL, 0, NULL));
    sk_test_recorder *recorder = NULL;
    SK_OK_OR_FAIL(sk_test_record(&recorder, signal, queue, 1e9));
    run(queue);
    expect_marbles(recorder, "--------a|");
    sk_test_recorder_release(recorder);
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

/* A table with a character twice, or one no diagram can hold, was taken
 * (the first entry won). */
Test(virtual_time, a_value_table_holds_letters_and_digits_each_once, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *signal = (sk_signal *)0x1;
    sk_marble_value table[2] = { { 'a', { 0 } }, { 'a', { 0 } } };
    table[0].value = int_value(1);
    table[1].value = int_value(2);
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "a|", table, 2, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(signal);
    cr_assert(strstr(sk_last_error_message(), "values[1].symbol") != NULL, "%s", sk_last_error_message());
    const char bad[] = { '-', '|', '#', '(', '^', ' ', '\0', (char)0xe9 };
    for (size_t i = 0; i < sizeof bad; i++) {
        table[1].symbol = bad[i];
        cr_assert_eq(sk_test_signal_hot(&signal, NULL, queue, FRAME, "a|", table, 2, NULL), SK_ERR_INVALID_ARGUMENT, "symbol %d", bad[i]);
    }
    table[1].symbol = '7';
    SK_OK_OR_FAIL(sk_test_signal_cold(&signal, NULL, queue, FRAME, "a7|", table, 2, NULL));
    sk_test_recorder *recorder = record(signal, queue);
    run(queue);
    expect_marbles_with(recorder, table, 2, "a7|");
    table[1].symbol = 'a';
    char buffer[8];
    cr_assert_eq(sk_test_recorder_diagram(recorder, table, 2, buffer, sizeof buffer, NULL), SK_ERR_INVALID_ARGUMENT);
    sk_test_recorder_release(recorder);
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

/* Printing an event 2e7 frames from the clock's 0 built a string of 2e7
 * characters; one 292 years away (a clock run to a far timer) never ended. */
Test(virtual_time, a_diagram_too_long_to_print_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, 20000.0, NULL));
    sk_signal *signal = cold(queue, "a|");
    sk_test_recorder *recorder = record(signal, queue);
    run(queue);
    char buffer[8];
    size_t length = 99;
    cr_assert_eq(sk_test_recorder_diagram(recorder, NULL, 0, buffer, sizeof buffer, &length), SK_ERR_RESOURCE);
    cr_assert_eq(length, 0);
    cr_assert_str_empty(buffer);
    cr_assert(strstr(sk_last_error_message(), "longer than") != NULL, "%s", sk_last_error_message());
    sk_test_recorder_release(recorder);
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

/* Each recorded event copied the whole recording: 40,000 events took 16 s,
 * 100,000 more than the test's timeout (quadratic: about 100 s), where
 * linear they take about 1.5 s. That is what this test catches, in the
 * plain build (make test-c). Under the sanitizers, which make every memory
 * access several times slower, 20,000 events: the recording is checked at
 * that size without a timeout in reach (100,000 took 11.5 s of the TSan
 * suite's 34, and 12.4 s under ASan on a loaded machine, near the 20 s
 * timeout); linear, they take about 2 s there. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SK_RECORDING_EVENTS 20000
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SK_RECORDING_EVENTS 20000
#endif
#endif
#ifndef SK_RECORDING_EVENTS
#define SK_RECORDING_EVENTS 100000
#endif

Test(virtual_time, recording_is_linear_in_the_number_of_events, .timeout = SK_TEST_TIMEOUT) {
    enum { count = SK_RECORDING_EVENTS };
    char *diagram = malloc(count + 2);
    cr_assert_not_null(diagram);
    for (size_t i = 0; i < count; i++) {
        diagram[i] = (char)('a' + i % 26);
    }
    diagram[count] = '|';
    diagram[count + 1] = '\0';
    sk_queue *queue = virtual_queue();
    sk_signal *signal = cold(queue, diagram);
    sk_test_recorder *recorder = record(signal, queue);
    size_t ran = 0;
    SK_OK_OR_FAIL(sk_queue_virtual_run(queue, 0, &ran));
    cr_assert_eq(ran, count + 1);
    char *actual = malloc(count + 2);
    cr_assert_not_null(actual);
    size_t length = 0;
    SK_OK_OR_FAIL(sk_test_recorder_diagram(recorder, NULL, 0, actual, count + 2, &length));
    cr_assert_eq(length, count + 1);
    cr_assert_str_eq(actual, diagram);
    free(actual);
    free(diagram);
    sk_test_recorder_release(recorder);
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

static void count_call(void *ctx) { (*(int *)ctx)++; }

/* A size_t past INT64_MAX arrived as a negative Int: SIZE_MAX tasks ran none
 * (SK_ERR_RESOURCE), a buffer of SIZE_MAX bytes was left as it was. */
Test(virtual_time, sizes_past_int64_max_mean_no_limit, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    int calls = 0;
    SK_OK_OR_FAIL(sk_queue_after(queue, frames(1), count_call, &calls, NULL));
    SK_OK_OR_FAIL(sk_queue_after(queue, frames(2), count_call, &calls, NULL));
    size_t ran = 0;
    SK_OK_OR_FAIL(sk_queue_virtual_run(queue, SIZE_MAX, &ran));
    cr_assert_eq(ran, 2);
    cr_assert_eq(calls, 2);
    sk_test_subscriptions *log = NULL;
    sk_signal *signal = cold_logged(queue, "a|", &log);
    sk_test_recorder *recorder = record(signal, queue);
    run(queue);
    char buffer[16];
    memset(buffer, 'X', sizeof buffer);
    size_t length = 0;
    SK_OK_OR_FAIL(sk_test_subscriptions_text(log, buffer, SIZE_MAX, &length));
    cr_assert_str_eq(buffer, "^2 !3");
    cr_assert_eq(length, 5);
    memset(buffer, 'X', sizeof buffer);
    SK_OK_OR_FAIL(sk_test_recorder_diagram(recorder, NULL, 0, buffer, SIZE_MAX, &length));
    cr_assert_str_eq(buffer, "--a|");
    cr_assert_eq(length, 4);
    sk_test_recorder_release(recorder);
    sk_signal_release(signal);
    sk_test_subscriptions_release(log);
    expect_no_live_objects(1, queue);
}

/* sk_test_recorder_dispose() given a released recorder did nothing but left
 * the last error as it was; the conventions promise a message. */
Test(virtual_time, disposing_a_released_recorder_sets_the_last_error, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(sk_live_objects(), 0);
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_queue *queue = virtual_queue();
    sk_signal *signal = cold(queue, "a|");
    sk_test_recorder *recorder = record(signal, queue);
    sk_test_recorder_release(recorder);
    sk_queue_release(NULL);
    cr_assert_eq(sk_queue_virtual_run(NULL, 0, NULL), SK_ERR_NULL_ARGUMENT);
    sk_test_recorder_dispose(recorder);
    cr_assert(strstr(sk_last_error_message(), "sk_test_recorder_dispose") != NULL, "%s", sk_last_error_message());
    sk_test_recorder_dispose((sk_test_recorder *)signal);
    cr_assert(strstr(sk_last_error_message(), "test recorder") != NULL, "%s", sk_last_error_message());
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

struct advancer {
    sk_queue *queue;
    int unexpected; /* statuses other than SK_OK and SK_ERR_BUSY */
    int status;
};

/* A sixth under the sanitizers, which slow each call some tenfold; the
 * release library's run (test-c) keeps the count that found the race. */
#define ADVANCES (SK_TEST_SANITIZED ? 50000 : 300000)

static void *advance_by_a_nanosecond(void *arg) {
    struct advancer *advancer = arg;
    for (int i = 0; i < ADVANCES; i++) {
        int status = sk_queue_virtual_advance_by(advancer->queue, 1e-9, NULL);
        if (status != SK_OK && status != SK_ERR_BUSY) {
            advancer->unexpected++;
            advancer->status = status;
        }
    }
    return NULL;
}

/* advance_by read the clock, then advanced to that time plus the duration:
 * another thread's advance in between made that a time in the past, and a
 * valid duration failed with SK_ERR_INVALID_ARGUMENT (about once in 100,000
 * calls of two threads). */
Test(virtual_time, advancing_by_from_two_threads_is_ok_or_busy, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    struct advancer advancers[2] = { { queue, 0, SK_OK }, { queue, 0, SK_OK } };
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(pthread_create(&threads[i], NULL, advance_by_a_nanosecond, &advancers[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
    }
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(advancers[i].unexpected, 0, "thread %d: %d calls returned another status, such as %d", i, advancers[i].unexpected, advancers[i].status);
    }
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Closing a virtual-time queue with a time-based operator pending           */
/* ------------------------------------------------------------------------ */

/* Each time-based operator over a pipe on a virtual-time queue, subscribed,
 * one value put (its timer 10 frames away), then every handle released
 * without a dispose: the observer is released exactly once, when the last
 * handle goes, and nothing stays alive, whether the queue goes first or
 * last. Before: the operator's state and its timer kept each other (and the
 * observer) alive for good once the queue had closed. */
typedef enum { TIMED_DEBOUNCE, TIMED_THROTTLE, TIMED_DELAY, TIMED_TIMEOUT, TIMED_TIMEOUT_SILENT } timed_op;

static void abandon_timed(timed_op op, bool queue_first) {
    static const char *names[] = { "debounce", "throttle", "delay", "timeout", "timeout (silent upstream)" };
    sk_queue *queue = virtual_queue();
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *timed = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    switch (op) {
    case TIMED_DEBOUNCE: SK_OK_OR_FAIL(sk_signal_debounce(&timed, source, frames(10), queue)); break;
    case TIMED_THROTTLE: SK_OK_OR_FAIL(sk_signal_throttle(&timed, source, frames(10), queue)); break;
    case TIMED_DELAY: SK_OK_OR_FAIL(sk_signal_delay(&timed, source, frames(10), queue)); break;
    default: SK_OK_OR_FAIL(sk_signal_timeout(&timed, source, frames(10), queue, source)); break;
    }
    recorder r;
    sk_disposable *d = recorder_start(&r, timed);
    if (op != TIMED_TIMEOUT_SILENT) {
        pipe_put_int(pipe, 1);
    }
    if (queue_first) {
        sk_queue_release(queue);
        sk_disposable_release(d);
        sk_signal_release(timed);
        sk_signal_release(source);
        sk_pipe_release(pipe);
    } else {
        sk_pipe_release(pipe);
        sk_signal_release(source);
        sk_signal_release(timed);
        sk_disposable_release(d);
        /* timeout's upstream answered in time: its timer is cancelled and
         * the pipe's release ended the subscription (before, the cancelled
         * timer kept it until the queue went); the others wait for their
         * pending timer. */
        cr_assert_eq(recorder_releases(&r), op == TIMED_TIMEOUT ? 1 : 0, "%s: observer released %d times with its queue still open",
                     names[op], recorder_releases(&r));
        sk_queue_release(queue);
    }
    /* timeout passes the upstream's value at once (the upstream answered in
     * time); the others hold it for their timer. */
    cr_assert_eq(recorder_nexts(&r), op == TIMED_TIMEOUT ? 1 : 0, "%s: %d values delivered without an advance", names[op],
                 recorder_nexts(&r));
    cr_assert_eq(recorder_releases(&r), 1, "%s (queue %s): observer released %d times", names[op],
                 queue_first ? "first" : "last", recorder_releases(&r));
    cr_assert_eq(sk_live_objects(), 0, "%s (queue %s): %ld objects alive", names[op], queue_first ? "first" : "last",
                 sk_live_objects());
    recorder_destroy(&r);
}

Test(virtual_time, abandoning_a_debounce_with_its_timer_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed(TIMED_DEBOUNCE, true);
    abandon_timed(TIMED_DEBOUNCE, false);
}

Test(virtual_time, abandoning_a_throttle_with_its_timer_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed(TIMED_THROTTLE, true);
    abandon_timed(TIMED_THROTTLE, false);
}

Test(virtual_time, abandoning_a_delay_with_its_timer_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed(TIMED_DELAY, true);
    abandon_timed(TIMED_DELAY, false);
}

Test(virtual_time, abandoning_a_timeout_with_its_timer_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed(TIMED_TIMEOUT, true);
    abandon_timed(TIMED_TIMEOUT, false);
    abandon_timed(TIMED_TIMEOUT_SILENT, true);
    abandon_timed(TIMED_TIMEOUT_SILENT, false);
}

/* A hot diagram plays from the clock's current frame: near the clock's end
 * (2^63 ns) one whose last frame falls past it is refused (it was accepted
 * and its later events silently dropped). A cold signal subscribed that late
 * plays only the events before the end: documented truncation. */
static void count_next(void *ctx, const sk_value *value) {
    (void)value;
    (*(int *)ctx)++;
}
static void count_completed(void *ctx) { (*(int *)ctx) += 100; }

Test(virtual_time, a_hot_diagram_past_the_clocks_end_from_now_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    SK_OK_OR_FAIL(sk_queue_virtual_advance_to(queue, 9.0e9, NULL)); /* frame 90 of 1e8 s; the end is past 92 */
    sk_signal *signal = (sk_signal *)0x1;
    cr_assert_eq(sk_test_signal_hot(&signal, NULL, queue, 1e8, "^a--b|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(signal);
    cr_assert(strstr(sk_last_error_message(), "clock's end") != NULL, "%s", sk_last_error_message());
    size_t pending = 1;
    SK_OK_OR_FAIL(sk_queue_virtual_pending(queue, &pending));
    cr_assert_eq(pending, 0);
    /* Within the end: accepted, played whole. */
    SK_OK_OR_FAIL(sk_test_signal_hot(&signal, NULL, queue, 1e8, "^a|", NULL, 0, NULL));
    int seen = 0;
    sk_observer observer = {count_next, NULL, count_completed, &seen, NULL};
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, signal, &observer));
    run(queue);
    cr_assert_eq(seen, 101);
    sk_disposable_release(subscription);
    sk_signal_release(signal);
    /* A cold signal subscribed at frame 90 of 1e8 s: `a` comes, `b` and `|`
     * (frames 93, 94) would be past the end and never come. */
    SK_OK_OR_FAIL(sk_test_signal_cold(&signal, NULL, queue, 1e8, "a--b|", NULL, 0, NULL));
    seen = 0;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, signal, &observer));
    run(queue);
    cr_assert_eq(seen, 1);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

/* Only ASCII letters and digits are values: a non-ASCII character is
 * refused with its position (`é` was taken as a value, recorded back as
 * `?`); `^` in a cold diagram is refused with its position ("a^b|" played
 * as "(ab)|"). */
Test(virtual_time, non_ascii_characters_and_a_cold_caret_are_refused_with_the_position, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *signal = (sk_signal *)0x1;
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "a-\xc3\xa9|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(signal);
    cr_assert(strstr(sk_last_error_message(), "at position 2:") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_test_signal_hot(&signal, NULL, queue, FRAME, "^\xc3\xa9|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "at position 1:") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "\xff|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "at position 0:") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "ab^c|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "at position 2:") != NULL, "%s", sk_last_error_message());
    cr_assert(strstr(sk_last_error_message(), "`^`") != NULL, "%s", sk_last_error_message());
    cr_assert_null(signal);
    /* The diagram's first error is named: a non-ASCII character or a cold
     * `^` after another error does not take its place (`é` at 3 was
     * named for "ab!é", whose `!` at 2 comes first). */
    const char *first_errors[][2] = {
        {"ab!\xc3\xa9", "at position 2:"},
        {"|a\xc3\xa9", "at position 1:"},
        {"ab\xc3\xa9!", "at position 2:"},
        {"(a\xc3\xa9)|", "at position 2:"},
        {"a|b^", "at position 2:"},
    };
    for (size_t i = 0; i < sizeof first_errors / sizeof first_errors[0]; i++) {
        cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, first_errors[i][0], NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(sk_last_error_message(), first_errors[i][1]) != NULL, "%s: %s", first_errors[i][0], sk_last_error_message());
    }
    /* `^` in a hot diagram is its subscription point, as before. */
    SK_OK_OR_FAIL(sk_test_signal_hot(&signal, NULL, queue, FRAME, "a^b|", NULL, 0, NULL));
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

/* A control character of a diagram (a line feed, a tab) was quoted as it
 * is: the message's diagram ran over two lines and its caret stood under
 * nothing. It is named by its code point and shown as its picture (one
 * character, as positions count), so the message keeps its three lines.
 * A value table's symbol that is not a letter or digit is named as a
 * character (it was its number: "45"), or as its byte. */
Test(virtual_time, control_characters_and_bad_symbols_are_named_in_words, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *signal = NULL;
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "-a\n-!|\t", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_test_signal_cold: marble diagram: unexpected character U+000A at position 2:\n"
                     "  -a\xe2\x90\x8a-!|\xe2\x90\x89\n"
                     "    ^");
    sk_marble_value table[1];
    table[0].symbol = '-';
    sk_value_set_int64(&table[0].value, 1);
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "-|", table, 1, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_last_error_message(), "sk_test_signal_cold: values[0].symbol: `-` is not an ASCII letter or digit");
    table[0].symbol = '\n';
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "-|", table, 1, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_last_error_message(), "sk_test_signal_cold: values[0].symbol: byte 0x0A is not an ASCII letter or digit");
    cr_assert_null(signal);
    expect_no_live_objects(1, queue);
}

/* Whether `text` is valid UTF-8 (no byte of a character cut off). */
static bool is_valid_utf8(const char *text) {
    const unsigned char *byte = (const unsigned char *)text;
    while (*byte != 0) {
        int following = *byte < 0x80 ? 0 : (*byte & 0xE0) == 0xC0 ? 1 : (*byte & 0xF0) == 0xE0 ? 2 : (*byte & 0xF8) == 0xF0 ? 3 : -1;
        if (following < 0) {
            return false;
        }
        byte++;
        for (int i = 0; i < following; i++, byte++) {
            if ((*byte & 0xC0) != 0x80) {
                return false;
            }
        }
    }
    return true;
}

/* Asserts that the last error message names `position` and shows a caret
 * under the character `offending` (ASCII) on the line after the one quoting
 * the diagram. */
static void expect_caret_under(const char *offending, int position) {
    const char *message = sk_last_error_message();
    char expected[64];
    snprintf(expected, sizeof expected, "at position %d:\n", position);
    const char *quoted = strstr(message, expected);
    cr_assert_not_null(quoted, "%s", message);
    quoted = strchr(quoted, '\n') + 1;
    const char *caret_line = strchr(quoted, '\n');
    cr_assert_not_null(caret_line, "no caret line: %s", message);
    caret_line++;
    const char *caret = strchr(caret_line, '^');
    cr_assert_not_null(caret, "no caret: %s", message);
    const char *character = strstr(quoted, offending);
    cr_assert(character != NULL && character < caret_line - 1, "%s", message);
    cr_assert_eq(character - quoted, caret - caret_line, "caret at %td, `%s` at %td:\n%s", caret - caret_line, offending,
                 character - quoted, message);
}

/* The last error message holds 511 bytes, and a diagram's error quoted the
 * whole diagram with a caret under the offending character: past about 230
 * characters the message was cut, the caret line and (for a late error) the
 * offending character lost, and a cut through a character of two bytes left
 * half of it (invalid UTF-8). A long diagram is now quoted around the
 * position, the cuts marked `...`. */
Test(virtual_time, an_error_in_a_long_diagram_keeps_its_caret_and_valid_utf8, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = virtual_queue();
    sk_signal *signal = NULL;
    char diagram[1024];
    /* A parse error late in a long diagram. */
    memset(diagram, '-', 400);
    strcpy(diagram + 400, "!--a|");
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, diagram, NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    expect_caret_under("!", 400);
    cr_assert(strstr(sk_last_error_message(), "...") != NULL, "the cut is not marked: %s", sk_last_error_message());
    /* A parse error early in a long diagram: the caret where it was. */
    strcpy(diagram, "-!");
    memset(diagram + 2, '-', 400);
    strcpy(diagram + 402, "a|");
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, diagram, NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    expect_caret_under("!", 1);
    /* A cold `^` in a long hot-looking diagram. */
    memset(diagram, '-', 300);
    strcpy(diagram + 300, "^a|");
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, diagram, NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    expect_caret_under("^", 300);
    /* A non-ASCII character followed by 300 more (two bytes each). */
    strcpy(diagram, "-");
    for (int i = 0; i < 300; i++) {
        strcat(diagram, "\xc3\xa9");
    }
    cr_assert_eq(sk_test_signal_hot(&signal, NULL, queue, FRAME, diagram, NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert(is_valid_utf8(sk_last_error_message()), "%s", sk_last_error_message());
    cr_assert(strstr(sk_last_error_message(), "at position 1:") != NULL, "%s", sk_last_error_message());
    cr_assert(strchr(sk_last_error_message(), '^') != NULL, "no caret: %s", sk_last_error_message());
    /* A short diagram is still quoted whole, without marks. */
    cr_assert_eq(sk_test_signal_cold(&signal, NULL, queue, FRAME, "-a-!-b|", NULL, 0, NULL), SK_ERR_INVALID_ARGUMENT);
    expect_caret_under("!", 3);
    cr_assert(strstr(sk_last_error_message(), "  -a-!-b|\n") != NULL, "%s", sk_last_error_message());
    cr_assert_null(strstr(sk_last_error_message(), "..."), "%s", sk_last_error_message());
    expect_no_live_objects(1, queue);
}

/* Frames past 2^52 ns from the clock's 0 (about 52 days) came a few
 * nanoseconds early, one frame early in the diagram: the test signals
 * scheduled each event after a delay in seconds, a double, which has no
 * whole nanosecond for every such time. Frames of 99999.999999997 s: the
 * value of frame 100 came at 10099999999999696 ns, in frame 100 it is
 * 10099999999999697 ns. */
Test(virtual_time, frames_far_from_the_clocks_start_come_at_their_exact_nanosecond, .timeout = SK_TEST_TIMEOUT) {
    const double frame = 99999.999999997;
    const int64_t frame_ns = 99999999999997;
    char diagram[128];
    memset(diagram, '-', 100);
    strcpy(diagram + 100, "a|");
    sk_queue *queue = virtual_queue();
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_test_signal_cold(&signal, NULL, queue, frame, diagram, NULL, 0, NULL));
    sk_test_recorder *recorder = NULL;
    SK_OK_OR_FAIL(sk_test_record(&recorder, signal, queue, frame));
    run(queue);
    cr_assert_eq(now_ns(queue), 101 * frame_ns);
    char actual[128];
    SK_OK_OR_FAIL(sk_test_recorder_diagram(recorder, NULL, 0, actual, sizeof actual, NULL));
    cr_assert_str_eq(actual, diagram, "\nexpected: %s\nactual:   %s", diagram, actual);
    sk_test_recorder_release(recorder);
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}
