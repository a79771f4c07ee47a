/* test_operators_timing.c - run-on, delay, timeout and throttle: where and
 * when the upstream starts, which events pass, disposal, and argument
 * errors. Timers are short (0.02 s) and waited for with deadlines on a
 * host-drained queue, so that the test thread decides when their work runs;
 * the tests assert ordering, never durations. */
#include <math.h>
#include <string.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* A source that records where it was started, keeps its latest subscriber
 * and returns a disposable whose disposal it counts. */
typedef struct probe {
    pthread_mutex_t mutex;
    sk_queue *queue; /* borrowed: the queue starts are expected on */
    int starts;
    int starts_on_queue;
    pthread_t thread; /* of the latest start */
    sk_subscriber *subscriber;
    counter disposed;
    counter released;
} probe;

static void probe_init(probe *p, sk_queue *queue) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mutex, NULL);
    p->queue = queue;
    counter_init(&p->disposed);
    counter_init(&p->released);
}

static void probe_destroy(probe *p) {
    sk_subscriber_release(p->subscriber);
    counter_destroy(&p->disposed);
    counter_destroy(&p->released);
    pthread_mutex_destroy(&p->mutex);
}

static sk_disposable *probe_generator(void *ctx, sk_subscriber *subscriber) {
    probe *p = ctx;
    bool on_queue = p->queue != NULL && sk_queue_is_current(p->queue);
    pthread_mutex_lock(&p->mutex);
    p->starts++;
    p->starts_on_queue += on_queue ? 1 : 0;
    p->thread = pthread_self();
    sk_subscriber *previous = p->subscriber;
    p->subscriber = sk_subscriber_retain(subscriber);
    pthread_mutex_unlock(&p->mutex);
    sk_subscriber_release(previous);
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_disposable_action(&d, counter_hit, &p->disposed, NULL));
    return d;
}

static void probe_release(void *ctx) {
    counter_hit(&((probe *)ctx)->released);
}

static sk_signal *probe_signal(probe *p) {
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_create(&signal, probe_generator, p, probe_release));
    return signal;
}

static int probe_starts(probe *p) {
    pthread_mutex_lock(&p->mutex);
    int n = p->starts;
    pthread_mutex_unlock(&p->mutex);
    return n;
}

static sk_queue *host_queue(const char *name) {
    sk_queue *host = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&host, name));
    return host;
}

/* Waits for the host queue's fd and drains it until `done(arg)` holds. */
static void drain_until(sk_queue *host, bool (*done)(void *arg), void *arg) {
    int fd = -1;
    SK_OK_OR_FAIL(sk_queue_host_fd(host, &fd));
    double deadline = now_seconds() + SK_WAIT_SECONDS;
    while (!done(arg)) {
        cr_assert(now_seconds() < deadline, "timed out draining the host queue");
        if (fd_wait_readable(fd, deadline - now_seconds())) {
            SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
        }
    }
}

static bool probe_started(void *arg) {
    return probe_starts(arg) >= 1;
}

typedef struct event_goal {
    recorder *r;
    size_t count;
} event_goal;

static bool has_events(void *arg) {
    event_goal *goal = arg;
    pthread_mutex_lock(&goal->r->mutex);
    size_t have = goal->r->event_count;
    pthread_mutex_unlock(&goal->r->mutex);
    return have >= goal->count;
}

static void drain_until_events(sk_queue *host, recorder *r, size_t count) {
    event_goal goal = { r, count };
    drain_until(host, has_events, &goal);
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

/* ------------------------------------------------------------------------ */
/* Run on                                                                    */
/* ------------------------------------------------------------------------ */

Test(operators_timing, run_on_starts_the_upstream_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.run_on");
    int fd = -1;
    SK_OK_OR_FAIL(sk_queue_host_fd(host, &fd));
    probe p;
    probe_init(&p, host);
    sk_signal *source = probe_signal(&p);
    sk_signal *moved = NULL;
    SK_OK_OR_FAIL(sk_signal_run_on(&moved, source, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, moved);
    cr_assert_eq(probe_starts(&p), 0, "started before the queue ran");
    cr_assert(fd_readable_now(fd), "the start was not enqueued");
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    cr_assert_eq(probe_starts(&p), 1);
    cr_assert_eq(p.starts_on_queue, 1, "not started on the queue");
    cr_assert(pthread_equal(p.thread, pthread_self()), "not started on the draining thread");
    /* Events are delivered where they are emitted: here, outside the queue. */
    subscriber_put_int(p.subscriber, 7);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(p.subscriber));
    const int64_t expected[] = { 7 };
    recorder_expect(&r, "ncr", expected, 1);
    cr_assert_eq(counter_get(&p.disposed), 1);
    recorder_finish(&r, d);
    sk_signal_release(moved);
    sk_signal_release(source);
    cr_assert_eq(counter_get(&p.released), 1);
    probe_destroy(&p);
    expect_no_live_objects(1, host);
}

Test(operators_timing, run_on_disposed_before_the_queue_runs_never_starts, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    probe p;
    probe_init(&p, host);
    sk_signal *source = probe_signal(&p);
    sk_signal *moved = NULL;
    SK_OK_OR_FAIL(sk_signal_run_on(&moved, source, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, moved);
    sk_disposable_dispose(d);
    flush_queue(host);
    cr_assert_eq(probe_starts(&p), 0, "started after the dispose");
    recorder_expect(&r, "r", NULL, 0);
    recorder_finish(&r, d);
    sk_signal_release(moved);
    sk_signal_release(source);
    probe_destroy(&p);
    expect_no_live_objects(1, host);
}

typedef struct inline_start {
    sk_signal *signal;
    probe *p;
    recorder *r;
    sk_disposable *d;
    int starts_when_start_returned;
} inline_start;

static void start_from_the_queue(void *arg) {
    inline_start *s = arg;
    sk_observer observer = recorder_observer(s->r);
    SK_OK_OR_ABORT(sk_signal_start(&s->d, s->signal, &observer));
    s->starts_when_start_returned = probe_starts(s->p);
}

Test(operators_timing, run_on_starts_inline_when_already_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&queue, "test.run_on.inline"));
    probe p;
    probe_init(&p, queue);
    sk_signal *source = probe_signal(&p);
    sk_signal *moved = NULL;
    SK_OK_OR_FAIL(sk_signal_run_on(&moved, source, queue));
    recorder r;
    recorder_init(&r);
    inline_start s = { moved, &p, &r, NULL, -1 };
    SK_OK_OR_FAIL(sk_queue_sync(queue, start_from_the_queue, &s, NULL));
    cr_assert_eq(s.starts_when_start_returned, 1, "not started inline");
    cr_assert_eq(p.starts_on_queue, 1);
    recorder_finish(&r, s.d);
    cr_assert_eq(counter_get(&p.disposed), 1);
    sk_signal_release(moved);
    sk_signal_release(source);
    probe_destroy(&p);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Delay                                                                     */
/* ------------------------------------------------------------------------ */

Test(operators_timing, delay_starts_the_upstream_from_a_timer_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.delay");
    probe p;
    probe_init(&p, host);
    sk_signal *source = probe_signal(&p);
    sk_signal *delayed = NULL;
    SK_OK_OR_FAIL(sk_signal_delay(&delayed, source, 0.02, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, delayed);
    cr_assert_eq(probe_starts(&p), 0, "started at once");
    drain_until(host, probe_started, &p);
    cr_assert_eq(probe_starts(&p), 1);
    cr_assert_eq(p.starts_on_queue, 1, "not started on the queue");
    /* Values are not delayed. */
    subscriber_put_int(p.subscriber, 1);
    subscriber_put_int(p.subscriber, 2);
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&r, "nn", expected, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(p.subscriber));
    recorder_expect(&r, "nncr", expected, 2);
    expect_on_this_thread(&r);
    recorder_finish(&r, d);
    sk_signal_release(delayed);
    sk_signal_release(source);
    probe_destroy(&p);
    expect_no_live_objects(1, host);
}

Test(operators_timing, delay_disposed_before_the_timer_never_starts, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    probe p;
    probe_init(&p, host);
    sk_signal *source = probe_signal(&p);
    /* A long delay, and an infinite one (a timer that never fires). */
    const double delays[] = { 1000.0, INFINITY };
    for (size_t i = 0; i < 2; i++) {
        sk_signal *delayed = NULL;
        SK_OK_OR_FAIL(sk_signal_delay(&delayed, source, delays[i], host));
        recorder r;
        sk_disposable *d = recorder_start(&r, delayed);
        sk_disposable_dispose(d);
        flush_queue(host);
        recorder_expect(&r, "r", NULL, 0);
        recorder_finish(&r, d);
        sk_signal_release(delayed);
    }
    cr_assert_eq(probe_starts(&p), 0);
    sk_signal_release(source);
    probe_destroy(&p);
    /* The timers are gone with the subscriptions. */
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Timeout                                                                   */
/* ------------------------------------------------------------------------ */

Test(operators_timing, timeout_lets_an_upstream_that_answers_in_time_pass, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.timeout");
    probe upstream, alternate;
    probe_init(&upstream, host);
    probe_init(&alternate, host);
    sk_signal *source = probe_signal(&upstream), *fallback = probe_signal(&alternate);
    sk_signal *timed = NULL;
    SK_OK_OR_FAIL(sk_signal_timeout(&timed, source, 1000.0, host, fallback));
    sk_signal_release(fallback); /* borrowed: the result retains it */
    recorder r;
    sk_disposable *d = recorder_start(&r, timed);
    cr_assert_eq(probe_starts(&upstream), 1, "the upstream starts at once");
    subscriber_put_int(upstream.subscriber, 1);
    subscriber_put_int(upstream.subscriber, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(upstream.subscriber));
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&r, "nncr", expected, 2);
    flush_queue(host);
    cr_assert_eq(probe_starts(&alternate), 0, "the alternate started");
    recorder_finish(&r, d);
    sk_signal_release(timed);
    sk_signal_release(source);

    /* An upstream answering synchronously wins even against a zero timeout
     * (its timer's work cannot run before this thread drains). */
    const int64_t input[] = { 3 };
    sk_signal *ints = ints_signal(input, 1);
    fallback = probe_signal(&alternate);
    SK_OK_OR_FAIL(sk_signal_timeout(&timed, ints, 0, host, fallback));
    d = recorder_start(&r, timed);
    recorder_expect(&r, "ncr", input, 1);
    flush_queue(host);
    cr_assert_eq(probe_starts(&alternate), 0, "the alternate started");
    recorder_finish(&r, d);
    sk_signal_release(timed);
    sk_signal_release(fallback);
    sk_signal_release(ints);
    cr_assert_eq(counter_get(&alternate.released), 2);
    probe_destroy(&upstream);
    probe_destroy(&alternate);
    expect_no_live_objects(1, host);
}

Test(operators_timing, timeout_switches_to_the_alternate_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.timeout.fire");
    probe upstream, alternate;
    probe_init(&upstream, host);
    probe_init(&alternate, host);
    sk_signal *source = probe_signal(&upstream), *fallback = probe_signal(&alternate);
    sk_signal *timed = NULL;
    SK_OK_OR_FAIL(sk_signal_timeout(&timed, source, 0.02, host, fallback));
    recorder r;
    sk_disposable *d = recorder_start(&r, timed);
    drain_until(host, probe_started, &alternate);
    cr_assert_eq(alternate.starts_on_queue, 1, "the alternate did not start on the queue");
    cr_assert_eq(counter_get(&upstream.disposed), 1, "the silent upstream is disposed");
    subscriber_put_int(upstream.subscriber, 1); /* too late: dropped */
    subscriber_put_int(alternate.subscriber, 5);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(alternate.subscriber));
    const int64_t expected[] = { 5 };
    recorder_expect(&r, "ncr", expected, 1);
    cr_assert_eq(counter_get(&alternate.disposed), 1);
    recorder_finish(&r, d);
    sk_signal_release(timed);
    sk_signal_release(source);
    sk_signal_release(fallback);
    probe_destroy(&upstream);
    probe_destroy(&alternate);
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Throttle                                                                  */
/* ------------------------------------------------------------------------ */

Test(operators_timing, throttle_delivers_the_latest_value_of_each_window, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.throttle");
    int fd = -1;
    SK_OK_OR_FAIL(sk_queue_host_fd(host, &fd));
    probe p;
    probe_init(&p, NULL);
    sk_signal *source = probe_signal(&p);
    sk_signal *throttled = NULL;
    SK_OK_OR_FAIL(sk_signal_throttle(&throttled, source, 0.02, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, throttled);
    sk_subscriber *sub = p.subscriber;

    /* A burst in one window: its latest value at the end of the window. */
    subscriber_put_int(sub, 1);
    subscriber_put_int(sub, 2);
    drain_until_events(host, &r, 1);
    const int64_t first[] = { 2 };
    recorder_expect(&r, "n", first, 1);

    /* A value arriving after the window's timer fired but before its work
     * ran still belongs to that window: the window is not restarted by new
     * values (which is what tells throttle from debounce). */
    subscriber_put_int(sub, 3);
    cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "the window did not end");
    subscriber_put_int(sub, 4);
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    const int64_t second[] = { 2, 4 };
    recorder_expect(&r, "nn", second, 2);

    /* The completion flushes the pending value first. */
    subscriber_put_int(sub, 5);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(sub));
    drain_until_events(host, &r, 5);
    const int64_t all[] = { 2, 4, 5 };
    recorder_expect(&r, "nnncr", all, 3);
    expect_on_this_thread(&r);
    recorder_finish(&r, d);
    sk_signal_release(throttled);
    sk_signal_release(source);
    probe_destroy(&p);
    expect_no_live_objects(1, host);
}

Test(operators_timing, throttle_error_drops_the_pending_value, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    probe p;
    probe_init(&p, NULL);
    sk_signal *source = probe_signal(&p);
    sk_signal *throttled = NULL;
    SK_OK_OR_FAIL(sk_signal_throttle(&throttled, source, 1000.0, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, throttled);
    subscriber_put_int(p.subscriber, 1);
    sk_value error = string_value("failed");
    SK_OK_OR_FAIL(sk_subscriber_put_error(p.subscriber, &error));
    drain_until_events(host, &r, 2);
    recorder_expect(&r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&r, 0)->value, &error));
    sk_value_release(&error);
    recorder_finish(&r, d);
    sk_signal_release(throttled);
    sk_signal_release(source);
    probe_destroy(&p);
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Disposal                                                                  */
/* ------------------------------------------------------------------------ */

Test(operators_timing, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    for (int which = 0; which < 4; which++) {
        probe p, alternate;
        probe_init(&p, host);
        probe_init(&alternate, host);
        sk_signal *source = probe_signal(&p), *fallback = probe_signal(&alternate);
        sk_signal *op = NULL;
        switch (which) {
        case 0: SK_OK_OR_FAIL(sk_signal_run_on(&op, source, host)); break;
        case 1: SK_OK_OR_FAIL(sk_signal_delay(&op, source, 0, host)); break;
        case 2: SK_OK_OR_FAIL(sk_signal_timeout(&op, source, 1000.0, host, fallback)); break;
        default: SK_OK_OR_FAIL(sk_signal_throttle(&op, source, 0, host)); break;
        }
        recorder r;
        sk_disposable *d = recorder_start(&r, op);
        drain_until(host, probe_started, &p);
        /* A value pending in throttle's window is dropped by the dispose. */
        subscriber_put_int(p.subscriber, 1);
        sk_disposable_dispose(d);
        cr_assert_eq(counter_get(&p.disposed), 1, "operator %d: upstream not disposed", which);
        subscriber_put_int(p.subscriber, 2);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(p.subscriber));
        flush_queue(host);
        char log[16];
        recorder_log(&r, log, sizeof log);
        const char *expected = which == 3 ? "r" : "nr";
        cr_assert_str_eq(log, expected, "operator %d: log %s", which, log);
        cr_assert_eq(probe_starts(&alternate), 0);
        recorder_finish(&r, d);
        sk_signal_release(op);
        sk_signal_release(source);
        sk_signal_release(fallback);
        probe_destroy(&p);
        probe_destroy(&alternate);
    }
    expect_no_live_objects(1, host);
}

/* ------------------------------------------------------------------------ */
/* Argument errors                                                           */
/* ------------------------------------------------------------------------ */

Test(operators_timing, argument_errors, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&never));
    sk_queue *host = host_queue(NULL);
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *not_signal = (sk_signal *)(void *)pipe;
    sk_queue *not_queue = (sk_queue *)(void *)pipe;
    sk_signal *out = NULL;

#define EXPECT_ERROR(call, expected)                                                      \
    do {                                                                                  \
        out = (sk_signal *)&out;                                                          \
        int status_ = (call);                                                             \
        cr_assert_eq(status_, (expected), "%s returned %d (%s)", #call, status_,          \
                     sk_last_error_message());                                            \
        cr_assert(strlen(sk_last_error_message()) > 0);                                   \
    } while (0)
#define EXPECT_ERROR_OUT_NULL(call, expected)                                             \
    do {                                                                                  \
        EXPECT_ERROR(call, expected);                                                     \
        cr_assert_null(out, "%s left out set", #call);                                    \
    } while (0)

    EXPECT_ERROR(sk_signal_run_on(NULL, never, host), SK_ERR_NULL_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_run_on(&out, NULL, host), SK_ERR_NULL_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_run_on(&out, never, NULL), SK_ERR_NULL_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_run_on(&out, not_signal, host), SK_ERR_WRONG_KIND);
    EXPECT_ERROR_OUT_NULL(sk_signal_run_on(&out, never, not_queue), SK_ERR_WRONG_KIND);

    for (int which = 0; which < 3; which++) {
        int (*op)(sk_signal **, sk_signal *, double, sk_queue *) =
            which == 0 ? sk_signal_delay : which == 1 ? sk_signal_throttle : sk_signal_debounce;
        EXPECT_ERROR(op(NULL, never, 0.1, host), SK_ERR_NULL_ARGUMENT);
        EXPECT_ERROR_OUT_NULL(op(&out, NULL, 0.1, host), SK_ERR_NULL_ARGUMENT);
        EXPECT_ERROR_OUT_NULL(op(&out, never, 0.1, NULL), SK_ERR_NULL_ARGUMENT);
        EXPECT_ERROR_OUT_NULL(op(&out, not_signal, 0.1, host), SK_ERR_WRONG_KIND);
        EXPECT_ERROR_OUT_NULL(op(&out, never, 0.1, not_queue), SK_ERR_WRONG_KIND);
        EXPECT_ERROR_OUT_NULL(op(&out, never, -0.001, host), SK_ERR_INVALID_ARGUMENT);
        EXPECT_ERROR_OUT_NULL(op(&out, never, NAN, host), SK_ERR_INVALID_ARGUMENT);
        EXPECT_ERROR_OUT_NULL(op(&out, never, -INFINITY, host), SK_ERR_INVALID_ARGUMENT);
        /* Zero and infinity are durations. */
        SK_OK_OR_FAIL(op(&out, never, 0, host));
        sk_signal_release(out);
        SK_OK_OR_FAIL(op(&out, never, INFINITY, host));
        sk_signal_release(out);
    }

    EXPECT_ERROR(sk_signal_timeout(NULL, never, 0.1, host, never), SK_ERR_NULL_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, NULL, 0.1, host, never), SK_ERR_NULL_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, never, 0.1, NULL, never), SK_ERR_NULL_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, never, 0.1, host, NULL), SK_ERR_NULL_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, not_signal, 0.1, host, never), SK_ERR_WRONG_KIND);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, never, 0.1, not_queue, never), SK_ERR_WRONG_KIND);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, never, 0.1, host, not_signal), SK_ERR_WRONG_KIND);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, never, -1, host, never), SK_ERR_INVALID_ARGUMENT);
    EXPECT_ERROR_OUT_NULL(sk_signal_timeout(&out, never, NAN, host, never), SK_ERR_INVALID_ARGUMENT);

#undef EXPECT_ERROR
#undef EXPECT_ERROR_OUT_NULL
    sk_pipe_release(pipe);
    sk_signal_release(never);
    expect_no_live_objects(1, host);
}
